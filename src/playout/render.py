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

Points of view
--------------
Search results hold values for the player to move at the root. Every grid title names the
player whose point of view it shows, by the game's player names (``values for X (to move)``,
``values for Red (to move)``; see :func:`player_label`); :func:`value_grid` and
:func:`value_grid_text` can show a two-player game from the other player's side as well
(seed 001 prints its flat grids for the 1s player whatever the side to move).

Results
-------
The functions that take a ``result`` accept a :class:`~playout.SearchResult` (tree search)
and, except where said, a :class:`~playout.FlatResult` (flat Monte Carlo, no visits).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from playout._src.errors import InvalidParameterError
from playout._src.flat import FlatResult
from playout._src.game import GameState
from playout._src.results import TreeNode
from playout._src.search import SearchResult

AnyResult = SearchResult | FlatResult
"""What the rendering functions take: a tree search's or a flat Monte Carlo result."""

SYMBOLS = ("X", "O")
"""How the built-in grid games draw player 0's and player 1's stones (their names may differ:
see :func:`board_legend`)."""

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
            cells[action] = f"{float(value):.{decimals}f}"
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


def moves_text(game: Any, state: GameState, actions: Sequence[int]) -> list[str]:
    """Notation of a line of actions played in turn from ``state`` (stops at an illegal one)."""
    moves: list[str] = []
    for action in actions:
        if state.is_terminal() or action not in state.legal_actions():
            break
        moves.append(game.action_to_string(state, action))
        state = state.play(action)
    return moves


# ------------------------------------------------------------------------------ games


def player_label(game: Any, player: int) -> str:
    """The name of ``player`` in ``game``: ``game.spec.player_name(player)`` (``X``/``O`` in
    the m,n,k games, ``Red``/``Yellow`` in connect four, ``White``/``Black`` in chess);
    ``the player`` in a one-player game."""
    spec = game.spec
    if spec.num_players == 1:
        return "the player"
    names = getattr(spec, "player_names", None)
    if names and 0 <= player < len(names):
        return str(names[player])
    return SYMBOLS[player] if 0 <= player < len(SYMBOLS) else f"player {player}"


def board_legend(game: Any) -> str:
    """One line naming the players a board draws as ``X`` and ``O``, when their names are
    others (connect four: ``X = Red, O = Yellow``); empty otherwise.

    The built-in grid games (those with a :func:`grid_shape`) draw player 0's stones ``X``
    and player 1's ``O``; a game can say what its boards draw with a ``symbols`` attribute
    (one string per player). Games without either (chess) get no legend.
    """
    if game.spec.num_players != 2:
        return ""
    symbols = getattr(game, "symbols", None)
    if symbols is None:
        if grid_shape(game) is None:
            return ""
        symbols = SYMBOLS
    names = tuple(player_label(game, player) for player in (0, 1))
    if tuple(symbols) == names:
        return ""
    return ", ".join(f"{symbol} = {name}" for symbol, name in zip(symbols, names, strict=True))


def board_text(game: Any, state: GameState) -> str:
    """The game's own picture of ``state`` (``game.render(state)``), else ``str(state)``;
    followed by the :func:`board_legend` line when the board draws the players under other
    names than theirs (connect four: ``X = Red, O = Yellow``)."""
    render_fn = getattr(game, "render", None)
    text = render_fn(state) if render_fn is not None else str(state)
    legend = board_legend(game)
    return f"{text}\n{legend}" if legend else text


def outcome_text(game: Any, state: GameState) -> str:
    """Who won a finished game: ``X wins``, ``Black wins``, ``draw`` (the players'
    :func:`player_label`), or the one player's return."""
    returns = tuple(state.returns())
    if game.spec.num_players == 1:
        return f"game over: return {returns[0]:+g}"
    if returns[0] > returns[1]:
        return f"{player_label(game, 0)} wins"
    if returns[1] > returns[0]:
        return f"{player_label(game, 1)} wins"
    return "draw"


# ------------------------------------------------------------------------------ proofs


PROVEN_LETTERS = {"won": "W", "drawn": "D", "lost": "L"}
"""One-letter cell of each proven move status in :func:`proven_grid_text`."""

PROVEN_STATUS = {"win": "won", "draw": "drawn", "loss": "lost"}
"""The move status of each :class:`~playout.Proven` result (``"win"`` -> ``"won"``)."""


def proven_moves(game: Any, result: AnyResult) -> dict[int, str]:
    """``{action: "won" | "drawn" | "lost"}`` for the root moves the solver has proven, for
    the player to move.

    Read from the solver's per-move proofs, ``result.outcomes``
    (:meth:`~playout.SearchResult.action_outcomes`): a move is listed exactly when the search
    proved it, whether or not the root itself is proven. Empty for a
    :class:`~playout.FlatResult` and for a search without the solver. ``game`` is not read
    (kept for a uniform signature with the other renderers).
    """
    del game
    if not isinstance(result, SearchResult):
        return {}
    return {
        action: PROVEN_STATUS[str(outcome)]
        for action, outcome in result.action_outcomes().items()
        if outcome is not None
    }


def proven_text(game: Any, result: AnyResult, planned_simulations: int | None = None) -> str:
    """One line saying that the solver proved the root (empty when it did not): the result
    for the player to move and, when the search stopped before ``planned_simulations``,
    that its visit shares are those of an interrupted search."""
    if not isinstance(result, SearchResult) or result.proven is None:
        return ""
    label = player_label(game, result.player)
    line = f"proven {result.proven} for {label} (to move)"
    if planned_simulations is not None and result.simulations < planned_simulations:
        line += (
            f": the solver stopped the search after {result.simulations:,} of "
            f"{planned_simulations:,} simulations, so the visit shares are those of an "
            "interrupted search"
        )
    return line


def proven_grid_text(game: Any, result: AnyResult) -> str:
    """A grid of the proven moves (:func:`proven_moves`): ``W`` won, ``D`` drawn, ``L`` lost
    for the player to move, ``?`` a move not proven, ``.`` no move; with its title. Empty
    when no move is proven or the game has no grid."""
    shape = grid_shape(game)
    statuses = proven_moves(game, result)
    if shape is None or not statuses:
        return ""
    width, height = shape
    cells = {action: "?" for action in result.actions}
    cells.update({action: PROVEN_LETTERS[status] for action, status in statuses.items()})
    label = player_label(game, result.player)
    return (
        f"proven moves for {label} (to move): W won, D drawn, L lost, ? not proven:\n"
        + label_grid_text(cells, width, height)
    )


# ------------------------------------------------------------------------------ grids


def probability_grid_text(game: Any, result: SearchResult) -> str:
    """The titled move-probability grid of a tree search ("" when the game has no grid).

    The title starts ``move probabilities (N simulations at the root; X to move)``: the
    visit shares of the choices of the player to move.
    """
    shape = grid_shape(game)
    if shape is None:
        return ""
    width, height = shape
    probabilities = probability_grid(result, width, height, fill=None)
    label = player_label(game, result.player)
    return (
        f"move probabilities ({result.total_simulations:,} simulations at the root; "
        f"{label} to move):\n" + grid_text(grid_values(probabilities), width, height)
    )


def value_grid_text(game: Any, result: AnyResult, player: int | None = None) -> str:
    """The titled value grid for ``player`` (default the player to move); "" without a
    grid. The title names whose values they are: ``values for X (to move)`` or
    ``values for X (O to move)``; flat results add ``flat Monte Carlo, N games per move``.
    """
    shape = grid_shape(game)
    if shape is None:
        return ""
    width, height = shape
    viewer = result.player if player is None else player
    values = value_grid(result, width, height, player=viewer)
    label = player_label(game, viewer)
    if viewer == result.player:
        whose = f"values for {label} (to move"
    else:
        whose = f"values for {label} ({player_label(game, result.player)} to move"
    if isinstance(result, FlatResult):
        whose += f"; flat Monte Carlo, {result.playouts:,} games per move"
    return f"{whose}):\n" + grid_text(grid_values(values), width, height)


def grids_text(
    game: Any,
    result: AnyResult,
    *,
    views: Sequence[int | None] = (None,),
    planned_simulations: int | None = None,
) -> str:
    """Every grid of a result, titled, separated by blank lines ("" without a grid).

    A tree search: the move probabilities, then the proof line of :func:`proven_text` (when
    the solver proved the root) and the grid of :func:`proven_grid_text` (when it proved
    some moves); then one value grid per entry of ``views`` (None: the player to move; a
    player id: that player's side).
    """
    if grid_shape(game) is None:
        return ""
    parts: list[str] = []
    if isinstance(result, SearchResult):
        parts.append(probability_grid_text(game, result))
        proof = proven_text(game, result, planned_simulations)
        if proof:
            parts.append(proof)
        proven_grid = proven_grid_text(game, result)
        if proven_grid:
            parts.append(proven_grid)
    parts += [value_grid_text(game, result, view) for view in views]
    return "\n\n".join(parts)


# ------------------------------------------------------------------------------ summaries


def top_moves_text(game: Any, state: GameState, result: AnyResult, limit: int = 5) -> str:
    """A table of the ``limit`` best root moves: the most visited ones of a tree search
    (visits, share, value and, where known, the proven status), the highest valued ones of a
    flat result (value)."""
    notation = {action: game.action_to_string(state, action) for action in result.actions}
    pad = max((len(text) for text in notation.values()), default=0)
    count = min(limit, len(result.actions))
    if isinstance(result, FlatResult):
        ranked = sorted(
            zip(result.actions, result.values, strict=True), key=lambda row: (-row[1], row[0])
        )[:limit]
        lines = [f"top moves by value ({count} of {len(result.actions)}):"]
        for action, value in ranked:
            lines.append(f"  {notation[action].ljust(pad)}  value {value:+.3f}")
        return "\n".join(lines)
    rows = sorted(
        zip(result.actions, result.visit_counts, result.values, strict=True),
        key=lambda row: (-row[1], row[0]),
    )[:limit]
    total = sum(result.visit_counts) or 1
    statuses = proven_moves(game, result)
    lines = [f"top moves ({count} of {len(result.actions)}):"]
    for action, visits, value in rows:
        line = (
            f"  {notation[action].ljust(pad)}  visits {visits:>7,}  share {visits / total:5.1%}"
            f"  value {value + 0.0:+.3f}"
        )
        if action in statuses:
            line += f"  proven {statuses[action]}"
        lines.append(line)
    return "\n".join(lines)


def result_text(
    game: Any, state: GameState, result: AnyResult, *, player_name: str | None = None
) -> str:
    """A few lines summing up a search of ``state``.

    Best move (in the game's notation), the root value for the player to move, the principal
    variation, and the effort: simulations, seconds, simulations per second, tree nodes and
    the deepest simulation. ``player_name`` names the player to move (default its
    :func:`player_label` in ``game``). A flat result: best move, its value and the games per
    move.
    """
    if player_name is None:
        player_name = player_label(game, result.player)
    best = game.action_to_string(state, result.best_action)
    if isinstance(result, FlatResult):
        value = max(result.values)
        return "\n".join(
            [
                f"best move: {best}",
                f"value: {value:+.3f} (for {player_name}, to move; the best move's mean)",
                f"flat Monte Carlo: {result.playouts:,} games per move, "
                f"{result.playouts * len(result.actions):,} games",
            ]
        )
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


# ------------------------------------------------------------------------------ JSON


def analysis_json(
    game: Any, state: GameState, result: SearchResult, workers: int = 1
) -> dict[str, Any]:
    """The JSON-ready dict of ``playout analyze --json`` for a tree search of ``state``.

    Each entry of ``actions`` holds the move's ``proven`` result for the player to move
    (``"win"``, ``"draw"``, ``"loss"``, or ``None`` when the solver did not prove it), from
    ``result.outcomes``; the top-level ``proven`` is the root's.
    """
    outcomes = result.action_outcomes()
    return {
        "game": game.spec.name,
        "to_play": state.current_player(),
        "best_action": result.best_action,
        "best_move": game.action_to_string(state, result.best_action),
        "value": result.value,
        "actions": [
            {
                "action": action,
                "move": game.action_to_string(state, action),
                "visits": visits,
                "value": value,
                "proven": None if outcomes[action] is None else str(outcomes[action]),
            }
            for action, visits, value in zip(
                result.actions, result.visit_counts, result.values, strict=True
            )
        ],
        "pv": moves_text(game, state, result.pv),
        "simulations": result.simulations,
        "seconds": result.seconds,
        "nodes": result.nodes,
        "max_depth": result.max_depth,
        "proven": None if result.proven is None else str(result.proven),
        "workers": workers,
    }


def flat_json(game: Any, state: GameState, result: FlatResult, seconds: float) -> dict[str, Any]:
    """The JSON-ready dict of ``playout analyze --flat --json``: per-move values of a flat
    Monte Carlo evaluation of ``state``, for the player to move."""
    return {
        "game": game.spec.name,
        "method": "flat",
        "to_play": state.current_player(),
        "best_action": result.best_action,
        "best_move": game.action_to_string(state, result.best_action),
        "value": max(result.values),
        "actions": [
            {"action": action, "move": game.action_to_string(state, action), "value": value}
            for action, value in zip(result.actions, result.values, strict=True)
        ],
        "playouts": result.playouts,
        "games": result.playouts * len(result.actions),
        "seconds": seconds,
    }


def board_json(game: Any, state: GameState) -> dict[str, Any]:
    """A JSON-ready picture of ``state`` for a graphical front end (the browser app).

    ``kind`` says how to draw it:

    * ``"grid"``: actions are the squares (the m,n,k games); ``cells[y][x]`` is the player
      (0 or 1) whose stone is on square ``y * width + x``, or ``None``.
    * ``"columns"``: actions are the columns of a ``width`` x ``height`` board (connect
      four); ``cells`` holds the whole board, top row first.
    * ``"chess"``: an 8 x 8 board, rank 8 on top and file ``a`` on the left (as white sees
      it); ``cells[row][col]`` is the owner (0 white, 1 black, or ``None``) of square
      ``"abcdefgh"[col] + str(8 - row)``, ``pieces[row][col]`` its piece as a FEN letter
      (``"K"`` white king, ``"p"`` black pawn) or ``None``; ``fen`` is the position and
      ``check`` the square of the king in check (``"e1"``) or ``None``. Each legal move has
      ``from_square``, ``to_square`` (``"e2"``, ``"e4"``) and ``promotion`` (``"q"``,
      ``"r"``, ``"b"``, ``"n"`` or ``None``): a pawn reaching the last rank has four moves
      with the same squares (``e7e8q`` .. ``e7e8n``).
    * ``"text"``: no board layout (Pig): ``text`` is :func:`board_text`.

    Every kind has ``text``, the player ``names``, ``to_play`` (None when the game is over),
    ``outcome`` (:func:`outcome_text`, or None) and the ``legal`` moves as
    ``{"action", "move"}`` in the game's notation (chess adds the squares and promotion).
    """
    chess_board = _chess_board(state)
    if chess_board is not None:
        return _chess_board_json(game, state, chess_board)
    terminal = state.is_terminal()
    shape = grid_shape(game)
    grid_fn = getattr(state, "grid", None)
    kind = "text"
    width = height = 0
    cells: list[list[int | None]] = []
    if shape is not None and callable(grid_fn):
        rows = [list(row) for row in grid_fn()]
        by_sign = {1: 0, -1: 1}
        cells = [[by_sign.get(int(cell)) for cell in row] for row in rows]
        height, width = len(cells), len(cells[0]) if cells else 0
        kind = "grid" if shape[1] > 1 else "columns"
    legal = [] if terminal else list(state.legal_actions())
    moves = [{"action": int(a), "move": game.action_to_string(state, a)} for a in legal]
    return _board_fields(game, state, kind, width, height, cells, moves)


def _board_fields(
    game: Any,
    state: GameState,
    kind: str,
    width: int,
    height: int,
    cells: list[list[int | None]],
    legal: list[dict[str, Any]],
) -> dict[str, Any]:
    """The fields :func:`board_json` gives for every kind of board."""
    terminal = state.is_terminal()
    return {
        "game": game.spec.name,
        "kind": kind,
        "width": width,
        "height": height,
        "cells": cells,
        "text": board_text(game, state),
        "names": [player_label(game, p) for p in range(game.spec.num_players)],
        "to_play": None if terminal else int(state.current_player()),
        "terminal": terminal,
        "outcome": outcome_text(game, state) if terminal else None,
        "legal": legal,
    }


def _chess_board(state: GameState) -> Any:
    """The ``chess.Board`` of a chess position, or None for any other game's state (without
    importing python-chess: a chess state exists only once :mod:`playout.games.chess` is
    loaded)."""
    module = sys.modules.get("playout.games.chess")
    if module is None or not isinstance(state, module.ChessState):
        return None
    return state.board


def square_name(file: int, rank: int) -> str:
    """Chess name of the square on 0-based ``file`` and ``rank``: ``(4, 1)`` is ``"e2"``."""
    return f"{'abcdefgh'[file]}{rank + 1}"


def _chess_board_json(game: Any, state: GameState, board: Any) -> dict[str, Any]:
    terminal = state.is_terminal()
    pieces: list[list[str | None]] = []
    cells: list[list[int | None]] = []
    for rank in range(7, -1, -1):
        row_pieces: list[str | None] = []
        row_cells: list[int | None] = []
        for file in range(8):
            piece = board.piece_at(rank * 8 + file)
            row_pieces.append(None if piece is None else piece.symbol())
            row_cells.append(None if piece is None else (0 if piece.color else 1))
        pieces.append(row_pieces)
        cells.append(row_cells)
    check = None
    if board.is_check():
        king = board.king(board.turn)
        if king is not None:
            check = square_name(king % 8, king // 8)
    legal = []
    for action in [] if terminal else state.legal_actions():
        move = game.action_to_string(state, action)  # UCI: e2e4, e7e8q
        legal.append(
            {
                "action": int(action),
                "move": move,
                "from_square": move[0:2],
                "to_square": move[2:4],
                "promotion": move[4:] or None,
            }
        )
    fields = _board_fields(game, state, "chess", 8, 8, cells, legal)
    fields.update(pieces=pieces, fen=board.fen(), check=check)
    return fields


def chess_target_shares(game: Any, state: GameState, result: SearchResult) -> Grid:
    """Visit shares of a chess search summed over the moves to each square, as the 8 x 8
    board of :func:`board_json` (rank 8 on top): ``grid[row][col]`` is the share of the
    root's simulations that went to square ``"abcdefgh"[col] + str(8 - row)``; ``None``
    where no legal move goes."""
    grid: Grid = [[None] * 8 for _ in range(8)]
    total = sum(result.visit_counts)
    for action, visits in zip(result.actions, result.visit_counts, strict=True):
        move = game.action_to_string(state, action)
        col, row = "abcdefgh".index(move[2]), 8 - int(move[3])
        share = visits / total if total else 0.0
        grid[row][col] = (grid[row][col] or 0.0) + share
    return grid


def snapshot_json(
    game: Any,
    state: GameState,
    result: SearchResult,
    *,
    lines: Mapping[int, Sequence[int]] | None = None,
    limit: int = 5,
) -> dict[str, Any]:
    """A live view of a tree search of ``state`` for a graphical front end: the
    :func:`analysis_json` dict, plus

    * ``total_simulations`` (the tree's, reused ones included), ``rate`` (simulations per
      second of the call behind ``result``, or None) and ``stop_reason``;
    * ``player_name``: who is to move (values are theirs), and ``value_for_first``: the
      root value for player 0 (a two-player game's evaluation bar);
    * ``shares`` and ``values_grid``: :func:`probability_grid` and :func:`value_grid` when
      the game has a :func:`grid_shape`; in chess ``shares`` is
      :func:`chess_target_shares` (the shares summed per target square) and ``values_grid``
      None; else both None;
    * ``top``: the ``limit`` most visited moves (as :func:`top_moves_text`) with ``share``,
      ``proven`` (``"won"``/``"drawn"``/``"lost"`` as :func:`proven_moves`), ``plies`` to
      the proven end, ``pv``: the move followed by its line from ``lines``
      (``{action: actions}``, e.g. :meth:`playout.MCTS.lines`) in the game's notation, and
      ``line``: the same as action ids.
    """
    data = analysis_json(game, state, result)
    total = sum(result.visit_counts)
    rows = sorted(
        zip(result.actions, result.visit_counts, result.values, strict=True),
        key=lambda row: (-row[1], row[0]),
    )[:limit]
    statuses = proven_moves(game, result)
    plies = dict(zip(result.actions, result.plies or (0,) * len(result.actions), strict=True))
    top = []
    for action, visits, value in rows:
        line = list(lines.get(action, (action,))) if lines is not None else [action]
        top.append(
            {
                "action": action,
                "move": game.action_to_string(state, action),
                "visits": visits,
                "share": visits / total if total else 0.0,
                "value": value + 0.0,
                "proven": statuses.get(action),
                "plies": plies[action] if action in statuses else None,
                "pv": (pv := moves_text(game, state, line)),
                "line": [int(a) for a in line[: len(pv)]],
            }
        )
    shape = grid_shape(game)
    shares = values = None
    if shape is not None:
        shares = probability_grid(result, *shape, fill=None)
        values = value_grid(result, *shape)
    elif _chess_board(state) is not None:
        shares = chess_target_shares(game, state, result)
    value_first = result.value if result.player == 0 else -result.value
    data.update(
        total_simulations=result.total_simulations,
        rate=result.simulations / result.seconds if result.seconds > 0 else None,
        stop_reason=result.stop_reason,
        player_name=player_label(game, result.player),
        value_for_first=value_first + 0.0 if game.spec.num_players == 2 else None,
        shares=shares,
        values_grid=values,
        top=top,
    )
    return data


# ------------------------------------------------------------------------------ matches


def match_game_line(game: Any, record: Any, planned_games: int) -> str:
    """One line per finished match game (a ``GameRecord``): who started and who won."""
    index = record.index
    first = "p1" if index % 2 == 0 else "p2"
    winner = record.winner
    if winner is None:
        text = "draw"
    else:
        p1_won = winner == index % 2
        text = f"{'p1' if p1_won else 'p2'} ({player_label(game, winner)}) wins"
    return (
        f"game {index + 1}/{planned_games}: {first} first, {text} in {record.num_moves} moves"
        f" ({record.seconds:.1f} s)"
    )


def match_text(result: Any, planned_games: int) -> str:
    """The report of a match (a ``MatchResult``): score, Elo and the SPRT verdict, from
    p1's side."""
    from playout._src.elo import format_elo

    low, high = result.confidence_interval
    elo_low, elo_high = result.elo_interval
    lines = [
        f"{result.game}: p1 = {result.p1}, p2 = {result.p2}, {result.games} games",
        f"p1: {result.wins} wins, {result.draws} draws, {result.losses} losses",
        f"p1 score: {result.score:.3f} (95% CI {low:.3f} .. {high:.3f}, Wilson)",
        f"p1 Elo: {format_elo(result.elo)} (95% CI {format_elo(elo_low)} .. "
        f"{format_elo(elo_high)})",
    ]
    if result.sprt is not None:
        status = result.sprt
        verdict = {
            "H1": f"H1 accepted (p1 is {status.test.elo1:g} Elo stronger or more)",
            "H0": f"H0 accepted (p1 is at most {status.test.elo0:g} Elo stronger)",
            None: "no decision yet",
        }[status.decision]
        lines.append(
            f"SPRT [{status.test.elo0:g}, {status.test.elo1:g}]: LLR {status.llr:.2f} "
            f"(bounds {status.lower:.2f}, {status.upper:.2f}): {verdict} after "
            f"{result.games} of {planned_games} games"
        )
    return "\n".join(lines)


def tournament_text(
    result: Any, num_players: int, games_per_pair: int, anchored_first: bool = False
) -> str:
    """The standings of a round robin (a ``TournamentResult``): Elo, games, W/D/L, score."""
    rows = result.standings()
    pad = max(len("player"), *(len(row.player) for row in rows))
    lines = [
        f"{result.game}: round robin of {num_players} players, {games_per_pair} games per "
        f"pair, {len(result.records)} games",
        f"{'#':>2}  {'player'.ljust(pad)}  {'Elo':>7}  {'games':>5}  {'W':>4}  {'D':>4}"
        f"  {'L':>4}  {'score':>5}",
    ]
    for rank, row in enumerate(rows, start=1):
        lines.append(
            f"{rank:>2}  {row.player.ljust(pad)}  {row.rating:>+7.1f}  {row.games:>5}"
            f"  {row.wins:>4}  {row.draws:>4}  {row.losses:>4}  {row.score:>5.3f}"
        )
    anchor = "the first player" if anchored_first else "the mean"
    lines.append(f"Elo: Bradley-Terry maximum likelihood, anchored at {anchor} = 0")
    return "\n".join(lines)


def replay_text(saved: Any) -> str:
    """A saved game (a ``SavedGame`` of ``match --save``) move by move: the boards and the
    result."""
    game, data = saved.game, saved.data
    names = list(data.get("players", []))
    versus = " vs ".join(f"{name} ({player_label(game, seat)})" for seat, name in enumerate(names))
    lines = [
        f"game {saved.index}: {game.spec.name}" + (f", {versus}" if versus else ""),
        board_text(game, saved.states[0]),
    ]
    for move, (action, before, after) in enumerate(
        zip(saved.actions, saved.states[:-1], saved.states[1:], strict=True), start=1
    ):
        label = player_label(game, before.current_player())
        lines.append(f"\nmove {move}: {label} plays {game.action_to_string(before, action)}")
        lines.append(board_text(game, after))
    lines.append(f"result: {outcome_text(game, saved.states[-1])}")
    return "\n".join(lines)


def _number(value: float | None) -> float | None:
    """A value for JSON: rounded to 6 places, -0.0 as 0.0."""
    return None if value is None else round(value, 6) + 0.0


def tree_json(game: Any, state: GameState, root: TreeNode) -> dict[str, Any]:
    """A JSON-ready picture of the top of a search tree (:meth:`playout.MCTS.export_tree`)
    from ``state``, the root's position: ``{"game", "root"}``, every node a dict of
    ``move`` (notation; ``null`` at the root), ``action``, ``to_play`` (the player to move,
    by name; ``null`` at a terminal or chance node), ``visits``, ``share`` (of the parent's
    visits), ``value`` and ``proven`` for the player to move, ``move_value`` and
    ``move_proven`` for the player who chose the move, ``prior``, ``plies`` (to the end
    when proven), ``terminal``, ``hidden`` (searched moves not shown) and ``children``
    (most visited first)."""

    def node_json(
        node: TreeNode, at: GameState, move: str | None, parent_visits: int
    ) -> dict[str, Any]:
        children = []
        for child in node.children:
            assert child.action is not None
            text = game.action_to_string(at, child.action)
            children.append(node_json(child, at.play(child.action), text, node.visits))
        return {
            "move": move,
            "action": node.action,
            "to_play": None if node.player is None else player_label(game, node.player),
            "visits": node.visits,
            "share": _number(node.visits / parent_visits if parent_visits else 1.0),
            "value": _number(node.value),
            "proven": None if node.proven is None else str(node.proven),
            "move_value": _number(node.move_value),
            "move_proven": None if node.move_proven is None else str(node.move_proven),
            "prior": _number(node.prior),
            "plies": node.plies,
            "terminal": node.terminal,
            "hidden": node.hidden,
            "children": children,
        }

    return {"game": game.spec.name, "root": node_json(root, state, None, root.visits)}


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def tree_dot(game: Any, state: GameState, root: TreeNode) -> str:
    """The top of a search tree (:meth:`playout.MCTS.export_tree`) as Graphviz DOT: a node
    per position (its move, the player to move, visits, value for that player, proof, and
    how many searched moves are not shown), an edge per move labelled with its share of the
    parent's visits. ``dot -Tsvg tree.dot > tree.svg`` draws it."""
    data = tree_json(game, state, root)
    lines = [
        "digraph search {",
        f'  label="{_dot_text(game.spec.name)}: the top of the search tree";',
        '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    counter = 0

    def emit(node: dict[str, Any], parent: str | None) -> None:
        nonlocal counter
        name = f"n{counter}"
        counter += 1
        parts = [node["move"] or "root"]
        if node["to_play"] is not None:
            parts.append(f"{node['to_play']} to move")
        elif node["terminal"]:
            parts.append("game over")
        parts.append(f"{node['visits']:,} visits")
        if node["value"] is not None:
            parts.append(f"value {node['value']:+.2f}")
        if node["proven"] is not None:
            plies = "" if node["plies"] is None else f" in {node['plies']}"
            parts.append(f"proven {node['proven']}{plies}")
        elif node["terminal"] and node["move_proven"] is not None:
            parts.append(f"{node['move_proven']} for the mover")
        if node["hidden"]:
            parts.append(f"+{node['hidden']} more moves")
        label = "\\n".join(_dot_text(part) for part in parts)
        lines.append(f'  {name} [label="{label}"];')
        if parent is not None:
            lines.append(f'  {parent} -> {name} [label="{100 * node["share"]:.0f}%"];')
        for child in node["children"]:
            emit(child, name)

    emit(data["root"], None)
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = [
    "PROVEN_LETTERS",
    "PROVEN_STATUS",
    "SYMBOLS",
    "AnyResult",
    "Grid",
    "analysis_json",
    "board_json",
    "board_legend",
    "board_text",
    "chess_target_shares",
    "column_label",
    "flat_json",
    "grid_shape",
    "grid_text",
    "grid_values",
    "grids_text",
    "label_grid_text",
    "match_game_line",
    "match_text",
    "moves_text",
    "outcome_text",
    "player_label",
    "probability_grid",
    "probability_grid_text",
    "proven_grid_text",
    "proven_moves",
    "proven_text",
    "replay_text",
    "result_text",
    "snapshot_json",
    "square_name",
    "top_moves_text",
    "tournament_text",
    "tree_dot",
    "tree_json",
    "value_grid",
    "value_grid_text",
]
