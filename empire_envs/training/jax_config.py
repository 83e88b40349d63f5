"""The configuration of a compiled PPO run (``python -m empire_envs train --backend jax``):
``JaxTrainConfig``, read from TOML and overrides exactly as the MaskablePPO ``TrainConfig`` is
(``training.config``: an unknown key or a value of the wrong type is an error naming the key).
The shipped examples are ``jax/demo``, ``jax/solitaire`` and ``jax/solo`` (``--config jax/solo``;
``empire_envs/configs/jax/``, or ``experiments/configs/jax/`` in a clone). Nothing here needs jax.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.jax_ppo import ACTIVATIONS
from .config import (
    apply_overrides,
    apply_table,
    check_layer_widths,
    check_ppo_numbers,
    config_file,
    read_config_file,
    require_at_least,
    require_in_range,
    shipped_configs,
)


@dataclass
class JaxPPOSettings:
    """PPO hyperparameters. One update collects ``num_envs x num_steps`` decisions, then makes
    ``update_epochs`` passes over them in ``num_minibatches`` minibatches each."""

    num_steps: int = 64  # decisions per game slot between two updates
    learning_rate: float = 3e-4
    anneal_lr: bool = True  # decrease the learning rate linearly to 0 over the run
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    update_epochs: int = 4
    num_minibatches: int = 8
    hidden_sizes: list[int] = field(default_factory=lambda: [64, 64])  # per network (actor, critic)
    activation: str = "tanh"


@dataclass
class JaxEvalSettings:
    """A compiled greedy evaluation every ``freq`` timesteps (and at the end; 0 turns it off):
    ``episodes`` games played to their end by the most likely legal action, the same deals each
    time (the twin's deals: not the Python env's deals of ``python -m empire_envs evaluate``)."""

    freq: int = 1_000_000
    episodes: int = 1000


@dataclass
class JaxCheckpointSettings:
    """A policy file saved every ``freq`` timesteps under ``checkpoints/`` (0 turns it off)."""

    freq: int = 0


@dataclass
class JaxSelfPlaySettings:
    """Games of several seats (Map Duel): who the learner plays (``training.jax_selfplay``).

    The ``num_envs`` game slots are split once: the first ``round(share * num_envs)`` slots (cut
    so that the rest splits evenly over the pool) are self-play games, where the learner takes
    every seat; in the rest, slot group ``k`` plays against snapshot ``k`` of a pool of
    ``pool_size`` past policies, the learner on one seat drawn at each deal. Every
    ``refresh_updates`` updates the oldest snapshot is replaced by the learner (0: never; the pool
    starts as copies of the untrained network). ``opponent_policy`` (a policy file) fills the
    pool with that frozen policy instead, for a best response: it needs ``share = 0`` and
    ``refresh_updates = 0``. A one-seat game takes none of these."""

    share: float = 0.5
    pool_size: int = 4
    refresh_updates: int = 10
    opponent_policy: str = ""


@dataclass
class JaxTrainConfig:
    """One compiled PPO run on a game with a JAX twin (``empire_envs.jax.twin_ids()``)."""

    env_id: str = "empire_envs/EmpireSolo-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    total_timesteps: int = 5_000_000
    seed: int = 0
    num_envs: int = 1024  # games stepped together
    #: feed the legal-action mask to the network after the observation (``core.policy_input``;
    #: in Solitaire it is the graph of available captures); saved in the policy file's metadata
    mask_in_observation: bool = False
    output_dir: str = ""
    #: a policy file (``jaxppo`` format, e.g. from ``imitate --backend jax``) whose actor and
    #: critic start the run instead of a fresh network; its widths and activation must be the config's
    init_policy: str = ""
    progress_bar: bool = True
    log_freq: int = 250_000  # timesteps between two rows of progress.csv (one compiled call each)
    ppo: JaxPPOSettings = field(default_factory=JaxPPOSettings)
    eval: JaxEvalSettings = field(default_factory=JaxEvalSettings)
    checkpoint: JaxCheckpointSettings = field(default_factory=JaxCheckpointSettings)
    self_play: JaxSelfPlaySettings = field(default_factory=JaxSelfPlaySettings)

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.ppo.num_steps

    @property
    def num_updates(self) -> int:
        """Updates in the run: enough for ``total_timesteps`` (the last one may pass it)."""
        return -(-self.total_timesteps // self.steps_per_update)

    def validate(self) -> None:
        ppo = self.ppo
        require_at_least(
            1,
            {
                "num_envs": self.num_envs,
                "log_freq": self.log_freq,
                "ppo.num_steps": ppo.num_steps,
                "ppo.update_epochs": ppo.update_epochs,
                "ppo.num_minibatches": ppo.num_minibatches,
                "eval.episodes": self.eval.episodes,
            },
        )
        require_at_least(
            0,
            {
                "seed": self.seed,
                "total_timesteps": self.total_timesteps,  # 0 saves the untrained policy
                "eval.freq": self.eval.freq,
                "checkpoint.freq": self.checkpoint.freq,
            },
        )
        if self.steps_per_update % ppo.num_minibatches:
            raise ValueError(
                f"num_envs x ppo.num_steps ({self.steps_per_update}) must split into "
                f"ppo.num_minibatches ({ppo.num_minibatches}) equal minibatches"
            )
        if ppo.activation not in ACTIVATIONS:
            raise ValueError(f"ppo.activation must be one of {list(ACTIVATIONS)}, got {ppo.activation!r}")
        check_layer_widths("ppo.hidden_sizes", ppo.hidden_sizes)
        check_ppo_numbers(ppo.learning_rate, ppo.clip_range, ppo.max_grad_norm, ppo.gamma, ppo.gae_lambda)
        require_in_range({"ppo.ent_coef": ppo.ent_coef, "ppo.vf_coef": ppo.vf_coef}, 0.0, math.inf)
        play = self.self_play
        require_in_range({"self_play.share": play.share}, 0.0, 1.0)
        require_at_least(1, {"self_play.pool_size": play.pool_size})
        require_at_least(0, {"self_play.refresh_updates": play.refresh_updates})
        if play.opponent_policy and (play.share or play.refresh_updates):
            raise ValueError(
                "self_play.opponent_policy trains a best response against that frozen policy alone: "
                f"set self_play.share = 0 (got {play.share}) and self_play.refresh_updates = 0 "
                f"(got {play.refresh_updates})"
            )


def load_jax_config(path: str | Path | None, overrides: Sequence[tuple[str, Any]] = ()) -> JaxTrainConfig:
    """The defaults, then the TOML file, then ``(dotted.key, value)`` overrides; validated."""
    config = JaxTrainConfig()
    if path is not None:
        file = config_file(path)
        data = read_config_file(file)
        try:
            apply_table(config, data, "")
        except ValueError as error:
            shipped = ", ".join(name for name in shipped_configs() if name.startswith("jax/"))
            raise ValueError(
                f"{file}: {error} (a --backend jax config, such as the shipped {shipped}; "
                "see experiments/configs/jax/ in a clone)"
            ) from None
    apply_overrides(config, overrides)
    config.validate()
    return config


def default_jax_output_dir(config: JaxTrainConfig) -> Path:
    """``runs/<env>-jax-seed<seed>``: where a run goes without ``output_dir``."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", config.env_id.split("/")[-1]).strip("-")
    return Path("runs") / f"{name}-jax-seed{config.seed}"
