"""The fair optimum of Empire Solitaire (``games.solitaire.fair``) and the ``optimal`` agent.

The expectimax is checked against a plain brute force written here on the real rules
(``rules.legal_actions`` / ``rules.apply_action``): every action, and at every REVEAL every unseen
card as the top of the stock, no table, no pruning, no card classes.
"""

from __future__ import annotations

import random

import pytest

from empire_envs.agents.base import Agent
from empire_envs.agents.solitaire import GreedySolitaireAgent, OptimalSolitaireAgent, RevealThenSolveAgent
from empire_envs.core.cards import parse_card
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire import rules
from empire_envs.games.solitaire.fair import FairPosition, FairSearch, connectivity_bound, evaluate
from empire_envs.games.solitaire.state import NUM_CELLS, ONGOING, SolitaireState

pytest.importorskip("numba")  # the leaves are solved by the fast solver


def _grid(cells: dict[int, str]) -> tuple[int, ...]:
    grid = [-1] * NUM_CELLS
    for cell, card in cells.items():
        grid[cell] = parse_card(card)
    return tuple(grid)


def _state(position: FairPosition, captured: str = "KS") -> SolitaireState:
    """A rules state for ``position``: the stock holds placeholder cards (the brute force puts
    the card it deals on top before each REVEAL); ``out`` holds one captured card, so the stock
    is open, as the position's card count says."""
    state = SolitaireState()
    state.grid = list(position.grid)
    state.out = [parse_card(captured)]
    state.revealed = position.revealed
    placeholders = sorted(position.unseen)[: position.stock_left]
    state.stock = list(placeholders)
    state.outcome = ONGOING
    return state


def brute_force(state: SolitaireState, unseen: frozenset[int]) -> float:
    """The fair optimum by plain expectimax over the rules: max over the legal actions; REVEAL
    is the mean over the unseen cards, each in turn put on top of the stock."""
    if state.outcome != ONGOING:
        return 1.0 if rules.returns(state) > 0 else 0.0
    values = []
    for action in rules.legal_actions(state):
        if action == A.REVEAL:
            outcomes = []
            for card in sorted(unseen):
                child = state.clone()
                child.stock[-1] = card
                rules.apply_action(child, action)
                outcomes.append(brute_force(child, unseen - {card}))
            values.append(sum(outcomes) / len(outcomes))
        else:
            child = state.clone()
            rules.apply_action(child, action)
            values.append(brute_force(child, unseen))
    return max(values, default=0.0)


def _position(cells: dict[int, str], unseen: str, stock_left: int, revealed: str | None = None) -> FairPosition:
    return FairPosition(
        _grid(cells),
        frozenset(parse_card(c) for c in unseen.split()),
        stock_left,
        parse_card(revealed) if revealed else -1,
    )


# hand-built positions: a few grid cards, a small unseen set, one or two stock cards
HAND_BUILT = {
    # two clubs side by side, one card to come: a club or a 2 joins them, the red 9 never does
    "one card, one of three loses": _position({0: "AC", 1: "2C"}, "3C 9H 2D", 1),
    # the 5S waits to be placed, then one card of three comes
    "a revealed card to place": _position({0: "AH", 2: "9S", 7: "9H"}, "KS 2D 9D", 1, revealed="5S"),
    # two cards to come out of four: the 3s and the spades must stay linked to the diamond
    "two cards to come": _position({0: "3D", 6: "3S", 12: "JS"}, "4D 9S 8H KC", 2),
    # five cards, one to come: capture first or reveal first
    "captures or the reveal": _position({0: "4H", 1: "4S", 2: "9S", 3: "9D", 5: "QD"}, "QH 2C 5S", 1),
}


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_expectimax_equals_brute_force(name: str) -> None:
    position = HAND_BUILT[name]
    expected = brute_force(_state(position), position.unseen)
    result = evaluate(position)
    assert result.exact
    assert result.lower == pytest.approx(expected, abs=1e-12)
    assert result.upper == pytest.approx(expected, abs=1e-12)


def test_hand_built_values_include_uncertain_ones() -> None:
    """The comparison is not between trivial 0s and 1s: some values lie strictly between."""
    values = [evaluate(p).lower for p in HAND_BUILT.values()]  # equal to the brute force (above)
    assert sum(0.0 < v < 1.0 for v in values) >= 3


def _random_position(rng: random.Random, stock_left: int) -> FairPosition:
    """A small random position: 3 grid cards on random cells (4 with one card to come), 3-4
    unseen cards, drawn from a handful of ranks so that cards often match (the brute force grows
    fast with the grid)."""
    deck = [suit * 13 + rank for suit in range(4) for rank in (0, 1, 2, 5, 9)]
    rng.shuffle(deck)
    in_grid = 5 - stock_left
    cells = rng.sample(range(NUM_CELLS), in_grid)
    grid = [-1] * NUM_CELLS
    for cell, card in zip(cells, deck[:in_grid], strict=True):
        grid[cell] = card
    unseen = frozenset(deck[in_grid : in_grid + rng.randint(3, 4)])
    return FairPosition(tuple(grid), unseen, stock_left)


def _check_random_positions(seed: int, count: int, stock_left: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        position = _random_position(rng, stock_left)
        expected = brute_force(_state(position), position.unseen)
        result = evaluate(position)
        assert result.exact
        assert result.lower == pytest.approx(expected, abs=1e-12), position


def test_expectimax_equals_brute_force_on_random_small_positions() -> None:
    _check_random_positions(seed=20, count=10, stock_left=1)


@pytest.mark.soak
def test_expectimax_equals_brute_force_on_random_positions_with_two_cards_to_come() -> None:
    _check_random_positions(seed=21, count=40, stock_left=2)


def check_bounds_at_every_node_limit(search, position: FairPosition) -> None:
    """``search(position, node_limit=...)`` (a fresh search each call) stopped at every node
    limit up to the exact search's node count: its bounds hold the exact value every time."""
    exact = search(position)
    stopped = 0
    for limit in range(1, exact.nodes + 1):
        result = search(position, node_limit=limit)
        assert result.lower - 1e-12 <= exact.lower <= result.upper + 1e-12
        stopped += not result.exact
    assert stopped > 0  # the limits did stop the search


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_bounds_bracket_the_value_at_every_node_limit(name: str) -> None:
    check_bounds_at_every_node_limit(evaluate, HAND_BUILT[name])


def test_bounds_bracket_the_value_under_a_time_limit_on_a_whole_deal() -> None:
    """A real deal does not finish in 0.2 s; the bounds are still ordered and in [0, 1], and a
    longer search keeps its lower bound no lower (the table is kept)."""
    state = rules.new_game(rng=3)
    position = FairPosition.from_state(state)
    search = FairSearch()
    first = search.evaluate(position, time_limit=0.2)
    second = search.evaluate(position, time_limit=0.2)
    assert 0.0 <= first.lower <= first.upper <= 1.0
    assert first.lower <= second.lower <= second.upper <= first.upper


def test_connectivity_bound_counts_the_cards_that_join_the_last_group() -> None:
    grid = _grid({0: "AC", 1: "2C"})
    cards = [c for c in grid if c >= 0]
    unseen = {parse_card(c) for c in ("3C", "9H", "2D", "KS")}
    mask = sum(1 << c for c in unseen)
    assert connectivity_bound(cards, mask, 1) == pytest.approx(2 / 4)  # 3C (club) and 2D (a 2)
    two_groups = cards + [parse_card("9H")]
    assert connectivity_bound(two_groups, mask, 0) == 0.0
    assert connectivity_bound(two_groups, mask, 2) == 1.0


def test_action_bounds_cover_the_legal_actions() -> None:
    position = HAND_BUILT["captures or the reveal"]
    bounds = FairSearch().action_bounds(position)
    assert set(bounds) == set(rules.legal_actions(_state(position)))
    assert max(lo for lo, _ in bounds.values()) == pytest.approx(evaluate(position).lower)


def test_from_state_reads_the_stock_size_only() -> None:
    state = rules.new_game(rng=5)
    position = FairPosition.from_state(state)
    assert position.stock_left == 3
    assert len(position.unseen) == 52 - 15
    assert set(state.stock) <= position.unseen


def _mid_game_state() -> SolitaireState:
    """A deal played by reveal-then-solve up to its first decision after the first reveal."""
    state = rules.new_game(rng=7)
    player = RevealThenSolveAgent()
    while len(state.stock) == 3 or state.revealed >= 0:
        rules.apply_action(state, player.act(None, rules.legal_mask(state), state))
    return state


def test_optimal_agent_never_reads_the_stock() -> None:
    state = _mid_game_state()
    assert state.stock and state.outcome == ONGOING
    mask = rules.legal_mask(state)
    chosen = OptimalSolitaireAgent(time_limit=None, node_limit=3000).act(None, mask, state)
    swapped = state.clone()
    position = FairPosition.from_state(state)
    others = sorted(position.unseen - set(state.stock))
    swapped.stock = others[: len(state.stock)]  # other unseen cards, the same count
    swapped.unused = others[len(state.stock) :] + list(state.stock)
    assert OptimalSolitaireAgent(time_limit=None, node_limit=3000).act(None, mask, swapped) == chosen


@pytest.mark.parametrize("seed", [0, 1])
def test_optimal_agent_plays_only_legal_moves(seed: int) -> None:
    state = rules.new_game(rng=seed)
    agent = OptimalSolitaireAgent(time_limit=None, node_limit=500)
    agent.reset()
    steps = 0
    while state.outcome == ONGOING:
        mask = rules.legal_mask(state)
        action = agent.act(None, mask, state)
        assert mask[action] == 1
        rules.apply_action(state, action)
        steps += 1
    assert steps <= rules.MAX_GAME_LENGTH


def test_optimal_agent_plays_the_exact_best_action_on_a_small_position() -> None:
    """Where the search finishes, the agent plays an action of the optimal value (the agent
    sees every card not in the grid or captured as unseen: 46 cards here)."""
    state = _state(HAND_BUILT["captures or the reveal"])
    position = FairPosition.from_state(state)
    value = evaluate(position)
    assert value.exact
    bounds = FairSearch().action_bounds(position)
    best = max(lo for lo, _ in bounds.values())
    assert best == pytest.approx(value.lower)
    assert min(hi for _, hi in bounds.values()) < best  # some action is proven worse: the choice matters
    action = OptimalSolitaireAgent(time_limit=None, node_limit=10**6).act(None, rules.legal_mask(state), state)
    assert bounds[action][0] == pytest.approx(best)


def _where_greedy_and_reveal_solve_disagree() -> tuple[SolitaireState, object]:
    """The first position of reveal-then-solve's game of deal 7 with the stock still hidden where
    greedy would move otherwise (at the first chance to reveal: greedy captures instead)."""
    state = rules.new_game(rng=7)
    player = RevealThenSolveAgent()
    while state.stock:
        mask = rules.legal_mask(state)
        if GreedySolitaireAgent().act(None, mask, state) != RevealThenSolveAgent().act(None, mask, state):
            return state, mask
        rules.apply_action(state, player.act(None, mask, state))
    raise AssertionError("greedy and reveal-solve agree all along deal 7")


def test_optimal_agent_falls_back_on_its_prior_where_the_search_proves_nothing() -> None:
    state, mask = _where_greedy_and_reveal_solve_disagree()
    greedy_move = GreedySolitaireAgent().act(None, mask, state)
    reveal_solve_move = RevealThenSolveAgent().act(None, mask, state)
    # one node proves no action better than another
    assert OptimalSolitaireAgent(time_limit=None, node_limit=1, prior="greedy").act(None, mask, state) == greedy_move
    assert OptimalSolitaireAgent(time_limit=None, node_limit=1).act(None, mask, state) == reveal_solve_move


def test_optimal_agent_overrules_its_prior_where_the_search_proves_a_better_move() -> None:
    state = _state(HAND_BUILT["captures or the reveal"])
    position = FairPosition.from_state(state)
    bounds = FairSearch().action_bounds(position)
    best = max(lo for lo, _ in bounds.values())
    worse = [action for action, (_, hi) in bounds.items() if hi < best]
    agent = OptimalSolitaireAgent(time_limit=None, node_limit=10**6, prior=FirstOf(worse))
    action = agent.act(None, rules.legal_mask(state), state)
    assert bounds[action][0] == pytest.approx(best) and action not in worse


class FirstOf(Agent):
    """A prior that plays the first of ``moves`` (a proven-worse move, in the test above)."""

    def __init__(self, moves: list[int]) -> None:
        self.moves = moves

    def act(self, observation, action_mask, state=None) -> int:
        return self.moves[0]


def test_agent_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        OptimalSolitaireAgent(time_limit=None, node_limit=None)
    with pytest.raises(ValueError):
        OptimalSolitaireAgent(time_limit=0.0)


def test_fair_optimum_command_reports_bounds_that_bracket_each_deal(tmp_path, capsys) -> None:
    """``python -m empire_envs fair-optimum``: after 2 reveals most positions finish exactly, and
    the summary's means are those of the per-deal rows."""
    import json

    from empire_envs.cli import main as cli_main

    out = tmp_path / "fair.json"
    argv = ["fair-optimum", "--deals", "3", "--seconds", "1", "--after-reveals", "2", "--engine", "python"]
    assert cli_main([*argv, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    rows, summary = report["deals"], report["summary"]
    assert summary["deals"] == len(rows) >= 1
    assert all(0.0 <= row["lower"] <= row["upper"] <= 1.0 for row in rows)
    assert all(row["lower"] == row["upper"] for row in rows if row["exact"])
    assert summary["mean_lower"] == pytest.approx(sum(row["lower"] for row in rows) / len(rows))
    assert summary["exact_deals"] == sum(row["exact"] for row in rows)
    assert "mean fair optimum in [" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:  # refused when parsed, named
        cli_main(["fair-optimum", "--deals", "1", "--seconds", "0"])
    assert refused.value.code == 2
    assert "--seconds: must be positive" in capsys.readouterr().err
