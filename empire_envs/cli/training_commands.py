"""The commands that train: ``train`` (MaskablePPO), ``imitate`` (behaviour cloning), ``demo``
(the ``make demo`` job) and ``train-rllib`` (PPO with Ray RLlib). The work is done in
``empire_envs.training``; torch, sb3 and ray are imported only when one of them runs.

Their flags are those of the scripts in ``experiments/``, which call these commands.
"""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium

from ..core.extras import require_extra
from ..training.config import TrainConfig, default_output_dir, load_config
from ..training.jax_config import JaxTrainConfig, default_jax_output_dir, load_jax_config
from ..training.rllib import POLICY_MODES
from ..training.run_folder import RunFolderError, check_run_folder, run_folder
from .arguments import (
    add_key_value_flag,
    check_output_folder,
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    seed_int,
    share,
)
from .common import CliError

Subparsers = Any  # argparse's private _SubParsersAction
Command = Callable[[argparse.Namespace], int]

#: what a run raises for bad input: an unknown id, a bad setting, a missing extra
RUN_ERRORS = (ValueError, TypeError, KeyError, ImportError, gymnasium.error.Error)
#: the trainers of ``train`` and ``demo``
BACKENDS = ("sb3", "jax")


def flag_value(argv: Sequence[str], flag: str, default: str | None) -> str | None:
    """The value an argument list gives ``flag`` (``--flag VALUE`` or ``--flag=VALUE``; the last
    one, as argparse reads it), else ``default``: the scripts of ``experiments/`` choose their
    defaults by it."""
    value = default
    for index, arg in enumerate(argv):
        if arg.startswith(f"{flag}="):
            value = arg.partition("=")[2]
        elif arg == flag and index + 1 < len(argv):
            value = argv[index + 1]
    return value


def backend_named(argv: Sequence[str], default: str) -> str:
    """The ``--backend`` an argument list names, else ``default`` (``flag_value``)."""
    return flag_value(argv, "--backend", default) or default


def add_parsers(commands: Subparsers) -> None:
    """Add this module's commands to the ``python -m empire_envs`` parser."""
    _add_train(commands)
    _add_imitate(commands)
    _add_demo(commands)
    _add_train_rllib(commands)


# --------------------------------------------------------------------------- train


def _add_train(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "train",
        help="train MaskablePPO (sb3-contrib, the train extra) on any env, or compiled PPO (--backend jax, "
        "the jax extra) on a game with a JAX twin (self-play for Map Duel)",
        description="Train MaskablePPO on any environment of the package: a TOML config (keys as in "
        "empire_envs.training.config.TrainConfig; without --config its defaults), then the named "
        "flags, then any --set SECTION.KEY=VALUE. The run folder gets config.json, progress.csv, "
        "eval/, checkpoints/, model.zip, learning_curve.png and summary.json. With --backend jax: "
        "PPO compiled with its env into one JAX program, on the ids with a JAX twin (the solo, "
        "Solitaire and Map Duel ids; a game of several seats trains one network for every seat by "
        "self-play, empire_envs.training.jax_selfplay); config keys as in "
        "empire_envs.training.jax_config.JaxTrainConfig "
        "(experiments/configs/jax/); the run folder gets config.json, progress.csv, checkpoints/, "
        "policy.npz (plays as jaxppo:RUN/policy.npz), learning_curve.png and summary.json.",
    )
    sub.add_argument(
        "--backend",
        choices=BACKENDS,
        default="sb3",
        help="sb3: MaskablePPO on the Python envs (default); jax: compiled PPO on the JAX twins",
    )
    sub.add_argument(
        "--config",
        default=None,
        help="a TOML config file, or a config shipped with the package by name: solo, jax/solo for "
        "--backend jax, ... (see empire_envs/configs/)",
    )
    sub.add_argument("--env", help="env id or package.module:factory (overrides env_id)")
    add_key_value_flag(sub, "--env-kwarg", "a variant setting for the env; repeatable")
    sub.add_argument("--timesteps", type=non_negative_int, help="total_timesteps (0: save the untrained policy)")
    sub.add_argument("--seed", type=seed_int)
    sub.add_argument("--n-envs", type=positive_int, help="sb3 only (--backend jax: --set num_envs=N)")
    sub.add_argument("--vec-env", choices=["dummy", "subproc"], help="sb3 only")
    sub.add_argument("--out", help="run directory (default runs/<env>-seed<seed>)")
    sub.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    add_set_flag(sub, "override any config key, e.g. ppo.learning_rate=1e-4; repeatable")
    sub.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_set_flag(sub: argparse.ArgumentParser, help_text: str) -> None:
    """``--set SECTION.KEY=VALUE`` (repeatable, into ``args.overrides``): the config overrides
    that ``train`` and ``demo`` apply last."""
    add_key_value_flag(sub, "--set", help_text, dest="overrides", metavar="SECTION.KEY=VALUE")


def train_config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The config file with the command line's overrides applied, named flags first."""
    named = {"n_envs": args.n_envs, "vec_env": args.vec_env}
    return load_config(args.config, command_line_overrides(args, named))


def command_line_overrides(args: argparse.Namespace, backend_flags: dict[str, Any]) -> list[tuple[str, Any]]:
    """``train``'s flags as config overrides, in the order they apply: the named flags both
    backends share, then ``backend_flags`` (config key -> value, None when not given), the
    ``--env-kwarg`` settings, ``--no-progress``, and last every ``--set``."""
    named = {
        "env_id": args.env,
        "total_timesteps": args.timesteps,
        "seed": args.seed,
        **backend_flags,
        "output_dir": args.out,
    }
    overrides = [(key, value) for key, value in named.items() if value is not None]
    overrides += [(f"env_kwargs.{key}", value) for key, value in args.env_kwarg]
    if args.no_progress:
        overrides.append(("progress_bar", False))
    return overrides + list(args.overrides)


#: flags of the sb3 backend that the jax backend has no use for, with what to write instead
SB3_ONLY_FLAGS = {
    "n_envs": ("--n-envs", "the jax backend steps num_envs games together: --set num_envs=N"),
    "vec_env": ("--vec-env", "the jax backend steps its games in one compiled program"),
}


def jax_config_from_args(args: argparse.Namespace) -> JaxTrainConfig:
    """The ``--backend jax`` config: the file, then the named flags, then ``--set``; a flag that
    only the sb3 backend has is an error."""
    for attribute, (flag, instead) in SB3_ONLY_FLAGS.items():
        if getattr(args, attribute) is not None:
            raise ValueError(f"{flag} is a flag of the sb3 backend; {instead}")
    return load_jax_config(args.config, command_line_overrides(args, {}))


OVERWRITE_HELP = (
    "replace the run already in --out: only a folder of our run files is replaced, one holding "
    "anything else is refused untouched"
)


def error_line(error: Exception) -> str:
    """A run error as the one line of a ``CliError`` (a run folder's refusal says it all)."""
    return str(error) if isinstance(error, RunFolderError) else f"{type(error).__name__}: {error}"


def run_in_folder(out: Path, overwrite: bool, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``run()`` in the claimed run folder ``out`` (``training.run_folder``: a run of ours is
    replaced only with ``overwrite``, any other folder is refused untouched; a failed start
    leaves nothing behind); bad input becomes a ``CliError``."""
    try:
        with run_folder(out, overwrite):
            return run()
    except RUN_ERRORS as error:
        raise CliError(error_line(error)) from None


def cmd_train(args: argparse.Namespace) -> int:
    """Check everything, train, then print the summary and the command that evaluates the model."""
    if args.backend == "jax":
        return _train_jax(args)
    from ..training.train import check_run, train

    try:
        require_extra("train", "train (MaskablePPO)")
        config = train_config_from_args(args)
        multiplayer = check_run(config)
    except RUN_ERRORS as error:
        raise CliError(str(error)) from None
    out = Path(config.output_dir) if config.output_dir else default_output_dir(config)
    summary = run_in_folder(out, args.overwrite, lambda: train(config, out))
    print(json.dumps(summary, indent=2))
    print(f"learning curve: {out / 'learning_curve.png'}")
    print(f"evaluate: {evaluate_command(config, summary['model'], multiplayer)}")
    return 0


def evaluate_command(config: TrainConfig, model: str, multiplayer: bool) -> str:
    """The command that evaluates a run's model beside the random agent: on a multiplayer env
    against the first opponent of the run's evaluation (``eval.opponents``), with the env's
    variant settings."""
    words = ["python", "-m", "empire_envs", "evaluate", "--env", config.env_id, "--agent", "random"]
    words += ["--agent", f"ppo:{model}"]
    if multiplayer:
        words += ["--opponent", config.eval.opponents[0]]
    for key, value in config.env_kwargs.items():
        words += ["--env-kwarg", f"{key}={value!r}"]
    return shlex.join(words)


def _train_jax(args: argparse.Namespace) -> int:
    """``train --backend jax``: check everything, run compiled PPO, then print the summary and the
    evaluate command."""
    try:
        require_extra("jax", "train --backend jax")
        config = jax_config_from_args(args)
    except (ValueError, ImportError) as error:
        raise CliError(str(error)) from None
    from ..training.jax_ppo import train
    from ..training.jax_trainers import checked_trainer

    try:
        trainer = checked_trainer(config)
    except RUN_ERRORS as error:
        raise CliError(str(error)) from None
    out = Path(config.output_dir) if config.output_dir else default_jax_output_dir(config)
    summary = run_in_folder(out, args.overwrite, lambda: train(config, out, trainer=trainer))
    print(json.dumps(summary, indent=2))
    if (out / "learning_curve.png").is_file():
        print(f"learning curve: {out / 'learning_curve.png'}")
    print(
        f"evaluate: python -m empire_envs evaluate --env {summary['env_id']} --agent random "
        f"--agent jaxppo:{summary['policy']}"
    )
    return 0


# --------------------------------------------------------------------------- imitate


def _add_imitate(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "imitate",
        help="behaviour cloning: fit a policy to a teacher agent's moves (MaskablePPO on solo envs, "
        "or a compiled-PPO policy file with --backend jax)",
        description="The teacher plays --episodes episodes; a fresh MaskablePPO policy (the network of "
        "--config) is fitted to its moves and its value head to its returns-to-go. The saved "
        "model.zip plays as ppo:OUT/model.zip and starts a run with --set init_model=OUT/model.zip. "
        "With --backend jax (an env with a JAX twin, a --backend jax config): the teacher plays every "
        "seat, a policy file OUT/policy.npz is fitted (empire_envs.training.jax_imitate); it plays as "
        "jaxppo:OUT/policy.npz and starts a compiled run with --set init_policy=OUT/policy.npz.",
    )
    sub.add_argument(
        "--backend",
        choices=["sb3", "jax"],
        default="sb3",
        help="sb3: a MaskablePPO model.zip (default); jax: a policy file for the compiled trainer",
    )
    sub.add_argument("--env", required=True, help="a solo (Gymnasium) env id; with --backend jax, any id with a twin")
    sub.add_argument("--teacher", required=True, help="agent spec of the teacher")
    sub.add_argument("--episodes", type=positive_int, default=20_000)
    sub.add_argument("--seed", type=seed_int, default=0)
    sub.add_argument("--epochs", type=positive_int, default=10)
    sub.add_argument("--learning-rate", type=positive_float, default=1e-3)
    sub.add_argument("--batch-size", type=positive_int, default=256)
    sub.add_argument(
        "--explore",
        type=share,
        default=None,
        help="--backend jax: the share of moves played at random instead of the teacher's, still labelled "
        "with the teacher's move (default 0.1)",
    )
    sub.add_argument(
        "--dagger-rounds",
        type=non_negative_int,
        default=0,
        help="--backend jax: after the first fit, this many DAgger rounds: the student plays --episodes new "
        "games, the teacher labels them, and the network trains --epochs more on all the data (default 0)",
    )
    sub.add_argument(
        "--network",
        choices=["mlp", "relational"],
        default=None,
        help="--backend jax: mlp, the config's [ppo] network (default), or relational, Empire Solitaire's "
        "relational network (games.solitaire.network; plays as jaxppo:OUT/policy.npz, cannot start a PPO run)",
    )
    sub.add_argument(
        "--drop-lost",
        action="store_true",
        help="--backend jax: leave out of the data the positions the teacher judges lost (reveal-solve: nothing "
        "hidden and no move wins), where any move is as good as the teacher's",
    )
    sub.add_argument(
        "--every-move-weight",
        type=non_negative_float,
        default=0.0,
        help="--backend jax: where the teacher names every winning move (reveal-solve, nothing hidden), also fit "
        "each legal move's logit to whether it wins, with this weight (default 0)",
    )
    sub.add_argument(
        "--init-policy",
        help="--backend jax: a policy file of the same network and env (for example "
        "empire_envs/pretrained/EmpireSolitaire-v0.npz) that the first fit starts from, instead of a fresh network",
    )
    sub.add_argument(
        "--lr-schedule",
        choices=["constant", "cosine"],
        default=None,
        help="--backend jax: constant (default), or cosine: each fit's learning rate falls from --learning-rate "
        "to 0 along a half cosine",
    )
    sub.add_argument("--config", help="TOML whose [ppo] table gives the network (as for train)")
    sub.add_argument("--out", required=True, help="run directory")
    sub.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def cmd_imitate(args: argparse.Namespace) -> int:
    """Collect, fit, save; print the summary and the command that evaluates the student."""
    if args.backend == "jax":
        return _imitate_jax(args)
    if args.explore is not None:
        raise CliError("--explore is for --backend jax (the sb3 teacher plays every move itself)")
    if args.dagger_rounds:
        raise CliError("--dagger-rounds is for --backend jax")
    if args.network is not None or args.drop_lost or args.every_move_weight:
        raise CliError("--network, --drop-lost and --every-move-weight are for --backend jax")
    if args.init_policy is not None or args.lr_schedule is not None:
        raise CliError("--init-policy and --lr-schedule are for --backend jax (sb3: --set init_model=FILE with train)")

    def prepare() -> Any:
        from ..training.train import check_run

        require_extra("train", "imitate")
        config = load_config(args.config, [("env_id", args.env), ("seed", args.seed)])
        check_run(config)
        return config

    def fit(config: Any, out: Path) -> dict[str, Any]:
        from ..training.imitate import imitate

        return imitate(config, args.teacher, args.episodes, args.epochs, args.learning_rate, args.batch_size, out)

    config, out = _imitate_in_folder(args, prepare, fit)
    print(f"evaluate: python -m empire_envs evaluate --env {config.env_id} --agent ppo:{out / 'model.zip'}")
    return 0


def _imitate_jax(args: argparse.Namespace) -> int:
    """``imitate --backend jax``: a policy file fitted to the teacher, for ``init_policy``."""
    explore = 0.1 if args.explore is None else args.explore
    if not 0.0 <= explore < 1.0:
        raise CliError(f"--explore must be in [0, 1), got {explore}")
    network = args.network or "mlp"

    def prepare() -> Any:
        require_extra("jax", "imitate --backend jax")
        config = load_jax_config(args.config, [("env_id", args.env), ("seed", args.seed)])
        from ..training.jax_imitate import MlpNetwork, make_network
        from ..training.jax_trainers import checked_trainer

        trainer = checked_trainer(config)
        # the checked trainer stands for the MLP; the relational network refuses an env that is not Solitaire
        model = MlpNetwork(trainer) if network == "mlp" else make_network(config, network)
        if args.init_policy is not None:
            model.load(Path(args.init_policy))  # refuses a file of another network or env, before any folder is made
        return config

    def fit(config: Any, out: Path) -> dict[str, Any]:
        from ..training.jax_imitate import imitate

        return imitate(
            config,
            args.teacher,
            args.episodes,
            args.epochs,
            args.learning_rate,
            args.batch_size,
            explore,
            out,
            dagger_rounds=args.dagger_rounds,
            network=network,
            drop_lost=args.drop_lost,
            every_move_weight=args.every_move_weight,
            init_policy=args.init_policy,
            lr_schedule=args.lr_schedule or "constant",
        )

    config, out = _imitate_in_folder(args, prepare, fit)
    print(f"evaluate: python -m empire_envs evaluate --env {config.env_id} --agent jaxppo:{out / 'policy.npz'}")
    if network == "mlp":
        print(
            "train from it: python -m empire_envs train --backend jax "
            + (f"--config {args.config} " if args.config else f"--env {config.env_id} ")
            + f"--set init_policy={out / 'policy.npz'}"
        )
    return 0


def _imitate_in_folder(
    args: argparse.Namespace, prepare: Callable[[], Any], fit: Callable[[Any, Path], dict[str, Any]]
) -> tuple[Any, Path]:
    """Imitation's flow on either backend: ``prepare()`` (the extra, the config) and the run
    folder are checked before anything is written, then ``fit(config, out)`` runs in the folder
    and its summary is printed; the config and the folder, for the closing hints."""
    out = Path(args.out)
    try:
        config = prepare()
        check_run_folder(out, args.overwrite)
    except RUN_ERRORS as error:
        raise CliError(str(error)) from None
    summary = run_in_folder(out, args.overwrite, lambda: fit(config, out))
    print(json.dumps(summary, indent=2))
    return config, out


# --------------------------------------------------------------------------- demo


def _add_demo(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "demo",
        help="the make demo job: train on Empire solo (compiled PPO, or MaskablePPO with --backend sb3), "
        "compare it with random and heuristic",
        description="Train with --config (experiments/demo.py passes experiments/configs/jax/demo.toml, "
        "or experiments/configs/demo.toml with --backend sb3), save the policy, its logs and a learning "
        "curve in --out (with --overwrite replacing an earlier run there), then play the trained agent, "
        "random, heuristic and every --compare agent on the same deals and print the table with 95% intervals.",
    )
    sub.add_argument(
        "--backend",
        choices=BACKENDS,
        default="jax",
        help="jax: compiled PPO on the JAX twin (default); sb3: MaskablePPO on the Python env",
    )
    sub.add_argument("--config", default=None, help="TOML config of that backend (default: its config's defaults)")
    sub.add_argument("--timesteps", type=non_negative_int, help="override the config's training budget")
    add_set_flag(sub, "override any config key, as for train; repeatable")
    sub.add_argument("--episodes", type=positive_int, default=1000, help="evaluation deals per agent")
    sub.add_argument("--seed", type=seed_int, default=0, help="first evaluation deal")
    sub.add_argument("--out", default=str(Path("runs") / "demo"), help="run directory (default runs/demo)")
    sub.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    sub.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="AGENT",
        help="one more agent for the table, e.g. ppo:runs/demo-sb3/model.zip; repeatable",
    )
    sub.add_argument("--show-game", action="store_true", help="print one whole game of the trained agent at the end")
    sub.add_argument("--no-progress", action="store_true")


def cmd_demo(args: argparse.Namespace) -> int:
    """Train, then evaluate random, heuristic, the trained agent and ``--compare`` on the same deals."""
    from ..training.demo import run_demo

    overrides: list[tuple[str, Any]] = [("progress_bar", not args.no_progress)]
    if args.timesteps is not None:
        overrides.append(("total_timesteps", args.timesteps))
    overrides += list(args.overrides)
    load = load_jax_config if args.backend == "jax" else load_config
    try:
        require_extra("jax" if args.backend == "jax" else "train", f"demo --backend {args.backend}")
        config = load(args.config, overrides)
    except (ValueError, ImportError) as error:
        raise CliError(str(error)) from None
    try:
        run_demo(
            config,
            Path(args.out),
            args.episodes,
            args.seed,
            show_game=args.show_game,
            compare=args.compare,
            overwrite=args.overwrite,
        )
    except RUN_ERRORS as error:
        raise CliError(error_line(error)) from None
    return 0


# --------------------------------------------------------------------------- train-rllib


def parse_json_kwarg(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with the value read as JSON (a text that is not JSON stays a string)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _add_train_rllib(commands: Subparsers) -> None:
    sub = commands.add_parser(
        "train-rllib",
        help="train PPO with Ray RLlib on any env id (the distributed extra)",
        description="PPO on RLlib's new API stack with the action-masking RLModule. Solo ids train one "
        "module; multiplayer ids train on RLlib's PettingZooEnv with --policy shared (self-play) or "
        "per-seat, or, with --opponents, one seat against that frozen agent. The checkpoint saved in "
        "--out plays as rllib:OUT (rllib:OUT#player_0 for per-seat). On a cluster: RAY_ADDRESS or "
        "--address.",
    )
    sub.add_argument("--env", required=True, help="an env id, e.g. empire_envs/EmpireSolo-v0")
    sub.add_argument("--env-kwarg", action="append", type=parse_json_kwarg, default=[], metavar="KEY=VALUE")
    sub.add_argument("--policy", choices=POLICY_MODES, default="shared", help="multiplayer, no opponents")
    sub.add_argument("--opponents", default=None, help="random, heuristic, rllib:PATH or ppo:PATH")
    sub.add_argument("--num-env-runners", type=non_negative_int, default=0, help="0: sample in the driver")
    sub.add_argument("--iterations", type=positive_int, default=10)
    sub.add_argument("--train-batch-size", type=positive_int, default=4000)
    sub.add_argument("--minibatch-size", type=positive_int, default=128)
    sub.add_argument("--num-epochs", type=positive_int, default=10)
    sub.add_argument("--lr", type=positive_float, default=3e-4)
    sub.add_argument("--seed", type=seed_int, default=None)
    sub.add_argument("--out", default=None, help="checkpoint folder, new or empty (saved after the last iteration)")
    sub.add_argument("--address", default=None, help="an existing Ray cluster (else RAY_ADDRESS, else local)")
    sub.add_argument("--num-cpus", type=positive_int, default=None, help="local Ray only")


def cmd_train_rllib(args: argparse.Namespace) -> int:
    """Train with RLlib; the progress and the summary are printed as it goes."""
    try:
        require_extra("distributed", "train-rllib")
    except ImportError as error:
        raise CliError(str(error)) from None
    from ..training.rllib import RLlibRun, train_ppo

    if args.out is not None:
        out = Path(args.out)
        if out.is_dir() and any(out.iterdir()):
            raise CliError(f"{out} is not empty; RLlib writes its checkpoint in a new or empty folder")
        check_output_folder(out)
    run = RLlibRun(
        env_id=args.env,
        env_kwargs=dict(args.env_kwarg),
        policy=args.policy,
        opponents=args.opponents,
        num_env_runners=args.num_env_runners,
        iterations=args.iterations,
        train_batch_size=args.train_batch_size,
        minibatch_size=args.minibatch_size,
        num_epochs=args.num_epochs,
        lr=args.lr,
        seed=args.seed,
        out=args.out,
        address=args.address,
        num_cpus=args.num_cpus,
    )
    train_ppo(run)
    return 0


COMMANDS: dict[str, Command] = {
    "train": cmd_train,
    "imitate": cmd_imitate,
    "demo": cmd_demo,
    "train-rllib": cmd_train_rllib,
}

__all__ = [
    "BACKENDS",
    "COMMANDS",
    "add_parsers",
    "backend_named",
    "flag_value",
    "jax_config_from_args",
    "train_config_from_args",
]
