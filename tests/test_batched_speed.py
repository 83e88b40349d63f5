"""The batched speed harness (``python -m empire_envs bench --batched``) measures what it says:
random actions that are legal and uniform, finished games dealt again, steps counted per game."""

from __future__ import annotations

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import empire_envs.jax as empire_jax  # noqa: E402
from empire_envs.cli import main as cli_main  # noqa: E402
from empire_envs.evaluation import batched_speed  # noqa: E402


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
    """Solitaire ends within 23 decisions (18 captures at most, then the stock), so in a call of
    ``steps_per_call(8)`` batched steps every slot finishes many games, each dealt again."""
    env = empire_jax.make("EmpireSolitaire-v0")
    figures = batched_speed.measure(env, 8, seconds=0.0, seed=0)
    length = batched_speed.steps_per_call(8)
    assert figures["steps"] == length * 8  # one timed call
    assert figures["games"] >= length * 8 // 23
    assert figures["steps_per_second"] > 0 and figures["compile_seconds"] > 0


def test_bench_batched_refuses_the_python_row_selector(capsys):
    assert cli_main(["bench", "--batched", "--only", "solo"]) != 0
    assert "--only selects rows of the Python benchmark" in capsys.readouterr().err


def test_bench_batched_profile_prints_each_part_and_the_state_size(capsys):
    assert cli_main(["bench", "--batched", "--profile", "--env", "EmpireSolitaire-v0", "--batch-sizes", "8"]) == 0
    out = capsys.readouterr().out
    assert "EmpireSolitaire-v0 at N=8: state 1,528 bytes per game" in out
    for part in ("sampler", "step", "reset_finished", "deals (init)"):
        assert re.search(rf"^  {re.escape(part)} +\d+\.\d+ ms per batched step", out, flags=re.M), part
