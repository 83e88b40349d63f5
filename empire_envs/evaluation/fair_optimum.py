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
``value_one_share`` (compiled engine only): the share of each deal's seconds given first to the
test "is the value 1?" (``fair_kernel.VALUE_ONE_SHARE`` when None); ``reveal_last_share`` (compiled
engine only): the share of the test's time it runs with REVEAL after every capture, before REVEAL
first (``fair_kernel.REVEAL_LAST_SHARE`` when None).
``clairvoyant_bound``: a deal left unfinished gets the clairvoyant upper bound (the known-order
verdict averaged over the stock orders; sound, below 1 on deals that some orders lose), computed
after the search and outside its time; its CPU seconds are in the row.

``agent_regret(report, agents)`` plays agents on the report's exact deals, each deal with the
same seeded stock orders for every agent, and gives each agent's regret against the fair
optimum (``fair-optimum --regret-agent SPEC``).

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
from ..games.solitaire.fair_kernel import REVEAL_LAST_SHARE, VALUE_ONE_SHARE, CompiledFairSearch
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
    engine: str,
    position: FairPosition,
    seconds: float,
    clairvoyant_bound: bool,
    value_one_share: float,
    reveal_last_share: float,
) -> tuple[FairResult, float | None, float]:
    """The search's result, the clairvoyant bound (None when not asked for or not needed) and its CPU seconds."""
    compiled = None
    if engine == "compiled" or clairvoyant_bound:
        compiled = CompiledFairSearch()
    if engine == "compiled" and compiled is not None:
        result = compiled.evaluate(
            position, time_limit=seconds, value_one_share=value_one_share, reveal_last_share=reveal_last_share
        )
    else:
        result = FairSearch().evaluate(position, time_limit=seconds)
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
    value_one_share: float | None = None,
    reveal_last_share: float | None = None,
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
    if value_one_share is not None and engine != "compiled":
        raise ValueError("value_one_share is the compiled engine's: add --engine compiled")
    if reveal_last_share is not None and engine != "compiled":
        raise ValueError("reveal_last_share is the compiled engine's: add --engine compiled")
    share = VALUE_ONE_SHARE if value_one_share is None else value_one_share
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"value_one_share must be in [0, 1], got {value_one_share}")
    last_share = REVEAL_LAST_SHARE if reveal_last_share is None else reveal_last_share
    if not 0.0 <= last_share <= 1.0:
        raise ValueError(f"reveal_last_share must be in [0, 1], got {reveal_last_share}")
    env: Any = gymnasium.make(ENV_ID)
    rows = []
    start = time.perf_counter()
    for deal_seed in range(seed, seed + deals):
        env.reset(seed=deal_seed)
        state = env.unwrapped.state
        if after_reveals and not play_reveals(state, after_reveals):
            continue
        result, bound, bound_seconds = _search(
            engine, FairPosition.from_state(state), seconds, clairvoyant_bound, share, last_share
        )
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
    if engine == "compiled":
        summary["value_one_share"] = share
        summary["reveal_last_share"] = last_share
    return {"summary": summary, "deals": rows}


def agent_regret(
    report: dict[str, Any], agents: list[str], stocks: int = 100, seed: int = 0, log: Log = print
) -> dict[str, Any]:
    """Each agent's regret against the fair optimum on the report's exact deals.

    On each exact deal (its grid as dealt), every agent plays ``stocks`` games, the stock orders
    drawn uniformly from the deal's unseen cards by a generator seeded with ``seed`` and the
    deal's seed (the same orders for every agent). Its win rate there estimates its win
    probability on the deal, and the regret is the deal's fair value minus that rate (a fair
    agent's expected regret is at least 0; the clairvoyant ``solver``'s can be negative).
    Returns per agent the mean value of those deals, the win rate over all their games with its
    95% Wilson interval, and the mean regret with the interval that the win rate's implies;
    ``deals``: each deal's win rate per agent."""
    import numpy as np

    from ..agents.base import make_agent
    from .evaluate import wilson_interval

    if stocks < 1:
        raise ValueError(f"stocks must be at least 1, got {stocks}")
    exact = [row for row in report["deals"] if row["exact"]]
    if not exact or not agents:
        raise ValueError("the regret needs at least one exact deal and one agent")
    if report["summary"].get("after_reveals"):
        raise ValueError("the regret is measured on whole deals (a report with after_reveals 0)")
    players = {spec: make_agent(spec, ENV_ID, seed=seed) for spec in agents}
    env: Any = gymnasium.make(ENV_ID)
    per_deal: list[dict[str, Any]] = []
    wins = dict.fromkeys(agents, 0)
    for row in exact:
        env.reset(seed=row["seed"])
        grid = [int(card) for card in env.unwrapped.state.grid]
        unseen = sorted(set(range(52)) - set(grid))
        draw = np.random.default_rng([seed, row["seed"]])
        orders = [[unseen[i] for i in draw.choice(len(unseen), STOCK_SIZE, replace=False)] for _ in range(stocks)]
        rates: dict[str, float] = {}
        for spec, agent in players.items():
            won = 0
            for game, order in enumerate(orders):
                obs, info = env.reset(options={"deck": grid + order})
                agent.reset(seed=seed + game)
                done = False
                reward = 0.0
                while not done:
                    action = agent.act(obs, info["action_mask"], env.unwrapped.state)
                    obs, reward, terminated, truncated, info = env.step(action)
                    done = terminated or truncated
                won += reward > 0
            wins[spec] += won
            rates[spec] = won / stocks
        per_deal.append({"seed": row["seed"], "value": row["lower"], "win_rates": rates})
        log(f"{row['seed']:4d}  value {row['lower']:.4f}  " + "  ".join(f"{a} {r:.3f}" for a, r in rates.items()))
    env.close()
    games = stocks * len(exact)
    mean_value = sum(row["lower"] for row in exact) / len(exact)
    summary = {}
    for spec in agents:
        low, high = wilson_interval(wins[spec], games)
        rate = wins[spec] / games
        summary[spec] = {  # rounded to 6 places: the intervals' float noise is not a figure
            "deals": len(exact),
            "games": games,
            "mean_value": round(mean_value, 6),
            "win_rate": round(rate, 6),
            "win_rate_ci95": [round(low, 6), round(high, 6)],
            "regret": round(mean_value - rate, 6),
            "regret_ci95": [round(mean_value - high, 6), round(mean_value - low, 6)],
        }
    return {"stocks": stocks, "seed": seed, "agents": summary, "deals": per_deal}


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
    regret = report.get("regret")
    if regret:
        lines.append(f"regret on the exact deals ({regret['stocks']} stock orders a deal):")
        for spec, row in regret["agents"].items():
            low, high = row["regret_ci95"]
            lines.append(
                f"  {spec}: wins {row['win_rate']:.4f} of {row['games']} games, value {row['mean_value']:.4f}, "
                f"regret {row['regret']:.4f} [{low:.4f}, {high:.4f}]"
            )
    return "\n".join(lines)
