"""An exact connect-four solver: bitboard negamax with alpha-beta, compiled with numba.

:func:`solve` gives the game-theoretic score of a :class:`~playout.games.Connect4Game`
position for the player to move, in Pascal Pons's convention: a win scores the number of the
winner's stones left unplayed when the game ends, plus one (larger = sooner), a loss the
opposite of the opponent's win, a draw 0. With ``n`` stones on the board before the winning
stone, that is ``(width * height + 1 - n) // 2`` (for 7x6: 21 for a win with the fourth stone,
1 for a win with the last stone of the board). :func:`outcome` is its sign, :func:`move_scores`
the score of every legal move for the player who makes it, :func:`plies_to_end` the length of
the rest of the game under perfect play (the winner winning as soon as it can, the loser
lasting as long as it can).

Any board whose bitboard fits one 64-bit word (``width * (height + 1) <= 64``; 7x6 uses 49
bits) and any ``k`` are accepted; the line tests are written for general ``k`` with a
straight-line path for ``k = 4``.

The method is the classic one, written here from the published descriptions: John Tromp's
bitboard layout and solver notes (https://tromp.github.io/c4/c4.html, "Fhourstones") and
Pascal Pons's tutorial "Solving Connect 4: how to build a perfect AI"
(http://blog.gamesolver.org/):

* the position is two 64-bit words, the mover's stones and all stones, laid out column by
  column with one always-empty guard bit above each column (as in
  :mod:`playout.games.connect4.board`), so dropping a stone is one addition and ``k`` in a row is a
  few shifts and ANDs;
* negamax with alpha-beta over scores, where the bounds of the remaining game tighten the
  window before any move is tried (the mover cannot win before its next stone, the opponent
  not before its next stone either once the mover's immediate losses are pruned);
* moves that lose at once are never searched: the opponent's immediate win must be blocked
  (two of them lose), and no stone goes directly under a cell where the opponent would
  complete a line;
* the remaining moves are ordered by the number of cells where the mover would then complete
  a line (its threats), centre columns first among equals;
* a transposition table (a fixed-size numpy array, replaced on collision) keeps a lower and
  an upper bound of each position's score, keyed by ``mover's stones + all stones``, which
  identifies a position uniquely;
* the root is solved by a sequence of null-window searches that halve the interval of
  possible scores, trying the draw boundary first, which prunes far more than one search
  with the full window.

The negamax uses an explicit stack of frames (numpy arrays, one row per ply) rather than
recursion: each frame holds its position, window and ordered moves; a child's score comes
back to its parent's frame. Every node visited counts towards a bound (``max_nodes``), and a
search that reaches it stops and raises :class:`SolverLimitError` instead of running on; the
bounds it stored remain true, so a later search with a larger bound starts ahead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from playout._src.compiled.kernel import JIT_OPTIONS
from playout._src.errors import GameOverError, InvalidParameterError, SolverLimitError
from playout._src.jit import jit
from playout.games.connect4.state import Connect4Game, Connect4State

DEFAULT_TABLE_SIZE = 1 << 22
"""Transposition-table entries (16 bytes each: 64 MiB); rounded down to a power of two."""

DEFAULT_MAX_NODES = 200_000_000
"""Nodes one call may visit before it gives up (about 35 s at some 6 million nodes a second)."""

MAX_BOARD_BITS = 64
"""Largest ``width * (height + 1)`` the solver accepts: the bitboard is one 64-bit word."""

_ABORTED = 1000  # returned by the compiled search when the node bound is reached
_EMPTY_KEY = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # never a position's key (see _key)
_NO_LOWER = -127
_NO_UPPER = 127
_BIAS = 128  # stored bounds are ``bound + _BIAS`` in a byte each

_GOLDEN = np.uint64(0x9E37_79B9_7F4A_7C15)
_M1 = np.uint64(0x5555_5555_5555_5555)
_M2 = np.uint64(0x3333_3333_3333_3333)
_M4 = np.uint64(0x0F0F_0F0F_0F0F_0F0F)
_H01 = np.uint64(0x0101_0101_0101_0101)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


# -- compiled core ------------------------------------------------------------------------------


@jit(inline="always", **JIT_OPTIONS)
def _owned_at(stones: np.uint64, offset: int) -> np.uint64:
    """Cells ``x`` whose cell ``x + offset`` is in ``stones`` (nothing past 64 bits)."""
    if offset >= 64 or offset <= -64:
        return _ZERO
    if offset >= 0:
        return stones >> np.uint64(offset)
    return stones << np.uint64(-offset)


@jit(inline="always", **JIT_OPTIONS)
def _popcount(bits: np.uint64) -> int:
    """Set bits of ``bits``: sums of bit pairs, nibbles and bytes, then one multiply."""
    bits = bits - ((bits >> _ONE) & _M1)
    bits = (bits & _M2) + ((bits >> np.uint64(2)) & _M2)
    bits = (bits + (bits >> np.uint64(4))) & _M4
    return int(np.int64((bits * _H01) >> np.uint64(56)))


@jit(inline="always", **JIT_OPTIONS)
def _winning_cells(
    stones: np.uint64, mask: np.uint64, board: np.uint64, stride: int, k: int
) -> np.uint64:
    """Empty cells where one more stone completes ``k`` in a row for the owner of ``stones``
    (whether or not the cell can be played now).

    A cell completes a line when, along some direction ``d``, the ``k - 1`` other cells of a
    window through it are all owned: for each place ``j`` of the cell in the window, the
    AND of the stones shifted by ``-j * d .. (k - 1 - j) * d`` (the cell itself left out).
    Guard bits are never owned, so windows running through them never count.
    """
    found = _ZERO
    # Vertical: the cells above an empty cell are empty, so the cell tops its window.
    run = ~_ZERO
    for m in range(1, k):
        run &= _owned_at(stones, -m)
    found |= run
    for d in (stride, stride - 1, stride + 1):
        if k == 4:
            a = _owned_at(stones, -d)
            b = _owned_at(stones, -2 * d)
            c = _owned_at(stones, -3 * d)
            e = _owned_at(stones, d)
            f = _owned_at(stones, 2 * d)
            g = _owned_at(stones, 3 * d)
            ab = a & b
            ef = e & f
            found |= (ab & (c | e)) | (ef & (g | a))
        else:
            for j in range(k):
                window = ~_ZERO
                for i in range(k):
                    if i != j:
                        window &= _owned_at(stones, (i - j) * d)
                found |= window
    return found & (board ^ mask)


@jit(inline="always", **JIT_OPTIONS)
def _slot(key: np.uint64, shift: np.uint64) -> np.uint64:
    """The table slot of ``key``: the top bits of ``key`` times 2**64 over the golden ratio."""
    return (key * _GOLDEN) >> shift


@jit(inline="always", **JIT_OPTIONS)
def _tt_store(table: np.ndarray, shift: np.uint64, key: np.uint64, low: int, high: int) -> None:
    """Record ``low <= score <= high`` for ``key`` (replacing another position's entry)."""
    slot = _slot(key, shift)
    if table[slot, 0] != key:
        table[slot, 0] = key
    else:
        low = max(low, _low_of(table[slot, 1]))
        high = min(high, _high_of(table[slot, 1]))
    table[slot, 1] = np.uint64(low + _BIAS) | (np.uint64(high + _BIAS) << np.uint64(8))


@jit(inline="always", **JIT_OPTIONS)
def _low_of(bounds: np.uint64) -> int:
    return int(np.int64(bounds & np.uint64(0xFF))) - _BIAS


@jit(inline="always", **JIT_OPTIONS)
def _high_of(bounds: np.uint64) -> int:
    return int(np.int64(bounds >> np.uint64(8))) - _BIAS


@jit(**JIT_OPTIONS)
def _negamax(
    position: np.uint64,
    mask: np.uint64,
    alpha: int,
    beta: int,
    width: int,
    height: int,
    k: int,
    bottom: np.uint64,
    board: np.uint64,
    order: np.ndarray,
    table: np.ndarray,
    shift: np.uint64,
    counters: np.ndarray,
) -> int:
    """The score of ``position`` (the mover's stones) within ``alpha < score < beta``.

    Fail-hard alpha-beta: the result is exact inside the window, an upper bound when it is
    ``<= alpha`` and a lower bound when it is ``>= beta``. The mover must not be able to win
    with its next stone (the caller checks). ``counters`` is ``[nodes, max_nodes]``; the
    result is ``_ABORTED`` when the count passes the bound.
    """
    cells = width * height
    stride = height + 1
    depth = cells + 2
    f_position = np.zeros(depth, dtype=np.uint64)
    f_mask = np.zeros(depth, dtype=np.uint64)
    f_alpha = np.zeros(depth, dtype=np.int64)
    f_beta = np.zeros(depth, dtype=np.int64)
    f_count = np.zeros(depth, dtype=np.int64)
    f_index = np.zeros(depth, dtype=np.int64)
    f_moves = np.zeros((depth, width), dtype=np.uint64)
    f_threats = np.zeros((depth, width), dtype=np.int64)
    column_bits = (_ONE << np.uint64(height)) - _ONE

    sp = -1  # the top frame; -1: none yet
    # The node to enter next (the root first).
    c_position = position
    c_mask = mask
    c_alpha = alpha
    c_beta = beta
    result = 0
    while True:
        # -- enter a node: an immediate score, or a frame with its ordered moves --------------
        counters[0] += 1
        if counters[0] > counters[1]:
            return _ABORTED
        done = True
        moves = _popcount(c_mask)
        possible = (c_mask + bottom) & board
        opponent_wins = _winning_cells(c_position ^ c_mask, c_mask, board, stride, k)
        forced = possible & opponent_wins
        if forced:  # must block; two cells to block: lost at the next stone
            possible = _ZERO if forced & (forced - _ONE) else forced
        # Never under a cell where the opponent would complete a line.
        playable = possible & ~(opponent_wins >> _ONE)
        if playable == 0:
            result = -((cells - moves) // 2)  # the opponent wins with its next stone
        elif moves >= cells - 2:
            result = 0  # no line left to make for either side
        else:
            low = -((cells - 2 - moves) // 2)  # the opponent cannot win at its next stone
            high = (cells - 1 - moves) // 2  # nor can the mover with this one
            key = c_position + c_mask
            slot = _slot(key, shift)
            if table[slot, 0] == key:
                low = max(low, _low_of(table[slot, 1]))
                high = min(high, _high_of(table[slot, 1]))
            if c_alpha < low:
                c_alpha = low
            if c_beta > high:
                c_beta = high
            if c_alpha >= c_beta:
                # A bound at or past the window (or the exact score when they meet).
                result = low if low >= c_beta else high
            else:
                done = False
                sp += 1
                f_position[sp] = c_position
                f_mask[sp] = c_mask
                f_alpha[sp] = c_alpha
                f_beta[sp] = c_beta
                f_index[sp] = 0
                count = 0
                for i in range(width):
                    column = order[i]
                    move = playable & (column_bits << np.uint64(column * stride))
                    if move:
                        threats = _popcount(
                            _winning_cells(c_position | move, c_mask | move, board, stride, k)
                        )
                        j = count  # insertion sort, most threats first, centre first on ties
                        while j > 0 and f_threats[sp, j - 1] < threats:
                            f_moves[sp, j] = f_moves[sp, j - 1]
                            f_threats[sp, j] = f_threats[sp, j - 1]
                            j -= 1
                        f_moves[sp, j] = move
                        f_threats[sp, j] = threats
                        count += 1
                f_count[sp] = count
        # -- return scores to the frames below, and pick the next child to enter -------------
        while True:
            if done:
                if sp < 0:
                    return result
                score = -result
                if score >= f_beta[sp]:  # fail high: a lower bound
                    _tt_store(table, shift, f_position[sp] + f_mask[sp], score, _NO_UPPER)
                    result = score
                    sp -= 1
                    continue
                if score > f_alpha[sp]:
                    f_alpha[sp] = score
                done = False
            index = f_index[sp]
            if index < f_count[sp]:
                f_index[sp] = index + 1
                c_position = f_position[sp] ^ f_mask[sp]
                c_mask = f_mask[sp] | f_moves[sp, index]
                c_alpha = -f_beta[sp]
                c_beta = -f_alpha[sp]
                break
            # Every move searched, none reached beta: alpha is an upper bound.
            result = f_alpha[sp]
            _tt_store(table, shift, f_position[sp] + f_mask[sp], _NO_LOWER, result)
            sp -= 1
            done = True


@jit(**JIT_OPTIONS)
def _solve_bits(
    position: np.uint64,
    mask: np.uint64,
    width: int,
    height: int,
    k: int,
    bottom: np.uint64,
    board: np.uint64,
    order: np.ndarray,
    table: np.ndarray,
    shift: np.uint64,
    counters: np.ndarray,
) -> int:
    """The exact score of a running position (``_ABORTED`` past the node bound): null-window
    searches that halve the interval of possible scores, the draw boundary first."""
    cells = width * height
    moves = _popcount(mask)
    possible = (mask + bottom) & board
    if _winning_cells(position, mask, board, height + 1, k) & possible:
        return (cells + 1 - moves) // 2
    low = -((cells - moves) // 2)
    high = (cells - 1 - moves) // 2
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and -((-low) // 2) < middle:
            middle = -((-low) // 2)
        elif middle >= 0 and high // 2 > middle:
            middle = high // 2
        score = _negamax(
            position,
            mask,
            middle,
            middle + 1,
            width,
            height,
            k,
            bottom,
            board,
            order,
            table,
            shift,
            counters,
        )
        if score == _ABORTED:
            return _ABORTED
        if score <= middle:
            high = score
        else:
            low = score
    return low


# -- Python interface ---------------------------------------------------------------------------


def check_solvable(game: object) -> Connect4Game:
    """``game`` if the solver takes it; else :class:`InvalidParameterError` saying why."""
    if not isinstance(game, Connect4Game):
        raise InvalidParameterError(
            f"the connect-four solver needs a Connect4Game position, got a position of {game!r}"
        )
    bits = game.width * (game.height + 1)
    if bits > MAX_BOARD_BITS:
        raise InvalidParameterError(
            f"the connect-four solver needs width * (height + 1) <= {MAX_BOARD_BITS} (one "
            f"64-bit word); a {game.width}x{game.height} board needs {bits} bits"
        )
    return game


def _check_positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidParameterError(f"{name} must be a whole number >= 1, got {value!r}")
    return int(value)


class Connect4Solver:
    """Exact scores of the positions of one :class:`Connect4Game`, with its own table.

    Args:
        game: the game (``width * (height + 1) <= 64``, any ``k``).
        table_size: transposition-table entries (16 bytes each; rounded down to a power of
            two); kept between calls, so positions solved before make later searches faster.
        max_nodes: nodes one call (:meth:`solve`, :meth:`move_scores`, ...) may visit before
            it raises :class:`SolverLimitError`.

    Raises:
        InvalidParameterError: not a connect-four game, a board too large, a size below 1.
    """

    def __init__(
        self,
        game: Connect4Game,
        *,
        table_size: int = DEFAULT_TABLE_SIZE,
        max_nodes: int = DEFAULT_MAX_NODES,
    ) -> None:
        self.game = check_solvable(game)
        self.max_nodes = _check_positive("max_nodes", max_nodes)
        # A power of two of slots, indexed by the top bits of a multiplicative hash of the key
        # (Fibonacci hashing): every bit of the key counts, and no division.
        size = 1 << (_check_positive("table_size", table_size).bit_length() - 1)
        self._shift = np.uint64(64 - (size.bit_length() - 1))
        width, height = game.width, game.height
        stride = height + 1
        bottom = sum(1 << (c * stride) for c in range(width))
        self._bottom = np.uint64(bottom)
        self._board = np.uint64(bottom * ((1 << height) - 1))
        centre = (width - 1) / 2
        self._order = np.array(
            sorted(range(width), key=lambda c: (abs(c - centre), c)), dtype=np.int64
        )
        # Per slot: the key, and the bounds (low + _BIAS) | (high + _BIAS) << 8, side by side
        # so that a probe touches one cache line.
        self._table = np.zeros((size, 2), dtype=np.uint64)
        self._table[:, 0] = _EMPTY_KEY
        self._counters = np.zeros(2, dtype=np.int64)
        self.nodes = 0
        """Nodes visited by the last call."""

    def clear(self) -> None:
        """Forget every stored bound."""
        self._table[:, 0] = _EMPTY_KEY

    def _bits(self, state: object) -> tuple[np.uint64, np.uint64, int]:
        """The mover's stones, all stones and the stone count of a running position."""
        if not isinstance(state, Connect4State) or state.game != self.game:
            raise InvalidParameterError(f"{state!r} is not a position of {self.game!r}")
        if state.is_terminal():
            raise GameOverError("the game is over: a finished position has no score to solve")
        mask = state.stones0 | state.stones1
        mover = state.stones1 if state.current_player() == 1 else state.stones0
        return np.uint64(mover), np.uint64(mask), mask.bit_count()

    def _run(self, position: np.uint64, mask: np.uint64, max_nodes: int | None) -> int:
        game = self.game
        limit = self.max_nodes if max_nodes is None else _check_positive("max_nodes", max_nodes)
        self._counters[1] = limit  # counters[0] counts from the start of the public call
        score: int = _solve_bits(
            position,
            mask,
            game.width,
            game.height,
            game.k,
            self._bottom,
            self._board,
            self._order,
            self._table,
            self._shift,
            self._counters,
        )
        self.nodes = int(self._counters[0])
        if score == _ABORTED:
            raise SolverLimitError(
                f"the connect-four solver visited {limit:,} nodes without finishing; "
                "pass a larger max_nodes"
            )
        return int(score)

    def solve(self, state: Connect4State, *, max_nodes: int | None = None) -> int:
        """The exact score of ``state`` for the player to move (see the module docstring).

        Raises:
            InvalidParameterError: not a position of this solver's game.
            GameOverError: the game is over.
            SolverLimitError: more than ``max_nodes`` nodes (the solver's bound by default).
        """
        position, mask, _ = self._bits(state)
        self._counters[0] = 0
        return self._run(position, mask, max_nodes)

    def outcome(self, state: Connect4State, *, max_nodes: int | None = None) -> int:
        """+1 the player to move wins, 0 a draw, -1 it loses (under perfect play)."""
        score = self.solve(state, max_nodes=max_nodes)
        return (score > 0) - (score < 0)

    def move_scores(self, state: Connect4State, *, max_nodes: int | None = None) -> dict[int, int]:
        """The exact score of every legal move (column id) for the player who makes it: the
        position's score if that move is played and both sides play perfectly after it.
        ``max_nodes`` bounds the whole call."""
        _, _, moves = self._bits(state)
        cells = self.game.width * self.game.height
        self._counters[0] = 0
        scores: dict[int, int] = {}
        for column in state.legal_actions():
            child = state.play(column)
            if child.is_terminal():  # a win with this stone, or a draw on a full board
                scores[column] = (cells + 1 - moves) // 2 if child.winner() is not None else 0
                continue
            position, mask, _ = self._bits(child)
            scores[column] = -self._run(position, mask, max_nodes)
        self.nodes = int(self._counters[0])
        return scores

    def best_moves(self, state: Connect4State, *, max_nodes: int | None = None) -> tuple[int, ...]:
        """The legal moves of the best score (the quickest win, the slowest loss)."""
        scores = self.move_scores(state, max_nodes=max_nodes)
        best = max(scores.values())
        return tuple(c for c, s in scores.items() if s == best)

    def plies_to_end(self, state: Connect4State, *, max_nodes: int | None = None) -> int:
        """Moves left in the game under perfect play (the winner winning as soon as it can,
        the loser holding out as long as it can; a draw fills the board)."""
        return plies_from_score(self.game, state.num_moves, self.solve(state, max_nodes=max_nodes))


def plies_from_score(game: Connect4Game, moves: int, score: int) -> int:
    """Moves left from a position with ``moves`` stones whose score is ``score``."""
    cells = game.width * game.height
    if score == 0:
        return cells - moves
    # The winning stone is stone number ``last`` + 1, with ``(cells + 1 - last) // 2 == |score|``
    # and ``last`` of the winner's parity (the mover's when the score is positive).
    last = cells + 1 - 2 * abs(score)
    winner_parity = moves % 2 if score > 0 else (moves + 1) % 2
    if last % 2 != winner_parity:
        last -= 1
    return last - moves + 1


_SOLVERS: dict[tuple[int, int, int], Connect4Solver] = {}


def solver_for(game: Connect4Game) -> Connect4Solver:
    """A shared :class:`Connect4Solver` for ``game`` (one kept, with the default table)."""
    check_solvable(game)
    key = (game.width, game.height, game.k)
    solver = _SOLVERS.get(key)
    if solver is None:
        _SOLVERS.clear()  # one table at a time: each is tens of megabytes
        solver = _SOLVERS[key] = Connect4Solver(game)
    return solver


def _game_of(state: Any) -> Connect4Game:
    game = getattr(state, "game", None)
    if not isinstance(state, Connect4State) or not isinstance(game, Connect4Game):
        raise InvalidParameterError(
            f"the connect-four solver needs a Connect4State, got {type(state).__name__}"
        )
    return game


def solve(state: Connect4State, *, max_nodes: int | None = None) -> int:
    """The exact score of ``state`` for the player to move: ``(width * height + 1 - n) // 2``
    for a win whose last stone is played onto ``n`` stones, its opposite for a loss, 0 for a
    draw. See :class:`Connect4Solver.solve`."""
    return solver_for(_game_of(state)).solve(state, max_nodes=max_nodes)


def outcome(state: Connect4State, *, max_nodes: int | None = None) -> int:
    """+1, 0 or -1: the player to move wins, draws or loses under perfect play."""
    return solver_for(_game_of(state)).outcome(state, max_nodes=max_nodes)


def move_scores(state: Connect4State, *, max_nodes: int | None = None) -> dict[int, int]:
    """The exact score of each legal move for the player who makes it."""
    return solver_for(_game_of(state)).move_scores(state, max_nodes=max_nodes)


def best_moves(state: Connect4State, *, max_nodes: int | None = None) -> tuple[int, ...]:
    """The legal moves of the best score."""
    return solver_for(_game_of(state)).best_moves(state, max_nodes=max_nodes)


def plies_to_end(state: Connect4State, *, max_nodes: int | None = None) -> int:
    """Moves left in the game under perfect play."""
    return solver_for(_game_of(state)).plies_to_end(state, max_nodes=max_nodes)


__all__ = [
    "DEFAULT_MAX_NODES",
    "DEFAULT_TABLE_SIZE",
    "MAX_BOARD_BITS",
    "Connect4Solver",
    "SolverLimitError",
    "best_moves",
    "check_solvable",
    "move_scores",
    "outcome",
    "plies_from_score",
    "plies_to_end",
    "solve",
    "solver_for",
]
