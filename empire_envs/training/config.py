"""The configuration of a MaskablePPO training run: ``TrainConfig``, read from TOML and overrides.

A run is configured by a TOML file (keys as in ``TrainConfig``; an unknown key or a value of the
wrong type is an error) and overrides ``(dotted.key, value)``, applied in order by ``load_config``.
The package ships example configs in ``empire_envs/configs/`` (``experiments/configs/`` in a clone
links there): ``--config solo`` names ``solo.toml``, ``--config jax/solo`` ``jax/solo.toml``
(``shipped_configs``). Nothing here needs torch.
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from ..core.limits import at_least
from ..core.policy_input import PolicyInput


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


#: the opponent spec of ``[multiplayer] opponents`` that plays frozen snapshots of the learner
SELF_PLAY = "self"


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
    """One MaskablePPO run: the env, the budget, the vectorized envs, the policy's input and the
    settings of each section (``[ppo]``, ``[eval]``, ``[checkpoint]``, ``[multiplayer]``)."""

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
    init_model: str = ""  # start from this saved model's weights (same network), e.g. an imitate run's
    ppo: PPOSettings = field(default_factory=PPOSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    checkpoint: CheckpointSettings = field(default_factory=CheckpointSettings)
    multiplayer: MultiplayerSettings = field(default_factory=MultiplayerSettings)

    def policy_input(self) -> PolicyInput:
        """The ``PolicyInput`` this run feeds its policy (``PPOAgent`` reads it back from
        ``config.json`` with ``PolicyInput.from_run_config``)."""
        return PolicyInput.from_run_config(dataclasses.asdict(self))

    def validate(self) -> None:
        ppo, mp = self.ppo, self.multiplayer
        require_at_least(
            1,
            {
                "n_envs": self.n_envs,
                "torch_threads": self.torch_threads,
                "ppo.n_steps": ppo.n_steps,
                "ppo.batch_size": ppo.batch_size,
                "ppo.n_epochs": ppo.n_epochs,
                "eval.episodes": self.eval.episodes,
                "multiplayer.snapshot_every": mp.snapshot_every,
                "multiplayer.pool_size": mp.pool_size,
            },
        )
        # total_timesteps 0 saves the untrained policy: the baseline a run starts from
        require_at_least(
            0,
            {
                "seed": self.seed,
                "total_timesteps": self.total_timesteps,
                "eval.freq": self.eval.freq,
                "checkpoint.freq": self.checkpoint.freq,
            },
        )
        check_ppo_numbers(ppo.learning_rate, ppo.clip_range, ppo.max_grad_norm, ppo.gamma, ppo.gae_lambda)
        require_in_range(
            {"ppo.ent_coef": ppo.ent_coef, "ppo.vf_coef": ppo.vf_coef, "ppo.lookahead_gain": ppo.lookahead_gain},
            0.0,
            math.inf,
        )
        require_in_range({"multiplayer.latest_probability": mp.latest_probability}, 0.0, 1.0)
        if isinstance(mp.learner_seat, int) and mp.learner_seat < 0:
            raise ValueError(f"multiplayer.learner_seat must be 'all' or a seat 0 or more, got {mp.learner_seat}")
        if isinstance(mp.learner_seat, str) and mp.learner_seat != "all":
            raise ValueError(f"multiplayer.learner_seat must be 'all' or a seat number, got {mp.learner_seat!r}")
        if self.vec_env not in ("dummy", "subproc"):
            raise ValueError(f"vec_env must be 'dummy' or 'subproc', got {self.vec_env!r}")
        if ppo.activation not in ACTIVATIONS:
            raise ValueError(f"ppo.activation must be one of {sorted(ACTIVATIONS)}, got {ppo.activation!r}")
        check_layer_widths("ppo.net_arch", ppo.net_arch)
        if self.lookahead_logits and not self.lookahead_features:
            raise ValueError("lookahead_logits needs lookahead_features = true")
        if not mp.opponents or not self.eval.opponents:
            raise ValueError("multiplayer.opponents and eval.opponents each need at least one agent")


def require_at_least(least: int, values: Mapping[str, int]) -> None:
    """Raise ``ValueError`` naming the first setting below ``least``."""
    for name, value in values.items():
        if value < least:
            raise ValueError(f"{name} must be {at_least(least)}, got {value}")


def require_in_range(values: Mapping[str, float], low: float, high: float) -> None:
    """Raise ``ValueError`` naming the first setting that is not a finite number in [low, high]
    (NaN and the infinities included)."""
    for name, value in values.items():
        if not (math.isfinite(value) and low <= value <= high):
            limit = f"in [{low:g}, {high:g}]" if math.isfinite(high) else f"a finite number >= {low:g}"
            raise ValueError(f"{name} must be {limit}, got {value}")


def check_ppo_numbers(
    learning_rate: float, clip_range: float, max_grad_norm: float, gamma: float, gae_lambda: float
) -> None:
    """The PPO settings both trainers share: step sizes finite and positive, the discount and
    the GAE lambda in [0, 1]."""
    for name, size in {
        "ppo.learning_rate": learning_rate,
        "ppo.clip_range": clip_range,
        "ppo.max_grad_norm": max_grad_norm,
    }.items():
        if not (math.isfinite(size) and size > 0):
            raise ValueError(f"{name} must be a finite positive number, got {size}")
    require_in_range({"ppo.gamma": gamma, "ppo.gae_lambda": gae_lambda}, 0.0, 1.0)


def check_layer_widths(name: str, widths: Sequence[Any]) -> None:
    """Raise ``ValueError`` unless ``widths`` lists positive whole numbers."""
    if not widths or any(not isinstance(w, int) or isinstance(w, bool) or w < 1 for w in widths):
        raise ValueError(f"{name} must list positive layer widths, got {widths}")


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


def apply_table(target: Any, data: Mapping[str, Any], where: str) -> None:
    fields = {f.name: f for f in dataclasses.fields(target)}
    for key, value in data.items():
        path = f"{where}{key}"
        if key not in fields:
            raise ValueError(f"unknown config key {path!r}; known: {', '.join(fields)}")
        current = getattr(target, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, Mapping):
                raise ValueError(f"config key {path!r} is a section; give a table of keys")
            apply_table(current, value, f"{path}.")
            continue
        if not _type_ok(value, current, fields[key].type):
            raise ValueError(
                f"config key {path!r} takes a {type(current).__name__}, got {value!r} ({type(value).__name__})"
            )
        if isinstance(current, float):
            value = float(value)
        setattr(target, key, value)


def load_config(path: str | Path | None, overrides: Sequence[tuple[str, Any]] = ()) -> TrainConfig:
    """The defaults, then the TOML file, then ``(dotted.key, value)`` overrides; validated."""
    config = TrainConfig()
    if path is not None:
        apply_table(config, read_config_file(path), "")
    apply_overrides(config, overrides)
    config.validate()
    return config


#: the folder of the configs shipped with the package (package data, so in the wheel too)
SHIPPED_CONFIG_FOLDER = Path(__file__).resolve().parent.parent / "configs"


def shipped_configs() -> dict[str, Path]:
    """The configs shipped with the package by name: the path under ``empire_envs/configs`` without
    ``.toml`` (``solo``, ``jax/solo``, ...), sorted by name."""
    named = {
        path.relative_to(SHIPPED_CONFIG_FOLDER).with_suffix("").as_posix(): path
        for path in SHIPPED_CONFIG_FOLDER.rglob("*.toml")
    }
    return dict(sorted(named.items()))


def config_file(path: str | Path) -> Path:
    """The config file ``path`` names: the file itself when there is one, else the shipped config of
    that name (``solo`` or ``solo.toml``, ``jax/solo``), else a ``ValueError`` naming the file and
    listing the shipped configs."""
    given = Path(path)
    if given.is_file():
        return given
    shipped = shipped_configs()
    name = given.as_posix().removesuffix(".toml")
    if name in shipped:
        return shipped[name]
    raise ValueError(
        f"no config file at {str(given)!r}, nor a shipped config of that name (shipped: {', '.join(shipped)})"
    )


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The tables of a TOML config file (a path, or the name of a shipped config: ``config_file``),
    or a ``ValueError`` naming the file."""
    path = config_file(path)
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None


def apply_overrides(config: Any, overrides: Sequence[tuple[str, Any]]) -> None:
    """Apply ``--set SECTION.KEY=VALUE`` pairs to a config dataclass with an ``env_kwargs``
    table (this trainer's and the jax backend's), checked as a TOML table is."""
    for dotted, value in overrides:
        if dotted.startswith("env_kwargs."):  # a free-form table: add the key, do not check it
            config.env_kwargs = {**config.env_kwargs, dotted.split(".", 1)[1]: value}
            continue
        *sections, key = dotted.split(".")
        nested: dict[str, Any] = {key: value}
        for section in reversed(sections):
            nested = {section: nested}
        apply_table(config, nested, "")


def default_output_dir(config: TrainConfig) -> Path:
    """``runs/<env>-seed<seed>`` under the current folder: where a run goes without ``output_dir``."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", config.env_id.split("/")[-1]).strip("-")
    return Path("runs") / f"{name}-seed{config.seed}"


def rollout_bytes(num_envs: int, num_steps: int, observation_size: int, num_actions: int) -> int:
    """A lower estimate of a PPO rollout's memory: per game and step, the observation as float32,
    the mask, and a few float32 scalars (action, log-probability, value, reward, done, advantage,
    return), kept twice (the buffer and the minibatch copy)."""
    per_step = 4 * observation_size + 4 * num_actions + 4 * 8
    return 2 * num_envs * num_steps * per_step
