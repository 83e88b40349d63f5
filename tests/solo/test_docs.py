"""docs/rules/solo.md and the env docstring carry the same tables as the code they describe."""

from __future__ import annotations

import re
from pathlib import Path

from empire_envs.games.solo import actions, observe
from empire_envs.games.solo.config import SoloConfig
from empire_envs.core.docstrings import rst_tables as _table
from empire_envs.games.solo.env import EmpireSoloEnv
from empire_envs.registry import ENTRIES

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules" / "solo.md"


def test_rules_page_has_the_code_tables():
    page = RULES_PAGE.read_text()
    assert _table(actions.__doc__) in page
    assert _table(observe.__doc__) in page
    assert f"Discrete({actions.NUM_ACTIONS})" in page
    assert f"Box(0, 1, ({observe.OBSERVATION_SIZE},), float32)" in page


def test_env_docstring_has_the_code_tables():
    doc = EmpireSoloEnv.__doc__
    assert _table(actions.__doc__) in doc
    assert _table(observe.__doc__) in doc


def test_rules_page_lists_every_flag_with_its_default():
    page = RULES_PAGE.read_text()
    defaults = SoloConfig()
    for name in SoloConfig.__dataclass_fields__:
        row = re.search(rf"^\| `{name}` \| `([^`]*)` \|", page, flags=re.MULTILINE)
        assert row, f"flag {name} missing from the rules page's variants table"
        assert row.group(1) == repr(getattr(defaults, name)), name


def test_rules_page_and_readme_name_every_solo_id():
    readme = (RULES_PAGE.parents[2] / "README.md").read_text()
    for item in ENTRIES:
        if "EmpireSolo" in item.env_id:
            assert item.env_id in RULES_PAGE.read_text()
            assert item.env_id in readme
