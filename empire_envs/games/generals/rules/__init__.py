"""Empires and Generals rules as pure functions over a ``GeneralsState``: setup, legal actions,
apply (with the automatic steps), battles, cultural health, the end of the game, determinize.
Randomness enters only through ``rng`` (deck choice, shuffles, the first player). Ruling numbers
refer to ``docs/rules/generals.md`` (they follow the project's rulings).

Every decision with exactly one legal action is taken by the engine at once (ruling: auto-resolved
steps leave no trace), so an agent only ever sees real choices.

The modules, in the order of a turn (each imports only those before it):

- ``tables``: the per-kind numbers of a pool (``CardTables``), the config's pool and decks;
- ``derived``: numbers read off a state (statics, unit strength and life, money, payment);
- ``effects``: small card moves many rules share (draw, pay, ban, discard a unit);
- ``scoring``: cultural health, eliminations and victories, rewards, the end of the game;
- ``turn``: DECLARE, DRAW, the Harvest, the Resolve phase (DISCARD_HAND), the end of a turn;
- ``kingdom``: the Kingdom phase and a Sabotage's targets (TARGET_PLAYER, TARGET_KIND);
- ``army``: the Army phase and REPLACE_GENERAL;
- ``battle``: the Attack phase, BLOCK and the resolution of a battle;
- ``tactics``: a battle's tactic window (TACTIC);
- ``phases``: the phase table ``PHASES`` and the verbs that dispatch through it
  (``acting_player``, ``legal_actions``, ``legal_mask``, ``is_legal``, ``apply_action``);
- ``setup``: ``new_game`` and the bound on a game's length (``max_game_length``);
- ``hidden``: ``determinize``.

This package exports the public API; ``from empire_envs.games.generals import rules`` and
``rules.new_game(...)`` read as they did when the rules were one module.
"""

from __future__ import annotations

from ....core.errors import IllegalActionError
from ..actions import (
    DRAW_PLAYING,
    DRAW_SUPPLY,
    END_PHASE,
    NO_BLOCK,
    NO_TACTIC,
    PASS,
    PLAY_TURN,
    ActionLayout,
    Kind,
    layout_for,
)
from ..cards import KNOWN_EMPIRES, STATIC_EFFECTS, CardPool, Deck
from ..config import BASE_HAND_LIMIT, MAX_KINGDOM, UNIT_SLOTS, GeneralsConfig
from ..state import (
    ARMY,
    ATTACK,
    BF,
    BLOCK,
    COUNT_TYPECODE,
    DECLARE,
    DISCARD_HAND,
    DRAW,
    KINGDOM,
    ONGOING,
    OVER,
    PHASE_NAMES,
    REPLACE_GENERAL,
    TACTIC,
    TARGET_KIND,
    TARGET_PLAYER,
    TRUNCATED,
    WC,
    WON,
    Battle,
    BattleOutcome,
    GeneralsState,
    Phase,
    PlayerState,
    Unit,
    new_counts,
)
from . import army, battle, derived, effects, hidden, kingdom, phases, scoring, setup, tables, tactics, turn
from .battle import (
    ATTACKER_KILLS,
    ATTACKER_OUT,
    BLOCKER_OUT,
    COUNTER_ATTACK,
    DOUBLE_BLOCK,
    DOUBLE_DEATH,
    NO_BLOCKER,
    kill_tests,
)
from .derived import (
    bf_entry_flags,
    can_pay,
    effective_cost,
    free_slot,
    fresh_value,
    generals_in_play,
    hand_limit,
    has_keyword,
    may_enter_bf,
    money,
    obeys_pull,
    opponents_in_game,
    payment_choice,
    ready_value,
    static_total,
    statics,
    unit_life,
    unit_numbers,
    unit_numbers_at,
    unit_strength,
)
from .hidden import determinize
from .phases import PHASES, acting_player, apply_action, is_legal, legal_actions, legal_mask
from .scoring import (
    LOSS_REWARD,
    WIN_REWARD,
    eliminated,
    elimination_line,
    final_rewards,
    heuristic_values,
    is_terminal,
    is_truncated,
    outcome_name,
    place_reward,
    utility_range,
)
from .setup import CARD_DECISIONS, TURN_DECISIONS, decisions_per_turn, max_game_length, new_game
from .tables import CardTables, available_decks, layout, load_pool, tables_for

#: the name pickles made before the rules were a package give the pool's shared tables
_tables_for = tables_for

__all__ = [
    "ARMY",
    "ATTACK",
    "ATTACKER_KILLS",
    "ATTACKER_OUT",
    "BASE_HAND_LIMIT",
    "BF",
    "BLOCK",
    "BLOCKER_OUT",
    "CARD_DECISIONS",
    "COUNTER_ATTACK",
    "COUNT_TYPECODE",
    "DECLARE",
    "DISCARD_HAND",
    "DOUBLE_BLOCK",
    "DOUBLE_DEATH",
    "DRAW",
    "DRAW_PLAYING",
    "DRAW_SUPPLY",
    "END_PHASE",
    "KINGDOM",
    "KNOWN_EMPIRES",
    "LOSS_REWARD",
    "MAX_KINGDOM",
    "NO_BLOCK",
    "NO_BLOCKER",
    "NO_TACTIC",
    "ONGOING",
    "OVER",
    "PASS",
    "PHASES",
    "PHASE_NAMES",
    "PLAY_TURN",
    "REPLACE_GENERAL",
    "STATIC_EFFECTS",
    "TACTIC",
    "TARGET_KIND",
    "TARGET_PLAYER",
    "TRUNCATED",
    "TURN_DECISIONS",
    "UNIT_SLOTS",
    "WC",
    "WIN_REWARD",
    "WON",
    "ActionLayout",
    "Battle",
    "BattleOutcome",
    "CardPool",
    "CardTables",
    "Deck",
    "GeneralsConfig",
    "GeneralsState",
    "IllegalActionError",
    "Kind",
    "Phase",
    "PlayerState",
    "Unit",
    "acting_player",
    "apply_action",
    "army",
    "available_decks",
    "battle",
    "bf_entry_flags",
    "can_pay",
    "decisions_per_turn",
    "derived",
    "determinize",
    "effective_cost",
    "effects",
    "eliminated",
    "elimination_line",
    "final_rewards",
    "free_slot",
    "fresh_value",
    "generals_in_play",
    "hand_limit",
    "has_keyword",
    "heuristic_values",
    "hidden",
    "is_legal",
    "is_terminal",
    "is_truncated",
    "kill_tests",
    "kingdom",
    "layout",
    "layout_for",
    "legal_actions",
    "legal_mask",
    "load_pool",
    "max_game_length",
    "may_enter_bf",
    "money",
    "new_counts",
    "new_game",
    "obeys_pull",
    "opponents_in_game",
    "outcome_name",
    "payment_choice",
    "phases",
    "place_reward",
    "ready_value",
    "scoring",
    "setup",
    "static_total",
    "statics",
    "tables",
    "tables_for",
    "tactics",
    "turn",
    "unit_life",
    "unit_numbers",
    "unit_numbers_at",
    "unit_strength",
    "utility_range",
]
