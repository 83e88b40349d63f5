"""The Empire Solitaire solver: known positions, backends that agree, lines that win in the env.

Grids are drawn as three rows of five tokens (``"."`` for an empty cell), stocks top card first.
A position with fewer than 18 cards in grid and stock counts as one where a capture has been
made (the stock is open), as ``solver.solve`` documents. Every winning line is replayed through
``rules.apply_action`` (and, for seeded deals, through the Gymnasium env) and must end in a win.

The fast backend needs numba (the ``solver`` extra); without it those tests are skipped and the
fallback test checks the warning.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import gymnasium
import numpy as np
import pytest

import empire_envs  # noqa: F401  (registers the env ids)
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire import rules, solver
from empire_envs.games.solitaire.state import LOST, ONGOING, WON, SolitaireState

from .helpers import WIN_LINE, WIN_ROWS, WIN_STOCK, act, build_state, deal, parse_grid, transform

numba_missing = not solver._fast_available()
needs_numba = pytest.mark.skipif(numba_missing, reason="the fast backend needs numba")
BACKENDS = ["python", pytest.param("fast", marks=needs_numba)]


def grid_of(rows: list[str]) -> list[int]:
    return parse_grid(rows)


def position(rows: list[str], stock: list[str]) -> SolitaireState:
    """A state for a solver position: the cards missing from 18 count as captured (filler
    cards in ``out``), so the stock is open when fewer than 18 remain; outcome settled."""
    in_play = sum(c >= 0 for c in parse_grid(rows)) + len(stock)
    state = build_state(rows, stock=stock, out=18 - in_play)
    rules._settle(state)
    return state


def replay(state: SolitaireState, line: list[int]) -> SolitaireState:
    state = state.clone()
    for action in line:
        assert state.outcome == ONGOING, f"the game ended before {A.action_name(action)}"
        rules.apply_action(state, action)
    return state


def solve_position(rows, stock, backend):
    return solver.solve(grid_of(rows), stock, backend=backend)


# ----------------------------------------------------------------------- hand-made positions


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_capture_wins(backend):
    rows = ["AS 2S .  .  . ", ".  .  .  .  . ", ".  .  .  .  . "]
    line = solve_position(rows, [], backend)
    assert line in ([A.capture(0, 3)], [A.capture(1, 2)])  # 0 takes right, or 1 takes left
    assert replay(position(rows, []), line).outcome == WON


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lone_card_is_already_won(backend):
    assert solve_position([".  .  QH .  . ", ".  .  .  .  . ", ".  .  .  .  . "], [], backend) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_orthogonal_capture_skips_empty_cells(backend):
    across = ["AS .  .  .  2S", ".  .  .  .  . ", ".  .  .  .  . "]
    line = solve_position(across, [], backend)
    assert line in ([A.capture(0, 3)], [A.capture(4, 2)])  # right over 3 cells, or left
    assert replay(position(across, []), line).outcome == WON
    down = ["AS .  .  .  . ", ".  .  .  .  . ", "2S .  .  .  . "]
    line = solve_position(down, [], backend)
    assert line in ([A.capture(0, 1)], [A.capture(10, 0)])  # down over cell 5, or up
    assert replay(position(down, []), line).outcome == WON


@pytest.mark.parametrize("backend", BACKENDS)
def test_diagonal_captures_do_not_skip(backend):
    adjacent = ["AS .  .  .  . ", ".  2S .  .  . ", ".  .  .  .  . "]
    line = solve_position(adjacent, [], backend)
    assert line in ([A.capture(0, 7)], [A.capture(6, 4)])  # down-right, or up-left
    assert replay(position(adjacent, []), line).outcome == WON
    # two cells apart on the diagonal, nothing in between: only a skip would reach
    apart = ["AS .  .  .  . ", ".  .  .  .  . ", ".  .  2S .  . "]
    assert solve_position(apart, [], backend) is None
    assert position(apart, []).outcome == LOST


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_blocking_card_must_be_moved_first(backend):
    # KD stands between AS and 2S and matches neither. KD takes 2D (down) leaves KD stranded;
    # the only win is 2D taking KD (up), then 2S taking 2D over the empty cells, then the aces
    rows = ["AS KD .  .  2S", ".  2D .  .  . ", ".  .  .  .  . "]
    line = solve_position(rows, [], backend)
    assert line[:2] == [A.capture(6, 0), A.capture(4, 2)]
    assert line[2:] in ([A.capture(0, 3)], [A.capture(1, 2)])
    assert replay(position(rows, []), line).outcome == WON
    after = replay(position(rows, []), [A.capture(1, 1)])  # KD takes 2D instead: lost
    assert solver.solve(after.grid, [], backend=backend) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_last_stock_card_without_partner_loses(backend):
    # a full deal: spades A-10 and hearts A-5 on the grid, stock 6H, 7H, JD. The jack of
    # diamonds shares no rank (no jack) and no suit (no diamond) with any other card
    tableau = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "AH", "2H", "3H",
               "4H", "5H"]
    assert solver.solve(tableau, ["6H", "7H", "JD"], backend=backend) is None
    # with a last card that shares a suit, the same deal is winnable, and the line wins
    stock = ["6H", "7H", "JS"]
    line = solver.solve(tableau, stock, backend=backend)
    assert line is not None
    state = rules.new_game(deck=tableau + stock)
    assert replay(state, line).outcome == WON


@pytest.mark.parametrize("backend", BACKENDS)
def test_stock_opens_only_after_a_capture(backend):
    tableau = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
               "AH", "2H"]
    stock = ["3H", "4H", "5H"]
    state = rules.new_game(deck=tableau + stock)
    assert A.REVEAL not in rules.legal_actions(state)
    line = solver.solve(tableau, stock, backend=backend)
    assert line is not None
    assert line[0] < A.REVEAL  # a capture first
    assert line.count(A.REVEAL) == 3
    reveal = line.index(A.REVEAL)
    assert line[reveal + 1] in A.PLACE  # each reveal is followed by its placement
    assert replay(state, line).outcome == WON


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_capture_at_the_start_loses_with_the_stock_closed(backend):
    # suits by (row % 2, col % 2) and ranks by cell: no two neighbours (8 directions) share a
    # rank or a suit, and on a full grid a card sees only its neighbours
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    tableau = [ranks[i % 13] + "CDHS"[(i // 5) % 2 * 2 + (i % 5) % 2] for i in range(15)]
    stock = ["KS", "QH", "JS"]
    state = rules.new_game(deck=tableau + stock)
    assert state.outcome == LOST  # no legal action at all: the stock never opens
    assert solver.solve(tableau, stock, backend=backend) is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_placement_matters(backend):
    # AS and KH never meet; KS (top of the stock) matches both, but whichever pair captures
    # first leaves the survivor out of line with the third card: lost wherever KS goes
    rows = ["AS .  .  .  . ", ".  .  .  .  . ", ".  .  .  .  KH"]
    assert solve_position(rows, ["KS"], backend) is None
    # with KH on cell 4 instead, KS placed in row 0 or column 4 can win
    rows = ["AS .  .  .  KH", ".  .  .  .  . ", ".  .  .  .  . "]
    line = solve_position(rows, ["KS"], backend)
    assert line is not None and A.REVEAL in line
    assert replay(position(rows, ["KS"]), line).outcome == WON


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_known_winnable_deal(backend):
    """The helpers' deal with a 23-step winning line: the solver finds a line too."""
    cards = deal(WIN_ROWS, WIN_STOCK)
    state = rules.new_game(deck=cards)
    assert replay(state, [act(name) for name in WIN_LINE]).outcome == WON
    line = solver.solve(cards[:15], cards[15:], backend=backend)
    assert line is not None and replay(state, line).outcome == WON
    assert line.count(A.REVEAL) == 3 and len(line) == 23  # 17 captures, 3 reveals, 3 places


def test_bad_input():
    with pytest.raises(ValueError):
        solver.solve([-1] * 14, [])
    with pytest.raises(ValueError):
        solver.solve(["AS"] + [-1] * 14, ["2S", "3S", "4S", "5S"])
    with pytest.raises(ValueError):
        solver.solve(["AS", "AS"] + [-1] * 13, [])
    with pytest.raises(ValueError):
        solver.solve(["AS"] + [-1] * 14, [], backend="gpu")


def test_the_kernel_move_codes_are_the_action_table_layout():
    """The compiled kernel writes the action layout as numbers (numba's cache freezes globals):
    they must be the table's own indices."""
    assert all(
        A.capture(cell, d) == (cell << solver._K_DIRECTION_BITS) + d
        for cell in range(len(A.CAPTURE))
        for d in range(A.NUM_DIRECTIONS)
    )
    assert A.NUM_DIRECTIONS <= 1 << solver._K_DIRECTION_BITS
    assert A.REVEAL == solver._K_REVEAL == max(map(max, A.CAPTURE)) + 1
    assert tuple(range(solver._K_PLACE_BASE, solver._K_PLACE_BASE + len(A.PLACE))) == A.PLACE


# ----------------------------------------------------------------------- seeded deals


def seeded(seed: int) -> tuple[SolitaireState, list[int], list[int]]:
    state = rules.new_game(None, np.random.default_rng(seed))
    return state, list(state.grid), state.stock[::-1]


@needs_numba
def test_backends_agree_on_seeded_deals():
    """Same verdict from both backends on 64 deals (those the Python backend settles within
    30,000 nodes, at least 45 of them); both winning lines replay to a win."""
    compared = wins = 0
    for seed in range(64):
        state, tableau, stock = seeded(seed)
        slow = solver.solve_stats(tableau, stock, backend="python", node_limit=30_000)
        if slow.winnable is None:
            continue
        fast = solver.solve_stats(tableau, stock, backend="fast")
        compared += 1
        assert fast.winnable == slow.winnable, seed
        if fast.winnable:
            wins += 1
            assert replay(state, fast.line).outcome == WON, seed
            assert replay(state, slow.line).outcome == WON, seed
        else:
            assert fast.line is None and slow.line is None
    assert compared >= 45
    assert 0 < wins < compared  # both kinds of verdict were compared


@needs_numba
def test_fast_backend_without_its_reductions_matches_the_reference_node_for_node():
    """Without sleep sets and restarts the kernel searches the reference's exact tree."""
    for seed in (0, 1, 2, 5, 11, 31):
        _, tableau, stock = seeded(seed)
        grid, stock_cards = solver._parse_position(tableau, stock)
        fast = solver._solve_fast(
            grid, stock_cards, None, restarts=False, use_sleep=False, fixed_bits=solver.TT_BITS
        )
        slow = solver.solve_stats(tableau, stock, backend="python")
        assert (fast.winnable, fast.nodes, fast.line) == (slow.winnable, slow.nodes, slow.line)


@needs_numba
def test_verdicts_are_invariant_under_the_symmetries_of_the_rules():
    """Mirroring the grid or renaming ranks and suits changes no verdict (30 deals x 4), and
    the line found for the transformed deal wins it."""
    renamings = [
        {"flip_rows": True},
        {"flip_cols": True},
        {"flip_rows": True, "flip_cols": True, "suits": (2, 0, 3, 1)},
        {"ranks": tuple(range(12, -1, -1)), "suits": (3, 2, 1, 0)},
    ]
    for seed in range(30):
        _, tableau, stock = seeded(seed)
        verdict = solver.solve(tableau, stock) is not None
        for symmetry in renamings:
            cards, _ = transform(tableau + stock, [], **symmetry)
            line = solver.solve(cards[:15], cards[15:])
            assert (line is not None) == verdict, (seed, symmetry)
            if line is not None:
                assert replay(rules.new_game(deck=cards), line).outcome == WON


def _env_replay(env, tableau, stock, line) -> str:
    env.reset(options={"deck": tableau + stock})
    terminated = truncated = False
    info = {}
    for action in line:
        assert not (terminated or truncated)
        _, _, terminated, truncated, info = env.step(action)
    return info.get("outcome", "ongoing") if terminated else "ongoing"


@needs_numba
def test_winning_lines_win_in_the_gymnasium_env():
    env = gymnasium.make("empire_envs/EmpireSolitaire-v0")
    wins = 0
    for seed in range(200):
        state, tableau, stock = seeded(seed)
        line = solver.solve(tableau, stock)
        if line is None:
            continue
        wins += 1
        assert _env_replay(env, tableau, stock, line) == "won", seed
    assert wins > 150
    # the seeded deal of the env is the deal the experiment solves
    env.reset(seed=7)
    assert env.unwrapped.state.grid == seeded(7)[0].grid
    env.close()


@needs_numba
def test_solve_stats_figures_and_node_limit():
    _, tableau, stock = seeded(0)
    result = solver.solve_stats(tableau, stock)
    assert result.winnable is True and result.nodes > 0 and result.seconds >= 0
    assert result.backend == "fast"
    assert result.counters["nodes"] == result.nodes
    stopped = solver.solve_stats(*seeded(37)[1:], node_limit=50)  # needs far more nodes
    assert stopped.winnable is None and stopped.line is None and stopped.nodes <= 50
    stopped = solver.solve_stats(*seeded(37)[1:], backend="python", node_limit=50)
    assert stopped.winnable is None and stopped.line is None


@needs_numba
def test_solvability_experiment_smoke():
    """``experiments/solvability.py`` on 20 deals: figures present, no replay failure."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "experiments" / "solvability.py"
    spec = importlib.util.spec_from_file_location("_experiments_solvability", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = module.run(20, 0, "fast", log=lambda line: None)
    assert report["deals"] == 20 and report["replay_failures"] == []
    assert report["winnable"] + report["lost"] == 20 and report["undecided"] == 0
    low, high = report["wilson95"]
    assert 0 <= low <= report["share_winnable"] <= high <= 1
    assert len(report["per_deal"]) == 20 and report["nodes_per_deal"]["max"] >= 1
    assert "winnable" in module.format_report(report)
    limited = module.run(3, 37, "python", node_limit=20, log=lambda line: None)
    assert limited["undecided"] >= 1  # deal 37 needs far more than 20 nodes


def test_import_stays_light_and_fallback_warns():
    """``import empire_envs`` (and the solver module) does not import numba; without numba the
    solver warns once and answers with the Python backend."""
    code = textwrap.dedent(
        """
        import sys, warnings
        import empire_envs
        from empire_envs.games.solitaire import solver
        assert "numba" not in sys.modules, "numba imported eagerly"
        sys.modules["numba"] = None  # as if it were not installed
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = solver.solve(["AS", "2S"] + [-1] * 13, [])
            solver.solve(["AS", "2S"] + [-1] * 13, [])
        assert line in ([3], [10]), line
        messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        assert len(messages) == 1 and "numba" in messages[0], messages
        try:
            solver.solve(["AS", "2S"] + [-1] * 13, [], backend="fast")
        except RuntimeError as error:
            assert "numba" in str(error)
        else:
            raise AssertionError("backend='fast' without numba should raise")
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# ----------------------------------------------------------------------- soak


@pytest.mark.soak
@needs_numba
def test_soak_backends_agree_and_lines_win_on_more_deals():
    """1,000 deals: fast verdicts against the reference (within 300,000 nodes) and every winning
    line through the env; plus deals that are lost although their cards are connected."""
    env = gymnasium.make("empire_envs/EmpireSolitaire-v0")
    compared = 0
    for seed in range(1000, 2000):
        state, tableau, stock = seeded(seed)
        fast = solver.solve_stats(tableau, stock)
        if fast.winnable:
            assert _env_replay(env, tableau, stock, fast.line) == "won", seed
        slow = solver.solve_stats(tableau, stock, backend="python", node_limit=300_000)
        if slow.winnable is not None:
            compared += 1
            assert slow.winnable == fast.winnable, seed
    assert compared > 900
    for seed in (1278, 1816):  # lost, with a connected match graph (1.3M and 130k nodes)
        _, tableau, stock = seeded(seed)
        assert solver.solve(tableau, stock) is None
        grid, stock_cards = solver._parse_position(tableau, stock)
        plain = solver._solve_fast(grid, stock_cards, None, restarts=False, use_sleep=False)
        assert plain.winnable is False
    env.close()
