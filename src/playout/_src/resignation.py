"""When a searching player gives up: the resignation rule shared by arena players and GTP.

A player resigns when the best move of its search wins with a probability below a
threshold on ``moves`` of its own moves in a row (one low estimate can be a search that
has not yet found the way out; several in a row are a lost game), or at once when the
solver has proved that every move loses. Go engines do this (GNU Go, Leela Zero with its
10% win rate, KataGo with a run of consecutive moves); a lost game that ends early frees
the match's time for games that decide something, and a GUI expects it.

Win rates are ``(value + 1) / 2`` of the move's mean return for the player to move (a
two-player game scoring -1, 0 and +1: a draw counts half), as ``lz-analyze`` reports them.
"""

from __future__ import annotations

import dataclasses

from playout._src.errors import InvalidParameterError
from playout._src.results import Proven, SearchResult

RESIGN_MOVES = 2
"""Own moves in a row with a low win rate before a player resigns."""
MIN_VISITS = 50
"""The fewest simulations through the best move for its win rate to count (a search too
small to estimate it never resigns, unless the solver proved the loss)."""


class Resignation(Exception):
    """Raised by a player's :meth:`~playout._src.arena.players.Player.choose` to resign: the
    game ends there and the other player wins (a searching player with ``resign``, a GTP
    engine answering ``resign``)."""


def _chosen(result: SearchResult) -> int:
    """The index of ``result``'s chosen move among its root actions."""
    return result.actions.index(result.best_action)


def best_win_rate(result: SearchResult) -> float:
    """The win rate of ``result``'s chosen move for the player to move, in [0, 1]."""
    return (result.values[_chosen(result)] + 1.0) / 2.0


def check_threshold(threshold: object) -> float:
    """``threshold`` as a win rate a player may resign below: a number in (0, 0.5).

    Raises:
        InvalidParameterError: anything else (0.5 and above would resign even games).
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise InvalidParameterError(f"resign must be a number, got {threshold!r}")
    if not 0.0 < threshold < 0.5:
        raise InvalidParameterError(
            f"resign must be a win rate above 0 and below 0.5, got {threshold}"
        )
    return float(threshold)


@dataclasses.dataclass
class ResignWatch:
    """Watches one player's searches and says when it should resign.

    Args:
        threshold: the win rate (0 < threshold < 0.5) below which a move counts as low.
        moves: low moves in a row that make the player resign (>= 1).

    Raises:
        InvalidParameterError: a threshold or count out of range.
    """

    threshold: float
    moves: int = RESIGN_MOVES
    low_in_a_row: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        self.threshold = check_threshold(self.threshold)
        if isinstance(self.moves, bool) or not isinstance(self.moves, int) or self.moves < 1:
            raise InvalidParameterError(f"moves must be a whole number >= 1, got {self.moves!r}")

    def should_resign(self, result: SearchResult) -> bool:
        """Count the search of one own move (its result, for the player to move); ``True``
        when the player should resign instead of playing it."""
        if result.proven is Proven.LOSS:
            return True
        visits = result.visit_counts[_chosen(result)]
        if visits >= MIN_VISITS and best_win_rate(result) < self.threshold:
            self.low_in_a_row += 1
        else:
            self.low_in_a_row = 0
        return self.low_in_a_row >= self.moves

    def reset(self) -> None:
        """Forget the moves seen (a new game, or a position set up afresh)."""
        self.low_in_a_row = 0


__all__ = [
    "MIN_VISITS",
    "RESIGN_MOVES",
    "ResignWatch",
    "Resignation",
    "best_win_rate",
    "check_threshold",
]
