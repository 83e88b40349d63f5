"""Helpers that keep env docstrings, rules pages and code tables one and the same text."""

from __future__ import annotations


def rst_tables(module_doc: str) -> str:
    """The reST tables of a module docstring: from the line before the first ``=====`` rule
    (when it is a heading or blank-separated caption) to the end."""
    lines = module_doc.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("====="))
    return "\n".join(lines[first - 2 if lines[first - 2] else first:]).strip()
