"""The Empires and Generals twin's state (one game; ``jax.vmap`` batches it) and its exact
conversions to and from the Python rules' ``GeneralsState``.

The flat fields are converted by ``core.jax_game.state_codec``, derived from
``GeneralsState.FIELDS``; the nested ones are derived the same way from ``PlayerState.FIELDS``
(each per-seat field is the twin field of the same name with a leading seat axis) and from
``Battle.FIELDS`` (each the twin field ``battle_<name>``). Only what the twin keeps another way
has a conversion written here; a Python field of any of the three classes with neither a twin
field nor a conversion is a ``TypeError`` when the codec is built (``make_codec``).

Sizes are static per config: ``n`` seats (``config.num_players``), ``K`` kinds
(``config.pool.size``), ``U`` unit slots (``config.UNIT_SLOTS``, 10), ``P`` and ``S`` the
longest Playing Deck and Supply Pile of ``config.available_decks`` (a pile never grows: cards
only leave it), ``A`` actions (the action table's size), ``O`` observation entries. Seats are
absolute (the observation turns them into offsets).

**Piles** are kept bottom first with a size, as the Python lists are (top card last): the pile
is ``playing_deck[s, :playing_size[s]]`` and its top card ``playing_deck[s, playing_size[s] - 1]``;
``from_python`` writes -1 past the size, and ``to_python`` reads nothing there (a twin's draw
may leave the drawn card behind).

**A battle has at most two outcome steps** (``MAX_BATTLE_STEPS``): ``rules.battle`` appends a
step in three places: ``apply_block`` (an unblocked Battlefield attack) and ``resolve_battle``
(a declared Battlefield blocker taken out) each append one only in the Battlefield and then
move the battle to the Warcamp for good (no code moves it back), and ``_finish_battle`` appends
the final step and ends the battle. So at most one Battlefield step precedes the final one.

=============================  =================  ===================================================
field                          dtype[shape]       meaning (the Python field of the same name, unless
                                                  said; bounds in brackets)
=============================  =================  ===================================================
``current_player``             int32              pgx: the seat to act (Python ``acting_player()``);
                                                  once the game is over, the turn player (Python
                                                  ``current``: ``core.jax_game``'s convention)
``observation``                float32[O]         pgx: ``observe.observe`` of ``current_player``
``rewards``                    float32[n]         pgx: what each seat got from the step that made the
                                                  state (0 from ``from_python``)
``terminated``                 bool               pgx: the game was won (or ended by an illegal
                                                  action)
``truncated``                  bool               pgx: the game was truncated
``legal_action_mask``          bool[A]            pgx: ``rules.legal_mask`` of the seat to act (all
                                                  False once over)
``step_count``                 int32              pgx: steps the twin took (0 from ``from_python``;
                                                  ``decisions`` is the game's own count)
``deck_id``                    int16[n]           PlayerState ``deck_id``: an index into the sorted
                                                  ids of ``config.available_decks`` (``deck_ids``),
                                                  -1 for "" (no deck yet)
``empire``                     int8[n]            PlayerState ``empire``: the deck's
                                                  ``DeckArrays.empire`` code (``twin_decks``: an index
                                                  of ``cards.KNOWN_EMPIRES``, their count for any
                                                  other), -1 for ""; ``to_python`` gives the deck's
                                                  empire, ``from_python`` refuses any other
``hand``                       int16[n, K]        per-kind counts (Python ``array("H")``) [0..2,000:
                                                  a deck's two piles hold at most 1,000 cards each]
``playing_deck``               int16[n, P]        the Playing Deck's kinds, bottom first (Python: a
                                                  list, top card last); -1 past the size
``playing_size``               int16[n]           twin only: ``len(playing_deck)`` [0..P]
``supply_pile``                int16[n, S]        the Supply Pile's kinds, bottom first; -1 past the
                                                  size
``supply_size``                int16[n]           twin only: ``len(supply_pile)`` [0..S]
``supply_ready``               int16[n, K]        per-kind counts [0..2,000]
``supply_fresh``               int16[n, K]        per-kind counts [0..2,000]
``kingdom``                    int16[n, K]        per-kind counts [0..8 in all: ``MAX_KINGDOM``]
``strategy``                   int16[n]           a kind, -1 none
``capitol``                    int16[n]           a kind, -1 none
``unit_kind``                  int16[n, U]        Python ``units[u].kind``; -1: the slot is empty
                                                  (None)
``unit_zone``                  int8[n, U]         ``units[u].zone``: ``BF`` or ``WC`` (0 when empty)
``unit_entered_turn``          int32[n, U]        ``units[u].entered_turn`` (0 when empty) [0..
                                                  ``length_limit`` + 1, up to 100,001]
``unit_ability_used``          bool[n, U]         ``units[u].ability_used`` (False when empty)
``discard``                    int16[n, K]        per-kind counts [0..2,000]
``removed``                    int16[n, K]        per-kind counts [0..2,000]
``ch``                         int16[n]           cultural health [-8..10,007: only a battle lowers
                                                  it, by 1, to the elimination line at worst (-T,
                                                  T <= 8); a rise of at most 10,000 (10 statics of
                                                  1,000) starts below T]
``budget``                     int16[n]           [0..10,000: one Harvest of 10 statics, reset every
                                                  turn; a payment's change is below 1,000]
``alive``                      bool[n]
``passed_last``                bool[n]
``turns_taken``                int32[n]           [0..``length_limit`` + 1]
``place``                      int8[n]            finishing place, 0 while in [0..n]
``final_reward``               float32[n]         the place's reward; ``to_python`` gives back the
                                                  Python rules' own double, ``final_reward_table(
                                                  config)[place, seats sharing the place]``, which
                                                  must round to this float32
``deck_size``                  int16[n]           [0..2,000]
``drawn_playing``              int16[n]           [0..1,000]
``drawn_supply``               int16[n]           [0..1,000]
``resources_discarded``        int16[n]           [0..2,000]
``banned_at_harvest``          bool[n, K]         Python: a frozenset of kinds
``turn_player``                int8               Python ``current``: whose turn it is
``first``                      int8               the first player
``phase``                      int8               ``state.Phase``
``round``                      int32              rounds begun [1..``length_limit``, up to 100,000]
``draws_left``                 int16              [0..10,001: 1 + a ``draw_extra`` total]
``attacked``                   bool
``battle_on``                  bool               twin only: a battle is under way (Python ``battle``
                                                  is not None); without one the ``battle_*`` fields
                                                  hold a fresh ``Battle(-1, -1, -1, BF)``'s values
``battle_attacker``            int8               ``battle.attacker`` (a seat)
``battle_a_slot``              int8               ``battle.a_slot`` (a unit slot)
``battle_defender``            int8               ``battle.defender``
``battle_zone``                int8               ``battle.zone``: ``BF`` or ``WC``
``battle_stage``               int8               ``battle.stage``: ``BLOCK`` or ``TACTIC``
``battle_tactic_turn``         int8               ``battle.tactic_turn``: 0 attacker, 1 defender
``battle_blocker``             int8               ``battle.blocker``: a slot, -1 none
``battle_blocker_declared``    bool               ``battle.blocker_declared``
``battle_a_out``               bool               ``battle.a_out``
``battle_b_out``               bool               ``battle.b_out``
``battle_window_done``         bool               ``battle.window_done``
``battle_pumps``               int16[4]           ``battle.pumps`` [0..1,000 each: one tactic a side]
``battle_redirected``          bool               ``battle.redirected``
``battle_tactics``             int16[2]           ``battle.tactics``: kinds, -1 none
``battle_outcomes``            int8[2, 2]         ``battle.outcomes``: (zone, ``BattleOutcome``) steps,
                                                  -1 past the count
``battle_outcome_count``       int8               twin only: ``len(battle.outcomes)`` [0..2]
``target_player``              int8               -1 none
``pending_card``               int16              a kind, -1 none
``pending_to_bf``              bool
``banned``                     bool[K]            Python: a set of kinds
``outcome``                    int8               an index of ``outcome_names(config)``: ONGOING and
                                                  TRUNCATED as ``GameOutcome``, ``ILLEGAL`` (the
                                                  env's illegal action; ``to_python`` reports it
                                                  as truncated), a won game ``won_code(winner,
                                                  victory)`` (never ``GameOutcome.WON`` itself)
``winner``                     int8               -1 none
``victory``                    int8               an index of ``VICTORY_NAMES`` ("", "chancellor",
                                                  "warlord")
``finish_order``               int8[n]            seats in the order they left, -1 past the count
``finish_count``               int8               twin only: ``len(finish_order)`` [0..n]
``last_battle_attacker``       int8               ``last_battle[0]``; -1: ``last_battle`` is ()
``last_battle_defender``       int8               ``last_battle[1]`` (-1 when none)
``last_battle_outcomes``       int8[2, 2]         ``last_battle[2]``, -1 past the count
``last_battle_count``          int8               twin only: ``len(last_battle[2])`` [0..2]
``decks_public``               bool
``decisions``                  int32              [0..``decision_limit``]
``decision_limit``             int32              ``rules.max_game_length`` [below 17 million: 100,000
                                                  rounds x 6 seats x 28 + 6 x 4 x 2,000]; -1 stands
                                                  for the fresh state's "none" (Python 1 << 62,
                                                  before ``new_game`` sets it)
``ch_target``                  int8               twin only: ``config.target``, the CH of a Chancellor
                                                  victory (a Slaughterhouse's start and cap) [3, 5, 8]
``slaughterhouse``             bool               twin only: ``config.slaughterhouse``
``elimination_line``           int8               twin only: the CH at or below which a seat is out
                                                  (0 in a Slaughterhouse of floor ``"zero"``, else
                                                  -``ch_target``)
``length_limit``               int32              twin only: ``config.length_limit`` [1..100,000]
``deal_key``                   uint32[2]          twin only: the key the deal was drawn from
                                                  (``jax_rules.deal_orders`` redraws the piles'
                                                  whole orders from it); zeros from ``from_python``
=============================  =================  ===================================================
"""

from __future__ import annotations

import dataclasses
import functools
from array import array
from collections.abc import Callable, Mapping
from typing import Any

import jax
import numpy as np

from ...core.errors import ILLEGAL_ACTION_OUTCOME
from ...core.jax_game import PGX_FIELDS, JaxState, StateCodec, fresh_pgx_fields, jax_state, state_codec
from .config import UNIT_SLOTS, GeneralsConfig
from .jax_tables import DeckArrays, deck_arrays
from .observe import observation_size, observe
from .rules import legal_mask, tables_for
from .rules.scoring import LOSS_REWARD, WIN_REWARD, place_reward
from .state import (
    BF,
    COUNT_TYPECODE,
    OVER,
    TRUNCATED,
    WON,
    Battle,
    BattleOutcome,
    GameOutcome,
    GeneralsState,
    PlayerState,
    Unit,
)

__all__ = [
    "ILLEGAL",
    "WON_BASE",
    "MAX_BATTLE_STEPS",
    "OUTCOME_NAMES",
    "VICTORY_NAMES",
    "State",
    "blank_state",
    "deck_ids",
    "final_reward_table",
    "from_python",
    "host_state",
    "make_codec",
    "outcome_names",
    "to_python",
    "twin_decks",
    "won_code",
]

#: the Python rules' ``GameOutcome`` (ongoing, won, truncated), then the env's illegal action;
#: ``outcome_names(config)`` goes on with a name per winner and victory
OUTCOME_NAMES = (*(outcome.name.lower() for outcome in GameOutcome), ILLEGAL_ACTION_OUTCOME)
ILLEGAL = len(GameOutcome)
#: ``state.victory`` indexes these (the Python rules' ``victory`` strings)
VICTORY_NAMES = ("", "chancellor", "warlord")
#: the code of a won game: ``WON_BASE + 2 * winner + victory - 1`` (``won_code``); the code
#: ``GameOutcome.WON`` itself is never written, so that ``outcome_names(config)[state.outcome]``
#: reads as ``rules.outcome_name`` does ("won by player_2 (chancellor victory)")
WON_BASE = ILLEGAL + 1


def won_code(winner: Any, victory: Any) -> Any:
    """The outcome code of a game won by seat ``winner`` with ``VICTORY_NAMES[victory]``
    (Python ints, or arrays)."""
    return WON_BASE + 2 * winner + victory - 1


def outcome_names(config: GeneralsConfig) -> tuple[str, ...]:
    """What each outcome code of the config's twin reads as (``rules.outcome_name``'s wording)."""
    import types

    from .rules.scoring import outcome_name

    won = [
        outcome_name(types.SimpleNamespace(outcome=GameOutcome.WON, winner=seat, victory=victory))  # type: ignore[arg-type]
        for seat in range(config.num_players)
        for victory in VICTORY_NAMES[1:]
    ]
    return (*OUTCOME_NAMES, *won)


#: outcome steps of one battle (the module docstring says why two)
MAX_BATTLE_STEPS = 2
#: the twin's ``decision_limit`` for the fresh Python state's "none"
NO_LIMIT = -1
#: the twin fields of a ``Battle`` field are named with this prefix
BATTLE_PREFIX = "battle_"


@jax_state
@dataclasses.dataclass(frozen=True)
class State(JaxState):
    deck_id: jax.Array
    empire: jax.Array
    hand: jax.Array
    playing_deck: jax.Array
    playing_size: jax.Array
    supply_pile: jax.Array
    supply_size: jax.Array
    supply_ready: jax.Array
    supply_fresh: jax.Array
    kingdom: jax.Array
    strategy: jax.Array
    capitol: jax.Array
    unit_kind: jax.Array
    unit_zone: jax.Array
    unit_entered_turn: jax.Array
    unit_ability_used: jax.Array
    discard: jax.Array
    removed: jax.Array
    ch: jax.Array
    budget: jax.Array
    alive: jax.Array
    passed_last: jax.Array
    turns_taken: jax.Array
    place: jax.Array
    final_reward: jax.Array
    deck_size: jax.Array
    drawn_playing: jax.Array
    drawn_supply: jax.Array
    resources_discarded: jax.Array
    banned_at_harvest: jax.Array
    turn_player: jax.Array
    first: jax.Array
    phase: jax.Array
    round: jax.Array
    draws_left: jax.Array
    attacked: jax.Array
    battle_on: jax.Array
    battle_attacker: jax.Array
    battle_a_slot: jax.Array
    battle_defender: jax.Array
    battle_zone: jax.Array
    battle_stage: jax.Array
    battle_tactic_turn: jax.Array
    battle_blocker: jax.Array
    battle_blocker_declared: jax.Array
    battle_a_out: jax.Array
    battle_b_out: jax.Array
    battle_window_done: jax.Array
    battle_pumps: jax.Array
    battle_redirected: jax.Array
    battle_tactics: jax.Array
    battle_outcomes: jax.Array
    battle_outcome_count: jax.Array
    target_player: jax.Array
    pending_card: jax.Array
    pending_to_bf: jax.Array
    banned: jax.Array
    outcome: jax.Array
    winner: jax.Array
    victory: jax.Array
    finish_order: jax.Array
    finish_count: jax.Array
    last_battle_attacker: jax.Array
    last_battle_defender: jax.Array
    last_battle_outcomes: jax.Array
    last_battle_count: jax.Array
    decks_public: jax.Array
    decisions: jax.Array
    decision_limit: jax.Array
    ch_target: jax.Array
    slaughterhouse: jax.Array
    elimination_line: jax.Array
    length_limit: jax.Array
    deal_key: jax.Array


# --------------------------------------------------------------------------- sizes and decks


def deck_ids(config: GeneralsConfig) -> tuple[str, ...]:
    """The ids of ``config.available_decks``, sorted: ``state.deck_id`` indexes them (the order
    ``rules.setup`` draws random decks from)."""
    return tuple(sorted(config.available_decks))


@functools.cache
def twin_decks(config: GeneralsConfig) -> DeckArrays:
    """The config's decks as ``jax_tables.DeckArrays``, one row per id of ``deck_ids``."""
    available = config.available_decks
    return deck_arrays([available[name] for name in deck_ids(config)], config.pool)


def sizes(config: GeneralsConfig) -> dict[str, int]:
    """The static sizes of the module docstring: ``n``, ``K``, ``U``, ``P``, ``S``, ``A``, ``O``."""
    decks = twin_decks(config)
    return {
        "n": config.num_players,
        "K": config.pool.size,
        "U": UNIT_SLOTS,
        "P": int(decks.playing.shape[1]),
        "S": int(decks.supply.shape[1]),
        "A": tables_for(config.pool).layout(config.offsets).size,
        "O": observation_size(config.pool.size, config.max_seats),
    }


def final_reward_table(config: GeneralsConfig) -> np.ndarray:
    """float64[n + 1, n + 1]: entry ``[place, sharers]`` is the ``PlayerState.final_reward`` the
    Python rules (``rules.scoring``) give a seat of finishing ``place`` (0: still in) that
    ``sharers`` seats hold, as they compute it: 0 while in; under ``"win_loss"`` the win reward
    for place 1, the loss reward for any other; under ``"placement"`` the mean ``place_reward``
    of the run of places the sharers take (``scoring._chancellor_victory``: the seats still in
    after a Chancellor victory share the places left open, which are a run, each getting the
    best of them; a place nobody shares is a run of one). A float32 cannot hold these exactly,
    and one float32 can stand for two of them (-1/3 is -0.33333333333333326 as place 3 of 4,
    -0.3333333333333333 as places 2-4 shared), so ``to_python`` reads the double here."""
    n = config.num_players
    table = np.zeros((n + 1, n + 1), dtype=np.float64)
    for place in range(1, n + 1):
        for sharers in range(1, n + 2 - place):
            if config.reward_scheme == "placement":
                run = range(place, place + sharers)
                table[place, sharers] = sum(place_reward(config, q) for q in run) / len(run)
            else:
                table[place, sharers] = WIN_REWARD if place == 1 else LOSS_REWARD
    table.setflags(write=False)
    return table


# --------------------------------------------------------------------------- the blank state


def _rule_parameters(config: GeneralsConfig) -> dict[str, tuple[Any, Any]]:
    """The state fields that carry the config's game type, Slaughterhouse and length limit
    (``(dtype, value)`` each): the step and the view read them from the state, so every config
    that differs only in these shares one compiled step (``jax_rules.program_config``)."""
    line = 0 if config.slaughterhouse and config.slaughter_floor == "zero" else -config.target
    return {
        "ch_target": (np.int8, config.target),
        "slaughterhouse": (np.bool_, config.slaughterhouse),
        "elimination_line": (np.int8, line),
        "length_limit": (np.int32, config.length_limit),
    }


def _rule_parameter(name: str, python: GeneralsState) -> Any:
    """The value of the state field ``name`` of ``_rule_parameters`` for a Python state."""
    return _rule_parameters(python.config)[name][1]


def _host_blank(config: GeneralsConfig) -> State:
    """The twin of a fresh ``GeneralsState(config, ...)`` (before ``new_game``), numpy leaves:
    the one place the twin's dtypes and shapes are written."""
    size = sizes(config)
    n, k, u = size["n"], size["K"], size["U"]

    def seats(dtype: Any, fill: Any = 0, *tail: int) -> np.ndarray:
        return np.full((n, *tail), fill, dtype=dtype)

    def scalar(dtype: Any, value: Any = 0) -> np.ndarray:
        return np.asarray(value, dtype=dtype)

    fresh_battle = Battle(-1, -1, -1, BF)
    pgx = {name: np.asarray(value) for name, value in fresh_pgx_fields(size["O"], size["A"], n).items()}
    fields: dict[str, Any] = dict(  # numpy leaves (``State`` declares the device's type)
        deck_id=seats(np.int16, -1),
        empire=seats(np.int8, -1),
        hand=seats(np.int16, 0, k),
        playing_deck=seats(np.int16, -1, size["P"]),
        playing_size=seats(np.int16),
        supply_pile=seats(np.int16, -1, size["S"]),
        supply_size=seats(np.int16),
        supply_ready=seats(np.int16, 0, k),
        supply_fresh=seats(np.int16, 0, k),
        kingdom=seats(np.int16, 0, k),
        strategy=seats(np.int16, -1),
        capitol=seats(np.int16, -1),
        unit_kind=seats(np.int16, -1, u),
        unit_zone=seats(np.int8, 0, u),
        unit_entered_turn=seats(np.int32, 0, u),
        unit_ability_used=seats(np.bool_, False, u),
        discard=seats(np.int16, 0, k),
        removed=seats(np.int16, 0, k),
        ch=seats(np.int16),
        budget=seats(np.int16),
        alive=seats(np.bool_, True),
        passed_last=seats(np.bool_, False),
        turns_taken=seats(np.int32),
        place=seats(np.int8),
        final_reward=seats(np.float32),
        deck_size=seats(np.int16),
        drawn_playing=seats(np.int16),
        drawn_supply=seats(np.int16),
        resources_discarded=seats(np.int16),
        banned_at_harvest=seats(np.bool_, False, k),
        turn_player=scalar(np.int8),
        first=scalar(np.int8),
        phase=scalar(np.int8),
        round=scalar(np.int32, 1),
        draws_left=scalar(np.int16),
        attacked=scalar(np.bool_, False),
        battle_on=scalar(np.bool_, False),
        battle_attacker=scalar(np.int8, fresh_battle.attacker),
        battle_a_slot=scalar(np.int8, fresh_battle.a_slot),
        battle_defender=scalar(np.int8, fresh_battle.defender),
        battle_zone=scalar(np.int8, fresh_battle.zone),
        battle_stage=scalar(np.int8, fresh_battle.stage),
        battle_tactic_turn=scalar(np.int8, fresh_battle.tactic_turn),
        battle_blocker=scalar(np.int8, fresh_battle.blocker),
        battle_blocker_declared=scalar(np.bool_, False),
        battle_a_out=scalar(np.bool_, False),
        battle_b_out=scalar(np.bool_, False),
        battle_window_done=scalar(np.bool_, False),
        battle_pumps=np.asarray(fresh_battle.pumps, dtype=np.int16),
        battle_redirected=scalar(np.bool_, False),
        battle_tactics=np.asarray(fresh_battle.tactics, dtype=np.int16),
        battle_outcomes=np.full((MAX_BATTLE_STEPS, 2), -1, dtype=np.int8),
        battle_outcome_count=scalar(np.int8),
        target_player=scalar(np.int8, -1),
        pending_card=scalar(np.int16, -1),
        pending_to_bf=scalar(np.bool_, False),
        banned=np.zeros(k, dtype=np.bool_),
        outcome=scalar(np.int8, int(GameOutcome.ONGOING)),
        winner=scalar(np.int8, -1),
        victory=scalar(np.int8),
        finish_order=seats(np.int8, -1),
        finish_count=scalar(np.int8),
        last_battle_attacker=scalar(np.int8, -1),
        last_battle_defender=scalar(np.int8, -1),
        last_battle_outcomes=np.full((MAX_BATTLE_STEPS, 2), -1, dtype=np.int8),
        last_battle_count=scalar(np.int8),
        decks_public=scalar(np.bool_, False),
        decisions=scalar(np.int32),
        decision_limit=scalar(np.int32, NO_LIMIT),
        **{name: scalar(dtype, value) for name, (dtype, value) in _rule_parameters(config).items()},
        deal_key=np.zeros(2, dtype=np.uint32),
        **pgx,
    )
    return State(**fields)


def blank_state(config: GeneralsConfig) -> State:
    """The twin of a fresh ``GeneralsState`` (before the deal), on the device (pgx fields as
    ``fresh_pgx_fields`` makes them)."""
    return jax.device_put(_host_blank(config))


# --------------------------------------------------------------------------- nested classes


Reader = Callable[[Any, int], Any]  # (host twin state, seat) -> the Python value
Writer = Callable[[int, Any, Any], Any]  # (seat, the Python object, the whole state) -> the twin value


def _generic(cls_name: str, name: str, twin: str, default: Any) -> tuple[Reader, Writer]:
    """The conversions of a field kept as one twin array of its own (a seat's row, or the whole
    array for a ``Battle`` field, with ``seat`` -1), by the type of its fresh value: per-kind
    counts (``array("H")``), a list of ints, or a scalar typed as the fresh value (an enum, a
    bool, an int). Any other type needs a conversion of its own."""

    def row(host: Any, seat: int) -> np.ndarray:
        value: np.ndarray = getattr(host, twin)
        return value if seat < 0 else value[seat]

    if isinstance(default, array):
        return (lambda host, seat: array(COUNT_TYPECODE, row(host, seat).tolist())), (
            lambda seat, python, state: list(getattr(python, name))
        )
    if isinstance(default, list) and all(isinstance(item, int) for item in default):
        return (lambda host, seat: [int(item) for item in row(host, seat)]), (
            lambda seat, python, state: list(getattr(python, name))
        )
    if isinstance(default, (bool, int)):
        typed = type(default)
        return (lambda host, seat: typed(row(host, seat).item())), (lambda seat, python, state: getattr(python, name))
    raise TypeError(
        f"{cls_name} field {name!r} (a {type(default).__name__}) has no conversion to the twin's {twin!r}: give one"
    )


def _derived(
    cls_name: str,
    fields: Mapping[str, str],
    fresh: Any,
    twin_of: Callable[[str], str],
    special_readers: dict[str, Reader],
    special_writers: dict[str, Writer],
    twin_names: set[str],
) -> tuple[dict[str, Reader], dict[str, Writer]]:
    """Every field of a nested class (``fields``, its ``FIELDS``) with a reader, and every twin
    field it feeds with a writer: the special conversions given, the others ``_generic`` into
    the twin field ``twin_of(name)``. A Python field with neither, or a special conversion that
    names no field, is a ``TypeError``."""
    unknown = sorted(set(special_readers) - set(fields))
    if unknown:
        raise TypeError(f"conversions given for {unknown}, which are not {cls_name} fields")
    strays = sorted(set(special_writers) - twin_names)
    if strays:
        raise TypeError(f"conversions given for the twin fields {strays}, which State does not have")
    readers, writers = dict(special_readers), dict(special_writers)
    lacking = []
    for name in fields:
        if name in readers:
            continue
        twin = twin_of(name)
        if twin not in twin_names:
            lacking.append(name)
            continue
        readers[name], writers[twin] = _generic(cls_name, name, twin, getattr(fresh, name))
    if lacking:
        raise TypeError(f"State has no field for the {cls_name} fields {lacking} and no conversion for them")
    return readers, writers


def _steps(array_: np.ndarray, count: int) -> tuple[tuple[int, BattleOutcome], ...]:
    return tuple((int(zone), BattleOutcome(int(outcome))) for zone, outcome in array_[:count])


def _padded_steps(steps: Any, what: str) -> list[list[int]]:
    steps = list(steps)
    if len(steps) > MAX_BATTLE_STEPS:
        raise ValueError(f"{what} holds {len(steps)} outcome steps; a battle has at most {MAX_BATTLE_STEPS}")
    return [[int(zone), int(outcome)] for zone, outcome in steps] + [[-1, -1]] * (MAX_BATTLE_STEPS - len(steps))


def _pile(cards: list[int], width: int, seat: int, pile: str, twin: str) -> list[int]:
    if len(cards) > width:
        raise ValueError(
            f"seat {seat}'s {pile} holds {len(cards)} cards, more than the twin's {twin} = {width} (the longest such "
            "pile of config.available_decks)"
        )
    return list(cards) + [-1] * (width - len(cards))


def _seat_conversions(config: GeneralsConfig, twin_names: set[str]) -> tuple[dict[str, Reader], dict[str, Writer]]:
    """The readers of every ``PlayerState`` field and the writers of every per-seat twin field."""
    size = sizes(config)
    ids, decks, available = deck_ids(config), twin_decks(config), config.available_decks
    rewards = final_reward_table(config)

    def exact_reward(places: list[int], seat: int) -> float:
        place = places[seat]
        return float(rewards[place, places.count(place) if place else 0])

    def reward_of(host: Any, seat: int) -> float:
        exact = exact_reward(host.place.tolist(), seat)
        if np.float32(exact) != host.final_reward[seat]:
            raise ValueError(
                f"seat {seat}'s final_reward {float(host.final_reward[seat])!r} is not the rules' reward of its place "
                f"({exact!r}; final_reward_table)"
            )
        return exact

    def reward_in(seat: int, player: PlayerState, python: GeneralsState) -> float:
        exact = exact_reward([other.place for other in python.players], seat)
        if player.final_reward != exact:
            raise ValueError(
                f"seat {seat}'s final_reward {player.final_reward!r} is not the rules' reward of its place "
                f"{player.place} ({exact!r}; final_reward_table): the twin derives the double from the place"
            )
        return exact

    def deck_row(seat: int, player: PlayerState, python: Any = None) -> int:
        if player.deck_id == "":
            return -1
        if player.deck_id not in available:
            raise ValueError(f"seat {seat}'s deck {player.deck_id!r} is none of the config's decks {list(ids)}")
        return ids.index(player.deck_id)

    def empire_code(seat: int, player: PlayerState, python: Any = None) -> int:
        row = deck_row(seat, player)
        expected = available[ids[row]].empire if row >= 0 else ""
        if player.empire != expected:
            raise ValueError(
                f"seat {seat}'s empire {player.empire!r} is not its deck's ({expected!r}): the twin keeps the deck's"
            )
        return int(decks.empire[row]) if row >= 0 else -1

    def empire_of(host: Any, seat: int) -> str:
        row = int(host.deck_id[seat])
        code = int(decks.empire[row]) if row >= 0 else -1
        if int(host.empire[seat]) != code:
            raise ValueError(f"seat {seat}'s empire code {int(host.empire[seat])} is not its deck's ({code})")
        return available[ids[row]].empire if row >= 0 else ""

    def unit_of(host: Any, seat: int, slot: int) -> Unit | None:
        kind = int(host.unit_kind[seat, slot])
        if kind < 0:
            return None
        return Unit(
            kind,
            int(host.unit_zone[seat, slot]),
            int(host.unit_entered_turn[seat, slot]),
            bool(host.unit_ability_used[seat, slot]),
        )

    def unit_column(read: Callable[[Unit], Any], empty: Any) -> Writer:
        return lambda seat, player, state: [empty if unit is None else read(unit) for unit in player.units]

    readers: dict[str, Reader] = {
        "deck_id": lambda host, seat: ids[int(host.deck_id[seat])] if host.deck_id[seat] >= 0 else "",
        "empire": empire_of,
        "playing_deck": lambda host, seat: host.playing_deck[seat, : int(host.playing_size[seat])].tolist(),
        "supply_pile": lambda host, seat: host.supply_pile[seat, : int(host.supply_size[seat])].tolist(),
        "units": lambda host, seat: [unit_of(host, seat, slot) for slot in range(size["U"])],
        "final_reward": reward_of,
        "banned_at_harvest": lambda host, seat: frozenset(np.flatnonzero(host.banned_at_harvest[seat]).tolist()),
    }
    writers: dict[str, Writer] = {
        "deck_id": deck_row,
        "empire": empire_code,
        "playing_deck": lambda seat, p, state: _pile(p.playing_deck, size["P"], seat, "Playing Deck", "P"),
        "playing_size": lambda seat, p, state: len(p.playing_deck),
        "supply_pile": lambda seat, p, state: _pile(p.supply_pile, size["S"], seat, "Supply Pile", "S"),
        "supply_size": lambda seat, p, state: len(p.supply_pile),
        "unit_kind": unit_column(lambda unit: unit.kind, -1),
        "unit_zone": unit_column(lambda unit: unit.zone, 0),
        "unit_entered_turn": unit_column(lambda unit: unit.entered_turn, 0),
        "unit_ability_used": unit_column(lambda unit: unit.ability_used, False),
        "final_reward": reward_in,
        "banned_at_harvest": lambda seat, p, state: [kind in p.banned_at_harvest for kind in range(size["K"])],
    }
    fresh = PlayerState(size["K"])
    return _derived("PlayerState", PlayerState.FIELDS, fresh, lambda name: name, readers, writers, twin_names)


def _battle_conversions(twin_names: set[str]) -> tuple[dict[str, Reader], dict[str, Writer]]:
    """The readers of every ``Battle`` field and the writers of every ``battle_*`` twin field;
    the writers read a Battle (a fresh ``Battle(-1, -1, -1, BF)`` when none is under way)."""
    readers: dict[str, Reader] = {
        "outcomes": lambda host, _: list(_steps(host.battle_outcomes, int(host.battle_outcome_count))),
    }
    writers: dict[str, Writer] = {
        "battle_outcomes": lambda seat, battle, state: _padded_steps(battle.outcomes, "the battle"),
        "battle_outcome_count": lambda seat, battle, state: len(battle.outcomes),
    }
    return _derived(
        "Battle", Battle.FIELDS, Battle(-1, -1, -1, BF), lambda name: BATTLE_PREFIX + name, readers, writers, twin_names
    )


# --------------------------------------------------------------------------- the codec


class _FreshGenerals:
    """What ``state_codec`` builds a Python state from: ``GeneralsState``'s fields, and a fresh
    state of a config (``GeneralsState`` itself takes the pool and its tables too)."""

    @property
    def FIELDS(self) -> Mapping[str, str]:  # noqa: N802 (the name state_codec reads)
        return GeneralsState.FIELDS

    def __call__(self, config: GeneralsConfig) -> GeneralsState:
        return GeneralsState(config, config.pool, tables_for(config.pool))


def _build_codec(config: GeneralsConfig) -> StateCodec:
    """``core.jax_game.StateCodec`` of the twin for one config; ``TypeError`` for a field of
    ``GeneralsState``, ``PlayerState`` or ``Battle`` that the twin has no field and no conversion
    for, and for a twin field that nothing fills."""
    n = config.num_players
    template = _host_blank(config)
    twin_names = {field.name for field in dataclasses.fields(State) if field.name not in PGX_FIELDS}
    seat_readers, seat_writers = _seat_conversions(config, twin_names)
    battle_readers, battle_writers = _battle_conversions(twin_names)
    no_limit = _FreshGenerals()(config).decision_limit  # the fresh state's "none"

    def players(host: Any, config: GeneralsConfig) -> list[PlayerState]:
        built = []
        for seat in range(n):
            player = PlayerState(config.pool.size)
            for name, read in seat_readers.items():
                setattr(player, name, read(host, seat))
            built.append(player)
        return built

    def battle(host: Any, config: GeneralsConfig) -> Battle | None:
        if not host.battle_on:
            return None
        built = Battle(-1, -1, -1, BF)
        for name, read in battle_readers.items():
            setattr(built, name, read(host, -1))
        return built

    def per_seat(write: Writer) -> Callable[[GeneralsState], Any]:
        return lambda python: [write(seat, player, python) for seat, player in enumerate(python.players)]

    def of_battle(write: Writer) -> Callable[[GeneralsState], Any]:
        return lambda python: write(-1, python.battle if python.battle is not None else Battle(-1, -1, -1, BF), python)

    def outcome(host: Any, config: GeneralsConfig) -> GameOutcome:
        code = int(host.outcome)
        if code >= WON_BASE:
            return GameOutcome.WON
        return GameOutcome(code) if code < ILLEGAL else TRUNCATED

    def outcome_code(python: GeneralsState) -> int:
        if python.outcome == GameOutcome.WON:
            return won_code(python.winner, victory_code(python))
        return int(python.outcome)

    def victory_code(python: GeneralsState) -> int:
        if python.victory not in VICTORY_NAMES:
            raise ValueError(f"victory {python.victory!r} is none of {VICTORY_NAMES}")
        return VICTORY_NAMES.index(python.victory)

    def last_battle(python: GeneralsState) -> tuple[int, int, list[list[int]], int]:
        if python.last_battle == ():
            return -1, -1, _padded_steps((), "last_battle"), 0
        attacker, defender, steps = python.last_battle
        return attacker, defender, _padded_steps(steps, "last_battle"), len(steps)

    def last_battle_of(host: Any, config: GeneralsConfig) -> tuple:
        attacker = int(host.last_battle_attacker)
        if attacker < 0:
            return ()
        steps = _steps(host.last_battle_outcomes, int(host.last_battle_count))
        return attacker, int(host.last_battle_defender), steps

    def limit_in(python: GeneralsState) -> int:
        limit = python.decision_limit
        if limit == no_limit:
            return NO_LIMIT
        if not 0 <= limit < 2**31:
            raise ValueError(f"decision_limit {limit} does not fit the twin's int32")
        return limit

    from_python: dict[str, Callable[[GeneralsState], Any]] = {
        twin: per_seat(write) for twin, write in seat_writers.items()
    }
    from_python.update({twin: of_battle(write) for twin, write in battle_writers.items()})
    from_python.update(
        {
            "battle_on": lambda python: python.battle is not None,
            "outcome": outcome_code,
            "victory": victory_code,
            "finish_order": lambda python: list(python.finish_order) + [-1] * (n - len(python.finish_order)),
            "finish_count": lambda python: len(python.finish_order),
            "last_battle_attacker": lambda python: last_battle(python)[0],
            "last_battle_defender": lambda python: last_battle(python)[1],
            "last_battle_outcomes": lambda python: last_battle(python)[2],
            "last_battle_count": lambda python: last_battle(python)[3],
            "decision_limit": limit_in,
            "deal_key": lambda python: np.zeros(2, dtype=np.uint32),  # a Python state has no key
        }
    )
    for name in _rule_parameters(config):
        from_python[name] = functools.partial(_rule_parameter, name)
    return state_codec(
        _FreshGenerals(),
        State,
        template,
        renamed={"current": "turn_player"},
        to_python={
            "num_players": lambda host, config: config.num_players,
            "players": players,
            "battle": battle,
            "outcome": outcome,
            "victory": lambda host, config: VICTORY_NAMES[int(host.victory)],
            "finish_order": lambda host, config: host.finish_order[: int(host.finish_count)].tolist(),
            "last_battle": last_battle_of,
            "decision_limit": lambda host, config: (
                no_limit if host.decision_limit == NO_LIMIT else int(host.decision_limit)
            ),
        },
        from_python=from_python,
    )


@functools.cache
def make_codec(config: GeneralsConfig) -> StateCodec:
    """The twin's ``StateCodec`` for one config (built once per config)."""
    return _build_codec(config)


# --------------------------------------------------------------------------- to and from Python


def host_state(python: GeneralsState) -> State:
    """The twin state of a Python state, numpy leaves (``from_python`` puts it on the device):
    the game's fields exactly, and the pgx fields as the twin's step would leave them: the seat
    to act (the turn player once over), its ``rules.legal_mask`` and observation, no rewards,
    the end flags, ``step_count`` 0. A value the twin cannot hold is a ``ValueError`` (a pile
    longer than ``P`` or ``S``, a foreign deck id or final reward) or an ``OverflowError``."""
    config = python.config
    arrays = make_codec(config).from_python(python)
    seat = python.current if python.phase == OVER else python.acting_player()
    pgx = {
        "current_player": np.asarray(seat, dtype=np.int32),
        "observation": np.asarray(observe(python, seat), dtype=np.float32),
        "rewards": np.zeros(config.num_players, dtype=np.float32),
        "terminated": np.asarray(python.outcome == WON),
        "truncated": np.asarray(python.outcome == TRUNCATED),
        "legal_action_mask": legal_mask(python).astype(np.bool_),
        "step_count": np.asarray(0, dtype=np.int32),
    }
    fields: dict[str, Any] = {**arrays, **pgx}  # numpy leaves
    return State(**fields)


def from_python(python: GeneralsState) -> State:
    """``host_state`` on the device."""
    return jax.device_put(host_state(python))


def to_python(state: State, config: GeneralsConfig) -> GeneralsState:
    """The Python state of one (unbatched, host or device) twin state: ``to_python(from_python(s),
    s.config) == s``."""
    python: GeneralsState = make_codec(config).to_python(state, config)
    return python
