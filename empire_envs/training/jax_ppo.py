"""Compiled PPO on the batched JAX twins: env and learner in one XLA program (the PureJaxRL design).

``python -m empire_envs train --backend jax`` runs ``train`` with a ``JaxTrainConfig``
(``training.jax_config``; ``experiments/configs/jax/`` holds examples). Needs the ``jax`` extra
(jax, flax, optax).

One update, all inside ``jit``:

1. **Rollout**: a ``lax.scan`` of ``num_steps`` batched steps. Each step runs the actor-critic
   MLP on every game's observation (followed by its mask with ``mask_in_observation``), masks
   the logits (an illegal action gets ``MASKED_LOGIT``, as sb3-contrib's MaskablePPO does, so it
   has probability 0), samples one
   action per game, steps ``jax.vmap(env.step)`` and deals new games in place of the finished
   ones (``reset_finished``). A game that ends by truncation is treated as ended (no bootstrap).
2. **GAE** over the rollout (a reverse ``lax.scan``), bootstrapped from the value of the states
   the rollout stopped in.
3. **Updates**: ``update_epochs`` passes over the shuffled batch in ``num_minibatches``
   minibatches; the clipped PPO objective on the masked distribution, squared-error value loss,
   entropy bonus; Adam with gradient-norm clipping and (``anneal_lr``) a learning rate falling
   linearly to 0.

``Trainer.train_updates(runner, n)`` runs ``n`` updates in one compiled call (``n`` is an
argument, not a constant: any chunk size uses the same compiled program), so the host loop
(``train``) calls it in chunks: between chunks it writes ``progress.csv``, shows the progress
bar, runs the compiled greedy evaluation (``Trainer.evaluate``) and saves checkpoints. Every
random number comes from the run's seed: the same seed gives the same parameters, whatever the
chunk sizes.

Building a ``Trainer`` turns on JAX's persistent compilation cache (``core.jax_cache``), so a
second run of the same config on the machine loads its compiled programs instead of compiling
them; ``train`` logs one line before it compiles the update and the first evaluation, and the
summary's ``compile_cached`` says whether the compile was loaded from the cache.

The run directory gets ``config.json``, ``progress.csv``, ``checkpoints/policy_<steps>.npz``,
the final ``policy.npz`` (the format of ``empire_envs.agents.jax_ppo``, played with numpy as
``jaxppo:RUN/policy.npz``), ``learning_curve.png`` (when matplotlib is installed) and
``summary.json``, and TensorBoard files in ``tb/`` when tensorboardX is installed.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

import empire_envs.jax as empire_jax

from ..adapters.jax_env import seed_key
from ..agents.jax_ppo import MASKED_LOGIT, NumpyPolicy, layer_names, load_policy, save_policy
from ..core.errors import ILLEGAL_ACTION_OUTCOME
from ..core.jax_cache import compile_note, count_cache_hits, enable_compile_cache, is_compiled
from ..core.policy_input import PolicyInput
from ..evaluation.plotting import HAVE_MATPLOTLIB, pyplot, save_figure
from .jax_config import JaxSelfPlaySettings, JaxTrainConfig
from .plots import read_progress

ACTIVATION_FUNCTIONS: dict[str, Callable[[jax.Array], jax.Array]] = {"tanh": jnp.tanh, "relu": jax.nn.relu}
#: the columns of progress.csv, in order
PROGRESS_COLUMNS = (
    "timesteps",
    "updates",
    "wall_s",
    "steps_per_s",
    "episodes",
    "episode_return",
    "episode_length",
    "win_rate",
    "illegal_actions",
    "eval_win_rate",
    "eval_draw_rate",
    "eval_return",
    "eval_length",
    "eval_unfinished",
    "eval_pool_win_rate",
    "eval_pool_draw_rate",
    "learning_rate",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
)


class ActorCritic(nn.Module):
    """Two MLPs on the network input (the observation, optionally the mask): the actor's logits
    (one per action) and the critic's value.
    Layers are named ``actor_<i>`` / ``critic_<i>`` (``actor/<i>`` in a policy file)."""

    num_actions: int
    hidden_sizes: tuple[int, ...]
    activation: str = "tanh"

    @nn.compact
    def __call__(self, network_input: jax.Array) -> tuple[jax.Array, jax.Array]:
        activation = ACTIVATION_FUNCTIONS[self.activation]
        # orthogonal weights, zero biases, small policy and unit value outputs: the usual PPO start
        hidden_init = nn.initializers.orthogonal(math.sqrt(2.0))
        logits = network_input
        value = network_input
        for index, width in enumerate(self.hidden_sizes):
            logits = activation(nn.Dense(width, kernel_init=hidden_init, name=f"actor_{index}")(logits))
            value = activation(nn.Dense(width, kernel_init=hidden_init, name=f"critic_{index}")(value))
        last = len(self.hidden_sizes)
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01), name=f"actor_{last}")(logits)
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0), name=f"critic_{last}")(value)
        return logits, value[..., 0]


def masked_logits(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """The logits with every illegal action at ``MASKED_LOGIT`` (probability 0 after a softmax)."""
    return jnp.where(mask, logits, MASKED_LOGIT)


class Runner(NamedTuple):
    """Everything a run carries from one update to the next (a pytree)."""

    params: Any
    opt_state: Any
    env_state: Any
    episode_return: jax.Array  # the return so far of the game in each slot
    key: jax.Array
    updates: jax.Array  # updates done


class Transition(NamedTuple):
    """One batched step of a rollout (every field has the batch as its first axis)."""

    network_input: jax.Array  # what the network saw: the observation (and the mask, when fed)
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array


class RolloutStats(NamedTuple):
    """Sums over the games that ended in a rollout."""

    episodes: jax.Array
    wins: jax.Array
    returns: jax.Array
    lengths: jax.Array
    illegal: jax.Array


class LossStats(NamedTuple):
    """Sums over minibatch updates (divide by ``minibatches``)."""

    policy_loss: jax.Array
    value_loss: jax.Array
    entropy: jax.Array
    approx_kl: jax.Array
    clip_fraction: jax.Array
    minibatches: jax.Array


def _zeros(kind: type[Any]) -> Any:
    return kind(*(jnp.zeros((), jnp.float32) for _ in kind._fields))


def _add(left: Any, right: Any) -> Any:
    return jax.tree_util.tree_map(jnp.add, left, right)


class Trainer:
    """The compiled pieces of one run: ``init``, ``collect``, ``train_updates``, ``evaluate``
    (jitted; each compiles on its first call) and the network (``network``, ``params_to_arrays``)."""

    #: whether this trainer plays games of several seats (``SelfPlayTrainer``)
    several_seats = False

    def __init__(self, config: JaxTrainConfig) -> None:
        config.validate()
        self.config = config
        self.env = empire_jax.make(config.env_id, **config.env_kwargs)
        rules = self.env.rules
        self.observation_size = int(rules.observation_size)
        self.num_actions = int(rules.num_actions)
        self.num_players = int(rules.num_players)
        if self.num_players > 1 and not self.several_seats:
            raise ValueError(
                f"{self.env.id} is a game of {self.num_players} seats: train it with make_trainer(config) "
                "(a SelfPlayTrainer)"
            )
        if self.num_players == 1 and config.self_play != JaxSelfPlaySettings():
            raise ValueError(
                f"{self.env.id} is a one-seat game: the [self_play] settings are for games of several seats"
            )
        # a game of several seats names its winner ("won by player_0"): training.jax_selfplay reads it
        self.won = rules.outcome_names.index("won") if "won" in rules.outcome_names else -1
        self.illegal = rules.outcome_names.index(ILLEGAL_ACTION_OUTCOME)
        self.max_game_length = int(rules.game.max_game_length(rules.config))
        self.policy_input = PolicyInput(mask=config.mask_in_observation)
        self.input_size = self.policy_input.width(self.observation_size, self.num_actions)
        ppo = config.ppo
        self.network = ActorCritic(self.num_actions, tuple(int(w) for w in ppo.hidden_sizes), ppo.activation)
        self.optimizer_steps = max(1, config.num_updates) * ppo.update_epochs * ppo.num_minibatches
        self.schedule = (
            optax.linear_schedule(ppo.learning_rate, 0.0, self.optimizer_steps)
            if ppo.anneal_lr
            else optax.constant_schedule(ppo.learning_rate)
        )
        self.optimizer = optax.chain(optax.clip_by_global_norm(ppo.max_grad_norm), optax.adam(self.schedule, eps=1e-5))
        self.spare = max(1, config.num_envs // 8)
        self.initial_params = self.params_from_file(config.init_policy) if config.init_policy else None
        enable_compile_cache()  # before the first compile (core.jax_cache: once per process)
        self.init = jax.jit(self._init)
        self.collect = jax.jit(self._collect)
        self.train_updates = jax.jit(self._train_updates)
        self.evaluate = jax.jit(self._evaluate)

    # ------------------------------------------------------------------ the compiled pieces

    def forward(self, params: Any, network_input: jax.Array) -> tuple[jax.Array, jax.Array]:
        """The actor's logits (unmasked) and the critic's value of a batch of network inputs."""
        output: Any = self.network.apply(params, network_input)
        return output

    def network_input(self, state: Any) -> jax.Array:
        """What the network sees of a batch of states: the observation, then the mask when
        ``mask_in_observation`` (the order of ``core.policy_input.PolicyInput.build``)."""
        if not self.policy_input.mask:
            return state.observation
        return jnp.concatenate([state.observation, state.legal_action_mask.astype(jnp.float32)], axis=-1)

    def params_from_file(self, path: str) -> Any:
        """The network's parameters from the policy file ``path`` (``init_policy``)."""
        return self.params_from_policy(load_policy(path), path)

    def params_from_policy(self, policy: NumpyPolicy, path: str) -> Any:
        """The network's parameters from a policy file already read (``path`` names it in errors)."""
        if policy.architecture is not None:
            raise ValueError(
                f"init_policy {path} holds the {policy.architecture} network; compiled PPO trains the MLP of "
                "[ppo] hidden_sizes, so a run starts only from an MLP policy file"
            )
        ppo = self.config.ppo
        expected = (self.input_size, [int(w) for w in ppo.hidden_sizes], self.num_actions, ppo.activation)
        found = (policy.input_size, policy.hidden_sizes, policy.num_actions, policy.activation)
        if found != expected:
            raise ValueError(
                f"init_policy {path} has (inputs, hidden sizes, actions, activation) {found}; "
                f"this run's network has {expected}"
            )
        layers: dict[str, Any] = {}
        for network in ("actor", "critic"):
            for prefix in layer_names(network, ppo.hidden_sizes):
                try:
                    kernel, bias = policy.arrays[f"{prefix}/kernel"], policy.arrays[f"{prefix}/bias"]
                except KeyError as error:
                    raise ValueError(f"init_policy {path} lacks the array {error.args[0]!r}") from None
                layers[prefix.replace("/", "_")] = {"kernel": jnp.asarray(kernel), "bias": jnp.asarray(bias)}
        params = {"params": layers}
        template = self.network.init(jax.random.PRNGKey(0), jnp.zeros((self.input_size,), jnp.float32))
        shapes = jax.tree_util.tree_map(jnp.shape, template)
        if jax.tree_util.tree_map(jnp.shape, params) != shapes:
            raise ValueError(f"init_policy {path}: its arrays do not fit this run's network")
        return params

    def _fresh_params(self, key: jax.Array) -> Any:
        """The network's first parameters: ``init_policy``'s, else a fresh initialisation from ``key``."""
        if self.initial_params is not None:
            return self.initial_params
        return self.network.init(key, jnp.zeros((self.input_size,), jnp.float32))

    def _init(self, key: jax.Array) -> Any:
        key, net_key, deal_key = jax.random.split(key, 3)
        params = self._fresh_params(net_key)
        env_state = jax.vmap(self.env.init)(jax.random.split(deal_key, self.config.num_envs))
        return Runner(
            params=params,
            opt_state=self.optimizer.init(params),
            env_state=env_state,
            episode_return=jnp.zeros(self.config.num_envs, jnp.float32),
            key=key,
            updates=jnp.int32(0),
        )

    def _env_step(self, runner: Any, _: Any) -> tuple[Any, tuple[Any, Any]]:
        state = runner.env_state
        key, act_key, step_key, deal_key = jax.random.split(runner.key, 4)
        network_input = self.network_input(state)
        logits, value = self.forward(runner.params, network_input)
        logits = masked_logits(logits, state.legal_action_mask)
        action = jax.random.categorical(act_key, logits)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=1)[:, 0]
        stepped = jax.vmap(self.env.step)(state, action, jax.random.split(step_key, self.config.num_envs))
        reward = stepped.rewards[:, 0]
        done = stepped.terminated | stepped.truncated
        episode_return = runner.episode_return + reward
        stats = RolloutStats(
            episodes=done.sum().astype(jnp.float32),
            wins=(done & (stepped.outcome == self.won)).sum().astype(jnp.float32),
            returns=jnp.where(done, episode_return, 0.0).sum(),
            lengths=jnp.where(done, stepped.step_count, 0).sum().astype(jnp.float32),
            illegal=(done & (stepped.outcome == self.illegal)).sum().astype(jnp.float32),
        )
        transition = Transition(network_input, state.legal_action_mask, action, log_prob, value, reward, done)
        runner = runner._replace(
            env_state=empire_jax.reset_finished(self.env, stepped, deal_key, self.spare),
            episode_return=jnp.where(done, 0.0, episode_return),
            key=key,
        )
        return runner, (transition, stats)

    def _collect(self, runner: Any) -> tuple[Any, Any, Any]:
        """``num_steps`` batched steps of the current policy: the transitions ``[steps, games]``
        and the sums over the games that ended."""
        runner, (transitions, stats) = jax.lax.scan(self._env_step, runner, None, length=self.config.ppo.num_steps)
        return runner, transitions, jax.tree_util.tree_map(jnp.sum, stats)

    def _advantages(self, transitions: Transition, last_value: jax.Array) -> tuple[jax.Array, jax.Array]:
        """GAE advantages and the value targets (advantage + value), ``[steps, games]``."""
        gamma, lam = self.config.ppo.gamma, self.config.ppo.gae_lambda

        def backwards(carry: tuple[jax.Array, jax.Array], step: Transition) -> tuple[Any, jax.Array]:
            advantage, next_value = carry
            going_on = 1.0 - step.done.astype(jnp.float32)
            delta = step.reward + gamma * next_value * going_on - step.value
            advantage = delta + gamma * lam * going_on * advantage
            return (advantage, step.value), advantage

        _, advantages = jax.lax.scan(backwards, (jnp.zeros_like(last_value), last_value), transitions, reverse=True)
        return advantages, advantages + transitions.value

    def _loss(self, params: Any, batch: Any, advantages: jax.Array, targets: jax.Array) -> tuple[jax.Array, LossStats]:
        ppo = self.config.ppo
        logits, value = self.forward(params, batch.network_input)
        log_probs = jax.nn.log_softmax(masked_logits(logits, batch.mask))
        log_prob = jnp.take_along_axis(log_probs, batch.action[:, None], axis=1)[:, 0]
        log_ratio = log_prob - batch.log_prob
        ratio = jnp.exp(log_ratio)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        clipped = jnp.clip(ratio, 1.0 - ppo.clip_range, 1.0 + ppo.clip_range)
        policy_loss = -jnp.minimum(ratio * advantages, clipped * advantages).mean()
        value_loss = jnp.square(targets - value).mean()
        # masked actions have probability exactly 0 (and a finite log), so they add 0 here
        entropy = -(jnp.exp(log_probs) * log_probs).sum(axis=-1).mean()
        total = policy_loss + ppo.vf_coef * value_loss - ppo.ent_coef * entropy
        stats = LossStats(
            policy_loss=policy_loss,
            value_loss=value_loss,
            entropy=entropy,
            approx_kl=((ratio - 1.0) - log_ratio).mean(),
            clip_fraction=(jnp.abs(ratio - 1.0) > ppo.clip_range).mean(),
            minibatches=jnp.float32(1.0),
        )
        return total, stats

    def _epoch(self, carry: tuple[Any, Any, jax.Array], data: tuple[Any, jax.Array, jax.Array]) -> Any:
        params, opt_state, key = carry
        ppo = self.config.ppo
        key, shuffle_key = jax.random.split(key)
        size = self.config.steps_per_update
        order = jax.random.permutation(shuffle_key, size)

        def minibatches(leaf: jax.Array) -> jax.Array:
            flat = leaf.reshape((size, *leaf.shape[2:]))
            return jnp.take(flat, order, axis=0).reshape((ppo.num_minibatches, -1, *leaf.shape[2:]))

        def one_minibatch(state: tuple[Any, Any], minibatch: Any) -> tuple[tuple[Any, Any], LossStats]:
            params, opt_state = state
            grads, stats = jax.grad(self._loss, has_aux=True)(params, *minibatch)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), stats

        (params, opt_state), stats = jax.lax.scan(
            one_minibatch, (params, opt_state), jax.tree_util.tree_map(minibatches, data)
        )
        return (params, opt_state, key), jax.tree_util.tree_map(jnp.sum, stats)

    def _update(self, runner: Any) -> tuple[Any, Any, LossStats]:
        """One PPO update: a rollout, GAE, ``update_epochs`` epochs of minibatch steps."""
        runner, transitions, rollout_stats = self._collect(runner)
        _, last_value = self.forward(runner.params, self.network_input(runner.env_state))
        advantages, targets = self._advantages(transitions, last_value)
        key, update_key = jax.random.split(runner.key)
        (params, opt_state, _), loss_stats = self._epochs(runner, transitions, advantages, targets, update_key)
        runner = runner._replace(params=params, opt_state=opt_state, key=key, updates=runner.updates + 1)
        return runner, rollout_stats, loss_stats

    def _epochs(
        self, runner: Any, transitions: Any, advantages: jax.Array, targets: jax.Array, key: jax.Array
    ) -> tuple[tuple[Any, Any, jax.Array], LossStats]:
        data = (transitions, advantages, targets)

        def one_epoch(carry: tuple[Any, Any, jax.Array], _: Any) -> Any:
            return self._epoch(carry, data)

        carry, stats = jax.lax.scan(
            one_epoch, (runner.params, runner.opt_state, key), None, length=self.config.ppo.update_epochs
        )
        return carry, jax.tree_util.tree_map(jnp.sum, stats)

    def _train_updates(self, runner: Any, count: jax.Array) -> tuple[Any, Any, LossStats]:
        """``count`` updates (a traced number: one compiled program serves every chunk size),
        with the rollout and loss sums over them."""

        def body(_: jax.Array, carry: tuple[Runner, RolloutStats, LossStats]) -> Any:
            runner, rollout_sums, loss_sums = carry
            runner, rollout_stats, loss_stats = self._update(runner)
            return runner, _add(rollout_sums, rollout_stats), _add(loss_sums, loss_stats)

        return jax.lax.fori_loop(0, count, body, (runner, _zeros(RolloutStats), _zeros(LossStats)))

    def _evaluate(self, params: Any, key: jax.Array) -> tuple[jax.Array, ...]:
        """``eval.episodes`` games from ``key``, each played to its end by the most likely legal
        action: (wins, summed return, summed length, games that ended)."""
        episodes = self.config.eval.episodes
        step_key, deal_key = jax.random.split(key)
        state = jax.vmap(self.env.init)(jax.random.split(deal_key, episodes))

        def going(carry: tuple[Any, jax.Array, jax.Array]) -> jax.Array:
            state, _, steps = carry
            return (~(state.terminated | state.truncated)).any() & (steps < self.max_game_length)

        def step(carry: tuple[Any, jax.Array, jax.Array]) -> Any:
            state, returns, steps = carry
            logits, _ = self.forward(params, self.network_input(state))
            action = jnp.argmax(masked_logits(logits, state.legal_action_mask), axis=1)
            keys = jax.random.split(jax.random.fold_in(step_key, steps), episodes)
            state = jax.vmap(self.env.step)(state, action, keys)  # a finished game stays as it is
            return state, returns + state.rewards[:, 0], steps + 1

        state, returns, _ = jax.lax.while_loop(going, step, (state, jnp.zeros(episodes, jnp.float32), jnp.int32(0)))
        done = state.terminated | state.truncated
        return (done & (state.outcome == self.won)).sum(), returns.sum(), state.step_count.sum(), done.sum()

    # ------------------------------------------------------------------ parameters as arrays

    def params_to_arrays(self, params: Any) -> dict[str, np.ndarray]:
        """The network's weights named as in a policy file (``actor/<i>/kernel`` ...)."""
        arrays = {}
        hidden = self.config.ppo.hidden_sizes
        for network in ("actor", "critic"):
            for prefix in layer_names(network, hidden):
                layer = params["params"][prefix.replace("/", "_")]
                arrays[f"{prefix}/kernel"] = np.asarray(layer["kernel"], dtype=np.float32)
                arrays[f"{prefix}/bias"] = np.asarray(layer["bias"], dtype=np.float32)
        return arrays

    def save(self, path: Path, params: Any, timesteps: int) -> Path:
        """A policy file of ``params`` (``empire_envs.agents.jax_ppo`` reads it)."""
        config = self.config
        metadata = {
            "env_id": self.env.id,
            "env_kwargs": config.env_kwargs,
            "observation_size": self.observation_size,
            "num_actions": self.num_actions,
            "mask_in_observation": self.policy_input.mask,
            "hidden_sizes": [int(w) for w in config.ppo.hidden_sizes],
            "activation": config.ppo.activation,
            "timesteps": int(timesteps),
            "seed": config.seed,
            "trainer": "empire_envs.training.jax_ppo",
            "config": dataclasses.asdict(config),
        }
        return save_policy(path, self.params_to_arrays(params), metadata)

    def learning_rate(self, updates: int) -> float:
        """The learning rate after ``updates`` updates."""
        ppo = self.config.ppo
        return float(self.schedule(updates * ppo.update_epochs * ppo.num_minibatches))

    # ------------------------------------------------------------------ the host loop's pieces

    def place(self, runner: Runner) -> Runner:
        """``runner`` spread over every local device: each device steps ``num_envs / devices``
        of the games (their states, and every per-game array, split along the batch axis) and
        holds a copy of the parameters; jit then runs each compiled call on all of them (XLA's
        SPMD partitioner adds the communication). One device: ``runner`` as it is."""
        devices = jax.local_devices()
        if len(devices) == 1:
            return runner
        if self.config.num_envs % len(devices):
            raise ValueError(
                f"num_envs ({self.config.num_envs}) must split evenly over the {len(devices)} local devices"
            )
        mesh = jax.sharding.Mesh(np.array(devices), ("games",))
        split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("games"))
        copied = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
        per_game = self.per_game_fields(runner)

        def where(path: Any, leaf: Any) -> Any:
            return split if path and getattr(path[0], "name", None) in per_game else copied

        shardings = jax.tree_util.tree_map_with_path(where, runner)
        placed: Runner = jax.device_put(runner, shardings)
        return placed

    def per_game_fields(self, runner: Runner) -> frozenset[str]:
        """The fields of a runner whose arrays have the games as their first axis."""
        return frozenset({"env_state", "episode_return"})

    def evaluation(self, runner: Runner) -> dict[str, float]:
        """The compiled greedy evaluation of the runner's policy, as progress.csv columns."""
        wins, returns, lengths, ended = self.evaluate(runner.params, eval_key(self.config.seed))
        episodes = self.config.eval.episodes
        return {
            "eval_win_rate": int(wins) / episodes,
            "eval_return": float(returns) / episodes,
            "eval_length": int(lengths) / episodes,
            "eval_unfinished": episodes - int(ended),
        }

    def describe_evaluation(self, row: dict[str, float]) -> str:
        """One line of an evaluation's columns, for the log."""
        return (
            f"{row['eval_win_rate']:.1%} won, mean return {row['eval_return']:.3f}, mean length "
            f"{row['eval_length']:.1f} ({self.config.eval.episodes} greedy games)"
        )

    def progress_row(
        self, timesteps: int, updates: int, wall: float, steps_per_s: float, rollout: Any, losses: LossStats
    ) -> dict[str, Any]:
        """One row of progress.csv from the sums of a compiled call."""
        episodes = float(rollout.episodes)
        count = max(float(losses.minibatches), 1.0)
        return {
            "timesteps": timesteps,
            "updates": updates,
            "wall_s": round(wall, 3),
            "steps_per_s": round(steps_per_s, 1),
            "episodes": int(episodes),
            "episode_return": float(rollout.returns) / episodes if episodes else math.nan,
            "episode_length": float(rollout.lengths) / episodes if episodes else math.nan,
            "win_rate": float(rollout.wins) / episodes if episodes else math.nan,
            "illegal_actions": int(rollout.illegal),
            "learning_rate": self.learning_rate(updates),
            **{name: float(getattr(losses, name)) / count for name in LossStats._fields if name != "minibatches"},
        }


# ---------------------------------------------------------------------- the host loop


def eval_key(seed: int) -> jax.Array:
    """The key of the periodic evaluation's deals: the same deals at every evaluation of a run."""
    return jax.random.fold_in(seed_key(seed), 1_000_003)


def chunk_plan(config: JaxTrainConfig) -> list[int]:
    """The update counts of the compiled calls: about ``log_freq`` timesteps each, cut so that a
    call ends at the first update that reaches each multiple of the evaluation and checkpoint
    ``freq`` (where ``train`` evaluates or saves)."""
    per_update = config.steps_per_update
    every = max(1, config.log_freq // per_update)
    stops = {config.num_updates}
    for freq in (config.eval.freq, config.checkpoint.freq):
        if freq:
            multiples = range(freq, config.num_updates * per_update, freq)
            stops.update(-(-timesteps // per_update) for timesteps in multiples)
    chunks, done = [], 0
    while done < config.num_updates:
        end = min(done + every, min(stop for stop in stops if stop > done))
        chunks.append(end - done)
        done = end
    return chunks


def _due(timesteps: int, previous: int, freq: int) -> bool:
    return bool(freq) and timesteps // freq > previous // freq


def train(
    config: JaxTrainConfig, out: Path, log: Callable[[str], None] = print, trainer: Trainer | None = None
) -> dict[str, Any]:
    """Run one compiled PPO job; returns the summary also written to ``out/summary.json``.

    ``trainer`` (a ``Trainer`` of this very config, from ``training.jax_trainers.make_trainer``
    or ``checked_trainer``; a ``SelfPlayTrainer`` for a game of several seats) reuses functions
    compiled before, as the tests do; by default a new one-seat ``Trainer`` is built."""
    if trainer is None:
        trainer = Trainer(config)
    elif trainer.config != config:
        raise ValueError("the trainer was built for another config")
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({"backend": "jax", **dataclasses.asdict(config)}, indent=2) + "\n")
    per_update = config.steps_per_update
    log(
        f"training compiled PPO (jax {jax.__version__}, {jax.devices()[0].platform}) on {trainer.env.id} for "
        f"{config.num_updates * per_update:,} timesteps ({config.num_updates} updates of {config.num_envs} games "
        f"x {config.ppo.num_steps} steps), output in {out}"
    )
    name = trainer.env.id.rsplit("/", 1)[-1]
    if not is_compiled(trainer.train_updates):
        compile_note(f"{name} PPO update", config.num_envs, f"x {config.ppo.num_steps} steps", log=log)
    start = time.perf_counter()
    with count_cache_hits() as cache:
        runner = trainer.place(trainer.init(seed_key(config.seed)))
        # zero updates: only the compile (once per trainer; later calls of any chunk size reuse it)
        jax.block_until_ready(trainer.train_updates(runner, jnp.int32(0)))
    compile_s = time.perf_counter() - start
    log(f"compiled in {compile_s:.1f} s" + (" (loaded from the compile cache)" if cache.hits else ""))
    eval_s = 0.0
    bar = _progress_bar(config, config.num_updates * per_update)
    board = _tensorboard(out)
    rows: list[dict[str, Any]] = []
    last_eval: dict[str, float] = {}
    wall = 0.0
    updates = 0
    try:
        for chunk in chunk_plan(config):
            began = time.perf_counter()
            runner, rollout, losses = trainer.train_updates(runner, jnp.int32(chunk))
            jax.block_until_ready(runner)
            seconds = time.perf_counter() - began
            wall += seconds
            previous, updates = updates * per_update, updates + chunk
            timesteps = updates * per_update
            row = trainer.progress_row(timesteps, updates, wall, chunk * per_update / seconds, rollout, losses)
            if config.eval.freq and (_due(timesteps, previous, config.eval.freq) or updates == config.num_updates):
                if not is_compiled(trainer.evaluate):
                    compile_note(f"{name} greedy evaluation", config.eval.episodes, log=log)
                began = time.perf_counter()
                last_eval = trainer.evaluation(runner)
                eval_s += time.perf_counter() - began  # the first one compiles
                row.update(last_eval)
                log(f"eval at {timesteps:,} steps: {trainer.describe_evaluation(last_eval)}")
            if _due(timesteps, previous, config.checkpoint.freq):
                trainer.save(out / "checkpoints" / f"policy_{timesteps}.npz", runner.params, timesteps)
            rows.append(row)
            _write_progress(out / "progress.csv", rows)
            if board is not None:
                _write_scalars(board, row)
            if bar is not None:
                bar.set_postfix_str(_postfix(row), refresh=False)  # shown by the update's refresh
                bar.update(chunk * per_update)
    finally:
        if bar is not None:
            bar.close()
        if board is not None:
            board.close()
    timesteps = updates * per_update
    policy = trainer.save(out / "policy.npz", runner.params, timesteps)
    summary: dict[str, Any] = {
        "backend": "jax",
        "env_id": trainer.env.id,
        "env_kwargs": config.env_kwargs,
        "timesteps": timesteps,
        "num_envs": config.num_envs,
        "compile_s": round(compile_s, 2),
        "compile_cached": bool(cache.hits),  # loaded from the persistent compile cache
        "learn_wall_s": round(wall, 2),
        "eval_s": round(eval_s, 2),
        "env_steps_per_s": round(timesteps / wall, 1) if wall else 0.0,
        "policy": str(policy),
        "jax": jax.__version__,
        "device": str(jax.devices()[0]),
    }
    if rows:
        summary["last_rollout_win_rate"] = rows[-1]["win_rate"]
    if last_eval:
        summary["last_eval_win_rate"] = last_eval["eval_win_rate"]
        summary["last_eval_return"] = last_eval["eval_return"]
        summary["eval_episodes"] = config.eval.episodes
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if HAVE_MATPLOTLIB and rows:
        plot_progress(out, title=f"compiled PPO on {trainer.env.id}")
    return summary


def _tensorboard(out: Path) -> Any:
    """A TensorBoard writer into ``out/tb`` when tensorboardX is installed (it writes TensorBoard's
    files with numpy and protobuf alone, no torch or TensorFlow), else None: the CSV is the log."""
    if importlib.util.find_spec("tensorboardX") is None:
        return None
    from tensorboardX import SummaryWriter

    return SummaryWriter(str(out / "tb"))


def _write_scalars(board: Any, row: dict[str, Any]) -> None:
    """One progress row as scalars at its timestep: ``eval/...`` for the evaluation, ``train/...``."""
    for column, value in row.items():
        # a column without games this time (NaN) is left out rather than drawn as a gap
        if column != "timesteps" and value is not None and value != "" and not math.isnan(float(value)):
            group = "eval" if column.startswith("eval_") else "train"
            board.add_scalar(f"{group}/{column.removeprefix('eval_')}", float(value), row["timesteps"])


def _write_progress(path: Path, rows: list[dict[str, Any]]) -> None:
    """The whole CSV again (a few hundred rows at most), so a reader never sees half a row."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=PROGRESS_COLUMNS, extrasaction="ignore", restval="")
        writer.writeheader()
        writer.writerows(rows)


def _postfix(row: dict[str, Any]) -> str:
    text = f"{row['steps_per_s']:,.0f} steps/s, won {row['win_rate']:.1%} (rollout)"
    if "eval_win_rate" in row:
        text += f", {row['eval_win_rate']:.1%} (eval)"
    return text


def _progress_bar(config: JaxTrainConfig, total: int) -> Any:
    if not config.progress_bar or importlib.util.find_spec("tqdm") is None:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="step", unit_scale=True, dynamic_ncols=True)


def plot_progress(run_dir: Path, out: Path | None = None, title: str = "") -> Path:
    """Episode return and win rate against timesteps (the rollouts' games and the greedy
    evaluations) from ``progress.csv``; returns the PNG path."""
    plt = pyplot()
    out = out if out is not None else run_dir / "learning_curve.png"
    progress = read_progress(run_dir)
    steps = progress["timesteps"]
    figure, (ax_return, ax_win) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    panels = ((ax_return, "episode_return", "eval_return", 1.0), (ax_win, "win_rate", "eval_win_rate", 100.0))
    for axis, key, eval_key, scale in panels:
        axis.plot(steps, scale * progress[key], "-", label="training (games ended in the rollouts)")
        evaluated = progress.get(eval_key)
        if evaluated is not None and (~np.isnan(evaluated)).any():
            keep = ~np.isnan(evaluated)
            axis.plot(steps[keep], scale * evaluated[keep], "o-", label="greedy evaluation")
    # a self-play run (training.jax_selfplay): its rollout games are the learner's against the
    # pool, its greedy evaluation is against random, and it is evaluated against the pool too
    pool = progress.get("eval_pool_win_rate")
    if pool is not None and (~np.isnan(pool)).any():
        keep = ~np.isnan(pool)
        ax_win.plot(steps[keep], 100.0 * pool[keep], "s-", label="greedy evaluation against the snapshot pool")
        for line, label in zip(
            ax_win.lines,
            ("training (the learner's games against the pool)", "greedy evaluation against random"),
            strict=False,
        ):
            line.set_label(label)
    ax_return.set(xlabel="timesteps", ylabel="episode return", title="Return")
    ax_win.set(xlabel="timesteps", ylabel="win rate (%)", title="Win rate", ylim=(-2, 102))
    return save_figure(figure, out, axes=(ax_return, ax_win), title=title)


def plot_runs(runs: dict[str, Path], out: Path, title: str = "") -> Path:
    """The win rates of several runs side by side: the rollouts' games and the greedy evaluations
    of each run's ``progress.csv`` against timesteps (label -> run folder); returns the PNG path."""
    plt = pyplot()
    figure, (ax_rollout, ax_eval) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    for label, run_dir in runs.items():
        progress = read_progress(run_dir)
        steps, evaluated = progress["timesteps"], progress["eval_win_rate"]
        ax_rollout.plot(steps, 100.0 * progress["win_rate"], "-", label=label)
        keep = ~np.isnan(evaluated)
        ax_eval.plot(steps[keep], 100.0 * evaluated[keep], "o-", label=label)
    ax_rollout.set(xlabel="timesteps", ylabel="win rate (%)", title="Games ended in the rollouts")
    ax_eval.set(xlabel="timesteps", ylabel="win rate (%)", title="Greedy evaluation")
    return save_figure(figure, out, axes=(ax_rollout, ax_eval), title=title)
