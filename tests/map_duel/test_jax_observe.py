"""The Map Duel twin's observation (``jax_observe.observe``) against the Python rules' ``observe``.

- **Equal, bit for bit, for both seats** (whoever is to act), jitted and vmapped with the seat
  traced, on every state of seeded random games under the five registered Map Duel configs and on
  built positions: each decision phase, the face-down starting face, mid-sacrifice, mid-payment
  (an Ace's and a partly paid Jack's), step 2 with acted faces, and every way a game ends.
- **The state codec round trip** ``to_python(from_python(p)) == p`` on the same states.
- **No leak** (issue 27, point 5), as the Python no-leak tests are written: a seat's twin
  observation is unchanged when what it cannot see is permuted (the undealt part of the deal,
  the other seat's face-down starting face, the opponent's pool under ``hidden_pools``), and each
  check is shown to catch a leak (the same change made visible is detected).

Twin states come from Python states through the codec, ``blank_state(config).replace(**fields)``;
each config's observation is compiled once, for batches of ``CHUNK`` states.
"""

from __future__ import annotations

import dataclasses
import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from empire_envs import registry
from empire_envs.games.map_duel import MapDuelConfig, jax_observe, observe, rules
from empire_envs.games.map_duel.actions import Kind, layout_for
from empire_envs.games.map_duel.jax_state import blank_state, make_codec
from empire_envs.games.map_duel.state import (
    ACE_TYPE,
    DECK,
    FACES_PER_SUIT,
    NUM_NUMBER_CARDS,
    ON_MAP,
    SETUP_PHASES,
    SUITS_PER_SEAT,
    MapDuelState,
    Phase,
    face_code,
    face_index,
)

from .helpers import FORWARD, LEFT, NoCoin, act, build_state, deck_order, fidx, finish_turn, num

#: the registered Map Duel ids and their configs, read from the registry
CONFIGS = {variant.name: MapDuelConfig(**variant.kwargs) for variant in registry.game_entry("map_duel").variants}
#: states per compiled batch (a list of states is padded to a multiple of it)
CHUNK = 256
RANDOM_GAMES = 2


# --------------------------------------------------------------------------- the twin, batched


@functools.cache
def _twin(config: MapDuelConfig):
    """(codec, a batch of ``CHUNK`` blank states, the jitted vmapped observation) of a config."""
    blank = jax.tree.map(lambda leaf: np.broadcast_to(np.asarray(leaf), (CHUNK, *leaf.shape)), blank_state(config))
    batched = jax.jit(jax.vmap(functools.partial(jax_observe.observe, config=config)))
    return make_codec(config), blank, batched


def twin_fields(config: MapDuelConfig, state: MapDuelState) -> dict[str, np.ndarray]:
    return _twin(config)[0].from_python(state)


def twin_views(config: MapDuelConfig, fields: list[dict[str, np.ndarray]], seats: list[int]) -> np.ndarray:
    """``float32[len(fields), observation size]``: the twin observation of each state (given as
    codec fields) for the seat beside it."""
    _, blank, batched = _twin(config)
    count = len(fields)
    padding = -count % CHUNK
    fields, seats = fields + [fields[-1]] * padding, list(seats) + [seats[-1]] * padding
    views = []
    for start in range(0, count + padding, CHUNK):
        chunk = fields[start : start + CHUNK]
        batch = blank.replace(**{name: np.stack([one[name] for one in chunk]) for name in chunk[0]})
        views.append(np.asarray(batched(batch, jnp.asarray(seats[start : start + CHUNK], dtype=jnp.int32))))
    return np.concatenate(views)[:count]


def python_views(states: list[MapDuelState], seats: list[int]) -> np.ndarray:
    return np.stack([observe.observe(state, seat) for state, seat in zip(states, seats, strict=True)])


def assert_views_equal(config: MapDuelConfig, states: list[MapDuelState]) -> None:
    """The twin's and Python's observations of every state, for both seats, are the same bits."""
    pairs = [(state, seat) for state in states for seat in (0, 1)]
    seats = [seat for _, seat in pairs]
    got = twin_views(config, [twin_fields(config, state) for state, _ in pairs], seats)
    expected = python_views([state for state, _ in pairs], seats)
    assert got.dtype == np.float32 and got.shape == expected.shape
    differs = got.view(np.uint32) != expected.view(np.uint32)  # bits: -0.0 is not 0.0 here
    wrong = np.flatnonzero(differs.any(axis=1))
    if wrong.size:
        (state, seat), entries = pairs[wrong[0]], np.flatnonzero(differs[wrong[0]])[:10]
        pytest.fail(
            f"{wrong.size} observations differ; the first: phase {Phase(state.phase).name}, seat {seat}, "
            f"seat to act {state.current}, entries {entries}: twin {got[wrong[0]][entries]}, "
            f"python {expected[wrong[0]][entries]}"
        )


# --------------------------------------------------------------------------- states to compare


def _play_randomly(config: MapDuelConfig, seed: int) -> list[MapDuelState]:
    """Every state of one seeded game of uniformly random legal moves, the finished one too."""
    rng, choose = np.random.default_rng(seed), random.Random(seed).choice
    state = rules.new_game(config, rng)
    states = [state.clone()]
    while not rules.is_terminal(state):
        rules.apply_action(state, choose(rules.legal_actions(state)), rng)
        states.append(state.clone())
    return states


def _script(state: MapDuelState, actions) -> list[MapDuelState]:
    """The state and the state after each action (no coin flipped); an action may be a function
    of the state, giving the action."""
    states = [state.clone()]
    for action in actions:
        act(state, action(state) if callable(action) else action, NoCoin())
        states.append(state.clone())
    return states


def _first_legal(state: MapDuelState) -> int:
    return min(rules.legal_actions(state))


#: number cards of both colours far from the action, so no colour victory is near
FILLER = {(0, 0): "10S", (12, 12): "10H"}


def _built_positions(config: MapDuelConfig) -> dict[str, list[MapDuelState]]:
    """Scripted positions (rulings and scenarios of docs/rules/map_duel.md), each the states
    along its script."""
    L = layout_for(config.board_size)
    pool = rules.pool_action
    positions = {}

    def face_action(card):
        return L.face_index(fidx(card))

    # a sacrifice with a choice of face, then its moves (seat 0, then seat 1)
    board = {**FILLER, (6, 6): "QH", (5, 6): "4C", (4, 6): "5S", (3, 6): "6C", (2, 6): "7S", (10, 10): "KD",
             (0, 9): "KC", (8, 8): "KH"}  # fmt: skip
    state = build_state(config, board=board, pools={0: ["3H"]}, current=0)
    sacrifice = [lambda s: pool(s, num("3H")), face_action("QH"), L.move_index(FORWARD), L.index(Kind.STOP)]
    positions["sacrifice by seat 0"] = _script(state, sacrifice)
    board = {**FILLER, (6, 6): "QS", (7, 6): "4D", (8, 6): "5H", (9, 6): "6D", (10, 6): "7H", (2, 2): "KC",
             (12, 3): "KD", (4, 4): "KS"}  # fmt: skip
    state = build_state(config, board=board, pools={1: ["3S"]}, current=1)
    positions["sacrifice by seat 1"] = _script(
        state, [lambda s: pool(s, num("3S")), face_action("QS"), L.move_index(FORWARD), L.move_index(FORWARD)]
    )
    # payments: an Ace's two primes, a Jack's 7 paid in two cards (seat 0, then seat 1)
    for seat, king, enemy_king, ace, jack, ace_pool, jack_pool in (
        (0, "KD", "KC", "AD", "JH", ["2C", "9S", "5C"], ["6C", "4S", "3C", "5D"]),
        (1, "KC", "KD", "AC", "JS", ["2D", "9H", "5D"], ["6D", "4H", "3D", "5S"]),
    ):
        board = {**FILLER, (6, 6): king, (0 if seat == 0 else 12, 6): enemy_king}
        for name, face, cards, payments in (("Ace", ace, ace_pool, [5, 2]), ("Jack", jack, jack_pool, [4, 3])):
            state = build_state(config, board=board, pools={seat: cards}, current=seat)
            states = _script(state, [face_action(face), _first_legal])
            assert state.phase == Phase.PLACE_PAY
            paid_cards = [card for card in cards if int(card[:-1]) in payments]
            by_rank = sorted(paid_cards, key=lambda card: -int(card[:-1]))
            states += _script(state, [lambda s, card=card: pool(s, num(card)) for card in by_rank])[1:]
            assert state.phase == Phase.STEP_2
            positions[f"paying for a {name} by seat {seat}"] = states
    # step 2: a King consumes, a Jack builds with the consumed card (acted faces, BUILD_CARD)
    board = {**FILLER, (6, 6): "KD", (5, 6): "5C", (5, 7): "JD", (0, 6): "KC", (3, 3): "9H"}
    state = build_state(config, phase=Phase.STEP_2, board=board, current=0)
    consume_and_build = [L.consume_index(fidx("KD"), FORWARD), L.build_index(fidx("JD"), LEFT)]
    positions["consume then build"] = _script(state, [*consume_and_build, lambda s: pool(s, num("5C"))])
    # every way a game ends
    board = {(5, 6): "5C", (6, 6): "KD", (3, 3): "2D", (3, 4): "3H", (9, 9): "4D", (10, 10): "JD", (10, 11): "6H",
             (0, 6): "JC"}  # fmt: skip
    state = build_state(config, phase=Phase.STEP_2, board=board, current=0)
    positions["colour victory"] = _script(state, [L.consume_index(fidx("KD"), FORWARD)])
    state = build_state(config, phase=Phase.STEP_2, board={**FILLER, (6, 6): "JD", (5, 6): "KC"},
                        pools={1: ["4S", "5C", "8H"]}, current=0)  # fmt: skip
    positions["loss as aggressor"] = _script(state, [L.confront_index(fidx("JD"), fidx("KC"))])
    board = {(6, 6): "JD", (5, 6): "KC", (9, 9): "4D", (9, 10): "5H"}
    state = build_state(config, phase=Phase.STEP_2, board=board, pools={1: ["9C"]}, current=0)
    positions["win and loss at once"] = _script(state, [L.confront_index(fidx("JD"), fidx("KC"))])
    idle = {(6, 6): "KD", (5, 6): "5C", (2, 2): "KC", (3, 2): "4D", (9, 9): "9H", (1, 10): "9S"}
    for name, outcome, kwargs in (
        ("no progress", "draw", {"no_progress": config.no_progress_turns - 1, "turn": 5}),
        ("length limit", "truncated", {"turn": config.length_limit}),
    ):
        state = build_state(config, board=idle, current=1, **kwargs)
        finish_turn(state)
        assert rules.outcome_name(state) == outcome
        positions[name] = [state]
    return positions


def _setup_with_hidden_face(config: MapDuelConfig, owner: int) -> MapDuelState:
    """The setup of a fixed deal, ``owner`` the first player (what ``first_player=owner`` deals),
    the number cards placed (first legal cell each), then ``owner``'s Jack of its lower suit
    placed face down: the other seat is to choose its face."""
    state = rules.new_game(config, np.random.default_rng(0), deck=deck_order(["9D", "4C", "7S"]))
    state.first = state.current = owner
    while state.phase == Phase.SETUP_PLACE:
        act(state, _first_legal(state))
    act(state, layout_for(config.board_size).face_index(face_index(0, 0)))
    act(state, _first_legal(state))
    assert state.hidden_face == (owner, face_index(0, 0)) and state.current == 1 - owner
    return state


@functools.cache
def states_of(name: str) -> dict[str, list[MapDuelState]]:
    """The states compared under one registered config, by source."""
    config = CONFIGS[name]
    sources = {f"random game {seed}": _play_randomly(config, seed) for seed in range(RANDOM_GAMES)}
    sources.update(_built_positions(config))
    for owner in (0, 1):
        state = _setup_with_hidden_face(config, owner)
        sources[f"face down by seat {owner}"] = _script(state, [_first_legal, _first_legal])
    return sources


def _all_states(name: str) -> list[MapDuelState]:
    return [state for states in states_of(name).values() for state in states]


# --------------------------------------------------------------------------- equal to Python


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_twin_observation_equals_python_for_both_seats(name):
    config = CONFIGS[name]
    states = _all_states(name)
    assert_views_equal(config, states)
    # what the states cover: each seat to act in each decision phase, finished games, ...
    covered = {(Phase(state.phase), state.current) for state in states}
    missing = [(phase.name, seat) for phase in Phase if phase != Phase.OVER for seat in (0, 1)
               if (phase, seat) not in covered]  # fmt: skip
    assert not missing
    facts = {
        "face down": any(state.hidden_face is not None for state in states),
        "acted faces, each seat": {s.current for s in states if s.acted and s.phase == Phase.STEP_2} == {0, 1},
        "paying for an Ace": any(s.pay_target == rules.ACE_PAYMENT and s.paid for s in states),
        "part of a sum paid": any(s.pay_target > 0 and s.paid and s.phase == Phase.PLACE_PAY for s in states),
        "sacrifice moves left": any(s.phase == Phase.SACRIFICE_MOVE and s.moves_left > 0 for s in states),
        "each result": {rules.outcome_name(s) for s in states}
        == {"ongoing", "won by player_0", "won by player_1", "draw", "truncated"},
        "the last turn": any(s.turn == config.length_limit for s in states),
        "the last idle turn": any(s.no_progress == config.no_progress_turns for s in states),
    }
    assert all(facts.values()), [fact for fact, seen in facts.items() if not seen]


def test_observe_with_a_python_int_seat():
    """``observe`` also takes a plain int seat (what ``JaxRules.observe`` may be handed)."""
    config = CONFIGS["MapDuel-v0"]
    state = states_of("MapDuel-v0")["paying for a Jack by seat 1"][2]
    twin = blank_state(config).replace(**twin_fields(config, state))
    observe_static = jax.jit(jax_observe.observe, static_argnames=("seat", "config"))
    for seat in (0, 1):
        np.testing.assert_array_equal(np.asarray(observe_static(twin, seat, config)), observe.observe(state, seat))


# --------------------------------------------------------------------------- the codec


def _comparable(state: MapDuelState) -> dict:
    copy = state.clone()
    fields = {name: getattr(copy, name) for name in MapDuelState.FIELDS}
    fields["paid"] = set(fields["paid"])  # the twin keeps the set of cards paid
    return fields


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_codec_round_trip(name):
    config = CONFIGS[name]
    codec, _, _ = _twin(config)
    blank = blank_state(config)
    for state in _all_states(name):
        back = codec.to_python(blank.replace(**codec.from_python(state)), config)
        assert _comparable(back) == _comparable(state), Phase(state.phase).name


# --------------------------------------------------------------------------- no leak


def unchanged_for(config: MapDuelConfig, seat: int, base: MapDuelState, variants: list[MapDuelState]) -> bool:
    """Whether ``seat``'s twin observation of every variant is that of ``base``."""
    fields = [twin_fields(config, state) for state in [base, *variants]]
    views = twin_views(config, fields, [seat] * len(fields))
    return bool((views == views[0]).all())


def _setup_states(config: MapDuelConfig) -> list[MapDuelState]:
    """States of a fixed deal with 34, 21 and 2 cards still undealt, each seat to act."""
    state = rules.new_game(config, np.random.default_rng(0), deck=deck_order(["9D", "4C", "7S"]))
    states = []
    while state.phase == Phase.SETUP_PLACE:
        if len(state.setup_deck) in (34, 21, 2):
            states.append(state.clone())
        act(state, _first_legal(state))
    assert len(states) == 3 and {s.current for s in states} == {0, 1}
    return states


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_undealt_deal_order_is_not_observed(name):
    """Permuting ``deck_order[deck_drawn:]`` of the twin (Python's setup deck) changes neither
    seat's observation; the same permutation reaching the drawn card (which both see) does."""
    config = CONFIGS[name]
    for state in _setup_states(config):
        base = twin_fields(config, state)
        drawn = int(base["deck_drawn"])
        rng = np.random.default_rng(drawn)
        shuffled = []
        for _ in range(8):
            fields = dict(base, deck_order=base["deck_order"].copy())
            fields["deck_order"][drawn:] = rng.permutation(fields["deck_order"][drawn:])
            shuffled.append(fields)
        assert any((fields["deck_order"] != base["deck_order"]).any() for fields in shuffled)
        reached = dict(base, deck_order=base["deck_order"].copy())  # the drawn card swapped in
        reached["drawn"], reached["deck_order"][drawn] = base["deck_order"][drawn], base["drawn"]
        for seat in (0, 1):
            views = twin_views(config, [base, *shuffled, reached], [seat] * 10)
            assert (views[1:-1] == views[0]).all(), f"the undealt order leaks to seat {seat}"
            assert not (views[-1] == views[0]).all(), "a visible change would be caught"


def _with_face_down(state: MapDuelState, face: int) -> MapDuelState:
    """The state with the face-down starting card another J, Q or K of its owner, on the same
    cell (what ``rules.determinize`` samples for the other seat)."""
    copy = state.clone()
    owner, down = state.hidden_face
    cell = state.face_pos[owner][down]
    copy.face_status[owner][down], copy.face_pos[owner][down] = DECK, -1
    copy.face_status[owner][face], copy.face_pos[owner][face] = ON_MAP, cell
    copy.board[cell] = face_code(owner, face)
    copy.hidden_face = (owner, face)
    return copy


#: the faces a starting card may be: a Jack, Queen or King of either own suit
STARTING_FACES = [
    face_index(suit, kind) for suit in range(SUITS_PER_SEAT) for kind in range(FACES_PER_SUIT) if kind != ACE_TYPE
]


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("owner", [0, 1])
def test_the_face_down_starting_card_is_not_observed(name, owner):
    """Which J, Q or K lies face down does not change the other seat's observation, while it
    chooses its face and while it places it; its owner, who knows it, sees every swap, and so
    would the other seat were the card not face down."""
    config = CONFIGS[name]
    state = _setup_with_hidden_face(config, owner)
    other = 1 - owner
    for step in range(2):
        swapped = [_with_face_down(state, face) for face in STARTING_FACES if face != state.hidden_face[1]]
        swapped += [rules.determinize(state, other, np.random.default_rng(seed)) for seed in range(4)]
        assert unchanged_for(config, other, state, swapped), f"the face-down card leaks to seat {other}"
        assert not unchanged_for(config, owner, state, swapped[:1]), "the owner sees its card"
        shown = [copy.clone() for copy in (state, swapped[0])]
        for copy in shown:
            copy.hidden_face = None
        assert not unchanged_for(config, other, shown[0], shown[1:]), "a face-up card would be caught"
        if step == 0:
            act(state, _first_legal(state))  # the other seat chooses its face: now it places it
            assert state.phase == Phase.SETUP_FACE_CELL and state.hidden_face is not None


def _with_pool_swapped(state: MapDuelState, owner: int, rng: np.random.Generator) -> MapDuelState:
    """The state with ``owner``'s pool another set of cards of the same size, drawn from its pool
    and the removed cards (the cards of this step's payment kept out)."""
    copy = state.clone()
    hidden = [n for n in range(NUM_NUMBER_CARDS) if state.pools[owner][n] or state.removed_numbers[n]]
    hidden = [n for n in hidden if n not in state.paid]
    size = sum(state.pools[owner][n] for n in hidden)
    chosen = set(rng.choice(hidden, size=size, replace=False).tolist())
    for n in hidden:
        copy.pools[owner][n], copy.removed_numbers[n] = int(n in chosen), int(n not in chosen)
    assert copy.card_count() == state.card_count() and sum(copy.pools[owner]) == sum(state.pools[owner])
    return copy


def _pool_positions(name: str) -> list[MapDuelState]:
    """Built positions with both pools filled (each seat to act), and about 40 states of a random
    game, pools not empty."""
    board = {**FILLER, (6, 6): "KD", (5, 6): "5C", (2, 2): "KC", (3, 2): "4D", (9, 9): "QH", (1, 10): "9S"}
    pools = {0: ["2C", "7S", "3D", "8H"], 1: ["6D", "9H", "2S", "4C", "10C"]}
    built = [build_state(CONFIGS[name], board=board, pools=pools, current=seat) for seat in (0, 1)]
    played = [s for s in states_of(name)["random game 0"] if s.phase not in SETUP_PHASES and any(map(any, s.pools))]
    return built + played[:: max(1, len(played) // 40)]


@pytest.mark.parametrize("seat", [0, 1])
def test_the_opponent_pool_is_not_observed_under_hidden_pools(seat):
    """Under ``hidden_pools`` the opponent's pool contents (its size kept) change nothing a seat
    sees; without it, or for the seat's own pool, the same swaps are seen."""
    hidden = CONFIGS["MapDuelHiddenPools-v0"]
    shown = dataclasses.replace(hidden, hidden_pools=False)
    rng = np.random.default_rng(seat)
    checked = 0
    for state in _pool_positions("MapDuelHiddenPools-v0"):
        swapped = [_with_pool_swapped(state, 1 - seat, rng) for _ in range(4)]
        if all(copy.pools == state.pools for copy in swapped):
            continue  # nothing to hide: every hidden card is in the pool
        checked += 1
        assert unchanged_for(hidden, seat, state, swapped), f"the opponent's pool leaks to seat {seat}"
        assert not unchanged_for(shown, seat, state, swapped), "a shown pool would be caught"
        own = [_with_pool_swapped(state, seat, rng) for _ in range(4)]
        if any(copy.pools != state.pools for copy in own):
            assert not unchanged_for(hidden, seat, state, own), "a seat sees its own pool"
    assert checked >= 20
