"""The compiled fair search (``games.solitaire.fair_kernel``) against the brute force, the Python
expectimax and the known-order solver.

Each check builds its positions (hand-built, random small ones from a fixed seed, or real deals
played to their last reveals): none depends on a lucky deal. The brute force is
``test_solitaire_fair.brute_force``, a plain expectimax over the real rules.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from empire_envs.evaluation.fair_optimum import play_reveals
from empire_envs.games.solitaire import rules
from empire_envs.games.solitaire.fair import FairPosition, FairSearch
from empire_envs.games.solitaire.solver import solve
from empire_envs.games.solitaire.state import NUM_CELLS

from .test_solitaire_fair import (
    HAND_BUILT,
    _position,
    _random_position,
    _state,
    brute_force,
    check_bounds_at_every_node_limit,
)

pytest.importorskip("numba")

fair_kernel = pytest.importorskip("empire_envs.games.solitaire.fair_kernel")
CompiledFairSearch = fair_kernel.CompiledFairSearch

SMALL_TABLE = 16  # 2**16 entries: enough for these positions, quick to allocate


def _evaluate(position: FairPosition, **limits) -> fair_kernel.FairResult:
    return CompiledFairSearch(SMALL_TABLE).evaluate(position, **limits)


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_compiled_search_equals_brute_force_on_hand_built_positions(name: str) -> None:
    position = HAND_BUILT[name]
    expected = brute_force(_state(position), position.unseen)
    result = _evaluate(position)
    assert result.exact
    assert result.lower == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("stock_left, count, seed", [(1, 12, 30), (2, 4, 31)])
def test_compiled_search_equals_brute_force_on_random_small_positions(stock_left: int, count: int, seed: int) -> None:
    rng = random.Random(seed)
    values = []
    for _ in range(count):
        position = _random_position(rng, stock_left)
        expected = brute_force(_state(position), position.unseen)
        result = _evaluate(position)
        assert result.exact
        assert result.lower == pytest.approx(expected, abs=1e-12), position
        values.append(expected)
    assert len(set(values)) >= 2  # not all the same value: the comparison can tell them apart


# real deals played by reveal-solve to their last reveal (14-card grids, 35 unseen cards)
@pytest.fixture(scope="module")
def late_positions() -> list[FairPosition]:
    positions = []
    for seed in range(40):
        state = rules.new_game(rng=seed)
        if play_reveals(state, 2):
            positions.append(FairPosition.from_state(state))
    return positions


def test_compiled_search_equals_the_python_expectimax_on_real_last_reveals(late_positions) -> None:
    compared = 0
    values = set()
    for position in late_positions:
        python = FairSearch().evaluate(position, node_limit=3000)
        if not python.exact:
            continue
        compiled = _evaluate(position)
        assert compiled.exact
        assert compiled.lower == pytest.approx(python.lower, abs=1e-12), position
        compared += 1
        values.add(round(python.lower, 9))
        if compared == 8:
            break
    assert compared == 8
    assert len(values) >= 2


@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_compiled_bounds_bracket_the_value_at_every_node_limit(name: str) -> None:
    check_bounds_at_every_node_limit(_evaluate, HAND_BUILT[name])


def test_compiled_bounds_bracket_the_value_on_a_stopped_last_reveal(late_positions) -> None:
    """A real position stopped at many node limits: every pair of bounds holds the exact value."""
    position = next(p for p in late_positions if 0.0 < _evaluate(p).lower < 1.0)
    exact = _evaluate(position)
    for limit in np.unique(np.geomspace(1, exact.nodes, 25).astype(int)):
        result = _evaluate(position, node_limit=int(limit))
        assert result.lower - 1e-12 <= exact.lower <= result.upper + 1e-12


def test_stock_empty_verdicts_equal_the_solver() -> None:
    """_k_win (the leaves) against solver.solve on random grids of 6 to 15 cards, drawn from few
    ranks so that many are connected and the verdicts are mixed."""
    kernel = fair_kernel._load()
    search = CompiledFairSearch(18)
    rng = random.Random(40)
    deck = [suit * 13 + rank for suit in range(4) for rank in (0, 1, 2, 4, 6, 9)]
    verdicts = []
    for _ in range(300):
        cards = rng.randint(6, 15)
        grid = [-1] * NUM_CELLS
        for cell, card in zip(rng.sample(range(NUM_CELLS), cards), rng.sample(deck, cards), strict=True):
            grid[cell] = card
        state = search._state(1 << 62)
        array = np.array(grid, dtype=np.int64)
        won = kernel["win"](array, kernel["ray"], search.win_keys, search.win_bits, search.workspace, state)
        assert list(array) == grid  # the grid is restored
        expected = solve(grid, [], backend="fast") is not None
        assert won == int(expected), grid
        verdicts.append(expected)
    assert 30 <= sum(verdicts) <= 270


def test_known_order_verdicts_equal_the_solver() -> None:
    """_k_clair against solver.solve with the stock known, 1 to 3 cards to come."""
    kernel = fair_kernel._load()
    search = CompiledFairSearch(18)
    rng = random.Random(41)
    deck = [suit * 13 + rank for suit in range(4) for rank in (0, 1, 2, 4, 6, 9)]
    verdicts = []
    for trial in range(150):
        nstock = 1 + trial % 3
        cards = rng.randint(5, 15 - nstock)
        drawn = rng.sample(deck, cards + nstock)
        grid = [-1] * NUM_CELLS
        for cell, card in zip(rng.sample(range(NUM_CELLS), cards), drawn[:cards], strict=True):
            grid[cell] = card
        stock = drawn[cards:]
        state = search._state(1 << 62)
        won = kernel["clair"](
            np.array(grid, dtype=np.int64), np.array(stock, dtype=np.int64), nstock, 0, kernel["ray"],
            search.keys, search.bounds, search.bits, search.win_keys, search.win_bits, search.workspace, state,
        )  # fmt: skip
        expected = solve(grid, stock, backend="fast") is not None
        assert won == int(expected), (grid, stock)
        verdicts.append(expected)
    assert 15 <= sum(verdicts) <= 135


def _clairvoyant_by_enumeration(position: FairPosition) -> float:
    """The known-order verdict averaged over every stock order, one solve per order (no card
    classes): what clairvoyant_bound computes with classes."""
    orders = list(itertools.permutations(sorted(position.unseen), position.stock_left))
    placements = [None] if position.revealed < 0 else [c for c in range(NUM_CELLS) if position.grid[c] < 0]
    best = 0.0
    for cell in placements:
        grid = list(position.grid)
        if cell is not None:
            grid[cell] = position.revealed
        wins = sum(solve(grid, list(order), backend="fast") is not None for order in orders)
        best = max(best, wins / len(orders))
    return best


# found by search: two pairs to tidy before the reveal, and which pair to capture first depends
# on the card to come; a fair player wins 3 in 4, one who knows the card always wins
CLAIRVOYANCE_HELPS = _position({3: "6H", 4: "6D", 8: "2H", 12: "2C"}, "AC 3C AD AH", 1)


def test_clairvoyant_bound_is_the_mean_over_stock_orders_and_bounds_the_fair_value() -> None:
    rng = random.Random(42)
    positions = [*HAND_BUILT.values(), CLAIRVOYANCE_HELPS] + [_random_position(rng, 1 + i % 2) for i in range(8)]
    strictly_above = below_one = 0
    for position in positions:
        bound = CompiledFairSearch(SMALL_TABLE).clairvoyant_bound(position)
        assert bound == pytest.approx(_clairvoyant_by_enumeration(position), abs=1e-12), position
        fair = brute_force(_state(position), position.unseen)
        assert fair <= bound + 1e-12, position
        strictly_above += bound > fair + 1e-12
        below_one += bound < 1.0
    assert brute_force(_state(CLAIRVOYANCE_HELPS), CLAIRVOYANCE_HELPS.unseen) == pytest.approx(0.75)
    assert CompiledFairSearch(SMALL_TABLE).clairvoyant_bound(CLAIRVOYANCE_HELPS) == 1.0
    assert strictly_above >= 1  # a relaxation, not the value itself
    assert below_one >= 3  # and one that bites


def test_clairvoyant_bound_stays_sound_when_solves_are_cut_short() -> None:
    """Solves stopped by the node limit count as won: the bound can only rise, never below the
    fair value."""
    for position in HAND_BUILT.values():
        fair = brute_force(_state(position), position.unseen)
        full = CompiledFairSearch(SMALL_TABLE).clairvoyant_bound(position)
        cut = CompiledFairSearch(SMALL_TABLE).clairvoyant_bound(position, solve_node_limit=1)
        assert fair - 1e-12 <= full <= cut + 1e-12


def test_evaluate_takes_the_clairvoyant_bound_when_unfinished(late_positions) -> None:
    position = next(p for p in late_positions if 0.0 < _evaluate(p).lower < 1.0)
    exact = _evaluate(position)
    stopped = CompiledFairSearch(SMALL_TABLE).evaluate(position, node_limit=5, clairvoyant_bound=True)
    bound = CompiledFairSearch(SMALL_TABLE).clairvoyant_bound(position)
    assert not stopped.exact
    assert stopped.upper == pytest.approx(min(1.0, bound))
    assert stopped.lower - 1e-12 <= exact.lower <= stopped.upper + 1e-12


@pytest.mark.parametrize(
    "share, reveal_last_share", [(0.0, 0.5), (0.3, 0.0), (0.3, 0.5), (0.3, 1.0), (1.0, 0.0), (1.0, 0.5), (1.0, 1.0)]
)
@pytest.mark.parametrize("name", sorted(HAND_BUILT))
def test_value_one_test_leaves_the_value_unchanged(name: str, share: float, reveal_last_share: float) -> None:
    """Whatever share of the limits the test "is the value 1?" gets first, and whatever share of
    those it runs with REVEAL last, the search ends on the brute force's value, and the
    node-limited runs still bracket it."""
    position = HAND_BUILT[name]
    expected = brute_force(_state(position), position.unseen)
    options = {"value_one_share": share, "reveal_last_share": reveal_last_share}
    result = CompiledFairSearch(SMALL_TABLE).evaluate(position, **options)
    assert result.exact
    assert result.lower == pytest.approx(expected, abs=1e-12)

    def search(position: FairPosition, **limits) -> fair_kernel.FairResult:
        return CompiledFairSearch(SMALL_TABLE).evaluate(position, **options, **limits)

    check_bounds_at_every_node_limit(search, position)


def test_value_one_test_alone_answers_the_value_one_question(late_positions) -> None:
    """The test alone, with REVEAL first or last, decides the question on real last reveals of
    both kinds: value 1 proven exactly, or an upper bound below 1 that still holds the full
    search's value; and a search that gives the test all its limits (share 1) still ends on
    that value."""
    seen = set()
    for position in late_positions[:12]:
        exact = _evaluate(position)
        search = CompiledFairSearch(SMALL_TABLE)
        tested = search.evaluate(position, value_one_share=1.0)
        assert tested.exact and tested.lower == pytest.approx(exact.lower, abs=1e-12)
        # the test's own answer in either order: a fresh search stopped right after it
        grid, pool = fair_kernel._position_arrays(position)
        root = (fair_kernel._DECIDE, grid, position.stock_left, pool, -1)
        for reveal_last in (False, True):
            probe = CompiledFairSearch(SMALL_TABLE)
            lower, upper, stopped = probe._search_until(
                root, fair_kernel.VALUE_ONE_ALPHA, 1.0, 0, None, None, reveal_last=reveal_last
            )
            assert not stopped
            if exact.lower == 1.0:
                assert lower == pytest.approx(1.0, abs=1e-12)
            else:
                assert upper < 1.0 and lower - 1e-12 <= exact.lower <= upper + 1e-12
        seen.add(exact.lower == 1.0)
    assert seen == {True, False}


def test_value_one_share_is_checked() -> None:
    position = HAND_BUILT[sorted(HAND_BUILT)[0]]
    for share in (-0.1, 1.5):
        with pytest.raises(ValueError, match="value_one_share"):
            CompiledFairSearch(SMALL_TABLE).evaluate(position, value_one_share=share)
        with pytest.raises(ValueError, match="reveal_last_share"):
            CompiledFairSearch(SMALL_TABLE).evaluate(position, reveal_last_share=share)


def test_fair_optimum_help_states_the_kernels_default_shares(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI does not import the kernel to build its parser, so its help restates the default
    shares; they must stay the kernel's."""
    from empire_envs.cli import main as cli_main

    with pytest.raises(SystemExit):
        cli_main(["fair-optimum", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"(default {fair_kernel.VALUE_ONE_SHARE};" in text
    assert f"(default {fair_kernel.REVEAL_LAST_SHARE})" in text


def test_table_size_is_checked() -> None:
    with pytest.raises(ValueError, match="table_bits"):
        CompiledFairSearch(4)


def test_fair_optimum_command_with_the_compiled_engine_and_the_clairvoyant_bound(tmp_path) -> None:
    """``fair-optimum --engine compiled --clairvoyant-bound --value-one-share 0.25 --reveal-last-share 0.4``: each
    unfinished row's upper bound is the smaller of the search's and the clairvoyant bound, and both bracket the
    lower."""
    import json

    from empire_envs.cli import main as cli_main

    out = tmp_path / "fair.json"
    argv = ["fair-optimum", "--deals", "4", "--seconds", "0.05", "--after-reveals", "1"]
    flags = ["--engine", "compiled", "--clairvoyant-bound", "--value-one-share", "0.25", "--reveal-last-share", "0.4"]
    assert cli_main([*argv, *flags, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["summary"]["engine"] == "compiled" and report["summary"]["clairvoyant_bound"]
    assert report["summary"]["value_one_share"] == 0.25
    assert report["summary"]["reveal_last_share"] == 0.4
    unfinished = [row for row in report["deals"] if not row["exact"]]
    for row in report["deals"]:
        assert 0.0 <= row["lower"] <= row["upper"] <= 1.0
        if row["exact"]:
            assert row["clairvoyant_bound"] is None
        else:
            assert row["upper"] == min(row["search_upper"], row["clairvoyant_bound"])
            assert row["lower"] <= row["clairvoyant_bound"] + 1e-12
    assert unfinished  # 0.05 s leaves some deal unfinished after one reveal


def test_agent_regret_plays_every_agent_on_the_same_stock_orders() -> None:
    """Deal 4 (``reset(seed=4)``) has fair value 1 (docs/benchmarks/solitaire_ladder.md). On the
    same stock orders the clairvoyant solver wins every game that reveal-solve wins (a fair win
    is a known-order win), and each regret is the value minus the win rate."""
    from empire_envs.evaluation.fair_optimum import agent_regret

    report = {
        "summary": {"after_reveals": 0},
        "deals": [{"seed": 4, "lower": 1.0, "upper": 1.0, "exact": True}, {"seed": 0, "lower": 0.5, "exact": False}],
    }
    result = agent_regret(report, ["reveal-solve", "solver", "random"], stocks=12, seed=3, log=lambda _: None)
    rows = result["agents"]
    assert [row["seed"] for row in result["deals"]] == [4]  # only the exact deal
    assert rows["solver"]["win_rate"] >= rows["reveal-solve"]["win_rate"] > rows["random"]["win_rate"]
    for row in rows.values():
        assert row["games"] == 12
        assert row["regret"] == pytest.approx(1.0 - row["win_rate"], abs=1e-6)
        low, high = row["regret_ci95"]
        assert low <= row["regret"] <= high
    again = agent_regret(report, ["reveal-solve"], stocks=12, seed=3, log=lambda _: None)
    assert again["agents"]["reveal-solve"] == rows["reveal-solve"]  # the orders are seeded
    with pytest.raises(ValueError, match="stocks"):
        agent_regret(report, ["random"], stocks=0)
