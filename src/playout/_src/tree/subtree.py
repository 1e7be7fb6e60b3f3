"""Tree reuse: the subtree below a node copied into fresh arrays, that node as the new root.

:func:`find_child_edge` finds the edge of the move played; :func:`subtree` makes the compact
copy and tells the caller which old node each new one was, so that data kept beside the
tree (Python states, AMAF rows) can follow. Breadth-first with an explicit queue.
"""

from __future__ import annotations

import numpy as np

from playout._src.jit import jit
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.layout import (
    E_ACTION,
    E_CHILD,
    EDGE_FIELDS,
    M_NUM_EDGES,
    M_NUM_NODES,
    N_FIRST_EDGE,
    N_NUM_EDGES,
    N_PARENT,
    N_PARENT_EDGE,
    NO_EDGE,
    NO_NODE,
    NODE_FIELDS,
    ROOT,
    UNVISITED,
    Tree,
    new_tree,
)


@jit(**PHASE_JIT)
def find_child_edge(nodes: np.ndarray, edges: np.ndarray, node: int, action: int) -> int:
    """The edge of ``node`` labelled ``action``, or ``NO_EDGE``."""
    first = nodes[node, N_FIRST_EDGE]
    for e in range(first, first + max(nodes[node, N_NUM_EDGES], 0)):
        if edges[e, E_ACTION] == action:
            return e
    return NO_EDGE


@jit(**PHASE_JIT)
def extract_subtree(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    new_root: int,
    out_nodes: np.ndarray,
    out_node_values: np.ndarray,
    out_edges: np.ndarray,
    out_edge_values: np.ndarray,
    out_meta: np.ndarray,
    old_ids: np.ndarray,
) -> None:
    """Copy the subtree below ``new_root`` into the ``out_*`` arrays, ``new_root`` as node 0.

    Breadth-first with an explicit queue (no recursion); ``old_ids[new_id]`` receives the old
    id of every copied node so that per-node data kept outside (Python states) can follow.
    The ``out_*`` arrays must have room for the whole old tree.
    """
    num_nodes = 0
    num_edges = 0
    old_ids[0] = new_root
    num_nodes = 1
    head = 0
    while head < num_nodes:
        old = old_ids[head]
        new = head
        head += 1
        for f in range(NODE_FIELDS):
            out_nodes[new, f] = nodes[old, f]
        for f in range(min(node_values.shape[1], out_node_values.shape[1])):
            out_node_values[new, f] = node_values[old, f]
        if new == ROOT:
            out_nodes[new, N_PARENT_EDGE] = NO_EDGE
            out_nodes[new, N_PARENT] = NO_NODE
        count = nodes[old, N_NUM_EDGES]
        if count <= 0:
            continue
        first = nodes[old, N_FIRST_EDGE]
        out_nodes[new, N_FIRST_EDGE] = num_edges
        for i in range(count):
            e_old = first + i
            e_new = num_edges + i
            for f in range(EDGE_FIELDS):
                out_edges[e_new, f] = edges[e_old, f]
            for f in range(min(edge_values.shape[1], out_edge_values.shape[1])):
                out_edge_values[e_new, f] = edge_values[e_old, f]
            child = edges[e_old, E_CHILD]
            if child != UNVISITED:
                old_ids[num_nodes] = child
                out_edges[e_new, E_CHILD] = num_nodes
                # The child's parent edge is fixed when the child is copied.
                num_nodes += 1
        num_edges += count
    # Second pass: parent edges and parents of all non-root nodes.
    for new in range(num_nodes):
        count = out_nodes[new, N_NUM_EDGES]
        first = out_nodes[new, N_FIRST_EDGE]
        for e in range(first, first + max(count, 0)):
            child = out_edges[e, E_CHILD]
            if child != UNVISITED:
                out_nodes[child, N_PARENT_EDGE] = e
                out_nodes[child, N_PARENT] = new
    out_meta[M_NUM_NODES] = num_nodes
    out_meta[M_NUM_EDGES] = num_edges


def subtree(tree: Tree, new_root: int) -> tuple[Tree, np.ndarray]:
    """A compact copy of the subtree rooted at ``new_root`` and the old id of each new node."""
    out = new_tree(tree.node_capacity, tree.edge_capacity)
    old_ids = np.zeros(tree.node_capacity, dtype=np.int64)
    extract_subtree(*tree, new_root, *out, old_ids)
    return out, old_ids[: out.num_nodes].copy()


__all__ = ["extract_subtree", "find_child_edge", "subtree"]
