"""The Pillars twin's observation: ``observe.observe`` of the Python rules, for a twin ``State``
(``jax_state``) and any seat, entry for entry and bit for bit, whoever is to act.

``observe(state, seat, config)`` is pure: ``jit`` and ``vmap`` it freely; ``seat`` may be traced
(an int32 of shape ``()``), ``config`` is static (its ``n`` seats and ``K`` kinds fix the shapes).
The layout is the Python module's (``observe.observation_layout``, ``seat_layout``,
``turn_layout``, ``record_layout``); ``core.jax_game.assemble_observation`` checks the blocks
against it.

**How.** Almost every entry of the observation is a one-hot test or a small count, and the
blocks are many and narrow: built block by block and concatenated, they cost XLA on the CPU one
loop (and one pass over memory) per piece, dozens of them. The twin instead makes two passes:

1. the **codes**: one ``int32`` vector of every number the observation shows, as seen from
   ``seat`` (a few hundred for ``K = 14``): the per-seat fields rotated so that row ``o`` is the
   seat at offset ``o`` (one select-and-sum over an ``n x n`` permutation, no gather), the seat
   offsets of traders, partners and skips, and a code for each one-hot (-1 where nothing is
   hot: no trade on record, an empty record, a hidden offer shows "none");
2. the **template** (``_template``, numpy, built once per config from the Python layouts): for
   each entry of the vector, which code it reads and the key it is compared with (``COUNT``:
   the entry is the code itself). One gather of the codes by the template and one comparison
   give the whole vector in a single loop.

=================  ===========================================================================
block              its codes (the Python ``observe`` builds the same per seat, in numpy)
=================  ===========================================================================
hand, seats        the rotated rows: hand size, pending skip, empire, pillars, jokers, the
                   discard pile's counts, the known-cards tracker (the observer's own row reads
                   its hand; zeros when ``obs_known_cards`` is off); ``seat codes``: the turn
                   player's offset (none once over), two pillars or more, the discard top
                   (``pile_tops``: each pile's positions compared with its size; 0 when empty)
public             resource pile size, round, turn within the round, round 1, main done, bonus
                   used, ``bonus_action_available`` (0 once over)
phase              the phase (OVER, 8, is past the one-hot: all zero)
trade              while ``trade_trader >= 0``: trader offset, tabled kind, each present
                   offset's offer, visible to the observer when revealed or its own
battle             while ``battle_attacker >= 0``: offsets, demand, answer, ties, throws; the
                   attacker's own slot shows its pending (hidden) throw
events             each offset's latest turn from the rotated ``turn_status``, ``skip_given``
                   and ``rec_*`` rows (``rec_offers`` rotated on its seat axis too); a bonus
                   record shows only beside a main one, ties and tie throws only in a battle
                   answered yes; "new" where the record's serial is at least the observer's
                   ``last_decision``
=================  ===========================================================================

``bonus_action_available(state, config)`` is the bonus action's legality in JAX (the Python
``rules.legality.bonus_action_available``); the twin's legal mask may read it from here.
``campaign_block`` and ``observe_campaign`` give the campaign's extra entries
(``campaign.observe_campaign``).
"""

from __future__ import annotations

from functools import cache

import jax
import jax.numpy as jnp
import numpy as np

from ...core.jax_game import assemble_observation
from ...core.layout import ObsLayout
from .actions import Kind, layout_for
from .campaign import NUM_EMPIRES
from .config import PillarsConfig
from .jax_state import BONUS_SLOT, MAIN_SLOT, NUM_SLOTS
from .observe import observation_layout, record_layout, seat_layout, turn_layout
from .rules.legality import BONUS_KIND
from .state import (
    ANSWER_NO,
    ANSWER_YES,
    BUILD,
    EVENT_STEAL,
    NUM_DECISION_PHASES,
    NUM_PILLAR_RANKS,
    OVER,
    TURN_PLAYED,
    kinds_for,
)
from .tables import MAX_SEATS

#: the template's key of an entry that shows its code's value (every other entry is 1 where its
#: code equals its key); one-hot codes are -1 where nothing is hot, never a key
COUNT = -1
#: rock, paper, scissors
NUM_THROWS = 3
#: the empire one-hot: none, Thief, Merchant, Warlord
NUM_EMPIRE_CODES = 4
#: a record's type one-hot: steal, trade, battle
NUM_EVENT_TYPES = 3
#: battle answers: unknown, yes, no
NUM_ANSWERS = 3
#: the public block: pile size, round, turn in the round, round 1, main done, bonus used, bonus
#: available
NUM_PUBLIC = 7


# --------------------------------------------------------------------------- the bonus action


def _one_hot(index: jax.Array, size: int) -> jax.Array:
    """``bool[..., size]``: True at ``index`` (nothing for an index out of ``0..size-1``)."""
    return index[..., None] == jnp.arange(size)


def pile_tops(state, config: PillarsConfig) -> jax.Array:
    """``int32[n]``: the kind on top of each seat's discard pile, -1 for an empty pile. The top is
    found by comparing each position with the pile's size (no gather)."""
    positions = jnp.arange(config.num_cards)
    sizes = state.pile_sizes.astype(jnp.int32)
    at_top = positions[None, :] == sizes[:, None] - 1
    top = jnp.where(at_top, state.piles.astype(jnp.int32), 0).sum(axis=1)
    return jnp.where(sizes > 0, top, -1)


def _interaction_possible(state, config: PillarsConfig, kind: Kind, is_player: jax.Array) -> jax.Array:
    """Whether the player's ``kind`` interaction has a legal use (``legality.
    interaction_actions`` not empty): a stealable pile (not empty, no 2 on top) of another seat;
    a card held while another seat holds one; a battle, which a table of two or more allows."""
    kinds = kinds_for(config)
    if kind is Kind.STEAL:
        tops = pile_tops(state, config)
        two_on_top = (_one_hot(tops, kinds.size) & jnp.asarray(np.array(kinds.is_two))).any(axis=1)
        return jnp.any((tops >= 0) & ~two_on_top & ~is_player)
    if kind is Kind.TRADE:
        holds_a_card = jnp.any(jnp.where(is_player[:, None], state.hands, 0) > 0)
        return holds_a_card & jnp.any((state.hand_sizes > 0) & ~is_player)
    return jnp.bool_(len(layout_for(kinds).battle_range(config.num_players)) > 0)


def bonus_action_available(state, config: PillarsConfig) -> jax.Array:
    """``bool``: whether the turn player could take its bonus action right now (``rules.
    legality.bonus_action_available``): in the build phase, from round 2, after the main action,
    once a turn, with two pillars or more, when its empire's interaction (``BONUS_KIND``) has a
    legal use."""
    n = config.num_players
    is_player = jnp.arange(n) == state.turn_player.astype(jnp.int32)
    pillar_count = jnp.where(is_player[:, None], state.pillars, False).sum()
    empire = jnp.where(is_player, state.empire.astype(jnp.int32), 0).sum()
    usable = jnp.bool_(False)
    for empire_code, kind in BONUS_KIND.items():
        usable = usable | ((empire == empire_code) & _interaction_possible(state, config, kind, is_player))
    return (
        (state.phase == BUILD) & (state.turn >= n) & state.main_done & ~state.bonus_used & (pillar_count >= 2) & usable
    )


# --------------------------------------------------------------------------- seats as offsets


def _offset(seats: jax.Array, observer: jax.Array, n: int) -> jax.Array:
    """Each absolute seat as an offset clockwise from the observer (``(seat - observer) % n``,
    floored as Python's ``%``)."""
    return jnp.mod(seats.astype(jnp.int32) - observer, n)


def _rotation(seat: jax.Array, n: int) -> jax.Array:
    """``bool[n, n]``: row ``o`` is True at column ``(seat + o) % n``, the seat at offset ``o``."""
    return jnp.mod(seat + jnp.arange(n)[:, None], n) == jnp.arange(n)[None, :]


def _rotate(rotation: jax.Array, rows: jax.Array) -> jax.Array:
    """``rows`` (``[n, F]`` by absolute seat) by offset from the observer: a select and a sum
    over the permutation (one term per row is nonzero), where a gather of rows is slow on the
    CPU under ``vmap``."""
    picked = jnp.where(rotation[:, :, None], rows[None, :, :], jnp.zeros((), rows.dtype))
    return picked.sum(axis=1, dtype=rows.dtype)


def _rotate_last(rotation: jax.Array, values: jax.Array) -> jax.Array:
    """``values[..., s]`` over absolute seats ``s`` as ``[..., o]`` over offsets ``o``."""
    picked = jnp.where(rotation, values[..., None, :], jnp.zeros((), values.dtype))
    return picked.sum(axis=-1, dtype=values.dtype)


def _rotated_columns(config: PillarsConfig) -> ObsLayout:
    """The per-seat fields the codes read, as columns of one ``[n, F]`` matrix (the record
    fields flattened over their two slots) and the pile tops: rotated together in one pass. The
    known-cards tracker is left out when the observation does not show it."""
    n, k = config.num_players, kinds_for(config).size
    slots = NUM_SLOTS
    columns = [
        ("hand_sizes", 1),
        ("pending_skip", 1),
        ("empire", 1),
        ("pillars", NUM_PILLAR_RANKS),
        ("pillar_jokers", 1),
        ("pile_counts", k),
        *([("known", k)] if config.obs_known_cards else []),
        ("tops", 1),  # pile_tops
        ("offers", 1),
        ("turn_status", 1),
        ("skip_given", 1),
        ("rec_serial", slots),
        ("rec_event", slots),
        ("rec_partner", slots),
        ("rec_kind", slots),
        ("rec_offers", slots * n),
        ("rec_answer", slots),
        ("rec_ties", slots),
        ("rec_tie_throws", slots * NUM_THROWS),
        ("rec_throws", slots * 2),
        ("rec_attacker_won", slots),
        ("rec_coin", slots),
    ]
    return ObsLayout(columns)


# --------------------------------------------------------------------------- the codes


def _record_columns(n: int) -> ObsLayout:
    """The codes of one record (``record codes[o, slot]``); one-hot codes are -1 for none."""
    return ObsLayout(
        [
            ("new", 1),  # count
            ("type", 1),  # EVENT_STEAL.. as 0..2
            ("partner", 1),  # seat offset
            ("kind", 1),
            ("offers", n),  # per seat offset from the observer: the revealed kind
            ("answer", 1),  # 0 yes, 1 no
            ("ties", 1),  # count
            ("tie throws", NUM_THROWS),  # counts
            ("throws", 2),  # attacker's, defender's
            ("result", 1),  # 0 the attacker took the card, 1 the defender kept it
            ("coin", 1),  # count
        ]
    )


def _table_columns(n: int) -> ObsLayout:
    """The codes of the public, phase, trade and battle blocks (``table codes``)."""
    return ObsLayout(
        [
            ("public", NUM_PUBLIC),  # counts
            ("phase", 1),
            ("trade trader", 1),
            ("trade tabled", 1),  # tabled kind + 1 (0: none)
            ("trade offers", n),  # per seat offset: offered kind + 1 (0: none or hidden)
            ("battle attacker", 1),
            ("battle defender", 1),
            ("battle demand", 1),  # demanded kind + 1 (0: none)
            ("battle answer", 1),
            ("battle ties", 1),  # count
            ("battle tie throws", NUM_THROWS),  # counts
            ("battle throws", 2),  # throw + 1 (0: none)
        ]
    )


#: the codes of each seat offset besides its rotated fields (``seat codes[o]``)
SEAT_CODES = ObsLayout([("current", 1), ("bonus unlocked", 1), ("discard top", 1)])
#: the codes of each seat offset's latest turn (``turn codes[o]``): played/skipped as 0/1, the
#: seat offset it gave a skip
TURN_CODES = ObsLayout([("status", 1), ("skip given", 1)])
#: the codes' constant entries
CONSTANTS = ObsLayout([("zero", 1), ("one", 1)])


def _segment_shapes(config: PillarsConfig) -> dict[str, tuple[int, ...]]:
    """The code vector's segments, in order, and their shapes."""
    n, k = config.num_players, kinds_for(config).size
    return {
        "constants": (CONSTANTS.size,),
        "hand": (k,),
        "rotated": (n, _rotated_columns(config).size),
        "seat codes": (n, SEAT_CODES.size),
        "turn codes": (n, TURN_CODES.size),
        "record codes": (n, NUM_SLOTS, _record_columns(n).size),
        "table codes": (_table_columns(n).size,),
    }


def _codes(state, seat: jax.Array, config: PillarsConfig) -> jax.Array:
    """``int32[M]``: the code vector of ``_segment_shapes`` for ``seat``."""
    n = config.num_players
    over = state.phase == OVER
    rotation = _rotation(seat, n)
    is_observer = jnp.arange(n) == seat
    offsets = jnp.arange(n)
    i32 = jnp.int32

    columns = _rotated_columns(config)
    tops = pile_tops(state, config)
    packed = [
        (tops if name == "tops" else getattr(state, name)).astype(i32).reshape(n, -1) for name, _ in columns.fields
    ]
    rotated = _rotate(rotation, jnp.concatenate(packed, axis=1))

    def column(name: str) -> jax.Array:
        return rotated[:, columns[name]]

    def slots(name: str) -> jax.Array:
        return column(name).reshape(n, NUM_SLOTS, -1)

    # the seats
    turn_offset = _offset(state.turn_player, seat, n)
    seat_codes = jnp.stack(
        [~over & (offsets == turn_offset), column("pillars").sum(axis=1) >= 2, column("tops")[:, 0] + 1], axis=1
    ).astype(i32)

    # the latest turns and their records
    status, skip_given = column("turn_status")[:, 0], column("skip_given")[:, 0]
    turn_codes = jnp.stack([status - TURN_PLAYED, jnp.where(skip_given >= 0, _offset(skip_given, seat, n), -1)], axis=1)
    event = slots("rec_event")[..., 0]
    present = (event != 0) & (event[:, :1] != 0)  # a bonus record shows only beside a main one
    answer, ties = slots("rec_answer")[..., 0], slots("rec_ties")[..., 0]
    yes = present & (answer == ANSWER_YES)
    throws = slots("rec_throws")
    thrown = yes & (throws[..., 0] >= 0)
    last_decision = jnp.where(is_observer, state.last_decision, 0).sum()

    def when(condition: jax.Array, code: jax.Array) -> jax.Array:
        return jnp.where(condition, code, -1)

    record_codes = jnp.concatenate(
        [
            (present & (slots("rec_serial")[..., 0] >= last_decision))[..., None],
            when(present, event - EVENT_STEAL)[..., None],
            when(present, _offset(slots("rec_partner")[..., 0], seat, n))[..., None],
            when(present, slots("rec_kind")[..., 0])[..., None],
            when(present[..., None], _rotate_last(rotation, slots("rec_offers"))),
            jnp.where(yes, 0, jnp.where(present & (answer == ANSWER_NO), 1, -1))[..., None],
            jnp.where(yes, ties, 0)[..., None],
            jnp.where((yes & (ties != 0))[..., None], slots("rec_tie_throws"), 0),
            when(thrown[..., None], throws),
            when(yes, jnp.where(slots("rec_attacker_won")[..., 0] != 0, 0, 1))[..., None],
            (yes & (slots("rec_coin")[..., 0] != 0))[..., None],
        ],
        axis=-1,
        dtype=i32,
    )

    # the public, phase, trade and battle blocks
    turn = state.turn.astype(i32)
    has_trade = state.trade_trader >= 0
    offered = column("offers")[:, 0]
    visible = (offered >= 0) & (state.trade_revealed | (offsets == 0))
    attacker = state.battle_attacker.astype(i32)
    has_battle = attacker >= 0
    pending = (seat == attacker) & (state.pending_throw >= 0)  # the attacker sees its own throw
    shown_throw = jnp.where(pending, state.pending_throw, state.last_throws[0]).astype(i32)
    table_codes = jnp.concatenate(
        [
            jnp.stack(
                [
                    state.deck_size.astype(i32),
                    turn // n + 1,
                    turn % n,
                    turn < n,
                    state.main_done,
                    state.bonus_used,
                    ~over & bonus_action_available(state, config),
                    state.phase.astype(i32),
                    when(has_trade, _offset(state.trade_trader, seat, n)),
                    jnp.where(has_trade, state.trade_tabled.astype(i32) + 1, 0),
                ]
            ),
            when(has_trade, jnp.where(visible, offered + 1, 0)),
            jnp.stack(
                [
                    when(has_battle, _offset(attacker, seat, n)),
                    when(has_battle, _offset(state.battle_defender, seat, n)),
                    jnp.where(has_battle, state.battle_kind.astype(i32) + 1, 0),
                    jnp.where(has_battle, state.battle_answer.astype(i32), 0),
                    jnp.where(has_battle, state.battle_ties.astype(i32), 0),
                ]
            ),
            jnp.where(has_battle, state.battle_tie_throws.astype(i32), 0),
            when(has_battle, jnp.stack([shown_throw + 1, state.last_throws[1].astype(i32) + 1])),
        ],
        dtype=i32,
    )

    segments = {
        "constants": jnp.array([0, 1], dtype=i32),
        "hand": jnp.where(is_observer[:, None], state.hands.astype(i32), 0).sum(axis=0),
        "rotated": rotated,
        "seat codes": seat_codes,
        "turn codes": turn_codes,
        "record codes": record_codes,
        "table codes": table_codes,
    }
    shapes = _segment_shapes(config)
    assert list(segments) == list(shapes), "the segments are laid out in _segment_shapes' order"
    for name, value in segments.items():
        assert value.shape == shapes[name], (name, value.shape, shapes[name])
    return jnp.concatenate([value.astype(i32).reshape(-1) for value in segments.values()])


# --------------------------------------------------------------------------- the template


class _Template:
    """Builds the template: each entry's code (its index in the code vector) and key."""

    def __init__(self, config: PillarsConfig) -> None:
        self.shapes = _segment_shapes(config)
        self.starts: dict[str, int] = {}
        start = 0
        for name, shape in self.shapes.items():
            self.starts[name] = start
            start += int(np.prod(shape))
        self.rotated = _rotated_columns(config)

    def code(self, segment: str, *index: int) -> int:
        return self.starts[segment] + int(np.ravel_multi_index(index, self.shapes[segment]))

    def count(self, segment: str, *index: int) -> list[tuple[int, int]]:
        return [(self.code(segment, *index), COUNT)]

    def counts(self, segment: str, *index: int, size: int) -> list[tuple[int, int]]:
        """``size`` counts from ``index`` on along the segment's last axis."""
        *head, first = index
        return [(self.code(segment, *head, first + i), COUNT) for i in range(size)]

    def one_hot(self, size: int, segment: str, *index: int) -> list[tuple[int, int]]:
        code = self.code(segment, *index)
        return [(code, key) for key in range(size)]

    def zeros(self, size: int) -> list[tuple[int, int]]:
        return [(self.code("constants", CONSTANTS.start("zero")), COUNT)] * size

    def seat_count(self, offset: int, name: str, size: int = 1) -> list[tuple[int, int]]:
        """Counts of a rotated per-seat field, of the seat at ``offset``."""
        return self.counts("rotated", offset, self.rotated.start(name), size=size)


@cache
def _template(config: PillarsConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, keys)``, ``int32[observation size]`` each: entry ``i`` of the observation is
    ``code_vector[codes[i]]`` when ``keys[i] == COUNT``, else 1 where that code equals
    ``keys[i]``. Built block by block in the Python layout's order, each block's size checked."""
    n, kinds = config.num_players, kinds_for(config)
    k = kinds.size
    t = _Template(config)
    seat_fields, turn_fields, record_fields = seat_layout(kinds), turn_layout(kinds), record_layout(kinds)
    records, tables = _record_columns(n), _table_columns(n)

    def seat_block(o: int) -> dict[str, list[tuple[int, int]]]:
        return {
            "present": t.count("constants", CONSTANTS.start("one")),
            "current": t.count("seat codes", o, SEAT_CODES.start("current")),
            "hand size": t.seat_count(o, "hand_sizes"),
            "pending skip": t.seat_count(o, "pending_skip"),
            "empire": t.one_hot(NUM_EMPIRE_CODES, "rotated", o, t.rotated.start("empire")),
            "pillars": t.seat_count(o, "pillars", NUM_PILLAR_RANKS),
            "pillar jokers": t.seat_count(o, "pillar_jokers"),
            "bonus unlocked": t.count("seat codes", o, SEAT_CODES.start("bonus unlocked")),
            "discard top": t.one_hot(k + 1, "seat codes", o, SEAT_CODES.start("discard top")),
            "discard counts": t.seat_count(o, "pile_counts", k),
            "known": (
                t.counts("hand", 0, size=k)  # my own row: my hand
                if o == 0
                else t.seat_count(o, "known", k)
                if config.obs_known_cards
                else t.zeros(k)
            ),
        }

    def record_block(o: int, slot: int) -> dict[str, list[tuple[int, int]]]:
        def at(name: str, i: int = 0) -> tuple[str, int, int, int]:
            return ("record codes", o, slot, records.start(name) + i)

        offers: list[tuple[int, int]] = []
        for other in range(MAX_SEATS):
            offers += t.one_hot(k, *at("offers", other)) if other < n else t.zeros(k)
        return {
            "new": t.count(*at("new")),
            "type": t.one_hot(NUM_EVENT_TYPES, *at("type")),
            "partner": t.one_hot(MAX_SEATS, *at("partner")),
            "kind": t.one_hot(k, *at("kind")),
            "offers": offers,
            "answer": t.one_hot(2, *at("answer")),
            "ties": t.count(*at("ties")),
            "tie throws": t.counts(*at("tie throws"), size=NUM_THROWS),
            "throws": t.one_hot(NUM_THROWS, *at("throws")) + t.one_hot(NUM_THROWS, *at("throws", 1)),
            "result": t.one_hot(2, *at("result")),
            "coin": t.count(*at("coin")),
        }

    def turn_block(o: int) -> dict[str, list[tuple[int, int]]]:
        return {
            "status": t.one_hot(2, "turn codes", o, TURN_CODES.start("status")),
            "skip given": t.one_hot(MAX_SEATS, "turn codes", o, TURN_CODES.start("skip given")),
            "main": _laid_out(record_fields, record_block(o, MAIN_SLOT)),
            "bonus": _laid_out(record_fields, record_block(o, BONUS_SLOT)),
        }

    def table(name: str, i: int = 0) -> tuple[str, int]:
        return ("table codes", tables.start(name) + i)

    trade_offers: list[tuple[int, int]] = []
    for o in range(MAX_SEATS):
        trade_offers += t.one_hot(k + 1, *table("trade offers", o)) if o < n else t.zeros(k + 1)
    blocks = {
        "hand": t.counts("hand", 0, size=k),
        **{
            f"seat {o}": _laid_out(seat_fields, seat_block(o)) if o < n else t.zeros(seat_fields.size)
            for o in range(MAX_SEATS)
        },
        "public": t.counts(*table("public"), size=NUM_PUBLIC),
        "phase": t.one_hot(NUM_DECISION_PHASES, *table("phase")),
        "trade trader": t.one_hot(MAX_SEATS, *table("trade trader")),
        "trade tabled": t.one_hot(k + 1, *table("trade tabled")),
        "trade offers": trade_offers,
        "battle attacker": t.one_hot(MAX_SEATS, *table("battle attacker")),
        "battle defender": t.one_hot(MAX_SEATS, *table("battle defender")),
        "battle demand": t.one_hot(k + 1, *table("battle demand")),
        "battle answer": t.one_hot(NUM_ANSWERS, *table("battle answer")),
        "battle ties": t.count(*table("battle ties")),
        "battle tie throws": t.counts(*table("battle tie throws"), size=NUM_THROWS),
        "battle throws": t.one_hot(NUM_THROWS + 1, *table("battle throws"))
        + t.one_hot(NUM_THROWS + 1, *table("battle throws", 1)),
        **{
            f"events seat {o}": _laid_out(turn_fields, turn_block(o)) if o < n else t.zeros(turn_fields.size)
            for o in range(MAX_SEATS)
        },
    }
    entries = _laid_out(observation_layout(kinds), blocks)
    codes, keys = (np.array(column, dtype=np.int32) for column in zip(*entries, strict=True))
    return codes, keys


def _laid_out(layout: ObsLayout, blocks: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """The template entries of ``blocks`` in ``layout``'s order, each block of its field's size."""
    if list(blocks) != [name for name, _ in layout.fields]:
        raise ValueError(f"template blocks {list(blocks)} differ from the layout's {layout.fields}")
    entries = []
    for name, size in layout.fields:
        if len(blocks[name]) != size:
            raise ValueError(f"template block {name!r} has {len(blocks[name])} entries, the layout {size}")
        entries += blocks[name]
    return entries


# --------------------------------------------------------------------------- the observation


def observe(state, seat, config: PillarsConfig) -> jax.Array:
    """``float32[observation_size(K)]``: what ``seat`` sees of ``state``, exactly
    ``observe.observe`` of the Python state for that seat."""
    seat = jnp.asarray(seat, dtype=jnp.int32)
    codes, keys = _template(config)
    values = _codes(state, seat, config)[codes]
    vector = jnp.where(keys == COUNT, values, values == keys).astype(jnp.float32)
    # the blocks are slices of the one vector: XLA joins them back into it (no copy)
    layout = observation_layout(kinds_for(config))
    return assemble_observation(layout, {name: vector[layout[name]] for name, _ in layout.fields})


def campaign_block(empires_won: jax.Array, games_played: jax.Array, seat, num_players: int) -> jax.Array:
    """``float32[MAX_SEATS * 3 + 1]``: the campaign's extra entries for ``seat`` (``campaign.
    observe_campaign``): per seat offset the empires won (``empires_won[seat, empire - 1]``,
    ``[n, 3]``), zeros for absent offsets, then the games played."""
    seat = jnp.asarray(seat, dtype=jnp.int32)
    won = _rotate(_rotation(seat, num_players), empires_won.astype(jnp.int32).reshape(num_players, NUM_EMPIRES))
    absent = jnp.zeros(((MAX_SEATS - num_players) * NUM_EMPIRES,), jnp.int32)
    return jnp.concatenate([won.reshape(-1), absent, jnp.asarray(games_played, jnp.int32)[None]]).astype(jnp.float32)


def observe_campaign(state, empires_won: jax.Array, games_played: jax.Array, seat, config: PillarsConfig) -> jax.Array:
    """``campaign.observe_campaign``: the current game's ``observe`` then ``campaign_block``."""
    return jnp.concatenate(
        [observe(state, seat, config), campaign_block(empires_won, games_played, seat, config.num_players)]
    )
