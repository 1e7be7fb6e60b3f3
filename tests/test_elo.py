"""Elo, intervals, the trinomial GSPRT and Bradley-Terry ratings (playout._src.elo)."""

from __future__ import annotations

import math

import pytest

import playout
from playout._src import elo


def test_elo_from_score_known_values() -> None:
    assert elo.elo_from_score(0.5) == 0.0
    assert math.isclose(elo.elo_from_score(0.75), 190.848501887865, rel_tol=1e-12)
    assert math.isclose(elo.elo_from_score(0.25), -190.848501887865, rel_tol=1e-12)
    # 10 to 1 odds are 400 points.
    assert math.isclose(elo.elo_from_score(10 / 11), 400.0, rel_tol=1e-12)
    for value in (-350.0, -20.0, 0.0, 77.0, 600.0):
        assert math.isclose(elo.elo_from_score(elo.score_from_elo(value)), value, abs_tol=1e-9)


def test_elo_clamps_or_reports_infinity() -> None:
    assert elo.elo_from_score(1.0) == elo.ELO_LIMIT == 800.0
    assert elo.elo_from_score(0.0) == -800.0
    assert elo.elo_from_score(0.9999999) == 800.0
    assert elo.elo_from_score(1.0, limit=None) == math.inf
    assert elo.elo_from_score(0.0, limit=None) == -math.inf
    assert elo.format_elo(800.0) == ">= +800" and elo.format_elo(-800.0) == "<= -800"
    assert elo.format_elo(190.8485) == "+190.8"
    rounded = [elo.format_elo(x) for x in (-0.0, -0.04, 0.04, -0.06)]
    assert rounded == ["+0.0", "+0.0", "+0.0", "-0.1"]
    with pytest.raises(playout.InvalidParameterError):
        elo.elo_from_score(1.5)


def test_elo_interval_maps_the_score_interval() -> None:
    low, high = elo.elo_interval(0.4038, 0.5962)
    assert math.isclose(low, -high, rel_tol=1e-9) and 66 < high < 68
    assert elo.elo_interval(0.7, 1.0)[1] == 800.0


def _brute_force_llr(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """The generalised LLR by a direct search over the one-parameter family of trinomials
    with a given mean (an independent check of the Lagrange solution)."""
    counts = [c if c > 0 else 1e-3 for c in (losses, draws, wins)]

    def best_log_likelihood(score: float) -> float:
        # p = (1 - score - t/2, t, score - t/2) for t in [0, 2 min(score, 1 - score)].
        high = 2 * min(score, 1 - score)
        low, up = 0.0, high
        for _ in range(300):  # ternary search: the log-likelihood is concave in t
            a, b = low + (up - low) / 3, up - (up - low) / 3
            if _ll(counts, score, a) < _ll(counts, score, b):
                low = a
            else:
                up = b
        return _ll(counts, score, (low + up) / 2)

    return best_log_likelihood(elo.score_from_elo(elo1)) - best_log_likelihood(
        elo.score_from_elo(elo0)
    )


def _ll(counts: list[float], score: float, t: float) -> float:
    p = (1 - score - t / 2, t, score - t / 2)
    return sum(c * math.log(max(q, 1e-300)) for c, q in zip(counts, p, strict=True))


@pytest.mark.parametrize(
    ("counts", "bounds"),
    [
        ((10, 20, 30), (0.0, 50.0)),
        ((100, 200, 150), (0.0, 50.0)),
        ((45, 10, 45), (-10.0, 10.0)),
        ((3, 0, 7), (0.0, 100.0)),
        ((0, 12, 0), (0.0, 20.0)),
    ],
)
def test_sprt_llr_matches_a_direct_maximisation(
    counts: tuple[int, int, int], bounds: tuple[float, float]
) -> None:
    expected = _brute_force_llr(*counts, *bounds)
    assert math.isclose(elo.sprt_llr(*counts, *bounds), expected, rel_tol=1e-6, abs_tol=1e-9)


def test_sprt_llr_known_closed_forms() -> None:
    s0, s1 = elo.score_from_elo(0.0), elo.score_from_elo(50.0)
    # A clean sweep: the best trinomial with mean s puts s on a win and 1 - s on a loss.
    assert math.isclose(elo.sprt_llr(0, 0, 20, 0.0, 50.0), 20 * math.log(s1 / s0), rel_tol=1e-3)
    assert math.isclose(
        elo.sprt_llr(20, 0, 0, 0.0, 50.0), 20 * math.log((1 - s1) / (1 - s0)), rel_tol=1e-3
    )
    assert elo.sprt_llr(0, 0, 0, 0.0, 50.0) == 0.0
    # Many games: the GSPRT approaches the normal approximation N (s1-s0)(2s-s0-s1) / (2 var).
    losses, draws, wins = 1000, 2000, 1500
    n = losses + draws + wins
    score = (wins + draws / 2) / n
    variance = (wins + draws / 4) / n - score**2
    approx = n * (s1 - s0) * (2 * score - s0 - s1) / (2 * variance)
    assert math.isclose(elo.sprt_llr(losses, draws, wins, 0.0, 50.0), approx, rel_tol=0.02)
    # Results at exactly the midpoint score favour neither hypothesis... nearly (logistic).
    assert abs(elo.sprt_llr(50, 0, 50, -10.0, 10.0)) < 1e-9


def test_sprt_status_and_bounds() -> None:
    lower, upper = elo.sprt_bounds(0.05, 0.05)
    assert math.isclose(upper, math.log(19)) and math.isclose(lower, -math.log(19))
    test = elo.Sprt.from_text("0, 50")
    assert (test.elo0, test.elo1, test.alpha, test.beta) == (0.0, 50.0, 0.05, 0.05)
    assert test.status(0, 0, 5).decision is None
    assert test.status(0, 0, 60).decision == "H1"
    assert test.status(60, 0, 0).decision == "H0"
    assert test.status(0, 0, 60).as_dict()["decision"] == "H1"
    for text in ("50", "50,0", "a,b", "0,0", "0,inf"):
        with pytest.raises(playout.InvalidParameterError):
            elo.Sprt.from_text(text)


def test_fit_ratings_two_players_is_the_elo_of_the_score() -> None:
    ratings = elo.fit_ratings([[0, 75], [25, 0]], [[0, 100], [100, 0]], prior_draws=0)
    assert math.isclose(ratings[0] - ratings[1], 190.848501887865, rel_tol=1e-6)
    assert math.isclose(sum(ratings), 0.0, abs_tol=1e-9)
    anchored = elo.fit_ratings([[0, 75], [25, 0]], [[0, 100], [100, 0]], prior_draws=0, anchor=0)
    assert anchored[0] == 0.0 and math.isclose(anchored[1], -190.848501887865, rel_tol=1e-6)


def test_fit_ratings_is_the_maximum_likelihood() -> None:
    scores = [[0, 6, 9], [4, 0, 7], [1, 3, 0]]
    games = [[0, 10, 10], [10, 0, 10], [10, 10, 0]]
    ratings = elo.fit_ratings(scores, games, prior_draws=0)
    # At the maximum each player's expected points equal its actual points.
    for i in range(3):
        expected = sum(
            games[i][j] * elo.score_from_elo(ratings[i] - ratings[j]) for j in range(3) if j != i
        )
        assert math.isclose(expected, sum(scores[i]), rel_tol=1e-6)
    assert ratings[0] > ratings[1] > ratings[2]


def test_fit_ratings_prior_keeps_a_sweep_finite() -> None:
    ratings = elo.fit_ratings([[0, 10], [0, 0]], [[0, 10], [10, 0]])
    assert all(math.isfinite(r) for r in ratings) and ratings[0] > ratings[1]
    with pytest.raises(playout.InvalidParameterError):
        elo.fit_ratings([[0, 10], [0, 0]], [[0, 10], [10, 0]], prior_draws=0)
