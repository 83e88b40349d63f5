"""The protocol a single-player game package offers to the generic Gymnasium adapter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class SinglePlayerGame:
    """The functions and sizes of one solo rule set; rules stay pure functions over a state.

    ``new_game(config, rng, **options)`` builds a state (``options`` are the env's
    ``reset(options=...)`` keys, which the game validates); ``step(state, action, rng)`` mutates
    it and returns the reward; ``outcome(state)`` is a name such as ``"won"``.
    """

    name: str
    config_class: type
    num_actions: int
    observation_size: int
    new_game: Callable[..., Any]
    step: Callable[[Any, int, np.random.Generator], float]
    legal_actions: Callable[[Any], list[int]]
    legal_mask: Callable[[Any], np.ndarray]
    observe: Callable[[Any], np.ndarray]
    is_terminal: Callable[[Any], bool]
    is_truncated: Callable[[Any], bool]
    outcome: Callable[[Any], str]
    action_name: Callable[[int], str]
    to_text: Callable[[Any], str]
    to_rgb: Callable[[Any], np.ndarray]
    reset_options: tuple[str, ...] = ()
    #: ``determinize(state, rng)``: a copy with everything the player cannot see resampled
    determinize: Callable[[Any, np.random.Generator], Any] | None = None


@dataclass(frozen=True)
class MultiplayerGame:
    """The functions and sizes of one multiplayer rule set, for the generic AEC adapter and for
    search agents; the rules stay pure functions over a state whose ``clone()`` is exact.

    Sizes may depend on the config (``num_actions(config)``...). ``apply(state, action, rng)``
    mutates the state for the acting seat and returns every seat's reward for that step; it
    raises ``IllegalActionError`` and leaves the state untouched for an illegal action.
    ``determinize(state, seat, rng)`` is a copy with everything ``seat`` cannot see resampled.
    """

    name: str
    config_class: type
    num_players: Callable[[Any], int]
    num_actions: Callable[[Any], int]
    observation_size: Callable[[Any], int]
    observation_high: Callable[[Any], float]
    new_game: Callable[..., Any]
    apply: Callable[[Any, int, np.random.Generator], list[float]]
    acting_player: Callable[[Any], int]
    legal_actions: Callable[[Any], list[int]]
    legal_mask: Callable[[Any], np.ndarray]
    observe: Callable[[Any, int], np.ndarray]
    is_terminal: Callable[[Any], bool]
    is_truncated: Callable[[Any], bool]
    outcome: Callable[[Any], str]
    returns: Callable[[Any], list[float]]
    determinize: Callable[[Any, int, np.random.Generator], Any]
    action_name: Callable[[Any, int], str]
    to_text: Callable[..., str]
    to_rgb: Callable[[Any], np.ndarray]
    reset_options: tuple[str, ...] = ()
    #: ``heuristic_values(state)``: a guess in [-1, 1] of each seat's final reward, for search
    #: agents that stop their playouts early; None means play out to the end
    heuristic_values: Callable[[Any], list[float]] | None = None
    #: ``observation_low(config)``: the least value of any observation entry (0 when None)
    observation_low: Callable[[Any], float] | None = None
    #: ``eliminated(state)``: per seat, out of a game that goes on (PettingZoo terminates that
    #: agent alone); None for games where nobody leaves early
    eliminated: Callable[[Any], list[bool]] | None = None
