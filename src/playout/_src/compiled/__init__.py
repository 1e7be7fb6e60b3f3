"""The compiled search: the whole MCTS loop in numba, on the same tree and phase functions.

* :mod:`.kernel`: the :class:`Kernel` bundle, a game as five numba functions on a compact
  ``uint64`` state, and :func:`make_kernel` for writing your own;
* :mod:`.mnk_kernel`, :mod:`.connect4_kernel`: the built-in kernels;
* :mod:`.driver`: :func:`compiled_driver`, the compiled simulation loop;
* :mod:`.memory`: the engine's tree arrays (32-bit ids, recycled between searches);
* :mod:`.engine`: :class:`CompiledMCTS` (the :class:`~playout.MCTS` interface),
  :func:`compiled_kernel_for` and :func:`make_engine` (backend choice);
* :mod:`.parallel`: :func:`parallel_search`, root-parallel search over processes.
"""

from playout._src.compiled.connect4_kernel import connect4_kernel, wide_connect4_kernel
from playout._src.compiled.driver import compiled_driver
from playout._src.compiled.engine import (
    Backend,
    CompiledMCTS,
    compiled_kernel_for,
    make_engine,
)
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
from playout._src.compiled.parallel import merge_results, parallel_search

__all__ = [
    "DRAW",
    "JIT_OPTIONS",
    "MOVER_LOST",
    "MOVER_WON",
    "ONGOING",
    "SIGNATURES",
    "Backend",
    "CompiledMCTS",
    "Kernel",
    "compiled_driver",
    "compiled_kernel_for",
    "connect4_kernel",
    "make_engine",
    "make_kernel",
    "merge_results",
    "mnk_kernel",
    "parallel_search",
    "wide_connect4_kernel",
]
