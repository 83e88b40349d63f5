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
