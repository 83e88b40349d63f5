"""Training support for stable-baselines3 / sb3-contrib (the ``train`` extra; needs torch).

``empire_envs.training.sb3`` builds vectorized envs for any env spec (solo Gymnasium ids and
multiplayer AEC games through ``AECSingleAgentEnv``), self-play snapshot opponents, and a wrapper
that audits every action against its mask. ``empire_envs.training.plots`` draws learning curves.
Nothing else in the package imports this subpackage.
"""
