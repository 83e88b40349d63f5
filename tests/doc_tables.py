"""Reading the reST index tables of module docstrings, for the tests that keep them true."""

from __future__ import annotations

import re
from collections.abc import Sequence

_RULE = re.compile(r"=+( +=+)+")


def _parse(doc: str) -> list[tuple[list[str], list[list[str]]]]:
    lines = doc.splitlines()
    at = [n for n, line in enumerate(lines) if _RULE.fullmatch(line.strip())]
    assert at and len(at) % 3 == 0, "simple reST tables: top rule, header rule, bottom rule"
    tables = []
    for top, header, bottom in zip(at[0::3], at[1::3], at[2::3], strict=True):
        columns = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[top])]
        columns[-1] = (columns[-1][0], None)  # the last column may run past its rule
        names = [lines[top + 1][s:e].strip() for s, e in columns]
        rows: list[list[str]] = []
        for line in lines[header + 1:bottom]:
            cells = [line[s:e].strip() for s, e in columns]
            if cells[0]:
                rows.append(cells)
            else:  # a continuation line belongs to the previous row's last cell
                rows[-1][-1] += " " + cells[-1]
        tables.append((names, rows))
    return tables


def rest_tables(doc: str) -> list[list[list[str]]]:
    """Every simple reST table of ``doc`` as rows of cells."""
    return [rows for _, rows in _parse(doc)]


def rest_headers(doc: str) -> list[list[str]]:
    """The column names of every simple reST table of ``doc``."""
    return [names for names, _ in _parse(doc)]


def index_span(cell: str) -> tuple[int, int]:
    """``"16-21"`` -> ``(16, 21)``; ``"0"`` -> ``(0, 0)``."""
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", cell)
    assert match, f"bad index cell {cell!r}"
    return int(match.group(1)), int(match.group(2) or match.group(1))


def documented_action_ranges(doc: str) -> dict[str, tuple[int, int, int]]:
    """Action kind -> (first index, last index, number of arguments), from the docstring table."""
    (rows,) = rest_tables(doc)
    documented = {}
    for index, action, *_ in rows:
        name = re.match(r"[A-Z_]+", action).group(0)
        args = re.search(r"\((.*)\)", action)
        documented[name] = (*index_span(index), len(args.group(1).split(",")) if args else 0)
    return documented


def action_ranges_in_code(actions: Sequence) -> dict[str, tuple[int, int, int]]:
    """The same, from the action table itself; every kind must occupy contiguous indices."""
    in_code: dict[str, tuple[int, int, int]] = {}
    for index, (kind, a, b) in enumerate(actions):
        first, last, nargs = in_code.get(kind.name, (index, index, (a >= 0) + (b >= 0)))
        assert last in (index, index - 1), f"{kind.name} indices are not contiguous"
        in_code[kind.name] = (first, index, nargs)
    return in_code
