"""Card files at their limits, and the config that reads them: every file a user may write is
loaded or refused by name (the file and the field), the config checks everything when it is made
and names its argument in every message, and the pool and decks are read once.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from empire_envs.envs import GeneralsEnv as raw_env
from empire_envs.games.generals import GAME, GeneralsConfig, rules
from empire_envs.games.generals.cards import (
    MAX_CARD_NUMBER,
    MAX_NESTING,
    MAX_PILE_CARDS,
    CardFileError,
    DeckError,
    load_deck,
    load_decks,
    load_pool,
)

from .test_cards import (
    ROME_PLAYING,
    SUPPLY,
    assert_names,
    card_of,
    deck_data,
    default_pool_data,
    failed_load,
    toml_text,
    write,
)

# ---------------------------------------------------------------------------------------------
# numbers: card numbers and counts have a ceiling, and a number too long to read is refused


@pytest.mark.parametrize("suffix", ["toml", "json"])
@pytest.mark.parametrize("digits", [5000, 4000, 5])
def test_a_huge_card_number_is_refused_naming_the_field(tmp_path, suffix, digits):
    """5,000 digits: Python cannot even read it (a raw ValueError before); 4,000 digits were
    accepted and then overflowed float32 in the observation; 99,999 is just over the ceiling."""
    data = default_pool_data()
    card_of(data, "rom_legionary")["strength"] = int("9" * digits) if digits < 4300 else 777
    path = write(tmp_path, f"pool.{suffix}", data)
    if digits >= 4300:  # Python will not turn that many digits into an int: write them as text
        text = path.read_text()
        marker = '"strength": 777' if suffix == "json" else "strength = 777"
        assert text.count(marker) == 1
        path.write_text(text.replace(marker, marker + "9" * digits))
    message = failed_load(CardFileError, load_pool, path)
    assert_names(message, str(path), "'strength'")
    if not (suffix == "toml" and digits >= 4300):  # the TOML reader fails before any card exists
        assert_names(message, "card 'rom_legionary'", f"0..{MAX_CARD_NUMBER}")
    assert len(message) < 400, "the number is not printed in full"


def test_numbers_up_to_the_ceiling_load(tmp_path):
    data = default_pool_data()
    card_of(data, "rom_legionary")["strength"] = MAX_CARD_NUMBER
    card_of(data, "gold")["value"] = MAX_CARD_NUMBER
    card_of(data, "grain")["ref"] = 999_999
    pool = load_pool(write(tmp_path, "pool.toml", data))
    assert pool.kind("rom_legionary").strength == MAX_CARD_NUMBER and pool.kinds[-1].id == "grain"


@pytest.mark.parametrize("count", [MAX_PILE_CARDS + 1, 100_000])
def test_a_huge_count_in_a_deck_is_refused(tmp_path, count):
    path = write(tmp_path, "huge.json", deck_data({**ROME_PLAYING, "rom_legionary": count}, SUPPLY))
    message = failed_load(CardFileError, load_deck, path, load_pool())
    assert_names(message, str(path), "[playing]", "'rom_legionary'", "count", f"1..{MAX_PILE_CARDS}")


def test_a_pile_over_the_limit_is_refused_naming_the_card_that_passes_it(tmp_path):
    supply = {"grain": 600, "timber": 600}
    path = write(tmp_path, "huge.toml", deck_data(ROME_PLAYING, supply))
    message = failed_load(CardFileError, load_deck, path, load_pool())
    assert_names(message, str(path), "[supply]", "'timber'", f"more than {MAX_PILE_CARDS}")


# ---------------------------------------------------------------------------------------------
# structure: nesting, repeated keys, one pile per card, unique deck ids


def test_json_nested_too_deeply_to_read_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "deep.json"
    depth = 100_000
    path.write_text('{"schema_version": 1, "pool": "p",\n"card": ' + "[" * depth + "]" * depth + "}")
    message = failed_load(CardFileError, load_pool, path)  # a raw RecursionError before
    assert_names(message, str(path), "line 2", "'card'", "nested")


@pytest.mark.parametrize("suffix", ["toml", "json"])
def test_nesting_below_the_reader_limit_is_refused_naming_the_field(tmp_path, suffix):
    data = default_pool_data()
    nested: list = ["raider"]
    for _ in range(MAX_NESTING + 5):
        nested = [nested]
    card_of(data, "rom_legionary")["keywords"] = nested
    path = write(tmp_path, f"deep.{suffix}", data)
    message = failed_load(CardFileError, load_pool, path)
    assert_names(message, str(path), "'keywords'")
    assert len(message) < 400


def test_repeated_json_key_in_a_card_is_refused(tmp_path):
    data = default_pool_data()
    text = json.dumps(data)
    marker = '"id": "rom_legionary"'
    path = tmp_path / "pool.json"
    path.write_text(text.replace(marker, marker + ', "strength": 9', 1))
    message = failed_load(CardFileError, load_pool, path)  # the last value won before
    assert_names(message, str(path), "'strength'", "twice", "'rom_legionary'")


def test_repeated_json_key_in_a_deck_pile_is_refused(tmp_path):
    path = tmp_path / "deck.json"
    path.write_text('{"id": "d", "name": "D", "empire": "rome", "playing": {"rom_legionary": 4, "rom_legionary": 5}}')
    message = failed_load(CardFileError, load_deck, path, load_pool())
    assert_names(message, str(path), "'rom_legionary'", "twice")


def test_repeated_toml_key_is_refused(tmp_path):
    path = tmp_path / "deck.toml"
    path.write_text(toml_text(deck_data(ROME_PLAYING, SUPPLY)) + "grain = 2\n")
    assert_names(failed_load(CardFileError, load_deck, path, load_pool()), str(path), "TOML")


def test_a_card_in_both_piles_is_refused_even_without_deck_rules(tmp_path):
    path = write(tmp_path, "both.toml", deck_data({**ROME_PLAYING, "grain": 1}, SUPPLY))
    message = failed_load(CardFileError, load_deck, path, load_pool())
    assert_names(message, str(path), "'grain'", "[playing]", "[supply]")
    with pytest.raises(CardFileError, match="deck_files"):
        GeneralsConfig(deck_files=[path], enforce_deck_rules=False)


def test_duplicate_deck_ids_are_refused_naming_both_files(tmp_path):
    first = write(tmp_path, "first.toml", deck_data(ROME_PLAYING, SUPPLY, deck_id="same"))
    second = write(tmp_path, "second.json", deck_data(ROME_PLAYING, deck_id="same"))
    message = failed_load(CardFileError, load_decks, [first, second], load_pool())  # last won before
    assert_names(message, str(first), str(second), "'id'", "'same'")
    with pytest.raises(CardFileError) as caught:
        GeneralsConfig(deck_files=[first, second])
    assert_names(str(caught.value), "deck_files", str(second))


# ---------------------------------------------------------------------------------------------
# the config: everything checked when it is made, the argument named in every message


def _rome_deck(tmp_path: Path, deck_id: str = "rome_copy") -> Path:
    return write(tmp_path, f"{deck_id}.toml", deck_data(ROME_PLAYING, SUPPLY, deck_id=deck_id))


BAD_CONFIGS = {
    "no deck files": ({"deck_files": ()}, CardFileError, ["deck_files", "empty"]),
    "deck files as one path": ({"deck_files": "decks.toml"}, TypeError, ["deck_files"]),
    "a missing deck file": ({"deck_files": ["{tmp}/missing.toml"]}, CardFileError, ["deck_files", "missing.toml"]),
    "a deck file of another format": ({"deck_files": ["{tmp}/deck.yaml"]}, CardFileError, ["deck_files", ".toml"]),
    "unknown card pool": ({"card_pool": "defualt"}, CardFileError, ["card_pool", "'defualt'"]),
    "missing card pool": ({"card_pool": "{tmp}/pool.toml"}, CardFileError, ["card_pool", "pool.toml"]),
    "card pool of a wrong type": ({"card_pool": 5}, TypeError, ["card_pool"]),
    "an unknown deck": ({"decks": ("rome", "atlantis")}, ValueError, ["decks", "'atlantis'"]),
    "too few decks": ({"deck_files": ["{rome}"]}, ValueError, ["decks", "allow_mirror", "1 is available"]),
    "decks of another pool": ({"card_pool": "{small_pool}"}, DeckError, ["deck_files=None", "rom_centurion"]),
    "an illegal deck": ({"predestination": "dynasty_variant"}, DeckError, ["deck_files", "dynasty_variant"]),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_config_refuses_at_construction_naming_the_argument(tmp_path, case):
    settings, error, words = BAD_CONFIGS[case]
    small = default_pool_data()
    small["card"] = [card for card in small["card"] if card["id"] == "grain"]
    files = {"tmp": tmp_path, "rome": _rome_deck(tmp_path), "small_pool": write(tmp_path, "small.toml", small)}

    def filled(value):
        if isinstance(value, str):
            return value.format(**files)
        if isinstance(value, list):
            return [filled(item) for item in value]
        return value

    settings = {key: filled(value) for key, value in settings.items()}
    with pytest.raises(error) as caught:
        GeneralsConfig(**settings)
    assert_names(str(caught.value), *words)
    with pytest.raises(error):  # the env refuses the same way, before any reset
        raw_env(**settings)


def test_paths_are_accepted_wherever_a_file_name_is(tmp_path):
    pool_path = write(tmp_path, "pool.json", default_pool_data())
    decks = [_rome_deck(tmp_path, "first"), _rome_deck(tmp_path, "second")]
    by_path = GeneralsConfig(card_pool=pool_path, deck_files=decks)
    by_text = GeneralsConfig(card_pool=str(pool_path), deck_files=[str(path) for path in decks])
    assert by_path == by_text and by_path.card_pool == str(pool_path)
    assert sorted(by_path.available_decks) == ["first", "second"]
    assert load_deck(decks[0], by_path.pool).id == "first" and load_pool(pool_path).size == 50
    env = raw_env(card_pool=pool_path, deck_files=decks)
    env.reset(seed=1)
    assert {env.unwrapped.game_state.players[seat].deck_id for seat in (0, 1)} == {"first", "second"}


def test_the_pool_and_decks_are_read_once_when_the_env_is_made(tmp_path):
    pool_path = write(tmp_path, "pool.toml", default_pool_data())
    decks = [_rome_deck(tmp_path, "first"), _rome_deck(tmp_path, "second")]
    env = raw_env(card_pool=pool_path, deck_files=decks)
    for path in (pool_path, *decks):
        path.unlink()  # every reset read them again before
    for seed in range(3):
        env.reset(seed=seed)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert GAME.num_actions(env.config) == env.num_actions and GAME.action_name(env.config, 7)


# ---------------------------------------------------------------------------------------------
# reset options: checked before use, never converted


@pytest.mark.parametrize("value", ["1", 1.0, True, np.bool_(False), [1], None.__class__])
def test_first_player_of_a_wrong_type_is_a_type_error_naming_it(value):
    with pytest.raises(TypeError, match="first_player"):
        raw_env().reset(seed=4, options={"first_player": value})


@pytest.mark.parametrize("value", [2, -1, 10**30])
def test_first_player_out_of_range_is_a_value_error_naming_it(value):
    with pytest.raises(ValueError, match="first_player"):
        raw_env().reset(seed=1, options={"first_player": value})


def test_first_player_accepts_python_and_numpy_integers():
    env = raw_env()
    for value in (1, np.int64(0), np.uint8(1)):
        env.reset(seed=1, options={"first_player": value})
        assert env.unwrapped.game_state.first == int(value)


@pytest.mark.parametrize("value", ["abc", "ab", b"ab", 5, 1.5, [1.0, 2.0], ["rome", 5], {"rome", "egypt"}])
def test_a_decks_option_that_is_not_a_list_of_deck_ids_is_a_type_error_naming_it(value):
    with pytest.raises(TypeError, match="'decks'"):
        raw_env().reset(seed=1, options={"decks": value})


@pytest.mark.parametrize("value", [["12", "34"], ["rome"], ["rome", "egypt", "franks"], []])
def test_a_decks_option_with_unknown_ids_or_the_wrong_length_is_a_value_error_naming_it(value):
    with pytest.raises(ValueError, match="'decks'"):
        raw_env().reset(seed=1, options={"decks": value})


def test_a_good_decks_option_deals_those_decks_and_makes_them_public():
    env = raw_env()
    env.reset(seed=1, options={"decks": ("franks", "egypt"), "first_player": 1})
    state = env.unwrapped.game_state
    assert [p.deck_id for p in state.players] == ["franks", "egypt"] and state.first == 1
    assert state.decks_public
    env.reset(seed=1)
    assert not env.unwrapped.game_state.decks_public
    config = GeneralsConfig(decks=("rome", "rome"))
    assert rules.new_game(config, np.random.default_rng(0)).decks_public
