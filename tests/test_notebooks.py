"""Every notebook in notebooks/ runs top to bottom without an error (they are demos users copy).

A notebook's budget constants (``SMALLER_BUDGETS``: the PPO steps, the evaluation deals) are set
smaller here before it runs: the same cells and calls run, on a budget that keeps ``make test``
short. Each constant must be found as written, so that a renamed one fails here rather than
running the full budget unnoticed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

#: notebook -> {the constant's line as the notebook writes it: the line the test runs instead}
SMALLER_BUDGETS = {
    "quickstart.ipynb": {
        "EPISODES = 200": "EPISODES = 40",
        "TIMESTEPS = 20_000": "TIMESTEPS = 6_000",
    },
}


def _with_smaller_budgets(notebook, name: str):
    for line, smaller in SMALLER_BUDGETS.get(name, {}).items():
        cells = [cell for cell in notebook.cells if cell.cell_type == "code" and line in cell.source.splitlines()]
        assert len(cells) == 1, f"{name}: the line {line!r} should be in exactly one code cell"
        cells[0].source = "\n".join(smaller if text == line else text for text in cells[0].source.splitlines())
    return notebook


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ should hold at least one demo"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path):
    notebook = _with_smaller_budgets(nbformat.read(path, as_version=4), path.name)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute(
        cwd=str(path.parent)
    )
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    assert any(out.output_type == "stream" for out in outputs), "the demo printed nothing"
