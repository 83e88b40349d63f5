"""Map Duel rules as pure functions over a ``MapDuelState``: setup, legal actions, apply,
confrontations, the end of the game, determinize. Randomness enters only through ``rng`` (the
setup deck, a random first player, coin flips). Section numbers refer to
``docs/rules/map_duel.md`` (they follow the rulings).

Each rule lives in one module, each phase (``PHASES``: who acts, what is legal, what an action
does) with the rules it plays by; this package exports the public functions of them all:

=============  =============================================================================
module         holds
=============  =============================================================================
``board``      geometry, egocentric cells and directions, the layout of a state, swapping faces
``turn``       the seat to act, a turn beginning (or truncated) and ending (or drawn)
``setup``      a new game, the placement rule, the setup's phases, ``determinize``
``step1``      STEP_1: the swaps and the choice between them, a sacrifice, a new face or a pass
``sacrifice``  a sacrifice: SACRIFICE_FACE and SACRIFICE_MOVE
``new_face``   a new face's cost and cells: PLACE_CELL and PLACE_PAY
``step2``      entering step 2, STEP_2 (consume, build, confront, END_TURN), BUILD_CARD
``confront``   reach, face values, resolving a confrontation and its odds
``end``        the colour share, wins, losses and draws, the results, the OVER phase
``limits``     ``max_game_length`` and ``utility_range``
``phases``     ``PHASES`` and the generic verbs (``legal_actions``, ``apply_action``, ...)
=============  =============================================================================

A module imports only the ones above it in the order ``board``, ``turn``, ``confront``, ``end``,
``setup``, ``step2``, ``sacrifice``, ``new_face``, ``step1``, ``limits``, ``phases``.
"""

from __future__ import annotations

from ..config import MapDuelConfig
from ..state import MapDuelState, Phase
from .board import (
    DIAGONAL,
    DIRECTIONS,
    ORTHOGONAL,
    Geometry,
    faces_on_map,
    from_ego,
    geometry,
    is_face,
    is_number,
    is_own_colour,
    layout,
    neighbour,
    offset_cell,
    pool_action,
    seat_colour_is_red,
    to_ego,
)
from .confront import confront_odds, confront_targets, face_value, resolve, suit_totals
from .end import (
    check_end,
    colour_share,
    final_rewards,
    heuristic_values,
    is_terminal,
    is_truncated,
    outcome_name,
)
from .limits import (
    SETUP_DECISIONS,
    STEP_1_DECISIONS,
    STEP_2_DECISIONS,
    TURN_DECISIONS,
    max_game_length,
    utility_range,
)
from .new_face import ACE_PAYMENT, FACE_COST, can_afford, can_pay, placement_cells
from .phases import PHASES, acting_player, apply_action, is_legal, legal_actions, legal_mask
from .sacrifice import sacrifice_faces
from .setup import determinize, new_game, setup_cells, starting_face_cells

__all__ = [
    "ACE_PAYMENT",
    "DIAGONAL",
    "DIRECTIONS",
    "FACE_COST",
    "ORTHOGONAL",
    "PHASES",
    "SETUP_DECISIONS",
    "STEP_1_DECISIONS",
    "STEP_2_DECISIONS",
    "TURN_DECISIONS",
    "Geometry",
    "MapDuelConfig",
    "MapDuelState",
    "Phase",
    "acting_player",
    "apply_action",
    "can_afford",
    "can_pay",
    "check_end",
    "colour_share",
    "confront_odds",
    "confront_targets",
    "determinize",
    "face_value",
    "faces_on_map",
    "final_rewards",
    "from_ego",
    "geometry",
    "heuristic_values",
    "is_face",
    "is_legal",
    "is_number",
    "is_own_colour",
    "is_terminal",
    "is_truncated",
    "layout",
    "legal_actions",
    "legal_mask",
    "max_game_length",
    "neighbour",
    "new_game",
    "offset_cell",
    "outcome_name",
    "placement_cells",
    "pool_action",
    "resolve",
    "sacrifice_faces",
    "seat_colour_is_red",
    "setup_cells",
    "starting_face_cells",
    "suit_totals",
    "to_ego",
    "utility_range",
]
