"""Ray RLlib training (the ``distributed`` extra): tiny PPO runs on the new API stack with the
action-masking RLModule, saved, loaded back as ``rllib:`` agents and played without an illegal
action. Skips when ray is not installed. One local Ray instance (2 CPUs) serves the whole file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

import empire_envs  # noqa: E402
from empire_envs.agents.base import make_agent  # noqa: E402
from empire_envs.training.rllib import (  # noqa: E402
    MaskInObservation,
    RLlibKeysAEC,
    build_ppo_config,
    make_rllib_env,
    returns_text,
    rllib_env_name,
    steps_per_second,
)

SOLO = "empire_envs/EmpireSolo-v0"
DUEL = "empire_envs/MapDuel-v0"
DUEL_KWARGS = {"length_limit": 8}
TINY = {"train_batch_size": 200, "minibatch_size": 100, "num_epochs": 1, "hidden": (32,), "seed": 0}


@pytest.fixture(scope="module")
def ray_local():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _train(config: Any, out: Path, iterations: int = 1) -> Path:
    algo = config.build_algo()
    try:
        lifetime = 0.0
        for _ in range(iterations):
            lifetime, steps, rate = steps_per_second(algo.train(), lifetime)
            assert steps > 0 and rate > 0
        return Path(algo.save_to_path(str(out)))
    finally:
        algo.stop()


def _play_solo(agent: Any, episodes: int) -> None:
    env = empire_envs.make(SOLO)
    agent.check_spaces(env.observation_space, env.action_space)
    for episode in range(episodes):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            action = agent.act(obs, info["action_mask"], env.unwrapped.state)
            assert info["action_mask"][action] == 1, f"illegal action {action}"
            obs, _reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert info.get("outcome") != "illegal action"


def _play_aec(agents: dict[str, Any], episodes: int) -> None:
    env = empire_envs.make(DUEL, **DUEL_KWARGS)
    for episode in range(episodes):
        env.reset(seed=episode)
        for seat in env.agent_iter():
            observation, _reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = observation["action_mask"]
            action = agents[seat].act(observation["observation"], mask, env.unwrapped.game_state)
            assert mask[action] == 1, f"illegal action {action} by {seat}"
            env.step(action)
        assert all(i.get("outcome") != "illegal action" for i in env.infos.values())


def test_wrappers_rename_keys_without_touching_our_envs():
    assert rllib_env_name(SOLO) == "empire_envs_rllib/EmpireSolo-v0"
    solo = make_rllib_env(SOLO)
    assert isinstance(solo, MaskInObservation)
    obs, info = solo.reset(seed=1)
    assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == np.float32
    assert solo.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    aec = RLlibKeysAEC(empire_envs.make(DUEL, **DUEL_KWARGS))
    aec.reset(seed=0)
    seat = aec.agent_selection
    seen = aec.observe(seat)
    assert set(seen) == {"observations", "action_mask"} and aec.observation_space(seat).contains(seen)
    # the env underneath keeps its own keys
    assert set(aec.unwrapped.observe(seat)) == {"observation", "action_mask"}
    assert set(empire_envs.make(DUEL).observation_space(seat).spaces) == {"observation", "action_mask"}


def test_solo_trains_saves_and_plays_legally(ray_local, tmp_path, monkeypatch):
    checkpoint = _train(build_ppo_config(SOLO, num_env_runners=0, **TINY), tmp_path / "solo", iterations=2)
    agent = make_agent(f"rllib:{checkpoint}", "solo")
    _play_solo(agent, episodes=3)
    # a checkpoint named by a relative path, as the README's commands name it (RLlib's file
    # systems refuse a relative path: the agent resolves it first)
    monkeypatch.chdir(checkpoint.parent)
    _play_solo(make_agent(f"rllib:{checkpoint.name}", "solo"), episodes=1)


def test_the_training_log_gives_each_seats_return():
    """A shared zero-sum policy's mean return over the seats is 0 whatever it plays: the log
    gives each seat's."""
    seats = {"player_1": -0.4, "player_0": 0.4}
    result = {"env_runners": {"episode_return_mean": 0.0, "agent_episode_returns_mean": seats}}
    assert returns_text(result) == "mean return per seat player_0 +0.400  player_1 -0.400"
    assert returns_text({"env_runners": {"episode_return_mean": 0.25}}) == "episode return mean 0.250"


def test_map_duel_self_play_shared_policy(ray_local, tmp_path):
    config = build_ppo_config(DUEL, env_kwargs=DUEL_KWARGS, policy="shared", num_env_runners=1, **TINY)
    checkpoint = _train(config, tmp_path / "duel")
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / "shared").is_dir()
    agent = make_agent(f"rllib:{checkpoint}", "map_duel")
    _play_aec({"player_0": agent, "player_1": make_agent("random", "map_duel", seed=0)}, episodes=2)
    _play_aec({"player_0": agent, "player_1": agent}, episodes=1)


def test_map_duel_per_seat_and_frozen_opponents(ray_local, tmp_path):
    config = build_ppo_config(DUEL, env_kwargs=DUEL_KWARGS, policy="per-seat", num_env_runners=0, **TINY)
    checkpoint = _train(config, tmp_path / "per_seat")
    seats = {seat: make_agent(f"rllib:{checkpoint}#{seat}", "map_duel") for seat in ("player_0", "player_1")}
    with pytest.raises(ValueError, match="pick one"):
        make_agent(f"rllib:{checkpoint}", "map_duel")
    _play_aec(seats, episodes=1)
    # against a frozen heuristic: single-agent training on one seat, the heuristic inside the env
    config = build_ppo_config(DUEL, env_kwargs=DUEL_KWARGS, opponents="heuristic", num_env_runners=0, **TINY)
    checkpoint = _train(config, tmp_path / "vs_heuristic")
    agent = make_agent(f"rllib:{checkpoint}", "map_duel")
    _play_aec({"player_0": agent, "player_1": make_agent("heuristic", "map_duel")}, episodes=1)
