"""Connect four as a compiled kernel: the classic one-word bitboard per player.

Column ``c`` occupies bits ``c * (height + 1) .. c * (height + 1) + height - 1`` (bottom
first) plus one always-empty guard bit above, so boards with ``(height + 1) * width <= 64``
fit one ``uint64`` per player (7x6 uses 49 bits). Compact state::

    [0] moves played so far   [1] player 0's discs   [2] player 1's discs

Boards with more bits (up to :data:`~playout.games.connect4.board.MAX_BITS`) run on the wide
kernel (:func:`wide_connect4_kernel`): the same column-major layout split into 64-bit words,
the compact state ``[moves, player 0's words, player 1's words]``, lines checked through the
disc just played, and rollouts on a byte-per-square board as in
:mod:`playout.games.mnk.kernel`.

Dropping a disc in column ``c`` is one addition: ``(mask + bottom(c)) & column(c)`` is the
lowest empty square of the column (the carry runs through the filled ones). ``k`` in a row is
found with shifts along the four directions (1 = vertical, height + 1 = horizontal, height and
height + 2 = the diagonals); the guard bits stop lines wrapping between columns. Action ids
are 0-based columns, as in :mod:`playout.games.connect4`. What is not connect four's own (the
empty start, alternating players, the status of a move, the bitboard helpers) comes from
:mod:`playout._src.compiled.kernel` and :mod:`playout.games._bitboard`.
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
from playout._src.errors import InvalidParameterError
from playout._src.jit import int64, jit
from playout._src.tree.rng import random_below
from playout.games._bitboard import (
    EMPTY,
    STONE0,
    STONE1,
    STONE_JIT,
    encode_stones,
    has_line,
    has_stone,
    line_on_board,
    line_through,
    write_border,
)
from playout.games.connect4.board import check_size

P_WIDTH, P_HEIGHT, P_K = range(3)
S_DISCS0, S_DISCS1 = 1, 2

_ONE = np.uint64(1)


@jit(**STONE_JIT)
def c4_legal_actions(params: np.ndarray, state: np.ndarray, out: np.ndarray) -> int:
    """Columns that are not full, in increasing order."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    mask = state[S_DISCS0] | state[S_DISCS1]
    count = 0
    for c in range(width):
        if (mask >> np.uint64(c * (height + 1) + height - 1)) & _ONE == 0:
            out[count] = c
            count += 1
    return count


@jit(**STONE_JIT)
def c4_play(params: np.ndarray, state: np.ndarray, column: int) -> int:
    """Drop the mover's disc in ``column`` (must not be full); the status."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    k = params[P_K]
    moves = np.int64(state[MOVES])
    player = moves & 1
    shift = np.uint64(column * (height + 1))
    mask = state[S_DISCS0] | state[S_DISCS1]
    column_bits = ((_ONE << np.uint64(height)) - _ONE) << shift
    disc = (mask + (_ONE << shift)) & column_bits
    discs = state[S_DISCS0 + player] | disc
    state[S_DISCS0 + player] = discs
    moves += 1
    state[MOVES] = np.uint64(moves)
    won = moves >= 2 * k - 1 and has_line(discs, height + 1, k)
    return move_status(won, moves, width * height)


@jit(inline="always", **STONE_JIT)
def _c4_playout(
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    rng: np.ndarray,
    record: bool,
    out_actions: np.ndarray,
    out_players: np.ndarray,
) -> tuple[float, int]:
    """Uniformly random moves to the end; +1 if player 0 wins, -1 if player 1 does, else 0,
    and with ``record`` (a constant at each call site, so the other call compiles without the
    recording) each move's column and player written to ``out_actions`` / ``out_players``.

    ``scratch[0:width]`` holds the columns that are not full (swap-removed as they fill).
    """
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    k = params[P_K]
    stride = height + 1
    discs0 = state[S_DISCS0]
    discs1 = state[S_DISCS1]
    mask = discs0 | discs1
    moves = np.int64(state[MOVES])
    player = moves & 1
    num_open = int64(0)  # not a literal (see jit.int64)
    for c in range(width):
        if (mask >> np.uint64(c * stride + height - 1)) & _ONE == 0:
            scratch[num_open] = c
            num_open += 1
    column_bits = (_ONE << np.uint64(height)) - _ONE
    top = _ONE << np.uint64(height - 1)
    threshold = 2 * k - 1
    num_squares = width * height
    count = int64(0)
    while True:
        i = random_below(rng, num_open)
        if record:
            out_actions[count] = scratch[i]
            out_players[count] = player
            count += 1
        shift = np.uint64(scratch[i] * stride)
        disc = (mask + (_ONE << shift)) & (column_bits << shift)
        mask |= disc
        if disc == top << shift:
            num_open -= 1
            scratch[i] = scratch[num_open]
        moves += 1
        if player == 0:
            discs0 |= disc
            if moves >= threshold and has_line(discs0, stride, k):
                return 1.0, count
        else:
            discs1 |= disc
            if moves >= threshold and has_line(discs1, stride, k):
                return -1.0, count
        if moves == num_squares:
            return 0.0, count
        player ^= 1


@jit(**STONE_JIT)
def c4_rollout(
    params: np.ndarray, state: np.ndarray, scratch: np.ndarray, rng: np.ndarray
) -> float:
    """Uniformly random moves to the end; +1 if player 0 wins, -1 if player 1 does, else 0."""
    nothing = scratch[:0]
    return _c4_playout(params, state, scratch, rng, False, nothing, nothing)[0]


@jit(**STONE_JIT)
def c4_recorded_rollout(
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    rng: np.ndarray,
    out_actions: np.ndarray,
    out_players: np.ndarray,
) -> tuple[float, int]:
    """:func:`c4_rollout` with its moves reported (for RAVE): ``(value for player 0, moves
    written)``."""
    return _c4_playout(params, state, scratch, rng, True, out_actions, out_players)


# ------------------------------------------------------------------------------ wide boards

W_WIDTH, W_HEIGHT, W_K, W_STRIDE, W_WORDS = range(5)
_WIDE_HEADER = 1  # scratch[0]: border written (see _bitboard.write_border)


def _wide_board_cells(width: int, height: int) -> int:
    """Length of the wide rollout board: the padded columns plus a border column each side."""
    return (width + 2) * (height + 1) + 2


@jit(**STONE_JIT)
def wide_legal_actions(params: np.ndarray, state: np.ndarray, out: np.ndarray) -> int:
    """Columns that are not full, in increasing order."""
    height = params[W_HEIGHT]
    stride = params[W_STRIDE]
    words = params[W_WORDS]
    count = 0
    for c in range(params[W_WIDTH]):
        top = c * stride + height - 1
        if not (has_stone(state, 1, top) or has_stone(state, 1 + words, top)):
            out[count] = c
            count += 1
    return count


@jit(**STONE_JIT)
def wide_play(params: np.ndarray, state: np.ndarray, column: int) -> int:
    """Drop the mover's disc in ``column`` (must not be full); the status."""
    width = params[W_WIDTH]
    height = params[W_HEIGHT]
    k = params[W_K]
    stride = params[W_STRIDE]
    words = params[W_WORDS]
    moves = np.int64(state[MOVES])
    base = 1 + (moves & 1) * words
    bit = column * stride
    while has_stone(state, 1, bit) or has_stone(state, 1 + words, bit):
        bit += 1
    state[base + (bit >> 6)] |= _ONE << np.uint64(bit & 63)
    moves += 1
    state[MOVES] = np.uint64(moves)
    won = moves >= 2 * k - 1 and line_through(state, base, bit, stride, width * stride, k)
    return move_status(won, moves, width * height)


@jit(**STONE_JIT)
def wide_rollout(
    params: np.ndarray, state: np.ndarray, scratch: np.ndarray, rng: np.ndarray
) -> float:
    """Uniformly random moves to the end; +1 if player 0 wins, -1 if player 1 does, else 0.

    ``scratch`` holds the byte-per-square board (bordered, so line walks need no bounds
    checks), then each column's height, then the columns that are not full.
    """
    width = params[W_WIDTH]
    height = params[W_HEIGHT]
    k = params[W_K]
    stride = params[W_STRIDE]
    words = params[W_WORDS]
    board_start = _WIDE_HEADER
    num_cells = (width + 2) * stride + 2
    origin = board_start + stride + 1  # board index of bit 0
    heights = board_start + num_cells
    open_columns = heights + width
    write_border(scratch, board_start, num_cells)
    num_open = int64(0)  # not a literal (see jit.int64)
    for c in range(width):
        filled = 0
        for r in range(height):
            bit = c * stride + r
            if has_stone(state, 1, bit):
                scratch[origin + bit] = STONE0
                filled += 1
            elif has_stone(state, 1 + words, bit):
                scratch[origin + bit] = STONE1
                filled += 1
            else:
                scratch[origin + bit] = EMPTY
        scratch[heights + c] = filled
        if filled < height:
            scratch[open_columns + num_open] = c
            num_open += 1
    moves = np.int64(state[MOVES])
    player = moves & 1
    threshold = 2 * k - 1
    num_squares = width * height
    while num_open > 0:
        i = random_below(rng, num_open)
        c = scratch[open_columns + i]
        cell = origin + c * stride + scratch[heights + c]
        scratch[heights + c] += 1
        if scratch[heights + c] == height:
            num_open -= 1
            scratch[open_columns + i] = scratch[open_columns + num_open]
        stone = STONE0 + player
        scratch[cell] = stone
        moves += 1
        if moves >= threshold and line_on_board(scratch, cell, stone, stride, k):
            return 1.0 if player == 0 else -1.0
        if moves == num_squares:
            return 0.0
        player ^= 1
    return 0.0


@functools.lru_cache(maxsize=64)
def wide_connect4_kernel(width: int, height: int, k: int = 4, name: str = "connect4") -> Kernel:
    """The kernel of connect four on boards of any size the Python game accepts, several
    64-bit words per player (:func:`connect4_kernel` is faster where one word suffices);
    built once per board.

    Raises:
        InvalidParameterError: a size the game refuses (see
            :func:`~playout.games.connect4.board.check_size`).
    """
    width, height, k = check_size(width, height, k)
    stride = height + 1
    words = (width * stride + 63) // 64
    return make_kernel(
        name=name,
        params=np.array([width, height, k, stride, words], dtype=np.int64),
        state_size=1 + 2 * words,
        num_actions=width,
        max_length=width * height,
        scratch_size=_WIDE_HEADER + _wide_board_cells(width, height) + 2 * width,
        legal_actions=wide_legal_actions,
        play=wide_play,
        current_player=alternating_player,
        rollout=wide_rollout,
        encode=functools.partial(encode_stones, num_words=words),
    )


@functools.lru_cache(maxsize=64)
def connect4_kernel(width: int = 7, height: int = 6, k: int = 4, name: str = "connect4") -> Kernel:
    """The kernel of connect four on ``width`` x ``height`` with ``k`` in a row, one 64-bit
    word per player; built once per board.

    Raises:
        InvalidParameterError: ``(height + 1) * width > 64`` (:func:`wide_connect4_kernel` takes
            that size), or a size the game refuses.
    """
    width, height, k = check_size(width, height, k)
    if (height + 1) * width > 64:
        raise InvalidParameterError(
            f"connect four {width}x{height} does not fit the compiled kernel's 64-bit "
            f"bitboard ((height + 1) * width = {(height + 1) * width} > 64); "
            "wide_connect4_kernel() takes that size"
        )
    return make_kernel(
        name=name,
        params=np.array([width, height, k], dtype=np.int64),
        state_size=3,
        num_actions=width,
        max_length=width * height,
        scratch_size=width,
        legal_actions=c4_legal_actions,
        play=c4_play,
        current_player=alternating_player,
        rollout=c4_rollout,
        recorded_rollout=c4_recorded_rollout,
        encode=functools.partial(encode_stones, num_words=1),
    )


def cached_connect4_kernel(width: int, height: int, k: int, name: str) -> Kernel:
    """The connect-four kernel for a board, built once: one 64-bit word when the board fits
    (:func:`connect4_kernel`), several otherwise (:func:`wide_connect4_kernel`)."""
    if (height + 1) * width > 64:
        return wide_connect4_kernel(width, height, k, name=name)
    return connect4_kernel(width, height, k, name=name)


__all__ = [
    "cached_connect4_kernel",
    "connect4_kernel",
    "wide_connect4_kernel",
]
