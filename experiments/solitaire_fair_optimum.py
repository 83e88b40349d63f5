"""Empire Solitaire: the fair optimum (expectimax over the hidden stock) of the env's deals.

Usage (from the repository root)::

    python experiments/solitaire_fair_optimum.py --deals 200 --seconds 6 --json PATH

Deal i is the env's deal of ``reset(seed=i)`` (``empire_envs/EmpireSolitaire-v0``). Each deal is
searched from its first decision with ``games.solitaire.fair`` for at most ``--seconds``; a deal
is exact when the search finished, otherwise its sound bounds are kept. The report gives the
mean of the lower and of the upper bounds (exact deals count in both), so the mean fair optimum
of these deals lies between them.

``--after-reveals K`` (1 or 2) measures later positions instead: the deal is first played by
``reveal-solve`` until K stock cards are revealed and placed, and the fair optimum of the
position reached is searched (how far exactness reaches; deals lost before are skipped).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import gymnasium as gym

import empire_envs  # noqa: F401  (registers the env ids)
from empire_envs.agents.solitaire import RevealThenSolveAgent
from empire_envs.games.solitaire import rules
from empire_envs.games.solitaire.fair import FairPosition, evaluate
from empire_envs.games.solitaire.state import ONGOING, STOCK_SIZE


def _play_reveals(state, reveals: int) -> bool:
    """Play ``reveal-solve`` on ``state`` (in place) until ``reveals`` stock cards are placed;
    False when the game ends first."""
    player = RevealThenSolveAgent()
    while len(state.stock) > STOCK_SIZE - reveals or state.revealed >= 0:
        if state.outcome != ONGOING:
            return False
        rules.apply_action(state, player.act(None, rules.legal_mask(state), state))
    return state.outcome == ONGOING


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=6.0, help="search limit per deal, CPU seconds")
    parser.add_argument("--json", help="write the per-deal figures and the summary here")
    parser.add_argument("--after-reveals", type=int, default=0, choices=(0, 1, 2))
    args = parser.parse_args()
    env = gym.make("empire_envs/EmpireSolitaire-v0")
    rows = []
    start = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.deals):
        env.reset(seed=seed)
        state = env.unwrapped.state
        if args.after_reveals and not _play_reveals(state, args.after_reveals):
            continue
        position = FairPosition.from_state(state)
        result = evaluate(position, time_limit=args.seconds)
        rows.append(
            {
                "seed": seed,
                "lower": result.lower,
                "upper": result.upper,
                "exact": result.exact,
                "nodes": result.nodes,
                "leaf_solves": result.leaf_solves,
                "seconds": round(result.seconds, 3),
                "cpu_seconds": result.counters["cpu_milliseconds"] / 1000,
            }
        )
        print(
            f"{seed:4d}  [{result.lower:.4f}, {result.upper:.4f}]  exact={result.exact}  {result.seconds:.2f}s",
            flush=True,
        )
    n = len(rows)
    exact = [r for r in rows if r["exact"]]
    rest = [r for r in rows if not r["exact"]]
    summary = {
        "deals": n,
        "after_reveals": args.after_reveals,
        "first_seed": args.first_seed,
        "seconds_per_deal": args.seconds,
        "exact_deals": len(exact),
        "mean_lower": sum(r["lower"] for r in rows) / n,
        "mean_upper": sum(r["upper"] for r in rows) / n,
        "mean_exact_value": sum(r["lower"] for r in exact) / len(exact) if exact else None,
        "mean_lower_unfinished": sum(r["lower"] for r in rest) / len(rest) if rest else None,
        "mean_upper_unfinished": sum(r["upper"] for r in rest) / len(rest) if rest else None,
        "wall_seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"summary": summary, "deals": rows}, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
