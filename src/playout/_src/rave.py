"""RAVE / AMAF statistics and the selection rule that reads them, with progressive bias.

All-moves-as-first (AMAF) statistics (Gelly & Silver 2007, "Combining online and offline
knowledge in UCT"; 2011, "Monte-Carlo tree search and rapid action value estimation in
computer Go") share what a simulation learns about a move among every position of the
simulation where the same player could have played it. They live in an :class:`AmafTable`,
two arrays parallel to the tree's edge rows (:mod:`playout._src.tree.layout`):

``visit_count`` (int64, ``[edge_capacity]``)
    simulations that played the edge's action later on, from the edge's node, by the player
    who chooses the edge (its AMAF sample count, ``ñ(s, a)``).
``value_sum`` (float64, ``[edge_capacity]``)
    the returns of those simulations **for the player who chooses the edge** (the player to
    move at the edge's node, as for ``EV_VALUE_SUM``); the AMAF value is
    ``value_sum / visit_count``.

After every simulation :func:`update_amaf` walks the simulation's nodes from its leaf up to
the root (no recursion). At the node reached at time ``t`` it credits every edge whose action
the player to move there played at any time ``u >= t`` of the same simulation, in the tree or
in the rollout (MC-RAVE's update; an action repeated later counts once per node). A leaf
evaluated by several rollouts gives one AMAF sample per rollout; an evaluator without
rollouts (a value function) gives one sample from the tree's moves alone. Chance nodes keep
no AMAF statistics.

The selection (:func:`select_edge`, walked by :func:`descend`) scores an edge, for the player
who chooses it, as ::

    (1 - beta) * Q + beta * Q_amaf + c * sqrt(ln N / max(n, 1)) + w * H / (n + 1)

with Gelly & Silver's (2011) minimum-MSE schedule
``beta = ñ / (n + ñ + 4 b^2 n ñ)`` (``b``: the RAVE bias, ``beta = 0`` when ``ñ = 0``, so
an edge without AMAF samples is plain UCB1), UCB1's exploration term (Kocsis & Szepesvari
2006) and Chaslot et al.'s (2008, "Progressive strategies for Monte-Carlo tree search")
progressive bias ``w * H / (n + 1)``, where ``H`` is a heuristic score of the move stored in
the edge's ``EV_PRIOR``. Edges that are untried (no visit and, with RAVE, no AMAF sample)
come first, highest ``H`` first, ties at random.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from playout._src.game import GameState
from playout._src.jit import JitOptions, jit
from playout._src.tree import backup, compiling, selection
from playout._src.tree import layout as T
from playout._src.tree.rng import random_below

P_C, P_USE_RAVE, P_RAVE_SCALE, P_BIAS_WEIGHT, P_PRIOR_SAMPLES = range(5)
"""Entries of the parameter array of :func:`select_edge`: the exploration constant ``c``;
1.0 to mix AMAF values in (else 0.0); ``4 b^2`` of the beta schedule; the progressive-bias
weight ``w``; the virtual AMAF samples a new edge gets from the kernel's move scores (the
compiled RAVE loop; not read by the selection)."""
NUM_PARAMS = 5

_JIT: JitOptions = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": False}
"""As :data:`playout._src.tree.compiling.PHASE_JIT`: nothing here allocates."""

Playout = tuple[float, Sequence[int], Sequence[int]]
"""One recorded rollout: player 0's return from the leaf, the actions, who played each."""


def recorded_random_rollout(
    state: GameState, choice: Callable[[Sequence[int]], int]
) -> tuple[float, tuple[Playout]]:
    """A uniformly random rollout from ``state`` (moves drawn by ``choice``, e.g. a seeded
    ``random.Random().choice``) with its moves and movers recorded: player 0's return at the
    end, and the one :data:`Playout`."""
    actions: list[int] = []
    players: list[int] = []
    end = state
    while not end.is_terminal():
        action = choice(end.legal_actions())
        players.append(end.current_player())
        actions.append(action)
        end = end.play(action)
    value0 = float(end.returns()[0])
    return value0, ((value0, actions, players),)


_NO_AMAF = np.zeros(0, dtype=np.int64)
_NO_AMAF_SUMS = np.zeros(0, dtype=np.float64)


def selection_parameters(
    *,
    c: float,
    use_rave: bool,
    rave_bias: float = 0.0,
    bias_weight: float = 0.0,
    prior_samples: float = 0.0,
) -> np.ndarray:
    """The parameter array of :func:`select_edge` (see :data:`P_C` and the others)."""
    params = np.zeros(NUM_PARAMS, dtype=np.float64)
    params[P_C] = c
    params[P_USE_RAVE] = 1.0 if use_rave else 0.0
    params[P_RAVE_SCALE] = 4.0 * rave_bias * rave_bias
    params[P_BIAS_WEIGHT] = bias_weight
    params[P_PRIOR_SAMPLES] = prior_samples
    return params


# --------------------------------------------------------------------------------------------
# Selection.
# --------------------------------------------------------------------------------------------


@jit(inline="always", **_JIT)
def select_edge(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    amaf_visits: np.ndarray,
    amaf_sums: np.ndarray,
    node: int,
    params: np.ndarray,
    rng: np.ndarray,
) -> int:
    """The edge to follow from expanded, non-terminal ``node`` (see the module docstring).

    Values are for the player to move at ``node`` (who chooses the edge). ``amaf_visits`` and
    ``amaf_sums`` are read only when ``params[P_USE_RAVE]`` is set (they may be empty
    otherwise). As in :func:`playout._src.tree.selection.select_edge`: chance nodes sample by
    probability, edges into children proven by the solver are skipped, ties are broken
    uniformly at random.
    """
    first = nodes[node, T.N_FIRST_EDGE]
    count = nodes[node, T.N_NUM_EDGES]
    if nodes[node, T.N_PLAYER] == T.CHANCE:
        return selection.sample_by_prior(edge_values, first, count, rng)
    use_rave = params[P_USE_RAVE] > 0.0
    weight = params[P_BIAS_WEIGHT]
    # 1. Untried edges first, the best heuristic score first.
    best = -math.inf
    chosen = T.NO_EDGE
    ties = 0
    for e in range(first, first + count):
        if edges[e, T.E_VISITS] != 0 or (use_rave and amaf_visits[e] != 0):
            continue
        score = weight * edge_values[e, T.EV_PRIOR]
        if score > best:
            best = score
            chosen = e
            ties = 1
        elif score == best:
            ties += 1
            if random_below(rng, ties) == 0:
                chosen = e
    if chosen != T.NO_EDGE:
        return chosen
    # 2. The score of every unproven edge.
    c = params[P_C]
    scale = params[P_RAVE_SCALE]
    log_visits = math.log(max(nodes[node, T.N_VISITS], 1))
    best = -math.inf
    chosen = first
    ties = 0
    for e in range(first, first + count):
        if edges[e, T.E_PROVEN] != T.UNPROVEN:
            continue  # its value is known: spend the simulation on what is not
        n = edges[e, T.E_VISITS]
        value = edge_values[e, T.EV_VALUE_SUM] / n if n > 0 else 0.0
        if use_rave:
            n_amaf = amaf_visits[e]
            if n_amaf > 0:
                beta = n_amaf / (n + n_amaf + scale * n * n_amaf)
                value = (1.0 - beta) * value + beta * (amaf_sums[e] / n_amaf)
        score = (
            value
            + c * math.sqrt(log_visits / max(n, 1))
            + weight * edge_values[e, T.EV_PRIOR] / (n + 1.0)
        )
        if score > best:
            best = score
            chosen = e
            ties = 1
        elif score == best:
            ties += 1
            if random_below(rng, ties) == 0:
                chosen = e
    return chosen


# --------------------------------------------------------------------------------------------
# The AMAF update.
# --------------------------------------------------------------------------------------------


@jit(inline="always", **_JIT)
def _credit_node(
    nodes: np.ndarray,
    edges: np.ndarray,
    amaf_visits: np.ndarray,
    amaf_sums: np.ndarray,
    marks: np.ndarray,
    stamp: int,
    node: int,
    player: int,
    value: float,
) -> None:
    """Add ``value`` (for ``player``, who moves at ``node``) to the AMAF statistics of every
    edge of ``node`` whose action ``player`` has been marked with ``stamp``."""
    first = nodes[node, T.N_FIRST_EDGE]
    width = marks.shape[1]
    for e in range(first, first + nodes[node, T.N_NUM_EDGES]):
        action = edges[e, T.E_ACTION]
        if 0 <= action < width and marks[player, action] == stamp:
            amaf_visits[e] += 1
            amaf_sums[e] += value


# --------------------------------------------------------------------------------------------
# The compiled entry points.
# --------------------------------------------------------------------------------------------


def _tree_fingerprint() -> int:
    """A hash of the sources of :mod:`playout._src.tree` (``compiling.sources_fingerprint``).

    The entry points below have the tree's layout constants and phase functions compiled in,
    but numba's on-disk cache is keyed on this file alone. The fingerprint is part of their
    closure, which numba does hash (as for the compiled driver), so an edited tree module
    means recompiled functions instead of stale cached ones reading the wrong columns.
    """
    return compiling.sources_fingerprint()


def _build_entry_points(fingerprint: int):  # type: ignore[no-untyped-def]
    """:func:`descend`, :func:`update_amaf` and :func:`carry_amaf`, closures over
    ``fingerprint``."""

    @jit(**_JIT)
    def descend(
        nodes: np.ndarray,
        edges: np.ndarray,
        edge_values: np.ndarray,
        amaf_visits: np.ndarray,
        amaf_sums: np.ndarray,
        params: np.ndarray,
        rng: np.ndarray,
        max_depth: int,
        path: np.ndarray,
    ) -> tuple[int, int, int]:
        """Selection with :func:`select_edge`: the walk of ``tree.selection.descend``.

        Returns:
            ``(node, edge, depth)`` with the meaning of
            :func:`playout._src.tree.selection.descend`; ``path`` receives the edges taken.
        """
        _ = fingerprint  # in the closure: see _tree_fingerprint
        node = T.ROOT
        depth = 0
        while (
            nodes[node, T.N_NUM_EDGES] > 0
            and nodes[node, T.N_PROVEN] == T.UNPROVEN
            and depth < max_depth
        ):
            e = select_edge(nodes, edges, edge_values, amaf_visits, amaf_sums, node, params, rng)
            path[depth] = e
            depth += 1
            child = edges[e, T.E_CHILD]
            if child == T.UNVISITED:
                return node, e, depth
            node = child
        return node, T.NO_EDGE, depth

    @jit(**_JIT)
    def update_amaf(
        nodes: np.ndarray,
        node_values: np.ndarray,
        edges: np.ndarray,
        amaf_visits: np.ndarray,
        amaf_sums: np.ndarray,
        marks: np.ndarray,
        stamp: int,
        path: np.ndarray,
        depth: int,
        rollout_actions: np.ndarray,
        rollout_players: np.ndarray,
        value0: float,
    ) -> None:
        """MC-RAVE's update (Gelly & Silver 2011) after one simulation, after its backup.

        The simulation took the ``depth`` edges of ``path`` from the root, reached the leaf at the
        end of ``path[depth - 1]`` (the root when ``depth`` is 0), and then played
        ``rollout_actions`` (``rollout_players[i]`` moving ``rollout_actions[i]``). ``value0`` is
        the leaf's value for player 0, as given to backup (a tree without the reward column,
        the compiled driver's, has no rewards). Walking from the leaf up to the root,
        the node reached at time ``t`` (player ``p`` to move) gets, on every edge whose action
        ``p`` played at a time ``u >= t``, one AMAF sample with the return for ``p``: ``value0``
        plus the rewards into the path's nodes below it (as in
        :func:`playout._src.tree.backup.backup_path`).

        ``marks`` (int64, ``[players, action ids]``) records which player played which action at
        a time ``>= t``: an entry equal to ``stamp`` (a number no earlier call used) is set.
        Actions outside ``marks`` are ignored (the caller makes it wide enough); chance moves and
        chance nodes take no part.
        """
        _ = fingerprint  # in the closure: see _tree_fingerprint
        rows = marks.shape[0]
        width = marks.shape[1]
        for i in range(rollout_actions.shape[0]):
            player = rollout_players[i]
            action = rollout_actions[i]
            if 0 <= player < rows and 0 <= action < width:
                marks[player, action] = stamp
        leaf = T.ROOT if depth == 0 else edges[path[depth - 1], T.E_CHILD]
        g = value0
        player = nodes[leaf, T.N_PLAYER]
        if 0 <= player < rows and nodes[leaf, T.N_NUM_EDGES] > 0:
            _credit_node(
                nodes,
                edges,
                amaf_visits,
                amaf_sums,
                marks,
                stamp,
                leaf,
                player,
                backup.value_for(player, g),
            )
        child = leaf
        for t in range(depth - 1, -1, -1):
            e = path[t]
            node = T.ROOT if t == 0 else edges[path[t - 1], T.E_CHILD]
            g += backup.node_reward(node_values, child)
            child = node
            player = nodes[node, T.N_PLAYER]
            if not 0 <= player < rows:
                continue
            action = edges[e, T.E_ACTION]
            if 0 <= action < width:
                marks[player, action] = stamp
            _credit_node(
                nodes,
                edges,
                amaf_visits,
                amaf_sums,
                marks,
                stamp,
                node,
                player,
                backup.value_for(player, g),
            )

    @jit(**_JIT)
    def carry_amaf(
        old_nodes: np.ndarray,
        new_nodes: np.ndarray,
        old_ids: np.ndarray,
        old_visits: np.ndarray,
        old_sums: np.ndarray,
        new_visits: np.ndarray,
        new_sums: np.ndarray,
    ) -> None:
        """Copy AMAF rows into a subtree made by :func:`playout._src.tree.subtree.subtree`.

        ``old_ids[i]`` is the old id of new node ``i``; a copied node keeps its edges in the same
        order, so its ``k``-th edge row moves from ``old first + k`` to ``new first + k``.
        """
        _ = fingerprint  # in the closure: see _tree_fingerprint
        for new in range(old_ids.shape[0]):
            count = new_nodes[new, T.N_NUM_EDGES]
            if count <= 0:
                continue
            old = old_ids[new]
            old_first = old_nodes[old, T.N_FIRST_EDGE]
            new_first = new_nodes[new, T.N_FIRST_EDGE]
            for k in range(count):
                new_visits[new_first + k] = old_visits[old_first + k]
                new_sums[new_first + k] = old_sums[old_first + k]

    return descend, update_amaf, carry_amaf


descend, update_amaf, carry_amaf = _build_entry_points(_tree_fingerprint())


# --------------------------------------------------------------------------------------------
# The table the drivers keep (Python driver, compiled driver's RAVE loop).
# --------------------------------------------------------------------------------------------


class AmafTable:
    """AMAF statistics of one tree: rows parallel to the tree's edge rows.

    Attributes:
        visit_count: int64 ``[capacity]``, AMAF samples per edge (rows past the tree's
            ``num_edges`` are zero).
        value_sum: float64 ``[capacity]``, their returns for the player who chooses the edge.
        marks: int64 ``[players, action ids]``, scratch of :func:`update_amaf`.
    """

    __slots__ = ("_stamp", "marks", "value_sum", "visit_count")

    def __init__(self, capacity: int, num_players: int, num_action_ids: int) -> None:
        self.visit_count = np.zeros(capacity, dtype=np.int64)
        self.value_sum = np.zeros(capacity, dtype=np.float64)
        self.marks = np.zeros((max(1, num_players), max(1, num_action_ids)), dtype=np.int64)
        self._stamp = 0

    @property
    def capacity(self) -> int:
        return int(self.visit_count.shape[0])

    def fit(self, edge_capacity: int) -> None:
        """Grow the rows to ``edge_capacity`` (new rows zero), as the tree grows."""
        if edge_capacity > self.capacity:
            visits = np.zeros(edge_capacity, dtype=np.int64)
            sums = np.zeros(edge_capacity, dtype=np.float64)
            visits[: self.capacity] = self.visit_count
            sums[: self.capacity] = self.value_sum
            self.visit_count, self.value_sum = visits, sums

    def widen(self, max_action: int) -> None:
        """Make ``marks`` wide enough for action ids up to ``max_action``."""
        if max_action >= self.marks.shape[1]:
            width = max(max_action + 1, 2 * self.marks.shape[1])
            marks = np.zeros((self.marks.shape[0], width), dtype=np.int64)
            marks[:, : self.marks.shape[1]] = self.marks
            self.marks = marks

    def next_stamp(self) -> int:
        """A stamp no earlier update used."""
        self._stamp += 1
        return self._stamp

    def add_simulation(
        self,
        tree: T.Tree,
        path: np.ndarray,
        depth: int,
        value0: float,
        playouts: Sequence[Playout],
        unbounded_ids: bool,
    ) -> None:
        """MC-RAVE's update after a simulation that went down ``path[:depth]`` and was valued
        ``value0`` for player 0 (:func:`update_amaf`): one AMAF sample per rollout in
        ``playouts``, or one for the tree's moves alone without rollouts. ``unbounded_ids``:
        the game declares no ``num_actions``, so ``marks`` may need widening."""
        for playout_value0, actions, players in playouts or ((value0, (), ()),):
            action_array = np.asarray(actions, dtype=np.int64)
            if unbounded_ids:
                top = int(tree.edges[path[:depth], T.E_ACTION].max(initial=0))
                self.widen(max(top, int(action_array.max(initial=0))))
            update_amaf(
                tree.nodes,
                tree.node_values,
                tree.edges,
                self.visit_count,
                self.value_sum,
                self.marks,
                self.next_stamp(),
                path,
                depth,
                action_array,
                np.asarray(players, dtype=np.int64),
                float(playout_value0),
            )

    def carried(self, old_tree: T.Tree, new_tree: T.Tree, old_ids: np.ndarray) -> AmafTable:
        """The table of ``new_tree``, the subtree of ``old_tree`` whose node ``i`` was node
        ``old_ids[i]`` (see :func:`playout._src.tree.subtree.subtree`)."""
        out = AmafTable(new_tree.edge_capacity, self.marks.shape[0], self.marks.shape[1])
        out.marks = self.marks
        out._stamp = self._stamp
        carry_amaf(
            old_tree.nodes,
            new_tree.nodes,
            old_ids,
            self.visit_count,
            self.value_sum,
            out.visit_count,
            out.value_sum,
        )
        return out


__all__ = [
    "NUM_PARAMS",
    "P_BIAS_WEIGHT",
    "P_C",
    "P_PRIOR_SAMPLES",
    "P_RAVE_SCALE",
    "P_USE_RAVE",
    "AmafTable",
    "Playout",
    "carry_amaf",
    "descend",
    "recorded_random_rollout",
    "select_edge",
    "selection_parameters",
    "update_amaf",
]
