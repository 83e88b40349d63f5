"""Deck balance of Empires and Generals: every pairing of the prebuilt decks, played by the same
agent on both sides (heuristic mirror matches by default), seats alternated.

    python experiments/deck_balance.py --games 200 --out docs/benchmarks/generals
    python experiments/deck_balance.py --card-pool my_pool.toml --deck-files a.toml b.toml c.toml

For each unordered pair of decks it plays ``--games`` 2-player games; game ``i`` gives the first
deck seat 0 when ``i`` is even, seat 1 when odd, and the first player is drawn as the rules say.
It prints (and with ``--out`` writes as ``deck_balance.md`` and ``.csv``) each pairing's wins,
losses and truncations with a 95% Wilson interval of the first deck's share of the decided games,
and each deck's overall win rate. ``--max-share`` (default 0.65) is the balance bar the issue
sets: the exit status is 1 when some deck wins more than that share against another.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from empire_envs.agents.base import make_agent  # noqa: E402
from empire_envs.games.generals import GAME, GeneralsConfig, rules  # noqa: E402
from experiments.evaluate import wilson_interval  # noqa: E402


def play_game(config: GeneralsConfig, decks: Sequence[str], agents: Sequence, seed: int) -> int:
    """One game; the winning seat, or -1 for a truncated game."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng, decks=list(decks))
    for seat, agent in enumerate(agents):
        agent.reset(seed * 7 + seat)
    while not rules.is_terminal(state):
        seat = state.acting_player()
        action = agents[seat].act(None, rules.legal_mask(state), state=state)
        rules.apply_action(state, action, rng)
    return state.winner if not rules.is_truncated(state) else -1


def pairing(config: GeneralsConfig, first: str, second: str, games: int, agent_spec: str, seed: int) -> dict:
    agents = [make_agent(agent_spec, GAME.name, seed=seed + s) for s in range(2)]
    wins = losses = truncated = 0
    for game in range(games):
        decks = (first, second) if game % 2 == 0 else (second, first)
        winner = play_game(config, decks, agents, seed + game)
        if winner < 0:
            truncated += 1
        elif decks[winner] == first:
            wins += 1
        else:
            losses += 1
    decided = wins + losses
    low, high = wilson_interval(wins, decided) if decided else (0.0, 1.0)
    return {
        "first": first, "second": second, "games": games, "first_wins": wins, "second_wins": losses,
        "truncated": truncated, "first_share": wins / decided if decided else 0.5,
        "ci_low": low, "ci_high": high,
    }


def markdown(rows: list[dict], totals: dict[str, list[int]], agent: str, games: int) -> str:
    lines = [
        f"# Deck balance: {agent} mirror matches, {games} games per pairing, seats alternated",
        "",
        "| pairing | first deck wins | second deck wins | truncated | first deck's share of decided games [95% CI] |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['first']} vs {row['second']} | {row['first_wins']} | {row['second_wins']} | "
            f"{row['truncated']} | {row['first_share']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] |"
        )
    lines += ["", "| deck | games | wins | win rate |", "|---|---|---|---|"]
    for deck, (played, won) in sorted(totals.items()):
        lines.append(f"| {deck} | {played} | {won} | {won / played:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing (default 200)")
    parser.add_argument("--agent", default="heuristic", help="the agent on both sides (default heuristic)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game-type", default="normal", choices=("quick", "normal", "epic"))
    parser.add_argument("--max-share", type=float, default=0.65,
                        help="balance bar: no deck may win more than this share against another")
    parser.add_argument("--card-pool", default="default", help="a pool file instead of the default pool")
    parser.add_argument("--deck-files", nargs="+", default=None,
                        help="deck files instead of the prebuilt decks (their ids are paired)")
    parser.add_argument("--out", type=Path, default=None, help="folder for deck_balance.md and .csv")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    config = GeneralsConfig(game_type=args.game_type, card_pool=args.card_pool,
                            deck_files=tuple(args.deck_files) if args.deck_files else None)
    decks = sorted(rules.available_decks(config, rules.load_pool(config)))
    rows, totals = [], {deck: [0, 0] for deck in decks}
    start = time.perf_counter()
    for first, second in itertools.combinations(decks, 2):
        row = pairing(config, first, second, args.games, args.agent, args.seed)
        rows.append(row)
        totals[first][0] += args.games
        totals[second][0] += args.games
        totals[first][1] += row["first_wins"]
        totals[second][1] += row["second_wins"]
        print(
            f"{first:>8} vs {second:<8} {row['first_wins']:4d} - {row['second_wins']:4d} "
            f"({row['truncated']} truncated), share {row['first_share']:.3f} "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]", flush=True,
        )
    text = markdown(rows, totals, args.agent, args.games)
    print(text)
    print(f"{time.perf_counter() - start:.1f} s")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "deck_balance.md").write_text(text)
        with open(args.out / "deck_balance.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    worst = max(max(row["first_share"], 1.0 - row["first_share"]) for row in rows)
    print(f"largest share of one deck against another: {worst:.3f} (bar {args.max_share})")
    return 0 if worst <= args.max_share else 1


if __name__ == "__main__":
    raise SystemExit(main())
