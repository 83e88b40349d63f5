"""Self-play compiled PPO for the twins of games of several seats (Map Duel): one network for
every seat, in one XLA program with its games.

``python -m empire_envs train --backend jax --config jax/map_duel`` builds a ``SelfPlayTrainer``
(``training.jax_trainers.make_trainer`` picks it for a twin with ``num_players > 1``); the host loop,
the policy file, checkpoints, progress.csv, TensorBoard and the learning curve are those of
``training.jax_ppo``. The observations are already seat-relative (a seat sees the game from its
own chair), so one actor-critic serves every seat.

**Who plays.** The ``num_envs`` game slots are split once (``JaxSelfPlaySettings``):

====================  =====================================================================
slots                 seats
====================  =====================================================================
``0 .. S-1``          self-play: the learner takes every seat (``S = self_play_slots``)
``S + k*m .. +m-1``   snapshot ``k`` of the pool (``m`` slots per snapshot) on every seat but
                      the learner's, which is drawn uniformly at each deal
====================  =====================================================================

The pool holds ``pool_size`` past actors, stacked along a first axis in the compiled state
(``SelfPlayRunner.pool``), so a step runs the learner on every game and snapshot ``k`` only on
its own group of slots (one ``vmap`` over the pool). It starts as copies of the untrained
actor; every ``refresh_updates`` updates the learner's actor replaces the oldest snapshot. With
``opponent_policy`` the pool holds that frozen policy (any widths) and is never refreshed: the
learner becomes a best response to it. Snapshots sample from their masked policy, as the
learner does.

**Transitions per seat.** A step is a decision of one seat (``state.current_player``), and
only the learner's decisions are trained on (``SeatTransition.learner``; the snapshots' carry
weight 0 in the loss). A seat's transition runs from its decision to its next decision: its
reward is the sum of every reward the seat received from that decision up to its next one
(rewards of the other seats' steps included), its bootstrap is the value of its next decision,
and a game that ends in between ends it (a truncation too, as for the one-seat trainer).
``seat_advantages`` computes GAE that way, per seat, in one reverse scan; the decisions of a
seat still pending when the rollout stops are bootstrapped with the value of that seat's own
view of the last state (``env.observe(state, seat)``).

**Evaluation while training** (``eval.freq``): the learner's most likely legal action against
(1) a uniformly random legal action on every other seat and (2) each snapshot of the pool
playing its own most likely legal action, ``eval.episodes`` games each (rounded up to a
multiple of the pool size for (2)), the learner's seat rotating with the game's index; the same
deals at every evaluation. Columns ``eval_win_rate``/``eval_draw_rate`` (against random) and
``eval_pool_win_rate``/``eval_pool_draw_rate``; ``win_rate`` of the rollouts is the learner's
share of won games against the pool (self-play games are not counted: someone wins every one).
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import empire_envs.jax as empire_jax

from ..agents.jax_ppo import load_policy
from .jax_config import JaxTrainConfig
from .jax_ppo import (
    ACTIVATION_FUNCTIONS,
    LossStats,
    Trainer,
    eval_key,
    masked_logits,
)

#: a result naming its winner, in each game's words: Map Duel's ``"won by player_1"``, Generals'
#: ``"won by player_1 (domination victory)"``, Pillars' ``"won by seat 1"`` and its campaign's
#: ``"campaign won by seat 1"``
WINNER_PATTERN = re.compile(r"(?:campaign )?won by (?:player_|seat )(\d+)(?: \(.+\))?")


def winner_table(outcome_names: tuple[str, ...] | list[str]) -> np.ndarray:
    """For each outcome index, the seat it names as the winner (``"won by player_1"`` or
    ``"won by seat 1"`` -> 1), -1 for an outcome without one (ongoing, draw, truncated, an
    illegal action)."""
    table = []
    for name in outcome_names:
        match = WINNER_PATTERN.fullmatch(name)
        table.append(int(match.group(1)) if match else -1)
    return np.asarray(table, dtype=np.int32)


def actor_params(params: Any) -> dict[str, Any]:
    """The actor's layers of the network's parameters (``actor_0`` ...), all a snapshot needs."""
    return {name: layer for name, layer in params["params"].items() if name.startswith("actor_")}


def actor_logits(actor: dict[str, Any], activation: str, network_input: jax.Array) -> jax.Array:
    """The logits of an actor's layers (``actor_params``) for a batch of inputs."""
    function = ACTIVATION_FUNCTIONS[activation]
    x = network_input
    last = len(actor) - 1
    for index in range(len(actor)):
        layer = actor[f"actor_{index}"]
        x = x @ layer["kernel"] + layer["bias"]
        if index < last:
            x = function(x)
    return x


def seat_advantages(
    seat: jax.Array,
    value: jax.Array,
    rewards: jax.Array,
    done: jax.Array,
    last_values: jax.Array,
    gamma: float,
    gae_lambda: float,
) -> tuple[jax.Array, jax.Array]:
    """GAE per seat over a rollout of decisions of several seats (module docstring).

    ``seat`` ``[steps, games]``: who decided at each step; ``value`` ``[steps, games]``: the
    critic's value of that decision; ``rewards`` ``[steps, games, seats]``: every seat's reward
    of the step; ``done`` ``[steps, games]``: the step ended the game; ``last_values``
    ``[games, seats]``: each seat's value of the state the rollout stopped in. Returns the
    advantage of each step's decision for the seat that made it, and its value target
    (advantage + value), both ``[steps, games]``."""
    seats = rewards.shape[-1]

    def backwards(carry: tuple[jax.Array, jax.Array, jax.Array], step: Any) -> tuple[Any, jax.Array]:
        next_value, next_advantage, pending = carry
        seat, value, reward, done = step
        ended = done[:, None]
        # the step that ends a game starts a seat's last stretch; what came after is another game
        pending = jnp.where(ended, reward, pending + reward)
        next_value = jnp.where(ended, 0.0, next_value)
        next_advantage = jnp.where(ended, 0.0, next_advantage)
        mover = jax.nn.one_hot(seat, seats, dtype=jnp.bool_)
        earned = jnp.sum(jnp.where(mover, pending, 0.0), axis=-1)
        delta = earned + gamma * jnp.sum(jnp.where(mover, next_value, 0.0), axis=-1) - value
        advantage = delta + gamma * gae_lambda * jnp.sum(jnp.where(mover, next_advantage, 0.0), axis=-1)
        next_value = jnp.where(mover, value[:, None], next_value)
        next_advantage = jnp.where(mover, advantage[:, None], next_advantage)
        pending = jnp.where(mover, 0.0, pending)
        return (next_value, next_advantage, pending), advantage

    start = (last_values, jnp.zeros_like(last_values), jnp.zeros_like(last_values))
    _, advantages = jax.lax.scan(backwards, start, (seat, value, rewards, done), reverse=True)
    return advantages, advantages + value


class SelfPlayRunner(NamedTuple):
    """Everything a self-play run carries from one update to the next (a pytree)."""

    params: Any
    opt_state: Any
    env_state: Any
    episode_return: jax.Array  # [games, seats]: each seat's return so far in each slot's game
    key: jax.Array
    updates: jax.Array
    pool: Any  # the snapshots' actors, stacked: every leaf [pool_size, ...]
    learner_seat: jax.Array  # [games]: the learner's seat in a snapshot slot's game


class SeatTransition(NamedTuple):
    """One batched step of a self-play rollout (the batch first, after the steps' axis)."""

    network_input: jax.Array
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    seat: jax.Array  # who decided
    learner: jax.Array  # whether the learner decided (only those are trained on)
    rewards: jax.Array  # [games, seats]
    done: jax.Array


class SelfPlayStats(NamedTuple):
    """Sums over the games that ended in a rollout (the learner's view of the pool games)."""

    episodes: jax.Array  # every game that ended
    pool_games: jax.Array  # of which against a snapshot
    wins: jax.Array  # the learner won (pool games)
    draws: jax.Array
    returns: jax.Array  # the learner's return (pool games)
    lengths: jax.Array  # decisions (every game)
    illegal: jax.Array


def _zeros(kind: type[Any]) -> Any:
    return kind(*(jnp.zeros((), jnp.float32) for _ in kind._fields))


class SelfPlayTrainer(Trainer):
    """The compiled pieces of a self-play run (module docstring); the interface of ``Trainer``."""

    several_seats = True

    def __init__(self, config: JaxTrainConfig) -> None:
        super().__init__(config)
        if config.mask_in_observation:
            raise ValueError(
                "mask_in_observation is for one-seat games: in a game of several seats the value of a seat "
                "not to act is needed, and only the seat to act has a mask"
            )
        play = config.self_play
        self.pool_size = play.pool_size
        pool_slots = int(round((1.0 - play.share) * config.num_envs)) // self.pool_size * self.pool_size
        if play.share < 1.0 and pool_slots == 0:
            raise ValueError(
                f"self_play.share = {play.share} leaves {config.num_envs - int(round(play.share * config.num_envs))} "
                f"slots for a pool of {self.pool_size} snapshots: fewer than one each; lower pool_size or share, "
                "or raise num_envs"
            )
        self.self_play_slots = config.num_envs - pool_slots
        self.slots_per_snapshot = pool_slots // self.pool_size
        rules = self.env.rules
        self.winners = jnp.asarray(winner_table(rules.outcome_names))
        self.draw = rules.outcome_names.index("draw") if "draw" in rules.outcome_names else -1
        self.frozen: dict[str, Any] | None = None
        self.pool_activation = config.ppo.activation
        if play.opponent_policy:
            self.frozen, self.pool_activation = self._frozen_actor(play.opponent_policy)
        self.pool_eval_games = -(-config.eval.episodes // self.pool_size) * self.pool_size
        self.evaluate_pool = jax.jit(self._evaluate_pool)

    def _frozen_actor(self, path: str) -> tuple[dict[str, Any], str]:
        """The actor of the policy file ``path``, as ``actor_params`` lays it out, and its activation."""
        policy = load_policy(path)
        if policy.observation_size != self.observation_size or policy.num_actions != self.num_actions:
            raise ValueError(
                f"self_play.opponent_policy {path} takes {policy.observation_size} observations and "
                f"{policy.num_actions} actions; {self.env.id} has {self.observation_size} and {self.num_actions}"
            )
        if policy.policy_input.mask:
            raise ValueError(f"self_play.opponent_policy {path} reads the mask too: a one-seat policy")
        actor = {
            f"actor_{index}": {"kernel": jnp.asarray(kernel), "bias": jnp.asarray(bias)}
            for index, (kernel, bias) in enumerate(policy.layers)
        }
        return actor, policy.activation

    # ------------------------------------------------------------------ the compiled pieces

    def _init(self, key: jax.Array) -> SelfPlayRunner:
        key, net_key, deal_key, seat_key = jax.random.split(key, 4)
        params = self._fresh_params(net_key)
        games = self.config.num_envs
        env_state = jax.vmap(self.env.init)(jax.random.split(deal_key, games))
        first = self.frozen if self.frozen is not None else actor_params(params)
        pool = jax.tree_util.tree_map(lambda leaf: jnp.stack([leaf] * self.pool_size), first)
        return SelfPlayRunner(
            params=params,
            opt_state=self.optimizer.init(params),
            env_state=env_state,
            episode_return=jnp.zeros((games, self.num_players), jnp.float32),
            key=key,
            updates=jnp.int32(0),
            pool=pool,
            learner_seat=jax.random.randint(seat_key, (games,), 0, self.num_players, dtype=jnp.int32),
        )

    def per_game_fields(self, runner: Any) -> frozenset[str]:
        return frozenset({"env_state", "episode_return", "learner_seat"})

    def pool_logits(self, pool: Any, observation: jax.Array) -> jax.Array:
        """Each snapshot's logits on its own group of pool slots: ``observation`` holds the pool
        slots' observations (``[pool_size * slots_per_snapshot, obs]``)."""
        grouped = observation.reshape((self.pool_size, -1, observation.shape[-1]))
        logits = jax.vmap(lambda actor, x: actor_logits(actor, self.pool_activation, x))(pool, grouped)
        return logits.reshape((observation.shape[0], self.num_actions))

    def learner_decides(self, runner: SelfPlayRunner) -> jax.Array:
        """``[games]``: whether the learner decides this step in each slot."""
        slot = jnp.arange(self.config.num_envs)
        return (slot < self.self_play_slots) | (runner.env_state.current_player == runner.learner_seat)

    def _env_step(self, runner: SelfPlayRunner, _: Any) -> tuple[SelfPlayRunner, tuple[SeatTransition, SelfPlayStats]]:
        state = runner.env_state
        games = self.config.num_envs
        key, act_key, step_key, deal_key, seat_key = jax.random.split(runner.key, 5)
        observation = state.observation
        logits, value = self.forward(runner.params, observation)
        learner = self.learner_decides(runner)
        if self.slots_per_snapshot:
            opponent = self.pool_logits(runner.pool, observation[self.self_play_slots :])
            snapshot_logits = jnp.concatenate([logits[: self.self_play_slots], opponent], axis=0)
            logits = jnp.where(learner[:, None], logits, snapshot_logits)
        logits = masked_logits(logits, state.legal_action_mask)
        action = jax.random.categorical(act_key, logits)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=1)[:, 0]
        stepped = jax.vmap(self.env.step)(state, action, jax.random.split(step_key, games))
        done = stepped.terminated | stepped.truncated
        episode_return = runner.episode_return + stepped.rewards
        pool_game = jnp.arange(games) >= self.self_play_slots
        ended_in_pool = done & pool_game
        winner = self.winners[stepped.outcome]
        mine = jnp.take_along_axis(episode_return, runner.learner_seat[:, None], axis=1)[:, 0]
        stats = SelfPlayStats(
            episodes=done.sum().astype(jnp.float32),
            pool_games=ended_in_pool.sum().astype(jnp.float32),
            wins=(ended_in_pool & (winner == runner.learner_seat)).sum().astype(jnp.float32),
            draws=(ended_in_pool & (stepped.outcome == self.draw)).sum().astype(jnp.float32),
            returns=jnp.where(ended_in_pool, mine, 0.0).sum(),
            lengths=jnp.where(done, stepped.step_count, 0).sum().astype(jnp.float32),
            illegal=(done & (stepped.outcome == self.illegal)).sum().astype(jnp.float32),
        )
        transition = SeatTransition(
            network_input=observation,
            mask=state.legal_action_mask,
            action=action,
            log_prob=log_prob,
            value=value,
            seat=state.current_player,
            learner=learner,
            rewards=stepped.rewards,
            done=done,
        )
        new_seat = jax.random.randint(seat_key, (games,), 0, self.num_players, dtype=jnp.int32)
        runner = runner._replace(
            env_state=empire_jax.reset_finished(self.env, stepped, deal_key, self.spare),
            episode_return=jnp.where(done[:, None], 0.0, episode_return),
            learner_seat=jnp.where(done, new_seat, runner.learner_seat),
            key=key,
        )
        return runner, (transition, stats)

    def seat_values(self, params: Any, state: Any) -> jax.Array:
        """``[games, seats]``: the critic's value of each seat's own view of ``state``."""
        views = [jax.vmap(self.env.observe, in_axes=(0, None))(state, seat) for seat in range(self.num_players)]
        return jnp.stack([self.forward(params, view)[1] for view in views], axis=-1)

    def _update(self, runner: SelfPlayRunner) -> tuple[SelfPlayRunner, SelfPlayStats, LossStats]:
        runner, transitions, rollout_stats = self._collect(runner)
        ppo = self.config.ppo
        advantages, targets = seat_advantages(
            transitions.seat,
            transitions.value,
            transitions.rewards,
            transitions.done,
            self.seat_values(runner.params, runner.env_state),
            ppo.gamma,
            ppo.gae_lambda,
        )
        key, update_key = jax.random.split(runner.key)
        (params, opt_state, _), loss_stats = self._epochs(runner, transitions, advantages, targets, update_key)
        updates = runner.updates + 1
        runner = runner._replace(
            params=params,
            opt_state=opt_state,
            key=key,
            updates=updates,
            pool=self.refreshed_pool(runner.pool, params, updates),
        )
        return runner, rollout_stats, loss_stats

    def refreshed_pool(self, pool: Any, params: Any, updates: jax.Array) -> Any:
        """The pool after ``updates`` updates: every ``refresh_updates``-th one replaces the oldest
        snapshot (slot ``(updates / refresh_updates - 1) mod pool_size``) by the learner's actor."""
        every = self.config.self_play.refresh_updates
        if not every or self.frozen is not None:
            return pool
        due = updates % every == 0
        slot = (updates // every - 1) % self.pool_size
        return jax.tree_util.tree_map(
            lambda stack, leaf: jnp.where(due, stack.at[slot].set(leaf), stack), pool, actor_params(params)
        )

    def _loss(
        self, params: Any, batch: SeatTransition, advantages: jax.Array, targets: jax.Array
    ) -> tuple[jax.Array, LossStats]:
        ppo = self.config.ppo
        weight = batch.learner.astype(jnp.float32)
        count = jnp.maximum(weight.sum(), 1.0)

        def mean(values: jax.Array) -> jax.Array:
            return (weight * values).sum() / count

        logits, value = self.forward(params, batch.network_input)
        log_probs = jax.nn.log_softmax(masked_logits(logits, batch.mask))
        log_prob = jnp.take_along_axis(log_probs, batch.action[:, None], axis=1)[:, 0]
        log_ratio = log_prob - batch.log_prob
        ratio = jnp.exp(log_ratio)
        centred = advantages - mean(advantages)
        advantages = centred / (jnp.sqrt(mean(jnp.square(centred))) + 1e-8)
        clipped = jnp.clip(ratio, 1.0 - ppo.clip_range, 1.0 + ppo.clip_range)
        policy_loss = -mean(jnp.minimum(ratio * advantages, clipped * advantages))
        value_loss = mean(jnp.square(targets - value))
        entropy = mean(-(jnp.exp(log_probs) * log_probs).sum(axis=-1))
        total = policy_loss + ppo.vf_coef * value_loss - ppo.ent_coef * entropy
        stats = LossStats(
            policy_loss=policy_loss,
            value_loss=value_loss,
            entropy=entropy,
            approx_kl=mean((ratio - 1.0) - log_ratio),
            clip_fraction=mean((jnp.abs(ratio - 1.0) > ppo.clip_range).astype(jnp.float32)),
            minibatches=jnp.float32(1.0),
        )
        return total, stats

    def _train_updates(self, runner: Any, count: jax.Array) -> Any:
        def body(_: jax.Array, carry: tuple[Any, SelfPlayStats, LossStats]) -> Any:
            runner, rollout_sums, loss_sums = carry
            runner, rollout_stats, loss_stats = self._update(runner)
            add = lambda left, right: jax.tree_util.tree_map(jnp.add, left, right)  # noqa: E731
            return runner, add(rollout_sums, rollout_stats), add(loss_sums, loss_stats)

        return jax.lax.fori_loop(0, count, body, (runner, _zeros(SelfPlayStats), _zeros(LossStats)))

    # ------------------------------------------------------------------ evaluation

    def _play_out(self, params: Any, opponent: Any, key: jax.Array, games: int) -> tuple[jax.Array, ...]:
        """``games`` games from ``key``: the learner's greedy action on seat ``game mod seats``,
        ``opponent(state, key)`` on the others; (wins, draws, learner's return, length, ended)."""
        step_key, deal_key = jax.random.split(key)
        state = jax.vmap(self.env.init)(jax.random.split(deal_key, games))
        seat = jnp.arange(games, dtype=jnp.int32) % self.num_players

        def going(carry: tuple[Any, jax.Array, jax.Array]) -> jax.Array:
            state, _, steps = carry
            return (~(state.terminated | state.truncated)).any() & (steps < self.max_game_length)

        def step(carry: tuple[Any, jax.Array, jax.Array]) -> Any:
            state, returns, steps = carry
            keys = jax.random.split(jax.random.fold_in(step_key, steps), games + 1)
            logits, _ = self.forward(params, state.observation)
            mine = jnp.argmax(masked_logits(logits, state.legal_action_mask), axis=1)
            theirs = opponent(state, keys[-1])
            action = jnp.where(state.current_player == seat, mine, theirs)
            state = jax.vmap(self.env.step)(state, action, keys[:-1])  # a finished game stays as it is
            earned = jnp.take_along_axis(state.rewards, seat[:, None], axis=1)[:, 0]
            return state, returns + earned, steps + 1

        state, returns, _ = jax.lax.while_loop(going, step, (state, jnp.zeros(games, jnp.float32), jnp.int32(0)))
        done = state.terminated | state.truncated
        return (
            (done & (self.winners[state.outcome] == seat)).sum(),
            (done & (state.outcome == self.draw)).sum(),
            returns.sum(),
            state.step_count.sum(),
            done.sum(),
        )

    def _evaluate(self, params: Any, key: jax.Array) -> tuple[jax.Array, ...]:
        """Against a uniformly random legal action on every other seat (module docstring)."""

        def random_legal(state: Any, key: jax.Array) -> jax.Array:
            return jax.random.categorical(key, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))

        return self._play_out(params, random_legal, key, self.config.eval.episodes)

    def _evaluate_pool(self, params: Any, pool: Any, key: jax.Array) -> tuple[jax.Array, ...]:
        """Against each snapshot playing its most likely legal action, on its own group of games."""

        def snapshot(state: Any, _: jax.Array) -> jax.Array:
            logits = masked_logits(self.pool_logits(pool, state.observation), state.legal_action_mask)
            return jnp.argmax(logits, axis=1)

        return self._play_out(params, snapshot, key, self.pool_eval_games)

    def evaluation(self, runner: Any) -> dict[str, float]:
        key = eval_key(self.config.seed)
        episodes = self.config.eval.episodes
        wins, draws, returns, lengths, ended = self.evaluate(runner.params, key)
        pool_wins, pool_draws, *_ = self.evaluate_pool(runner.params, runner.pool, key)
        return {
            "eval_win_rate": int(wins) / episodes,
            "eval_draw_rate": int(draws) / episodes,
            "eval_return": float(returns) / episodes,
            "eval_length": int(lengths) / episodes,
            "eval_unfinished": episodes - int(ended),
            "eval_pool_win_rate": int(pool_wins) / self.pool_eval_games,
            "eval_pool_draw_rate": int(pool_draws) / self.pool_eval_games,
        }

    def describe_evaluation(self, row: dict[str, float]) -> str:
        return (
            f"{row['eval_win_rate']:.1%} won against random ({row['eval_draw_rate']:.1%} drawn), "
            f"{row['eval_pool_win_rate']:.1%} against the snapshot pool ({row['eval_pool_draw_rate']:.1%} drawn), "
            f"mean length {row['eval_length']:.1f} ({self.config.eval.episodes} greedy games each)"
        )

    def progress_row(
        self, timesteps: int, updates: int, wall: float, steps_per_s: float, rollout: Any, losses: LossStats
    ) -> dict[str, Any]:
        row = super().progress_row(timesteps, updates, wall, steps_per_s, rollout, losses)
        pool_games = float(rollout.pool_games)
        row["episode_return"] = float(rollout.returns) / pool_games if pool_games else math.nan
        row["win_rate"] = float(rollout.wins) / pool_games if pool_games else math.nan
        return row
