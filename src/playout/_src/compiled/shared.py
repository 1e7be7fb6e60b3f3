"""Tree parallelism: several threads run compiled simulations on one shared tree.

Opt-in (``SearchConfig(tree_threads=n)``, ``parallel_search(..., shared_tree=True)``,
``analyze --threads N --shared-tree``); root parallelism (:mod:`playout._src.parallel`)
stays the default way to put several cores on one decision.

The design is the lock-free one of Enzenberger & Mueller 2009 ("A lock-free multithreaded
Monte-Carlo tree search algorithm", Fuego), with virtual loss (Chaslot, Winands & van den
Herik 2008; Segal 2010):

- **Memory without a shared counter.** Before a chunk of simulations the driver (Python,
  single-threaded) reserves room for all of them and gives each thread its own block of node
  rows and edge rows (a node per simulation, and ``num_actions`` edges per simulation for
  the one node it may expand); a thread allocates from its block with a private cursor.
  ``meta`` is not written during the chunk. Rows a thread did not use (simulations that
  ended on an existing node) are filled as dead rows afterwards (:data:`DEAD_ROW`, never
  linked); ``meta`` then counts them, so a tree built by several threads has holes between
  the blocks (``result.nodes`` counts rows, holes included). Tree reuse
  (:meth:`CompiledDriver.keep_subtree`) copies the reachable subtree only, dropping holes
  and wasted nodes.
- **Publication.** A new node's rows (its node row and its compact state) are all written
  before the node is linked into the tree: the parent edge's child pointer is set last, by a
  compare-and-swap (:func:`publish`, one LLVM ``cmpxchg``; numba itself offers no atomics on
  the CPU, the instruction is emitted by an intrinsic) which is also the release barrier for
  those writes. Readers follow the pointer (an address dependency), so they see a node only
  complete.
- **Lazy expansion.** As in the ordinary loop, a new node has no edges
  (:data:`~playout._src.tree.layout.UNEXPANDED`) until a simulation comes back to it: most never
  get any, which saves their edge rows and the listing of their moves. A thread that reaches
  an unexpanded node claims it by a compare-and-swap of its edge count to
  :data:`EXPANDING` (:func:`claim_expansion`: one thread wins), writes the edges in its own
  block, then the first-edge id, a release barrier, and the count last; a walk reads the
  count, then (acquire) the edges. A walk that meets a node another thread is expanding
  stops there and backs up a rollout from it (a sample of its position, as at the depth
  limit).
- **Expansion races.** Two threads that expand the same edge at once each build a node; the
  compare-and-swap links exactly one of them, and the loser's node is never linked (a wasted
  node, counted in :attr:`SharedTreeDriver.wasted_nodes`). The loser's simulation still
  backs up its rollout through that edge (a sample of the same position) and counts its
  visit on the node that won.
- **Statistics: plain racy increments.** Visit counts and value sums are updated with
  ordinary loads and stores, no atomics, no locks, as in Fuego: two threads incrementing the
  same counter at the same instant may lose one of the updates. Enzenberger & Mueller found
  such lost updates rare and harmless to the search: the statistics are estimates, a count
  short by one changes nothing that matters, and the structure of the tree is never written
  this way (child pointers only through :func:`publish`). Counts are only ever incremented
  during a chunk, so a lost update leaves a count *below* its ideal value, never above it
  and never at zero once it was one. Aligned 32- and 64-bit loads and stores do not tear on
  the machines numba targets.
- **Virtual loss.** Going down, every edge taken counts at once as a visit that returned the
  worst value (-1 for the player who chose it) and its node as visited, so that the other
  threads spread to other lines while this simulation's rollout runs. The backup turns that
  virtual visit into the real one: the visit stays, the value sum gets ``value - loss``, so
  no virtual loss is left once the simulation is backed up (and with one thread the
  statistics are exactly those of the ordinary search, bit for bit, for the same seed).
  The path's nodes are recorded on the way down, so the backup never re-reads a pointer.
- **A sound solver.** A proof is written value first (plies, exact value), then a release
  barrier, then the node's solver class; readers read the class, then an acquire barrier,
  then the value. A proof from a thread relies only on children it found linked and proven,
  which are facts about positions, so it holds whatever the other threads do. The mean of
  an edge into a proven node is reset to its exact value at every backup through it, so it
  is exact again once the threads stop (as in the ordinary search). Two threads may prove
  the same node at once with different plies counts (both correct outcomes; the plies of
  the last writer stay).

The budget is exact: a chunk's simulations are split among the threads (each runs its
share, all in the same compiled loop), and the engine adds up what they ran. The root's
result is built after the chunk, when no thread runs (:func:`result_from_tree`, as always).
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import inspect
import math
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from numba import types as nt
from numba.core import cgutils
from numba.extending import intrinsic

from playout._src.compiled import driver as driver_module
from playout._src.compiled.driver import (
    _FLOAT_MATRIX,
    _INT_MATRIX,
    _dependency_fingerprint,
    borrowed,
    kernel_loop,
    terminal_value0,
)
from playout._src.compiled.engine import CompiledDriver
from playout._src.compiled.kernel import (
    ACTIONS_TYPE,
    ONGOING,
    PARAMS_TYPE,
    RNG_TYPE,
    SCRATCH_TYPE,
    Kernel,
)
from playout._src.config import SearchConfig
from playout._src.game import GameState
from playout._src.jit import JitOptions, jit
from playout._src.tree import backup, expansion, selection, solver
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state

VIRTUAL_LOSS = -1.0
"""The value a virtual visit counts for the player who chose the edge: the worst outcome of a
compiled kernel's game (outcomes and rollout values lie in [-1, 1])."""

C_NEXT_NODE, C_NODE_END, C_NEXT_EDGE, C_EDGE_END = range(4)
"""``cursor`` fields of a thread: its next free node row and the end of its node block, its
next free edge row and the end of its edge block."""
CURSOR_FIELDS = 4

S_MAX_DEPTH, S_WASTED, S_EDGES = range(3)
"""Per-thread ``stats``: deepest path, wasted nodes (lost expansion races), edges visited
(the sum of the path lengths: the increments this thread made to edge visit counts)."""
SHARED_STAT_FIELDS = 3

DEAD_ROW = np.array(
    [0, 0, T.NO_EDGE, T.TERMINAL, 0, T.UNPROVEN, 0, T.NO_NODE], dtype=np.int64
)  # fmt: skip
"""The node row written into the unused rows of a thread's block: no edges, no parent, never
linked."""

_SHARED_PHASE_JIT: JitOptions = {
    "cache": True,
    "nogil": True,
    "error_model": "numpy",
    "_nrt": False,
}


# --------------------------------------------------------------------------------------------
# Barriers and the one atomic instruction (LLVM, through numba intrinsics).
# --------------------------------------------------------------------------------------------


@intrinsic
def _release_barrier(typingctx):  # type: ignore[no-untyped-def]
    """``fence release``: no store before it is seen after a store that follows it (free on
    x86, where it only stops the compiler from moving stores)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        builder.fence("release")
        return context.get_dummy_value()

    return nt.none(), codegen


@intrinsic
def _acquire_barrier(typingctx):  # type: ignore[no-untyped-def]
    """``fence acquire``: no load after it is satisfied before a load that precedes it."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        builder.fence("acquire")
        return context.get_dummy_value()

    return nt.none(), codegen


@intrinsic
def _compare_and_swap(typingctx, array, row, col, expected, value):  # type: ignore[no-untyped-def]
    """``array[row, col]``: if it holds ``expected``, ``value`` is stored, atomically (LLVM
    ``cmpxchg``, acquire-release); whether it was stored."""
    if not (isinstance(array, nt.Array) and array.ndim == 2):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, value=args[0])
        indices = [
            context.cast(builder, args[1], signature.args[1], nt.intp),
            context.cast(builder, args[2], signature.args[2], nt.intp),
        ]
        pointer = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
            context, builder, array_type, view, indices, wraparound=False
        )
        old = context.cast(builder, args[3], signature.args[3], array_type.dtype)
        new = context.cast(builder, args[4], signature.args[4], array_type.dtype)
        pair = builder.cmpxchg(pointer, old, new, "acq_rel", "monotonic")
        return builder.extract_value(pair, 1)

    return nt.boolean(array, row, col, expected, value), codegen


release_barrier = cast(Callable[[], None], _release_barrier)
acquire_barrier = cast(Callable[[], None], _acquire_barrier)
compare_and_swap = cast(Callable[[np.ndarray, int, int, int, int], bool], _compare_and_swap)


# --------------------------------------------------------------------------------------------
# The phases on a shared tree (compiled trees: no reward column).
# --------------------------------------------------------------------------------------------


EXPANDING = -2
"""``N_NUM_EDGES`` of a node whose edges a thread is writing (lazy expansion): set from
:data:`~playout._src.tree.layout.UNEXPANDED` by the compare-and-swap that gives one thread the
right to expand the node, replaced by the edge count once the edges are written. Walks stop
at such a node (its count is not positive) and back up a rollout from it."""


@jit(inline="always", **_SHARED_PHASE_JIT)
def claim_expansion(nodes: np.ndarray, node: int) -> bool:
    """Whether this thread may give unexpanded ``node`` its edges: one compare-and-swap of
    its edge count from ``UNEXPANDED`` to :data:`EXPANDING`, which only one thread wins."""
    return compare_and_swap(nodes, node, T.N_NUM_EDGES, T.UNEXPANDED, EXPANDING)


@jit(inline="always", **_SHARED_PHASE_JIT)
def add_virtual_visit(
    nodes: np.ndarray, edges: np.ndarray, edge_values: np.ndarray, node: int, e: int
) -> None:
    """Count this simulation at once on edge ``e`` of ``node`` as a visit that returned
    :data:`VIRTUAL_LOSS` (the backup turns it into the real visit)."""
    edges[e, T.E_VISITS] += 1
    edge_values[e, T.EV_VALUE_SUM] += VIRTUAL_LOSS
    nodes[node, T.N_VISITS] += 1


@jit(inline="always", **_SHARED_PHASE_JIT)
def descend_with_virtual_loss(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    max_depth: int,
    path: np.ndarray,
    path_nodes: np.ndarray,
) -> tuple[int, int, int]:
    """:func:`playout._src.tree.selection.descend`, adding a virtual loss on each edge as it is
    taken (the edge's visits and its node's visits count this simulation at once, its value sum
    gets :data:`VIRTUAL_LOSS`). ``path_nodes[t]`` receives the node ``path[t]`` leaves.
    Selection at a node reads only that node's row and edges, which this simulation has not
    touched yet: with one thread, the choices are those of ``selection.descend``."""
    node = T.ROOT
    depth = 0
    while (
        nodes[node, T.N_NUM_EDGES] > 0
        and nodes[node, T.N_PROVEN] == T.UNPROVEN
        and depth < max_depth
    ):
        acquire_barrier()  # the edge count before the edges it publishes
        e = selection.select_edge(nodes, edges, edge_values, node, rule, rule_params, rng)
        path[depth] = e
        path_nodes[depth] = node
        depth += 1
        add_virtual_visit(nodes, edges, edge_values, node, e)
        child = edges[e, T.E_CHILD]
        if child == T.UNVISITED:
            return node, e, depth
        node = child
    return node, T.NO_EDGE, depth


@jit(inline="always", **_SHARED_PHASE_JIT)
def publish(edges: np.ndarray, edge: int, child: int) -> bool:
    """Link ``child`` (all its rows written) as the child of ``edge``, unless another thread
    linked one first; whether this one was linked."""
    return compare_and_swap(edges, edge, T.E_CHILD, T.UNVISITED, child)


@jit(inline="always", **_SHARED_PHASE_JIT)
def exact_for(nodes: np.ndarray, node_values: np.ndarray, mover: int, child: int) -> float:
    """The exact value of proven (or terminal) ``child`` for ``mover``: read after its class,
    behind an acquire barrier."""
    acquire_barrier()
    return backup.value_for(mover, node_values[child, T.NV_EXACT])


@jit(inline="always", **_SHARED_PHASE_JIT)
def backup_virtual(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    path: np.ndarray,
    path_nodes: np.ndarray,
    depth: int,
    leaf: int,
    count_leaf: bool,
    value0: float,
) -> None:
    """Back up ``value0`` (for player 0) along ``path[:depth]``, turning each edge's virtual
    visit into the real one: its value sum gets ``value - VIRTUAL_LOSS``; visits stay. The
    leaf's own visit is added when ``count_leaf`` (a new node is written with it). An edge
    into a proven node gets the exact mean back (``exact * visits``), as in the ordinary
    search, where only the proven node's exact value is ever backed up through it."""
    if count_leaf:
        nodes[leaf, T.N_VISITS] += 1
    for t in range(depth - 1, -1, -1):
        e = path[t]
        mover = nodes[path_nodes[t], T.N_PLAYER]
        if edges[e, T.E_PROVEN] != T.UNPROVEN:
            exact = exact_for(nodes, node_values, mover, edges[e, T.E_CHILD])
            edge_values[e, T.EV_VALUE_SUM] = exact * edges[e, T.E_VISITS]
        else:
            edge_values[e, T.EV_VALUE_SUM] += backup.value_for(mover, value0) - VIRTUAL_LOSS


@jit(inline="always", **_SHARED_PHASE_JIT)
def mark_proven(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
    proven: int,
    plies: int,
    exact0: float,
) -> None:
    """Write a proof of ``node``: plies and exact value, a release barrier, the class; then
    the copy on its parent edge and that edge's exact mean."""
    nodes[node, T.N_PLIES] = plies
    node_values[node, T.NV_EXACT] = exact0
    release_barrier()
    nodes[node, T.N_PROVEN] = proven
    if node == T.ROOT:
        return
    e = nodes[node, T.N_PARENT_EDGE]
    mover = nodes[nodes[node, T.N_PARENT], T.N_PLAYER]
    edges[e, T.E_PROVEN] = proven
    edge_values[e, T.EV_VALUE_SUM] = backup.value_for(mover, exact0) * edges[e, T.E_VISITS]


@jit(inline="always", **_SHARED_PHASE_JIT)
def solve_shared(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    leaf: int,
    min_return: float,
    max_return: float,
) -> None:
    """:func:`playout._src.tree.solver.solve_upward` on a shared tree: the same proofs, written with
    :func:`mark_proven` and read class first (see the module docstring)."""
    node = leaf
    if nodes[node, T.N_PROVEN] == T.UNPROVEN:
        if nodes[node, T.N_PLAYER] != T.TERMINAL:
            return
        exact0 = node_values[node, T.NV_EXACT]  # written before the node was linked
        proven = solver.classify(exact0, min_return, max_return)
        mark_proven(nodes, node_values, edges, edge_values, node, proven, 0, exact0)
    elif node != T.ROOT:
        # Proven already (a walk that stopped on it): the edge's copy and exact mean.
        proven = nodes[node, T.N_PROVEN]
        e = nodes[node, T.N_PARENT_EDGE]
        mover = nodes[nodes[node, T.N_PARENT], T.N_PLAYER]
        edges[e, T.E_PROVEN] = proven
        edge_values[e, T.EV_VALUE_SUM] = (
            exact_for(nodes, node_values, mover, node) * edges[e, T.E_VISITS]
        )
    while node != T.ROOT:
        parent = nodes[node, T.N_PARENT]
        if nodes[parent, T.N_PROVEN] != T.UNPROVEN:
            return
        player = nodes[parent, T.N_PLAYER]
        if player == T.CHANCE:
            return
        first = nodes[parent, T.N_FIRST_EDGE]
        count = nodes[parent, T.N_NUM_EDGES]
        all_proven = True
        best = -np.inf
        best_plies = 0
        for e in range(first, first + count):
            child = edges[e, T.E_CHILD]
            if child == T.UNVISITED or nodes[child, T.N_PROVEN] == T.UNPROVEN:
                all_proven = False
                continue
            value = exact_for(nodes, node_values, player, child)
            plies = nodes[child, T.N_PLIES] + 1
            if value > best:
                best, best_plies = value, plies
            elif value == best:
                best_plies = max(best_plies, plies) if value < 0.0 else min(best_plies, plies)
        is_win = best >= (max_return if player != 1 else -min_return)
        if not (is_win or all_proven):
            return
        exact0 = backup.value_for(player, best)
        proven = solver.classify(exact0, min_return, max_return)
        mark_proven(nodes, node_values, edges, edge_values, parent, proven, best_plies, exact0)
        node = parent


# --------------------------------------------------------------------------------------------
# The loop one thread runs.
# --------------------------------------------------------------------------------------------

# The kernel's functions as the loop calls them: each kernel's copy of the loop
# (:func:`playout._src.compiled.driver.kernel_loop`) has its own globals with these names
# bound to them.
legal_actions: Any = None
play: Any = None
current_player: Any = None
rollout: Any = None

SHARED_DRIVER_SIGNATURE = nt.int64(
    PARAMS_TYPE,  # params
    _INT_MATRIX,  # nodes
    _FLOAT_MATRIX,  # node_values
    _INT_MATRIX,  # edges
    _FLOAT_MATRIX,  # edge_values
    nt.uint64[:, ::1],  # node_states
    nt.int64,  # rule
    nt.float64[::1],  # rule_params
    RNG_TYPE,  # tree_rng
    RNG_TYPE,  # rollout_rng
    nt.int64,  # max_depth
    nt.int64,  # num_simulations
    nt.int64,  # num_rollouts
    nt.boolean,  # solver
    nt.float64,  # min_return
    nt.float64,  # max_return
    ACTIONS_TYPE,  # actions
    nt.int64[::1],  # path
    nt.int64[::1],  # path_nodes
    SCRATCH_TYPE,  # scratch
    nt.int64[::1],  # cursor
    nt.int64[::1],  # stats
)


def _build_shared_driver(fingerprint: int):  # type: ignore[no-untyped-def]
    """The compiled loop of one thread on a shared tree (a closure over ``fingerprint``, as
    :func:`playout._src.compiled.driver._build_driver`)."""

    def run_shared(  # type: ignore[no-untyped-def]  # typed by SHARED_DRIVER_SIGNATURE
        params,
        nodes,
        node_values,
        edges,
        edge_values,
        node_states,
        rule,
        rule_params,
        tree_rng,
        rollout_rng,
        max_depth,
        num_simulations,
        num_rollouts,
        solver,
        min_return,
        max_return,
        actions,
        path,
        path_nodes,
        scratch,
        cursor,
        stats,
    ):
        """Run up to ``num_simulations`` simulations on the shared tree; the number run.

        The arguments are those of the ordinary loop (:func:`playout._src.compiled.driver.
        kernel_driver`) without ``meta`` and ``max_nodes``: new nodes and edges come from
        this thread's block (``cursor``), and ``path_nodes``, ``cursor``, ``stats``, the
        generators and the buffers are this thread's own. The kernel's functions are the
        globals ``legal_actions``, ``play``, ``current_player`` and ``rollout`` of this
        function's per-kernel copy (:func:`playout._src.compiled.driver.kernel_loop`).
        Stops early when the root is proven or the block is full.
        """
        _ = fingerprint
        params = borrowed(params)
        nodes = borrowed(nodes)
        node_values = borrowed(node_values)
        edges = borrowed(edges)
        edge_values = borrowed(edge_values)
        node_states = borrowed(node_states)
        rule_params = borrowed(rule_params)
        tree_rng = borrowed(tree_rng)
        rollout_rng = borrowed(rollout_rng)
        actions = borrowed(actions)
        path = borrowed(path)
        path_nodes = borrowed(path_nodes)
        scratch = borrowed(scratch)
        cursor = borrowed(cursor)
        stats = borrowed(stats)
        no_priors = rule_params[:0]  # empty: uniform priors
        max_actions = actions.shape[0]
        state_size = node_states.shape[1]
        done = 0
        while done < num_simulations and nodes[T.ROOT, T.N_PROVEN] == T.UNPROVEN:
            new = cursor[C_NEXT_NODE]
            first_edge = cursor[C_NEXT_EDGE]
            if new >= cursor[C_NODE_END] or first_edge + max_actions > cursor[C_EDGE_END]:
                break
            node, edge, depth = descend_with_virtual_loss(
                nodes, edges, edge_values, rule, rule_params, tree_rng, max_depth, path,
                path_nodes,
            )  # fmt: skip
            if (
                edge == T.NO_EDGE
                and nodes[node, T.N_NUM_EDGES] == T.UNEXPANDED
                and depth < max_depth
                and claim_expansion(nodes, node)
            ):
                # A node reached for the second time, and this thread won the right to give
                # it its edges (lazy expansion, as in the ordinary loop): they are written
                # in this thread's block, then published by the count; then the step out.
                count = legal_actions(params, node_states[node], actions)
                expansion.write_edges(edges, edge_values, first_edge, actions[:count], no_priors)
                cursor[C_NEXT_EDGE] = first_edge + count
                nodes[node, T.N_FIRST_EDGE] = first_edge
                release_barrier()
                nodes[node, T.N_NUM_EDGES] = count
                if count > 0:
                    edge = selection.select_edge(nodes, edges, edge_values, node, rule, rule_params,
                                         tree_rng)  # fmt: skip
                    path[depth] = edge
                    path_nodes[depth] = node
                    depth += 1
                    add_virtual_visit(nodes, edges, edge_values, node, edge)
            done += 1
            stats[S_EDGES] += depth
            if depth > stats[S_MAX_DEPTH]:
                stats[S_MAX_DEPTH] = depth
            if edge == T.NO_EDGE:
                # An existing node: terminal, proven, at the depth limit, or being expanded
                # by another thread (its first rollouts' way: a sample of its position).
                if nodes[node, T.N_NUM_EDGES] == 0 or nodes[node, T.N_PROVEN] != T.UNPROVEN:
                    acquire_barrier()
                    value0 = node_values[node, T.NV_EXACT]
                else:
                    total = 0.0
                    for _ in range(num_rollouts):
                        total += rollout(params, node_states[node], scratch, rollout_rng)
                    value0 = total / num_rollouts
                backup_virtual(
                    nodes, node_values, edges, edge_values, path, path_nodes, depth, node, True,
                    value0,
                )  # fmt: skip
                if solver:
                    solve_shared(nodes, node_values, edges, edge_values, node, min_return,
                                 max_return)  # fmt: skip
                continue
            # A new node in this thread's block, without edges until a simulation comes
            # back to it: every row written, then linked.
            cursor[C_NEXT_NODE] = new + 1
            for i in range(state_size):
                node_states[new, i] = node_states[node, i]
            state = node_states[new]
            mover = nodes[node, T.N_PLAYER]
            # int64, the kernel's signature (an int32 would compile a second `play`)
            status = play(params, state, np.int64(edges[edge, T.E_ACTION]))
            terminal = status != ONGOING
            value0 = 0.0
            if terminal:
                value0 = terminal_value0(mover, status)
                player = T.TERMINAL
            else:
                player = current_player(params, state)
            nodes[new, T.N_FIRST_EDGE] = 0
            nodes[new, T.N_NUM_EDGES] = 0 if terminal else T.UNEXPANDED
            nodes[new, T.N_PARENT_EDGE] = edge
            nodes[new, T.N_PLAYER] = player
            nodes[new, T.N_VISITS] = 1  # this simulation's visit
            nodes[new, T.N_PROVEN] = T.UNPROVEN
            nodes[new, T.N_PLIES] = 0
            nodes[new, T.N_PARENT] = node
            node_values[new, T.NV_EXACT] = value0  # a terminal's outcome; 0 otherwise
            leaf = new
            if not publish(edges, edge, new):
                stats[S_WASTED] += 1  # another thread linked its node first
                leaf = edges[edge, T.E_CHILD]
            if not terminal:
                total = 0.0
                for _ in range(num_rollouts):
                    total += rollout(params, state, scratch, rollout_rng)
                value0 = total / num_rollouts
            backup_virtual(
                nodes, node_values, edges, edge_values, path, path_nodes, depth, leaf,
                leaf != new, value0,
            )  # fmt: skip
            if solver:
                solve_shared(nodes, node_values, edges, edge_values, leaf, min_return,
                             max_return)  # fmt: skip
        return done

    return run_shared


@functools.cache
def _shared_fingerprint() -> int:
    """:func:`playout._src.compiled.driver._dependency_fingerprint` and the ordinary driver's
    own source (its ``borrowed`` and ``terminal_value0`` are compiled into this loop)."""
    digest = hashlib.sha256(str(_dependency_fingerprint()).encode())
    path = inspect.getsourcefile(driver_module)
    if path is not None:
        with open(path, "rb") as source:
            digest.update(source.read())
    return int.from_bytes(digest.digest()[:7], "little") | 1


def shared_driver(kernel: Kernel):  # type: ignore[no-untyped-def]
    """The compiled loop of one thread on a shared tree for ``kernel``, compiled or loaded
    from numba's cache on first use (only searches with ``tree_threads`` pay for it), with
    direct calls to the kernel's functions as in the ordinary loop."""
    return kernel_loop(_build_shared_driver, SHARED_DRIVER_SIGNATURE, _shared_fingerprint(), kernel)


# --------------------------------------------------------------------------------------------
# Helper threads.
# --------------------------------------------------------------------------------------------

_POOL_LOCK = threading.Lock()
_HELPERS: concurrent.futures.ThreadPoolExecutor | None = None
_HELPERS_SIZE = 0


def helper_pool(size: int) -> concurrent.futures.ThreadPoolExecutor:
    """The persistent pool of helper threads of shared-tree searches (at least ``size``):
    the calling thread runs the first share itself, the helpers the others."""
    global _HELPERS, _HELPERS_SIZE
    with _POOL_LOCK:
        if _HELPERS is None or size > _HELPERS_SIZE:
            old = _HELPERS
            _HELPERS = concurrent.futures.ThreadPoolExecutor(
                max_workers=size, thread_name_prefix="playout-shared-tree"
            )
            _HELPERS_SIZE = size
            if old is not None:
                old.shutdown(wait=False)
        return _HELPERS


def shares(count: int, threads: int) -> list[int]:
    """``count`` simulations split among at most ``threads`` threads (no empty share)."""
    base, extra = divmod(count, threads)
    return [s for s in (base + (1 if k < extra else 0) for k in range(threads)) if s > 0]


def run_threads(jobs: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``jobs[0]`` here and the others on helper threads, side by side; their results.
    A failure in any is raised once all have finished (none is left writing the tree)."""
    if len(jobs) == 1:
        return [jobs[0]()]
    pool = helper_pool(len(jobs) - 1)
    futures = [pool.submit(job) for job in jobs[1:]]
    first: Any = None
    error: BaseException | None = None
    try:
        first = jobs[0]()
    except BaseException as exc:  # wait for the helpers before letting go of the tree
        error = exc
    concurrent.futures.wait(futures)
    if error is not None:
        raise error
    return [first, *(f.result() for f in futures)]


# --------------------------------------------------------------------------------------------
# The driver.
# --------------------------------------------------------------------------------------------


_MIN_CHUNK = 4096
"""Simulations a chunk of :meth:`SharedTreeDriver._run_driver` may always run (later chunks
may be as large as the tree)."""
_FIRST_EDGES_PER_SIMULATION = 8
"""Edge rows per simulation in the threads' blocks of a tree's first chunk (later chunks go
by the rate of the one before)."""


class SharedTreeDriver(CompiledDriver):
    """The compiled driver with ``threads`` threads simulating on its one tree (see the module
    docstring). Chosen by :func:`playout._src.search.make_driver` when
    ``SearchConfig.tree_threads`` is set; everything but :meth:`simulate` is the compiled
    driver's (tree reuse copies the reachable subtree, dropping holes and wasted nodes).

    With ``threads=1`` it runs the same simulations as :class:`CompiledDriver` for the same
    seed and builds the same tree: the same statistics on every line of moves (the value a
    non-terminal, unproven node keeps in ``NV_EXACT`` aside, which nothing reads), with the
    same lazy expansion. With more threads a search is not reproducible: which thread
    reaches a node first decides.

    Attributes:
        wasted_nodes: nodes built and never linked (expansion races) since the root was set.
        hole_rows: unused block rows made dead rows since the root was set.
        edge_visits: edges taken by all simulations since the root was set (each one
            increment of an edge's visit count, before lost updates).
    """

    def __init__(
        self,
        state: GameState,
        config: SearchConfig,
        rng_state: np.ndarray,
        rng: random.Random,
        kernel: Kernel,
        threads: int,
    ) -> None:
        super().__init__(state, config, rng_state, rng, kernel)
        self.threads = int(threads)
        self._buffers = []
        for k in range(self.threads):
            if k == 0:  # the first thread draws the ordinary driver's random numbers
                tree_rng, rollout_rng = self._rng_state, self._rollout_rng
            else:
                tree_rng = new_rng_state(rng.getrandbits(63))
                rollout_rng = new_rng_state(rng.getrandbits(63))
            self._buffers.append(
                (
                    tree_rng,
                    rollout_rng,
                    np.zeros(kernel.num_actions, dtype=np.int64),
                    np.zeros(kernel.max_length + 2, dtype=np.int64),
                    np.zeros(kernel.max_length + 2, dtype=np.int64),
                    np.zeros(kernel.scratch_size, dtype=np.int64),
                    np.zeros(CURSOR_FIELDS, dtype=np.int64),
                    np.zeros(SHARED_STAT_FIELDS, dtype=np.int64),
                )
            )

    def reset(self, state: GameState) -> None:
        super().reset(state)
        for buffers in getattr(self, "_buffers", ()):  # none yet while __init__ runs
            buffers[5][:] = 0  # each thread's rollout scratch, as the engine's own
        self._restart_counts()

    def keep_subtree(self, child: int, state: GameState) -> bool:
        kept = super().keep_subtree(child, state)
        self._restart_counts()
        return kept

    def _restart_counts(self) -> None:
        """Counts from a new root (a kept subtree has no holes)."""
        self.wasted_nodes = 0
        self.hole_rows = 0
        self.edge_visits = 0
        self._edge_rate: float | None = None

    def _run_driver(self, simulations: int, max_depth: int, max_nodes: int) -> int:
        kernel = self._kernel
        tree = self._tree
        states = self._node_states
        actions = kernel.num_actions
        run = shared_driver(kernel)
        node, edge = tree.num_nodes, tree.num_edges
        # Edge rows per simulation in a thread's block: a quarter more than the last chunk
        # made per simulation (lazy expansion gives most nodes none; the rate falls as the
        # tree grows), at most every action, and room for one more expansion. A thread whose
        # block cannot take one more expansion stops early, and the engine runs the rest in
        # the next chunk; the rows a block leaves unused are holes in the edge array. A chunk
        # is at most the size of the tree so far (and 4096), so that the rate follows the
        # tree's growth.
        simulations = min(simulations, max(_MIN_CHUNK, node))
        rate = _FIRST_EDGES_PER_SIMULATION if self._edge_rate is None else 1.25 * self._edge_rate
        per_simulation = min(float(actions), rate)
        jobs = []
        blocks = []
        for k, share in enumerate(shares(simulations, self.threads)):
            buffers = self._buffers[k]
            tree_rng, rollout_rng, buffer, path, path_nodes, scratch, cursor, stats = buffers
            block = min(share * actions, math.ceil(share * per_simulation) + actions)
            cursor[:] = (node, node + share, edge, edge + block)
            stats[:] = 0
            stats[S_MAX_DEPTH] = self.max_depth_seen
            blocks.append((cursor, stats, edge))
            node += share
            edge += block
            arguments = (
                kernel.params,
                *tree[:4],
                states,
                self._rule,
                self._rule_params,
                tree_rng,
                rollout_rng,
                max_depth,
                share,
                self._num_rollouts,
                self._solver,
                float(self._solver_bounds[0]),
                float(self._solver_bounds[1]),
                buffer,
                path,
                path_nodes,
                scratch,
                cursor,
                stats,
            )
            jobs.append(functools.partial(run, *arguments))
        ran = run_threads(jobs)
        # No thread runs now: account, and make the unused rows of the blocks dead rows.
        for cursor, _, _ in blocks[:-1]:
            used, end = int(cursor[C_NEXT_NODE]), int(cursor[C_NODE_END])
            tree.nodes[used:end] = DEAD_ROW
            tree.node_values[used:end] = 0.0
            self.hole_rows += end - used
        last_cursor = blocks[-1][0]
        tree.meta[T.M_NUM_NODES] = last_cursor[C_NEXT_NODE]
        tree.meta[T.M_NUM_EDGES] = last_cursor[C_NEXT_EDGE]
        made = 0
        for cursor, stats, start in blocks:
            made += int(cursor[C_NEXT_EDGE]) - start
            self.wasted_nodes += int(stats[S_WASTED])
            self.edge_visits += int(stats[S_EDGES])
            self.max_depth_seen = max(self.max_depth_seen, int(stats[S_MAX_DEPTH]))
        done = int(sum(ran))
        if done > 0:
            self._edge_rate = made / done
        return done


__all__ = [
    "CURSOR_FIELDS",
    "DEAD_ROW",
    "SHARED_STAT_FIELDS",
    "VIRTUAL_LOSS",
    "SharedTreeDriver",
    "helper_pool",
    "run_threads",
    "shared_driver",
    "shares",
]
