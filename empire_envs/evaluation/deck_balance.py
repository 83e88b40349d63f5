"""Deck balance of Empires and Generals: every pairing of the prebuilt decks, played by the same
agent on both sides (heuristic mirror matches by default), seats alternated.

``python -m empire_envs deck-balance`` (and ``experiments/deck_balance.py``) runs ``deck_balance``.

For each unordered pair of decks it plays ``games`` 2-player games; game ``i`` gives the first
deck seat 0 when ``i`` is even, seat 1 when odd, and the first player is drawn as the rules say.
Each pairing reports its wins, losses and truncations with a 95% Wilson interval of the first
deck's share of the decided games; ``markdown`` adds each deck's overall win rate.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..agents.base import make_agent
from ..games.generals import GeneralsConfig, rules
from .evaluate import wilson_interval
from .reporting import Log


def play_game(config: GeneralsConfig, decks: Sequence[str], agents: Sequence[Any], seed: int) -> int:
    """One game; the winning seat, or -1 for a truncated game. The agents read the state (they
    are given no observation)."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng, decks=list(decks))
    for seat, agent in enumerate(agents):
        agent.reset(seed * 7 + seat)
    while not rules.is_terminal(state):
        seat = state.acting_player()
        action = agents[seat].act(None, rules.legal_mask(state), state=state)
        rules.apply_action(state, action, rng)
    return state.winner if not rules.is_truncated(state) else -1


def pairing(config: GeneralsConfig, first: str, second: str, games: int, agent_spec: str, seed: int) -> dict[str, Any]:
    agents = [make_agent(agent_spec, "generals", seed=seed + s) for s in range(2)]
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
        "first": first,
        "second": second,
        "games": games,
        "first_wins": wins,
        "second_wins": losses,
        "truncated": truncated,
        "first_share": wins / decided if decided else 0.5,
        "ci_low": low,
        "ci_high": high,
    }


def markdown(rows: Sequence[dict[str, Any]], totals: dict[str, list[int]], agent: str, games: int) -> str:
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


def deck_balance(
    config: GeneralsConfig, games: int, agent: str = "heuristic", seed: int = 0, log: Log = print
) -> tuple[list[dict[str, Any]], dict[str, list[int]]]:
    """Every pairing of the config's decks (``pairing``), logged as it ends; returns the rows and,
    per deck, ``[games played, games won]``."""
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    decks = sorted(rules.available_decks(config, rules.load_pool(config)))
    rows, totals = [], {deck: [0, 0] for deck in decks}
    for first, second in itertools.combinations(decks, 2):
        row = pairing(config, first, second, games, agent, seed)
        rows.append(row)
        totals[first][0] += games
        totals[second][0] += games
        totals[first][1] += row["first_wins"]
        totals[second][1] += row["second_wins"]
        log(
            f"{first:>8} vs {second:<8} {row['first_wins']:4d} - {row['second_wins']:4d} "
            f"({row['truncated']} truncated), share {row['first_share']:.3f} "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        )
    return rows, totals


def largest_share(rows: Sequence[dict[str, Any]]) -> float:
    """The largest share of decided games one deck won against another."""
    return max(max(row["first_share"], 1.0 - row["first_share"]) for row in rows)


def write_deck_balance(rows: Sequence[dict[str, Any]], text: str, out: Path) -> None:
    """``deck_balance.md`` (the ``markdown`` text) and ``deck_balance.csv`` (one row per pairing)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "deck_balance.md").write_text(text)
    with open(out / "deck_balance.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
