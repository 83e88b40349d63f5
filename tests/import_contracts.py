"""An import-linter contract type of this repository (``contract_types`` in ``pyproject.toml``).

``layers_with_string_edges`` is import-linter's ``layers`` contract with the package's string
edges counted as imports. A table that names a module to import later (the game table's
``"empire_envs.games.solo:GAME"``, the agents' ``"empire_envs.agents.ismcts:ISMCTSAgent"``, the
file agents) creates a dependency that the import graph does not show; here every string
constant of the package that names one of its modules, ``"package.module"`` or
``"package.module:attribute"`` (an f-string that starts so, ``f"empire_envs.envs:{name}"``, too),
is an import of that module by the module holding the string, and the layers are checked over
imports and strings together. A string that names no module of the package breaks the contract
too: a stale reference. A name at the top of the package (``"empire_envs.make"``, the policy file
format tag ``"empire_envs.jaxppo"``) belongs to no layer and is left out.

The entry points that Gymnasium and PettingZoo load (``empire_envs.registry`` names the env
classes and the batched envs above it, by those libraries' convention) are the contract's
``ignore_imports``, written out in ``pyproject.toml``.

``lint-imports`` (``tests/test_code_health.py``, ``make test``) puts the working directory on the
import path, so it finds this module as ``tests.import_contracts``.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Any

import grimp
from importlinter.application import output
from importlinter.contracts.layers import LayersContract
from importlinter.domain.contract import ContractCheck

#: a whole string that names a module, with an optional ``:attribute``
_MODULE_STRING = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?::[A-Za-z_]\w*)?")
#: the text an f-string starts with when it names a module and fills in the rest
_MODULE_PREFIX = re.compile(r"(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[.:]")


class LayersWithStringEdgesContract(LayersContract):
    """``layers``, with every string of the root packages that names one of their modules
    counted as an import of it (the module docstring says why)."""

    type_name = "layers_with_string_edges"

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        unknown: list[str] = []
        roots = self.session_options["root_packages"]
        for importer, (named, exact), line_number, text in string_edges(roots):
            target = (named if named in graph.modules else None) if exact else module_named(named, graph)
            if target in roots:  # the package itself or a name at its top ("empire_envs.make"): no layer
                continue
            if target is None:
                unknown.append(f"{importer}:{line_number}: {text}")
            elif target != importer and not graph.direct_import_exists(importer=importer, imported=target):
                graph.add_import(importer=importer, imported=target, line_number=line_number, line_contents=text)
        check = super().check(graph, verbose)
        check.metadata["unknown_module_strings"] = unknown
        check.kept = check.kept and not unknown
        return check

    def render_broken_contract(self, check: ContractCheck) -> None:
        super().render_broken_contract(check)
        if check.metadata["unknown_module_strings"]:
            output.print("These strings name no module of the package:")
            output.new_line()
            for where in check.metadata["unknown_module_strings"]:
                output.print_error(f"- {where}", bold=False)
            output.new_line()


def string_edges(root_packages: list[str]) -> list[tuple[str, tuple[str, bool], int, str]]:
    """``(module, (named, exact), line number, the string)`` for every string constant of the
    root packages that names a module of theirs (``_named_module``)."""
    edges = []
    for root in root_packages:
        spec = importlib.util.find_spec(root)  # a top-level package: found without importing it
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = Path(next(iter(spec.submodule_search_locations)))
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            module = ".".join((root, *parts[: -1 if parts[-1] == "__init__" else None]))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                named = _named_module(node, root)
                if named is not None:
                    edges.append((module, named, getattr(node, "lineno", 0), ast.unparse(node)))
    return edges


def _named_module(node: Any, root: str) -> tuple[str, bool] | None:
    """``(name, exact)`` of a string node that names something below ``root``, else None.
    ``"package.module:attribute"`` (or an f-string ``f"package.module:{...}"``) names its module
    exactly (``exact``); ``"a.b.C"`` (or ``f"a.b.{...}"``) names a module or something in one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        if _MODULE_STRING.fullmatch(text) and text.startswith(f"{root}."):
            name, colon, _ = text.partition(":")
            return name, bool(colon)
    elif isinstance(node, ast.JoinedStr) and len(node.values) > 1 and isinstance(node.values[0], ast.Constant):
        text = str(node.values[0].value)
        match = _MODULE_PREFIX.fullmatch(text)
        if match and match["module"].startswith(f"{root}."):
            return match["module"], text.endswith(":")
    return None


def module_named(name: str, graph: grimp.ImportGraph) -> str | None:
    """The module of the graph that ``name`` is or lies in (``a.b.C`` -> ``a.b``), else None."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in graph.modules:
            return candidate
    return None
