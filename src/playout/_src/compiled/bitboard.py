"""Bitboard helpers shared by the compiled kernels.

Boards are padded bitboards: lines of ``stride`` bits of which the last is always empty (the
m,n,k kernels store rows, connect four stores columns), split into 64-bit words when they do
not fit one. Directions are bit distances: 1 along a line, ``stride`` across, ``stride + 1``
and ``stride - 1`` the diagonals; the empty padding bit keeps lines from wrapping.
"""

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


@numba.njit(**JIT_OPTIONS)
def has_stone(state: np.ndarray, base: int, bit: int) -> bool:
    """Whether bit ``bit`` of the multi-word bitboard at ``state[base:]`` is set."""
    return (state[base + (bit >> 6)] >> np.uint64(bit & 63)) & np.uint64(1) != 0


@numba.njit(**JIT_OPTIONS)
def line_through(state: np.ndarray, base: int, bit: int, stride: int, limit: int, k: int) -> bool:
    """Whether the stones of the bitboard at ``state[base:]`` hold ``k`` in a row through
    ``bit``; padding bits are 0, so only the ends of the board need a bounds check."""
    for d in (1, stride, stride + 1, stride - 1):
        count = 1
        i = bit + d
        while i < limit and has_stone(state, base, i):
            count += 1
            i += d
        i = bit - d
        while i >= 0 and has_stone(state, base, i):
            count += 1
            i -= d
        if count >= k:
            return True
    return False


@numba.njit(**JIT_OPTIONS)
def line_on_board(board: np.ndarray, cell: int, stone: int, stride: int, k: int) -> bool:
    """Whether ``stone`` has ``k`` in a row through ``cell`` of the rollout board."""
    for d in (1, stride, stride + 1, stride - 1):
        count = 1
        i = cell + d
        while board[i] == stone:
            count += 1
            i += d
        i = cell - d
        while board[i] == stone:
            count += 1
            i -= d
        if count >= k:
            return True
    return False


__all__ = ["has_run", "has_stone", "line_on_board", "line_through"]
