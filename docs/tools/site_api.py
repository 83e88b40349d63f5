"""The API page of the docs build: ``docs/site_src/api.md`` with each ``::: dotted.path [options]``
line replaced by that object's signature and docstring (a dataclass's fields with ``fields``,
chosen methods with ``members=a,b``, a mapping as a table with ``table``).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from typing import Any

from site_markdown import google_sections, rst_to_markdown


def _resolve(path: str) -> tuple[Any, str]:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj, parts[-1]
    raise ImportError(f"cannot import {path!r}")


def _doc_text(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return google_sections(rst_to_markdown(doc)) if doc else "*(no docstring)*"


def _field_comments(cls: type) -> dict[str, str]:
    """``#:`` comments written above dataclass fields in the source."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    comments: dict[str, str] = {}
    pending: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:].strip())
            continue
        field = re.match(r"^(\w+)\s*:", stripped)
        if field and pending:
            comments[field.group(1)] = " ".join(pending)
        pending = []
    return comments


class _Annotation:
    """A string annotation (``from __future__ import annotations``) shown as written."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _signature(obj: Any, name: str) -> str | None:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None

    def plain(annotation: Any) -> Any:
        return _Annotation(annotation) if isinstance(annotation, str) else annotation

    signature = signature.replace(
        parameters=[p.replace(annotation=plain(p.annotation)) for p in signature.parameters.values()],
        return_annotation=plain(signature.return_annotation),
    )
    return f"{name}{signature}"


def render_object(path: str, options: list[str], level: int) -> str:
    obj, name = _resolve(path)
    hashes = "#" * min(level, 6)
    if inspect.ismodule(obj):
        return f"Module `{path}`:\n\n{_doc_text(obj)}\n"
    if not callable(obj) or "table" in options:
        return _render_value(path, obj)
    lines = [f"{hashes} `{name}`", "", f"`{path}`", ""]
    is_dataclass = inspect.isclass(obj) and dataclasses.is_dataclass(obj)
    if not is_dataclass:
        signature = _signature(obj, name)
        if signature:
            lines += ["```python", signature, "```", ""]
    lines += [_doc_text(obj), ""]
    if is_dataclass and "fields" in options:
        comments = _field_comments(obj)
        lines += ["| field | type | default | notes |", "|---|---|---|---|"]
        for field in dataclasses.fields(obj):
            default = "" if field.default is dataclasses.MISSING else f"`{field.default!r}`"
            if field.default_factory is not dataclasses.MISSING:
                default = "`" + repr(field.default_factory()) + "`"
            kind = str(field.type).replace("|", "\\|")
            note = comments.get(field.name, "").replace("|", "\\|")
            lines.append(f"| `{field.name}` | `{kind}` | {default} | {note} |")
        lines.append("")
    members = next((o.partition("=")[2] for o in options if o.startswith("members=")), "")
    for member in filter(None, members.split(",")):
        attribute = inspect.getattr_static(obj, member)
        function = attribute.fget if isinstance(attribute, property) else getattr(obj, member)
        label = f"{name}.{member}"
        lines += [f"{'#' * min(level + 1, 6)} `{label}`", ""]
        signature = None if isinstance(attribute, property) else _signature(function, member)
        if signature:
            lines += ["```python", signature, "```", ""]
        elif isinstance(attribute, property):
            lines += ["*property*", ""]
        lines += [_doc_text(function), ""]
    return "\n".join(lines)


def _render_value(path: str, value: Any) -> str:
    if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
        lines = ["| key | name | class |", "|---|---|---|"]
        for key, inner in value.items():
            for name, target in inner.items():
                lines.append(f"| {key} | `{name}` | `{target}` |")
        return "\n".join(lines) + "\n"
    return f"`{path}` = `{value!r}`\n"


def render_api(template: str) -> str:
    out: list[str] = []
    level = 2
    for line in template.splitlines():
        heading = re.match(r"^(#+) ", line)
        if heading:
            level = len(heading.group(1)) + 1
        directive = re.match(r"^:::\s+(\S+)(.*)$", line)
        if directive:
            out.append(render_object(directive.group(1), directive.group(2).split(), level))
        else:
            out.append(line)
    return "\n".join(out).rstrip() + "\n"
