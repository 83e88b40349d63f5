"""One seeded episode of any registered env, advanced one decision at a time.

``Match`` gives the command-line tools one surface over both APIs: a Gymnasium solo env (one
seat, numbered 0) and a PettingZoo AEC env (seats numbered 0.. in ``possible_agents`` order).
It says whose decision it is, what that seat observes (observation, int8 mask, game state for
agents), the legal actions and their names, and each seat's outcome once its episode is over.
PettingZoo's dead steps (``step(None)`` for a finished agent) are taken inside the match, so a
caller only ever sees live decisions. Every decision is appended to ``history`` as
``(seat, action)``; the envs are deterministic given the seed and the actions, so replaying the
history after ``reset()`` restores the position exactly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..registry import EnvEntry, make


def outcome_from_reward(reward: float) -> str:
    """A named outcome from a final return: positive won, negative lost, zero a draw."""
    return "won" if reward > 0 else "lost" if reward < 0 else "draw"


class Match(ABC):
    """The common interface; build one with ``new_match``."""

    def __init__(self, entry: EnvEntry, seed: int, render_mode: str | None) -> None:
        self.entry = entry
        self.seed = seed
        self.env: Any = make(entry.env_id, render_mode=render_mode)
        self.game: Any = self.env.unwrapped.game
        self.history: list[tuple[int, int]] = []

    @property
    def game_key(self) -> str:
        """The registry key of the game (``"map_duel"``), by which ``make_agent`` finds its agents."""
        return self.entry.game

    @property
    def game_name(self) -> str:
        """The game's display name (``"Map Duel"``), for people to read."""
        return str(self.game.name)

    @property
    @abstractmethod
    def players(self) -> int:
        """The number of seats."""

    @abstractmethod
    def seat_label(self, seat: int) -> str:
        """How the game names a seat (``player_0``, ``player_1``...); ``you`` for a solo env."""

    @abstractmethod
    def reset(self) -> None:
        """Start the episode again from the same seed; ``history`` is emptied."""

    @property
    @abstractmethod
    def over(self) -> bool:
        """True once no seat has a decision left."""

    @property
    @abstractmethod
    def seat(self) -> int:
        """The seat to decide (only while not ``over``)."""

    @property
    @abstractmethod
    def observation(self) -> np.ndarray:
        """The deciding seat's observation vector."""

    @property
    @abstractmethod
    def mask(self) -> np.ndarray:
        """The deciding seat's int8 legal-action mask."""

    @property
    @abstractmethod
    def state(self) -> Any:
        """The game state object, for ``agent.act(observation, mask, state)``."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Play ``action`` for the deciding seat and move on to the next live decision."""

    @abstractmethod
    def text(self, viewer: int | None) -> str:
        """The position as plain text, as seat ``viewer`` sees it (None: the whole truth)."""

    @abstractmethod
    def outcome(self, seat: int) -> str | None:
        """``won``, ``lost``, ``draw``, ``truncated``..., once that seat's episode is over."""

    @abstractmethod
    def total_reward(self, seat: int) -> float:
        """The sum of the rewards that seat has received so far."""

    @property
    def result(self) -> str | None:
        """The game's own description of how it ended, where it gives one."""
        return None

    def legal_actions(self) -> list[int]:
        """The deciding seat's legal action indices, ascending ([] once over)."""
        return [] if self.over else [int(a) for a in np.flatnonzero(self.mask)]

    def action_name(self, action: int) -> str:
        """A readable name of an action index in the current position."""
        return str(self.env.unwrapped.action_name(int(action)))

    def step(self, action: int) -> None:
        """Play a legal ``action`` for the deciding seat and record it in ``history``."""
        if self.over:
            raise RuntimeError("the episode is over")
        seat = self.seat
        self._apply(int(action))
        self.history.append((seat, int(action)))

    def render(self) -> Any:
        """The env's own ``render()`` in the render mode the match was built with."""
        return self.env.render()

    def close(self) -> None:
        """Release the env."""
        self.env.close()


class SoloMatch(Match):
    """A Gymnasium solo env: one seat, 0."""

    def __init__(self, entry: EnvEntry, seed: int, render_mode: str | None) -> None:
        super().__init__(entry, seed, render_mode)
        self._obs: np.ndarray = np.zeros(0, dtype=np.float32)
        self._info: dict[str, Any] = {}
        self._done = False
        self._return = 0.0

    @property
    def players(self) -> int:
        return 1

    def seat_label(self, seat: int) -> str:
        return "you"

    def reset(self) -> None:
        self._obs, self._info = self.env.reset(seed=self.seed)
        self._done = False
        self._return = 0.0
        self.history = []

    @property
    def over(self) -> bool:
        return self._done

    @property
    def seat(self) -> int:
        return 0

    @property
    def observation(self) -> np.ndarray:
        return self._obs

    @property
    def mask(self) -> np.ndarray:
        return np.asarray(self._info["action_mask"], dtype=np.int8)

    @property
    def state(self) -> Any:
        return self.env.unwrapped.state

    def _apply(self, action: int) -> None:
        self._obs, reward, terminated, truncated, self._info = self.env.step(action)
        self._return += float(reward)
        if terminated or truncated:
            self._done = True
            if "outcome" not in self._info:
                self._info["outcome"] = "truncated" if truncated else outcome_from_reward(float(reward))

    def text(self, viewer: int | None) -> str:
        return str(self.game.to_text(self.env.unwrapped.state))

    def outcome(self, seat: int) -> str | None:
        return str(self._info["outcome"]) if self._done else None

    def total_reward(self, seat: int) -> float:
        return self._return


class TableMatch(Match):
    """A PettingZoo AEC env: seats in ``possible_agents`` order."""

    def __init__(self, entry: EnvEntry, seed: int, render_mode: str | None) -> None:
        super().__init__(entry, seed, render_mode)
        self._names: list[str] = list(self.env.possible_agents)
        self._obs: dict[str, np.ndarray] = {}
        self._returns: dict[str, float] = {}
        self._outcomes: dict[str, str] = {}
        self._result: str | None = None

    @property
    def players(self) -> int:
        return len(self._names)

    def seat_label(self, seat: int) -> str:
        return self._names[seat]

    def reset(self) -> None:
        self.env.reset(seed=self.seed)
        self._returns = dict.fromkeys(self._names, 0.0)
        self._outcomes = {}
        self._result = None
        self.history = []
        self._advance()

    def _advance(self) -> None:
        """Collect rewards and take every dead step up to the next live decision (or the end)."""
        env = self.env
        while env.agents:
            name = env.agent_selection
            observation, reward, termination, truncation, info = env.last()
            self._returns[name] += float(reward)
            if not (termination or truncation):
                self._obs = observation
                return
            self._outcomes[name] = str(
                info.get("outcome", "truncated" if truncation else outcome_from_reward(self._returns[name]))
            )
            if info.get("result") is not None and info.get("result") != "out of the game":
                self._result = str(info["result"])
            env.step(None)

    @property
    def over(self) -> bool:
        return not self.env.agents

    @property
    def seat(self) -> int:
        return self._names.index(self.env.agent_selection)

    @property
    def observation(self) -> np.ndarray:
        return np.asarray(self._obs["observation"])

    @property
    def mask(self) -> np.ndarray:
        return np.asarray(self._obs["action_mask"], dtype=np.int8)

    @property
    def state(self) -> Any:
        return self.env.unwrapped.game_state

    def _apply(self, action: int) -> None:
        self.env.step(action)
        self._advance()

    def text(self, viewer: int | None) -> str:
        return str(self.game.to_text(self.env.unwrapped.game_state, viewer))

    def outcome(self, seat: int) -> str | None:
        return self._outcomes.get(self._names[seat])

    def total_reward(self, seat: int) -> float:
        return self._returns.get(self._names[seat], 0.0)

    @property
    def result(self) -> str | None:
        return self._result


def new_match(entry: EnvEntry, seed: int, render_mode: str | None) -> Match:
    """A match of the entry's env, reset to its first decision."""
    match: Match = (
        SoloMatch(entry, seed, render_mode) if entry.api == "gymnasium" else TableMatch(entry, seed, render_mode)
    )
    match.reset()
    return match
