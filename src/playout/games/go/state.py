"""Go with area scoring (Tromp-Taylor), positional superko and komi, in Python.

The rules are Tromp and Taylor's logical rules of Go (John Tromp, "The game of Go",
https://tromp.github.io/go.html), with suicide forbidden and a cap on the length:

* two players, Black (player 0, moves first) and White (player 1), put stones of their colour
  on the empty points of a ``size`` x ``size`` board, or pass;
* a stone's chain is captured (taken off the board) when it has no liberty (no empty point
  next to one of its stones): first the opponent's chains next to the stone just played, then
  the mover's own, which is suicide and is illegal here;
* a move may not recreate a position (the colours of all points) that a real move has made
  before in the game (positional superko; passes never count), compared by Zobrist hash;
* two passes in a row end the game, and so does its ``max_length``-th move (passes counted;
  default ``3 * size * size``);
* a player's score is their stones plus the empty points that reach only their colour; White
  adds ``komi``. The higher score wins (``returns()``: ``(1, -1)`` Black, ``(-1, 1)`` White,
  ``(0, 0)`` for an equal score, which only a whole-number komi allows).

Action ids: a point ``y * size + x`` (column ``x`` from the left, row ``y`` from the top) is
its id; the pass is ``size * size``. The notation is the board's labels (GTP): ``D4`` is column
D, row 4 counted from the bottom, and ``pass``.

A state keeps the board (``bytes``, one per point), the moves and passes so far, the hash of
the position and the hashes of every position a real move has made (in order, and as a set for
the superko test). Legal moves are worked out once per state, when first asked for. The
compiled kernel (:mod:`.kernel`) plays by the same rules on a compact copy of the state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from playout._src.errors import GameError, IllegalMoveError, MoveParseError
from playout._src.game import TERMINAL, GameSpec, GameState, check_action_type
from playout.games.go.board import (
    BLACK,
    COLUMN_LETTERS,
    DEFAULT_KOMI,
    EMPTY,
    WHITE,
    check_komi,
    check_max_length,
    check_size,
    neighbour_table,
    point_from_name,
    point_name,
    zobrist_keys,
)
from playout.games.go.kernel import go_kernel

if TYPE_CHECKING:
    from playout._src.compiled.kernel import Kernel

PLAYER_NAMES: tuple[str, str] = ("Black", "White")
"""``spec.player_names``: Black moves first."""
SYMBOLS: tuple[str, str] = ("X", "O")
"""How :meth:`GoGame.render` draws Black's and White's stones."""

_STAR_POINTS = {
    9: ((2, 2), (6, 2), (4, 4), (2, 6), (6, 6)),
    13: ((3, 3), (9, 3), (6, 6), (3, 9), (9, 9)),
    19: tuple((x, y) for y in (3, 9, 15) for x in (3, 9, 15)),
}
"""Star points (hoshi), drawn ``+`` on the usual boards: ``(x, y)`` from the top left."""


class GoGame:
    """Go on a ``size`` x ``size`` board with area scoring, komi and positional superko.

    Args:
        size: the board's side, 2..19 (9, 13 and 19 are the usual ones).
        komi: points added to White's score, a multiple of 0.5 (default 7.5).
        max_length: the game ends after this many moves, passes included (default
            ``3 * size * size``), and is scored as it stands.

    Raises:
        InvalidParameterError: a size, komi or length out of range.
    """

    __slots__ = (
        "_hash",
        "_initial",
        "_keys",
        "_neighbours",
        "_star_points",
        "komi",
        "max_length",
        "size",
        "spec",
    )

    symbols: tuple[str, str] = SYMBOLS
    """What :meth:`render` draws for each player's stones (``X`` Black, ``O`` White)."""

    def __init__(
        self, size: int = 9, komi: float = DEFAULT_KOMI, max_length: int | None = None
    ) -> None:
        self.size = check_size(size)
        self.komi = check_komi(komi)
        self.max_length = check_max_length(max_length, self.size)
        points = self.size * self.size
        self.spec = GameSpec(
            name="go",
            num_players=2,
            num_actions=points + 1,
            max_length=self.max_length,
            player_names=PLAYER_NAMES,
        )
        self._neighbours = neighbour_table(self.size)
        keys = zobrist_keys()
        self._keys: tuple[tuple[int, ...], tuple[int, ...]] = (
            tuple(int(k) for k in keys[0, :points]),
            tuple(int(k) for k in keys[1, :points]),
        )
        self._star_points = frozenset(y * self.size + x for x, y in _STAR_POINTS.get(self.size, ()))
        self._hash = hash((GoGame, self.size, self.komi, self.max_length))
        self._initial = GoState(self, bytes(points), 0, 0, (), frozenset(), 0, -1)

    # -- identity -----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GoGame):
            return NotImplemented
        return (self.size, self.komi, self.max_length) == (
            other.size,
            other.komi,
            other.max_length,
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type, tuple[int, float, int]]:
        return (GoGame, (self.size, self.komi, self.max_length))

    def __repr__(self) -> str:
        return f"GoGame(size={self.size}, komi={self.komi:g}, max_length={self.max_length})"

    def rollout_policies(self) -> dict[str, Any]:
        """Rollout policies by name for ``mcts:rollout=NAME`` players: ``heavy``, the
        kernel's heavy playouts, ``mogo``, its MoGo playouts with 3x3 patterns, and
        ``lgrf``, the MoGo playouts answering the last two moves with the last good reply
        first; ``mogo`` and ``lgrf`` score moves for ``RAVE(prior=...)`` with the learned
        ratings, ``mogo-hand`` and ``lgrf-hand`` with the hand-made priors, as ``heavy``
        and the light playouts do (compiled driver only; :mod:`playout.games.go.heavy`)."""
        from playout.games.go import heavy

        return {
            "heavy": heavy.HEAVY_PLAYOUTS,
            "mogo": heavy.MOGO_PLAYOUTS,
            "lgrf": heavy.LGRF_PLAYOUTS,
            "mogo-hand": heavy.MOGO_HAND_PLAYOUTS,
            "lgrf-hand": heavy.LGRF_HAND_PLAYOUTS,
        }

    @property
    def pass_action(self) -> int:
        """The pass's action id: ``size * size``."""
        return self.size * self.size

    @property
    def star_points(self) -> frozenset[int]:
        """The star points (hoshi) of the 9x9, 13x13 and 19x19 boards, as points; empty on
        other sizes."""
        return self._star_points

    # -- positions ----------------------------------------------------------------------------

    def initial_state(self) -> GoState:
        """The empty board, Black to move."""
        return self._initial

    def from_board(self, rows: Sequence[str], to_move: int = 0) -> GoState:
        """A position drawn as text, ``to_move`` (0 Black, 1 White) to play next.

        Args:
            rows: ``size`` strings of ``size`` points each, top row first: ``X`` (or ``B``)
                a black stone, ``O`` (or ``W``) a white one, ``.`` or ``+`` empty; spaces
                are ignored (so the rows of :meth:`render` without their labels work).
            to_move: the player to move. The position counts as the game's first (its hash
                is the history), after 0 moves when Black is to move, else 1.

        Raises:
            GameError: a row of the wrong length, an unknown character, a chain without a
                liberty, or a player that is not 0 or 1.
        """
        size = self.size
        if to_move not in (0, 1):
            raise GameError(f"to_move must be 0 (Black) or 1 (White), got {to_move!r}")
        if len(rows) != size:
            raise GameError(f"a {size}x{size} board needs {size} rows, got {len(rows)}")
        values = {"X": BLACK, "B": BLACK, "O": WHITE, "W": WHITE, ".": EMPTY, "+": EMPTY}
        cells: list[int] = []
        for y, row in enumerate(rows):
            points = row.replace(" ", "")
            if len(points) != size:
                raise GameError(f"row {y + 1} has {len(points)} points, not {size}: {row!r}")
            for char in points:
                if char.upper() not in values:
                    raise GameError(f"unknown point {char!r} in row {y + 1} (use X, O or .)")
                cells.append(values[char.upper()])
        board = bytes(cells)
        chains = _Chains(self, board)
        for point, label in enumerate(chains.chain):
            if label == point and chains.liberties[label] == 0:
                raise GameError(f"the chain at {point_name(size, point)} has no liberty")
        key = chains.position_hash()
        history = (key,) if key else ()
        return GoState(self, board, to_move, 0, history, frozenset(history), key, -1)

    # -- notation and rendering ---------------------------------------------------------------

    def action_to_string(self, state: GameState, action: int) -> str:
        """``pass``, or the point's GTP coordinates (``D4``: column letter, row from 1 at the
        bottom)."""
        if action == self.pass_action:
            return "pass"
        points = self.size * self.size
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < points:
            raise IllegalMoveError(
                f"action {action!r} is not a point of the {self.size}x{self.size} board "
                f"(ids 0..{self.pass_action}, {self.pass_action} the pass)"
            )
        return point_name(self.size, action)

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse ``D4`` (GTP coordinates, any case) or ``pass``.

        Raises:
            MoveParseError: neither a point nor ``pass``.
            IllegalMoveError: a point off the board, or a move the rules forbid here (an
                occupied point, suicide, a repeated position, a finished game).
        """
        own = self._own(state)
        stripped = text.strip()
        if stripped.lower() == "pass":
            action = self.pass_action
        else:
            point = point_from_name(self.size, stripped)
            if point is None:
                raise MoveParseError(
                    f"cannot read move {text!r}: write a column letter and a row number like "
                    f"'D4' (columns {COLUMN_LETTERS[0]}..{COLUMN_LETTERS[self.size - 1]} "
                    f"without I, row 1 at the bottom), or 'pass'"
                )
            action = point
        if action not in own.legal_actions():
            raise IllegalMoveError(own.illegal_reason(action))
        return action

    def render(self, state: GameState) -> str:
        """The board: ``X`` Black, ``O`` White, ``.`` empty (``+`` on star points), column
        letters above and below, row numbers (1 at the bottom) on both sides."""
        own = self._own(state)
        size = self.size
        margin = len(str(size))
        letters = " " * (margin + 1) + " ".join(COLUMN_LETTERS[:size])
        lines = [letters]
        drawn = {BLACK: SYMBOLS[0], WHITE: SYMBOLS[1]}
        for y in range(size):
            points = []
            for x in range(size):
                point = y * size + x
                colour = own.board[point]
                points.append(drawn.get(colour, "+" if point in self._star_points else "."))
            number = str(size - y)
            lines.append(f"{number.rjust(margin)} {' '.join(points)} {number}")
        lines.append(letters)
        return "\n".join(lines)

    def _own(self, state: Any) -> GoState:
        """``state`` as a position of this game.

        Raises:
            GameError: it is not one.
        """
        if not isinstance(state, GoState) or state.game != self:
            raise GameError(f"{state!r} is not a position of {self!r}")
        return state


class _Chains:
    """The chains of a board: ``chain[p]`` labels the stones of one chain by its lowest point
    (-1 on empty points), with each label's number of liberties and the xor of its stones'
    Zobrist keys. Flood fills on an explicit stack."""

    __slots__ = ("board", "chain", "game", "key", "liberties")

    def __init__(self, game: GoGame, board: bytes) -> None:
        self.game = game
        self.board = board
        neighbours = game._neighbours
        chain = [-1] * len(board)
        liberties: dict[int, int] = {}
        key: dict[int, int] = {}
        for start, own in enumerate(board):
            if own == EMPTY or chain[start] >= 0:
                continue
            keys = game._keys[own - 1]
            chain[start] = start
            stack = [start]
            free: set[int] = set()
            xor = 0
            while stack:
                point = stack.pop()
                xor ^= keys[point]
                for n in neighbours[point]:
                    colour = board[n]
                    if colour == EMPTY:
                        free.add(n)
                    elif colour == own and chain[n] < 0:
                        chain[n] = start
                        stack.append(n)
            liberties[start] = len(free)
            key[start] = xor
        self.chain = chain
        self.liberties = liberties
        self.key = key

    def position_hash(self) -> int:
        """The board's Zobrist hash: the xor of its chains' keys."""
        out = 0
        for value in self.key.values():
            out ^= value
        return out

    def captures(self, point: int, own: int) -> list[int]:
        """The opponent chains (labels) a stone of ``own`` on empty ``point`` captures."""
        board, chain, liberties = self.board, self.chain, self.liberties
        out: list[int] = []
        for n in self.game._neighbours[point]:
            colour = board[n]
            if colour != EMPTY and colour != own and liberties[chain[n]] == 1:
                label = chain[n]
                if label not in out:
                    out.append(label)
        return out

    def keeps_liberty(self, point: int, own: int) -> bool:
        """Whether a stone of ``own`` on ``point`` has a liberty without capturing."""
        board, chain, liberties = self.board, self.chain, self.liberties
        for n in self.game._neighbours[point]:
            colour = board[n]
            if colour == EMPTY or (colour == own and liberties[chain[n]] > 1):
                return True
        return False


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class GoState:
    """One position of a :class:`GoGame`. Immutable; equal positions compare equal.

    Attributes:
        game: the game (size, komi, length cap).
        board: one byte per point ``y * size + x``: 0 empty, 1 Black, 2 White.
        num_moves: moves played so far, passes included (Black moves when it is even).
        passes: passes in a row at the end of the game so far (two end it).
        history: the Zobrist hash of every position a real move (or :meth:`GoGame.from_board`)
            made, oldest first; the last is the current position unless none was made.
        seen: the same hashes as a set (the superko test; what equality compares).
        position_hash: the current position's hash (0 for the empty board).
        ko_point: the point of a simple ko the player to move may not retake at once, or -1
            (the compiled rollouts, which play simple ko, start from it; the game's own rule
            is superko, which forbids that retake as well).
        captured: the stones of each colour taken off the board so far, Black's first (so
            ``captured[1]`` is Black's prisoners); only shown, never scored (area scoring).
        last_move: the point of the stone the last move played, or -1 after a pass and in a
            position set up or at the start (the compiled heavier playouts answer it first);
            not part of the position's identity.
    """

    game: GoGame
    board: bytes = dataclasses.field(repr=False)
    num_moves: int
    passes: int
    history: tuple[int, ...] = dataclasses.field(repr=False)
    seen: frozenset[int] = dataclasses.field(repr=False)
    position_hash: int
    ko_point: int
    captured: tuple[int, int] = (0, 0)
    last_move: int = -1
    _legal: list[tuple[int, ...]] = dataclasses.field(default_factory=list, repr=False, init=False)

    # -- identity -----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GoState):
            return NotImplemented
        return (
            self.board == other.board
            and self.num_moves == other.num_moves
            and self.passes == other.passes
            and self.seen == other.seen
            and self.game == other.game
        )

    def __hash__(self) -> int:
        return hash((self.board, self.num_moves, self.passes, self.seen))

    def __str__(self) -> str:
        return self.game.render(self)

    # -- the protocol -------------------------------------------------------------------------

    def compiled_kernel(self) -> Kernel:
        """The game's compiled kernel (:func:`~playout.games.go.kernel.go_kernel`)."""
        game = self.game
        return go_kernel(game.size, game.komi, game.max_length)

    def is_terminal(self) -> bool:
        """Whether two passes in a row or the length cap ended the game."""
        return self.passes >= 2 or self.num_moves >= self.game.max_length

    def current_player(self) -> int:
        """0 (Black) or 1 (White) to move, or :data:`~playout.TERMINAL` once it is over."""
        if self.is_terminal():
            return TERMINAL
        return self.num_moves & 1

    def legal_actions(self) -> tuple[int, ...]:
        """The empty points where the mover's stone is neither suicide nor a repetition of an
        earlier position, in increasing order, then the pass; ``()`` once the game is over."""
        if not self._legal:
            self._legal.append(self._find_legal())
        return self._legal[0]

    def _find_legal(self) -> tuple[int, ...]:
        if self.is_terminal():
            return ()
        game = self.game
        own = (self.num_moves & 1) + 1
        keys = game._keys[own - 1]
        chains = _Chains(game, self.board)
        seen = self.seen
        key = self.position_hash
        legal: list[int] = []
        for point, colour in enumerate(self.board):
            if colour != EMPTY:
                continue
            captured = chains.captures(point, own)
            if not captured and not chains.keeps_liberty(point, own):
                continue  # suicide
            after = key ^ keys[point]
            for label in captured:
                after ^= chains.key[label]
            if after not in seen:
                legal.append(point)
        legal.append(game.pass_action)
        return tuple(legal)

    def play(self, action: int) -> GoState:
        """The position after ``action`` (a point or the pass); ``self`` is unchanged.

        Raises:
            IllegalMoveError: the game is over, or the move is not legal (the message says
                why: off the board, occupied, suicide, a repeated position).
        """
        if type(action) is not int:
            check_action_type(action)
        if action not in self.legal_actions():
            raise IllegalMoveError(self.illegal_reason(action))
        game = self.game
        if action == game.pass_action:
            return GoState(
                game,
                self.board,
                self.num_moves + 1,
                self.passes + 1,
                self.history,
                self.seen,
                self.position_hash,
                -1,
                self.captured,
            )
        own = (self.num_moves & 1) + 1
        chains = _Chains(game, self.board)
        captured = chains.captures(action, own)
        board = bytearray(self.board)
        board[action] = own
        key = self.position_hash ^ game._keys[own - 1][action]
        removed = []
        for label in captured:
            key ^= chains.key[label]
            for point in range(label, len(board)):
                if chains.chain[point] == label:
                    board[point] = EMPTY
                    removed.append(point)
        ko_point = -1
        if len(removed) == 1:
            around = [board[n] for n in game._neighbours[action]]
            if own not in around and around.count(EMPTY) == 1:
                ko_point = removed[0]
        captured_now = list(self.captured)
        captured_now[2 - own] += len(removed)  # the opponent's stones (own is 1 or 2)
        return GoState(
            game,
            bytes(board),
            self.num_moves + 1,
            0,
            (*self.history, key),
            self.seen | {key},
            key,
            ko_point,
            (captured_now[0], captured_now[1]),
            action,
        )

    def illegal_reason(self, action: object) -> str:
        """Why ``action`` is not a legal move here (for error messages)."""
        game = self.game
        if self.is_terminal():
            return "the game is over"
        if (
            isinstance(action, bool)
            or not isinstance(action, int)
            or not 0 <= action <= game.pass_action
        ):
            return (
                f"action {action!r} is not a point of the {game.size}x{game.size} board "
                f"(ids 0..{game.pass_action}, {game.pass_action} the pass)"
            )
        if action in self.legal_actions():
            return f"{game.action_to_string(self, action)} is legal"
        name = point_name(game.size, action)
        if self.board[action] != EMPTY:
            return f"{name} is occupied"
        own = (self.num_moves & 1) + 1
        chains = _Chains(game, self.board)
        if not chains.captures(action, own) and not chains.keeps_liberty(action, own):
            return f"{name} is suicide"
        return f"{name} would repeat an earlier position (positional superko)"

    def returns(self) -> tuple[float, float]:
        """``(1, -1)`` when Black's area beats White's plus komi, ``(-1, 1)`` when it falls
        short, ``(0, 0)`` for a tie and while the game goes on."""
        if not self.is_terminal():
            return (0.0, 0.0)
        score = self.score()
        if score > 0:
            return (1.0, -1.0)
        if score < 0:
            return (-1.0, 1.0)
        return (0.0, 0.0)

    # -- scoring ------------------------------------------------------------------------------

    def area(self) -> tuple[int, int]:
        """Black's and White's area (Tromp-Taylor): stones, plus the empty points of each
        region that reaches stones of one colour only (counted whether or not the game is
        over)."""
        board = self.board
        neighbours = self.game._neighbours
        area = [0, 0, 0]
        visited = bytearray(len(board))
        for start, colour in enumerate(board):
            if colour != EMPTY:
                area[colour] += 1
                continue
            if visited[start]:
                continue
            visited[start] = 1
            stack = [start]
            size = 0
            reaches = 0
            while stack:
                point = stack.pop()
                size += 1
                for n in neighbours[point]:
                    if board[n] == EMPTY:
                        if not visited[n]:
                            visited[n] = 1
                            stack.append(n)
                    else:
                        reaches |= board[n]
            if reaches in (BLACK, WHITE):
                area[reaches] += size
        return area[BLACK], area[WHITE]

    def score(self) -> float:
        """Black's area minus White's, minus komi: positive when Black is ahead."""
        black, white = self.area()
        return black - white - self.game.komi

    def colour_at(self, name: str) -> int:
        """What the point named ``name`` (``D4``) holds: 0 empty, 1 Black, 2 White."""
        point = point_from_name(self.game.size, name)
        if point is None:
            raise MoveParseError(f"not a point: {name!r}")
        return self.board[point]


def play_moves(game: GoGame, moves: str, start: GoState | None = None) -> GoState:
    """The position after ``moves``: points and passes separated by spaces or commas
    (``"D4 F5 pass"``), played from ``start`` (the empty board by default).

    Raises:
        MoveParseError, IllegalMoveError: a move that cannot be read or played (the message
            gives its 1-based index).
    """
    state = game.initial_state() if start is None else start
    for index, token in enumerate(moves.replace(",", " ").split(), start=1):
        try:
            action = game.string_to_action(state, token)
        except (MoveParseError, IllegalMoveError) as error:
            raise type(error)(f"move {index} of {moves!r}: {error}") from None
        state = state.play(action)
    return state


__all__ = ["PLAYER_NAMES", "SYMBOLS", "GoGame", "GoState", "play_moves"]
