"""Map Duel rules as pure functions over a ``MapDuelState``: setup, legal actions, apply,
confrontations, the end of the game, determinize. Randomness enters only through ``rng`` (the
setup deck, a random first player, coin flips). Section numbers refer to
``docs/rules/map_duel.md`` (they follow the rulings).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from operator import mul

import numpy as np

from ...core.compat import deprecated
from ...core.errors import IllegalActionError
from ...core.options import index_list_option
from .actions import NUM_DIRECTIONS, ActionLayout, Kind, layout_for
from .config import MapDuelConfig
from .state import (
    ACE,
    BUILD_CARD,
    CARD_AT_SLOT,
    CARD_SLOT,
    DECK,
    DRAW,
    EMPTY,
    FACE_BASE,
    JACK,
    KING,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    ONGOING,
    OVER,
    PLACE_CELL,
    PLACE_PAY,
    PRIMES,
    QUEEN,
    REMOVED,
    SAC_FACE,
    SAC_MOVE,
    SEAT_SUITS,
    SETUP_FACE,
    SETUP_FACE_CELL,
    SETUP_PLACE,
    STEP1,
    STEP2,
    TRUNCATED,
    WON,
    MapDuelState,
    face_code,
    face_suit,
    face_type,
    is_red_suit,
    number_rank,
    number_suit,
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
FACE_COST = {JACK: 7, QUEEN: 8, KING: 9}
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
def _steps(board_size: int) -> dict[tuple[int, int], tuple[int, ...]]:
    """For each unit step (orthogonal or diagonal), the cell it reaches from every cell (-1 off
    the board): geometry computed once per board size."""
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
        steps = _steps(board_size)
        cells = range(board_size * board_size)
        self.neighbours = tuple(
            tuple(tuple(steps[DIRECTIONS[seat][d]][c] for d in range(NUM_DIRECTIONS)) for c in cells)
            for seat in range(2)
        )
        self.orthogonal = tuple(tuple(steps[v][c] for v in ORTHOGONAL) for c in cells)
        self.diagonal = tuple(tuple(steps[v][c] for v in DIAGONAL) for c in cells)
        rays = []
        for c in cells:
            per_cell = []
            for v in DIAGONAL:
                ray, other = [], steps[v][c]
                while other >= 0:
                    ray.append(other)
                    other = steps[v][other]
                per_cell.append(tuple(ray))
            rays.append(tuple(per_cell))
        self.diagonal_rays = tuple(rays)


@cache
def geometry(board_size: int) -> Geometry:
    return Geometry(board_size)


def step(state: MapDuelState, cell: int, dr: int, dc: int) -> int:
    """The cell one unit step away, or -1 off the board."""
    return _steps(state.B)[(dr, dc)][cell]


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
    state.phase = SETUP_PLACE
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
    return [n for suit in SEAT_SUITS[1 - seat] for n in range(9 * suit, 9 * suit + 9) if pool[n]]


def _subset_sums(ranks: Sequence[int], limit: int) -> set[int]:
    sums = {0}
    for rank in ranks:
        sums |= {s + rank for s in sums if s + rank <= limit}
    return sums


def _affordable(state: MapDuelState, seat: int) -> tuple[set[int], int]:
    """What the seat's opposite-colour pool can pay: the exact sums up to 9 it can make, and how
    many prime ranks it holds."""
    ranks = [number_rank(n) for n in _opposite_pool(state, seat)]
    return _subset_sums(ranks, FACE_COST[KING]), sum(1 for rank in ranks if rank in PRIMES)


def _affords(kind: int, sums: set[int], primes: int) -> bool:
    return primes >= 2 if kind == ACE else FACE_COST[kind] in sums


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
        return rank in PRIMES
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
    if kind == ACE:
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
    if kind == JACK:
        cells: Sequence[int] = geo.neighbours[seat][cell][:1]
    elif kind == QUEEN:
        cells = geo.neighbours[seat][cell][1::2]
    else:
        cells = geo.orthogonal[cell] + (geo.diagonal[cell] if state.config.king_reach == "all8" else ())
    return sorted(board[c] - low for c in cells if c >= 0 and low <= board[c] < high)


_RANKS_OF_A_SUIT = tuple(range(2, 11))


def suit_totals(pool: Sequence[int]) -> list[int]:
    """The sum of the ranks of a pool's cards, per suit."""
    return [sum(map(mul, pool[9 * suit : 9 * suit + 9], _RANKS_OF_A_SUIT)) for suit in range(4)]


def face_value(state: MapDuelState, seat: int, face: int, totals: Sequence[int] | None = None) -> int:
    """Section 35(d): J = 5; K = the ranks of the seat's own-colour pool cards; Q = the ranks of
    the pool cards of the Queen's suit (``totals``: the pool's ``suit_totals``, if at hand)."""
    kind = face_type(face)
    if kind == JACK:
        return 5
    if totals is None:
        totals = suit_totals(state.pools[seat])
    if kind == KING:
        low, high = SEAT_SUITS[seat]
        return totals[low] + totals[high]
    return totals[face_suit(seat, face)]


def _coin(state: MapDuelState, rng: np.random.Generator) -> bool:
    state.coin_flips += 1
    return bool(rng.random() < 0.5)


def _jack_is_low(config: MapDuelConfig, attacker_suit: int, defender_suit: int) -> bool:
    if config.jack_suit_rule == "major_minor":
        return attacker_suit in (0, 1) and defender_suit in (2, 3)
    return config.suit_order == "CDHS" and attacker_suit < defender_suit


def resolve(state: MapDuelState, seat: int, face: int, enemy_face: int, rng: np.random.Generator) -> int:
    """Section 35: who loses a confrontation: 1 the defender, -1 the attacker, 0 nobody."""
    config = state.config
    enemy = 1 - seat
    kind, other = face_type(face), face_type(enemy_face)
    a_suit, d_suit = face_suit(seat, face), face_suit(enemy, enemy_face)
    if kind == ACE:
        if other == ACE and config.ace_vs_ace == "aggressor_wins":
            return 1
        return 1 if _coin(state, rng) else 0
    if other == ACE:
        return 1
    if kind == JACK and other == JACK:
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
    if kind == ACE:
        return (1.0, 0.0) if other == ACE and config.ace_vs_ace == "aggressor_wins" else (0.5, 0.0)
    if other == ACE:
        return 1.0, 0.0
    if kind == JACK and other == JACK:
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


# --------------------------------------------------------------------------- legality


def legal_actions(state: MapDuelState) -> list[int]:
    """The legal action indices of the acting seat, ascending, in its own frame."""
    phase = state.phase
    if phase == OVER:
        return []
    lay = layout(state)
    seat = state.current
    ego = (lambda c: c) if seat == 0 else (lambda c: state.B * state.B - 1 - c)
    if phase == SETUP_PLACE:
        return sorted(ego(c) for c in setup_cells(state, state.drawn))
    if phase == SETUP_FACE:
        return [lay.face + f for f in range(NUM_FACES) if face_type(f) != ACE]
    if phase in (SETUP_FACE_CELL,):
        return sorted(ego(c) for c in starting_face_cells(state))
    if phase == PLACE_CELL:
        return sorted(ego(c) for c in placement_cells(state, seat))
    if phase == PLACE_PAY:
        return sorted(lay.pool + CARD_SLOT[seat][n] for n in range(NUM_NUMBER_CARDS) if can_pay(state, seat, n))
    if phase == SAC_FACE:
        return [lay.face + f for f in _sac_candidates(state, seat)]
    if phase == SAC_MOVE:
        moves = [lay.move + d for d in _sac_moves(state, seat)]
        if not state.config.sacrifice_exact or not moves:
            moves.append(lay.stop)
        return moves
    if phase == BUILD_CARD:
        slot = CARD_SLOT[seat]
        return sorted(lay.pool + slot[n] for n in range(NUM_NUMBER_CARDS) if _can_build_card(state, seat, n))
    if phase == STEP1:
        return _step1_actions(state, seat, lay)
    return _step2_actions(state, seat, lay)


def _sac_candidates(state: MapDuelState, seat: int) -> list[int]:
    """Faces that may move for the sacrificed card (kept as ``paid[0]`` during SAC_FACE)."""
    return sacrifice_faces(state, seat, state.paid[0]) if state.paid else []


def _can_build_card(state: MapDuelState, seat: int, n: int) -> bool:
    if not state.pools[seat][n]:
        return False
    if state.config.build_uses_placement_rule:
        return _placement_ok(state, n, state.build_cell, state.config.placement_rule)
    return True


def _step1_actions(state: MapDuelState, seat: int, lay: ActionLayout) -> list[int]:
    board = state.board
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
    aces = [a for a in range(2) if status[4 * a + ACE] == ON_MAP]
    actions.extend(lay.swap_ace + 2 * f + a for f in on_map for a in aces if 4 * a + ACE != f)
    # a sacrifice: an own-colour pool card of a suit that has a face on the map (sections 23-25)
    suits_on_map = {face_suit(seat, f) for f in on_map}
    slot = CARD_SLOT[seat]
    for suit in SEAT_SUITS[seat]:
        if suit in suits_on_map:
            actions.extend(lay.pool + slot[n] for n in range(9 * suit, 9 * suit + 9) if pool[n])
    if on_map and _has_placement_cell(state, seat):
        sums, primes = _affordable(state, seat)
        actions.extend(
            lay.face + f for f in range(NUM_FACES) if status[f] == DECK and _affords(face_type(f), sums, primes)
        )
    actions.append(lay.pass_step1)
    return sorted(actions)


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


def _step2_actions(state: MapDuelState, seat: int, lay: ActionLayout) -> list[int]:
    actions = sorted(_step2_moves(state, seat, lay))
    actions.append(lay.end_turn)
    return actions


def legal_mask(state: MapDuelState) -> np.ndarray:
    mask = np.zeros(layout(state).size, dtype=np.int8)
    mask[legal_actions(state)] = 1
    return mask


def is_legal(state: MapDuelState, action: int) -> bool:
    """Whether ``action`` is legal for the acting seat. The main-game steps and the card
    choices check the one action; the other sub-decisions compare with the whole list."""
    if isinstance(action, np.integer):
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int):
        return False
    lay = layout(state)
    if state.phase == OVER or not 0 <= action < lay.size:
        return False
    kind, a, b = lay.decode(action)
    seat = state.current
    phase = state.phase
    if phase == STEP1:
        return _step1_allows(state, seat, kind, a, b)
    if phase == STEP2:
        return _step2_allows(state, seat, kind, a, b)
    if phase == BUILD_CARD:
        return kind is Kind.POOL and _can_build_card(state, seat, CARD_AT_SLOT[seat][a])
    if phase == PLACE_PAY:
        return kind is Kind.POOL and can_pay(state, seat, CARD_AT_SLOT[seat][a])
    if phase == SETUP_PLACE and kind is Kind.CELL:
        cell = from_ego(state, seat, a)
        if state.board[cell] == EMPTY and _placement_ok(state, state.drawn, cell, state.config.placement_rule):
            return True  # the rule of the config always allows it; the fallbacks need the list
    return action in legal_actions(state)


def _step1_allows(state: MapDuelState, seat: int, kind: Kind, a: int, b: int) -> bool:
    status = state.face_status[seat]
    if kind is Kind.PASS_STEP1:
        return True
    if kind is Kind.SWAP_ADJ:
        if status[a] != ON_MAP:
            return False
        other = neighbour(state, seat, state.face_pos[seat][a], b)
        return other >= 0 and is_number(state.board[other])
    if kind is Kind.SWAP_ACE:
        return status[a] == ON_MAP and a != 4 * b + ACE and status[4 * b + ACE] == ON_MAP
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


def _step2_allows(state: MapDuelState, seat: int, kind: Kind, a: int, b: int) -> bool:
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


# --------------------------------------------------------------------------- applying actions


def apply_action(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``); both seats' rewards for it.
    Raises ``IllegalActionError`` (the state untouched) for an illegal action."""
    if state.phase == OVER:
        raise IllegalActionError("the game is over")
    if isinstance(action, np.integer):
        action = int(action)
    lay = layout(state)
    if not is_legal(state, action):
        name = lay.name(action, state.current) if isinstance(action, int) and 0 <= action < lay.size else repr(action)
        raise IllegalActionError(
            f"{name} (action {action}) is not legal for seat {state.current} in phase "
            f"{state.phase}; legal: {legal_actions(state)}"
        )
    shaping = state.config.shaping
    before = colour_share(state) if shaping else 0.0
    kind, a, b = lay.decode(action)
    seat = state.current
    phase = state.phase
    if kind is Kind.POOL:  # pool cards are named by the seat's own card slots
        a = CARD_AT_SLOT[seat][a]
    if phase == SETUP_PLACE:
        _setup_place(state, from_ego(state, seat, a))
    elif phase == SETUP_FACE:
        state.pending_face = a
        state.phase = SETUP_FACE_CELL
    elif phase == SETUP_FACE_CELL:
        _setup_face(state, seat, from_ego(state, seat, a))
    elif phase == STEP1:
        _step1(state, seat, kind, a, b, rng)
    elif phase == SAC_FACE:
        state.pending_face = a
        _enter_sac_move(state, seat)
    elif phase == SAC_MOVE:
        _sac_move(state, seat, kind, a)
    elif phase == PLACE_CELL:
        state.pending_cell = from_ego(state, seat, a)
        state.phase = PLACE_PAY
    elif phase == PLACE_PAY:
        _pay(state, seat, a)
    elif phase == BUILD_CARD:
        _build(state, seat, a)
    else:
        _step2(state, seat, kind, a, b, rng)
    rewards = [0.0, 0.0]
    if shaping and state.outcome == ONGOING:
        after = colour_share(state)
        rewards = [shaping * (after - before), shaping * (before - after)]
    if state.outcome in (WON, DRAW):
        for p, value in enumerate(final_rewards(state)):
            rewards[p] += value
    return rewards


def _setup_place(state: MapDuelState, cell: int) -> None:
    state.board[cell] = state.drawn
    if state.setup_deck:
        state.drawn = state.setup_deck.pop()
        state.current = 1 - state.current
    else:
        state.drawn = -1
        state.current = state.first
        state.phase = SETUP_FACE


def _setup_face(state: MapDuelState, seat: int, cell: int) -> None:
    face = state.pending_face
    state.pending_face = -1
    state.board[cell] = face_code(seat, face)
    state.face_pos[seat][face] = cell
    state.face_status[seat][face] = ON_MAP
    state.setup_faces_placed += 1
    if state.setup_faces_placed == 1:
        state.hidden_face = (seat, face)  # face down until the other seat has placed (18)
        state.current = 1 - seat
        state.phase = SETUP_FACE
    else:
        state.hidden_face = None
        state.current = state.first
        _begin_turn(state)


def _begin_turn(state: MapDuelState) -> None:
    if state.turn >= state.config.length_limit:
        state.outcome = TRUNCATED
        state.phase = OVER
        return
    state.turn += 1
    state.step1_done = False
    state.acted = set()
    state.progress_this_turn = False
    state.pending_face = -1
    state.pending_cell = -1
    state.paid = []
    state.phase = STEP1


def _end_turn(state: MapDuelState) -> None:
    state.no_progress = 0 if state.progress_this_turn else state.no_progress + 1
    if state.no_progress >= state.config.no_progress_turns:
        state.outcome = DRAW
        state.phase = OVER
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
    state.phase = STEP2
    _auto_end(state)


def _auto_end(state: MapDuelState) -> None:
    """Section 3: a step 2 with nothing but END_TURN ends the turn by itself."""
    if (
        state.phase == STEP2
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


def _step1(state: MapDuelState, seat: int, kind: Kind, a: int, b: int, rng: np.random.Generator) -> None:
    if kind is Kind.PASS_STEP1:
        _to_step2(state)
    elif kind is Kind.SWAP_ADJ:
        _swap(state, seat, a, neighbour(state, seat, state.face_pos[seat][a], b))
        _check_end(state)
        if state.outcome == ONGOING:
            _to_step2(state)
    elif kind is Kind.SWAP_ACE:
        _swap(state, seat, a, state.face_pos[seat][4 * b + ACE])
        _check_end(state)
        if state.outcome == ONGOING:
            _to_step2(state)
    elif kind is Kind.POOL:  # a sacrifice (sections 23-25)
        state.pools[seat][a] = 0
        state.removed_numbers[a] = 1
        state.progress_this_turn = True
        state.step1_done = True
        state.paid = [a]  # remembers the sacrificed card for the face choice
        state.moves_left = number_rank(a)
        candidates = sacrifice_faces(state, seat, a)
        if len(candidates) == 1:
            state.pending_face = candidates[0]
            _enter_sac_move(state, seat)
        else:
            state.phase = SAC_FACE
    elif kind is Kind.FACE:  # paying to place a new face (sections 26, 27)
        state.pending_face = a
        state.pay_target = ACE_PAYMENT if face_type(a) == ACE else FACE_COST[face_type(a)]
        state.paid = []
        state.step1_done = True
        state.phase = PLACE_CELL


def _enter_sac_move(state: MapDuelState, seat: int) -> None:
    state.phase = SAC_MOVE
    if not _sac_moves(state, seat):
        _to_step2(state)


def _sac_move(state: MapDuelState, seat: int, kind: Kind, direction: int) -> None:
    if kind is Kind.STOP:
        _to_step2(state)
        return
    _swap(state, seat, state.pending_face, neighbour(state, seat, state.face_pos[seat][state.pending_face], direction))
    state.moves_left -= 1
    _check_end(state)
    if state.outcome != ONGOING:
        return
    if state.moves_left <= 0 or not _sac_moves(state, seat):
        _to_step2(state)


def _pay(state: MapDuelState, seat: int, n: int) -> None:
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


def _build(state: MapDuelState, seat: int, n: int) -> None:
    state.pools[seat][n] = 0
    state.board[state.build_cell] = n
    state.acted.add(state.pending_face)
    state.pending_face = -1
    state.build_cell = -1
    state.progress_this_turn = True
    state.phase = STEP2
    _check_end(state)
    _auto_end(state)


def _step2(state: MapDuelState, seat: int, kind: Kind, a: int, b: int, rng: np.random.Generator) -> None:
    if kind is Kind.END_TURN:
        _end_turn(state)
        return
    cell = state.face_pos[seat][a]
    if kind is Kind.CONSUME:
        other = neighbour(state, seat, cell, b)
        state.pools[seat][state.board[other]] = 1
        state.board[other] = EMPTY
        state.acted.add(a)
    elif kind is Kind.BUILD:
        state.pending_face = a
        state.build_cell = neighbour(state, seat, cell, b)
        state.phase = BUILD_CARD
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
        state.outcome, state.phase = DRAW, OVER
    elif succeeds[0] or succeeds[1]:
        state.outcome, state.phase = WON, OVER
        state.winner = 0 if succeeds[0] else 1


def heuristic_values(state: MapDuelState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short (search agents): the
    colour share of the map's number cards and the faces each side has on the map."""
    if state.phase == OVER:
        return final_rewards(state)
    faces = [len(faces_on_map(state, seat)) for seat in (0, 1)]
    value = (colour_share(state) - 0.5) + 0.1 * (faces[0] - faces[1])
    value = max(-1.0, min(1.0, value))
    return [value, -value]


def is_terminal(state: MapDuelState) -> bool:
    return state.phase == OVER


def is_truncated(state: MapDuelState) -> bool:
    return state.outcome == TRUNCATED


def final_rewards(state: MapDuelState) -> list[float]:
    if state.outcome != WON:
        return [0.0, 0.0]
    return [1.0, -1.0] if state.winner == 0 else [-1.0, 1.0]


def outcome_name(state: MapDuelState) -> str:
    """The game's result in words. A win still names the seat counted from 1 (``"won by player_1"``
    for seat 0, agent ``player_0``), the string recorded before the agents' rename."""
    if state.outcome == WON:
        return f"won by player_{state.winner + 1}"
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
        new_face = 4 * (choice // 3) + choice % 3
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


def max_game_length(config: MapDuelConfig) -> int:
    """An upper bound on the decisions of one game: the setup (every number card placed, the
    faces chosen) and ``length_limit`` turns of at most a step-1 option chain and a step-2 action
    for each face."""
    setup = 64
    return setup + config.length_limit * 64


def utility_range(config: MapDuelConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat: a loss and a win."""
    return -1.0, 1.0
