"""The package as a user gets it, outside the clone.

Builds the sdist and the wheel (``python -m build``: the wheel is built from the sdist, so the sdist
is checked too), installs the wheel into a fresh venv with its base dependencies only (gymnasium,
pettingzoo, numpy, pillow, from the package index; pip's cache makes a repeat fast), and runs there,
from an empty folder: the README's two quickstarts (Gymnasium and PettingZoo, read from README.md
as printed), ``python -m empire_envs list``, an evaluation of the shipped ``pretrained:`` policy,
and the shipped training configs by name (``solo``, ``jax/solo``). Any failing step fails the
check (exit status 1) and prints its output.

Usage: ``.venv/bin/python .ci/check_wheel.py [--keep]`` (``make package-check``; ``.ci/run`` runs it
before ``make test``). Needs ``build`` and setuptools in the running env (the dev extra): the build
runs without isolation, so only the install reaches the package index.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: README heading -> the first ```python block under it is that quickstart
QUICKSTART_HEADINGS = {"gymnasium": "## Quickstart (Gymnasium)", "pettingzoo": "## Quickstart (PettingZoo)"}

#: the commands run in the fresh venv after the quickstarts, by step name
COMMANDS = {
    "list": ["-m", "empire_envs", "list"],
    "evaluate pretrained": [
        "-m",
        "empire_envs",
        "evaluate",
        "--env",
        "empire_envs/EmpireSolo-v0",
        "--agent",
        "pretrained:EmpireSolo-v0",
        "--episodes",
        "20",
        "--seed",
        "0",
    ],
}

#: run in the fresh venv first: the package comes from the venv, with none of the extras' packages
WHERE = """
import importlib.util, sys
import empire_envs
extras = [name for name in ("torch", "stable_baselines3", "jax", "ray") if importlib.util.find_spec(name)]
assert not extras, f"the base install has extra packages: {extras}"
assert empire_envs.__file__.startswith(sys.prefix), f"empire_envs from {empire_envs.__file__}, not the venv"
print(f"empire_envs {empire_envs.__version__} from {empire_envs.__file__}")
"""

#: the shipped training configs load by name (their loaders need neither torch nor jax)
CONFIGS = """
from empire_envs.training.config import load_config, shipped_configs
from empire_envs.training.jax_config import load_jax_config
print("shipped:", ", ".join(shipped_configs()))
print("solo:", load_config("solo").env_id, "jax/solo:", load_jax_config("jax/solo").env_id)
"""


def readme_quickstarts(text: str) -> dict[str, str]:
    """The README's quickstarts, name -> code: the first ```python block under each heading of
    ``QUICKSTART_HEADINGS``; a ``ValueError`` when a heading or its block is missing."""
    blocks = {}
    for name, heading in QUICKSTART_HEADINGS.items():
        at = text.find(f"\n{heading}\n")
        found = re.search(r"```python\n(.*?)```", text[at:], flags=re.DOTALL) if at >= 0 else None
        if found is None:
            raise ValueError(f"README.md has no ```python block under {heading!r}")
        blocks[name] = found.group(1)
    return blocks


class CheckFailed(Exception):
    pass


def run_step(name: str, args: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run one step; its output, or ``CheckFailed`` with the output."""
    start = time.perf_counter()
    result = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise CheckFailed(
            f"{name} failed (exit status {result.returncode}): {' '.join(map(str, args))}\n"
            f"{result.stdout}\n{result.stderr}"
        )
    print(f"ok  {name} ({seconds:.1f} s)", flush=True)
    return result.stdout


def check(work: Path) -> None:
    quickstarts = readme_quickstarts((ROOT / "README.md").read_text())
    dist = work / "dist"
    run_step(
        "build the sdist and the wheel",
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        cwd=work,
    )
    wheels = sorted(dist.glob("*.whl"))
    if len(wheels) != 1 or len(list(dist.glob("*.tar.gz"))) != 1:
        raise CheckFailed(f"expected one wheel and one sdist, got {sorted(path.name for path in dist.iterdir())}")
    venv = work / "venv"
    run_step("create a fresh venv", [sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=work)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    # this env's pip installs into the venv (pip --python): the venv holds the wheel and its base
    # dependencies, nothing else
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(wheels[0])]
    run_step(f"pip install {wheels[0].name}", install, cwd=work)
    run = work / "run"  # an empty folder: nothing of the clone is importable from it
    run.mkdir()
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    print(
        "    "
        + run_step("the package comes from the venv, without extras", [str(python), "-c", WHERE], run, env).strip()
    )
    for name, code in quickstarts.items():
        script = run / f"quickstart_{name}.py"
        script.write_text(code)
        run_step(f"README quickstart ({name})", [str(python), script.name], run, env)
    for name, args in COMMANDS.items():
        output = run_step(f"python {' '.join(args)}", [str(python), *args], run, env)
        if name == "evaluate pretrained":
            print("    " + "\n    ".join(output.strip().splitlines()[-4:]))
    print(
        "    "
        + "\n    ".join(
            run_step("shipped configs by name", [str(python), "-c", CONFIGS], run, env).strip().splitlines()
        )
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the work folder (the dist, the venv)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="empire_envs-wheel-check-"))
    try:
        check(work)
    except (CheckFailed, ValueError, subprocess.TimeoutExpired) as error:
        print(f"package check FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"package check passed in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
