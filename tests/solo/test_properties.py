"""Properties of the Empire solo rules over many random masked playouts (design, tests layer 4).

Every playout runs on the raw rules (``rules.new_game``, ``rules.legal_actions``,
``rules.apply_action``, ``GAME.child``) and checks, after every step:

- the 52 cards are all accounted for, each exactly once (deck + discard + board + battle + drawn);
- ``rules.legal_mask`` is a fresh ``int8`` array equal to ``rules.legal_actions`` (every step), and
  on a sample of steps equal to the set of actions that ``rules.apply_action`` accepts on a clone
  (all 68 tried; a refused action must leave the clone untouched); on those steps the
  observation is also checked (float32 in [0, 1], independent of the hidden deck order);
- ``GAME.child`` leaves its input untouched and agrees with ``rules.apply_action`` given the same
  RNG state; ``state.clone()`` is equal and shares no mutable list;
- the episode ends within ``config.length_limit`` draws and ``rules.max_game_length(config)``
  steps; rewards are in range (terminal +1/-1/0; shaping non-negative, capped per episode).

The acceptance sample is 5,000 uniformly random masked episodes spread over the rule variants
(``merge_in_battle``, ``shaping``, a small ``length_limit`` so that truncation happens), plus a
long-lived heuristic policy that reaches reshuffles, bases, wins and truncation at ``length_limit``.
Each test asserts that the cases it exists for actually occurred. Seeds are fixed for
reproducibility; the coverage assertions hold over hundreds of episodes, not for a lucky seed.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pytest

from empire_envs.core.cards import NUM_CARDS
from empire_envs.core.errors import IllegalActionError
from empire_envs.games.solo import GAME, observe, rules
from empire_envs.games.solo import actions as A
from empire_envs.games.solo.actions import Kind
from empire_envs.games.solo.config import SoloConfig
from empire_envs.games.solo.state import (
    BASE,
    BATTALION,
    BUILDER,
    EMPTY,
    KEEPS,
    KING_MODE,
    LOST,
    NATIVE,
    NUM_TERRITORIES,
    OVER,
    REACT,
    SEND,
    SOLDIER,
    SUPER,
    TRUNCATED,
    WON,
    SoloState,
)

ALL_CARDS = list(range(NUM_CARDS))
NUM_ACTIONS = A.NUM_ACTIONS

#: Rule variants of the random acceptance sample.
RANDOM_CONFIGS = {
    "default": SoloConfig(),
    "merge_in_battle": SoloConfig(merge_in_battle=True),
    "shaped": SoloConfig(shaping=1.0),
    "shaped_merge_in_battle": SoloConfig(shaping=1.0, merge_in_battle=True),
    "length_limit_30": SoloConfig(length_limit=30),
    "length_limit_30_merge_shaped": SoloConfig(length_limit=30, merge_in_battle=True, shaping=1.0),
}
#: The acceptance criterion: 5,000 random masked episodes in all (run in the default suite).
ACCEPTANCE_EPISODES = 5000
RANDOM_EPISODES_PER_CONFIG = math.ceil(ACCEPTANCE_EPISODES / len(RANDOM_CONFIGS))
#: Every this many random episodes, all 68 actions are tried on every step.
EXHAUSTIVE_EVERY = 10

#: Rule variants of the long-lived policy (length_limit small enough that truncation is reached).
LONG_CONFIGS = {
    "keeper_default": SoloConfig(length_limit=300),
    "keeper_merge_in_battle_shaped": SoloConfig(length_limit=300, merge_in_battle=True, shaping=1.0),
}
LONG_EPISODES_PER_CONFIG = 150
#: In long episodes, all 68 actions are tried on every this many-th step.
LONG_EXHAUSTIVE_EVERY = 6


# --------------------------------------------------------------------------- bookkeeping


@dataclass
class Tally:
    """What happened over a batch of playouts (for the "case actually occurred" assertions)."""

    episodes: int = 0
    steps: int = 0
    exhaustive_steps: int = 0
    outcomes: Counter = field(default_factory=Counter)
    truncated_at_length_limit: int = 0
    episodes_with_reshuffle: int = 0
    max_reshuffles: int = 0
    taken: Counter = field(default_factory=Counter)
    kinds_taken: Counter = field(default_factory=Counter)
    merges_in_battle: int = 0
    max_rounds_lost: int = 0
    episodes_with_shaping: int = 0
    shaping_cap_reached: int = 0
    max_steps_seen: int = 0
    length_limit_seen: int = 0


_FIELDS = operator.attrgetter(*SoloState.__slots__)


def snapshot(state: SoloState) -> tuple:
    """An independent value copy of every field (does not rely on ``clone``)."""
    return tuple([tuple(value) if type(value) is list else value for value in _FIELDS(state)])


def rng_copy(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


def cards_in_play(state: SoloState) -> list[int]:
    drawn = [state.drawn] if state.drawn >= 0 else []
    return state.deck + state.discard + state.board_cards() + state.battle_cards() + drawn


def check_state(state: SoloState) -> None:
    """Invariants of any reachable state."""
    cards = cards_in_play(state)
    assert sorted(cards) == ALL_CARDS, (
        f"cards not conserved: {len(cards)} cards, "
        f"missing {sorted(set(ALL_CARDS) - set(cards))}, "
        f"duplicated {sorted(c for c, n in Counter(cards).items() if n > 1)}\n{state!r}"
    )
    assert 0 <= state.draws <= state.config.length_limit
    # The drawn card waits for a reaction exactly in the REACT phase.
    assert (state.drawn >= 0) == (state.phase == REACT), state
    if state.phase in (KING_MODE, SEND):
        assert state.attacker >= 0, state
    for t in range(NUM_TERRITORIES):
        kind, body, recruit = state.unit_kind[t], state.unit_cards[t], state.recruit[t]
        assert isinstance(body, tuple)
        expected_size = {EMPTY: 0, SOLDIER: 1, SUPER: 2, BATTALION: 4, NATIVE: 1, BUILDER: 4, BASE: 1}
        assert len(body) == expected_size[kind], (t, state)
        if recruit >= 0:
            assert kind in (NATIVE, BASE), (t, state)
        if kind in (SUPER, BATTALION, NATIVE, BUILDER):
            assert t in KEEPS, (t, state)
    # clone() is exact and shares no mutable list with the original.
    twin = state.clone()
    assert twin == state
    for name in SoloState.__slots__:
        if isinstance(getattr(state, name), list):
            assert getattr(twin, name) is not getattr(state, name), f"clone shares {name}"


def check_legal(state: SoloState) -> list[int]:
    """``legal_actions`` vs ``legal_mask``: the cheap check of every step."""
    legal = rules.legal_actions(state)
    assert legal, f"no legal action in a live state\n{state!r}"
    assert legal == sorted(set(legal)), f"legal actions not ascending and unique: {legal}"
    assert legal[0] >= 0 and legal[-1] < NUM_ACTIONS
    mask = rules.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
    assert set(np.unique(mask).tolist()) <= {0, 1}
    assert np.flatnonzero(mask).tolist() == legal
    again = rules.legal_mask(state)
    assert again is not mask and not np.shares_memory(again, mask), "mask is not a fresh array"
    return legal


def check_exhaustive(state: SoloState, legal: list[int]) -> None:
    """Try all 68 actions on clones: exactly the legal ones are accepted; refusals change nothing."""
    before = snapshot(state)
    throwaway = np.random.default_rng(0)
    accepted = []
    for action in range(NUM_ACTIONS):
        trial = state.clone()
        try:
            rules.apply_action(trial, action, throwaway)
        except IllegalActionError:
            # trial is a clone (no shared lists, checked in check_state): compare to the input
            assert trial == state, (
                f"refused {A.action_name(action)} changed the state\n{state!r}"
            )
            continue
        accepted.append(action)
    assert snapshot(state) == before
    assert accepted == legal, (
        f"mask and rules disagree: accepted-but-masked "
        f"{[A.action_name(a) for a in sorted(set(accepted) - set(legal))]}, "
        f"masked-but-refused {[A.action_name(a) for a in sorted(set(legal) - set(accepted))]}"
        f"\n{state!r}"
    )


def check_observation(state: SoloState, rng: np.random.Generator) -> None:
    """The observation is a float32 vector in [0, 1] that ignores the (hidden) deck order."""
    obs = observe.observe(state)
    assert obs.dtype == np.float32 and obs.shape == (observe.OBSERVATION_SIZE,)
    assert obs.min() >= 0.0 and obs.max() <= 1.0, f"observation outside [0, 1]\n{state!r}"
    reordered = state.clone()
    reordered.deck = [reordered.deck[i] for i in rng.permutation(len(reordered.deck))]
    assert np.array_equal(observe.observe(reordered), obs), "the deck order leaks"


def check_terminal(state: SoloState, tally: Tally, exhaustive: bool) -> None:
    assert rules.is_terminal(state) and state.phase == OVER
    assert rules.legal_actions(state) == []
    mask = rules.legal_mask(state)
    assert mask.dtype == np.int8 and not mask.any()
    for action in range(NUM_ACTIONS) if exhaustive else (A.DRAW, A.FIGHT):
        trial = state.clone()
        with pytest.raises(IllegalActionError):
            rules.apply_action(trial, action, np.random.default_rng(0))
        assert trial == state
    config = state.config
    if state.outcome == WON:
        assert state.num_bases() == 3 and rules.returns(state) == 1.0
    elif state.outcome == LOST:
        assert rules.num_units(state) == 0 and state.attacker >= 0, state
        assert rules.returns(state) == -1.0
    else:
        assert state.outcome == TRUNCATED, f"terminal state with outcome {state.outcome}"
        assert rules.returns(state) == 0.0
        at_limit = state.draws == config.length_limit
        assert at_limit or (not state.deck and not state.discard), state
        tally.truncated_at_length_limit += at_limit
    tally.outcomes[state.outcome] += 1


# --------------------------------------------------------------------------- policies


def random_policy(state: SoloState, legal: list[int], rng: np.random.Generator) -> int:
    return legal[int(rng.integers(len(legal)))]


_KEEPER_PREFERENCE = (
    Kind.FOUND, Kind.PROMOTE, Kind.RECRUIT, Kind.STACK, Kind.MERGE, Kind.PLACE,
    Kind.SUM, Kind.DRAW, Kind.DISCARD, Kind.FIGHT, Kind.SPLIT,
)


def keeper_policy(state: SoloState, legal: list[int], rng: np.random.Generator) -> int:
    """Long-lived: keep and grow units, avoid fighting, send the cheapest unit that wins.

    With probability 0.1 it plays a uniformly random legal action instead, so that every kind
    of action keeps appearing.
    """
    if rng.random() < 0.1:
        return random_policy(state, legal, rng)
    if state.phase == SEND:
        target = rules.enemy_target(state)
        offers = []
        for action in legal:
            kind, t, _ = A.ACTIONS[action]
            if kind in (Kind.SEND, Kind.SEND_RECRUIT):
                offers.append((rules.unit_value(state, t, kind == Kind.SEND_RECRUIT), action))
        winners = [offer for offer in offers if offer[0] >= target]
        return min(winners or offers)[1]
    for preferred in _KEEPER_PREFERENCE:
        choices = [action for action in legal if A.ACTIONS[action].kind == preferred]
        if choices:
            return choices[int(rng.integers(len(choices)))]
    return random_policy(state, legal, rng)


# --------------------------------------------------------------------------- the checked playout


def play_checked(
    config: SoloConfig,
    game_rng: np.random.Generator,
    policy_rng: np.random.Generator,
    policy,
    tally: Tally,
    exhaustive_every: int = 0,
) -> None:
    """One episode with every property checked; ``exhaustive_every``: try all actions every n-th
    step (0: never)."""
    state = rules.new_game(config, game_rng)
    bound = rules.max_game_length(config)
    max_shaping = max(config.shaping_values)
    steps = 0
    reshuffles = 0
    shaping_total = 0.0
    rounds_lost = 0
    while True:
        check_state(state)
        if rules.is_terminal(state):
            break
        assert steps < bound, f"episode exceeds max_game_length={bound}\n{state!r}"
        legal = check_legal(state)
        if exhaustive_every and steps % exhaustive_every == 0:
            check_exhaustive(state, legal)
            check_observation(state, policy_rng)
            tally.exhaustive_steps += 1
        action = policy(state, legal, policy_rng)
        kind = A.ACTIONS[action].kind
        tally.taken[action] += 1
        tally.kinds_taken[kind] += 1
        if kind == Kind.MERGE and state.phase in (KING_MODE, SEND):
            tally.merges_in_battle += 1

        before = snapshot(state)
        twin_rng = rng_copy(game_rng)
        child, (reward,) = GAME.child(state, action, game_rng)
        assert snapshot(state) == before, f"GAME.child mutated its input ({A.action_name(action)})"
        # GAME.child is apply_action on a clone: playing the input itself with the same RNG state agrees.
        (step_reward,) = rules.apply_action(state, action, twin_rng)
        assert state == child and step_reward == reward
        if len(child.deck) > len(before[SoloState.__slots__.index("deck")]):
            reshuffles += 1
        rounds_lost = max(rounds_lost, child.rounds_lost)
        state = child
        steps += 1

        assert isinstance(reward, float)
        result = rules.returns(state) if rules.is_terminal(state) else 0.0
        shaping = reward - result
        if config.shaping:
            assert -1e-12 <= shaping <= max_shaping + 1e-12, (A.action_name(action), reward)
            shaping_total += shaping
        else:
            assert shaping == 0.0, f"unshaped reward {reward} for {A.action_name(action)}"

    check_terminal(state, tally, exhaustive=exhaustive_every > 0)
    assert state.draws <= config.length_limit and steps <= bound
    assert shaping_total <= config.shaping_cap + 1e-9, f"shaping {shaping_total} over the cap"
    assert math.isclose(shaping_total, state.shaping_paid, abs_tol=1e-9)
    total = shaping_total + rules.returns(state)
    assert -1.0 <= total <= 1.0 + config.shaping_cap + 1e-9

    tally.episodes += 1
    tally.steps += steps
    tally.episodes_with_reshuffle += reshuffles > 0
    tally.max_reshuffles = max(tally.max_reshuffles, reshuffles)
    tally.max_rounds_lost = max(tally.max_rounds_lost, rounds_lost)
    tally.episodes_with_shaping += shaping_total > 0
    tally.shaping_cap_reached += math.isclose(shaping_total, config.shaping_cap)
    tally.max_steps_seen = max(tally.max_steps_seen, steps)
    tally.length_limit_seen = max(tally.length_limit_seen, state.draws)


def run_batch(config, episodes, seed, policy, exhaustive_every_episode=0, exhaustive_every_step=1):
    game_rng = np.random.default_rng([seed, 1])
    policy_rng = np.random.default_rng([seed, 2])
    tally = Tally()
    for episode in range(episodes):
        exhaustive = exhaustive_every_episode and episode % exhaustive_every_episode == 0
        play_checked(
            config, game_rng, policy_rng, policy, tally,
            exhaustive_every=exhaustive_every_step if exhaustive else 0,
        )
    return tally


# --------------------------------------------------------------------------- tests


def test_acceptance_sample_is_5000_episodes():
    assert RANDOM_EPISODES_PER_CONFIG * len(RANDOM_CONFIGS) >= ACCEPTANCE_EPISODES


@pytest.mark.parametrize("name", list(RANDOM_CONFIGS))
def test_random_masked_playouts(name):
    config = RANDOM_CONFIGS[name]
    seed = 1000 + list(RANDOM_CONFIGS).index(name)
    tally = run_batch(
        config, RANDOM_EPISODES_PER_CONFIG, seed, random_policy,
        exhaustive_every_episode=EXHAUSTIVE_EVERY,
    )
    assert tally.episodes == RANDOM_EPISODES_PER_CONFIG
    assert tally.exhaustive_steps >= RANDOM_EPISODES_PER_CONFIG // EXHAUSTIVE_EVERY * 5
    # The cases this sample exists for actually occurred.
    assert tally.outcomes[LOST] > 0
    if config.length_limit <= 30:
        assert tally.truncated_at_length_limit > 0, "no episode reached length_limit"
        assert tally.length_limit_seen == config.length_limit
    else:
        assert tally.episodes_with_reshuffle > 0, "no episode reshuffled the discard pile"
    if config.shaping:
        assert tally.episodes_with_shaping > 0
    if config.merge_in_battle:
        assert tally.merges_in_battle > 0, "no merge was ever made during a battle"
    assert {Kind.DRAW, Kind.MERGE, Kind.PLACE, Kind.STACK, Kind.DISCARD, Kind.FIGHT,
            Kind.SUM, Kind.SPLIT, Kind.SEND} <= set(tally.kinds_taken)


@pytest.fixture(scope="module")
def long_tallies() -> dict[str, Tally]:
    """The long-lived policy's playouts, run once for the tests below (all checks inside)."""
    return {
        name: run_batch(
            config, LONG_EPISODES_PER_CONFIG, 2000 + index, keeper_policy,
            exhaustive_every_episode=1, exhaustive_every_step=LONG_EXHAUSTIVE_EVERY,
        )
        for index, (name, config) in enumerate(LONG_CONFIGS.items())
    }


@pytest.mark.parametrize("name", list(LONG_CONFIGS))
def test_long_lived_playouts(name, long_tallies):
    """A policy that keeps its units lives long: reshuffles, bases, wins and truncation happen."""
    config, tally = LONG_CONFIGS[name], long_tallies[name]
    assert tally.episodes == LONG_EPISODES_PER_CONFIG
    assert tally.outcomes[WON] > 0, "the long-lived policy never won"
    assert tally.outcomes[LOST] > 0
    assert tally.truncated_at_length_limit > 0, "no episode was truncated at length_limit"
    assert tally.length_limit_seen == config.length_limit
    assert tally.max_reshuffles >= 2, "no episode reshuffled the discard pile twice"
    assert tally.max_rounds_lost >= 1, "no battle ever went to a second round"
    never = set(Kind) - set(tally.kinds_taken)
    assert not never, f"action kinds never taken: {sorted(k.name for k in never)}"
    if config.shaping:
        assert tally.shaping_cap_reached > 0, "no episode reached the shaping cap"
    if config.merge_in_battle:
        assert tally.merges_in_battle > 0, "no merge was ever made during a battle"


def test_every_action_index_is_reached(long_tallies):
    """Across the long-lived runs every one of the 68 actions is legal and taken at least once,
    so the exhaustive mask checks saw each of them accepted somewhere."""
    taken: Counter = Counter()
    for tally in long_tallies.values():
        taken.update(tally.taken)
    missing = [A.action_name(a) for a in range(NUM_ACTIONS) if not taken[a]]
    assert not missing, f"actions never taken: {missing}"


def test_stacked_deals_conserve_cards_and_follow_the_order():
    """``new_game(deck=...)``: any full order deals the first six soldiers in order, top first."""
    rng = np.random.default_rng(4000)
    for _ in range(300):
        order = [int(card) for card in rng.permutation(NUM_CARDS)]
        state = rules.new_game(SoloConfig(), rng, deck=order)
        check_state(state)
        soldiers = [card for card in order if rules.IS_SOLDIER[card]][:NUM_TERRITORIES]
        assert [cards[0] for cards in state.unit_cards] == soldiers
        faces_met = [card for card in order[: order.index(soldiers[-1])] if not rules.IS_SOLDIER[card]]
        rest = order[order.index(soldiers[-1]) + 1:]
        assert state.deck[::-1] == rest + faces_met  # drawn in the written order, faces last


@pytest.mark.soak
@pytest.mark.parametrize("name", list(RANDOM_CONFIGS))
def test_random_masked_playouts_soak(name):
    """2x the acceptance sample, with all 68 actions tried on every step of every episode."""
    config = RANDOM_CONFIGS[name]
    tally = run_batch(
        config, 2 * RANDOM_EPISODES_PER_CONFIG, 5000 + list(RANDOM_CONFIGS).index(name),
        random_policy, exhaustive_every_episode=1,
    )
    assert tally.outcomes[LOST] > 0


@pytest.mark.soak
@pytest.mark.parametrize("name", list(LONG_CONFIGS))
def test_long_lived_playouts_soak(name):
    config = LONG_CONFIGS[name]
    tally = run_batch(
        config, 2 * LONG_EPISODES_PER_CONFIG, 6000 + list(LONG_CONFIGS).index(name),
        keeper_policy, exhaustive_every_episode=1, exhaustive_every_step=1,
    )
    assert tally.outcomes[WON] > 0 and tally.truncated_at_length_limit > 0
