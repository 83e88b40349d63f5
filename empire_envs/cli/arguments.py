"""The argument types and path checks every command shares.

Every count, size, time and seed a command reads goes through one of the argparse types here,
so a bad value (``nan``, ``inf``, a negative or fractional count, a word) is the one-line usage
error of ``empire_envs COMMAND: error: ...`` with exit status 2, before any work starts, never a
hang or a traceback later. Output paths are checked the same way, before the work:
``check_output_file`` for a file a command writes (``--json PATH``), ``check_output_folder`` for
a folder it writes files into.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..core.limits import at_least
from ..core.paths import folder_write_problem
from ..evaluation.evaluate import parse_env_kwarg
from .common import CliError

#: the largest count a command takes (a bigger one is a typo, and would overflow numpy's int64)
MAX_COUNT = 2**62


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _checked_count(value: int, least: int) -> int:
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {at_least(least)}, got {value}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_COUNT}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1 (episodes, deals, games, batch sizes...)."""
    return _checked_count(_whole_number(text), 1)


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number >= 0 (a seat, a number of steps where 0 means none)."""
    return _checked_count(_whole_number(text), 0)


def seed_int(text: str) -> int:
    """An argparse type: a seed, a whole number >= 0 of any size (what Gymnasium's
    ``reset(seed=)`` takes)."""
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be 0 or more, got {value}")
    return value


def _finite_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0 (seconds, frames per second, a learning rate)."""
    value = _finite_number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number >= 0 (a loss weight)."""
    value = _finite_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    return value


def share(text: str) -> float:
    """An argparse type: a finite number in [0, 1]."""
    value = _finite_number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def add_key_value_flag(
    sub: argparse.ArgumentParser, flag: str, help_text: str, dest: str | None = None, metavar: str = "KEY=VALUE"
) -> None:
    """A repeatable ``FLAG KEY=VALUE`` (the value read as a Python literal, a bare word a string),
    collected as a list of ``(key, value)`` pairs in ``dest`` (default: the flag's name)."""
    sub.add_argument(
        flag,
        action="append",
        default=[],
        type=parse_env_kwarg,
        metavar=metavar,
        help=help_text,
        dest=dest or flag.lstrip("-").replace("-", "_"),
    )


def check_output_file(path: str | Path | None) -> None:
    """Raise ``CliError`` unless ``path`` (None or ``-``: standard output) can be written: an
    existing file is opened for writing (and left as it is), else a file is created in its
    folder and removed; nothing else is created."""
    if path is None or str(path) in ("", "-"):
        return
    path = Path(path)
    if path.is_dir():
        raise CliError(f"{path} is a folder; give a file path")
    if path.exists():
        try:
            path.open("a").close()  # append mode: the file keeps every byte
        except OSError as error:
            raise CliError(f"cannot write {path}: {error.strerror or error}") from None
        return
    if not path.parent.is_dir():
        what = "is not a folder" if path.parent.exists() else "does not exist"
        raise CliError(f"cannot write {path}: its folder {path.parent} {what}")
    problem = folder_write_problem(path.parent)
    if problem:
        raise CliError(problem)


def check_output_folder(path: str | Path) -> None:
    """Raise ``CliError`` unless files can be written in the folder ``path``: it is a folder
    already, or can be made (its nearest existing ancestor is a writable folder). Creates
    nothing that stays."""
    problem = folder_write_problem(Path(path))
    if problem:
        raise CliError(problem)


__all__ = [
    "MAX_COUNT",
    "add_key_value_flag",
    "check_output_file",
    "check_output_folder",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "seed_int",
    "share",
]
