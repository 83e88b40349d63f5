"""Builders for the Pillars twin's tests (``test_jax_twin.py``): the policies of the whole
games, scripted lines stepped on both sides, and the hidden-information permutations of the
no-leak test.

``Line`` holds a Python position (``helpers.build_state``, or a campaign state) and its twin
(``from_python``) in ``BATCH`` copies, each twin copy stepping with its own key and each Python
copy with the draws its twin copy made (a coin, a reshuffle's order, a new deal), every step
compared as the lockstep harness compares (``tests.jax_twins.check_step_everywhere``).

``hide(row, observer, rng)`` redraws what ``observer`` cannot see in one twin state (host
arrays): the other seats' hands beyond the public tracker ``known`` (hand sizes kept), the
resource pile's order and its cards (it trades cards with those hands), the order of each
discard pile under its top card (the observation shows the top and the counts), the offers of a
trade not yet revealed and the attacker's pending throw. ``private_changes`` says which seats'
own secrets changed: exactly those seats' views may differ.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from empire_envs.agents import make_agent
from empire_envs.games.pillars.actions import layout_for
from empire_envs.games.pillars.state import RPS_DEFENDER, TRADE_OFFER
from tests.jax_twins import (
    LockstepReport,
    Twin,
    agent_policy,
    as_flags,
    check_step_everywhere,
    compiled,
    random_policy,
)

#: games per compiled batch, for every id and variant config; the scripted positions are stepped
#: in as many copies, so the whole games and the positions of one config share one compile
BATCH = 8
PILLARS = "empire_envs/Pillars-v0"
CAMPAIGN = "empire_envs/PillarsCampaign-v0"
#: XLA options of the step and the every-seat view (``compile_twin``): a random Pillars game runs
#: about 1,500 steps, and at XLA's backend optimisation level 2 the lockstep of Pillars5p-v0 took
#: 36 CPU s against 47 at the suite's level 0, its compile included
STEP_OPTIONS = {"xla_backend_optimization_level": 2}


def pillars_twin(env_id: str = PILLARS, batch: int = BATCH, flags: dict | None = None) -> Twin:
    """The compiled twin of ``env_id`` with variant ``flags`` (once per session), its step and
    view at ``STEP_OPTIONS``: the whole games and the scripted lines of a config share it."""
    return compiled(env_id, batch, as_flags(flags or {}), STEP_OPTIONS)


# --------------------------------------------------------------------------- policies

#: what plays game ``index`` of a batch: ``PLAN[index % len(PLAN)]``
PLAN = ("random", "heuristic", "heuristic against random", "heuristic")


def mixed_policy(game_key: str, num_players: int):
    """Game ``i`` of a batch plays ``PLAN[i % 4]``: uniformly random masked play, the heuristic
    at every seat, or the heuristic at one seat (seat ``i // 4 mod n``, so it moves from game to
    game) and random play at the others."""
    heuristic = agent_policy(lambda: make_agent("heuristic", game_key))

    def act(state, mask, seat, index, rng):
        plan = PLAN[index % len(PLAN)]
        if plan == "random" or (plan == "heuristic against random" and seat != (index // 4) % num_players):
            return random_policy(state, mask, seat, index, rng)
        return heuristic(state, mask, seat, index, rng)

    return act


@dataclasses.dataclass
class DrawCount:
    """What the twin handed the Python rules over a run: coins, reshuffles, new deals."""

    coins: int = 0
    reshuffles: int = 0
    deals: int = 0


def counting(twin: Twin, count: DrawCount) -> Twin:
    """``twin`` whose ``python_draws`` also counts what it hands over (the harness's report
    adds coins and permutations together)."""
    honest = twin.python_draws

    def python_draws(before, after):
        draws = honest(before, after)
        if before is not None:  # the first deal's first player is not counted
            count.coins += len(draws._coins)
            # a campaign's new deal draws a permutation and a first player; a reshuffle only the
            # permutation
            count.deals += len(draws._integers)
            count.reshuffles += len(draws._permutations) - len(draws._integers)
        return draws

    return dataclasses.replace(twin, python_draws=python_draws)


# --------------------------------------------------------------------------- scripted lines


def tiled(state: Any, count: int) -> Any:
    return jax.tree_util.tree_map(lambda leaf: jnp.broadcast_to(leaf, (count, *leaf.shape)), state)


class Line:
    """A Python position and its twin in ``BATCH`` copies (module docstring). ``from_python``
    is the twin's conversion (``jax_rules.from_python``, or the campaign's)."""

    def __init__(self, python, from_python, env_id: str = PILLARS, flags: dict | None = None, seed: int = 0) -> None:
        self.twin = pillars_twin(env_id, BATCH, flags)
        assert python.config == self.twin.config, "build the position with the twin's config"
        self.pythons = [python.clone() for _ in range(BATCH)]
        self.state = tiled(from_python(python), BATCH)
        self.seed, self.number = seed, 0
        self.finished = [False] * BATCH
        self.report = LockstepReport()

    def branch(self, seed: int) -> Line:
        """A copy of the line from here on whose steps draw from other keys."""
        other = object.__new__(Line)
        other.__dict__.update(self.__dict__)
        other.pythons = [python.clone() for python in self.pythons]
        other.finished = list(self.finished)
        other.seed = seed
        other.report = LockstepReport()
        return other

    @property
    def python(self):
        """The first Python copy (every copy agrees until a draw sends them apart)."""
        return self.pythons[0]

    def name(self, action: int) -> str:
        return layout_for(getattr(self.python, "game", self.python).kinds).name(action)

    def play(self, action: int | str) -> np.ndarray:
        """Play ``action`` (an index, or its name as ``ActionLayout.name`` writes it) in every
        copy, where it must be legal; each copy's rewards ``[BATCH, n]``."""
        if isinstance(action, str):
            action = self.index(action)
        record = self.twin.record
        for python in self.pythons:
            assert record.legal_mask(python)[action], f"{self.name(action)} is not legal"
        keys = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(self.seed), self.number), BATCH)
        where = f"scripted line (seed {self.seed}), step {self.number}, {self.name(action)}"
        self.state, self.finished, report = check_step_everywhere(
            self.twin, self.pythons, self.state, [action] * BATCH, keys, where
        )
        self.number += 1
        self.report = self.report + report
        return np.asarray(self.state.rewards)

    def index(self, name: str) -> int:
        lay = layout_for(getattr(self.python, "game", self.python).kinds)
        matches = [index for index in range(lay.size) if lay.name(index) == name]
        assert len(matches) == 1, f"no single action is named {name!r}"
        return matches[0]

    def legal_names(self) -> set[str]:
        mask = self.twin.record.legal_mask(self.python)
        return {self.name(int(index)) for index in np.flatnonzero(mask)}

    def twin_mask(self, row: int = 0) -> np.ndarray:
        return np.asarray(self.state.legal_action_mask)[row]


def both_ways(line: Line, action: int | str, side, tries: int = 8) -> list[Line]:
    """Play ``action`` from ``line``'s position on branches with fresh keys until ``side(python)``
    (the side of a coin, or any draw) has come out both True and False over the copies; the
    branches played. A fair draw misses a side in ``tries`` batches of ``BATCH`` with chance
    ``2 ** (1 - tries * BATCH)``."""
    played, seen = [], set()
    for attempt in range(tries):
        branch = line.branch(seed=1_000 + attempt)
        branch.play(action)
        played.append(branch)
        seen |= {bool(side(python)) for python in branch.pythons}
        if seen == {True, False}:
            return played
    raise AssertionError(f"{line.name(action)}: one side only came out in {tries * BATCH} draws: {seen}")


# --------------------------------------------------------------------------- the no-leak test


def host_rows(state: Any) -> list[Any]:
    """The games of a batch as host states, one per game."""
    host = jax.tree_util.tree_map(np.asarray, state)
    count = host.deck.shape[0]
    return [jax.tree_util.tree_map(lambda leaf, index=index: leaf[index].copy(), host) for index in range(count)]


def stacked(rows: list[Any]) -> Any:
    """A device batch of host states."""
    return jax.tree_util.tree_map(lambda *leaves: jnp.asarray(np.stack(leaves)), *rows)


def hide(row: Any, observer: int, rng: np.random.Generator) -> Any:
    """``row`` with everything ``observer`` cannot see redrawn (module docstring)."""
    n = row.hands.shape[0]
    hands, known = row.hands.astype(np.int64), row.known.astype(np.int64)
    others = [seat for seat in range(n) if seat != observer]
    deck_size = int(row.deck_size)
    # the cards no one but their holder can name: each other hand beyond its tracker, and the pile
    unseen = [kind for seat in others for kind in np.repeat(np.arange(hands.shape[1]), hands[seat] - known[seat])]
    unseen += [int(kind) for kind in row.deck[:deck_size]]
    unseen = rng.permutation(np.array(unseen, dtype=np.int64))
    new_hands = hands.copy()
    for seat in others:
        free = int(hands[seat].sum() - known[seat].sum())
        new_hands[seat] = known[seat] + np.bincount(unseen[:free], minlength=hands.shape[1])
        unseen = unseen[free:]
    deck = row.deck.copy()
    deck[:deck_size] = unseen
    # past the size the deck holds stale entries (the deal's order): no one sees them either
    deck[deck_size:] = rng.permutation(deck[deck_size:])
    piles = row.piles.copy()
    for seat in range(n):
        size = int(row.pile_sizes[seat])
        if size > 1:
            piles[seat, : size - 1] = rng.permutation(piles[seat, : size - 1])
    offers = row.offers.copy()
    if int(row.phase) == TRADE_OFFER and not bool(row.trade_revealed):
        for seat in others:
            if offers[seat] >= 0:
                offers[seat] = rng.choice(np.flatnonzero(new_hands[seat]))
    pending = row.pending_throw
    if int(row.pending_throw) >= 0 and int(row.battle_attacker) != observer:
        pending = np.asarray(rng.integers(3), dtype=row.pending_throw.dtype)
    return row.replace(
        hands=new_hands.astype(row.hands.dtype),
        hand_sizes=row.hand_sizes.copy(),
        deck=deck,
        piles=piles,
        offers=offers,
        pending_throw=pending,
    )


def private_changes(before: Any, after: Any) -> set[int]:
    """The seats whose own secrets differ between two states: a hand, an offer not yet revealed,
    the attacker's pending throw."""
    n = before.hands.shape[0]
    changed = {seat for seat in range(n) if not np.array_equal(before.hands[seat], after.hands[seat])}
    if int(before.phase) == TRADE_OFFER and not bool(before.trade_revealed):
        changed |= {seat for seat in range(n) if before.offers[seat] != after.offers[seat]}
    if int(before.phase) == RPS_DEFENDER and int(before.pending_throw) != int(after.pending_throw):
        changed.add(int(before.battle_attacker))
    return changed
