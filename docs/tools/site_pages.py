"""The generated pages of the docs build: the home page (the README, its links and env table
pointed at the site) and the environment pages, one per registered id and an overview, with
sizes read from a built env and the game's env docstring as Markdown.
"""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_markdown import demote_headings, outside_fences, rewrite_links, rst_to_markdown

from empire_envs.envs import env_class
from empire_envs.registry import EnvEntry, GameEntry, all_entries, all_games, make


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
        _link_rules_mentions(demote_headings(rst_to_markdown(body)), rules, dest),
    ]
    return "\n".join(lines).rstrip() + "\n"


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

    text = outside_fences(text, link_ids)
    note = (
        "Each id links to its own page under [Environments](environments/index.md); the "
        "[API](api.md) page documents the Python interface.\n\n"
    )
    return text.replace("## Environments\n\n", "## Environments\n\n" + note, 1)
