"""The documentation site: the Markdown tree that ``docs/tools/build_site.py`` generates builds
with ``mkdocs build --strict`` without a warning, with a page for every registered env id and
every rules page; the tool refuses a bad ``--out`` or ``--root`` in one line, touching nothing.

The tool is a script of the repository, not a module of the package, so it runs as ``make docs``
runs it: ``python docs/tools/build_site.py``, in a process of its own."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from empire_envs.registry import ENTRIES, GAMES

ROOT = Path(__file__).resolve().parent.parent
RULES = sorted((ROOT / "docs" / "rules").glob("*.md"))
TOOL = ROOT / "docs" / "tools" / "build_site.py"


def _run_tool(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python docs/tools/build_site.py ARGS`` in ``cwd``."""
    return subprocess.run([sys.executable, str(TOOL), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _generate(out: Path) -> str:
    """Build the tree of this checkout into ``out``; the tool's output."""
    result = _run_tool("--root", str(ROOT), "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


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


def test_build_site_writes_the_tree_and_replaces_its_own(tmp_path: Path) -> None:
    out = tmp_path / "src"
    assert f"({len(ENTRIES)} environment pages) to {out}" in _generate(out)
    assert (out / ".nav.json").is_file()
    (out / "stale.md").write_text("left by an earlier build\n")
    _generate(out)  # a tree the tool wrote (it holds .nav.json) is replaced
    assert not (out / "stale.md").exists()


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--out", "a_file"], ["a_file"]),
        (["--out", "keep", "--root", str(ROOT)], ["not a tree this command wrote", "nothing was changed"]),
        (["--out", "new", "--root", "no/such/checkout"], ["not a checkout of empire_envs"]),
    ],
    ids=["out-is-a-file", "out-holds-other-files", "root-is-no-checkout"],
)
def test_build_site_never_empties_a_folder_it_did_not_write(
    tmp_path: Path, args: list[str], fragments: list[str]
) -> None:
    """A plain file, a folder of a user's files (no ``.nav.json``) or a folder that is no checkout:
    exit status 2, one line naming the problem, and every file as it was."""
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "notes.txt").write_text("my notes\n")
    (tmp_path / "a_file").write_text("data\n")
    before = snapshot(tmp_path)
    result = _run_tool(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("build_site.py: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, result.stderr)
    assert snapshot(tmp_path) == before


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
