"""One generic PettingZoo AEC environment over any multiplayer ``Game``.

A game's ``raw_env`` subclasses ``AECAdapter``, sets ``game`` and writes the docstring; the
behaviour written here (agents, spaces, masks, rewards, seeding, rendering) is the same for every
multiplayer game. ``wrapped_env`` stacks PettingZoo's standard wrappers around a raw env.

Render modes (``metadata["render_modes"]``): ``"ansi"`` (``game.to_text``, the whole truth as
text), ``"rgb_array"`` (``game.to_rgb``, a ``uint8`` image) and ``"human"``: that same image in a
pygame window (``human_view.HumanView``), drawn by ``reset`` and by every ``step`` that plays a
decision, as PettingZoo's classic games do, paced by ``metadata["render_fps"]``; ``render()``
then returns None and ``close()`` closes the window. pygame is imported only for ``"human"``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..core.errors import ActionOutOfSpaceError, ResetNeeded, ResetNeededAttributeError
from ..core.game import Game
from ..core.options import known_reset_options
from .gym_env import check_action_index, check_action_type, restore_rng_position, rng_position
from .human_view import HumanView

ILLEGAL_REWARD = -1.0

#: reset option keys every multiplayer env accepts and ignores. PettingZoo's ``api_test`` checks
#: that ``reset`` takes an ``options`` argument by calling ``reset(seed=0, options={"options": 1})``,
#: and the envs must pass that test; no game has an option of that name, so ignoring it cannot
#: hide a misspelt option of a game (any other unknown key is refused).
IGNORED_RESET_OPTIONS = frozenset({"options"})
#: the AEC attributes that ``reset`` sets: reading one before the first reset raises
#: ``ResetNeededAttributeError`` (a ``ResetNeeded`` that is also an ``AttributeError``)
SET_BY_RESET = frozenset({"agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards"})


class AECAdapter(AECEnv):
    """Base class of the multiplayer environments; see a concrete env's docstring for its spec.

    ``observe(agent)`` is ``{"observation": float32 vector, "action_mask": int8 vector}``; the
    mask is all zeros for every agent but ``agent_selection``. The game state is
    ``env.unwrapped.game_state`` (agents that search read it through ``determinize``).
    ``reset(options=...)`` passes the game's own reset options (``game.reset_options``) to the
    deal, which checks their values; any other key is a ``ValueError``, as in the Gymnasium envs,
    so that a misspelt option cannot silently give a random deal. The one exception is the key
    ``"options"`` (``IGNORED_RESET_OPTIONS``), accepted and ignored because PettingZoo's
    ``api_test`` passes ``{"options": 1}`` to check the signature. A reset that raises leaves
    the env as it was. ``step``, ``observe``, ``legal_actions`` and ``render`` before the first
    reset raise ``empire_envs.core.errors.ResetNeeded``, and so do ``last()`` and reading
    ``agent_selection``, ``rewards``, ``terminations``, ``truncations`` or ``infos``
    (``ResetNeededAttributeError``, also an ``AttributeError``, so ``hasattr`` stays False);
    ``possible_agents``, the spaces and the metadata are there from the start, and ``agents`` is
    ``[]`` until the first reset, as in PettingZoo's own raw envs. ``observation_spaces`` and
    ``action_spaces`` map each agent to its space (PettingZoo's attributes). When the
    game ends, every agent's info holds its own ``"outcome"`` (``"won"``, ``"lost"``, ``"draw"``
    or ``"truncated"``) and the game's ``"result"`` (e.g. ``"won by seat 2"``).

    The game's metadata, read from its ``Game`` record for the env's own config (OpenSpiel's
    names, also readable through PettingZoo's wrappers): ``max_game_length``, an upper bound on
    the decisions of one game, every seat's counted (the dead steps of agents that are done are
    not decisions), and ``min_utility`` / ``max_utility``, the range of each agent's final
    result (its reward summed over the game, shaping aside).

    ``metadata["is_parallelizable"]`` is False: PettingZoo's ``aec_to_parallel`` assumes that
    every live agent acts once per cycle and the game changes only at the end of the cycle,
    while these games are turn-based (one seat acts at a time, sometimes several decisions in a
    row, and each decision changes the game at once), so that conversion would be wrong and
    PettingZoo refuses it. For the Parallel API use ``pettingzoo.utils.turn_based_aec_to_parallel``
    (every agent submits an action each step and only the acting agent's counts; the others'
    masks are all zero), or play the AEC API directly.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "empire_aec_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    game: ClassVar[Game]

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        try:
            self.config = self.game.config_class(**config)
        except TypeError as error:
            if "unexpected keyword argument" not in str(error):
                raise  # a setting of the wrong type: the config's own message names it
            known = ", ".join(field.name for field in dataclasses.fields(self.game.config_class))
            raise TypeError(f"{error}. {self.game.name} options are: {known}") from None
        game = self.game
        self.num_actions = game.num_actions(self.config)
        self.possible_agents = [f"player_{seat}" for seat in range(game.num_players(self.config))]
        self.agent_name_mapping = {name: seat for seat, name in enumerate(self.possible_agents)}
        low, high = game.observation_bounds(self.config)
        observation = spaces.Box(
            low,
            high,
            (game.observation_size(self.config),),
            np.float32,
        )
        self.observation_spaces: dict[str, spaces.Space] = {
            agent: spaces.Dict(
                {
                    "observation": observation,
                    "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space] = {
            agent: spaces.Discrete(self.num_actions) for agent in self.possible_agents
        }
        self._np_random: np.random.Generator | None = None
        self.game_state: Any = None
        self.agents: list[str] = []
        #: the window of render_mode "human" (pygame is imported here, and only for that mode)
        self._view = HumanView(game.name, self.metadata["render_fps"]) if render_mode == "human" else None

    if not TYPE_CHECKING:  # hidden from mypy, which would otherwise let any attribute name pass

        def __getattr__(self, name: str) -> Any:
            """Only called for an attribute that is not set: those of ``SET_BY_RESET`` before the
            first reset."""
            if name in SET_BY_RESET:
                raise ResetNeededAttributeError(f"call reset() before reading {name}")
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        deal_options = known_reset_options(options, self.game.reset_options, self.game.name, IGNORED_RESET_OPTIONS)
        # nothing is changed until the deal has succeeded: a reset that raises leaves the env as it was
        if seed is not None or self._np_random is None:
            rng, _ = seeding.np_random(seed)
        else:
            rng = self._np_random
        position = rng_position(rng)
        try:
            state = self.game.new_game(self.config, rng, **deal_options)
            if self.game.is_terminal(state):
                raise ValueError(f"this {self.game.name} deal is over before any decision")
        except Exception:
            restore_rng_position(rng, position)
            raise
        self._np_random, self.game_state = rng, state
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.acting_player(self.game_state)]
        if self._view is not None:
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.game_state is None:
            raise ResetNeeded("call reset() before last()")
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        state = self.game_state
        if state is None:
            raise ResetNeeded("call reset() before observe()")
        # while a departed agent takes its dead step, the seat to act waits with a zero mask
        if (
            agent == self.agent_selection
            and not self.game.is_terminal(state)
            and self.game.acting_player(state) == seat
        ):
            mask = self.game.legal_mask(state)
        else:
            mask = np.zeros(self.num_actions, dtype=np.int8)
        return {"observation": self.game.observe(state, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        if self.game_state is None:
            raise ResetNeeded("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._play(agent, check_action_index(action, self.num_actions))
        if self._view is not None:
            self.render()

    def _play(self, agent: str, index: int) -> None:
        """``agent`` plays the action ``index``: the game moves on and the AEC records follow."""
        game, state = self.game, self.game_state
        rng = self._np_random
        assert rng is not None  # set by reset()
        step_rewards = game.apply_action(state, index, rng)  # raises on an illegal action
        self._cumulative_rewards[agent] = 0.0
        for name in self.agents:
            self.rewards[name] = float(step_rewards[self.agent_name_mapping[name]])
        if game.is_terminal(state):
            truncated = game.is_truncated(state)
            result = game.outcome(state)
            final = game.returns(state)
            for name in self.agents:
                if self.terminations[name]:
                    continue  # left earlier; it is already waiting for its dead step
                value = final[self.agent_name_mapping[name]]
                still_in = not game.eliminated(state)[self.agent_name_mapping[name]] if game.eliminated else True
                self.terminations[name] = not (truncated and still_in)
                self.truncations[name] = truncated and still_in
                self.infos[name] = {
                    "outcome": "truncated" if truncated and still_in else _outcome_of(value),
                    "result": result,
                }
            self._accumulate_rewards()
            return
        self.agent_selection = self.possible_agents[game.acting_player(state)]
        if game.eliminated is not None:
            # a seat out of a game that goes on: terminated now, its dead step comes first
            out = game.eliminated(state)
            returns: list[float] | None = None
            for name in self.agents:
                if out[self.agent_name_mapping[name]] and not self.terminations[name]:
                    returns = returns if returns is not None else game.returns(state)
                    self.terminations[name] = True
                    self.infos[name] = {
                        "outcome": _outcome_of(returns[self.agent_name_mapping[name]]),
                        "result": "out of the game",
                    }
            self._accumulate_rewards()
            if returns is not None:
                self._deads_step_first()
            return
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        """The position as text (``"ansi"``) or as an image (``"rgb_array"``); in ``"human"``
        mode the image is shown in the window and None returned (``reset`` and ``step`` call it)."""
        if self.game_state is None:
            raise ResetNeeded("call reset() before render()")
        if self.render_mode == "ansi":
            return self.game.to_text(self.game_state) + "\n"
        if self.render_mode == "rgb_array":
            return self.game.to_rgb(self.game_state)
        if self._view is not None:
            self._view.show(self.game.to_rgb(self.game_state))
            return None
        import gymnasium

        gymnasium.logger.warn(
            "render() was called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'"
        )
        return None

    def close(self) -> None:
        """Close the window of ``"human"`` mode (if open); calling it again does nothing."""
        if self._view is not None:
            self._view.close()

    # ------------------------------------------------------------------ game metadata

    @property
    def max_game_length(self) -> int:
        """An upper bound on the decisions of one game of this config, every seat's counted
        (OpenSpiel's ``max_game_length``): the game ends, or truncates itself, within it."""
        return self.game.max_game_length(self.config)

    @property
    def min_utility(self) -> float:
        """The lowest final result of any seat (OpenSpiel's ``min_utility``; shaping aside)."""
        return float(self.game.utility_range(self.config)[0])

    @property
    def max_utility(self) -> float:
        """The highest final result of any seat (OpenSpiel's ``max_utility``; shaping aside)."""
        return float(self.game.utility_range(self.config)[1])

    # ------------------------------------------------------------------ helpers

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random(None)
        return self._np_random

    def legal_actions(self) -> list[int]:
        """The acting agent's legal action indices ([] once the game is over)."""
        if self.game_state is None:
            raise ResetNeeded("call reset() before legal_actions()")
        if self.game.is_terminal(self.game_state):
            return []
        return self.game.legal_actions(self.game_state)

    def action_name(self, action: int) -> str:
        return self.game.action_name(
            self.game_state if self.game_state is not None else self.config,
            check_action_index(action, self.num_actions),
        )


#: attributes every wrapper reads on each step; PettingZoo's wrappers find them through a
#: ``__getattr__`` chain (one Python call per wrapper level), which costs more than our rules
_HOT_ATTRIBUTES = (
    "agents",
    "possible_agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
)
_NEEDS_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}
#: what PettingZoo's ``OrderEnforcingWrapper`` hides until the first reset
_ORDER_ENFORCED = frozenset({*_NEEDS_RESET, "num_agents"})


def _forward(name: str, check_reset: bool) -> property:
    def read(self):
        if check_reset and not self._has_reset:
            raise ResetNeededAttributeError(f"call reset() before reading {name}")
        return getattr(self._game_env, name)

    return property(read, doc=f"``{name}`` of the game env, read directly")


def _direct(wrapper: type, check_reset: bool = False) -> type:
    """A subclass of a PettingZoo wrapper whose hot attributes are plain properties reading the
    game env underneath every wrapper: the same values (no wrapper in PettingZoo's stack keeps
    its own copy of them), the before-reset checks kept, one call instead of a
    ``__getattr__`` chain through each wrapper level."""

    def __init__(self, env, *args, **kwargs):
        wrapper.__init__(self, env, *args, **kwargs)
        self._game_env = env.unwrapped

    namespace: dict[str, Any] = {name: _forward(name, check_reset and name in _NEEDS_RESET) for name in _HOT_ATTRIBUTES}
    namespace["__init__"] = __init__
    namespace["__doc__"] = wrapper.__doc__
    return type(wrapper.__name__, (wrapper,), namespace)


_INDEX_TYPES = (int, np.int64, np.int32, np.intp)


class AssertOutOfBoundsWrapper(_direct(wrappers.AssertOutOfBoundsWrapper)):  # type: ignore[misc]  # built at import time
    """PettingZoo's ``AssertOutOfBoundsWrapper`` (``isinstance`` holds), with clear errors in
    place of its bare ``assert``; an in-range plain ``int`` or numpy integer scalar (what
    ``np.flatnonzero`` and policies hand back) passes at once.

    An action that is not an integer at all raises the raw env's ``TypeError`` (``Discrete.contains``
    would take ``True`` for 1, and the illegal-move wrapper below would then index the mask with a
    bool); an integer outside the space raises ``ActionOutOfSpaceError`` (a ``ValueError``, also
    the ``AssertionError`` PettingZoo's check raised) naming the action, the agent and the space.
    ``None`` stays the dead agents' action. Either way nothing has moved."""

    def step(self, action: Any) -> None:
        game_env = self._game_env
        num_actions = game_env.num_actions
        if type(action) in _INDEX_TYPES and 0 <= action < num_actions:
            wrappers.BaseWrapper.step(self, action)
            return
        agent = game_env.agent_selection
        if action is None and (game_env.terminations[agent] or game_env.truncations[agent]):
            wrappers.BaseWrapper.step(self, action)
            return
        index = check_action_type(action, num_actions)
        if not 0 <= index < num_actions:
            raise ActionOutOfSpaceError(
                f"action {index} of {agent} is outside the action space {game_env.action_space(agent)} "
                f"(indices 0..{num_actions - 1})"
            )
        wrappers.BaseWrapper.step(self, action)


TerminateIllegalWrapper = _direct(wrappers.TerminateIllegalWrapper)


class OrderEnforcingWrapper(_direct(wrappers.OrderEnforcingWrapper, check_reset=True)):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``; ``step``, ``observe``, ``render``, ``last``,
    ``state`` and ``agent_iter`` before ``reset`` raise the raw env's ``ResetNeeded`` (also an
    ``AssertionError``, as PettingZoo's check is), and reading an attribute that PettingZoo hides
    until then (``agents``, ``num_agents``, ``agent_selection``, ``rewards``, ...) raises
    ``ResetNeededAttributeError`` (also the ``AttributeError`` PettingZoo raises)."""

    def __getattr__(self, name: str) -> Any:
        # only reached for what is not found otherwise: the hidden attributes come here too when
        # their property (``_direct``) raises, as Python then falls back to ``__getattr__``
        if name in _ORDER_ENFORCED and not self.__dict__.get("_has_reset", False):
            raise ResetNeededAttributeError(f"call reset() before reading {name}")
        return super().__getattr__(name)

    def last(self, observe: bool = True) -> Any:
        if not self._has_reset:
            raise ResetNeeded("call reset() before last()")
        return super().last(observe)

    def state(self) -> Any:
        if not self._has_reset:
            raise ResetNeeded("call reset() before state()")
        return super().state()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            raise ResetNeeded("call reset() before agent_iter()")
        return super().agent_iter(max_iter)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise ResetNeeded("call reset() before step()")
        # PettingZoo's own step, without its call chain: this runs on every step
        self._has_updated = True
        if self.agents:
            self.env.step(action)
        else:
            EnvLogger.warn_step_after_terminated_truncated()

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise ResetNeeded("call reset() before observe()")
        return self.env.observe(agent)

    def render(self) -> Any:
        if not self._has_reset:
            raise ResetNeeded("call reset() before render()")
        return self.env.render()


def _outcome_of(final_return: float) -> str:
    """An agent's own outcome from its final game return (shaping excluded)."""
    return "won" if final_return > 0 else "lost" if final_return < 0 else "draw"


def wrapped_env(raw: AECAdapter) -> AECEnv:
    """PettingZoo's standard stack: an illegal move ends the game with -1 for the mover,
    an out-of-space action is an ``ActionOutOfSpaceError``, and the API call order is enforced.

    The three wrappers are PettingZoo's own classes (``isinstance`` holds), subclassed only to
    read the per-step attributes directly rather than through ``__getattr__``."""
    env: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_REWARD)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)
