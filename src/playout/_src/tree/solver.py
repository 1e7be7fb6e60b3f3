"""MCTS-Solver: nodes proven won, drawn or lost, from a leaf upwards.

Winands, Bjornsson & Saito (2008). A proven node's class for player 0 is ``N_PROVEN``
(copied onto the edge into it as ``E_PROVEN``), its exact value ``NV_EXACT`` and its distance
to the end ``N_PLIES`` (:mod:`playout._src.tree.layout`); :func:`solve_upward` runs after
each backup.
"""

from __future__ import annotations

import math

import numpy as np

from playout._src.game import CHANCE, TERMINAL, GameSpec
from playout._src.jit import int64, jit
from playout._src.tree.backup import node_reward, value_for
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.layout import (
    E_CHILD,
    E_PROVEN,
    E_VISITS,
    EV_VALUE_SUM,
    N_FIRST_EDGE,
    N_NUM_EDGES,
    N_PARENT,
    N_PARENT_EDGE,
    N_PLAYER,
    N_PLIES,
    N_PROVEN,
    NV_EXACT,
    PROVEN_DRAW,
    PROVEN_P0_LOSS,
    PROVEN_P0_WIN,
    ROOT,
    UNPROVEN,
    UNVISITED,
)


def solver_bounds(spec: GameSpec) -> tuple[float, float]:
    """The returns for player 0 that the solver classes as a loss and as a win for ``spec``.

    With rewards on the way, a node's exact value is a future return that cannot be told a
    win or a loss on its own: such games are proven by full enumeration only (the bounds are
    infinite, so every proven value is a "draw" class and selection skips it).
    """
    if spec.has_intermediate_rewards:
        return -math.inf, math.inf
    return float(spec.min_return), float(spec.max_return)


@jit(inline="always", **PHASE_JIT)
def classify(value0: float, min_return: float, max_return: float) -> int:
    """The solver class of an exact value for player 0."""
    if value0 >= max_return:
        return PROVEN_P0_WIN
    if value0 <= min_return:
        return PROVEN_P0_LOSS
    return PROVEN_DRAW


@jit(**PHASE_JIT)
def is_proven_loss_for(player: int, proven: int) -> bool:
    """Whether a node with solver class ``proven`` is lost for ``player`` (a one-player game
    is "lost" when its worst return is certain)."""
    if player == 1:
        return proven == PROVEN_P0_WIN
    return proven == PROVEN_P0_LOSS


@jit(**PHASE_JIT)
def is_proven_win_for(player: int, proven: int) -> bool:
    """Whether a node with solver class ``proven`` is won for ``player``."""
    if player == 1:
        return proven == PROVEN_P0_LOSS
    return proven == PROVEN_P0_WIN


@jit(**PHASE_JIT)
def _set_edge_mean_to_exact(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
) -> None:
    """Make the mean of the edge into proven ``node`` its exact value (for the mover), and
    copy the node's solver class onto the edge (:data:`E_PROVEN`).

    Later simulations stop at the proven node and back up that same value, so the mean stays
    exact; selection then weighs a proven child by what it is worth, not by its sampled past.
    """
    if node == ROOT:
        return
    e = nodes[node, N_PARENT_EDGE]
    edges[e, E_PROVEN] = nodes[node, N_PROVEN]
    mover = nodes[nodes[node, N_PARENT], N_PLAYER]
    exact = value_for(mover, node_reward(node_values, node) + node_values[node, NV_EXACT])
    edge_values[e, EV_VALUE_SUM] = exact * edges[e, E_VISITS]


@jit(**PHASE_JIT)
def solve_upward(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    leaf: int,
    min_return: float,
    max_return: float,
) -> None:
    """MCTS-Solver (Winands, Bjornsson & Saito 2008): prove nodes from ``leaf`` upwards.

    Called after :func:`~playout._src.tree.backup.backup_path`. A terminal leaf is proven by
    its outcome. Going up, a parent is proven as soon as one child is a proven win for the
    player to move there (best play takes it), or once every child is proven (its exact value
    is then the best of them, for the player to move). Plies to the end follow best play with
    the longest resistance: the shortest win, the longest loss. Chance nodes are never proven.
    The mean of an edge into a proven node becomes its exact value; proofs also steer
    selection (:func:`~playout._src.tree.selection.select_edge`), the walk
    (:func:`~playout._src.tree.selection.descend`) and the final choice
    (:func:`~playout._src.tree.final_move.choose_edge`).
    """
    node = leaf
    if nodes[node, N_PROVEN] == UNPROVEN:
        if nodes[node, N_PLAYER] != TERMINAL:
            return
        nodes[node, N_PROVEN] = classify(node_values[node, NV_EXACT], min_return, max_return)
        nodes[node, N_PLIES] = 0
    _set_edge_mean_to_exact(nodes, node_values, edges, edge_values, node)
    while node != ROOT:
        parent = int64(nodes[node, N_PARENT])  # one type for _set_edge_mean_to_exact
        if nodes[parent, N_PROVEN] != UNPROVEN:
            return
        player = nodes[parent, N_PLAYER]
        if player == CHANCE:
            return
        first = nodes[parent, N_FIRST_EDGE]
        count = nodes[parent, N_NUM_EDGES]
        all_proven = True
        best = -math.inf
        best_plies = 0
        for e in range(first, first + count):
            child = edges[e, E_CHILD]
            if child == UNVISITED or nodes[child, N_PROVEN] == UNPROVEN:
                all_proven = False
                continue
            value = value_for(
                player, node_reward(node_values, child) + node_values[child, NV_EXACT]
            )
            plies = nodes[child, N_PLIES] + 1
            if value > best:
                best, best_plies = value, plies
            elif value == best:
                # Among equal outcomes: lose as late as possible, otherwise end soonest.
                best_plies = max(best_plies, plies) if value < 0.0 else min(best_plies, plies)
        is_win = best >= (max_return if player != 1 else -min_return)
        if not (is_win or all_proven):
            return
        exact0 = value_for(player, best)
        nodes[parent, N_PROVEN] = classify(exact0, min_return, max_return)
        nodes[parent, N_PLIES] = best_plies
        node_values[parent, NV_EXACT] = exact0
        _set_edge_mean_to_exact(nodes, node_values, edges, edge_values, parent)
        node = parent


__all__ = [
    "classify",
    "is_proven_loss_for",
    "is_proven_win_for",
    "solve_upward",
    "solver_bounds",
]
