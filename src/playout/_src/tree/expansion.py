"""Phase 2, expansion: a new node at the end of an edge, and a node's edges.

The Python driver expands a node when it creates it; the compiled driver leaves a new leaf
:data:`~playout._src.tree.layout.UNEXPANDED` and gives it its edges when a later walk stops
on it (:func:`expand_reached`).
"""

from __future__ import annotations

import numpy as np

from playout._src.game import TERMINAL
from playout._src.jit import jit
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.layout import (
    E_ACTION,
    E_CHILD,
    E_PROVEN,
    E_VISITS,
    EV_PRIOR,
    EV_VALUE_SUM,
    M_NUM_EDGES,
    M_NUM_NODES,
    N_FIRST_EDGE,
    N_NUM_EDGES,
    N_PARENT,
    N_PARENT_EDGE,
    N_PLAYER,
    N_PLIES,
    N_PROVEN,
    N_VISITS,
    NO_EDGE,
    NV_EXACT,
    NV_REWARD,
    UNEXPANDED,
    UNPROVEN,
    UNVISITED,
)
from playout._src.tree.selection import select_edge


@jit(inline="always", **PHASE_JIT)
def add_node(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    meta: np.ndarray,
    parent: int,
    parent_edge: int,
    player: int,
    is_terminal: bool,
    terminal_value: float,
) -> int:
    """Create the node at the end of ``parent_edge`` of node ``parent`` (``NO_NODE`` and
    ``NO_EDGE`` for the root); its id. The reward into it starts at zero."""
    node = meta[M_NUM_NODES]
    meta[M_NUM_NODES] = node + 1
    nodes[node, N_FIRST_EDGE] = 0
    nodes[node, N_NUM_EDGES] = 0 if is_terminal else UNEXPANDED
    nodes[node, N_PARENT_EDGE] = parent_edge
    nodes[node, N_PLAYER] = TERMINAL if is_terminal else player
    nodes[node, N_VISITS] = 0
    nodes[node, N_PROVEN] = UNPROVEN
    nodes[node, N_PLIES] = 0
    nodes[node, N_PARENT] = parent
    node_values[node, NV_EXACT] = terminal_value
    if node_values.shape[1] > NV_REWARD:
        node_values[node, NV_REWARD] = 0.0
    if parent_edge != NO_EDGE:
        edges[parent_edge, E_CHILD] = node
    return node


@jit(inline="always", **PHASE_JIT)
def expand(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    node: int,
    actions: np.ndarray,
    priors: np.ndarray,
) -> None:
    """Expansion: give ``node`` one untaken edge per legal action.

    ``priors`` holds one probability per action, or is empty for a uniform prior; a tree
    without the prior column (``edge_values`` of one column, see :mod:`playout._src.tree.layout`)
    stores none.
    """
    first = meta[M_NUM_EDGES]
    count = actions.shape[0]
    meta[M_NUM_EDGES] = first + count
    write_edges(edges, edge_values, first, actions, priors)
    nodes[node, N_FIRST_EDGE] = first
    nodes[node, N_NUM_EDGES] = count


@jit(inline="always", **PHASE_JIT)
def write_edges(
    edges: np.ndarray, edge_values: np.ndarray, first: int, actions: np.ndarray, priors: np.ndarray
) -> None:
    """Fresh, untaken edge rows ``first ..`` for ``actions`` (``priors`` as :func:`expand`
    takes them); the node's own row is the caller's to write."""
    count = actions.shape[0]
    uniform = 1.0 / count if count > 0 else 0.0
    has_priors = edge_values.shape[1] > EV_PRIOR
    for i in range(count):
        e = first + i
        edges[e, E_ACTION] = actions[i]
        edges[e, E_CHILD] = UNVISITED
        edges[e, E_VISITS] = 0
        edges[e, E_PROVEN] = UNPROVEN
        edge_values[e, EV_VALUE_SUM] = 0.0
        if has_priors:
            edge_values[e, EV_PRIOR] = priors[i] if priors.shape[0] > 0 else uniform


@jit(inline="always", **PHASE_JIT)
def expand_reached(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    node: int,
    actions: np.ndarray,
    priors: np.ndarray,
    path: np.ndarray,
    depth: int,
) -> tuple[int, int]:
    """Lazy expansion: a walk (:func:`~playout._src.tree.selection.descend`) stopped at
    ``node``, left :data:`UNEXPANDED` when it was created; give it its edges (``actions`` and
    ``priors`` as :func:`expand` takes them) and take the first step out of it, as the walk
    would have had the node been expanded at once. Returns ``(edge, depth)``: the untaken edge
    chosen (recorded in ``path``) and the new depth (``NO_EDGE`` and the same depth when
    ``actions`` is empty). The choice draws from ``rng`` exactly as that step of the walk
    would, so a search gives the same tree whichever way it expands.
    """
    expand(nodes, edges, edge_values, meta, node, actions, priors)
    if actions.shape[0] == 0:
        # A game that lists no move in a position it calls running: the node has no edges,
        # and the walk ends on it as on a terminal one (its first evaluation is its value).
        return NO_EDGE, depth
    e = select_edge(nodes, edges, edge_values, node, rule, rule_params, rng)
    path[depth] = e
    return e, depth + 1


__all__ = ["add_node", "expand", "expand_reached", "write_edges"]
