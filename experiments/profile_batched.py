"""Where a batched step of each JAX twin spends its time: the parts of the benchmark's harness
(``empire_envs.evaluation.batched_speed``) timed one by one at one batch size.

Usage (from the repository root; needs the jax extra)::

    python experiments/profile_batched.py [--num-envs 1024] [--env EmpireSolo-v0 ...]

Each part runs 64 times inside one compiled ``lax.scan`` and its best of five runs is printed per
batched step: the action sampler, the env's ``step`` (rules, observation and mask included),
``reset_finished`` with a typical share of finished games, and the
deals it makes (``init`` of ``num_envs // 8`` games). The state's size per game is printed too:
every step reads and writes all of it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import empire_envs.jax as empire_jax
from empire_envs.adapters.jax_env import reset_finished
from empire_envs.evaluation.batched_speed import random_legal_actions

SCANNED, ROUNDS = 64, 5


def best_time(state: Any, body: Callable[[tuple[Any, Any]], tuple[Any, Any]]) -> float:
    """Seconds per scanned step of ``body``, the best of ``ROUNDS`` compiled runs."""
    run = jax.jit(lambda state, key: jax.lax.scan(lambda carry, _: (body(carry), None), (state, key), None, SCANNED))
    jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        jax.block_until_ready(run(state, jax.random.PRNGKey(1)))
        best = min(best, (time.perf_counter() - start) / SCANNED)
    return best


def profile(env_id: str, num_envs: int, finished_share: float) -> dict[str, float]:
    env = empire_jax.make(env_id)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), num_envs))

    def sampler(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, pick = jax.random.split(key)
        actions = random_legal_actions(pick, state.legal_action_mask)
        return state.replace(step_count=state.step_count + actions), key

    def step(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, pick, keys = jax.random.split(key, 3)
        actions = random_legal_actions(pick, state.legal_action_mask)
        after = jax.vmap(env.step)(state, actions, jax.random.split(keys, num_envs))
        # keep the games as they were (so that none finishes), but use every output entry, lest
        # XLA skip computing the unused ones
        return state.replace(step_count=state.step_count + _checksum(after)), key

    def reset(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, flags, deal = jax.random.split(key, 3)
        finished = jax.random.uniform(flags, (num_envs,)) < finished_share
        fresh = reset_finished(env, state.replace(terminated=finished), deal, max(1, num_envs // 8))
        return fresh.replace(terminated=state.terminated), key

    def deal(carry: tuple[Any, Any]) -> tuple[Any, Any]:
        state, key = carry
        key, deal = jax.random.split(key)
        fresh = jax.vmap(env.init)(jax.random.split(deal, max(1, num_envs // 8)))
        used = sum(
            leaf.reshape(leaf.shape[0], -1)[:, 0].astype(jnp.int32).sum() for leaf in jax.tree_util.tree_leaves(fresh)
        )
        return state.replace(step_count=state.step_count + (used > 10**9).astype(jnp.int32)), key

    parts = {"sampler": sampler, "step": step, "reset_finished": reset, "deals (init)": deal}
    return {name: best_time(state, body) for name, body in parts.items()}


def _checksum(batch: Any) -> jax.Array:
    """Per game, 0 computed from every entry of every field (so that all of them are computed)."""
    total = sum(
        leaf.reshape(leaf.shape[0], -1).astype(jnp.float32).sum(axis=1) for leaf in jax.tree_util.tree_leaves(batch)
    )
    return (total > 10**9).astype(jnp.int32)


def state_bytes(env_id: str) -> int:
    env = empire_jax.make(env_id)
    state = jax.eval_shape(env.init, jax.random.PRNGKey(0))
    return sum(int(np.prod(leaf.shape)) * np.dtype(leaf.dtype).itemsize for leaf in jax.tree_util.tree_leaves(state))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--env", action="append", help="twin id (repeat; default: every twin's first variant)")
    parser.add_argument("--finished-share", type=float, default=1 / 17, help="games finishing per step")
    args = parser.parse_args(argv)
    ids = args.env or ["EmpireSolo-v0", "EmpireSolitaire-v0"]
    for env_id in ids:
        times = profile(env_id, args.num_envs, args.finished_share)
        print(f"{env_id} at N={args.num_envs}: state {state_bytes(env_id):,} bytes per game")
        for name, seconds in times.items():
            per_game = seconds / args.num_envs * 1e9
            print(f"  {name:<16} {seconds * 1e3:7.3f} ms per batched step  ({per_game:7.1f} ns per game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
