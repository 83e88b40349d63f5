"""Behaviour cloning for the compiled trainer: a policy file fitted to a teacher's moves, to
start a ``--backend jax`` run from (``init_policy``).

``python -m empire_envs imitate --backend jax --config jax/map_duel --teacher heuristic
--episodes 600 --out runs/duel-bc`` runs ``imitate``; needs the ``jax`` extra, not torch.

1. **Demonstrations** (``collect``): the teacher plays every seat of ``episodes`` games of the
   config's Python env (game ``i`` dealt with seed ``seed + i``; the seat ``s`` agent seeded
   ``seed + i + 7919 * s``). At every decision the teacher's move is the label; with
   probability ``explore`` a uniformly random legal action is played instead (drawn from a
   generator seeded with ``seed``), so the student also sees positions the teacher would not
   reach. The moves the teacher accepts (``targets``) are its move and, for a teacher with
   ``acceptable_actions`` (reveal-solve: once nothing is hidden, every move that keeps the game
   winnable), the others it names. A decision's value target is the seat's discounted
   return-to-go over its own decisions: every reward the seat receives between one of its decisions and the next is
   credited to the first (the rule of ``training.jax_selfplay``), discounted by ``ppo.gamma``
   per decision of that seat. A one-seat game works the same way with one seat.
2. **Fit** (``fit``): the network (``network="mlp"``: the config's, ``ppo.hidden_sizes`` and
   ``ppo.activation``, initialised as the trainer initialises it from the config's seed;
   ``network="relational"``: Empire Solitaire's relational network, ``games.solitaire.network``,
   initialised from the config's seed) minimises minus the log
   of the probability of the accepted moves under the masked logits (the cross-entropy of the
   teacher's move when it accepts no other) plus ``ppo.vf_coef`` times the squared error of the
   value, with Adam (a constant learning rate, or with ``lr_schedule="cosine"`` one that falls
   to 0 along a half cosine over the fit), ``epochs`` passes in shuffled minibatches, from a fresh
   network or from a policy file of the same network (``init_policy``). Games with
   index 9 mod 10 are held out: the summary gives how often the student's most likely legal
   action is a move the teacher accepts, on the games fitted and on those held out.
   ``dagger_rounds`` (DAgger) then lets the student play new games, labelled by the teacher, and
   fits again on all the data (``imitate``). Where a teacher ``judges`` a position (reveal-solve:
   once nothing is hidden) its accepted moves are every move that keeps a win, so the data marks
   the row ``complete`` (when some move wins) and ``every_move_weight`` adds that weight times
   the mean binary cross-entropy of each legal move's logit against "accepted"; with
   ``drop_lost`` the judged positions where no move wins are left out (every move there loses,
   so the teacher's move teaches nothing and would be fitted as if it mattered).
3. **Output**: ``OUT/policy.npz`` (the policy file of ``empire_envs.agents.jax_ppo``: plays as
   ``jaxppo:OUT/policy.npz``; the MLP's also starts a run with ``--set init_policy=OUT/policy.npz``),
   ``config.json`` and ``summary.json``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ..agents.base import game_key, make_agent
from ..agents.jax_ppo import JaxPPOAgent, save_policy
from ..games.solitaire import network as relational
from ..registry import is_multiplayer, make_any
from .jax_config import JaxTrainConfig
from .jax_ppo import Trainer, masked_logits
from .jax_trainers import make_trainer

#: seeds of the teacher on seat ``s`` are ``seed + game + SEAT_SEED_STRIDE * s``
SEAT_SEED_STRIDE = 7919
#: a game's index mod this is ``HELD_OUT`` when it is held out of the fit
HELD_OUT_EVERY = 10
HELD_OUT = 9


def _returns_to_go(seats: list[int], credited: list[float], gamma: float) -> list[float]:
    """Each decision's discounted return over its seat's own later decisions."""
    result = [0.0] * len(seats)
    running: dict[int, float] = {}
    for index in range(len(seats) - 1, -1, -1):
        seat = seats[index]
        running[seat] = credited[index] + gamma * running.get(seat, 0.0)
        result[index] = running[seat]
    return result


#: what plays the moves in a DAgger round: (observation, mask) -> action
Student = Callable[[np.ndarray, np.ndarray], int]


def collect(
    config: JaxTrainConfig,
    teacher: str,
    episodes: int,
    seed: int,
    explore: float,
    student: Student | None = None,
    drop_lost: bool = False,
) -> dict[str, np.ndarray]:
    """The teacher's decisions on every seat (module docstring): observations, masks, the
    teacher's actions, the moves it accepts (``targets``), whether they are every move that keeps
    a win (``complete``: the teacher ``judges`` the position and some move wins), value targets, the seat and the game
    of each, and each game's ``outcomes`` (the return of its first seat). With a ``student`` the
    student plays every move (a DAgger round) and the teacher only labels. With ``drop_lost``,
    the positions the teacher judges where no move wins are played but not recorded."""
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    if not 0.0 <= explore < 1.0:
        raise ValueError(f"explore must be in [0, 1), got {explore}")
    env = make_any(config.env_id, **config.env_kwargs)
    multiplayer = is_multiplayer(env)
    name = game_key(env, config.env_id)
    rng = np.random.default_rng(seed)
    columns: dict[str, list[Any]] = {
        key: []
        for key in ("observations", "masks", "actions", "targets", "complete", "returns", "seats", "games", "outcomes")
    }
    try:
        seat_names = list(env.possible_agents) if multiplayer else ["solo"]
        teachers = [make_agent(teacher, name, seed=seed + SEAT_SEED_STRIDE * s) for s in range(len(seat_names))]
        for game in range(episodes):
            seats: list[int] = []
            credited: list[float] = []
            last_decision: dict[int, int] = {}
            for index, agent in enumerate(teachers):
                agent.reset(seed=seed + game + SEAT_SEED_STRIDE * index)
            for observation, mask, seat, state, play in _decisions(env, multiplayer, seed + game):
                label = teachers[seat].act(observation, mask, state)
                accepted = _also_accepted(teachers[seat], observation, mask, state)
                if rng.random() < explore:
                    chosen = int(rng.choice(np.flatnonzero(mask)))
                else:
                    chosen = label if student is None else int(student(observation, mask))
                judged = _judges(teachers[seat], observation, mask, state)
                if not (drop_lost and judged and not accepted):  # a dropped position is played, not recorded
                    columns["observations"].append(np.asarray(observation, dtype=np.float32))
                    columns["masks"].append(np.asarray(mask, dtype=bool))
                    columns["actions"].append(label)
                    targets = np.zeros(len(mask), dtype=bool)
                    targets[[label, *accepted]] = True
                    columns["targets"].append(targets)
                    columns["complete"].append(judged and bool(accepted))
                    last_decision[seat] = len(seats)
                    seats.append(seat)
                    credited.append(0.0)
                for receiver, reward in play(chosen).items():
                    if receiver in last_decision:  # a reward before a seat's first decision has no decision to go to
                        credited[last_decision[receiver]] += reward
            columns["returns"].extend(_returns_to_go(seats, credited, config.ppo.gamma))
            columns["seats"].extend(seats)
            columns["games"].extend([game] * len(seats))
            columns["outcomes"].append(sum(credited[i] for i, s in enumerate(seats) if s == 0))
    finally:
        env.close()
    return {
        "observations": np.asarray(columns["observations"], dtype=np.float32),
        "masks": np.asarray(columns["masks"], dtype=bool),
        "actions": np.asarray(columns["actions"], dtype=np.int32),
        "targets": np.asarray(columns["targets"], dtype=bool),
        "complete": np.asarray(columns["complete"], dtype=bool),
        "returns": np.asarray(columns["returns"], dtype=np.float32),
        "seats": np.asarray(columns["seats"], dtype=np.int32),
        "games": np.asarray(columns["games"], dtype=np.int32),
        "outcomes": np.asarray(columns["outcomes"], dtype=np.float32),
    }


def _rounded(agreements: dict[str, float]) -> dict[str, float]:
    return {name: round(value, 4) for name, value in agreements.items()}


NETWORKS = ("mlp", "relational")
#: the ``network`` that fits a policy file's architecture (its metadata's ``network.architecture``)
NAMES_OF_ARCHITECTURES = {relational.ARCHITECTURE: "relational"}
#: how ``fit``'s learning rate moves over its steps
LR_SCHEDULES = ("constant", "cosine")


class MlpNetwork:
    """The compiled trainer's network (the config's ``ppo.hidden_sizes``): what ``fit`` trains by
    default, and what a run started from the file (``init_policy``) goes on with."""

    def __init__(self, trainer: Trainer) -> None:
        self.trainer = trainer
        self.config = trainer.config
        self.env_id = trainer.env.id

    def init(self, key: jax.Array) -> Any:
        return self.trainer.network.init(key, jnp.zeros((self.trainer.input_size,), jnp.float32))

    def apply(self, params: Any, observations: jax.Array, masks: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(logits, value)`` of a batch."""
        return self.trainer.forward(params, network_inputs(self.trainer, observations, masks))

    def load(self, path: Path) -> Any:
        """The parameters of the MLP policy file ``path`` (``init_policy``): the config's network,
        for the config's env."""
        policy = _check_same_env(path, self.config)
        if policy.architecture is not None:
            raise ValueError(
                f"init_policy {path} holds the {policy.architecture} network, not the MLP this run fits "
                f"(go on from it with --network {NAMES_OF_ARCHITECTURES.get(policy.architecture, '...')})"
            )
        return self.trainer.params_from_policy(policy, str(path))  # the file read once

    def save(self, path: Path, params: Any) -> Path:
        return self.trainer.save(path, params, 0)


class RelationalNetwork:
    """Empire Solitaire's relational network (``games.solitaire.network``), for a config of a
    Solitaire env: the policy file it writes plays as ``jaxppo:FILE`` but cannot start a compiled
    PPO run (``init_policy`` takes the MLP)."""

    def __init__(self, config: JaxTrainConfig, sizes: dict[str, int] | None = None) -> None:
        env = make_any(config.env_id, **config.env_kwargs)
        try:
            key = game_key(env, config.env_id)
            if key != "solitaire":
                raise ValueError(
                    f"the relational network reads Empire Solitaire's observation; {config.env_id} is a game of {key!r}"
                )
            spaces = (int(env.observation_space.shape[0]), int(env.action_space.n))
        finally:
            env.close()
        if spaces != relational.SIZES_OF_SPACES:
            raise ValueError(
                f"the relational network reads {relational.SIZES_OF_SPACES[0]} observation entries and gives "
                f"{relational.SIZES_OF_SPACES[1]} actions; {config.env_id} has {spaces[0]} and {spaces[1]}"
            )
        self.config = config
        self.env_id = config.env_id
        unknown = sorted(set(sizes or {}) - set(relational.DEFAULT_SIZES))
        if unknown:
            raise ValueError(f"unknown network sizes {unknown}; known: {sorted(relational.DEFAULT_SIZES)}")
        self.sizes = {**relational.DEFAULT_SIZES, **(sizes or {})}
        relational.sizes_of({"architecture": relational.ARCHITECTURE, **self.sizes})  # positive integers
        relational.shapes(**self.sizes)  # a width that the heads divide

    def init(self, key: jax.Array) -> Any:
        seed = int(jax.random.randint(key, (), 0, 2**31 - 1))
        arrays = relational.init_params(np.random.default_rng(seed), **self.sizes)
        return {name: jnp.asarray(array) for name, array in arrays.items()}

    def apply(self, params: Any, observations: jax.Array, masks: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(logits, value)`` of a batch (the mask is not read: the logits of illegal moves are masked after)."""
        return relational.forward(params, observations, jnp)

    def load(self, path: Path) -> Any:
        """The parameters of the relational policy file ``path`` (``init_policy``): this network's
        sizes, for the config's env."""
        policy = _check_same_env(path, self.config)
        if policy.architecture != relational.ARCHITECTURE:
            held = "an MLP" if policy.architecture is None else f"the {policy.architecture} network"
            raise ValueError(f"init_policy {path} holds {held}, not the relational network this run fits")
        found = relational.sizes_of(policy.metadata["network"])
        if found != self.sizes:
            raise ValueError(f"init_policy {path} has the network sizes {found}; this run's network has {self.sizes}")
        return {name: jnp.asarray(array) for name, array in policy.arrays.items()}

    def save(self, path: Path, params: Any) -> Path:
        config = self.config
        metadata = {
            "env_id": config.env_id,
            "env_kwargs": config.env_kwargs,
            "observation_size": relational.SIZES_OF_SPACES[0],
            "num_actions": relational.SIZES_OF_SPACES[1],
            "network": {"architecture": relational.ARCHITECTURE, **self.sizes},
            "timesteps": 0,
            "seed": config.seed,
            "trainer": "empire_envs.training.jax_imitate",
        }
        return save_policy(path, {name: np.asarray(value, np.float32) for name, value in params.items()}, metadata)


def _check_same_env(path: Path, config: JaxTrainConfig) -> Any:
    """The policy file at ``path``, refused unless ``jaxppo:`` could play it on the config's env:
    the same game, spaces and rules (a file fitted with other rewards, a shaped variant, is
    taken: its network reads the same positions)."""
    agent = JaxPPOAgent(path)
    env = make_any(config.env_id, **config.env_kwargs)
    try:
        agent.check_env(env)
    except ValueError as error:
        raise ValueError(f"init_policy: {error}") from None
    finally:
        env.close()
    return agent.policy


#: what ``fit`` and the agreements train or read: a network, or a trainer (its MLP)
Network = MlpNetwork | RelationalNetwork


def as_network(network: Network | Trainer) -> Network:
    """A trainer stands for its MLP."""
    return network if isinstance(network, (MlpNetwork, RelationalNetwork)) else MlpNetwork(network)


def make_network(config: JaxTrainConfig, name: str, sizes: dict[str, int] | None = None) -> Network:
    """``"mlp"``: the config's trainer's network; ``"relational"``: Solitaire's relational one
    (``sizes`` overriding its defaults)."""
    if name == "mlp":
        if sizes:
            raise ValueError("the mlp network takes its sizes from the config's [ppo] table, not network_sizes")
        return MlpNetwork(make_trainer(config))
    if name == "relational":
        return RelationalNetwork(config, sizes)
    raise ValueError(f"unknown network {name!r}; known: {', '.join(NETWORKS)}")


def greedy_actions(network: Network | Trainer, params: Any, observations: jax.Array, masks: jax.Array) -> jax.Array:
    """The network's most likely legal move of each position of a batch."""
    logits, _ = as_network(network).apply(params, observations, masks)
    return jnp.argmax(masked_logits(logits, masks), axis=-1)


#: each network's (or trainer's) compiled ``greedy_actions``, parameters an argument: one program
#: serves every round's parameters; kept while the network lives
_COMPILED_GREEDY: weakref.WeakKeyDictionary[Any, Callable[..., jax.Array]] = weakref.WeakKeyDictionary()
#: the largest batch ``agreement`` hands the network at once
AGREEMENT_CHUNK = 4096
#: the smallest padded batch of ``agreement``: every batch is padded to a power of two from here to
#: ``AGREEMENT_CHUNK``, so that the row counts of the fits compile a handful of programs
SMALLEST_PADDED_BATCH = 64


def _compiled_greedy(network: Network | Trainer) -> Callable[..., jax.Array]:
    """``greedy_actions`` of ``network`` compiled once, taking ``(params, observations, masks)``
    (one program per batch shape). Run op by op instead, each new batch shape would compile
    every operation of the network again."""
    if network not in _COMPILED_GREEDY:
        _COMPILED_GREEDY[network] = jax.jit(functools.partial(greedy_actions, as_network(network)))
    return _COMPILED_GREEDY[network]


def _greedy(network: Network, params: Any) -> Student:
    """The network's most likely legal move, one position at a time."""
    choose = _compiled_greedy(network)

    def act(observation: np.ndarray, mask: np.ndarray) -> int:
        observations = np.asarray(observation, np.float32)[None]
        return int(choose(params, observations, np.asarray(mask, bool)[None])[0])

    return act


def _also_accepted(teacher: Any, observation: np.ndarray, mask: np.ndarray, state: Any) -> list[int]:
    """The moves a teacher accepts besides the one it plays: its ``acceptable_actions`` when it
    has them (a planner content with any of several moves), else none."""
    method = getattr(teacher, "acceptable_actions", None)
    return [] if method is None else [int(action) for action in method(observation, mask, state)]


def _judges(teacher: Any, observation: np.ndarray, mask: np.ndarray, state: Any) -> bool:
    """Whether the teacher's accepted moves here are every move that keeps a win (its ``judges``;
    a teacher without one judges nothing)."""
    method = getattr(teacher, "judges", None)
    return method is not None and bool(method(observation, mask, state))


def _decisions(env: Any, multiplayer: bool, deal: int) -> Any:
    """Yield ``(observation, mask, seat, state, play)`` for each decision of one game, where
    ``play(action)`` makes the move and returns every seat's reward of that step."""
    if not multiplayer:
        observation, info = env.reset(seed=deal)
        done = False
        while not done:
            step: dict[str, Any] = {}

            def play(action: int, step: dict[str, Any] = step) -> dict[int, float]:
                step["result"] = env.step(action)
                return {0: float(step["result"][1])}

            yield observation, info["action_mask"], 0, env.unwrapped.state, play
            observation, _, terminated, truncated, info = step["result"]
            done = terminated or truncated
        return
    env.reset(seed=deal)
    names = list(env.possible_agents)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue

        yield (
            observation["observation"],
            observation["action_mask"],
            names.index(agent),
            env.unwrapped.game_state,
            (lambda action: _aec_step(env, names, action)),
        )


def _aec_step(env: Any, names: list[str], action: int) -> dict[int, float]:
    """One move of an AEC env; every seat's reward of that step, by seat."""
    env.step(action)
    return {names.index(who): float(reward) for who, reward in env.rewards.items() if who in names}


def network_inputs(trainer: Trainer, observations: jax.Array, masks: jax.Array) -> jax.Array:
    """What the trainer's network reads of a batch: the observations, followed by the masks when the
    config feeds them (``mask_in_observation``, the order of ``Trainer.network_input``)."""
    if not trainer.policy_input.mask:
        return observations
    return jnp.concatenate([observations, masks.astype(jnp.float32)], axis=-1)


def agreement(network: Network | Trainer, params: Any, data: dict[str, np.ndarray], rows: np.ndarray) -> float:
    """How often the network's most likely legal action is a move the teacher accepts, on ``rows``."""
    if rows.size == 0:
        return float("nan")
    choose = _compiled_greedy(network)
    hits = 0
    for start in range(0, rows.size, AGREEMENT_CHUNK):
        chunk = rows[start : start + AGREEMENT_CHUNK]
        # padded to a power of two by repeating its rows: a few compiled shapes serve every
        # row count; the repeats' moves are dropped
        padded = np.resize(chunk, max(SMALLEST_PADDED_BATCH, 1 << (chunk.size - 1).bit_length()))
        chosen = np.asarray(choose(params, data["observations"][padded], data["masks"][padded]))[: chunk.size]
        hits += int(data["targets"][chunk, chosen].sum())
    return hits / rows.size


def _check_lr_schedule(lr_schedule: str) -> None:
    if lr_schedule not in LR_SCHEDULES:
        raise ValueError(f"unknown lr_schedule {lr_schedule!r}; known: {', '.join(LR_SCHEDULES)}")


def fit(
    network: Network | Trainer,
    data: dict[str, np.ndarray],
    epochs: int,
    learning_rate: float,
    batch_size: int,
    log: Callable[[str], None] = print,
    params: Any = None,
    every_move_weight: float = 0.0,
    lr_schedule: str = "constant",
) -> tuple[Any, dict[str, float]]:
    """The network fitted to ``data`` (module docstring), from ``params`` when given (a DAgger
    round goes on from the last round's network); returns its parameters and the agreements.
    ``network``: a trainer stands for its MLP. ``every_move_weight``: the weight of the binary
    cross-entropy of every legal move on the ``complete`` rows (module docstring).
    ``lr_schedule``: ``"constant"``, or ``"cosine"`` (from ``learning_rate`` down to 0 over this
    fit's optimizer steps, a half cosine)."""
    if every_move_weight < 0:
        raise ValueError(f"every_move_weight must be at least 0, got {every_move_weight}")
    _check_lr_schedule(lr_schedule)
    network = as_network(network)
    config = network.config
    held_out = data["games"] % HELD_OUT_EVERY == HELD_OUT
    train_rows, test_rows = np.flatnonzero(~held_out), np.flatnonzero(held_out)
    if train_rows.size == 0:
        raise ValueError("no decisions to fit: every game is held out (play at least 9 games)")
    key = jax.random.PRNGKey(config.seed)
    key, net_key = jax.random.split(jax.random.fold_in(key, 17))
    if params is None:
        params = network.init(net_key)
    size = min(batch_size, train_rows.size)
    steps = epochs * (train_rows.size // size)
    rate = optax.cosine_decay_schedule(learning_rate, steps) if lr_schedule == "cosine" else learning_rate
    optimizer = optax.chain(optax.clip_by_global_norm(config.ppo.max_grad_norm), optax.adam(rate))
    opt_state = optimizer.init(params)
    vf_coef = config.ppo.vf_coef

    def loss(
        params: Any,
        observations: jax.Array,
        masks: jax.Array,
        targets: jax.Array,
        returns: jax.Array,
        complete: jax.Array,
    ) -> Any:
        logits, value = network.apply(params, observations, masks)
        legal = masked_logits(logits, masks)
        # minus the log of the probability of the accepted moves (the teacher's move when it is the only one)
        accepted = jax.nn.logsumexp(jnp.where(targets, legal, -jnp.inf), axis=-1)
        cross_entropy = (jax.nn.logsumexp(legal, axis=-1) - accepted).mean()
        total = cross_entropy + vf_coef * jnp.square(value - returns).mean()
        if every_move_weight:
            # each legal move of a complete row: its logit against "it keeps a win"
            per_move = optax.sigmoid_binary_cross_entropy(logits, targets.astype(logits.dtype))
            per_row = jnp.where(masks, per_move, 0.0).sum(-1) / jnp.maximum(masks.sum(-1), 1)
            total = total + every_move_weight * jnp.where(complete, per_row, 0.0).mean()
        return total, cross_entropy

    @jax.jit
    def step(params: Any, opt_state: Any, batch: tuple[jax.Array, ...]) -> tuple[Any, Any, jax.Array]:
        (_, cross_entropy), grads = jax.value_and_grad(loss, has_aux=True)(params, *batch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, cross_entropy

    rng = np.random.default_rng(config.seed)
    complete = data.get("complete", np.zeros(data["actions"].shape, dtype=bool))
    for epoch in range(epochs):
        order = rng.permutation(train_rows)
        losses = []
        for start in range(0, order.size - size + 1, size):  # whole batches: one compiled shape
            rows = np.sort(order[start : start + size])
            batch = tuple(jnp.asarray(data[name][rows]) for name in ("observations", "masks", "targets", "returns"))
            batch += (jnp.asarray(complete[rows]),)
            params, opt_state, cross_entropy = step(params, opt_state, batch)
            losses.append(float(cross_entropy))
        log(f"epoch {epoch + 1}/{epochs}: cross-entropy {np.mean(losses):.4f}")
    return params, {
        "agreement_fitted": agreement(network, params, data, train_rows),
        "agreement_held_out": agreement(network, params, data, test_rows),
    }


def imitate(
    config: JaxTrainConfig,
    teacher: str,
    episodes: int,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    explore: float,
    out: Path,
    log: Callable[[str], None] = print,
    dagger_rounds: int = 0,
    network: str = "mlp",
    drop_lost: bool = False,
    every_move_weight: float = 0.0,
    network_sizes: dict[str, int] | None = None,
    init_policy: str | Path | None = None,
    lr_schedule: str = "constant",
) -> dict[str, Any]:
    """Collect, fit and save (module docstring); returns the summary written to ``out/summary.json``.

    ``dagger_rounds``: after the first fit, that many DAgger rounds: the student (the greedy
    policy of the network so far) plays ``episodes`` new games (deals after the earlier rounds'),
    the teacher labels every position the student reached, the data grows by them and the network
    trains ``epochs`` more passes over all of it. The summary's ``rounds`` gives, per round, the
    share of its games the student won (the first seat's return above 0; none for round 0, the
    first fit, whose games the teacher played) and the agreements after its fit.

    ``network``: ``"mlp"`` (the config's) or ``"relational"`` (``RelationalNetwork``);
    ``drop_lost``: leave the positions the teacher judges lost out of the data (``collect``);
    ``every_move_weight``: as for ``fit``; ``network_sizes``: the relational network's sizes
    (``games.solitaire.network.DEFAULT_SIZES`` where not given); ``init_policy``: a policy file of
    the same network (and sizes) and env, which the first fit starts from instead of a fresh
    initialisation (to go on fitting a shipped or earlier network on new games);
    ``lr_schedule``: as for ``fit``, each fit's own."""
    if dagger_rounds < 0:
        raise ValueError(f"dagger_rounds must be at least 0, got {dagger_rounds}")
    _check_lr_schedule(lr_schedule)
    model = make_network(config, network, network_sizes)
    params = None if init_policy is None else model.load(Path(init_policy))
    start = time.perf_counter()
    data = collect(config, teacher, episodes, config.seed, explore, drop_lost=drop_lost)
    del data["outcomes"]  # the teacher's own games: not the student's curve
    collect_s = time.perf_counter() - start
    log(f"{data['actions'].size:,} decisions of {teacher} in {episodes} games ({collect_s:.0f} s)")
    start = time.perf_counter()
    fitting: dict[str, Any] = {"every_move_weight": every_move_weight, "lr_schedule": lr_schedule}
    params, agreements = fit(model, data, epochs, learning_rate, batch_size, log, params=params, **fitting)
    fit_s = time.perf_counter() - start
    # round 0 is the first fit, on the teacher's own games
    rounds: list[dict[str, Any]] = [{"round": 0, "student_win_rate": None, **_rounded(agreements)}]
    for round_index in range(1, dagger_rounds + 1):
        began = time.perf_counter()
        played = collect(
            config,
            teacher,
            episodes,
            config.seed + round_index * episodes,
            explore,
            student=_greedy(model, params),
            drop_lost=drop_lost,
        )
        played["games"] += round_index * episodes
        collect_s += time.perf_counter() - began
        won = float((played.pop("outcomes") > 0).mean())
        data = {name: np.concatenate([data[name], played[name]]) for name in played}
        log(
            f"DAgger round {round_index}: the student won {won:.1%} of {episodes} games; "
            f"{data['actions'].size:,} decisions"
        )
        began = time.perf_counter()
        params, agreements = fit(model, data, epochs, learning_rate, batch_size, log, params=params, **fitting)
        fit_s += time.perf_counter() - began
        rounds.append({"round": round_index, "student_win_rate": round(won, 4), **_rounded(agreements)})
    out.mkdir(parents=True, exist_ok=True)
    settings = {"teacher": teacher, "episodes": episodes, "epochs": epochs, "learning_rate": learning_rate}
    settings.update({"batch_size": batch_size, "explore": explore, "dagger_rounds": dagger_rounds})
    settings.update({"network": network, "drop_lost": drop_lost, "every_move_weight": every_move_weight})
    settings.update({"init_policy": None if init_policy is None else str(init_policy), "lr_schedule": lr_schedule})
    (out / "config.json").write_text(
        json.dumps({"backend": "jax", "imitate": settings, **dataclasses.asdict(config)}, indent=2) + "\n"
    )
    policy = model.save(out / "policy.npz", params)
    summary = {
        "env_id": model.env_id,
        "env_kwargs": config.env_kwargs,
        **settings,
        "decisions": int(data["actions"].size),
        "held_out_decisions": int((data["games"] % HELD_OUT_EVERY == HELD_OUT).sum()),
        **_rounded(agreements),
        "rounds": rounds,
        "collect_s": round(collect_s, 1),
        "fit_s": round(fit_s, 1),
        "policy": str(policy),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
