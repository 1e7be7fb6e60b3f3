"""Selection rules: how the search picks the edge to follow at a node.

The built-in rules are small frozen dataclasses whose hyperparameters are keyword-only; the
search runs them in compiled code. Any callable ``rule(stats: EdgeStatistics) -> int`` is a
rule too (it returns the index of the chosen edge in ``stats``); the search then selects in
Python, which is slower but lets a user try an idea in a few lines (seed 002's "your own fancy
action selection function").

:class:`RAVE` and :class:`ProgressiveBias` need statistics or move scores beside the tree;
their selection is compiled (:mod:`playout._src.rave`) and has no ``compiled()`` code in
:func:`playout._src.tree.selection.select_edge`. RAVE runs on the compiled driver's own loop
for games with a kernel (:mod:`playout._src.compiled.rave_driver`), else on the Python
driver; progressive bias, whose move scores come from Python, always on the Python driver.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from playout._src.errors import InvalidParameterError
from playout._src.tree import selection


class EdgeStatistics(NamedTuple):
    """What a user selection rule sees at one node (arrays have one entry per legal action).

    Attributes:
        actions: action ids.
        visit_count: simulations through each edge.
        mean_value: mean return of each edge for the player to move here (0 when unvisited).
        prior: prior probability of each edge.
        parent_visits: simulations through the node.
        rng: the search's random generator (use it for every random choice).
    """

    actions: np.ndarray
    visit_count: np.ndarray
    mean_value: np.ndarray
    prior: np.ndarray
    parent_visits: int
    rng: random.Random


def is_finite(value: float) -> bool:
    """:func:`math.isfinite` that calls a whole number past any float (``10**400``, which
    ``math.isfinite`` cannot convert) infinite instead of raising."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _check_number(rule: str, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidParameterError(f"{rule} {name} must be a number, got {value!r}")
    if not is_finite(value):  # type: ignore[arg-type]
        raise InvalidParameterError(f"{rule} {name} must be finite, got {value!r}")


def _check_constant(rule: str, name: str, value: object) -> None:
    _check_number(rule, name, value)
    if value < 0:  # type: ignore[operator]
        raise InvalidParameterError(f"{rule} {name} must be a finite number >= 0, got {value!r}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class UCB1:
    """UCT's selection rule (Kocsis & Szepesvari 2006): ``Q + c * sqrt(ln N / n)``.

    Unvisited edges are tried first, in random order (seed 000's "expand all children, then
    pick one at random"). Values lie in [-1, 1] for two-player games, as in seed 000, whose
    constant ``c = sqrt(2)`` is the default.
    """

    c: float = math.sqrt(2.0)

    def __post_init__(self) -> None:
        _check_constant("UCB1", "c", self.c)

    def compiled(self) -> tuple[int, np.ndarray]:
        return selection.RULE_UCB1, np.array([self.c, 0.0])


@dataclasses.dataclass(frozen=True, kw_only=True)
class PUCT:
    """AlphaZero's rule (Silver et al. 2017, 2018): ``Q + c(N) * P * sqrt(N) / (1 + n)``.

    ``c(N) = c`` when ``c_base`` is 0 (the default, AlphaGo Zero's constant), else AlphaZero's
    schedule ``c + log((N + c_base + 1) / c_base)`` (Silver et al. 2018 used ``c = 1.25``,
    ``c_base = 19652``), which explores more as the parent's visits ``N`` grow.
    ``first_play_value`` is the Q of an unvisited edge (0 = a draw for two-player games).
    Meaningful with an evaluator that provides priors; with uniform priors it still works.
    """

    c: float = 1.25
    first_play_value: float = 0.0
    c_base: float = 0.0

    def __post_init__(self) -> None:
        _check_constant("PUCT", "c", self.c)
        _check_number("PUCT", "first_play_value", self.first_play_value)
        _check_constant("PUCT", "c_base", self.c_base)

    def compiled(self) -> tuple[int, np.ndarray]:
        return selection.RULE_PUCT, np.array([self.c, self.first_play_value, self.c_base])


@dataclasses.dataclass(frozen=True, kw_only=True)
class EpsilonGreedy:
    """Unvisited edges first; then a uniformly random edge with probability ``epsilon``,
    otherwise the edge with the best mean value (seed 002)."""

    epsilon: float = 0.1

    def __post_init__(self) -> None:
        _check_number("EpsilonGreedy", "epsilon", self.epsilon)
        if not 0.0 <= self.epsilon <= 1.0:
            raise InvalidParameterError(f"epsilon must be in [0, 1], got {self.epsilon}")

    def compiled(self) -> tuple[int, np.ndarray]:
        return selection.RULE_EPSILON_GREEDY, np.array([self.epsilon, 0.0])


MoveHeuristic = Callable[[Any, np.ndarray], Sequence[float]]
"""Scores the legal actions of a state: ``heuristic(state, actions) -> one score per action``.

A score is how promising the move is for the player to move in ``state`` (larger is better).
:class:`ProgressiveBias` adds ``weight * score / (n + 1)`` to values in [-1, 1], so scores in
[0, 1] are the intended scale (``playout.games.mnk.threat_scores`` gives 1 to the best move).
"""


MAX_PRIOR_SAMPLES = 1_000_000
"""The most virtual AMAF samples :class:`RAVE`'s ``prior`` may give a new edge: far more than
any search's real samples (published values are tens), and small enough that the compiled
driver's 64-bit sample counts cannot overflow."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class RAVE:
    """MC-RAVE (Gelly & Silver 2007, 2011): UCB1 on a mix of the edge's mean value and its
    all-moves-as-first (AMAF) value.

    An edge's AMAF value is the mean return, for the player who chooses it, of every
    simulation through its node in which that player played its action later on, in the tree
    or in the rollout. It is a fast, biased estimate, good where moves keep much of their
    worth whatever the order they are played in (m,n,k games, gomoku, Go). Score, for the
    player who chooses the edge::

        (1 - beta) * Q + beta * Q_amaf + c * sqrt(ln N / max(n, 1))

    with Gelly & Silver's (2011, "Monte-Carlo tree search and rapid action value estimation
    in computer Go") minimum-MSE schedule
    ``beta = n_amaf / (n + n_amaf + 4 * bias**2 * n * n_amaf)``: beta is 1 for an edge never
    taken and falls as its own visits ``n`` grow, the faster the larger ``bias`` (the assumed
    gap between AMAF and true values, on playout's [-1, 1] value scale: twice the bias on
    their [0, 1] scale). Edges with neither visits nor AMAF samples are tried first, in
    random order. The defaults were tuned by matches on 7x7 boards, four in a row (the
    documentation's "Playing strength" page, docs/explanation/strength.md).

    Runs on the compiled driver for games with a compiled kernel (Go, connect four, m,n,k;
    not on a shared tree), else on the Python driver, with the same selection and update; the
    AMAF statistics are kept in arrays parallel to the tree's edges and carried over by
    ``MCTS.advance``. In Go a playout credits the first stone on each point (Gelly & Silver
    2007); see docs/explanation/go-rave.md for the figures.

    Prior knowledge (Gelly & Silver 2007, "Combining online and offline knowledge in UCT";
    heuristic MC-RAVE, 2011): with ``prior`` > 0, every new edge starts with ``prior``
    virtual AMAF samples whose mean is the game kernel's score of the move (the kernel's
    ``move_priors``; Go's scores captures, atari escapes, 3x3 patterns and penalties, and
    gives the pass none), so that good moves are tried
    first and the others are not wasted on. Compiled driver only, on games whose kernel
    scores moves.

    Args:
        c: UCB1 exploration constant (Kocsis & Szepesvari 2006), >= 0; MoGo used none with
            RAVE.
        bias: the RAVE bias ``b`` of the beta schedule, >= 0.
        prior: virtual AMAF samples per new edge from the kernel's move scores, 0 to
            :data:`MAX_PRIOR_SAMPLES` (0: no prior knowledge).
    """

    c: float = 0.1
    bias: float = 0.05
    prior: float = 0.0

    def __post_init__(self) -> None:
        _check_constant("RAVE", "c", self.c)
        _check_constant("RAVE", "bias", self.bias)
        _check_constant("RAVE", "prior", self.prior)
        if self.prior > MAX_PRIOR_SAMPLES:
            raise InvalidParameterError(
                f"RAVE prior must be at most {MAX_PRIOR_SAMPLES:,} virtual samples, got "
                f"{self.prior!r}"
            )

    def parameters(self) -> np.ndarray:
        """The parameter array of the compiled selection (:mod:`playout._src.rave`)."""
        from playout._src import rave

        return rave.selection_parameters(
            c=self.c, use_rave=True, rave_bias=self.bias, prior_samples=self.prior
        )


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProgressiveBias:
    """UCB1 with progressive bias (Chaslot et al. 2008): ``Q + c * sqrt(ln N / n)
    + weight * H / (n + 1)``, values for the player who chooses the edge.

    ``H`` is a heuristic score of the move, whose pull fades as the edge's visits ``n`` grow.
    Unvisited edges are tried first, the highest ``H`` first (ties at random). The scores come
    from, in this order: ``heuristic``; the game's ``move_heuristic(state, actions)`` method
    if it has one (the m,n,k games do: :func:`playout.games.mnk.threat_scores`); the
    evaluator's ``priors``. The search stores them in the edges' prior column, so
    ``SearchResult.priors`` reports them.

    Runs in the Python engine (``MCTS``; ``playout.search`` picks it). The default weight was
    tuned with ``threat_scores`` on 7x7 boards, four in a row ("Playing strength",
    docs/explanation/strength.md);
    a weaker heuristic wants a smaller one.

    Args:
        c: UCB1 exploration constant, >= 0.
        weight: weight of the heuristic term, >= 0 (0 is UCB1 with a heuristic move order for
            the first visits).
        heuristic: a :data:`MoveHeuristic`, or ``None`` for the game's or evaluator's.
    """

    c: float = math.sqrt(2.0)
    weight: float = 30.0
    heuristic: MoveHeuristic | None = None

    def __post_init__(self) -> None:
        _check_constant("ProgressiveBias", "c", self.c)
        _check_constant("ProgressiveBias", "weight", self.weight)
        if self.heuristic is not None and not callable(self.heuristic):
            raise InvalidParameterError(
                f"ProgressiveBias heuristic must be callable(state, actions), "
                f"got {self.heuristic!r}"
            )

    def parameters(self) -> np.ndarray:
        """The parameter array of the compiled selection (:mod:`playout._src.rave`)."""
        from playout._src import rave

        return rave.selection_parameters(c=self.c, use_rave=False, bias_weight=self.weight)


SelectionRule = (
    UCB1 | PUCT | EpsilonGreedy | RAVE | ProgressiveBias | Callable[[EdgeStatistics], int]
)
"""A built-in rule, or a callable choosing an edge index from :class:`EdgeStatistics`."""


def parse_rule(text: str, **options: float) -> SelectionRule:
    """A rule from its name with optional parameter, e.g. ``"ucb1"``, ``"ucb1:1.0"``,
    ``"puct:2.5"``, ``"epsilon:0.2"``, ``"rave"``, ``"rave:0.3"``, ``"pb:1.4"``.

    The number after the colon is the rule's main constant: ``c`` (epsilon for
    ``epsilon``). ``options`` set the other constants: ``bias`` and ``prior`` for ``rave`` (the
    RAVE bias, the virtual samples of prior knowledge),
    ``weight`` for ``pb`` / ``progressive-bias`` (the heuristic's weight).
    """
    if not isinstance(text, str):
        raise InvalidParameterError(f"a selection rule is named by a string, got {text!r}")
    name, _, arg = text.strip().lower().partition(":")
    try:
        value = float(arg) if arg else None
    except ValueError:
        raise InvalidParameterError(f"bad parameter in selection rule {text!r}") from None
    allowed = {"rave": {"bias", "prior"}, "pb": {"weight"}}.get(
        _RULE_ALIASES.get(name, name), set()
    )
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InvalidParameterError(
            f"selection rule {name!r} has no parameter {unknown[0]!r}"
            + (f" (it has: {', '.join(sorted(allowed))})" if allowed else "")
        )
    c: dict[str, Any] = {} if value is None else {"c": value}
    name = _RULE_ALIASES.get(name, name)
    if name == "ucb1":
        return UCB1(**c)
    if name == "puct":
        return PUCT(**c)
    if name == "epsilon":
        return EpsilonGreedy() if value is None else EpsilonGreedy(epsilon=value)
    if name == "rave":
        return RAVE(**c, **options)
    if name == "pb":
        return ProgressiveBias(**{**c, **options})
    raise InvalidParameterError(
        f"unknown selection rule {name!r}; choose ucb1, puct, epsilon, rave or pb (e.g. ucb1:1.41)"
    )


_RULE_ALIASES = {
    "uct": "ucb1",
    "ucb": "ucb1",
    "epsilon-greedy": "epsilon",
    "egreedy": "epsilon",
    "mc-rave": "rave",
    "progressive-bias": "pb",
    "progressive_bias": "pb",
}


__all__ = [
    "PUCT",
    "RAVE",
    "UCB1",
    "EdgeStatistics",
    "EpsilonGreedy",
    "MoveHeuristic",
    "ProgressiveBias",
    "SelectionRule",
    "parse_rule",
]
