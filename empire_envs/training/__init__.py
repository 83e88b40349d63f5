"""Training support for stable-baselines3 / sb3-contrib (the ``train`` extra; needs torch) and Ray
RLlib (the ``distributed`` extra).

- ``config``: ``TrainConfig``, a MaskablePPO run read from TOML and overrides (no torch needed);
- ``train``: one MaskablePPO run (``python -m empire_envs train``); ``imitate``: behaviour
  cloning of a teacher agent (``imitate``); ``demo``: the ``make demo`` job (``demo``);
- ``sb3``: vectorized envs for any env spec (solo Gymnasium ids and multiplayer AEC games through
  ``AECSingleAgentEnv``), self-play snapshot opponents, and a wrapper that audits every action
  against its mask; ``policies``: the lookahead-logits policy; ``plots``: learning curves;
- ``rllib``: the envs adapted to Ray RLlib (mask-in-observation and key-renaming wrappers, env
  registration), the PPO config and the run of ``python -m empire_envs train-rllib``.

torch, sb3 and ray are imported only by the modules and functions that train, so ``config``,
``train``, ``imitate``, ``demo`` and ``rllib`` import without them. Only ``empire_envs.cli``
imports this subpackage.
"""
