"""Bitboard helpers shared by the compiled kernels."""

from __future__ import annotations

import numba
import numpy as np

from playout._src.compiled.kernel import JIT_OPTIONS


@numba.njit(inline="always", **JIT_OPTIONS)
def has_run(discs: np.uint64, d: int, k: int) -> bool:
    """Whether bitboard ``discs`` holds ``k`` set bits in a row along direction ``d`` (a bit
    distance), found with shifts: each shift doubles the run length checked so far.

    The caller's layout must keep lines from wrapping (an always-empty guard bit per row or
    column) and ``d * (k - 1)`` below 64 for a run to be found.
    """
    run = discs
    length = 1
    while run and length * 2 <= k:
        shift = d * length
        run = run & (run >> np.uint64(shift)) if shift < 64 else np.uint64(0)
        length *= 2
    if run and length < k:
        shift = d * (k - length)
        run = run & (run >> np.uint64(shift)) if shift < 64 else np.uint64(0)
    return run != 0


__all__ = ["has_run"]
