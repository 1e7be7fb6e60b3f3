"""The Go board: the sizes and komi the game allows, its points and their neighbours, the
Zobrist keys of its positions, its coordinates.

What :mod:`.state` (the rules in Python) and :mod:`.kernel` (the compiled rules) share, so that
neither imports the other:

* a point is ``y * size + x``, column ``x`` from the left and row ``y`` **from the top** (the
  library's grid convention, :mod:`playout._src.game`); its action id is the same number,
  and the pass is action ``size * size``;
* :func:`neighbour_table` lists each point's orthogonal neighbours on the board;
* :func:`zobrist_keys` gives every (colour, point) a 64-bit key; a position's hash is the xor of
  the keys of its stones (the empty board hashes to 0), the same in Python and compiled;
* coordinates are written as GTP writes them (the board's labels): a column letter ``A`` ..
  ``T`` skipping ``I``, and the row number counted from 1 at the **bottom**, so ``A1`` is
  the lower left corner and ``D4`` a 4-4 point.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from playout._src.errors import IllegalMoveError, InvalidParameterError

MIN_SIZE = 2
"""Smallest board side accepted (small boards are for tests and hand-counted positions)."""
MAX_SIZE = 19
"""Largest board side accepted."""

EMPTY, BLACK, WHITE = 0, 1, 2
"""What a point holds. Black is player 0 (moves first), White player 1: a player's colour is
``player + 1`` and the opponent's ``3 - colour``."""

COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRST"
"""The column labels, left to right: the alphabet without ``I`` (GTP, and most boards)."""

DEFAULT_KOMI = 7.5
"""Points White receives for moving second (area scoring, as in Chinese and New Zealand rules
and the computer-go list's 9x9 tests)."""

_ZOBRIST_SEED = 20081013  # the day of Don Dailey's reference-bot post: any fixed seed does


def check_size(size: object) -> int:
    """``size``, unless it is not a whole number in :data:`MIN_SIZE` .. :data:`MAX_SIZE`.

    Raises:
        InvalidParameterError: any other value.
    """
    if isinstance(size, bool) or not isinstance(size, int | np.integer):
        raise InvalidParameterError(f"the board size must be a whole number, got {size!r}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidParameterError(
            f"the board size must be in {MIN_SIZE}..{MAX_SIZE} (9, 13 and 19 are the usual "
            f"ones), got {size}"
        )
    return int(size)


def check_komi(komi: object) -> float:
    """``komi`` as a float, unless it is not a multiple of 0.5 within the largest board's
    area.

    Raises:
        InvalidParameterError: not a number, not finite, not a multiple of 0.5 (the compiled
            kernel counts half points), or larger in magnitude than ``MAX_SIZE ** 2``.
    """
    if isinstance(komi, bool) or not isinstance(komi, int | float | np.integer | np.floating):
        raise InvalidParameterError(f"komi must be a number, got {komi!r}")
    limit = MAX_SIZE * MAX_SIZE
    try:
        value = float(komi)
    except OverflowError:  # a whole number past any float
        raise InvalidParameterError(f"komi must be within -{limit}..{limit}") from None
    if not math.isfinite(value):
        raise InvalidParameterError(f"komi must be a multiple of 0.5, got {komi!r}")
    if abs(value) > MAX_SIZE * MAX_SIZE:  # before doubling it: 1e308 * 2 is infinite
        raise InvalidParameterError(
            f"komi must be within -{MAX_SIZE * MAX_SIZE}..{MAX_SIZE * MAX_SIZE}, got {value:g}"
        )
    if value * 2 != round(value * 2):
        raise InvalidParameterError(f"komi must be a multiple of 0.5, got {komi!r}")
    return value


def default_max_length(size: int) -> int:
    """The default cap on a game's length, passes included: ``3 * size * size`` moves, the cap
    of Don Dailey's reference bot (computer-go list, 2008), 243 on 9x9. A game that reaches it
    ends and is scored as it stands."""
    return 3 * size * size


def check_max_length(max_length: object, size: int) -> int:
    """``max_length``, or :func:`default_max_length` for ``None``.

    Raises:
        InvalidParameterError: not a whole number >= 1.
    """
    if max_length is None:
        return default_max_length(size)
    if isinstance(max_length, bool) or not isinstance(max_length, int | np.integer):
        raise InvalidParameterError(f"max_length must be a whole number, got {max_length!r}")
    if max_length < 1:
        raise InvalidParameterError(f"max_length must be at least 1, got {max_length}")
    return int(max_length)


@functools.cache
def neighbour_table(size: int) -> tuple[tuple[int, ...], ...]:
    """For each point ``y * size + x``, its orthogonal neighbours on the board (up, left,
    right, down: two on a corner, three on an edge, four inside)."""
    table: list[tuple[int, ...]] = []
    for y in range(size):
        for x in range(size):
            around = []
            if y > 0:
                around.append((y - 1) * size + x)
            if x > 0:
                around.append(y * size + x - 1)
            if x < size - 1:
                around.append(y * size + x + 1)
            if y < size - 1:
                around.append((y + 1) * size + x)
            table.append(tuple(around))
    return tuple(table)


@functools.cache
def zobrist_keys() -> np.ndarray:
    """``uint64[2, MAX_SIZE * MAX_SIZE]``: the key of a black (row 0) or white (row 1) stone on
    point ``p``, drawn once from a fixed seed. Every board size uses the first
    ``size * size`` columns. Read-only."""
    keys = np.random.default_rng(_ZOBRIST_SEED).integers(
        1, 2**64, size=(2, MAX_SIZE * MAX_SIZE), dtype=np.uint64, endpoint=False
    )
    keys.setflags(write=False)
    return keys


def point_name(size: int, point: int) -> str:
    """GTP coordinates of ``point``: ``D4`` (column letter, row from 1 at the bottom)."""
    y, x = divmod(point, size)
    return f"{COLUMN_LETTERS[x]}{size - y}"


def point_from_name(size: int, text: str) -> int | None:
    """The point named ``text`` (``D4``, ``d4``; GTP coordinates), or ``None`` when ``text``
    is not a letter followed by a number. Coordinates off the board raise.

    Raises:
        IllegalMoveError: a column or row that the board does not have (the message names
            the board's columns and rows).
    """
    stripped = text.strip()
    if len(stripped) < 2 or not stripped[0].isalpha() or not stripped[1:].isdecimal():
        return None
    letter = stripped[0].upper()
    row = int(stripped[1:])
    columns = COLUMN_LETTERS[:size]
    if letter not in columns or not 1 <= row <= size:
        hint = " (there is no column I)" if letter == "I" else ""
        raise IllegalMoveError(
            f"{stripped!r} is off the {size}x{size} board{hint}: columns "
            f"{columns[0]}..{columns[-1]}, rows 1..{size}"
        )
    return (size - row) * size + columns.index(letter)


def score_text(score: float) -> str:
    """A score (Black's points minus White's, komi included) as GTP's ``final_score`` and
    SGF's ``RE`` write it: ``B+3.5``, ``W+0.5``, or ``0`` for a tie."""
    if score > 0:
        return f"B+{score:g}"
    if score < 0:
        return f"W+{-score:g}"
    return "0"


def score_from_text(text: str) -> float | None:
    """The score that ``text`` (``B+3.5``, ``W+0.5``, ``0``, ``Draw``; any case) gives, Black's
    points minus White's; ``None`` for a result without a margin (``B+R``, ``W+Resign``,
    ``B+T``, ``?``) or text that is not a result."""
    stripped = text.strip().upper()
    if stripped in ("0", "DRAW", "JIGO"):
        return 0.0
    if len(stripped) < 3 or stripped[0] not in "BW" or stripped[1] != "+":
        return None
    try:
        margin = float(stripped[2:])
    except ValueError:
        return None
    if margin != margin or margin in (float("inf"), float("-inf")):
        return None
    return margin if stripped[0] == "B" else -margin


def max_fixed_handicap(size: int) -> int:
    """The most stones GTP's ``fixed_handicap`` places on a ``size`` board: 0 below 7x7, 4 on
    7x7 and even sizes, 9 on odd sizes from 9x9 (GTP version 2, section 4.1.1)."""
    if size < 7:
        return 0
    return 4 if size == 7 or size % 2 == 0 else 9


def fixed_handicap_points(size: int, count: int) -> tuple[int, ...] | None:
    """The points of GTP's fixed handicap of ``count`` stones (2..9) on a ``size`` board:
    the star points in the specification's order (19x19: D4 Q16 D16 Q4, then K10 for an odd
    count, D10 Q10 for six or more, K4 K16 for eight or more); ``None`` when the board has no
    such placement (see :func:`max_fixed_handicap`)."""
    if not 2 <= count <= max_fixed_handicap(size):
        return None
    edge = 3 if size >= 13 else 2
    low, high, mid = edge, size - 1 - edge, size // 2

    def point(x: int, row_from_bottom: int) -> int:
        return (size - 1 - row_from_bottom) * size + x

    corners = [point(low, low), point(high, high), point(low, high), point(high, low)]
    sides = [point(low, mid), point(high, mid), point(mid, low), point(mid, high)]
    centre = point(mid, mid)
    chosen = corners[: min(count, 4)]
    if count >= 6:
        chosen += sides[:2]
    if count >= 8:
        chosen += sides[2:]
    if count % 2 == 1 and count >= 5:
        chosen.append(centre)
    return tuple(chosen)


__all__ = [
    "BLACK",
    "COLUMN_LETTERS",
    "DEFAULT_KOMI",
    "EMPTY",
    "MAX_SIZE",
    "MIN_SIZE",
    "WHITE",
    "check_komi",
    "check_max_length",
    "check_size",
    "default_max_length",
    "fixed_handicap_points",
    "max_fixed_handicap",
    "neighbour_table",
    "point_from_name",
    "point_name",
    "score_from_text",
    "score_text",
    "zobrist_keys",
]
