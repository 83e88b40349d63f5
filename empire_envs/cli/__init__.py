"""The command-line tools: ``python -m empire_envs COMMAND``.

- ``list``, ``render``, ``play``: the registered ids, pictures of a game, a game in the terminal
  (``listing``, ``render``, ``play``; the module ``match`` gives them one surface over Gymnasium
  and PettingZoo envs);
- ``match``: agents against each other on the seats of a multiplayer game, deal after deal, with
  the seats rotated on request (``match_command``);
- ``evaluate``, ``benchmark``, ``bench``, ``solvability``, ``fair-optimum``, ``deck-balance``: measuring agents and
  environments (``evaluation_commands`` over ``empire_envs.evaluation``);
- ``train``, ``imitate``, ``demo``, ``train-rllib``: training (``training_commands`` over
  ``empire_envs.training``; the ``train`` or ``distributed`` extra);
- ``gallery``: the README's pictures, from a checkout (``site_commands``; the documentation
  site is built by the repository's ``docs/tools/build_site.py``, not by the package).

The scripts in ``experiments/`` call these commands with the same flags.

``main(argv)`` parses the arguments, runs one command and returns its exit status: 0 on
success, 2 on bad input (an unknown env id, a bad file extension, a negative step count, an
agent the game lacks...), reported as one line ``empire_envs <command>: error: <message>`` on
stderr, without a traceback.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import evaluation_commands, match_command, site_commands, training_commands
from .arguments import check_output_file, non_negative_int, positive_float, seed_int
from .common import CliError, parse_agent_list, resolve_entry
from .listing import run_list
from .match import new_match
from .play import PlaySession, seat_specs
from .render import MAX_GIF_FRAMES, RenderRequest, run_render

PROG = "empire_envs"
USAGE_ERROR = 2


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command, with its help."""
    parser = Parser(
        prog=PROG,
        description="Command-line tools for the empire_envs environments: list the ids, "
        "render a game to PNG/GIF, play one in the terminal, evaluate, benchmark and train agents, "
        "time the environments, and write the gallery and the documentation site.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    _add_list(commands)
    _add_render(commands)
    _add_play(commands)
    match_command.add_parser(commands)
    evaluation_commands.add_parsers(commands)
    training_commands.add_parsers(commands)
    site_commands.add_parsers(commands)
    return parser


def _add_list(commands: argparse._SubParsersAction[Parser]) -> None:
    """The ``list`` command's arguments."""
    sub = commands.add_parser(
        "list",
        help="list every registered env id",
        description="Every registered id with its API, number of players, action count, "
        "observation size and variant settings.",
    )
    sub.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="an aligned text table (default) or JSON for machines",
    )


def _add_render(commands: argparse._SubParsersAction[Parser]) -> None:
    """The ``render`` command's arguments."""
    sub = commands.add_parser(
        "render",
        help="play a game with an agent and save a PNG or an animated GIF",
        description="Play one seeded episode with the same agent on every seat and save the "
        "rgb_array pictures. A .png gets the position after --steps decisions (0: the start "
        "position; the final one if the game ends sooner). A .gif animates the start position "
        "and the position after each decision: the first --steps decisions, or the whole "
        f"episode without --steps; at most {MAX_GIF_FRAMES} frames either way.",
    )
    sub.add_argument("env_id", metavar="ENV_ID", help="a registered id (see `list`)")
    sub.add_argument("--out", required=True, type=Path, help="output file, ending in .png or .gif")
    sub.add_argument("--seed", type=seed_int, default=0, help="the deal's seed (default 0)")
    sub.add_argument(
        "--steps",
        type=non_negative_int,
        default=None,
        help="decisions to play (default: 0 for .png, the whole episode for .gif)",
    )
    sub.add_argument(
        "--agent",
        default="random",
        help="agent on every seat: random (default), heuristic, or another of the game's agents",
    )
    sub.add_argument("--fps", type=positive_float, default=2.0, help="GIF frames per second (default 2)")


def _add_play(commands: argparse._SubParsersAction[Parser]) -> None:
    """The ``play`` command's arguments."""
    sub = commands.add_parser(
        "play",
        help="play a game yourself in the terminal",
        description="Play in the terminal. Each turn shows the position and your legal moves "
        "numbered 0..n-1; type a number to play it, u to undo your last move, h for help, q to "
        "quit (Ctrl-D quits too). In a multiplayer game you hold --seat and agents hold the "
        "other seats.",
    )
    sub.add_argument("env_id", metavar="ENV_ID", help="a registered id (see `list`)")
    sub.add_argument(
        "--seed", type=seed_int, default=None, help="the deal's seed (default: a random one, printed at the start)"
    )
    sub.add_argument(
        "--seat", type=non_negative_int, default=0, help="your seat in a multiplayer game, 0-based (default 0)"
    )
    sub.add_argument(
        "--opponents",
        default="random",
        help="agents for the other seats, comma-separated and cycled in seat order, "
        "e.g. heuristic,random or pretrained:MapDuel-v0 or jaxppo:PATH (default random; ignored in solo games)",
    )
    sub.add_argument(
        "--reveal",
        action="store_true",
        help="show the whole truth (every hand) and name the opponents' sealed moves too",
    )


def cmd_list(args: argparse.Namespace) -> int:
    """Print the table (or JSON) of every registered id."""
    print(run_list(args.format))
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    """Play, save the PNG or GIF, and print what was written."""
    request = RenderRequest(
        entry=resolve_entry(args.env_id),
        seed=args.seed,
        steps=args.steps,
        out=args.out,
        agent=args.agent,
        fps=args.fps,
    )
    print(run_render(request))
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Let a human play in the terminal (a random seed, printed, when none is given)."""
    entry = resolve_entry(args.env_id)
    opponents = parse_agent_list(args.opponents)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    match = new_match(entry, seed, "ansi")
    try:
        session = PlaySession(match, args.seat, seat_specs(match, args.seat, opponents), reveal=args.reveal)
        return session.run()
    finally:
        match.close()


COMMANDS = {
    "list": cmd_list,
    "render": cmd_render,
    "play": cmd_play,
    **match_command.COMMANDS,
    **evaluation_commands.COMMANDS,
    **training_commands.COMMANDS,
    **site_commands.COMMANDS,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # the benchmark quotes its own command line in its results
    try:
        check_output_file(getattr(args, "json", None))  # before the work, not after it
        return COMMANDS[args.command](args)
    except CliError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # the reader left (``... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130


__all__ = ["COMMANDS", "CliError", "build_parser", "main"]
