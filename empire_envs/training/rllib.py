"""Environments for Ray RLlib (the ``distributed`` extra: ``ray[rllib]``; needs torch).

RLlib's action-masking RLModule (``ActionMaskingTorchRLModule``) reads Dict observations
``{"observations": Box, "action_mask": Box(0, 1, (n,), float32)}``. Our envs keep their own keys;
the wrappers here only present them under RLlib's names:

- ``MaskInObservation`` (a Gymnasium wrapper, solo games and ``AECSingleAgentEnv``): the flat
  observation becomes ``"observations"`` and ``info["action_mask"]`` becomes ``"action_mask"``;
- ``RLlibKeysAEC`` (a PettingZoo wrapper, multiplayer games): each seat's
  ``{"observation", "action_mask"}`` becomes ``{"observations", "action_mask"}``, the mask float32.

``register_rllib_envs()`` registers one env creator per id of the registry with
``ray.tune.registry.register_env`` under ``rllib_env_name(env_id)``
(``empire_envs/EmpireSolo-v0`` -> ``empire_envs_rllib/EmpireSolo-v0``). The creator reads its
``env_config``: ``env_kwargs`` (the env's own options), and for a multiplayer game ``opponents``:
None (default) gives RLlib's ``PettingZooEnv`` with every seat an RLlib agent (self-play or one
policy per seat); an agent spec (``random``, ``heuristic``, ``rllib:PATH``, ``ppo:PATH``) gives a
single-agent env where the learner holds one seat (``learner_seat``, ``"random"`` by default) and
the other seats are played inside the env by that frozen agent.

``train_ppo(RLlibRun(...))`` is the whole run of ``python -m empire_envs train-rllib``.

Ray is imported only inside the functions that need it; nothing else in the package imports
this module.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..registry import NAMESPACE, all_entries, entry, make

OBS_KEY = "observations"
MASK_KEY = "action_mask"
RLLIB_NAMESPACE = f"{NAMESPACE}_rllib"


def rllib_env_name(env_id: str) -> str:
    """The name an id is registered under with Ray Tune: ``empire_envs_rllib/<Name>``."""
    name = env_id.split("/", 1)[1] if env_id.startswith(f"{NAMESPACE}/") else env_id
    return f"{RLLIB_NAMESPACE}/{name}"


def _mask_space(n: int) -> spaces.Box:
    return spaces.Box(0.0, 1.0, (n,), np.float32)


def _float_mask(mask: Any, n: int) -> np.ndarray:
    if mask is None:
        return np.zeros(n, dtype=np.float32)
    return np.asarray(mask, dtype=np.float32)


class MaskInObservation(gym.Wrapper):
    """A Gymnasium env with a flat observation and ``info["action_mask"]`` seen as
    ``{"observations": obs, "action_mask": float32 mask}``; the info is passed on unchanged.
    A step without a mask in its info (none of ours) gives an all-zero mask."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        if not isinstance(env.action_space, spaces.Discrete):
            raise ValueError(f"MaskInObservation needs a Discrete action space, got {env.action_space}")
        self._n = int(env.action_space.n)
        self.observation_space = spaces.Dict({OBS_KEY: env.observation_space, MASK_KEY: _mask_space(self._n)})

    def _wrap(self, observation: Any, info: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {OBS_KEY: observation, MASK_KEY: _float_mask(info.get("action_mask"), self._n)}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        observation, info = self.env.reset(seed=seed, options=options)
        return self._wrap(observation, info), info

    def step(self, action: Any) -> Any:
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self._wrap(observation, info), reward, terminated, truncated, info


def _aec_wrapper_base() -> type:
    from pettingzoo.utils import BaseWrapper

    return BaseWrapper


class RLlibKeysAEC(_aec_wrapper_base()):  # type: ignore[misc]  # PettingZoo ships no types
    """A PettingZoo AEC env whose Dict observations ``{"observation", "action_mask"}`` are seen
    as ``{"observations", "action_mask"}`` with a float32 mask; nothing else changes."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._spaces: dict[str, spaces.Dict] = {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            if not isinstance(space, spaces.Dict) or set(space.spaces) < {"observation", "action_mask"}:
                raise ValueError(
                    f"RLlibKeysAEC needs Dict observations with 'observation' and 'action_mask', got {space}"
                )
            n = int(np.prod(space["action_mask"].shape or (0,)))
            self._spaces[agent] = spaces.Dict({OBS_KEY: space["observation"], MASK_KEY: _mask_space(n)})

    def observation_space(self, agent: str) -> spaces.Space:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        observation = self.env.observe(agent)
        if observation is None:
            return None
        mask = observation["action_mask"]
        return {OBS_KEY: observation["observation"], MASK_KEY: _float_mask(mask, len(mask))}


def make_rllib_env(env_id: str, env_config: Mapping[str, Any] | None = None) -> Any:
    """The env RLlib trains on for one id (see the module docstring for ``env_config``)."""
    config = dict(env_config or {})
    env_kwargs = dict(config.get("env_kwargs") or {})
    item = entry(env_id)
    if item.api == "gymnasium":
        return MaskInObservation(make(env_id, **env_kwargs))
    aec = make(env_id, **env_kwargs)
    opponents = config.get("opponents")
    if opponents:
        from ..adapters.single_agent import AECSingleAgentEnv
        from ..agents.base import game_key, make_agent

        name = game_key(aec, env_id)
        seed = config.get("seed")
        seat_agents = [
            make_agent(str(opponents), name, seed=None if seed is None else int(seed) + seat)
            for seat in range(len(aec.possible_agents))
        ]
        first = aec.possible_agents[0]
        for agent in seat_agents:  # a trained opponent must fit this env's spaces
            agent.check_spaces(aec.observation_space(first)["observation"], aec.action_space(first))
        single = AECSingleAgentEnv(
            aec,
            learner_seat=config.get("learner_seat", "random"),
            opponents=seat_agents,
            illegal_action="penalize",
        )
        return MaskInObservation(single)
    pettingzoo_env = importlib.import_module("ray.rllib.env.wrappers.pettingzoo_env")
    return pettingzoo_env.PettingZooEnv(RLlibKeysAEC(aec))


def is_multi_agent(env_id: str, env_config: Mapping[str, Any] | None = None) -> bool:
    """True when ``make_rllib_env`` gives a multi-agent env (a multiplayer id without opponents)."""
    return entry(env_id).api == "pettingzoo" and not (env_config or {}).get("opponents")


def register_rllib_envs(env_ids: list[str] | None = None) -> dict[str, str]:
    """Register an env creator with Ray Tune for each id (all of the registry by default);
    returns ``{env_id: registered name}``. Call it in the driver before building the algorithm."""
    register_env = importlib.import_module("ray.tune.registry").register_env
    names: dict[str, str] = {}
    for env_id in env_ids if env_ids is not None else [item.env_id for item in all_entries()]:
        entry(env_id)  # a clear error for an unknown id

        def creator(env_config: Any, _env_id: str = env_id) -> Any:
            return make_rllib_env(_env_id, env_config)

        register_env(rllib_env_name(env_id), creator)
        names[env_id] = rllib_env_name(env_id)
    return names


POLICY_MODES = ("shared", "per-seat")


def returns_text(result: Mapping[str, Any]) -> str:
    """The mean episode return of one training iteration as a log phrase: each seat's where the
    env has several (in a zero-sum game the sum over the seats, all RLlib's own mean reports,
    is 0 whatever the play), else the episode's."""
    runners = result.get("env_runners", {})
    seats = runners.get("agent_episode_returns_mean") or {}
    if len(seats) > 1:
        return "mean return per seat " + "  ".join(f"{seat} {value:+.3f}" for seat, value in sorted(seats.items()))
    return f"episode return mean {runners.get('episode_return_mean', float('nan')):.3f}"


def build_ppo_config(
    env_id: str,
    env_kwargs: Mapping[str, Any] | None = None,
    opponents: str | None = None,
    policy: str = "shared",
    num_env_runners: int = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 128,
    num_epochs: int = 10,
    lr: float = 3e-4,
    hidden: tuple[int, ...] = (256, 256),
    seed: int | None = None,
) -> Any:
    """A PPO ``AlgorithmConfig`` on RLlib's new API stack with the action-masking RLModule.

    Solo ids, and multiplayer ids with ``opponents`` (an agent spec), train one single-agent
    module (``default_policy``). Multiplayer ids without opponents train on RLlib's
    ``PettingZooEnv``: ``policy="shared"`` maps every seat to one module ``shared`` (self-play),
    ``policy="per-seat"`` gives each seat its own module named after the seat.
    """
    if policy not in POLICY_MODES:
        raise ValueError(f"policy must be one of {POLICY_MODES}, got {policy!r}")
    ppo = importlib.import_module("ray.rllib.algorithms.ppo")
    rl_module = importlib.import_module("ray.rllib.core.rl_module.rl_module")
    multi_rl_module = importlib.import_module("ray.rllib.core.rl_module.multi_rl_module")
    masking = importlib.import_module("ray.rllib.examples.rl_modules.classes.action_masking_rlm")

    register_rllib_envs([env_id])
    env_config: dict[str, Any] = {"env_kwargs": dict(env_kwargs or {}), "opponents": opponents, "seed": seed}
    model_config = {"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": [], "vf_share_layers": False}
    module_spec = rl_module.RLModuleSpec(module_class=masking.ActionMaskingTorchRLModule, model_config=model_config)
    config = (
        ppo.PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(env=rllib_env_name(env_id), env_config=env_config)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    if not is_multi_agent(env_id, env_config):
        return config.rl_module(rl_module_spec=module_spec)
    seats = list(make(env_id, **dict(env_kwargs or {})).possible_agents)
    if policy == "shared":
        module_ids = ["shared"]

        def mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
            return "shared"

    else:
        module_ids = seats

        def mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
            return str(agent_id)

    # RLlib's env check steps with actions sampled from the space, ignoring the mask: in our AEC
    # stack an illegal move ends the game (with a warning), so the check is left out here
    config = config.environment(disable_env_checking=True)
    return config.multi_agent(policies=set(module_ids), policy_mapping_fn=mapping).rl_module(
        rl_module_spec=multi_rl_module.MultiRLModuleSpec(rl_module_specs={m: module_spec for m in module_ids})
    )


def steps_per_second(result: Mapping[str, Any], previous_lifetime: float) -> tuple[float, float, float]:
    """``(lifetime env steps, steps this iteration, steps/s)`` from one ``algo.train()`` result."""
    runners = result.get("env_runners", {}) or {}
    lifetime = float(runners.get("num_env_steps_sampled_lifetime", result.get("num_env_steps_sampled_lifetime", 0.0)))
    steps = lifetime - previous_lifetime
    seconds = float(result.get("time_this_iter_s", 0.0)) or float("nan")
    return lifetime, steps, steps / seconds


@dataclass(frozen=True)
class RLlibRun:
    """One PPO run with RLlib: the settings of ``python -m empire_envs train-rllib``."""

    env_id: str
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: multiplayer ids without ``opponents``: one module for every seat, or one per seat
    policy: str = "shared"
    #: an agent spec for the other seats (the learner then holds one seat), or None
    opponents: str | None = None
    #: 0 samples in the driver
    num_env_runners: int = 0
    iterations: int = 10
    train_batch_size: int = 4000
    minibatch_size: int = 128
    num_epochs: int = 10
    lr: float = 3e-4
    seed: int | None = None
    #: the checkpoint folder, saved after the last iteration (None: no checkpoint)
    out: str | None = None
    #: an existing Ray cluster (else ``RAY_ADDRESS``, else a local Ray)
    address: str | None = None
    #: CPUs of a local Ray
    num_cpus: int | None = None


def _print_now(line: str) -> None:
    print(line, flush=True)


def train_ppo(run: RLlibRun, log: Callable[[str], None] = _print_now) -> dict[str, Any]:
    """Start Ray (the cluster of ``run.address`` or ``RAY_ADDRESS``, else a local one), train PPO
    for ``run.iterations`` iterations logging env steps and env steps/s, save the checkpoint
    (with ``train_rllib.json``: the settings and the summary) when ``run.out`` is set, and stop
    Ray. Returns the summary."""
    import ray

    address = run.address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)  # every node needs empire_envs installed (or a runtime_env)
    else:
        ray.init(num_cpus=run.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        config = build_ppo_config(
            run.env_id,
            env_kwargs=dict(run.env_kwargs),
            opponents=run.opponents,
            policy=run.policy,
            num_env_runners=run.num_env_runners,
            train_batch_size=run.train_batch_size,
            minibatch_size=run.minibatch_size,
            num_epochs=run.num_epochs,
            lr=run.lr,
            seed=run.seed,
        )
        start = time.perf_counter()
        algo = config.build_algo()
        log(f"built in {time.perf_counter() - start:.1f}s")
        lifetime = 0.0
        rates: list[float] = []
        for iteration in range(1, run.iterations + 1):
            result = algo.train()
            lifetime, steps, rate = steps_per_second(result, lifetime)
            rates.append(rate)
            log(
                f"iter {iteration:3d}  env steps {int(lifetime):8d} (+{int(steps)})  "
                f"{rate:8.1f} env steps/s  {returns_text(result)}"
            )
        summary: dict[str, Any] = {
            "env_id": run.env_id,
            "iterations": run.iterations,
            "env_steps": int(lifetime),
            "env_steps_per_s_mean": sum(rates) / len(rates) if rates else float("nan"),
            "env_steps_per_s_after_first": sum(rates[1:]) / len(rates[1:]) if len(rates) > 1 else float("nan"),
            "num_env_runners": run.num_env_runners,
        }
        if run.out:
            out = Path(run.out).resolve()
            out.mkdir(parents=True, exist_ok=True)
            checkpoint = algo.save_to_path(str(out))
            summary["checkpoint"] = str(checkpoint)
            record = {**dataclasses.asdict(run), **summary}
            (out / "train_rllib.json").write_text(json.dumps(record, indent=2, default=str))
            log(f"checkpoint: {checkpoint}  (play it as rllib:{checkpoint})")
        algo.stop()
        log(json.dumps(summary))
        return summary
    finally:
        ray.shutdown()
