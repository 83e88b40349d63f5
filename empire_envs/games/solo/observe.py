"""Empire solo observation: one flat ``float32`` vector, every entry in ``[0, 1]``.

The player sees everything except the order of the deck: the board, the drawn card, the battle,
the discard pile, and so which cards are still in the deck.

=========  ===================  ===============================================================
index      field                meaning
=========  ===================  ===============================================================
0-10       territory 0          keep 0 (layout of one territory below)
11-21      territory 1          keep 1
22-32      territory 2          keep 2
33-43      territory 3          outpost 3
44-54      territory 4          outpost 4
55-65      territory 5          outpost 5
66-78      drawn rank           one-hot rank of the drawn card (A, 2..10, J, Q, K); 0 if none
79-82      drawn suit           one-hot suit of the drawn card (C, D, H, S); 0 if none
83-87      phase                one-hot: organize, react, king mode, send, over
88-90      attacker             one-hot rank of the face card being fought: J, Q, K
91-94      enemies              first enemy value/13, first present, second value/13, second present
95-96      mode                 one-hot King round mode: SUM, SPLIT
97         split stage          1 once the first enemy of a SPLIT round has been fought
98         rounds lost          rounds lost in this battle / 6 (clipped to 1)
99-102     counts               deck size/52, discard size/52, bases/3, draws/length_limit
103-154    discard cards        1 for each card in the discard pile (card index order)
155-206    deck cards           1 for each card still in the deck (its order stays hidden)
=========  ===================  ===============================================================

One territory (11 entries, offset ``11 * t``):

=======  =====================================================================================
offset   meaning
=======  =====================================================================================
0-6      one-hot unit kind: empty, soldier, super soldier, battalion, native, base builder, base
7        battle value of the whole unit / 52 (a base, which beats anything: 1)
8        host card value / 13 (natives and bases; 0 otherwise)
9        1 if the native or base has a recruit
10       recruit value / 13 (0 without one)
=======  =====================================================================================
"""

from __future__ import annotations

import numpy as np

from ...core.cards import JACK, KING, NUM_CARDS, NUM_RANKS, NUM_SUITS
from ...core.layout import ObsLayout
from .state import (
    BASE,
    NATIVE,
    NUM_TERRITORIES,
    NUM_UNIT_KINDS,
    PHASE_NAMES,
    SPLIT,
    SUM,
    SoloState,
)
from .tables import (
    BASES_FRACTION,
    CARD_VALUE_FRACTION,
    PILE_FRACTION,
    ROUNDS_LOST_FRACTION,
    ROUNDS_LOST_SCALE,
    UNIT_VALUE_FRACTION,
    VALUE,
)

#: one territory's entries, at offset ``TERRITORY_SIZE * t`` (the docstring's second table)
TERRITORY = ObsLayout(
    [("unit kind", NUM_UNIT_KINDS), ("unit value", 1), ("host value", 1), ("has recruit", 1), ("recruit value", 1)]
)
TERRITORY_SIZE = TERRITORY.size
#: a King brings two enemies a round; each takes two entries: its value / 13, then a presence flag
MAX_ENEMIES = 2
#: the entries of the "counts" field, in order (its docstring row names them the same way)
COUNTS = ObsLayout([("deck size", 1), ("discard size", 1), ("bases", 1), ("draws", 1)])

#: the territory fields of ``LAYOUT``, territory ``t`` at ``TERRITORY_FIELDS[t]``
TERRITORY_FIELDS = tuple(f"territory {t}" for t in range(NUM_TERRITORIES))
LAYOUT = ObsLayout(
    [(name, TERRITORY_SIZE) for name in TERRITORY_FIELDS]
    + [
        ("drawn rank", NUM_RANKS),
        ("drawn suit", NUM_SUITS),
        ("phase", len(PHASE_NAMES)),
        ("attacker", KING - JACK + 1),
        ("enemies", 2 * MAX_ENEMIES),
        ("mode", 2),
        ("split stage", 1),
        ("rounds lost", 1),
        ("counts", COUNTS.size),
        ("discard cards", NUM_CARDS),
        ("deck cards", NUM_CARDS),
    ]
)
OBSERVATION_SIZE = LAYOUT.size

_UNIT_VALUE = TERRITORY.start("unit value")
_HOST_VALUE = TERRITORY.start("host value")
_HAS_RECRUIT = TERRITORY.start("has recruit")
_RECRUIT_VALUE = TERRITORY.start("recruit value")
_DRAWN_RANK = LAYOUT.start("drawn rank")
_DRAWN_SUIT = LAYOUT.start("drawn suit")
_PHASE = LAYOUT.start("phase")
_ATTACKER = LAYOUT.start("attacker")
_ENEMIES = LAYOUT.start("enemies")
_MODE = LAYOUT.start("mode")
_SPLIT_STAGE = LAYOUT.start("split stage")
_ROUNDS = LAYOUT.start("rounds lost")
_DECK_SIZE = LAYOUT.start("counts") + COUNTS.start("deck size")
_DISCARD_SIZE = LAYOUT.start("counts") + COUNTS.start("discard size")
_BASES = LAYOUT.start("counts") + COUNTS.start("bases")
_DRAWS = LAYOUT.start("counts") + COUNTS.start("draws")
_DISCARD = LAYOUT.start("discard cards")
_DECK = LAYOUT.start("deck cards")


def observe(state: SoloState, seat: int = 0) -> np.ndarray:
    """The player's observation of ``state`` (a fresh array); ``seat`` is always 0 (one player)."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    kinds, cards, recruits = state.unit_kind, state.unit_cards, state.recruit
    for t in range(NUM_TERRITORIES):
        base = TERRITORY_SIZE * t
        kind = kinds[t]
        obs[base + kind] = 1.0
        if not cards[t]:
            continue
        recruit = recruits[t]
        if kind == BASE:
            obs[base + _UNIT_VALUE] = 1.0
        else:
            total = sum(VALUE[card] for card in cards[t]) + (VALUE[recruit] if recruit >= 0 else 0)
            obs[base + _UNIT_VALUE] = UNIT_VALUE_FRACTION[total]
        if kind >= NATIVE:  # NATIVE, BUILDER or BASE: a single host card ...
            if len(cards[t]) == 1:  # ... except the builder, which has four
                obs[base + _HOST_VALUE] = CARD_VALUE_FRACTION[VALUE[cards[t][0]]]
            if recruit >= 0:
                obs[base + _HAS_RECRUIT] = 1.0
                obs[base + _RECRUIT_VALUE] = CARD_VALUE_FRACTION[VALUE[recruit]]
    if state.drawn >= 0:
        obs[_DRAWN_RANK + state.drawn % NUM_RANKS] = 1.0
        obs[_DRAWN_SUIT + state.drawn // NUM_RANKS] = 1.0
    obs[_PHASE + state.phase] = 1.0
    if state.attacker >= 0:
        obs[_ATTACKER + state.attacker % NUM_RANKS - JACK] = 1.0
        for index, enemy in enumerate(state.enemies):
            obs[_ENEMIES + 2 * index] = CARD_VALUE_FRACTION[VALUE[enemy]]
            obs[_ENEMIES + 2 * index + 1] = 1.0
        if state.mode == SUM:
            obs[_MODE] = 1.0
        elif state.mode == SPLIT:
            obs[_MODE + 1] = 1.0
            obs[_SPLIT_STAGE] = 1.0 if state.split_first_won >= 0 else 0.0
        obs[_ROUNDS] = ROUNDS_LOST_FRACTION[min(state.rounds_lost, ROUNDS_LOST_SCALE)]
    obs[_DECK_SIZE] = PILE_FRACTION[len(state.deck)]
    obs[_DISCARD_SIZE] = PILE_FRACTION[len(state.discard)]
    obs[_BASES] = BASES_FRACTION[kinds.count(BASE)]
    obs[_DRAWS] = state.draws / state.config.length_limit
    if state.discard:
        obs[[_DISCARD + card for card in state.discard]] = 1.0
    if state.deck:
        obs[[_DECK + card for card in state.deck]] = 1.0
    return obs
