"""Properties of Empires and Generals over random play: conservation, the round bound, masks,
what each seat may see, determinize and clone.

``make test`` plays a sample; ``pytest -m soak tests/generals`` plays the 1,000 random games per
player count of the acceptance run.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from empire_envs.games.generals import GeneralsConfig, observe, rules
from empire_envs.games.generals.state import OVER

PLAYER_COUNTS = (2, 3, 4)


def random_game(config: GeneralsConfig, seed: int, check_every_step: bool = True) -> dict:
    """One game of uniformly random legal actions, checked after every step; its summary."""
    rng = np.random.default_rng(seed)
    choose = random.Random(seed).choice
    state = rules.new_game(config, rng)
    sizes = [player.deck_size for player in state.players]
    lay = rules.layout(state)
    steps = 0
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        assert len(legal) >= 2, f"a single legal action must be taken by the engine: {legal}"
        assert legal == sorted(set(legal)) and legal[0] >= 0 and legal[-1] < lay.size
        if check_every_step:
            mask = rules.legal_mask(state)
            assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        rewards = rules.apply_action(state, choose(legal), rng)
        assert len(rewards) == config.num_players
        steps += 1
        assert [p.card_count() for p in state.players] == sizes, "cards are conserved per player"
        assert state.round <= config.length_limit
        for player in state.players:
            assert all(count >= 0 for count in player.hand)
            assert sum(u is not None for u in player.units) <= 10
            assert sum(player.kingdom) <= 8
            if not player.alive:
                assert not any(player.units) and not any(player.kingdom) and player.strategy < 0
    assert state.phase == OVER
    alive = [p for p in state.players if p.alive]
    if rules.is_truncated(state):
        assert state.round == config.length_limit
        assert len(alive) >= 2
    else:
        assert state.winner >= 0 and state.victory in ("chancellor", "warlord")
    final = rules.final_rewards(state)
    if not rules.is_truncated(state) and config.reward_scheme == "win_loss":
        assert final[state.winner] == 1.0 and sum(v == 1.0 for v in final) == 1
    return {"truncated": rules.is_truncated(state), "victory": state.victory, "steps": steps}


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_sample(players):
    outcomes = Counter()
    for seed in range(8):
        summary = random_game(GeneralsConfig(num_players=players), seed)
        outcomes["truncated" if summary["truncated"] else summary["victory"]] += 1
    assert sum(outcomes.values()) == 8


@pytest.mark.parametrize(
    "settings",
    [
        {"slaughterhouse": True}, {"slaughterhouse": True, "slaughter_floor": "bottom"},
        {"game_type": "quick"}, {"game_type": "epic"}, {"draw_mode": "both"},
        {"deckout_loses": True, "opening_hand": (20, 10)}, {"max_generals": 2},
        {"warcamp_attacks": "any"}, {"defender_wins_ties": False}, {"attack_transfer": True},
        {"num_players": 3, "play_for_second": True, "reward_scheme": "placement"},
        {"num_players": 4, "reward_scheme": "placement"}, {"allow_mirror": True},
        {"shaping": 0.05},
    ],
    ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()),
)
def test_variants_play_to_the_end(settings):
    for seed in range(3):
        random_game(GeneralsConfig(**settings), seed)


@pytest.mark.soak
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_soak(players):
    outcomes = Counter()
    steps = 0
    for seed in range(1000):
        summary = random_game(GeneralsConfig(num_players=players), seed, check_every_step=False)
        outcomes["truncated" if summary["truncated"] else summary["victory"]] += 1
        steps += summary["steps"]
    print(f"\n{players} players, 1000 games: {dict(outcomes)}, mean {steps / 1000:.0f} decisions")
    assert sum(outcomes.values()) == 1000


# --------------------------------------------------------------------------- hidden information


def _midgame(players: int, seed: int, steps: int = 120):
    rng = np.random.default_rng(seed)
    choose = random.Random(seed).choice
    state = rules.new_game(GeneralsConfig(num_players=players), rng)
    for _ in range(steps):
        if rules.is_terminal(state):
            break
        rules.apply_action(state, choose(rules.legal_actions(state)), rng)
    return state


def _swap_hidden(state, owner: int, rng: np.random.Generator):
    """The same state but for the owner's unseen cards: its hand contents and its Playing Deck
    and Supply Pile contents and order, redistributed as ``determinize`` samples them (sizes
    kept), taken from a determinization for another seat."""
    sample = rules.determinize(state, (owner + 1) % state.num_players, rng)
    swapped = state.clone()
    mine, theirs = swapped.players[owner], sample.players[owner]
    mine.hand, mine.playing_deck, mine.supply_pile = theirs.hand[:], theirs.playing_deck[:], theirs.supply_pile[:]
    return swapped


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_other_seats_cannot_see_hands_or_piles(players):
    owner_saw_change = 0
    for seed in range(6):
        state = _midgame(players, seed)
        if rules.is_terminal(state):
            continue
        for owner in range(players):
            swapped = _swap_hidden(state, owner, np.random.default_rng(seed + 100))
            assert swapped.players[owner].card_count() == state.players[owner].card_count()
            for viewer in range(players):
                before, after = observe.observe(state, viewer), observe.observe(swapped, viewer)
                if viewer == owner:
                    owner_saw_change += int(not np.array_equal(before, after))
                else:
                    np.testing.assert_array_equal(before, after)
    assert owner_saw_change > 0, "no resampling changed its owner's view: the test sees nothing"


def test_a_hand_change_shows_only_to_its_owner():
    state = _midgame(3, 5)
    assert not rules.is_terminal(state)
    owner = 1
    changed = state.clone()
    hand = changed.players[owner].hand
    held = [k for k, c in enumerate(hand) if c]
    pile = changed.players[owner].playing_deck
    assert held and pile
    # trade one hand card for the deck's top card of another kind (sizes unchanged)
    give = held[0]
    take_at = next(i for i, k in enumerate(pile) if k != give)
    take = pile[take_at]
    hand[give] -= 1
    hand[take] += 1
    pile[take_at] = give
    for viewer in range(3):
        same = np.array_equal(observe.observe(state, viewer), observe.observe(changed, viewer))
        assert same == (viewer != owner), viewer


def test_determinize_keeps_every_public_fact():
    state = _midgame(4, 11)
    assert not rules.is_terminal(state)
    for seat in range(4):
        sample = rules.determinize(state, seat, np.random.default_rng(seat))
        assert sample is not state
        for p, (a, b) in enumerate(zip(state.players, sample.players, strict=True)):
            assert (len(a.playing_deck), len(a.supply_pile), sum(a.hand)) == (
                len(b.playing_deck), len(b.supply_pile), sum(b.hand)
            )
            for zone in ("supply_ready", "supply_fresh", "kingdom", "discard", "removed"):
                assert getattr(a, zone) == getattr(b, zone)
            assert (a.strategy, a.capitol, a.ch, a.budget) == (b.strategy, b.capitol, b.ch, b.budget)
            assert a.card_count() == b.card_count()
            if p == seat:
                assert a.hand == b.hand
                assert sorted(a.playing_deck) == sorted(b.playing_deck)
                assert sorted(a.supply_pile) == sorted(b.supply_pile)
            else:
                unseen_a = Counter(a.playing_deck + a.supply_pile) + Counter({k: c for k, c in enumerate(a.hand) if c})
                unseen_b = Counter(b.playing_deck + b.supply_pile) + Counter({k: c for k, c in enumerate(b.hand) if c})
                assert unseen_a == unseen_b
        np.testing.assert_array_equal(observe.observe(state, seat), observe.observe(sample, seat))
        assert rules.legal_actions(sample) == rules.legal_actions(state) or state.acting_player() != seat


def test_clone_is_independent():
    state = _midgame(2, 3)
    copy = state.clone()
    rng = np.random.default_rng(0)
    while not rules.is_terminal(copy):
        rules.apply_action(copy, rules.legal_actions(copy)[-1], rng)
    again = _midgame(2, 3)
    np.testing.assert_array_equal(observe.observe(state, 0), observe.observe(again, 0))
    assert [p.card_count() for p in state.players] == [p.card_count() for p in again.players]


def test_batched_unit_numbers_agree_with_the_single_ones():
    """``unit_numbers`` and ``bf_entry_flags`` (the observation's batched forms) against
    ``unit_strength``, ``unit_life`` and ``may_enter_bf``, over random play."""
    checked = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        choose = random.Random(seed).choice
        state = rules.new_game(GeneralsConfig(num_players=3, warcamp_attacks="any"), rng)
        while not rules.is_terminal(state):
            for seat in range(3):
                numbers = rules.unit_numbers(state, seat)
                flags = rules.bf_entry_flags(state, seat)
                for slot, unit in enumerate(state.players[seat].units):
                    if unit is None:
                        assert numbers[slot] is None and not flags[slot]
                        continue
                    assert numbers[slot] == (rules.unit_strength(state, seat, slot), rules.unit_life(state, seat, slot))
                    assert flags[slot] == rules.may_enter_bf(state, seat, slot)
                    checked += 1
            rules.apply_action(state, choose(rules.legal_actions(state)), rng)
    assert checked > 500
