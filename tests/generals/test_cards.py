"""Card and deck files of Empires and Generals: the default data, every refusal, the rules page."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from empire_envs.games.generals.cards import (
    PREDESTINATIONS,
    CardFileError,
    CardPool,
    Deck,
    DeckError,
    check_deck,
    decks_table_markdown,
    default_deck_ids,
    load_deck,
    load_decks,
    load_default_decks,
    load_pool,
    pool_as_dict,
    pool_table_markdown,
    predestinations_table_markdown,
)

ROOT = Path(__file__).resolve().parents[2]
#: the draft page, and the page it will be merged into


# ---------------------------------------------------------------------------------------------
# helpers: write pools and decks as TOML or JSON


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return json.dumps(value)  # a JSON string of plain text is a TOML basic string too
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def toml_text(data: dict) -> str:
    """Scalars first, then [tables], then the [[card]] array (the order TOML needs)."""
    tables = {key: value for key, value in data.items() if isinstance(value, dict)}
    scalars = {key: value for key, value in data.items() if key != "card" and key not in tables}
    lines = [f"{key} = {toml_value(value)}" for key, value in scalars.items()]
    for name, table in tables.items():
        lines += ["", f"[{name}]"] + [f"{k} = {toml_value(v)}" for k, v in table.items()]
    for card in data.get("card", []):
        lines += ["", "[[card]]"] + [f"{k} = {toml_value(v)}" for k, v in card.items()]
    return "\n".join(lines) + "\n"


def write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else toml_text(data))
    return path


def default_pool_data() -> dict:
    return pool_as_dict(load_pool())


def card_of(data: dict, card_id: str) -> dict:
    (card,) = [card for card in data["card"] if card["id"] == card_id]
    return card


def failed_load(error: type[Exception], load, *args):
    """Run a loader that must fail; return the message. Nothing may come back."""
    result = None
    with pytest.raises(error) as caught:
        result = load(*args)
    assert result is None
    return str(caught.value)


def assert_names(message: str, *parts: str) -> None:
    for part in parts:
        assert part in message, f"{part!r} missing from: {message}"


def deck_data(playing: dict[str, int], supply: dict[str, int] | None = None,
              deck_id: str = "test_deck") -> dict:
    data = {"id": deck_id, "name": "Test deck", "empire": "rome", "playing": dict(playing)}
    if supply is not None:
        data["supply"] = dict(supply)
    return data


def counts(pool: CardPool, indices) -> dict[str, int]:
    return {pool.kinds[k].id: n for k, n in Counter(indices).items()}


# the Rome list as tuned from self-play (docs/rules/generals.md, "Tuned numbers"): one Aqueduct
# fewer and one Forum more than the rulings' first list
ROME_PLAYING = {"rom_centurion": 4, "rom_imperator": 1, "rom_legionary": 4, "rom_velites": 3,
                "rom_praetorian": 2, "rom_aqueduct": 2, "rom_forum": 3, "rom_testudo": 3,
                "rom_roads": 2, "rom_pilum": 2, "feigned_retreat": 1, "ambush": 1, "sabotage": 1}
SUPPLY = {"grain": 5, "timber": 4, "caravan": 3, "iron": 3, "gold": 1, "market": 1, "prison": 1}


def legal_playing_counts(pool: CardPool, size: int) -> dict[str, int]:
    """``size`` Playing Deck cards within the rarity caps, no ultra rare."""
    caps = {"common": 5, "uncommon": 3, "rare": 1}
    chosen: dict[str, int] = {}
    for kind in pool.kinds:
        left = size - sum(chosen.values())
        if left and not kind.in_supply and kind.rarity in caps:
            chosen[kind.id] = min(caps[kind.rarity], left)
    assert sum(chosen.values()) == size
    return chosen


def checked(tmp_path: Path, data: dict, pool: CardPool | None = None, **kwargs) -> Path:
    """Write a deck, load it (which must work) and return its path for the check."""
    path = write(tmp_path, "test_deck.toml", data)
    pool = pool or load_pool()
    check_deck(load_deck(path, pool), pool, **kwargs)
    return path


def failed_check(tmp_path: Path, data: dict, pool: CardPool | None = None, **kwargs) -> str:
    path = write(tmp_path, "test_deck.toml", data)
    pool = pool or load_pool()
    deck = load_deck(path, pool)
    with pytest.raises(DeckError) as caught:
        check_deck(deck, pool, **kwargs)
    message = str(caught.value)
    assert_names(message, str(path), "'test_deck'")
    return message


# ---------------------------------------------------------------------------------------------
# the default data


def test_default_pool_has_fifty_kinds_in_ref_order():
    pool = load_pool()
    assert pool.name == "eg-default" and pool.source == "default" and pool.size == 50
    assert [kind.ref for kind in pool.kinds] == list(range(1, 51))
    assert [kind.index for kind in pool.kinds] == list(range(50))
    assert load_pool("default") is pool  # cached


def test_default_pool_spot_checks():
    pool = load_pool()
    legionary = pool.kind("rom_legionary")
    assert (legionary.index, legionary.ref, legionary.type) == (12, 13, "soldier")
    assert legionary.cost == 2
    assert (legionary.strength, legionary.life, legionary.camp_life) == (3, 3, 1)
    assert legionary.is_unit and legionary.is_soldier and not legionary.is_general
    scout = pool.kind("mon_scout")
    assert scout.keywords == frozenset({"no_pull"}) and scout.rarity == "uncommon"
    assert (scout.ability.cost, scout.ability.effect, scout.ability.amount) == (1, "draw", 1)
    khan = pool.kind("mon_khan")
    assert khan.keywords == frozenset({"raider"}) and khan.aura_str == 1 and khan.era == "medieval"
    caravan = pool.kind("caravan")
    assert caravan.is_resource and caravan.continuous and caravan.value == 1 and caravan.in_supply
    assert pool.kind("gold").value == 3 and not pool.kind("grain").continuous
    assert pool.kind("market").is_capitol and pool.kind("market").harvest == 1
    assert pool.kind("prison").on_block_kill_ch == 1
    pilum = pool.kind("rom_pilum")
    assert (pilum.timing, pilum.side, pilum.effect) == ("battle", "any", "pump_str")
    assert pilum.amount == 2
    sabotage = pool.kind("sabotage")
    assert (sabotage.timing, sabotage.side, sabotage.effect, sabotage.amount) == (
        "main", None, "destroy_kingdom", 0)
    assert pool.kind("ambush").side == "defender" and pool.kind("mon_encircle").side == "attacker"
    assert pool.kind("egy_pyramid").rarity == "ultra_rare"
    assert pool.kind("egy_pyramid").ch_per_turn == 1
    assert pool.kind("fra_chivalry").general_str == pool.kind("fra_chivalry").general_life == 1
    assert pool.kind("fra_high_king").on_play_ch == 1 and pool.kind("fra_high_king").aura_str == 1
    assert pool.kind("egy_pharaoh").life == 6
    eras = {faction: {kind.era for kind in pool.kinds if kind.faction == faction}
            for faction in ("unaffiliated", "rome", "egypt", "mongols", "franks")}
    assert eras == {"unaffiliated": {"any"}, "rome": {"antiquity"}, "egypt": {"antiquity"},
                    "mongols": {"medieval"}, "franks": {"medieval"}}
    assert Counter(kind.type for kind in pool.kinds) == {
        "resource": 5, "capitol": 2, "tactics": 7, "general": 8, "soldier": 12, "kingdom": 8,
        "strategy": 8}


def test_pool_index_names_an_unknown_card():
    with pytest.raises(KeyError, match="rom_legionnaire"):
        load_pool().index("rom_legionnaire")


def test_default_decks_have_29_and_18_cards_and_are_legal():
    pool = load_pool()
    decks = load_default_decks(pool)
    assert tuple(decks) == default_deck_ids() == ("rome", "mongols", "egypt", "franks")
    for deck_id, deck in decks.items():
        assert (deck.id, deck.empire) == (deck_id, deck_id)
        assert len(deck.playing) == 29 and len(deck.supply) == 18
        assert list(deck.playing) == sorted(deck.playing)
        assert counts(pool, deck.supply) == SUPPLY
        types = Counter(pool.kinds[k].type for k in deck.playing)
        assert types == {"general": 5, "soldier": 9, "kingdom": 5, "strategy": 5, "tactics": 5}
        check_deck(deck, pool)
    assert counts(pool, decks["rome"].playing) == ROME_PLAYING


def test_load_decks_reads_user_files_in_order(tmp_path):
    pool = load_pool()
    first = write(tmp_path, "first.toml", deck_data(ROME_PLAYING, SUPPLY, deck_id="first"))
    second = write(tmp_path, "second.json", deck_data(ROME_PLAYING, deck_id="second"))
    decks = load_decks([first, second], pool)
    assert [deck.id for deck in decks] == ["first", "second"]
    assert decks[1].supply == () and decks[1].playing == decks[0].playing
    assert decks[0].source == str(first)
    for deck in decks:
        check_deck(deck, pool)  # an empty Supply Pile is legal


def test_json_pool_round_trip(tmp_path):
    pool = load_pool()
    path = write(tmp_path, "pool.json", pool_as_dict(pool))
    loaded = load_pool(path)
    assert loaded.kinds == pool.kinds and loaded.name == pool.name
    assert loaded.source == str(path)


def test_toml_pool_round_trip_keeps_file_order_irrelevant(tmp_path):
    data = default_pool_data()
    data["card"].reverse()  # refs, not positions, decide the kind index
    assert load_pool(write(tmp_path, "reversed.toml", data)).kinds == load_pool().kinds


# ---------------------------------------------------------------------------------------------
# bad pool files: (card to change, change, words the message must hold)


def _change(*drop: str, **changes: object):
    def apply(card: dict) -> None:
        for key in drop:
            del card[key]
        card.update(changes)

    return apply


def _without(key: str):
    return _change(key)


def _setting(**changes: object):
    return _change(**changes)


BAD_CARDS = {
    "missing strength": ("rom_legionary", _without("strength"), ["'strength'", "missing"]),
    "missing life": ("mon_noyan", _without("life"), ["'life'", "missing"]),
    "missing cost": ("rom_forum", _without("cost"), ["'cost'", "missing"]),
    "missing value": ("gold", _without("value"), ["'value'", "missing"]),
    "missing timing": ("rom_pilum", _without("timing"), ["'timing'", "missing"]),
    "missing effect": ("ambush", _without("effect"), ["'effect'", "missing"]),
    "missing rarity": ("rom_forum", _without("rarity"), ["'rarity'", "missing"]),
    "unknown key": ("rom_legionary", _setting(strenght=3), ["unknown key 'strenght'"]),
    "key of another type": ("rom_legionary", _setting(harvest=1), ["'harvest'", "soldier"]),
    "cost on a resource": ("grain", _setting(cost=1), ["'cost'", "resource"]),
    "strength as text": ("rom_legionary", _setting(strength="3"), ["'strength'", "integer"]),
    "strength as bool": ("rom_legionary", _setting(strength=True), ["'strength'", "integer"]),
    "negative cost": ("rom_legionary", _setting(cost=-1), ["'cost'", "0..1000"]),
    "value zero": ("grain", _setting(value=0), ["'value'", "1..1000"]),
    "continuous as int": ("caravan", _setting(continuous=1), ["'continuous'", "true or false"]),
    "bad rarity": ("rom_legionary", _setting(rarity="legendary"), ["'rarity'", "legendary"]),
    "bad era": ("rom_legionary", _setting(era="bronze_age"), ["'era'", "bronze_age"]),
    "bad keyword": ("rom_velites", _setting(keywords=["flying"]), ["'keywords'", "flying"]),
    "pull and no_pull": ("rom_velites", _setting(keywords=["no_pull", "pull"]), ["'keywords'"]),
    "bad tag": ("rom_legionary", _setting(tags=["act_of_man"]), ["'tags'", "act_of_man"]),
    "aura on a soldier": ("rom_legionary", _setting(aura_str=1), ["'aura_str'", "soldier"]),
    "side on a main tactic": ("sabotage", _setting(side="any"), ["'side'", "battle"]),
    "battle effect, main timing": ("rom_pilum", _change("side", timing="main"),
                                   ["'effect'", "pump_str", "main"]),
    "main effect, battle timing": ("sabotage", _setting(timing="battle"),
                                   ["'effect'", "destroy_kingdom", "battle"]),
    "pump without amount": ("rom_pilum", _without("amount"), ["'amount'", "missing"]),
    "amount on withdraw": ("feigned_retreat", _setting(amount=1), ["'amount'", "withdraw_self"]),
    "ability with a bad effect": ("mon_scout", _setting(ability={"cost": 1, "effect": "heal",
                                                                 "amount": 1}),
                                  ["'ability'", "heal"]),
    "ability with an extra key": ("mon_scout", _setting(ability={"cost": 1, "effect": "draw",
                                                                 "amount": 1, "range": 2}),
                                  ["'ability'", "exactly"]),
}


@pytest.mark.parametrize("suffix", ["toml", "json"])
@pytest.mark.parametrize("case", sorted(BAD_CARDS))
def test_bad_card_is_refused_naming_file_card_and_key(tmp_path, case, suffix):
    card_id, change, words = BAD_CARDS[case]
    data = default_pool_data()
    card = card_of(data, card_id)
    change(card)
    path = write(tmp_path, f"bad_pool.{suffix}", data)
    message = failed_load(CardFileError, load_pool, path)
    assert_names(message, str(path), f"card '{card_id}' (ref {card['ref']})", *words)


def test_bad_id_characters(tmp_path):
    data = default_pool_data()
    card_of(data, "rom_legionary")["id"] = "Rom-Legionary"
    path = write(tmp_path, "bad_pool.toml", data)
    message = failed_load(CardFileError, load_pool, path)
    # an unreadable id cannot name the card: its position and ref do
    assert_names(message, str(path), "card #13 (ref 13)", "'id'", "Rom-Legionary")


def test_duplicate_ref(tmp_path):
    data = default_pool_data()
    card_of(data, "rom_velites")["ref"] = 13
    path = write(tmp_path, "bad_pool.toml", data)
    message = failed_load(CardFileError, load_pool, path)
    assert_names(message, str(path), "card 'rom_velites' (ref 13)", "'ref'", "'rom_legionary'")


def test_duplicate_id(tmp_path):
    data = default_pool_data()
    card_of(data, "rom_velites")["id"] = "rom_legionary"
    path = write(tmp_path, "bad_pool.toml", data)
    message = failed_load(CardFileError, load_pool, path)
    assert_names(message, str(path), "card 'rom_legionary' (ref 14)", "'id'", "already used")


@pytest.mark.parametrize("version", [2, 0, "1", True, None])
def test_bad_schema_version(tmp_path, version):
    data = default_pool_data()
    if version is None:
        del data["schema_version"]
    else:
        data["schema_version"] = version
    path = write(tmp_path, "bad_pool.toml", data)
    assert_names(failed_load(CardFileError, load_pool, path), str(path), "'schema_version'")


def test_bad_top_level(tmp_path):
    data = default_pool_data()
    data["cards"] = data["card"]
    path = write(tmp_path, "bad_pool.json", data)
    assert_names(failed_load(CardFileError, load_pool, path), str(path), "'cards'")
    path = write(tmp_path, "empty_pool.json", {"schema_version": 1, "pool": "x", "card": []})
    assert_names(failed_load(CardFileError, load_pool, path), str(path), "'card'")


def test_unreadable_files(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("schema_version = = 1\n")
    assert_names(failed_load(CardFileError, load_pool, broken), str(broken), "TOML")
    other = tmp_path / "pool.yaml"
    other.write_text("schema_version: 1\n")
    assert_names(failed_load(CardFileError, load_pool, other), str(other), ".toml or .json")
    missing = tmp_path / "missing.toml"
    assert_names(failed_load(CardFileError, load_pool, missing), str(missing))


# ---------------------------------------------------------------------------------------------
# deck files and legality


def test_unknown_card_id_in_a_deck(tmp_path):
    path = write(tmp_path, "test_deck.toml", deck_data({**ROME_PLAYING, "rom_legionnaire": 1}))
    message = failed_load(DeckError, load_deck, path, load_pool())
    assert_names(message, str(path), "'test_deck'", "[playing]", "'rom_legionnaire'", "unknown")


@pytest.mark.parametrize("count", [0, -1, "2", True, 1.0])
def test_bad_count_in_a_deck(tmp_path, count):
    path = write(tmp_path, "test_deck.json", deck_data(ROME_PLAYING, {**SUPPLY, "grain": count}))
    message = failed_load(CardFileError, load_deck, path, load_pool())
    assert_names(message, str(path), "'test_deck'", "[supply]", "'grain'", "count")


@pytest.mark.parametrize("key", ["id", "name", "empire", "playing"])
def test_deck_missing_key(tmp_path, key):
    data = deck_data(ROME_PLAYING, SUPPLY)
    del data[key]
    path = write(tmp_path, "test_deck.toml", data)
    assert_names(failed_load(CardFileError, load_deck, path, load_pool()), str(path), f"'{key}'")


def test_deck_unknown_key(tmp_path):
    data = {**deck_data(ROME_PLAYING, SUPPLY), "sideboard": {"grain": 1}}
    path = write(tmp_path, "test_deck.toml", data)
    message = failed_load(CardFileError, load_deck, path, load_pool())
    assert_names(message, str(path), "'test_deck'", "'sideboard'")


def test_deck_too_small(tmp_path):
    playing = {**ROME_PLAYING, "rom_legionary": 0, "rom_roads": 1}  # 29 - 4 - 1 = 24
    playing = {card: n for card, n in playing.items() if n}
    message = failed_check(tmp_path, deck_data(playing, SUPPLY))
    assert_names(message, "[playing]", "24 cards", "25 to 75")


def test_deck_too_large(tmp_path):
    pool = load_pool()
    message = failed_check(tmp_path, deck_data(legal_playing_counts(pool, 76), SUPPLY))
    assert_names(message, "[playing]", "76 cards", "25 to 75")


@pytest.mark.parametrize("size", [25, 75])
def test_deck_size_bounds_are_legal(tmp_path, size):
    checked(tmp_path, deck_data(legal_playing_counts(load_pool(), size), {}))


@pytest.mark.parametrize(("pile", "card_id", "copies", "rarity", "cap"), [
    ("playing", "rom_legionary", 6, "common", 5),
    ("playing", "rom_praetorian", 4, "uncommon", 3),
    ("playing", "rom_imperator", 2, "rare", 1),
    ("supply", "grain", 6, "common", 5),
    ("supply", "iron", 4, "uncommon", 3),
    ("supply", "gold", 2, "rare", 1),
])
def test_rarity_caps_per_deck(tmp_path, pile, card_id, copies, rarity, cap):
    playing, supply = dict(ROME_PLAYING), dict(SUPPLY)
    (playing if pile == "playing" else supply)[card_id] = copies
    message = failed_check(tmp_path, deck_data(playing, supply))
    assert_names(message, f"[{pile}]", f"card '{card_id}'", f"{copies} copies", f"'{rarity}'",
                 f"at most {cap}")


def test_two_ultra_rares_in_one_deck(tmp_path):
    message = failed_check(tmp_path, deck_data({**ROME_PLAYING, "egy_pyramid": 2}, SUPPLY))
    assert_names(message, "card 'egy_pyramid' (ref 37)", "'ultra_rare'", "at most 1")


def test_two_ultra_rares_across_both_decks(tmp_path):
    data = default_pool_data()
    data["card"].append({"ref": 51, "id": "palace", "name": "Golden Palace", "type": "capitol",
                         "faction": "unaffiliated", "era": "any", "rarity": "ultra_rare",
                         "cost": 3, "harvest": 2})
    pool = load_pool(write(tmp_path, "pool.toml", data))
    message = failed_check(tmp_path, deck_data({**ROME_PLAYING, "egy_pyramid": 1},
                                               {**SUPPLY, "palace": 1}), pool)
    assert_names(message, "[playing] and [supply]", "card 'egy_pyramid' (ref 37)",
                 "card 'palace' (ref 51)", "'ultra_rare'", "at most 1")
    checked(tmp_path, deck_data(ROME_PLAYING, {**SUPPLY, "palace": 1}), pool)  # one is fine


@pytest.mark.parametrize(("pile", "card_id", "belongs"), [
    ("playing", "grain", "[supply]"), ("playing", "market", "[supply]"),
    ("supply", "rom_legionary", "[playing]"), ("supply", "sabotage", "[playing]"),
])
def test_cards_belong_to_their_pile(tmp_path, pile, card_id, belongs):
    playing, supply = dict(ROME_PLAYING), dict(SUPPLY)
    (supply if pile == "playing" else playing).pop(card_id, None)  # one pile only (next test)
    (playing if pile == "playing" else supply)[card_id] = 1
    message = failed_check(tmp_path, deck_data(playing, supply))
    assert_names(message, f"[{pile}]", f"card '{card_id}'", "type", belongs)


def test_predestination_table_has_the_twelve_filters():
    assert len(PREDESTINATIONS) == 12
    assert PREDESTINATIONS["free_for_all"] == (None, frozenset(), frozenset())


@pytest.mark.parametrize("deck_id", ["rome", "mongols", "egypt", "franks"])
def test_dynasty_variant_rejects_every_default_deck(deck_id):
    pool = load_pool()
    deck = load_default_decks(pool)[deck_id]
    with pytest.raises(DeckError) as caught:
        check_deck(deck, pool, predestination="dynasty_variant")
    assert_names(str(caught.value), deck.source, f"deck '{deck_id}'", "faction 'unaffiliated'",
                 "'dynasty_variant'")


@pytest.mark.parametrize(("predestination", "legal", "illegal"), [
    ("ancient_rumble", {"rome", "egypt"}, {"mongols", "franks"}),
    ("peaceful_past", {"rome", "egypt"}, {"mongols", "franks"}),
    ("knights_of_valor", {"mongols", "franks"}, {"rome", "egypt"}),
    ("alone_in_the_dark", {"mongols", "franks"}, {"rome", "egypt"}),
    ("classic", {"rome", "mongols", "egypt", "franks"}, set()),
    ("free_for_all", {"rome", "mongols", "egypt", "franks"}, set()),
])
def test_predestination_eras(predestination, legal, illegal):
    pool = load_pool()
    decks = load_default_decks(pool)
    for deck_id in legal:
        check_deck(decks[deck_id], pool, predestination=predestination)
    for deck_id in illegal:
        with pytest.raises(DeckError) as caught:
            check_deck(decks[deck_id], pool, predestination=predestination)
        assert_names(str(caught.value), decks[deck_id].source, f"deck '{deck_id}'", "era",
                     f"'{predestination}'")


def test_predestination_tags(tmp_path):
    data = default_pool_data()
    card_of(data, "sabotage")["tags"] = ["act_of_god"]
    card_of(data, "ambush")["tags"] = ["great_mystery"]
    pool = load_pool(write(tmp_path, "tagged.toml", data))
    message = failed_check(tmp_path, deck_data(ROME_PLAYING, SUPPLY), pool)  # standard
    assert_names(message, "card 'sabotage' (ref 10)", "tags", "'act_of_god'", "'standard'")
    message = failed_check(tmp_path, deck_data(ROME_PLAYING, SUPPLY), pool,
                           predestination="classic")
    assert_names(message, "card 'ambush' (ref 9)", "tags", "'great_mystery'", "'classic'")
    checked(tmp_path, deck_data(ROME_PLAYING, SUPPLY), pool, predestination="free_for_all")
    checked(tmp_path, deck_data(ROME_PLAYING, SUPPLY), pool, predestination="days_gone_by")


def test_unknown_predestination_is_a_value_error():
    pool = load_pool()
    with pytest.raises(ValueError, match="ancient_rumbel"):
        check_deck(load_default_decks(pool)["rome"], pool, predestination="ancient_rumbel")


def test_a_deck_of_a_bigger_pool_is_refused_by_a_smaller_one():
    pool = load_pool()
    deck = Deck(id="x", name="X", empire="other", playing=(0,) * 25 + (pool.size,), supply=(),
                source="made up")
    with pytest.raises(DeckError, match="outside pool"):
        check_deck(deck, pool)


# ---------------------------------------------------------------------------------------------
# the rules page carries the generated tables


def rules_page_text() -> str:
    return (ROOT / "docs/rules/generals.md").read_text()


def test_rules_page_example_pool_loads(tmp_path):
    blocks = re.findall(r"```toml\n(.*?)```", rules_page_text(), flags=re.DOTALL)
    (example,) = [block for block in blocks if 'pool = "my-pool"' in block]
    path = tmp_path / "example.toml"
    path.write_text(example)
    assert [kind.id for kind in load_pool(path).kinds] == ["salt", "ram", "rally"]


def test_rules_page_has_the_generated_tables():
    pool = load_pool()
    page = rules_page_text()
    assert pool_table_markdown(pool) in page
    assert decks_table_markdown(pool, load_default_decks(pool)) in page
    assert predestinations_table_markdown() in page
