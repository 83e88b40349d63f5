"""Lockstep play of the JAX twins and the Python rules, for the differential tests, for any
number of seats.

``play_lockstep`` deals a batch of games with the JAX env (``empire_envs.jax.make``), gives the
Python rules the same deals (the ``deck`` reset option, as the twin's ``python_deck`` writes it,
and the deal's own draws, a random first player, from the twin's ``python_draws``), then plays
every game to its end on both sides at once: a policy picks each action from the Python side's
state for the seat to act, the twin steps the whole batch in one compiled call, and the Python
rules step each game with every random draw preset to what the twin drew (a coin or an integer
through ``core.rng.PresetDraws``; a one-seat game's mid-game reshuffles through
``core.rng.PresetOrders``).

What is compared, per game (``Mismatch`` at the first difference, naming the id, the seed, the
game, the step and the field):

- before every step: the observation of EVERY seat (the twin's ``env.observe(state, seat)``,
  all seats of the batch in one compiled call, against the Python ``observe(state, seat)``: a
  wrong rotation or a leak shows in a seat that is not to act), ``state.observation`` against
  the twin's own view of the seat to act, the legal mask, and ``current_player`` against the
  Python rules' ``acting_player``;
- every step: each seat's reward, ``terminated``, ``truncated``, the outcome name, and that the
  draws preset for the Python rules were all used (a coin one side flipped and the other did not
  is a difference either way: the Python rules raise on a draw with nothing preset);
- after the last step of a game: the observation of every seat once more, ``state.observation``
  against the twin's view of the seat ``current_player`` names, and the all-ones mask.

``Twin`` holds an env's compiled batched functions; ``compiled`` makes one per id, batch size
and variant flags (once per session). The scripted tests build positions in Python, convert them
with the twin's ``from_python`` and use ``check_position`` and ``check_step`` directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import empire_envs.jax as empire_jax
from empire_envs.core.rng import PresetDraws, PresetOrders
from empire_envs.registry import NAMESPACE

#: a policy: (Python state, its mask, seat to act, game index, numpy generator) -> action
Policy = Callable[[Any, np.ndarray, int, int, np.random.Generator], int]


class Mismatch(AssertionError):
    """The twin and the Python rules disagree."""


@dataclass
class LockstepReport:
    games: int = 0
    steps: int = 0
    reshuffles: int = 0
    #: coins the twin flipped (and handed to the Python rules, which flipped them too)
    coins: int = 0
    outcomes: Counter = field(default_factory=Counter)

    def __add__(self, other: LockstepReport) -> LockstepReport:
        return LockstepReport(
            self.games + other.games,
            self.steps + other.steps,
            self.reshuffles + other.reshuffles,
            self.coins + other.coins,
            self.outcomes + other.outcomes,
        )


@dataclass(frozen=True)
class Twin:
    """A JAX env and its batched functions, compiled for batches of ``batch`` games. Each field
    is a plain callable, so a test can plant a difference by replacing one
    (``dataclasses.replace``) without compiling anything again."""

    env: Any
    batch: int
    #: keys ``[batch, 2]`` -> states
    init: Callable[[jax.Array], Any]
    #: (states, actions ``int32[batch]``, keys) -> states
    step: Callable[[Any, jax.Array, jax.Array], Any]
    #: states -> ``float32[batch, num_players, observation_size]``: every seat's view
    observe_seats: Callable[[Any], jax.Array]
    #: the twin's ``python_draws`` (None for a game whose only draws are reshuffles)
    python_draws: Callable[[Any, Any], Any] | None
    #: the twin's ``reshuffle_orders``
    reshuffle_orders: Callable[[Any, Any], list[list[int]]]

    @property
    def record(self) -> Any:
        """The Python rules' ``Game`` record."""
        return self.env.rules.game

    @property
    def config(self) -> Any:
        """The Python config of the twin (registered kwargs and flags applied)."""
        return self.env.rules.config

    @property
    def num_players(self) -> int:
        return self.env.num_players


def compile_twin(env: Any, batch: int, step_options: dict[str, Any] | None = None) -> Twin:
    """The batched, jitted functions of ``env`` (nothing is compiled before the first call).
    ``step_options``: XLA options for the step and the every-seat view (``jax.jit``'s
    ``compiler_options``), e.g. the backend optimisation level for programs whose run time
    outweighs their compile time in a long lockstep (the suite compiles at level 0,
    ``conftest.TEST_XLA_FLAGS``); the deal keeps the suite's options (it runs once a batch)."""
    seats = jnp.arange(env.num_players, dtype=jnp.int32)
    # the seat is traced here (an int32 array): observe takes a seat inside jit
    every_seat = jax.vmap(jax.vmap(env.observe, in_axes=(None, 0)), in_axes=(0, None))
    return Twin(
        env=env,
        batch=batch,
        init=jax.jit(jax.vmap(env.init)),
        step=jax.jit(jax.vmap(env.step), compiler_options=step_options),
        observe_seats=jax.jit(lambda state: every_seat(state, seats), compiler_options=step_options),
        python_draws=env.rules.python_draws,
        reshuffle_orders=env.rules.reshuffle_orders,
    )


def compiled(
    env_id: str,
    batch: int,
    flags: tuple[tuple[str, Any], ...] = (),
    step_options: dict[str, Any] | None = None,
) -> Twin:
    """The twin of an id with variant ``flags`` (``(name, value)`` pairs, ``as_flags``), compiled
    once per session for each batch size, flags and ``step_options`` (``compile_twin``), however
    the arguments are passed."""
    full = env_id if "/" in env_id else f"{NAMESPACE}/{env_id}"
    options = None if step_options is None else tuple(sorted(step_options.items()))
    return _compiled(full, int(batch), tuple(sorted(flags)), options)


@cache
def _compiled(
    env_id: str, batch: int, flags: tuple[tuple[str, Any], ...], options: tuple[tuple[str, Any], ...] | None
) -> Twin:
    return compile_twin(empire_jax.make(env_id, **dict(flags)), batch, None if options is None else dict(options))


def views_of_the_seat_to_act(observe_seats: Callable[[Any], jax.Array]) -> Callable[[Any], jax.Array]:
    """A planted difference for the lockstep's own tests: every seat shown the view of the seat to
    act, as a twin that forgot to turn the view for the other seats would."""

    def planted(state: Any) -> jax.Array:
        views = observe_seats(state)
        acting = jnp.take_along_axis(views, state.current_player[:, None, None].astype(jnp.int32), axis=1)
        return jnp.broadcast_to(acting, views.shape)

    return planted


def as_flags(config: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Variant flags as ``compiled`` keys them."""
    return tuple(sorted(config.items()))


# --------------------------------------------------------------------------- policies


def random_policy(state: Any, mask: np.ndarray, seat: int, index: int, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def agent_policy(make_agent: Callable[[], Any]) -> Policy:
    """A policy that asks one agent per game and seat (``agent.act(observation, mask, state)``,
    the observation that seat's, ``record.observe(state, seat)``)."""
    agents: dict[tuple[int, int], Any] = {}

    def act(state: Any, mask: np.ndarray, seat: int, index: int, rng: np.random.Generator) -> int:
        if (index, seat) not in agents:
            agents[index, seat] = make_agent()
            agents[index, seat].reset(index + 1_000_003 * seat)
        record = _record_of(state)
        return int(agents[index, seat].act(record.observe(state, seat), mask, state))

    return act


def seat_policies(*policies: Policy) -> Policy:
    """A policy that plays ``policies[seat]`` for each seat (heuristic against random...)."""

    def act(state: Any, mask: np.ndarray, seat: int, index: int, rng: np.random.Generator) -> int:
        return policies[seat](state, mask, seat, index, rng)

    return act


def _record_of(state: Any) -> Any:
    from empire_envs.registry import game_of_state

    return game_of_state(state)


# --------------------------------------------------------------------------- host views


def _host(state: Any) -> Any:
    """The batch as numpy arrays: indexing them per game is free, indexing device arrays is not."""
    return jax.tree_util.tree_map(np.asarray, state)


def _leaf(state: Any, index: int) -> Any:
    """One game of a host batch, as a state of the twin's class."""
    return jax.tree_util.tree_map(lambda leaf: leaf[index], state)


class _Row:
    """One game of a host batch, read field by field (cheaper than ``_leaf`` for the per-step
    draws, which read a field or two)."""

    def __init__(self, host: Any, index: int) -> None:
        self._host, self._index = host, index

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._host, name)
        # a nested state (a Pillars campaign's current game) is read field by field as well
        return value[self._index] if isinstance(value, np.ndarray) else _Row(value, self._index)


# --------------------------------------------------------------------------- play


def play_lockstep(
    env_id: str,
    policy: Policy,
    games: int,
    seed: int,
    batch: int = 100,
    flags: dict[str, Any] | None = None,
    twin: Twin | None = None,
    keys: np.ndarray | None = None,
) -> LockstepReport:
    """Play ``games`` games of ``env_id`` (with variant ``flags``) on both sides, in batches of
    ``batch``; raise ``Mismatch`` at the first difference. ``twin`` replaces the compiled twin
    (the planted-difference tests pass one with a difference); ``keys`` (``uint32[games, 2]``)
    deal the games instead of keys split from ``seed`` (a test that needs given deals)."""
    twin = twin or compiled(env_id, batch, as_flags(flags or {}))
    if keys is not None and len(keys) != games:
        raise ValueError(f"keys: one per game, {games}; got {len(keys)}")
    report = LockstepReport()
    for first in range(0, games, twin.batch):
        count = min(twin.batch, games - first)
        chosen = None if keys is None else _padded(np.asarray(keys[first : first + count], np.uint32), twin.batch)
        _play_batch(twin, policy, count, seed + first, report, chosen)
    return report


def _padded(keys: np.ndarray, batch: int) -> np.ndarray:
    """``keys`` with copies of its last row up to ``batch`` rows (the rows past the games are
    dealt and stepped, never compared)."""
    return np.concatenate([keys, np.repeat(keys[-1:], batch - len(keys), axis=0)])


def deal_python(twin: Twin, host: Any, index: int, where: str) -> Any:
    """The Python game of one freshly dealt twin game (its deck, and its deal's draws)."""
    fresh = _leaf(host, index)
    draws = twin.python_draws(None, fresh) if twin.python_draws else np.random.default_rng(0)
    deck = twin.env.rules.python_deck(fresh)  # None: the draws alone deal the game
    python = twin.record.new_game(twin.config, draws, **({} if deck is None else {"deck": deck}))
    if isinstance(draws, PresetDraws) and draws.unused:
        raise Mismatch(f"{where}: the twin's deal drew {draws.unused} values the Python deal did not")
    return python


def _play_batch(
    twin: Twin, policy: Policy, count: int, seed: int, report: LockstepReport, keys: np.ndarray | None = None
) -> None:
    record, env_id = twin.record, twin.env.id
    keys = jax.random.split(jax.random.PRNGKey(seed), twin.batch) if keys is None else jax.device_put(keys)
    state = twin.init(keys)
    rng = np.random.default_rng(seed)
    host = _host(state)
    label = f"{env_id} {_flag_text(twin.config)}(seed {seed}"
    pythons = [deal_python(twin, host, index, f"{label}, game {index}), deal") for index in range(count)]
    live = np.zeros(twin.batch, dtype=bool)
    live[:count] = True
    ended = np.zeros(twin.batch, dtype=bool)  # finished in the last step: their last views are compared
    key_rng = np.random.default_rng(seed + 10**6)
    number = 0
    while live.any() or ended.any():
        views = np.asarray(twin.observe_seats(state))
        actions = np.zeros(twin.batch, dtype=np.int32)
        for index in np.flatnonzero(live | ended):
            python = pythons[index]
            where = f"{label}, game {index}), step {number}"
            if ended[index]:
                check_final_position(twin, python, _Row(host, index), views[index], where + " (the final position)")
                continue
            check_position(twin, python, _Row(host, index), views[index], where)
            seat = record.acting_player(python)
            actions[index] = policy(python, record.legal_mask(python), seat, index, rng)
        ended[:] = False
        if not live.any():
            break
        after = twin.step(state, actions, step_keys(key_rng, twin.batch))
        host_after = _host(after)
        for index in np.flatnonzero(live):
            where = f"{label}, game {index}), step {number}, action {actions[index]}"
            finished = check_step(twin, pythons[index], host, host_after, index, int(actions[index]), where, report)
            if finished:
                live[index], ended[index] = False, True
                report.games += 1
                report.outcomes[twin.env.rules.outcome_names[int(host_after.outcome[index])]] += 1
        report.steps += int((live | ended).sum())
        state, host = after, host_after
        number += 1


def step_keys(rng: np.random.Generator, batch: int) -> np.ndarray:
    """Keys for one step of a batch: random ``uint32`` pairs (what ``jax.random.PRNGKey`` makes)
    from a numpy generator, on the host (splitting JAX keys op by op costs more than the step).

    The host arrays (these keys, the actions) go to the compiled step as they are: the jitted
    call takes numpy arguments on its fast path, where ``jax.device_put`` first costs about half
    a millisecond each (some 4 CPU s of a Pillars5p-v0 lockstep's 50), and ``jnp.asarray``
    dispatches an op of its own."""
    return rng.integers(0, 2**32, size=(batch, 2), dtype=np.uint32)


def _flag_text(config: Any) -> str:
    """The config's fields that differ from the defaults, for the mismatch messages."""
    defaults = type(config)()
    changed = {
        name: getattr(config, name)
        for name in config.__dataclass_fields__
        if getattr(config, name) != getattr(defaults, name)
    }
    return f"{changed} " if changed else ""


# --------------------------------------------------------------------------- the comparisons


def check_position(twin: Twin, python: Any, row: Any, views: np.ndarray, where: str) -> None:
    """One game before a step (``row``: its twin state, field by field; ``views``: the twin's
    view of every seat): every seat's observation, ``state.observation`` (the seat to act's own),
    the mask and the seat to act."""
    record = twin.record
    _same_views(record, python, views, where)
    seat = record.acting_player(python)
    _same("current_player", seat, int(row.current_player), where)
    _same("state.observation (the view of the seat to act)", views[seat], np.asarray(row.observation), where)
    _same("legal mask", record.legal_mask(python).astype(bool), np.asarray(row.legal_action_mask), where)


def check_final_position(twin: Twin, python: Any, row: Any, views: np.ndarray, where: str) -> None:
    """A finished game: every seat's observation, and ``state.observation`` the view of the seat
    ``current_player`` names (no seat acts any more; the mask is all ones, as in pgx)."""
    _same_views(twin.record, python, views, where)
    seat = int(row.current_player)
    _same(
        f"state.observation (the view of seat {seat}, current_player)", views[seat], np.asarray(row.observation), where
    )
    mask = np.asarray(row.legal_action_mask)
    _same("legal mask of a finished game (all ones, as in pgx)", np.ones(mask.shape, dtype=bool), mask, where)


def _same_views(record: Any, python: Any, views: np.ndarray, where: str) -> None:
    for seat in range(views.shape[0]):
        _same(f"observation of seat {seat}", record.observe(python, seat), views[seat], where)


def check_step(
    twin: Twin,
    python: Any,
    before: Any,
    after: Any,
    index: int,
    action: int,
    where: str,
    report: LockstepReport,
) -> bool:
    """Play ``action`` on the Python game ``python`` with the draws game ``index`` of the twin
    made from host batch ``before`` to ``after``, and compare every seat's reward, terminated,
    truncated and the outcome. Returns whether the game is over."""
    record = twin.record
    if twin.python_draws is not None:
        draws = twin.python_draws(_Row(before, index), _Row(after, index))
        preset = draws.unused
        try:
            rewards = record.apply_action(python, action, draws)
        except AssertionError as error:  # PresetDraws: the Python rules drew what the twin did not
            raise Mismatch(f"{where}: {error}") from error
        if draws.unused:
            raise Mismatch(f"{where}: the twin drew {draws.unused} values (a coin...) the Python rules did not")
        report.coins += preset
    else:
        orders = PresetOrders(twin.reshuffle_orders(_Row(before, index), _Row(after, index)))
        report.reshuffles += orders.unused
        rewards = record.apply_action(python, action, orders)
        if orders.unused:
            raise Mismatch(f"{where}: the twin reshuffled and the Python rules did not")
    twin_rewards = after.rewards[index]
    _same("number of rewards", len(rewards), twin_rewards.shape[0], where)
    for seat, reward in enumerate(rewards):
        _same_reward(reward, twin_rewards[seat], f"{where}, seat {seat}")
    python_truncated = record.is_terminal(python) and record.is_truncated(python)
    python_terminated = record.is_terminal(python) and not python_truncated
    _same("terminated", python_terminated, bool(after.terminated[index]), where)
    _same("truncated", python_truncated, bool(after.truncated[index]), where)
    _same("outcome", record.outcome(python), twin.env.rules.outcome_names[int(after.outcome[index])], where)
    return python_terminated or python_truncated


def check_step_everywhere(
    twin: Twin, pythons: Sequence[Any], state: Any, actions: Sequence[int], keys: jax.Array, where: str
) -> tuple[Any, list[bool], LockstepReport]:
    """Step a whole batch on the twin (``state``, one Python game per row in ``pythons``) and
    every Python game with its row's draws, comparing each row before (``check_position``) and
    after (``check_step``, then the new views of every seat). The scripted tests use it on a
    batch of copies of one position, each row with its own key, so one call sees both sides of a
    coin. Returns the twin's batch after the step, which rows finished, and the report."""
    report = LockstepReport()
    views, host = np.asarray(twin.observe_seats(state)), _host(state)
    for index, python in enumerate(pythons):
        check_position(twin, python, _Row(host, index), views[index], f"{where}, row {index}, before")
    after = twin.step(state, np.asarray(actions, dtype=np.int32), keys)
    host_after = _host(after)
    finished = [
        check_step(twin, python, host, host_after, index, int(actions[index]), f"{where}, row {index}", report)
        for index, python in enumerate(pythons)
    ]
    views_after = np.asarray(twin.observe_seats(after))
    for index, python in enumerate(pythons):
        if finished[index]:
            check_final_position(
                twin, python, _Row(host_after, index), views_after[index], f"{where}, row {index}, over"
            )
        else:
            check_position(twin, python, _Row(host_after, index), views_after[index], f"{where}, row {index}, after")
    return after, finished, report


def _same(name: str, python: Any, twin: Any, where: str) -> None:
    if isinstance(python, np.ndarray):
        twin = np.asarray(twin)
        if python.shape == twin.shape and np.array_equal(python, twin):
            return
        if python.shape != twin.shape:
            raise Mismatch(f"{where}: {name} has shape {python.shape} in Python, {twin.shape} in the twin")
        differ = np.flatnonzero(python.reshape(-1) != twin.reshape(-1))
        shown = differ[:5]
        raise Mismatch(
            f"{where}: {name} differs at {len(differ)} entries, first {list(shown)}: "
            f"Python {python.reshape(-1)[shown]} vs twin {twin.reshape(-1)[shown]}"
        )
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
