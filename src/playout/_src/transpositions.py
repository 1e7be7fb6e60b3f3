"""A transposition table for the Python driver (``SearchConfig(transpositions=True)``).

The variant: UCT2 of Childs, Brodeur & Kocsis, "Transpositions and move groups in Monte Carlo
tree search" (IEEE Symposium on Computational Intelligence and Games, 2008). The search keeps
its tree (every node has one parent; backpropagation walks parent pointers as without the
table), and next to it a table with one entry per position, keyed by the position (by its
canonical key with ``symmetry=True``, so that symmetric positions share an entry too):

* every node points to its position's entry (:attr:`TranspositionTable.node_entry`);
* backpropagation also adds the simulation's outcome to the entry of every node on its path
  (:func:`backup_table`): an entry's count is the sum of the visits of all the nodes of its
  position, its value sum the sum of their returns;
* selection (:func:`descend`) values an edge whose child exists by the **entry's** mean (all
  simulations through that position, whatever the move order that reached it), and explores
  with the edge's own count and its node's own visits, as UCT2 does. So a new leaf whose
  position the table already holds starts from everything learnt there elsewhere. Untried
  edges are tried first, proven children are skipped (the solver's rules are unchanged).

Values in the table are the future return **for player 0** from the position (the reward on
the way into a node is added per node, as it depends on the path); selection converts them to
the point of view of the player to move at the parent, like the edges' value sums.

Results (visit counts, means, the final move) are still read from the tree's root edges.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np

from playout._src.game import CHANCE
from playout._src.jit import JitOptions, jit
from playout._src.tree import backup, compiling, selection
from playout._src.tree import layout as T
from playout._src.tree.rng import random_below, random_unit

_JIT: JitOptions = {
    "cache": True,
    "nogil": True,
    "error_model": "numpy",
    "sources_digest": compiling.SOURCES_DIGEST,  # the tree's phase functions are compiled in
}


class TranspositionTable:
    """Statistics per position, shared by every tree node of that position.

    Attributes:
        visits: int64 ``[capacity]``: simulations through the entry's position.
        value_sums: float64 ``[capacity]``: their future returns for player 0.
        node_entry: int64 ``[node capacity]``: the entry of each tree node.
    """

    __slots__ = ("_index", "node_entry", "value_sums", "visits")

    def __init__(self, node_capacity: int, capacity: int = 1024) -> None:
        self._index: dict[Hashable, int] = {}
        self.visits = np.zeros(capacity, dtype=np.int64)
        self.value_sums = np.zeros(capacity, dtype=np.float64)
        self.node_entry = np.zeros(node_capacity, dtype=np.int64)

    def __len__(self) -> int:
        """Entries (distinct positions) in the table."""
        return len(self._index)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def entry(self, key: Hashable) -> int:
        """The entry of the position with ``key``, created (with no visits) if new."""
        index = self._index.get(key)
        if index is None:
            index = len(self._index)
            self._index[key] = index
            if index >= self.visits.shape[0]:
                size = 2 * self.visits.shape[0]
                self.visits = np.concatenate([self.visits, np.zeros_like(self.visits)])[:size]
                self.value_sums = np.concatenate([self.value_sums, np.zeros_like(self.value_sums)])[
                    :size
                ]
        return index

    def statistics(self, key: Hashable) -> tuple[int, float]:
        """``(visits, mean future return for player 0)`` of the position with ``key``;
        ``(0, 0.0)`` if the table does not hold it."""
        index = self._index.get(key)
        if index is None or self.visits[index] == 0:
            return 0, 0.0
        return int(self.visits[index]), float(self.value_sums[index] / self.visits[index])

    def fit(self, node_capacity: int) -> None:
        """Give :attr:`node_entry` a row for every node row of the tree (after it grew)."""
        if node_capacity > self.node_entry.shape[0]:
            grown = np.zeros(node_capacity, dtype=np.int64)
            grown[: self.node_entry.shape[0]] = self.node_entry
            self.node_entry = grown

    def carry(self, old_ids: np.ndarray, node_capacity: int) -> None:
        """Follow the tree to its subtree whose node ``i`` was node ``old_ids[i]``
        (:func:`playout._src.tree.subtree.subtree`); the entries are kept."""
        entries = np.zeros(max(node_capacity, old_ids.shape[0]), dtype=np.int64)
        entries[: old_ids.shape[0]] = self.node_entry[old_ids]
        self.node_entry = entries


@jit(**_JIT)
def backup_table(
    nodes: np.ndarray,
    node_values: np.ndarray,
    node_entry: np.ndarray,
    visits: np.ndarray,
    value_sums: np.ndarray,
    leaf: int,
    value0: float,
) -> None:
    """Add a simulation's outcome to the entries of ``leaf`` and of every node above it.

    ``value0`` is the leaf's future return for player 0; each node's reward is added on the
    way up (as in :func:`playout._src.tree.backup.backup_path`).
    """
    node = leaf
    g = value0
    while True:
        entry = node_entry[node]
        visits[entry] += 1
        value_sums[entry] += g
        if node == T.ROOT:
            return
        g += node_values[node, T.NV_REWARD]
        node = nodes[node, T.N_PARENT]


@jit(**_JIT)
def select_edge(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node_entry: np.ndarray,
    visits: np.ndarray,
    value_sums: np.ndarray,
    node: int,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
) -> int:
    """:func:`playout._src.tree.selection.select_edge` with the mean of an edge whose child exists
    read from the child's table entry (UCT2); counts from the tree."""
    first = nodes[node, T.N_FIRST_EDGE]
    count = nodes[node, T.N_NUM_EDGES]
    player = nodes[node, T.N_PLAYER]
    if player == CHANCE:
        return selection.sample_by_prior(edge_values, first, count, rng)
    parent_visits = nodes[node, T.N_VISITS]
    if rule != selection.RULE_PUCT:
        unvisited = selection.random_unvisited_edge(edges, first, count, first, rng)
        if unvisited != T.NO_EDGE:
            return unvisited
        if rule == selection.RULE_EPSILON_GREEDY and random_unit(rng) < rule_params[0]:
            return first + random_below(rng, count)
    c, scale = selection.exploration(rule, rule_params, parent_visits)
    best = -math.inf
    chosen = first
    ties = 0
    for e in range(first, first + count):
        if edges[e, T.E_PROVEN] != T.UNPROVEN:
            continue
        n = edges[e, T.E_VISITS]
        child = edges[e, T.E_CHILD]
        if child == T.UNVISITED:
            q = rule_params[1] if rule == selection.RULE_PUCT else 0.0
        else:
            entry = node_entry[child]
            mean0 = value_sums[entry] / visits[entry] if visits[entry] > 0 else 0.0
            q = backup.value_for(player, node_values[child, T.NV_REWARD] + mean0)
        if rule == selection.RULE_UCB1:
            score = q + c * math.sqrt(scale / n)
        elif rule == selection.RULE_PUCT:
            score = q + c * edge_values[e, T.EV_PRIOR] * scale / (1.0 + n)
        else:
            score = q
        if score > best:
            best = score
            chosen = e
            ties = 1
        elif score == best:
            ties += 1
            if random_below(rng, ties) == 0:
                chosen = e
    return chosen


@jit(**_JIT)
def descend(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node_entry: np.ndarray,
    visits: np.ndarray,
    value_sums: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    max_depth: int,
    path: np.ndarray,
) -> tuple[int, int, int]:
    """:func:`playout._src.tree.selection.descend` with :func:`select_edge` (same stops, same
    return value)."""
    node = T.ROOT
    depth = 0
    while (
        nodes[node, T.N_NUM_EDGES] > 0
        and nodes[node, T.N_PROVEN] == T.UNPROVEN
        and depth < max_depth
    ):
        e = select_edge(
            nodes,
            node_values,
            edges,
            edge_values,
            node_entry,
            visits,
            value_sums,
            node,
            rule,
            rule_params,
            rng,
        )
        path[depth] = e
        depth += 1
        child = edges[e, T.E_CHILD]
        if child == T.UNVISITED:
            return node, e, depth
        node = child
    return node, T.NO_EDGE, depth


__all__ = ["TranspositionTable", "backup_table", "descend", "select_edge"]
