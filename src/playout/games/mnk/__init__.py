"""The m,n,k-game as one package: the game, its board, its compiled kernel, its heuristic.

Tic-tac-toe, gomoku and every board size in between.

* :mod:`.state`: :class:`MnkGame` and :class:`MnkState`, the rules in Python, with notation,
  rendering, symmetries, seed 004's neighbour rollout policy and the factories
  :func:`tictactoe` and :func:`gomoku`;
* :mod:`.board`: the sizes a board may have and the lines of ``k`` squares through each;
* :mod:`.kernel`: the game as a compiled kernel (:mod:`playout.kernels`), offered by
  ``MnkState.compiled_kernel()``;
* :mod:`.threats`: the compiled part of :func:`threat_scores`, a move heuristic for
  progressive bias.
"""

from playout.games.mnk.board import MAX_SIDE
from playout.games.mnk.state import (
    MnkGame,
    MnkState,
    NeighborRollout,
    column_label,
    gomoku,
    neighbor_actions,
    neighbor_mask,
    neighbor_policy,
    render_grid,
    threat_scores,
    tictactoe,
)

__all__ = [
    "MAX_SIDE",
    "MnkGame",
    "MnkState",
    "NeighborRollout",
    "column_label",
    "gomoku",
    "neighbor_actions",
    "neighbor_mask",
    "neighbor_policy",
    "render_grid",
    "threat_scores",
    "tictactoe",
]
