"""Tree parallelism: several threads run compiled simulations on one shared tree.

Opt-in (``SearchConfig(tree_threads=n)``, ``parallel_search(..., shared_tree=True)``,
``analyze --threads N --shared-tree``); root parallelism (:mod:`playout._src.parallel`)
stays the default way to put several cores on one decision.

The design is the lock-free one of Enzenberger & Mueller 2009 ("A lock-free multithreaded
Monte-Carlo tree search algorithm", Fuego), with virtual loss (Chaslot, Winands & van den
Herik 2008; Segal 2010):

- **Memory without a shared counter.** Before a chunk of simulations the driver (Python,
  single-threaded) reserves room for all of them and gives each thread its own block of node
  rows and edge rows (a node per simulation, ``num_actions`` edges per node); a thread
  allocates from its block with a private cursor. ``meta`` is not written during the chunk.
  Rows a thread did not use (simulations that ended on an existing node) are filled as dead
  rows afterwards (:data:`DEAD_ROW`, never linked); ``meta`` then counts them, so a tree
  built by several threads has holes between the blocks (``result.nodes`` counts rows,
  holes included). Tree reuse (:meth:`CompiledDriver.keep_subtree`) copies the reachable
  subtree only, dropping holes and wasted nodes.
- **Publication.** A new node's rows (its node row, its edges, its compact state) are all
  written before the node is linked into the tree: the parent edge's child pointer is set
  last, by a compare-and-swap (:func:`publish`, one LLVM ``cmpxchg``; numba itself offers no
  atomics on the CPU, the instruction is emitted by an intrinsic) which is also the release
  barrier for those writes. Readers follow the pointer (an address dependency), so they see
  a node only complete. Every linked node is expanded (or terminal).
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
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from numba import types as nt
from numba.core import cgutils
from numba.extending import intrinsic

from playout._src import tree as T
from playout._src.compiled import driver as driver_module
from playout._src.compiled.driver import (
    _DRIVER_JIT,
    _FLOAT_MATRIX,
    _INT_MATRIX,
    _dependency_fingerprint,
    borrowed,
    terminal_value0,
)
from playout._src.compiled.engine import CompiledDriver
from playout._src.compiled.kernel import (
    ACTIONS_TYPE,
    CURRENT_PLAYER_SIGNATURE,
    LEGAL_ACTIONS_SIGNATURE,
    ONGOING,
    PARAMS_TYPE,
    PLAY_SIGNATURE,
    RNG_TYPE,
    ROLLOUT_SIGNATURE,
    SCRATCH_TYPE,
    Kernel,
)
from playout._src.config import SearchConfig
from playout._src.game import GameState
from playout._src.jit import JitOptions, jit

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
    """:func:`playout._src.tree.descend`, adding a virtual loss on each edge as it is taken
    (the edge's visits and its node's visits count this simulation at once, its value sum
    gets :data:`VIRTUAL_LOSS`). ``path_nodes[t]`` receives the node ``path[t]`` leaves.
    Selection at a node reads only that node's row and edges, which this simulation has not
    touched yet: with one thread, the choices are those of ``tree.descend``."""
    node = T.ROOT
    depth = 0
    while (
        nodes[node, T.N_NUM_EDGES] > 0
        and nodes[node, T.N_PROVEN] == T.UNPROVEN
        and depth < max_depth
    ):
        e = T.select_edge(nodes, edges, edge_values, node, rule, rule_params, rng)
        path[depth] = e
        path_nodes[depth] = node
        depth += 1
        edges[e, T.E_VISITS] += 1
        edge_values[e, T.EV_VALUE_SUM] += VIRTUAL_LOSS
        nodes[node, T.N_VISITS] += 1
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
    return T.value_for(mover, node_values[child, T.NV_EXACT])


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
            edge_values[e, T.EV_VALUE_SUM] += T.value_for(mover, value0) - VIRTUAL_LOSS


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
    edge_values[e, T.EV_VALUE_SUM] = T.value_for(mover, exact0) * edges[e, T.E_VISITS]


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
    """:func:`playout._src.tree.solve_upward` on a shared tree: the same proofs, written with
    :func:`mark_proven` and read class first (see the module docstring)."""
    node = leaf
    if nodes[node, T.N_PROVEN] == T.UNPROVEN:
        if nodes[node, T.N_PLAYER] != T.TERMINAL:
            return
        exact0 = node_values[node, T.NV_EXACT]  # written before the node was linked
        proven = T.classify(exact0, min_return, max_return)
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
        exact0 = T.value_for(player, best)
        proven = T.classify(exact0, min_return, max_return)
        mark_proven(nodes, node_values, edges, edge_values, parent, proven, best_plies, exact0)
        node = parent


# --------------------------------------------------------------------------------------------
# The loop one thread runs.
# --------------------------------------------------------------------------------------------

SHARED_DRIVER_SIGNATURE = nt.int64(
    nt.FunctionType(LEGAL_ACTIONS_SIGNATURE),
    nt.FunctionType(PLAY_SIGNATURE),
    nt.FunctionType(CURRENT_PLAYER_SIGNATURE),
    nt.FunctionType(ROLLOUT_SIGNATURE),
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
        legal_actions,
        play,
        current_player,
        rollout,
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
        compiled_driver`) without ``meta`` and ``max_nodes``: new nodes and edges come from
        this thread's block (``cursor``), and ``path_nodes``, ``cursor``, ``stats``, the
        generators and the buffers are this thread's own. Stops early when the root is
        proven or the block is full.
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
            done += 1
            stats[S_EDGES] += depth
            if depth > stats[S_MAX_DEPTH]:
                stats[S_MAX_DEPTH] = depth
            if edge == T.NO_EDGE:
                # An existing node: terminal, proven, or at the depth limit.
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
            # A new node in this thread's block: every row written, then linked.
            cursor[C_NEXT_NODE] = new + 1
            for i in range(state_size):
                node_states[new, i] = node_states[node, i]
            state = node_states[new]
            mover = nodes[node, T.N_PLAYER]
            status = play(params, state, edges[edge, T.E_ACTION])
            terminal = status != ONGOING
            count = 0
            value0 = 0.0
            if terminal:
                value0 = terminal_value0(mover, status)
                player = T.TERMINAL
            else:
                count = legal_actions(params, state, actions)
                player = current_player(params, state)
                cursor[C_NEXT_EDGE] = first_edge + count
                for i in range(count):
                    e = first_edge + i
                    edges[e, T.E_ACTION] = actions[i]
                    edges[e, T.E_CHILD] = T.UNVISITED
                    edges[e, T.E_VISITS] = 0
                    edges[e, T.E_PROVEN] = T.UNPROVEN
                    edge_values[e, T.EV_VALUE_SUM] = 0.0
                    if edge_values.shape[1] > T.EV_PRIOR:
                        edge_values[e, T.EV_PRIOR] = 1.0 / count
            nodes[new, T.N_FIRST_EDGE] = first_edge if not terminal else 0
            nodes[new, T.N_NUM_EDGES] = count
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

    return jit(SHARED_DRIVER_SIGNATURE, **_DRIVER_JIT)(run_shared)


def _shared_fingerprint() -> int:
    """:func:`playout._src.compiled.driver._dependency_fingerprint` and the ordinary driver's
    own source (its ``borrowed`` and ``terminal_value0`` are compiled into this loop)."""
    digest = hashlib.sha256(str(_dependency_fingerprint()).encode())
    path = inspect.getsourcefile(driver_module)
    if path is not None:
        with open(path, "rb") as source:
            digest.update(source.read())
    return int.from_bytes(digest.digest()[:7], "little") | 1


@functools.cache
def shared_driver():  # type: ignore[no-untyped-def]
    """The compiled loop of one thread on a shared tree, compiled or loaded from numba's cache
    on first use (only searches with ``tree_threads`` pay for it)."""
    return _build_shared_driver(_shared_fingerprint())


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


class SharedTreeDriver(CompiledDriver):
    """The compiled driver with ``threads`` threads simulating on its one tree (see the module
    docstring). Chosen by :func:`playout._src.search.make_driver` when
    ``SearchConfig.tree_threads`` is set; everything but :meth:`simulate` is the compiled
    driver's (tree reuse copies the reachable subtree, dropping holes and wasted nodes).

    With ``threads=1`` it runs the same simulations as :class:`CompiledDriver` for the same
    seed and builds the same tree: the same statistics on every line of moves (the value a
    non-terminal, unproven node keeps in ``NV_EXACT`` aside, which nothing reads). It gives a
    node its edges when it makes the node, where the ordinary loop waits for a simulation to
    come back to it (lazy expansion), so its rows are laid out differently and it uses more
    memory per simulation. With more threads a search is not reproducible:
    which thread reaches a node first decides.

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
        # The shared loop takes the kernel's functions as arguments (one loop for every
        # kernel); the ordinary driver's loop is compiled per kernel instead.
        self._driver_functions = kernel.driver_functions()
        self.threads = int(threads)
        self._buffers = []
        for k in range(self.threads):
            if k == 0:  # the first thread draws the ordinary driver's random numbers
                tree_rng, rollout_rng = self._rng_state, self._rollout_rng
            else:
                tree_rng = T.new_rng_state(rng.getrandbits(63))
                rollout_rng = T.new_rng_state(rng.getrandbits(63))
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
        self.wasted_nodes = 0
        self.hole_rows = 0
        self.edge_visits = 0

    def keep_subtree(self, child: int, state: GameState) -> bool:
        kept = super().keep_subtree(child, state)
        self.wasted_nodes = 0
        self.hole_rows = 0
        self.edge_visits = 0
        return kept

    def _run_driver(self, simulations: int, max_depth: int, max_nodes: int) -> int:
        kernel = self._kernel
        tree = self._tree
        states = self._node_states
        actions = kernel.num_actions
        run = shared_driver()
        node, edge = tree.num_nodes, tree.num_edges
        jobs = []
        blocks = []
        for k, share in enumerate(shares(simulations, self.threads)):
            buffers = self._buffers[k]
            tree_rng, rollout_rng, buffer, path, path_nodes, scratch, cursor, stats = buffers
            cursor[:] = (node, node + share, edge, edge + share * actions)
            stats[:] = 0
            stats[S_MAX_DEPTH] = self.max_depth_seen
            blocks.append((cursor, stats, node + share))
            node += share
            edge += share * actions
            arguments = (
                *self._driver_functions,
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
        for _, stats, _ in blocks:
            self.wasted_nodes += int(stats[S_WASTED])
            self.edge_visits += int(stats[S_EDGES])
            self.max_depth_seen = max(self.max_depth_seen, int(stats[S_MAX_DEPTH]))
        return int(sum(ran))


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
