"""The package as a user gets it: the wheel's files and metadata (the license, the training configs,
the pretrained policies, the Generals data), an sdist without the tests, a build without
deprecation banners, the training configs named by ``--config solo`` / ``--config jax/solo`` (from
the checkout and from the installed wheel), and the pieces of the clean-venv check
``.ci/check_wheel.py``, whose whole run (it installs the base dependencies from the package index)
is ``make package-check``, a step of ``.ci/run``.

The builds need the dev extra's ``build`` and setuptools (no build isolation, so no network);
without them those tests skip.
"""

from __future__ import annotations

import importlib.util
import json
import re
import runpy
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import zipfile
from email import message_from_string
from email.message import Message
from pathlib import Path

import pytest

import empire_envs
from empire_envs.training.config import SHIPPED_CONFIG_FOLDER, config_file, load_config, shipped_configs
from empire_envs.training.jax_config import load_jax_config

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "empire_envs"
CHECK_SCRIPT = ROOT / ".ci" / "check_wheel.py"

#: classifiers the package metadata must carry
CLASSIFIERS = {
    "Intended Audience :: Science/Research",
    "Topic :: Scientific/Engineering :: Artificial Intelligence",
    "Topic :: Games/Entertainment",
    "Operating System :: OS Independent",
    "Typing :: Typed",
    "Programming Language :: Python :: 3.10",
}


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it comes with the dev extra: pip install -e '.[dev]')")


def _run(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _package_files(*patterns: str) -> set[str]:
    """Files of the checkout's package as archive paths (``empire_envs/...``)."""
    return {path.relative_to(ROOT).as_posix() for pattern in patterns for path in PACKAGE.glob(pattern)}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(wheel, sdist, build log): ``python -m build`` (the sdist, then the wheel from it) on a copy
    of what the sdist is made from, tests included so that leaving them out is the build's doing;
    without build isolation, so with the setuptools of this env and no network."""
    _needs("build")
    _needs("setuptools")
    tmp = tmp_path_factory.mktemp("package")
    source = tmp / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for folder in ("empire_envs", "tests"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "CHANGELOG.md"):
        shutil.copy2(ROOT / name, source / name)
    dist = tmp / "dist"
    result = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source), cwd=tmp)
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"python -m build failed:\n{log}"
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in dist.iterdir())
    return wheels[0], sdists[0], log


def _wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def _metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        return message_from_string(archive.read(name).decode())


# --------------------------------------------------------------------------- the wheel and the sdist


def test_wheel_ships_the_license_configs_policies_and_generals_data(built):
    wheel, _, _ = built
    names = _wheel_names(wheel)
    dist_info = f"empire_envs-{empire_envs.__version__}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(f"{dist_info}/licenses/LICENSE").decode() == (ROOT / "LICENSE").read_text()
    configs = _package_files("configs/**/*.toml")
    assert {"empire_envs/configs/solo.toml", "empire_envs/configs/jax/solo.toml"} <= configs
    assert {name for name in names if name.startswith("empire_envs/configs/")} == configs
    policies = _package_files("pretrained/*.npz")
    assert {"empire_envs/pretrained/EmpireSolo-v0.npz", "empire_envs/pretrained/EmpireSolitaire-v0.npz"} <= policies
    generals = _package_files("games/generals/data/*.toml", "games/generals/data/decks/*.toml")
    assert "empire_envs/games/generals/data/default_pool.toml" in generals
    missing = (policies | generals | {"empire_envs/py.typed"}) - names
    assert not missing, f"missing from the wheel: {sorted(missing)}"


def test_wheel_metadata_has_the_spdx_license_classifiers_and_keywords(built):
    wheel, _, _ = built
    metadata = _metadata(wheel)
    assert tuple(map(int, metadata["Metadata-Version"].split("."))) >= (2, 4)  # License-Expression (PEP 639)
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["License"] is None, "the license is the SPDX expression, not free text"
    classifiers = set(metadata.get_all("Classifier"))
    assert not CLASSIFIERS - classifiers, sorted(CLASSIFIERS - classifiers)
    assert not [c for c in classifiers if c.startswith("License ::")], "PEP 639: no license classifiers"
    assert [c for c in classifiers if c.startswith("Development Status ::")]
    assert metadata["Requires-Python"] == ">=3.10"
    versions = [
        c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert versions and all(int(v.split(".")[1]) >= 10 for v in versions), versions
    keywords = metadata["Keywords"].split(",")
    assert {"reinforcement-learning", "gymnasium", "pettingzoo"} <= set(keywords), keywords
    assert metadata["Author"] == "the empire_envs authors"
    assert metadata["Description-Content-Type"] == "text/markdown"


def test_build_prints_no_deprecation_banner(built):
    _, _, log = built
    banners = [line for line in log.splitlines() if "deprecat" in line.lower()]
    assert not banners, "\n".join(banners)


def test_sdist_builds_the_wheel_and_leaves_the_tests_out(built):
    """The sdist carries what the wheel is built from (the wheel above was built from it), the
    license and the changelog; not the tests, which need the whole clone (MANIFEST.in)."""
    _, sdist, _ = built
    with tarfile.open(sdist) as archive:
        inside = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    expected = {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml", "PKG-INFO"}
    expected |= _package_files("configs/**/*.toml", "pretrained/*.npz", "games/generals/data/**/*.toml")
    assert expected <= inside, sorted(expected - inside)
    assert not [name for name in inside if name == "tests" or name.startswith("tests/")]


# --------------------------------------------------------------------------- the shipped configs


def test_experiments_configs_is_the_package_folder():
    """One source for each config: ``experiments/configs`` links to ``empire_envs/configs``, so the
    documented paths and the scripts of experiments/ read the shipped files."""
    assert SHIPPED_CONFIG_FOLDER == PACKAGE / "configs"
    assert (ROOT / "experiments" / "configs").resolve() == SHIPPED_CONFIG_FOLDER.resolve()
    assert (ROOT / "experiments" / "configs" / "solo.toml").resolve() == shipped_configs()["solo"].resolve()


def test_config_names_the_shipped_files():
    shipped = shipped_configs()
    assert {"solo", "solitaire", "demo", "tictactoe_selfplay", "jax/solo", "jax/solitaire", "jax/demo"} <= set(shipped)
    assert list(shipped) == sorted(shipped)
    assert config_file("solo") == config_file("solo.toml") == SHIPPED_CONFIG_FOLDER / "solo.toml"
    assert config_file("jax/solo") == SHIPPED_CONFIG_FOLDER / "jax" / "solo.toml"
    assert load_config("solo").env_id == "empire_envs/EmpireSolo-v0"
    assert load_config("solo").total_timesteps == load_config(ROOT / "experiments/configs/solo.toml").total_timesteps
    assert load_jax_config("jax/solo").env_id == "empire_envs/EmpireSolo-v0"


def test_a_config_path_wins_over_a_shipped_name(tmp_path, monkeypatch):
    (tmp_path / "solo.toml").write_text("seed = 7\n")
    assert load_config(tmp_path / "solo.toml").seed == 7
    monkeypatch.chdir(tmp_path)
    assert load_config("solo.toml").seed == 7  # a file of that name here
    assert load_config("solo").seed == 0  # no file named "solo" here: the shipped config


def test_an_unknown_config_name_lists_the_shipped_ones():
    with pytest.raises(ValueError, match=r"no config file at 'jax/nope'") as error:
        load_config("jax/nope")
    listed = re.search(r"shipped: (.*)\)", str(error.value))
    assert listed is not None and listed.group(1).split(", ") == list(shipped_configs())


def test_the_jax_loader_points_an_sb3_config_at_the_jax_ones():
    with pytest.raises(ValueError, match=r"solo\.toml: unknown config key 'n_envs'.*jax/solo"):
        load_jax_config("solo")


@pytest.mark.parametrize("name", list(shipped_configs()))
def test_every_shipped_config_loads_with_its_backends_loader(name):
    loader = load_jax_config if name.startswith("jax/") else load_config
    config = loader(name)
    assert config.env_id


_CONFIGS_FROM_THE_WHEEL = textwrap.dedent(
    """
    import json, sys
    from empire_envs.training.config import SHIPPED_CONFIG_FOLDER, load_config, shipped_configs
    from empire_envs.training.jax_config import load_jax_config
    print(json.dumps({"folder": str(SHIPPED_CONFIG_FOLDER), "names": list(shipped_configs()),
                      "solo": load_config("solo").env_id, "jax": load_jax_config("jax/solo").env_id}))
    """
)


def test_the_installed_wheel_finds_its_configs_by_name(built, tmp_path):
    """``--config solo`` needs no clone: from the installed wheel (its dependencies read from this
    env's site-packages, appended after the venv's own), the names load the wheel's files."""
    wheel, _, _ = built
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", "--without-pip", str(venv), cwd=tmp_path).returncode == 0
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    install = _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        str(wheel),
        cwd=tmp_path,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    purelib = Path(_run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_parent_env.pth").write_text("\n".join(sorted(ours)) + "\n")
    result = _run(str(python), "-c", _CONFIGS_FROM_THE_WHEEL, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(report["folder"]).resolve().is_relative_to(venv.resolve()), report["folder"]
    assert report["names"] == list(shipped_configs())
    assert report["solo"] == report["jax"] == "empire_envs/EmpireSolo-v0"


# --------------------------------------------------------------------------- the clean-venv check


@pytest.fixture(scope="module")
def check_script():
    return runpy.run_path(str(CHECK_SCRIPT))


def test_the_check_runs_the_readmes_quickstarts_as_printed(check_script):
    blocks = check_script["readme_quickstarts"]((ROOT / "README.md").read_text())
    assert set(blocks) == {"gymnasium", "pettingzoo"}
    assert 'gym.make("empire_envs/EmpireSolo-v0", render_mode="ansi")' in blocks["gymnasium"]
    assert 'pettingzoo.make("aec", "empire_envs/Pillars-v0"' in blocks["pettingzoo"]
    with pytest.raises(ValueError, match="Quickstart"):
        check_script["readme_quickstarts"]("# a README without quickstarts\n")


def test_the_check_runs_list_and_a_pretrained_evaluation(check_script):
    commands = check_script["COMMANDS"]
    assert ["-m", "empire_envs", "list"] in commands.values()
    evaluate = " ".join(commands["evaluate pretrained"])
    assert evaluate == (
        "-m empire_envs evaluate --env empire_envs/EmpireSolo-v0 --agent pretrained:EmpireSolo-v0 "
        "--episodes 20 --seed 0"
    )


def test_a_failing_step_fails_the_check(check_script, tmp_path):
    with pytest.raises(check_script["CheckFailed"], match="exit status 3"):
        check_script["run_step"]("a step", [sys.executable, "-c", "raise SystemExit(3)"], tmp_path)


def test_ci_runs_the_package_check_then_the_tests():
    """Both run; the tests last, so that the test runner's summary closes CI's log."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci
    lines = [line.strip() for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert lines[-1] == "make test" and "make package-check" in lines
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^package-check:.*\n\t\$\(PY\) \.ci/check_wheel\.py$", makefile, flags=re.MULTILINE)


def test_readme_images_exist_at_their_relative_paths():
    """The README's images are relative to the repository (there is no public URL to make them
    absolute; see pyproject.toml), so each must be there."""
    targets = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", (ROOT / "README.md").read_text())
    assert targets
    missing = [target for target in targets if "://" not in target and not (ROOT / target).is_file()]
    assert not missing, missing
