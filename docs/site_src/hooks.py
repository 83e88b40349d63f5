"""MkDocs hook: splice the generated parts of the navigation into ``mkdocs.yml``'s ``nav``.

``docs/tools/build_site.py`` writes ``.nav.json`` into the source tree: for a page such as
``environments/index.md``, the pages that belong under it (one per registered env id, grouped by
game). A nav entry ``Title: environments/index.md`` becomes the section ``Title`` holding that
page (as "Overview") and the generated pages, so the nav follows the registry without editing
``mkdocs.yml``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

NAV_FILE = ".nav.json"


def _expand(items: list[Any], generated: dict[str, list[Any]]) -> list[Any]:
    expanded: list[Any] = []
    for item in items:
        if isinstance(item, dict) and len(item) == 1:
            ((title, value),) = item.items()
            if isinstance(value, str) and value in generated:
                item = {title: [{"Overview": value}, *generated[value]]}
            elif isinstance(value, list):
                item = {title: _expand(value, generated)}
        expanded.append(item)
    return expanded


def on_config(config: Any) -> Any:
    path = Path(config["docs_dir"]) / NAV_FILE
    if not path.is_file():
        raise PluginError(
            f"{path} is missing: generate the source tree first with "
            f"`python docs/tools/build_site.py --out {config['docs_dir']}`"
        )
    generated = json.loads(path.read_text(encoding="utf-8"))
    config["nav"] = _expand(config["nav"] or [], generated)
    return config
