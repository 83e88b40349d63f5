"""Each game's docs/rules page and env docstring carry the same tables as the code they describe."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from empire_envs import envs
from empire_envs.core.docstrings import rst_tables
from empire_envs.registry import ENTRIES, GAMES

ROOT = Path(__file__).resolve().parents[1]
#: the registry's games that are a package of their own (``empire_envs.games.<key>``); the Pillars
#: campaign shares the Pillars page and has its own docstring test (tests/pillars/test_events.py)
PACKAGE_GAMES = {game.key: game for game in GAMES if game.game.partition(":")[0] == f"empire_envs.games.{game.key}"}
games = pytest.mark.parametrize("game", sorted(PACKAGE_GAMES))


def _parts(game: str):
    entry = PACKAGE_GAMES[game]
    package = f"empire_envs.games.{game}"
    actions = importlib.import_module(f"{package}.actions")
    observe = importlib.import_module(f"{package}.observe")
    env_class = envs.env_class(game)
    config_class = entry.load().config_class
    page = (ROOT / entry.rules_page).read_text()
    return actions, observe, env_class, config_class, page


def test_every_registered_game_has_a_rules_page():
    for game in GAMES:
        assert game.rules_page and (ROOT / game.rules_page).is_file(), f"{game.key} names no rules page"
    assert {"solo", "solitaire", "pillars", "map_duel", "generals"} <= set(PACKAGE_GAMES)


@games
def test_rules_page_has_the_code_tables(game):
    actions, observe, _, config_class, page = _parts(game)
    assert rst_tables(actions.__doc__) in page
    assert rst_tables(observe.__doc__) in page
    assert f"Discrete({actions.NUM_ACTIONS})" in page
    low, _high = PACKAGE_GAMES[game].load().observation_bounds(config_class())
    box = rf"Box\({low:g}, [^,]+, \({observe.OBSERVATION_SIZE},\), float32\)"
    assert re.search(box, page), f"the page names no {box}"


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
        if item.game == game:
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
