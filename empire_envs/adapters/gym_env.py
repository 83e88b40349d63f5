"""One generic Gymnasium environment over any one-seat ``Game``.

A game's env class subclasses ``GymAdapter``, sets ``game`` and writes the docstring; the
behaviour written here (masks, illegal actions, seeding, rendering) is the same for every game.

Render modes (``metadata["render_modes"]``): ``"ansi"`` (``game.to_text``, a string),
``"rgb_array"`` (``game.to_rgb``, a ``uint8`` image) and ``"human"``: that same image in a pygame
window (``human_view.HumanView``), drawn by ``reset`` and ``step`` themselves as Gymnasium's
envs do, paced by ``metadata["render_fps"]``; ``render()`` then returns None and ``close()``
closes the window. pygame is imported only for ``"human"`` (the ``human`` extra).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..core.errors import ILLEGAL_ACTION_OUTCOME, IllegalActionError, ResetNeeded
from ..core.game import Game
from ..core.options import known_reset_options
from .human_view import HumanView

ILLEGAL_ACTION_MODES = ("penalize", "raise")
MAX_REDEALS = 100


_INDEX_TYPES = (int, np.int64, np.int32, np.intp)


def check_action_index(action: Any, num_actions: int) -> int:
    """The action as a Python int; a clear error for a wrong type or an index out of range."""
    if type(action) in _INDEX_TYPES and 0 <= action < num_actions:  # the common case, fast
        return int(action)
    index = check_action_type(action, num_actions)
    if not 0 <= index < num_actions:
        raise ValueError(f"action {index} is outside the action space 0..{num_actions - 1}")
    return index


def check_action_type(action: Any, num_actions: int) -> int:
    """The action as a Python int when it is an integer (a Python or numpy integer, or a 0-d
    integer array), else a ``TypeError``: a bool, a float or a string is never read as an index."""
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(
            f"an action is an integer index in 0..{num_actions - 1}, got {action!r} of type {type(action).__name__}"
        )
    return int(action)


def rng_position(rng: np.random.Generator | None) -> Mapping[str, Any] | None:
    """Where a generator is in its stream, to go back there (None for no generator yet)."""
    return None if rng is None else rng.bit_generator.state


def restore_rng_position(rng: np.random.Generator | None, position: Mapping[str, Any] | None) -> None:
    if rng is not None and position is not None:
        rng.bit_generator.state = position


class GymAdapter(gym.Env):
    """Base class of the solo environments; see a concrete env's docstring for its spec.

    The game's metadata, read from its ``Game`` record for the env's own config (OpenSpiel's
    names): ``max_game_length``, an upper bound on the steps of an episode, and ``min_utility`` /
    ``max_utility``, the range of the game's final result (the reward of the last step, shaping
    and the illegal-action penalty aside). Through ``gymnasium.make``'s wrappers read them as
    ``env.unwrapped.max_game_length`` or ``env.get_wrapper_attr("max_game_length")``. The ids are
    registered without ``max_episode_steps``: the game truncates itself (``length_limit``), see
    ``empire_envs.registry.register_all``.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}
    game: ClassVar[Game]

    def __init__(
        self,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_action_penalty: float = -1.0,
        **config: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_action_penalty = float(illegal_action_penalty)
        try:
            self.config = self.game.config_class(**config)
        except TypeError as error:
            known = ", ".join(field.name for field in dataclasses.fields(self.game.config_class))
            raise TypeError(f"{error}. {self.game.name} options are: {known}") from None
        game = self.game
        if game.num_players(self.config) != 1:
            raise TypeError(f"{game.name} has {game.num_players(self.config)} seats; GymAdapter plays one-seat games")
        self.num_actions = game.num_actions(self.config)
        low, high = game.observation_bounds(self.config)
        self.action_space = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(low, high, shape=(game.observation_size(self.config),), dtype=np.float32)
        self.state: Any = None
        self._episode_over = False
        #: the window of render_mode "human" (pygame is imported here, and only for that mode)
        self._view = HumanView(game.name, self.metadata["render_fps"]) if render_mode == "human" else None

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        options = known_reset_options(options, self.game.reset_options, self.game.name)
        # a reset that raises (a bad option value) leaves the env as it was, its RNG included
        saved_rng = self._np_random, self._np_random_seed, rng_position(self._np_random)
        super().reset(seed=seed)
        try:
            self.state = self._deal(options)
        except Exception:
            self._np_random, self._np_random_seed, position = saved_rng
            restore_rng_position(self._np_random, position)
            raise
        self._episode_over = False
        if self._view is not None:
            self.render()
        return self.game.observe(self.state, 0), {"action_mask": self.game.legal_mask(self.state)}

    def _deal(self, options: dict[str, Any]) -> Any:
        state = self.game.new_game(self.config, self.np_random, **options)
        # A game over before its first decision could never deliver its reward through step():
        # an explicit deal like that is refused; a random one is dealt again from the same RNG.
        redeals = 0
        while self.game.is_terminal(state):
            if options:
                raise ValueError(
                    f"this {self.game.name} deal is over before any decision "
                    f"({self.game.outcome(state)}): it offers nothing to play"
                )
            redeals += 1
            if redeals > MAX_REDEALS:
                raise RuntimeError(f"{MAX_REDEALS} deals in a row were over before any decision")
            state = self.game.new_game(self.config, self.np_random)
        return state

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise ResetNeeded("call reset() before step()")
        if self._episode_over:
            raise ResetNeeded("the episode has ended; call reset() before step()")
        index = check_action_index(action, self.num_actions)
        game, state = self.game, self.state
        try:
            reward = game.apply_action(state, index, self.np_random)[0]
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self._episode_over = True
            failed = {
                "action_mask": np.zeros(self.num_actions, dtype=np.int8),
                "illegal_action": True,
                "illegal_reason": str(error),
                "outcome": ILLEGAL_ACTION_OUTCOME,
                "is_success": False,
            }
            return game.observe(state, 0), self.illegal_action_penalty, True, False, failed
        info: dict[str, Any] = {"action_mask": game.legal_mask(state)}
        terminated = truncated = False
        if game.is_terminal(state):
            self._episode_over = True
            truncated = game.is_truncated(state)
            terminated = not truncated
            info["outcome"] = game.outcome(state)
            info["is_success"] = info["outcome"] == "won"  # SB3's success-rate key
        if self._view is not None:
            self.render()
        return game.observe(state, 0), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The int8 legal-action mask of the current state (what MaskablePPO calls)."""
        if self.state is None:
            raise ResetNeeded("call reset() before action_masks()")
        if self._episode_over:
            return np.zeros(self.num_actions, dtype=np.int8)
        return self.game.legal_mask(self.state)

    def render(self) -> Any:  # str (ansi), an RGB array (rgb_array) or None; gymnasium types it loosely
        """The position as text (``"ansi"``) or as an image (``"rgb_array"``); in ``"human"``
        mode the image is shown in the window and None returned (``reset`` and ``step`` call it)."""
        if self.state is None:
            raise ResetNeeded("call reset() before render()")
        if self.render_mode == "ansi":
            return self.game.to_text(self.state) + "\n"
        if self.render_mode == "rgb_array":
            return self.game.to_rgb(self.state)
        if self._view is not None:
            self._view.show(self.game.to_rgb(self.state))
            return None
        gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'")
        return None

    def close(self) -> None:
        """Close the window of ``"human"`` mode (if open); calling it again does nothing."""
        if self._view is not None:
            self._view.close()
        super().close()

    # ------------------------------------------------------------------ game metadata

    @property
    def max_game_length(self) -> int:
        """An upper bound on the steps of one episode of this config (OpenSpiel's
        ``max_game_length``): the game ends, or truncates itself, within it."""
        return self.game.max_game_length(self.config)

    @property
    def min_utility(self) -> float:
        """The lowest final result of a game (OpenSpiel's ``min_utility``; shaping aside)."""
        return float(self.game.utility_range(self.config)[0])

    @property
    def max_utility(self) -> float:
        """The highest final result of a game (OpenSpiel's ``max_utility``; shaping aside)."""
        return float(self.game.utility_range(self.config)[1])

    # ------------------------------------------------------------------ helpers

    def legal_actions(self) -> list[int]:
        if self.state is None:
            raise ResetNeeded("call reset() before legal_actions()")
        return [] if self._episode_over else self.game.legal_actions(self.state)

    def action_name(self, action: int) -> str:
        return self.game.action_name(
            self.state if self.state is not None else self.config, check_action_index(action, self.num_actions)
        )
