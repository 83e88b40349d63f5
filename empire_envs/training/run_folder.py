"""Run folders: what a training run may write, and the one way a run claims its folder.

A run folder is recognised by its files alone: ``config.json`` and nothing but the files our
trainers write (``RUN_FILES`` at the top, ``RUN_SUBFOLDERS`` below it). ``claim_run_folder`` is
the only place a training command empties a folder, and it empties only such a folder:

- a new or empty folder is used as it is (made, if needed);
- a folder holding a run is replaced only with ``overwrite``, and then only the run's own files
  are removed (the folder itself stays);
- a folder holding anything else (a file or folder our trainers never write) is refused, by name,
  with or without ``overwrite``: nothing in it is touched.

The claim checks that the folder can be written (by creating and removing a file: permission bits
say nothing to root or on a read-only mount). ``RunFolder.discard`` removes what a failed start
wrote, and the folder too when the claim made it, so a failed start never leaves a half-written
run that blocks the next one.
"""

from __future__ import annotations

import fnmatch
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..core.paths import folder_write_problem

#: the file whose presence makes a folder a run (every trainer writes it first)
RUN_MARKER = "config.json"
#: the files a run writes at its top (sb3's TensorBoard writer puts its event files there too)
RUN_FILES = (
    "config.json",
    "progress.csv",
    "summary.json",
    "model.zip",
    "policy.npz",
    "learning_curve.png",
    "events.out.tfevents.*",
)
#: the folders a run writes, with the files each may hold
RUN_SUBFOLDERS = {
    "eval": ("evaluations.npz", "best_model.zip"),
    "checkpoints": ("model_*_steps.zip", "policy_*.npz"),
    "tb": ("events.out.tfevents.*",),
}


class RunFolderError(ValueError):
    """A run folder that cannot be used: it holds other files, it holds a run and overwriting was
    not asked for, or it cannot be written."""


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def foreign_entries(folder: Path) -> list[str]:
    """The paths under ``folder`` (relative, sorted) that no trainer of ours writes: a run's
    folder gives ``[]``."""
    foreign: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.name in RUN_SUBFOLDERS and entry.is_dir() and not entry.is_symlink():
            foreign += [
                f"{entry.name}/{inner.name}"
                for inner in sorted(entry.iterdir())
                if inner.is_dir() or inner.is_symlink() or not _matches(inner.name, RUN_SUBFOLDERS[entry.name])
            ]
        elif entry.is_dir() or entry.is_symlink() or not _matches(entry.name, RUN_FILES):
            foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    return foreign


def _listing(names: list[str], most: int = 5) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


@dataclass
class RunFolder:
    """A folder claimed for a run; ``made`` lists the folders the claim created, outermost first."""

    path: Path
    made: list[Path] = field(default_factory=list)

    def holds_results(self) -> bool:
        """Whether the run saved a model or policy (final, checkpoint or best so far): what a
        crash must not take away."""
        saved = [self.path / "model.zip", self.path / "policy.npz", self.path / "eval" / "best_model.zip"]
        checkpoints = self.path / "checkpoints"
        return any(path.is_file() for path in saved) or (checkpoints.is_dir() and any(checkpoints.iterdir()))

    def discard(self) -> None:
        """Remove what a failed run wrote: the run files (never anything else), then the folders
        the claim made, when empty."""
        if self.path.is_dir() and not foreign_entries(self.path):
            _remove_run_files(self.path)
        for folder in reversed(self.made):
            try:
                folder.rmdir()
            except OSError:  # not empty (someone wrote there meanwhile) or gone: leave it
                break


def _remove_run_files(folder: Path) -> None:
    """Remove a run's files from ``folder`` (checked by ``foreign_entries`` first)."""
    for entry in folder.iterdir():
        if entry.name in RUN_SUBFOLDERS and entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def check_run_folder(path: Path, overwrite: bool, overwrite_flag: str = "--overwrite") -> None:
    """Raise ``RunFolderError`` unless ``claim_run_folder`` would take ``path``; changes nothing
    but for a write check (a file created and removed)."""
    if path.is_dir() and any(path.iterdir()):
        foreign = foreign_entries(path)
        if foreign:
            raise RunFolderError(
                f"{path} holds files that are not a training run's ({_listing(foreign)}); nothing was "
                "changed: choose another --out"
            )
        if not (path / RUN_MARKER).is_file():
            raise RunFolderError(f"{path} holds run files but no {RUN_MARKER}; choose another --out")
        if not overwrite:
            raise RunFolderError(f"{path} already holds a run; pass {overwrite_flag} to replace it, or choose --out")
    problem = folder_write_problem(path)
    if problem:
        raise RunFolderError(problem)


def claim_run_folder(path: Path, overwrite: bool, overwrite_flag: str = "--overwrite") -> RunFolder:
    """Check ``path`` (``check_run_folder``), then make it or empty the run it holds."""
    check_run_folder(path, overwrite, overwrite_flag)
    made = [folder for folder in (path, *path.parents) if not folder.exists()][::-1]
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RunFolderError(f"cannot make the folder {path}: {error.strerror or error}") from None
    _remove_run_files(path)
    return RunFolder(path, made)


@contextmanager
def run_folder(path: Path, overwrite: bool, overwrite_flag: str = "--overwrite") -> Iterator[RunFolder]:
    """Claim ``path`` for the run in the ``with`` block (``claim_run_folder``). When the block
    fails before the run saved a model or policy, what it wrote is removed (``discard``), so the
    next run starts as if this one had never begun; a run that saved one is kept."""
    folder = claim_run_folder(path, overwrite, overwrite_flag)
    try:
        yield folder
    except Exception:  # an interrupted run (Ctrl-C) keeps its logs: the user stopped it
        if not folder.holds_results():
            folder.discard()
        raise


__all__ = [
    "RUN_FILES",
    "RUN_MARKER",
    "RUN_SUBFOLDERS",
    "RunFolder",
    "RunFolderError",
    "check_run_folder",
    "claim_run_folder",
    "foreign_entries",
    "run_folder",
]
