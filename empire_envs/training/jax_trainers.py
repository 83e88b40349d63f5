"""The compiled trainer a config needs, checked before anything runs: ``make_trainer`` picks
``training.jax_ppo.Trainer`` for a one-seat twin and ``training.jax_selfplay.SelfPlayTrainer``
for a game of several seats; ``checked_trainer`` also checks that the run fits in memory.
(Here rather than in ``jax_ppo``, which ``jax_selfplay`` builds on.)
"""

from __future__ import annotations

import empire_envs.jax as empire_jax

from ..core.limits import check_fits_in_memory
from .config import rollout_bytes
from .jax_config import JaxTrainConfig
from .jax_ppo import Trainer
from .jax_selfplay import SelfPlayTrainer


def make_trainer(config: JaxTrainConfig) -> Trainer:
    """The trainer of ``config``: ``Trainer`` for a one-seat twin, ``SelfPlayTrainer`` for a game
    of several seats."""
    if empire_jax.make(config.env_id, **config.env_kwargs).num_players > 1:
        return SelfPlayTrainer(config)
    return Trainer(config)


def checked_trainer(config: JaxTrainConfig) -> Trainer:
    """The trainer of ``config`` once what the run needs is checked, before anything is written
    or compiled: the config, the env id and its variant settings (building the twin), and that
    the rollout and the evaluation batch fit in memory. Raises ``ValueError`` or ``TypeError``."""
    trainer = make_trainer(config)
    check_fits_in_memory(
        rollout_bytes(config.num_envs, config.ppo.num_steps, trainer.input_size, trainer.num_actions),
        f"num_envs={config.num_envs} x ppo.num_steps={config.ppo.num_steps} on {trainer.env.id}",
    )
    check_fits_in_memory(
        rollout_bytes(config.eval.episodes, 1, trainer.input_size, trainer.num_actions),
        f"eval.episodes={config.eval.episodes} games at once",
    )
    return trainer
