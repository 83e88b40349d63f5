"""``list``: every registered id with its API, seats, action count, observation size and
variant settings, as an aligned text table or as JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..registry import EnvEntry, all_entries, make

COLUMNS = ("id", "api", "players", "actions", "observation", "variant")


def describe(entry: EnvEntry) -> dict[str, Any]:
    """One id's facts, read from a freshly built env: ``env_id``, ``api``, ``players``,
    ``actions`` (the size of the discrete action space), ``observation_size`` (the length of
    the observation vector), ``kwargs`` (the variant's settings) and ``summary``."""
    env = make(entry.env_id)
    try:
        if entry.api == "gymnasium":
            players = 1
            action_space, observation_space = env.action_space, env.observation_space
        else:
            seat = env.possible_agents[0]
            players = len(env.possible_agents)
            action_space = env.action_space(seat)
            observation_space = env.observation_space(seat)["observation"]
        return {
            "env_id": entry.env_id,
            "api": entry.api,
            "players": players,
            "actions": int(action_space.n),
            "observation_size": int(observation_space.shape[0]),
            "kwargs": dict(entry.kwargs),
            "summary": entry.summary,
        }
    finally:
        env.close()


def format_kwargs(kwargs: dict[str, Any]) -> str:
    """``num_players=3 allow_2p=True``; ``-`` for the default game."""
    return " ".join(f"{key}={value!r}" for key, value in kwargs.items()) or "-"


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """A plain text table, one line per id, columns padded to align (numbers to the right)."""
    cells = [list(COLUMNS)] + [
        [
            row["env_id"],
            row["api"],
            str(row["players"]),
            str(row["actions"]),
            str(row["observation_size"]),
            format_kwargs(row["kwargs"]),
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    numeric = {2, 3, 4}
    lines = []
    for line in cells:
        padded = [
            text.rjust(width) if i in numeric else text.ljust(width)
            for i, (text, width) in enumerate(zip(line, widths, strict=True))
        ]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines)


def run_list(output_format: str) -> str:
    """The text the ``list`` command prints, in ``text`` or ``json`` format."""
    rows = [describe(entry) for entry in all_entries()]
    if output_format == "json":
        return json.dumps(rows, indent=2)
    return format_table(rows)
