"""Statistics of light playouts: the figures Don Dailey published for his reference bot.

Don Dailey's reference bot (computer-go mailing list, "java reference bot", 13 October 2008)
is a specification of the simplest Monte Carlo Go program, offered as a conformance and speed
test: whoever implements its playouts (:mod:`.kernel`'s rollout) should find the same
statistics from the empty 9x9 board. His figures, over 1,000,000 playouts each:

======  ======================  ==========================
komi    moves (both final       Black's score (wins, draws
        passes counted)         counted half)
======  ======================  ==========================
5.5     111,030,705             0.445677
6.0     111,066,273             0.446729
6.5     111,040,546             0.447138
7.0     111,029,204             0.4333795
7.5     111,047,843             0.421281
0.0                             0.524478
======  ======================  ==========================

The playouts do not depend on komi (it only decides who won), so one run of
:func:`light_playouts` gives the moves per playout and Black's score at every komi
(:meth:`PlayoutStatistics.black_score`), each with its standard error.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from playout._src.errors import InvalidParameterError
from playout._src.jit import JitOptions, files_digest, int64, jit
from playout._src.tree.rng import new_rng_state
from playout.games.go import kernel as kernel_module
from playout.games.go.kernel import GO_JIT, LAST_LENGTH, LAST_MARGIN, P_POINTS, go_rollout
from playout.games.go.state import GoGame, GoState

DAILEY_PLAYOUTS = 1_000_000
"""Playouts behind each of Dailey's figures."""
DAILEY_MOVES: dict[float, int] = {
    5.5: 111_030_705,
    6.0: 111_066_273,
    6.5: 111_040_546,
    7.0: 111_029_204,
    7.5: 111_047_843,
}
"""Moves his bot played over 1,000,000 playouts from the empty 9x9 board, both final passes
of each playout included, in his run at each komi."""
DAILEY_BLACK_SCORE: dict[float, float] = {
    5.5: 0.445677,
    6.0: 0.446729,
    6.5: 0.447138,
    7.0: 0.4333795,
    7.5: 0.421281,
    0.0: 0.524478,
}
"""Black's score (wins, draws counted half) over those playouts, by komi."""


@dataclasses.dataclass(frozen=True)
class PlayoutStatistics:
    """What many light playouts from one position came to.

    Attributes:
        num_playouts: how many were played.
        total_moves: moves over all of them, passes included (the two final passes too).
        total_squared_moves: the sum of each playout's length squared (for the spread).
        margin_counts: ``margin_counts[m + size * size]``: how many ended with Black's area
            minus White's equal to ``m`` (no komi).
        size: the board's side.
    """

    num_playouts: int
    total_moves: int
    total_squared_moves: int
    margin_counts: np.ndarray
    size: int

    @property
    def mean_moves(self) -> float:
        """Moves per playout, passes included."""
        return self.total_moves / self.num_playouts

    @property
    def moves_standard_error(self) -> float:
        """The standard error of :attr:`mean_moves` (sample spread / sqrt(n))."""
        n = self.num_playouts
        mean = self.mean_moves
        variance = max(0.0, self.total_squared_moves / n - mean * mean) * n / max(1, n - 1)
        return math.sqrt(variance / n)

    def _outcomes(self, komi: float) -> tuple[float, float]:
        """The fractions of playouts Black won and drew at ``komi``."""
        margins = np.arange(-self.size * self.size, self.size * self.size + 1)
        counts = self.margin_counts
        n = self.num_playouts
        return float(counts[margins > komi].sum()) / n, float(counts[margins == komi].sum()) / n

    def black_score(self, komi: float) -> float:
        """Black's score at ``komi``: the fraction of playouts won, draws counting half
        (Dailey's "score ... from black's point of view")."""
        won, drawn = self._outcomes(komi)
        return won + 0.5 * drawn

    def black_score_standard_error(self, komi: float) -> float:
        """The standard error of :meth:`black_score` (a playout scores 1, 1/2 or 0)."""
        won, drawn = self._outcomes(komi)
        mean = won + 0.5 * drawn
        variance = won + 0.25 * drawn - mean * mean
        return math.sqrt(max(0.0, variance) / self.num_playouts)


_PLAYOUTS_JIT: JitOptions = {
    **GO_JIT,
    "sources_digest": str(GO_JIT["sources_digest"]) + files_digest(kernel_module.__file__),
}
""":data:`~.kernel.GO_JIT` with the kernel's own file in the cache key too: the loop below
compiles the kernel's rollout in, and a cached loop must not outlive a changed rollout (or
parameter layout)."""


@jit(**_PLAYOUTS_JIT)
def _run_playouts(
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    rng: np.ndarray,
    num_playouts: int,
    totals: np.ndarray,
    margin_counts: np.ndarray,
) -> None:
    """``num_playouts`` rollouts of the kernel from ``state``: their moves and squared moves
    added to ``totals``, their area margins counted in ``margin_counts``."""
    offset = params[P_POINTS]  # the margin -points is counted at index 0
    moves = int64(0)
    squares = int64(0)
    for _ in range(num_playouts):
        go_rollout(params, state, scratch, rng)
        length = scratch[LAST_LENGTH]
        moves += length
        squares += length * length
        margin_counts[scratch[LAST_MARGIN] + offset] += 1
    totals[0] += moves
    totals[1] += squares


def light_playouts(
    position: GoGame | GoState, num_playouts: int, *, seed: int = 0
) -> PlayoutStatistics:
    """Play ``num_playouts`` light playouts (the kernel's rollouts, :mod:`.kernel`) from a
    position (a game's empty board by default) and count what they came to.

    Raises:
        InvalidParameterError: ``num_playouts`` below 1, or a finished position.
    """
    if isinstance(num_playouts, bool) or not isinstance(num_playouts, int) or num_playouts < 1:
        raise InvalidParameterError(f"num_playouts must be a whole number >= 1: {num_playouts!r}")
    state = position.initial_state() if isinstance(position, GoGame) else position
    if state.is_terminal():
        raise InvalidParameterError("the game is over: there is nothing to play out")
    kernel = state.compiled_kernel()
    assert kernel.encode is not None
    points = state.game.size**2
    totals = np.zeros(2, dtype=np.int64)
    margin_counts = np.zeros(2 * points + 1, dtype=np.int64)
    _run_playouts(
        kernel.params,
        kernel.encode(state),
        np.zeros(kernel.scratch_size, dtype=np.int64),
        new_rng_state(seed),
        num_playouts,
        totals,
        margin_counts,
    )
    return PlayoutStatistics(
        num_playouts, int(totals[0]), int(totals[1]), margin_counts, state.game.size
    )


__all__ = [
    "DAILEY_BLACK_SCORE",
    "DAILEY_MOVES",
    "DAILEY_PLAYOUTS",
    "PlayoutStatistics",
    "light_playouts",
]
