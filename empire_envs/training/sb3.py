"""Vectorized envs, self-play opponents and a mask audit for training with sb3-contrib's MaskablePPO.

``build_vec_env(spec, n_envs, seed)`` accepts every env this package can make (``make_any``):

- a Gymnasium env (a solo game) is used as it is, wrapped in SB3's ``Monitor``;
- a PettingZoo AEC env (a multiplayer game) becomes an ``AECSingleAgentEnv``: the learner holds
  ``learner_seat`` and each other seat is played, one episode at a time, by an opponent drawn
  uniformly from ``opponents``: agent specs (``random``, ``heuristic``, ``ppo:PATH``, ...) or
  ``self``, a frozen snapshot of the learner that ``SelfPlayCallback`` refreshes while it trains.

MaskablePPO reads masks through ``env_method("action_masks")`` after each vectorized step. SB3's
vectorized envs reset a finished copy inside that step, so the mask read is the one of the new
episode's first observation, the observation the policy sees next (tests/test_training.py checks
this on both ``DummyVecEnv`` and ``SubprocVecEnv``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from ..adapters.single_agent import AECSingleAgentEnv
from ..agents.base import Agent, RandomAgent, game_key, make_agent
from ..core.policy_input import PolicyInput
from ..registry import is_multiplayer, make_any
from .config import SELF_PLAY

VEC_ENV_KINDS = {"dummy": DummyVecEnv, "subproc": SubprocVecEnv}
SELF = SELF_PLAY


# --------------------------------------------------------------------------- opponents


class PolicyAgent(Agent):
    """Plays with an SB3 actor-critic policy: samples its masked action distribution.

    Sampling uses the agent's own numpy RNG (seeded by ``reset``), so a game against a snapshot is
    repeatable; ``deterministic=True`` takes the most likely legal action instead.
    """

    name = "policy"

    def __init__(self, policy: Any, deterministic: bool = False, seed: int | None = None) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        obs_tensor, _ = self.policy.obs_to_tensor(observation)
        with torch.no_grad():
            distribution = self.policy.get_distribution(
                obs_tensor, action_masks=np.asarray(action_mask, dtype=bool)[None]
            )
            probs = distribution.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = probs * (np.asarray(action_mask) > 0)
        if self.deterministic:
            return int(np.argmax(probs))
        total = probs.sum()
        if total <= 0:
            raise ValueError("the policy gives no probability to any legal action")
        return int(self.rng.choice(probs.size, p=probs / total))


def policy_snapshot(model: Any) -> dict[str, Any]:
    """A picklable frozen copy of a model's policy: what ``SnapshotPool.update`` takes."""
    return {
        "policy_class": type(model.policy),
        "policy_kwargs": dict(model.policy_kwargs),
        "observation_space": model.observation_space,
        "action_space": model.action_space,
        "state_dict": {k: v.detach().cpu().clone() for k, v in model.policy.state_dict().items()},
    }


def policy_from_snapshot(snapshot: Mapping[str, Any]) -> Any:
    policy = snapshot["policy_class"](
        snapshot["observation_space"],
        snapshot["action_space"],
        lambda _progress: 0.0,
        **snapshot["policy_kwargs"],
    )
    policy.load_state_dict(snapshot["state_dict"])
    policy.set_training_mode(False)
    return policy


class SnapshotPool:
    """The last ``size`` snapshots of the learner; ``agent(rng)`` plays one of them.

    The newest snapshot is drawn with probability ``latest_probability``, otherwise one of the
    pool uniformly (older selves keep the learner from chasing only its latest habits). Until the
    first snapshot arrives the pool plays uniformly at random.
    """

    def __init__(self, size: int = 5, latest_probability: float = 0.5) -> None:
        if size < 1:
            raise ValueError(f"a snapshot pool holds at least 1 snapshot, got size={size}")
        if not 0.0 <= latest_probability <= 1.0:
            raise ValueError(f"latest_probability must be in [0, 1], got {latest_probability}")
        self.size = size
        self.latest_probability = latest_probability
        self.policies: list[Any] = []
        self.updates = 0

    def update(self, snapshot: Mapping[str, Any]) -> None:
        self.policies.append(policy_from_snapshot(snapshot))
        del self.policies[: -self.size]
        self.updates += 1

    def agent(self, rng: np.random.Generator) -> Agent:
        if not self.policies:
            return RandomAgent(int(rng.integers(2**31)))
        if rng.random() < self.latest_probability:
            policy = self.policies[-1]
        else:
            policy = self.policies[int(rng.integers(len(self.policies)))]
        return PolicyAgent(policy, seed=int(rng.integers(2**31)))


class OpponentMix:
    """An ``OpponentSource``: each seat, each episode, an opponent drawn from ``specs``.

    A spec is anything ``make_agent`` accepts for the game, or ``"self"`` for the snapshot pool.
    Agents are built once per (spec, seat) and reused, reset by the env every episode.
    """

    def __init__(self, specs: Sequence[str], game: str, pool: SnapshotPool | None = None) -> None:
        if not specs:
            raise ValueError("name at least one opponent")
        self.specs = list(specs)
        self.game = game
        self.pool = pool if pool is not None else SnapshotPool()
        self._agents: dict[tuple[str, str], Agent] = {}
        for spec in set(self.specs) - {SELF}:  # fail now on a bad spec, not in the first episode
            make_agent(spec, game)

    def __call__(self, seat: str, rng: np.random.Generator) -> Agent:
        spec = self.specs[int(rng.integers(len(self.specs)))]
        if spec == SELF:
            return self.pool.agent(rng)
        key = (spec, seat)
        if key not in self._agents:
            self._agents[key] = make_agent(spec, self.game)
        return self._agents[key]

    def update(self, snapshot: Mapping[str, Any]) -> None:
        self.pool.update(snapshot)


class SelfPlayCallback(BaseCallback):
    """Push a snapshot of the learner into every env's opponent pool now and then.

    One snapshot at the start of training and one every ``every`` timesteps after it, through
    ``env_method("update_opponents", ...)``, so it works with subprocess envs too. Use it only
    with multiplayer envs whose opponents take updates (``OpponentMix``); ``train.py`` adds it
    when ``self`` is among the opponents.
    """

    def __init__(self, every: int, verbose: int = 0) -> None:
        super().__init__(verbose)
        if every < 1:
            raise ValueError(f"snapshot interval must be at least 1 timestep, got {every}")
        self.every = every
        self._last = 0
        self.snapshots = 0

    def _push(self) -> None:
        self.training_env.env_method("update_opponents", policy_snapshot(self.model))
        self._last = self.num_timesteps
        self.snapshots += 1
        if self.verbose:
            print(f"self-play snapshot {self.snapshots} at {self.num_timesteps} timesteps")

    def _on_training_start(self) -> None:
        self._push()

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self._push()
        return True


# --------------------------------------------------------------------------- audits


class MaskAudit(gym.Wrapper):
    """Checks every action against the mask the env offered for it; counts what it saw.

    ``checked`` actions were taken, ``violations`` of them were masked out. Put it innermost (just
    outside the env) to assert that a learner never acts illegally.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.checked = 0
        self.violations = 0
        self._mask: np.ndarray | None = None

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._mask = np.asarray(info["action_mask"]).copy()
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._mask is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        self.checked += 1
        if not self._mask[int(action)]:
            self.violations += 1
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._mask = np.asarray(info["action_mask"]).copy()
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()

    def audit(self) -> tuple[int, int]:
        return self.checked, self.violations


class PolicyInputWrapper(gym.ObservationWrapper):
    """Feed the policy its ``PolicyInput``: the observation, then the mask and/or the lookahead.

    For solo (Gymnasium) games; ``PPOAgent`` rebuilds the same input from the run's config when
    the saved model plays.
    """

    def __init__(self, env: gym.Env, policy_input: PolicyInput) -> None:
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, gym.spaces.Box) or len(space.shape) != 1:
            raise TypeError(f"a policy input needs a flat Box observation, got {space}")
        self.game = getattr(env.unwrapped, "game", None)
        if policy_input.lookahead and self.game is None:
            raise TypeError("the lookahead input needs a solo game of this package")
        self.policy_input = policy_input
        n = int(cast(gym.spaces.Discrete, env.action_space).n)
        extra = policy_input.width(0, n)
        self.observation_space = gym.spaces.Box(
            np.concatenate([space.low, np.zeros(extra)]).astype(np.float32),
            np.concatenate([space.high, np.ones(extra)]).astype(np.float32),
            dtype=np.float32,
        )

    def observation(self, observation: np.ndarray) -> np.ndarray:
        mask = self.env.get_wrapper_attr("action_masks")()
        state = self.env.unwrapped.state  # type: ignore[attr-defined]  # this package's solo envs hold one
        return self.policy_input.build(observation, mask, self.game, state)

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()


# --------------------------------------------------------------------------- env building


def make_env_factory(
    spec: str,
    env_kwargs: Mapping[str, Any] | None = None,
    *,
    rank: int = 0,
    learner_seat: int | str = "all",
    opponents: Sequence[str] = ("random",),
    audit: bool = False,
    illegal_action: str = "raise",
    policy_input: PolicyInput = PolicyInput(),
) -> Callable[[], gym.Env]:
    """A picklable no-argument factory of one training env (what SB3's vec envs take)."""
    env_kwargs = dict(env_kwargs or {})
    opponents = list(opponents)

    def factory() -> gym.Env:
        base = make_any(spec, **env_kwargs)
        env: gym.Env
        if is_multiplayer(base):
            env = AECSingleAgentEnv(
                base,
                learner_seat=learner_seat,
                opponents=OpponentMix(opponents, game_key(base, spec)),
                illegal_action=illegal_action,
                seat_offset=rank,
            )
        else:
            env = base
        if audit:
            env = MaskAudit(env)
        if not policy_input.plain:
            env = PolicyInputWrapper(env, policy_input)
        return Monitor(env, info_keywords=())

    return factory


def build_vec_env(
    spec: str,
    n_envs: int = 1,
    seed: int = 0,
    vec_env: str = "dummy",
    env_kwargs: Mapping[str, Any] | None = None,
    **factory_kwargs: Any,
) -> VecEnv:
    """``n_envs`` copies of the env behind ``spec``, seeded ``seed, seed + 1, ...``.

    ``factory_kwargs`` go to ``make_env_factory`` (learner seat, opponents, audit, mask input). Copy ``i`` of a
    multiplayer env starts its seat rotation at seat ``i``, so the copies hold different seats.
    """
    if n_envs < 1:
        raise ValueError(f"n_envs must be at least 1, got {n_envs}")
    if vec_env not in VEC_ENV_KINDS:
        raise ValueError(f"vec_env must be one of {sorted(VEC_ENV_KINDS)}, got {vec_env!r}")
    factories = [make_env_factory(spec, env_kwargs, rank=i, **factory_kwargs) for i in range(n_envs)]
    venv = VEC_ENV_KINDS[vec_env](factories)
    venv.seed(seed)
    return venv


def audit_totals(venv: VecEnv) -> tuple[int, int]:
    """(actions checked, violations) summed over the ``MaskAudit`` wrappers of a vec env."""
    checked = violations = 0
    for one_checked, one_violations in venv.env_method("audit"):
        checked += one_checked
        violations += one_violations
    return checked, violations
