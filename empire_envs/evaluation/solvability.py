"""Empire Solitaire: the share of random deals that perfect play wins with the stock known.

``python -m empire_envs solvability`` (and ``experiments/solvability.py``) runs ``run`` and
prints ``format_report``.

Deal ``i`` (0-based) is ``rules.new_game(None, np.random.default_rng(seed + i))``, the deal of
``env.reset(seed=seed + i)`` in ``empire_envs/EmpireSolitaire-v0``. Each deal is solved exactly
with its stock order known (``solver.solve_stats``), which bounds any agent from above. Every
winning line is replayed through ``rules.apply_action`` on a fresh copy of the deal and must end
in a win; a failure is counted and logged (the command then exits with status 1).

The report holds the share of winnable deals with its 95% Wilson interval; time per deal (mean,
median, max; the one-time numba compile or cache load is reported apart and is not in the
per-deal times) and the total; nodes searched per deal. ``node_limit`` caps the nodes per deal
(useful with the slow Python backend): a deal that hits it is "undecided", and the share is then
given as bounds (undecided counted as lost / as won).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..games.solitaire import rules, solver
from ..games.solitaire.state import WON
from .evaluate import wilson_interval
from .reporting import Log


def replay_wins(seed: int, line: Sequence[int]) -> bool:
    """Whether ``line`` played through ``rules.step`` on the deal of ``seed`` ends in a win."""
    state = rules.new_game(None, np.random.default_rng(seed))
    try:
        for action in line:
            rules.apply_action(state, action)
    except Exception:  # an illegal action, or a step after the game ended
        return False
    return state.outcome == WON


def run(
    deals: int, seed: int, backend: str = "auto", node_limit: int | None = None, log: Log = print
) -> dict[str, Any]:
    """Solve deals ``seed .. seed + deals - 1``; the report as a dict."""
    if backend == "auto":
        backend = "fast" if solver._fast_available(warn=True) else "python"
    start = time.perf_counter()
    compile_seconds = 0.0
    if backend == "fast":  # pay the compile (or the load from numba's cache) before timing
        compile_seconds = solver.solve_stats(["AS", "2S"] + [None] * 13, [], backend="fast").seconds
    records: list[dict[str, Any]] = []
    failures: list[int] = []
    for i in range(deals):
        deal_seed = seed + i
        state = rules.new_game(None, np.random.default_rng(deal_seed))
        result = solver.solve_stats(state.grid, state.stock[::-1], backend=backend, node_limit=node_limit)
        replay_ok = None
        if result.winnable:
            replay_ok = replay_wins(deal_seed, result.line or [])
            if not replay_ok:
                failures.append(deal_seed)
                log(f"REPLAY FAILURE: seed {deal_seed}, line {result.line}")
        records.append(
            {
                "seed": deal_seed,
                "winnable": result.winnable,
                "nodes": result.nodes,
                "seconds": result.seconds,
                "line_length": len(result.line or []),
            }
        )
        if deals >= 20 and (i + 1) % max(1, deals // 10) == 0:
            log(f"  {i + 1}/{deals} deals, {time.perf_counter() - start:.1f} s")
    total = time.perf_counter() - start
    wins = sum(r["winnable"] is True for r in records)
    undecided = sum(r["winnable"] is None for r in records)
    seconds = [r["seconds"] for r in records]
    nodes = [r["nodes"] for r in records]
    low, high = wilson_interval(wins, deals)
    report = {
        "deals": deals,
        "seed": seed,
        "backend": backend,
        "node_limit": node_limit,
        "winnable": wins,
        "lost": deals - wins - undecided,
        "undecided": undecided,
        "share_winnable": wins / deals if deals else 0.0,
        "wilson95": [low, high],
        "share_upper_bound": (wins + undecided) / deals if deals else 0.0,
        "wilson95_upper": list(wilson_interval(wins + undecided, deals)),
        "replay_failures": failures,
        "compile_seconds": compile_seconds,
        "total_seconds": total,
        "seconds_per_deal": _summary(seconds),
        "nodes_per_deal": _summary(nodes),
        "per_deal": records,
    }
    return report


def _summary(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "median": 0.0, "max": 0.0, "total": 0.0}
    return {
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "max": max(values),
        "total": float(sum(values)),
    }


def format_report(report: Mapping[str, Any]) -> str:
    n = report["deals"]
    low, high = report["wilson95"]
    s, k = report["seconds_per_deal"], report["nodes_per_deal"]
    lines = [
        f"Empire Solitaire, stock known, perfect play: deals {report['seed']}.."
        f"{report['seed'] + n - 1} ({n}), backend {report['backend']}",
        f"  winnable       {report['winnable']}/{n} = {report['share_winnable']:.1%} "
        f"(95% Wilson {low:.1%} .. {high:.1%})",
    ]
    if report["undecided"]:
        ul, uh = report["wilson95_upper"]
        lines.append(
            f"  undecided      {report['undecided']} (node limit {report['node_limit']}): "
            f"share at most {report['share_upper_bound']:.1%} (95% Wilson {ul:.1%} .. {uh:.1%})"
        )
    lines += [
        f"  lost           {report['lost']}",
        f"  time per deal  mean {s['mean'] * 1e3:.1f} ms, median {s['median'] * 1e3:.2f} ms, max {s['max']:.2f} s",
        f"  nodes per deal mean {k['mean']:,.0f}, median {k['median']:,.0f}, max {k['max']:,}",
        f"  total          {report['total_seconds']:.1f} s (of which compile/cache load "
        f"{report['compile_seconds']:.2f} s)",
        f"  replay         {len(report['replay_failures'])} failure(s) among {report['winnable']} winning lines",
    ]
    return "\n".join(lines)
