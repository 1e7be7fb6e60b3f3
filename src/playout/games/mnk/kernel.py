"""The m,n,k-game (tic-tac-toe, gomoku, ...) as a compiled kernel.

Compact state (``uint64`` words), ``W = ceil(height * (width + 1) / 64)`` words per player::

    [0]              moves played so far (player 0 moves when it is even)
    [1 .. W]         player 0's stones, padded bitboard
    [1 + W .. 2W]    player 1's stones, padded bitboard

The bitboards use the layout of :mod:`playout.games.mnk.state`: square ``(x, y)`` is bit
``y * (width + 1) + x`` (the extra bit per row stays 0), split into 64-bit words; action ids
are ``y * width + x``. ``play`` checks for ``k`` in a row only through the square just played.

Rollouts copy the position into a byte-per-square board with a border of sentinel squares in
the scratch array (so walking along a line never needs a bounds check) and keep a list of the
empty squares; each random move is one draw, a swap-remove and a line check around the move.

Boards whose padded bitboard fits one word (``height * (width + 1) <= 64``: tic-tac-toe, up to
7x7) get their own ``play`` and ``rollout`` on that word: ``k`` in a row is found with shifts
along the four directions (1, ``width + 1``, ``width + 2``, ``width``), the padding bit of
each row keeping lines from wrapping, as in :mod:`playout.games.connect4.kernel`.

What is not the m,n,k-game's own (the empty start, alternating players, the status of a move,
the bitboard helpers) comes from :mod:`playout._src.compiled.kernel` and
:mod:`playout.games._bitboard`.
"""

from __future__ import annotations

import functools

import numpy as np

from playout._src.compiled.kernel import (
    MOVES,
    Kernel,
    alternating_player,
    make_kernel,
    move_status,
)
from playout._src.jit import int64, jit
from playout._src.tree.rng import random_below
from playout.games._bitboard import (
    EMPTY,
    STONE0,
    STONE1,
    STONE_JIT,
    encode_stones,
    has_line,
    line_on_board,
    line_through,
    write_border,
)
from playout.games.mnk.board import check_size

P_WIDTH, P_HEIGHT, P_K, P_STRIDE, P_WORDS = range(5)

_SCRATCH_HEADER = 2  # [0]: border written (see _bitboard.write_border); [1]: unused


def _board_cells(width: int, height: int) -> int:
    """Length of the rollout board: the padded squares plus a sentinel row above and below."""
    return (height + 2) * (width + 1) + 2


@jit(**STONE_JIT)
def mnk_legal_actions(params: np.ndarray, state: np.ndarray, out: np.ndarray) -> int:
    """Empty squares in increasing action id (the order of the Python game)."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    stride = params[P_STRIDE]
    num_words = params[P_WORDS]
    count = 0
    for y in range(height):
        for x in range(width):
            bit = y * stride + x
            word = bit >> 6
            shift = np.uint64(bit & 63)
            occupied = state[1 + word] | state[1 + num_words + word]
            if (occupied >> shift) & np.uint64(1) == 0:
                out[count] = y * width + x
                count += 1
    return count


@jit(**STONE_JIT)
def mnk_play(params: np.ndarray, state: np.ndarray, action: int) -> int:
    """Put the mover's stone on square ``action`` (must be empty); the status."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    k = params[P_K]
    stride = params[P_STRIDE]
    num_words = params[P_WORDS]
    moves = np.int64(state[MOVES])
    base = 1 + (moves & 1) * num_words
    y = action // width
    bit = y * stride + (action - y * width)
    state[base + (bit >> 6)] |= np.uint64(1) << np.uint64(bit & 63)
    moves += 1
    state[MOVES] = np.uint64(moves)
    won = moves >= 2 * k - 1 and line_through(state, base, bit, stride, height * stride, k)
    return move_status(won, moves, width * height)


@jit(**STONE_JIT)
def mnk_rollout(
    params: np.ndarray, state: np.ndarray, scratch: np.ndarray, rng: np.ndarray
) -> float:
    """Uniformly random moves to the end; +1 if player 0 wins, -1 if player 1 does, else 0."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    k = params[P_K]
    stride = params[P_STRIDE]
    num_words = params[P_WORDS]
    board_start = _SCRATCH_HEADER
    num_cells = (height + 2) * stride + 2
    origin = board_start + stride + 1  # board index of bit 0
    empties = board_start + num_cells
    write_border(scratch, board_start, num_cells)
    num_empty = int64(0)  # not a literal (see jit.int64)
    for y in range(height):
        for x in range(width):
            bit = y * stride + x
            word = bit >> 6
            shift = np.uint64(bit & 63)
            cell = origin + bit
            if (state[1 + word] >> shift) & np.uint64(1):
                scratch[cell] = STONE0
            elif (state[1 + num_words + word] >> shift) & np.uint64(1):
                scratch[cell] = STONE1
            else:
                scratch[cell] = EMPTY
                scratch[empties + num_empty] = cell
                num_empty += 1
    moves = np.int64(state[MOVES])
    player = moves & 1
    threshold = 2 * k - 1
    while num_empty > 0:
        i = random_below(rng, num_empty)
        num_empty -= 1
        cell = scratch[empties + i]
        scratch[empties + i] = scratch[empties + num_empty]
        stone = STONE0 + player
        scratch[cell] = stone
        moves += 1
        if moves >= threshold and line_on_board(scratch, cell, stone, stride, k):
            return 1.0 if player == 0 else -1.0
        player ^= 1
    return 0.0


@jit(**STONE_JIT)
def word_play(params: np.ndarray, state: np.ndarray, action: int) -> int:
    """:func:`mnk_play` for boards of one word per player."""
    width = params[P_WIDTH]
    k = params[P_K]
    stride = params[P_STRIDE]
    moves = np.int64(state[MOVES])
    player = moves & 1
    y = action // width
    stones = state[1 + player] | (np.uint64(1) << np.uint64(y * stride + action - y * width))
    state[1 + player] = stones
    moves += 1
    state[MOVES] = np.uint64(moves)
    won = moves >= 2 * k - 1 and has_line(stones, stride, k)
    return move_status(won, moves, width * params[P_HEIGHT])


@jit(**STONE_JIT)
def word_rollout(
    params: np.ndarray, state: np.ndarray, scratch: np.ndarray, rng: np.ndarray
) -> float:
    """:func:`mnk_rollout` for boards of one word per player: ``scratch`` lists the empty
    squares' bits (swap-removed as they fill); +1 if player 0 wins, -1 if player 1 does."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    k = params[P_K]
    stride = params[P_STRIDE]
    stones0 = state[1]
    stones1 = state[2]
    occupied = stones0 | stones1
    num_empty = int64(0)  # not a literal (see jit.int64)
    for y in range(height):
        for x in range(width):
            bit = y * stride + x
            if (occupied >> np.uint64(bit)) & np.uint64(1) == 0:
                scratch[num_empty] = bit
                num_empty += 1
    moves = np.int64(state[MOVES])
    player = moves & 1
    threshold = 2 * k - 1
    while num_empty > 0:
        i = random_below(rng, num_empty)
        num_empty -= 1
        stone = np.uint64(1) << np.uint64(scratch[i])
        scratch[i] = scratch[num_empty]
        moves += 1
        if player == 0:
            stones0 |= stone
            if moves >= threshold and has_line(stones0, stride, k):
                return 1.0
        else:
            stones1 |= stone
            if moves >= threshold and has_line(stones1, stride, k):
                return -1.0
        player ^= 1
    return 0.0


@jit(inline="always", **STONE_JIT)
def _shifted_pair(low: np.uint64, high: np.uint64, shift: int) -> tuple[np.uint64, np.uint64]:
    """The 128-bit value ``high:low`` shifted right by ``shift`` >= 1 bits."""
    if shift < 64:
        return (low >> np.uint64(shift)) | (high << np.uint64(64 - shift)), high >> np.uint64(shift)
    if shift < 128:
        return high >> np.uint64(shift - 64), np.uint64(0)
    return np.uint64(0), np.uint64(0)


@jit(inline="always", **STONE_JIT)
def _pair_has_run(low: np.uint64, high: np.uint64, d: int, k: int) -> bool:
    """:func:`~playout.games._bitboard.has_run` on the 128-bit bitboard ``high:low``
    (a run of ``k`` needs its bits below 128: shifts past that leave nothing)."""
    run_low = low
    run_high = high
    length = 1
    while (run_low | run_high) and length * 2 <= k:
        shifted_low, shifted_high = _shifted_pair(run_low, run_high, d * length)
        run_low &= shifted_low
        run_high &= shifted_high
        length *= 2
    if (run_low | run_high) and length < k:
        shifted_low, shifted_high = _shifted_pair(run_low, run_high, d * (k - length))
        run_low &= shifted_low
        run_high &= shifted_high
    return (run_low | run_high) != np.uint64(0)


@jit(inline="always", **STONE_JIT)
def _pair_has_line(low: np.uint64, high: np.uint64, stride: int, k: int) -> bool:
    """Whether the two-word bitboard ``high:low`` holds ``k`` in a row in any direction."""
    return (
        _pair_has_run(low, high, 1, k)
        or _pair_has_run(low, high, stride, k)
        or _pair_has_run(low, high, stride + 1, k)
        or _pair_has_run(low, high, stride - 1, k)
    )


@jit(**STONE_JIT)
def pair_rollout(
    params: np.ndarray, state: np.ndarray, scratch: np.ndarray, rng: np.ndarray
) -> float:
    """:func:`mnk_rollout` for boards of two words per player (up to 128 padded bits: 9x9,
    10x10, ...): the stones stay in registers as two 64-bit words, ``scratch`` lists the
    empty squares' bits (swap-removed as they fill, in the order of :func:`mnk_rollout`,
    so a seed plays the same games) and ``k`` in a row is found with shifts over the whole
    board, as in :func:`word_rollout`; +1 if player 0 wins, -1 if player 1 does."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    k = params[P_K]
    stride = params[P_STRIDE]
    low0 = state[1]
    high0 = state[2]
    low1 = state[3]
    high1 = state[4]
    num_empty = int64(0)  # not a literal (see jit.int64)
    for y in range(height):
        for x in range(width):
            bit = y * stride + x
            word = (low0 | low1) if bit < 64 else (high0 | high1)
            if (word >> np.uint64(bit & 63)) & np.uint64(1) == 0:
                scratch[num_empty] = bit
                num_empty += 1
    moves = np.int64(state[MOVES])
    player = moves & 1
    threshold = 2 * k - 1
    one = np.uint64(1)
    while num_empty > 0:
        i = random_below(rng, num_empty)
        num_empty -= 1
        bit = scratch[i]
        scratch[i] = scratch[num_empty]
        low = one << np.uint64(bit) if bit < 64 else np.uint64(0)
        high = one << np.uint64(bit - 64) if bit >= 64 else np.uint64(0)
        moves += 1
        if player == 0:
            low0 |= low
            high0 |= high
            if moves >= threshold and _pair_has_line(low0, high0, stride, k):
                return 1.0
        else:
            low1 |= low
            high1 |= high
            if moves >= threshold and _pair_has_line(low1, high1, stride, k):
                return -1.0
        player ^= 1
    return 0.0


@functools.lru_cache(maxsize=64)
def mnk_kernel(width: int, height: int, k: int, name: str = "mnk") -> Kernel:
    """The kernel of the ``width`` x ``height`` board with ``k`` in a row, built once per
    board.

    Raises:
        InvalidParameterError: a size the game refuses (see
            :func:`~playout.games.mnk.board.check_size`).
    """
    width, height, k = check_size(width, height, k)
    stride = width + 1
    num_words = (height * stride + 63) // 64
    num_squares = width * height
    one_word = num_words == 1
    return make_kernel(
        name=name,
        params=np.array([width, height, k, stride, num_words], dtype=np.int64),
        state_size=1 + 2 * num_words,
        num_actions=num_squares,
        max_length=num_squares,
        scratch_size=_SCRATCH_HEADER + _board_cells(width, height) + num_squares,
        legal_actions=mnk_legal_actions,
        play=word_play if one_word else mnk_play,
        current_player=alternating_player,
        rollout=word_rollout if one_word else pair_rollout if num_words == 2 else mnk_rollout,
        encode=functools.partial(encode_stones, num_words=num_words),
    )


__all__ = ["mnk_kernel"]
