"""What the commands share: the error type, env-id lookup, seats' agents and seeds."""

from __future__ import annotations

import difflib

from ..agents.base import FILE_AGENTS, Agent, agent_names, make_agent
from ..registry import NAMESPACE, EnvEntry, all_entries
from .match import Match

#: seat ``k``'s agent is seeded with ``seed + AGENT_SEED_STRIDE * (k + 1)``: distinct per seat,
#: the same on every replay of the same match
AGENT_SEED_STRIDE = 7919


class CliError(Exception):
    """Bad input or an impossible request: ``main`` prints the message on one line and
    exits with status 2."""


def resolve_entry(env_id: str) -> EnvEntry:
    """The registry entry of ``env_id``; the namespace may be left out (``EmpireSolo-v0``).

    Raises ``CliError`` naming close matches for an unknown id.
    """
    entries = all_entries()  # games added with register_game included
    ids = [item.env_id for item in entries]
    for candidate in (env_id, f"{NAMESPACE}/{env_id}"):
        if candidate in ids:
            return entries[ids.index(candidate)]
    close = difflib.get_close_matches(env_id, ids + [i.split("/", 1)[1] for i in ids], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise CliError(f"unknown env id {env_id!r}{hint} (`python -m empire_envs list` shows every id)")


def agent_seed(seed: int, seat: int) -> int:
    """The seed of the agent on ``seat`` in a match dealt with ``seed``."""
    return seed + AGENT_SEED_STRIDE * (seat + 1)


def check_agent_name(spec: str, match: Match) -> None:
    """Raise ``CliError`` unless ``spec`` is one of the match's game's agents."""
    known = agent_names(match.game_key)
    if spec not in known:
        raise CliError(
            f"{match.entry.env_id} ({match.game_name}) has no agent {spec!r}; its agents are: {', '.join(known)}"
        )


def is_file_agent(spec: str) -> bool:
    """True for a spec of an agent loaded from a file (``jaxppo:PATH``, ``pretrained:ENV_ID``,
    ``ppo:PATH``, ``rllib:PATH``: ``FILE_AGENTS``)."""
    prefix, sep, _ = spec.partition(":")
    return bool(sep) and prefix in FILE_AGENTS


def seat_agents(specs: dict[int, str], match: Match) -> dict[int, Agent]:
    """One agent per listed seat, built and seeded for the match (``agent_seed``): one of the
    game's own agents by name (``check_agent_name``), or a file agent (``is_file_agent``), which
    is checked against the match's env (``Agent.check_env``: a policy of another game, variant
    or shape is refused). Raises ``CliError`` for a spec that cannot play the match."""
    agents: dict[int, Agent] = {}
    for seat, spec in specs.items():
        if is_file_agent(spec):
            try:
                agent = make_agent(spec, match.game_key)
                agent.check_env(match.env)
            except (ImportError, OSError, TypeError, ValueError) as error:
                raise CliError(f"agent {spec!r} cannot play {match.entry.env_id}: {error}") from None
            agents[seat] = agent
            continue
        check_agent_name(spec, match)
        agents[seat] = make_agent(spec, match.game_key)
    reseed(agents, match.seed)
    return agents


def reseed(agents: dict[int, Agent], seed: int) -> None:
    """Start every agent's episode again exactly as on its first deal."""
    for seat, agent in agents.items():
        agent.reset(seed=agent_seed(seed, seat))


def choose(agent: Agent, match: Match) -> int:
    """The agent's action for the deciding seat of the match."""
    return int(agent.act(match.observation, match.mask, match.state))


def parse_agent_list(text: str) -> list[str]:
    """``heuristic,random`` as a list of names; raises ``CliError`` on an empty entry."""
    names = [part.strip() for part in text.split(",")]
    if not names or any(not name for name in names):
        raise CliError(f"--opponents must be agent names separated by commas, got {text!r}")
    return names


def format_reward(value: float) -> str:
    """A signed return: ``+1.0``, ``-0.333``."""
    return f"{value:+.1f}" if abs(value - round(value, 1)) < 1e-9 else f"{value:+.3f}"


__all__ = [
    "AGENT_SEED_STRIDE",
    "CliError",
    "agent_seed",
    "check_agent_name",
    "choose",
    "format_reward",
    "is_file_agent",
    "parse_agent_list",
    "reseed",
    "resolve_entry",
    "seat_agents",
]
