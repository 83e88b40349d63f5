"""The batched JAX twins of the one-seat games as a pgx-style env and a Gymnasium ``VectorEnv``.

Two faces of one ``JaxRules`` record (``core.jax_game``), generic over the game:

- ``JaxEnv``: pure functions for compiled training loops, the way pgx offers its games:
  ``state = jax.vmap(env.init)(keys)``, ``state = jax.vmap(env.step)(state, actions, keys)``,
  ``env.observe(state, seat)`` any seat's view. Both rules below are pgx's (``pgx.core.Env.step``):
  stepping a finished state returns it unchanged with zero reward for every seat; an illegal
  action (no exception can be raised inside ``jit``) ends the episode, ``terminated``, outcome
  ``"illegal action"``, the seat that played it receiving ``illegal_action_penalty`` (-1). In a
  game of two seats the other seat receives ``-illegal_action_penalty`` (+1), as in pgx; with
  more seats each other seat receives ``-illegal_action_penalty / (num_players - 1)``, so the
  rewards still sum to zero (pgx gives each ``-illegal_action_penalty * (num_players - 1)``,
  which does not). As in pgx, a finished state's ``legal_action_mask`` is all ones, so a masked
  softmax never divides by zero.
- ``JaxVectorEnv``: a Gymnasium 1.x ``VectorEnv`` of ``num_envs`` games stepped by one compiled
  call, numpy in and out. It resets finished games in the same step
  (``AutoresetMode.SAME_STEP``): the observation and mask returned for a finished game are the
  new game's, its final observation is ``infos["final_obs"]`` (rows flagged by
  ``infos["_final_obs"]``) and its outcome ``infos["final_info"]["outcome"]``; no mask row is ever
  empty. By default it checks every action on the host first and raises ``IllegalActionError``
  naming the env index and the action, with no game changed (``illegal_action="penalize"`` ends
  that game with the penalty instead, as ``JaxEnv`` does). Building one turns on JAX's
  persistent compilation cache (``core.jax_cache``), and its first ``reset`` and first ``step``
  each say in one line on standard error that they compile, for how many games and where the
  program is cached (``EMPIRE_ENVS_QUIET=1`` silences them).

What is checked, and where (issue 24):

- **Seeds.** ``JaxVectorEnv.reset(seed=...)`` takes what Gymnasium's ``reset`` takes (None or a
  non-negative Python int of any size; anything else is Gymnasium's ``gymnasium.error.Error``).
  A seed below ``2**64`` is the JAX key ``[seed >> 32, seed & 0xFFFFFFFF]``, what
  ``jax.random.PRNGKey(seed)`` gives with 64-bit integers on: distinct seeds, distinct keys (and
  below ``2**32`` exactly ``PRNGKey(seed)``, the key of earlier versions). A larger seed is hashed
  into those 64 bits by numpy's ``SeedSequence``: the same in every process, but it may deal
  what some other seed deals (no map of more than ``2**64`` seeds into a 64-bit key can avoid it).
- **Actions from the host** (Python or numpy values, concrete arrays) are checked before anything
  is traced. ``JaxEnv.step`` takes one game's action: a Python or numpy integer, or an integer
  array of shape ``()``. A bool, a float, a string or an array of another dtype is an
  ``ActionTypeError`` (a ``TypeError``, and a ``ValueError``); another shape, or an integer that
  int32 cannot hold (``np.int64(2**32)``), is a ``ValueError``, never wrapped round to some other
  action. ``JaxVectorEnv.step`` takes an integer array of shape ``(num_envs,)`` with every entry
  in ``0..n_actions-1``, with the same errors (Gymnasium's own vector envs check nothing; this
  one checks, as the Python env does).
- **Traced actions** (inside ``jit``, ``vmap``, ``lax.scan``): their dtype and shape are known
  while tracing, so a non-integer dtype (a float or bool tracer) is an ``ActionTypeError`` and a
  shape other than ``()`` a ``ValueError``, raised when the function is traced. Their values are
  checked inside the compiled step, in the action's own dtype: any integer that is not a legal
  action now (negative, past the table, masked out, or beyond int32 in a 64-bit or unsigned
  dtype) is the illegal-action outcome above, never another action.
- **Arguments** are checked when the env is built (or ``reset_finished`` called): ``num_envs``
  and ``max_episode_steps`` (an int >= 1), ``spare_resets`` and ``spare`` (an int >= 0),
  ``illegal_action`` (one of the modes), ``illegal_action_penalty`` (a finite number),
  ``check_actions`` (a bool). A wrong type is a ``TypeError``, a wrong value a ``ValueError``,
  each naming the argument and the value; a bool is never read as a number.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..core.errors import ILLEGAL_ACTION_OUTCOME, ActionTypeError, IllegalActionError
from ..core.jax_cache import compile_note, enable_compile_cache, shared_when_hashable
from ..core.jax_game import JaxRules, host

ILLEGAL_ACTION_MODES = ("raise", "penalize")
_INT32 = np.iinfo(np.int32)
_WORD = 0xFFFFFFFF


def check_int(name: str, value: Any, minimum: int) -> int:
    """``value`` as a Python int when it is a Python or numpy integer (never a bool) of at least
    ``minimum``; otherwise a ``TypeError`` (wrong type: a float such as ``2.5`` or NaN, a string,
    a bool) or a ``ValueError`` (too small), naming the argument and the value."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= {minimum}, got {value!r} of type {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _check_penalty(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"illegal_action_penalty must be a number, got {value!r} of type {type(value).__name__}")
    if not np.isfinite(value):
        raise ValueError(f"illegal_action_penalty must be finite, got {value!r}")
    return float(value)


def seed_key(seed: int) -> jax.Array:
    """The JAX key (``uint32[2]``, as ``jax.random.PRNGKey`` makes) of a Gymnasium seed, an int
    ``>= 0`` of any size.

    Below ``2**64`` the key is ``[seed >> 32, seed & 0xFFFFFFFF]``. That is how JAX's default
    generator (threefry) seeds itself from a 64-bit integer (``PRNGKey(seed)`` with
    ``jax_enable_x64``), and it is one to one: the two words are the seed, so two seeds below
    ``2**64`` never share a key, and a seed below ``2**32`` gets ``PRNGKey(seed)`` exactly (what
    earlier versions dealt). ``PRNGKey`` itself, without 64-bit integers, would keep only the low
    32 bits (``2**32`` dealt what ``0`` deals) and raise ``OverflowError`` from ``2**64``.

    From ``2**64`` on, the seed is hashed into the two words by numpy's ``SeedSequence``
    (deterministic, in every process). A key has 64 bits, so no map can keep all the larger seeds
    apart: two seeds can share a key only when one of them is ``2**64`` or more."""
    seed = int(seed)
    if seed < 0:
        raise ValueError(f"a seed is an int >= 0, got {seed}")
    if seed >> 64:
        high, low = (int(word) for word in np.random.SeedSequence(seed).generate_state(2, dtype=np.uint32))
    else:
        high, low = seed >> 32, seed & _WORD
    if str(jax.random.key_impl(jax.random.key(0))) == "threefry2x32":  # JAX's default: the key is the two words
        return jnp.asarray(np.array([high, low], dtype=np.uint32))
    # another generator's keys have another layout: fold the high word into the key of the low
    # one (distinct keys for distinct seeds then with high probability, not by construction)
    key = jax.random.PRNGKey(low)
    return jax.random.fold_in(key, high) if high else key


def _is_integer_dtype(dtype: Any) -> bool:
    return bool(np.issubdtype(dtype, np.integer))  # a bool dtype is not an integer one


def check_action(action: Any) -> Any:
    """One game's action for ``JaxEnv.step``, checked for what can be checked before tracing
    (module docstring, "What is checked"). A JAX array or tracer keeps its value (checked inside
    the step) and must have an integer dtype and shape ``()``; a Python or numpy integer, or an
    integer numpy array of shape ``()``, must fit int32 and comes back as a numpy int32."""
    expected = "one game's action: an integer of shape () (a Python int, a numpy or JAX integer)"
    if isinstance(action, jax.Array):  # a tracer too: its dtype and shape are known while tracing
        if not _is_integer_dtype(action.dtype):
            raise ActionTypeError(f"expected {expected}, got a JAX array of dtype {action.dtype}")
        if action.shape != ():
            raise ValueError(f"expected {expected}, got a JAX array of shape {action.shape}")
        return action
    if isinstance(action, np.ndarray):
        if not _is_integer_dtype(action.dtype):
            raise ActionTypeError(f"expected {expected}, got a numpy array of dtype {action.dtype}")
        if action.shape != ():
            raise ValueError(f"expected {expected}, got a numpy array of shape {action.shape}")
    elif isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ActionTypeError(f"expected {expected}, got {action!r} of type {type(action).__name__}")
    if not _INT32.min <= int(action) <= _INT32.max:
        raise ValueError(
            f"expected {expected}, got {action!r}, which int32 cannot hold ({_INT32.min}..{_INT32.max}): "
            "it would wrap round to another action"
        )
    return np.int32(action)


class JaxEnv:
    """A pgx-style env over one game's JAX rules (see the module docstring).

    Attributes: ``id`` (the registered id), ``version`` (its version, ``"v0"``, as pgx's
    ``Env.version``: it changes only when the game's behaviour does), ``num_actions``, ``observation_shape``,
    ``num_players`` (the seats; 1 for the solo games), ``rules`` (the ``JaxRules``),
    ``illegal_action_penalty``, ``max_episode_steps`` (None, or a step limit that truncates an
    episode as Gymnasium's ``TimeLimit`` does).
    """

    def __init__(
        self,
        env_id: str,
        rules: JaxRules,
        illegal_action_penalty: float = -1.0,
        max_episode_steps: int | None = None,
    ) -> None:
        if max_episode_steps is not None:
            max_episode_steps = check_int("max_episode_steps", max_episode_steps, 1)
        self.id = env_id
        self.version = env_id.rpartition("-")[2] if re.search(r"-v\d+$", env_id) else "v0"
        self.rules = rules
        self.num_actions = rules.num_actions
        self.observation_shape = (rules.observation_size,)
        self.illegal_action_penalty = _check_penalty(illegal_action_penalty)
        self.max_episode_steps = max_episode_steps
        self.num_players = rules.num_players
        self._illegal = rules.outcome_names.index(ILLEGAL_ACTION_OUTCOME)

    def init(self, key: jax.Array) -> Any:
        """A new game from ``key`` (one game; ``jax.vmap`` for a batch)."""
        return self.rules.init(key)

    def step(self, state: Any, action: Any, key: jax.Array | None = None) -> Any:
        """One decision of one game (``jax.vmap`` for a batch; see the module docstring for
        finished states, illegal actions and what is checked). ``action`` is an integer of shape
        ``()``: a Python or numpy integer that int32 holds, or an integer JAX array or tracer,
        whose value the compiled step checks (any integer that is not legal now is the illegal
        action outcome). A float, a bool, a string, another shape or an integer beyond int32 from
        the host raise before anything is traced. ``key`` feeds the game's random draws; without
        one, a key is folded from the state."""
        if jnp.shape(state.terminated) != ():
            raise ValueError(
                f"JaxEnv.step steps one game, got a batch of shape {jnp.shape(state.terminated)}: "
                "use jax.vmap(env.step)(state, actions, keys)"
            )
        action = jnp.asarray(check_action(action))
        if key is None:
            key = jax.random.fold_in(jax.random.PRNGKey(0), state.step_count)
        if jnp.can_cast(action.dtype, jnp.int32):  # int8..int32, uint8, uint16: no value changes
            action = action.astype(jnp.int32)
        # wider integers (int64, uint32, uint64) are compared in their own dtype, so that a value
        # beyond int32 is illegal rather than wrapped round to some legal action
        index = jnp.clip(action, 0, self.num_actions - 1).astype(jnp.int32)
        over = state.terminated | state.truncated
        legal = state.legal_action_mask[index] & (action >= 0) & (action < self.num_actions)
        played = self.rules.step(state, index, key)
        # one select over the whole state (the game as it was, or as the action left it), then
        # the few fields an illegal action or a finished game changes
        kept = over | ~legal
        chosen = jax.tree_util.tree_map(lambda old, new: jnp.where(kept, old, new), state, played)
        illegal = ~over & ~legal
        chosen = chosen.replace(
            outcome=jnp.where(illegal, jnp.asarray(self._illegal, dtype=state.outcome.dtype), chosen.outcome),
            terminated=chosen.terminated | illegal,
            rewards=jnp.where(
                over, 0.0, jnp.where(illegal, self._illegal_rewards(state.current_player), chosen.rewards)
            ).astype(state.rewards.dtype),
            step_count=chosen.step_count + illegal.astype(state.step_count.dtype),
        )
        if self.max_episode_steps is not None:  # Gymnasium's TimeLimit, inside the compiled step
            chosen = chosen.replace(truncated=chosen.truncated | (chosen.step_count >= self.max_episode_steps))
        finished = chosen.terminated | chosen.truncated
        return chosen.replace(legal_action_mask=chosen.legal_action_mask | finished)

    def _illegal_rewards(self, mover: jax.Array) -> jax.Array:
        """Each seat's reward when ``mover`` plays an illegal action (module docstring)."""
        if self.num_players == 1:
            return jnp.full(1, self.illegal_action_penalty, dtype=jnp.float32)
        others = -self.illegal_action_penalty / (self.num_players - 1)
        seats = jnp.arange(self.num_players)
        return jnp.where(seats == mover, self.illegal_action_penalty, others).astype(jnp.float32)

    def observe(self, state: Any, seat: Any = None) -> jax.Array:
        """What ``seat`` sees (an int or an int array of shape ``()``, traced or not; None: the
        seat to act, ``state.current_player``), exactly the Python env's ``observe`` for that
        agent. Pure: a seat's view of a state whoever is to act (``jax.vmap`` for a batch)."""
        if seat is None:
            seat = state.current_player
        elif isinstance(seat, (bool, np.bool_)) or not (
            isinstance(seat, (int, np.integer)) or (hasattr(seat, "dtype") and jnp.issubdtype(seat.dtype, jnp.integer))
        ):
            raise TypeError(f"seat must be an int in 0..{self.num_players - 1}, got {seat!r}")
        elif isinstance(seat, (int, np.integer)) and not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be in 0..{self.num_players - 1}, got {seat}")
        return self.rules.observe(state, jnp.asarray(seat, dtype=jnp.int32))

    def outcome(self, state: Any) -> str:
        """The outcome name of one (unbatched) state: ``"won"``, ``"lost"``, ``"truncated"``..."""
        return self.rules.outcome_names[int(state.outcome)]


def _where_rows(flags: jax.Array, new: Any, old: Any) -> Any:
    """Per batch row: ``new`` where ``flags`` else ``old`` (every leaf of two batched pytrees)."""
    return jax.tree_util.tree_map(
        lambda n, o: jnp.where(flags.reshape(flags.shape + (1,) * (n.ndim - 1)), n, o), new, old
    )


def reset_finished(env: JaxEnv, state: Any, key: jax.Array, spare: int) -> Any:
    """Batched states with every finished game replaced by a new one from ``key``.

    Deals are the dear part of a step (a shuffle), so only ``spare`` new games are dealt when at
    most that many finished (the usual case), and a full batch of deals otherwise (``lax.cond``
    on the batch chooses; under ``jit`` only the chosen branch runs). ``spare`` is a Python
    int ``>= 0`` (static: it sets array shapes), checked before anything is traced; 0 deals a
    whole batch whenever a game finished."""
    spare = check_int("spare", spare, 0)
    done = state.terminated | state.truncated
    num = done.shape[0]

    def few(state: Any) -> Any:
        rows = jnp.nonzero(done, size=spare, fill_value=num)[0]
        fresh = jax.vmap(env.init)(jax.random.split(key, spare))
        return jax.tree_util.tree_map(lambda s, f: s.at[rows].set(f, mode="drop"), state, fresh)

    def every(state: Any) -> Any:
        return _where_rows(done, jax.vmap(env.init)(jax.random.split(key, num)), state)

    return jax.lax.cond(done.sum() <= spare, few, every, state)


class JaxVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games of one solo game as a Gymnasium ``VectorEnv`` (module docstring).

    Args:
        env_id: the registered id (``empire_envs/EmpireSolo-v0`` ...); ``config`` keywords are its
            variant flags, as for ``gymnasium.make``.
        num_envs: the batch size.
        illegal_action: ``"raise"`` (default: checked on the host, ``IllegalActionError``, no game
            changed) or ``"penalize"`` (the game ends with ``illegal_action_penalty``).
        check_actions: with ``illegal_action="raise"``, set False to skip the host check (the
            compiled step then penalizes an illegal action as ``JaxEnv`` does).
        spare_resets: how many new games a step deals without falling back to a full batch
            of deals, an int in ``0..num_envs`` (default ``max(1, num_envs // 8)``).
        max_episode_steps: truncate an episode after this many steps, an int >= 1 (Gymnasium
            passes it from ``make_vec``); None by default: every game ends by its own rules.

    Each argument is checked here, when the env is built (module docstring, "What is
    checked"); ``reset(seed=...)`` takes Gymnasium's seeds, every one below ``2**64`` its own
    deals; ``step(actions)`` takes an integer array of shape ``(num_envs,)``.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        rules: JaxRules,
        illegal_action: str = "raise",
        illegal_action_penalty: float = -1.0,
        check_actions: bool = True,
        spare_resets: int | None = None,
        render_mode: str | None = None,
        max_episode_steps: int | None = None,
    ) -> None:
        num_envs = check_int("num_envs", num_envs, 1)
        if rules.num_players != 1:
            raise ValueError(
                f"{env_id} is a game of {rules.num_players} seats, and a Gymnasium VectorEnv plays one: "
                f"use empire_envs.jax.make({env_id!r}) (init, step, observe(state, seat))"
            )
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if not isinstance(check_actions, (bool, np.bool_)):
            raise TypeError(f"check_actions must be a bool, got {check_actions!r} ({type(check_actions).__name__})")
        spare = max(1, num_envs // 8) if spare_resets is None else check_int("spare_resets", spare_resets, 0)
        if spare > num_envs:
            raise ValueError(f"spare_resets must be at most num_envs ({num_envs}), got {spare_resets!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.env_id = env_id
        self.num_envs = num_envs
        programs = _batch_programs(env_id, rules, _check_penalty(illegal_action_penalty), max_episode_steps, spare)
        self.jax_env = programs.env
        self.rules = rules
        self.illegal_action = illegal_action
        self.check_actions = bool(check_actions) and illegal_action == "raise"
        self.render_mode = render_mode
        self.num_actions = rules.num_actions
        self.single_action_space = spaces.Discrete(rules.num_actions)
        low, high = rules.game.observation_bounds(rules.config)  # the Python env's space, from one source
        self.single_observation_space = spaces.Box(low, high, (rules.observation_size,), np.float32)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.spare_resets = spare
        enable_compile_cache()  # before the first compile (core.jax_cache: once per process)
        self._step_batch = programs.step
        self._init_batch = programs.init
        self._announced = programs.announced
        self._state: Any = None
        self._key: jax.Array | None = None
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"{type(self).__name__}.reset takes no options, got {sorted(options)}")
        super().reset(seed=seed)  # Gymnasium's check: None or an int >= 0, else gymnasium.error.Error
        if seed is not None or self._key is None:
            self._key = seed_key(int(self.np_random.integers(2**31)) if seed is None else seed)
        self._key, deal = jax.random.split(self._key)
        self._announce("reset")
        self._state = self._init_batch(jax.random.split(deal, self.num_envs))
        observation, mask = host(self._state.observation), host(self._state.legal_action_mask)
        self._mask = mask.astype(np.int8)
        return observation, {"action_mask": self._mask}

    def step(self, actions: Any):
        if self._state is None:
            raise ResetNeeded("call reset() before step()")
        actions = self._checked(actions)
        assert self._key is not None and self._mask is not None
        if self.check_actions:
            rows = np.flatnonzero(self._mask[np.arange(self.num_envs), actions] == 0)
            if rows.size:
                env, action = int(rows[0]), int(actions[rows[0]])
                legal = [int(index) for index in np.flatnonzero(self._mask[env])]
                raise IllegalActionError(
                    f"env {env}: action {action} is not legal now (legal: {legal}); "
                    f"{len(rows)} illegal action(s) in the batch, no game changed"
                )
        self._key, key = jax.random.split(self._key)
        self._announce("step")
        self._state, outputs = self._step_batch(self._state, jnp.asarray(actions), key)
        observation, reward, terminated, truncated, final_obs, outcome, mask = (host(x) for x in outputs)
        self._mask = mask.astype(np.int8)
        infos: dict[str, Any] = {"action_mask": self._mask}
        done = terminated | truncated
        if done.any():
            names = np.array(self.rules.outcome_names, dtype=object)[outcome]
            names[~done] = None
            infos["final_obs"] = final_obs
            infos["_final_obs"] = done
            infos["final_info"] = {
                "outcome": names,
                "_outcome": done,
                "is_success": (names == "won") & done,
                "_is_success": done,
            }
            infos["_final_info"] = done
        return observation, reward.astype(np.float32), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The int8 legal-action masks of the current games, shape ``(num_envs, n_actions)``
        (what sb3-contrib's MaskablePPO calls)."""
        if self._mask is None:
            raise ResetNeeded("call reset() before action_masks()")
        return self._mask

    def render(self) -> Any:
        if self._state is None:
            raise ResetNeeded("call reset() before render()")
        if self.render_mode != "ansi":
            gym.logger.warn("render() was called without render_mode='ansi'")
            return None
        texts = []
        for index in range(self.num_envs):
            python = self.rules.to_python(jax.tree_util.tree_map(lambda leaf, i=index: leaf[i], self._state))
            texts.append(f"env {index}:\n" + self.rules.game.to_text(python))
        return "\n\n".join(texts) + "\n"

    # ------------------------------------------------------------------ helpers

    @property
    def state(self) -> Any:
        """The batched JAX state of the current games (read-only use)."""
        return self._state

    def _announce(self, function: str) -> None:
        """Say the compile line of ``function`` (``"reset"`` or ``"step"``) before its first call
        at this batch size (``core.jax_cache.compile_note``: standard error, unless
        ``EMPIRE_ENVS_QUIET``); the envs that share the compiled programs share what was said."""
        if (function, self.num_envs) not in self._announced:
            self._announced.add((function, self.num_envs))
            compile_note(f"{self.env_id.rsplit('/', 1)[-1]} {function}", self.num_envs)

    def _checked(self, actions: Any) -> np.ndarray:
        """The actions as an int32 array of shape ``(num_envs,)``; an ``ActionTypeError`` for
        another dtype (floats, bools, strings, objects: never rounded or read as 0/1), a
        ``ValueError`` for another shape or an action outside the table, each naming what was
        expected."""
        expected = f"integers of shape ({self.num_envs},), one action in 0..{self.num_actions - 1} per env"
        try:
            array = np.asarray(actions)
        except ValueError as error:  # a ragged list
            raise ValueError(f"actions must be {expected}, got a ragged {type(actions).__name__} ({error})") from None
        if not _is_integer_dtype(array.dtype):
            raise ActionTypeError(f"actions must be {expected}, got dtype {array.dtype} (shape {array.shape})")
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must be {expected}, got shape {array.shape}")
        if ((array < 0) | (array >= self.num_actions)).any():
            bad = int(np.flatnonzero((array < 0) | (array >= self.num_actions))[0])
            raise ValueError(f"env {bad}: action {int(array[bad])} is outside 0..{self.num_actions - 1}")
        return array.astype(np.int32)


@dataclasses.dataclass(frozen=True)
class _BatchPrograms:
    """The jitted functions of the envs of one id, rules, penalty, step limit and spare deals:
    every ``JaxVectorEnv`` built with the same ones calls these, so a second env compiles nothing
    that the first one compiled (JAX keeps a jitted function's programs per function object)."""

    env: JaxEnv
    step: Callable[..., Any]
    init: Callable[..., Any]
    #: ``(function, num_envs)`` pairs whose compile line was said
    announced: set[tuple[str, int]]


@shared_when_hashable(maxsize=32)
def _batch_programs(
    env_id: str, rules: JaxRules, penalty: float, max_episode_steps: int | None, spare: int
) -> _BatchPrograms:
    """The programs of the envs of these arguments, shared by equal ones (the 32 most recently
    used kept, each with its compiled programs, one per batch size): ``JaxRules`` compare by
    their functions' identity, and ``empire_envs.jax`` hands out one ``JaxRules`` per id and
    config, so equal envs find each other; rules that cannot be hashed get programs of their
    own."""
    env = JaxEnv(env_id, rules, penalty, max_episode_steps)
    return _BatchPrograms(env, jax.jit(partial(_step_batch, env, spare)), jax.jit(jax.vmap(env.init)), set())


def _step_batch(env: JaxEnv, spare: int, state: Any, actions: jax.Array, key: jax.Array):
    """One compiled step of the batch, with same-step reset of the finished games."""
    step_key, reset_key = jax.random.split(key)
    stepped = jax.vmap(env.step)(state, actions, jax.random.split(step_key, actions.shape[0]))
    terminated, truncated = stepped.terminated, stepped.truncated
    fresh = reset_finished(env, stepped, reset_key, spare)
    outputs = (
        fresh.observation,
        stepped.rewards[:, 0],
        terminated,
        truncated,
        stepped.observation,
        stepped.outcome.astype(jnp.int32),
        fresh.legal_action_mask,
    )
    return fresh, outputs
