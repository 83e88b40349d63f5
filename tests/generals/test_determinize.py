"""``determinize`` samples only worlds the observing seat cannot tell from the real one: the same
observation, an opponent's deck list that fits everything shown (and no more than that: with
custom decks that share an empire, the real list does not leak), piles drawn from the lists they
came from, and no resource in a hand after a Harvest that would have put it into play.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from empire_envs.games.generals import GeneralsConfig, observe, rules
from empire_envs.games.generals.cards import load_default_decks, load_pool
from empire_envs.games.generals.state import KINGDOM

from .test_cards import deck_data, write

EMPIRE_ENTRY = {"rome": 0, "mongols": 1, "egypt": 2, "franks": 3}


def _lists(deck_id: str) -> tuple[dict[str, int], dict[str, int]]:
    pool = load_pool()
    deck = load_default_decks(pool)[deck_id]
    return (
        {pool.kinds[k].id: n for k, n in Counter(deck.playing).items()},
        {pool.kinds[k].id: n for k, n in Counter(deck.supply).items()},
    )


def _deck_file(tmp_path: Path, deck_id: str, empire: str, playing: dict, supply: dict) -> Path:
    data = deck_data(playing, supply, deck_id=deck_id)
    data["empire"] = empire
    return write(tmp_path, f"{deck_id}.toml", data)


def shared_empire_decks(tmp_path: Path) -> list[Path]:
    """Three custom decks of 47 cards each that the observation cannot tell apart: their empires
    are all outside the four known ones ("other")."""
    return [
        _deck_file(tmp_path, deck_id, empire, *_lists(source))
        for deck_id, empire, source in (
            ("norse_a", "norse", "rome"),
            ("norse_b", "norse", "mongols"),
            ("gauls", "gauls", "egypt"),
        )
    ]


def resource_playing_decks(tmp_path: Path) -> list[Path]:
    """Two decks (legal only without deck rules) with resources in the Playing Deck: such a
    resource drawn after the Harvest waits in the hand until the next one."""
    paths = []
    for deck_id, source, resource in (("mixed_rome", "rome", "grain"), ("mixed_franks", "franks", "timber")):
        playing, supply = _lists(source)
        playing[resource] = supply.pop(resource)
        paths.append(_deck_file(tmp_path, deck_id, source, playing, supply))
    return paths


# ---------------------------------------------------------------------------------------------
# what a consistent world is


def _all_cards(player) -> Counter:
    cards = Counter(player.playing_deck + player.supply_pile)
    for zone in (player.hand, player.supply_ready, player.supply_fresh, player.kingdom, player.discard, player.removed):
        cards.update({k: n for k, n in enumerate(zone) if n})
    cards.update(k for k in (player.strategy, player.capitol) if k >= 0)
    cards.update(unit.kind for unit in player.units if unit is not None)
    return cards


def _resources_in_hand(state, player, deck) -> tuple[int, int]:
    """Resources in the hand that the player's last Harvest would have put into play, split by
    the pile of ``deck`` they belong to."""
    held = [
        k
        for k, n in enumerate(player.hand)
        for _ in range(n)
        if state.tables.is_resource[k] and k not in player.banned_at_harvest
    ]
    from_playing = sum(k in deck.playing for k in held)
    return from_playing, len(held) - from_playing


def assert_resources_possible(state, player, deck) -> None:
    from_playing, from_supply = _resources_in_hand(state, player, deck)
    assert from_playing <= player.drawn_playing and from_supply <= player.drawn_supply
    assert from_playing + from_supply <= player.drawn_playing + player.drawn_supply - player.resources_discarded


def assert_consistent(state, sample, seat: int) -> None:
    """``sample`` is a world ``seat`` could be in, given what it has seen of ``state``."""
    np.testing.assert_array_equal(observe.observe(sample, seat), observe.observe(state, seat))
    if state.acting_player() == seat:
        assert rules.legal_actions(sample) == rules.legal_actions(state)
    available = state.config.available_decks
    mine, theirs = state.players[seat], sample.players[seat]
    assert theirs.hand == mine.hand and sorted(theirs.playing_deck) == sorted(mine.playing_deck)
    assert sorted(theirs.supply_pile) == sorted(mine.supply_pile) and theirs.deck_id == mine.deck_id
    ids = [mine.deck_id]
    for q, (real, world) in enumerate(zip(state.players, sample.players, strict=True)):
        if q == seat:
            continue
        deck = available[world.deck_id]
        ids.append(deck.id)
        if state.decks_public:
            assert world.deck_id == real.deck_id
        assert EMPIRE_ENTRY.get(world.empire, 4) == EMPIRE_ENTRY.get(real.empire, 4)
        for zone in ("supply_ready", "supply_fresh", "kingdom", "discard", "removed"):
            assert getattr(world, zone) == getattr(real, zone)
        assert (len(world.playing_deck), len(world.supply_pile), sum(world.hand)) == (
            len(real.playing_deck),
            len(real.supply_pile),
            sum(real.hand),
        )
        assert _all_cards(world) == Counter(deck.playing + deck.supply), "the cards are the list's"
        assert not Counter(world.playing_deck) - Counter(deck.playing), "each pile holds its own list's cards"
        assert not Counter(world.supply_pile) - Counter(deck.supply)
        assert_resources_possible(sample, world, deck)
    if not state.decks_public and not state.config.allow_mirror:
        assert len(set(ids)) == len(ids), "decks drawn without mirror are distinct"


def random_states(config: GeneralsConfig, games: int, seed: int, every: int = 9):
    """Mid-game states of random legal play (the real world, to be sampled from)."""
    for game in range(games):
        rng = np.random.default_rng(seed + game)
        choose = random.Random(seed + game).choice
        state = rules.new_game(config, rng)
        step = 0
        while not rules.is_terminal(state):
            if step % every == 0:
                yield state
            rules.apply_action(state, choose(rules.legal_actions(state)), rng)
            step += 1


# ---------------------------------------------------------------------------------------------
# tests


def _configs(tmp_path: Path) -> dict[str, GeneralsConfig]:
    return {
        "prebuilt, 2 players": GeneralsConfig(),
        "prebuilt, 4 players": GeneralsConfig(num_players=4),
        "shared empires, 3 players": GeneralsConfig(num_players=3, deck_files=shared_empire_decks(tmp_path)),
        "shared empires, mirror": GeneralsConfig(deck_files=shared_empire_decks(tmp_path), allow_mirror=True),
        "resources in the Playing Deck": GeneralsConfig(
            deck_files=resource_playing_decks(tmp_path), enforce_deck_rules=False
        ),
    }


@pytest.mark.parametrize(
    "name",
    [
        "prebuilt, 2 players",
        "prebuilt, 4 players",
        "shared empires, 3 players",
        "shared empires, mirror",
        "resources in the Playing Deck",
    ],
)
def test_sampled_worlds_are_consistent_with_what_the_seat_has_seen(tmp_path, name):
    config = _configs(tmp_path)[name]
    rng = np.random.default_rng(5)
    checked = resampled = 0
    for state in random_states(config, games=3, seed=40):
        for player in state.players:  # the real world obeys the same bounds
            assert_resources_possible(state, player, config.available_decks[player.deck_id])
        seat = state.acting_player()
        lists = rules.hidden.sample_deck_lists(state, seat, rng)
        assert all(lists[q] is not None for q in range(state.num_players) if q != seat), "a real state fits"
        for _ in range(2):
            sample = rules.determinize(state, seat, rng)
            assert_consistent(state, sample, seat)
            checked += 1
            resampled += any(
                sample.players[q].hand != state.players[q].hand for q in range(state.num_players) if q != seat
            )
    assert checked > 40 and resampled > checked // 4, (checked, resampled)


def _dealt_at_random(config: GeneralsConfig, decks: list[str]):
    """A new game with these decks, as if they had been drawn at random (the seats do not know
    which list another seat holds)."""
    state = rules.new_game(config, np.random.default_rng(3), decks=decks, first_player=0)
    state.decks_public = False
    return state


def test_a_custom_deck_list_does_not_leak_through_determinize(tmp_path):
    """Two games that differ only in the opponent's deck (both "other" empires, same size,
    nothing of it shown yet): the seat sees the same, and its samples are the same, card for card."""
    config = GeneralsConfig(deck_files=shared_empire_decks(tmp_path))
    real_a, real_b = (_dealt_at_random(config, ["gauls", opponent]) for opponent in ("norse_a", "norse_b"))
    assert real_a.players[1].hand != real_b.players[1].hand
    np.testing.assert_array_equal(observe.observe(real_a, 0), observe.observe(real_b, 0))
    seen = set()
    for seed in range(30):
        a = rules.determinize(real_a, 0, np.random.default_rng(seed)).players[1]
        b = rules.determinize(real_b, 0, np.random.default_rng(seed)).players[1]
        assert (a.deck_id, a.empire, a.hand, a.playing_deck, a.supply_pile) == (
            b.deck_id,
            b.empire,
            b.hand,
            b.playing_deck,
            b.supply_pile,
        )
        seen.add(a.deck_id)
    assert seen == {"norse_a", "norse_b"}


def test_a_shown_card_narrows_the_deck_list(tmp_path):
    """Once the opponent has discarded a card that only one candidate list holds, every sample
    uses that list."""
    config = GeneralsConfig(deck_files=shared_empire_decks(tmp_path))
    state = _dealt_at_random(config, ["gauls", "norse_b"])
    opponent = state.players[1]
    scout = state.pool.index("mon_scout")  # in the Mongol list (norse_b) only
    opponent.playing_deck.remove(scout)
    opponent.playing_deck.append(opponent.playing_deck.pop(0))  # any order: it is hidden
    opponent.discard[scout] += 1
    samples = [rules.determinize(state, 0, np.random.default_rng(seed)) for seed in range(20)]
    assert {sample.players[1].deck_id for sample in samples} == {"norse_b"}
    for sample in samples:
        assert_consistent(state, sample, 0)


def test_no_resource_in_a_hand_after_its_harvest(tmp_path):
    """Rome, unshuffled, opens with both its Capitols from the Supply Pile, draws a Caravan and
    harvests it: its hand now holds the Capitols and no resource, and so does every sample. Before
    its Harvest, the two Supply Pile cards of its hand may be anything of that pile."""
    config = GeneralsConfig()
    state = rules.new_game(config, np.random.default_rng(0), decks=["rome", "mongols"], first_player=0, shuffle=False)
    rome = state.players[0]
    capitols = {state.pool.index("market"), state.pool.index("prison")}
    resources = [k for k in range(state.pool.size) if state.tables.is_resource[k]]
    before = [rules.determinize(state, 1, np.random.default_rng(seed)) for seed in range(40)]
    assert any(sum(sample.players[0].hand[k] for k in resources) for sample in before)
    rules.apply_action(state, rules.PLAY_TURN, np.random.default_rng(0))
    rules.apply_action(state, rules.DRAW_SUPPLY, np.random.default_rng(0))
    assert state.phase == KINGDOM and state.current == 0
    assert {k for k, n in enumerate(rome.hand) if n and state.tables.type[k] in ("resource", "capitol")} == capitols
    for seed in range(60):
        sample = rules.determinize(state, 1, np.random.default_rng(seed))
        hand = sample.players[0].hand
        assert not any(hand[k] for k in resources), "the Harvest put every resource into play"
        assert {k for k, n in enumerate(hand) if n and state.tables.type[k] == "capitol"} == capitols
        assert_consistent(state, sample, 1)
