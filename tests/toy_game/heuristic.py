"""A Toy Nim heuristic: take as many cards as allowed, discard the lowest card."""

from __future__ import annotations

from typing import Any

import numpy as np

from empire_envs.core.agent import Agent
from empire_envs.core.cards import rank_of

from . import actions as A


class GreedyNimAgent(Agent):
    """Reads only what its seat sees: the mask and the (public) config."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        legal = [int(index) for index in np.flatnonzero(action_mask)]
        config = state.config
        takes = [index for index in legal if A.decode(index, config)[0] is A.Kind.TAKE]
        if takes:
            return max(takes)
        return min(legal, key=lambda index: (rank_of(A.decode(index, config)[1]), index))
