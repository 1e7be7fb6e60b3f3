"""The end of a simulation in one call: its leaf expanded, its value backed up, the solver run.

Phases 2 and 4 (and MCTS-Solver) together, so that the Python driver pays the overhead of a
compiled call once per simulation; the compiled driver inlines the same functions into its
loop.
"""

from __future__ import annotations

import numpy as np

from playout._src.jit import jit
from playout._src.tree.backup import backup_path
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.expansion import add_node, expand
from playout._src.tree.layout import N_PROVEN, NV_REWARD, ROOT, UNPROVEN
from playout._src.tree.solver import solve_upward


@jit(inline="always", **PHASE_JIT)
def expand_and_backup(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    parent: int,
    parent_edge: int,
    player: int,
    is_terminal: bool,
    reward0: float,
    actions: np.ndarray,
    priors: np.ndarray,
    value0: float,
    path: np.ndarray,
    depth: int,
) -> int:
    """Create the child of ``parent_edge`` of ``parent`` with reward ``reward0`` (for player
    0) on the way in, expand it with ``actions``, back up ``value0`` along ``path[:depth]``
    (the simulation's edges, ``parent_edge`` last).

    Empty ``actions`` for a non-terminal child leave it
    :data:`~playout._src.tree.layout.UNEXPANDED`: the compiled driver expands a node when a
    later simulation reaches it (:func:`~playout._src.tree.expansion.expand_reached`), so
    that the leaves no simulation comes back to hold no edges (a non-terminal state always
    has a legal action, so the Python driver, which expands at once, never passes none).

    One call per simulation for the Python driver (phases 2 and 4 together, to pay the call
    overhead once). Returns the new node's id.
    """
    node = add_node(
        nodes, node_values, edges, meta, parent, parent_edge, player, is_terminal, value0
    )
    if node_values.shape[1] > NV_REWARD:
        node_values[node, NV_REWARD] = reward0
    if not is_terminal and actions.shape[0] > 0:
        expand(nodes, edges, edge_values, meta, node, actions, priors)
    backup_path(nodes, node_values, edges, edge_values, path, depth, node, value0)
    return node


@jit(**PHASE_JIT)
def finish_new_leaf(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    parent: int,
    parent_edge: int,
    player: int,
    is_terminal: bool,
    reward0: float,
    actions: np.ndarray,
    priors: np.ndarray,
    value0: float,
    solve: bool,
    min_return: float,
    max_return: float,
    path: np.ndarray,
    depth: int,
) -> bool:
    """The end of a simulation that left the tree by ``parent_edge`` of ``parent``: create and
    expand the new leaf, back up ``value0`` along the simulation's edges ``path[:depth]``
    (``parent_edge`` last) and, with ``solve``, run the solver from the leaf.

    One compiled call per simulation for the Python driver. Returns whether the root is
    proven (the search can stop).
    """
    leaf = expand_and_backup(
        nodes,
        node_values,
        edges,
        edge_values,
        meta,
        parent,
        parent_edge,
        player,
        is_terminal,
        reward0,
        actions,
        priors,
        value0,
        path,
        depth,
    )
    if solve:
        solve_upward(nodes, node_values, edges, edge_values, leaf, min_return, max_return)
    return nodes[ROOT, N_PROVEN] != UNPROVEN


@jit(**PHASE_JIT)
def finish_old_leaf(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    leaf: int,
    value0: float,
    solve: bool,
    min_return: float,
    max_return: float,
    path: np.ndarray,
    depth: int,
) -> bool:
    """The end of a simulation that stopped on an existing node (terminal, proven, or at the
    depth limit) reached by the edges ``path[:depth]``: back up ``value0`` and, with
    ``solve``, run the solver. Returns whether the root is proven."""
    backup_path(nodes, node_values, edges, edge_values, path, depth, leaf, value0)
    if solve:
        solve_upward(nodes, node_values, edges, edge_values, leaf, min_return, max_return)
    return nodes[ROOT, N_PROVEN] != UNPROVEN


__all__ = ["expand_and_backup", "finish_new_leaf", "finish_old_leaf"]
