"""The Markdown source tree of the documentation site (built with MkDocs Material).

``python -m empire_envs docs --out build/docs_src`` (what ``make docs`` runs; also
``experiments/build_docs.py``) writes it from a checkout of the repository; then
``mkdocs build --strict -f mkdocs.yml`` reads ``build/docs_src`` and writes ``build/site``.
``mkdocs.yml`` reads its ``docs_dir`` from ``$EMPIRE_DOCS_SRC`` (default ``build/docs_src``), so
another ``--out`` builds with ``EMPIRE_DOCS_SRC=<out> mkdocs build --strict``.

The tree holds:

- ``index.md``: the README, its links rewritten to the site (links to files outside ``docs/``
  become plain text, as the site does not carry them) and its env table linked to the env pages;
- ``environments/``: an overview and one page per registered id, game by game as the registry's
  table lists them, with the API, players, spaces (read from a built env), variant settings,
  summary, the game's rules page (``GameEntry.rules_page``) and the docstring of its env class,
  whose reST simple tables become Markdown tables;
- ``rules/``, ``training.md``, ``adding_a_game.md``, ``jax.md``, ``benchmarks/``, ``images/``: copies of
  ``docs/`` (the originals are never edited; relative links are checked and rewritten in the
  copies);
- ``api.md``: ``docs/site_src/api.md`` with each ``::: dotted.path`` line replaced by that object's
  signature and docstring;
- ``.nav.json``: the generated parts of the navigation, which ``docs/site_src/hooks.py`` splices
  into the ``nav`` of ``mkdocs.yml`` (a dot file, so MkDocs does not publish it).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..envs import env_class
from ..registry import EnvEntry, GameEntry, all_entries, all_games, make

#: what of docs/ the site carries, as (source, destination in the tree)
COPIED = (
    ("rules", "rules"),
    ("training.md", "training.md"),
    ("adding_a_game.md", "adding_a_game.md"),
    ("jax.md", "jax.md"),
    ("benchmarks", "benchmarks"),
    ("images", "images"),
)
NAV_FILE = ".nav.json"

# ---------------------------------------------------------------- Markdown helpers

_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)(\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _outside_fences(text: str, transform: Callable[[str], str]) -> str:
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

    return _outside_fences(text, lambda chunk: _LINK.sub(fix, chunk))


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


# ---------------------------------------------------------------- environment pages


@dataclass(frozen=True)
class RulesPage:
    """A rules page of the site: its path in the tree and its title."""

    dest: str
    title: str


def short_id(env_id: str) -> str:
    return env_id.rpartition("/")[2]


def env_page(env_id: str) -> str:
    """The page of an env id in the tree."""
    return f"environments/{short_id(env_id)}.md"


def rules_stem(game: GameEntry) -> str:
    """The name of the game's rules page (``docs/rules/<stem>.md``), from ``GameEntry.rules_page``."""
    return Path(game.rules_page).stem if game.rules_page else ""


def env_docstring(game: GameEntry) -> str:
    """The env docstring of a game: that of its env class (for a PettingZoo game the bare
    ``raw_env`` class behind ``env()``), built from the game's ``env_doc``."""
    return inspect.cleandoc(env_class(game.key).__doc__ or "")


def _doc_owner(game: GameEntry) -> str:
    return f"empire_envs.envs.{game.class_name}"


def describe_env(entry: EnvEntry) -> dict[str, Any]:
    """What a built env says about itself: players, agents, spaces and the game's name."""
    env = make(entry.env_id)
    try:
        game = getattr(getattr(env, "unwrapped", env), "game", None)
        info: dict[str, Any] = {"game": getattr(game, "name", entry.game)}
        if entry.api == "gymnasium":
            info.update(
                players=1,
                agents=[],
                action_space=str(env.action_space),
                observation_space=str(env.observation_space),
                actions=int(env.action_space.n),
                observation_shape=tuple(env.observation_space.shape),
            )
        else:
            agents = list(env.possible_agents)
            first = agents[0]
            action_space = env.action_space(first)
            observation_space = env.observation_space(first)
            inner = observation_space["observation"]
            info.update(
                players=len(agents),
                agents=agents,
                action_space=str(action_space),
                observation_space=str(observation_space),
                actions=int(action_space.n),
                observation_shape=tuple(inner.shape),
                observation_box=str(inner),
            )
        return info
    finally:
        env.close()


def _kwargs_text(kwargs: Any) -> str:
    if not kwargs:
        return "none (the game's defaults)"
    return ", ".join(f"`{key}={value!r}`" for key, value in kwargs.items())


def _relative(target: str, dest: str) -> str:
    """The link from the page ``dest`` of the tree to ``target``."""
    return os.path.relpath(target, Path(dest).parent).replace(os.sep, "/")


def _link_rules_mentions(text: str, rules: dict[str, RulesPage], dest: str) -> str:
    """``docs/rules/x.md`` mentioned in a docstring becomes a link to the rules page."""

    def fix(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in rules:
            return match.group(0)
        return f"[`docs/rules/{name}.md`]({_relative(rules[name].dest, dest)})"

    return re.sub(r"``docs/rules/(\w+)\.md``", fix, text)


def render_env_page(
    entry: EnvEntry, game: GameEntry, info: dict[str, Any], siblings: list[EnvEntry], rules: dict[str, RulesPage]
) -> str:
    env_id = entry.env_id
    dest = env_page(env_id)
    doc = env_docstring(game)
    title, _, body = doc.partition("\n")
    if entry.api == "gymnasium":
        api = "Gymnasium"
        make_call = f'gymnasium.make("{env_id}")'
        players = "1"
    else:
        api = "PettingZoo AEC"
        make_call = f'pettingzoo.make("aec", "{env_id}")'
        agents = info["agents"]
        shown = ", ".join(f"`{a}`" for a in agents)
        players = f"{info['players']} ({shown})"
    rows = [
        ("id", f"`{env_id}`"),
        ("API", api),
        ("game", info["game"]),
        ("players", players),
        ("make", f'`{make_call}` or `empire_envs.make("{env_id}")`'),
        ("entry point", f"`{entry.entry_point}`"),
        ("variant settings", _kwargs_text(entry.kwargs)),
        ("actions", f"{info['actions']}: `{info['action_space']}`"),
    ]
    if entry.api == "gymnasium":
        rows.append(("observation", f"{info['observation_shape'][0]} floats: `{info['observation_space']}`"))
    else:
        rows.append(
            (
                "observation",
                f"{info['observation_shape'][0]} floats: `{info['observation_box']}`, "
                "with the action mask: "
                f"`{info['observation_space']}`",
            )
        )
    page = rules.get(rules_stem(game))
    if page is not None:
        rows.append(("rules", f"[{page.title}]({_relative(page.dest, dest)})"))
    others = [s for s in siblings if s.env_id != env_id]
    if others:
        rows.append(
            ("other ids of this game", ", ".join(f"[`{short_id(s.env_id)}`]({short_id(s.env_id)}.md)" for s in others))
        )
    lines = [
        f"# {short_id(env_id)}",
        "",
        f"{entry.summary}." if entry.summary and not entry.summary.endswith(".") else entry.summary,
        "",
        "| | |",
        "|---|---|",
    ]
    lines += [f"| {key} | {value.replace('|', chr(92) + '|')} |" for key, value in rows]
    lines += [
        "",
        "Sizes are read from a freshly built env with this id's settings; keyword "
        "arguments given to `make` may change them.",
        "",
        "## Environment documentation",
        "",
        f"*From the docstring of `{_doc_owner(game)}`.*",
        "",
        title.strip(),
        "",
        _link_rules_mentions(_demote(rst_to_markdown(body)), rules, dest),
    ]
    return "\n".join(lines).rstrip() + "\n"


def _demote(markdown: str) -> str:
    """Headings one level down (the docstring's ``## Description`` sits under the page's ``##``)."""
    return _outside_fences(markdown, lambda chunk: re.sub(r"(?m)^(#{1,5}) ", r"#\1 ", chunk))


@dataclass
class GameGroup:
    """One game of the registry on the site: its ids, and what a built env of each says."""

    game: GameEntry
    title: str
    entries: list[EnvEntry]
    infos: dict[str, dict[str, Any]]


def game_groups() -> list[GameGroup]:
    """Every game of the registry with at least one id, in table order, each with its ids and
    their descriptions (``describe_env``)."""
    groups = []
    for game in all_games():
        entries = [item for item in all_entries() if item.game == game.key]
        if not entries:
            continue
        infos = {item.env_id: describe_env(item) for item in entries}
        groups.append(GameGroup(game, infos[entries[0].env_id]["game"], entries, infos))
    return groups


def render_env_index(groups: list[GameGroup], rules: dict[str, RulesPage]) -> str:
    count = sum(len(group.entries) for group in groups)
    lines = [
        "# Environments",
        "",
        f"Every id of `empire_envs.registry.all_entries()` ({count} in all), with sizes read "
        "from a built env. Import `empire_envs` to register them with Gymnasium and "
        "PettingZoo, or build any of them with `empire_envs.make(env_id)`.",
        "",
    ]
    for group in groups:
        lines += [f"## {group.title}", ""]
        page = rules.get(rules_stem(group.game))
        if page is not None:
            lines += [f"Rules: [{page.title}]({_relative(page.dest, 'environments/index.md')}).", ""]
        lines += [
            "| id | API | players | actions | observation | variant settings | summary |",
            "|---|---|---:|---:|---:|---|---|",
        ]
        for entry in group.entries:
            info = group.infos[entry.env_id]
            api = "Gymnasium" if entry.api == "gymnasium" else "PettingZoo AEC"
            kwargs = ", ".join(f"`{k}={v!r}`" for k, v in entry.kwargs.items()) or "-"
            lines.append(
                f"| [`{short_id(entry.env_id)}`]({short_id(entry.env_id)}.md) | {api} | "
                f"{info['players']} | {info['actions']} | {info['observation_shape'][0]} | "
                f"{kwargs} | {entry.summary} |"
            )
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- API page


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


# ---------------------------------------------------------------- README as the home page


def render_index(readme: Path, published: dict[Path, str]) -> str:
    text = readme.read_text(encoding="utf-8")
    text = rewrite_links(text, readme, "index.md", published)
    ids = {entry.env_id for entry in all_entries()}

    def link_ids(chunk: str) -> str:
        lines = []
        for line in chunk.splitlines(keepends=True):
            if line.startswith("| `empire_envs/"):
                first, sep, rest = line[1:].partition("|")
                first = re.sub(
                    r"`(empire_envs/[\w-]+)`",
                    lambda m: f"[`{m.group(1)}`]({env_page(m.group(1))})" if m.group(1) in ids else m.group(0),
                    first,
                )
                line = "|" + first + sep + rest
            lines.append(line)
        return "".join(lines)

    text = _outside_fences(text, link_ids)
    note = (
        "Each id links to its own page under [Environments](environments/index.md); the "
        "[API](api.md) page documents the Python interface.\n\n"
    )
    return text.replace("## Environments\n\n", "## Environments\n\n" + note, 1)


# ---------------------------------------------------------------- the tree


def check_root(root: Path) -> None:
    """``FileNotFoundError`` unless ``root`` is a checkout with the README and ``docs/``."""
    missing = [name for name in ("README.md", "docs/rules", "docs/site_src/api.md") if not (root / name).exists()]
    if missing:
        raise FileNotFoundError(
            f"{root} is not a checkout of empire_envs (no {', '.join(missing)}): the site is built "
            "from the repository's README and docs/"
        )


def published_files(root: Path) -> dict[Path, str]:
    """What the site publishes: each original file of the checkout -> its path in the tree."""
    docs = root / "docs"
    published: dict[Path, str] = {}
    for source, dest in COPIED:
        path = docs / source
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file():
                    published[file.resolve()] = f"{dest}/{file.relative_to(path).as_posix()}"
        elif path.is_file():
            published[path.resolve()] = dest
    for entry in all_entries():
        # a page of the tree may link to an id's page by the id's path under docs/environments
        published[(docs / env_page(entry.env_id)).resolve()] = env_page(entry.env_id)
    published[(root / "README.md").resolve()] = "index.md"
    return published


def clear_tree(out: Path) -> None:
    """Remove the tree an earlier build wrote in ``out`` (it holds ``NAV_FILE``, written first);
    ``FileExistsError``, touching nothing, for a file or a non-empty folder that is not such a tree."""
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} is a file; --out names the folder of the Markdown tree")
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not (out / NAV_FILE).is_file():
        raise FileExistsError(
            f"{out} holds files and is not a tree this command wrote (no {NAV_FILE}); nothing was "
            "changed: choose another --out"
        )
    shutil.rmtree(out)


def build(out: Path, root: Path) -> dict[str, Any]:
    """Write the whole source tree of the checkout ``root`` into ``out`` (an earlier tree there
    is replaced, any other non-empty folder refused: ``clear_tree``); returns the generated nav."""
    check_root(root)
    docs = root / "docs"
    clear_tree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / NAV_FILE).write_text("{}", encoding="utf-8")  # the tree is recognisable from the start

    published = published_files(root)
    for source, dest in published.items():
        if not source.is_file() or dest in {"index.md"} or dest.startswith("environments/"):
            continue
        target = out / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".md":
            text = source.read_text(encoding="utf-8")
            target.write_text(rewrite_links(text, source, dest, published), encoding="utf-8")
        else:
            shutil.copyfile(source, target)

    (out / "index.md").write_text(render_index(root / "README.md", published), encoding="utf-8")

    rules = {
        path.stem: RulesPage(f"rules/{path.name}", first_heading(path))
        for path in sorted((docs / "rules").glob("*.md"))
    }
    groups = game_groups()
    (out / "environments").mkdir(exist_ok=True)
    (out / "environments" / "index.md").write_text(render_env_index(groups, rules), encoding="utf-8")
    env_nav: list[Any] = []
    for group in groups:
        pages = []
        for entry in group.entries:
            page = env_page(entry.env_id)
            text = render_env_page(entry, group.game, group.infos[entry.env_id], group.entries, rules)
            (out / page).write_text(text, encoding="utf-8")
            pages.append({short_id(entry.env_id): page})
        env_nav.append({group.title: pages})

    api = render_api((docs / "site_src" / "api.md").read_text(encoding="utf-8"))
    (out / "api.md").write_text(api, encoding="utf-8")

    rules_nav = [{page.title: page.dest} for page in rules.values()]
    (out / "rules" / "index.md").write_text(
        "# Rules\n\nEach rule set in the project's own words, with every ruling it adopted.\n\n"
        + "".join(f"- [{title}]({Path(page).name})\n" for item in rules_nav for title, page in item.items()),
        encoding="utf-8",
    )
    bench_pages = sorted(dest for dest in published.values() if dest.startswith("benchmarks/") and dest.endswith(".md"))
    bench_nav = [{first_heading(out / page) + f" ({Path(page).parent.name})": page} for page in bench_pages]
    (out / "benchmarks" / "index.md").write_text(
        "# Benchmark results\n\nExample results that `python -m empire_envs benchmark` and "
        "`python -m empire_envs deck-balance` wrote (see [Training and benchmarking](../training.md) for "
        "the commands).\n\n"
        + "".join(
            f"- [{title}]({os.path.relpath(page, 'benchmarks')})\n"
            for item in bench_nav
            for title, page in item.items()
        ),
        encoding="utf-8",
    )

    nav = {"environments/index.md": env_nav, "rules/index.md": rules_nav, "benchmarks/index.md": bench_nav}
    (out / NAV_FILE).write_text(json.dumps(nav, indent=1), encoding="utf-8")
    return nav


def count_pages(out: Path, nav: dict[str, Any]) -> tuple[int, int]:
    """``(Markdown pages, environment pages)`` of a tree ``build`` wrote."""
    pages = sum(1 for _ in out.rglob("*.md"))
    env_pages = sum(len(next(iter(group.values()))) for group in nav["environments/index.md"])
    return pages, env_pages
