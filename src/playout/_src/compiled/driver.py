"""The compiled search loop: whole simulations in machine code, on the shared tree arrays.

:func:`kernel_driver` returns ``run_simulations``, the compiled twin of
:meth:`playout._src.search.MCTS._simulate_chunk`. It calls the very same phase functions of
:mod:`playout._src.tree` (``descend``, ``finish_new_leaf``, ``finish_old_leaf``), so the two
drivers share one set of rules; only the game (a
:class:`~playout._src.compiled.kernel.Kernel`) and the per-node states differ:

    node, edge, depth = descend(...)                   # 1. selection (tree/selection.py)
    if node is unexpanded: expand_reached(...)         # 2. its edges, and the step out
    node_states[child] = node_states[node]; play(...)  #    the kernel's move, on a row copy
    value0 = mean of num_rollouts rollouts             # 3. evaluation (the kernel)
    finish_new_leaf(...)                               # the new leaf + 4. backup + solver

Expansion is lazy: a new leaf is made without edges (:data:`~playout._src.tree.layout.UNEXPANDED`)
and gets them when a later simulation reaches it, with the same random draw the walk would
have made had it been expanded at once, so the search is the same (the same visits, values
and proofs for every line of moves; only the order of the rows differs). Most leaves are
never reached again: connect four went from 6.9 to 2.0 edges per node and from about 227 to
110 bytes of tree per simulation, and skips the legal-move listing of those leaves.

The loop is compiled once per kernel (per set of kernel functions: every m,n,k size shares
one) with direct calls to the kernel's functions, and cached on disk (``cache=True``): a warm
process loads it instead of compiling.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import threading
import types
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numba import types as nt
from numba.core import cgutils
from numba.extending import intrinsic

from playout._src.compiled import kernel as kernel_module
from playout._src.compiled.kernel import (
    ACTIONS_TYPE,
    DRAW,
    MOVER_WON,
    ONGOING,
    PARAMS_TYPE,
    RNG_TYPE,
    SCRATCH_TYPE,
    Kernel,
)
from playout._src.jit import JitOptions, jit, sources_digest_of
from playout._src.tree import backup, compiling, expansion, finish, selection
from playout._src.tree import layout as T

_DRIVER_JIT: JitOptions = {
    "cache": True,
    "nogil": True,
    "boundscheck": False,
    "error_model": "numpy",
}

STAT_MAX_DEPTH = 0
"""``stats[STAT_MAX_DEPTH]``: deepest edge count below the root reached (updated in place)."""
STAT_FIELDS = 1

TREE_INT_DTYPE = np.int32
"""dtype of the ``nodes`` and ``edges`` arrays of the compiled engine's trees.

The layout and the phase functions are those of :mod:`playout._src.tree` (numba compiles them
for any integer dtype); 32-bit ids and counts shrink a connect-four node from about 470 to
about 340 bytes, which keeps big trees faster (fewer cache misses), and no search can reach
2**31 nodes, edges or visits in memory. Values stay float64; ``node_values`` has no reward
column and ``edge_values`` no prior column unless the search reads priors (see
:func:`playout._src.compiled.memory.new_tree`): a node row of 40 bytes, an edge row of 24,
and with lazy expansion about 110 bytes of tree per connect-four simulation.
"""

_INT_MATRIX = nt.int32[:, ::1]
_FLOAT_MATRIX = nt.float64[:, ::1]

DRIVER_SIGNATURE = nt.int64(
    PARAMS_TYPE,  # params
    _INT_MATRIX,  # nodes
    _FLOAT_MATRIX,  # node_values
    _INT_MATRIX,  # edges
    _FLOAT_MATRIX,  # edge_values
    nt.int64[::1],  # meta
    nt.uint64[:, ::1],  # node_states
    nt.int64,  # rule
    nt.float64[::1],  # rule_params
    RNG_TYPE,  # tree_rng
    RNG_TYPE,  # rollout_rng
    nt.int64,  # max_depth
    nt.int64,  # max_nodes
    nt.int64,  # num_simulations
    nt.int64,  # num_rollouts
    nt.boolean,  # solver
    nt.float64,  # min_return
    nt.float64,  # max_return
    ACTIONS_TYPE,  # actions
    nt.int64[::1],  # path
    SCRATCH_TYPE,  # scratch
    nt.int64[::1],  # stats
)


@jit(**_DRIVER_JIT)
def terminal_value0(mover: int, status: int) -> float:
    """Player 0's outcome of a game that ``mover``'s move ended with ``status``
    (``MOVER_WON``, ``MOVER_LOST`` or ``DRAW``)."""
    if status == DRAW:
        return 0.0
    value = 1.0 if status == MOVER_WON else -1.0
    return backup.value_for(mover, value)


@intrinsic
def _borrowed(typingctx, array):  # type: ignore[no-untyped-def]
    """The same array (same data, shape and strides) without its reference-counted owner.

    numba counts references to every array it passes around: each call of a non-inlined
    function with array arguments (``descend`` -> ``select_edge`` at every tree level, the
    kernel calls) increments and decrements the owner's count with atomic instructions, which
    costs more than the UCB arithmetic itself. A view whose owner (``meminfo``) is NULL turns
    each of those into a predictable test. Only for arrays that outlive the view: the driver
    borrows its arguments, which the caller keeps alive for the whole call, and never stores
    or returns the views.
    """
    if not isinstance(array, nt.Array):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)  # type: ignore[no-untyped-call]
        view.parent = cgutils.get_null_value(view.parent.type)  # type: ignore[no-untyped-call]
        return view._getvalue()

    return array(array), codegen


borrowed = cast(Callable[[np.ndarray], np.ndarray], _borrowed)
""":func:`_borrowed` as compiled code calls it (the same object; the type is for mypy)."""


@functools.cache
def _dependency_fingerprint() -> int:
    """A hash of the sources compiled into the driver besides its own file.

    numba's on-disk cache is keyed on the decorated function's own file only, but the driver
    has the phase functions of :mod:`playout._src.tree` (and :mod:`playout._src.game`'s player
    constants and ``value_for``, all in :data:`~playout._src.tree.compiling.SOURCES_DIGEST`)
    and the kernel module's status codes compiled in; the fingerprint is part of the driver's
    closure, which numba does hash, so an edited phase module means a recompiled driver
    instead of a stale cached one.
    """
    digest = hashlib.sha256(compiling.SOURCES_DIGEST.encode())
    path = inspect.getsourcefile(kernel_module)
    if path is not None:
        with open(path, "rb") as source:
            digest.update(source.read())
    return int.from_bytes(digest.digest()[:7], "little") | 1


# The phase functions of the loop, inlined into it (numba IR inlining of the same Python
# functions as the tree package's): a call of a compiled function passes every field of every array
# argument (about 80 values for finish_new_leaf), which cost more than the call's own work.
_INLINE: JitOptions = {**_DRIVER_JIT, "cache": False}
descend = jit(inline="always", **_INLINE)(selection.descend.py_func)  # type: ignore[attr-defined]
finish_new_leaf = jit(inline="always", **_INLINE)(finish.finish_new_leaf.py_func)  # type: ignore[attr-defined]
finish_old_leaf = jit(inline="always", **_INLINE)(finish.finish_old_leaf.py_func)  # type: ignore[attr-defined]
expand_reached = jit(inline="always", **_INLINE)(expansion.expand_reached.py_func)  # type: ignore[attr-defined]


# The kernel's functions as the loop calls them: each kernel's copy of the loop
# (:func:`kernel_loop`) has its own globals with these names bound to them.
legal_actions: Any = None
play: Any = None
current_player: Any = None
rollout: Any = None


def _build_driver(fingerprint: int):  # type: ignore[no-untyped-def]
    """The compiled driver (a closure over ``fingerprint``, see above)."""

    def run_simulations(  # type: ignore[no-untyped-def]  # typed by DRIVER_SIGNATURE
        params,
        nodes,
        node_values,
        edges,
        edge_values,
        meta,
        node_states,
        rule,
        rule_params,
        tree_rng,
        rollout_rng,
        max_depth,
        max_nodes,
        num_simulations,
        num_rollouts,
        solver,
        min_return,
        max_return,
        actions,
        path,
        scratch,
        stats,
    ):
        """Run up to ``num_simulations`` simulations on the tree; the number run.

        Stops early, before a simulation, when the solver has proven the root, when the tree
        holds ``max_nodes`` nodes, or when it has no room for one more simulation (one node
        row, one state row, ``actions.shape[0]`` edge rows): the caller then grows the arrays
        (:func:`playout._src.compiled.memory.reserve`) and calls again. Every node's state
        row must be filled; the root must be expanded (or terminal). ``stats`` is updated in
        place.

        The kernel's functions are the globals ``legal_actions``, ``play``,
        ``current_player`` and ``rollout`` of this function's per-kernel copy (see
        :func:`kernel_driver`).

        Args:
            params: the kernel's parameters.
            nodes, node_values, edges, edge_values, meta: the tree (``tree.layout``).
            node_states: ``uint64[node_capacity, state_size]``, the compact state per node.
            rule, rule_params: the selection rule (``selection.RULE_*`` and its parameters).
            tree_rng, rollout_rng: xorshift states for selection and for rollouts.
            max_depth: the most edges a simulation descends in the tree.
            max_nodes: stop once the tree holds this many nodes.
            num_simulations: simulations to run.
            num_rollouts: random games averaged per leaf.
            solver: run MCTS-Solver (:func:`solver.solve_upward`) after every backup.
            min_return, max_return: the game's return bounds (for the solver).
            actions: ``int64[num_actions]`` buffer for legal actions.
            path: ``int64[>= max tree depth + 1]`` buffer for :func:`selection.descend`.
            scratch: the kernel's rollout scratch.
            stats: ``int64[STAT_FIELDS]`` read-outs.
        """
        _ = fingerprint
        # Borrowed views: no atomic reference counting in the calls below (see `borrowed`).
        params = borrowed(params)
        nodes = borrowed(nodes)
        node_values = borrowed(node_values)
        edges = borrowed(edges)
        edge_values = borrowed(edge_values)
        meta = borrowed(meta)
        node_states = borrowed(node_states)
        rule_params = borrowed(rule_params)
        tree_rng = borrowed(tree_rng)
        rollout_rng = borrowed(rollout_rng)
        actions = borrowed(actions)
        path = borrowed(path)
        scratch = borrowed(scratch)
        no_priors = rule_params[:0]  # empty: uniform priors
        max_actions = actions.shape[0]
        # Rows every array has: pooled arrays may be longer than the tree asked for.
        node_capacity = min(nodes.shape[0], node_values.shape[0], node_states.shape[0])
        edge_capacity = min(edges.shape[0], edge_values.shape[0])
        state_size = node_states.shape[1]
        done = 0
        solved = nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN
        while done < num_simulations and not solved:
            num_nodes = meta[T.M_NUM_NODES]
            if num_nodes >= max_nodes or num_nodes + 1 > node_capacity:
                break
            if meta[T.M_NUM_EDGES] + max_actions > edge_capacity:
                break
            # 1. Selection.
            node, edge, depth = descend(
                nodes, edges, edge_values, rule, rule_params, tree_rng, max_depth, path
            )
            if (
                edge == T.NO_EDGE
                and nodes[node, T.N_NUM_EDGES] == T.UNEXPANDED
                and depth < max_depth
            ):
                # A node reached for the second time: its edges now (lazy expansion; a
                # leaf that no simulation comes back to never gets any), and the step out.
                count = legal_actions(params, node_states[node], actions)
                edge, depth = expand_reached(
                    nodes, edges, edge_values, meta, rule, rule_params, tree_rng, node,
                    actions[:count], no_priors, path, depth,
                )  # fmt: skip
            done += 1
            if depth > stats[STAT_MAX_DEPTH]:
                stats[STAT_MAX_DEPTH] = depth
            if edge == T.NO_EDGE:
                # The walk ended on an existing node: terminal, proven, or the depth limit.
                if nodes[node, T.N_NUM_EDGES] == 0 or nodes[node, T.N_PROVEN] != T.UNPROVEN:
                    value0 = node_values[node, T.NV_EXACT]
                else:
                    total = 0.0
                    for _ in range(num_rollouts):
                        total += rollout(params, node_states[node], scratch, rollout_rng)
                    value0 = total / num_rollouts
                solved = finish_old_leaf(
                    nodes, node_values, edges, edge_values, node, value0, solver, min_return,
                    max_return, path, depth,
                )  # fmt: skip
                continue
            # The new leaf's state: the parent's row, copied, and the edge's move played.
            for i in range(state_size):
                node_states[num_nodes, i] = node_states[node, i]
            state = node_states[num_nodes]
            mover = nodes[node, T.N_PLAYER]
            # int64, the kernel's signature (an int32 would compile a second `play`)
            status = play(params, state, np.int64(edges[edge, T.E_ACTION]))
            if status != ONGOING:
                # 2 + 4. A terminal leaf: nothing to expand; back up its outcome.
                solved = finish_new_leaf(
                    nodes, node_values, edges, edge_values, meta, node, edge, T.TERMINAL, True,
                    0.0, actions[:0], no_priors, terminal_value0(mover, status), solver,
                    min_return, max_return, path, depth,
                )  # fmt: skip
                continue
            # 3. Evaluation: the mean of num_rollouts random games.
            player = current_player(params, state)
            total = 0.0
            for _ in range(num_rollouts):
                total += rollout(params, state, scratch, rollout_rng)
            # 2 + 4. The new leaf (unexpanded until a simulation reaches it again),
            # backpropagation and the solver.
            solved = finish_new_leaf(
                nodes, node_values, edges, edge_values, meta, node, edge, player, False, 0.0,
                actions[:0], no_priors, total / num_rollouts, solver, min_return, max_return,
                path, depth,
            )  # fmt: skip
        return done

    return run_simulations


def _kernel_fingerprint(functions: tuple[Any, ...]) -> int | None:
    """A hash of the kernel functions a driver has compiled in (module, name, code, source
    file and the other sources it compiles in, :func:`playout._src.jit.sources_digest_of`, of
    each), or ``None`` when one has no source file to hash or is a closure (its
    captured values would not be hashed): that driver is then not cached on disk."""
    digest = hashlib.sha256()
    for function in functions:
        py_func = function.py_func
        try:
            path = inspect.getsourcefile(py_func)
        except TypeError:
            path = None
        if path is None or not os.path.isfile(path) or py_func.__closure__:
            return None
        digest.update(f"{py_func.__module__}.{py_func.__qualname__}".encode())
        digest.update(py_func.__code__.co_code)
        with open(path, "rb") as source:
            digest.update(source.read())
        # The other sources the function compiles in (its jit sources_digest), if any.
        digest.update(sources_digest_of(function).encode())
    return int.from_bytes(digest.digest()[:7], "little")


LoopBuilder = Callable[[int], Callable[..., Any]]
"""Makes a compiled loop's Python function, a closure over a fingerprint (see
:func:`_build_driver`); the loop calls the kernel's functions by the global names
``legal_actions``, ``play``, ``current_player`` and ``rollout``."""


def _specialise(
    build: LoopBuilder,
    signature: Any,
    fingerprint: int,
    functions: tuple[Any, ...],
    extra_names: tuple[str, ...] = (),
) -> Any:
    """The loop of ``build`` compiled for one kernel's functions (see :func:`kernel_loop`);
    ``functions[4:]`` are bound to ``extra_names``."""
    kernel_key = _kernel_fingerprint(functions)
    loop = build((fingerprint ^ (kernel_key or 0)) | 1)
    # The kernel's functions are globals of this copy of the loop: numba compiles direct
    # calls to them (which LLVM may inline), not calls through function pointers. numba's
    # disk cache keys a function on its code and its closure, not its globals: the closure's
    # fingerprint tells the kernels apart.
    namespace = dict(loop.__globals__)
    namespace.update(
        legal_actions=functions[0],
        play=functions[1],
        current_player=functions[2],
        rollout=functions[3],
    )
    namespace.update(zip(extra_names, functions[4:], strict=True))
    specialised = types.FunctionType(
        loop.__code__, namespace, loop.__name__, None, loop.__closure__
    )
    specialised.__qualname__ = loop.__qualname__
    specialised.__module__ = loop.__module__
    specialised.__doc__ = loop.__doc__
    options: JitOptions = {**_DRIVER_JIT, "cache": kernel_key is not None}
    return jit(signature, **options)(specialised)


_KERNEL_LOOPS: dict[tuple[Any, ...], Any] = {}
_KERNEL_LOOPS_LOCK = threading.Lock()


def kernel_loop(
    build: LoopBuilder,
    signature: Any,
    fingerprint: int,
    kernel: Kernel,
    extra: tuple[tuple[str, Any], ...] = (),
) -> Any:
    """The loop made by ``build`` (:func:`_build_driver`, the shared tree's or RAVE's),
    compiled with ``signature`` for ``kernel``, or loaded from numba's on-disk cache, on first
    use. ``extra``: ``(name, numba function)`` pairs, more globals of the loop (RAVE's
    ``recorded_rollout``).

    One loop, compiled once per set of kernel functions (kernels that differ only by their
    parameters, like the m,n,k sizes, share it), with direct calls to the kernel's functions:
    through numba's first-class function values (one compiled loop for every kernel) the
    search ran 3-8% slower, and numba typed the four function values again on every call
    (about 100 microseconds a decision). Cached on disk unless a kernel function has no
    source file; ``fingerprint`` stands for the sources compiled into the loop besides its
    own file.
    """
    functions = (
        kernel.legal_actions,
        kernel.play,
        kernel.current_player,
        kernel.rollout,
        *(function for _, function in extra),
    )
    names = tuple(name for name, _ in extra)
    key = (build, names, *functions)
    with _KERNEL_LOOPS_LOCK:
        loop = _KERNEL_LOOPS.get(key)
        if loop is None:
            loop = _specialise(build, signature, fingerprint, functions, names)
            _KERNEL_LOOPS[key] = loop
    return loop


def kernel_driver(kernel: Kernel):  # type: ignore[no-untyped-def]
    """The compiled driver ``run_simulations(params, nodes, ...)`` for ``kernel`` (see
    :func:`_build_driver` for its arguments): :func:`kernel_loop` of the ordinary loop."""
    return kernel_loop(_build_driver, DRIVER_SIGNATURE, _dependency_fingerprint(), kernel)


__all__ = [
    "STAT_FIELDS",
    "STAT_MAX_DEPTH",
    "TREE_INT_DTYPE",
    "kernel_driver",
    "kernel_loop",
    "terminal_value0",
]
