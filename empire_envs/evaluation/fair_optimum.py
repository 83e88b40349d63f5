"""Empire Solitaire: the fair optimum of the env's deals, the best win probability of a player
who does not see the stock order (``games.solitaire.fair``).

``python -m empire_envs fair-optimum`` (and ``experiments/solitaire_fair_optimum.py``) runs
``run`` and prints ``format_report``.

Deal ``i`` is the env's deal of ``reset(seed=seed + i)`` (``empire_envs/EmpireSolitaire-v0``).
Each deal is searched from its first decision for at most ``seconds`` CPU seconds. A deal is
exact when the search finished; otherwise its sound bounds are kept. The report gives the mean
of the lower and of the upper bounds (exact deals count in both), so the mean fair optimum of
these deals lies between them.

``engine``: ``"python"`` (``fair.FairSearch``, the default) or ``"compiled"``
(``games.solitaire.fair_kernel``: the same expectimax compiled with numba, its leaves sharing one
table of verdicts; about twice as fast on the deals it finishes, docs/benchmarks/solitaire_ladder.md).
``clairvoyant_bound``: a deal left unfinished gets the clairvoyant upper bound (the known-order
verdict averaged over the stock orders; sound, below 1 on deals that some orders lose), computed
after the search and outside its time; its CPU seconds are in the row.

``after_reveals`` (1 or 2) measures later positions instead: each deal is first played by
``reveal-solve`` until that many stock cards are revealed and placed, and the fair optimum of
the position reached is searched (how far exactness reaches). Deals lost before are skipped.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium

from ..agents.solitaire import RevealThenSolveAgent
from ..games.solitaire import rules
from ..games.solitaire.fair import FairPosition, FairResult, FairSearch
from ..games.solitaire.state import ONGOING, STOCK_SIZE, SolitaireState
from .reporting import Log

ENV_ID = "empire_envs/EmpireSolitaire-v0"
ENGINES = ("compiled", "python")


def play_reveals(state: SolitaireState, reveals: int) -> bool:
    """Play ``reveal-solve`` on ``state`` (in place) until ``reveals`` stock cards are placed;
    False when the game ends first."""
    player = RevealThenSolveAgent()
    while len(state.stock) > STOCK_SIZE - reveals or state.revealed >= 0:
        if state.outcome != ONGOING:
            return False
        rules.apply_action(state, player.act(None, rules.legal_mask(state), state))  # type: ignore[arg-type]
    return state.outcome == ONGOING


def _search(
    engine: str, position: FairPosition, seconds: float, clairvoyant_bound: bool
) -> tuple[FairResult, float | None, float]:
    """The search's result, the clairvoyant bound (None when not asked for or not needed) and its CPU seconds."""
    compiled = None
    if engine == "compiled" or clairvoyant_bound:
        from ..games.solitaire.fair_kernel import CompiledFairSearch

        compiled = CompiledFairSearch()
    searcher = compiled if engine == "compiled" and compiled is not None else FairSearch()
    result = searcher.evaluate(position, time_limit=seconds)
    if compiled is None or not clairvoyant_bound or result.exact:
        return result, None, 0.0
    start = time.process_time()
    bound = compiled.clairvoyant_bound(position)
    return result, bound, time.process_time() - start


def run(
    deals: int,
    seed: int = 0,
    seconds: float = 6.0,
    after_reveals: int = 0,
    log: Log = print,
    engine: str = "python",
    clairvoyant_bound: bool = False,
) -> dict[str, Any]:
    """Search ``deals`` deals from ``seed``; the summary and the per-deal rows (module docstring)."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    if after_reveals not in (0, 1, 2):
        raise ValueError(f"after_reveals must be 0, 1 or 2, got {after_reveals}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    env: Any = gymnasium.make(ENV_ID)
    rows = []
    start = time.perf_counter()
    for deal_seed in range(seed, seed + deals):
        env.reset(seed=deal_seed)
        state = env.unwrapped.state
        if after_reveals and not play_reveals(state, after_reveals):
            continue
        result, bound, bound_seconds = _search(engine, FairPosition.from_state(state), seconds, clairvoyant_bound)
        row: dict[str, Any] = {
            "seed": deal_seed,
            "lower": result.lower,
            "upper": result.upper if bound is None else min(result.upper, bound),
            "exact": result.exact,
            "nodes": result.nodes,
            "leaf_solves": result.leaf_solves,
            "seconds": round(result.seconds, 3),
            "cpu_seconds": result.counters["cpu_milliseconds"] / 1000,
        }
        if clairvoyant_bound:
            row["search_upper"] = result.upper
            row["clairvoyant_bound"] = bound
            row["clairvoyant_cpu_seconds"] = round(bound_seconds, 3)
        rows.append(row)
        log(f"{deal_seed:4d}  [{row['lower']:.4f}, {row['upper']:.4f}]  exact={result.exact}  {result.seconds:.2f}s")
    env.close()
    summary = summarize(rows, seed, seconds, after_reveals, time.perf_counter() - start)
    summary["engine"] = engine
    summary["clairvoyant_bound"] = clairvoyant_bound
    return {"summary": summary, "deals": rows}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(
    rows: list[dict[str, Any]], seed: int, seconds: float, after_reveals: int, wall_seconds: float
) -> dict[str, Any]:
    """The means over the searched deals: bounds of all, the exact deals' value, the rest's bounds."""
    exact = [row for row in rows if row["exact"]]
    rest = [row for row in rows if not row["exact"]]
    return {
        "deals": len(rows),
        "after_reveals": after_reveals,
        "first_seed": seed,
        "seconds_per_deal": seconds,
        "exact_deals": len(exact),
        "mean_lower": _mean([row["lower"] for row in rows]),
        "mean_upper": _mean([row["upper"] for row in rows]),
        "mean_exact_value": _mean([row["lower"] for row in exact]),
        "mean_lower_unfinished": _mean([row["lower"] for row in rest]),
        "mean_upper_unfinished": _mean([row["upper"] for row in rest]),
        "wall_seconds": round(wall_seconds, 1),
    }


def format_report(report: dict[str, Any]) -> str:
    """The summary in a few lines."""
    summary = report["summary"]
    if not summary["deals"]:
        return "no deal was searched (every deal was lost before the position asked for)"
    start = "the first decision" if not summary["after_reveals"] else f"{summary['after_reveals']} reveal(s)"
    lines = [
        f"{ENV_ID}: {summary['deals']} deals from seed {summary['first_seed']}, searched from {start}, "
        f"{summary['seconds_per_deal']} CPU s each ({summary.get('engine', 'python')} engine"
        + (", clairvoyant upper bounds)" if summary.get("clairvoyant_bound") else ")"),
        f"exact: {summary['exact_deals']} of {summary['deals']}",
        f"mean fair optimum in [{summary['mean_lower']:.4f}, {summary['mean_upper']:.4f}]",
        f"({summary['wall_seconds']} s of wall time)",
    ]
    return "\n".join(lines)
