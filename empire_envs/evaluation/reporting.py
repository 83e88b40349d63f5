"""Output helpers shared by the commands: human text beside optional JSON.

With ``--json -`` the JSON goes to standard output, so the human-readable text moves to
standard error; with ``--json PATH`` it is written to the file.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: where a command writes its human-readable lines
Log = Callable[[str], None]


def text_log(json_target: str | None) -> Log:
    """Where the commands print their text: standard error when JSON takes standard output."""
    if json_target == "-":
        return lambda line: print(line, file=sys.stderr)
    return print


def emit_json(data: Any, json_target: str | None, log: Log) -> None:
    """Write ``data`` as JSON to ``json_target`` (``-`` for standard output); nothing if None."""
    if not json_target:
        return
    text = json.dumps(data, indent=2)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n")
        log(f"wrote {json_target}")
