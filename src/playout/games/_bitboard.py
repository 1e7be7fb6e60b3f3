"""What the compiled kernels of the stone-placing games share: padded bitboards in numba.

The compiled counterpart of :mod:`playout.games._stones` (connect four and the m,n,k-games).
Boards are padded bitboards: lines of ``stride`` bits of which the last is always empty (the
m,n,k kernels store rows, connect four stores columns), split into 64-bit words when they do
not fit one. Directions are bit distances: 1 along a line, ``stride`` across, ``stride + 1``
and ``stride - 1`` the diagonals; the empty padding bit keeps lines from wrapping.
"""

from __future__ import annotations

import numpy as np

from playout._src.compiled import kernel
from playout._src.jit import JitOptions, files_digest, jit
from playout._src.tree import rng
from playout.games._stones import StoneState

STONE_JIT: JitOptions = {
    **kernel.JIT_OPTIONS,
    "sources_digest": files_digest(kernel.__file__, rng.__file__, __file__),
}
"""The kernel options (:data:`playout.kernels.JIT_OPTIONS`) with the cache keyed on this file
too: the stone games' kernels compile its functions in."""

EMPTY, STONE0, STONE1, BORDER = 0, 1, 2, 3
"""Squares of a rollout board: a byte-per-square copy of the position in the kernel's scratch,
bordered so that walking along a line (:func:`line_on_board`) needs no bounds checks."""


def encode_words(stones0: int, stones1: int, num_words: int) -> np.ndarray:
    """A compact state ``[moves played, player 0's words, player 1's words]`` from two
    bitboards held in Python ints, ``num_words`` 64-bit words each."""
    out = np.zeros(1 + 2 * num_words, dtype=np.uint64)
    out[0] = (stones0 | stones1).bit_count()
    mask = (1 << 64) - 1
    for word in range(num_words):
        out[1 + word] = (stones0 >> (64 * word)) & mask
        out[1 + num_words + word] = (stones1 >> (64 * word)) & mask
    return out


def encode_stones(state: StoneState, num_words: int) -> np.ndarray:
    """The compact state of a stone game's position (its two bitboards in the same padded
    layout as the kernel's): :func:`encode_words` of ``state.stones0`` and ``state.stones1``."""
    return encode_words(int(state.stones0), int(state.stones1), num_words)


@jit(inline="always", **STONE_JIT)
def write_border(scratch: np.ndarray, start: int, num_cells: int) -> None:
    """Fill ``scratch[start : start + num_cells]`` with :data:`BORDER` the first time a
    rollout uses this scratch (``scratch[0]`` records that it was done); rollouts then only
    write the board's own squares, so the border and the padding stay :data:`BORDER`."""
    if scratch[0] == 0:
        for i in range(start, start + num_cells):
            scratch[i] = BORDER
        scratch[0] = 1


@jit(inline="always", **STONE_JIT)
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


@jit(inline="always", **STONE_JIT)
def has_line(stones: np.uint64, stride: int, k: int) -> bool:
    """Whether the one-word bitboard ``stones`` holds ``k`` in a row along any of the four
    directions (1, ``stride``, ``stride + 1``, ``stride - 1``).

    ``k = 4`` has a straight-line path (two shifts per direction) where the longest shift,
    ``2 * (stride + 1)``, stays inside the word; the rest doubles the run length per shift
    (:func:`has_run`).
    """
    if k == 4 and stride <= 30:
        for d in (np.uint64(1), np.uint64(stride), np.uint64(stride + 1), np.uint64(stride - 1)):
            run = stones & (stones >> d)
            if run & (run >> (d + d)):
                return True
        return False
    return (
        has_run(stones, 1, k)
        or has_run(stones, stride, k)
        or has_run(stones, stride + 1, k)
        or has_run(stones, stride - 1, k)
    )


@jit(**STONE_JIT)
def has_stone(state: np.ndarray, base: int, bit: int) -> bool:
    """Whether bit ``bit`` of the multi-word bitboard at ``state[base:]`` is set."""
    return (state[base + (bit >> 6)] >> np.uint64(bit & 63)) & np.uint64(1) != 0


@jit(**STONE_JIT)
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


@jit(**STONE_JIT)
def line_on_board(
    board: np.ndarray,
    cell: int | np.integer,
    stone: int | np.integer,
    stride: int | np.integer,
    k: int | np.integer,
) -> bool:
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


__all__ = [
    "BORDER",
    "EMPTY",
    "STONE0",
    "STONE1",
    "encode_stones",
    "encode_words",
    "has_line",
    "has_run",
    "has_stone",
    "line_on_board",
    "line_through",
    "write_border",
]
