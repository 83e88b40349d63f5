"""Code health: the linter, the formatter and the type checker pass, and the package builds a
wheel and an sdist whose wheel installs and registers every environment id.

The tools come with the ``dev`` extra (``make test`` installs it); without one its test skips.
``lint-imports`` (import-linter) holds the layers declared in ``pyproject.toml``.
Every check covers whole folders, so new modules are held to the same rules.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

import empire_envs

ROOT = Path(__file__).resolve().parent.parent
GENERALS_DATA = ROOT / "empire_envs" / "games" / "generals" / "data"


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it comes with the dev extra: pip install -e '.[dev]')")


def _run(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _assert_ok(result: subprocess.CompletedProcess[str], what: str) -> None:
    assert result.returncode == 0, f"{what} failed:\n{result.stdout}\n{result.stderr}"


def test_ruff_check_passes():
    _needs("ruff")
    checked = ("empire_envs", "experiments", "tests", "docs/tools")
    _assert_ok(_run(sys.executable, "-m", "ruff", "check", *checked), "ruff check")


def test_ruff_format_leaves_the_package_unchanged():
    _needs("ruff")
    _assert_ok(_run(sys.executable, "-m", "ruff", "format", "--check", "--diff", "empire_envs"), "ruff format --check")


def test_mypy_passes():
    _needs("mypy")
    _assert_ok(_run(sys.executable, "-m", "mypy", "empire_envs"), "mypy empire_envs")


def test_import_layers_hold():
    """The import-linter contracts of pyproject.toml: the layers, games independent of each other,
    no import cycle inside any package."""
    _needs("importlinter")
    lint = Path(sys.executable).with_name("lint-imports")
    _assert_ok(_run(str(lint), "--no-cache"), "lint-imports")


def test_no_sys_path_manipulation_anywhere():
    """Scripts, tests and the docs build import the package as installed, never by editing sys.path."""
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("empire_envs", "experiments", "tests", "notebooks")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".ipynb")
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "sys.path" in line and path.name != "test_code_health.py"
    ]
    assert not offenders, f"sys.path is edited at {offenders}"


def _data_files() -> set[str]:
    """The Generals card pool and decks as wheel paths, per the package-data globs."""
    files = [*GENERALS_DATA.glob("*.toml"), *GENERALS_DATA.glob("decks/*.toml")]
    return {path.relative_to(ROOT).as_posix() for path in files}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(wheel, sdist) built from a copy of the package sources (the checkout stays untouched);
    without build isolation, so with the setuptools of this env and no network."""
    _needs("build")
    _needs("setuptools")
    _needs("wheel")
    tmp = tmp_path_factory.mktemp("build")
    source = tmp / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "empire_envs", source / "empire_envs", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "CHANGELOG.md"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, source / name)
    dist = tmp / "dist"
    result = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source), cwd=tmp)
    _assert_ok(result, "python -m build")
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())
    return wheels[0], sdists[0]


def test_wheel_and_sdist_carry_the_version_data_files_and_py_typed(built):
    wheel, sdist = built
    version = empire_envs.__version__
    assert wheel.name.startswith(f"empire_envs-{version}-"), wheel.name
    assert sdist.name == f"empire_envs-{version}.tar.gz", sdist.name
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert _data_files(), "no Generals data files found in the checkout"
    assert _data_files() <= names, f"missing from the wheel: {sorted(_data_files() - names)}"
    assert "empire_envs/py.typed" in names
    assert "empire_envs/registry.py" in names
    with tarfile.open(sdist) as archive:
        inside = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"pyproject.toml", "empire_envs/py.typed"} <= inside
    assert _data_files() <= inside, f"missing from the sdist: {sorted(_data_files() - inside)}"


_CHECK = textwrap.dedent(
    """
    import json

    import gymnasium
    import pettingzoo

    import empire_envs
    from empire_envs.registry import ENTRIES

    missing = [
        e.env_id for e in ENTRIES
        if e.env_id not in (gymnasium.registry if e.api == "gymnasium" else pettingzoo.aec_registry)
    ]
    env = empire_envs.make("empire_envs/Generals-v0")  # reads the card pool and decks shipped as data
    env.reset(seed=0)
    print(json.dumps({"file": empire_envs.__file__, "version": empire_envs.__version__,
                      "ids": len(ENTRIES), "missing": missing}))
    """
)


def test_wheel_installs_and_registers_every_env(built, tmp_path):
    """The wheel in a fresh venv, its dependencies read from this env's site-packages (appended
    after the venv's own, so ``empire_envs`` comes from the wheel): no network needed."""
    wheel, _ = built
    venv = tmp_path / "venv"
    _assert_ok(_run(sys.executable, "-m", "venv", str(venv), cwd=tmp_path), "python -m venv")
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    install = _run(str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel), cwd=tmp_path)
    _assert_ok(install, "pip install the wheel")
    purelib = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_parent_env.pth").write_text("\n".join(sorted(ours)) + "\n")
    result = _run(str(python), "-c", _CHECK, cwd=tmp_path)
    _assert_ok(result, "import empire_envs from the installed wheel")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(report["file"]).resolve().is_relative_to(venv.resolve()), report["file"]
    assert report["version"] == empire_envs.__version__
    assert report["ids"] == len(empire_envs.ENTRIES) and report["missing"] == []
