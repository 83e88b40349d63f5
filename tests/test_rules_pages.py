"""Each game's docs/rules page and env docstring carry the same tables as the code they describe."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from empire_envs.core.docstrings import rst_tables
from empire_envs.registry import ENTRIES

ROOT = Path(__file__).resolve().parents[1]
# game package -> (rules page, env class, config class)
GAMES = {
    "solo": ("solo.md", "EmpireSoloEnv", "SoloConfig"),
    "solitaire": ("solitaire.md", "EmpireSolitaireEnv", "SolitaireConfig"),
    "pillars": ("pillars.md", "raw_env", "PillarsConfig"),
    "map_duel": ("map_duel.md", "raw_env", "MapDuelConfig"),
    "generals": ("generals.md", "raw_env", "GeneralsConfig"),
}
#: how each page names its observation Box (the multiplayer ones hold raw counts up to ``high``)
BOX_TEXT = {
    "solo": "Box(0, 1, ({size},), float32)",
    "solitaire": "Box(0, 1, ({size},), float32)",
    "pillars": "Box(0, high, ({size},), float32)",
    "map_duel": "Box(0, high, ({size},), float32)",
    "generals": "Box(-1, 100, ({size},), float32)",
}
games = pytest.mark.parametrize("game", sorted(GAMES))


def _parts(game: str):
    package = f"empire_envs.games.{game}"
    page_name, env_name, config_name = GAMES[game]
    actions = importlib.import_module(f"{package}.actions")
    observe = importlib.import_module(f"{package}.observe")
    env_class = getattr(importlib.import_module(f"{package}.env"), env_name)
    config_class = getattr(importlib.import_module(package), config_name)
    page = (ROOT / "docs" / "rules" / page_name).read_text()
    return actions, observe, env_class, config_class, page


def test_every_registered_game_has_a_rules_page():
    for item in ENTRIES:
        game = item.entry_point.split(".")[2]
        assert game in GAMES, f"{item.env_id}: add its game to this test"


@games
def test_rules_page_has_the_code_tables(game):
    actions, observe, _, _, page = _parts(game)
    assert rst_tables(actions.__doc__) in page
    assert rst_tables(observe.__doc__) in page
    assert f"Discrete({actions.NUM_ACTIONS})" in page
    assert BOX_TEXT[game].format(size=observe.OBSERVATION_SIZE) in page


@games
def test_env_docstring_has_the_code_tables(game):
    actions, observe, env_class, _, _ = _parts(game)
    assert rst_tables(actions.__doc__) in env_class.__doc__
    assert rst_tables(observe.__doc__) in env_class.__doc__


@games
def test_rules_page_lists_every_flag_with_its_default(game):
    *_, config_class, page = _parts(game)
    defaults = config_class()
    for name in config_class.__dataclass_fields__:
        row = re.search(rf"^\| `{name}` \| `([^`]*)` \|", page, flags=re.MULTILINE)
        assert row, f"flag {name} missing from the rules page's variants table"
        assert row.group(1) == repr(getattr(defaults, name)), name


@games
def test_rules_page_and_readme_name_every_id_of_the_game(game):
    *_, page = _parts(game)
    readme = (ROOT / "README.md").read_text()
    for item in ENTRIES:
        if item.entry_point.startswith(f"empire_envs.games.{game}."):
            assert item.env_id in page
            assert item.env_id in readme


def test_readme_table_states_each_envs_space_sizes():
    import gymnasium

    readme = (ROOT / "README.md").read_text()
    for item in ENTRIES:
        if item.api != "gymnasium":
            continue
        env = gymnasium.make(item.env_id)
        assert f"`Discrete({env.action_space.n})`" in readme, item.env_id
        assert f"`Box(0, 1, ({env.observation_space.shape[0]},), float32)`" in readme, item.env_id
