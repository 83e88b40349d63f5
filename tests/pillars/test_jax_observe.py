"""The Pillars twin's observation (``jax_observe.observe``) against the Python rules' ``observe``.

- **Equal, bit for bit, for every seat** (the seat to act and every other), jitted and vmapped
  with the seat traced, on the states of a seeded game of uniformly random legal moves under
  every registered Pillars config (2 to 6 seats, the exact-card kinds, coin battles), with the
  known-cards block off, and in a game truncated by its length limit. What those states hold is
  checked, so the comparison covers it: every decision phase, offers hidden from the other
  responders, the attacker's pending throw, a bonus action available, skipped turns, absent
  seat blocks, a finished game.
- ``bonus_action_available`` (which the twin's legal mask may read) equals the Python rules'.
- ``observe_campaign`` equals ``campaign.observe_campaign`` for every seat.

Twin states come from Python states through the codec, ``blank_state(config).replace(**fields)``;
each config's observation is compiled once, for batches of ``CHUNK`` (state, seat) pairs.
"""

from __future__ import annotations

import dataclasses
import functools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from empire_envs import registry
from empire_envs.games.pillars import campaign, jax_observe, observe, rules
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.jax_state import blank_state, make_codec
from empire_envs.games.pillars.state import (
    DISCARD,
    OVER,
    RPS_ATTACKER,
    RPS_DEFENDER,
    TRADE_OFFER,
    TRUNCATED,
    TURN_SKIPPED,
    Phase,
    PillarsState,
    kinds_for,
)

#: the registered Pillars ids and their configs, read from the registry
REGISTERED = {variant.name: PillarsConfig(**variant.kwargs) for variant in registry.game_entry("pillars").variants}
#: the configs compared: every registered one, and one with the known-cards block off
CONFIGS = {
    **REGISTERED,
    "Pillars-v0 without known cards": dataclasses.replace(REGISTERED["Pillars-v0"], obs_known_cards=False),
}
#: (state, seat) pairs per compiled batch (a list is padded to a multiple of it)
CHUNK = 512
#: at most about this many states of a game are compared, evenly spread over it (every phase
#: still comes up dozens of times)
STATES_PER_GAME = 700


# --------------------------------------------------------------------------- the twin, batched


@functools.cache
def _codec(config: PillarsConfig):
    return make_codec(config)


def _batched(config: PillarsConfig, function):
    """(codec, a batch of ``CHUNK`` zero states, ``jit(vmap(function(state, seat)))``): the codec
    fills every field but the pgx ones, which the observation does not read."""
    shapes = jax.eval_shape(functools.partial(blank_state, config))
    blank = jax.tree.map(lambda leaf: np.zeros((CHUNK, *leaf.shape), leaf.dtype), shapes)
    return _codec(config), blank, jax.jit(jax.vmap(function))


@functools.cache
def _twin(config: PillarsConfig):
    return _batched(config, functools.partial(jax_observe.observe, config=config))


def run_batched(twin, states: list[PillarsState], seats: list[int], *extra: np.ndarray) -> np.ndarray:
    """``twin``'s function of each state (converted once) for the seat beside it, in chunks;
    ``extra`` arrays (one row per pair) are passed after the seat."""
    codec, blank, batched = twin
    fields_of = {}  # each state converted once, whatever its number of seats
    for state in states:
        if id(state) not in fields_of:
            fields_of[id(state)] = codec.from_python(state)
    fields = [fields_of[id(state)] for state in states]
    count = len(fields)
    padding = -count % CHUNK
    fields += [fields[-1]] * padding
    seats = list(seats) + [seats[-1]] * padding
    extra = tuple(np.concatenate([array, np.repeat(array[-1:], padding, axis=0)]) for array in extra)
    out = []
    for start in range(0, count + padding, CHUNK):
        chunk = fields[start : start + CHUNK]
        batch = blank.replace(**{name: np.stack([one[name] for one in chunk]) for name in chunk[0]})
        rows = [array[start : start + CHUNK] for array in extra]
        out.append(np.asarray(batched(batch, jnp.asarray(seats[start : start + CHUNK], dtype=jnp.int32), *rows)))
    return np.concatenate(out)[:count]


def _field_of(config: PillarsConfig, index: int) -> str:
    """The name of the observation block that holds entry ``index``."""
    return next(
        name for name, first, last in observe.observation_layout(kinds_for(config)).rows() if first <= index <= last
    )


def assert_same_bits(config: PillarsConfig, pairs, got: np.ndarray, expected: np.ndarray) -> None:
    assert got.dtype == expected.dtype == np.float32 and got.shape == expected.shape
    differs = got.view(np.uint32) != expected.view(np.uint32)  # bits: -0.0 is not 0.0 here
    wrong = np.flatnonzero(differs.any(axis=1))
    if wrong.size:
        (state, seat), entries = pairs[wrong[0]], np.flatnonzero(differs[wrong[0]])[:8]
        fields = sorted({_field_of(config, int(entry)) for entry in entries})
        pytest.fail(
            f"{wrong.size} of {len(pairs)} observations differ; the first: phase {Phase(state.phase).name}, seat "
            f"{seat}, turn player {state.current}, blocks {fields}, entries {entries}: twin {got[wrong[0]][entries]}, "
            f"python {expected[wrong[0]][entries]}"
        )


def assert_views_equal(config: PillarsConfig, states: list[PillarsState]) -> int:
    """The twin's and Python's observations of every state, for every seat, are the same bits;
    returns the number of observations compared."""
    pairs = [(state, seat) for state in states for seat in range(config.num_players)]
    got = run_batched(_twin(config), [state for state, _ in pairs], [seat for _, seat in pairs])
    expected = np.stack([observe.observe(state, seat) for state, seat in pairs])
    assert_same_bits(config, pairs, got, expected)
    return len(pairs)


# --------------------------------------------------------------------------- states to compare


def play_randomly(config: PillarsConfig, seed: int) -> list[PillarsState]:
    """Every state of one seeded game of uniformly random legal moves, the finished one too."""
    rng, choose = np.random.default_rng(seed), random.Random(seed).choice
    state = rules.new_game(config, rng)
    states = [state.clone()]
    while state.phase != OVER:
        rules.apply_action(state, choose(rules.legal_actions(state)), rng)
        states.append(state.clone())
    return states


@functools.cache
def states_of(name: str) -> list[PillarsState]:
    """The compared states of one config: about ``STATES_PER_GAME`` states evenly spread over a
    seeded random game, and its finished state."""
    states = play_randomly(CONFIGS[name], seed=0)
    return states[: -1 : -(-len(states) // STATES_PER_GAME)] + states[-1:]


def _covered(config: PillarsConfig, states: list[PillarsState]) -> dict[str, bool]:
    """What the compared states hold that the observation shows."""
    records = [record for s in states for turn in s.turn_log for record in (turn.main, turn.bonus) if record]
    return {
        "every decision phase": {Phase(s.phase) for s in states}
        >= set(Phase)
        - {Phase.OVER}
        - ({Phase(RPS_ATTACKER), Phase(RPS_DEFENDER)} if config.rps_mode == "random" else set()),
        "a finished game": states[-1].phase == OVER,
        "offers hidden from the other responders": config.num_players < 3
        or any(s.phase == TRADE_OFFER and sum(o >= 0 for o in s.offers) >= 1 for s in states),
        "the attacker's pending throw": config.rps_mode == "random"
        or any(s.phase == RPS_DEFENDER and s.pending_throw >= 0 for s in states),
        "a bonus action available": any(rules.bonus_action_available(s) for s in states),
        "a skipped turn": any(turn.status == TURN_SKIPPED for s in states for turn in s.turn_log),
        # with two seats the skipped seat's turn passes at once and the giver's next turn replaces
        # the record, so a skip given is never on record there
        "a skip given": config.num_players < 3 or any(turn.skip_given >= 0 for s in states for turn in s.turn_log),
        "a trade's revealed offers": any(r.offers for r in records),
        "a battle with ties": config.rps_mode == "random" or any(r.ties for r in records),
        # every battle of coin battles (played ones need rps_max_ties ties in a row: rare)
        "a battle decided by a coin": config.rps_mode == "played" or any(r.coin for r in records),
        "an empty discard pile": any(not pile for s in states for pile in s.piles),
    }


# --------------------------------------------------------------------------- equal to Python


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_twin_observation_equals_python_for_every_seat(name):
    config = CONFIGS[name]
    states = states_of(name)
    assert assert_views_equal(config, states) == len(states) * config.num_players
    covered = _covered(config, states)
    assert all(covered.values()), [fact for fact, seen in covered.items() if not seen]


def _truncated(config: PillarsConfig) -> list[PillarsState]:
    """A game cut by its length limit: a state of the random game on the last turn of a round,
    its turn counter moved to the last round, then played (first legal moves) to the end."""
    n = config.num_players
    state = next(s for s in play_randomly(config, seed=0) if s.phase == DISCARD and s.turn % n == n - 1).clone()
    state.turn += (config.length_limit - 1 - state.turn // n) * n
    states = [state.clone()]
    while state.phase != OVER:
        rules.apply_action(state, min(rules.legal_actions(state)), np.random.default_rng(0))
        states.append(state.clone())
    return states


def test_twin_observation_of_a_truncated_game():
    """The finished state of a truncated game (no turn player, the phase block all zero, no
    bonus available) and the states of its last turn, for every seat."""
    config = CONFIGS["Pillars5p-v0"]
    states = _truncated(config)
    assert states[-1].phase == OVER and states[-1].outcome == TRUNCATED
    assert_views_equal(config, states)


def test_observe_with_a_python_int_seat():
    """``observe`` also takes a plain int seat (what ``JaxRules.observe`` may be handed): here the
    attacker's, which shows its pending throw, while the defender is to act."""
    config = CONFIGS["Pillars3p-v0"]
    state = next(s for s in states_of("Pillars3p-v0") if s.phase == RPS_DEFENDER and s.pending_throw >= 0)
    twin = blank_state(config).replace(**_codec(config).from_python(state))
    attacker = state.battle_attacker
    observe_attacker = jax.jit(lambda twin: jax_observe.observe(twin, attacker, config))
    np.testing.assert_array_equal(np.asarray(observe_attacker(twin)), observe.observe(state, attacker))


@pytest.mark.parametrize("name", ["Pillars-v0", "Pillars2p-v0"])
def test_bonus_action_available_equals_python(name):
    config = CONFIGS[name]
    states = states_of(name)
    twin = _batched(config, lambda state, seat: jax_observe.bonus_action_available(state, config))
    got = run_batched(twin, states, [0] * len(states))
    expected = np.array([rules.bonus_action_available(s) for s in states])
    np.testing.assert_array_equal(got, expected)
    assert expected.any() and not expected.all()


def test_campaign_observation_equals_python_for_every_seat():
    """``observe_campaign`` of a campaign (the current game's states, the empires won and games
    played set to varied records) is ``campaign.observe_campaign`` for every seat."""
    config = campaign.CampaignConfig()
    n = config.num_players
    rng = np.random.default_rng(0)
    campaigns = []
    for game in play_randomly(config, seed=1)[::40]:
        state = campaign.CampaignState(config, game)
        state.empires_won = rng.integers(0, 2, (n, campaign.NUM_EMPIRES)).tolist()
        state.games_played = int(rng.integers(0, config.campaign_max_games))
        campaigns.append(state)
    assert {sum(map(sum, s.empires_won)) for s in campaigns} >= {4, 5, 6, 7, 8}  # varied records

    def observe_campaign(state, seat, empires_won, games_played):
        return jax_observe.observe_campaign(state, empires_won, games_played, seat, config)

    twin = _batched(config, observe_campaign)
    pairs = [(s, seat) for s in campaigns for seat in range(n)]
    empires_won = np.array([s.empires_won for s, _ in pairs], dtype=np.int32)
    games_played = np.array([s.games_played for s, _ in pairs], dtype=np.int32)
    got = run_batched(twin, [s.game for s, _ in pairs], [seat for _, seat in pairs], empires_won, games_played)
    expected = np.stack([campaign.observe_campaign(s, seat) for s, seat in pairs])
    assert got.shape == (len(pairs), campaign.observation_size(config))
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
