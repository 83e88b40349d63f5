"""Rule scenarios for Map Duel: one test per rule-check scenario of section 7 of
``shared/rulings/003-map-duel.md``, then the ``MapDuelConfig`` flags that change a rule, the
config validation errors, the egocentric frame, and whole seeded random games (card
conservation, ``legal_mask`` == ``is_legal``, rejection of illegal actions).

Every test builds the exact state it needs (``helpers.build_state``) or stacks the deck of
``rules.new_game``; none depends on a lucky seed. Where a coin decides, a stub rng whose
``random()`` returns 0.1 or 0.9 is used and the test checks both outcomes without assuming which
side is "heads"; where no coin is ruled, an rng that fails on any use is passed.

Coordinates in the tests are absolute ``(row, col)`` (row 0 north, ``player_1``'s edge).
"""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.core.errors import IllegalActionError
from empire_envs.games.map_duel import rules
from empire_envs.games.map_duel.actions import Kind, layout_for
from empire_envs.games.map_duel.config import MapDuelConfig
from empire_envs.games.map_duel.state import (
    DRAW,
    EMPTY,
    NUM_FACES,
    ON_MAP,
    ONGOING,
    REMOVED,
    TRUNCATED,
    WON,
    Phase,
    face_code,
)

from .helpers import (
    BACK,
    EXPECTED_DIRECTIONS,
    FORWARD,
    LEFT,
    RIGHT,
    CoinStub,
    NoCoin,
    act,
    build_state,
    cell,
    cell_action,
    deck_order,
    ego_cell,
    face,
    fidx,
    finish_turn,
    legal,
    num,
    play_setup,
    snapshot,
    step2_state,
)

B = 13
L = layout_for(B)
#: number cards of both colours far from the action, so no colour victory is near
FILLER = {(0, 0): "10S", (12, 12): "10H"}
POOL_RANGE = set(L.block_range(Kind.POOL))
FACE_RANGE = set(L.block_range(Kind.FACE))
MOVE_RANGE = {L.move_index(d) for d in range(4)}


def with_filler(board: dict) -> dict:
    out = dict(FILLER)
    out.update(board)
    return out


def at(state, r, c) -> int:
    return state.board[cell(r, c, state.B)]


def on_map(state, card: str, r: int, c: int) -> bool:
    seat, f = face(card)
    x = cell(r, c, state.B)
    return (
        state.face_status[seat][f] == ON_MAP and state.face_pos[seat][f] == x
        and state.board[x] == face_code(seat, f)
    )


def is_removed(state, card: str) -> bool:
    seat, f = face(card)
    return state.face_status[seat][f] == REMOVED and face_code(seat, f) not in state.board


def confront(attacker: str, defender: str) -> int:
    return L.confront_index(fidx(attacker), fidx(defender))


def new_setup_game(first_cards, config=None):
    return rules.new_game(config or MapDuelConfig(), np.random.default_rng(0), deck=deck_order(first_cards))


# =========================================================================== section 7 scenarios


@pytest.mark.parametrize(
    "drawn, legal_cell, illegal_cell",
    [("4H", (6, 7), (5, 6)), ("4C", (5, 6), (6, 7))],
)
def test_scenario_01_even_placement(drawn, legal_cell, illegal_cell):
    """Scenario 1: 9D in the centre; an even red card goes beside it (same colour horizontally),
    not above it; an even black card the reverse."""
    state = new_setup_game(["9D", drawn])
    assert state.phase == Phase.SETUP_PLACE and state.current == 0
    assert at(state, 6, 6) == num("9D")
    assert state.drawn == num(drawn)
    assert state.card_count() == 52
    ok = legal(state)
    assert cell_action(state, 0, *legal_cell) in ok
    assert cell_action(state, 0, *illegal_cell) not in ok
    assert cell_action(state, 0, 6, 6) not in ok  # occupied
    assert cell_action(state, 0, 4, 6) not in ok  # not adjacent to the map
    assert ok <= set(range(L.cells))
    act(state, cell_action(state, 0, *legal_cell))
    assert at(state, *legal_cell) == num(drawn)
    assert state.current == 1 and state.phase == Phase.SETUP_PLACE
    assert state.card_count() == 52


def test_scenario_02_odd_placement():
    """Scenario 2: 9D in the centre; drawn 7S (odd, black) goes beside it (opposite colour), not
    below it (vertical needs the same colour)."""
    state = new_setup_game(["9D", "7S"])
    ok = legal(state)
    assert cell_action(state, 0, 6, 5) in ok
    assert cell_action(state, 0, 6, 7) in ok
    assert cell_action(state, 0, 7, 6) not in ok
    assert cell_action(state, 0, 5, 6) not in ok


def _scenario3_state(x: str, config=None):
    state = new_setup_game(["8H", "2H", "3D", x], config)
    act(state, cell_action(state, 0, 6, 7))  # player_0 places 2H
    assert state.current == 1 and state.drawn == num("3D")
    act(state, cell_action(state, 1, 5, 7))  # player_1 places 3D (egocentric cell)
    assert at(state, 6, 7) == num("2H") and at(state, 5, 7) == num("3D")
    assert state.current == 0 and state.drawn == num(x)
    return state


def test_scenario_03_all_neighbours():
    """Scenario 3: (5,6) touches 8H vertically and 3D horizontally, both red; under
    "all_neighbours" no card can go there; under "any_neighbour" 4C can."""
    used = {"8H", "2H", "3D"}
    others = [f"{r}{s}" for s in "CDHS" for r in range(2, 11) if f"{r}{s}" not in used]
    assert len(others) == 33
    for x in others:
        state = _scenario3_state(x)
        assert cell_action(state, 0, 5, 6) not in legal(state), x
    state = _scenario3_state("4C", MapDuelConfig(placement_rule="any_neighbour"))
    assert cell_action(state, 0, 5, 6) in legal(state)


def test_scenario_03_any_neighbour_still_needs_one_satisfied_neighbour():
    """Scenario 3 / ruling 15: under "any_neighbour" a card that satisfies no neighbour is still
    illegal: 4H (even, red) at (7,6) below 8H (vertical needs the opposite colour)."""
    state = new_setup_game(["8H", "4H"], MapDuelConfig(placement_rule="any_neighbour"))
    assert cell_action(state, 0, 7, 6) not in legal(state)
    assert cell_action(state, 0, 6, 5) in legal(state)


def _face_setup_state():
    state = build_state(
        board={(6, 6): "9D", (5, 6): "4C", (6, 5): "7S"},
        phase=Phase.SETUP_FACE, current=0, first=0, turn=0,
    )
    state.setup_faces_placed = 0
    state.hidden_face = None
    return state


def test_scenario_04_face_down_setup():
    """Scenario 4: player_0 places QH face down at (7,6); player_1 cannot use that cell and
    the card is hidden (``hidden_face``) until player_1 has placed; then both are revealed and the
    main game starts with player_0."""
    state = _face_setup_state()
    ok = legal(state)
    # J, Q, K of either own suit: 6 choices, no Ace
    assert ok == {L.face_index(f) for f in (0, 1, 2, 4, 5, 6)}
    act(state, L.face_index(fidx("QH")))
    assert state.phase == Phase.SETUP_FACE_CELL
    ok = legal(state)
    assert cell_action(state, 0, 7, 6) in ok
    assert cell_action(state, 0, 6, 6) not in ok  # occupied
    assert cell_action(state, 0, 8, 6) not in ok  # not next to a number card
    assert ok <= set(range(L.cells))
    act(state, cell_action(state, 0, 7, 6))
    assert state.phase == Phase.SETUP_FACE and state.current == 1
    assert state.hidden_face == face("QH")
    assert state.face_status[0][fidx("QH")] == ON_MAP
    assert state.card_count() == 52
    # player_1 chooses its card, then cannot take the first one's cell
    assert legal(state) == {L.face_index(f) for f in (0, 1, 2, 4, 5, 6)}
    act(state, L.face_index(fidx("KS")))
    assert state.phase == Phase.SETUP_FACE_CELL and state.current == 1
    ok = legal(state)
    assert cell_action(state, 1, 7, 6) not in ok
    assert cell_action(state, 1, 6, 7) in ok
    assert cell_action(state, 1, 4, 6) in ok  # north of 4C
    act(state, cell_action(state, 1, 6, 7))
    assert state.hidden_face is None
    assert on_map(state, "QH", 7, 6) and on_map(state, "KS", 6, 7)
    assert state.phase == Phase.STEP_1 and state.current == 0
    assert state.card_count() == 52


def test_scenario_05_jack_direction():
    """Scenario 5: a player_1 Jack at (5,6) confronts a player_0 King at (6,6) (south is its
    forward); a player_0 Jack at (6,6) cannot confront a face behind it at (7,6), can at (5,6)."""
    state = step2_state(board=with_filler({(5, 6): "JC", (6, 6): "KD"}), current=1)
    assert confront("JC", "KD") in legal(state)
    # mirrored: a player_1 face north of the black Jack is behind it
    state = step2_state(board=with_filler({(5, 6): "JC", (4, 6): "KD"}), current=1)
    assert confront("JC", "KD") not in legal(state)
    state = step2_state(board=with_filler({(6, 6): "JD", (7, 6): "KC"}), current=0)
    assert confront("JD", "KC") not in legal(state)
    state = step2_state(board=with_filler({(6, 6): "JD", (5, 6): "KC"}), current=0)
    assert confront("JD", "KC") in legal(state)
    state = step2_state(board=with_filler({(6, 6): "JD", (6, 7): "KC", (6, 5): "QC"}), current=0)
    assert confront("JD", "KC") not in legal(state)
    assert confront("JD", "QC") not in legal(state)


def test_scenario_06_queen_sides():
    """Scenario 6: a Queen at (6,6) reaches (6,5) and (6,7), not (5,6) (nor (7,6))."""
    board = with_filler({(6, 6): "QD", (6, 5): "JC", (6, 7): "QC", (5, 6): "KC", (7, 6): "JS"})
    state = step2_state(board=board, current=0)
    ok = legal(state)
    assert confront("QD", "JC") in ok
    assert confront("QD", "QC") in ok
    assert confront("QD", "KC") not in ok
    assert confront("QD", "JS") not in ok
    # the same for player_1's Queen (its left/right are still the same row)
    board = with_filler({(6, 6): "QS", (6, 5): "JD", (6, 7): "QD", (5, 6): "KD", (7, 6): "JH"})
    state = step2_state(board=board, current=1)
    ok = legal(state)
    assert confront("QS", "JD") in ok and confront("QS", "QD") in ok
    assert confront("QS", "KD") not in ok and confront("QS", "JH") not in ok


@pytest.mark.parametrize("blocking, expected", [("none", True), ("faces", True), ("cards", False)])
def test_scenario_07_ace_reach(blocking, expected):
    """Scenario 7: an Ace at (9,3) reaches a King at (6,6) over number cards at (8,4), (7,5) at
    distance 3; with ``ace_blocking="cards"`` the cards block it."""
    board = with_filler({(9, 3): "AD", (6, 6): "KC", (8, 4): "5H", (7, 5): "6S"})
    state = step2_state(MapDuelConfig(ace_blocking=blocking), board=board, current=0)
    assert (confront("AD", "KC") in legal(state)) is expected


def test_scenario_07_ace_reach_is_diagonal_only():
    """Scenario 7 / ruling 32: the Ace does not reach orthogonal or off-diagonal cells."""
    board = with_filler({(9, 3): "AD", (9, 8): "KC", (5, 3): "QC", (7, 4): "JC", (3, 9): "JS"})
    state = step2_state(board=board, current=0)
    ok = legal(state)
    assert confront("AD", "KC") not in ok
    assert confront("AD", "QC") not in ok
    assert confront("AD", "JC") not in ok
    assert confront("AD", "JS") in ok  # (9,3) -> (3,9): distance 6 on the diagonal


def test_scenario_08_king_vs_queen():
    """Scenario 8: red KH (pool 5H, 4D, 9C: value 9) confronts black QS (pool 6S, 2C: value 6);
    the King wins and the Queen is removed (status REMOVED, not DECK)."""
    board = with_filler({(6, 6): "KH", (6, 7): "QS", (0, 6): "JC"})
    pools = {0: ["5H", "4D", "9C"], 1: ["6S", "2C"]}
    state = step2_state(board=board, pools=pools, current=0)
    pools_before = [row[:] for row in state.pools]
    rewards = act(state, confront("KH", "QS"), NoCoin())
    assert is_removed(state, "QS")
    assert at(state, 6, 7) == EMPTY
    assert on_map(state, "KH", 6, 6)
    assert state.pools == pools_before
    assert rewards == [0, 0]
    assert state.card_count() == 52


@pytest.mark.parametrize("aggressor", [0, 1])
def test_scenario_09_suit_tie_break(aggressor):
    """Scenario 9: red KH value 7 vs black KS value 7: spades wins, whichever is the aggressor."""
    board = with_filler({(6, 6): "KH", (5, 6): "KS", (12, 6): "JD", (0, 6): "JC"})
    pools = {0: ["4H", "3D", "10C"], 1: ["5C", "2S", "9H"]}
    state = step2_state(board=board, pools=pools, current=aggressor)
    action = confront("KH", "KS") if aggressor == 0 else confront("KS", "KH")
    act(state, action, NoCoin())
    assert is_removed(state, "KH")
    assert on_map(state, "KS", 5, 6)
    assert state.outcome == ONGOING


def _jack_vs_jack_state(current: int, config=None):
    board = with_filler({(6, 6): "JD", (5, 6): "JS", (12, 6): "KD", (0, 6): "KC"})
    return step2_state(config, board=board, current=current)


def test_scenario_10_jack_vs_jack():
    """Scenario 10: JD (aggressor) vs JS is a coin (both outcomes occur, one coin each); JS
    (aggressor) vs JD: the aggressor wins without touching the rng."""
    losers = []
    for value in (0.1, 0.9):
        state = _jack_vs_jack_state(0)
        stub = CoinStub(value)
        act(state, confront("JD", "JS"), stub)
        assert stub.calls == 1
        gone = [card for card in ("JD", "JS") if is_removed(state, card)]
        assert len(gone) == 1, gone
        survivor = "JS" if gone == ["JD"] else "JD"
        assert on_map(state, survivor, *((6, 6) if survivor == "JD" else (5, 6)))
        losers.append(gone[0])
    assert sorted(losers) == ["JD", "JS"]
    state = _jack_vs_jack_state(1)
    act(state, confront("JS", "JD"), NoCoin())
    assert is_removed(state, "JD")
    assert on_map(state, "JS", 5, 6)


@pytest.mark.parametrize("jack, loser", [("JC", "JC"), ("JS", "QH")])
def test_scenario_11_jack_vs_queen(jack, loser):
    """Scenario 11: a Jack (5) confronts QH of value 5 (3H + 2H; the 9D does not count): tie ->
    suit order: JC loses to QH, JS beats QH."""
    board = with_filler({(5, 6): jack, (6, 6): "QH", (12, 6): "JD", (0, 3): "KC"})
    pools = {0: ["3H", "2H", "9D"]}
    state = step2_state(board=board, pools=pools, current=1)
    act(state, confront(jack, "QH"), NoCoin())
    assert is_removed(state, loser)
    winner = "QH" if loser == jack else jack
    assert on_map(state, winner, *((6, 6) if winner == "QH" else (5, 6)))


def test_scenario_12_aces():
    """Scenario 12: an Ace aggressor flips one coin: one side removes the defender, the other
    (tails) removes nothing; either way the Ace stays and has acted. A King confronting an Ace
    removes it without a coin."""
    removed_counts = []
    for value in (0.1, 0.9):
        board = with_filler({(9, 3): "AD", (6, 6): "KC", (12, 9): "JD", (11, 9): "5S", (0, 6): "JC"})
        state = step2_state(board=board, current=0)
        stub = CoinStub(value)
        act(state, confront("AD", "KC"), stub)
        assert stub.calls == 1
        assert on_map(state, "AD", 9, 3)
        assert state.phase == Phase.STEP_2 and state.current == 0
        assert fidx("AD") in state.acted
        assert not any(a in legal(state) for a in L.block_range(Kind.CONFRONT))
        if on_map(state, "KC", 6, 6):
            removed_counts.append(0)
        else:
            assert is_removed(state, "KC")
            removed_counts.append(1)
    assert sorted(removed_counts) == [0, 1]
    board = with_filler({(5, 6): "KC", (6, 6): "AD", (12, 6): "JD"})
    state = step2_state(board=board, current=1)
    act(state, confront("KC", "AD"), NoCoin())
    assert is_removed(state, "AD")
    assert on_map(state, "KC", 5, 6)


def _pay_state(pool):
    return build_state(board=with_filler({(6, 6): "KD", (0, 6): "KC"}), pools={0: pool}, current=0)


def test_scenario_13_paying_for_a_jack():
    """Scenario 13: opposite-colour pool {6, 4, 3}, placing a Jack (7): POOL(6) masked, POOL(4)
    and POOL(3) legal; after 4 only 3; the Jack appears on the chosen cell, both cards removed."""
    state = _pay_state(["6C", "4S", "3C", "5D"])
    ok = legal(state)
    assert L.face_index(fidx("JH")) in ok and L.face_index(fidx("JD")) in ok
    assert L.face_index(fidx("KH")) in ok  # 6 + 3 = 9
    assert L.face_index(fidx("QH")) not in ok  # no subset sums to 8
    assert L.face_index(fidx("AH")) not in ok  # only one black prime
    assert L.face_index(fidx("KD")) not in ok  # already on the map
    act(state, L.face_index(fidx("JH")))
    assert state.phase == Phase.PLACE_CELL
    ok = legal(state)
    assert cell_action(state, 0, 5, 6) in ok
    assert cell_action(state, 0, 4, 6) not in ok
    assert ok == {cell_action(state, 0, r, c) for r, c in ((5, 6), (7, 6), (6, 5), (6, 7))}
    act(state, cell_action(state, 0, 5, 6))
    assert state.phase == Phase.PLACE_PAY
    ok = legal(state)
    assert ok == {rules.pool_action(state, num("4S")), rules.pool_action(state, num("3C"))}
    act(state, rules.pool_action(state, num("4S")))
    assert state.phase == Phase.PLACE_PAY
    assert legal(state) == {rules.pool_action(state, num("3C"))}
    act(state, rules.pool_action(state, num("3C")))
    assert on_map(state, "JH", 5, 6)
    assert state.phase == Phase.STEP_2 and state.current == 0
    for card in ("4S", "3C"):
        assert state.removed_numbers[num(card)] == 1 and state.pools[0][num(card)] == 0
    assert state.pools[0][num("6C")] == 1 and state.pools[0][num("5D")] == 1
    assert state.card_count() == 52


def test_scenario_14_paying_for_an_ace():
    """Scenario 14: opposite-colour pool {2, 9, 5}: FACE(Ace) legal; POOL(9) masked in
    Phase.PLACE_PAY; two primes place the Ace. With a single prime the Ace is unaffordable."""
    state = _pay_state(["2C", "9S", "5C"])
    assert L.face_index(fidx("AD")) in legal(state)
    act(state, L.face_index(fidx("AD")))
    act(state, cell_action(state, 0, 6, 7))
    assert state.phase == Phase.PLACE_PAY
    ok = legal(state)
    assert rules.pool_action(state, num("9S")) not in ok
    assert ok == {rules.pool_action(state, num("2C")), rules.pool_action(state, num("5C"))}
    act(state, rules.pool_action(state, num("5C")))
    assert legal(state) == {rules.pool_action(state, num("2C"))}
    act(state, rules.pool_action(state, num("2C")))
    assert on_map(state, "AD", 6, 7)
    assert state.phase == Phase.STEP_2
    assert state.removed_numbers[num("2C")] == state.removed_numbers[num("5C")] == 1
    assert state.pools[0][num("9S")] == 1
    assert state.card_count() == 52
    state = _pay_state(["2C", "9S", "2H", "3D"])  # one black prime; red primes do not pay
    ok = legal(state)
    assert L.face_index(fidx("AD")) not in ok and L.face_index(fidx("AH")) not in ok


def _sacrifice_state(config=None, extra=None, pool=("3H",)):
    board = with_filler({(6, 6): "QH", (5, 6): "4C", (4, 6): "5S", (3, 6): "6C", (2, 6): "7S",
                         (10, 10): "KD", (0, 9): "KC"})
    board.update(extra or {})
    return build_state(config, board=board, pools={0: list(pool)}, current=0)


def test_scenario_15_sacrifice():
    """Scenario 15: 3H in the red pool and QH on the map: POOL(3H) is legal in step 1; the
    chain allows up to 3 MOVEs; STOP after one ends it; 3H is removed from the game."""
    state = _sacrifice_state()
    assert rules.pool_action(state, num("3H")) in legal(state)
    act(state, rules.pool_action(state, num("3H")))
    assert state.phase == Phase.SACRIFICE_MOVE  # only one hearts face: Phase.SACRIFICE_FACE skipped
    assert state.moves_left == 3
    assert L.move_index(FORWARD) in legal(state)
    assert L.move_index(BACK) not in legal(state)  # (7,6) is empty
    act(state, L.move_index(FORWARD))
    assert on_map(state, "QH", 5, 6) and at(state, 6, 6) == num("4C")
    assert state.moves_left == 2
    assert L.index(Kind.STOP) in legal(state)
    act(state, L.index(Kind.STOP))
    assert state.phase == Phase.STEP_2
    assert state.removed_numbers[num("3H")] == 1 and state.pools[0][num("3H")] == 0
    assert state.card_count() == 52


def test_scenario_15_sacrifice_at_most_rank_moves():
    """Scenario 15: after 3 MOVEs the chain ends by itself (no fourth MOVE)."""
    state = _sacrifice_state()
    act(state, rules.pool_action(state, num("3H")))
    for _ in range(3):
        assert state.phase == Phase.SACRIFICE_MOVE
        act(state, L.move_index(FORWARD))
    assert on_map(state, "QH", 3, 6)
    assert at(state, 4, 6) == num("6C") and at(state, 5, 6) == num("5S") and at(state, 6, 6) == num("4C")
    assert state.phase == Phase.STEP_2
    assert not (legal(state) & MOVE_RANGE)
    assert state.removed_numbers[num("3H")] == 1


def test_scenario_15_sacrifice_face_choice_and_masks():
    """Rulings 23, 25: with two hearts faces the player chooses (Phase.SACRIFICE_FACE lists only those);
    a sacrifice needs an own-colour card and a face of its suit on the map."""
    state = _sacrifice_state(extra={(8, 8): "KH"})
    act(state, rules.pool_action(state, num("3H")))
    assert state.phase == Phase.SACRIFICE_FACE
    assert legal(state) == {L.face_index(fidx("QH")), L.face_index(fidx("KH"))}
    act(state, L.face_index(fidx("QH")))
    assert state.phase == Phase.SACRIFICE_MOVE and state.moves_left == 3
    # KH has no adjacent number card: choosing it ends the chain at once (ruling 24)
    state = _sacrifice_state(extra={(8, 8): "KH"})
    act(state, rules.pool_action(state, num("3H")))
    act(state, L.face_index(fidx("KH")))
    assert state.phase == Phase.STEP_2
    assert on_map(state, "KH", 8, 8)
    assert state.removed_numbers[num("3H")] == 1 and state.pools[0][num("3H")] == 0
    state = _sacrifice_state(pool=("3D", "3C"))  # KD (10,10) is a diamonds face
    ok = legal(state)
    assert rules.pool_action(state, num("3D")) in ok
    assert rules.pool_action(state, num("3C")) not in ok  # opposite colour: no sacrifice
    board = with_filler({(6, 6): "KD", (5, 6): "4C", (0, 9): "KC"})
    state = build_state(board=board, pools={0: ["3H"]}, current=0)
    assert rules.pool_action(state, num("3H")) not in legal(state)  # no hearts face on the map


def test_scenario_16_consume_then_build():
    """Scenario 16: a King consumes the card north of it (cell empty, card in the pool); another
    face builds on that cell in the same step 2; the King cannot act again."""
    board = with_filler({(6, 6): "KD", (5, 6): "5C", (5, 7): "JD", (0, 6): "KC", (3, 3): "9H"})
    state = step2_state(board=board, current=0)
    king = fidx("KD")
    act(state, L.consume_index(king, FORWARD))
    assert at(state, 5, 6) == EMPTY
    assert state.pools[0][num("5C")] == 1
    assert state.card_count() == 52
    ok = legal(state)
    for d in range(4):
        assert L.consume_index(king, d) not in ok and L.build_index(king, d) not in ok
    assert not any(L.confront_index(king, e) in ok for e in range(NUM_FACES))
    assert L.build_index(fidx("JD"), LEFT) in ok
    act(state, L.build_index(fidx("JD"), LEFT))
    assert state.phase == Phase.BUILD_CARD
    assert legal(state) == {rules.pool_action(state, num("5C"))}
    act(state, rules.pool_action(state, num("5C")))
    assert at(state, 5, 6) == num("5C")
    assert state.pools[0][num("5C")] == 0
    assert state.card_count() == 52


def test_scenario_17_new_face_acts_at_once():
    """Scenario 17: a Jack placed in step 1 next to an enemy face directly forward confronts it in
    step 2 of the same turn."""
    board = with_filler({(6, 6): "KD", (5, 7): "JC", (0, 6): "KC"})
    state = build_state(board=board, pools={0: ["4C", "3C"]}, current=0)
    act(state, L.face_index(fidx("JD")))
    act(state, cell_action(state, 0, 6, 7))
    act(state, rules.pool_action(state, num("4C")))
    act(state, rules.pool_action(state, num("3C")))
    assert on_map(state, "JD", 6, 7)
    assert state.phase == Phase.STEP_2 and state.current == 0
    assert confront("JD", "JC") in legal(state)
    act(state, confront("JD", "JC"), NoCoin())  # D above C: the aggressor wins, no coin
    assert is_removed(state, "JC")


def test_scenario_18_colour_victory():
    """Scenario 18: red consumes the only black number card -> player_0 wins at once (+1/-1),
    with faces still to act."""
    board = {(5, 6): "5C", (6, 6): "KD", (3, 3): "2D", (3, 4): "3H", (9, 9): "4D",
             (10, 10): "JD", (10, 11): "6H", (0, 6): "JC"}
    state = step2_state(board=board, current=0)
    rewards = act(state, L.consume_index(fidx("KD"), FORWARD))
    assert rewards == [1, -1]
    assert state.phase == Phase.OVER and rules.is_terminal(state)
    assert state.outcome == WON and state.winner == 0
    assert rules.final_rewards(state) == [1, -1]
    assert rules.outcome_name(state) == "won by player_0"
    assert rules.legal_actions(state) == []
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.index(Kind.END_TURN), NoCoin())


def test_scenario_18_empty_map_wins_for_nobody():
    """Scenario 18 / ruling 42: consuming the last number card, leaving none on the map, is no
    colour victory."""
    board = {(5, 6): "5C", (6, 6): "KD", (10, 10): "JD", (0, 6): "JC"}
    state = step2_state(board=board, current=0)
    rewards = act(state, L.consume_index(fidx("KD"), FORWARD))
    assert rewards == [0, 0]
    assert state.number_cards_on_map() == []
    assert not rules.is_terminal(state)
    assert state.outcome == ONGOING and state.phase != Phase.OVER


def test_scenario_19_loss_as_aggressor():
    """Scenario 19: red's only face, a Jack, confronts a King of value 9 and loses: red has no
    face on the map -> player_1 wins."""
    board = with_filler({(6, 6): "JD", (5, 6): "KC"})
    state = step2_state(board=board, pools={1: ["4S", "5C", "8H"]}, current=0)
    rewards = act(state, confront("JD", "KC"), NoCoin())
    assert is_removed(state, "JD")
    assert on_map(state, "KC", 5, 6)
    assert rewards == [-1, 1]
    assert rules.is_terminal(state) and state.winner == 1 and state.outcome == WON
    assert rules.final_rewards(state) == [-1, 1]
    assert rules.outcome_name(state) == "won by player_1"


def _swap_turn(state, swap: bool):
    seat = state.current
    king = fidx("KD") if seat == 0 else fidx("KC")
    if swap:
        choices = sorted(legal(state) & {L.swap_adj_index(king, d) for d in range(4)})
        assert choices, "a swap should be available"
        act(state, choices[0])
        assert state.phase == Phase.STEP_2
    return finish_turn(state)


def _idle_board():
    return {(6, 6): "KD", (5, 6): "5C", (2, 2): "KC", (3, 2): "4D", (9, 9): "9H", (1, 10): "9S"}


def test_scenario_20_no_progress():
    """Scenario 20: 30 consecutive turns of swaps and passes -> draw, rewards 0/0."""
    state = build_state(board=_idle_board(), current=0)
    for i in range(30):
        assert state.phase != Phase.OVER, i
        assert state.no_progress == i
        _swap_turn(state, swap=(i % 3 != 2))
    assert state.phase == Phase.OVER
    assert state.outcome == DRAW
    assert rules.is_terminal(state)
    assert rules.final_rewards(state) == [0, 0]


def test_scenario_20_last_turn_reward_is_zero():
    """Scenario 20: the END_TURN that completes the 30th idle turn returns 0/0."""
    state = build_state(board=_idle_board(), current=0, no_progress=29)
    act(state, L.index(Kind.PASS_STEP1))
    if state.phase == Phase.STEP_2:
        rewards = act(state, L.index(Kind.END_TURN))
        assert rewards == [0, 0]
    assert state.phase == Phase.OVER and state.outcome == DRAW


# =========================================================================== flags


def test_flag_king_reach_all8():
    """Ruling 8: ``king_reach="all8"`` adds the diagonal neighbours to a King's reach only."""
    board = with_filler({(6, 6): "KD", (5, 5): "JC", (7, 7): "QC", (8, 2): "QD", (7, 3): "KC"})
    for reach, expected in (("orthogonal", False), ("all8", True)):
        state = step2_state(MapDuelConfig(king_reach=reach), board=board, current=0)
        ok = legal(state)
        assert (confront("KD", "JC") in ok) is expected
        assert (confront("KD", "QC") in ok) is expected
        assert confront("QD", "KC") not in ok  # a Queen never reaches diagonals


def test_flag_sacrifice_exact():
    """Ruling 24: with ``sacrifice_exact`` STOP is illegal while swaps remain; the chain makes
    exactly rank swaps (back-and-forth allowed)."""
    state = _sacrifice_state()
    act(state, rules.pool_action(state, num("3H")))
    act(state, L.move_index(FORWARD))
    assert L.index(Kind.STOP) in legal(state)  # default: may stop early

    state = _sacrifice_state(MapDuelConfig(sacrifice_exact=True))
    act(state, rules.pool_action(state, num("3H")))
    act(state, L.move_index(FORWARD))
    ok = legal(state)
    assert L.index(Kind.STOP) not in ok
    assert L.move_index(BACK) in ok and L.move_index(FORWARD) in ok
    act(state, L.move_index(BACK))
    assert state.phase == Phase.SACRIFICE_MOVE and L.index(Kind.STOP) not in legal(state)
    act(state, L.move_index(FORWARD))
    assert state.phase == Phase.STEP_2
    assert on_map(state, "QH", 5, 6)
    assert state.removed_numbers[num("3H")] == 1


def test_flag_build_uses_placement_rule():
    """Ruling 31: building ignores the setup parity/colour rule by default; with
    ``build_uses_placement_rule`` a card breaking it cannot be built. The cell (5,6) has 8H above
    it: 4C (even black, opposite vertically) fits, 4D (even red) does not."""
    board = with_filler({(6, 6): "KD", (4, 6): "8H", (0, 6): "KC"})
    for flag, expect_4d in ((False, True), (True, False)):
        state = step2_state(MapDuelConfig(build_uses_placement_rule=flag), board=board,
                            pools={0: ["4C", "4D"]}, current=0)
        act(state, L.build_index(fidx("KD"), FORWARD))
        assert state.phase == Phase.BUILD_CARD
        ok = legal(state)
        assert rules.pool_action(state, num("4C")) in ok
        assert (rules.pool_action(state, num("4D")) in ok) is expect_4d


def test_flag_ace_blocking_faces():
    """Ruling 32: with ``ace_blocking="faces"`` the first face card on a diagonal (either side's)
    stops the line; number cards do not; with "none" nothing blocks."""
    board = with_filler({(9, 3): "AD", (8, 4): "5H", (7, 5): "JC", (6, 6): "KC", (12, 0): "3C"})
    state = step2_state(MapDuelConfig(ace_blocking="faces"), board=board, current=0)
    ok = legal(state)
    assert confront("AD", "JC") in ok
    assert confront("AD", "KC") not in ok
    state = step2_state(MapDuelConfig(ace_blocking="none"), board=board, current=0)
    ok = legal(state)
    assert confront("AD", "JC") in ok and confront("AD", "KC") in ok
    own = dict(board)
    own[(7, 5)] = "QD"  # an own face blocks too
    state = step2_state(MapDuelConfig(ace_blocking="faces"), board=own, current=0)
    assert confront("AD", "KC") not in legal(state)
    state = step2_state(MapDuelConfig(ace_blocking="cards"), board=board, current=0)
    ok = legal(state)
    assert confront("AD", "JC") not in ok and confront("AD", "KC") not in ok


def test_flag_suit_order_none():
    """Ruling 36: with ``suit_order="none"`` equal values go to a coin (both outcomes occur)."""
    losers = []
    for value in (0.1, 0.9):
        board = with_filler({(6, 6): "KH", (5, 6): "KS", (12, 6): "JD", (0, 6): "JC"})
        pools = {0: ["4H", "3D"], 1: ["5C", "2S"]}
        state = step2_state(MapDuelConfig(suit_order="none"), board=board, pools=pools, current=0)
        stub = CoinStub(value)
        act(state, confront("KH", "KS"), stub)
        assert stub.calls == 1
        gone = [c for c in ("KH", "KS") if is_removed(state, c)]
        assert len(gone) == 1
        losers.append(gone[0])
    assert sorted(losers) == ["KH", "KS"]


@pytest.mark.parametrize("attacker, defender, rule, coin", [
    ("JH", "JS", "pairwise", True),
    ("JH", "JS", "major_minor", False),
    ("JD", "JS", "major_minor", True),
    ("JC", "JD", "pairwise", True),
    ("JC", "JD", "major_minor", False),
    ("JD", "JC", "pairwise", False),
])
def test_flag_jack_suit_rule(attacker, defender, rule, coin):
    """Ruling 37: "pairwise" low = lower in the suit order; "major_minor" low = C, D, high =
    H, S. Without the low/high case the aggressor wins and no coin is drawn."""
    seat = face(attacker)[0]
    # the attacker's forward cell holds the defender
    a_pos, d_pos = ((6, 6), (5, 6)) if seat == 0 else ((5, 6), (6, 6))
    board = with_filler({a_pos: attacker, d_pos: defender, (12, 6): "KD", (0, 6): "KC"})
    config = MapDuelConfig(jack_suit_rule=rule)
    if coin:
        losers = []
        for value in (0.1, 0.9):
            state = step2_state(config, board=board, current=seat)
            stub = CoinStub(value)
            act(state, confront(attacker, defender), stub)
            assert stub.calls == 1
            gone = [c for c in (attacker, defender) if is_removed(state, c)]
            assert len(gone) == 1
            losers.append(gone[0])
        assert sorted(losers) == sorted([attacker, defender])
    else:
        state = step2_state(config, board=board, current=seat)
        act(state, confront(attacker, defender), NoCoin())
        assert is_removed(state, defender)
        assert on_map(state, attacker, *a_pos)


def test_flag_ace_vs_ace():
    """Ruling 38: Ace vs Ace is the aggressor's coin by default (heads removes the defender,
    tails nothing; the aggressor is never removed); ``"aggressor_wins"`` removes the defender
    without a coin."""
    board = with_filler({(9, 3): "AD", (6, 6): "AC", (12, 9): "JD", (0, 9): "JC"})
    outcomes = []
    for value in (0.1, 0.9):
        state = step2_state(board=board, current=0)
        stub = CoinStub(value)
        act(state, confront("AD", "AC"), stub)
        assert stub.calls == 1
        assert on_map(state, "AD", 9, 3)
        outcomes.append(is_removed(state, "AC"))
    assert sorted(outcomes) == [False, True]
    state = step2_state(MapDuelConfig(ace_vs_ace="aggressor_wins"), board=board, current=0)
    act(state, confront("AD", "AC"), NoCoin())
    assert is_removed(state, "AC") and on_map(state, "AD", 9, 3)


def test_flag_no_progress_turns_and_reset():
    """Ruling 45: ``no_progress_turns=3``; a consume resets the count."""
    config = MapDuelConfig(no_progress_turns=3)
    board = _idle_board()
    board.update({(7, 6): "3D", (3, 3): "8C"})
    state = build_state(config, board=board, current=0)
    finish_turn(state)
    finish_turn(state)
    assert state.no_progress == 2 and state.phase != Phase.OVER
    assert state.current == 0
    act(state, L.index(Kind.PASS_STEP1))
    act(state, L.consume_index(fidx("KD"), BACK))  # 3D into the pool: progress
    if state.current == 0 and state.phase == Phase.STEP_2:  # else the engine ended the turn itself
        act(state, L.index(Kind.END_TURN))
    assert state.current == 1 and state.phase == Phase.STEP_1
    assert state.no_progress == 0 and state.phase != Phase.OVER
    finish_turn(state)
    finish_turn(state)
    assert state.phase != Phase.OVER and state.no_progress == 2
    finish_turn(state)
    assert state.phase == Phase.OVER and state.outcome == DRAW
    assert rules.final_rewards(state) == [0, 0]


def test_flag_max_turns_truncation():
    """Ruling 45: after ``length_limit`` main-game turns the game is truncated (reward 0)."""
    config = MapDuelConfig(length_limit=4, no_progress_turns=50)
    rng = np.random.default_rng(3)
    state = rules.new_game(config, rng)
    play_setup(state, rng)
    assert state.phase == Phase.STEP_1
    turns = 0
    while state.phase != Phase.OVER:
        finish_turn(state)
        turns += 1
        assert turns <= 4
    assert turns == 4
    assert state.outcome == TRUNCATED
    assert rules.is_terminal(state)
    assert rules.final_rewards(state) == [0, 0]


def test_flag_max_turns_truncation_built_state():
    """Ruling 45 on a built state: ``length_limit=2`` ends after two idle turns."""
    state = build_state(MapDuelConfig(length_limit=2), board=_idle_board(), current=0, turn=1)
    finish_turn(state)
    assert state.phase != Phase.OVER
    finish_turn(state)
    assert state.phase == Phase.OVER and state.outcome == TRUNCATED


def test_flag_first_player():
    """Ruling 13: seat 0 (``player_0``) starts by default (second setup card, first main turn),
    ``first_player=1`` makes seat 1 start; "random" picks either seat, by the rng."""
    for seed in range(5):
        state = rules.new_game(MapDuelConfig(), np.random.default_rng(seed))
        assert state.first == 0 and state.current == 0 and state.phase == Phase.SETUP_PLACE
        state = rules.new_game(MapDuelConfig(first_player=1), np.random.default_rng(seed))
        assert state.first == 1 and state.current == 1 and state.phase == Phase.SETUP_PLACE
    firsts = set()
    for seed in range(20):
        state = rules.new_game(MapDuelConfig(first_player="random"), np.random.default_rng(seed))
        assert state.phase == Phase.SETUP_PLACE
        assert state.current == state.first
        firsts.add(state.first)
    assert firsts == {0, 1}


def test_first_player_takes_a_seat_not_an_agent_name():
    """``first_player`` is a seat (0, 1) or ``"random"``; an agent name such as ``"player_1"``
    is refused rather than guessed at."""
    with pytest.raises(ValueError, match="first_player"):
        MapDuelConfig(first_player="player_1")


def test_first_player_random_moves_first_in_main_game():
    """Ruling 13: the first player also places its starting face first and takes turn 1."""
    for seed in range(12):
        rng = np.random.default_rng(seed)
        state = rules.new_game(MapDuelConfig(first_player="random"), rng)
        first = state.first
        placements = {0: 0, 1: 0}
        while state.phase == Phase.SETUP_PLACE:
            placements[state.current] += 1
            actions = rules.legal_actions(state)
            rules.apply_action(state, actions[int(rng.integers(len(actions)))], rng)
        assert placements == {first: 18, 1 - first: 17}
        assert state.phase == Phase.SETUP_FACE and state.current == first
        play_setup(state, rng)
        assert state.phase == Phase.STEP_1 and state.current == first


# =========================================================================== config validation


@pytest.mark.parametrize("kwargs, error", [
    ({"board_size": 12}, ValueError),
    ({"board_size": 7}, ValueError),
    ({"board_size": 27}, ValueError),
    ({"board_size": "13"}, TypeError),
    ({"board_size": True}, TypeError),
    ({"board_size": 13.0}, TypeError),
    ({"first_player": "player_0"}, ValueError),
    ({"first_player": "player_2"}, ValueError),
    ({"first_player": 2}, ValueError),
    ({"first_player": -1}, ValueError),
    ({"first_player": True}, TypeError),
    ({"first_player": 0.0}, TypeError),
    ({"first_player": None}, TypeError),
    ({"king_reach": "diagonal"}, ValueError),
    ({"placement_rule": "any"}, ValueError),
    ({"ace_blocking": "all"}, ValueError),
    ({"suit_order": "SHDC"}, ValueError),
    ({"jack_suit_rule": "major"}, ValueError),
    ({"ace_vs_ace": "defender_wins"}, ValueError),
    ({"sacrifice_exact": 1}, TypeError),
    ({"build_uses_placement_rule": "yes"}, TypeError),
    ({"hidden_pools": None}, TypeError),
    ({"no_progress_turns": 0}, ValueError),
    ({"no_progress_turns": 2.5}, TypeError),
    ({"length_limit": 0}, ValueError),
    ({"length_limit": False}, TypeError),
    ({"shaping": -0.1}, ValueError),
    ({"shaping": 0.6}, ValueError),
    ({"shaping": True}, TypeError),
    ({"shaping": "0.1"}, TypeError),
])
def test_config_validation(kwargs, error):
    with pytest.raises(error):
        MapDuelConfig(**kwargs)


def test_config_accepts_valid_values():
    config = MapDuelConfig(board_size=9, first_player="random", king_reach="all8",
                           placement_rule="any_neighbour", sacrifice_exact=True,
                           build_uses_placement_rule=True, ace_blocking="cards", suit_order="none",
                           jack_suit_rule="major_minor", ace_vs_ace="aggressor_wins",
                           hidden_pools=True, no_progress_turns=1, length_limit=1, shaping=0)
    assert config.shaping == 0.0 and isinstance(config.shaping, float)
    assert MapDuelConfig(board_size=25).board_size == 25
    assert MapDuelConfig().board_size == 13
    assert layout_for(13).size == 396


# =========================================================================== frame


def test_directions_and_ego_frame():
    """Rulings 10-12: forward is north for player_0 and south for player_1; player_1's cells are
    the board rotated 180 degrees."""
    for seat in (0, 1):
        assert [tuple(d) for d in rules.DIRECTIONS[seat]] == list(EXPECTED_DIRECTIONS[seat])
    state = build_state(board=FILLER)
    C = B * B
    for x in range(C):
        assert rules.to_ego(state, 0, x) == x
        assert rules.to_ego(state, 1, x) == C - 1 - x
        for seat in (0, 1):
            assert rules.from_ego(state, seat, rules.to_ego(state, seat, x)) == x


def test_player2_actions_are_egocentric():
    """Ruling 12: player_1's CONSUME forward takes the card south of its face; its BUILD right
    goes west."""
    board = with_filler({(5, 6): "KC", (6, 6): "4D", (12, 3): "KD"})
    state = step2_state(board=board, pools={1: ["9S"]}, current=1)
    ok = legal(state)
    assert L.consume_index(fidx("KC"), FORWARD) in ok
    assert L.consume_index(fidx("KC"), BACK) not in ok  # (4,6) empty
    assert L.build_index(fidx("KC"), RIGHT) in ok
    act(state, L.build_index(fidx("KC"), RIGHT))
    act(state, rules.pool_action(state, num("9S")))
    assert at(state, 5, 5) == num("9S")
    assert state.pools[1][num("9S")] == 0


# =========================================================================== whole games


def _check_mask(state, L=L):
    mask = np.asarray(rules.legal_mask(state))
    assert mask.dtype == np.int8
    assert mask.shape == (L.size,)
    by_is_legal = np.array([1 if rules.is_legal(state, i) else 0 for i in range(L.size)], dtype=np.int8)
    assert np.array_equal(mask, by_is_legal)
    assert rules.legal_actions(state) == [int(i) for i in np.flatnonzero(mask)]


RANDOM_GAMES = [
    (0, MapDuelConfig(length_limit=40), 1),
    (1, MapDuelConfig(length_limit=40), 1),
    (2, MapDuelConfig(length_limit=40, first_player="random"), 1),
    (3, MapDuelConfig(), 5),
    (4, MapDuelConfig(king_reach="all8", ace_blocking="faces"), 5),
    (5, MapDuelConfig(), 5),
    (6, MapDuelConfig(sacrifice_exact=True, build_uses_placement_rule=True, suit_order="none",
                      jack_suit_rule="major_minor", ace_vs_ace="aggressor_wins",
                      placement_rule="any_neighbour", ace_blocking="cards"), 5),
    (7, MapDuelConfig(board_size=9, no_progress_turns=5), 5),
]


@pytest.mark.parametrize("seed, config, check_every", RANDOM_GAMES)
def test_random_games_conserve_cards_and_masks(seed, config, check_every):
    """Seeded masked random play from ``new_game`` to the end: 52 cards after every step, the
    mask agrees with ``is_legal``, illegal actions raise and leave the state untouched, and the
    game ends by ``length_limit``."""
    L = layout_for(config.board_size)
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    assert state.card_count() == 52
    steps = 0
    total = [0.0, 0.0]
    while not rules.is_terminal(state):
        assert state.turn <= config.length_limit
        if steps % check_every == 0:
            _check_mask(state, L)
        actions = rules.legal_actions(state)
        assert actions, f"no legal action in phase {state.phase}"
        if steps % 7 == 0:
            illegal = sorted(set(range(L.size)) - set(actions))
            bad = illegal[int(rng.integers(len(illegal)))]
            before = snapshot(state)
            with pytest.raises(IllegalActionError):
                rules.apply_action(state, bad, rng)
            assert snapshot(state) == before
        rewards = rules.apply_action(state, actions[int(rng.integers(len(actions)))], rng)
        total = [total[0] + rewards[0], total[1] + rewards[1]]
        assert state.card_count() == 52
        steps += 1
        assert steps < 20_000
    assert state.phase == Phase.OVER
    assert state.outcome in (WON, DRAW, TRUNCATED)
    assert rules.legal_actions(state) == []
    assert not np.any(rules.legal_mask(state))
    final = rules.final_rewards(state)
    assert final[0] + final[1] == 0
    assert total == [float(x) for x in final]
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.index(Kind.END_TURN), rng)


def test_new_game_stacked_deck():
    """``new_game(deck=...)``: the first card takes the centre, the second is drawn for
    player_0; the rest stay in the setup deck."""
    deck = deck_order(["9D", "4H", "2C"])
    state = rules.new_game(MapDuelConfig(), np.random.default_rng(0), deck=deck)
    assert at(state, 6, 6) == num("9D")
    assert state.drawn == num("4H")
    assert len(state.setup_deck) == 34
    assert state.card_count() == 52
    act(state, cell_action(state, 0, 6, 7))
    assert state.drawn == num("2C") and state.current == 1
    assert sorted(state.setup_deck + [state.drawn] + state.number_cards_on_map()) == list(range(36))


# =========================================================================== further rulings


def test_step1_swaps_adjacent_and_ace():
    """Rulings 21, 22: a face swaps with an orthogonally adjacent number card (never an empty cell
    or a face); any own face swaps with an own Ace at any distance, not the Ace with itself."""
    board = with_filler({(6, 6): "KD", (5, 6): "5C", (6, 7): "JC", (2, 2): "AH", (0, 6): "KC"})
    state = build_state(board=board, current=0)
    ok = legal(state)
    king, ace = fidx("KD"), fidx("AH")
    assert L.swap_adj_index(king, FORWARD) in ok
    assert L.swap_adj_index(king, RIGHT) not in ok  # an enemy face
    assert L.swap_adj_index(king, LEFT) not in ok and L.swap_adj_index(king, BACK) not in ok  # empty
    assert L.swap_ace_index(king, 1) in ok
    assert L.swap_ace_index(king, 0) not in ok  # AD is not on the map
    assert L.swap_ace_index(ace, 1) not in ok  # not with itself
    assert ok <= set(range(L.starts[Kind.FACE], L.starts[Kind.CONSUME])) | {L.index(Kind.PASS_STEP1)}
    assert L.index(Kind.END_TURN) not in ok
    act(state, L.swap_ace_index(king, 1))
    assert on_map(state, "KD", 2, 2) and on_map(state, "AH", 6, 6)
    assert state.phase == Phase.STEP_2 and state.step1_done
    assert not (legal(state) & set(range(L.starts[Kind.SWAP_ADJ], L.starts[Kind.POOL])))  # one step-1 action only
    assert state.card_count() == 52


def test_step2_auto_end_turn_when_only_end_turn():
    """Section 3: a step 2 offering nothing but END_TURN ends the turn by itself."""
    board = with_filler({(6, 6): "KD", (0, 6): "KC", (1, 6): "4D"})
    state = build_state(board=board, current=0, turn=1)
    act(state, L.index(Kind.PASS_STEP1))
    assert state.current == 1 and state.phase == Phase.STEP_1 and state.turn == 2
    assert state.no_progress == 1


def test_win_and_loss_at_once_is_a_draw():
    """Ruling 44 (built state): red's last face dies as aggressor while the map is all red: both
    succeed -> draw."""
    board = {(6, 6): "JD", (5, 6): "KC", (9, 9): "4D", (9, 10): "5H"}
    state = step2_state(board=board, pools={1: ["9C"]}, current=0)
    rewards = act(state, confront("JD", "KC"), NoCoin())
    assert state.phase == Phase.OVER and state.outcome == DRAW
    assert rewards == [0, 0] and rules.final_rewards(state) == [0, 0]


def test_last_enemy_face_removed_wins():
    """Ruling 43/44: removing the opponent's last face card wins, even with its Face Deck full."""
    board = with_filler({(6, 6): "KD", (5, 6): "QC"})
    state = step2_state(board=board, pools={0: ["9D"]}, current=0)
    rewards = act(state, confront("KD", "QC"), NoCoin())
    assert rewards == [1, -1] and state.winner == 0 and state.outcome == WON


def test_confront_values_king_and_queen():
    """Ruling 35(d): a King counts its pool's cards of both own suits; a Queen only its pool's
    cards of the Queen's suit."""
    # black KC value: 3C + 4S = 7 (9H does not count); red QD value: 6D = 6 (8H not)
    board = with_filler({(5, 6): "KC", (6, 6): "QD", (12, 6): "JD", (0, 6): "JS"})
    state = step2_state(board=board, pools={1: ["3C", "4S", "9H"], 0: ["6D", "8H"]}, current=1)
    act(state, confront("KC", "QD"), NoCoin())
    assert is_removed(state, "QD")
    # red QH value 8 (8H) beats the same King (7)
    board = with_filler({(5, 6): "KC", (6, 6): "QH", (12, 6): "JD", (0, 6): "JS"})
    state = step2_state(board=board, pools={1: ["3C", "4S", "9H"], 0: ["6D", "8H"]}, current=1)
    act(state, confront("KC", "QH"), NoCoin())
    assert is_removed(state, "KC") and on_map(state, "QH", 6, 6)


def test_edges_are_never_legal():
    """Ruling 7: no direction off the board is legal (consume, build, swap)."""
    board = with_filler({(12, 6): "KD", (11, 6): "5C", (0, 3): "KC"})
    state = step2_state(board=board, pools={0: ["9D"]}, current=0)
    ok = legal(state)
    king = fidx("KD")
    assert L.build_index(king, BACK) not in ok  # row 13 does not exist
    assert L.build_index(king, LEFT) in ok and L.build_index(king, RIGHT) in ok
    assert L.consume_index(king, FORWARD) in ok


def test_illegal_indices_raise_and_leave_state():
    """``apply`` rejects out-of-range and illegal indices without touching the state."""
    board = with_filler({(6, 6): "KD", (5, 6): "5C", (0, 6): "KC"})
    state = build_state(board=board, current=0)
    before = snapshot(state)
    for bad in (-1, L.size, L.index(Kind.END_TURN), L.consume_index(fidx("KD"), FORWARD), L.index(Kind.STOP)):
        assert not rules.is_legal(state, bad)
        with pytest.raises(IllegalActionError):
            rules.apply_action(state, bad, NoCoin())
        assert snapshot(state) == before


def test_shaping_reward():
    """Section 1 option: ``shaping=c`` pays ``c *`` the change in the own colour's share, zero-sum."""
    board = {(5, 6): "5C", (6, 6): "KD", (3, 3): "2D", (3, 4): "3S", (0, 6): "JC"}
    state = step2_state(MapDuelConfig(shaping=0.3), board=board, current=0)
    rewards = act(state, L.consume_index(fidx("KD"), FORWARD))
    # red share 1/3 -> 1/2
    assert rewards[0] == pytest.approx(0.3 * (1 / 2 - 1 / 3))
    assert rewards[1] == pytest.approx(-rewards[0])


def test_determinize_hidden_start_face():
    """Ruling 18: for the other seat, determinize resamples the face-down card among J/Q/K on the
    same cell; for its owner it changes nothing."""
    state = _face_setup_state()
    act(state, L.face_index(fidx("QH")))
    act(state, cell_action(state, 0, 7, 6))
    x = cell(7, 6)
    seen = set()
    for seed in range(30):
        copy = rules.determinize(state, 1, np.random.default_rng(seed))
        seat, f = copy.hidden_face
        assert seat == 0 and f % 4 != 3
        assert copy.face_pos[0][f] == x and copy.board[x] == face_code(0, f)
        assert sum(s == ON_MAP for s in copy.face_status[0]) == 1
        assert copy.card_count() == 52
        seen.add(f)
    assert len(seen) > 1
    own = rules.determinize(state, 0, np.random.default_rng(0))
    assert snapshot(own) == snapshot(state)


def _planes(state, seat):
    from empire_envs.games.map_duel import observe

    obs = observe.observe(state, seat)
    return obs[: 19 * B * B].reshape(19, B * B)


def test_scenario_04_face_down_observation():
    """Scenario 4 (observation): while QH lies face down at (7,6), player_1 sees plane 17 at the
    rotated cell and no suit or Q plane there; its owner sees its Queen. After player_1 places,
    both are visible to both."""
    state = _face_setup_state()
    act(state, L.face_index(fidx("QH")))
    act(state, cell_action(state, 0, 7, 6))
    x1 = ego_cell(state, 1, 7, 6)
    assert x1 == B * B - 1 - cell(7, 6)
    p1 = _planes(state, 1)
    assert p1[17, x1] == 1
    assert p1[17].sum() == 1
    assert not p1[4:16, x1].any()  # no suit, no face plane
    p0 = _planes(state, 0)
    assert p0[17].sum() == 0
    assert p0[9, cell(7, 6)] == 1 and p0[5, cell(7, 6)] == 1  # my Queen, my higher suit (hearts)
    act(state, L.face_index(fidx("KS")))
    act(state, cell_action(state, 1, 6, 7))
    p1 = _planes(state, 1)
    assert p1[17].sum() == 0
    assert p1[13, x1] == 1 and p1[7, x1] == 1  # enemy Queen, the enemy's higher suit (hearts)
    assert p1[10, ego_cell(state, 1, 6, 7)] == 1  # my King
    p0 = _planes(state, 0)
    assert p0[14, cell(6, 7)] == 1 and p0[7, cell(6, 7)] == 1  # enemy King, its higher suit (spades)
