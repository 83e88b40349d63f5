"""Pillars rules in JAX: the batched twin of the ``rules`` package, proven identical to it.

Read it beside the Python rules; each rule has one place in both:

==================================  ==================================  ===========================
rule                                Python (``rules/``)                 here
==================================  ==================================  ===========================
the shuffle, the deal, the first    ``setup.new_game``                  ``make_init``,
player                                                                  ``_arrangement``
who acts (the turn player, a        ``phases.PHASES[phase].actor``      ``_seat_to_act``
trade's next responder, the
defender)
the main action: steal, trade,      ``turns.interact``,                 ``make_step`` (steal,
battle, or none when optional       ``phases._apply_main``              trade, battle, decline)
a steal (the top card, never a 2)   ``turns._steal``,                   ``make_step`` (steal),
                                    ``legality.can_steal``              ``_legal_mask``
a trade: the queue, the sealed      ``turns._open_trade``, ``offer``,   ``make_step`` (trade,
offers, their reveal, the pick      ``pick``                            offer, pick)
a battle: the truthful answer,      ``turns._open_battle``,             ``make_step`` (battle,
rock-paper-scissors, ties, the      ``phases._apply_*_throw``,          throws, the coin)
coin, the card taken                ``turns.coin``, ``resolve_battle``
the build phase: bonus action,      ``phases._apply_build``,            ``make_step`` (pillar,
pillars (naturals in suit order,    ``turns.lay_pillar``,               end build),
then jokers; the first draws 6),    ``legality.pillar_actions``,        ``_legal_mask``
an empty hand ends the turn         ``legality.bonus_kind``
the discard, the win, the skip      ``turns.discard``,                  ``make_step`` (discard,
target after a 2                    ``phases._apply_skip``,             skip)
                                    ``legality.skip_targets``
cards between hands and piles      ``turns._move_card``, ``_steal``,   ``make_step`` (piles,
                                    ``discard``, ``lay_pillar``         hands), ``_moved``
the known-cards tracker             ``turns`` (``known`` updates)       ``make_step`` (known),
                                                                        ``_moved``
the event records                   ``turns._record``,                  ``make_step`` (records),
                                    ``phases.apply_action``             ``_blank_records``
                                    (``last_decision``)
end of a turn, the next begins:     ``turns.end_turn``, ``begin_turn``  ``_next_turn``,
skipped turns, truncation                                               ``make_step`` (begin)
draws, the empty resource pile      ``turns._draw``, ``reshuffle``      ``make_step`` (draw),
(reshuffle, skip_draw, end_draw)                                        ``_arrangement``,
                                                                        ``only_where``
rewards: shaping, the result        ``phases.apply_action``,            ``make_step`` (rewards)
                                    ``outcomes.final_rewards``
legal actions (every phase)         ``PHASES[phase].legal_actions``     ``_legal_mask``
the observation                     ``observe.observe``                 ``jax_observe.observe``
==================================  ==================================  ===========================

The facts both sides read (hand size, the first pillar's draw, outcome names, seats) are
``tables``'; card kinds, phases, empires and record codes are ``state``'s.

**The step is select-style.** Under ``vmap`` every branch of a ``cond`` runs, so ``step``
computes the effect of every kind of action as masked updates of the few things an action
changes (a card or two between hands, a pile's top, a pillar, a record), then the follow-ups in
the Python rules' order as guarded updates: the draw (the first pillar's six cards, or the one
card of a turn that begins), the end of the turn, the skipped turns and the truncation of the
turn that begins. Seats ``n`` and kinds ``K`` are static; one seat's row of a ``[n, ...]`` array
is a masked sum over seats, never a gather.

One step draws at most one group of cards: the first pillar draws six for its builder, a turn
that begins draws one for its player, and both happen in one step only when the pillar drew
nothing (its hand empty after it): then the resource pile and every pile below its top are
empty, and the new turn's draw finds nothing either. So the step gathers at most one
reshuffle's cards. ``begin_turn`` also ends a round-1 turn at once when its DISCARD phase finds
the hand empty; that cannot happen (without ``first_round_pillars`` a round-1 hand holds its ten
dealt cards and more), so the twin has no loop for it.

**Random draws.** A step's key (a deal's) feeds a few streams of random words (``_random_words``:
a counter-based hash of the key's two words, where JAX's threefry, which the CPU runs as a
loop, would cost as much as the rest of the step): the coin, the reshuffle (never both in one
step: a battle draws no card), the deal's shuffle, the first player. A shuffle orders its cards
by random words packed with the card's kind (``_arrangement``): one single-operand sort, what
XLA sorts fastest on the CPU. The words' top bits are the key; a tie among them (about one
shuffle in ten thousand) draws all the words again, so the order is uniform. A reshuffle
happens in a few games of a batch per step, so ``only_where`` computes it only for the games
that need it: under ``vmap`` it gathers those games (a chunk at a time) and leaves the others
alone, where a plain select would sort every game at every step.

The coin: ``step`` flips one only where the Python rules flip one (a battle in
``rps_mode="random"``, or ``rps_max_ties`` ties); ``state.last_coin`` records it and
``state.shuffled`` a reshuffle (``jax_state.make_python_draws`` hands both to Python).

**Stored once.** The CPU compiler fuses chains of cheap operations into each of their
consumers, so a per-game value that many array entries read (a flag, a seat, the kind moved)
would be computed again for each entry; ``_computed_once`` stores such values first, as Map
Duel's twin does. The card moves of a step are a few scalars per game (``_moved``): each entry
of a ``[n, K]`` array pays a compare or two per move.

Once the game is over ``current_player`` keeps the seat whose turn it was (Python's
``current``: the winner, or the seat whose turn a truncation cut off), as ``core.jax_game``
says; the mask is all zero (the env turns it to all ones).

One module, long on purpose: it is the whole game as one compiled step, the twin of the rules
package that the lockstep tests hold to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap

from ...core.jax_game import JaxRules, scaled_draw
from .actions import MAX_JOKERS, MAX_OFFSET, ActionLayout, Kind, layout_for
from .config import PillarsConfig
from .jax_state import (
    BONUS_SLOT,
    MAIN_SLOT,
    NUM_SLOTS,
    ONGOING_RESULT,
    OUTCOME_NAMES,
    TRUNCATED_RESULT,
    WON_BY_0,
    State,
    blank_state,
    make_codec,
    make_python_draws,
    python_deck,
)
from .observe import observation_size
from .state import (
    ANSWER_NO,
    ANSWER_UNKNOWN,
    ANSWER_YES,
    BUILD,
    CARDS_PER_PILLAR,
    DISCARD,
    EVENT_BATTLE,
    EVENT_STEAL,
    EVENT_TRADE,
    MAIN,
    MERCHANT,
    NO_EMPIRE,
    NUM_PILLAR_RANKS,
    ORIGIN_BONUS,
    ORIGIN_MAIN,
    OVER,
    PILLARS_TO_WIN,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    THIEF,
    THROW_NAMES,
    TRADE_OFFER,
    TRADE_PICK,
    TURN_PLAYED,
    TURN_SKIPPED,
    WARLORD,
    empire_of,
    full_deck_counts,
    kinds_for,
)
from .tables import FIRST_PILLAR_DRAW, HAND_SIZE

assert (ORIGIN_MAIN, ORIGIN_BONUS) == (MAIN_SLOT, BONUS_SLOT), "a record's slot is its origin"
NUM_THROWS = len(THROW_NAMES)
#: random words a shuffle's sort ends with when nothing sits there (above every card's word)
_EMPTY_WORD = 0xFFFFFFFF
#: games of a batch whose reshuffle (or campaign deal) ``only_where`` computes at a time
_CHUNK = 32


# --------------------------------------------------------------------------- per-config tables


@dataclasses.dataclass(frozen=True)
class _Tables:
    """The numpy facts of one config that the twin closes over."""

    n: int
    K: int
    C: int
    layout: ActionLayout
    joker: int
    #: the kinds that are 2s (one in the rank game, four suits in the card game)
    two_kinds: tuple[int, ...]
    #: ``[rank, i]``: the i-th natural kind of a pillar rank, in suit order (the order a pillar
    #: uses them)
    naturals: np.ndarray
    #: ``[kind, rank]``: 1 when the kind is a natural of the pillar rank
    natural_matrix: np.ndarray
    #: ``[rank]``: the empire of each pillar rank
    rank_empire: np.ndarray
    #: copies of each kind in the packs
    deck_counts: np.ndarray
    #: low bits of a shuffle's packed word that hold the kind
    kind_bits: int


@cache
def _tables(config: PillarsConfig) -> _Tables:
    kinds = kinds_for(config)
    naturals = np.array(kinds.naturals, dtype=np.int32)
    matrix = np.zeros((kinds.size, NUM_PILLAR_RANKS), dtype=np.int32)
    for rank, row in enumerate(kinds.naturals):
        matrix[list(row), rank] = 1
    kind_bits = kinds.size.bit_length()
    assert kinds.size < (1 << kind_bits), "a kind fits below the packed word's random bits"
    return _Tables(
        n=config.num_players,
        K=kinds.size,
        C=config.num_cards,
        layout=layout_for(kinds),
        joker=kinds.joker,
        two_kinds=tuple(k for k in range(kinds.size) if kinds.is_two[k]),
        naturals=naturals,
        natural_matrix=matrix,
        rank_empire=np.array([empire_of(rank) for rank in range(NUM_PILLAR_RANKS)], dtype=np.int32),
        deck_counts=np.array(full_deck_counts(config), dtype=np.int32),
        kind_bits=kind_bits,
    )


# --------------------------------------------------------------------------- small helpers


def _at(values: jax.Array, index: jax.Array) -> jax.Array:
    """``values[index]`` along the first (short) axis as a masked sum or any: cheaper on the CPU
    than a gather of one element (0 / False for an index out of range)."""
    values = jnp.asarray(values)
    hit = (jnp.arange(values.shape[0]) == index).reshape((-1,) + (1,) * (values.ndim - 1))
    if values.dtype == jnp.bool_:
        return (hit & values).any(axis=0)
    return jnp.where(hit, values, 0).sum(axis=0, dtype=values.dtype)


def _rotated(values: jax.Array, seat: jax.Array, n: int) -> jax.Array:
    """``values`` by seat offset from ``seat``: entry ``o`` is ``values[(seat + o) % n]``."""
    offsets = np.arange(n)
    hit = (seat + offsets[:, None]) % n == offsets[None, :]  # [offset, seat]
    hit = hit.reshape(hit.shape + (1,) * (values.ndim - 1))
    if values.dtype == jnp.bool_:
        return (hit & values[None]).any(axis=1)
    return jnp.where(hit, values[None], 0).sum(axis=1, dtype=values.dtype)


def _by_offset(values: jax.Array, seat: jax.Array, n: int) -> jax.Array:
    """The other seats' ``values`` by offset 1..``MAX_OFFSET`` from ``seat``, as an action block
    lists them: offsets ``n`` and beyond (absent seats) are False."""
    others = _rotated(values, seat, n)[1:]
    return jnp.concatenate([others, jnp.zeros(MAX_OFFSET - (n - 1), dtype=jnp.bool_)])


def _is_two(kind: jax.Array, tables: _Tables) -> jax.Array:
    two = jnp.zeros(jnp.shape(kind), dtype=jnp.bool_)
    for k in tables.two_kinds:
        two = two | (kind == k)
    return two


def _tops(piles: jax.Array, sizes: jax.Array, depth: int = 1):
    """``int32[n]``: the top card of each discard pile (-1 for an empty one); with ``depth=2``
    also the card below it (anything where there is none)."""
    sizes = sizes.astype(jnp.int32)
    places = jnp.clip(sizes[:, None] - 1 - np.arange(depth), 0, piles.shape[1] - 1)
    cards = jnp.take_along_axis(piles, places, axis=1).astype(jnp.int32)
    tops = jnp.where(sizes > 0, cards[:, 0], -1)
    return (tops, cards[:, 1]) if depth == 2 else tops


def _decode(action: jax.Array, layout: ActionLayout) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``ActionLayout.decode`` of an index: its kind, ``a`` and ``b`` (-1 where unused; a seat
    offset counts from 1), from the blocks' starts and shapes (no table to gather from)."""
    kind = a = b = jnp.int32(-1)
    for block in layout.blocks:
        start = layout.starts[block.kind]
        offset = action - start
        inside = (offset >= 0) & (offset < int(np.prod(block.shape, dtype=int)))
        offset = jnp.maximum(offset, 0)
        kind = jnp.where(inside, int(block.kind), kind)
        firsts = [argument.first for argument in block.arguments]
        if len(block.shape) == 1:
            a = jnp.where(inside, offset + firsts[0], a)
        elif len(block.shape) == 2:
            a = jnp.where(inside, offset // block.shape[1] + firsts[0], a)
            b = jnp.where(inside, offset % block.shape[1] + firsts[1], b)
    return kind, a, b


# --------------------------------------------------------------------------- random words and shuffles

#: the streams of random words drawn from one key (``_random_words``): a step's coin or
#: reshuffle, a deal's shuffle and first player
_COIN, _SHUFFLE, _DEAL, _FIRST = range(4)
_GOLDEN = 0x9E3779B9  # 2**32 / golden ratio: the step between the counters of a stream


def _mix(x: jax.Array) -> jax.Array:
    """lowbias32 (C. Wellons), a 32-bit integer hash with full avalanche: each output bit flips
    with probability very close to 1/2 when any one input bit flips."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def _random_words(key: jax.Array, stream: int, count: int, attempt: jax.Array | int = 0) -> jax.Array:
    """``uint32[count]``: random words of one ``stream`` of ``key`` (a raw ``uint32[2]`` key as
    ``jax.random.PRNGKey`` makes, or a typed key), from a counter-based generator: each word the
    hash of the key's words, the stream, the ``attempt`` and the word's index. JAX's own
    ``random.bits`` runs threefry as a loop, which costs the CPU a step's worth of time for
    the hundred words of a shuffle; the key itself comes from JAX's generator."""
    if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    words = key.reshape(-1).astype(jnp.uint32)
    high, low = words[0], words[-1]
    salt = jnp.uint32(stream * 0x632BE5AB & 0xFFFFFFFF) ^ (
        jnp.asarray(attempt).astype(jnp.uint32) * jnp.uint32(_GOLDEN)
    )
    seed = _mix(low ^ _mix(high ^ salt))
    counters = seed + jnp.arange(1, count + 1, dtype=jnp.uint32) * jnp.uint32(_GOLDEN)
    return _mix(_mix(counters) ^ high)


def _arrangement(counts: jax.Array, key: jax.Array, stream: int, tables: _Tables) -> jax.Array:
    """``int8[C]``: the cards of ``counts`` (per kind, ``g`` in all) in a uniformly random order
    at ``0 .. g-1`` (0 past them). Each card gets a random word whose low ``kind_bits`` bits are
    replaced by its kind (``stream`` of ``key``'s words), and the words are sorted; a tie between
    the random parts of two words draws every word again (the next attempt's words), so that the
    order is uniform."""
    C, bits = tables.C, tables.kind_bits
    counts = counts.astype(jnp.int32)
    ends = jnp.cumsum(counts)
    places = jnp.arange(C)
    # the cards in kind order: place j holds the kind whose copies span it
    canonical = (ends[None, :] <= places[:, None]).sum(axis=1).astype(jnp.uint32)
    present = places < ends[-1]
    high = jnp.uint32(~((1 << bits) - 1) & _EMPTY_WORD)

    def sorted_words(attempt: jax.Array) -> tuple[jax.Array, jax.Array]:
        words = _random_words(key, stream, C, attempt)
        packed = jnp.where(present, (words & high) | canonical, jnp.uint32(_EMPTY_WORD))
        ordered = jnp.sort(packed)
        tie = ((ordered[1:] & high) == (ordered[:-1] & high)) & (ordered[1:] != jnp.uint32(_EMPTY_WORD))
        return ordered, tie.any()

    def again(carry: tuple[jax.Array, jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array, jax.Array]:
        attempt = carry[0]
        ordered, tie = sorted_words(attempt)
        return attempt + 1, ordered, tie

    ordered, tie = sorted_words(jnp.int32(0))
    _, ordered, _ = jax.lax.while_loop(lambda carry: carry[2], again, (jnp.int32(1), ordered, tie))
    return jnp.where(present, ordered & jnp.uint32((1 << bits) - 1), 0).astype(jnp.int8)


def only_where(fn: Callable[..., Any], chunk: int = _CHUNK) -> Callable[..., Any]:
    """``apply(need, *args)``: ``fn(*args)`` (arrays in, a pytree out) where ``need``, zeros
    elsewhere, for a costly ``fn`` that few games of a batch need at a step. Unbatched it is a
    ``lax.cond``; under ``vmap`` the rows that need it are gathered ``chunk`` at a time
    (``jnp.nonzero``) and only they run ``fn`` (a ``lax.while_loop`` over the chunks: none at all
    when no row needs it), where the select that ``vmap`` makes of a ``cond`` would run it for
    every row."""

    def zeros(shapes: Any, *lead: int) -> Any:
        return jax.tree_util.tree_map(lambda leaf: jnp.zeros((*lead, *leaf.shape), leaf.dtype), shapes)

    @custom_vmap
    def apply(need: jax.Array, *args: jax.Array) -> Any:
        shapes = jax.eval_shape(fn, *args)
        return jax.lax.cond(need, lambda: fn(*args), lambda: zeros(shapes))

    @apply.def_vmap
    def batched(axis_size: int, in_batched: Any, need: jax.Array, *args: jax.Array) -> tuple[Any, Any]:
        need = need if in_batched[0] else jnp.broadcast_to(need, (axis_size,))
        args = tuple(
            arg if is_batched else jnp.broadcast_to(arg, (axis_size, *arg.shape))
            for arg, is_batched in zip(args, in_batched[1:], strict=True)
        )
        shapes = jax.eval_shape(fn, *(arg[0] for arg in args))
        size = min(chunk, axis_size)

        def next_chunk(carry: tuple[jax.Array, Any]) -> tuple[jax.Array, Any]:
            todo, out = carry
            rows = jnp.nonzero(todo, size=size, fill_value=axis_size)[0]
            safe = jnp.minimum(rows, axis_size - 1)
            result = jax.vmap(fn)(*(arg[safe] for arg in args))
            out = jax.tree_util.tree_map(lambda whole, part: whole.at[rows].set(part, mode="drop"), out, result)
            return todo.at[rows].set(False, mode="drop"), out

        _, out = jax.lax.while_loop(lambda carry: carry[0].any(), next_chunk, (need, zeros(shapes, axis_size)))
        return out, jax.tree_util.tree_map(lambda _: True, shapes)

    return apply


# --------------------------------------------------------------------------- records and the seat to act


#: the records' fields with the value of an empty record (``jax_state.blank_state``'s)
_RECORD_BLANKS = {
    "rec_serial": 0,
    "rec_event": 0,
    "rec_partner": -1,
    "rec_kind": -1,
    "rec_offers": -1,
    "rec_answer": ANSWER_UNKNOWN,
    "rec_ties": 0,
    "rec_tie_throws": 0,
    "rec_throws": -1,
    "rec_attacker_won": False,
    "rec_coin": False,
}


def _blank_records(fields: dict[str, jax.Array], seats: jax.Array) -> dict[str, jax.Array]:
    """The record fields with both slots of the ``seats`` (a bool mask) emptied: a turn that
    begins, played or skipped, replaces the seat's previous turn (``SeatTurn``)."""
    out = {}
    for name, blank in _RECORD_BLANKS.items():
        value = fields[name]
        hit = seats.reshape((-1,) + (1,) * (value.ndim - 1))
        out[name] = jnp.where(hit, jnp.asarray(blank).astype(value.dtype), value)
    return out


def _seat_to_act(
    phase: jax.Array, turn_player: jax.Array, trader: jax.Array, queue: jax.Array, defender: jax.Array, n: int
):
    """Python's ``acting_player``: the next responder of a trade (the first queued seat
    clockwise from the trader), the defender of a battle's throw, else the turn player (also
    once the game is over: ``core.jax_game``'s convention)."""
    head = jnp.int32(-1)
    for offset in reversed(range(1, n)):
        seat = (trader + offset) % n
        head = jnp.where(_at(queue, seat), seat, head)
    return jnp.where(
        phase == TRADE_OFFER, head, jnp.where(phase == RPS_DEFENDER, defender.astype(jnp.int32), turn_player)
    ).astype(jnp.int32)


# --------------------------------------------------------------------------- legal actions


def _legal_mask(state: State, tops: jax.Array, tables: _Tables, config: PillarsConfig) -> jax.Array:
    """``legal_mask`` of the seat to act, the blocks in table order (all zero once over);
    ``tops`` are the piles' top cards (``_tops``)."""
    n, K = tables.n, tables.K
    phase = state.phase.astype(jnp.int32)
    p = state.turn_player.astype(jnp.int32)
    seats = np.arange(n)
    first_round = state.turn < n
    hand = _at(state.hands, p).astype(jnp.int32)
    hand_of_actor = _at(state.hands, state.current_player).astype(jnp.int32)
    empire = _at(state.empire, p).astype(jnp.int32)
    laid = _at(state.pillars, p)
    in_main, in_build = phase == MAIN, phase == BUILD

    # the main action, or the bonus action of a build phase (sections 11, 37-39)
    bonus = in_build & ~first_round & state.main_done & ~state.bonus_used & (laid.sum() >= 2)
    steal_ok = in_main | (bonus & (empire == THIEF))
    trade_ok = in_main | (bonus & (empire == MERCHANT))
    battle_ok = in_main | (bonus & (empire == WARLORD))
    stealable = (state.pile_sizes > 0) & ~_is_two(tops, tables)
    steal = steal_ok & _by_offset(stealable, p, n)
    someone = ((state.hand_sizes > 0) & (seats != p)).any()
    trade = trade_ok & someone & (hand > 0)
    battle = (battle_ok & _by_offset(jnp.ones(n, dtype=jnp.bool_), p, n))[:, None] & jnp.ones(K, dtype=jnp.bool_)

    # pillars (sections 28-31): j jokers and 4 - j naturals of a rank not laid, of the empire
    naturals = hand @ jnp.asarray(tables.natural_matrix)
    most_jokers = jnp.minimum(hand[tables.joker], CARDS_PER_PILLAR - config.min_natural_per_pillar)
    rank_ok = ~laid & ((empire == NO_EMPIRE) | (jnp.asarray(tables.rank_empire) == empire))
    if not config.first_round_pillars:
        rank_ok = rank_ok & ~first_round
    jokers = np.arange(MAX_JOKERS + 1)
    pillar = (
        in_build
        & rank_ok[:, None]
        & (jokers[None, :] >= CARDS_PER_PILLAR - naturals[:, None])
        & (jokers[None, :] <= most_jokers)
    )

    end_build = in_build | (in_main & config.main_action_optional)
    discard = (phase == DISCARD) & (hand > 0)
    targets = _by_offset(~state.pending_skip, p, n)
    skip = (phase == SKIP_TARGET) & targets
    no_skip = (phase == SKIP_TARGET) & (jnp.bool_(config.skip_optional) | ~targets.any())
    offer = (phase == TRADE_OFFER) & (hand_of_actor > 0)
    pick = (phase == TRADE_PICK) & _by_offset(state.offers >= 0, p, n)
    throw = jnp.broadcast_to((phase == RPS_ATTACKER) | (phase == RPS_DEFENDER), (NUM_THROWS,))

    pieces = (
        (Kind.STEAL, steal),
        (Kind.TRADE, trade),
        (Kind.BATTLE, battle),
        (Kind.PILLAR, pillar),
        (Kind.END_BUILD, end_build[None]),
        (Kind.DISCARD, discard),
        (Kind.SKIP, skip),
        (Kind.NO_SKIP, no_skip[None]),
        (Kind.OFFER, offer),
        (Kind.PICK, pick),
        (Kind.THROW, throw),
    )
    layout = tables.layout
    for kind, piece in pieces:  # checked as traced: the pieces follow the action table
        block = layout.block_range(kind)
        if piece.size != len(block) or block.start != sum(p.size for k, p in pieces if k < kind):
            raise AssertionError(f"the {kind.name} piece does not fit the action table")
    return jnp.concatenate([piece.reshape(-1) for _, piece in pieces])


def _observe(state: State, seat: jax.Array, config: PillarsConfig) -> jax.Array:
    from . import jax_observe

    return jax_observe.observe(state, seat, config)


def _finish(state: State, tables: _Tables, config: PillarsConfig, tops: jax.Array | None = None) -> State:
    """The fields a state's rules fill after every change: the mask (all zero once over), the
    end flags and the observation of the seat to act."""
    if tops is None:
        tops = _tops(state.piles, state.pile_sizes)
    over = state.phase == OVER
    state = state.replace(
        legal_action_mask=_legal_mask(state, tops, tables, config) & ~over,
        terminated=(state.outcome != ONGOING_RESULT) & (state.outcome != TRUNCATED_RESULT),
        truncated=state.outcome == TRUNCATED_RESULT,
    )
    return state.replace(observation=_observe(state, state.current_player, config))


def _computed_once(tree: Any, state: State) -> Any:
    """``tree`` computed here, once per game, and stored.

    The CPU compiler fuses chains of cheap operations into every consumer, so a value that many
    consumers read (the new hands, which the mask, the observation and the state all read) was
    computed again inside each of them. It does not fuse an integer division into a consumer
    that reads its elements more than once: dividing by a one the compiler cannot see is one
    (``state.phase >= 0``) stores the value (Map Duel's twin found this; ``lax.
    optimization_barrier`` does not help: the CPU pipeline removes it before fusing)."""
    one = (state.phase >= 0).astype(jnp.int32)

    def once(value: jax.Array) -> jax.Array:
        if value.dtype == jnp.bool_:
            return jax.lax.div(value.astype(jnp.int32), one) != 0
        if jnp.issubdtype(value.dtype, jnp.floating):
            return value / one.astype(value.dtype)
        return jax.lax.div(value, one.astype(value.dtype))

    return jax.tree_util.tree_map(once, tree)


def _typed(state: State, template: State) -> State:
    """``state`` with every field in the dtype of ``template``'s (the step computes in int32)."""
    return jax.tree_util.tree_map(lambda value, like: jnp.asarray(value).astype(like.dtype), state, template)


# --------------------------------------------------------------------------- the step


def _moved(array: jax.Array, moves: list[tuple[Any, Any, Any]], n: int, K: int) -> jax.Array:
    """``array`` (``[n, K]``) plus each move ``(seat, kind, amount)``: the few cards a step moves
    are scalars per game, so each entry pays a compare or two per move (a step's effects spelled
    as ``[n, K]`` masks cost XLA a long expression per entry)."""
    seats, kinds = np.arange(n)[:, None], np.arange(K)[None, :]
    for seat, kind, amount in moves:
        array = array + jnp.where((seats == seat) & (kinds == kind), amount, 0)
    return array


def _row_moved(array: jax.Array, seat: jax.Array, row: jax.Array, n: int) -> jax.Array:
    """``array`` (``[n, K]``) plus ``row`` (``[K]``) in ``seat``'s row."""
    return array + jnp.where((np.arange(n) == seat)[:, None], row[None, :], 0)


def make_step(config: PillarsConfig):
    """The twin of ``rules.apply_action`` for one config (its flags are static)."""
    tables = _tables(config)
    n, K, C = tables.n, tables.K, tables.C
    limit = config.length_limit * n
    random_rps = config.rps_mode == "random"
    seats = np.arange(n)
    kinds = np.arange(K)
    joker_hit = kinds == tables.joker
    shuffle = only_where(lambda counts, key: _arrangement(counts, key, _SHUFFLE, tables))

    def step(state: State, action: jax.Array, key: jax.Array) -> State:
        """One legal action of the seat to act (``adapters.jax_env`` handles illegal actions
        and finished games)."""
        s = state
        action = jnp.asarray(action, dtype=jnp.int32)
        kind, a, b = _computed_once(_decode(action, tables.layout), state)
        phase = s.phase.astype(jnp.int32)
        p = s.turn_player.astype(jnp.int32)
        actor = s.current_player.astype(jnp.int32)
        at_p, at_actor = seats == p, seats == actor
        hands = s.hands.astype(jnp.int32)
        serial = s.event_serial

        # which effect: the phase, and the kind where a phase allows several
        in_main, in_build = phase == MAIN, phase == BUILD
        interaction = (in_main | in_build) & ((kind == Kind.STEAL) | (kind == Kind.TRADE) | (kind == Kind.BATTLE))
        stealing = interaction & (kind == Kind.STEAL)
        trading = interaction & (kind == Kind.TRADE)
        battling = interaction & (kind == Kind.BATTLE)
        declining = in_main & (kind == Kind.END_BUILD)
        laying = in_build & (kind == Kind.PILLAR)
        ending_build = in_build & (kind == Kind.END_BUILD)
        discarding = phase == DISCARD
        in_skip = phase == SKIP_TARGET
        offering = phase == TRADE_OFFER
        picking = phase == TRADE_PICK
        attacker_throws = phase == RPS_ATTACKER
        defender_throws = phase == RPS_DEFENDER
        origin = jnp.where(interaction, jnp.where(in_build, ORIGIN_BONUS, ORIGIN_MAIN), s.origin.astype(jnp.int32))
        # the small per-game values, each stored once before the arrays spread them
        stealing, trading, battling, declining, laying, ending_build, origin = _computed_once(
            (stealing, trading, battling, declining, laying, ending_build, origin), state
        )

        # the arguments: another seat by offset, a kind, a throw, a pillar's rank and jokers
        target = (p + jnp.clip(a, 1, MAX_OFFSET)) % n
        card = jnp.clip(a, 0, K - 1)
        throw = jnp.clip(a, 0, NUM_THROWS - 1)

        # a steal takes the top of the target's pile (sections 14, 15), uncovering the card below
        sizes = s.pile_sizes.astype(jnp.int32)
        tops, below = _tops(s.piles, sizes, depth=2)
        stolen = _at(tops, target)

        # a battle: the truthful answer (21-23), then a coin or the throws (24-27)
        demand = jnp.where(battling, jnp.clip(b, 0, K - 1), s.battle_kind.astype(jnp.int32))
        defender = jnp.where(battling, target, s.battle_defender.astype(jnp.int32))
        holds = _at(_at(hands, defender), demand) >= 1
        pending = s.pending_throw.astype(jnp.int32)
        tie = defender_throws & (pending == throw)
        ties = s.battle_ties.astype(jnp.int32) + tie
        tie_throws = s.battle_tie_throws.astype(jnp.int32) + tie * (np.arange(NUM_THROWS) == throw)
        coin = (battling & holds & random_rps) | (tie & (ties >= config.rps_max_ties))
        heads = _random_words(key, _COIN, 1)[0] < jnp.uint32(1 << 31)
        resolving = (battling & holds & random_rps) | (defender_throws & (~tie | coin))
        attacker_wins = jnp.where(coin, heads, (pending - throw) % NUM_THROWS == 1)
        taken = resolving & attacker_wins
        battle_over = (battling & ~holds) | resolving
        target, stolen, demand, defender, holds, tie, ties, coin, heads, resolving, taken, battle_over = _computed_once(
            (target, stolen, demand, defender, holds, tie, ties, coin, heads, resolving, taken, battle_over), state
        )

        # a trade: the offers (18), the pick (19)
        offers = jnp.where(offering & at_actor, card, s.offers.astype(jnp.int32))
        queue = jnp.where(offering, s.trade_queue & ~at_actor, s.trade_queue)
        revealing = offering & ~queue.any()
        partner_offer = _at(offers, target)
        tabled = s.trade_tabled.astype(jnp.int32)
        offers, queue, revealing, partner_offer = _computed_once((offers, queue, revealing, partner_offer), state)

        # a pillar (28-36): naturals in suit order, then jokers
        rank = jnp.clip(a, 0, NUM_PILLAR_RANKS - 1)
        jokers = jnp.clip(b, 0, MAX_JOKERS)
        hand_p = _at(hands, p)
        natural_kinds = _at(jnp.asarray(tables.naturals), rank)  # [suits]
        still_needed = CARDS_PER_PILLAR - jokers
        used = jnp.zeros(K, dtype=jnp.int32)
        for suit in range(tables.naturals.shape[1]):
            suit_hit = kinds == natural_kinds[suit]
            take = jnp.minimum(still_needed, (hand_p * suit_hit).sum())
            used = used + take * suit_hit
            still_needed = still_needed - take
        used = laying * (used + jokers * joker_hit)
        empire_p = _at(s.empire, p).astype(jnp.int32)
        first_pillar = laying & (empire_p == NO_EMPIRE)
        pillars = s.pillars | (laying & at_p[:, None] & (np.arange(NUM_PILLAR_RANKS) == rank))
        empire = jnp.where(first_pillar & at_p, _at(jnp.asarray(tables.rank_empire), rank), s.empire.astype(jnp.int32))
        used, first_pillar = _computed_once((used, first_pillar), state)

        # the discard (40-46): onto the pile, then the win check, then the skip target after a 2
        wins = discarding & (_at(pillars.sum(axis=1), p) >= PILLARS_TO_WIN)
        giving_skip = in_skip & (kind == Kind.SKIP)
        pending_skip = s.pending_skip | (giving_skip & (seats == target))
        targets_left = (~s.pending_skip & ~at_p).any()
        to_skip = discarding & ~wins & _is_two(card, tables) & (s.turn >= n) & targets_left
        skip_given = jnp.where(giving_skip & at_p, target, s.skip_given.astype(jnp.int32))

        # the piles: a steal takes a top card, a discard puts one (one pile, one place, a scalar)
        pile_seat = jnp.where(stealing, target, jnp.where(discarding, p, -1))
        at_pile = seats == pile_seat
        pile_card = jnp.where(stealing, stolen, card)
        pile_change = discarding.astype(jnp.int32) - stealing
        place = jnp.where(stealing, _at(sizes, target) - 1, _at(sizes, p))
        piles = jnp.where(
            at_pile[:, None] & (np.arange(C) == place), jnp.where(stealing, -1, card).astype(s.piles.dtype), s.piles
        )
        pile_sizes = sizes + at_pile * pile_change
        pile_counts = _moved(s.pile_counts.astype(jnp.int32), [(pile_seat, pile_card, pile_change)], n, K)
        tops = jnp.where(
            at_pile, jnp.where(stealing, jnp.where(pile_sizes > 0, below, -1), card), tops
        )  # the tops after the action (a reshuffle keeps them)

        # the hands: the few cards a step moves, each a (seat, kind, +1 or -1): the turn player
        # gains what it steals, wins in battle or takes in a trade, and loses its discard; the
        # defender loses the card a battle takes; a pick swaps the tabled card for the offer
        gained = jnp.where(stealing, stolen, jnp.where(picking, partner_offer, jnp.where(taken, demand, card)))
        gains = (stealing | picking | taken).astype(jnp.int32) - discarding
        giver = jnp.where(picking, p, defender)
        given = jnp.where(picking, tabled, demand)
        swaps = picking.astype(jnp.int32)
        moves = [(p, gained, gains), (giver, given, -(picking | taken).astype(jnp.int32))]
        moves += [(target, tabled, swaps), (target, partner_offer, -swaps)]
        hands = _row_moved(_moved(hands, moves, n, K), p, -used, n)
        hand_sizes = (
            s.hand_sizes.astype(jnp.int32)
            + at_p * ((stealing | taken).astype(jnp.int32) - discarding - used.sum())
            - (seats == defender) * taken
        )  # a pick gives one card for one: both hands keep their size

        # the known-cards tracker: at least one seen, then cards gone, then cards come
        seen_seat = jnp.where(trading, p, jnp.where(battling & holds, defender, -1))
        seen = (seats[:, None] == seen_seat) & (kinds[None, :] == jnp.where(trading, card, demand))
        seen = seen | (revealing & (offers[:, None] == kinds[None, :]))
        known = jnp.maximum(s.known.astype(jnp.int32), seen.astype(jnp.int32))
        gone = [
            (
                jnp.where(picking, target, jnp.where(taken, defender, p)),
                jnp.where(picking, partner_offer, jnp.where(taken, demand, card)),
                -(picking | taken | discarding).astype(jnp.int32),
            ),
            (p, tabled, -picking.astype(jnp.int32)),
        ]
        known = jnp.maximum(_row_moved(_moved(known, gone, n, K), p, -used, n), 0)
        come = [
            (
                jnp.where(picking, target, p),
                jnp.where(stealing, stolen, jnp.where(picking, tabled, demand)),
                (stealing | picking | taken).astype(jnp.int32),
            ),
            (p, partner_offer, picking.astype(jnp.int32)),
        ]
        known = _moved(known, come, n, K)

        # the record of a finished interaction, in the turn player's slot of its origin
        finished = stealing | battle_over | picking
        at_record = (at_p[:, None] & (np.arange(NUM_SLOTS) == origin)[None, :]) & finished
        deciding_throws = resolving & ~coin & defender_throws
        record = {
            "rec_serial": serial,
            "rec_event": jnp.where(stealing, EVENT_STEAL, jnp.where(picking, EVENT_TRADE, EVENT_BATTLE)),
            "rec_partner": jnp.where(battle_over, defender, target),
            "rec_kind": jnp.where(stealing, stolen, jnp.where(picking, tabled, demand)),
            "rec_offers": jnp.where(picking, offers, -1),
            "rec_answer": jnp.where(battling & ~holds, ANSWER_NO, jnp.where(battle_over, ANSWER_YES, ANSWER_UNKNOWN)),
            "rec_ties": jnp.where(resolving, ties, 0),
            "rec_tie_throws": jnp.where(resolving, tie_throws, 0),
            "rec_throws": jnp.where(deciding_throws, jnp.stack([pending, throw]), -1),
            "rec_attacker_won": taken,
            "rec_coin": resolving & coin,
        }
        at_record, record = _computed_once((at_record, record), state)
        records = {}
        for name, value in record.items():
            old = getattr(s, name)
            hit = at_record.reshape(at_record.shape + (1,) * (old.ndim - 2))
            records[name] = jnp.where(hit, jnp.asarray(value).astype(old.dtype), old)
        serial = serial + finished

        # the turn's own flags and the phase the action leads to
        main_done = s.main_done | declining | (finished & (origin == ORIGIN_MAIN))
        bonus_used = s.bonus_used | (finished & (origin == ORIGIN_BONUS))
        hand_p = _at(hand_sizes, p)
        new_phase = phase
        new_phase = jnp.where(finished | declining | laying, BUILD, new_phase)
        new_phase = jnp.where(trading, TRADE_OFFER, new_phase)
        new_phase = jnp.where(battling & holds & ~random_rps, RPS_ATTACKER, new_phase)
        new_phase = jnp.where(offering, jnp.where(revealing, TRADE_PICK, TRADE_OFFER), new_phase)
        new_phase = jnp.where(attacker_throws, RPS_DEFENDER, new_phase)
        new_phase = jnp.where(defender_throws & ~resolving, RPS_ATTACKER, new_phase)
        new_phase = jnp.where(ending_build, DISCARD, new_phase)
        new_phase = jnp.where(wins, OVER, jnp.where(to_skip, SKIP_TARGET, new_phase))
        outcome = jnp.where(wins, WON_BY_0 + p, s.outcome.astype(jnp.int32))

        # the next turn, were this one to end (``end_turn``, ``begin_turn``): the seats whose
        # turn is skipped, the truncation, the seat that plays (10-12, 44, 47)
        begin = _computed_once(_next_turn(p, s.turn, pending_skip, n, limit), state)
        ends_plainly = (
            (discarding & ~wins & ~to_skip)
            | in_skip
            | (ending_build & (hand_p == 0))
            | (laying & ~first_pillar & (hand_p == 0))
        )

        # the draw (12): six for a first pillar, one for a turn that begins
        recipient = jnp.where(first_pillar, p, begin.player)
        wanted = jnp.where(first_pillar, FIRST_PILLAR_DRAW, jnp.where(ends_plainly & ~begin.truncated, 1, 0))
        size = s.deck_size.astype(jnp.int32)
        from_pile = jnp.minimum(wanted, size)
        short = wanted > size
        window = np.arange(FIRST_PILLAR_DRAW)  # the i-th card drawn from a pile's top
        drawn_cards = jnp.take(s.deck, jnp.clip(size - 1 - window, 0, C - 1)).astype(jnp.int32)
        drawn_cards = jnp.where(window < from_pile, drawn_cards, -1)
        deck, shuffled = s.deck, jnp.int32(0)
        deck_size = jnp.where(short, 0, size - from_pile)
        if config.resource_empty == "reshuffle":
            # every pile but its top card, shuffled into a new resource pile
            kept = (tops[:, None] == kinds[None, :]).astype(jnp.int32)
            gathered_counts = (pile_counts - kept).sum(axis=0)
            gathered = gathered_counts.sum()
            reshuffling = short & (gathered > 0)
            new_pile = shuffle(reshuffling, gathered_counts, key)
            from_new = jnp.where(reshuffling, jnp.minimum(wanted - size, gathered), 0)
            new_cards = jnp.take(new_pile, jnp.clip(gathered - 1 - window, 0, C - 1)).astype(jnp.int32)
            drawn_cards = jnp.concatenate([drawn_cards, jnp.where(window < from_new, new_cards, -1)])
            deck = jnp.where(reshuffling & (np.arange(C) < gathered), new_pile, deck)
            deck_size = jnp.where(reshuffling, gathered - from_new, deck_size)
            columns = np.arange(C)[None, :]
            piles = jnp.where(
                reshuffling & (columns > 0),
                jnp.int8(-1),
                jnp.where(reshuffling & (columns == 0), tops[:, None].astype(piles.dtype), piles),
            )
            pile_counts = jnp.where(reshuffling, kept, pile_counts)
            pile_sizes = jnp.where(reshuffling, jnp.minimum(pile_sizes, 1), pile_sizes)
            shuffled = jnp.where(reshuffling, gathered, 0)
        drawn = (drawn_cards[:, None] == kinds[None, :]).sum(axis=0)
        hands = _row_moved(hands, recipient, drawn, n)
        hand_sizes = hand_sizes + (seats == recipient) * drawn.sum()
        draw_truncates = short & (config.resource_empty == "end_draw")
        outcome = jnp.where(draw_truncates, TRUNCATED_RESULT, outcome)
        new_phase = jnp.where(draw_truncates, OVER, new_phase)

        # a first pillar that leaves the hand empty ends the turn too (35); its draw found
        # nothing, so the new turn's draw finds nothing either (module docstring)
        ends = ends_plainly | (first_pillar & (_at(hand_sizes, p) == 0) & ~draw_truncates)
        skipped = ends & begin.skipped
        plays = ends & ~begin.truncated
        renewed = skipped | (plays & (seats == begin.player))
        ends, skipped, renewed, draw_truncates = _computed_once((ends, skipped, renewed, draw_truncates), state)
        records = _blank_records(records, renewed)
        turn_status = jnp.where(skipped, TURN_SKIPPED, jnp.where(renewed, TURN_PLAYED, s.turn_status.astype(jnp.int32)))
        skip_given = jnp.where(renewed, -1, skip_given)
        pending_skip = pending_skip & ~skipped
        turn_player = jnp.where(ends, begin.player, p)
        turn = jnp.where(ends, begin.turn, s.turn)
        outcome = jnp.where(ends & begin.truncated, TRUNCATED_RESULT, outcome)
        opening_phase = jnp.where(begin.turn < n, BUILD if config.first_round_pillars else DISCARD, MAIN)
        new_phase = jnp.where(ends, jnp.where(begin.truncated | draw_truncates, OVER, opening_phase), new_phase)
        main_done = main_done & ~ends
        bonus_used = bonus_used & ~ends

        # the trade and battle on record: a new one (or a new turn) clears them
        clearing = trading | battling | ends
        queue = jnp.where(trading, (hand_sizes > 0) & ~at_p, queue & ~clearing)
        unset = jnp.int32(-1)
        last_throws = jnp.where(defender_throws, jnp.stack([pending, throw]), s.last_throws.astype(jnp.int32))
        s = s.replace(
            deck=deck,
            deck_size=deck_size,
            hands=hands,
            hand_sizes=hand_sizes,
            piles=piles,
            pile_sizes=pile_sizes,
            pile_counts=pile_counts,
            pillars=pillars,
            pillar_cards=_row_moved(s.pillar_cards.astype(jnp.int32), p, used, n),
            pillar_jokers=s.pillar_jokers.astype(jnp.int32) + at_p * (laying * jokers),
            empire=empire,
            pending_skip=pending_skip,
            known=known,
            turn_player=turn_player,
            turn=turn,
            phase=new_phase,
            main_done=main_done,
            bonus_used=bonus_used,
            origin=origin,
            trade_trader=jnp.where(trading, p, jnp.where(clearing, unset, s.trade_trader.astype(jnp.int32))),
            trade_tabled=jnp.where(trading, card, jnp.where(clearing, unset, tabled)),
            trade_queue=queue,
            offers=jnp.where(clearing, unset, offers),
            trade_revealed=(s.trade_revealed | revealing) & ~clearing,
            battle_attacker=jnp.where(battling, p, jnp.where(clearing, unset, s.battle_attacker.astype(jnp.int32))),
            battle_defender=jnp.where(
                battling, target, jnp.where(clearing, unset, s.battle_defender.astype(jnp.int32))
            ),
            battle_kind=jnp.where(battling, demand, jnp.where(clearing, unset, s.battle_kind.astype(jnp.int32))),
            battle_answer=jnp.where(
                battling,
                jnp.where(holds, ANSWER_YES, ANSWER_NO),
                jnp.where(clearing, ANSWER_UNKNOWN, s.battle_answer.astype(jnp.int32)),
            ),
            battle_ties=jnp.where(clearing, 0, ties),
            pending_throw=jnp.where(clearing | defender_throws, unset, jnp.where(attacker_throws, throw, pending)),
            last_throws=jnp.where(clearing, unset, last_throws),
            battle_tie_throws=jnp.where(clearing, 0, tie_throws),
            turn_status=turn_status,
            skip_given=skip_given,
            **records,
            event_serial=serial,
            last_decision=jnp.where(at_actor, s.event_serial, s.last_decision),
            outcome=outcome,
            coin_flips=s.coin_flips + coin,
            last_coin=jnp.where(coin, heads.astype(jnp.int32), -1),
            shuffled=shuffled,
            step_count=s.step_count + 1,
        )
        s = s.replace(
            current_player=_seat_to_act(
                s.phase.astype(jnp.int32), s.turn_player.astype(jnp.int32), p, s.trade_queue, s.battle_defender, n
            )
        )
        # the rewards (``phases.apply_action``): a pillar's shaping to its builder, the result
        # of a win (a truncation pays nothing)
        rewards = (laying * config.shaping) * at_p
        loss = -1.0 if config.reward_scheme == "win_loss" else -1.0 / (n - 1)
        rewards = rewards + wins * jnp.where(at_p, 1.0, loss)
        s = _typed(s.replace(rewards=rewards.astype(jnp.float32)), state)
        s, tops = _computed_once((s, tops), state)
        return _finish(s, tables, config, tops)

    return step


class _Begin(NamedTuple):
    """The turn that begins after the turn player's: ``player``, its ``turn`` count, the seats
    whose turns are ``skipped`` on the way (a bool mask), and whether the length limit
    ``truncated`` the game instead."""

    player: jax.Array
    turn: jax.Array
    skipped: jax.Array
    truncated: jax.Array


def _next_turn(player: jax.Array, turn: jax.Array, pending_skip: jax.Array, n: int, limit: int) -> _Begin:
    """``end_turn`` and ``begin_turn``'s loop in closed form: from the next seat clockwise, the
    seats with a pending skip in a row lose their turn, each turn counted, until a seat without
    one plays; the game is truncated instead when the count reaches ``limit`` first (checked
    before each seat, the skipped ones included). The seat that passes the turn has no pending
    skip, so at most ``n - 1`` seats are skipped."""
    first = (player + 1) % n
    first_turn = turn.astype(jnp.int32) + 1
    in_row = jnp.bool_(True)
    skips = jnp.int32(0)
    for offset in range(n):
        in_row = in_row & _at(pending_skip, (first + offset) % n)
        skips = skips + in_row
    room = limit - first_turn  # seats that may still begin a turn before the limit
    truncated = room <= skips
    count = jnp.minimum(skips, room)
    skipped = (jnp.arange(n) - first) % n < count
    return _Begin(player=(first + count) % n, turn=first_turn + count, skipped=skipped, truncated=truncated)


# --------------------------------------------------------------------------- the deal


def make_init(config: PillarsConfig):
    """The twin of ``rules.new_game`` for one config: every pack shuffled from the key (the
    whole order stays in ``state.deck``, bottom first, for ``jax_state.python_deck``), ten cards
    dealt to each seat one at a time clockwise from a uniformly random first player (the first
    card dealt is the top one, ``deck[C - 1]``), then the first turn begins with its draw."""
    tables = _tables(config)
    n, K, C = tables.n, tables.K, tables.C
    template = blank_state(config)
    dealt = HAND_SIZE * n
    order = np.arange(dealt)  # the i-th card dealt lies at deck[C - 1 - i]
    kinds = np.arange(K)

    def init(key: jax.Array) -> State:
        deck = _arrangement(jnp.asarray(tables.deck_counts), key, _DEAL, tables)
        first = scaled_draw(_random_words(key, _FIRST, 1)[0], jnp.int32(n))
        cards = deck[C - dealt :][::-1].astype(jnp.int32)
        receiver = (first + order) % n
        hands = ((receiver[:, None] == np.arange(n))[:, :, None] & (cards[:, None] == kinds)[:, None, :]).sum(axis=0)
        # begin_turn of turn 0: the first player's turn is played and draws one card
        drawn = deck[C - dealt - 1].astype(jnp.int32)
        at_first = np.arange(n) == first
        hands = _moved(hands, [(first, drawn, 1)], n, K)
        state = template.replace(
            deck=deck,
            deck_size=jnp.int16(C - dealt - 1),
            hands=hands.astype(template.hands.dtype),
            hand_sizes=(HAND_SIZE + at_first).astype(template.hand_sizes.dtype),
            turn_player=first.astype(template.turn_player.dtype),
            current_player=first,
            phase=jnp.int8(BUILD if config.first_round_pillars else DISCARD),
            turn_status=jnp.where(at_first, TURN_PLAYED, template.turn_status).astype(template.turn_status.dtype),
        )
        return _finish(state, tables, config)

    return init


# --------------------------------------------------------------------------- scripted states, the record


def from_python(python) -> State:
    """The twin state of a Python ``PillarsState`` (scripted positions), with its seat to act,
    mask, end flags and observation as ``step`` would leave them (rewards zero)."""
    config = python.config
    fields = {name: jnp.asarray(value) for name, value in make_codec(config).from_python(python).items()}
    return _settler(config)(blank_state(config).replace(**fields))


@cache
def _settler(config: PillarsConfig):
    """The seat to act and ``_finish`` for one config, compiled once (``from_python`` is called
    position by position)."""
    tables = _tables(config)

    def settle(state: State) -> State:
        seat = _seat_to_act(
            state.phase.astype(jnp.int32),
            state.turn_player.astype(jnp.int32),
            state.trade_trader.astype(jnp.int32),
            state.trade_queue,
            state.battle_defender,
            tables.n,
        )
        return _finish(state.replace(current_player=seat), tables, config)

    return jax.jit(settle)


def rules_for(config: PillarsConfig) -> JaxRules:
    """The Pillars twin of one config, as ``core.jax_game.JaxRules``."""
    from . import GAME

    codec = make_codec(config)
    kinds = kinds_for(config)
    return JaxRules(
        name="Pillars",
        game=GAME,
        config=config,
        num_actions=layout_for(kinds).size,
        observation_size=observation_size(kinds),
        init=make_init(config),
        step=make_step(config),
        observe=lambda state, seat: _observe(state, seat, config),
        outcome_names=OUTCOME_NAMES,
        to_python=lambda state: codec.to_python(state, config),
        python_deck=python_deck,
        reshuffle_orders=lambda before, after: [],
        num_players=config.num_players,
        python_draws=make_python_draws(config),
    )
