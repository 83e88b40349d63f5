"""Pillars rules as pure functions over a ``PillarsState``: deal, legal actions, apply, returns,
determinize, and the game's metadata (``max_game_length``, ``utility_range``). Each phase is one
entry of the phase table ``PHASES`` (who acts, its legal actions, what an action does and earns),
through which ``acting_player``, ``legal_actions``, ``legal_mask``, ``is_legal`` and
``apply_action`` dispatch. Randomness enters only through the ``rng`` arguments (the deal, the
first player, reshuffles, coin flips). The section numbers in comments are those of
``docs/rules/pillars.md``.

The rules are one module per topic, and this package re-exports their public functions:

==============  ==========================================================================
module          holds
==============  ==========================================================================
``setup``       ``new_game`` and the reset options it checks (``deck``, ``first_player``)
``legality``    what a seat may do: steals, trades, battles, pillars, skips, the bonus
``phases``      the phase table ``PHASES`` and the verbs that dispatch through it
``turns``       what actions do: interactions, pillars, the discard, the flow of turns
``outcomes``    the end of a game, its rewards, ``heuristic_values``, the game's metadata
``hidden``      ``determinize``: what one seat cannot see, drawn again
==============  ==========================================================================
"""

from __future__ import annotations

from .hidden import determinize
from .legality import (
    BONUS_KIND,
    bonus_action_available,
    can_steal,
    layout,
    pillar_actions,
    pillars_allowed,
    skip_targets,
)
from .outcomes import (
    final_rewards,
    heuristic_values,
    is_terminal,
    is_truncated,
    max_game_length,
    max_interaction_decisions,
    max_turn_decisions,
    outcome_name,
    progress,
    utility_range,
    win_rewards,
)
from .phases import PHASES, acting_player, apply_action, is_legal, legal_actions, legal_mask
from .setup import checked_deck, checked_first_player, new_game
from .turns import FIRST_PILLAR_DRAW, PLAYED_TURN, reshuffle

__all__ = [
    "BONUS_KIND",
    "FIRST_PILLAR_DRAW",
    "PHASES",
    "PLAYED_TURN",
    "acting_player",
    "apply_action",
    "bonus_action_available",
    "can_steal",
    "checked_deck",
    "checked_first_player",
    "determinize",
    "final_rewards",
    "heuristic_values",
    "is_legal",
    "is_terminal",
    "is_truncated",
    "layout",
    "legal_actions",
    "legal_mask",
    "max_game_length",
    "max_interaction_decisions",
    "max_turn_decisions",
    "new_game",
    "outcome_name",
    "pillar_actions",
    "pillars_allowed",
    "progress",
    "reshuffle",
    "skip_targets",
    "utility_range",
    "win_rewards",
]
