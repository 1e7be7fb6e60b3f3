"""Match statistics: Elo differences, their intervals, SPRT, and round-robin ratings.

Everything is from the point of view of the first-named player (``p1``); a score is the mean
per-game result with a win 1, a draw 1/2 and a loss 0.

* :func:`elo_from_score` / :func:`score_from_elo`: the logistic Elo model,
  ``score = 1 / (1 + 10 ** (-elo / 400))`` (Elo 1978).
* :func:`elo_interval`: a score interval mapped through that curve.
* :func:`sprt_llr` and :class:`Sprt`: the generalised sequential probability ratio test
  (GSPRT) on trinomial results (win/draw/loss), as in chess-engine testing (fishtest's
  ``LLR_logistic``; M. Van den Bergh, "A Practical Introduction to the GSPRT", 2016), with
  Wald's bounds (Wald 1945).
* :func:`fit_ratings`: maximum-likelihood Bradley-Terry ratings (Bradley & Terry 1952) by the
  minorise-maximise iteration of Hunter (2004), draws counted as half a win.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Literal

from playout._src.errors import InvalidParameterError

ELO_LIMIT = 800.0
"""Reported Elo differences are clamped to +-800 (a score of 0 or 1 has no finite Elo)."""

RESULT_SCORES = (0.0, 0.5, 1.0)
"""Per-game score of a loss, a draw and a win (the order of trinomial counts here)."""

_REGULARISATION = 1e-3
"""Added to empty win/draw/loss counts before the GSPRT (as fishtest does), so a sweep after a
handful of games gives a finite, small LLR instead of an infinite one."""


# ------------------------------------------------------------------------------ Elo


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: ``1 / (1 + 10 ** (-elo / 400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float, *, limit: float | None = ELO_LIMIT) -> float:
    """Elo difference giving the expected ``score``: ``-400 * log10(1 / score - 1)``.

    Args:
        score: in [0, 1].
        limit: clamp the result to ``[-limit, limit]`` (so 0 and 1 give ``-limit`` and
            ``limit``); ``None`` returns ``-inf`` / ``inf`` at 0 and 1.

    Raises:
        InvalidParameterError: a score outside [0, 1].
    """
    if not (0.0 <= score <= 1.0):
        raise InvalidParameterError(f"a score must be in [0, 1], got {score!r}")
    if score == 0.0:
        elo = -math.inf
    elif score == 1.0:
        elo = math.inf
    else:
        elo = -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # no -0.0 at an even score
    if limit is not None:
        elo = max(-limit, min(limit, elo))
    return elo


def elo_interval(
    low: float, high: float, *, limit: float | None = ELO_LIMIT
) -> tuple[float, float]:
    """The Elo interval of a score interval ``[low, high]`` (the map is increasing)."""
    return elo_from_score(low, limit=limit), elo_from_score(high, limit=limit)


def format_elo(elo: float, *, limit: float = ELO_LIMIT) -> str:
    """``+190.9``; a clamped value is written ``>= +800`` / ``<= -800``; one that rounds to
    zero is ``+0.0`` (never ``-0.0``)."""
    if elo >= limit:
        return f">= +{limit:.0f}"
    if elo <= -limit:
        return f"<= -{limit:.0f}"
    return f"{round(elo, 1) or 0.0:+.1f}"  # -0.0 is false: rounded to zero, it is +0.0


# ------------------------------------------------------------------------------ SPRT


def _constrained_mle(frequencies: Sequence[float], score: float) -> list[float]:
    """The trinomial closest (max likelihood) to ``frequencies`` with mean ``score``.

    Maximises ``sum f_i log p_i`` subject to ``sum p_i = 1`` and ``sum a_i p_i = score``
    (``a = (0, 1/2, 1)``). The Lagrange conditions give ``p_i = f_i / (1 + x (a_i - score))``
    with ``x`` the root of ``sum f_i (a_i - score) / (1 + x (a_i - score)) = 0``; the
    left-hand side decreases in ``x`` on ``(-1 / (1 - score), 1 / score)``, so bisection
    finds it.
    """
    shifts = [a - score for a in RESULT_SCORES]

    def slope(x: float) -> float:
        return sum(f * d / (1.0 + x * d) for f, d in zip(frequencies, shifts, strict=True))

    low, high = -1.0 / (1.0 - score), 1.0 / score
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    x = 0.5 * (low + high)
    return [f / (1.0 + x * d) for f, d in zip(frequencies, shifts, strict=True)]


def sprt_llr(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (Elo = ``elo1``) against H0 (Elo = ``elo0``).

    The generalised LLR of the trinomial model (fishtest's ``LLR_logistic``): for each
    hypothesis the result distribution of highest likelihood whose expected score is
    ``score_from_elo(elo)``; ``LLR = N * sum f_i log(p1_i / p0_i)`` over the empirical
    frequencies ``f`` (empty counts regularised to 1e-3). 0 before any game.
    """
    counts = [float(losses), float(draws), float(wins)]
    if any(c < 0 for c in counts):
        raise InvalidParameterError(f"counts must be >= 0, got {losses}, {draws}, {wins}")
    if sum(counts) == 0:
        return 0.0
    counts = [c if c > 0 else _REGULARISATION for c in counts]
    total = sum(counts)
    frequencies = [c / total for c in counts]
    p0 = _constrained_mle(frequencies, score_from_elo(elo0))
    p1 = _constrained_mle(frequencies, score_from_elo(elo1))
    return total * sum(f * math.log(b / a) for f, a, b in zip(frequencies, p0, p1, strict=True))


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


SprtDecision = Literal["H0", "H1"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Sprt:
    """A sequential test of ``elo <= elo0`` (H0) against ``elo >= elo1`` (H1).

    Attributes:
        elo0, elo1: the two hypotheses' Elo differences (``elo0 < elo1``).
        alpha: probability of accepting H1 when H0 holds.
        beta: probability of accepting H0 when H1 holds.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise InvalidParameterError("SPRT Elo bounds must be finite numbers")
        if self.elo0 >= self.elo1:
            raise InvalidParameterError(f"SPRT needs elo0 < elo1, got {self.elo0:g}, {self.elo1:g}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise InvalidParameterError(f"SPRT {name} must be in (0, 0.5), got {value!r}")

    @classmethod
    def from_text(cls, text: str) -> Sprt:
        """Parse ``"elo0,elo1"`` (alpha = beta = 0.05)."""
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 2:
            raise InvalidParameterError(f"--sprt takes elo0,elo1 (e.g. 0,50), got {text!r}")
        try:
            elo0, elo1 = float(parts[0]), float(parts[1])
        except ValueError:
            raise InvalidParameterError(f"--sprt takes two numbers, got {text!r}") from None
        return cls(elo0=elo0, elo1=elo1)

    def status(self, losses: int, draws: int, wins: int) -> SprtStatus:
        """The LLR after these results and the decision, if a bound was crossed."""
        lower, upper = sprt_bounds(self.alpha, self.beta)
        llr = sprt_llr(losses, draws, wins, self.elo0, self.elo1)
        decision: SprtDecision | None = None
        if llr >= upper:
            decision = "H1"
        elif llr <= lower:
            decision = "H0"
        return SprtStatus(test=self, llr=llr, lower=lower, upper=upper, decision=decision)


@dataclasses.dataclass(frozen=True, kw_only=True)
class SprtStatus:
    """Where a :class:`Sprt` stands.

    Attributes:
        test: the test.
        llr: the log-likelihood ratio so far.
        lower, upper: the bounds; the test accepts H0 at ``llr <= lower``, H1 at
            ``llr >= upper``.
        decision: ``"H0"``, ``"H1"`` or ``None`` (go on).
    """

    test: Sprt
    llr: float
    lower: float
    upper: float
    decision: SprtDecision | None

    def as_dict(self) -> dict[str, object]:
        return {
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
            "llr": self.llr,
            "bounds": [self.lower, self.upper],
            "decision": self.decision,
        }


# ------------------------------------------------------------------------------ ratings


def fit_ratings(
    scores: Sequence[Sequence[float]],
    games: Sequence[Sequence[float]],
    *,
    prior_draws: float = 1.0,
    anchor: int | None = None,
    max_iterations: int = 10_000,
    tolerance: float = 1e-10,
) -> list[float]:
    """Bradley-Terry Elo ratings fitted by maximum likelihood.

    Args:
        scores: ``scores[i][j]`` points player ``i`` scored against ``j`` (a draw is 1/2).
        games: ``games[i][j]`` games between ``i`` and ``j`` (symmetric).
        prior_draws: virtual drawn games added to every pair that met, so a player who won
            (or lost) every game gets a finite rating; 0 for the plain maximum-likelihood fit.
        anchor: shift the ratings so this player is at 0; ``None``: the mean is 0.

    Returns:
        One rating per player, in Elo points (a difference ``d`` means an expected score of
        ``1 / (1 + 10 ** (-d / 400))``).

    The iteration (Hunter 2004, MM for Bradley-Terry): ``gamma_i <- W_i / sum_j n_ij /
    (gamma_i + gamma_j)``, with ``W_i`` the points of ``i`` and ``n_ij`` the games.

    Raises:
        InvalidParameterError: mismatched shapes, or a player with no points and no prior.
    """
    size = len(scores)
    if len(games) != size or any(len(r) != size for r in (*scores, *games)):
        raise InvalidParameterError("scores and games must be square tables of the same size")
    if size == 0:
        return []
    n = [
        [float(games[i][j]) + (prior_draws if games[i][j] > 0 else 0.0) for j in range(size)]
        for i in range(size)
    ]
    w = [
        sum(
            float(scores[i][j]) + (prior_draws / 2 if games[i][j] > 0 else 0.0) for j in range(size)
        )
        for i in range(size)
    ]
    for i in range(size):
        if w[i] <= 0 and sum(n[i]) > 0:
            raise InvalidParameterError(
                "a player scored no points: its maximum-likelihood rating is -infinity "
                "(use prior_draws > 0)"
            )
    gamma = [1.0] * size
    for _ in range(max_iterations):
        new = []
        for i in range(size):
            denominator = sum(n[i][j] / (gamma[i] + gamma[j]) for j in range(size) if j != i)
            new.append(gamma[i] if denominator == 0 else w[i] / denominator)
        # Normalise (the likelihood is invariant to a common factor) by the geometric mean.
        log_mean = sum(math.log(g) for g in new) / size
        new = [g / math.exp(log_mean) for g in new]
        change = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tolerance:
            break
    ratings = [400.0 * math.log10(g) for g in gamma]
    shift = ratings[anchor] if anchor is not None else sum(ratings) / size
    return [r - shift for r in ratings]


__all__ = [
    "ELO_LIMIT",
    "Sprt",
    "SprtStatus",
    "elo_from_score",
    "elo_interval",
    "fit_ratings",
    "format_elo",
    "score_from_elo",
    "sprt_bounds",
    "sprt_llr",
]
