"""The compiled-kernel API: write a game in numba so that the compiled search can run it.

A :class:`Kernel` bundles a game's five numba functions on a compact ``uint64`` state (see
:func:`make_kernel` for their signatures, :data:`SIGNATURES`); a Python game state offers it
through a ``compiled_kernel()`` method, and :class:`playout.MCTS` then runs the whole search
compiled. ``examples/numba_nim.py`` is a complete example.

Status codes a kernel's ``play`` returns: :data:`ONGOING`, :data:`MOVER_WON`,
:data:`MOVER_LOST`, :data:`DRAW`. :func:`random_below` draws from the driver's generator
inside a rollout. Compile kernel functions with ``numba.njit(**JIT_OPTIONS)``.

What kernels share rather than copy: :func:`empty_state` (the default ``initial_state``: all
zeros), :func:`alternating_player` (``current_player`` when players alternate and word
:data:`MOVES` counts the moves played) and :func:`move_status` (``play``'s status: won, a
draw on the last possible move, or going on).
"""

from playout._src.compiled.engine import compiled_kernel_for
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
from playout._src.tree.rng import random_below

__all__ = [
    "DRAW",
    "JIT_OPTIONS",
    "MOVER_LOST",
    "MOVER_WON",
    "MOVES",
    "ONGOING",
    "SIGNATURES",
    "Kernel",
    "alternating_player",
    "compiled_kernel_for",
    "empty_state",
    "make_kernel",
    "move_status",
    "random_below",
]
