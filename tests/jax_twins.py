"""Lockstep play of the JAX twins and the Python rules, for the differential tests.

``play_lockstep`` deals a batch of games with the JAX env (``empire_envs.jax.make``), gives the
Python rules the same deals (the ``deck`` reset option, as the twin's ``python_deck`` writes it),
then plays every game to its end on both sides at once: a policy picks each action from the
Python side's view, the twin steps the whole batch in one compiled call, and the Python rules
step each game with every mid-game reshuffle preset to the order the twin drew
(``core.rng.PresetOrders``). At every step it compares, per game, the observation, the mask, the
reward, terminated / truncated and the outcome name, and raises ``Mismatch`` at the first
difference with the deal, the step and the field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import empire_envs.jax as empire_jax
from empire_envs.core.rng import PresetOrders
from empire_envs.registry import entry, game_entry

#: a policy: (Python state, its mask, game index, numpy generator) -> action
Policy = Callable[[Any, np.ndarray, int, np.random.Generator], int]


class Mismatch(AssertionError):
    """The twin and the Python rules disagree."""


@dataclass
class LockstepReport:
    games: int = 0
    steps: int = 0
    reshuffles: int = 0
    outcomes: Counter = field(default_factory=Counter)


@cache
def compiled(env_id: str, batch: int, **config: Any) -> tuple[Any, Any, Any]:
    """The JAX env of an id and its batched init and step, compiled once per session."""
    env = empire_jax.make(env_id, **config)
    return env, jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))


def python_rules(env_id: str) -> tuple[Any, Any]:
    """The Python ``Game`` record of an id and its config (registered kwargs applied)."""
    item = entry(env_id)
    record = game_entry(item.game).load()
    return record, record.config_class(**item.kwargs)


def random_policy(state: Any, mask: np.ndarray, index: int, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def agent_policy(make_agent: Callable[[], Any]) -> Policy:
    """A policy that asks one agent per game (``agent.act(observation, mask, state)``)."""
    agents: dict[int, Any] = {}

    def act(state: Any, mask: np.ndarray, index: int, rng: np.random.Generator) -> int:
        if index not in agents:
            agents[index] = make_agent()
            agents[index].reset(index)
        record = _record_of(state)
        return int(agents[index].act(record.observe(state, 0), mask, state))

    return act


def _record_of(state: Any) -> Any:
    from empire_envs.registry import game_of_state

    return game_of_state(state)


def _host(state: Any) -> Any:
    """The batch as numpy arrays: indexing them per game is free, indexing device arrays is not."""
    return jax.tree_util.tree_map(np.asarray, state)


def _leaf(state: Any, index: int) -> Any:
    return jax.tree_util.tree_map(lambda leaf: leaf[index], state)


def play_lockstep(env_id: str, policy: Policy, games: int, seed: int, batch: int = 100) -> LockstepReport:
    """Play ``games`` games of ``env_id`` on both sides (batches of ``batch``); raise ``Mismatch``
    at the first difference."""
    report = LockstepReport()
    for first in range(0, games, batch):
        _play_batch(env_id, policy, min(batch, games - first), seed + first, report, batch)
    return report


def _play_batch(env_id: str, policy: Policy, count: int, seed: int, report: LockstepReport, batch: int) -> None:
    env, init, step = compiled(env_id, batch)
    record, config = python_rules(env_id)
    twin = env.rules
    keys = jax.random.split(jax.random.PRNGKey(seed), batch)
    state = init(keys)
    rng = np.random.default_rng(seed)
    pythons = []
    host = _host(state)
    for index in range(count):
        deal = twin.python_deck(_leaf(host, index))
        pythons.append((deal, record.new_game(config, np.random.default_rng(0), deck=deal)))
    live = np.zeros(batch, dtype=bool)
    live[:count] = True
    step_key = jax.random.PRNGKey(seed + 10**6)
    number = 0
    while live.any():
        observation = np.asarray(state.observation)
        mask = np.asarray(state.legal_action_mask)
        actions = np.zeros(batch, dtype=np.int32)
        for index in np.flatnonzero(live):
            deal, python = pythons[index]
            where = f"{env_id} deal {deal} (seed {seed}, game {index}), step {number}"
            _same("observation", record.observe(python, 0), observation[index], where)
            _same("legal mask", record.legal_mask(python).astype(bool), mask[index], where)
            actions[index] = policy(python, record.legal_mask(python), index, rng)
        keys = jax.random.split(jax.random.fold_in(step_key, number), batch)
        after = step(state, jnp.asarray(actions), keys)
        host_before, host_after = _host(state), _host(after)
        rewards = np.asarray(after.rewards)[:, 0]
        terminated, truncated = np.asarray(after.terminated), np.asarray(after.truncated)
        outcomes = np.asarray(after.outcome)
        for index in np.flatnonzero(live):
            deal, python = pythons[index]
            where = f"{env_id} deal {deal} (seed {seed}, game {index}), step {number}, action {actions[index]}"
            preset = PresetOrders(twin.reshuffle_orders(_leaf(host_before, index), _leaf(host_after, index)))
            report.reshuffles += preset.unused
            (reward,) = record.apply_action(python, int(actions[index]), preset)
            if preset.unused:
                raise Mismatch(f"{where}: the twin reshuffled and the Python rules did not")
            _same_reward(reward, rewards[index], where)
            python_truncated = record.is_terminal(python) and record.is_truncated(python)
            python_terminated = record.is_terminal(python) and not python_truncated
            _same("terminated", python_terminated, bool(terminated[index]), where)
            _same("truncated", python_truncated, bool(truncated[index]), where)
            name = twin.outcome_names[int(outcomes[index])]
            _same("outcome", record.outcome(python), name, where)
            if python_terminated or python_truncated:
                live[index] = False
                report.games += 1
                report.outcomes[name] += 1
        report.steps += int(live.sum())
        state = after
        number += 1


def _same(name: str, python: Any, twin: Any, where: str) -> None:
    if isinstance(python, np.ndarray):
        if python.shape == twin.shape and np.array_equal(python, twin):
            return
        differ = (
            np.flatnonzero(python.reshape(-1) != np.asarray(twin).reshape(-1))[:5] if python.shape == twin.shape else []
        )
        raise Mismatch(f"{where}: {name} differs at {list(differ)}: Python {python[differ]} vs twin {twin[differ]}")
    if python != twin:
        raise Mismatch(f"{where}: {name} differs: Python {python!r} vs twin {twin!r}")


def _same_reward(python: float, twin: float, where: str) -> None:
    """Rewards are float32 on the twin: equal to Python's after rounding to float32, except that
    capped shaping sums in float32 may part from float64 sums by one unit in the last place."""
    if np.float32(python) == np.float32(twin):
        return
    if abs(float(np.float32(python)) - float(twin)) <= 1e-6:
        return
    raise Mismatch(f"{where}: reward differs: Python {python!r} vs twin {float(twin)!r}")
