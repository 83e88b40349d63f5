"""``match``: agents against each other on the seats of a multiplayer game, deal after deal.

``python -m empire_envs match ENV_ID AGENT AGENT [AGENT ...]`` takes a multiplayer (PettingZoo
AEC) id and one agent spec per seat, in seat order: any spec ``make_agent`` takes (``random``, a
game's own agent such as ``heuristic`` or ``ismcts``, ``jaxppo:PATH``, ``pretrained:ENV_ID``,
``ppo:PATH``, ``package.module:Class``). Agent ``i`` of the list is "agent ``i``" below.

Games. Deal ``g`` (0-based, ``g < games``) is dealt with the seed ``seed + g``. Without ``swap``
each deal is played once, agent ``i`` on seat ``i``. With ``swap`` each deal is played once per
rotation ``r = 0 .. N-1`` of the ``N`` seats, agent ``i`` on seat ``(i + r) mod N``, one rotation
after the other, so every agent plays every seat on the same deals (``N * games`` games; for two
seats, each deal again with the seats swapped). The agent on seat ``k`` of a game dealt with seed
``d`` is reset with ``agent_seed(d, k)``, as ``play`` and ``render`` seed their agents, so a game
is repeatable. Agents are built once and checked against the env before the first game: an
unknown name, a policy file of another game or shape, or bad settings stop the command with a
one-line error and exit status 2 before any game is played.

Settings (``--agent-kwarg``): ``KEY=VALUE`` goes to every agent that takes ``KEY`` (as in
``benchmark``: ``iterations=50`` reaches ISMCTS and leaves the heuristic alone; a key no agent
takes is an error); ``N:KEY=VALUE`` goes to agent ``N`` only, and is an error if that agent does
not take it. ``VALUE`` is a Python literal (a bare word is a string); an indexed setting wins over
a shared one of the same key.

Output: a heading, one line per game (its number, its deal seed, each seat's agent, the outcome,
each seat's return in seat order and the number of decisions), then one row per agent: its games,
wins, draws and losses, each with a 95% Wilson interval (``wilson_interval``), truncated games and
games ended by an illegal action where there are any, and its mean return. An agent's outcome in a
game is its seat's outcome as the env states it (``won``, ``lost``, ``draw``, ``truncated``...).
``render="text"`` prints the final position of each game (the env's ``ansi`` rendering, the whole
truth) before its line; ``render="steps"`` prints the start position and, after each decision, the
seat, its agent and the move, and the position.

``--json PATH`` writes the report ``play_games`` returns, under the command line: the agents with
their settings, every game (its seats, outcome, returns, decisions, and the line printed for it) and
the summary rows (counts, their intervals as ``<count>_ci95``, the mean return). An existing file
is refused before any game is played unless ``--overwrite``; the file is written whole to a
temporary file in the same folder and moved into place, so a reader never sees half a file.
``--json -`` writes the JSON to standard output and the text to standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.base import Agent, agent_settings, make_agent
from ..evaluation.evaluate import OUTCOME_KEYS, parse_env_kwarg, wilson_interval
from ..registry import EnvEntry
from .arguments import positive_int, seed_int
from .common import (
    CliError,
    agent_seed,
    check_agent_name,
    choose,
    format_reward,
    is_file_agent,
    resolve_entry,
    seat_agents,
)
from .match import Match, new_match

Subparsers = Any  # argparse's private _SubParsersAction
Log = Callable[[str], None]

#: what ``--render`` may ask for: nothing, each game's final position, or every position
RENDER_CHOICES = ("none", "text", "steps")
#: the outcome counts every summary row has, in its column order
SHOWN_ALWAYS = ("wins", "draws", "losses")


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class AgentKwarg:
    """One ``--agent-kwarg``: ``key=value`` for agent ``agent`` (None: every agent that takes it)."""

    agent: int | None
    key: str
    value: Any

    @property
    def text(self) -> str:
        prefix = "" if self.agent is None else f"{self.agent}:"
        return f"{prefix}{self.key}={self.value!r}"


def agent_kwarg(text: str) -> AgentKwarg:
    """An argparse type: ``KEY=VALUE`` or ``N:KEY=VALUE`` (``N`` a 0-based agent number); the
    value is read as ``parse_env_kwarg`` reads it."""
    left, sep, raw = text.partition("=")
    agent: int | None = None
    if ":" in left:
        number, _, left = left.partition(":")
        try:
            agent = int(number)
        except ValueError:
            agent = -1
        if agent < 0:
            raise argparse.ArgumentTypeError(f"expected N:KEY=VALUE with N an agent number 0, 1..., got {text!r}")
    key, value = parse_env_kwarg(f"{left}{sep}{raw}")
    return AgentKwarg(agent, key, value)


def settings_per_agent(specs: Sequence[str], game: str, kwargs: Sequence[AgentKwarg]) -> list[dict[str, Any]]:
    """The keyword arguments of each agent (module docstring); ``CliError`` for an agent number
    out of range or a shared key that no agent takes."""
    settings: list[dict[str, Any]] = [{} for _ in specs]
    shared = {item.key: item.value for item in kwargs if item.agent is None}
    for key, value in shared.items():
        takers = [i for i, spec in enumerate(specs) if key in agent_settings(spec, game, {key: value})]
        if not takers:
            raise CliError(
                f"--agent-kwarg {key}={value!r}: no agent of {', '.join(specs)} takes {key!r} "
                "(N:KEY=VALUE gives a setting to agent N only)"
            )
        for index in takers:
            settings[index][key] = value
    for item in kwargs:
        if item.agent is None:
            continue
        if item.agent >= len(specs):
            raise CliError(f"--agent-kwarg {item.text}: there are {len(specs)} agents, numbered 0..{len(specs) - 1}")
        settings[item.agent][item.key] = item.value
    return settings


# --------------------------------------------------------------------------- the request


@dataclass(frozen=True)
class MatchRequest:
    """What to play: the env, one agent spec per seat (with its settings), the deals, the seatings."""

    entry: EnvEntry
    specs: tuple[str, ...]
    kwargs: tuple[AgentKwarg, ...] = ()
    games: int = 1
    seed: int = 0
    swap: bool = False
    render: str = "none"

    @property
    def labels(self) -> list[str]:
        """Each agent's name in the output: its spec, numbered ``#i`` when a spec is listed twice."""
        return [spec if self.specs.count(spec) == 1 else f"{spec}#{index}" for index, spec in enumerate(self.specs)]


def check_seats(match: Match, specs: Sequence[str]) -> None:
    """``CliError`` unless the match has several seats and ``specs`` has one agent for each."""
    env_id = match.entry.env_id
    if match.players < 2:
        raise CliError(
            f"{env_id} is a one-seat game; match plays agents against each other on the seats of a "
            f"multiplayer game: to measure one agent use `python -m empire_envs evaluate --env {env_id} --agent SPEC`"
        )
    if len(specs) != match.players:
        raise CliError(
            f"{env_id} ({match.game_name}) has {match.players} seats: give {match.players} agents, "
            f"one per seat in seat order (got {len(specs)})"
        )


def build_agent(spec: str, settings: Mapping[str, Any], match: Match) -> Agent:
    """The agent of ``spec`` with ``settings``, checked against the match's env; ``CliError`` for
    an unknown name (the game's agents listed), a file it cannot play, or bad settings."""
    user_class = ":" in spec and not is_file_agent(spec)
    if not settings and not user_class:
        return seat_agents({0: spec}, match)[0]
    if not user_class and not is_file_agent(spec):
        check_agent_name(spec, match)
    try:
        agent = make_agent(spec, match.game_key, **settings)
        agent.check_env(match.env)
    except (ImportError, OSError, TypeError, ValueError) as error:
        raise CliError(f"agent {spec!r} cannot play {match.entry.env_id}: {error}") from None
    return agent


# --------------------------------------------------------------------------- playing


@dataclass(frozen=True)
class SeatResult:
    """One seat of one game: who held it and how it ended."""

    seat: str
    agent: int
    label: str
    outcome: str
    reward: float
    decisions: int


@dataclass(frozen=True)
class GameResult:
    """One game: its number (1-based), deal seed, rotation and seats in seat order."""

    number: int
    seed: int
    rotation: int
    seats: tuple[SeatResult, ...]
    result: str | None

    @property
    def decisions(self) -> int:
        return sum(seat.decisions for seat in self.seats)

    @property
    def outcome(self) -> str:
        """``player_1 (heuristic) won``; ``draw``; ``truncated``; or each seat's outcome."""
        winners = [seat for seat in self.seats if seat.outcome == "won"]
        if winners:
            return f"{', '.join(f'{seat.seat} ({seat.label})' for seat in winners)} won"
        outcomes = {seat.outcome for seat in self.seats}
        if len(outcomes) == 1:
            return outcomes.pop()
        return ", ".join(f"{seat.seat} {seat.outcome}" for seat in self.seats)

    def line(self, total: int) -> str:
        """The game's one line of output."""
        holders = ", ".join(f"{seat.seat} {seat.label}" for seat in self.seats)
        returns = " ".join(format_reward(seat.reward) for seat in self.seats)
        return (
            f"game {self.number}/{total}  seed {self.seed}  {holders}  ->  {self.outcome}  "
            f"returns {returns}  {self.decisions} decisions"
        )


@dataclass
class AgentTally:
    """One agent's results over the games."""

    label: str
    outcomes: dict[str, int] = field(default_factory=dict)
    rewards: list[float] = field(default_factory=list)

    def add(self, seat: SeatResult) -> None:
        key = OUTCOME_KEYS.get(seat.outcome, "other")
        self.outcomes[key] = self.outcomes.get(key, 0) + 1
        self.rewards.append(seat.reward)

    @property
    def games(self) -> int:
        return len(self.rewards)

    def row(self, index: int) -> dict[str, Any]:
        """The agent's summary: counts, their 95% Wilson intervals, mean return."""
        row: dict[str, Any] = {"agent": index, "label": self.label, "games": self.games}
        for key in (*SHOWN_ALWAYS, *sorted(set(self.outcomes) - set(SHOWN_ALWAYS))):
            count = self.outcomes.get(key, 0)
            row[key] = count
            row[f"{key}_ci95"] = list(wilson_interval(count, self.games))
        row["mean_return"] = sum(self.rewards) / self.games if self.games else 0.0
        return row


def seating(rotation: int, players: int) -> list[int]:
    """The agent on each seat in rotation ``rotation``: agent ``i`` holds seat ``(i + rotation) mod N``."""
    return [(seat - rotation) % players for seat in range(players)]


def game_plan(request: MatchRequest, players: int) -> list[tuple[int, int]]:
    """(deal seed, rotation) of every game, in the order they are played."""
    rotations = range(players) if request.swap else range(1)
    return [(request.seed + deal, rotation) for deal in range(request.games) for rotation in rotations]


def play_game(
    match: Match, agents: Sequence[Agent], labels: Sequence[str], holders: Sequence[int], show: Log, render: str
) -> list[int]:
    """Play the match (reset) to its end with agent ``holders[k]`` on seat ``k``; returns the
    decisions of each seat."""
    for seat, index in enumerate(holders):
        agents[index].reset(seed=agent_seed(match.seed, seat))
    decisions = [0] * match.players
    if render == "steps":
        show(str(match.render()).rstrip("\n"))
    while not match.over:
        seat = match.seat
        action = choose(agents[holders[seat]], match)
        if render == "steps":
            show(f"{match.seat_label(seat)} ({labels[holders[seat]]}): {match.action_name(action)}")
        match.step(action)
        decisions[seat] += 1
        if render == "steps":
            show(str(match.render()).rstrip("\n"))
    if render == "text":
        show(str(match.render()).rstrip("\n"))
    return decisions


def play_games(request: MatchRequest, log: Log = print) -> dict[str, Any]:
    """Play every game of the request, printing as it goes (module docstring); returns the
    report: the env, the agents with their settings, every game and the summary rows. Raises
    ``CliError``, before any game, for a request the env cannot play."""
    match = new_match(request.entry, request.seed, None if request.render == "none" else "ansi")
    try:
        check_seats(match, request.specs)
        for spec in request.specs:
            if ":" not in spec:
                check_agent_name(spec, match)
        settings = settings_per_agent(request.specs, match.game_key, request.kwargs)
        labels = request.labels
        agents = [build_agent(spec, kwargs, match) for spec, kwargs in zip(request.specs, settings, strict=True)]
        plan = game_plan(request, match.players)
        rotated = f", each with the seats rotated {match.players} ways" if request.swap else ""
        log(
            f"{match.game_name} ({match.entry.env_id}), {match.players} seats: {request.games} deal(s), "
            f"seeds {request.seed}..{request.seed + request.games - 1}{rotated}: {len(plan)} game(s)"
        )
        tallies = [AgentTally(label) for label in labels]
        games: list[dict[str, Any]] = []
        for number, (seed, rotation) in enumerate(plan, start=1):
            match.seed = seed
            match.reset()
            holders = seating(rotation, match.players)
            decisions = play_game(match, agents, labels, holders, log, request.render)
            result = GameResult(
                number,
                seed,
                rotation,
                tuple(
                    SeatResult(
                        match.seat_label(seat),
                        index,
                        labels[index],
                        match.outcome(seat) or "unknown",
                        match.total_reward(seat),
                        decisions[seat],
                    )
                    for seat, index in enumerate(holders)
                ),
                match.result,
            )
            for seat in result.seats:
                tallies[seat.agent].add(seat)
            line = result.line(len(plan))
            log(line)
            games.append(game_json(result, line))
    finally:
        match.close()
    rows = [tally.row(index) for index, tally in enumerate(tallies)]
    log(summary_table(rows))
    return {
        "env_id": request.entry.env_id,
        "game": match.game_name,
        "seats": match.players,
        "agents": [
            {"agent": index, "spec": spec, "label": label, "settings": kwargs}
            for index, (spec, label, kwargs) in enumerate(zip(request.specs, labels, settings, strict=True))
        ],
        "deals": request.games,
        "seed": request.seed,
        "swap": request.swap,
        "games": games,
        "summary": rows,
    }


def game_json(result: GameResult, line: str) -> dict[str, Any]:
    """One game of the JSON report."""
    return {
        "game": result.number,
        "seed": result.seed,
        "rotation": result.rotation,
        "outcome": result.outcome,
        "result": result.result,
        "decisions": result.decisions,
        "seats": [
            {
                "seat": seat.seat,
                "agent": seat.agent,
                "label": seat.label,
                "outcome": seat.outcome,
                "return": seat.reward,
                "decisions": seat.decisions,
            }
            for seat in result.seats
        ],
        "line": line,
    }


def _count_cell(row: Mapping[str, Any], key: str) -> str:
    low, high = row[f"{key}_ci95"]
    share = row[key] / row["games"] if row["games"] else 0.0
    return f"{row[key]} {share:6.1%} [{low:.1%}, {high:.1%}]"


def summary_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """One row per agent: games, wins, draws and losses with their 95% Wilson intervals (truncated
    and other endings where any agent had them), mean return."""
    extra = sorted({key for row in rows for key in OUTCOME_KEYS.values() if row.get(key)} - set(SHOWN_ALWAYS))
    extra += ["other"] if any(row.get("other") for row in rows) else []
    columns = [*SHOWN_ALWAYS, *extra]
    header = ["agent", "games", *(f"{key} [95% CI]" for key in columns), "mean return"]
    body = [
        [
            f"{row['agent']} {row['label']}",
            str(row["games"]),
            *(_count_cell(row, key) for key in columns),
            format_reward(row["mean_return"]),
        ]
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def join(cells: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([join(header), *(join(line) for line in body)])


# --------------------------------------------------------------------------- the JSON file


def check_json_target(path: str | None, overwrite: bool) -> None:
    """``CliError`` for ``--json PATH`` naming an existing file without ``overwrite``, or for
    ``--overwrite`` without a file to write."""
    if path is None or path == "-":
        if overwrite:
            raise CliError("--overwrite goes with --json PATH (it lets the file be replaced)")
        return
    if Path(path).exists() and not overwrite:
        raise CliError(f"{path} exists; pass --overwrite to replace it, or give another --json path")


def write_json_atomic(path: Path, data: Any, overwrite: bool) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file in its folder, moved into place;
    ``CliError`` if ``path`` appeared meanwhile and ``overwrite`` is not set."""
    text = json.dumps(data, indent=2, default=str) + "\n"
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("x", encoding="utf-8") as handle:
            handle.write(text)
        if path.exists() and not overwrite:
            raise CliError(f"{path} appeared while the games were played; nothing was written to it")
        os.replace(temporary, path)
    except OSError as error:
        raise CliError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        temporary.unlink(missing_ok=True)


# --------------------------------------------------------------------------- the command


def add_parser(commands: Subparsers) -> None:
    """Add ``match`` to the ``python -m empire_envs`` parser."""
    sub = commands.add_parser(
        "match",
        help="agents against each other on the seats of a multiplayer game",
        description="Play agents against each other on a multiplayer id, one agent per seat in seat "
        "order. Game g is dealt with seed --seed + g; --swap plays every deal again with the seats "
        "rotated, so each agent plays each seat on the same deals. Prints one line per game and, per "
        "agent, wins, draws and losses with 95% Wilson intervals and the mean return.",
    )
    sub.add_argument("env_id", metavar="ENV_ID", help="a multiplayer id (see `list`)")
    sub.add_argument(
        "agents",
        nargs="+",
        metavar="AGENT",
        help="one agent per seat, in seat order: random, a game's own agent (heuristic, ismcts...), "
        "jaxppo:PATH (a compiled-PPO policy.npz), pretrained:ENV_ID (a policy shipped with the "
        "package), ppo:PATH or package.module:Class",
    )
    sub.add_argument("--games", type=positive_int, default=1, help="deals to play (default 1)")
    sub.add_argument("--seed", type=seed_int, default=0, help="game g is dealt with seed SEED + g (default 0)")
    sub.add_argument(
        "--swap",
        action="store_true",
        help="play every deal once per rotation of the seats (N games a deal for N seats)",
    )
    sub.add_argument(
        "--agent-kwarg",
        action="append",
        default=[],
        type=agent_kwarg,
        metavar="[N:]KEY=VALUE",
        help="a setting for every agent that takes KEY (e.g. iterations=50 for ismcts), or with N: "
        "for agent N only (0-based, in the order the agents are listed); VALUE is a Python literal; repeatable",
    )
    sub.add_argument(
        "--render",
        choices=RENDER_CHOICES,
        default="none",
        help="text: print each game's final position; steps: print every move and position (default none)",
    )
    sub.add_argument(
        "--json",
        metavar="PATH",
        help="also write every game and the summary as JSON ('-': JSON on stdout, text on stderr)",
    )
    sub.add_argument("--overwrite", action="store_true", help="let --json replace an existing file")


def cmd_match(args: argparse.Namespace) -> int:
    """Check everything, play the games, print them and the summary (and write the JSON)."""
    check_json_target(args.json, args.overwrite)
    request = MatchRequest(
        entry=resolve_entry(args.env_id),
        specs=tuple(args.agents),
        kwargs=tuple(args.agent_kwarg),
        games=args.games,
        seed=args.seed,
        swap=args.swap,
        render=args.render,
    )
    to_stderr = args.json == "-"
    log: Log = (lambda line: print(line, file=sys.stderr)) if to_stderr else print
    report = play_games(request, log)
    report = {"command": shlex.join(["python", "-m", "empire_envs", *getattr(args, "argv", ["match"])]), **report}
    if to_stderr:
        print(json.dumps(report, indent=2, default=str))
    elif args.json:
        write_json_atomic(Path(args.json), report, args.overwrite)
        log(f"wrote {args.json}")
    return 0


COMMANDS = {"match": cmd_match}

__all__ = [
    "COMMANDS",
    "AgentKwarg",
    "MatchRequest",
    "add_parser",
    "agent_kwarg",
    "cmd_match",
    "play_games",
    "settings_per_agent",
    "summary_table",
]
