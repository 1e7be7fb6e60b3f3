"""The features of a Go move that its learned rating is made of (Coulom 2007).

Rémi Coulom ("Computing Elo Ratings of Move Patterns in the Game of Go", ICGA Journal 30(4),
2007) rates each candidate move as a team of features: its strength is the product of the
strengths ``gamma`` of the features it has, and the chance that it is the move played is its
strength over the sum of the strengths of every legal move (a generalised Bradley-Terry model,
fitted to played games by minorization-maximization, :mod:`.ratings`). The kernel
(:func:`~.kernel.go_move_features`) gives a move at most one level of each group below, each
level a *slot* of the rating table, all for the player to move:

=========================  =============================================================
group                      levels
=========================  =============================================================
capture                    captures a chain next to an own chain in atari (saving it);
                           captures one stone; captures two stones or more
escape                     gives an own chain in atari two liberties or more (a capture
                           counts as three), when a working ladder catches that chain
                           (whatever it plays: the reader's answer before the move);
                           else to two liberties; to three or more
atari                      puts an opponent's chain in atari and keeps two liberties or
                           more (an atari that is a self-atari is only a self-atari),
                           when the chain is then caught in a working ladder; else any
                           such atari
self-atari                 leaves the new stone alone with one liberty, capturing
                           nothing; leaves a chain of two stones or more so
distance                   Coulom's distance ``dx + dy + max(dx, dy)`` to the last move,
                           2 to 16 (none further, or after a pass)
line                       the first, second, third or fourth line, or further
shape                      the 3x3 surroundings, one of :data:`NUM_SHAPES` up to rotation
                           and reflection, the mover's stones as ``X``
=========================  =============================================================

Coulom's distance to the move before the last is left out: the compact state the search
keeps knows only the last move. Levels and groups are fixed here, so that a rating table
(one ``log gamma`` per slot) fits every kernel.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import numpy as np

from playout._src.errors import InvalidParameterError
from playout.games.go.patterns import shape_ids

F_CAPTURE_SAVES, F_CAPTURE_ONE, F_CAPTURE_MANY = 0, 1, 2
"""The capture group's slots."""
F_ESCAPE_LADDER, F_ESCAPE_TWO, F_ESCAPE_MORE = 3, 4, 5
"""The escape group's slots."""
F_ATARI_LADDER, F_ATARI = 6, 7
"""The atari group's slots."""
F_SELF_ATARI_ONE, F_SELF_ATARI_MANY = 8, 9
"""The self-atari group's slots."""
F_DISTANCE = 10
"""The distance group's first slot: distance ``d`` (2..16) to the last move is slot
``F_DISTANCE + d - 2``."""
MAX_DISTANCE = 16
"""The largest distance to the last move with a slot of its own."""
F_LINE = F_DISTANCE + MAX_DISTANCE - 1
"""The line group's first slot: line ``k`` (1 on the edge) is ``F_LINE + min(k, 5) - 1``."""
LINES = 5
"""Lines with a slot of their own: the fifth stands for every line past the fourth."""
F_SHAPE = F_LINE + LINES
"""The shape group's first slot: shape ``i`` (:func:`~.patterns.shape_ids`) is
``F_SHAPE + i``."""
NUM_SHAPES = shape_ids()[1]
"""3x3 surroundings up to rotation and reflection (1,107)."""
NUM_SLOTS = F_SHAPE + NUM_SHAPES
"""Slots of a rating table."""
GROUPS: tuple[tuple[str, int, int], ...] = (
    ("capture", F_CAPTURE_SAVES, F_ESCAPE_LADDER),
    ("escape", F_ESCAPE_LADDER, F_ATARI_LADDER),
    ("atari", F_ATARI_LADDER, F_SELF_ATARI_ONE),
    ("self-atari", F_SELF_ATARI_ONE, F_DISTANCE),
    ("distance", F_DISTANCE, F_LINE),
    ("line", F_LINE, F_SHAPE),
    ("shape", F_SHAPE, NUM_SLOTS),
)
"""Each group's name and slots (``start``, ``stop``): a move has at most one of each."""
MAX_FEATURES = len(GROUPS)
"""The most slots one move has."""
FORMAT = "playout-go-ratings/1"
"""The ``format`` field of a rating table's file."""
SHIPPED = "ratings-9x9.json"
"""The shipped table's file name, beside this module (:mod:`.ratings` fits it)."""


def load_ratings(text: str) -> np.ndarray:
    """The ``log gamma`` of a rating table's JSON text.

    Raises:
        InvalidParameterError: not a rating table of this layout.
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidParameterError(f"a rating table is JSON: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InvalidParameterError(f"not a rating table (format {FORMAT!r})")
    layout = {name: [start, stop] for name, start, stop in GROUPS}
    if document.get("groups", layout) != layout:
        raise InvalidParameterError("a rating table of another layout of features")
    values = np.asarray(document.get("log_gamma"), dtype=np.float64)
    if values.shape != (NUM_SLOTS,) or not np.all(np.isfinite(values)):
        raise InvalidParameterError(
            f"a rating table has {NUM_SLOTS} finite log gammas, this one {values.shape}"
        )
    return values


@functools.cache
def shipped_ratings() -> np.ndarray:
    """The 9x9 rating table shipped with the package (read only)."""
    text = resources.files("playout.games.go").joinpath(SHIPPED).read_text()
    values = load_ratings(text)
    values.setflags(write=False)
    return values


__all__ = [
    "FORMAT",
    "F_ATARI",
    "F_ATARI_LADDER",
    "F_CAPTURE_MANY",
    "F_CAPTURE_ONE",
    "F_CAPTURE_SAVES",
    "F_DISTANCE",
    "F_ESCAPE_LADDER",
    "F_ESCAPE_MORE",
    "F_ESCAPE_TWO",
    "F_LINE",
    "F_SELF_ATARI_MANY",
    "F_SELF_ATARI_ONE",
    "F_SHAPE",
    "GROUPS",
    "LINES",
    "MAX_DISTANCE",
    "MAX_FEATURES",
    "NUM_SHAPES",
    "NUM_SLOTS",
    "SHIPPED",
    "load_ratings",
    "shipped_ratings",
]
