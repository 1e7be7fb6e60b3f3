"""The search tree's layout: five arrays with integer ids for rows, and their growth.

Layout (mctx-style, statistics stored on the edges of the parent)
-----------------------------------------------------------------
A tree is five numpy arrays. Node ids and edge ids are row indices; :data:`ROOT` is node 0.

``nodes`` (int64, ``[node_capacity, NODE_FIELDS]``)
    ``N_FIRST_EDGE``  id of the node's first edge; a node's edges are contiguous.
    ``N_NUM_EDGES``   number of edges, or :data:`UNEXPANDED` before the node is expanded
                      (a terminal node is expanded with zero edges).
    ``N_PARENT_EDGE`` the edge leading to the node, :data:`NO_EDGE` for the root.
    ``N_PLAYER``      player to move in the node's state (0, 1, ``CHANCE`` or ``TERMINAL``).
    ``N_VISITS``      simulations that passed through the node.
    ``N_PROVEN``      MCTS-Solver: :data:`UNPROVEN`, or once the node's exact value is known
                      its class for player 0: ``PROVEN_P0_WIN`` (player 0's best return),
                      ``PROVEN_DRAW`` (anything between) or ``PROVEN_P0_LOSS`` (the worst).
    ``N_PLIES``       for a proven node, the plies to the end of the game under best play.
    ``N_PARENT``      the node the parent edge leaves from, :data:`NO_NODE` for the root.
``node_values`` (float64, ``[node_capacity, NODE_VALUE_FIELDS]`` or ``[node_capacity, 1]``)
    ``NV_EXACT``      the exact future return for player 0 of a terminal node (set at
                      creation) or of a node the solver has proven.
    ``NV_REWARD``     reward to player 0 on the transition into the node (games with
                      intermediate rewards, seed 002's bandit; zero otherwise). Optional: the
                      compiled driver, whose kernels have no intermediate rewards, allocates
                      ``node_values`` without this column; the phase functions read a missing
                      column as zero (:func:`~playout._src.tree.backup.node_reward`) and check
                      ``node_values.shape[1] > NV_REWARD`` before writing it.
``edges`` (int64, ``[edge_capacity, EDGE_FIELDS]``)
    ``E_ACTION``      the action id.
    ``E_CHILD``       the child node, or :data:`UNVISITED` until the edge is first taken.
    ``E_VISITS``      simulations that took the edge (the child's visit count).
    ``E_PROVEN``      the child's solver class (a copy of its ``N_PROVEN``, kept on the edge
                      so that selection reads one row per edge, not the child's row too).
``edge_values`` (float64, ``[edge_capacity, EDGE_VALUE_FIELDS]`` or ``[edge_capacity, 1]``)
    ``EV_VALUE_SUM``  sum of returns **for the player who chose the edge** (the player to move
                      at the parent); the edge's mean value is ``value_sum / visits``.
    ``EV_PRIOR``      prior probability of the edge (uniform without a policy; the chance
                      probability at chance nodes). Optional: a tree whose search never reads
                      priors (the compiled driver with UCB1 or epsilon-greedy: no policy, no
                      chance nodes) is allocated without this column, and every phase
                      function that reads or writes it checks ``edge_values.shape[1] > EV_PRIOR``
                      (priors are uniform then; results report them so).

Everything a node has only once (its parent, the reward into it) lives on the node row, so an
edge row is what selection reads and expansion writes: in the compiled engine 16 + 8 bytes
(int32 ``edges``, value sum only) or 16 + 16 with the prior column.
``meta`` (int64, ``[META_FIELDS]``): ``M_NUM_NODES``, ``M_NUM_EDGES``.

During backpropagation a simulation's outcome travels up as a value for player 0 and is
converted to the mover's point of view at every edge (negamax for two players, plain sums for
one player). The phase functions that read and write the arrays are the other modules of
:mod:`playout._src.tree`, compiled with numba and shared by the Python driver
(:mod:`playout._src.search`) and the compiled driver; none of them is recursive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from playout._src.game import CHANCE, TERMINAL

ROOT = 0
UNVISITED = -1
UNEXPANDED = -1
NO_EDGE = -1
NO_NODE = -1

N_FIRST_EDGE, N_NUM_EDGES, N_PARENT_EDGE, N_PLAYER, N_VISITS, N_PROVEN, N_PLIES, N_PARENT = range(8)
NODE_FIELDS = 8
UNPROVEN, PROVEN_P0_WIN, PROVEN_DRAW, PROVEN_P0_LOSS = range(4)
NV_EXACT, NV_REWARD = range(2)
NV_TERMINAL = NV_EXACT  # a terminal node's exact value is its outcome
NODE_VALUE_FIELDS = 2
E_ACTION, E_CHILD, E_VISITS, E_PROVEN = range(4)
EDGE_FIELDS = 4
EV_VALUE_SUM, EV_PRIOR = range(2)
EDGE_VALUE_FIELDS = 2
M_NUM_NODES, M_NUM_EDGES = range(2)
META_FIELDS = 2


class Tree(NamedTuple):
    """The arrays of one search tree (see the module docstring for the fields)."""

    nodes: np.ndarray
    node_values: np.ndarray
    edges: np.ndarray
    edge_values: np.ndarray
    meta: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.meta[M_NUM_NODES])

    @property
    def num_edges(self) -> int:
        return int(self.meta[M_NUM_EDGES])

    @property
    def node_capacity(self) -> int:
        """Rows every node array has (pooled arrays may be longer than asked for)."""
        return int(min(self.nodes.shape[0], self.node_values.shape[0]))

    @property
    def edge_capacity(self) -> int:
        """Rows every edge array has."""
        return int(min(self.edges.shape[0], self.edge_values.shape[0]))

    @property
    def node_row_bytes(self) -> int:
        """Bytes of one node's rows (``nodes`` and ``node_values``)."""
        return int(
            self.nodes.itemsize * self.nodes.shape[1]
            + self.node_values.itemsize * self.node_values.shape[1]
        )

    @property
    def edge_row_bytes(self) -> int:
        """Bytes of one edge's rows (``edges`` and ``edge_values``)."""
        return int(
            self.edges.itemsize * self.edges.shape[1]
            + self.edge_values.itemsize * self.edge_values.shape[1]
        )

    def bytes_per_node(self, state_bytes: int = 0) -> float:
        """Bytes per node in use: its rows, the edge rows per node so far, and
        ``state_bytes`` of per-node data kept beside the tree."""
        edges_per_node = self.num_edges / max(1, self.num_nodes)
        return float(self.node_row_bytes + state_bytes + self.edge_row_bytes * edges_per_node)

    def nbytes_per_node(self) -> float:
        """Bytes of array storage per allocated node (edges included), for reports."""
        total = sum(a.nbytes for a in self)
        return total / max(1, self.node_capacity)


def new_tree(node_capacity: int = 1024, edge_capacity: int | None = None) -> Tree:
    """An empty tree with room for ``node_capacity`` nodes (it grows on demand)."""
    node_capacity = max(2, int(node_capacity))
    if edge_capacity is None:
        edge_capacity = node_capacity * 8
    edge_capacity = max(8, int(edge_capacity))
    meta = np.zeros(META_FIELDS, dtype=np.int64)
    return Tree(
        nodes=np.zeros((node_capacity, NODE_FIELDS), dtype=np.int64),
        node_values=np.zeros((node_capacity, NODE_VALUE_FIELDS), dtype=np.float64),
        edges=np.zeros((edge_capacity, EDGE_FIELDS), dtype=np.int64),
        edge_values=np.zeros((edge_capacity, EDGE_VALUE_FIELDS), dtype=np.float64),
        meta=meta,
    )


def grown(array: np.ndarray, rows: int, used: int) -> np.ndarray:
    """A zeroed copy of ``array`` with ``rows`` rows and its first ``used`` rows kept."""
    out = np.zeros((rows, array.shape[1]), dtype=array.dtype)
    out[:used] = array[:used]
    return out


Grow = Callable[[np.ndarray, int, int], np.ndarray]
"""Makes a larger copy of a tree array: ``grow(array, rows, used_rows)``."""


GROWTH_BYTES_PER_SECOND = 1e9
"""A cautious rate for growing tree arrays (a new zeroed array, the old rows copied): the
engine does not start a growth that would end past a search's deadline at this rate."""


def growth_seconds(tree: Tree, extra_nodes: int, extra_edges: int, state_bytes: int = 0) -> float:
    """Estimated seconds :func:`reserve` would take for the extra rows: 0 when the tree has
    room, else the bytes of the doubled arrays (plus ``state_bytes`` per node row for per-node
    data that grows with them) at :data:`GROWTH_BYTES_PER_SECOND`."""
    need_nodes = tree.num_nodes + extra_nodes
    need_edges = tree.num_edges + extra_edges
    total = 0
    if need_nodes > tree.node_capacity:
        rows = tree.node_capacity
        while rows < need_nodes:
            rows *= 2
        row_bytes = tree.nodes.itemsize * tree.nodes.shape[1]
        row_bytes += tree.node_values.itemsize * tree.node_values.shape[1] + state_bytes
        total += rows * row_bytes
    if need_edges > tree.edge_capacity:
        rows = tree.edge_capacity
        while rows < need_edges:
            rows *= 2
        row_bytes = tree.edges.itemsize * tree.edges.shape[1]
        row_bytes += tree.edge_values.itemsize * tree.edge_values.shape[1]
        total += rows * row_bytes
    return total / GROWTH_BYTES_PER_SECOND


def room_for(tree: Tree, edges_per_node: int) -> int:
    """Nodes that can still be added, each with ``edges_per_node`` edges, without growing."""
    return max(
        0,
        min(
            tree.node_capacity - tree.num_nodes,
            (tree.edge_capacity - tree.num_edges) // max(1, edges_per_node),
        ),
    )


def reserve(tree: Tree, extra_nodes: int, extra_edges: int, grow: Grow = grown) -> Tree:
    """``tree`` itself if it has room for the extra rows, else a copy with doubled capacity.

    ``grow`` allocates the larger arrays (the compiled engine passes a pooled allocator).
    """
    need_nodes = tree.num_nodes + extra_nodes
    need_edges = tree.num_edges + extra_edges
    if need_nodes <= tree.node_capacity and need_edges <= tree.edge_capacity:
        return tree
    node_rows = tree.node_capacity
    while node_rows < need_nodes:
        node_rows *= 2
    edge_rows = tree.edge_capacity
    while edge_rows < need_edges:
        edge_rows *= 2
    more_nodes = node_rows > tree.node_capacity
    more_edges = edge_rows > tree.edge_capacity
    return Tree(
        nodes=grow(tree.nodes, node_rows, tree.num_nodes) if more_nodes else tree.nodes,
        node_values=(
            grow(tree.node_values, node_rows, tree.num_nodes) if more_nodes else tree.node_values
        ),
        edges=grow(tree.edges, edge_rows, tree.num_edges) if more_edges else tree.edges,
        edge_values=(
            grow(tree.edge_values, edge_rows, tree.num_edges) if more_edges else tree.edge_values
        ),
        meta=tree.meta,
    )


__all__ = [
    "CHANCE",
    "NO_EDGE",
    "ROOT",
    "TERMINAL",
    "UNEXPANDED",
    "UNVISITED",
    "Tree",
    "new_tree",
    "reserve",
]
