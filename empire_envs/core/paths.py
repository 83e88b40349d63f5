"""Checks of output paths, shared by the commands and the trainers: can this folder be written?"""

from __future__ import annotations

import os
from pathlib import Path


def nearest_existing(path: Path) -> Path:
    """``path`` (made absolute) itself or its nearest ancestor that exists."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def folder_write_problem(path: Path) -> str | None:
    """Why files cannot be written in the folder ``path`` (which may not exist yet: then in the
    folder that would be made), or None when they can. Tried for real, by creating and removing
    a file in the nearest existing folder: permission bits say nothing to root or on a read-only
    mount. Nothing that stays is created."""
    if path.exists() and not path.is_dir():
        return f"{path} is a file, not a folder"
    base = nearest_existing(path)
    if not base.is_dir():
        return f"cannot make the folder {path}: {base} is a file"
    probe = base / f".empire_envs-write-check-{os.getpid()}"
    try:
        probe.open("x").close()
    except OSError as error:
        making = "" if base == path.absolute() else f" (to make {path})"
        return f"cannot write in {base}{making}: {error.strerror or error}"
    probe.unlink()
    return None


__all__ = ["folder_write_problem", "nearest_existing"]
