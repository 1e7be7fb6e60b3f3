"""Selection rules: how the search picks the edge to follow at a node.

The built-in rules are small frozen dataclasses whose hyperparameters are keyword-only; the
search runs them in compiled code. Any callable ``rule(stats: EdgeStatistics) -> int`` is a
rule too (it returns the index of the chosen edge in ``stats``); the search then selects in
Python, which is slower but lets a user try an idea in a few lines (seed 002's "your own fancy
action selection function").
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from playout._src import tree as T
from playout._src.errors import InvalidParameterError


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


@dataclasses.dataclass(frozen=True, kw_only=True)
class UCB1:
    """UCT's selection rule (Kocsis & Szepesvari 2006): ``Q + c * sqrt(ln N / n)``.

    Unvisited edges are tried first, in random order (seed 000's "expand all children, then
    pick one at random"). Values lie in [-1, 1] for two-player games, as in seed 000, whose
    constant ``c = sqrt(2)`` is the default.
    """

    c: float = math.sqrt(2.0)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.c) and self.c >= 0):
            raise InvalidParameterError(f"UCB1 c must be a finite number >= 0, got {self.c}")

    def compiled(self) -> tuple[int, np.ndarray]:
        return T.RULE_UCB1, np.array([self.c, 0.0])


@dataclasses.dataclass(frozen=True, kw_only=True)
class PUCT:
    """AlphaZero's rule (Silver et al. 2017, 2018): ``Q + c * P * sqrt(N) / (1 + n)``.

    ``first_play_value`` is the Q of an unvisited edge (0 = a draw for two-player games).
    Meaningful with an evaluator that provides priors; with uniform priors it still works.
    """

    c: float = 1.25
    first_play_value: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.c) and self.c >= 0):
            raise InvalidParameterError(f"PUCT c must be a finite number >= 0, got {self.c}")

    def compiled(self) -> tuple[int, np.ndarray]:
        return T.RULE_PUCT, np.array([self.c, self.first_play_value])


@dataclasses.dataclass(frozen=True, kw_only=True)
class EpsilonGreedy:
    """Unvisited edges first; then a uniformly random edge with probability ``epsilon``,
    otherwise the edge with the best mean value (seed 002)."""

    epsilon: float = 0.1

    def __post_init__(self) -> None:
        if not 0.0 <= self.epsilon <= 1.0:
            raise InvalidParameterError(f"epsilon must be in [0, 1], got {self.epsilon}")

    def compiled(self) -> tuple[int, np.ndarray]:
        return T.RULE_EPSILON_GREEDY, np.array([self.epsilon, 0.0])


SelectionRule = UCB1 | PUCT | EpsilonGreedy | Callable[[EdgeStatistics], int]
"""A built-in rule, or a callable choosing an edge index from :class:`EdgeStatistics`."""


def parse_rule(text: str) -> SelectionRule:
    """A rule from its name with optional parameter, e.g. ``"ucb1"``, ``"ucb1:1.0"``,
    ``"puct:2.5"``, ``"epsilon:0.2"``."""
    name, _, arg = text.strip().lower().partition(":")
    try:
        value = float(arg) if arg else None
    except ValueError:
        raise InvalidParameterError(f"bad parameter in selection rule {text!r}") from None
    if name in ("ucb1", "uct", "ucb"):
        return UCB1() if value is None else UCB1(c=value)
    if name == "puct":
        return PUCT() if value is None else PUCT(c=value)
    if name in ("epsilon", "epsilon-greedy", "egreedy"):
        return EpsilonGreedy() if value is None else EpsilonGreedy(epsilon=value)
    raise InvalidParameterError(
        f"unknown selection rule {name!r}; choose ucb1, puct or epsilon (e.g. ucb1:1.41)"
    )


__all__ = ["PUCT", "UCB1", "EdgeStatistics", "EpsilonGreedy", "SelectionRule", "parse_rule"]
