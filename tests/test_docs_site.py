"""The documentation site: the generated Markdown tree builds with ``mkdocs build --strict``
without a warning, with a page for every registered env id and every rules page."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from empire_envs.cli import main as cli_main
from empire_envs.cli.docs_site import build
from empire_envs.registry import ENTRIES, GAMES

ROOT = Path(__file__).resolve().parent.parent
RULES = sorted((ROOT / "docs" / "rules").glob("*.md"))


def _generate(out: Path) -> None:
    build(out, ROOT)


def test_generated_tree_has_every_page(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _generate(src)
    games = {game.key: game for game in GAMES}
    for entry in ENTRIES:
        page = src / "environments" / f"{entry.env_id.rpartition('/')[2]}.md"
        assert page.is_file(), f"no page for {entry.env_id}"
        text = page.read_text(encoding="utf-8")
        assert f"`{entry.env_id}`" in text
        assert "=====" not in text, f"a reST table of {entry.env_id} was not converted"
        # the game's own env docstring (its Gymnasium sections), and its rules page linked
        game = games[entry.game]
        assert f"*From the docstring of `empire_envs.envs.{game.class_name}`.*" in text
        assert "### Description" in text and "### Action Space" in text, entry.env_id
        rules_file = Path(game.rules_page).name
        assert "| rules | [" in text and f"](../rules/{rules_file})" in text, entry.env_id
    for rules in RULES:
        copy = src / "rules" / rules.name
        assert copy.is_file(), f"no copy of {rules.name}"
        assert copy.read_text(encoding="utf-8").splitlines()[0] == rules.read_text(encoding="utf-8").splitlines()[0]
    assert (src / "index.md").is_file()
    assert (src / "adding_a_game.md").is_file(), "the how-to for adding a game is not in the tree"
    assert (src / "jax.md").is_file(), "the batched JAX page is not in the tree"
    api = (src / "api.md").read_text(encoding="utf-8")
    assert not re.search(r"(?m)^:::", api), "a ::: directive of docs/site_src/api.md was left"


def test_docs_command_writes_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "src"
    assert cli_main(["docs", "--root", str(ROOT), "--out", str(out)]) == 0
    assert f"({len(ENTRIES)} environment pages) to {out}" in capsys.readouterr().out
    assert (out / ".nav.json").is_file()


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (pip install -e '.[docs]')",
)
def test_mkdocs_strict_build(tmp_path: Path) -> None:
    src, site = tmp_path / "src", tmp_path / "site"
    _generate(src)
    env = {**os.environ, "EMPIRE_DOCS_SRC": str(src), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    warnings = [line for line in log.splitlines() if re.match(r"^\s*(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)

    for entry in ENTRIES:
        page = site / "environments" / entry.env_id.rpartition("/")[2] / "index.html"
        assert page.is_file(), f"the site has no page for {entry.env_id}"
        html = page.read_text(encoding="utf-8")
        assert entry.env_id in html
        assert "<table>" in html
    for rules in RULES:
        assert (site / "rules" / rules.stem / "index.html").is_file(), f"no rules page {rules.name}"
    for page in (
        "index.html",
        "api/index.html",
        "training/index.html",
        "adding_a_game/index.html",
        "jax/index.html",
        "environments/index.html",
    ):
        assert (site / page).is_file(), page
    # the nav (spliced in by docs/site_src/hooks.py) reaches every env page from the home page
    home = (site / "index.html").read_text(encoding="utf-8")
    for entry in ENTRIES:
        assert f"environments/{entry.env_id.rpartition('/')[2]}/" in home
