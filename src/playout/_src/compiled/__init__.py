"""The compiled search: the whole MCTS loop in numba, on the same tree and phase functions.

* :mod:`.kernel`: the :class:`Kernel` bundle, a game as five numba functions on a compact
  ``uint64`` state, and :func:`make_kernel` for writing your own;
* :mod:`.mnk_kernel`, :mod:`.connect4_kernel`: the built-in kernels (the games offer them
  through their states' ``compiled_kernel()`` hook);
* :mod:`.driver`: :func:`kernel_driver`, the compiled simulation loop;
* :mod:`.memory`: the driver's tree arrays (32-bit ids, recycled between searches);
* :mod:`.engine`: :class:`CompiledDriver`, the engine's driver over that loop, and
  :func:`compiled_kernel_for`.
"""

from playout._src.compiled.connect4_kernel import connect4_kernel, wide_connect4_kernel
from playout._src.compiled.driver import kernel_driver
from playout._src.compiled.engine import CompiledDriver, compiled_kernel_for, compiled_support
from playout._src.compiled.kernel import (
    DRAW,
    JIT_OPTIONS,
    MOVER_LOST,
    MOVER_WON,
    ONGOING,
    SIGNATURES,
    Kernel,
    make_kernel,
)
from playout._src.compiled.mnk_kernel import mnk_kernel

__all__ = [
    "DRAW",
    "JIT_OPTIONS",
    "MOVER_LOST",
    "MOVER_WON",
    "ONGOING",
    "SIGNATURES",
    "CompiledDriver",
    "Kernel",
    "compiled_kernel_for",
    "compiled_support",
    "connect4_kernel",
    "kernel_driver",
    "make_kernel",
    "mnk_kernel",
    "wide_connect4_kernel",
]
