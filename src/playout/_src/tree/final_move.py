"""The final-move rule: which move a search plays, and the read-outs built on it.

:func:`choose_among` is the one rule of the engine (a proven win first, proven losses last,
then most visits, best value or a sample by visits); :func:`choose_edge` applies it to a
node's edges, :func:`principal_variation` along the line from the root, and the results
(:mod:`playout._src.results`) to root statistics merged from several searches.
"""

from __future__ import annotations

import math

import numpy as np

from playout._src.jit import int64, jit
from playout._src.tree.compiling import PHASE_JIT, PHASE_JIT_ALLOCATING
from playout._src.tree.layout import (
    E_ACTION,
    E_CHILD,
    E_VISITS,
    EV_VALUE_SUM,
    N_FIRST_EDGE,
    N_NUM_EDGES,
    N_PLAYER,
    N_PLIES,
    N_PROVEN,
    NO_EDGE,
    PROVEN_DRAW,
    ROOT,
    UNPROVEN,
    UNVISITED,
)
from playout._src.tree.rng import random_unit
from playout._src.tree.solver import is_proven_win_for

FINAL_MOST_VISITS = 0
FINAL_BEST_VALUE = 1
FINAL_SAMPLE = 2

# A child's solver class seen by the player who chooses it (the mover at the parent).
OUTCOME_UNKNOWN, OUTCOME_WIN, OUTCOME_DRAW, OUTCOME_LOSS = range(4)


@jit(**PHASE_JIT)
def outcome_for(player: int, proven: int) -> int:
    """The solver class ``proven`` (for player 0) as an ``OUTCOME_*`` for ``player``."""
    if proven == UNPROVEN:
        return OUTCOME_UNKNOWN
    if proven == PROVEN_DRAW:
        return OUTCOME_DRAW
    return OUTCOME_WIN if is_proven_win_for(player, proven) else OUTCOME_LOSS


@jit(**PHASE_JIT)
def choose_among(
    visits: np.ndarray,
    means: np.ndarray,
    outcomes: np.ndarray,
    plies: np.ndarray,
    final: int,
    temperature: float,
    rng: np.ndarray,
) -> int:
    """The final-move rule: the index of the move to play among ``len(visits)`` candidates.

    The one rule of the engine, used at the root of a tree (:func:`choose_edge`), along the
    principal variation, and on root statistics merged from several searches. Per candidate:
    ``visits`` (simulations), ``means`` (mean value for the player who chooses), ``outcomes``
    (an ``OUTCOME_*`` for that player) and ``plies`` (plies to the end under best play, for
    proven candidates).

    The order (that of strong engines, e.g. OpenSpiel's MCTS bot): a proven win first (the
    shortest); proven losses last (if nothing else is left, the longest); a proven candidate
    is preferred to an unproven one whose mean is not higher than the proven one's exact
    value. Among the rest, ``FINAL_MOST_VISITS``: most visits, ties broken by the higher mean,
    then the lower index; ``FINAL_BEST_VALUE``: highest mean among visited candidates, ties by
    visits; ``FINAL_SAMPLE``: drawn with probability proportional to ``visits ** (1/T)``
    (``temperature`` T > 0). Returns -1 when there are no candidates.
    """
    count = visits.shape[0]
    if count == 0:
        return -1
    win = -1
    longest_loss = -1
    num_lost = 0
    for i in range(count):
        if outcomes[i] == OUTCOME_WIN:
            if win == -1 or plies[i] < plies[win]:
                win = i
        elif outcomes[i] == OUTCOME_LOSS:
            num_lost += 1
            if longest_loss == -1 or plies[i] > plies[longest_loss]:
                longest_loss = i
    if win != -1:
        return win
    if num_lost == count:
        return longest_loss
    if final == FINAL_SAMPLE:
        most = 0
        for i in range(count):
            if outcomes[i] != OUTCOME_LOSS:
                most = max(most, visits[i])
        total = 0.0
        for i in range(count):
            if outcomes[i] != OUTCOME_LOSS:
                total += (visits[i] / most) ** (1.0 / temperature) if most else 1.0
        u = random_unit(rng) * total
        acc = 0.0
        last = -1
        for i in range(count):
            if outcomes[i] != OUTCOME_LOSS:
                acc += (visits[i] / most) ** (1.0 / temperature) if most else 1.0
                last = i
                if u < acc:
                    return i
        return last
    best = -1
    for i in range(count):
        if outcomes[i] == OUTCOME_LOSS:
            continue
        if best == -1:
            best = i
            continue
        n, best_n = visits[i], visits[best]
        q, best_q = means[i], means[best]
        if final == FINAL_BEST_VALUE:
            if best_n == 0 or (n > 0 and (q > best_q or (q == best_q and n > best_n))):
                best = i
        elif n > best_n or (n == best_n and q > best_q):
            best = i
    # A known value beats an estimate that is no better: prefer a proven candidate (a draw,
    # say) to the choice above when the latter's mean does not exceed the proven value.
    secure = -1
    secure_value = -math.inf
    for i in range(count):
        if outcomes[i] == OUTCOME_UNKNOWN or outcomes[i] == OUTCOME_LOSS:
            continue
        if means[i] > secure_value:
            secure, secure_value = i, means[i]
    if secure != -1 and secure_value >= means[best]:
        return secure
    return best


@jit(**PHASE_JIT)
def edge_mean(edge_values: np.ndarray, edges: np.ndarray, e: int) -> float:
    """Mean value of edge ``e`` for the player who chooses it (0 when unvisited)."""
    n = edges[e, E_VISITS]
    return edge_values[e, EV_VALUE_SUM] / n if n > 0 else 0.0


@jit(**PHASE_JIT_ALLOCATING)
def edge_statistics(
    nodes: np.ndarray, edges: np.ndarray, edge_values: np.ndarray, node: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(visits, means, outcomes, plies)`` of ``node``'s edges for :func:`choose_among`:
    means and outcomes are for the player to move at ``node``."""
    first = nodes[node, N_FIRST_EDGE]
    count = max(nodes[node, N_NUM_EDGES], 0)
    player = nodes[node, N_PLAYER]
    visits = np.zeros(count, dtype=np.int64)
    means = np.zeros(count, dtype=np.float64)
    outcomes = np.zeros(count, dtype=np.int64)
    plies = np.zeros(count, dtype=np.int64)
    for i in range(count):
        e = first + i
        visits[i] = edges[e, E_VISITS]
        means[i] = edge_mean(edge_values, edges, e)
        child = edges[e, E_CHILD]
        if child != UNVISITED:
            outcomes[i] = outcome_for(player, nodes[child, N_PROVEN])
            plies[i] = nodes[child, N_PLIES]
    return visits, means, outcomes, plies


@jit(**PHASE_JIT_ALLOCATING)
def choose_edge(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
    final: int,
    temperature: float,
    rng: np.ndarray,
) -> int:
    """The edge to play from ``node`` once the search is over (:func:`choose_among` on its
    edges); ``NO_EDGE`` if ``node`` has no edges."""
    visits, means, outcomes, plies = edge_statistics(nodes, edges, edge_values, node)
    index = choose_among(visits, means, outcomes, plies, final, temperature, rng)
    if index < 0:
        return NO_EDGE
    return nodes[node, N_FIRST_EDGE] + index


@jit(**PHASE_JIT_ALLOCATING)
def principal_variation(
    nodes: np.ndarray, edges: np.ndarray, edge_values: np.ndarray, out: np.ndarray
) -> int:
    """Fill ``out`` with the most-visited line from the root; returns its length."""
    # int64 variables, not the constants (see `playout._src.jit.int64`).
    node = int64(ROOT)
    final = int64(FINAL_MOST_VISITS)
    length = 0
    dummy = np.zeros(1, dtype=np.uint64)
    while length < out.shape[0] and nodes[node, N_NUM_EDGES] > 0:
        e = choose_edge(nodes, edges, edge_values, node, final, 1.0, dummy)
        if edges[e, E_VISITS] == 0:
            break
        out[length] = edges[e, E_ACTION]
        length += 1
        node = int64(edges[e, E_CHILD])
        if node == UNVISITED:
            break
    return length


__all__ = [
    "FINAL_BEST_VALUE",
    "FINAL_MOST_VISITS",
    "FINAL_SAMPLE",
    "OUTCOME_DRAW",
    "OUTCOME_LOSS",
    "OUTCOME_UNKNOWN",
    "OUTCOME_WIN",
    "choose_among",
    "choose_edge",
    "edge_mean",
    "edge_statistics",
    "outcome_for",
    "principal_variation",
]
