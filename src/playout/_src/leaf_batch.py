"""A batch of simulations in two compiled calls: the batched driver's selection and finish.

The batched driver (:mod:`playout._src.batched_driver`) collects up to ``leaf_batch`` leaves
of one tree before its evaluator values them together. Walking to each leaf, and backing
each value up, takes a handful of compiled phase calls per simulation; from Python each call
costs more than the walk itself. :func:`select_batch` makes all the walks of a batch in one
call and :func:`finish_batch` ends all its simulations in one::

    for i in range(limit):                            # select_batch
        node, edge, depth = walk(...)                 #   the rule's, the forced or Gumbel walk
        if edge is an edge an earlier walk left by:   #   the child would be made twice:
            stop                                      #   the batch ends (a "collision")
        add_virtual_loss(path i)                      #   steer the next walks elsewhere
    ... the caller plays the moves and evaluates the leaves ...
    remove_virtual_loss(every path, newest first)     # finish_batch: the tree as it was,
    finish_new_leaf / finish_old_leaf, in order       #   then expansion, backup, solver

The calls are the same phase functions in the same order as one walk at a time, with the
same random draws (playing a move and listing legal actions draw none), so the search is the
same simulation for simulation.
"""

from __future__ import annotations

import numpy as np

from playout._src import forced, gumbel
from playout._src.jit import JitOptions, files_digest, jit
from playout._src.tree import backup, compiling, finish, selection
from playout._src.tree import layout as T

WALK_RULE = 0
"""Every edge by the configured selection rule (:func:`playout._src.tree.selection.descend`)."""
WALK_FORCED = 1
"""KataGo's forced playouts at the root, then the rule (:func:`playout._src.forced.descend`)."""
WALK_GUMBEL = 2
"""Gumbel AlphaZero's walk (:func:`playout._src.gumbel.descend`)."""

W_NODE, W_EDGE, W_DEPTH = range(3)
"""Columns of a batch's ``walks`` rows: where each walk stopped (as ``descend`` returns it)."""

_JIT: JitOptions = {
    **compiling.PHASE_JIT,
    "sources_digest": compiling.SOURCES_DIGEST + files_digest(forced.__file__, gumbel.__file__),
}


@jit(**_JIT)
def select_batch(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    walk: int,
    rule: int,
    rule_params: np.ndarray,
    forced_k: float,
    gumbel_logits: np.ndarray,
    base_visits: np.ndarray,
    schedule: np.ndarray,
    gumbel_params: np.ndarray,
    scratch: np.ndarray,
    visits: np.ndarray,
    pending: np.ndarray,
    rng: np.ndarray,
    max_depth: int,
    limit: int,
    loss: float,
    paths: np.ndarray,
    saved: np.ndarray,
    walks: np.ndarray,
) -> tuple[int, bool, int]:
    """Up to ``limit`` walks from the root, each holding virtual loss (``loss``, the worst
    return) on its edges until :func:`finish_batch`.

    Walk ``i`` writes its edges to ``paths[i]``, the value sums it covered to ``saved[i]``
    and ``(node, edge, depth)`` to ``walks[i]`` (see :func:`playout._src.tree.selection.
    descend`). ``walk`` picks the walk (:data:`WALK_RULE`, :data:`WALK_FORCED` with
    ``forced_k``, or :data:`WALK_GUMBEL` with the round's ``gumbel_logits``, ``base_visits``
    and ``schedule``, the search's ``gumbel_params`` and work space ``scratch``, ``visits``
    and ``pending``, an ``int64`` row at least the root's edge count long where the batch's
    walks are counted per root edge: its root choices read the finished simulations alone);
    the arrays of the walks not taken may be empty.

    Returns:
        ``(count, collided, deepest)``: the walks kept (rows ``0 .. count - 1``); whether the
        batch stopped because a walk left the tree by an edge an earlier walk of the batch
        left by (that walk is not kept: its random draws are spent, nothing else); and the
        most edges any walk took, the stopped one included.
    """
    deepest = 0
    # The Gumbel walk counts the batch's walks per root edge (its halving reads finished
    # simulations only).
    root_first = nodes[T.ROOT, T.N_FIRST_EDGE]
    if walk == WALK_GUMBEL:
        pending[: max(0, nodes[T.ROOT, T.N_NUM_EDGES])] = 0
    for i in range(limit):
        path = paths[i]
        if walk == WALK_GUMBEL:
            node, edge, depth = gumbel.descend(
                nodes, node_values, edges, edge_values, gumbel_logits, base_visits, schedule,
                gumbel_params, pending, loss, rng, max_depth, path, scratch, visits,
            )  # fmt: skip
        elif walk == WALK_FORCED:
            node, edge, depth = forced.descend(
                nodes, edges, edge_values, rule, rule_params, rng, max_depth, path, forced_k
            )
        else:
            node, edge, depth = selection.descend(
                nodes, edges, edge_values, rule, rule_params, rng, max_depth, path
            )
        deepest = max(deepest, depth)
        if edge != T.NO_EDGE:
            for j in range(i):
                if walks[j, W_EDGE] == edge:
                    return i, True, deepest
        walks[i, W_NODE] = node
        walks[i, W_EDGE] = edge
        walks[i, W_DEPTH] = depth
        backup.add_virtual_loss(nodes, edges, edge_values, path, depth, loss, saved[i])
        if walk == WALK_GUMBEL and depth > 0:
            pending[path[0] - root_first] += 1
    return limit, False, deepest


@jit(**_JIT)
def finish_batch(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    walks: np.ndarray,
    count: int,
    paths: np.ndarray,
    saved: np.ndarray,
    players: np.ndarray,
    rewards0: np.ndarray,
    values0: np.ndarray,
    actions: np.ndarray,
    num_actions: np.ndarray,
    priors: np.ndarray,
    solve: bool,
    min_return: float,
    max_return: float,
) -> bool:
    """End the first ``count`` walks of :func:`select_batch`: take every virtual loss back
    (newest first, so each restores the sums it saw), then finish walk after walk in order.

    Walk ``i`` that left the tree by an edge makes that edge's child: ``players[i]`` to move
    there (:data:`~playout._src.tree.layout.TERMINAL` if the game is over), ``rewards0[i]``
    on the way in, its legal ``actions[i, :num_actions[i]]`` with ``priors[i, ...]`` (none
    for a terminal child); a walk that stopped on a node backs that node up again. Either way
    ``values0[i]`` (for player 0) goes up the walk's path and, with ``solve``, the solver runs
    on the game's return bounds.

    Returns:
        Whether the root is proven after the last walk.
    """
    for i in range(count - 1, -1, -1):
        backup.remove_virtual_loss(nodes, edges, edge_values, paths[i], walks[i, W_DEPTH], saved[i])
    solved = False
    for i in range(count):
        node = walks[i, W_NODE]
        edge = walks[i, W_EDGE]
        depth = walks[i, W_DEPTH]
        if edge == T.NO_EDGE:
            solved = finish.finish_old_leaf(
                nodes, node_values, edges, edge_values, node, values0[i], solve, min_return,
                max_return, paths[i], depth,
            )  # fmt: skip
            continue
        n = num_actions[i]
        player = players[i]
        solved = finish.finish_new_leaf(
            nodes, node_values, edges, edge_values, meta, node, edge, player,
            player == T.TERMINAL, rewards0[i], actions[i, :n], priors[i, :n], values0[i],
            solve, min_return, max_return, paths[i], depth,
        )  # fmt: skip
    return solved


__all__ = [
    "WALK_FORCED",
    "WALK_GUMBEL",
    "WALK_RULE",
    "W_DEPTH",
    "W_EDGE",
    "W_NODE",
    "finish_batch",
    "select_batch",
]
