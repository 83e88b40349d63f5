"""The batched speed harness (``python -m empire_envs bench --batched``) measures what it says:
random actions that are legal and uniform, finished games dealt again, steps counted per game."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from empire_envs.cli import main as cli_main  # noqa: E402
from empire_envs.evaluation import batched_speed, speed  # noqa: E402


def test_random_legal_actions_are_legal_and_uniform():
    mask = jnp.asarray(
        [
            [False, True, False, True, True],
            [True, False, False, False, False],
            [False, False, False, False, True],
        ]
    )
    draws = jax.jit(jax.vmap(batched_speed.random_legal_actions, in_axes=(0, None)))(
        jax.random.split(jax.random.PRNGKey(0), 3000), mask
    )
    draws = np.asarray(draws)
    assert np.asarray(mask)[np.arange(3)[None, :], draws].all(), "an illegal action was drawn"
    counts = np.bincount(draws[:, 0], minlength=5)
    assert counts[[0, 2]].sum() == 0 and (np.abs(counts[[1, 3, 4]] - 1000) < 120).all(), counts
    assert (draws[:, 1] == 0).all() and (draws[:, 2] == 4).all()


def test_steps_per_call_keeps_a_call_near_65k_decisions():
    assert [batched_speed.steps_per_call(n) for n in (1, 64, 1024, 4096, 100_000)] == [4096, 1024, 64, 16, 16]


def test_measure_counts_every_game_step_and_deals_finished_games_again():
    """A Climb game (one seat) ends within 12 to 23 decisions, so in a call of
    ``steps_per_call(8)`` batched steps every slot finishes many games, each dealt again. (A real
    twin runs through the harness in the ``--profile`` and Map Duel tests below.)"""
    figures = batched_speed.measure(_Climb(), 8, seconds=0.0, seed=0)
    length = batched_speed.steps_per_call(8)
    assert figures["steps"] == length * 8  # one timed call
    assert 8 * (length // 23) <= figures["games"] <= 8 * (length // 12)
    assert figures["steps_per_second"] > 0 and figures["compile_seconds"] > 0


def test_bench_batched_refuses_the_python_row_selector(capsys):
    assert cli_main(["bench", "--batched", "--only", "solo"]) != 0
    assert "--only selects rows of the Python benchmark" in capsys.readouterr().err


def test_bench_batched_profile_prints_each_part_and_the_state_size(capsys):
    # Empire solo: its harness parts compile in a third of the time Solitaire's take (the
    # Solitaire deal loops until a capture is possible)
    assert cli_main(["bench", "--batched", "--profile", "--env", "EmpireSolo-v0", "--batch-sizes", "8"]) == 0
    out = capsys.readouterr().out
    assert "EmpireSolo-v0 at N=8: state 1,135 bytes per game" in out
    for part in ("sampler", "step", "reset_finished", "deals (init)", "observe"):
        assert re.search(rf"^  {re.escape(part)} +\d+\.\d+ ms per batched step", out, flags=re.M), part


# --------------------------------------------------------------------------- games of several seats


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class _RaceState:
    """Race to 7: two seats take turns adding 1 or 2 to a count; who brings it to 7 or more wins."""

    count: jax.Array
    current_player: jax.Array
    rewards: jax.Array
    legal_action_mask: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    step_count: jax.Array

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)


class _Race:
    """A pgx-style env of two seats, as small as a game gets: what the harness needs of one."""

    num_players = 2

    def init(self, key):
        return _RaceState(
            count=jnp.int32(0),
            current_player=jax.random.bernoulli(key).astype(jnp.int32),
            rewards=jnp.zeros(2, dtype=jnp.float32),
            legal_action_mask=jnp.ones(2, dtype=jnp.bool_),
            terminated=jnp.bool_(False),
            truncated=jnp.bool_(False),
            step_count=jnp.int32(0),
        )

    def step(self, state, action, key):
        count = state.count + action + 1
        won = count >= 7
        mover = jnp.arange(2) == state.current_player
        return state.replace(
            count=count,
            current_player=jnp.where(won, state.current_player, 1 - state.current_player),
            rewards=jnp.where(won, jnp.where(mover, 1.0, -1.0), 0.0).astype(jnp.float32),
            terminated=won,
            step_count=state.step_count + 1,
        )


class _Climb(_Race):
    """Climb to 23: one seat adds 1 or 2 to a count until it reaches 23 or more (a win)."""

    num_players = 1

    def init(self, key):
        return super().init(key).replace(current_player=jnp.int32(0), rewards=jnp.zeros(1, dtype=jnp.float32))

    def step(self, state, action, key):
        count = state.count + action + 1
        won = count >= 23
        return state.replace(
            count=count,
            rewards=jnp.where(won, 1.0, 0.0)[None].astype(jnp.float32),
            terminated=won,
            step_count=state.step_count + 1,
        )


def test_the_harness_plays_a_game_of_two_seats():
    """A step is one decision of the seat to act, rewards ``[N, 2]``: a Race game lasts 4 to 7
    decisions, so in a call each of the 8 slots finishes a game every 4 to 7 steps."""
    figures = batched_speed.measure(_Race(), 8, seconds=0.0, seed=0)
    length = batched_speed.steps_per_call(8)
    assert figures["steps"] == length * 8
    assert 8 * (length // 7) <= figures["games"] <= 8 * (length // 4)
    assert batched_speed.state_bytes_of(_Race()) == 4 + 4 + 8 + 2 + 1 + 1 + 4


def test_the_python_env_column_plays_each_game_through_its_own_api():
    """A one-seat twin's Python env is its ``gymnasium.make`` env, a game of several seats its
    AEC env (``speed.bench_env_masked``, as ``bench`` times the ``gym_<key>`` / ``pz_<key>`` rows)."""
    assert batched_speed.python_api("empire_envs/EmpireSolo-v0") == "gymnasium.make"
    assert batched_speed.python_api("empire_envs/MapDuel-v0") == "empire_envs.make AEC"
    figures = speed.bench_env_masked("empire_envs/MapDuel-v0")(0.05, 0)
    assert figures["steps"] >= 256  # the clock is read every 256 decisions within a game


def test_bench_batched_measures_map_duel_beside_its_aec_env_and_prints_the_state_bytes(tmp_path, capsys):
    """The Map Duel twin (two seats) in the compiled harness on a tiny run, its PettingZoo AEC
    env in the Python env column, and every subject's state size in the table."""
    out = tmp_path / "batched.json"
    argv = ["bench", "--batched", "--env", "MapDuel-v0", "--peers", "", "--batch-sizes", "4", "--seconds", "0.01"]
    assert cli_main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    figures = report["results"]["MapDuel-v0"]["4"]
    assert figures["steps"] == batched_speed.steps_per_call(4) * 4 and figures["games"] > 0
    assert report["seats"] == {"MapDuel-v0": 2}
    size = report["state_bytes"]["MapDuel-v0"]
    assert size == batched_speed.state_bytes("empire_envs/MapDuel-v0") > 0
    assert report["python_env"]["MapDuel-v0"]["api"] == "empire_envs.make AEC"
    assert report["python_env"]["MapDuel-v0"]["steps"] > 0
    assert "MapDuel-v0 at N=1 / its Python env" not in report["ratios"]  # N=1024 was not run
    assert "MapDuel-v0 best batch / its Python env" in report["ratios"]
    assert f"MapDuel-v0                       2 seat(s), state {size:,} bytes per game" in printed
    assert re.search(
        rf"^\| MapDuel-v0 \(JAX twin\) \| [\d,]+ \| [\d.]+ s( \(cached\))? \| 2 \| {size:,} \|$", printed, re.M
    )
    assert re.search(
        r"^\| MapDuel-v0, Python env \(one empire_envs.make AEC env\) \| [\d,]+ \|  \| 2 \|  \|$", printed, re.M
    )


def test_the_ratios_are_taken_at_n_1024_against_the_python_env_and_the_pgx_peers():
    def figures(rate):
        return {"steps_per_second": rate, "compile_seconds": 1.0}

    results = {
        "MapDuel-v0": {"64": figures(100.0), "1024": figures(300.0)},
        "pgx/connect_four": {"1024": figures(600.0)},
        "pgx/backgammon": {"1024": figures(150.0)},
    }
    ratios = batched_speed.twin_ratios(["MapDuel-v0"], results, {"MapDuel-v0": {"steps_per_second": 10.0}})
    assert ratios == {
        "MapDuel-v0 at N=1024 / its Python env": 30.0,
        "MapDuel-v0 / pgx/connect_four at N=1024": 0.5,
        "MapDuel-v0 / pgx/backgammon at N=1024": 2.0,
        "MapDuel-v0 best batch / its Python env": 30.0,
    }
