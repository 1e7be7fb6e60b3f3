"""Connect four (and its generalisations): drop stones into columns, ``k`` in a row wins.

Two players take turns dropping a stone into a column that is not full; the stone falls to the
lowest empty cell. The first to line up ``k`` stones horizontally, vertically or diagonally
wins; a full board without such a line is a draw. Player 0 moves first (``X``, named "Red" in
``spec.player_names``), player 1 is ``O`` ("Yellow"). The action id is the 0-based column; the
notation is the column number ``1..width`` counted from the left (``"4"`` is action 3).

Representation (the classic bitboard, in Python ints): column ``c`` occupies bits
``c * (height + 1) .. c * (height + 1) + height``, row 0 at the bottom; the extra top bit of each
column is always 0, so shifts by 1 (vertical), ``height + 1`` (horizontal), ``height + 2`` and
``height`` (the two diagonals) never wrap, and ``k`` in a row is a few shifts and ANDs. A state
also keeps the tuple of its non-full columns (``()`` once the game is over), so
``legal_actions()`` is free.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from playout._src.errors import IllegalMoveError, MoveParseError
from playout._src.game import GameSpec, GameState, check_action_type
from playout.games._stones import StoneGame, StoneState, line_shifts, observation_index
from playout.games.connect4.board import check_size, windows_through_cells
from playout.games.connect4.kernel import cached_connect4_kernel

if TYPE_CHECKING:
    from playout._src.compiled.kernel import Kernel

PLAYER_NAMES: tuple[str, str] = ("Red", "Yellow")
"""``spec.player_names``: the colours of the classic game, red moving first (drawn ``X``, ``O``)."""

_SEPARATORS = re.compile(r"[\s,;]+")


class Connect4Game(StoneGame["Connect4State"]):
    """Connect ``k`` on a ``width`` x ``height`` board with gravity.

    Args:
        width: number of columns (>= 1).
        height: number of rows (>= 1).
        k: stones in a row needed to win, ``1 <= k <= max(width, height)``.
        name: registry name reported in :attr:`spec`; ``"connect4"`` by default.

    Raises:
        InvalidParameterError: a size below 1, ``k`` longer than both sides, or a board of more
            than :data:`~playout.games.connect4.board.MAX_BITS` bits (``width * (height + 1)``).

    Returns (``state.returns()``): ``(1.0, -1.0)`` when player 0 (``X``) connected ``k``,
    ``(-1.0, 1.0)`` when player 1 (``O``) did, ``(0.0, 0.0)`` for a draw and before the end.
    """

    __slots__ = (
        "_bottom",
        "_column_mask",
        "_hash",
        "_initial",
        "_line_shifts",
        "_planes",
        "_stride",
        "_symmetries",
        "_top",
        "_windows",
        "height",
        "k",
        "spec",
        "width",
    )

    def __init__(
        self, width: int = 7, height: int = 6, k: int = 4, name: str | None = None
    ) -> None:
        self.width, self.height, self.k = check_size(width, height, k)
        self.spec = GameSpec(
            name=name if name is not None else "connect4",
            num_players=2,
            num_actions=width,
            max_length=width * height,
            player_names=PLAYER_NAMES,
        )
        stride = height + 1
        self._stride = stride
        self._bottom: tuple[int, ...] = tuple(1 << (c * stride) for c in range(width))
        self._top: tuple[int, ...] = tuple(1 << (c * stride + height - 1) for c in range(width))
        self._column_mask: tuple[int, ...] = tuple(
            ((1 << height) - 1) << (c * stride) for c in range(width)
        )
        self._line_shifts = line_shifts(stride, k)
        self._planes = observation_index(
            [[c * stride + row for c in range(width)] for row in range(height - 1, -1, -1)]
        )
        self._windows = windows_through_cells(width, height, k)
        self._hash = hash((Connect4Game, width, height, k, self.spec.name))
        self._initial = Connect4State(self, 0, 0, tuple(range(width)))
        mirror = tuple(range(width - 1, -1, -1))
        identity = tuple(range(width))
        self._symmetries = (identity,) if width == 1 else (identity, mirror)

    # -- symmetries (the optional hooks of playout._src.game) ---------------------------------

    def action_symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries as permutations of action ids: the identity and the
        left-right mirror (column ``c`` goes to ``width - 1 - c``); the identity alone on a
        one-column board. Gravity rules out any other."""
        return self._symmetries

    def transform_state(self, state: GameState, index: int) -> Connect4State:
        """The image of ``state`` under symmetry ``index`` of :meth:`action_symmetries`."""
        own = self._own(state)
        if index == 0:
            return own
        legal = own.legal
        if legal:
            last = self.width - 1
            legal = tuple(sorted([last - c for c in legal]))
        return _new_state(self, self._mirror(own.stones0), self._mirror(own.stones1), legal)

    def canonical_key(self, state: GameState) -> tuple[int, int]:
        """The same key for a position and its mirror image: the least ``(stones0,
        stones1)`` of the two (a transposition-table key)."""
        own = self._own(state)
        key = (own.stones0, own.stones1)
        if self.width == 1:
            return key
        return min(key, (self._mirror(own.stones0), self._mirror(own.stones1)))

    def _mirror(self, stones: int) -> int:
        """A bitboard with its columns in reverse order."""
        stride = self._stride
        column = (1 << stride) - 1
        last = self.width - 1
        out = 0
        for c in range(self.width):
            out |= ((stones >> (c * stride)) & column) << ((last - c) * stride)
        return out

    def from_moves(self, moves: str) -> Connect4State:
        """The position after the columns in ``moves`` from the initial state.

        See :func:`play_moves`.
        """
        return play_moves(self, moves)

    # -- notation and rendering ---------------------------------------------------------------

    def action_to_string(self, state: GameState, action: int) -> str:
        """The column number, 1-based from the left: action 3 is ``"4"``."""
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < self.width:
            raise IllegalMoveError(
                f"action {action!r} is not a column of a {self.width}-wide board"
            )
        return str(action + 1)

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse a column number ``1..width`` (from the left) into an action id.

        Raises:
            MoveParseError: not a number.
            IllegalMoveError: no such column, the column is full, or the game is over.
        """
        stripped = text.strip()
        if not stripped.isdecimal() or len(stripped) > 9:
            raise MoveParseError(
                f"cannot read move {text!r}: write a column number 1..{self.width} from the left"
            )
        column = int(stripped)
        if not 1 <= column <= self.width:
            raise IllegalMoveError(f"there is no column {column}: columns are 1..{self.width}")
        own = self._own(state)
        if own.is_terminal():
            raise IllegalMoveError("the game is over")
        action = column - 1
        if action not in own.legal:
            raise IllegalMoveError(f"column {column} is full")
        return action

    def render(self, state: GameState) -> str:
        """The board, top row first, with the column numbers underneath."""
        cell = len(str(self.width))
        symbols = {1: "X", -1: "O", 0: "."}
        lines = [" ".join(symbols[v].rjust(cell) for v in row) for row in self._own(state).grid()]
        lines.append(" ".join(str(c + 1).rjust(cell) for c in range(self.width)))
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True, slots=True)
class Connect4State(StoneState):
    """One position of a :class:`Connect4Game`. Immutable; equal positions compare equal.

    Attributes:
        game: the game (board size and ``k``).
        stones0: player 0's (``X``) stones as a bitboard (see the module docstring).
        stones1: player 1's (``O``) stones, same layout.
        legal: the non-full columns in increasing order; ``()`` exactly when the game is over.
            Derived from the stones, so not part of equality or the hash.
    """

    game: Connect4Game
    stones0: int
    stones1: int
    legal: tuple[int, ...] = dataclasses.field(compare=False, repr=False)

    def compiled_kernel(self) -> Kernel:
        """The game's compiled kernel for the compiled search (any board size)."""
        game = self.game
        return cached_connect4_kernel(game.width, game.height, game.k, game.spec.name)

    def play(self, action: int) -> Connect4State:
        """Drop the mover's stone into column ``action``; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the column is full or does not exist, or the game is over.
        """
        if type(action) is not int:
            check_action_type(action)
        legal = self.legal
        if action not in legal:
            raise IllegalMoveError(_illegal_reason(self, action))
        game = self.game
        stones0 = self.stones0
        stones1 = self.stones1
        # The column's stones are a run from the bottom bit: adding the bottom bit carries into
        # the lowest empty cell of the column.
        bit = ((stones0 | stones1) & game._column_mask[action]) + game._bottom[action]
        if bit & game._top[action]:  # the column is full now
            legal = tuple([c for c in legal if c != action])
        # Only lines through the new stone can be new: test those ``k``-cell windows.
        if stones0.bit_count() == stones1.bit_count():  # player 0 moves
            stones0 |= bit
            if stones0.bit_count() >= game.k:
                for window in game._windows[bit.bit_length() - 1]:
                    if stones0 & window == window:
                        return _new_state(game, stones0, stones1, ())
        else:
            stones1 |= bit
            if stones1.bit_count() >= game.k:
                for window in game._windows[bit.bit_length() - 1]:
                    if stones1 & window == window:
                        return _new_state(game, stones0, stones1, ())
        return _new_state(game, stones0, stones1, legal)

    def grid(self) -> tuple[tuple[int, ...], ...]:
        """The board, **top row first**: 1 = player 0 (``X``), -1 = player 1 (``O``), 0 empty."""
        game = self.game
        stride = game._stride
        rows = []
        for row in range(game.height - 1, -1, -1):
            cells = []
            for column in range(game.width):
                bit = 1 << (column * stride + row)
                cells.append(1 if self.stones0 & bit else -1 if self.stones1 & bit else 0)
            rows.append(tuple(cells))
        return tuple(rows)


def _illegal_reason(state: Connect4State, action: Any) -> str:
    if not state.legal:
        return "the game is over"
    width = state.game.width
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < width:
        return f"action {action!r} is not a column of a {width}-wide board (ids 0..{width - 1})"
    return f"column {action + 1} is full"


# Building a frozen slotted dataclass through its generated ``__init__`` goes through
# ``object.__setattr__`` once per field; setting the slots directly is about twice as fast and
# ``play()`` is the inner loop of every random playout.
_new_object = object.__new__
_set_game = vars(Connect4State)["game"].__set__
_set_stones0 = vars(Connect4State)["stones0"].__set__
_set_stones1 = vars(Connect4State)["stones1"].__set__
_set_legal = vars(Connect4State)["legal"].__set__


def _new_state(
    game: Connect4Game, stones0: int, stones1: int, legal: tuple[int, ...]
) -> Connect4State:
    state = _new_object(Connect4State)
    _set_game(state, game)
    _set_stones0(state, stones0)
    _set_stones1(state, stones1)
    _set_legal(state, legal)
    return state


def play_moves(game: Connect4Game, moves: str, start: Connect4State | None = None) -> Connect4State:
    """The position after playing the columns written in ``moves``.

    Args:
        game: the game.
        moves: column numbers, 1-based from the left. Without separators each character is one
            column (``"4453"``: columns 4, 4, 5, 3 -- the usual connect-four move string, for
            boards up to 9 columns); with spaces, commas or semicolons the text is split into
            numbers (``"10, 4, 11"``), which also works for wider boards.
        start: the position to play from; the initial state by default.

    Raises:
        MoveParseError: a character or token that is not a column number.
        IllegalMoveError: a full or missing column, or a move after the game ended; the message
            gives the 1-based index of the offending move.
    """
    state = game.initial_state() if start is None else start
    stripped = moves.strip()
    if not stripped:
        return state
    tokens = _SEPARATORS.split(stripped) if _SEPARATORS.search(stripped) else list(stripped)
    for index, token in enumerate(tokens, start=1):
        try:
            action = game.string_to_action(state, token)
        except (MoveParseError, IllegalMoveError) as error:
            raise type(error)(f"move {index} of {moves!r}: {error}") from None
        state = state.play(action)
    return state


__all__ = ["PLAYER_NAMES", "Connect4Game", "Connect4State", "play_moves"]
