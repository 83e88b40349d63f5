"""The optional extras of the package, and the one way a command says which one is missing.

The core package needs only gymnasium, pettingzoo, numpy and pillow. Everything else comes with
an extra of ``pyproject.toml`` (``EXTRAS`` lists the modules each brings; a test keeps the two
in step). A command that needs one calls ``require_extra`` before its work, so a user without it
reads which extra to install, not ``No module named 'torch'``; ``missing_extra`` turns an
``ImportError`` caught later into the same message. Nothing here imports an optional module:
``importlib.util.find_spec`` only looks for it.
"""

from __future__ import annotations

import importlib.util

#: each extra -> the top-level modules it installs that the package imports
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "jax": ("jax", "flax", "optax"),
    "bench": ("pgx", "pygame", "rlcard"),
    "solver": ("numba",),
    "docs": ("mkdocs",),
    "distributed": ("ray", "torch"),
    "human": ("pygame",),
}
#: extras that need torch, which is best installed first from its CPU build
TORCH_EXTRAS = ("train", "distributed")


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra to install. A
    ``ModuleNotFoundError`` (an ``ImportError``), as the failed import itself would be."""


def install_command(extra: str) -> str:
    """The pip command that installs ``extra``."""
    return f"pip install 'empire-envs[{extra}]'"


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that are not installed (none imported to find out)."""
    missing = []
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, or a broken one
            found = False
        if not found:
            missing.append(module)
    return missing


def missing_extra(extra: str, purpose: str, missing: list[str] | str) -> MissingExtraError:
    """The error that says ``purpose`` needs ``extra`` (``missing``: what is not installed)."""
    names = ", ".join(missing) if isinstance(missing, list) else missing
    hint = install_command(extra)
    if extra in TORCH_EXTRAS:
        hint += " (install a CPU build of torch first: it keeps the download small)"
    return MissingExtraError(f"{purpose} needs the {extra} extra ({names} not installed): {hint}")


def require_extra(extra: str, purpose: str) -> None:
    """Raise ``MissingExtraError`` naming ``extra`` unless every module of it is installed."""
    missing = missing_modules(extra)
    if missing:
        raise missing_extra(extra, purpose, missing)


__all__ = ["EXTRAS", "MissingExtraError", "install_command", "missing_extra", "missing_modules", "require_extra"]
