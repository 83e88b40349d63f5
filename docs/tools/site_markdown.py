"""Markdown helpers of the docs build: links rewritten to the published copies, the project's
docstrings (reST simple tables, Google-style ``Args:`` blocks) turned into Markdown, headings
demoted; every rewrite leaves fenced code blocks as they are.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)(\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def outside_fences(text: str, transform: Callable[[str], str]) -> str:
    """``transform`` applied to the text outside fenced code blocks only."""
    out: list[str] = []
    chunk: list[str] = []
    fenced = False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            if not fenced:
                out.append(transform("".join(chunk)))
                chunk = []
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            chunk.append(line)
    out.append(transform("".join(chunk)))
    return "".join(out)


def rewrite_links(text: str, source: Path, dest: str, published: dict[Path, str]) -> str:
    """The relative links of ``text`` (a page read from ``source``, published at ``dest`` in the
    tree) pointed at the published copies of their targets; a link to a file the site does not
    carry keeps its text (in code style when the text was a path) and loses the link."""

    dest_dir = Path(dest).parent

    def fix(match: re.Match[str]) -> str:
        bang, label, target, title = match.group(1), match.group(2), match.group(3), match.group(4)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = (source.parent / path).resolve()
        if resolved in published:
            new = os.path.relpath(published[resolved], dest_dir).replace(os.sep, "/")
            return f"{bang}[{label}]({new}{'#' + anchor if anchor else ''}{title or ''})"
        if bang:
            return f"*({label})*"
        return label

    return outside_fences(text, lambda chunk: _LINK.sub(fix, chunk))


_RULE = re.compile(r"^=+( +=+)*\s*$")


def _convert_table(lines: list[str]) -> list[str]:
    """One reST simple table (its lines, from the first border to the last) as a Markdown table,
    or as a fenced block when its columns do not split cleanly."""
    border = lines[0]
    starts = [m.start() for m in re.finditer(r"=+", border)]
    rows: list[list[str]] = []
    header: list[str] | None = None
    clean = True
    for line in lines[1:]:
        if _RULE.match(line):
            if header is None and rows:
                header, rows = rows[0], []
            continue
        if not line.strip():
            continue
        for start in starts[1:]:
            if len(line) > start and line[start - 1] != " ":
                clean = False
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        if rows and not cells[0]:  # a continuation line: its words join the row above
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    if header is None or not clean:
        return ["```text", *lines, "```"]

    def row(cells: list[str]) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    return [row(header), "|" + "---|" * len(header), *(row(cells) for cells in rows)]


def rst_to_markdown(doc: str) -> str:
    """A docstring written in the project's style (``## Heading`` sections, reST simple tables,
    ``literal`` spans) as Markdown: each table becomes a Markdown table (or a fenced block)."""
    lines = doc.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if _RULE.match(lines[i]):
            # a table is border, header, border, body, border; without the third border in
            # sight, the table ends at the second (a headerless table, kept as a fenced block)
            borders = [j for j in range(i, len(lines)) if _RULE.match(lines[j])][:3]
            j = borders[2] if len(borders) == 3 else borders[-1]
            table = lines[i : j + 1]
            if out and out[-1].strip():
                out.append("")
            out.extend(_convert_table(table))
            out.append("")
            i = j + 1
            continue
        out.append(lines[i])
        i += 1
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def google_sections(doc: str) -> str:
    """Google-style ``Args:``/``Returns:``/``Raises:`` blocks as Markdown lists."""
    out: list[str] = []
    section = None
    for line in doc.splitlines():
        head = re.match(r"^(Args|Arguments|Returns|Raises|Yields|Attributes):\s*$", line)
        if head:
            section = head.group(1)
            out.extend(["", f"**{section}:**", ""])
            continue
        if section and line.startswith("    "):
            item = re.match(r"^    (\*{0,2}\w+)( \([^)]*\))?:\s*(.*)$", line)
            if item and not line.startswith("     "):
                out.append(f"- `{item.group(1)}`{item.group(2) or ''}: {item.group(3)}")
            else:
                out.append("  " + line.strip())
            continue
        if section and line.strip():
            section = None
            out.append("")
        out.append(line)
    return "\n".join(out)


def first_heading(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("_", " ").title()


def demote_headings(markdown: str) -> str:
    """Headings one level down (the docstring's ``## Description`` sits under the page's ``##``)."""
    return outside_fences(markdown, lambda chunk: re.sub(r"(?m)^(#{1,5}) ", r"#\1 ", chunk))
