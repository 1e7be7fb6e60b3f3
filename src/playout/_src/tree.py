"""The search tree as a structure of arrays, and the phase functions that read and write it.

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
                      ``node_values`` without this column; the functions here read a missing
                      column as zero (:func:`node_reward`) and check
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
                      chance nodes) is allocated without this column, and every function
                      here that reads or writes it checks ``edge_values.shape[1] > EV_PRIOR``
                      (priors are uniform then; results report them so).

Everything a node has only once (its parent, the reward into it) lives on the node row, so an
edge row is what selection reads and expansion writes: in the compiled engine 16 + 8 bytes
(int32 ``edges``, value sum only) or 16 + 16 with the prior column.
``meta`` (int64, ``[META_FIELDS]``): ``M_NUM_NODES``, ``M_NUM_EDGES``.

During backpropagation a simulation's outcome travels up as a value for player 0 and is
converted to the mover's point of view at every edge (negamax for two players, plain sums for
one player). The phase functions below are compiled with numba and shared by the Python driver
(:mod:`playout._src.search`) and the compiled driver; none of them is recursive.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple, cast

import numpy as np
from llvmlite import ir
from numba import types as nt
from numba.core import cgutils
from numba.extending import intrinsic

from playout._src import game as _game
from playout._src.game import CHANCE, TERMINAL, GameSpec
from playout._src.jit import JitOptions, jit

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

# Selection rules understood by the compiled `select_edge` (parameters in `rule_params`).
RULE_UCB1 = 0  # params: [c]
RULE_PUCT = 1  # params: [c, first_play_value, c_base] (c_base 0: constant c)
RULE_EPSILON_GREEDY = 2  # params: [epsilon]

_JIT: JitOptions = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": False}
"""Compile options of the phase functions. None of them allocates, so they are compiled
without numba's reference counting (``_nrt=False``): with it, every call increments and
decrements the count of every array argument through a runtime function call, which costs
more than the selection arithmetic itself. ``error_model="numpy"``: no ZeroDivisionError
checks in the inner loops."""
_JIT_ALLOCATING: JitOptions = {"cache": True, "nogil": True}

int64 = cast(Callable[[object], int], np.int64)
"""``np.int64`` typed for mypy as returning an ``int``. In compiled code, ``int64(0)`` is a
plain int64 where ``0`` is a literal: numba compiles (and caches) a separate copy of any
function called with a literal argument, or with a variable it first saw as a literal."""


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


def solver_bounds(spec: GameSpec) -> tuple[float, float]:
    """The returns for player 0 that the solver classes as a loss and as a win for ``spec``.

    With rewards on the way, a node's exact value is a future return that cannot be told a
    win or a loss on its own: such games are proven by full enumeration only (the bounds are
    infinite, so every proven value is a "draw" class and selection skips it).
    """
    if spec.has_intermediate_rewards:
        return -math.inf, math.inf
    return float(spec.min_return), float(spec.max_return)


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


# --------------------------------------------------------------------------------------------
# Random numbers: xorshift64* in a one-element uint64 array, so compiled code is reproducible.
# --------------------------------------------------------------------------------------------


def new_rng_state(seed: int) -> np.ndarray:
    """A generator state for the compiled phases, derived from ``seed`` (never zero)."""
    mixed = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)
    if mixed[0] == 0:
        mixed[0] = np.uint64(0x9E3779B97F4A7C15)
    return mixed


@jit(**_JIT)
def next_u64(rng: np.ndarray) -> np.uint64:
    """Advance the xorshift64* generator and return 64 random bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(2685821657736338717)


@jit(**_JIT)
def random_below(rng: np.ndarray, n: int) -> int:
    """A uniform integer in ``[0, n)`` (Lemire's multiply-shift; n < 2**32)."""
    return int(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@jit(**_JIT)
def random_unit(rng: np.ndarray) -> float:
    """A uniform float in ``[0, 1)`` with 53 random bits."""
    return float(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --------------------------------------------------------------------------------------------
# Phase 1: selection.
# --------------------------------------------------------------------------------------------


@jit(**_JIT)
def edge_mean(edge_values: np.ndarray, edges: np.ndarray, e: int) -> float:
    """Mean value of edge ``e`` for the player who chooses it (0 when unvisited)."""
    n = edges[e, E_VISITS]
    return edge_values[e, EV_VALUE_SUM] / n if n > 0 else 0.0


@jit(**_JIT)
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


@jit(**_JIT)
def is_proven_loss_for(player: int, proven: int) -> bool:
    """Whether a node with solver class ``proven`` is lost for ``player`` (a one-player game
    is "lost" when its worst return is certain)."""
    if player == 1:
        return proven == PROVEN_P0_WIN
    return proven == PROVEN_P0_LOSS


@jit(**_JIT)
def is_proven_win_for(player: int, proven: int) -> bool:
    """Whether a node with solver class ``proven`` is won for ``player``."""
    if player == 1:
        return proven == PROVEN_P0_LOSS
    return proven == PROVEN_P0_WIN


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


@jit(inline="always", **_JIT)
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


@jit(inline="always", **_JIT)
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


@jit(inline="always", **_JIT)
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
    ties = int64(0)  # not a literal (see `int64`)
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


@jit(**_JIT)
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
    node = ROOT
    depth = 0
    while nodes[node, N_NUM_EDGES] > 0 and nodes[node, N_PROVEN] == UNPROVEN and depth < max_depth:
        e = select_edge(nodes, edges, edge_values, node, rule, rule_params, rng)
        path[depth] = e
        depth += 1
        child = edges[e, E_CHILD]
        if child == UNVISITED:
            return node, e, depth
        node = child
    return node, NO_EDGE, depth


# --------------------------------------------------------------------------------------------
# Phase 2: expansion.
# --------------------------------------------------------------------------------------------


@jit(inline="always", **_JIT)
def add_node(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    meta: np.ndarray,
    parent: int,
    parent_edge: int,
    player: int,
    is_terminal: bool,
    terminal_value: float,
) -> int:
    """Create the node at the end of ``parent_edge`` of node ``parent`` (``NO_NODE`` and
    ``NO_EDGE`` for the root); its id. The reward into it starts at zero."""
    node = meta[M_NUM_NODES]
    meta[M_NUM_NODES] = node + 1
    nodes[node, N_FIRST_EDGE] = 0
    nodes[node, N_NUM_EDGES] = 0 if is_terminal else UNEXPANDED
    nodes[node, N_PARENT_EDGE] = parent_edge
    nodes[node, N_PLAYER] = TERMINAL if is_terminal else player
    nodes[node, N_VISITS] = 0
    nodes[node, N_PROVEN] = UNPROVEN
    nodes[node, N_PLIES] = 0
    nodes[node, N_PARENT] = parent
    node_values[node, NV_EXACT] = terminal_value
    if node_values.shape[1] > NV_REWARD:
        node_values[node, NV_REWARD] = 0.0
    if parent_edge != NO_EDGE:
        edges[parent_edge, E_CHILD] = node
    return node


@jit(inline="always", **_JIT)
def expand(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    node: int,
    actions: np.ndarray,
    priors: np.ndarray,
) -> None:
    """Expansion: give ``node`` one untaken edge per legal action.

    ``priors`` holds one probability per action, or is empty for a uniform prior; a tree
    without the prior column (``edge_values`` of one column, see the module docstring)
    stores none.
    """
    first = meta[M_NUM_EDGES]
    count = actions.shape[0]
    meta[M_NUM_EDGES] = first + count
    write_edges(edges, edge_values, first, actions, priors)
    nodes[node, N_FIRST_EDGE] = first
    nodes[node, N_NUM_EDGES] = count


@jit(inline="always", **_JIT)
def write_edges(
    edges: np.ndarray, edge_values: np.ndarray, first: int, actions: np.ndarray, priors: np.ndarray
) -> None:
    """Fresh, untaken edge rows ``first ..`` for ``actions`` (``priors`` as :func:`expand`
    takes them); the node's own row is the caller's to write."""
    count = actions.shape[0]
    uniform = 1.0 / count if count > 0 else 0.0
    has_priors = edge_values.shape[1] > EV_PRIOR
    for i in range(count):
        e = first + i
        edges[e, E_ACTION] = actions[i]
        edges[e, E_CHILD] = UNVISITED
        edges[e, E_VISITS] = 0
        edges[e, E_PROVEN] = UNPROVEN
        edge_values[e, EV_VALUE_SUM] = 0.0
        if has_priors:
            edge_values[e, EV_PRIOR] = priors[i] if priors.shape[0] > 0 else uniform


@jit(inline="always", **_JIT)
def expand_reached(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    rule: int,
    rule_params: np.ndarray,
    rng: np.ndarray,
    node: int,
    actions: np.ndarray,
    priors: np.ndarray,
    path: np.ndarray,
    depth: int,
) -> tuple[int, int]:
    """Lazy expansion: a walk (:func:`descend`) stopped at ``node``, left
    :data:`UNEXPANDED` when it was created; give it its edges (``actions`` and ``priors`` as
    :func:`expand` takes them) and take the first step out of it, as :func:`descend` would
    have had the node been expanded at once. Returns ``(edge, depth)``: the untaken edge
    chosen (recorded in ``path``) and the new depth (``NO_EDGE`` and the same depth when
    ``actions`` is empty). The choice draws from ``rng`` exactly as that step of the walk
    would, so a search gives the same tree whichever way it expands.
    """
    expand(nodes, edges, edge_values, meta, node, actions, priors)
    if actions.shape[0] == 0:
        # A game that lists no move in a position it calls running: the node has no edges,
        # and the walk ends on it as on a terminal one (its first evaluation is its value).
        return NO_EDGE, depth
    e = select_edge(nodes, edges, edge_values, node, rule, rule_params, rng)
    path[depth] = e
    return e, depth + 1


# --------------------------------------------------------------------------------------------
# Phase 4: backpropagation.
# --------------------------------------------------------------------------------------------


value_for = jit(inline="always", **_JIT)(_game.value_for)
""":func:`playout._src.game.value_for` compiled (the one point-of-view flip)."""


@jit(inline="always", **_JIT)
def node_reward(node_values: np.ndarray, node: int) -> float:
    """The reward into ``node`` for player 0 (zero in a tree without the reward column)."""
    return node_values[node, NV_REWARD] if node_values.shape[1] > NV_REWARD else 0.0


@jit(inline="always", **_JIT)
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


@jit(**_JIT)
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


@jit(**_JIT)
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


@jit(inline="always", **_JIT)
def expand_and_backup(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    parent: int,
    parent_edge: int,
    player: int,
    is_terminal: bool,
    reward0: float,
    actions: np.ndarray,
    priors: np.ndarray,
    value0: float,
    path: np.ndarray,
    depth: int,
) -> int:
    """Create the child of ``parent_edge`` of ``parent`` with reward ``reward0`` (for player
    0) on the way in, expand it with ``actions``, back up ``value0`` along ``path[:depth]``
    (the simulation's edges, ``parent_edge`` last).

    Empty ``actions`` for a non-terminal child leave it :data:`UNEXPANDED`: the compiled
    driver expands a node when a later simulation reaches it (:func:`expand_reached`), so
    that the leaves no simulation comes back to hold no edges (a non-terminal state always
    has a legal action, so the Python driver, which expands at once, never passes none).

    One call per simulation for the Python driver (phases 2 and 4 together, to pay the call
    overhead once). Returns the new node's id.
    """
    node = add_node(
        nodes, node_values, edges, meta, parent, parent_edge, player, is_terminal, value0
    )
    if node_values.shape[1] > NV_REWARD:
        node_values[node, NV_REWARD] = reward0
    if not is_terminal and actions.shape[0] > 0:
        expand(nodes, edges, edge_values, meta, node, actions, priors)
    backup_path(nodes, node_values, edges, edge_values, path, depth, node, value0)
    return node


@jit(inline="always", **_JIT)
def classify(value0: float, min_return: float, max_return: float) -> int:
    """The solver class of an exact value for player 0."""
    if value0 >= max_return:
        return PROVEN_P0_WIN
    if value0 <= min_return:
        return PROVEN_P0_LOSS
    return PROVEN_DRAW


@jit(**_JIT)
def _set_edge_mean_to_exact(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
) -> None:
    """Make the mean of the edge into proven ``node`` its exact value (for the mover), and
    copy the node's solver class onto the edge (:data:`E_PROVEN`).

    Later simulations stop at the proven node and back up that same value, so the mean stays
    exact; selection then weighs a proven child by what it is worth, not by its sampled past.
    """
    if node == ROOT:
        return
    e = nodes[node, N_PARENT_EDGE]
    edges[e, E_PROVEN] = nodes[node, N_PROVEN]
    mover = nodes[nodes[node, N_PARENT], N_PLAYER]
    exact = value_for(mover, node_reward(node_values, node) + node_values[node, NV_EXACT])
    edge_values[e, EV_VALUE_SUM] = exact * edges[e, E_VISITS]


@jit(**_JIT)
def solve_upward(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    leaf: int,
    min_return: float,
    max_return: float,
) -> None:
    """MCTS-Solver (Winands, Bjornsson & Saito 2008): prove nodes from ``leaf`` upwards.

    Called after :func:`backup_path`. A terminal leaf is proven by its outcome. Going up, a parent
    is proven as soon as one child is a proven win for the player to move there (best play
    takes it), or once every child is proven (its exact value is then the best of them, for
    the player to move). Plies to the end follow best play with the longest resistance: the
    shortest win, the longest loss. Chance nodes are never proven. The mean of an edge into a
    proven node becomes its exact value; proofs also steer selection (:func:`select_edge`),
    the walk (:func:`descend`) and the final choice (:func:`choose_edge`).
    """
    node = leaf
    if nodes[node, N_PROVEN] == UNPROVEN:
        if nodes[node, N_PLAYER] != TERMINAL:
            return
        nodes[node, N_PROVEN] = classify(node_values[node, NV_EXACT], min_return, max_return)
        nodes[node, N_PLIES] = 0
    _set_edge_mean_to_exact(nodes, node_values, edges, edge_values, node)
    while node != ROOT:
        parent = int64(nodes[node, N_PARENT])  # one type for _set_edge_mean_to_exact
        if nodes[parent, N_PROVEN] != UNPROVEN:
            return
        player = nodes[parent, N_PLAYER]
        if player == CHANCE:
            return
        first = nodes[parent, N_FIRST_EDGE]
        count = nodes[parent, N_NUM_EDGES]
        all_proven = True
        best = -math.inf
        best_plies = 0
        for e in range(first, first + count):
            child = edges[e, E_CHILD]
            if child == UNVISITED or nodes[child, N_PROVEN] == UNPROVEN:
                all_proven = False
                continue
            value = value_for(
                player, node_reward(node_values, child) + node_values[child, NV_EXACT]
            )
            plies = nodes[child, N_PLIES] + 1
            if value > best:
                best, best_plies = value, plies
            elif value == best:
                # Among equal outcomes: lose as late as possible, otherwise end soonest.
                best_plies = max(best_plies, plies) if value < 0.0 else min(best_plies, plies)
        is_win = best >= (max_return if player != 1 else -min_return)
        if not (is_win or all_proven):
            return
        exact0 = value_for(player, best)
        nodes[parent, N_PROVEN] = classify(exact0, min_return, max_return)
        nodes[parent, N_PLIES] = best_plies
        node_values[parent, NV_EXACT] = exact0
        _set_edge_mean_to_exact(nodes, node_values, edges, edge_values, parent)
        node = parent


@jit(**_JIT)
def finish_new_leaf(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    meta: np.ndarray,
    parent: int,
    parent_edge: int,
    player: int,
    is_terminal: bool,
    reward0: float,
    actions: np.ndarray,
    priors: np.ndarray,
    value0: float,
    solve: bool,
    min_return: float,
    max_return: float,
    path: np.ndarray,
    depth: int,
) -> bool:
    """The end of a simulation that left the tree by ``parent_edge`` of ``parent``: create and
    expand the new leaf, back up ``value0`` along the simulation's edges ``path[:depth]``
    (``parent_edge`` last) and, with ``solve``, run the solver from the leaf.

    One compiled call per simulation for the Python driver. Returns whether the root is
    proven (the search can stop).
    """
    leaf = expand_and_backup(
        nodes,
        node_values,
        edges,
        edge_values,
        meta,
        parent,
        parent_edge,
        player,
        is_terminal,
        reward0,
        actions,
        priors,
        value0,
        path,
        depth,
    )
    if solve:
        solve_upward(nodes, node_values, edges, edge_values, leaf, min_return, max_return)
    return nodes[ROOT, N_PROVEN] != UNPROVEN


@jit(**_JIT)
def finish_old_leaf(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    leaf: int,
    value0: float,
    solve: bool,
    min_return: float,
    max_return: float,
    path: np.ndarray,
    depth: int,
) -> bool:
    """The end of a simulation that stopped on an existing node (terminal, proven, or at the
    depth limit) reached by the edges ``path[:depth]``: back up ``value0`` and, with
    ``solve``, run the solver. Returns whether the root is proven."""
    backup_path(nodes, node_values, edges, edge_values, path, depth, leaf, value0)
    if solve:
        solve_upward(nodes, node_values, edges, edge_values, leaf, min_return, max_return)
    return nodes[ROOT, N_PROVEN] != UNPROVEN


# --------------------------------------------------------------------------------------------
# Final choice and read-outs.
# --------------------------------------------------------------------------------------------

FINAL_MOST_VISITS = 0
FINAL_BEST_VALUE = 1
FINAL_SAMPLE = 2

# A child's solver class seen by the player who chooses it (the mover at the parent).
OUTCOME_UNKNOWN, OUTCOME_WIN, OUTCOME_DRAW, OUTCOME_LOSS = range(4)


@jit(**_JIT)
def outcome_for(player: int, proven: int) -> int:
    """The solver class ``proven`` (for player 0) as an ``OUTCOME_*`` for ``player``."""
    if proven == UNPROVEN:
        return OUTCOME_UNKNOWN
    if proven == PROVEN_DRAW:
        return OUTCOME_DRAW
    return OUTCOME_WIN if is_proven_win_for(player, proven) else OUTCOME_LOSS


@jit(**_JIT)
def choose_among(
    visits: np.ndarray,
    means: np.ndarray,
    outcomes: np.ndarray,
    plies: np.ndarray,
    final: int,
    temperature: float,
    rng: np.ndarray,
) -> int:
    """The final-move rule: the index of the move to play among ``len(visits)`` candidates.

    The one rule of the engine, used at the root of a tree (:func:`choose_edge`), along the
    principal variation, and on root statistics merged from several searches. Per candidate:
    ``visits`` (simulations), ``means`` (mean value for the player who chooses), ``outcomes``
    (an ``OUTCOME_*`` for that player) and ``plies`` (plies to the end under best play, for
    proven candidates).

    The order (that of strong engines, e.g. OpenSpiel's MCTS bot): a proven win first (the
    shortest); proven losses last (if nothing else is left, the longest); a proven candidate
    is preferred to an unproven one whose mean is not higher than the proven one's exact
    value. Among the rest, ``FINAL_MOST_VISITS``: most visits, ties broken by the higher mean,
    then the lower index; ``FINAL_BEST_VALUE``: highest mean among visited candidates, ties by
    visits; ``FINAL_SAMPLE``: drawn with probability proportional to ``visits ** (1/T)``
    (``temperature`` T > 0). Returns -1 when there are no candidates.
    """
    count = visits.shape[0]
    if count == 0:
        return -1
    win = -1
    longest_loss = -1
    num_lost = 0
    for i in range(count):
        if outcomes[i] == OUTCOME_WIN:
            if win == -1 or plies[i] < plies[win]:
                win = i
        elif outcomes[i] == OUTCOME_LOSS:
            num_lost += 1
            if longest_loss == -1 or plies[i] > plies[longest_loss]:
                longest_loss = i
    if win != -1:
        return win
    if num_lost == count:
        return longest_loss
    if final == FINAL_SAMPLE:
        most = 0
        for i in range(count):
            if outcomes[i] != OUTCOME_LOSS:
                most = max(most, visits[i])
        total = 0.0
        for i in range(count):
            if outcomes[i] != OUTCOME_LOSS:
                total += (visits[i] / most) ** (1.0 / temperature) if most else 1.0
        u = random_unit(rng) * total
        acc = 0.0
        last = -1
        for i in range(count):
            if outcomes[i] != OUTCOME_LOSS:
                acc += (visits[i] / most) ** (1.0 / temperature) if most else 1.0
                last = i
                if u < acc:
                    return i
        return last
    best = -1
    for i in range(count):
        if outcomes[i] == OUTCOME_LOSS:
            continue
        if best == -1:
            best = i
            continue
        n, best_n = visits[i], visits[best]
        q, best_q = means[i], means[best]
        if final == FINAL_BEST_VALUE:
            if best_n == 0 or (n > 0 and (q > best_q or (q == best_q and n > best_n))):
                best = i
        elif n > best_n or (n == best_n and q > best_q):
            best = i
    # A known value beats an estimate that is no better: prefer a proven candidate (a draw,
    # say) to the choice above when the latter's mean does not exceed the proven value.
    secure = -1
    secure_value = -math.inf
    for i in range(count):
        if outcomes[i] == OUTCOME_UNKNOWN or outcomes[i] == OUTCOME_LOSS:
            continue
        if means[i] > secure_value:
            secure, secure_value = i, means[i]
    if secure != -1 and secure_value >= means[best]:
        return secure
    return best


@jit(**_JIT_ALLOCATING)
def edge_statistics(
    nodes: np.ndarray, edges: np.ndarray, edge_values: np.ndarray, node: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(visits, means, outcomes, plies)`` of ``node``'s edges for :func:`choose_among`:
    means and outcomes are for the player to move at ``node``."""
    first = nodes[node, N_FIRST_EDGE]
    count = max(nodes[node, N_NUM_EDGES], 0)
    player = nodes[node, N_PLAYER]
    visits = np.zeros(count, dtype=np.int64)
    means = np.zeros(count, dtype=np.float64)
    outcomes = np.zeros(count, dtype=np.int64)
    plies = np.zeros(count, dtype=np.int64)
    for i in range(count):
        e = first + i
        visits[i] = edges[e, E_VISITS]
        means[i] = edge_mean(edge_values, edges, e)
        child = edges[e, E_CHILD]
        if child != UNVISITED:
            outcomes[i] = outcome_for(player, nodes[child, N_PROVEN])
            plies[i] = nodes[child, N_PLIES]
    return visits, means, outcomes, plies


@jit(**_JIT_ALLOCATING)
def choose_edge(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
    final: int,
    temperature: float,
    rng: np.ndarray,
) -> int:
    """The edge to play from ``node`` once the search is over (:func:`choose_among` on its
    edges); ``NO_EDGE`` if ``node`` has no edges."""
    visits, means, outcomes, plies = edge_statistics(nodes, edges, edge_values, node)
    index = choose_among(visits, means, outcomes, plies, final, temperature, rng)
    if index < 0:
        return NO_EDGE
    return nodes[node, N_FIRST_EDGE] + index


@jit(**_JIT_ALLOCATING)
def principal_variation(
    nodes: np.ndarray, edges: np.ndarray, edge_values: np.ndarray, out: np.ndarray
) -> int:
    """Fill ``out`` with the most-visited line from the root; returns its length."""
    # int64 variables, not the constants (see `int64`).
    node = int64(ROOT)
    final = int64(FINAL_MOST_VISITS)
    length = 0
    dummy = np.zeros(1, dtype=np.uint64)
    while length < out.shape[0] and nodes[node, N_NUM_EDGES] > 0:
        e = choose_edge(nodes, edges, edge_values, node, final, 1.0, dummy)
        if edges[e, E_VISITS] == 0:
            break
        out[length] = edges[e, E_ACTION]
        length += 1
        node = int64(edges[e, E_CHILD])
        if node == UNVISITED:
            break
    return length


@jit(**_JIT)
def find_child_edge(nodes: np.ndarray, edges: np.ndarray, node: int, action: int) -> int:
    """The edge of ``node`` labelled ``action``, or ``NO_EDGE``."""
    first = nodes[node, N_FIRST_EDGE]
    for e in range(first, first + max(nodes[node, N_NUM_EDGES], 0)):
        if edges[e, E_ACTION] == action:
            return e
    return NO_EDGE


@jit(**_JIT)
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
    "subtree",
]
