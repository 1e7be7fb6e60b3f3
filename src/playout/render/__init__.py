"""Pictures of games and search results for front ends: text, JSON and exported trees.

Pure functions that return strings or JSON-ready dicts; nothing here prints or searches (the
command line, the browser app and other front ends show what these return). Every public
name is importable from here (``from playout import render; render.board_json(...)``); the
modules hold one kind of picture each:

* :mod:`~playout.render.formatting`: how every picture writes a number (:func:`number_text`);
* :mod:`~playout.render.grids`: grids laid out like the board (values, visit shares);
* :mod:`~playout.render.board`: a position as text (players, board, outcome, moves);
* :mod:`~playout.render.text`: search results as text (titled grids, proofs, top moves);
* :mod:`~playout.render.json`: JSON-ready boards and searches for graphical front ends;
* :mod:`~playout.render.matches`: match, tournament and replay reports;
* :mod:`~playout.render.tree`: an exported search tree as JSON or Graphviz DOT.
"""

from playout.render.board import (
    SYMBOLS,
    board_legend,
    board_text,
    moves_text,
    outcome_text,
    player_label,
)
from playout.render.formatting import count_text, number_text
from playout.render.grids import (
    AnyResult,
    Grid,
    column_label,
    grid_shape,
    grid_text,
    grid_values,
    label_grid_text,
    probability_grid,
    value_grid,
)
from playout.render.json import (
    analysis_json,
    board_json,
    chess_target_shares,
    flat_json,
    snapshot_json,
    square_name,
)
from playout.render.matches import match_game_line, match_text, replay_text, tournament_text
from playout.render.text import (
    PROVEN_LETTERS,
    PROVEN_STATUS,
    grids_text,
    probability_grid_text,
    proven_grid_text,
    proven_moves,
    proven_plies,
    proven_text,
    result_text,
    root_simulations_text,
    simulations_text,
    top_moves_text,
    value_grid_text,
)
from playout.render.tree import tree_dot, tree_json

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
    "count_text",
    "flat_json",
    "grid_shape",
    "grid_text",
    "grid_values",
    "grids_text",
    "label_grid_text",
    "match_game_line",
    "match_text",
    "moves_text",
    "number_text",
    "outcome_text",
    "player_label",
    "probability_grid",
    "probability_grid_text",
    "proven_grid_text",
    "proven_moves",
    "proven_plies",
    "proven_text",
    "replay_text",
    "result_text",
    "root_simulations_text",
    "simulations_text",
    "snapshot_json",
    "square_name",
    "top_moves_text",
    "tournament_text",
    "tree_dot",
    "tree_json",
    "value_grid",
    "value_grid_text",
]
