"""The observation stays in its declared space for any deck a user may write: card numbers at
their ceiling, the largest legal decks, a 300-card deck without deck rules. Also the battle
block's stage "none" entry, which the rules page documents.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from empire_envs.envs import GeneralsEnv as raw_env
from empire_envs.games.generals import GeneralsConfig, observe, rules
from empire_envs.games.generals.actions import Kind
from empire_envs.games.generals.cards import MAX_CARD_NUMBER, RARITY_CAPS
from empire_envs.games.generals.config import MAX_KINGDOM
from empire_envs.games.generals.state import BF, WC, Unit, new_counts

from .helpers import BLOCK, NO_TACTIC, blank_state, put_unit, start_attack
from .test_cards import deck_data, default_pool_data, write

#: the numbers set to the ceiling: every one the observation shows or sums (CH and draw effects
#: are left alone, so that the random games last and reach many states)
UNIT_NUMBERS = ("strength", "life", "field_str", "camp_life", "attack_str", "block_life")
STATIC_NUMBERS = (
    "harvest",
    "soldier_str",
    "soldier_life",
    "general_str",
    "general_life",
    "camp_life_all",
    "hand_limit",
)


def extreme_pool(tmp_path: Path) -> Path:
    """The default pool with those numbers at the ceiling on every card that may carry them,
    plus 40 more resources worth the ceiling, so that a legal Supply Pile holds 200 cards."""
    data = default_pool_data()
    for card in data["card"]:
        numbers = {"general": (*UNIT_NUMBERS, "aura_str"), "soldier": UNIT_NUMBERS, "resource": ("value",)}.get(
            card["type"], STATIC_NUMBERS if card["type"] in ("kingdom", "strategy", "capitol") else ()
        )
        card.update(dict.fromkeys(numbers, MAX_CARD_NUMBER))
    for n in range(40):
        data["card"].append(
            {
                "ref": 100 + n,
                "id": f"hoard_{n}",
                "name": f"Hoard {n}",
                "type": "resource",
                "faction": "unaffiliated",
                "era": "any",
                "rarity": "common",
                "value": MAX_CARD_NUMBER,
            }
        )
    return write(tmp_path, "extreme.toml", data)


def largest_legal_decks(tmp_path: Path, pool) -> list[Path]:
    """Two decks at the limits of the rules: 75 Playing Deck cards (each kind to its rarity
    cap, no ultra rare) and every supply kind to its cap."""
    paths = []
    for deck_id, empire in (("giant_a", "rome"), ("giant_b", "franks")):
        playing: dict[str, int] = {}
        supply: dict[str, int] = {}
        kinds = list(pool.kinds) if deck_id == "giant_a" else list(reversed(pool.kinds))
        for kind in kinds:
            cap = RARITY_CAPS.get(kind.rarity, 0)
            if kind.in_supply:
                supply[kind.id] = cap
            elif sum(playing.values()) < 75:
                playing[kind.id] = min(cap, 75 - sum(playing.values()))
        data = deck_data(
            {k: n for k, n in playing.items() if n}, {k: n for k, n in supply.items() if n}, deck_id=deck_id
        )
        data["empire"] = empire
        paths.append(write(tmp_path, f"{deck_id}.toml", data))
    return paths


def assert_inside(space, observation) -> None:
    box = space["observation"]
    assert observation.dtype == np.float32 and observation.shape == box.shape
    assert np.isfinite(observation).all()
    low, high = box.low, box.high
    outside = np.flatnonzero((observation < low) | (observation > high))
    assert not outside.size, f"entries {outside[:5]} = {observation[outside[:5]]} outside [{low[0]}, {high[0]}]"


def play_and_check(env, games: int, seed: int) -> float:
    """Random legal games, every agent's observation checked after every step; the largest
    entry seen."""
    choose = random.Random(seed).choice
    largest = 0.0
    for game in range(games):
        env.reset(seed=seed + game)
        for agent in env.agent_iter():
            for other in env.agents:
                observation = env.observe(other)["observation"]
                assert_inside(env.observation_space(other), observation)
                largest = max(largest, float(observation.max()))
            _, _, terminated, truncated, _ = env.last()
            mask = env.observe(agent)["action_mask"]
            env.step(None if terminated or truncated else choose(np.flatnonzero(mask).tolist()))
    return largest


def test_default_space_is_unchanged():
    env = raw_env()
    box = env.observation_space("player_0")["observation"]
    assert (float(box.low.min()), float(box.high.max()), box.shape) == (-1.0, 100.0, (observe.OBSERVATION_SIZE,))


def test_largest_legal_decks_with_every_number_at_the_ceiling_stay_in_the_space(tmp_path):
    pool_path = extreme_pool(tmp_path)
    config = GeneralsConfig(
        card_pool=pool_path, deck_files=largest_legal_decks(tmp_path, GeneralsConfig(card_pool=pool_path).pool)
    )
    env = raw_env(card_pool=config.card_pool, deck_files=config.deck_files)
    high = float(env.observation_space("player_0")["observation"].high.max())
    assert high == observe.observation_high(config) > 100
    largest = play_and_check(env, games=4, seed=11)
    assert largest > 100, "no entry went past the old bound: the test would not see an overflow"


def test_the_bound_holds_for_a_built_state_at_every_limit(tmp_path):
    """Every static of the deck in play at once (8 Kingdom cards, a Strategy, a Capitol), all
    resources ready, three Generals with auras and Soldiers in both zones, the rest in the hand:
    the numbers the bound is made of, each at its largest, with the deck's own cards."""
    pool_path = extreme_pool(tmp_path)
    decks = largest_legal_decks(tmp_path, GeneralsConfig(card_pool=pool_path).pool)
    config = GeneralsConfig(card_pool=pool_path, deck_files=decks, max_generals=3)
    state = rules.new_game(config, np.random.default_rng(0), decks=["giant_a", "giant_b"], first_player=0)
    player, tables = state.players[0], state.tables
    cards = sorted(player.playing_deck + player.supply_pile + [k for k, n in enumerate(player.hand) for _ in range(n)])
    player.playing_deck, player.supply_pile, player.hand = [], [], new_counts(state.pool.size)

    def take(wanted, copies: int) -> list[int]:
        taken = [k for k in cards if wanted(k)][:copies]
        for kind in taken:
            cards.remove(kind)
        return taken

    for kind in take(lambda k: tables.type[k] == "kingdom", MAX_KINGDOM):
        player.kingdom[kind] += 1
    (player.strategy,) = take(lambda k: tables.type[k] == "strategy", 1)
    (player.capitol,) = take(lambda k: tables.type[k] == "capitol", 1)
    units = take(tables.is_general.__getitem__, 3) + take(tables.is_soldier.__getitem__, 4)
    for slot, kind in enumerate(units):
        player.units[slot] = Unit(kind, BF if slot % 2 == 0 else WC, 0)
    for kind in cards:
        (player.supply_ready if tables.is_resource[kind] else player.hand)[kind] += 1
    player.budget = rules.static_total(state, 0, "harvest")
    assert player.card_count() == player.deck_size
    space = raw_env(card_pool=pool_path, deck_files=decks, max_generals=3).observation_space("player_0")
    for seat in (0, 1):
        assert_inside(space, observe.observe(state, seat))
    assert observe.observe(state, 0).max() >= 3 * MAX_CARD_NUMBER  # the old bound was 100


def test_a_300_card_deck_plays_without_deck_rules(tmp_path):
    """299 Legionaries and a tactic that draws them all: hand, then discard counts past 255
    (the old byte-sized counts raised ValueError)."""
    data = default_pool_data()
    data["card"].append(
        {
            "ref": 999,
            "id": "muster",
            "name": "Muster",
            "type": "tactics",
            "faction": "rome",
            "era": "antiquity",
            "rarity": "common",
            "cost": 0,
            "timing": "main",
            "effect": "draw",
            "amount": MAX_CARD_NUMBER,
        }
    )
    pool_path = write(tmp_path, "pool.toml", data)
    deck = write(
        tmp_path, "horde.toml", deck_data({"rom_legionary": 299, "muster": 1}, {"grain": 300}, deck_id="horde")
    )
    config = GeneralsConfig(card_pool=pool_path, deck_files=[deck], enforce_deck_rules=False, allow_mirror=True)
    # unshuffled, the muster (the highest ref) is the top card: it comes in the opening hand
    state = rules.new_game(config, np.random.default_rng(0), decks=["horde", "horde"], first_player=0, shuffle=False)
    legionary, muster = state.pool.index("rom_legionary"), state.pool.index("muster")
    rules.apply_action(state, rules.PLAY_TURN, np.random.default_rng(0))
    rules.apply_action(state, rules.DRAW_SUPPLY, np.random.default_rng(0))
    # 295 more Legionaries; with no money to play them, the engine discards down to 7 by itself
    rules.apply_action(state, rules.layout(state).index(Kind.PLAY, muster), np.random.default_rng(0))
    player = state.players[0]
    assert (player.hand[legionary], player.discard[legionary], len(player.supply_pile)) == (7, 292, 297)
    assert state.current == 1 and not rules.is_terminal(state)
    space = raw_env(
        card_pool=pool_path, deck_files=[deck], enforce_deck_rules=False, allow_mirror=True
    ).observation_space("player_0")
    lay = observe.observation_layout(state.pool.size, state.config.max_seats)
    seat_row = observe.seat_layout(state.pool.size)
    for seat, offset in ((0, 0), (1, 1)):
        observation = observe.observe(state, seat)
        assert_inside(space, observation)
        row = lay.start("seats") + offset * seat_row.size
        assert observation[row + seat_row.start("discard") + legionary] == 292
        assert observation[row + seat_row.start("supply size")] == 297


def test_stage_none_is_set_exactly_when_no_battle_is_under_way():
    s = blank_state(("rome", "mongols"))
    put_unit(s, 0, 0, "rom_centurion", BF)
    put_unit(s, 1, 0, "mon_noyan", BF)
    stages = observe.observation_layout(s.pool.size, s.config.max_seats).start("battle")
    for seat in (0, 1):
        assert observe.observe(s, seat)[stages : stages + 5].tolist() == [1, 0, 0, 0, 0]
    start_attack(s, 0, 0, 1, BF)  # the defender blocks
    for seat in (0, 1):
        assert observe.observe(s, seat)[stages : stages + 5].tolist() == [0, 1, 0, 0, 0]
    rules.apply_action(s, BLOCK(s, 0), np.random.default_rng(0))
    if s.battle is not None:  # a tactic window, if either side has a tactic to play
        assert observe.observe(s, 0)[stages : stages + 5].sum() == 1 and observe.observe(s, 0)[stages] == 0
        rules.apply_action(s, NO_TACTIC, np.random.default_rng(0))
    assert s.battle is None
    assert observe.observe(s, 0)[stages : stages + 5].tolist() == [1, 0, 0, 0, 0]
