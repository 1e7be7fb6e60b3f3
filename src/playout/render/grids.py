"""Grids laid out like the board: one cell per action, as text or as rows of numbers.

Pure functions that return strings or nested lists; nothing here prints or searches.

Layouts
-------
* Grid games (the m,n,k family: tic-tac-toe, gomoku): the action id of square ``(x, y)`` is
  ``y * width + x`` with ``y`` the row **from the top**, so a grid is ``height`` rows of
  ``width`` cells, top row first -- the board's own layout (seed 001's
  ``move_probability_grid[y][x]``).
* Column games (connect four): one action per column, so a grid is one row (``height=1``).

A cell with no value (an occupied square, an unvisited move) shows ``blank`` in
:func:`grid_text` and is ``fill`` in :func:`probability_grid` / :func:`value_grid`.

Results
-------
The functions that take a ``result`` accept a :class:`~playout.SearchResult` (tree search)
and, except where said, a :class:`~playout.FlatResult` (flat Monte Carlo, no visits).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from playout._src.errors import InvalidParameterError
from playout._src.flat import FlatResult
from playout._src.search import SearchResult
from playout.render.formatting import number_text

AnyResult = SearchResult | FlatResult
"""What the rendering functions take: a tree search's or a flat Monte Carlo result."""


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
    if decimals < 0:
        raise InvalidParameterError(f"decimals must be >= 0, got {decimals}")
    cells: dict[int, str] = {}
    for action, value in values_by_action.items():
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            cells[action] = number_text(float(value), decimals)
    return label_grid_text(
        cells, width, height, blank=blank, column_labels=column_labels, row_labels=row_labels
    )


def label_grid_text(
    labels_by_action: Mapping[int, str],
    width: int,
    height: int,
    blank: str = ".",
    *,
    column_labels: Sequence[str] | None = None,
    row_labels: Sequence[str] | None = None,
) -> str:
    """A grid of short texts laid out like the board, one cell per action.

    As :func:`grid_text` (same layout, labels and errors), with the cells' text given:
    actions not in ``labels_by_action`` show ``blank``.
    """
    _check_size(width, height)
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

    cells = [
        [labels_by_action.get(y * width + x, blank) for x in range(width)] for y in range(height)
    ]

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
    (``y * width + x``); ``(width, 1)`` when they are its columns (connect four);
    ``(size, size)`` for Go (its points; the pass, action ``size * size``, is left out of
    the grid); ``None`` for games without a board layout (then list the actions instead).
    """
    width = getattr(game, "width", None)
    height = getattr(game, "height", None)
    num_actions = game.spec.num_actions
    size, pass_action = getattr(game, "size", None), getattr(game, "pass_action", None)
    if isinstance(size, int) and pass_action == size * size and num_actions == size * size + 1:
        return size, size
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

    Raises:
        InvalidParameterError: ``result`` is a :class:`~playout.FlatResult` (it has values
            only: flat Monte Carlo plays the same number of games from every move).
    """
    if isinstance(result, FlatResult):
        raise InvalidParameterError(
            "a flat Monte Carlo result has no visit shares (every move gets the same "
            "number of games); show its value grid instead"
        )
    return _fill_grid(result.policy(), width, height, fill)


def _sign_for(result: AnyResult, player: int | None) -> float:
    """+1 to show ``result``'s values for ``player`` (None: the player to move), -1 for the
    other player of a two-player game."""
    if player is None or player == result.player:
        return 1.0
    if result.player not in (0, 1) or player not in (0, 1):
        raise InvalidParameterError(
            f"values can be shown for the player to move or, in a two-player game, the other "
            f"player; not player {player} when player {result.player} is to move"
        )
    return -1.0


def value_grid(
    result: AnyResult,
    width: int,
    height: int,
    fill: float | None = None,
    *,
    player: int | None = None,
) -> Grid:
    """Mean value of every visited action, as rows top to bottom (seed 001's value grid).

    ``grid[y][x]`` is the mean return of action ``y * width + x`` for the player to move at
    the root, in [-1, 1] for the built-in two-player games. Actions never visited and squares
    that are not legal moves hold ``fill`` (``None`` by default: they have no value yet).
    A :class:`~playout.FlatResult` has a value for every legal move.

    ``player``: show the values for this player instead of the player to move; in a
    two-player zero-sum game the other player's values are the negated ones (seed 001's
    grids are all for the 1s player, whoever is to move).

    Raises:
        InvalidParameterError: ``player`` is neither the player to move nor, in a
            two-player game, the other one.
    """
    sign = _sign_for(result, player)
    if isinstance(result, FlatResult):
        rows = zip(result.actions, result.values, (1,) * len(result.actions), strict=True)
    else:
        rows = zip(result.actions, result.values, result.visit_counts, strict=True)
    values = {action: sign * value + 0.0 for action, value, visits in rows if visits > 0}
    return _fill_grid(values, width, height, fill)


def grid_values(grid: Sequence[Sequence[float | None]]) -> dict[int, float | None]:
    """Flatten rows (top first) back to ``{action: value}`` (inverse of the grid helpers)."""
    width = len(grid[0]) if grid else 0
    return {y * width + x: v for y, row in enumerate(grid) for x, v in enumerate(row)}


__all__ = [
    "AnyResult",
    "Grid",
    "column_label",
    "grid_shape",
    "grid_text",
    "grid_values",
    "label_grid_text",
    "probability_grid",
    "value_grid",
]
