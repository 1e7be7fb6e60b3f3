"""Plots with matplotlib (extra ``plot``): pictures a person wants of a run or a search.

Rendering only: every function takes results or files that the library wrote and returns
the path of the image it saved (``.png`` or ``.svg``, chosen by the file name).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

from playout._src.errors import InvalidParameterError
from playout._src.optional import import_optional


def _pyplot() -> Any:
    matplotlib = import_optional("matplotlib", extra="plot", needed_by="plots")
    matplotlib.use("Agg")
    return import_optional("matplotlib.pyplot", extra="plot", needed_by="plots")


def _check_image_path(path: str | os.PathLike[str]) -> Path:
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg"):
        raise InvalidParameterError(f"{path}: a plot is written as .png or .svg")
    return path


def plot_training(metrics: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """The curves of a training run's ``metrics.csv`` (:mod:`playout.zero.train`): losses,
    policy entropy, and the evaluation score against the rollout opponent, per iteration.

    Raises:
        InvalidParameterError: an unreadable metrics file or a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = _check_image_path(path)
    try:
        with Path(metrics).open(newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        raise InvalidParameterError(f"{metrics}: cannot read the metrics ({error})") from error
    if not rows:
        raise InvalidParameterError(f"{metrics}: no iterations recorded yet")
    plt = _pyplot()
    x = [int(r["iteration"]) for r in rows]
    figure, (losses, score) = plt.subplots(1, 2, figsize=(10, 4))
    losses.plot(x, [float(r["policy_loss"]) for r in rows], label="policy loss")
    losses.plot(x, [float(r["value_loss"]) for r in rows], label="value loss")
    losses.plot(x, [float(r["policy_entropy"]) for r in rows], label="policy entropy", ls="--")
    losses.set_xlabel("iteration")
    losses.legend()
    evaluated = [
        (i, float(r["eval_score"])) for i, r in zip(x, rows, strict=True) if r.get("eval_score")
    ]
    if evaluated:
        score.plot([i for i, _ in evaluated], [s for _, s in evaluated], marker="o")
        score.set_ylim(0, 1)
        score.axhline(0.5, color="grey", lw=0.5)
        score.set_title(f"score against {rows[-1]['eval_opponent']}")
    else:
        score.set_title("no evaluation games")
    score.set_xlabel("iteration")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path
