"""Go as one package: the game, its board, its compiled kernel and playout statistics.

* :mod:`.state`: :class:`GoGame` and :class:`GoState`, the rules in Python (area scoring after
  Tromp and Taylor, komi, positional superko, suicide forbidden, a cap on the length), with
  GTP notation (``D4``, ``pass``) and rendering;
* :mod:`.board`: the sizes, komi and lengths allowed, the points' neighbours, the Zobrist
  keys and the coordinates, shared by the modules below;
* :mod:`.kernel`: the game as a compiled kernel (:mod:`playout.kernels`) whose rollouts are
  the light playouts of Don Dailey's reference bot, offered by ``GoState.compiled_kernel()``;
* :mod:`.playouts`: statistics of many light playouts (moves per playout, Black's wins at any
  komi), the figures Dailey published for his bot.
"""

from playout.games.go.board import DEFAULT_KOMI, MAX_SIZE, MIN_SIZE
from playout.games.go.state import PLAYER_NAMES, GoGame, GoState, play_moves

__all__ = [
    "DEFAULT_KOMI",
    "MAX_SIZE",
    "MIN_SIZE",
    "PLAYER_NAMES",
    "GoGame",
    "GoState",
    "play_moves",
]
