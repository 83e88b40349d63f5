"""Train MaskablePPO (sb3-contrib) on any environment of the package, solo or multiplayer.

Usage (from the repository root; needs the ``train`` extra)::

    python experiments/train.py --config experiments/configs/solo.toml \\
        [--env empire_envs/EmpireSoloShaped-v0] [--env-kwarg length_limit=500] [--timesteps 200000] \\
        [--seed 1] [--n-envs 4] [--vec-env subproc] [--out runs/my-run] [--overwrite] \\
        [--set ppo.learning_rate=1e-4 --set eval.episodes=200] [--no-progress]

A run is configured by a TOML file (``experiments/configs/``, keys as in ``TrainConfig`` below;
an unknown key or a value of the wrong type is an error) and command-line overrides: the named
flags, then any number of ``--set SECTION.KEY=VALUE`` (VALUE a Python literal).

The env is any spec ``empire_envs.registry.make_any`` accepts: a registered Gymnasium id (a solo
game), a registered PettingZoo id (ours, or PettingZoo's own such as ``classic/tictactoe-v3``), or
``package.module:factory`` for any other PettingZoo AEC env with masks. Multiplayer envs train through
``AECSingleAgentEnv``: the learner holds ``multiplayer.learner_seat`` and each other seat is played
by an opponent drawn per episode from ``multiplayer.opponents`` (agent specs, or ``self``: frozen
snapshots of the learner, refreshed every ``multiplayer.snapshot_every`` timesteps).

The run directory gets: ``config.json`` (the resolved config), ``progress.csv`` (SB3's logger;
TensorBoard files in ``tb/`` as well when tensorboard is installed), ``eval/evaluations.npz`` and
``eval/best_model.zip`` (periodic masked evaluation), ``checkpoints/``, the final ``model.zip``,
``learning_curve.png`` and ``summary.json`` (timesteps, wall time, env steps per second). The final
model plays as an agent: ``python experiments/evaluate.py --env ID --agent ppo:RUN/model.zip``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import re
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parents[1]
try:
    import empire_envs  # noqa: F401  (registers the ids)
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))
    import empire_envs  # noqa: F401

import gymnasium  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling evaluate module
from evaluate import parse_env_kwarg  # noqa: E402

DEFAULT_CONFIG = ROOT / "experiments" / "configs" / "solo.toml"


# --------------------------------------------------------------------------- configuration


@dataclass
class PPOSettings:
    """MaskablePPO hyperparameters (``n_steps`` is per env copy, as in SB3)."""

    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    activation: str = "tanh"
    lookahead_gain: float = 20.0  # the starting gain of lookahead_logits


@dataclass
class EvalSettings:
    """Periodic masked evaluation on a separate env (``freq`` in total timesteps; 0 turns it off)."""

    freq: int = 25_000
    episodes: int = 100
    deterministic: bool = True
    opponents: list[str] = field(default_factory=lambda: ["random"])


@dataclass
class CheckpointSettings:
    """A model saved every ``freq`` total timesteps under ``checkpoints/`` (0 turns it off)."""

    freq: int = 100_000


@dataclass
class MultiplayerSettings:
    """How a multiplayer env becomes a single-agent one (ignored for solo envs)."""

    learner_seat: int | str = "all"
    opponents: list[str] = field(default_factory=lambda: ["random"])
    snapshot_every: int = 20_000
    pool_size: int = 5
    latest_probability: float = 0.5


@dataclass
class TrainConfig:
    env_id: str = "empire_envs/EmpireSolo-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    total_timesteps: int = 300_000
    seed: int = 0
    n_envs: int = 2
    vec_env: str = "dummy"
    output_dir: str = ""
    torch_threads: int = 1
    progress_bar: bool = True
    mask_in_observation: bool = False  # append the action mask to the policy's input
    lookahead_features: bool = False  # append each action's successor mobility (solo games)
    lookahead_logits: bool = False  # add a learned multiple of those features to the logits
    init_model: str = ""  # start from this saved model's weights (same network), e.g. imitate.py's
    ppo: PPOSettings = field(default_factory=PPOSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    checkpoint: CheckpointSettings = field(default_factory=CheckpointSettings)
    multiplayer: MultiplayerSettings = field(default_factory=MultiplayerSettings)

    def policy_input(self) -> Any:
        """The ``PolicyInput`` this run feeds its policy (``PPOAgent`` reads it back from
        ``config.json`` with ``PolicyInput.from_run_config``)."""
        from empire_envs.core.policy_input import PolicyInput

        return PolicyInput.from_run_config(dataclasses.asdict(self))

    def validate(self) -> None:
        positive = {
            "n_envs": self.n_envs,
            "torch_threads": self.torch_threads, "ppo.n_steps": self.ppo.n_steps,
            "ppo.batch_size": self.ppo.batch_size, "ppo.n_epochs": self.ppo.n_epochs,
            "eval.episodes": self.eval.episodes,
            "multiplayer.snapshot_every": self.multiplayer.snapshot_every,
            "multiplayer.pool_size": self.multiplayer.pool_size,
        }
        for name, value in positive.items():
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        # total_timesteps 0 saves the untrained policy: the baseline a run starts from
        for name, value in {"total_timesteps": self.total_timesteps, "eval.freq": self.eval.freq,
                            "checkpoint.freq": self.checkpoint.freq}.items():
            if value < 0:
                raise ValueError(f"{name} must be 0 (off) or positive, got {value}")
        if self.vec_env not in ("dummy", "subproc"):
            raise ValueError(f"vec_env must be 'dummy' or 'subproc', got {self.vec_env!r}")
        if self.ppo.activation not in ACTIVATIONS:
            raise ValueError(f"ppo.activation must be one of {sorted(ACTIVATIONS)}, got {self.ppo.activation!r}")
        if not self.ppo.net_arch or any(int(w) < 1 for w in self.ppo.net_arch):
            raise ValueError(f"ppo.net_arch must list positive layer widths, got {self.ppo.net_arch}")
        if self.lookahead_logits and not self.lookahead_features:
            raise ValueError("lookahead_logits needs lookahead_features = true")
        if not self.multiplayer.opponents or not self.eval.opponents:
            raise ValueError("multiplayer.opponents and eval.opponents each need at least one agent")


ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU"}


def _type_ok(value: Any, default: Any, annotation: Any) -> bool:
    if annotation in ("int | str",):
        return isinstance(value, (int, str)) and not isinstance(value, bool)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, type(default))


def _apply(target: Any, data: Mapping[str, Any], where: str) -> None:
    fields = {f.name: f for f in dataclasses.fields(target)}
    for key, value in data.items():
        path = f"{where}{key}"
        if key not in fields:
            raise ValueError(f"unknown config key {path!r}; known: {', '.join(fields)}")
        current = getattr(target, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, Mapping):
                raise ValueError(f"config key {path!r} is a section; give a table of keys")
            _apply(current, value, f"{path}.")
            continue
        if not _type_ok(value, current, fields[key].type):
            raise ValueError(
                f"config key {path!r} takes a {type(current).__name__}, got {value!r} "
                f"({type(value).__name__})"
            )
        if isinstance(current, float):
            value = float(value)
        setattr(target, key, value)


def load_config(path: str | Path | None, overrides: Sequence[tuple[str, Any]] = ()) -> TrainConfig:
    """The defaults, then the TOML file, then ``(dotted.key, value)`` overrides; validated."""
    config = TrainConfig()
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no config file at {str(path)!r}")
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"{path}: not valid TOML: {error}") from None
        _apply(config, data, "")
    for dotted, value in overrides:
        if dotted.startswith("env_kwargs."):  # a free-form table: add the key, do not check it
            config.env_kwargs = {**config.env_kwargs, dotted.split(".", 1)[1]: value}
            continue
        *sections, key = dotted.split(".")
        nested: dict[str, Any] = {key: value}
        for section in reversed(sections):
            nested = {section: nested}
        _apply(config, nested, "")
    config.validate()
    return config


def default_output_dir(config: TrainConfig) -> Path:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", config.env_id.split("/")[-1]).strip("-")
    return ROOT / "runs" / f"{name}-seed{config.seed}"


# --------------------------------------------------------------------------- training


def build_model(config: TrainConfig, env: Any) -> Any:
    """A fresh MaskablePPO on ``env`` with the config's policy (MLP, or the lookahead-logits
    policy) and hyperparameters; ``imitate.py`` builds its student here too."""
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    policy: Any = "MlpPolicy"
    extra_policy_kwargs: dict[str, Any] = {}
    if config.lookahead_logits:
        from empire_envs.training.policies import LookaheadLogitsPolicy

        policy, extra_policy_kwargs = LookaheadLogitsPolicy, {"initial_gain": ppo.lookahead_gain}
    return MaskablePPO(
        policy,
        env,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        policy_kwargs={
            "net_arch": [int(w) for w in ppo.net_arch],
            "activation_fn": getattr(torch.nn, ACTIVATIONS[ppo.activation]),
            **extra_policy_kwargs,
        },
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def train(config: TrainConfig, out: Path, log=print) -> dict[str, Any]:
    """Run one training job; returns the summary also written to ``out/summary.json``."""
    import torch
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import CheckpointCallback
    from stable_baselines3.common.logger import configure

    from empire_envs.registry import is_multiplayer, make_any
    from empire_envs.training.plots import plot_learning_curve, read_evaluations
    from empire_envs.training.sb3 import SELF, SelfPlayCallback, build_vec_env

    probe = make_any(config.env_id, **config.env_kwargs)  # a bad id or variant fails here, early
    multiplayer = is_multiplayer(probe)
    probe.close()
    torch.set_num_threads(config.torch_threads)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    mp = config.multiplayer
    train_env = build_vec_env(
        config.env_id, config.n_envs, config.seed, config.vec_env, config.env_kwargs,
        learner_seat=mp.learner_seat, opponents=mp.opponents,
        policy_input=config.policy_input(),
    )
    callbacks: list[Any] = []
    eval_env = None
    if config.eval.freq:
        eval_env = build_vec_env(
            config.env_id, 1, config.seed + 1_000_003, "dummy", config.env_kwargs,
            learner_seat="all", opponents=config.eval.opponents,
            policy_input=config.policy_input(),
        )
        callbacks.append(MaskableEvalCallback(
            eval_env,
            n_eval_episodes=config.eval.episodes,
            eval_freq=max(config.eval.freq // config.n_envs, 1),
            log_path=str(out / "eval"),
            best_model_save_path=str(out / "eval"),
            deterministic=config.eval.deterministic,
            verbose=1,
        ))
    if config.checkpoint.freq:
        callbacks.append(CheckpointCallback(
            save_freq=max(config.checkpoint.freq // config.n_envs, 1),
            save_path=str(out / "checkpoints"), name_prefix="model",
        ))
    if multiplayer and SELF in mp.opponents:
        callbacks.append(SelfPlayCallback(mp.snapshot_every))
    model = build_model(config, train_env)
    if config.init_model:
        load_initial_weights(model, config.init_model)
    formats = ["csv"]
    if importlib.util.find_spec("tensorboard") is not None:
        formats.append("tensorboard")
    model.set_logger(configure(str(out), formats))
    progress_bar = config.progress_bar and all(
        importlib.util.find_spec(name) is not None for name in ("tqdm", "rich")
    )
    log(f"training MaskablePPO on {config.env_id} for {config.total_timesteps:,} timesteps "
        f"({config.n_envs} x {config.vec_env} env), output in {out}")
    start = time.perf_counter()
    try:
        model.learn(config.total_timesteps, callback=callbacks, progress_bar=progress_bar)
    finally:
        wall = time.perf_counter() - start
        train_env.close()
        if eval_env is not None:
            eval_env.close()
    model.save(out / "model.zip")
    summary = {
        "env_id": config.env_id,
        "env_kwargs": config.env_kwargs,
        "timesteps": int(model.num_timesteps),
        "n_envs": config.n_envs,
        "vec_env": config.vec_env,
        "learn_wall_s": round(wall, 2),
        "env_steps_per_s": round(model.num_timesteps / wall, 1),
        "model": str(out / "model.zip"),
        "torch": torch.__version__,
    }
    evaluations = read_evaluations(out)
    if evaluations:  # none when the budget ended before the first evaluation
        summary["last_eval_mean_return"] = float(evaluations["results"][-1].mean())
        successes = evaluations.get("successes")
        if successes is not None and successes.size:
            summary["last_eval_win_rate"] = float(successes[-1].mean())
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot_learning_curve(out, title=f"MaskablePPO on {config.env_id}")
    return summary


def load_initial_weights(model: Any, path: str) -> None:
    """Copy a saved model's policy weights into ``model``; a clear error when the networks differ."""
    from empire_envs.agents.ppo import load_maskable_ppo

    source = load_maskable_ppo(path)
    if source.observation_space.shape != model.observation_space.shape or (
        source.action_space != model.action_space
    ):
        raise ValueError(
            f"init_model {path!r} has spaces {source.observation_space.shape} / "
            f"{source.action_space}, this run {model.observation_space.shape} / {model.action_space}"
        )
    try:
        model.policy.load_state_dict(source.policy.state_dict())
    except RuntimeError as error:
        raise ValueError(
            f"init_model {path!r} has another network than ppo.net_arch/activation: {error}"
        ) from None


# --------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(DEFAULT_CONFIG),
                        help=f"TOML config (default {DEFAULT_CONFIG.relative_to(ROOT)})")
    parser.add_argument("--env", help="env id or package.module:factory (overrides env_id)")
    parser.add_argument("--env-kwarg", action="append", default=[], type=parse_env_kwarg,
                        metavar="KEY=VALUE", help="a variant setting for the env; repeatable")
    parser.add_argument("--timesteps", type=int, help="total_timesteps")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--n-envs", type=int)
    parser.add_argument("--vec-env", choices=["dummy", "subproc"])
    parser.add_argument("--out", help="run directory (default runs/<env>-seed<seed>)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing run directory instead of refusing")
    parser.add_argument("--set", action="append", default=[], type=parse_env_kwarg,
                        dest="overrides", metavar="SECTION.KEY=VALUE",
                        help="override any config key, e.g. ppo.learning_rate=1e-4; repeatable")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The config file with the command line's overrides applied, named flags first."""
    named = {"env_id": args.env, "total_timesteps": args.timesteps, "seed": args.seed,
             "n_envs": args.n_envs, "vec_env": args.vec_env, "output_dir": args.out}
    overrides = [(key, value) for key, value in named.items() if value is not None]
    overrides += [(f"env_kwargs.{key}", value) for key, value in args.env_kwarg]
    if args.no_progress:
        overrides.append(("progress_bar", False))
    return load_config(args.config, overrides + list(args.overrides))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = config_from_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = Path(config.output_dir) if config.output_dir else default_output_dir(config)
    if out.exists() and any(out.iterdir()):
        if not args.overwrite:
            print(f"error: {out} already holds a run; pass --overwrite or choose --out",
                  file=sys.stderr)
            return 2
        shutil.rmtree(out)
    try:
        summary = train(config, out)
    except (ValueError, TypeError, KeyError, ImportError, gymnasium.error.Error) as error:
        print(f"error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    print(f"learning curve: {out / 'learning_curve.png'}")
    print(f"evaluate: python experiments/evaluate.py --env {config.env_id} "
          f"--agent random --agent ppo:{summary['model']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
