"""Toy Nim observation: one flat ``float32`` vector per seat, every entry in ``[0, 1]``.

=======  ===============  ===============================================================
index    field            meaning
=======  ===============  ===============================================================
0-51     own hand         1 for each card in the observing seat's hand
52-103   discards         1 for each card discarded face up
104      pile size        cards left in the pile / pile_size
105      other hand size  cards in the other seat's hand / (hand_limit + max_take)
106-108  phase            one-hot: take, discard, over
109      to act           1 when the observing seat acts next
=======  ===============  ===============================================================
"""

from __future__ import annotations

import numpy as np

from empire_envs.core.cards import NUM_CARDS
from empire_envs.core.layout import ObsLayout

from .state import Phase, ToyNimState

LAYOUT = ObsLayout(
    [
        ("own hand", NUM_CARDS),
        ("discards", NUM_CARDS),
        ("pile size", 1),
        ("other hand size", 1),
        ("phase", len(Phase)),
        ("to act", 1),
    ]
)
OBSERVATION_SIZE = LAYOUT.size


def observe(state: ToyNimState, seat: int) -> np.ndarray:
    """What ``seat`` sees (a fresh array): never the pile's cards nor the other hand's."""
    config = state.config
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    obs[[LAYOUT.start("own hand") + card for card in state.hands[seat]]] = 1.0
    obs[[LAYOUT.start("discards") + card for card in state.discards]] = 1.0
    obs[LAYOUT.start("pile size")] = len(state.pile) / config.pile_size
    obs[LAYOUT.start("other hand size")] = len(state.hands[1 - seat]) / (config.hand_limit + config.max_take)
    obs[LAYOUT.start("phase") + state.phase] = 1.0
    obs[LAYOUT.start("to act")] = float(state.phase != Phase.OVER and state.seat == seat)
    return obs
