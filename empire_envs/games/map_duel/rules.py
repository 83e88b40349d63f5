"""Map Duel rules as pure functions over a ``MapDuelState``: setup, legal actions, apply,
confrontations, the end of the game, determinize. Randomness enters only through ``rng`` (the
setup deck, a random first player, coin flips). Section numbers refer to
``docs/rules/map_duel.md`` (they follow the rulings).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from operator import mul
from typing import cast

import numpy as np

from ...core.cards import CLUBS, DIAMONDS, HEARTS, NUM_SUITS, SPADES
from ...core.compat import deprecated
from ...core.errors import IllegalActionError
from ...core.options import index_list_option
from ...core.phases import PhaseRules, phase_table
from .actions import NUM_DIRECTIONS, ActionLayout, Kind, layout_for
from .config import MapDuelConfig
from .state import (
    ACE_FACES,
    ACE_TYPE,
    CARD_AT_SLOT,
    CARD_SLOT,
    DECK,
    DRAW,
    EMPTY,
    FACE_BASE,
    JACK_TYPE,
    KING_TYPE,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    NUMBER_RANKS,
    NUMBERS_PER_SUIT,
    ON_MAP,
    ONGOING,
    PRIME_RANKS,
    QUEEN_TYPE,
    REMOVED,
    SEAT_SUITS,
    SUITS_PER_SEAT,
    TRUNCATED,
    WON,
    MapDuelState,
    Phase,
    face_code,
    face_index,
    face_suit,
    face_type,
    is_red_suit,
    number_rank,
    number_suit,
    numbers_of_suit,
)

#: absolute (row, col) step of each egocentric direction (forward, right, back, left), per seat:
#: ``player_0`` faces north from the south edge, ``player_1`` south from the north edge (10-12)
DIRECTIONS = (
    ((-1, 0), (0, 1), (1, 0), (0, -1)),
    ((1, 0), (0, -1), (-1, 0), (0, 1)),
)
ORTHOGONAL = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
#: what a placed J, Q, K costs (section 26); an Ace costs two primes
FACE_COST = {JACK_TYPE: 7, QUEEN_TYPE: 8, KING_TYPE: 9}
ACE_PAYMENT = -1
_NUMBER_IDS = frozenset(range(NUM_NUMBER_CARDS))
_RED_IDS = frozenset(n for n in range(NUM_NUMBER_CARDS) if is_red_suit(number_suit(n)))


def layout(state: MapDuelState) -> ActionLayout:
    return layout_for(state.B)


# --------------------------------------------------------------------------- geometry


def to_ego(state: MapDuelState, seat: int, cell: int) -> int:
    """A seat's own index of an absolute cell (``player_1`` sees the board turned 180 degrees)."""
    return cell if seat == 0 else state.B * state.B - 1 - cell


def from_ego(state: MapDuelState, seat: int, ego_cell: int) -> int:
    return to_ego(state, seat, ego_cell)  # the rotation is its own inverse


@cache
def _offset_cells(board_size: int) -> dict[tuple[int, int], tuple[int, ...]]:
    """For each unit offset ``(dr, dc)`` (orthogonal or diagonal), the cell it reaches from every
    cell (-1 off the board): geometry computed once per board size."""
    table = {}
    for dr, dc in ORTHOGONAL + DIAGONAL:
        reached = []
        for cell in range(board_size * board_size):
            row, col = divmod(cell, board_size)
            row, col = row + dr, col + dc
            reached.append(row * board_size + col if 0 <= row < board_size and 0 <= col < board_size else -1)
        table[(dr, dc)] = tuple(reached)
    return table


class Geometry:
    """Per board size, the cell tables the legality checks walk (built once, then read):
    ``neighbours[seat][cell]`` the cells in the seat's four egocentric directions (-1 off the
    board), ``orthogonal[cell]`` / ``diagonal[cell]`` the absolute unit neighbours, and
    ``diagonal_rays[cell]`` the cells along each diagonal, nearest first."""

    def __init__(self, board_size: int) -> None:
        offsets = _offset_cells(board_size)
        cells = range(board_size * board_size)
        self.neighbours = tuple(
            tuple(tuple(offsets[DIRECTIONS[seat][d]][c] for d in range(NUM_DIRECTIONS)) for c in cells)
            for seat in range(2)
        )
        self.orthogonal = tuple(tuple(offsets[v][c] for v in ORTHOGONAL) for c in cells)
        self.diagonal = tuple(tuple(offsets[v][c] for v in DIAGONAL) for c in cells)
        rays = []
        for c in cells:
            per_cell = []
            for v in DIAGONAL:
                ray, other = [], offsets[v][c]
                while other >= 0:
                    ray.append(other)
                    other = offsets[v][other]
                per_cell.append(tuple(ray))
            rays.append(tuple(per_cell))
        self.diagonal_rays = tuple(rays)


@cache
def geometry(board_size: int) -> Geometry:
    return Geometry(board_size)


def offset_cell(state: MapDuelState, cell: int, dr: int, dc: int) -> int:
    """The cell at the unit offset ``(dr, dc)`` from ``cell`` (absolute rows and columns), or -1
    off the board."""
    return _offset_cells(state.B)[(dr, dc)][cell]


def neighbour(state: MapDuelState, seat: int, cell: int, direction: int) -> int:
    return geometry(state.B).neighbours[seat][cell][direction]


def is_number(code: int) -> bool:
    return 0 <= code < NUM_NUMBER_CARDS


def is_face(code: int) -> bool:
    return code >= FACE_BASE


def seat_colour_is_red(seat: int) -> bool:
    return seat == 0


def is_own_colour(seat: int, n: int) -> bool:
    return is_red_suit(number_suit(n)) == seat_colour_is_red(seat)


def pool_action(state: MapDuelState, n: int) -> int:
    """The POOL action index by which the acting seat names its number card ``n``."""
    return layout(state).pool + CARD_SLOT[state.current][n]


# --------------------------------------------------------------------------- setup


def new_game(config: MapDuelConfig, rng: np.random.Generator, *, deck: Sequence[int] | None = None) -> MapDuelState:
    """Shuffle the 36 number cards (or take ``deck``, in draw order), put the first on the
    centre cell, and draw the card the first placer must place (sections 13, 14)."""
    state = MapDuelState(config)
    if deck is None:
        order = [int(n) for n in rng.permutation(NUM_NUMBER_CARDS)]
    else:
        order = index_list_option("deck", deck, NUM_NUMBER_CARDS)
        if sorted(order) != list(range(NUM_NUMBER_CARDS)):
            raise ValueError(
                f"reset option 'deck' (a stacked Map Duel deck) lists each of the {NUM_NUMBER_CARDS} number ids "
                f"0..{NUM_NUMBER_CARDS - 1} once, got {len(order)} ids with {len(order) - len(set(order))} repeats"
            )
    first = int(rng.integers(2)) if config.first_player == "random" else int(config.first_player)
    centre = (state.B // 2) * state.B + state.B // 2
    state.board[centre] = order[0]
    state.setup_deck = order[1:][::-1]  # top card last
    state.drawn = state.setup_deck.pop()
    state.first = first
    state.current = first
    state.phase = Phase.SETUP_PLACE
    return state


def _placement_ok(state: MapDuelState, card: int, cell: int, rule: str) -> bool:
    """Section 15: even cards want the same colour beside them and the opposite colour above or
    below; odd cards the reverse. At least one neighbouring number card is required."""
    board = state.board
    even = number_rank(card) % 2 == 0
    red = card in _RED_IDS
    seen = satisfied = 0
    for direction, other in enumerate(geometry(state.B).orthogonal[cell]):
        if other < 0 or not 0 <= board[other] < NUM_NUMBER_CARDS:
            continue
        seen += 1
        same_colour = (board[other] in _RED_IDS) == red
        horizontal = direction % 2 == 1  # ORTHOGONAL is north, east, south, west
        if same_colour == (horizontal == even):
            satisfied += 1
        elif rule == "all_neighbours":
            return False
    if not seen:
        return False
    return satisfied == seen if rule == "all_neighbours" else satisfied > 0


def _frontier(state: MapDuelState) -> list[int]:
    """Empty cells orthogonally next to a card of the map, ascending."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    cells: set[int] = set()
    for cell, code in enumerate(board):
        if code != EMPTY:
            cells.update(other for other in orthogonal[cell] if other >= 0 and board[other] == EMPTY)
    return sorted(cells)


def setup_cells(state: MapDuelState, card: int) -> list[int]:
    """Absolute cells where the drawn card may go: the rule of the config, else the relaxed
    rule, else any empty cell touching the map (section 16)."""
    empty = _frontier(state)
    for rule in (state.config.placement_rule, "any_neighbour"):
        cells = [c for c in empty if _placement_ok(state, card, c, rule)]
        if cells:
            return cells
    return empty


def starting_face_cells(state: MapDuelState) -> list[int]:
    """Empty cells orthogonally next to a number card (section 17)."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    return [
        cell
        for cell, code in enumerate(board)
        if code == EMPTY and any(other >= 0 and 0 <= board[other] < NUM_NUMBER_CARDS for other in orthogonal[cell])
    ]


# --------------------------------------------------------------------------- step 1 helpers


def faces_on_map(state: MapDuelState, seat: int) -> list[int]:
    return [f for f in range(NUM_FACES) if state.face_status[seat][f] == ON_MAP]


def _opposite_pool(state: MapDuelState, seat: int) -> list[int]:
    """The seat's pool cards of the opponent's colour (what it pays new faces with)."""
    pool = state.pools[seat]
    return [n for suit in SEAT_SUITS[1 - seat] for n in numbers_of_suit(suit) if pool[n]]


def _subset_sums(ranks: Sequence[int], limit: int) -> set[int]:
    sums = {0}
    for rank in ranks:
        sums |= {s + rank for s in sums if s + rank <= limit}
    return sums


def _affordable(state: MapDuelState, seat: int) -> tuple[set[int], int]:
    """What the seat's opposite-colour pool can pay: the exact sums up to 9 it can make, and how
    many prime ranks it holds."""
    ranks = [number_rank(n) for n in _opposite_pool(state, seat)]
    return _subset_sums(ranks, FACE_COST[KING_TYPE]), sum(1 for rank in ranks if rank in PRIME_RANKS)


def _affords(kind: int, sums: set[int], primes: int) -> bool:
    return primes >= 2 if kind == ACE_TYPE else FACE_COST[kind] in sums


def can_afford(state: MapDuelState, seat: int, face: int) -> bool:
    """Section 26: J/Q/K cost opposite-colour cards summing to exactly 7/8/9; an Ace two primes."""
    return _affords(face_type(face), *_affordable(state, seat))


def placement_cells(state: MapDuelState, seat: int) -> list[int]:
    """Empty cells orthogonally next to one of the seat's faces on the map (section 27)."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    cells: set[int] = set()
    for f in faces_on_map(state, seat):
        cells.update(other for other in orthogonal[state.face_pos[seat][f]] if other >= 0 and board[other] == EMPTY)
    return sorted(cells)


def _has_placement_cell(state: MapDuelState, seat: int) -> bool:
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    status, pos = state.face_status[seat], state.face_pos[seat]
    return any(
        other >= 0 and board[other] == EMPTY
        for f in range(NUM_FACES)
        if status[f] == ON_MAP
        for other in orthogonal[pos[f]]
    )


def sacrifice_faces(state: MapDuelState, seat: int, n: int) -> list[int]:
    suit = number_suit(n)
    return [f for f in faces_on_map(state, seat) if face_suit(seat, f) == suit]


def can_pay(state: MapDuelState, seat: int, n: int) -> bool:
    """Section 26 and the PLACE_PAY mask: the card keeps an exact payment reachable."""
    if not state.pools[seat][n] or is_own_colour(seat, n):
        return False
    rank = number_rank(n)
    if state.pay_target == ACE_PAYMENT:
        return rank in PRIME_RANKS
    remaining = state.pay_target - sum(number_rank(m) for m in state.paid) - rank
    if remaining < 0:
        return False
    others = [number_rank(m) for m in _opposite_pool(state, seat) if m != n]
    return remaining in _subset_sums(others, remaining)


def _sac_moves(state: MapDuelState, seat: int) -> list[int]:
    board = state.board
    neighbours = geometry(state.B).neighbours[seat][state.face_pos[seat][state.pending_face]]
    return [d for d, other in enumerate(neighbours) if other >= 0 and 0 <= board[other] < NUM_NUMBER_CARDS]


# --------------------------------------------------------------------------- confrontations


def confront_targets(state: MapDuelState, seat: int, face: int) -> list[int]:
    """Enemy faces within reach of ``face`` (section 32), as enemy face indices, ascending."""
    geo = geometry(state.B)
    board = state.board
    cell = state.face_pos[seat][face]
    low = FACE_BASE + NUM_FACES * (1 - seat)
    high = low + NUM_FACES
    kind = face_type(face)
    if kind == ACE_TYPE:
        blocking = state.config.ace_blocking
        targets = []
        for ray in geo.diagonal_rays[cell]:
            for other in ray:
                code = board[other]
                if low <= code < high:
                    targets.append(code - low)
                if (blocking == "cards" and code != EMPTY) or (blocking == "faces" and code >= FACE_BASE):
                    break
        return sorted(targets)
    if kind == JACK_TYPE:
        cells: Sequence[int] = geo.neighbours[seat][cell][:1]
    elif kind == QUEEN_TYPE:
        cells = geo.neighbours[seat][cell][1::2]
    else:
        cells = geo.orthogonal[cell] + (geo.diagonal[cell] if state.config.king_reach == "all8" else ())
    return sorted(board[c] - low for c in cells if c >= 0 and low <= board[c] < high)


_RANKS_OF_A_SUIT = tuple(NUMBER_RANKS)


def suit_totals(pool: Sequence[int]) -> list[int]:
    """The sum of the ranks of a pool's cards, per suit."""
    return [
        sum(map(mul, pool[NUMBERS_PER_SUIT * suit : NUMBERS_PER_SUIT * (suit + 1)], _RANKS_OF_A_SUIT))
        for suit in range(NUM_SUITS)
    ]


def face_value(state: MapDuelState, seat: int, face: int, totals: Sequence[int] | None = None) -> int:
    """Section 35(d): J = 5; K = the ranks of the seat's own-colour pool cards; Q = the ranks of
    the pool cards of the Queen's suit (``totals``: the pool's ``suit_totals``, if at hand)."""
    kind = face_type(face)
    if kind == JACK_TYPE:
        return 5
    if totals is None:
        totals = suit_totals(state.pools[seat])
    if kind == KING_TYPE:
        low, high = SEAT_SUITS[seat]
        return totals[low] + totals[high]
    return totals[face_suit(seat, face)]


def _coin(state: MapDuelState, rng: np.random.Generator) -> bool:
    state.coin_flips += 1
    return bool(rng.random() < 0.5)


def _jack_is_low(config: MapDuelConfig, attacker_suit: int, defender_suit: int) -> bool:
    if config.jack_suit_rule == "major_minor":
        return attacker_suit in (CLUBS, DIAMONDS) and defender_suit in (HEARTS, SPADES)
    return config.suit_order == "CDHS" and attacker_suit < defender_suit


def resolve(state: MapDuelState, seat: int, face: int, enemy_face: int, rng: np.random.Generator) -> int:
    """Section 35: who loses a confrontation: 1 the defender, -1 the attacker, 0 nobody."""
    config = state.config
    enemy = 1 - seat
    kind, other = face_type(face), face_type(enemy_face)
    a_suit, d_suit = face_suit(seat, face), face_suit(enemy, enemy_face)
    if kind == ACE_TYPE:
        if other == ACE_TYPE and config.ace_vs_ace == "aggressor_wins":
            return 1
        return 1 if _coin(state, rng) else 0
    if other == ACE_TYPE:
        return 1
    if kind == JACK_TYPE and other == JACK_TYPE:
        if _jack_is_low(config, a_suit, d_suit):
            return 1 if _coin(state, rng) else -1
        return 1
    mine, theirs = face_value(state, seat, face), face_value(state, enemy, enemy_face)
    if mine != theirs:
        return 1 if mine > theirs else -1
    if config.suit_order == "CDHS":
        return 1 if a_suit > d_suit else -1
    return 1 if _coin(state, rng) else -1


def confront_odds(state: MapDuelState, seat: int, face: int, enemy_face: int) -> tuple[float, float]:
    """(probability the defender is removed, probability the attacker is removed) of a
    confrontation, by the rules of ``resolve`` with each coin counted as 1/2."""
    config = state.config
    enemy = 1 - seat
    kind, other = face_type(face), face_type(enemy_face)
    a_suit, d_suit = face_suit(seat, face), face_suit(enemy, enemy_face)
    if kind == ACE_TYPE:
        return (1.0, 0.0) if other == ACE_TYPE and config.ace_vs_ace == "aggressor_wins" else (0.5, 0.0)
    if other == ACE_TYPE:
        return 1.0, 0.0
    if kind == JACK_TYPE and other == JACK_TYPE:
        return (0.5, 0.5) if _jack_is_low(config, a_suit, d_suit) else (1.0, 0.0)
    mine, theirs = face_value(state, seat, face), face_value(state, enemy, enemy_face)
    if mine != theirs:
        return (1.0, 0.0) if mine > theirs else (0.0, 1.0)
    if config.suit_order == "CDHS":
        return (1.0, 0.0) if a_suit > d_suit else (0.0, 1.0)
    return 0.5, 0.5


def _remove_face(state: MapDuelState, seat: int, face: int) -> None:
    state.board[state.face_pos[seat][face]] = EMPTY
    state.face_pos[seat][face] = -1
    state.face_status[seat][face] = REMOVED


# --------------------------------------------------------------------------- the phases
#
# Each phase below has its legal actions (ascending, in the acting seat's frame), optionally a
# check of one action that needs no list, and its effect; ``PHASES`` collects them. Every
# decision phase is the turn of ``state.current``; the effect is called only with a legal action.


def _acting_seat(state: MapDuelState) -> int:
    return state.current


def _nobody(state: MapDuelState) -> int:
    return -1


def _ego_cells(state: MapDuelState, cells: list[int]) -> list[int]:
    """CELL actions of absolute ``cells`` for the acting seat (the CELL block starts at 0)."""
    if state.current == 0:
        return cells  # the cell lists are ascending already
    last = state.B * state.B - 1
    return sorted(last - cell for cell in cells)


def _chosen_cell(state: MapDuelState, action: int) -> int:
    """The absolute cell a CELL action of the acting seat names."""
    return from_ego(state, state.current, layout(state).decode(action).a)


def _chosen_card(state: MapDuelState, action: int) -> int:
    """The number card a POOL action of the acting seat names (its own card slots)."""
    return CARD_AT_SLOT[state.current][layout(state).decode(action).a]


# setup: place the drawn card (sections 13-16)


def _setup_place_actions(state: MapDuelState) -> list[int]:
    return _ego_cells(state, setup_cells(state, state.drawn))


def _setup_place_allows(state: MapDuelState, action: int) -> bool:
    kind, a, _ = layout(state).decode(action)
    if kind is Kind.CELL:
        cell = from_ego(state, state.current, a)
        if state.board[cell] == EMPTY and _placement_ok(state, state.drawn, cell, state.config.placement_rule):
            return True  # the rule of the config always allows it; the fallbacks need the list
    return action in _setup_place_actions(state)


def _setup_place(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    state.board[_chosen_cell(state, action)] = state.drawn
    if state.setup_deck:
        state.drawn = state.setup_deck.pop()
        state.current = 1 - state.current
    else:
        state.drawn = -1
        state.current = state.first
        state.phase = Phase.SETUP_FACE


# setup: choose a starting face, then its cell (sections 17, 18)


def _setup_face_actions(state: MapDuelState) -> list[int]:
    face = layout(state).face
    return [face + f for f in range(NUM_FACES) if face_type(f) != ACE_TYPE]


def _setup_face(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    state.pending_face = layout(state).decode(action).a
    state.phase = Phase.SETUP_FACE_CELL


def _setup_face_cell_actions(state: MapDuelState) -> list[int]:
    return _ego_cells(state, starting_face_cells(state))


def _setup_face_cell(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    seat, face, cell = state.current, state.pending_face, _chosen_cell(state, action)
    state.pending_face = -1
    state.board[cell] = face_code(seat, face)
    state.face_pos[seat][face] = cell
    state.face_status[seat][face] = ON_MAP
    state.setup_faces_placed += 1
    if state.setup_faces_placed == 1:
        state.hidden_face = (seat, face)  # face down until the other seat has placed (18)
        state.current = 1 - seat
        state.phase = Phase.SETUP_FACE
    else:
        state.hidden_face = None
        state.current = state.first
        _begin_turn(state)


# step 1: one swap, sacrifice or new face, or a pass (sections 19-27)


def _step1_actions(state: MapDuelState) -> list[int]:
    lay, seat, board = layout(state), state.current, state.board
    status, pos, pool = state.face_status[seat], state.face_pos[seat], state.pools[seat]
    neighbours = geometry(state.B).neighbours[seat]
    on_map = [f for f in range(NUM_FACES) if status[f] == ON_MAP]
    actions: list[int] = []
    for f in on_map:
        base = lay.swap_adj + NUM_DIRECTIONS * f
        actions.extend(
            base + d
            for d, other in enumerate(neighbours[pos[f]])
            if other >= 0 and 0 <= board[other] < NUM_NUMBER_CARDS
        )
    aces = [a for a, ace in enumerate(ACE_FACES) if status[ace] == ON_MAP]
    actions.extend(lay.swap_ace + SUITS_PER_SEAT * f + a for f in on_map for a in aces if ACE_FACES[a] != f)
    # a sacrifice: an own-colour pool card of a suit that has a face on the map (sections 23-25)
    suits_on_map = {face_suit(seat, f) for f in on_map}
    slot = CARD_SLOT[seat]
    for suit in SEAT_SUITS[seat]:
        if suit in suits_on_map:
            actions.extend(lay.pool + slot[n] for n in numbers_of_suit(suit) if pool[n])
    if on_map and _has_placement_cell(state, seat):
        sums, primes = _affordable(state, seat)
        actions.extend(
            lay.face + f for f in range(NUM_FACES) if status[f] == DECK and _affords(face_type(f), sums, primes)
        )
    actions.append(lay.pass_step1)
    return sorted(actions)


def _step1_allows(state: MapDuelState, action: int) -> bool:
    kind, a, b = layout(state).decode(action)
    seat = state.current
    status = state.face_status[seat]
    if kind is Kind.PASS_STEP1:
        return True
    if kind is Kind.SWAP_ADJ:
        if status[a] != ON_MAP:
            return False
        other = neighbour(state, seat, state.face_pos[seat][a], b)
        return other >= 0 and is_number(state.board[other])
    if kind is Kind.SWAP_ACE:
        return status[a] == ON_MAP and a != ACE_FACES[b] and status[ACE_FACES[b]] == ON_MAP
    if kind is Kind.POOL:
        n = CARD_AT_SLOT[seat][a]
        return bool(state.pools[seat][n]) and is_own_colour(seat, n) and bool(sacrifice_faces(state, seat, n))
    if kind is Kind.FACE:
        return (
            status[a] == DECK
            and bool(faces_on_map(state, seat))
            and can_afford(state, seat, a)
            and bool(placement_cells(state, seat))
        )
    return False


def _step1(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    kind, a, b = layout(state).decode(action)
    seat = state.current
    if kind is Kind.PASS_STEP1:
        _to_step2(state)
    elif kind is Kind.SWAP_ADJ or kind is Kind.SWAP_ACE:
        other = (
            neighbour(state, seat, state.face_pos[seat][a], b)
            if kind is Kind.SWAP_ADJ
            else state.face_pos[seat][ACE_FACES[b]]
        )
        _swap(state, seat, a, other)
        _check_end(state)
        if state.outcome == ONGOING:
            _to_step2(state)
    elif kind is Kind.POOL:  # a sacrifice (sections 23-25)
        n = CARD_AT_SLOT[seat][a]
        state.pools[seat][n] = 0
        state.removed_numbers[n] = 1
        state.progress_this_turn = True
        state.step1_done = True
        state.paid = [n]  # remembers the sacrificed card for the face choice
        state.moves_left = number_rank(n)
        candidates = sacrifice_faces(state, seat, n)
        if len(candidates) == 1:
            state.pending_face = candidates[0]
            _enter_sac_move(state, seat)
        else:
            state.phase = Phase.SACRIFICE_FACE
    else:  # FACE: paying to place a new face (sections 26, 27)
        state.pending_face = a
        state.pay_target = ACE_PAYMENT if face_type(a) == ACE_TYPE else FACE_COST[face_type(a)]
        state.paid = []
        state.step1_done = True
        state.phase = Phase.PLACE_CELL


# step 1, a sacrifice: which face moves, then its swaps (sections 23-25)


def _sacrifice_face_actions(state: MapDuelState) -> list[int]:
    """Faces that may move for the sacrificed card (kept as ``paid[0]`` during the choice)."""
    if not state.paid:
        return []
    face = layout(state).face
    return [face + f for f in sacrifice_faces(state, state.current, state.paid[0])]


def _sacrifice_face(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    state.pending_face = layout(state).decode(action).a
    _enter_sac_move(state, state.current)


def _enter_sac_move(state: MapDuelState, seat: int) -> None:
    state.phase = Phase.SACRIFICE_MOVE
    if not _sac_moves(state, seat):
        _to_step2(state)


def _sacrifice_move_actions(state: MapDuelState) -> list[int]:
    lay = layout(state)
    moves = [lay.move + d for d in _sac_moves(state, state.current)]
    if not state.config.sacrifice_exact or not moves:
        moves.append(lay.stop)
    return moves


def _sacrifice_move(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    kind, direction, _ = layout(state).decode(action)
    if kind is Kind.STOP:
        _to_step2(state)
        return
    seat, face = state.current, state.pending_face
    _swap(state, seat, face, neighbour(state, seat, state.face_pos[seat][face], direction))
    state.moves_left -= 1
    _check_end(state)
    if state.outcome != ONGOING:
        return
    if state.moves_left <= 0 or not _sac_moves(state, seat):
        _to_step2(state)


# step 1, a new face: its cell, then the payment card by card (sections 26, 27)


def _place_cell_actions(state: MapDuelState) -> list[int]:
    return _ego_cells(state, placement_cells(state, state.current))


def _place_cell(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    state.pending_cell = _chosen_cell(state, action)
    state.phase = Phase.PLACE_PAY


def _place_pay_actions(state: MapDuelState) -> list[int]:
    seat, pool = state.current, layout(state).pool
    return sorted(pool + CARD_SLOT[seat][n] for n in range(NUM_NUMBER_CARDS) if can_pay(state, seat, n))


def _place_pay_allows(state: MapDuelState, action: int) -> bool:
    kind, slot, _ = layout(state).decode(action)
    return kind is Kind.POOL and can_pay(state, state.current, CARD_AT_SLOT[state.current][slot])


def _place_pay(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    seat, n = state.current, _chosen_card(state, action)
    state.pools[seat][n] = 0
    state.removed_numbers[n] = 1
    state.paid.append(n)
    state.progress_this_turn = True
    if state.pay_target == ACE_PAYMENT:
        done = len(state.paid) == 2
    else:
        done = sum(number_rank(m) for m in state.paid) == state.pay_target
    if done:
        face, cell = state.pending_face, state.pending_cell
        state.board[cell] = face_code(seat, face)
        state.face_pos[seat][face] = cell
        state.face_status[seat][face] = ON_MAP
        _check_end(state)
        if state.outcome == ONGOING:
            _to_step2(state)


# step 2: each face may consume, build or confront once, then END_TURN (sections 28-35)


def _step2_moves(state: MapDuelState, seat: int, lay: ActionLayout) -> Iterator[int]:
    """The seat's legal CONSUME, BUILD and CONFRONT actions, face by face (not sorted)."""
    board = state.board
    status, pos, pool = state.face_status[seat], state.face_pos[seat], state.pools[seat]
    neighbours = geometry(state.B).neighbours[seat]
    can_build = any(pool)
    placement_rule = state.config.placement_rule if state.config.build_uses_placement_rule else None
    acted = state.acted
    for f in range(NUM_FACES):
        if status[f] != ON_MAP or f in acted:
            continue
        for d, other in enumerate(neighbours[pos[f]]):
            if other < 0:
                continue
            code = board[other]
            if 0 <= code < NUM_NUMBER_CARDS:
                yield lay.consume + NUM_DIRECTIONS * f + d
            elif (
                code == EMPTY
                and can_build
                and (
                    placement_rule is None
                    or any(pool[n] and _placement_ok(state, n, other, placement_rule) for n in range(NUM_NUMBER_CARDS))
                )
            ):
                yield lay.build + NUM_DIRECTIONS * f + d
        base = lay.confront + NUM_FACES * f
        for e in confront_targets(state, seat, f):
            yield base + e


def _step2_actions(state: MapDuelState) -> list[int]:
    lay = layout(state)
    actions = sorted(_step2_moves(state, state.current, lay))
    actions.append(lay.end_turn)
    return actions


def _step2_allows(state: MapDuelState, action: int) -> bool:
    kind, a, b = layout(state).decode(action)
    seat = state.current
    if kind is Kind.END_TURN:
        return True
    if kind not in (Kind.CONSUME, Kind.BUILD, Kind.CONFRONT):
        return False
    if state.face_status[seat][a] != ON_MAP or a in state.acted:
        return False
    if kind is Kind.CONFRONT:
        return b in confront_targets(state, seat, a)
    other = neighbour(state, seat, state.face_pos[seat][a], b)
    if other < 0:
        return False
    code = state.board[other]
    if kind is Kind.CONSUME:
        return is_number(code)
    if code != EMPTY or not any(state.pools[seat]):
        return False
    return not state.config.build_uses_placement_rule or any(
        state.pools[seat][n] and _placement_ok(state, n, other, state.config.placement_rule)
        for n in range(NUM_NUMBER_CARDS)
    )


def _step2(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    kind, a, b = layout(state).decode(action)
    if kind is Kind.END_TURN:
        _end_turn(state)
        return
    seat = state.current
    cell = state.face_pos[seat][a]
    if kind is Kind.CONSUME:
        other = neighbour(state, seat, cell, b)
        state.pools[seat][state.board[other]] = 1
        state.board[other] = EMPTY
        state.acted.add(a)
    elif kind is Kind.BUILD:
        state.pending_face = a
        state.build_cell = neighbour(state, seat, cell, b)
        state.phase = Phase.BUILD_CARD
        return
    else:  # CONFRONT
        loser = resolve(state, seat, a, b, rng)
        if loser == 1:
            _remove_face(state, 1 - seat, b)
        elif loser == -1:
            _remove_face(state, seat, a)
        state.acted.add(a)
    state.progress_this_turn = True
    _check_end(state)
    _auto_end(state)


# step 2, a build: the pool card to lay (section 31)


def _can_build_card(state: MapDuelState, seat: int, n: int) -> bool:
    if not state.pools[seat][n]:
        return False
    if state.config.build_uses_placement_rule:
        return _placement_ok(state, n, state.build_cell, state.config.placement_rule)
    return True


def _build_card_actions(state: MapDuelState) -> list[int]:
    seat, pool = state.current, layout(state).pool
    slot = CARD_SLOT[seat]
    return sorted(pool + slot[n] for n in range(NUM_NUMBER_CARDS) if _can_build_card(state, seat, n))


def _build_card_allows(state: MapDuelState, action: int) -> bool:
    kind, slot, _ = layout(state).decode(action)
    return kind is Kind.POOL and _can_build_card(state, state.current, CARD_AT_SLOT[state.current][slot])


def _build_card(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    seat, n = state.current, _chosen_card(state, action)
    state.pools[seat][n] = 0
    state.board[state.build_cell] = n
    state.acted.add(state.pending_face)
    state.pending_face = -1
    state.build_cell = -1
    state.progress_this_turn = True
    state.phase = Phase.STEP_2
    _check_end(state)
    _auto_end(state)


# the game is over


def _no_actions(state: MapDuelState) -> list[int]:
    return []


def _game_over(state: MapDuelState, action: int, rng: np.random.Generator) -> None:
    raise IllegalActionError("the game is over")


# turn flow shared by the phases (sections 3, 19, 45)


def _begin_turn(state: MapDuelState) -> None:
    if state.turn >= state.config.length_limit:
        state.outcome = TRUNCATED
        state.phase = Phase.OVER
        return
    state.turn += 1
    state.step1_done = False
    state.acted = set()
    state.progress_this_turn = False
    state.pending_face = -1
    state.pending_cell = -1
    state.paid = []
    state.phase = Phase.STEP_1


def _end_turn(state: MapDuelState) -> None:
    state.no_progress = 0 if state.progress_this_turn else state.no_progress + 1
    if state.no_progress >= state.config.no_progress_turns:
        state.outcome = DRAW
        state.phase = Phase.OVER
        return
    state.current = 1 - state.current
    _begin_turn(state)


def _to_step2(state: MapDuelState) -> None:
    state.step1_done = True
    state.pending_face = -1
    state.pending_cell = -1
    state.paid = []
    state.pay_target = 0
    state.moves_left = 0
    state.phase = Phase.STEP_2
    _auto_end(state)


def _auto_end(state: MapDuelState) -> None:
    """Section 3: a step 2 with nothing but END_TURN ends the turn by itself."""
    if (
        state.phase == Phase.STEP_2
        and state.outcome == ONGOING
        and next(_step2_moves(state, state.current, layout(state)), None) is None
    ):
        _end_turn(state)


def _swap(state: MapDuelState, seat: int, face: int, other: int) -> None:
    cell = state.face_pos[seat][face]
    state.board[cell], state.board[other] = state.board[other], state.board[cell]
    state.face_pos[seat][face] = other
    code = state.board[cell]
    if is_face(code):  # an Ace swap moves the other face too
        owner, f = divmod(code - FACE_BASE, NUM_FACES)
        state.face_pos[owner][f] = cell


@dataclass(frozen=True)
class DuelPhaseRules(PhaseRules[MapDuelState]):
    """A phase's ``PhaseRules`` and ``allows(state, action)``: whether one action is legal,
    answered without listing them all (None: look the action up in ``legal_actions``)."""

    allows: Callable[[MapDuelState, int], bool] | None = None


#: everything about each phase, indexed by ``state.phase``
PHASES = cast(
    "tuple[DuelPhaseRules, ...]",
    phase_table(
        Phase,
        {
            Phase.SETUP_PLACE: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_setup_place_actions, apply=_setup_place, allows=_setup_place_allows
            ),
            Phase.SETUP_FACE: DuelPhaseRules(actor=_acting_seat, legal_actions=_setup_face_actions, apply=_setup_face),
            Phase.SETUP_FACE_CELL: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_setup_face_cell_actions, apply=_setup_face_cell
            ),
            Phase.STEP_1: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_step1_actions, apply=_step1, allows=_step1_allows
            ),
            Phase.SACRIFICE_FACE: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_sacrifice_face_actions, apply=_sacrifice_face
            ),
            Phase.SACRIFICE_MOVE: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_sacrifice_move_actions, apply=_sacrifice_move
            ),
            Phase.PLACE_CELL: DuelPhaseRules(actor=_acting_seat, legal_actions=_place_cell_actions, apply=_place_cell),
            Phase.PLACE_PAY: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_place_pay_actions, apply=_place_pay, allows=_place_pay_allows
            ),
            Phase.STEP_2: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_step2_actions, apply=_step2, allows=_step2_allows
            ),
            Phase.BUILD_CARD: DuelPhaseRules(
                actor=_acting_seat, legal_actions=_build_card_actions, apply=_build_card, allows=_build_card_allows
            ),
            Phase.OVER: DuelPhaseRules(actor=_nobody, legal_actions=_no_actions, apply=_game_over),
        },
    ),
)


# --------------------------------------------------------------------------- the generic verbs


def acting_player(state: MapDuelState) -> int:
    """The seat to act, -1 once the game is over."""
    return PHASES[state.phase].actor(state)


def legal_actions(state: MapDuelState) -> list[int]:
    """The legal action indices of the acting seat, ascending, in its own frame."""
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: MapDuelState) -> np.ndarray:
    mask = np.zeros(layout(state).size, dtype=np.int8)
    mask[legal_actions(state)] = 1
    return mask


def is_legal(state: MapDuelState, action: int) -> bool:
    """Whether ``action`` is legal for the acting seat: the phase's ``allows`` checks the one
    action where it can; the other sub-decisions compare with the whole list."""
    if isinstance(action, np.integer):
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < layout(state).size:
        return False
    phase = PHASES[state.phase]
    if phase.allows is None:
        return action in phase.legal_actions(state)
    return phase.allows(state, action)


def apply_action(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``); both seats' rewards for it.
    Raises ``IllegalActionError`` (the state untouched) for an illegal action."""
    if isinstance(action, np.integer):
        action = int(action)
    if not is_legal(state, action):
        raise IllegalActionError(_why_illegal(state, action))
    shaping = state.config.shaping
    before = colour_share(state) if shaping else 0.0
    PHASES[state.phase].apply(state, action, rng)
    rewards = [0.0, 0.0]
    if shaping and state.outcome == ONGOING:
        after = colour_share(state)
        rewards = [shaping * (after - before), shaping * (before - after)]
    if state.outcome in (WON, DRAW):
        for p, value in enumerate(final_rewards(state)):
            rewards[p] += value
    return rewards


def _why_illegal(state: MapDuelState, action: object) -> str:
    if state.phase == Phase.OVER:
        return "the game is over"
    lay = layout(state)
    valid_index = isinstance(action, int) and not isinstance(action, bool) and 0 <= action < lay.size
    name = lay.name(action, state.current) if valid_index else repr(action)  # type: ignore[arg-type]
    return (
        f"{name} (action {action}) is not legal for seat {state.current} in phase "
        f"{Phase(state.phase).label}; legal: {legal_actions(state)}"
    )


# --------------------------------------------------------------------------- the end


def _map_counts(state: MapDuelState) -> tuple[int, int]:
    """(number cards on the map, red ones among them): each id is on the map at most once."""
    codes = set(state.board)
    return len(codes.intersection(_NUMBER_IDS)), len(codes.intersection(_RED_IDS))


def colour_share(state: MapDuelState) -> float:
    """Red's share of the map's number cards, from ``player_0``'s side (0.5 on an empty map)."""
    numbers, reds = _map_counts(state)
    return reds / numbers if numbers else 0.5


def _check_end(state: MapDuelState) -> None:
    """Sections 41-44: colour victory or an opponent without faces; both at once is a draw."""
    numbers, reds = _map_counts(state)
    colour = (bool(numbers) and reds == numbers, bool(numbers) and reds == 0)
    has_faces = [ON_MAP in state.face_status[p] for p in range(2)]
    succeeds = [colour[p] or not has_faces[1 - p] for p in range(2)]
    if succeeds[0] and succeeds[1]:
        state.outcome, state.phase = DRAW, Phase.OVER
    elif succeeds[0] or succeeds[1]:
        state.outcome, state.phase = WON, Phase.OVER
        state.winner = 0 if succeeds[0] else 1


def heuristic_values(state: MapDuelState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short (search agents): the
    colour share of the map's number cards and the faces each side has on the map."""
    if state.phase == Phase.OVER:
        return final_rewards(state)
    faces = [len(faces_on_map(state, seat)) for seat in (0, 1)]
    value = (colour_share(state) - 0.5) + 0.1 * (faces[0] - faces[1])
    value = max(-1.0, min(1.0, value))
    return [value, -value]


def is_terminal(state: MapDuelState) -> bool:
    return state.phase == Phase.OVER


def is_truncated(state: MapDuelState) -> bool:
    return state.outcome == TRUNCATED


def final_rewards(state: MapDuelState) -> list[float]:
    if state.outcome != WON:
        return [0.0, 0.0]
    return [1.0, -1.0] if state.winner == 0 else [-1.0, 1.0]


def outcome_name(state: MapDuelState) -> str:
    """The game's result in words; a win names the winning agent (``"won by player_0"``)."""
    if state.outcome == WON:
        return f"won by player_{state.winner}"
    return {ONGOING: "ongoing", DRAW: "draw", TRUNCATED: "truncated"}[state.outcome]


# --------------------------------------------------------------------------- determinize


def determinize(state: MapDuelState, seat: int, rng: np.random.Generator) -> MapDuelState:
    """A copy with what ``seat`` cannot see resampled: the setup deck's order and, during
    setup, the identity of the other seat's face-down starting card (any J, Q or K of its
    suits). Pools are public (section 39); with ``hidden_pools`` the opponent's pool is kept,
    since every card entering or leaving it does so in the open."""
    if seat not in (0, 1):
        raise ValueError(f"determinize needs seat 0 or 1, got {seat!r}")
    copy = state.clone()
    if copy.setup_deck:
        copy.setup_deck = [copy.setup_deck[i] for i in rng.permutation(len(copy.setup_deck))]
    hidden = state.hidden_face
    if hidden is not None and hidden[0] != seat:
        owner, face = hidden
        choice = int(rng.integers(6))
        new_face = face_index(choice // 3, choice % 3)  # a Jack, Queen or King of either suit
        cell = state.face_pos[owner][face]
        copy.face_status[owner][face] = DECK
        copy.face_pos[owner][face] = -1
        copy.face_status[owner][new_face] = ON_MAP
        copy.face_pos[owner][new_face] = cell
        copy.board[cell] = face_code(owner, new_face)
        copy.hidden_face = (owner, new_face)
    return copy


def apply(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    """Deprecated: ``apply_action`` (the same: in place, every seat's reward)."""
    deprecated("rules.apply(state, action, rng)", "rules.apply_action(state, action, rng)")
    return apply_action(state, action, rng)


def _most_payment_cards() -> int:
    """The most cards one payment can take: an Ace takes two primes; a J, Q or K the smallest
    opposite-colour ranks (each rank twice, one per suit of that colour) that still fit its cost."""
    most, total = 0, 0
    for rank in sorted(list(NUMBER_RANKS) * SUITS_PER_SEAT):
        if total + rank > max(FACE_COST.values()):
            break
        most, total = most + 1, total + rank
    return max(most, 2)


#: the setup's decisions: a cell for each number card but the centre one (which places itself),
#: then for each seat its starting face and that face's cell (sections 13-18)
SETUP_DECISIONS = (NUM_NUMBER_CARDS - 1) + 2 * 2
#: the most decisions of a step 1: a sacrifice (the pool card, the face when two or more of its
#: suit are on the map, then one MOVE or STOP per swap, at most the card's rank) outnumbers a new
#: face (the face, its cell, the payment cards), a swap and a pass (one each) (sections 19-27)
STEP_1_DECISIONS = max(1 + 1 + max(NUMBER_RANKS), 1 + 1 + _most_payment_cards(), 1)
#: the most decisions of a step 2: each face acts once, a BUILD and its card being two decisions;
#: END_TURN is asked only while a face that has not acted can still act, so a step 2 in which
#: every face builds ends by itself (sections 3, 28-31)
STEP_2_DECISIONS = 2 * NUM_FACES
#: the most decisions of one turn
TURN_DECISIONS = STEP_1_DECISIONS + STEP_2_DECISIONS


def max_game_length(config: MapDuelConfig) -> int:
    """An upper bound on the decisions (``apply_action`` calls) of one game:
    ``SETUP_DECISIONS + length_limit * TURN_DECISIONS`` = ``39 + 28 * length_limit``.

    - The setup takes exactly 39 decisions: 35 cells for the number cards (the first card opens
      the map on the centre by itself), then a starting face and its cell for each seat.
    - At most ``length_limit`` turns are played (truncation is checked as a turn would begin).
    - A turn takes at most 28 decisions: step 1 at most 12 (sacrificing a 10: the card, the face
      to move, then up to 10 swaps or a STOP; a new face takes at most 5, with a payment of at most
      3 cards, since four opposite-colour cards sum to at least 2 + 2 + 3 + 3 > 9), step 2 at most
      16 (each of the 8 faces builds, 2 decisions each; with a face left out, 14 and END_TURN).

    The board size changes no term: every board (9 x 9 and up) has room for all 36 number cards
    and the 16 faces, each setup card always finds a cell (ruling 16), and the counts above are
    of cards and faces, not of cells. Draws and wins only end a game earlier."""
    return SETUP_DECISIONS + config.length_limit * TURN_DECISIONS


def utility_range(config: MapDuelConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat: a loss and a win."""
    return -1.0, 1.0
