"""One seat of a PettingZoo AEC game seen as a Gymnasium env, so single-agent learners train on it.

``AECSingleAgentEnv(aec_env, learner_seat, opponents)`` hands the learner the decisions of its seat
only; every other seat is played inside ``step`` by an opponent agent (a fixed agent, one agent per
seat, or a source such as a pool of frozen snapshots of the learner). It works for any AEC env
whose observations are ``{"observation", "action_mask"}`` dicts: ours and PettingZoo's classic
games alike.

Rewards. The reward returned by ``step`` is everything the learner's seat earned from its action
up to its next decision (what PettingZoo's ``last()`` reports for that seat), so the terminal
reward reaches the learner's last transition whoever made the final move: a seat that loses on an
opponent's move gets its -1 from the step that handed over the turn. A reward earned before the
learner's first decision (none in our games) is dropped, as Gymnasium's ``reset`` returns none.
The last step's ``info["is_success"]`` (SB3's success-rate key) is the game's own when it sets one,
else whether the learner's final reward is positive.

Seats. ``learner_seat`` is a seat index or name (fixed), ``"random"`` (drawn each episode) or
``"all"`` (each episode takes the next seat in turn, starting at ``seat_offset`` after every seeded
reset: give each copy of a vectorized env its own offset and the copies hold different seats at
once, so the learner plays every seat). ``info["seat"]`` names the learner's seat of the episode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from ..core.agent import Agent, RandomAgent
from ..core.errors import ILLEGAL_ACTION_OUTCOME, IllegalActionError
from .gym_env import ILLEGAL_ACTION_MODES, check_action_index

SEAT_MODES = ("random", "all")

#: ``(seat_name, rng) -> Agent``: called at every reset for each seat the learner does not hold
OpponentSource = Callable[[str, np.random.Generator], Agent]


class AECSingleAgentEnv(gym.Env):
    """A Gymnasium env over one seat of an AEC game; the other seats are played by opponents.

    Args:
        aec_env: a PettingZoo AEC env with Dict observations ``{"observation", "action_mask"}`` and
            the same observation and ``Discrete`` action space for every seat.
        learner_seat: a seat index or name, ``"random"`` or ``"all"`` (see the module docstring).
        opponents: None (masked random agents), one ``Agent`` for every other seat, a sequence with
            one agent per seat (the learner's own entry is skipped), or an ``OpponentSource``
            called at each reset. An object with an ``update`` method also receives
            ``update_opponents(...)`` calls (how training pushes snapshots into it).
        illegal_action: ``"penalize"`` (the default, as in the Gymnasium envs: the episode ends
            with ``illegal_action_penalty`` and ``info["outcome"] == "illegal action"``, so
            Gymnasium's ``check_env`` can step it with unmasked random actions) or ``"raise"``
            (``IllegalActionError``, the env unchanged).
        seat_offset: the first seat of ``learner_seat="all"``.
    """

    action_space: spaces.Discrete  # every seat shares one Discrete space (_shared_spaces)
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        aec_env: Any,
        learner_seat: int | str = "random",
        opponents: Agent | Sequence[Agent] | OpponentSource | None = None,
        illegal_action: str = "penalize",
        illegal_action_penalty: float = -1.0,
        seat_offset: int = 0,
    ) -> None:
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.aec = aec_env
        self.seats: list[str] = list(aec_env.possible_agents)
        if len(self.seats) < 2:
            raise ValueError(f"an AEC game with {len(self.seats)} seat(s) needs no opponents")
        self._seat_mode, self._fixed_seat = _parse_seat(learner_seat, self.seats)
        self.seat_offset = int(seat_offset)
        self.opponents = opponents
        self._check_opponents()
        self.illegal_action = illegal_action
        self.illegal_action_penalty = float(illegal_action_penalty)
        self.observation_space, self.action_space = _shared_spaces(aec_env, self.seats)
        self.render_mode = getattr(aec_env, "render_mode", None)
        self.learner: str | None = None
        self._seat_agents: dict[str, Agent] = {}
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)
        self._episodes = 0
        self._episode_over = True
        self._started = False

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:  # the same seed gives the same episode, seat rotation included
            self._episodes = 0
        if options:
            raise ValueError(f"AECSingleAgentEnv.reset takes no options, got {sorted(options)}")
        rng = self.np_random
        self.learner = self._next_learner_seat(rng)
        self._seat_agents = self._draw_opponents(rng)
        self.aec.reset(seed=int(rng.integers(2**31)))
        for agent in self._seat_agents.values():
            agent.reset(seed=int(rng.integers(2**31)))
        self._episodes += 1
        self._started = True
        self._episode_over = False
        obs, _reward, terminated, truncated, info = self._play_until_learner()
        if terminated or truncated:
            raise RuntimeError(
                f"the game ended before seat {self.learner!r} made a decision; it offers the learner nothing to play"
            )
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise ResetNeeded("call reset() before step()")
        if self._episode_over:
            raise ResetNeeded("the episode has ended; call reset() before step()")
        index = check_action_index(action, int(self.action_space.n))
        if not self._mask[index]:
            message = f"action {index} is not legal for seat {self.learner!r} now"
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            self._episode_over = True
            self._mask = np.zeros_like(self._mask)
            info = {
                "action_mask": self._mask.copy(),
                "illegal_action": True,
                "illegal_reason": message,
                "outcome": ILLEGAL_ACTION_OUTCOME,
                "is_success": False,
                "seat": self.learner,
            }
            return self._last_observation, self.illegal_action_penalty, True, False, info
        self.aec.step(index)
        return self._play_until_learner()

    def action_masks(self) -> np.ndarray:
        """The learner's int8 mask now (all zero once its episode is over); MaskablePPO calls it."""
        if not self._started:
            raise ResetNeeded("call reset() before action_masks()")
        return self._mask.copy()

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------------ training hooks

    def update_opponents(self, *args: Any, **kwargs: Any) -> None:
        """Forward to ``opponents.update`` (a snapshot pool takes new snapshots this way)."""
        update = getattr(self.opponents, "update", None)
        if update is None:
            raise TypeError(f"the opponents ({type(self.opponents).__name__}) take no updates")
        update(*args, **kwargs)

    @property
    def state(self) -> Any:
        """The game's state object, handed to agents: ``aec.unwrapped.game_state`` in our AEC
        games (``AECEnv.state()`` is PettingZoo's global-observation method, not this), else None.
        """
        return getattr(self.aec.unwrapped, "game_state", None)

    @property
    def seat_agents(self) -> dict[str, Agent]:
        """The agent playing each non-learner seat in the current episode."""
        return dict(self._seat_agents)

    # ------------------------------------------------------------------ internals

    def _play_until_learner(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step the other seats until the learner must decide or its game is over."""
        aec = self.aec
        state = self.state
        while aec.agents:
            seat = aec.agent_selection
            observation, reward, terminated, truncated, info = aec.last()
            if seat == self.learner:
                out = dict(info)
                out["seat"] = seat
                self._last_observation = observation["observation"]
                if terminated or truncated:
                    self._episode_over = True
                    self._mask = np.zeros(self.action_space.n, dtype=np.int8)
                    out["action_mask"] = self._mask.copy()
                    out.setdefault("is_success", bool(reward > 0))
                    return (
                        self._last_observation,
                        float(reward),
                        bool(terminated),
                        bool(truncated and not terminated),
                        out,
                    )
                self._mask = np.asarray(observation["action_mask"], dtype=np.int8).copy()
                out["action_mask"] = self._mask.copy()
                return self._last_observation, float(reward), False, False, out
            if terminated or truncated:
                aec.step(None)
                continue
            mask = np.asarray(observation["action_mask"], dtype=np.int8)
            aec.step(self._seat_agents[seat].act(observation["observation"], mask, state))
        raise RuntimeError(f"every seat left the game before seat {self.learner!r} was told its result")

    def _next_learner_seat(self, rng: np.random.Generator) -> str:
        if self._seat_mode == "fixed":
            return self._fixed_seat
        if self._seat_mode == "random":
            return self.seats[int(rng.integers(len(self.seats)))]
        return self.seats[(self.seat_offset + self._episodes) % len(self.seats)]

    def _draw_opponents(self, rng: np.random.Generator) -> dict[str, Agent]:
        others = [seat for seat in self.seats if seat != self.learner]
        source = self.opponents
        if source is None:
            return {seat: RandomAgent() for seat in others}
        if isinstance(source, Agent):
            return dict.fromkeys(others, source)
        if isinstance(source, Sequence):
            by_seat = (
                dict(zip(self.seats, source, strict=True))
                if len(source) == len(self.seats)
                else dict(zip(others, source, strict=False))
            )
            return {seat: by_seat[seat] for seat in others}
        agents = {seat: source(seat, rng) for seat in others}
        for seat, agent in agents.items():
            if not isinstance(agent, Agent):
                raise TypeError(f"the opponent source gave {agent!r} for seat {seat!r}, not an Agent")
        return agents

    def _check_opponents(self) -> None:
        source = self.opponents
        if source is None or isinstance(source, Agent):
            return
        if isinstance(source, Sequence) and not isinstance(source, str):
            n = len(self.seats)
            if len(source) not in (n - 1, n):
                raise ValueError(f"give one opponent per other seat ({n - 1}) or one per seat ({n}), got {len(source)}")
            if len(source) == n - 1 and self._seat_mode != "fixed":
                raise ValueError(
                    "a list of one opponent per other seat needs a fixed learner_seat; "
                    f"with learner_seat={self._seat_mode!r} give one per seat ({n})"
                )
            bad = [agent for agent in source if not isinstance(agent, Agent)]
            if bad:
                raise TypeError(f"opponents must be Agent instances, got {bad[0]!r}")
            return
        if not callable(source):
            raise TypeError(
                "opponents must be None, an Agent, a sequence of Agents or a callable "
                f"(seat, rng) -> Agent; got {type(source).__name__}"
            )


def _parse_seat(learner_seat: int | str, seats: list[str]) -> tuple[str, str]:
    if isinstance(learner_seat, str) and learner_seat in SEAT_MODES:
        return learner_seat, ""
    if isinstance(learner_seat, str):
        if learner_seat not in seats:
            raise ValueError(f"learner_seat {learner_seat!r} is not a seat ({seats}) nor one of {SEAT_MODES}")
        return "fixed", learner_seat
    if isinstance(learner_seat, (int, np.integer)) and not isinstance(learner_seat, bool):
        if not 0 <= int(learner_seat) < len(seats):
            raise ValueError(f"learner_seat {learner_seat} is outside 0..{len(seats) - 1}")
        return "fixed", seats[int(learner_seat)]
    raise TypeError(f"learner_seat must be a seat index, a seat name or one of {SEAT_MODES}")


def _shared_spaces(aec_env: Any, seats: list[str]) -> tuple[spaces.Space, spaces.Discrete]:
    first = aec_env.observation_space(seats[0])
    if not isinstance(first, spaces.Dict) or set(first.spaces) < {"observation", "action_mask"}:
        raise TypeError(
            f"AECSingleAgentEnv needs Dict observations with 'observation' and 'action_mask' keys, got {first}"
        )
    action_space = aec_env.action_space(seats[0])
    if not isinstance(action_space, spaces.Discrete):
        raise TypeError(f"AECSingleAgentEnv needs a Discrete action space, got {action_space}")
    for seat in seats[1:]:
        if aec_env.observation_space(seat)["observation"] != first["observation"] or (
            aec_env.action_space(seat) != action_space
        ):
            raise ValueError(f"seat {seat!r} has other spaces than seat {seats[0]!r}")
    return first["observation"], action_space
