"""KataGo's forced playouts and policy-target pruning (Wu 2019, "Accelerating Self-Play
Learning in Go", arXiv 1902.10565, section 3.2), for PUCT self-play.

*Forced playouts*: at the root, a child ``c`` that has received any playouts but fewer than
``n_forced(c) = sqrt(k * P(c) * sum_c' N(c'))`` (``P`` the root's prior, with its noise; Wu's
``k = 2``) is selected before PUCT is asked, so that children the noise favours get looked
at. *Policy-target pruning* then takes those extra playouts back out of the policy target:
``c*`` is the child of most playouts; from every other child up to ``n_forced(c)`` playouts
are subtracted, as many as keep ``PUCT(c) < PUCT(c*)`` (with ``c``'s reduced count, ``c*``'s
actual one), and a child left with at most one playout is pruned to zero. The move played
is still the search's own choice (forced playouts included); only the recorded target is
pruned.

``descend`` is the forced walk (compiled; the batched driver takes it when its
``forced_playouts`` is set); :func:`forced_playouts` and :func:`pruned_visits` are the
formulas on one root's arrays, in NumPy.
"""

from __future__ import annotations

import math

import numpy as np

from playout._src.game import CHANCE
from playout._src.jit import jit
from playout._src.tree import selection
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.layout import (
    E_CHILD,
    E_PROVEN,
    E_VISITS,
    EV_PRIOR,
    N_FIRST_EDGE,
    N_NUM_EDGES,
    N_PLAYER,
    N_PROVEN,
    N_VISITS,
    NO_EDGE,
    ROOT,
    UNPROVEN,
    UNVISITED,
)

DEFAULT_K = 2.0
"""Wu's constant ``k`` in ``n_forced = sqrt(k P N)``."""


def forced_playouts(priors: np.ndarray, total_visits: int, k: float = DEFAULT_K) -> np.ndarray:
    """``n_forced(c) = sqrt(k * P(c) * total_visits)`` for every root child (real numbers)."""
    return np.sqrt(k * np.asarray(priors, dtype=np.float64) * float(total_visits))


def pruned_visits(
    visits: np.ndarray,
    priors: np.ndarray,
    values: np.ndarray,
    *,
    c: float,
    k: float = DEFAULT_K,
) -> np.ndarray:
    """The root's visit counts with the forced playouts taken out (policy-target pruning).

    Args:
        visits: playouts of each root child.
        priors: each child's prior (the one the search used, noise included).
        values: each child's mean value for the player to move at the root (any value for
            an unvisited child).
        c: PUCT's constant at the root (``Q + c * P * sqrt(N) / (1 + n)``, playout's
            :class:`~playout.PUCT`, ``N`` the children's total playouts).
        k: the forced-playout constant.

    Returns:
        The pruned counts (integers as floats): the most visited child keeps its count; any
        other loses the most playouts, up to ``floor(n_forced)``, that keep its PUCT score
        below the best child's; one left with at most one playout gets zero.
    """
    visits = np.asarray(visits, dtype=np.float64)
    priors = np.asarray(priors, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    total = float(visits.sum())
    pruned = visits.copy()
    if total <= 0:
        return pruned
    best = int(np.argmax(visits))
    root = math.sqrt(total)

    def puct(i: int, n: float) -> float:
        return float(values[i] + c * priors[i] * root / (1.0 + n))

    target = puct(best, visits[best])
    forced = forced_playouts(priors, int(total), k)
    for i in range(len(visits)):
        if i == best or visits[i] <= 0:
            continue
        taken = 0
        while taken + 1 <= math.floor(forced[i]) and taken + 1 <= visits[i]:
            if puct(i, visits[i] - (taken + 1)) >= target:
                break
            taken += 1
        pruned[i] = visits[i] - taken
        if pruned[i] <= 1:
            pruned[i] = 0.0
    return pruned


@jit(**PHASE_JIT)
def forced_root_edge(
    nodes: np.ndarray, edges: np.ndarray, edge_values: np.ndarray, k: float
) -> int:
    """The root edge a forced playout must take: of the unproven edges visited at least once
    and fewer than ``sqrt(k * P * N)`` times (``N`` the root's visits), the one furthest
    below its count (the first of equals); :data:`NO_EDGE` when none is."""
    first = nodes[ROOT, N_FIRST_EDGE]
    count = nodes[ROOT, N_NUM_EDGES]
    total = float(nodes[ROOT, N_VISITS])
    has_priors = edge_values.shape[1] > EV_PRIOR
    chosen = NO_EDGE
    deficit = 0.0
    for e in range(first, first + count):
        n = edges[e, E_VISITS]
        if n <= 0 or edges[e, E_PROVEN] != UNPROVEN:
            continue
        prior = edge_values[e, EV_PRIOR] if has_priors else 1.0 / count
        short = math.sqrt(k * prior * total) - n
        if short > deficit:
            deficit = short
            chosen = e
    return chosen


@jit(**PHASE_JIT)
def descend(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    max_depth: int,
    path: np.ndarray,
    k: float,
) -> tuple[int, int, int]:
    """``tree.selection.descend`` with forced playouts at the root: the first edge is
    :func:`forced_root_edge`'s when there is one, the rest of the walk the rule's."""
    root_open = (
        nodes[ROOT, N_NUM_EDGES] > 0
        and nodes[ROOT, N_PROVEN] == UNPROVEN
        and nodes[ROOT, N_PLAYER] != CHANCE
        and max_depth > 0
    )
    e = forced_root_edge(nodes, edges, edge_values, k) if root_open else NO_EDGE
    if e == NO_EDGE:
        return selection.descend(nodes, edges, edge_values, rule, rule_params, rng, max_depth, path)
    path[0] = e
    node = edges[e, E_CHILD]
    if node == UNVISITED:  # taken by a leaf still in flight (virtual loss)
        return ROOT, e, 1
    return selection.descend_from(
        nodes, edges, edge_values, rule, rule_params, rng, max_depth, path, node, 1
    )
