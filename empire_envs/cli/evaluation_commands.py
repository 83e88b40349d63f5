"""The commands that measure agents and environments: ``evaluate``, ``benchmark``, ``bench``,
``solvability``, ``fair-optimum`` and ``deck-balance`` (the work is done in ``empire_envs.evaluation``).

Their flags are those of the scripts in ``experiments/``, which call these commands.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.limits import check_fits_in_memory
from ..evaluation import batched_speed, benchmark, speed
from ..evaluation.evaluate import SEAT_ROTATIONS, USAGE_ERRORS, evaluate_agent, format_table
from ..evaluation.reporting import emit_json, text_log
from .arguments import add_key_value_flag, check_output_folder, positive_float, positive_int, seed_int, share
from .common import CliError

Subparsers = Any  # argparse's private _SubParsersAction
Command = Callable[[argparse.Namespace], int]


#: the --agent help of evaluate and benchmark
AGENT_SPECS_HELP = (
    "random, a game's own agent (heuristic, ...), ppo:PATH (a MaskablePPO model.zip), jaxppo:PATH "
    "(a compiled-PPO policy.npz), pretrained:ENV_ID (a policy shipped with the package) or "
    "package.module:Class; repeat for several (default: random)"
)


def add_parsers(commands: Subparsers) -> None:
    """Add this module's commands to the ``python -m empire_envs`` parser."""
    _add_evaluate(commands)
    _add_benchmark(commands)
    _add_bench(commands)
    _add_solvability(commands)
    _add_fair_optimum(commands)
    _add_deck_balance(commands)


# --------------------------------------------------------------------------- evaluate


def _add_evaluate(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "evaluate",
        help="win/loss/draw rates of agents on an env, with 95%% intervals",
        description="Evaluate agents on any environment; every agent plays the same deals. In a "
        "multiplayer env with N seats the agent takes the seats in turn and --opponent plays the "
        "others: by default episode i plays deal seed + i // N from seat i mod N, so each deal is "
        "played once from every seat (--seat-rotation episode: deal seed + i from seat i mod N, the "
        "older scheme). Rates come with 95% Wilson intervals, the chance level for N seats is "
        "stated, and with more than two seats the mean finishing rank (1 = best) is given too.",
    )
    sub.add_argument(
        "--env", default="empire_envs/EmpireSolo-v0", help="env id, or package.module:factory of a PettingZoo AEC env"
    )
    sub.add_argument(
        "--agent",
        action="append",
        dest="agents",
        metavar="SPEC",
        help=AGENT_SPECS_HELP,
    )
    sub.add_argument(
        "--opponent",
        default=None,
        help="agent spec for the other seats of a multiplayer env (default random; an error for a one-seat env)",
    )
    sub.add_argument("--episodes", type=positive_int, default=2000)
    sub.add_argument(
        "--seed", type=seed_int, default=0, help="the first deal's seed (see --seat-rotation for the others)"
    )
    sub.add_argument(
        "--seat-rotation",
        choices=SEAT_ROTATIONS,
        default="deal",
        help="multiplayer envs with N seats: 'deal' (default) plays deal seed + i // N from seat i mod N, "
        "every deal from every seat; 'episode' plays deal seed + i from seat i mod N (how figures "
        "measured before seat rotation on deals were made). A one-seat env plays deal seed + i either way",
    )
    add_key_value_flag(
        sub, "--env-kwarg", "passed to gymnasium.make; VALUE is a Python literal (e.g. length_limit=200)"
    )
    add_key_value_flag(
        sub,
        "--agent-kwarg",
        "a setting of the evaluated agents (e.g. iterations=50 for ismcts); VALUE is a Python literal",
    )
    sub.add_argument(
        "--json", metavar="PATH", help="also write the results as JSON to PATH ('-': JSON on stdout, table on stderr)"
    )


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Evaluate each agent, print the table (and the JSON)."""
    env_kwargs = dict(args.env_kwarg)
    log = text_log(args.json)
    results = []
    for spec in args.agents or ["random"]:
        try:
            result = evaluate_agent(
                args.env,
                spec,
                args.episodes,
                args.seed,
                env_kwargs,
                opponent=args.opponent,
                agent_kwargs=dict(args.agent_kwarg),
                seat_rotation=args.seat_rotation,
            )
        except USAGE_ERRORS as error:
            raise CliError(f"agent {spec!r} on {args.env}: {type(error).__name__}: {error}") from None
        results.append(result)
    log(format_table(results))
    emit_json({"results": results}, args.json, log)
    return 0


# --------------------------------------------------------------------------- benchmark


def _env_spec_arg(text: str) -> benchmark.EnvVariant:
    try:
        return benchmark.EnvVariant.parse(text)
    except benchmark.BenchmarkError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_benchmark(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "benchmark",
        help="agents across envs, variants and seeds: tables, charts, round robins with Elo",
        description="Benchmark agents on several environments and variants over several seeds: one "
        "results table (results.md, .csv, .png under --out) and, per multiplayer env, a round robin "
        "with Elo ratings.",
    )
    sub.add_argument(
        "--env",
        action="append",
        dest="envs",
        type=_env_spec_arg,
        required=True,
        metavar="SPEC[@KEY=VALUE,...]",
        help="env id or package.module:factory of a PettingZoo AEC env, optionally with variant "
        "settings (e.g. empire_envs/EmpireSolo-v0@length_limit=200); repeat for several",
    )
    sub.add_argument(
        "--agent",
        action="append",
        dest="agents",
        metavar="SPEC",
        help=AGENT_SPECS_HELP,
    )
    sub.add_argument(
        "--opponent", default="random", help="agent spec for the other seats of a multiplayer env (main table)"
    )
    sub.add_argument(
        "--seeds",
        type=seed_int,
        nargs="+",
        default=[0],
        help=f"seed k plays episode seeds k*{benchmark.SEED_STRIDE} + i (default: 0)",
    )
    sub.add_argument("--episodes", type=positive_int, default=200, help="episodes per seed")
    add_key_value_flag(
        sub,
        "--agent-kwarg",
        "a setting for every agent (and opponent) that takes it, e.g. iterations=50 for ismcts; the "
        "others are unaffected; VALUE is a Python literal; repeatable",
    )
    sub.add_argument("--out", default="runs/benchmark", help="folder for the result files")
    sub.add_argument(
        "--json", metavar="PATH", help="also write everything as JSON to PATH ('-': JSON on stdout, text on stderr)"
    )


def _benchmark_command(argv: list[str]) -> str:
    """The command line quoted in ``results.md``: ``argv`` is the whole command line after
    ``python -m empire_envs``, starting with ``benchmark``."""
    return shlex.join(["python", "-m", "empire_envs", *argv])


def cmd_benchmark(args: argparse.Namespace) -> int:
    """Run the benchmark, write its files, print its tables (and the JSON)."""
    check_output_folder(args.out)
    log = text_log(args.json)
    try:
        report = benchmark.benchmark_report(
            args.envs,
            args.agents or ["random"],
            args.seeds,
            args.episodes,
            args.opponent,
            Path(args.out),
            _benchmark_command(list(args.argv)),
            log=log,
            agent_kwargs=dict(args.agent_kwarg),
        )
    except benchmark.BenchmarkError as error:
        raise CliError(str(error)) from None
    except (ImportError, OSError) as error:  # e.g. ppo:PATH without the file or the extra
        raise CliError(f"{type(error).__name__}: {error}") from None
    emit_json(report, args.json, log)
    return 0


# --------------------------------------------------------------------------- bench (speed)


def _add_bench(commands: Subparsers) -> None:
    rows = speed.benchmarks()
    sub = commands.add_parser(
        "bench",
        help="environment speed: decisions per second beside Gymnasium and PettingZoo peers",
        description="Environment speed: decisions per second under a random masked policy, every game "
        "of the registry through its API, its raw_env and its raw rules, with clone timings, the peer "
        "environments measured in the same run, and the ratios.",
    )
    sub.add_argument("--seconds", type=positive_float, default=5.0, help="per measurement (default 5)")
    sub.add_argument("--seed", type=seed_int, default=0)
    sub.add_argument(
        "--only",
        action="append",
        metavar="NAMES",
        help="comma-separated benchmark or group names "
        f"(benchmarks: {', '.join(row.name for row in rows)}; groups: {', '.join(speed.group_names())})",
    )
    sub.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        help="rounds over the selected benchmarks; each reports its median round (default 1)",
    )
    sub.add_argument("--json", metavar="PATH", help="write the figures as JSON ('-': stdout)")
    batched = sub.add_argument_group(
        "batched JAX twins (--batched)",
        "jitted random legal steps of the JAX twins (one seat or several) and of pgx's connect_four, "
        "leduc_holdem and backgammon through one harness that deals finished games again, the compile "
        "time apart, each subject's state bytes per game, and each twin's Python env (Gymnasium or "
        "PettingZoo AEC) for scale, then the ratios and one table of it all (needs the jax extra; pgx "
        "rows need the bench extra)",
    )
    batched.add_argument("--batched", action="store_true", help="run the batched benchmark instead")
    batched.add_argument(
        "--batch-sizes",
        type=positive_int,
        nargs="+",
        default=list(batched_speed.BATCH_SIZES),
        metavar="N",
        help=f"batch sizes (default: {' '.join(map(str, batched_speed.BATCH_SIZES))})",
    )
    batched.add_argument(
        "--env",
        action="append",
        dest="twin_ids",
        metavar="ID",
        help="a twin id to measure (repeat; default: the first variant of every game with a twin)",
    )
    batched.add_argument(
        "--profile",
        action="store_true",
        help="time the parts of a batched step of each twin instead (sampler, step, reset_finished, "
        "deals, observe) and its state's bytes per game, at N=1024 unless --batch-sizes is given",
    )
    batched.add_argument(
        "--peers",
        default=",".join(batched_speed.PGX_PEERS),
        help="comma-separated pgx envs to measure beside them ('' for none)",
    )


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the selected speed benchmarks; print each row and the ratios (and the JSON)."""
    if args.batched:
        return _cmd_bench_batched(args)
    batched_only = [flag for flag, given in BATCHED_FLAGS.items() if given(args)]
    if batched_only:
        verb = "goes" if len(batched_only) == 1 else "go"
        raise CliError(f"{', '.join(batched_only)} {verb} with --batched (the batched JAX benchmark); add --batched")
    try:
        speed.select(args.only)
    except ValueError as error:
        raise CliError(str(error)) from None
    log = text_log(args.json)
    report = speed.run_benchmarks(args.seconds, args.only, args.seed, log=log, repeat=args.repeat)
    log(speed.format_ratios(report))
    emit_json(report, args.json, log)
    return 0


#: the flags of bench that only the batched benchmark reads, each with how to tell it was given
BATCHED_FLAGS: dict[str, Callable[[argparse.Namespace], bool]] = {
    "--env": lambda args: bool(args.twin_ids),
    "--peers": lambda args: args.peers != ",".join(batched_speed.PGX_PEERS),
    "--batch-sizes": lambda args: args.batch_sizes != list(batched_speed.BATCH_SIZES),
    "--profile": lambda args: args.profile,
}


def _cmd_bench_batched(args: argparse.Namespace) -> int:
    if args.only:
        raise CliError("--only selects rows of the Python benchmark; with --batched use --env and --peers")
    log = text_log(args.json)
    try:
        largest = max(args.batch_sizes)
        for subject in batched_speed.twin_subjects(args.twin_ids):
            check_fits_in_memory(
                batched_speed.STATE_COPIES * largest * batched_speed.state_bytes(subject.name),
                f"--batch-sizes {largest} of {subject.name}",
            )
    except (KeyError, ValueError) as error:
        raise CliError(str(error)) from None
    if args.profile:
        return _cmd_profile_batched(args, log)
    try:
        report = batched_speed.run_batched(
            args.seconds,
            args.batch_sizes,
            args.twin_ids,
            [name for name in args.peers.split(",") if name],
            seed=args.seed,
            log=log,
        )
    except (KeyError, ValueError) as error:
        raise CliError(str(error)) from None
    emit_json(report, args.json, log)
    return 0


def _cmd_profile_batched(args: argparse.Namespace, log: Callable[[str], None]) -> int:
    sizes = [1024] if args.batch_sizes == list(batched_speed.BATCH_SIZES) else args.batch_sizes
    report: dict[str, Any] = {}
    try:
        subjects = batched_speed.twin_subjects(args.twin_ids)
    except (KeyError, ValueError) as error:
        raise CliError(str(error)) from None
    for subject in subjects:
        size = batched_speed.state_bytes(subject.name)
        report[subject.name] = {"state_bytes": size}
        for num_envs in sizes:
            parts = batched_speed.profile(subject.name, num_envs)
            report[subject.name][str(num_envs)] = parts
            log(f"{subject.name} at N={num_envs}: state {size:,} bytes per game")
            for name, seconds in parts.items():
                per_game = seconds / num_envs * 1e9
                log(f"  {name:<16} {seconds * 1e3:7.3f} ms per batched step  ({per_game:7.1f} ns per game)")
    emit_json(report, args.json, log)
    return 0


# --------------------------------------------------------------------------- solvability


def _add_solvability(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "solvability",
        help="the share of Empire Solitaire deals that perfect play wins with the stock known",
        description="Solve Solitaire deals seed .. seed + deals - 1 exactly with the stock order known "
        "and replay every winning line; exit status 1 when a replay fails.",
    )
    sub.add_argument("--deals", type=positive_int, default=1000)
    sub.add_argument("--seed", type=seed_int, default=0)
    sub.add_argument(
        "--backend",
        choices=("auto", "fast", "python"),
        default="auto",
        help="auto: fast (numba) when installed, else python",
    )
    sub.add_argument(
        "--node-limit",
        type=positive_int,
        default=None,
        metavar="N",
        help="stop a deal after N nodes and count it undecided",
    )
    sub.add_argument("--json", metavar="PATH", help="write the report as JSON ('-': stdout)")


def cmd_solvability(args: argparse.Namespace) -> int:
    """Solve the deals, print the report (and the JSON); 1 when a winning line fails its replay."""
    from ..evaluation import solvability

    log = text_log(args.json)
    report = solvability.run(args.deals, args.seed, args.backend, args.node_limit, log=log)
    log(solvability.format_report(report))
    emit_json(report, args.json, log)
    return 1 if report["replay_failures"] else 0


# --------------------------------------------------------------------------- fair-optimum


def _add_fair_optimum(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "fair-optimum",
        help="Empire Solitaire: bounds on the best win probability without seeing the stock, per deal",
        description="Search the expectimax over the hidden stock (games/solitaire/fair.py) of the env's "
        "deals seed .. seed + deals - 1 for at most --seconds CPU seconds each; print each deal's sound "
        "bounds and the mean's.",
    )
    sub.add_argument("--deals", type=positive_int, default=200)
    sub.add_argument("--seed", type=seed_int, default=0)
    sub.add_argument("--seconds", type=positive_float, default=6.0, help="CPU seconds of search per deal (default 6)")
    sub.add_argument(
        "--after-reveals",
        type=int,
        default=0,
        choices=(0, 1, 2),
        help="first play reveal-solve until this many stock cards are placed, then search",
    )
    sub.add_argument(
        "--engine",
        default="python",
        choices=("python", "compiled"),
        help="python: fair.py's FairSearch (the default); compiled: games/solitaire/fair_kernel.py, the same "
        "search in one numba kernel (about 25 s to compile per process)",
    )
    sub.add_argument(
        "--clairvoyant-bound",
        action="store_true",
        help="tighten an unfinished deal's upper bound with the known-order verdict averaged over the stock "
        "orders (sound; seconds to minutes a deal, outside --seconds)",
    )
    sub.add_argument(
        "--value-one-share",
        type=share,
        default=None,
        metavar="SHARE",
        help="compiled engine: the share of --seconds given first to the test 'is the value 1?' (default 0.75; "
        "0 skips it)",
    )
    sub.add_argument(
        "--reveal-last-share",
        type=share,
        default=None,
        metavar="SHARE",
        help="compiled engine: the share of the test's time run with REVEAL after every capture, before "
        "REVEAL first (default 0.6)",
    )
    sub.add_argument(
        "--regret-agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="after the searches, play this agent (repeatable) on every exact deal with --regret-stocks stock "
        "orders and report its regret against the fair optimum",
    )
    sub.add_argument(
        "--regret-stocks", type=positive_int, default=100, help="stock orders per exact deal for --regret-agent"
    )
    sub.add_argument("--json", metavar="PATH", help="write the summary and the per-deal rows as JSON ('-': stdout)")


def cmd_fair_optimum(args: argparse.Namespace) -> int:
    """Search the deals, print the report (and the JSON)."""
    from ..agents.base import make_agent
    from ..evaluation import fair_optimum

    log = text_log(args.json)
    if args.regret_agent and args.after_reveals:
        raise CliError("--regret-agent plays whole deals: leave --after-reveals at 0")
    for spec in args.regret_agent:  # a bad spec fails before the searches, not after them
        try:
            make_agent(spec, fair_optimum.ENV_ID)
        except (ValueError, OSError) as error:
            raise CliError(str(error)) from None
    try:
        report = fair_optimum.run(
            args.deals,
            args.seed,
            args.seconds,
            args.after_reveals,
            log=log,
            engine=args.engine,
            clairvoyant_bound=args.clairvoyant_bound,
            value_one_share=args.value_one_share,
            reveal_last_share=args.reveal_last_share,
        )
        if args.regret_agent and report["summary"]["exact_deals"]:
            report["regret"] = fair_optimum.agent_regret(
                report, args.regret_agent, args.regret_stocks, args.seed, log=log
            )
    except ValueError as error:
        raise CliError(str(error)) from None
    log(fair_optimum.format_report(report))
    emit_json(report, args.json, log)
    return 0


# --------------------------------------------------------------------------- deck-balance


def _add_deck_balance(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "deck-balance",
        help="Empires and Generals: every pairing of the decks, the same agent on both sides",
        description="Deck balance of Empires and Generals: every pairing of the prebuilt decks, played by "
        "the same agent on both sides (heuristic mirror matches by default), seats alternated. Exit "
        "status 1 when some deck wins more than --max-share against another.",
    )
    sub.add_argument("--games", type=positive_int, default=200, help="games per pairing (default 200)")
    sub.add_argument("--agent", default="heuristic", help="the agent on both sides (default heuristic)")
    sub.add_argument("--seed", type=seed_int, default=0)
    sub.add_argument("--game-type", default="normal", choices=("quick", "normal", "epic"))
    sub.add_argument(
        "--max-share",
        type=share,
        default=0.65,
        help="balance bar: no deck may win more than this share against another",
    )
    sub.add_argument("--card-pool", default="default", help="a pool file instead of the default pool")
    sub.add_argument(
        "--deck-files",
        nargs="+",
        default=None,
        help="deck files instead of the prebuilt decks (their ids are paired)",
    )
    sub.add_argument("--out", type=Path, default=None, help="folder for deck_balance.md and .csv")


def cmd_deck_balance(args: argparse.Namespace) -> int:
    """Play every pairing; print (and with --out write) the tables; 1 when a deck is too strong."""
    import time

    from ..evaluation import deck_balance
    from ..games.generals import GeneralsConfig

    if args.out is not None:
        check_output_folder(args.out)

    config = GeneralsConfig(
        game_type=args.game_type,
        card_pool=args.card_pool,
        deck_files=tuple(args.deck_files) if args.deck_files else None,
    )
    start = time.perf_counter()
    rows, totals = deck_balance.deck_balance(config, args.games, args.agent, args.seed, log=_print_now)
    text = deck_balance.markdown(rows, totals, args.agent, args.games)
    print(text)
    print(f"{time.perf_counter() - start:.1f} s")
    if args.out is not None:
        deck_balance.write_deck_balance(rows, text, args.out)
    worst = deck_balance.largest_share(rows)
    print(f"largest share of one deck against another: {worst:.3f} (bar {args.max_share})")
    return 0 if worst <= args.max_share else 1


def _print_now(line: str) -> None:
    print(line, flush=True)


COMMANDS: dict[str, Command] = {
    "evaluate": cmd_evaluate,
    "benchmark": cmd_benchmark,
    "bench": cmd_bench,
    "solvability": cmd_solvability,
    "fair-optimum": cmd_fair_optimum,
    "deck-balance": cmd_deck_balance,
}

__all__ = ["COMMANDS", "add_parsers"]
