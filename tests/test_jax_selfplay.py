"""Self-play compiled PPO on a game of several seats (issue 28): training.jax_selfplay on Map Duel.

The trainer's functions compile once per module (the ``trainer`` fixture: a tiny network on 8
games, 4 of them self-play and 2 per snapshot of a pool of 2) and the tests reuse them. The
positions are built, not found: the pool and the learner get crafted actors whose choices are
known, and the credit of rewards between a seat's turns is checked on a scripted rollout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from empire_envs.adapters.jax_env import seed_key  # noqa: E402
from empire_envs.agents import jax_ppo as policy_files  # noqa: E402
from empire_envs.agents.base import make_agent  # noqa: E402
from empire_envs.training.jax_config import load_jax_config  # noqa: E402
from empire_envs.training.jax_ppo import Trainer, train  # noqa: E402
from empire_envs.training.jax_selfplay import SelfPlayTrainer, seat_advantages, winner_table  # noqa: E402
from empire_envs.training.jax_trainers import checked_trainer, make_trainer  # noqa: E402
from tests.aec_play import play_aec_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DUEL = "empire_envs/MapDuel-v0"
#: 8 games (4 self-play, 2 against each of 2 snapshots) x 8 steps = 64 decisions per update
TINY = [
    ("env_id", DUEL),
    ("num_envs", 8),
    ("ppo.num_steps", 8),
    ("ppo.num_minibatches", 2),
    ("ppo.update_epochs", 1),
    ("ppo.hidden_sizes", [8]),
    ("total_timesteps", 256),
    ("log_freq", 128),
    ("eval.freq", 256),
    ("eval.episodes", 4),
    ("checkpoint.freq", 128),
    ("progress_bar", False),
    ("self_play.share", 0.5),
    ("self_play.pool_size", 2),
    ("self_play.refresh_updates", 2),
]


def tiny_config(**changes: object):
    return load_jax_config(None, TINY + list(changes.items()))


@pytest.fixture(scope="module")
def trainer() -> SelfPlayTrainer:
    built = make_trainer(tiny_config())
    assert isinstance(built, SelfPlayTrainer)
    return built


@pytest.fixture(scope="module")
def run(trainer, tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    summary = train(trainer.config, out, log=lambda line: None, trainer=trainer)
    return out, summary


# --------------------------------------------------------------------------- the slots and the run


def test_the_slots_split_into_self_play_and_one_group_per_snapshot(trainer):
    assert trainer.self_play_slots == 4
    assert trainer.slots_per_snapshot == 2
    assert trainer.num_players == 2
    assert list(winner_table(trainer.env.rules.outcome_names)) == [-1, 0, 1, -1, -1, -1]


def test_every_games_winning_results_name_their_seat():
    """Each game words a win its own way; the trainer's win rates read them all (a winner the
    table missed would count every game as lost)."""
    from empire_envs.games.pillars.tables import CAMPAIGN_OUTCOME_NAMES, OUTCOME_NAMES

    assert list(winner_table(OUTCOME_NAMES)) == [-1, 0, 1, 2, 3, 4, 5, -1]
    assert list(winner_table(CAMPAIGN_OUTCOME_NAMES)) == [-1, 0, 1, 2, 3, 4, 5, -1]
    generals = ["ongoing", "won by player_2 (domination victory)", "draw", "won by player_0 (score victory)"]
    assert list(winner_table(generals)) == [-1, 2, -1, 0]
    assert list(winner_table(["won by nobody", "lost by seat 1", "won by seat x", "won by player_1 ("])) == [-1] * 4


def test_a_short_run_writes_finite_parameters_and_a_playable_policy(run):
    out, summary = run
    assert summary["timesteps"] == 256
    assert (out / "progress.csv").is_file() and (out / "checkpoints" / "policy_128.npz").is_file()
    policy = policy_files.load_policy(out / "policy.npz")  # refuses NaN or infinite weights
    assert policy.metadata["env_id"] == DUEL and policy.num_actions == 396
    header, *rows = (out / "progress.csv").read_text().splitlines()
    assert "eval_pool_win_rate" in header.split(",") and len(rows) == 2
    for key in ("last_eval_win_rate",):
        assert 0.0 <= summary[key] <= 1.0
    # the policy plays whole games of the Python AEC env as a numpy agent, on either seat
    from empire_envs.registry import make_any as make_env

    agent = make_agent(f"jaxppo:{out / 'policy.npz'}", "map_duel")
    env = make_env(DUEL)
    for seat in range(2):

        def choose(name, observation, env, seat=seat):
            if name == f"player_{seat}":
                return agent.act(observation["observation"], observation["action_mask"])
            return int(np.flatnonzero(observation["action_mask"])[0])

        assert play_aec_game(env, seat, choose).get(f"player_{seat}", 0) > 0
    env.close()


def test_same_seed_same_parameters_whatever_the_chunks(trainer):
    runner = trainer.place(trainer.init(seed_key(3)))
    whole, *_ = trainer.train_updates(runner, jnp.int32(2))
    half, *_ = trainer.train_updates(runner, jnp.int32(1))
    half, *_ = trainer.train_updates(half, jnp.int32(1))
    for left, right in zip(
        jax.tree_util.tree_leaves(whole.params), jax.tree_util.tree_leaves(half.params), strict=True
    ):
        np.testing.assert_array_equal(np.asarray(left), np.asarray(right))
    leaves = jax.tree_util.tree_leaves(whole.params)
    assert all(np.isfinite(np.asarray(leaf)).all() for leaf in leaves)
    other, *_ = trainer.train_updates(trainer.place(trainer.init(seed_key(4))), jnp.int32(2))
    assert any(
        not np.array_equal(np.asarray(a), np.asarray(b))
        for a, b in zip(jax.tree_util.tree_leaves(whole.params), jax.tree_util.tree_leaves(other.params), strict=True)
    )


def test_rollouts_never_sample_a_masked_action(trainer):
    runner = trainer.init(seed_key(5))
    for _ in range(3):
        runner, transitions, _ = trainer.collect(runner)
        mask = np.asarray(transitions.mask)
        action = np.asarray(transitions.action)
        assert np.take_along_axis(mask, action[..., None], axis=-1).all()
        assert np.isfinite(np.asarray(transitions.log_prob)).all()


# --------------------------------------------------------------------------- the pool


def crafted_actor(trainer: SelfPlayTrainer, prefer_high: bool) -> dict:
    """An actor whose logits are its last bias alone: +100 per action index (the highest legal
    action wins) or -100 per index (the lowest)."""
    widths = [trainer.input_size, *trainer.config.ppo.hidden_sizes, trainer.num_actions]
    actor = {}
    for index in range(len(widths) - 1):
        actor[f"actor_{index}"] = {
            "kernel": jnp.zeros((widths[index], widths[index + 1]), jnp.float32),
            "bias": jnp.zeros((widths[index + 1],), jnp.float32),
        }
    order = jnp.arange(trainer.num_actions, dtype=jnp.float32) * 100.0
    actor[f"actor_{len(widths) - 2}"]["bias"] = order if prefer_high else -order
    return actor


def test_the_snapshot_pool_plays_the_pool_slots_and_the_learner_the_rest(trainer):
    runner = trainer.init(seed_key(6))
    learner = crafted_actor(trainer, prefer_high=True)
    snapshot = crafted_actor(trainer, prefer_high=False)
    params = {"params": {**runner.params["params"], **learner}}
    pool = jax.tree_util.tree_map(lambda leaf: jnp.stack([leaf] * trainer.pool_size), snapshot)
    runner = runner._replace(params=params, pool=pool)
    seen = {"learner": 0, "snapshot": 0}
    for _ in range(4):
        runner, transitions, _ = trainer.collect(runner)
        mask = np.asarray(transitions.mask)
        action = np.asarray(transitions.action)
        learner_decided = np.asarray(transitions.learner)
        highest = mask.shape[-1] - 1 - np.argmax(mask[..., ::-1], axis=-1)
        lowest = np.argmax(mask, axis=-1)
        choice = mask.sum(axis=-1) > 1  # a decision with a single legal action tells nothing
        np.testing.assert_array_equal(action[learner_decided], highest[learner_decided])
        np.testing.assert_array_equal(action[~learner_decided], lowest[~learner_decided])
        # the self-play slots are the learner's alone; the pool slots mix the two
        assert learner_decided[:, : trainer.self_play_slots].all()
        seen["learner"] += int((learner_decided & choice)[:, trainer.self_play_slots :].sum())
        seen["snapshot"] += int((~learner_decided & choice).sum())
    assert seen["learner"] > 0 and seen["snapshot"] > 0


def test_the_pool_is_refreshed_with_the_learner_on_schedule(trainer):
    runner = trainer.init(seed_key(7))
    first = jax.tree_util.tree_map(np.asarray, runner.pool)
    after_one, *_ = trainer.train_updates(runner, jnp.int32(1))
    after_two, *_ = trainer.train_updates(after_one, jnp.int32(1))
    for stack, initial in zip(jax.tree_util.tree_leaves(after_one.pool), jax.tree_util.tree_leaves(first), strict=True):
        np.testing.assert_array_equal(np.asarray(stack), initial)  # not due after one update
    learner = after_two.params["params"]
    for name, layer in after_two.pool.items():
        for part in ("kernel", "bias"):
            np.testing.assert_array_equal(np.asarray(layer[part][0]), np.asarray(learner[name][part]))
            np.testing.assert_array_equal(np.asarray(layer[part][1]), first[name][part][1])
    assert not np.array_equal(np.asarray(after_two.pool["actor_0"]["kernel"][0]), first["actor_0"]["kernel"][0])


def test_the_evaluation_plays_random_and_the_pool_to_the_end(trainer):
    runner = trainer.init(seed_key(8))
    row = trainer.evaluation(runner)
    assert row["eval_unfinished"] == 0
    for key in ("eval_win_rate", "eval_draw_rate", "eval_pool_win_rate", "eval_pool_draw_rate"):
        assert 0.0 <= row[key] <= 1.0
    assert row["eval_win_rate"] + row["eval_draw_rate"] <= 1.0


# --------------------------------------------------------------------------- credit between turns


def test_rewards_between_a_seats_turns_are_credited_to_its_previous_decision():
    # one game, two seats: seat 0 decides at step 0, seat 1 at steps 1 and 2, seat 0 at step 3,
    # then seat 1 at step 4 ends the game. Rewards: seat 0 gets 0.25 on seat 1's step 1 and 1.0
    # when seat 1 ends the game (step 4); seat 1 gets 0.5 on its own step 2 and -1.0 at the end.
    seat = jnp.array([[0], [1], [1], [0], [1]])
    value = jnp.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    rewards = jnp.zeros((5, 1, 2)).at[1, 0, 0].set(0.25).at[2, 0, 1].set(0.5).at[4, 0, 0].set(1.0).at[4, 0, 1].set(-1.0)
    done = jnp.array([[False], [False], [False], [False], [True]])
    last = jnp.array([[9.0, 9.0]])  # never read: the game ended inside the rollout
    gamma, lam = 0.9, 0.8
    advantages, targets = seat_advantages(seat, value, rewards, done, last, gamma, lam)
    a = np.asarray(advantages)[:, 0]
    # seat 0: decision 0 earns 0.25 (step 1) before its next decision (step 3), which earns 1.0
    d3 = 1.0 + 0.0 - 0.4
    d0 = 0.25 + gamma * 0.4 - 0.1
    # seat 1: step 1 earns nothing before step 2; step 2 earns 0.5 before step 4; step 4 ends it
    d4 = -1.0 - 0.5
    d2 = 0.5 + gamma * 0.5 - 0.3
    d1 = 0.0 + gamma * 0.3 - 0.2
    expected = [
        d0 + gamma * lam * d3,
        d1 + gamma * lam * (d2 + gamma * lam * d4),
        d2 + gamma * lam * d4,
        d3,
        d4,
    ]
    np.testing.assert_allclose(a, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(targets)[:, 0], np.asarray(expected) + np.asarray(value)[:, 0], rtol=1e-5, atol=1e-6
    )


def test_a_seat_still_waiting_when_the_rollout_stops_is_bootstrapped_from_its_own_view():
    # seat 0 decides at step 0, seat 1 at step 1; the rollout stops. Seat 1's reward at step 1
    # (0.5 to seat 0) goes to seat 0's decision, bootstrapped by seat 0's value of the last state
    seat = jnp.array([[0], [1]])
    value = jnp.array([[0.1], [0.2]])
    rewards = jnp.zeros((2, 1, 2)).at[1, 0, 0].set(0.5)
    done = jnp.zeros((2, 1), bool)
    last = jnp.array([[0.7, -0.3]])
    advantages, _ = seat_advantages(seat, value, rewards, done, last, 1.0, 1.0)
    np.testing.assert_allclose(np.asarray(advantages)[:, 0], [0.5 + 0.7 - 0.1, -0.3 - 0.2], rtol=1e-6)


def test_a_game_ending_cuts_the_credit_of_the_next_game():
    # the game ends at step 1; step 2 is the next game's first decision, whose reward must not
    # reach the decisions of the game before
    seat = jnp.array([[0], [1], [0]])
    value = jnp.zeros((3, 1))
    rewards = jnp.zeros((3, 1, 2)).at[1, 0, 0].set(1.0).at[1, 0, 1].set(-1.0).at[2, 0, 0].set(5.0).at[2, 0, 1].set(5.0)
    done = jnp.array([[False], [True], [False]])
    last = jnp.array([[0.0, 0.0]])
    advantages, _ = seat_advantages(seat, value, rewards, done, last, 1.0, 1.0)
    np.testing.assert_allclose(np.asarray(advantages)[:, 0], [1.0, -1.0, 5.0], rtol=1e-6)


# --------------------------------------------------------------------------- a best response


def test_a_best_response_plays_against_the_frozen_policy_only(run, tmp_path):
    out, _ = run
    frozen = out / "policy.npz"
    config = tiny_config(
        **{"self_play.share": 0.0, "self_play.refresh_updates": 0, "self_play.opponent_policy": str(frozen)}
    )
    built = make_trainer(config)
    assert built.self_play_slots == 0 and built.slots_per_snapshot == 4
    runner = built.init(seed_key(9))
    policy = policy_files.load_policy(frozen)
    for index, (kernel, bias) in enumerate(policy.layers):
        for slot in range(built.pool_size):
            np.testing.assert_array_equal(np.asarray(runner.pool[f"actor_{index}"]["kernel"][slot]), kernel)
            np.testing.assert_array_equal(np.asarray(runner.pool[f"actor_{index}"]["bias"][slot]), bias)
    assert built.refreshed_pool(runner.pool, runner.params, jnp.int32(10)) is runner.pool


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"self_play.share": 1.5}, "self_play.share must be in"),
        ({"self_play.pool_size": 0}, "self_play.pool_size"),
        ({"self_play.refresh_updates": -1}, "self_play.refresh_updates"),
        ({"self_play.opponent_policy": "x.npz"}, "set self_play.share = 0"),
    ],
)
def test_self_play_config_errors_are_clear(changes, message):
    with pytest.raises(ValueError, match=message):
        tiny_config(**changes)


def test_trainers_refuse_what_they_cannot_train(tmp_path):
    with pytest.raises(ValueError, match="one-seat game"):
        Trainer(load_jax_config(None, [("self_play.pool_size", 2)]))
    with pytest.raises(ValueError, match="make_trainer"):
        Trainer(tiny_config())
    with pytest.raises(ValueError, match="mask_in_observation is for one-seat games"):
        make_trainer(tiny_config(mask_in_observation=True))
    with pytest.raises(ValueError, match="fewer than one each"):
        make_trainer(tiny_config(**{"self_play.pool_size": 8}))
    with pytest.raises(ValueError, match="no policy file"):
        make_trainer(
            tiny_config(
                **{
                    "self_play.share": 0.0,
                    "self_play.refresh_updates": 0,
                    "self_play.opponent_policy": str(tmp_path / "x.npz"),
                }
            )
        )


def test_the_shipped_map_duel_config_builds_a_self_play_trainer():
    config = load_jax_config("jax/map_duel")
    assert config.env_id == DUEL and config.self_play.pool_size >= 1
    assert isinstance(checked_trainer(config), SelfPlayTrainer)


# --------------------------------------------------------------------------- several devices


def test_the_games_are_split_over_every_local_device(tmp_path):
    """Two host devices (XLA's flag): the games' states are split between them and a short run
    trains to finite parameters. A fresh process, since the flag acts when jax starts."""
    script = textwrap.dedent(
        f"""
        import json, sys
        import jax, jax.numpy as jnp, numpy as np
        from empire_envs.adapters.jax_env import seed_key
        from empire_envs.training.jax_config import load_jax_config
        from empire_envs.training.jax_trainers import make_trainer
        config = load_jax_config(None, {TINY!r})
        trainer = make_trainer(config)
        runner = trainer.place(trainer.init(seed_key(0)))
        runner, rollout, losses = trainer.train_updates(runner, jnp.int32(2))
        state = runner.env_state.terminated
        finite = all(bool(np.isfinite(np.asarray(leaf)).all()) for leaf in jax.tree_util.tree_leaves(runner.params))
        print(json.dumps({{
            "devices": jax.local_device_count(),
            "state_devices": len(state.sharding.device_set),
            "shard_rows": sorted(shard.data.shape[0] for shard in state.addressable_shards),
            "params_devices": len(jax.tree_util.tree_leaves(runner.params)[0].sharding.device_set),
            "finite": finite,
            "episodes": float(rollout.episodes),
        }}))
        """
    )
    # the session's XLA flags (tests/conftest.py) are kept, the device count added
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=2".strip()
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["devices"] == 2 and report["state_devices"] == 2
    assert report["shard_rows"] == [4, 4]
    assert report["params_devices"] == 2  # a copy on each
    assert report["finite"]
