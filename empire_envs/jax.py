"""The batched JAX twins (needs the ``jax`` extra: ``pip install empire-envs[jax]``): the two
solo games, Map Duel and Pillars (its campaign too), each proven identical to its Python rules
by lockstep tests.

Two handles on the same compiled rules:

- pgx style, for compiled training loops, every twin::

      import jax, empire_envs.jax
      env = empire_envs.jax.make("EmpireSolo-v0")          # or "empire_envs/EmpireSolo-v0"
      keys = jax.random.split(jax.random.PRNGKey(0), 1024)
      state = jax.vmap(env.init)(keys)
      state = jax.vmap(env.step)(state, actions, keys)     # state.observation, .legal_action_mask,
                                                           # .rewards, .terminated, .truncated

  A game of several seats (``env.num_players``: Map Duel has 2, Pillars 2 to 6) follows pgx's convention:
  ``state.current_player`` is the seat to act (seat ``i`` is the AEC agent ``player_i``), its
  mask is ``state.legal_action_mask`` and its view ``state.observation``; ``state.rewards`` has
  one entry per seat; ``env.observe(state, seat)`` is any seat's view, exactly the Python env's.

- Gymnasium, one-seat twins only: ``gymnasium.make_vec("empire_envs/EmpireSolo-v0",
  num_envs=1024, vectorization_mode="vector_entry_point")`` returns a ``JaxVectorEnv`` (numpy in
  and out, same-step autoreset, ``infos["action_mask"]``, ``action_masks()``); ``make_vec(env_id,
  num_envs)`` here does the same.

``reset_finished(env, state, key, spare)`` deals new games in place of the finished ones of a
batch, inside a compiled loop (docs/jax.md shows a whole rollout).

Compiling takes seconds to a minute. The vector env (and the compiled trainer, ``bench
--batched``) turn on JAX's persistent compilation cache the first time they compile, so the next
run on the machine loads its programs in seconds: ``~/.cache/empire_envs/jax`` by default,
another folder with ``EMPIRE_ENVS_JAX_CACHE=/path``, none with ``EMPIRE_ENVS_JAX_CACHE=off``; a
folder set in JAX's own config is kept. ``enable_compile_cache()`` does the same for your own
``jit`` of the pgx-style functions. Before each compile the vector env says so in one line on
standard error (``EMPIRE_ENVS_QUIET=1`` silences it); ``empire_envs.core.jax_cache`` has the
details.

Variant flags are keyword arguments of both, as for ``gymnasium.make``. ``twin_ids()`` lists the
ids that have a twin (each game's ``GameEntry.jax_rules`` in the registry).

What is checked (``empire_envs.adapters.jax_env`` says it in full, docs/jax.md too):

- ``reset(seed=...)`` of the vector env takes every seed Gymnasium takes (None, an int >= 0 of
  any size); each seed below ``2**64`` deals its own games (the key is the seed's two 32-bit
  words); larger seeds are hashed into 64 bits, so only they can deal what another seed deals.
- Actions from the host are checked before anything is traced: ``env.step(state, action, key)``
  takes one integer that int32 holds (a float, a bool, a string, an array of another shape or
  ``np.int64(2**32)`` raise), ``JaxVectorEnv.step`` an integer array of shape ``(num_envs,)``.
  A wrong dtype is an ``ActionTypeError`` (a ``TypeError`` and a ``ValueError``), a wrong shape
  or value a ``ValueError``.
- A traced action (inside ``jit`` / ``vmap``) must have an integer dtype and shape ``()``,
  checked while tracing; its value is checked in the compiled step: any integer that is not
  legal now, however wide its dtype, is the illegal-action outcome (penalty, ``terminated``).
- ``num_envs``, ``max_episode_steps`` (ints >= 1), ``spare_resets`` and ``reset_finished``'s
  ``spare`` (ints >= 0), ``illegal_action``, ``illegal_action_penalty`` (finite) and
  ``check_actions`` are refused when the env is built (or ``reset_finished`` called): a
  ``TypeError`` for a wrong type (``2.5``, NaN, a bool), a ``ValueError`` for a wrong value.
"""

from __future__ import annotations

import importlib
from typing import Any

from .core.extras import missing_extra

try:
    import jax  # noqa: F401  (only to say which extra is missing, before anything else needs it)
except ImportError as error:
    raise missing_extra("jax", "empire_envs.jax", error.name or "jax") from error

from .adapters.jax_env import ActionTypeError, JaxEnv, JaxVectorEnv, reset_finished, seed_key
from .core.jax_cache import enable_compile_cache, shared_when_hashable
from .registry import NAMESPACE, all_entries, entry, game_entry

__all__ = [
    "ActionTypeError",
    "JaxEnv",
    "JaxVectorEnv",
    "enable_compile_cache",
    "make",
    "make_vec",
    "reset_finished",
    "seed_key",
    "twin_ids",
]


def _full_id(env_id: str) -> str:
    return env_id if "/" in env_id else f"{NAMESPACE}/{env_id}"


def twin_ids() -> list[str]:
    """Every registered id whose game has a JAX twin."""
    return [item.env_id for item in all_entries() if getattr(game_entry(item.game), "jax_rules", "")]


def _rules(env_id: str, config: dict[str, Any]) -> tuple[str, Any]:
    full = _full_id(env_id)
    item = entry(full)
    game = game_entry(item.game)
    path = getattr(game, "jax_rules", "")
    if not path:
        raise ValueError(f"{full} has no JAX twin; the ids with one are {twin_ids()}")
    record = game.load()
    try:
        settings = record.config_class(**{**item.kwargs, **config})
    except TypeError as error:
        raise TypeError(
            f"{error}. {record.name} options are: {sorted(record.config_class.__dataclass_fields__)}"
        ) from None
    return full, _twin_rules(path, settings)


@shared_when_hashable(maxsize=64)
def _twin_rules(path: str, settings: Any) -> Any:
    """The ``JaxRules`` of a twin and config, one per equal config (the most recent 64): the envs
    of equal configs then share their jitted functions (``adapters.jax_env``), and a second
    ``make_vec`` of a config compiles nothing the first one compiled."""
    module_name, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module_name), attribute)(settings)


def make(
    env_id: str, illegal_action_penalty: float = -1.0, max_episode_steps: int | None = None, **config: Any
) -> JaxEnv:
    """The pgx-style JAX env of a registered id with a twin, with variant flags as keywords
    (``max_episode_steps``: None or an int >= 1; ``illegal_action_penalty``: a finite number)."""
    full, rules = _rules(env_id, config)
    return JaxEnv(full, rules, illegal_action_penalty, max_episode_steps)


def make_vec(
    env_id: str,
    num_envs: int,
    illegal_action: str = "raise",
    illegal_action_penalty: float = -1.0,
    check_actions: bool = True,
    spare_resets: int | None = None,
    render_mode: str | None = None,
    max_episode_steps: int | None = None,
    **config: Any,
) -> JaxVectorEnv:
    """The Gymnasium ``VectorEnv`` of ``num_envs`` games of a one-seat twin (what
    ``gymnasium.make_vec`` with ``vectorization_mode="vector_entry_point"`` returns);
    ``JaxVectorEnv`` checks the arguments and refuses a game of several seats."""
    full, rules = _rules(env_id, config)
    return JaxVectorEnv(
        full,
        num_envs,
        rules,
        illegal_action=illegal_action,
        illegal_action_penalty=illegal_action_penalty,
        check_actions=check_actions,
        spare_resets=spare_resets,
        render_mode=render_mode,
        max_episode_steps=max_episode_steps,
    )
