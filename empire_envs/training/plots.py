"""Learning curves of a training run (what ``python -m empire_envs train`` writes), drawn with
matplotlib through ``evaluation.plotting``."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np

from ..evaluation.plotting import pyplot, save_figure

TRAIN_RETURN = "rollout/ep_rew_mean"
TRAIN_SUCCESS = "rollout/success_rate"
TIMESTEPS = "time/total_timesteps"


def read_progress(run_dir: str | Path) -> dict[str, np.ndarray]:
    """The numeric columns of SB3's ``progress.csv`` (rows without a value hold NaN)."""
    path = Path(run_dir) / "progress.csv"
    if not path.is_file():
        return {}
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    columns: dict[str, np.ndarray] = {}
    for key in rows[0].keys() if rows else []:
        values = []
        for row in rows:
            try:
                values.append(float(row[key]))
            except (TypeError, ValueError):
                values.append(np.nan)
        columns[key] = np.asarray(values)
    return columns


def read_evaluations(run_dir: str | Path) -> dict[str, np.ndarray]:
    """``eval/evaluations.npz`` of ``MaskableEvalCallback``: timesteps, results, successes."""
    path = Path(run_dir) / "eval" / "evaluations.npz"
    if not path.is_file():
        return {}
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def plot_learning_curve(run_dir: str | Path, out: str | Path | None = None, title: str = "") -> Path:
    """Episode return and win rate against timesteps, training and evaluation; returns the PNG path.

    Training values are SB3's running means over the last 100 episodes; evaluation points are
    the means of each periodic masked evaluation (error bars: one standard deviation of the
    return).
    """
    plt = pyplot()
    run_dir = Path(run_dir)
    out = Path(out) if out is not None else run_dir / "learning_curve.png"
    progress = read_progress(run_dir)
    evaluations = read_evaluations(run_dir)
    figure, (ax_return, ax_win) = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    _plot_series(ax_return, progress, TRAIN_RETURN, "training (last 100 episodes)")
    _plot_series(ax_win, progress, TRAIN_SUCCESS, "training (last 100 episodes)", scale=100.0)
    if evaluations:
        steps = evaluations["timesteps"]
        results = evaluations["results"]
        ax_return.errorbar(
            steps,
            results.mean(axis=1),
            yerr=results.std(axis=1),
            fmt="o-",
            capsize=3,
            label=f"evaluation ({results.shape[1]} episodes)",
        )
        successes = evaluations.get("successes")
        if successes is not None and successes.size:
            ax_win.plot(
                steps, 100.0 * successes.mean(axis=1), "o-", label=f"evaluation ({successes.shape[1]} episodes)"
            )
    ax_return.set(xlabel="timesteps", ylabel="episode return", title="Return")
    ax_win.set(xlabel="timesteps", ylabel="win rate (%)", title="Win rate", ylim=(-2, 102))
    return save_figure(figure, out, axes=(ax_return, ax_win), title=title)


def _plot_series(axis: Any, progress: dict[str, np.ndarray], key: str, label: str, scale: float = 1.0) -> None:
    if key not in progress or TIMESTEPS not in progress:
        return
    steps, values = progress[TIMESTEPS], progress[key]
    keep = ~(np.isnan(steps) | np.isnan(values))
    if keep.any():
        axis.plot(steps[keep], scale * values[keep], "-", label=label)
