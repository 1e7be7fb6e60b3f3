"""Phase 1, selection: the walk from the root to where a simulation leaves the tree.

:func:`descend` follows :func:`select_edge` (UCB1, PUCT or epsilon-greedy, chosen by a
``RULE_*`` code and its ``rule_params``) from the root until a node that is not expanded,
terminal or proven, an edge never taken before, or the depth limit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import numpy as np
from llvmlite import ir
from numba import types as nt
from numba.core import cgutils
from numba.extending import intrinsic

from playout._src.game import CHANCE
from playout._src.jit import int64, jit
from playout._src.tree.compiling import PHASE_JIT
from playout._src.tree.layout import (
    E_CHILD,
    E_PROVEN,
    E_VISITS,
    EV_PRIOR,
    EV_VALUE_SUM,
    N_FIRST_EDGE,
    N_NUM_EDGES,
    N_PLAYER,
    N_PROVEN,
    N_VISITS,
    NO_EDGE,
    ROOT,
    UNPROVEN,
    UNVISITED,
)
from playout._src.tree.rng import random_below, random_unit

# Selection rules understood by the compiled `select_edge` (parameters in `rule_params`).
RULE_UCB1 = 0  # params: [c]
RULE_PUCT = 1  # params: [c, first_play_value, c_base] (c_base 0: constant c)
RULE_EPSILON_GREEDY = 2  # params: [epsilon]


@jit(**PHASE_JIT)
def sample_by_prior(edge_values: np.ndarray, first: int, count: int, rng: np.ndarray) -> int:
    """An edge of ``first .. first+count-1`` drawn with probability proportional to its prior."""
    has_priors = edge_values.shape[1] > EV_PRIOR  # without the column: uniform priors
    uniform = 1.0 / count
    total = 0.0
    for e in range(first, first + count):
        total += edge_values[e, EV_PRIOR] if has_priors else uniform
    u = random_unit(rng) * total
    acc = 0.0
    for e in range(first, first + count):
        acc += edge_values[e, EV_PRIOR] if has_priors else uniform
        if u < acc:
            return e
    return first + count - 1


@intrinsic
def _prefetch_row(typingctx, array, row):  # type: ignore[no-untyped-def]
    """Start loading row ``row`` of the 2-D ``array`` into the cache (``llvm.prefetch``; a
    hint that never faults, whatever ``row`` is; a float row is truncated)."""
    if not isinstance(array, nt.Array) or array.ndim != 2 or not isinstance(row, nt.Number):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        array_type, row_type = signature.args
        view = context.make_array(array_type)(context, builder, value=args[0])
        index = context.cast(builder, args[1], row_type, nt.intp)
        zero = context.get_constant(nt.intp, 0)
        pointer = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
            context, builder, array_type, view, [index, zero], wraparound=False
        )
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        signature_ir = ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32])
        prefetch = builder.module.declare_intrinsic("llvm.prefetch", fnty=signature_ir)
        # read, high temporal locality, data cache
        builder.call(
            prefetch, [builder.bitcast(pointer, byte_pointer), int32(0), int32(3), int32(1)]
        )
        return context.get_dummy_value()

    return nt.none(array, row), codegen


prefetch_row = cast(Callable[[np.ndarray, int], None], _prefetch_row)
""":func:`_prefetch_row` as compiled code calls it (the type is for mypy)."""


@jit(inline="always", **PHASE_JIT)
def random_unvisited_edge(
    edges: np.ndarray, first: int, count: int, start: int, rng: np.ndarray
) -> int:
    """A uniformly random unvisited edge among ``start .. first + count - 1``, or
    ``NO_EDGE``: count them, draw one, find it."""
    num_unvisited = int64(0)
    for e in range(start, first + count):
        if edges[e, E_VISITS] == 0:
            num_unvisited += 1
    if num_unvisited == 0:
        return NO_EDGE
    skip = random_below(rng, num_unvisited) if num_unvisited > 1 else 0
    for e in range(start, first + count):
        if edges[e, E_VISITS] == 0:
            if skip == 0:
                return e
            skip -= 1
    return NO_EDGE


LOG_TABLE_SIZE = 4096
_LOG_TABLE = np.log(np.maximum(np.arange(LOG_TABLE_SIZE, dtype=np.float64), 1.0))
"""``ln max(n, 1)`` for the visit counts of most nodes (UCB1's numerator), computed by the same
libm as ``math.log``: bit for bit the values the search computed before, one load instead of
a logarithm per tree level."""

_RECIPROCAL_TABLE = 1.0 / np.maximum(np.arange(LOG_TABLE_SIZE, dtype=np.float64), 1.0)
"""``1 / n`` for the same counts (``_RECIPROCAL_TABLE[0]`` is unused): IEEE division gives the
same double in numpy and in compiled code, so UCB1 reads it instead of dividing per edge."""

_RSQRT_TABLE = np.sqrt(_RECIPROCAL_TABLE)
"""``sqrt(1 / n)`` for the same counts: UCB1's exploration term is computed as
``c * sqrt(ln N) * sqrt(1 / n)``, one square root per node instead of one per edge (the
square root's latency was the largest single cost of a tic-tac-toe simulation). It equals
``c * sqrt(ln N / n)`` to within an ulp or two; the trees of tic-tac-toe, connect four and
9x9 searches (solver on and off, up to 200k simulations) came out the same either way."""


@jit(inline="always", **PHASE_JIT)
def exploration(rule: int, rule_params: np.ndarray, parent_visits: int) -> tuple[float, float]:
    """The exploration constant and numerator of ``rule`` at a node visited
    ``parent_visits`` times: ``(c, ln N)`` for UCB1, ``(c(N), sqrt N)`` for PUCT, where
    ``c(N)`` follows AlphaZero's schedule when ``c_base`` (``rule_params[2]``) is positive."""
    c = rule_params[0]
    if rule == RULE_UCB1:
        if parent_visits < LOG_TABLE_SIZE:
            return c, _LOG_TABLE[parent_visits]
        return c, math.log(parent_visits)
    if rule == RULE_PUCT:
        if rule_params.shape[0] > 2 and rule_params[2] > 0.0:
            c_base = rule_params[2]
            c += math.log((parent_visits + c_base + 1.0) / c_base)
        return c, math.sqrt(max(parent_visits, 1))
    return c, 0.0


@jit(inline="always", **PHASE_JIT)
def select_edge(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
) -> int:
    """The edge to follow from expanded, non-terminal ``node``.

    UCB1 (Kocsis & Szepesvari 2006): ``Q + c * sqrt(ln N / n)``, unvisited edges first.
    PUCT (Silver et al. 2017): ``Q + c * P * sqrt(N) / (1 + n)``, unvisited edges valued at
    ``first_play_value``; with ``c_base > 0`` the constant grows with the parent's visits as
    in AlphaZero (Silver et al. 2018): ``c + log((N + c_base + 1) / c_base)``.
    Epsilon-greedy: unvisited edges first, then a random edge with probability epsilon, else
    the best mean. Q is the mean value for the player to move at
    ``node``. Ties are broken uniformly at random. At chance nodes the edge is sampled by
    its probability whatever the rule. Edges to children the solver has proven are skipped:
    their value is known, and once every edge is proven the solver proves the node itself
    (Winands et al. 2008 keep selecting proven draws; skipping them proves draws far sooner).
    """
    first = nodes[node, N_FIRST_EDGE]
    count = nodes[node, N_NUM_EDGES]
    if nodes[node, N_PLAYER] == CHANCE:
        return sample_by_prior(edge_values, first, count, rng)
    parent_visits = nodes[node, N_VISITS]
    # Unvisited edges first (UCB1, epsilon-greedy). Each visit of a node after its first
    # takes one of its edges, so a node visited no more often than it has edges has an
    # unvisited one, and past that there is none unless walks stopped at the node (the depth
    # limit): UCB1 then skips the look, and the scoring loop below notices such an edge and
    # makes the same choice the look would have, from the same generator state.
    saved_rng = rng[0]
    if rule == RULE_EPSILON_GREEDY or (rule == RULE_UCB1 and parent_visits <= count):
        unvisited = random_unvisited_edge(edges, first, count, first, rng)
        if unvisited != NO_EDGE:
            return unvisited
        if rule == RULE_EPSILON_GREEDY and random_unit(rng) < rule_params[0]:
            return first + random_below(rng, int64(count))
    c, scale = exploration(rule, rule_params, parent_visits)
    c_root_scale = c * math.sqrt(scale)
    best = -math.inf
    chosen = first
    ties = int64(0)  # not a literal (see `playout._src.jit.int64`)
    has_priors = edge_values.shape[1] > EV_PRIOR
    for e in range(first, first + count):
        if edges[e, E_PROVEN] != UNPROVEN:
            continue  # its value is known: spend the simulation on what is not
        # The walk goes on to one of these children: start loading their rows now (in a big
        # tree, each level otherwise waits for the chosen child's row, then for its edges).
        prefetch_row(nodes, edges[e, E_CHILD])
        n = edges[e, E_VISITS]
        if rule == RULE_UCB1:
            if n == 0:  # an unvisited edge the look above skipped (see there)
                rng[0] = saved_rng
                return random_unvisited_edge(edges, first, count, first, rng)
            if n < LOG_TABLE_SIZE:
                score = (
                    edge_values[e, EV_VALUE_SUM] * _RECIPROCAL_TABLE[n]
                    + c_root_scale * _RSQRT_TABLE[n]
                )
            else:
                inverse_n = 1.0 / n
                score = edge_values[e, EV_VALUE_SUM] * inverse_n + c * math.sqrt(scale * inverse_n)
        elif rule == RULE_PUCT:
            q = edge_values[e, EV_VALUE_SUM] / n if n > 0 else rule_params[1]
            prior = edge_values[e, EV_PRIOR] if has_priors else 1.0 / count
            score = q + c * prior * scale / (1.0 + n)
        else:
            score = edge_values[e, EV_VALUE_SUM] / n
        if score > best:
            best = score
            chosen = e
            ties = 1
        elif score == best:
            ties += 1
            if random_below(rng, ties) == 0:
                chosen = e
    return chosen


@jit(**PHASE_JIT)
def descend(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    max_depth: int,
    path: np.ndarray,
) -> tuple[int, int, int]:
    """Selection: walk from the root to where this simulation leaves the tree.

    Follows :func:`select_edge` until it reaches a node that is not expanded, terminal or
    proven by the solver, an edge never taken before, or ``max_depth`` edges. ``path``
    receives the edges taken.

    Returns:
        ``(node, edge, depth)``: when ``edge`` is not :data:`NO_EDGE` it is an untaken edge of
        ``node`` whose child must be created; otherwise ``node`` itself is the leaf to
        evaluate. ``depth`` counts the edges in ``path`` (the new edge included).
    """
    return descend_from(nodes, edges, edge_values, rule, rule_params, rng, max_depth, path, ROOT, 0)


@jit(inline="always", **PHASE_JIT)  # inlined: the plain walk costs no call
def descend_from(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    max_depth: int,
    path: np.ndarray,
    node: int,
    depth: int,
) -> tuple[int, int, int]:
    """:func:`descend` from ``node``, reached by the ``depth`` edges already in ``path`` (a
    walk whose first edges another rule chose, as forced playouts do at the root)."""
    while nodes[node, N_NUM_EDGES] > 0 and nodes[node, N_PROVEN] == UNPROVEN and depth < max_depth:
        e = select_edge(nodes, edges, edge_values, node, rule, rule_params, rng)
        path[depth] = e
        depth += 1
        child = edges[e, E_CHILD]
        if child == UNVISITED:
            return node, e, depth
        node = child
    return node, NO_EDGE, depth


__all__ = [
    "RULE_EPSILON_GREEDY",
    "RULE_PUCT",
    "RULE_UCB1",
    "descend",
    "descend_from",
    "exploration",
    "random_unvisited_edge",
    "sample_by_prior",
    "select_edge",
]
