"""The m,n,k-game (seed 001): tic-tac-toe, gomoku and every board size in between.

Two players take turns putting a stone on an empty square of a ``width`` x ``height`` board;
the first to get ``k`` stones in a row (horizontally, vertically or diagonally) wins, and a
full board without such a line is a draw. Player 0 moves first and is shown as ``X``,
player 1 as ``O``.

Coordinates follow seed 001: a square is ``(x, y)`` with ``x`` the 0-based column (from the
left) and ``y`` the 0-based row **from the top**. The action id of ``(x, y)`` is
``y * width + x``.

Representation (for speed in pure Python): each player's stones are one Python ``int`` used
as a bitboard in a *padded* layout with ``width + 1`` bits per row, square ``(x, y)`` at bit
``y * (width + 1) + x``. The extra bit at the end of every row is always 0, so shifting a
bitboard by 1 (horizontal), ``width`` (anti-diagonal), ``width + 1`` (vertical) or
``width + 2`` (diagonal) never wraps a line from one row into the next, and ``k`` in a row is
found with a handful of shifts and ANDs. Each state also keeps the tuple of its legal actions
(the empty squares in increasing id order, or ``()`` once the game is over), so
``legal_actions()`` is free and ``play()`` only slices a tuple.
"""

from __future__ import annotations

import dataclasses
import random
import re
from bisect import bisect_left as _bisect_left
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from playout._src.errors import GameError, IllegalMoveError, MoveParseError
from playout._src.evaluation import is_count
from playout._src.game import GameSpec, GameState, check_action_type
from playout.games._stones import StoneGame, StoneState, line_shifts, observation_index
from playout.games.mnk.board import check_size, windows_through_squares
from playout.games.mnk.kernel import mnk_kernel
from playout.games.mnk.threats import line_threat_scores

if TYPE_CHECKING:
    import numpy as np

    from playout._src.compiled.kernel import Kernel

_XY_RE = re.compile(r"^\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?$")
_LETTER_RE = re.compile(r"^([a-z]+)\s*(-?\d+)$", re.IGNORECASE)


def column_label(x: int) -> str:
    """Letter name of 0-based column ``x``: ``a`` .. ``z``, then ``aa``, ``ab``, ..."""
    label = ""
    n = x + 1
    while n > 0:
        n, rem = divmod(n - 1, 26)
        label = chr(ord("a") + rem) + label
    return label


def _column_from_label(label: str) -> int:
    """Inverse of :func:`column_label` (case-insensitive)."""
    n = 0
    for ch in label.lower():
        n = n * 26 + (ord(ch) - ord("a") + 1)
    return n - 1


class MnkGame(StoneGame["MnkState"]):
    """The m,n,k-game on a ``width`` x ``height`` board with ``k`` in a row to win.

    Args:
        width: number of columns, 1..32.
        height: number of rows, 1..32.
        k: stones in a row needed to win, ``1 <= k <= max(width, height)``.
        name: registry name reported in :attr:`spec`; ``"mnk"`` by default.

    Raises:
        InvalidParameterError: a size out of range, or ``k`` longer than both sides.

    Returns (``state.returns()``): ``(1.0, -1.0)`` when player 0 (``X``) made ``k`` in a row,
    ``(-1.0, 1.0)`` when player 1 (``O``) did, ``(0.0, 0.0)`` for a draw and before the end.

    Notation: :meth:`action_to_string` writes the labels :meth:`render` prints around the
    board, a column letter and a row number: ``"b3"`` is column ``b`` (``a`` = leftmost;
    ``aa``, ``ab``, ... past ``z``) and row 3 counted from **1 at the top**.
    :meth:`string_to_action` reads that and seed 001's ``"x,y"`` (also ``"x, y"``,
    ``"(x, y)"``): 0-based column, 0-based row from the top, so ``"1,2"`` is ``"b3"``.
    """

    __slots__ = (
        "_bit_of_action",
        "_board_mask",
        "_hash",
        "_initial",
        "_line_shifts",
        "_num_squares",
        "_planes",
        "_stride",
        "_symmetries",
        "_windows",
        "height",
        "k",
        "spec",
        "width",
    )

    def __init__(self, width: int, height: int, k: int, name: str | None = None) -> None:
        self.width, self.height, self.k = check_size(width, height, k)
        num_squares = width * height
        self.spec = GameSpec(
            name=name if name is not None else "mnk",
            num_players=2,
            num_actions=num_squares,
            max_length=num_squares,
            player_names=("X", "O"),
        )
        stride = width + 1
        self._stride = stride
        self._num_squares = num_squares
        self._bit_of_action: tuple[int, ...] = tuple(
            1 << (y * stride + x) for y in range(height) for x in range(width)
        )
        board_mask = 0
        for bit in self._bit_of_action:
            board_mask |= bit
        self._board_mask = board_mask
        self._line_shifts = line_shifts(stride, k)
        self._planes = observation_index(
            [[y * stride + x for x in range(width)] for y in range(height)]
        )
        self._windows = windows_through_squares(width, height, k)
        self._hash = hash((MnkGame, width, height, k, self.spec.name))
        self._initial = MnkState(self, 0, 0, tuple(range(num_squares)))
        self._symmetries: _BoardSymmetries | None = None  # built on first use

    # -- identity ---------------------------------------------------------------------------

    # -- rules --------------------------------------------------------------------------------

    # -- symmetries (the optional hooks of playout._src.game) ---------------------------------

    def _board_symmetries(self) -> _BoardSymmetries:
        if self._symmetries is None:
            self._symmetries = _BoardSymmetries(self.width, self.height)
        return self._symmetries

    def action_symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries as permutations of action ids, identity first.

        ``perms[i][a]`` is the square that square ``a`` goes to under symmetry ``i``. The
        dihedral group of the board: 8 symmetries on a square board, 4 on a rectangle (2 on
        a single row or column, 1 on a single square). Each maps lines of ``k`` onto lines
        of ``k``, so it maps games onto games with the same returns.
        """
        return self._board_symmetries().perms

    def transform_state(self, state: GameState, index: int) -> MnkState:
        """The image of ``state`` under symmetry ``index`` of :meth:`action_symmetries`."""
        own = self._own(state)
        table = self._board_symmetries()
        bits = table.bit_tables[index]
        legal = own.legal
        if legal:
            perm = table.perms[index]
            legal = tuple(sorted([perm[a] for a in legal]))
        return _new_state(self, _map_bits(bits, own.stones0), _map_bits(bits, own.stones1), legal)

    def canonical_key(self, state: GameState) -> tuple[int, int]:
        """The same key for every position that a symmetry maps onto ``state``: the least
        ``(stones0, stones1)`` over the images of ``state`` (a transposition-table key)."""
        own = self._own(state)
        stones0, stones1 = own.stones0, own.stones1
        return min(
            (_map_bits(bits, stones0), _map_bits(bits, stones1))
            for bits in self._board_symmetries().bit_tables
        )

    def move_heuristic(self, state: GameState, actions: Sequence[int]) -> np.ndarray:
        """Move scores for :class:`~playout.ProgressiveBias`: :func:`threat_scores`."""
        return threat_scores(state, actions)

    def rollout_policies(self) -> dict[str, Callable[[GameState, random.Random], int]]:
        """Rollout policies by name for ``mcts:rollout=NAME`` players: ``neighbors``."""
        return {"neighbors": neighbor_policy}

    def square_of(self, action: int) -> tuple[int, int]:
        """``(x, y)`` of an action id (column, row from the top, both 0-based)."""
        self._check_action(action)
        return action % self.width, action // self.width

    def action_of(self, x: int, y: int) -> int:
        """Action id of square ``(x, y)``; :class:`IllegalMoveError` if off the board."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IllegalMoveError(f"square ({x}, {y}) is off the {self.width}x{self.height} board")
        return y * self.width + x

    def _check_action(self, action: int) -> None:
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalMoveError(f"action must be an integer id, got {action!r}")
        if not 0 <= action < self._num_squares:
            raise IllegalMoveError(
                f"action {action} is off the {self.width}x{self.height} board "
                f"(ids 0..{self._num_squares - 1})"
            )

    def from_grid(self, rows: Sequence[Sequence[int]], to_move: int = 1) -> MnkState:
        """Build a position from a seed-style grid.

        Args:
            rows: ``height`` rows of ``width`` values, top row first; ``1`` and ``-1`` are the
                two marks, ``0`` an empty square (the format of seeds 000 and 001).
            to_move: the mark (``1`` or ``-1``) of the player to move.

        Which mark is player 0 (``X``, the first player) follows from the stone counts: equal
        counts mean the mark to move is player 0; if the other mark has exactly one stone more,
        the mark to move is player 1. A finished position is accepted if it is consistent
        (only the player who moved last may have ``k`` in a row).

        Raises:
            GameError: wrong shape or values, impossible stone counts, or a winner that
                cannot have been reached by legal play.
        """
        if not is_count(to_move) or to_move not in (1, -1):
            raise GameError(f"to_move must be 1 or -1, got {to_move!r}")
        try:  # lists, tuples and numpy arrays alike
            rows = [list(row) for row in rows]
        except TypeError:
            raise GameError(
                f"grid must be rows of 1, -1 and 0 (a list of lists or an array), got {rows!r}"
            ) from None
        if len(rows) != self.height or any(len(row) != self.width for row in rows):
            raise GameError(
                f"grid must have {self.height} rows of {self.width} values for a "
                f"{self.width}x{self.height} board"
            )
        mover_bits = 0
        other_bits = 0
        for y, row in enumerate(rows):
            for x, value in enumerate(row):
                bit = self._bit_of_action[y * self.width + x]
                if value == to_move:
                    mover_bits |= bit
                elif value == -to_move:
                    other_bits |= bit
                elif value != 0:
                    raise GameError(f"grid value at ({x}, {y}) must be 1, -1 or 0, got {value!r}")
        num_mover = mover_bits.bit_count()
        num_other = other_bits.bit_count()
        if num_mover == num_other:
            stones0, stones1 = mover_bits, other_bits
        elif num_other == num_mover + 1:
            stones0, stones1 = other_bits, mover_bits
        else:
            raise GameError(
                f"impossible stone counts: the mark to move ({to_move}) has {num_mover} "
                f"stones, the other {num_other}; it must have as many or one fewer"
            )
        if self.has_line(mover_bits):
            raise GameError(
                "inconsistent position: the player to move already has "
                f"{self.k} in a row, but the game would have ended before"
            )
        num_moves = num_mover + num_other
        if self.has_line(other_bits) or num_moves == self._num_squares:
            legal: tuple[int, ...] = ()
        else:
            legal = tuple(
                a
                for a in range(self._num_squares)
                if not (stones0 | stones1) & self._bit_of_action[a]
            )
        return _new_state(self, stones0, stones1, legal)

    # -- notation and rendering ---------------------------------------------------------------

    def action_to_string(self, state: GameState, action: int) -> str:
        """The board's labels of the square: column letter, row number from 1 at the top
        (``"b3"``; ``"1,2"`` in seed 001's 0-based ``"x,y"``)."""
        self._check_action(action)
        return f"{column_label(action % self.width)}{action // self.width + 1}"

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse ``"b3"`` (letter column, row 1 = top) or ``"x,y"`` / ``"(x, y)"`` (0-based).

        Raises:
            MoveParseError: text in neither notation.
            IllegalMoveError: a square off the board, already occupied, or a finished game.
        """
        stripped = text.strip()
        match = _XY_RE.match(stripped)
        if match is not None:
            x, y = int(match.group(1)), int(match.group(2))
        else:
            match = _LETTER_RE.match(stripped)
            if match is None:
                raise MoveParseError(
                    f"cannot read move {text!r}: write a column letter and a row number like "
                    "'b3' (row 1 is the top row), or 'x,y' (0-based column, row from the top)"
                )
            x, y = _column_from_label(match.group(1)), int(match.group(2)) - 1
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IllegalMoveError(
                f"square {stripped!r} is off the {self.width}x{self.height} board (columns "
                f"a..{column_label(self.width - 1)}, rows 1..{self.height})"
            )
        action = y * self.width + x
        own = self._own(state)
        if own.is_terminal():
            raise IllegalMoveError("the game is over")
        if (own.stones0 | own.stones1) & self._bit_of_action[action]:
            raise IllegalMoveError(
                f"square {self.action_to_string(own, action)} is already occupied"
            )
        return action

    def render(self, state: GameState) -> str:
        """The board with column letters on top and row numbers (1 = top) on the left."""
        return render_grid(self._own(state).grid(), row_labels_from_top=True)


class _BoardSymmetries:
    """The dihedral group of a ``width`` x ``height`` board: permutations of the action ids
    and, for each, byte tables that move a padded bitboard's bits (8 bits per lookup)."""

    __slots__ = ("bit_tables", "perms")

    def __init__(self, width: int, height: int) -> None:
        maps: list[Any] = [
            lambda x, y: (x, y),
            lambda x, y: (width - 1 - x, y),
            lambda x, y: (x, height - 1 - y),
            lambda x, y: (width - 1 - x, height - 1 - y),
        ]
        if width == height:
            n = width
            maps += [
                lambda x, y: (y, x),
                lambda x, y: (n - 1 - y, n - 1 - x),
                lambda x, y: (n - 1 - y, x),
                lambda x, y: (y, n - 1 - x),
            ]
        perms: list[tuple[int, ...]] = []
        coordinate_maps = []
        for f in maps:
            perm = tuple(
                f(a % width, a // width)[1] * width + f(a % width, a // width)[0]
                for a in range(width * height)
            )
            if perm not in perms:  # thin boards: several maps are the same permutation
                perms.append(perm)
                coordinate_maps.append(f)
        self.perms: tuple[tuple[int, ...], ...] = tuple(perms)
        stride = width + 1
        num_bits = height * stride
        tables: list[tuple[tuple[int, ...], ...]] = []
        for f in coordinate_maps:
            target = [0] * (((num_bits + 7) // 8) * 8)
            for y in range(height):
                for x in range(width):
                    tx, ty = f(x, y)
                    target[y * stride + x] = 1 << (ty * stride + tx)
            chunks = []
            for start in range(0, len(target), 8):
                chunk = [0] * 256
                for value in range(1, 256):
                    low = value & -value
                    chunk[value] = chunk[value ^ low] | target[start + low.bit_length() - 1]
                chunks.append(tuple(chunk))
            tables.append(tuple(chunks))
        self.bit_tables: tuple[tuple[tuple[int, ...], ...], ...] = tuple(tables)


def _map_bits(tables: tuple[tuple[int, ...], ...], stones: int) -> int:
    """The padded bitboard ``stones`` moved by one symmetry's byte tables."""
    out = 0
    index = 0
    while stones:
        out |= tables[index][stones & 255]
        stones >>= 8
        index += 1
    return out


def render_grid(grid: Sequence[Sequence[int]], *, row_labels_from_top: bool) -> str:
    """Text picture of a grid of 1 (``X``), -1 (``O``) and 0 (``.``) with letter/number labels.

    Rows are printed in the given order; ``row_labels_from_top`` numbers them 1.. from the top.
    """
    height = len(grid)
    width = len(grid[0]) if height else 0
    labels = [column_label(x) for x in range(width)]
    cell = max(len(label) for label in labels) if labels else 1
    margin = len(str(height))
    symbols = {1: "X", -1: "O", 0: "."}
    lines = [" " * margin + " " + " ".join(label.rjust(cell) for label in labels)]
    for y, row in enumerate(grid):
        number = y + 1 if row_labels_from_top else height - y
        cells = " ".join(symbols[v].rjust(cell) for v in row)
        lines.append(f"{str(number).rjust(margin)} {cells}")
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True, slots=True)
class MnkState(StoneState):
    """One position of an :class:`MnkGame`. Immutable; equal positions compare equal.

    Attributes:
        game: the game (board size and ``k``).
        stones0: player 0's (``X``) stones as a padded bitboard (see the module docstring).
        stones1: player 1's (``O``) stones, same layout.
        legal: the legal action ids in increasing order; ``()`` exactly when the game is over.
            Derived from the stones, so not part of equality or the hash.
    """

    game: MnkGame
    stones0: int
    stones1: int
    legal: tuple[int, ...] = dataclasses.field(compare=False, repr=False)

    def compiled_kernel(self) -> Kernel:
        """The game's compiled kernel for the compiled search (every board size)."""
        game = self.game
        return mnk_kernel(game.width, game.height, game.k, game.spec.name)

    def play(self, action: int) -> MnkState:
        """Put the mover's stone on square ``action``; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the square is occupied or off the board, or the game is over.
        """
        if type(action) is not int:
            check_action_type(action)
        legal = self.legal
        try:
            index = _bisect_left(legal, action)  # legal is sorted: O(log n) instead of .index
            if legal[index] != action:
                raise IndexError
        except (IndexError, TypeError):
            raise IllegalMoveError(_illegal_reason(self, action)) from None
        game = self.game
        bit = game._bit_of_action[action]
        num_moves = game._num_squares - len(legal) + 1  # stones on the board after this move
        if num_moves & 1:  # odd: player 0 is moving
            stones = self.stones0 | bit
            if num_moves >= 2 * game.k - 1:  # player 0 has at least k stones
                for window in game._windows[action]:
                    if stones & window == window:
                        return _new_state(game, stones, self.stones1, ())
            return _new_state(game, stones, self.stones1, legal[:index] + legal[index + 1 :])
        stones = self.stones1 | bit
        if num_moves >= 2 * game.k:  # player 1 has at least k stones
            for window in game._windows[action]:
                if stones & window == window:
                    return _new_state(game, self.stones0, stones, ())
        return _new_state(game, self.stones0, stones, legal[:index] + legal[index + 1 :])

    def grid(self) -> tuple[tuple[int, ...], ...]:
        """The board, rows top to bottom: 1 = player 0 (``X``), -1 = player 1 (``O``), 0 empty."""
        stones0, stones1 = self.stones0, self.stones1
        cells = [
            1 if stones0 & bit else -1 if stones1 & bit else 0 for bit in self.game._bit_of_action
        ]
        width = self.game.width
        return tuple(tuple(cells[y : y + width]) for y in range(0, len(cells), width))


def _illegal_reason(state: MnkState, action: Any) -> str:
    if not state.legal:
        return "the game is over"
    game = state.game
    if (
        isinstance(action, bool)
        or not isinstance(action, int)
        or not 0 <= action < game._num_squares
    ):
        return f"action {action!r} is off the {game.width}x{game.height} board"
    return f"square {game.action_to_string(state, action)} is already occupied"


# Building a frozen slotted dataclass through its generated ``__init__`` goes through
# ``object.__setattr__`` once per field; setting the slots directly is about twice as fast and
# ``play()`` is the inner loop of every random playout.
_new_object = object.__new__
_set_game = vars(MnkState)["game"].__set__
_set_stones0 = vars(MnkState)["stones0"].__set__
_set_stones1 = vars(MnkState)["stones1"].__set__
_set_legal = vars(MnkState)["legal"].__set__


def _new_state(game: MnkGame, stones0: int, stones1: int, legal: tuple[int, ...]) -> MnkState:
    state = _new_object(MnkState)
    _set_game(state, game)
    _set_stones0(state, stones0)
    _set_stones1(state, stones1)
    _set_legal(state, legal)
    return state


# -- the seed-004 rollout policy -----------------------------------------------------------


def _as_mnk(state: GameState) -> MnkState:
    if not isinstance(state, MnkState):
        raise GameError(f"the neighbor policy needs an m,n,k position, got {type(state).__name__}")
    return state


def neighbor_mask(state: GameState) -> int:
    """Padded bitboard of the empty squares next to (8-neighbourhood) at least one stone."""
    state = _as_mnk(state)
    game = state.game
    occupied = state.stones0 | state.stones1
    stride = game._stride
    # Dilate horizontally (the padding column stops wrap-around), then vertically.
    wide = occupied | (occupied << 1) | (occupied >> 1)
    wide |= (wide << stride) | (wide >> stride)
    return wide & game._board_mask & ~occupied


def neighbor_actions(state: GameState) -> list[int]:
    """Seed 004's "neighbor actions": empty squares adjacent (8-neighbourhood) to a stone.

    Returns action ids in increasing order; all legal actions when the board is empty or no
    empty square touches a stone; ``[]`` once the game is over.
    """
    state = _as_mnk(state)
    legal = state.legal
    if not legal:
        return []
    candidates = neighbor_mask(state)
    if not candidates:
        return list(legal)
    stride = state.game._stride
    actions: list[int] = []
    while candidates:
        low = candidates & -candidates
        bit_index = low.bit_length() - 1
        actions.append(bit_index - bit_index // stride)  # y * stride + x  ->  y * width + x
        candidates ^= low
    return actions


def neighbor_policy(state: GameState, rng: random.Random) -> int:
    """A rollout move drawn uniformly from :func:`neighbor_actions` (seed 004)."""
    return rng.choice(neighbor_actions(state))


class NeighborRollout:
    """Callable rollout policy ``policy(state, rng) -> action`` wrapping :func:`neighbor_policy`."""

    __slots__ = ()

    def __call__(self, state: GameState, rng: random.Random) -> int:
        return rng.choice(neighbor_actions(state))

    def __repr__(self) -> str:
        return "NeighborRollout()"


# -- a move heuristic: line threats ---------------------------------------------------------


def threat_scores(state: GameState, actions: Sequence[int]) -> np.ndarray:
    """How promising each of ``actions`` is for the player to move, in [0, 1] (1 = the best).

    A heuristic for :class:`~playout.ProgressiveBias` (Chaslot et al. 2008), a
    :data:`~playout.MoveHeuristic`. A square scores the sum over the lines of ``k`` squares
    through it that one player can still complete: ``4**m`` for a line holding ``m`` of the
    mover's stones, ``0.5 * 4**o`` for one holding ``o`` of the opponent's, 1 for an empty
    line; completing the mover's own line (a win) is worth ``4**(k + 2)``, filling the
    opponent's last square (a forced block) ``4**(k + 1)``. So a winning move scores 1, a
    forced block the most after it, and on an open board central squares beat edges. The
    scores are divided by the best one.
    """
    return line_threat_scores(_as_mnk(state), actions)


# -- factories --------------------------------------------------------------------------------


def tictactoe() -> MnkGame:
    """Tic-tac-toe: 3x3, three in a row (registry name ``"tictactoe"``)."""
    return MnkGame(3, 3, 3, name="tictactoe")


def gomoku(width: int = 15, height: int = 15, k: int = 5) -> MnkGame:
    """Free-style gomoku: 15x15, five (or more) in a row (registry name ``"gomoku"``).

    Seed 004's small demo is ``gomoku(width=4, height=4, k=4)``.
    """
    return MnkGame(width, height, k, name="gomoku")


__all__ = [
    "MnkGame",
    "MnkState",
    "NeighborRollout",
    "column_label",
    "gomoku",
    "neighbor_actions",
    "neighbor_mask",
    "neighbor_policy",
    "render_grid",
    "threat_scores",
    "tictactoe",
]
