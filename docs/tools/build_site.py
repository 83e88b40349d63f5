"""Build the Markdown source tree of the documentation site (MkDocs Material) from a checkout.

A development tool of the repository, not part of the package: the site is made from the
README and ``docs/``, which an installed package does not carry. From the repository root::

    python docs/tools/build_site.py                 # writes build/docs_src (what `make docs` runs)
    mkdocs build --strict -f mkdocs.yml             # reads build/docs_src, writes build/site

``experiments/build_docs.py`` runs this script with the same flags. ``mkdocs.yml`` reads its
``docs_dir`` from ``$EMPIRE_DOCS_SRC`` (default ``build/docs_src``), so another ``--out`` builds
with ``EMPIRE_DOCS_SRC=<out> mkdocs build --strict``. An earlier tree in ``--out`` is replaced;
a folder holding anything else is refused and left as it was (``clear_tree``).

The tree holds:

- ``index.md``: the README, its links rewritten to the site (links to files outside ``docs/``
  become plain text, as the site does not carry them) and its env table linked to the env pages;
- ``environments/``: an overview and one page per registered id, game by game as the registry's
  table lists them, with the API, players, spaces (read from a built env), variant settings,
  summary, the game's rules page (``GameEntry.rules_page``) and the docstring of its env class,
  whose reST simple tables become Markdown tables (``site_pages``);
- ``rules/``, ``training.md``, ``adding_a_game.md``, ``jax.md``, ``benchmarks/``, ``images/``: copies of
  ``docs/`` (the originals are never edited; relative links are checked and rewritten in the
  copies: ``site_markdown``);
- ``api.md``: ``docs/site_src/api.md`` with each ``::: dotted.path`` line replaced by that object's
  signature and docstring (``site_api``);
- ``.nav.json``: the generated parts of the navigation, which ``docs/site_src/hooks.py`` splices
  into the ``nav`` of ``mkdocs.yml`` (a dot file, so MkDocs does not publish it).

The modules beside this script are imported by their plain names: Python puts the folder of the
script it runs first on the import path.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from site_api import render_api
from site_markdown import first_heading, rewrite_links
from site_pages import (
    RulesPage,
    env_page,
    game_groups,
    render_env_index,
    render_env_page,
    render_index,
    short_id,
)

from empire_envs.core.paths import folder_write_problem
from empire_envs.registry import all_entries

#: the checkout this script belongs to: the default --root
CHECKOUT = Path(__file__).resolve().parents[2]
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


def main(argv: Sequence[str] | None = None) -> int:
    """Write the tree and say how many pages it holds; 2, with a one-line error, for a checkout
    without the docs or an ``--out`` that cannot be used (nothing is changed then)."""
    parser = argparse.ArgumentParser(
        prog="build_site.py",
        description="Generate the Markdown source tree of the documentation site from a checkout: the "
        "README as the home page, one page per registered id, the rules pages, the how-tos and the API "
        "page. mkdocs build --strict -f mkdocs.yml then builds the site from it.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=CHECKOUT / "build" / "docs_src",
        help="the folder to write the Markdown tree into (an earlier tree there is replaced, a folder "
        "holding other files refused; default build/docs_src of the checkout)",
    )
    parser.add_argument(
        "--root", type=Path, default=CHECKOUT, help="the repository checkout to read (default: this script's)"
    )
    args = parser.parse_args(argv)
    problem = folder_write_problem(args.out)
    if problem is None:
        try:
            nav = build(args.out, args.root.resolve())
        except (FileNotFoundError, FileExistsError) as error:
            problem = str(error)
    if problem:
        print(f"{parser.prog}: error: {problem}", file=sys.stderr)
        return 2
    pages, env_pages = count_pages(args.out, nav)
    print(f"wrote {pages} Markdown pages ({env_pages} environment pages) to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
