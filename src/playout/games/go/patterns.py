"""MoGo's 3x3 patterns around a point, written out readably and built once into a lookup table.

Gelly, Wang, Munos and Teytaud ("Modification of UCT with patterns in Monte-Carlo Go", INRIA
research report RR-6062, 2006, figures 2 to 5) made MoGo's playouts answer the last move with
a point next to it whose 3x3 surroundings match one of a few hand-made shapes: hane, two cuts
and moves on the edge. :data:`PATTERNS` writes them down in the notation below, as read from
the report's figures (no other program's table is copied); :func:`pattern_table` turns them,
with every rotation, reflection and colour swap, into a table indexed by a 16-bit code of the
eight neighbours, which the compiled kernel (:mod:`.kernel`) reads in its playouts and its
prior knowledge.

A pattern is three rows of three symbols, top row first; the centre is the empty point to
play. The symbols:

=====  =====================================================
``X``  a stone of one colour
``O``  a stone of the other colour
``x``  not an ``X`` stone: an ``O`` stone or an empty point
``o``  not an ``O`` stone: an ``X`` stone or an empty point
``.``  an empty point
``#``  off the board
``?``  anything, off the board included
=====  =====================================================

A pattern matches for either player to move, with ``X`` standing for Black or for White,
unless it is marked ``x_to_play``: then only when the player to move owns the ``X`` stones
(the report's thin hane, drawn with a square on a stone of the player to move). The report
also marks three of its edge patterns for one colour; they match here for both, a
simplification. The code of a point's surroundings (:func:`neighbour_code`) gives each of the
eight neighbours two bits, in the order of :data:`NEIGHBOUR_OFFSETS`: 0 empty, 1 Black,
2 White, 3 off the board (the values of :mod:`.board`'s colours and the playout board's
border).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import numpy as np

from playout.games.go.board import BLACK, EMPTY, WHITE

OFF_BOARD = 3
"""A neighbour's value when it lies off the board."""

NEIGHBOUR_OFFSETS: tuple[tuple[int, int], ...] = (
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
)
"""``(dx, dy)`` of the eight neighbours, ``y`` growing downwards (the board's rows, top
first): neighbour ``i`` takes bits ``2i`` and ``2i + 1`` of the code."""

NUM_CODES = 1 << 16
"""Codes of the eight neighbours (two bits each)."""


@dataclasses.dataclass(frozen=True)
class Pattern:
    """One 3x3 shape: ``rows`` top first, the centre the point to play (module docstring)."""

    name: str
    rows: tuple[str, str, str]
    x_to_play: bool = False


PATTERNS: tuple[Pattern, ...] = (
    # Hane (report's figure 2): a diagonal answer that wraps around an attached stone.
    Pattern("hane: enclosing", ("XOX", "...", "???")),
    Pattern("hane: non-cutting", ("XO.", "...", "?.?")),
    Pattern("hane: magari", ("XO?", "X..", "x.?")),
    Pattern("hane: thin", ("XOO", "...", "?.?"), x_to_play=True),
    # Cut 1 (figure 3): cut between two diagonal stones, unless the cut is already guarded
    # by another O stone to the right of or below the point.
    Pattern("cut 1", ("XO?", "O.o", "?o?")),
    # Cut 2 (figure 4): cut two O stones apart under an X stone, none of the three points
    # below being O.
    Pattern("cut 2", ("?X?", "O.O", "ooo")),
    # The edge (figure 5): the bottom row is off the board.
    Pattern("edge: chase", ("X.?", "O.?", "###")),
    Pattern("edge: block the cut", ("OX?", "X.O", "###")),
    Pattern("edge: block the connection", ("?X?", "x.O", "###")),
    Pattern("edge: sagari", ("?XO", "x.x", "###")),
    Pattern("edge: cut", ("?OX", "X.O", "###")),
)
"""MoGo's playout patterns (Gelly et al. 2006, figures 2 to 5), in the notation of the module
docstring."""


def _allowed(symbol: str, x_colour: int) -> frozenset[int]:
    """The neighbour values ``symbol`` accepts when ``X`` is ``x_colour``."""
    o_colour = 3 - x_colour
    table = {
        "X": {x_colour},
        "O": {o_colour},
        "x": {EMPTY, o_colour},
        "o": {EMPTY, x_colour},
        ".": {EMPTY},
        "#": {OFF_BOARD},
        "?": {EMPTY, BLACK, WHITE, OFF_BOARD},
    }
    if symbol not in table:
        raise ValueError(f"unknown pattern symbol {symbol!r}")
    return frozenset(table[symbol])


def _check_rows(pattern: Pattern) -> None:
    rows = pattern.rows
    if len(rows) != 3 or any(len(row) != 3 for row in rows) or rows[1][1] != ".":
        raise ValueError(f"pattern {pattern.name!r}: three rows of three, an empty centre")


def _symmetries() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each of the square's eight symmetries, where each neighbour's offset goes."""
    images = []
    for swap in (False, True):
        for sx in (1, -1):
            for sy in (1, -1):
                images.append(
                    tuple(
                        ((dy if swap else dx) * sx, (dx if swap else dy) * sy)
                        for dx, dy in NEIGHBOUR_OFFSETS
                    )
                )
    return tuple(images)


def _variants(pattern: Pattern) -> set[tuple[tuple[frozenset[int], ...], int]]:
    """Every image of ``pattern`` under the symmetries and colours: the values each neighbour
    (in :data:`NEIGHBOUR_OFFSETS` order) accepts, and the movers it matches for (bit 0:
    Black to play, bit 1: White)."""
    _check_rows(pattern)
    position = {offset: i for i, offset in enumerate(NEIGHBOUR_OFFSETS)}
    out = set()
    for x_colour in (BLACK, WHITE):
        movers = (1 << (x_colour - 1)) if pattern.x_to_play else 3
        for image in _symmetries():
            accepts: list[frozenset[int]] = [frozenset()] * 8
            for (dx, dy), (ix, iy) in zip(NEIGHBOUR_OFFSETS, image, strict=True):
                accepts[position[(ix, iy)]] = _allowed(pattern.rows[dy + 1][dx + 1], x_colour)
            out.add((tuple(accepts), movers))
    return out


@functools.cache
def pattern_table(patterns: tuple[Pattern, ...] = PATTERNS) -> np.ndarray:
    """``uint8[NUM_CODES]``: for each code of eight neighbours (:func:`neighbour_code`), bit 0
    set when a pattern matches with Black to play, bit 1 with White to play. Built once per
    pattern set (about half a second); read only."""
    values = (np.arange(NUM_CODES)[:, None] >> (2 * np.arange(8))[None, :]) & 3
    table = np.zeros(NUM_CODES, dtype=np.uint8)
    variants = set().union(*(_variants(pattern) for pattern in patterns))
    for accepts, movers in variants:
        masks = np.array([sum(1 << v for v in accepted) for accepted in accepts])
        match = np.all((masks[None, :] >> values) & 1, axis=1)
        table[match] |= movers
    table.setflags(write=False)
    return table


def packed_table(patterns: tuple[Pattern, ...] = PATTERNS) -> np.ndarray:
    """:func:`pattern_table` packed for the kernel's ``int64`` parameters: entry ``code`` in
    bits ``2 * (code % 32)`` and up of word ``code // 32`` (2,048 words)."""
    table = pattern_table(patterns).astype(np.uint64).reshape(-1, 32)
    shifts = (2 * np.arange(32)).astype(np.uint64)
    words: np.ndarray = np.bitwise_or.reduce(table << shifts[None, :], axis=1)
    return words.view(np.int64)


def neighbour_code(neighbours: Sequence[int]) -> int:
    """The code of eight neighbour values (0 empty, 1 Black, 2 White, 3 off the board) given
    in :data:`NEIGHBOUR_OFFSETS` order."""
    if len(neighbours) != 8 or any(v not in (0, 1, 2, 3) for v in neighbours):
        raise ValueError(f"eight values in 0..3, got {list(neighbours)!r}")
    return sum(v << (2 * i) for i, v in enumerate(neighbours))


def point_code(board: Sequence[int], size: int, point: int) -> int:
    """The code of the surroundings of ``point`` (``y * size + x``) on ``board`` (a colour per
    point, :mod:`.board`'s values)."""
    x, y = point % size, point // size
    around = []
    for dx, dy in NEIGHBOUR_OFFSETS:
        nx, ny = x + dx, y + dy
        inside = 0 <= nx < size and 0 <= ny < size
        around.append(board[ny * size + nx] if inside else OFF_BOARD)
    return neighbour_code(around)


def matching_patterns(board: Sequence[int], size: int, point: int, to_play: int) -> tuple[str, ...]:
    """The names of the patterns that match at empty ``point`` for ``to_play`` (``BLACK`` or
    ``WHITE``), by trying each pattern's images directly (the reference the table is tested
    against; slow)."""
    code = point_code(board, size, point)
    values = [(code >> (2 * i)) & 3 for i in range(8)]
    names = []
    for pattern in PATTERNS:
        for accepts, movers in _variants(pattern):
            if movers >> (to_play - 1) & 1 and all(
                v in accepted for v, accepted in zip(values, accepts, strict=True)
            ):
                names.append(pattern.name)
                break
    return tuple(names)


def _edge_codes() -> list[int]:
    """Every code a point's surroundings can have on a board of side 2 or more, Black or
    White stones on the neighbours on the board and :data:`OFF_BOARD` past one edge or two
    meeting ones (7,641: 3^8 inside, 4 x 3^5 along an edge, 4 x 3^3 in a corner)."""
    codes = []
    for off_x in (0, -1, 1):
        for off_y in (0, -1, 1):
            off = [
                (off_x != 0 and dx == off_x) or (off_y != 0 and dy == off_y)
                for dx, dy in NEIGHBOUR_OFFSETS
            ]
            inside = [i for i in range(8) if not off[i]]
            base = sum(OFF_BOARD << (2 * i) for i in range(8) if off[i])
            for k in range(3 ** len(inside)):
                code = base
                for i in inside:
                    code |= (k % 3) << (2 * i)
                    k //= 3
                codes.append(code)
    return codes


@functools.cache
def shape_ids() -> tuple[np.ndarray, int]:
    """``(ids, count)``: ``ids`` (``int64[NUM_CODES]``, read only) gives each code of eight
    neighbours (:func:`neighbour_code`) the number of its shape, the same for the eight
    rotations and reflections of the surroundings, -1 for a code no board has; ``count``
    shapes in all (numbered in the order of their smallest codes). The colours are kept as
    they are: a caller that rates moves for the player to move swaps them first when White
    is to play (:func:`swap_colours`), so that ``X`` is always the mover."""
    position = {offset: i for i, offset in enumerate(NEIGHBOUR_OFFSETS)}
    images = [[position[offset] for offset in image] for image in _symmetries()]
    ids = np.full(NUM_CODES, -1, dtype=np.int64)
    smallest: dict[int, int] = {}
    for code in sorted(_edge_codes()):
        values = [(code >> (2 * i)) & 3 for i in range(8)]
        least = min(sum(values[i] << (2 * image[i]) for i in range(8)) for image in images)
        ids[code] = smallest.setdefault(least, len(smallest))
    ids.setflags(write=False)
    return ids, len(smallest)


def swap_colours(code: int) -> int:
    """``code`` with Black's and White's neighbours exchanged (empty and off-board points
    kept)."""
    black = code & 0x5555 & ~(code >> 1)
    white = (code >> 1) & 0x5555 & ~code
    return (code & ~(black | (white << 1))) | (black << 1) | white


def matches(board: Sequence[int], size: int, point: int, to_play: int) -> bool:
    """Whether some pattern matches at empty ``point`` for ``to_play``, through the table."""
    return bool(pattern_table()[point_code(board, size, point)] >> (to_play - 1) & 1)


__all__ = [
    "NEIGHBOUR_OFFSETS",
    "NUM_CODES",
    "OFF_BOARD",
    "PATTERNS",
    "Pattern",
    "matches",
    "matching_patterns",
    "neighbour_code",
    "packed_table",
    "pattern_table",
    "point_code",
    "shape_ids",
    "swap_colours",
]
