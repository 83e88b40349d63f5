"""Helpers that keep env docstrings, rules pages and code tables one and the same text."""

from __future__ import annotations

import dataclasses


def rst_tables(module_doc: str) -> str:
    """The reST tables of a module docstring: from the first ``=====`` rule to the end (the
    prose before it, captions included, stays with the module)."""
    lines = module_doc.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("====="))
    return "\n".join(lines[first:]).strip()


def env_docstring(template: str, actions_module, observe_module, arguments: str = "") -> str:
    """An env class docstring: ``template`` with its ``{num_actions}``, ``{obs_size}``,
    ``{action_table}``, ``{observation_table}`` and ``{arguments}`` filled from the game's own
    modules (``arguments``: ``call_with_defaults`` of its config), so the env's documentation is
    the code's tables, sizes and defaults, never a copy."""
    return template.format(
        num_actions=actions_module.NUM_ACTIONS,
        obs_size=observe_module.OBSERVATION_SIZE,
        action_table=rst_tables(actions_module.__doc__ or ""),
        observation_table=rst_tables(observe_module.__doc__ or ""),
        arguments=arguments,
    )


def call_with_defaults(
    callee: str, config_class: type, leading: tuple[tuple[str, object], ...] = (), positional: str = ""
) -> str:
    """``callee(positional, name=default, ...)`` as a reST literal wrapped at 96 columns: the
    ``leading`` keyword arguments (the adapter's own, such as ``render_mode``) then every field of
    ``config_class`` with its default, read from the dataclass, so a docstring's Arguments
    section cannot drift from the config."""
    arguments = [positional] if positional else []
    arguments += [f"{name}={value!r}" for name, value in leading]
    arguments += [f"{field.name}={_default(field)!r}" for field in dataclasses.fields(config_class)]
    text = f"``{callee}({', '.join(arguments)})``"
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > 96:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def _default(field: dataclasses.Field) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    raise ValueError(f"config field {field.name!r} has no default")
