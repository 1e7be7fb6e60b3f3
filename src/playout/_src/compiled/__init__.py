"""The compiled search: the whole MCTS loop in numba, on the same tree and phase functions.

* :mod:`.kernel`: the :class:`Kernel` bundle, a game as five numba functions on a compact
  ``uint64`` state, :func:`make_kernel` for writing your own, and what kernels share
  (:func:`empty_state`, :func:`alternating_player`, :func:`move_status`); the built-in
  kernels live with their games (``playout.games.connect4.kernel``,
  ``playout.games.mnk.kernel``, ``playout.games.go.kernel``), offered through their
  states' ``compiled_kernel()`` hook;
* :mod:`.driver`: :func:`kernel_driver`, the compiled simulation loop;
* :mod:`.memory`: the driver's tree arrays (32-bit ids, recycled between searches);
* :mod:`.engine`: :class:`CompiledDriver`, the engine's driver over that loop, and
  :func:`compiled_kernel_for`.
"""

from playout._src.compiled.driver import kernel_driver
from playout._src.compiled.engine import CompiledDriver, compiled_kernel_for, compiled_support
from playout._src.compiled.kernel import (
    DRAW,
    JIT_OPTIONS,
    MOVER_LOST,
    MOVER_WON,
    MOVES,
    ONGOING,
    SIGNATURES,
    Kernel,
    alternating_player,
    empty_state,
    make_kernel,
    move_status,
)

__all__ = [
    "DRAW",
    "JIT_OPTIONS",
    "MOVER_LOST",
    "MOVER_WON",
    "MOVES",
    "ONGOING",
    "SIGNATURES",
    "CompiledDriver",
    "Kernel",
    "alternating_player",
    "compiled_kernel_for",
    "compiled_support",
    "empty_state",
    "kernel_driver",
    "make_kernel",
    "move_status",
]
