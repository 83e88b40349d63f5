"""The batched JAX twins of the one-seat games as a pgx-style env and a Gymnasium ``VectorEnv``.

Two faces of one ``JaxRules`` record (``core.jax_game``), generic over the game:

- ``JaxEnv``: pure functions for compiled training loops, the way pgx offers its games:
  ``state = jax.vmap(env.init)(keys)``, ``state = jax.vmap(env.step)(state, actions, keys)``.
  Stepping a finished state returns it unchanged with zero reward. An illegal action (no
  exception can be raised inside ``jit``) ends the episode: reward ``illegal_action_penalty``
  (-1), ``terminated``, outcome ``"illegal action"``. As in pgx, a finished state's
  ``legal_action_mask`` is all ones, so a masked softmax never divides by zero.
- ``JaxVectorEnv``: a Gymnasium 1.x ``VectorEnv`` of ``num_envs`` games stepped by one compiled
  call, numpy in and out. It resets finished games in the same step
  (``AutoresetMode.SAME_STEP``): the observation and mask returned for a finished game are the
  new game's, its final observation is ``infos["final_obs"]`` (rows flagged by
  ``infos["_final_obs"]``) and its outcome ``infos["final_info"]["outcome"]``; no mask row is ever
  empty. By default it checks every action on the host first and raises ``IllegalActionError``
  naming the env index and the action, with no game changed (``illegal_action="penalize"`` ends
  that game with the penalty instead, as ``JaxEnv`` does).
"""

from __future__ import annotations

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

from ..core.errors import IllegalActionError
from ..core.jax_game import JaxRules, host

ILLEGAL_ACTION_MODES = ("raise", "penalize")


class JaxEnv:
    """A pgx-style env over one game's JAX rules (see the module docstring).

    Attributes: ``id`` (the registered id), ``num_actions``, ``observation_shape``,
    ``num_players`` (1), ``rules`` (the ``JaxRules``), ``illegal_action_penalty``,
    ``max_episode_steps`` (None, or a step limit that truncates an episode as Gymnasium's
    ``TimeLimit`` does).
    """

    num_players = 1

    def __init__(
        self,
        env_id: str,
        rules: JaxRules,
        illegal_action_penalty: float = -1.0,
        max_episode_steps: int | None = None,
    ) -> None:
        if max_episode_steps is not None and (isinstance(max_episode_steps, bool) or max_episode_steps < 1):
            raise ValueError(f"max_episode_steps must be a positive int or None, got {max_episode_steps!r}")
        self.id = env_id
        self.rules = rules
        self.num_actions = rules.num_actions
        self.observation_shape = (rules.observation_size,)
        self.illegal_action_penalty = float(illegal_action_penalty)
        self.max_episode_steps = max_episode_steps
        self._illegal = rules.outcome_names.index("illegal action")

    def init(self, key: jax.Array) -> Any:
        """A new game from ``key`` (one game; ``jax.vmap`` for a batch)."""
        return self.rules.init(key)

    def step(self, state: Any, action: jax.Array, key: jax.Array | None = None) -> Any:
        """One decision (see the module docstring for finished states and illegal actions).
        ``key`` feeds the game's random draws; without one, a key is folded from the state."""
        if key is None:
            key = jax.random.fold_in(jax.random.PRNGKey(0), state.step_count)
        action = jnp.asarray(action, dtype=jnp.int32)
        over = state.terminated | state.truncated
        legal = state.legal_action_mask[jnp.clip(action, 0, self.num_actions - 1)] & (action >= 0)
        legal = legal & (action < self.num_actions)
        played = self.rules.step(state, jnp.clip(action, 0, self.num_actions - 1), key)
        # one select over the whole state (the game as it was, or as the action left it), then
        # the few fields an illegal action or a finished game changes
        kept = over | ~legal
        chosen = jax.tree_util.tree_map(lambda old, new: jnp.where(kept, old, new), state, played)
        illegal = ~over & ~legal
        chosen = chosen.replace(
            outcome=jnp.where(illegal, jnp.asarray(self._illegal, dtype=state.outcome.dtype), chosen.outcome),
            terminated=chosen.terminated | illegal,
            rewards=jnp.where(over, 0.0, jnp.where(illegal, self.illegal_action_penalty, chosen.rewards)).astype(
                state.rewards.dtype
            ),
            step_count=chosen.step_count + illegal.astype(state.step_count.dtype),
        )
        if self.max_episode_steps is not None:  # Gymnasium's TimeLimit, inside the compiled step
            chosen = chosen.replace(truncated=chosen.truncated | (chosen.step_count >= self.max_episode_steps))
        finished = chosen.terminated | chosen.truncated
        return chosen.replace(legal_action_mask=chosen.legal_action_mask | finished)

    def observe(self, state: Any) -> jax.Array:
        return self.rules.observe(state)

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
    on the batch chooses; under ``jit`` only the chosen branch runs)."""
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
            of deals (default ``max(1, num_envs // 8)``).
        max_episode_steps: truncate an episode after this many steps (Gymnasium passes it from
            ``make_vec``); None by default: every game ends by its own rules.
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
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.env_id = env_id
        self.num_envs = int(num_envs)
        self.jax_env = JaxEnv(env_id, rules, illegal_action_penalty, max_episode_steps)
        self.rules = rules
        self.illegal_action = illegal_action
        self.check_actions = check_actions and illegal_action == "raise"
        self.render_mode = render_mode
        self.num_actions = rules.num_actions
        self.single_action_space = spaces.Discrete(rules.num_actions)
        low, high = rules.game.observation_bounds(rules.config)  # the Python env's space, from one source
        self.single_observation_space = spaces.Box(low, high, (rules.observation_size,), np.float32)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        spare = max(1, self.num_envs // 8) if spare_resets is None else int(spare_resets)
        self._step_batch = jax.jit(partial(_step_batch, self.jax_env, spare))
        self._init_batch = jax.jit(jax.vmap(self.jax_env.init))
        self._state: Any = None
        self._key: jax.Array | None = None
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"{type(self).__name__}.reset takes no options, got {sorted(options)}")
        super().reset(seed=seed)
        if seed is not None or self._key is None:
            self._key = jax.random.PRNGKey(int(self.np_random.integers(2**31)) if seed is None else int(seed))
        self._key, deal = jax.random.split(self._key)
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

    def _checked(self, actions: Any) -> np.ndarray:
        """The actions as an int32 array of shape ``(num_envs,)``, or a clear ``ValueError``."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {array.shape}")
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {array.dtype}")
        if ((array < 0) | (array >= self.num_actions)).any():
            bad = int(np.flatnonzero((array < 0) | (array >= self.num_actions))[0])
            raise ValueError(f"env {bad}: action {int(array[bad])} is outside 0..{self.num_actions - 1}")
        return array.astype(np.int32)


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
