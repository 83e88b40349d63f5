"""The configuration of a MaskablePPO training run: ``TrainConfig``, read from TOML and overrides.

A run is configured by a TOML file (``experiments/configs/`` holds examples; keys as in
``TrainConfig``; an unknown key or a value of the wrong type is an error) and overrides
``(dotted.key, value)``, applied in order by ``load_config``. Nothing here needs torch.
"""

from __future__ import annotations

import dataclasses
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
        positive = {
            "n_envs": self.n_envs,
            "torch_threads": self.torch_threads,
            "ppo.n_steps": self.ppo.n_steps,
            "ppo.batch_size": self.ppo.batch_size,
            "ppo.n_epochs": self.ppo.n_epochs,
            "eval.episodes": self.eval.episodes,
            "multiplayer.snapshot_every": self.multiplayer.snapshot_every,
            "multiplayer.pool_size": self.multiplayer.pool_size,
        }
        for name, value in positive.items():
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        # total_timesteps 0 saves the untrained policy: the baseline a run starts from
        for name, value in {
            "total_timesteps": self.total_timesteps,
            "eval.freq": self.eval.freq,
            "checkpoint.freq": self.checkpoint.freq,
        }.items():
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


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The tables of a TOML config file, or a ``ValueError`` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no config file at {str(path)!r}")
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
