"""Connect four as one package: the game, its board, its compiled kernel and an exact solver.

* :mod:`.state`: :class:`Connect4Game` and :class:`Connect4State`, the rules in Python, with
  notation, rendering and symmetries;
* :mod:`.board`: the sizes a board may have and the bit layout shared by the modules below;
* :mod:`.kernel`: the game as a compiled kernel (:mod:`playout.kernels`), offered by
  ``Connect4State.compiled_kernel()``;
* :mod:`.solver`: an exact solver (bitboard alpha-beta in numba) for labelled positions.
"""

from playout.games.connect4.board import MAX_BITS
from playout.games.connect4.state import PLAYER_NAMES, Connect4Game, Connect4State, play_moves

__all__ = ["MAX_BITS", "PLAYER_NAMES", "Connect4Game", "Connect4State", "play_moves"]
