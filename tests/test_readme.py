"""The README's Python examples run as printed."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "the README should show a Python quickstart"
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102
    assert namespace["info"]["outcome"] in ("won", "lost", "truncated")
    assert "Empire solo" in capsys.readouterr().out
