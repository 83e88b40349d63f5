"""Empire solo rules in JAX: the batched twin of ``rules.py``, proven identical to it.

Read it beside ``rules.py``; each rule has one place in both files:

=============================  ============================  ===============================
rule                           ``rules.py``                  here
=============================  ============================  ===============================
the deal                       ``new_game``                  ``init``
legal merges                   ``_add_merges``               ``_merge_mask``
legal actions                  ``legal_actions``             ``_legal_mask``
an action's own effect         ``_do_*`` handlers            ``_do_*`` functions
what follows it                ``_begin_turn``,              ``_follow_up``
                               ``_start_round``,
                               ``_await_send``, ...
drawing, reshuffling           ``_take_card``                ``_take_card``
battle value, enemy target     ``unit_value``,               ``_unit_values``, ``_target``
                               ``enemy_target``
winning / losing a round       ``_win_battle``,              ``_do_send``
                               ``_lose_round``
shaping                        ``_shaping``                  ``_shaping``
the observation                ``observe.observe``           ``observe``
=============================  ============================  ===============================

**One source per fact.** What both files need is written once: the card tests, battle values,
what a merge forms, which units host a recruit, what forming one pays, the rewards and the
observation's fractions in ``tables.py``; the outcome codes and names, unit kinds and phases in
``state.py``; the action table in ``actions.py``. The conversions to and from ``SoloState``
(``to_python``, ``from_python``) are derived from its declared ``FIELDS``
(``core.jax_game.state_codec``), and the observation is assembled block by block in the order
of ``observe.LAYOUT``, each block's size checked (``core.jax_game.assemble_observation``).

The state (one game; ``jax.vmap`` batches it) holds the board as arrays (``kind`` int8[6],
``cards`` int8[6, 4] padded with -1, ``recruit`` int8[6]), the piles as card sets (``deck``,
``discard`` and ``sent`` bool[52]), the battle (``attacker``, ``enemies`` int8[2], ``mode``,
``split_first_won``, ``rounds_lost``) and ``last_draw``, the card the last step took (-1 if none).

**The deck is a set, drawn in a keyed order.** Python keeps the deck as a list in a shuffled
order; its order is hidden and uniformly random, so drawing its top card is drawing a uniformly
random card of the set. The twin draws that way: the ``n``-th card drawn from a deck is picked
among the cards left by ``fold_in(deck_key, n)``. ``deck_key`` is set from the step's key each
time the discard pile becomes the deck, and by ``init`` for the first deck, so the whole order of
a deck is fixed the moment the deck is formed: ``python_deck`` and ``reshuffle_orders`` write it
out (the differential tests hand exactly that order to the Python rules). No permutation is ever
sorted, which keeps a step cheap.

Decisions draw at most one card each (a turn's card or one enemy), so a step takes at most one
card, and reshuffles at most once.

One module, over 600 lines, on purpose: it is the whole game as one compiled step with the
select-style pieces it is made of, the twin of ``rules.py`` that the lockstep tests hold to it;
the next twins (the multiplayer games) will show which of those pieces deserve a module of their
own in core.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ...core.cards import JACK, KING, NUM_CARDS, NUM_RANKS, NUM_SUITS, QUEEN
from ...core.errors import ILLEGAL_ACTION_OUTCOME
from ...core.jax_game import (
    JaxRules,
    JaxState,
    StateCodec,
    assemble_observation,
    fresh_pgx_fields,
    jax_state,
    nth_member,
    scaled_draw,
    state_codec,
)
from ...core.layout import quotient_table
from . import actions as A
from . import observe as O
from .config import SoloConfig
from .state import (
    BASE,
    BASE_VALUE,
    BATTALION,
    BUILDER,
    EMPTY,
    KEEPS,
    KING_MODE,
    LOST,
    NATIVE,
    NO_MODE,
    NUM_TERRITORIES,
    NUM_UNIT_KINDS,
    ONGOING,
    ORGANIZE,
    OVER,
    REACT,
    SEND,
    SOLDIER,
    SPLIT,
    SUM,
    SUPER,
    TRUNCATED,
    WON,
    Phase,
    SoloState,
)
from .state import OUTCOME_NAMES as PYTHON_OUTCOME_NAMES
from .tables import (
    BASES_FRACTION,
    BASES_TO_WIN,
    CARD_VALUE_FRACTION,
    HOSTS,
    IS_SOLDIER,
    LOSS_REWARD,
    MAX_UNIT_VALUE,
    MERGED,
    PILE_FRACTION,
    ROUNDS_LOST_FRACTION,
    ROUNDS_LOST_SCALE,
    SHAPING_INDEX,
    UNIT_VALUE_FRACTION,
    WIN_REWARD,
    battle_value,
    is_black_face,
    is_promotion,
    is_soldier,
)

#: ``state.outcome`` indexes these: the Python rules' outcomes, then an illegal action (which
#: only the env knows)
OUTCOME_NAMES = (*PYTHON_OUTCOME_NAMES, ILLEGAL_ACTION_OUTCOME)
ILLEGAL = len(PYTHON_OUTCOME_NAMES)
MAX_UNIT_CARDS = 4  # a battalion or a base builder: the width of ``cards``

_IS_SOLDIER = np.array(IS_SOLDIER)
_CARDS = np.arange(NUM_CARDS)
_T = np.arange(NUM_TERRITORIES)
_IS_KEEP = np.isin(_T, KEEPS)

# Action-index tables from actions.py, so the action layout is declared once.
_ACTION_KIND = np.array([int(action.kind) for action in A.ACTIONS], dtype=np.int32)
_ACTION_A = np.array([action.a for action in A.ACTIONS], dtype=np.int32)
_ACTION_B = np.array([action.b for action in A.ACTIONS], dtype=np.int32)


@jax_state
@dataclasses.dataclass(frozen=True)
class State(JaxState):
    kind: jax.Array
    cards: jax.Array
    recruit: jax.Array
    deck: jax.Array
    deck_key: jax.Array
    deck_drawn: jax.Array
    last_draw: jax.Array
    discard: jax.Array
    drawn: jax.Array
    phase: jax.Array
    attacker: jax.Array
    enemies: jax.Array
    mode: jax.Array
    split_first_won: jax.Array
    sent: jax.Array
    rounds_lost: jax.Array
    draws: jax.Array
    outcome: jax.Array
    shaping_paid: jax.Array


def _raw_key(key: jax.Array) -> jax.Array:
    """A key as its raw ``uint32`` data (new-style typed keys and old ``PRNGKey`` arrays alike)."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(key)
    return key


def _as_key(raw: jax.Array) -> jax.Array:
    return jax.random.wrap_key_data(raw)


def _nth_member(members: jax.Array, n: jax.Array) -> jax.Array:
    """The ``n``-th card (0-based, in card order) of a card set."""
    return nth_member(members, n).astype(jnp.int8)


def _pick(deck_key: jax.Array, drawn_so_far: jax.Array, deck: jax.Array) -> jax.Array:
    """The card drawn from ``deck`` after ``drawn_so_far`` draws from it: a uniform choice among
    the cards left, made from the first word of ``fold_in(deck_key, drawn_so_far)`` (one hash
    per draw; ``jax.random.randint`` would cost three)."""
    word = jax.random.key_data(jax.random.fold_in(_as_key(deck_key), drawn_so_far))[0]
    return _nth_member(deck, scaled_draw(word, deck.sum()))


_pick_host = jax.jit(_pick)


# --------------------------------------------------------------------------- board facts


def _unit_values(state: State) -> jax.Array:
    """Battle value of each territory's whole unit (``rules.unit_value``): a base beats anything."""
    cards = state.cards.astype(jnp.int32)
    body = jnp.where(cards >= 0, battle_value(cards), 0).sum(axis=1)
    recruit = state.recruit.astype(jnp.int32)
    with_recruit = body + jnp.where(recruit >= 0, battle_value(recruit), 0)
    return jnp.where(state.kind == BASE, BASE_VALUE, with_recruit)


def _card_value(card: jax.Array) -> jax.Array:
    """``tables.battle_value`` of a card (1 for -1, no card: the callers mask it)."""
    return battle_value(jnp.maximum(card.astype(jnp.int32), 0))


def _is_one_of(kind: jax.Array, kinds: tuple[int, ...]) -> jax.Array:
    """Whether ``kind`` (an array of unit kinds) is one of ``kinds``."""
    return functools.reduce(jnp.logical_or, [kind == one for one in kinds])


def _num_units(kind: jax.Array) -> jax.Array:
    return (kind != EMPTY).sum()


def _target(state: State) -> jax.Array:
    """``rules.enemy_target``: the value a unit sent now must reach (0 against a Jack)."""
    rank = state.attacker.astype(jnp.int32) % NUM_RANKS
    first, second = _card_value(state.enemies[0]), _card_value(state.enemies[1])
    one_enemy = (rank == QUEEN) | (state.mode == SPLIT)
    index_second = (rank != QUEEN) & (state.split_first_won >= 0)
    single = jnp.where(index_second, second, first)
    return jnp.where(rank == JACK, 0, jnp.where(one_enemy, single, first + second))


# --------------------------------------------------------------------------- legal actions


def _merge_mask(kind: jax.Array, recruit: jax.Array) -> jax.Array:
    """``rules._add_merges`` as a [6, 6] mask ``[j, i]``: move the unit at ``j`` onto keep ``i``."""
    j, i = _T[:, None], _T[None, :]
    keep_i = jnp.asarray(_IS_KEEP)[None, :]
    kind_i, kind_j = kind[None, :], kind[:, None]
    has_recruit = recruit >= 0
    soldiers_or_supers = ((kind_i == SOLDIER) | (kind_i == SUPER)) & (kind_j == kind_i)
    natives = (
        (kind_i == NATIVE)
        & has_recruit[None, :]
        & (kind_j == NATIVE)
        & has_recruit[:, None]
        & jnp.asarray(_IS_KEEP)[:, None]
    )
    return keep_i & (j != i) & (soldiers_or_supers | natives)


#: the merge actions in table order, as ``(j, i)`` pairs (actions.py declares the order)
_MERGE_PAIRS = tuple((A.ACTIONS[index].a, A.ACTIONS[index].b) for index in sorted(A.MERGE.values()))


def _merge_actions(merges: jax.Array) -> jax.Array:
    """The [6, 6] merge mask at the merge actions' indices (1..15, consecutive)."""
    return jnp.stack([merges[j, i] for j, i in _MERGE_PAIRS])


def _legal_mask(state: State, merge_in_battle: bool) -> jax.Array:
    """``rules.legal_actions`` as a bool mask of length 68."""
    kind, recruit, phase = state.kind, state.recruit, state.phase
    drawn = jnp.maximum(state.drawn.astype(jnp.int32), 0)
    merge_phases = (phase == ORGANIZE) | (merge_in_battle & ((phase == KING_MODE) | (phase == SEND)))
    merges = _merge_actions(_merge_mask(kind, recruit)) & merge_phases

    reacting = phase == REACT
    soldier, promotion, black_face = is_soldier(drawn), is_promotion(drawn), is_black_face(drawn)
    empty = kind == EMPTY
    host = _is_one_of(kind, HOSTS)
    free_host = host & (recruit < 0)
    keeps = np.array(KEEPS)
    place = reacting & soldier & empty
    stack = (reacting & soldier & (kind == SOLDIER))[keeps]
    recruit_ok = jnp.where(soldier, free_host, (recruit < 0) & ((kind == BASE) | (black_face & (kind == NATIVE))))
    recruits = reacting & recruit_ok
    promote = (reacting & promotion & (kind == BATTALION))[keeps]
    builders = (reacting & promotion & (kind == BUILDER))[keeps]
    found = builders[:, None] & ((_T[None, :] == keeps[:, None]) | empty[None, :])  # [keep i, t]

    king = phase == KING_MODE
    sending = phase == SEND
    in_table_order = (
        ((A.DRAW,), (phase == ORGANIZE)[None]),
        (tuple(sorted(A.MERGE.values())), merges),
        (A.PLACE, place),
        (tuple(A.STACK[i] for i in KEEPS), stack),
        (A.RECRUIT, recruits),
        ((A.DISCARD,), (reacting & soldier)[None]),
        (tuple(A.PROMOTE[i] for i in KEEPS), promote),
        (tuple(A.FOUND[i, t] for i in KEEPS for t in range(NUM_TERRITORIES)), found.reshape(-1)),
        ((A.FIGHT,), (reacting & ~soldier)[None]),
        ((A.SUM_ACTION,), king[None]),
        ((A.SPLIT_ACTION,), (king & (_num_units(kind) >= 2))[None]),
        (A.SEND, sending & ~empty),
        (A.SEND_RECRUIT, sending & host & (recruit >= 0)),
    )
    return _concatenate_in_table_order(in_table_order) & (phase != OVER)


def _concatenate_in_table_order(pieces: tuple[tuple[tuple[int, ...], jax.Array], ...]) -> jax.Array:
    """The mask from per-kind flags whose action indices follow each other through the whole
    table (checked when traced): one concatenation, where writing each piece into a zero mask
    made XLA on the CPU evaluate every piece for every one of the 68 entries."""
    indices = [index for piece_indices, _ in pieces for index in piece_indices]
    if indices != list(range(A.NUM_ACTIONS)):
        raise AssertionError(f"the mask pieces do not follow the action table: {indices}")
    return jnp.concatenate([flags.reshape(-1) for _, flags in pieces])


# --------------------------------------------------------------------------- drawing


def _take_card(state: State, needed: jax.Array, key: jax.Array, limit: int) -> tuple[State, jax.Array, jax.Array]:
    """``rules._take_card`` when ``needed``: the episode is truncated once ``limit`` cards were
    drawn (or deck and discard are both empty); an empty deck takes the discard pile, in an order
    keyed by ``key``. Returns the state, the card (-1 when none) and whether one was taken."""
    deck_empty = ~state.deck.any()
    discard_empty = ~state.discard.any()
    allowed = state.draws < limit
    truncated = needed & (~allowed | (deck_empty & discard_empty))
    reshuffle = needed & allowed & deck_empty & ~discard_empty
    deck = jnp.where(reshuffle, state.discard, state.deck)
    deck_key = jnp.where(reshuffle, _raw_key(key), state.deck_key)
    deck_drawn = jnp.where(reshuffle, 0, state.deck_drawn)
    taken = needed & ~truncated
    card = _pick(deck_key, deck_drawn, deck)
    state = state.replace(
        deck=deck & ~(taken & (jnp.asarray(_CARDS) == card)),
        deck_key=deck_key,
        deck_drawn=deck_drawn + taken.astype(deck_drawn.dtype),
        discard=jnp.where(reshuffle, False, state.discard),
        draws=state.draws + taken.astype(state.draws.dtype),
        last_draw=jnp.where(taken, card, jnp.int8(-1)),
        outcome=jnp.where(truncated, jnp.int8(TRUNCATED), state.outcome),
        phase=jnp.where(truncated, jnp.int8(OVER), state.phase),
    )
    return state, jnp.where(taken, card, jnp.int8(-1)), taken


# --------------------------------------------------------------------------- the step

# What follows an action's own effect (rules.py calls these functions at the end of each handler).
NOTHING, BEGIN_TURN, DRAW_FOR_TURN, START_ROUND, MODE_CARD, AWAIT_SEND = range(6)
# What a drawn card becomes.
TURN_CARD, FIRST_ENEMY, SECOND_ENEMY = range(3)


def _one_hot_territory(t: jax.Array) -> jax.Array:
    return jnp.asarray(_T) == t


def _single(card: jax.Array) -> jax.Array:
    """A unit body of one card: ``[card, -1, -1, -1]``."""
    return jnp.stack([card, jnp.int8(-1), jnp.int8(-1), jnp.int8(-1)]).astype(jnp.int8)


def _set_unit(state: State, at: jax.Array, kind, cards: jax.Array, recruit=None) -> State:
    """``state`` with territory ``at`` (a one-hot) holding ``kind`` / ``cards`` (and ``recruit``)."""
    return state.replace(
        kind=jnp.where(at, jnp.int8(kind), state.kind),
        cards=jnp.where(at[:, None], cards[None, :], state.cards),
        recruit=state.recruit if recruit is None else jnp.where(at, jnp.int8(recruit), state.recruit),
    )


def _card_set(cards: jax.Array) -> jax.Array:
    """A bool[52] set of the cards of an array (entries -1 ignored)."""
    # A scatter of the few cards: comparing them with each of the 52 cards, XLA on the CPU ran
    # the comparison (and the selects that produced the cards) 52 times per game, unvectorized.
    cards = cards.reshape(-1).astype(jnp.int32)
    return jnp.zeros(NUM_CARDS, dtype=jnp.bool_).at[jnp.where(cards >= 0, cards, NUM_CARDS)].set(True, mode="drop")


def make_step(config: SoloConfig):
    """The twin of ``rules.apply_action`` for one config (its flags are static)."""
    merge_in_battle = bool(config.merge_in_battle)
    limit = int(config.length_limit)
    scale = float(config.shaping)
    values = tuple(scale * value for value in config.shaping_values)
    cap = float(config.shaping_cap)

    def shaping(state: State, formed: int, happens: jax.Array) -> tuple[State, jax.Array]:
        """``rules._shaping``: the payment for forming ``formed``, at most what the cap leaves."""
        if not scale:
            return state, jnp.float32(0.0)
        payment = jnp.maximum(jnp.minimum(values[SHAPING_INDEX[formed]], cap - state.shaping_paid), 0.0)
        payment = jnp.where(happens, payment, 0.0).astype(jnp.float32)
        return state.replace(shaping_paid=state.shaping_paid + payment), payment

    def step(state: State, action: jax.Array, key: jax.Array) -> State:
        """One legal action (``adapters.jax_env`` handles illegal ones and finished states)."""
        action = jnp.asarray(action, dtype=jnp.int32)
        kind_of = jnp.asarray(_ACTION_KIND)[action]
        a = jnp.asarray(_ACTION_A)[action]
        b = jnp.asarray(_ACTION_B)[action]
        at_a, at_b = _one_hot_territory(a), _one_hot_territory(b)
        drawn = state.drawn
        reward = jnp.float32(0.0)
        follow = jnp.int32(NOTHING)
        s = state

        def is_(kind: A.Kind) -> jax.Array:
            return kind_of == int(kind)

        # -- DRAW (rules._do_draw)
        follow = jnp.where(is_(A.Kind.DRAW), DRAW_FOR_TURN, follow)

        # -- MERGE j=a onto keep i=b (rules._do_merge)
        merging = is_(A.Kind.MERGE)
        kind_i = jnp.where(at_b, s.kind, 0).sum()
        cards_i = jnp.where(at_b[:, None], s.cards, 0).sum(axis=0).astype(jnp.int8)
        cards_j = jnp.where(at_a[:, None], s.cards, 0).sum(axis=0).astype(jnp.int8)
        recruit_i = jnp.where(at_b, s.recruit, 0).sum().astype(jnp.int8)
        recruit_j = jnp.where(at_a, s.recruit, 0).sum().astype(jnp.int8)
        two_soldiers = jnp.stack([cards_i[0], cards_j[0], jnp.int8(-1), jnp.int8(-1)])
        two_supers = jnp.stack([cards_i[0], cards_i[1], cards_j[0], cards_j[1]])
        two_natives = jnp.stack([cards_i[0], recruit_i, cards_j[0], recruit_j])
        merged_cards = jnp.where(kind_i == SOLDIER, two_soldiers, jnp.where(kind_i == SUPER, two_supers, two_natives))
        merged_kind = jnp.int8(EMPTY)  # tables.MERGED: what the two units form
        for pair_kind, formed_kind in MERGED.items():
            merged_kind = jnp.where(kind_i == pair_kind, jnp.int8(formed_kind), merged_kind)
        after_merge = s.replace(
            kind=jnp.where(at_b, merged_kind, jnp.where(at_a, EMPTY, s.kind)).astype(jnp.int8),
            cards=jnp.where(at_b[:, None], merged_cards[None, :], jnp.where(at_a[:, None], jnp.int8(-1), s.cards)),
            recruit=jnp.where(at_a | at_b, jnp.int8(-1), s.recruit),
        )
        s = jax.tree_util.tree_map(lambda new, old: jnp.where(merging, new, old), after_merge, s)
        for formed in MERGED.values():
            s, paid = shaping(s, formed, merging & (merged_kind == formed))
            reward = reward + paid
        in_organize = state.phase == ORGANIZE
        follow = jnp.where(merging & in_organize, BEGIN_TURN, follow)

        # -- reactions to the drawn card: PLACE, STACK, RECRUIT, DISCARD, PROMOTE, FOUND
        placing, stacking, recruiting = is_(A.Kind.PLACE), is_(A.Kind.STACK), is_(A.Kind.RECRUIT)
        discarding, promoting, founding = is_(A.Kind.DISCARD), is_(A.Kind.PROMOTE), is_(A.Kind.FOUND)
        stacked = jnp.where(at_a[:, None], s.cards, 0).sum(axis=0).astype(jnp.int8).at[1].set(drawn)
        old_body = jnp.where(at_a[:, None], s.cards, jnp.int8(-1))  # the cards that leave: PROMOTE, FOUND
        s = jax.tree_util.tree_map(
            lambda new, old: jnp.where(placing, new, old), _set_unit(s, at_a, SOLDIER, _single(drawn)), s
        )
        s = jax.tree_util.tree_map(
            lambda new, old: jnp.where(stacking, new, old), _set_unit(s, at_a, SUPER, stacked), s
        )
        s = s.replace(recruit=jnp.where(recruiting & at_a, drawn, s.recruit))
        leaving = (promoting | founding) & _card_set(old_body)
        s = s.replace(discard=s.discard | leaving | (discarding & (jnp.asarray(_CARDS) == drawn)))
        promoted = _set_unit(s, at_a, NATIVE, _single(drawn))
        s = jax.tree_util.tree_map(lambda new, old: jnp.where(promoting, new, old), promoted, s)
        founded = _set_unit(_set_unit(s, at_a, EMPTY, _single(jnp.int8(-1))), at_b, BASE, _single(drawn))
        s = jax.tree_util.tree_map(lambda new, old: jnp.where(founding, new, old), founded, s)
        s, paid = shaping(s, SUPER, stacking)
        reward = reward + paid
        s, paid = shaping(s, NATIVE, promoting)
        reward = reward + paid
        s, paid = shaping(s, BASE, founding)
        reward = reward + paid
        won = founding & ((s.kind == BASE).sum() >= BASES_TO_WIN)
        reacted = placing | stacking | recruiting | discarding | promoting | founding
        follow = jnp.where(reacted & ~won, BEGIN_TURN, follow)

        # -- FIGHT (rules._do_fight)
        fighting = is_(A.Kind.FIGHT)
        s = s.replace(attacker=jnp.where(fighting, drawn, s.attacker))
        follow = jnp.where(fighting, START_ROUND, follow)
        s = s.replace(drawn=jnp.where(reacted | fighting, jnp.int8(-1), s.drawn))

        # -- SUM / SPLIT (rules._do_mode)
        choosing = is_(A.Kind.SUM) | is_(A.Kind.SPLIT)
        s = s.replace(
            mode=jnp.where(is_(A.Kind.SUM), jnp.int8(SUM), jnp.where(is_(A.Kind.SPLIT), jnp.int8(SPLIT), s.mode))
        )
        follow = jnp.where(choosing, MODE_CARD, follow)

        # -- SEND / SEND_RECRUIT (rules._do_send, _win_battle, _lose_round)
        whole, recruit_only = is_(A.Kind.SEND), is_(A.Kind.SEND_RECRUIT)
        sending = whole | recruit_only
        unit_value = jnp.where(at_a, _unit_values(state), 0).sum()
        recruit_card = jnp.where(at_a, state.recruit, 0).sum().astype(jnp.int8)
        value = jnp.where(recruit_only, _card_value(recruit_card), unit_value)
        beats = value >= _target(state)
        leaving = jnp.where(
            whole,
            _card_set(jnp.concatenate([old_body.reshape(-1), jnp.where(at_a, s.recruit, -1)])),
            _card_set(recruit_card[None]),
        )
        s = s.replace(sent=s.sent | (sending & leaving))
        emptied = _set_unit(s, at_a, EMPTY, _single(jnp.int8(-1)), recruit=-1)
        s = jax.tree_util.tree_map(lambda new, old: jnp.where(whole, new, old), emptied, s)
        s = s.replace(recruit=jnp.where(recruit_only & at_a, jnp.int8(-1), s.recruit))
        first_of_split = sending & (state.mode == SPLIT) & (state.split_first_won < 0)
        s = s.replace(split_first_won=jnp.where(first_of_split, beats.astype(jnp.int8), s.split_first_won))
        follow = jnp.where(first_of_split, AWAIT_SEND, follow)
        deciding = sending & ~first_of_split
        battle_won = deciding & beats & ((state.mode != SPLIT) | (state.split_first_won == 1))
        round_lost = deciding & ~battle_won
        cleared = s.replace(
            discard=s.discard | _card_set(s.enemies) | s.sent,
            enemies=jnp.full(O.MAX_ENEMIES, -1, dtype=jnp.int8),
            sent=jnp.zeros(NUM_CARDS, dtype=jnp.bool_),
            mode=jnp.int8(NO_MODE),
            split_first_won=jnp.int8(-1),
        )
        s = jax.tree_util.tree_map(lambda new, old: jnp.where(deciding, new, old), cleared, s)
        s = s.replace(
            discard=s.discard | (battle_won & (jnp.asarray(_CARDS) == state.attacker)),
            attacker=jnp.where(battle_won, jnp.int8(-1), s.attacker),
            rounds_lost=jnp.where(battle_won, 0, s.rounds_lost + round_lost.astype(s.rounds_lost.dtype)),
        )
        follow = jnp.where(battle_won, BEGIN_TURN, jnp.where(round_lost, START_ROUND, follow))

        # -- a won game ends here (rules._finish)
        s = s.replace(
            outcome=jnp.where(won, jnp.int8(WON), s.outcome),
            phase=jnp.where(won, jnp.int8(OVER), s.phase),
        )
        reward = reward + jnp.where(won, WIN_REWARD, 0.0)
        s, finished_reward = _follow_up(s, follow, key, merge_in_battle, limit)
        s = s.replace(rewards=(reward + finished_reward).astype(jnp.float32)[None], step_count=s.step_count + 1)
        return _finish_state(s, merge_in_battle, limit)

    return step


def _follow_up(
    s: State, follow: jax.Array, key: jax.Array, merge_in_battle: bool, limit: int
) -> tuple[State, jax.Array]:
    """What the Python handlers call after an action's own effect (``_begin_turn``,
    ``_draw_for_turn``, ``_start_round``, the second enemy of ``_do_mode``, ``_await_send``);
    each draws at most one card. Returns the state and the loss reward when a unit is due and
    none is left."""
    units = _num_units(s.kind)
    has_merge = _merge_mask(s.kind, s.recruit).any()
    organize = (follow == BEGIN_TURN) & has_merge
    turn_card = (follow == DRAW_FOR_TURN) | ((follow == BEGIN_TURN) & ~has_merge)
    starting = follow == START_ROUND
    rank = s.attacker.astype(jnp.int32) % NUM_RANKS
    no_unit_at_start = starting & (units == 0)
    jack = starting & ~no_unit_at_start & (rank == JACK)
    first_enemy = starting & ~no_unit_at_start & (rank != JACK)
    second_enemy = follow == MODE_CARD
    s = s.replace(phase=jnp.where(organize, jnp.int8(ORGANIZE), jnp.where(jack, jnp.int8(SEND), s.phase)))

    s, card, taken = _take_card(s, turn_card | first_enemy | second_enemy, key, limit)
    got_turn, got_first, got_second = taken & turn_card, taken & first_enemy, taken & second_enemy
    s = s.replace(
        drawn=jnp.where(got_turn, card, s.drawn),
        enemies=s.enemies.at[0]
        .set(jnp.where(got_first, card, s.enemies[0]))
        .at[1]
        .set(jnp.where(got_second, card, s.enemies[1])),
    )
    king = rank == KING
    awaiting = (follow == AWAIT_SEND) | got_second
    no_unit_to_send = awaiting & (units == 0)
    lost = no_unit_at_start | no_unit_to_send
    phase = jnp.where(got_turn, REACT, s.phase)
    phase = jnp.where(got_first, jnp.where(king, KING_MODE, SEND), phase)
    phase = jnp.where(awaiting & ~no_unit_to_send, SEND, phase)
    phase = jnp.where(lost, OVER, phase)
    s = s.replace(phase=phase.astype(jnp.int8), outcome=jnp.where(lost, jnp.int8(LOST), s.outcome))
    return s, jnp.where(lost, LOSS_REWARD, 0.0)


def _finish_state(s: State, merge_in_battle: bool, limit: int) -> State:
    """The derived fields: mask, terminal flags and the observation."""
    over = s.phase == OVER
    s = s.replace(
        legal_action_mask=_legal_mask(s, merge_in_battle) & ~over,
        terminated=(s.outcome == WON) | (s.outcome == LOST),
        truncated=s.outcome == TRUNCATED,
    )
    return s.replace(observation=observe(s, limit))


# --------------------------------------------------------------------------- observation


def _float32(table: tuple[float, ...]) -> jax.Array:
    """A fraction table of ``tables`` (float32 values kept as Python floats) as the float32
    array the observation indexes."""
    return jnp.asarray(table, dtype=jnp.float32)


def observe(state: State, length_limit: int) -> jax.Array:
    """``observe.observe``: the same 207 floats, laid out by ``observe.LAYOUT``."""
    kind = state.kind.astype(jnp.int32)
    cards = state.cards.astype(jnp.int32)
    recruit = state.recruit.astype(jnp.int32)
    occupied = kind != EMPTY
    card_fraction = _float32(CARD_VALUE_FRACTION)
    unit_value = _float32(UNIT_VALUE_FRACTION)[jnp.clip(_unit_values(state), 0, MAX_UNIT_VALUE)]
    single_host = (kind >= NATIVE) & (cards[:, 1] < 0) & occupied
    with_recruit = (kind >= NATIVE) & (recruit >= 0)
    territories = jax.vmap(functools.partial(assemble_observation, O.TERRITORY))(
        {
            "unit kind": kind[:, None] == jnp.arange(NUM_UNIT_KINDS)[None, :],
            "unit value": jnp.where(occupied, jnp.where(kind == BASE, 1.0, unit_value), 0.0),
            "host value": jnp.where(single_host, card_fraction[_card_value(cards[:, 0])], 0.0),
            "has recruit": with_recruit,
            "recruit value": jnp.where(with_recruit, card_fraction[_card_value(recruit)], 0.0),
        }
    )
    drawn = state.drawn.astype(jnp.int32)
    has_drawn = drawn >= 0
    attacker = state.attacker.astype(jnp.int32)
    fighting = attacker >= 0
    enemies = state.enemies.astype(jnp.int32)
    present = (enemies >= 0) & fighting
    enemy_values = jnp.where(present, card_fraction[_card_value(enemies)], 0.0)
    counts = assemble_observation(
        O.COUNTS,
        {
            "deck size": _float32(PILE_FRACTION)[state.deck.sum()],
            "discard size": _float32(PILE_FRACTION)[state.discard.sum()],
            "bases": _float32(BASES_FRACTION)[(state.kind == BASE).sum()],
            "draws": jnp.asarray(quotient_table(length_limit))[state.draws],
        },
    )
    rounds_lost = _float32(ROUNDS_LOST_FRACTION)[jnp.minimum(state.rounds_lost, ROUNDS_LOST_SCALE)]
    return assemble_observation(
        O.LAYOUT,
        {
            **dict(zip(O.TERRITORY_FIELDS, jnp.split(territories.reshape(-1), NUM_TERRITORIES), strict=True)),
            "drawn rank": (drawn % NUM_RANKS == jnp.arange(NUM_RANKS)) & has_drawn,
            "drawn suit": (drawn // NUM_RANKS == jnp.arange(NUM_SUITS)) & has_drawn,
            "phase": state.phase.astype(jnp.int32) == jnp.arange(len(Phase)),
            "attacker": (attacker % NUM_RANKS - JACK == jnp.arange(KING - JACK + 1)) & fighting,
            "enemies": jnp.stack([enemy_values[0], present[0], enemy_values[1], present[1]]),
            "mode": jnp.stack([(state.mode == SUM) & fighting, (state.mode == SPLIT) & fighting]),
            "split stage": fighting & (state.mode == SPLIT) & (state.split_first_won >= 0),
            "rounds lost": jnp.where(fighting, rounds_lost, 0.0),
            "counts": counts,
            "discard cards": state.discard,
            "deck cards": state.deck,
        },
    )


# --------------------------------------------------------------------------- the deal


def make_init(config: SoloConfig):
    merge_in_battle = bool(config.merge_in_battle)
    limit = int(config.length_limit)

    def init(key: jax.Array) -> State:
        """``rules.new_game``: six soldiers found in territories 0..5, then turn one begins.

        Python takes the first six soldiers of a shuffled deck; those are six soldiers drawn
        uniformly in order, and the rest of the deck is in uniformly random order (face cards met
        on the way are shuffled back in), so the twin picks the six and keys the rest."""
        deal_key, deck_key, turn_key = jax.random.split(key, 3)
        soldiers = jnp.asarray(_IS_SOLDIER)
        chosen = []
        for index, pick_key in enumerate(jax.random.split(deal_key, NUM_TERRITORIES)):
            nth = jax.random.randint(pick_key, (), 0, int(_IS_SOLDIER.sum()) - index)
            card = _nth_member(soldiers, nth)
            soldiers = soldiers & (jnp.asarray(_CARDS) != card)
            chosen.append(card)
        territory_cards = jnp.stack(chosen)
        state = State(
            kind=jnp.full(NUM_TERRITORIES, SOLDIER, dtype=jnp.int8),
            cards=jnp.full((NUM_TERRITORIES, MAX_UNIT_CARDS), -1, dtype=jnp.int8).at[:, 0].set(territory_cards),
            recruit=jnp.full(NUM_TERRITORIES, -1, dtype=jnp.int8),
            deck=~_card_set(territory_cards),
            deck_key=_raw_key(deck_key),
            deck_drawn=jnp.int32(0),
            last_draw=jnp.int8(-1),
            discard=jnp.zeros(NUM_CARDS, dtype=jnp.bool_),
            drawn=jnp.int8(-1),
            phase=jnp.int8(ORGANIZE),
            attacker=jnp.int8(-1),
            enemies=jnp.full(O.MAX_ENEMIES, -1, dtype=jnp.int8),
            mode=jnp.int8(NO_MODE),
            split_first_won=jnp.int8(-1),
            sent=jnp.zeros(NUM_CARDS, dtype=jnp.bool_),
            rounds_lost=jnp.int32(0),
            draws=jnp.int32(0),
            outcome=jnp.int8(ONGOING),
            shaping_paid=jnp.float32(0.0),
            **fresh_pgx_fields(O.OBSERVATION_SIZE, A.NUM_ACTIONS),
        )
        state, _ = _follow_up(state, jnp.int32(BEGIN_TURN), turn_key, merge_in_battle, limit)
        return _finish_state(state, merge_in_battle, limit)

    return init


# --------------------------------------------------------------------------- to and from Python


def _order_from(deck_key: np.ndarray, drawn_so_far: int, deck: np.ndarray) -> list[int]:
    """The cards of ``deck`` in the order they will be drawn, top first."""
    remaining = np.asarray(deck, dtype=bool).copy()
    order = []
    for n in range(drawn_so_far, drawn_so_far + int(remaining.sum())):
        card = int(_pick_host(np.asarray(deck_key), n, remaining))
        order.append(card)
        remaining[card] = False
    return order


def python_deck(state: State) -> list[int]:
    """The ``deck`` reset option that makes the Python rules deal the twin's game: the six
    territory soldiers, then the deck in the order the twin draws it (the first turn's card
    included)."""
    soldiers = [int(card) for card in np.asarray(state.cards)[:, 0]]
    drawn = int(state.drawn)
    rest = _order_from(np.asarray(state.deck_key), int(state.deck_drawn), np.asarray(state.deck))
    return soldiers + ([drawn] if drawn >= 0 else []) + rest


def reshuffle_orders(before: State, after: State) -> list[list[int]]:
    """The Python deck (top card last) of the reshuffle one step made, as ``[deck]``, or ``[]``:
    a step reshuffles when it takes a card from an empty deck; the deck it formed is what is
    left of it plus the card taken."""
    if np.asarray(before.deck).any() or int(after.last_draw) < 0:
        return []
    formed = np.asarray(after.deck).copy()
    formed[int(after.last_draw)] = True
    return [_order_from(np.asarray(after.deck_key), 0, formed)[::-1]]


def _card_list(cards: np.ndarray) -> list[int]:
    """A card set as the Python rules' list, in card order."""
    return [int(card) for card in np.flatnonzero(cards)]


def _in_set(cards: list[int]) -> np.ndarray:
    """A Python card list as a bool[52] card set."""
    return np.isin(_CARDS, cards)


def _padded(cards: list[int] | tuple[int, ...], width: int) -> np.ndarray:
    """A card list padded with -1 to ``width``."""
    row = np.full(width, -1, dtype=np.int8)
    row[: len(cards)] = cards
    return row


@functools.cache
def _codec() -> StateCodec:
    """The conversions between ``State`` and ``SoloState``, derived from ``SoloState.FIELDS``:
    only the fields the twin keeps another way are converted here."""
    return state_codec(
        SoloState,
        State,
        jax.eval_shape(make_init(SoloConfig()), jax.random.PRNGKey(0)),
        renamed={"unit_kind": "kind"},
        to_python={
            "unit_cards": lambda state, config: [tuple(int(card) for card in row if card >= 0) for row in state.cards],
            "deck": lambda state, config: _order_from(state.deck_key, int(state.deck_drawn), state.deck)[::-1],
            "discard": lambda state, config: _card_list(state.discard),
            "enemies": lambda state, config: [int(card) for card in state.enemies if card >= 0],
            "sent": lambda state, config: _card_list(state.sent),
            "outcome": lambda state, config: LOST if int(state.outcome) == ILLEGAL else int(state.outcome),
        },
        from_python={
            "cards": lambda python: np.stack([_padded(body, MAX_UNIT_CARDS) for body in python.unit_cards]),
            "deck": lambda python: _in_set(python.deck),
            # a placeholder: a Python deck's order has no key; ``from_python`` sets the caller's
            "deck_key": lambda python: _raw_key(jax.random.PRNGKey(0)),
            "deck_drawn": lambda python: 0,
            "last_draw": lambda python: -1,
            "discard": lambda python: _in_set(python.discard),
            "enemies": lambda python: _padded(python.enemies, O.MAX_ENEMIES),
            "sent": lambda python: _in_set(python.sent),
            "outcome": lambda python: python.outcome,
        },
    )


def from_python(python: SoloState, deck_key: jax.Array) -> State:
    """A twin state of a Python state (tests build edge positions in Python). The twin keeps
    the deck as a set: its order becomes the one ``deck_key`` gives, which ``to_python`` writes
    back, so compare a step of this state with a step of ``to_python(from_python(...))``."""
    config = python.config
    fields = {name: jnp.asarray(array) for name, array in _codec().from_python(python).items()}
    fields["deck_key"] = _raw_key(deck_key)
    state = State(**fields, **fresh_pgx_fields(O.OBSERVATION_SIZE, A.NUM_ACTIONS))
    return _finish_state(state, bool(config.merge_in_battle), int(config.length_limit))


def to_python(state: State, config: SoloConfig | None = None) -> SoloState:
    """The Python rules' state of one twin state (the deck in the twin's draw order; the discard
    pile and the cards sent, sets here, in card order; an illegal action's end as a loss)."""
    return _codec().to_python(state, config if config is not None else SoloConfig())


def rules_for(config: SoloConfig | None = None) -> JaxRules:
    config = config if config is not None else SoloConfig()
    limit = int(config.length_limit)
    from . import GAME  # the package's record (imported late: the package does not import this module)

    return JaxRules(
        game=GAME,
        name=GAME.name,
        config=config,
        num_actions=A.NUM_ACTIONS,
        observation_size=O.OBSERVATION_SIZE,
        init=make_init(config),
        step=make_step(config),
        observe=lambda state, seat: observe(state, limit),  # one seat: seat is always 0
        outcome_names=OUTCOME_NAMES,
        to_python=lambda state: to_python(state, config),
        python_deck=python_deck,
        reshuffle_orders=reshuffle_orders,
    )
