"""Limits that input is checked against: what this machine's memory can hold (a run too big
for it is refused up front, instead of swapping for hours or being killed halfway), and how a
lower bound reads in a message."""

from __future__ import annotations

import os


def at_least(least: int) -> str:
    """How a lower bound reads in a message: "0 or more", "at least 1"."""
    return "0 or more" if least == 0 else f"at least {least}"


def physical_memory_bytes() -> int | None:
    """This machine's memory, or None where the OS does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def check_fits_in_memory(estimate: int, what: str) -> None:
    """Raise ``ValueError`` when ``estimate`` bytes cannot fit in this machine's memory, before
    any of it is allocated."""
    total = physical_memory_bytes()
    if total is not None and estimate > total:
        raise ValueError(
            f"{what} needs at least {estimate / 2**30:,.1f} GiB, more than this machine's "
            f"{total / 2**30:,.1f} GiB of memory; make it smaller"
        )


__all__ = ["at_least", "check_fits_in_memory", "physical_memory_bytes"]
