"""Phase 4, backpropagation: a simulation's value added to every edge of its path.

A value travels up as a return for player 0 and is turned into the mover's point of view at
every edge (:data:`value_for`: negamax for two players, plain sums for one), the reward into
each node added on the way. Virtual loss (:func:`add_virtual_loss`) counts a simulation that
still waits for its value on the edges it took.
"""

from __future__ import annotations

import numpy as np

from playout._src import game
from playout._src.jit import jit
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.layout import (
    E_CHILD,
    E_VISITS,
    EV_VALUE_SUM,
    N_PLAYER,
    N_VISITS,
    NV_REWARD,
    ROOT,
)

value_for = jit(inline="always", **PHASE_JIT)(game.value_for)
""":func:`playout._src.game.value_for` compiled (the one point-of-view flip)."""


@jit(inline="always", **PHASE_JIT)
def node_reward(node_values: np.ndarray, node: int) -> float:
    """The reward into ``node`` for player 0 (zero in a tree without the reward column)."""
    return node_values[node, NV_REWARD] if node_values.shape[1] > NV_REWARD else 0.0


@jit(inline="always", **PHASE_JIT)
def backup_path(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    path: np.ndarray,
    depth: int,
    leaf: int,
    value0: float,
) -> None:
    """Backpropagation: add a simulation's outcome to every edge from ``leaf`` up to the root.

    ``value0`` is the leaf's value for player 0 (future return from the leaf). Each node's
    reward is added on the way up, and every edge accumulates the return seen by the player
    who chose it. The walk follows the edges the simulation recorded (``path[:depth]``,
    ending at ``leaf``) rather than the parent pointers: the next edge and parent are known
    without waiting for the previous load, which makes the walk up cheaper in big trees.
    """
    nodes[leaf, N_VISITS] += 1
    g = value0
    child = leaf
    rewards = node_values.shape[1] > NV_REWARD
    for t in range(depth - 1, -1, -1):
        e = path[t]
        parent = ROOT if t == 0 else edges[path[t - 1], E_CHILD]
        if rewards:
            g += node_values[child, NV_REWARD]
        edges[e, E_VISITS] += 1
        edge_values[e, EV_VALUE_SUM] += value_for(nodes[parent, N_PLAYER], g)
        nodes[parent, N_VISITS] += 1
        child = parent


@jit(**PHASE_JIT)
def add_virtual_loss(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    path: np.ndarray,
    depth: int,
    loss: float,
    saved: np.ndarray,
) -> None:
    """Virtual loss (Chaslot et al. 2008): count a simulation still waiting for its leaf's
    value as a visit that returned ``loss`` (the worst return, for the player who chose each
    edge) on the edges ``path[:depth]``. The value sums before it go to ``saved[:depth]``,
    so that :func:`remove_virtual_loss` restores them exactly.

    Leaf batching descends several times before one evaluation: the virtual visits steer
    the later descents of a batch away from the paths already taken.
    """
    for t in range(depth):
        e = path[t]
        parent = ROOT if t == 0 else edges[path[t - 1], E_CHILD]
        saved[t] = edge_values[e, EV_VALUE_SUM]
        edges[e, E_VISITS] += 1
        edge_values[e, EV_VALUE_SUM] += loss
        nodes[parent, N_VISITS] += 1


@jit(**PHASE_JIT)
def remove_virtual_loss(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    path: np.ndarray,
    depth: int,
    saved: np.ndarray,
) -> None:
    """Undo :func:`add_virtual_loss` on ``path[:depth]`` (undo the losses of a batch in the
    reverse order they were added: each restores the sums it saw)."""
    for t in range(depth - 1, -1, -1):
        e = path[t]
        parent = ROOT if t == 0 else edges[path[t - 1], E_CHILD]
        edges[e, E_VISITS] -= 1
        edge_values[e, EV_VALUE_SUM] = saved[t]
        nodes[parent, N_VISITS] -= 1


__all__ = ["add_virtual_loss", "backup_path", "node_reward", "remove_virtual_loss", "value_for"]
