"""Training support for stable-baselines3 / sb3-contrib (the ``train`` extra; needs torch).

``empire_envs.training.sb3`` builds vectorized envs for any env spec (solo Gymnasium ids and
multiplayer AEC games through ``AECSingleAgentEnv``), self-play snapshot opponents, and a wrapper
that audits every action against its mask. ``empire_envs.training.plots`` draws learning curves.
``empire_envs.training.rllib`` (the ``distributed`` extra) adapts the envs to Ray RLlib: mask-in-
observation and key-renaming wrappers, env registration, and the PPO config of
``experiments/train_rllib.py``. Nothing else in the package imports this subpackage.
"""
