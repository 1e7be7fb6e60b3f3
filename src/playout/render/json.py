"""JSON-ready pictures for graphical front ends and ``--json``: boards, searches, live views.

Pure functions that return dicts of JSON types (the browser app and ``playout analyze --json``
serialise them); nothing here prints or searches.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from playout._src.flat import FlatResult
from playout._src.game import GameState
from playout._src.search import SearchResult
from playout.render.board import board_text, moves_text, outcome_text, player_label
from playout.render.grids import Grid, grid_shape, probability_grid, value_grid
from playout.render.text import proven_moves


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
    * ``"go"``: a ``width`` x ``width`` Go board; ``cells[y][x]`` is the player (0 Black, 1
      White) whose stone is on point ``y * width + x`` (row 0 on top), or ``None``;
      ``pass_action`` is the pass's id, ``captures`` the stones each player has taken
      (Black's first), ``star_points`` the hoshi, ``komi``, and ``score`` the area score
      (Tromp-Taylor: Black's points minus White's and komi) as it stands.
    * ``"text"``: no board layout (Pig): ``text`` is :func:`board_text`.

    Every kind has ``text``, the player ``names``, ``to_play`` (None when the game is over),
    ``outcome`` (:func:`outcome_text`, or None) and the ``legal`` moves as
    ``{"action", "move"}`` in the game's notation (chess adds the squares and promotion).
    """
    chess_board = _chess_board(state)
    if chess_board is not None:
        return _chess_board_json(game, state, chess_board)
    if _is_go(state):
        return _go_board_json(game, state)
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


def _is_go(state: GameState) -> bool:
    """Whether ``state`` is a Go position (without importing Go: a Go state exists only once
    :mod:`playout.games.go.state` is loaded)."""
    module = sys.modules.get("playout.games.go.state")
    return module is not None and isinstance(state, module.GoState)


def _go_board_json(game: Any, state: Any) -> dict[str, Any]:
    """:func:`board_json` of a Go position (kind ``"go"``)."""
    size = game.size
    owners = {1: 0, 2: 1}
    cells: list[list[int | None]] = [
        [owners.get(state.board[y * size + x]) for x in range(size)] for y in range(size)
    ]
    legal = [] if state.is_terminal() else list(state.legal_actions())
    moves = [{"action": int(a), "move": game.action_to_string(state, a)} for a in legal]
    data = _board_fields(game, state, "go", size, size, cells, moves)
    data.update(
        pass_action=int(game.pass_action),
        captures=[int(state.captured[1]), int(state.captured[0])],
        star_points=sorted(int(p) for p in game.star_points),
        komi=float(game.komi),
        score=float(state.score()),
    )
    return data


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


__all__ = [
    "analysis_json",
    "board_json",
    "chess_target_shares",
    "flat_json",
    "snapshot_json",
    "square_name",
]
