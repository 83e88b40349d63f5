"""Helpers that keep env docstrings, rules pages and code tables one and the same text."""

from __future__ import annotations


def rst_tables(module_doc: str) -> str:
    """The reST tables of a module docstring: from the first ``=====`` rule to the end (the
    prose before it, captions included, stays with the module)."""
    lines = module_doc.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("====="))
    return "\n".join(lines[first:]).strip()


def env_docstring(template: str, actions_module, observe_module) -> str:
    """An env class docstring: ``template`` with its ``{num_actions}``, ``{obs_size}``,
    ``{action_table}`` and ``{observation_table}`` filled from the game's own modules, so the
    env's documentation is the code's tables and sizes, never a copy."""
    return template.format(
        num_actions=actions_module.NUM_ACTIONS,
        obs_size=observe_module.OBSERVATION_SIZE,
        action_table=rst_tables(actions_module.__doc__ or ""),
        observation_table=rst_tables(observe_module.__doc__ or ""),
    )
