"""Chess, through python-chess (``pip install chess``, or ``playout[chess]``).

>>> game = ChessGame()                                   # or make_game("chess")
>>> state = game.from_moves("e2e4 e7e5 Nf3")             # UCI or SAN
>>> game.action_to_string(state, game.string_to_action(state, "Nc6"))
'b8c6'

Rules are python-chess's: a game ends by checkmate, stalemate, insufficient material, the
75-move rule or fivefold repetition (the endings that need no claim, as in
``board.outcome(claim_draw=False)``). On top of that a game is **declared drawn after**
``max_plies`` **half-moves** (512 by default) counted from the game's start position, so every
game has a bounded length (``spec.max_length``). Player 0 is white, player 1 black;
``returns()`` is ``(1, -1)`` when white mates, ``(-1, 1)`` when black does, else ``(0, 0)``.

Action ids (``NUM_ACTIONS = 4240``)
-----------------------------------
* ``from_square * 64 + to_square`` (python-chess square numbers, ``a1 = 0 .. h8 = 63``) for
  every move that is not an under-promotion; a pawn reaching the last rank this way promotes
  to a queen (``e7e8q`` is ``52 * 64 + 60``);
* ``4096 + ((side * 8 + from_file) * 3 + (to_file - from_file + 1)) * 3 + piece`` for
  under-promotions, with ``side`` 0 for white (to rank 8) and 1 for black (to rank 1) and
  ``piece`` 0, 1, 2 for knight, bishop, rook.

:func:`move_to_action` and :func:`action_to_move` convert. Castling is the king's move
(``e1g1``), as in UCI.

Notation: :meth:`ChessGame.action_to_string` writes UCI (``e2e4``, ``e7e8q``);
:meth:`ChessGame.string_to_action` reads UCI or SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q+``).

States wrap a private ``chess.Board`` that is never changed once built: :meth:`ChessState.play`
copies the board *without* its move stack (copying the stack costs about 1.5 us per move and
the search plays millions of moves) and keeps, for fivefold repetition, the tuple of the
positions since the last capture or pawn move instead (no repetition can reach further back).
Two states are equal when they have the same game, the same position with the same clocks
(the same FEN), the same ply count and the same positions since the last capture or pawn
move; the hash is the position's polyglot Zobrist hash.

Searching chess: random playouts to the end say almost nothing about a chess position, so
:func:`chess_evaluator` (what :meth:`ChessGame.default_evaluator` returns) scores leaves with
:func:`chess_heuristic`, a static material, capture and mobility estimate, and offers move
priors (captures, escapes, checks first) for PUCT, the rule :func:`chess_selection` (and
:meth:`ChessGame.default_selection`) recommends. The ``playout`` command uses both::

    result = playout.search(state, simulations=1000, evaluator=chess_evaluator(),
                            selection=chess_selection())
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from typing import Any

from playout._src.errors import GameError, IllegalMoveError, InvalidParameterError, MoveParseError
from playout._src.game import TERMINAL, GameSpec, GameState, check_action_type
from playout._src.optional import missing_dependency
from playout._src.rules import PUCT

try:
    import chess
    import chess.polyglot
except ImportError as error:  # pragma: no cover - depends on the environment
    raise missing_dependency("chess", "playout.games.chess") from error

STARTING_FEN: str = chess.STARTING_FEN
"""The standard start position."""

DEFAULT_MAX_PLIES = 512
"""Half-moves after which a game still running is declared drawn."""

NUM_ACTIONS = 4096 + 2 * 8 * 3 * 3
"""Action ids are ``0 .. NUM_ACTIONS - 1`` (see the module docstring)."""

_UNDERPROMOTION_BASE = 4096
_WHITE_WINS: tuple[float, float] = (1.0, -1.0)
_BLACK_WINS: tuple[float, float] = (-1.0, 1.0)
_NO_WINNER: tuple[float, float] = (0.0, 0.0)
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?", re.IGNORECASE)
_FIVEFOLD_EARLIER = 4  # the position must have occurred 4 times before (5 in all)
_COLOR_NAMES = ("black", "white")  # indexed by chess.Color (False = black, True = white)

CHECKMATE = "checkmate"
STALEMATE = "stalemate"
INSUFFICIENT_MATERIAL = "insufficient material"
SEVENTYFIVE_MOVES = "75-move rule"
FIVEFOLD_REPETITION = "fivefold repetition"
PLY_LIMIT = "ply limit"
"""The values of :attr:`ChessState.ending` (``None`` while the game runs)."""


# ---------------------------------------------------------------------------- action ids


def move_to_action(move: chess.Move) -> int:
    """The action id of ``move`` (see the module docstring); queen promotions share the id
    of the plain ``from -> to`` move."""
    promotion = move.promotion
    if promotion is None or promotion == chess.QUEEN:
        return move.from_square * 64 + move.to_square
    from_file = chess.square_file(move.from_square)
    side = 0 if chess.square_rank(move.to_square) == 7 else 1
    delta = chess.square_file(move.to_square) - from_file
    return (
        _UNDERPROMOTION_BASE
        + ((side * 8 + from_file) * 3 + delta + 1) * 3
        + (promotion - chess.KNIGHT)
    )


def action_to_move(action: int, board: chess.Board | None = None) -> chess.Move:
    """The move of ``action``. With ``board``, a pawn moving to the last rank by a plain
    ``from -> to`` id promotes to a queen; without it that id decodes with no promotion.

    Raises:
        IllegalMoveError: ``action`` is not an id in ``[0, NUM_ACTIONS)``.
    """
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise IllegalMoveError(f"action {action!r} is not a chess action id (0..{NUM_ACTIONS - 1})")
    if action < _UNDERPROMOTION_BASE:
        from_square, to_square = divmod(action, 64)
        promotion = None
        if (
            board is not None
            and board.piece_type_at(from_square) == chess.PAWN
            and chess.square_rank(to_square) in (0, 7)
        ):
            promotion = chess.QUEEN
        return chess.Move(from_square, to_square, promotion)
    index = action - _UNDERPROMOTION_BASE
    index, piece = divmod(index, 3)
    index, delta = divmod(index, 3)
    side, from_file = divmod(index, 8)
    to_file = from_file + delta - 1
    if not 0 <= to_file < 8:
        raise IllegalMoveError(f"action {action} is not a chess move (promotion off the board)")
    from_rank, to_rank = (6, 7) if side == 0 else (1, 0)
    return chess.Move(
        chess.square(from_file, from_rank),
        chess.square(to_file, to_rank),
        chess.KNIGHT + piece,
    )


# ---------------------------------------------------------------------------- the game


def _board_from_fen(fen: str) -> chess.Board:
    if not isinstance(fen, str):
        raise GameError(f"a FEN is a string, got {fen!r}")
    text = fen.strip()
    if text in ("", "startpos"):
        return chess.Board()
    try:
        board = chess.Board(text)
    except ValueError as error:
        raise GameError(f"bad FEN {fen!r}: {error}") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = ", ".join(
            (flag.name or "").lower().replace("_", " ") for flag in chess.Status if flag & status
        )
        raise GameError(f"bad FEN {fen!r}: impossible position ({problems})")
    return board


class ChessGame:
    """Standard chess from the start position or from a FEN.

    Args:
        fen: the start position (``None``, ``""`` or ``"startpos"`` for the usual one).
        max_plies: half-moves after which a running game is declared drawn (>= 1).
        name: registry name reported in :attr:`spec`.

    Raises:
        GameError: a malformed FEN or an impossible position (no king, side not to move in
            check, pawns on the back rank, ...).
        InvalidParameterError: ``max_plies`` below 1.
    """

    __slots__ = ("_fen", "_hash", "_initial", "max_plies", "spec")

    def __init__(
        self, fen: str | None = None, *, max_plies: int = DEFAULT_MAX_PLIES, name: str = "chess"
    ) -> None:
        if isinstance(max_plies, bool) or not isinstance(max_plies, int) or max_plies < 1:
            raise InvalidParameterError(f"max_plies must be a whole number >= 1, got {max_plies!r}")
        board = _board_from_fen("" if fen is None else fen)
        self._fen = board.fen()
        self.max_plies = max_plies
        self.spec = GameSpec(
            name=name,
            num_players=2,
            num_actions=NUM_ACTIONS,
            max_length=max_plies,
            player_names=("White", "Black"),
        )
        self._hash = hash((ChessGame, self._fen, max_plies, name))
        self._initial = _new_state(self, board, 0, ())

    @classmethod
    def from_fen(cls, fen: str, *, max_plies: int = DEFAULT_MAX_PLIES) -> ChessGame:
        """The game starting from the position ``fen``; see :class:`ChessGame`."""
        return cls(fen, max_plies=max_plies)

    @property
    def fen(self) -> str:
        """FEN of the start position."""
        return self._fen

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChessGame):
            return NotImplemented
        return (self._fen, self.max_plies, self.spec.name) == (
            other._fen,
            other.max_plies,
            other.spec.name,
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (_make_chess_game, (self._fen, self.max_plies, self.spec.name))

    def __repr__(self) -> str:
        if self._fen == STARTING_FEN and self.max_plies == DEFAULT_MAX_PLIES:
            return "ChessGame()"
        return f"ChessGame({self._fen!r}, max_plies={self.max_plies})"

    def initial_state(self) -> ChessState:
        """The start position."""
        return self._initial

    def default_evaluator(self) -> ChessEvaluator:
        """The evaluator a search of chess should use: :func:`chess_evaluator`."""
        return chess_evaluator()

    def default_selection(self) -> PUCT:
        """The selection rule a search of chess should use: :func:`chess_selection`."""
        return chess_selection()

    def from_moves(self, moves: str | Sequence[str], start: ChessState | None = None) -> ChessState:
        """The position after ``moves`` (UCI or SAN, a list or a space-separated string).

        Raises:
            MoveParseError, IllegalMoveError: as :meth:`string_to_action`, with the move's
                1-based index.
        """
        state = self._initial if start is None else self._own(start)
        tokens = moves.split() if isinstance(moves, str) else list(moves)
        for index, token in enumerate(tokens, start=1):
            try:
                action = self.string_to_action(state, token)
            except (MoveParseError, IllegalMoveError) as error:
                raise type(error)(f"move {index} ({token!r}): {error}") from None
            state = state.play(action)
        return state

    # -- notation and rendering ---------------------------------------------------------------

    def action_to_string(self, state: GameState, action: int) -> str:
        """UCI notation of ``action`` in ``state``: ``e2e4``, ``e7e8q``, ``e1g1`` (castling)."""
        own = self._own(state)
        move = own._move_map().get(action)
        if move is None:
            move = action_to_move(action, own._board)
        return move.uci()

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``O-O``, ``exd5``, ``e8=Q``).

        Raises:
            MoveParseError: neither UCI nor SAN, or an ambiguous SAN move (``Nd2`` when two
                knights can go there).
            IllegalMoveError: a well-formed move that is not legal here, or the game is over.
        """
        own = self._own(state)
        stripped = text.strip()
        if own.is_terminal():
            raise IllegalMoveError(f"the game is over ({own.ending})")
        board = own._board
        try:
            if _UCI.fullmatch(stripped):
                move = board.parse_uci(stripped.lower())
            else:
                move = board.parse_san(stripped)
        except chess.IllegalMoveError:
            raise IllegalMoveError(f"{stripped} is not legal here") from None
        except chess.AmbiguousMoveError:
            raise MoveParseError(
                f"{stripped} is ambiguous here: name the piece's file or rank (e.g. Nbd2)"
            ) from None
        except ValueError:
            raise MoveParseError(
                f"cannot read move {text!r}: write UCI (e2e4, e7e8q) or SAN (Nf3, O-O)"
            ) from None
        action = move_to_action(move)
        if own._move_map().get(action) != move:
            raise IllegalMoveError(f"{stripped} is not legal here")
        return action

    def render(self, state: GameState, *, unicode: bool = False) -> str:
        """The board, rank 8 on top, with coordinates, then who is to move or how it ended.

        Args:
            state: the position.
            unicode: chess glyphs instead of letters (upper case white, lower case black).
        """
        own = self._own(state)
        board = own._board
        lines = []
        for rank in range(7, -1, -1):
            cells = []
            for file in range(8):
                piece = board.piece_at(chess.square(file, rank))
                if piece is None:
                    cells.append(".")
                else:
                    cells.append(piece.unicode_symbol() if unicode else piece.symbol())
            lines.append(f"{rank + 1} {' '.join(cells)}")
        lines.append("  a b c d e f g h")
        lines.append(own.status_text())
        return "\n".join(lines)

    def _own(self, state: Any) -> ChessState:
        if not isinstance(state, ChessState) or state.game != self:
            raise GameError(f"{state!r} is not a position of {self!r}")
        return state


def _make_chess_game(fen: str, max_plies: int, name: str) -> ChessGame:
    return ChessGame(fen, max_plies=max_plies, name=name)


# ---------------------------------------------------------------------------- states

_UNKNOWN: Any = object()


class ChessState:
    """One chess position (with what the draw rules need of its past). Immutable, hashable.

    Build states with :meth:`ChessGame.initial_state` and :meth:`play`, never directly.

    Attributes:
        game: the :class:`ChessGame`.
        ply: half-moves played since the game's start position.
    """

    __slots__ = ("_board", "_ending", "_hash", "_legal", "_moves", "_repetitions", "game", "ply")

    game: ChessGame
    ply: int
    _board: chess.Board
    _repetitions: tuple[Any, ...]
    _moves: dict[int, chess.Move] | None
    _legal: tuple[int, ...]
    _ending: str | None
    _hash: int | None

    # -- views ----------------------------------------------------------------------------

    @property
    def board(self) -> chess.Board:
        """A copy of the position as a ``chess.Board`` (without move history)."""
        return self._board.copy(stack=False)

    def fen(self) -> str:
        """The position in Forsyth-Edwards Notation."""
        return self._board.fen()

    @property
    def turn(self) -> chess.Color:
        """``chess.WHITE`` (True) or ``chess.BLACK`` (False): whose move it is on the board."""
        return self._board.turn

    def legal_moves(self) -> list[chess.Move]:
        """The legal moves as ``chess.Move`` objects (empty once the game is over)."""
        return list(self._move_map().values())

    @property
    def ending(self) -> str | None:
        """Why the game ended (:data:`CHECKMATE`, :data:`STALEMATE`, ...), or ``None``."""
        self._analyse()
        return self._ending

    def winner(self) -> int | None:
        """0 (white) or 1 (black) after a checkmate, else ``None``."""
        if self.ending != CHECKMATE:
            return None
        return 1 if self._board.turn == chess.WHITE else 0

    def status_text(self) -> str:
        """One line: ``white to move``, ``black to move (check)``, ``checkmate: white wins``,
        ``draw: stalemate``."""
        ending = self.ending
        if ending == CHECKMATE:
            return f"checkmate: {_COLOR_NAMES[not self._board.turn]} wins"
        if ending is not None:
            return f"draw: {ending}"
        check = " (check)" if self._board.is_check() else ""
        return f"{_COLOR_NAMES[self._board.turn]} to move{check}"

    # -- the game protocol ----------------------------------------------------------------

    def current_player(self) -> int:
        """0 (white) or 1 (black) to move, or :data:`~playout.TERMINAL` once it is over."""
        if self.ending is not None:
            return TERMINAL
        return 0 if self._board.turn == chess.WHITE else 1

    def legal_actions(self) -> tuple[int, ...]:
        """Action ids of the legal moves; empty once the game is over."""
        self._analyse()
        return self._legal

    def is_terminal(self) -> bool:
        """Whether the game is over (see the module docstring for the endings)."""
        return self.ending is not None

    def returns(self) -> tuple[float, float]:
        """``(1, -1)`` once white has mated, ``(-1, 1)`` once black has, else ``(0, 0)``."""
        winner = self.winner()
        if winner == 0:
            return _WHITE_WINS
        if winner == 1:
            return _BLACK_WINS
        return _NO_WINNER

    def play(self, action: int) -> ChessState:
        """The position after ``action``; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the action is not legal here, or the game is over.
        """
        if type(action) is not int:
            check_action_type(action)
        move = self._move_map().get(action)
        if move is None:
            if self.is_terminal():
                raise IllegalMoveError(f"the game is over ({self._ending})")
            raise IllegalMoveError(f"action {action!r} is not a legal move here")
        board = self._board
        if board.is_zeroing(move):
            repetitions: tuple[Any, ...] = ()
        else:
            repetitions = (*self._repetitions, board._transposition_key())
        child = board.copy(stack=False)
        child.push(move)
        return _new_state(self.game, child, self.ply + 1, repetitions)

    # -- equality -------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChessState):
            return NotImplemented
        if self is other:
            return True
        mine, theirs = self._board, other._board
        return (
            self.ply == other.ply
            and mine.halfmove_clock == theirs.halfmove_clock
            and mine.fullmove_number == theirs.fullmove_number
            and mine._transposition_key() == theirs._transposition_key()
            and self._repetitions == other._repetitions
            and self.game == other.game
        )

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = chess.polyglot.zobrist_hash(self._board)
        return self._hash

    def __repr__(self) -> str:
        return f"<ChessState {self._board.fen()!r} ply={self.ply}>"

    def __str__(self) -> str:
        return self.game.render(self)

    # -- internals ------------------------------------------------------------------------

    def _move_map(self) -> dict[int, chess.Move]:
        self._analyse()
        assert self._moves is not None
        return self._moves

    def _analyse(self) -> None:
        """Generate the legal moves once and decide whether (and how) the game has ended."""
        if self._moves is not None:
            return
        board = self._board
        moves = list(board.generate_legal_moves())
        if not moves:
            ending: str | None = CHECKMATE if board.is_check() else STALEMATE
        elif board.is_insufficient_material():
            ending = INSUFFICIENT_MATERIAL
        elif board.halfmove_clock >= 150:
            ending = SEVENTYFIVE_MOVES
        elif (
            len(self._repetitions) >= 2 * _FIVEFOLD_EARLIER
            and self._repetitions.count(board._transposition_key()) >= _FIVEFOLD_EARLIER
        ):
            ending = FIVEFOLD_REPETITION
        elif self.ply >= self.game.max_plies:
            ending = PLY_LIMIT
        else:
            ending = None
        if ending is None:
            self._moves = {move_to_action(move): move for move in moves}
            self._legal = tuple(self._moves)
        else:
            self._moves = {}
            self._legal = ()
        self._ending = ending


def _new_state(
    game: ChessGame, board: chess.Board, ply: int, repetitions: tuple[Any, ...]
) -> ChessState:
    state = object.__new__(ChessState)
    state.game = game
    state.ply = ply
    state._board = board
    state._repetitions = repetitions
    state._moves = None
    state._legal = ()
    state._ending = _UNKNOWN
    state._hash = None
    return state


# ---------------------------------------------------------------------------- evaluation

PIECE_VALUES: tuple[float, ...] = (0.0, 1.0, 3.0, 3.25, 5.0, 9.0, 0.0)
"""Value in pawns, indexed by ``chess.PieceType`` (index 0 unused; the king counts 0)."""

_MOBILITY_WEIGHT = 0.03  # pawns per attacked square not occupied by an own piece
_SCALE = 4.0  # tanh(pawns / _SCALE): a pawn is worth about 0.25, a queen about 0.98


def material_balance(board: chess.Board) -> float:
    """White's material minus black's, in pawns (:data:`PIECE_VALUES`)."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    total = 0.0
    for mask, value in (
        (board.pawns, 1.0),
        (board.knights, PIECE_VALUES[chess.KNIGHT]),
        (board.bishops, PIECE_VALUES[chess.BISHOP]),
        (board.rooks, PIECE_VALUES[chess.ROOK]),
        (board.queens, PIECE_VALUES[chess.QUEEN]),
    ):
        total += value * ((mask & white).bit_count() - (mask & black).bit_count())
    return total


def _mobility(board: chess.Board, color: chess.Color) -> int:
    """Squares attacked by ``color``'s knights, bishops and rooks, own pieces excluded.

    The queen is left out: counting its squares sends it out early, where it gets chased.
    """
    own = board.occupied_co[color]
    pieces = own & (board.knights | board.bishops | board.rooks)
    attacks_mask = board.attacks_mask
    return sum((attacks_mask(square) & ~own).bit_count() for square in chess.scan_forward(pieces))


def _best_capture_gain(board: chess.Board, moves: Sequence[chess.Move]) -> float:
    """The most material, in pawns (>= 0), the side to move wins with one capture or
    promotion: the victim's value, less the capturing piece's when the square is defended."""
    them = not board.turn
    theirs = board.occupied_co[them]
    best = 0.0
    for move in moves:
        to_square = move.to_square
        if not (theirs >> to_square) & 1:
            if move.promotion:
                best = max(best, PIECE_VALUES[move.promotion] - 1.0)
            continue
        victim = PIECE_VALUES[board.piece_type_at(to_square) or 0]
        gain = victim
        if board.is_attacked_by(them, to_square):
            gain -= PIECE_VALUES[board.piece_type_at(move.from_square) or 0]
        if move.promotion:
            gain += PIECE_VALUES[move.promotion] - 1.0
        if gain > best:
            best = gain
    return best


def chess_score(state: ChessState) -> float:
    """The static score of a running game in pawns, for the side to move.

    Material (:data:`PIECE_VALUES`) + the best single capture (or promotion) available, a
    defended target costing the capturer + 0.03 per square attacked by knights, bishops
    and rooks (side to move minus opponent).
    """
    board = state._board
    us = board.turn
    material = material_balance(board)
    if us == chess.BLACK:
        material = -material
    gain = _best_capture_gain(board, state.legal_moves())
    mobility = _mobility(board, us) - _mobility(board, not us)
    return material + gain + _MOBILITY_WEIGHT * mobility


def chess_heuristic(state: GameState) -> float:
    """Value of a chess position for the side to move, in ``(-1, 1)``: ``tanh(score / 4)``
    of :func:`chess_score` (a pawn is about 0.25). Finished games get their exact value:
    -1 for the side to move when it is mated, 0 for a draw.
    """
    if not isinstance(state, ChessState):
        raise GameError(f"chess_heuristic needs a chess position, got {state!r}")
    ending = state.ending
    if ending is not None:
        return -1.0 if ending == CHECKMATE else 0.0
    return math.tanh(chess_score(state) / _SCALE)


def _lowest_attacker_value(board: chess.Board, color: chess.Color, square: int) -> float:
    """Value of ``color``'s cheapest piece attacking ``square`` (``inf`` if none)."""
    attackers = board.attackers_mask(color, square)
    if not attackers:
        return math.inf
    return min(
        PIECE_VALUES[board.piece_type_at(s) or 0] or 100.0 for s in chess.scan_forward(attackers)
    )


def move_score(board: chess.Board, move: chess.Move) -> float:
    """A quick guess of how good ``move`` is, in pawns, for ordering moves (priors).

    The captured piece, less the capturing piece when the square is defended; minus the
    moving piece when it lands where a cheaper piece attacks it (or an undefended square that
    is attacked); plus the piece's value when it leaves a square where it was in danger;
    plus the promotion gain and a half pawn for a check.
    """
    us = board.turn
    them = not us
    from_square, to_square = move.from_square, move.to_square
    mover = board.piece_type_at(from_square) or chess.PAWN
    mover_value = PIECE_VALUES[mover] if mover != chess.KING else 0.0
    score = 0.0
    victim = board.piece_type_at(to_square)
    if victim is not None:
        score += PIECE_VALUES[victim]
    if mover_value:
        # Danger where the piece stands now ...
        threat = _lowest_attacker_value(board, them, from_square)
        if threat < mover_value or (
            threat < math.inf and not board.attackers_mask(us, from_square)
        ):
            score += mover_value
        # ... and where it lands (the moving piece no longer defends its own square).
        threat = _lowest_attacker_value(board, them, to_square)
        if threat < math.inf:
            defended = board.attackers_mask(us, to_square) & ~chess.BB_SQUARES[from_square]
            if threat < mover_value or not defended:
                score -= mover_value
    if move.promotion:
        score += PIECE_VALUES[move.promotion] - 1.0
    if board.gives_check(move):
        score += 0.5
    return score


@dataclasses.dataclass(frozen=True, kw_only=True)
class ChessEvaluator:
    """Leaf values from :func:`chess_heuristic` and move priors from :func:`move_score`.

    ``evaluate`` is the static value for the side to move (no playout: random moves in chess
    mostly give material away, so playouts, even short ones cut off by the heuristic, add
    noise); ``priors`` is ``softmax(move_score / temperature)`` over the legal moves, which
    the PUCT rule (Silver et al. 2017) uses to look at captures and escapes first.

    Args:
        temperature: in pawns; lower concentrates the priors on the best-looking moves.
    """

    temperature: float = 1.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and self.temperature > 0):
            raise InvalidParameterError(f"temperature must be > 0, got {self.temperature}")

    def evaluate(self, state: GameState, rng: Any = None) -> float:
        """:func:`chess_heuristic` of ``state``: the value for the side to move."""
        return chess_heuristic(state)

    def priors(self, state: GameState, actions: Sequence[int]) -> list[float]:
        """Prior probability of each of ``actions`` (legal in ``state``), summing to 1."""
        if not isinstance(state, ChessState):
            raise GameError(f"ChessEvaluator needs a chess position, got {state!r}")
        board = state._board
        moves = state._move_map()
        scores = [move_score(board, moves[int(action)]) for action in actions]
        if not scores:
            return []
        top = max(scores)
        weights = [math.exp((score - top) / self.temperature) for score in scores]
        total = sum(weights)
        return [weight / total for weight in weights]


def chess_evaluator() -> ChessEvaluator:
    """The recommended evaluator for searching chess (see :class:`ChessEvaluator`); use it
    with :func:`chess_selection`."""
    return ChessEvaluator()


def chess_selection() -> PUCT:
    """The recommended selection rule for chess: PUCT with :class:`ChessEvaluator`'s priors.

    UCB1 tries every reply about equally often before it trusts the values, so with a few
    thousand simulations it still averages a blunder with harmless replies; the priors make
    PUCT look at the refutation (a capture of the hanging piece) first.
    """
    return PUCT()


__all__ = [
    "CHECKMATE",
    "DEFAULT_MAX_PLIES",
    "FIVEFOLD_REPETITION",
    "INSUFFICIENT_MATERIAL",
    "NUM_ACTIONS",
    "PIECE_VALUES",
    "PLY_LIMIT",
    "SEVENTYFIVE_MOVES",
    "STALEMATE",
    "STARTING_FEN",
    "ChessEvaluator",
    "ChessGame",
    "ChessState",
    "action_to_move",
    "chess_evaluator",
    "chess_heuristic",
    "chess_score",
    "chess_selection",
    "material_balance",
    "move_score",
    "move_to_action",
]
