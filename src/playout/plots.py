"""Plots with matplotlib (extra ``plot``): pictures a person wants of a run or a search.

Rendering only: every function takes results or files that the library wrote and returns
the path of the image it saved (``.png`` or ``.svg``, chosen by the file name):
:func:`plot_training` (``playout train --plot``), :func:`plot_search` (``playout analyze
--plot``).
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any

from playout import render
from playout._src.errors import InvalidParameterError
from playout._src.optional import import_optional
from playout._src.results import SearchResult


def _pyplot() -> Any:
    matplotlib = import_optional("matplotlib", extra="plot", needed_by="plots")
    matplotlib.use("Agg")
    return import_optional("matplotlib.pyplot", extra="plot", needed_by="plots")


def check_image_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`~pathlib.Path` when it names a ``.png`` or ``.svg`` file.

    Raises:
        InvalidParameterError: any other suffix (the message says which are written).
    """
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
    path = check_image_path(path)
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


MAX_BARS = 20
"""Moves shown by :func:`plot_search`'s bar chart (the most visited)."""

STONE_COLORS = {"x": "#2563eb", "o": "#dc2626", "red": "#dc2626", "yellow": "#eab308"}
"""Stone colours by player name (as on the browser app's page); others get X's and O's."""


def plot_search(
    game: Any,
    state: Any,
    result: SearchResult,
    path: str | os.PathLike[str],
    *,
    max_bars: int = MAX_BARS,
) -> Path:
    """A picture of what a search thinks of ``state`` (seed 004's probability plot): a heat
    map of the root's visit shares on the board (grid games square by square, connect four
    column by column, no map for games without a board layout) beside a bar chart of the
    most visited moves' values for the player to move, each bar labelled with its visits.

    Rendering only: ``result`` is the search's :class:`~playout.SearchResult` at ``state``.

    Raises:
        InvalidParameterError: a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = check_image_path(path)
    plt = _pyplot()
    shape = render.grid_shape(game)
    grid_fn = getattr(state, "grid", None)
    board = [list(row) for row in grid_fn()] if shape and callable(grid_fn) else None
    figure, axes = plt.subplots(
        1, 2 if board else 1, figsize=(11 if board else 7, 4.8), squeeze=False
    )
    if board:
        names = [render.player_label(game, p) for p in (0, 1)]
        columns = shape is not None and shape[1] == 1
        _heat_map(figure, axes[0][0], result, board, names, columns=columns)
    _value_bars(axes[0][-1], game, state, result, max_bars)
    mover = render.player_label(game, result.player)
    title = (
        f"{game.spec.name}: {mover} to move, {result.total_simulations:,} simulations, "
        f"value {result.value:+.2f} for {mover}"
    )
    if result.proven is not None:
        title += f" (proven: {result.proven.value})"
    figure.suptitle(title)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path


def _heat_map(
    figure: Any,
    ax: Any,
    result: SearchResult,
    board: list[list[Any]],
    names: list[str],
    *,
    columns: bool,
) -> None:
    """Visit shares on ``board`` (rows top first; stones +1 / -1 for the players ``names``):
    per square (axes in the moves' ``x,y`` notation), or per column with the share written
    above it."""
    from matplotlib.patches import Circle

    height, width = len(board), len(board[0]) if board else 0
    shares = result.policy()
    best = result.best_action

    def action(x: int, y: int) -> int:
        return x if columns else y * width + x

    heat = [[shares.get(action(x, y), math.nan) for x in range(width)] for y in range(height)]
    top = max([*shares.values(), 1e-9])
    image = ax.imshow(heat, cmap="Greens", vmin=0.0, vmax=top, aspect="equal")
    figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="visit share")
    for y in range(height):
        for x in range(width):
            stone = int(board[y][x])
            if stone in (1, -1):
                name = names[0 if stone == 1 else 1]
                color = STONE_COLORS.get(name.casefold(), "#334155")
                if columns:
                    ax.add_patch(Circle((x, y), 0.38, color=color))
                else:
                    ax.text(x, y, name[:1], ha="center", va="center", fontsize=18, color=color,
                            fontweight="bold")  # fmt: skip
            elif not columns and action(x, y) in shares:
                share = shares[action(x, y)]
                ax.text(x, y, f"{100 * share:.0f}%", ha="center", va="center", fontsize=9,
                        color="white" if share > 0.6 * top else "black",
                        fontweight="bold" if action(x, y) == best else "normal")  # fmt: skip
    if columns:
        for x in range(width):
            if x in shares:
                ax.text(x, -0.6, f"{100 * shares[x]:.0f}%", ha="center", va="bottom",
                        fontsize=9, fontweight="bold" if x == best else "normal")  # fmt: skip
        ax.set_ylim(height - 0.5, -1.5)
    ax.set_xticks(range(width))
    ax.set_xticklabels([str(x + 1) if columns else str(x) for x in range(width)])
    ax.set_yticks(range(height))
    ax.set_yticklabels([""] * height if columns else [str(y) for y in range(height)])
    if not columns:
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    ax.set_title("visit share per " + ("column" if columns else "square"))


def _value_bars(ax: Any, game: Any, state: Any, result: SearchResult, max_bars: int) -> None:
    """The most visited moves' values for the player to move, their visits on the bars."""
    rows = sorted(
        zip(result.actions, result.visit_counts, result.values, strict=True),
        key=lambda row: (-row[1], row[0]),
    )[:max_bars]
    values = [value if visits > 0 else 0.0 for _, visits, value in rows]
    colors = ["#16a34a" if v > 0.05 else "#dc2626" if v < -0.05 else "#94a3b8" for v in values]
    ax.bar(range(len(rows)), values, color=colors)
    for i, ((_, visits, _), value) in enumerate(zip(rows, values, strict=True)):
        ax.text(i, value + (0.03 if value >= 0 else -0.03), f"{visits:,}", ha="center",
                va="bottom" if value >= 0 else "top", fontsize=8)  # fmt: skip
    ax.axhline(0.0, color="grey", lw=0.5)
    ax.set_ylim(-1.15, 1.15)
    ax.set_xticks(range(len(rows)))
    slanted = len(rows) > 8
    ax.set_xticklabels(
        [game.action_to_string(state, a) for a, _, _ in rows],
        rotation=45 if slanted else 0,
        ha="right" if slanted else "center",
    )
    ax.set_ylabel(f"value for {render.player_label(game, result.player)}")
    ax.set_title("move values (numbers: visits)")


__all__ = ["MAX_BARS", "check_image_path", "plot_search", "plot_training"]
