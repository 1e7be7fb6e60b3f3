"""Text pictures of search results: value grids, move-probability grids, summaries.

Pure functions that return strings or nested lists; nothing here prints or searches (the
command line and other front ends print what these return).

Layouts
-------
* Grid games (the m,n,k family: tic-tac-toe, gomoku): the action id of square ``(x, y)`` is
  ``y * width + x`` with ``y`` the row **from the top**, so a grid is ``height`` rows of
  ``width`` cells, top row first -- the board's own layout (seed 001's
  ``move_probability_grid[y][x]``).
* Column games (connect four): one action per column, so a grid is one row (``height=1``).

A cell with no value (an occupied square, an unvisited move) shows ``blank`` in
:func:`grid_text` and is ``fill`` in :func:`probability_grid` / :func:`value_grid`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from playout._src.errors import InvalidParameterError
from playout._src.game import GameState
from playout._src.search import SearchResult

Grid = list[list[float | None]]
"""Rows top to bottom, ``grid[y][x]`` the cell of action ``y * width + x``."""


def column_label(x: int) -> str:
    """Letter name of 0-based column ``x``: ``a`` .. ``z``, then ``aa``, ``ab``, ...

    The same labels the built-in grid games print above their boards (``b3`` = column ``b``,
    row 3 from the top).
    """
    label = ""
    n = x + 1
    while n > 0:
        n, rem = divmod(n - 1, 26)
        label = chr(ord("a") + rem) + label
    return label


def _check_size(width: int, height: int) -> None:
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be a whole number >= 1, got {value!r}")


def grid_text(
    values_by_action: Mapping[int, float | None],
    width: int,
    height: int,
    decimals: int = 2,
    blank: str = ".",
    *,
    column_labels: Sequence[str] | None = None,
    row_labels: Sequence[str] | None = None,
) -> str:
    """A grid of numbers laid out like the board, one cell per action.

    Args:
        values_by_action: number to show for each action id (a value or a probability);
            actions not in the mapping, or mapped to ``None`` or NaN, show ``blank``.
        width: cells per row.
        height: rows; action ``y * width + x`` goes to row ``y`` (0 = top), column ``x``.
            Use ``height=1`` for one cell per column (connect four).
        decimals: digits after the decimal point.
        blank: text of an empty cell.
        column_labels: labels above the columns. Default: letters ``a b c ...`` (the grid
            games' board labels) when ``height > 1``, numbers ``1 2 3 ...`` (connect four's
            column numbers) when ``height == 1``.
        row_labels: labels left of the rows. Default: ``1 .. height`` from the top when
            ``height > 1``, none when ``height == 1``.

    Returns:
        ``height + 1`` lines joined by newlines (no trailing newline): a header line of
        column labels, then one line per row, top row first. Cells are right-aligned.
    """
    _check_size(width, height)
    if decimals < 0:
        raise InvalidParameterError(f"decimals must be >= 0, got {decimals}")
    if column_labels is None:
        if height == 1:
            column_labels = [str(x + 1) for x in range(width)]
        else:
            column_labels = [column_label(x) for x in range(width)]
    if row_labels is None:
        row_labels = [] if height == 1 else [str(y + 1) for y in range(height)]
    if len(column_labels) != width:
        raise InvalidParameterError(f"need {width} column labels, got {len(column_labels)}")
    if row_labels and len(row_labels) != height:
        raise InvalidParameterError(f"need {height} row labels, got {len(row_labels)}")

    cells: list[list[str]] = []
    for y in range(height):
        row: list[str] = []
        for x in range(width):
            value = values_by_action.get(y * width + x)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                row.append(blank)
            else:
                row.append(f"{float(value):.{decimals}f}")
        cells.append(row)

    cell_width = max(
        [len(label) for label in column_labels] + [len(text) for row in cells for text in row]
    )
    margin = max((len(label) for label in row_labels), default=0)
    prefix = " " * margin + " " if margin else ""
    lines = [(prefix + " ".join(label.rjust(cell_width) for label in column_labels)).rstrip()]
    for y, row in enumerate(cells):
        start = row_labels[y].rjust(margin) + " " if margin else ""
        lines.append(start + " ".join(text.rjust(cell_width) for text in row))
    return "\n".join(lines)


def grid_shape(game: Any) -> tuple[int, int] | None:
    """``(width, height)`` of the grid that shows one cell per action of ``game``, or None.

    ``(width, height)`` when actions are the squares of a ``width`` x ``height`` board
    (``y * width + x``); ``(width, 1)`` when they are its columns (connect four); ``None``
    for games without a board layout (then list the actions instead).
    """
    width = getattr(game, "width", None)
    height = getattr(game, "height", None)
    num_actions = game.spec.num_actions
    if not (isinstance(width, int) and isinstance(height, int)) or num_actions is None:
        return None
    if num_actions == width * height:
        return width, height
    if num_actions == width:
        return width, 1
    return None


def _fill_grid(by_action: Mapping[int, float], width: int, height: int, fill: float | None) -> Grid:
    _check_size(width, height)
    return [[by_action.get(y * width + x, fill) for x in range(width)] for y in range(height)]


def probability_grid(
    result: SearchResult, width: int, height: int, fill: float | None = 0.0
) -> Grid:
    """Visit share of every action, as rows top to bottom (seed 001's move-probability grid).

    ``grid[y][x]`` is the share of the root's simulations that went through action
    ``y * width + x``; the shares of the legal moves sum to 1 (all 0 before any simulation).
    Squares that are not legal moves hold ``fill`` (0.0, as in seed 001).
    """
    return _fill_grid(result.policy(), width, height, fill)


def value_grid(result: SearchResult, width: int, height: int, fill: float | None = None) -> Grid:
    """Mean value of every visited action, as rows top to bottom (seed 001's value grid).

    ``grid[y][x]`` is the mean return of action ``y * width + x`` for the player to move at
    the root, in [-1, 1] for the built-in two-player games. Actions never visited and squares
    that are not legal moves hold ``fill`` (``None`` by default: they have no value yet).
    """
    values = {
        action: value
        for action, value, visits in zip(
            result.actions, result.values, result.visit_counts, strict=True
        )
        if visits > 0
    }
    return _fill_grid(values, width, height, fill)


def grid_values(grid: Sequence[Sequence[float | None]]) -> dict[int, float | None]:
    """Flatten rows (top first) back to ``{action: value}`` (inverse of the grid helpers)."""
    width = len(grid[0]) if grid else 0
    return {y * width + x: v for y, row in enumerate(grid) for x, v in enumerate(row)}


def moves_text(game: Any, state: GameState, actions: Sequence[int]) -> list[str]:
    """Notation of a line of actions played in turn from ``state`` (stops at an illegal one)."""
    moves: list[str] = []
    for action in actions:
        if state.is_terminal() or action not in state.legal_actions():
            break
        moves.append(game.action_to_string(state, action))
        state = state.play(action)
    return moves


def result_text(
    game: Any, state: GameState, result: SearchResult, *, player_name: str | None = None
) -> str:
    """A few lines summing up a search of ``state``.

    Best move (in the game's notation), the root value for the player to move, the principal
    variation, and the effort: simulations, seconds, simulations per second, tree nodes and
    the deepest simulation. ``player_name`` names the player to move (default
    ``"player <id>"``).
    """
    if player_name is None:
        player_name = f"player {result.player}"
    best = game.action_to_string(state, result.best_action)
    pv = " ".join(moves_text(game, state, result.pv)) or "-"
    rate = result.simulations / result.seconds if result.seconds > 0 else math.inf
    rate_text = f"{rate:,.0f}/s" if math.isfinite(rate) else "-"
    lines = [
        f"best move: {best}",
        f"value: {result.value:+.3f} (for {player_name}, to move)",
    ]
    if result.proven is not None:
        lines.append(f"proven: {result.proven}")
    lines += [
        f"pv: {pv}",
        f"simulations: {result.simulations:,} in {result.seconds:.2f} s ({rate_text});"
        f" tree: {result.nodes:,} nodes, depth {result.max_depth}",
    ]
    return "\n".join(lines)


__all__ = [
    "Grid",
    "column_label",
    "grid_shape",
    "grid_text",
    "grid_values",
    "moves_text",
    "probability_grid",
    "result_text",
    "value_grid",
]
