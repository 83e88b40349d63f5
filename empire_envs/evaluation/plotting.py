"""The one matplotlib set-up of the package: whether it is installed, its backend and how a figure
is written. Every chart (the benchmark's in ``evaluation.benchmark``, the learning curves of
``training.plots`` and ``training.jax_ppo``) draws through here.

matplotlib comes with the ``train`` extra. Nothing imports it until a chart is drawn
(``pyplot``), and then on the ``Agg`` backend: charts are files, no window opens and no display
is needed. A caller that can do without charts asks ``HAVE_MATPLOTLIB`` first; ``pyplot``
without matplotlib is a ``MissingExtraError`` naming the extra.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.extras import missing_extra

#: charts need matplotlib (the ``train`` extra); without it, what draws them is skipped with a note
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the ``Agg`` backend (files only: it never opens a window)."""
    try:
        import matplotlib
    except ImportError as error:
        raise missing_extra("train", "drawing charts", "matplotlib") from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(figure: Any, out: str | Path, *, axes: Sequence[Any] = (), title: str = "", dpi: int = 100) -> Path:
    """Write ``figure`` as a PNG at ``out`` (its folder made when missing) and close it; returns
    the path. Each of ``axes`` first gets a light grid and, where it has labelled lines, a
    legend; ``title`` goes above the whole figure."""
    for axis in axes:
        axis.grid(alpha=0.3)
        if axis.get_legend_handles_labels()[0]:
            axis.legend(loc="best", fontsize="small")
    if title:
        figure.suptitle(title)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=dpi)
    pyplot().close(figure)
    return out
