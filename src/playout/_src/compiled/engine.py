"""The compiled driver: whole simulations in machine code, for games with a compiled kernel.

:class:`CompiledDriver` runs the compiled loop (:func:`playout._src.compiled.driver.
kernel_driver`) on the game's :class:`~playout._src.compiled.kernel.Kernel`, found through
the state's ``compiled_kernel()`` hook (the built-in m,n,k, connect-four and Go states have one;
``examples/numba_nim.py`` shows a game of one's own). It runs the built-in selection rules and
random-rollout evaluation, and RAVE on its own loop (:mod:`playout._src.compiled.rave_driver`,
AMAF rows in an :class:`~playout._src.rave.AmafTable`); :func:`compiled_support` says why a
configuration needs the Python driver instead. The engine (:class:`playout.MCTS`) owns the
budget, the moves and the results.
"""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any, ClassVar

import numpy as np

from playout._src import rave
from playout._src.compiled import memory
from playout._src.compiled.driver import STAT_FIELDS, STAT_MAX_DEPTH, kernel_driver
from playout._src.compiled.kernel import Kernel
from playout._src.compiled.rave_driver import rave_kernel_driver
from playout._src.config import UNLIMITED, SearchConfig
from playout._src.errors import GameError, InvalidParameterError
from playout._src.evaluation import Evaluator, Rollout
from playout._src.game import GameState
from playout._src.rules import RAVE, UCB1, SelectionRule
from playout._src.tree import expansion, solver
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout._src.tree.selection import RULE_PUCT

_MAX_RESERVED_EDGE_BYTES = 2 << 30
"""Bytes of edge rows reserved at most per driver call (bounds address space on big boards;
rows not yet written take no memory). 2 GiB: a million-simulation 9x9 search (81 edges a
node) is reserved at once instead of being copied into doubled arrays three times, which had
made its peak resident memory twice the tree's size."""
_MAX_ROWS = 2**31 - 2
"""The most node or edge rows a tree with 32-bit ids may hold."""


def compiled_kernel_for(state: GameState) -> Kernel | None:
    """The compiled kernel of ``state``'s game, or ``None`` if it has none.

    Asks the state's ``compiled_kernel()`` hook: the built-in m,n,k states (tic-tac-toe,
    gomoku, any m,n,k up to 32x32), connect-four and Go states have one, and so can a game of
    one's own (see ``examples/numba_nim.py``). ``kernel.encode(state)`` converts the state
    into the kernel's compact state array.
    """
    return _find_kernel(state)[0]


KERNEL_REPLACES = ("play", "legal_actions", "current_player", "is_terminal", "returns")
"""The state methods a compiled kernel does the work of: a subclass that overrides one of
them plays by other rules than its parent's kernel."""


def _declaring_class(cls: type) -> type | None:
    """The class in ``cls``'s method resolution order that defines ``compiled_kernel``."""
    return next((c for c in cls.__mro__ if "compiled_kernel" in vars(c)), None)


def _find_kernel(state: Any) -> tuple[Kernel | None, str]:
    """The compiled kernel of ``state``'s game, or ``None`` and the reason why not.

    The kernel is used only when it plays by the state's own rules: the hook must be
    declared by the state's class or a parent class, and a subclass must not override a
    method the kernel replaces (:data:`KERNEL_REPLACES`). A wrapper that passes the hook on
    by attribute look-up, or a subclass with changed rules, runs on the Python driver.
    """
    cls = type(state)
    hook = getattr(state, "compiled_kernel", None)
    if not callable(hook):
        return None, (
            f"{cls.__name__} has no compiled kernel (built in: m,n,k games, connect four and "
            "Go; a game of your own can offer one through a compiled_kernel() method)"
        )
    owner = _declaring_class(cls)
    if owner is None:
        return None, (
            f"{cls.__name__} reaches compiled_kernel() by attribute look-up, not from its "
            "class: its rules may not be the kernel's"
        )
    changed = [
        name
        for name in KERNEL_REPLACES
        if getattr(cls, name, None) is not getattr(owner, name, None)
    ]
    if changed:
        return None, (
            f"{cls.__name__} overrides {', '.join(f'{name}()' for name in changed)} of "
            f"{owner.__name__}, whose compiled kernel plays {owner.__name__}'s rules"
        )
    kernel = hook()
    if kernel is None:
        return None, f"{type(state).__name__}.compiled_kernel() returned None"
    if not isinstance(kernel, Kernel):
        raise InvalidParameterError(
            f"{type(state).__name__}.compiled_kernel() must return a Kernel or None"
        )
    return kernel, ""


def _num_rollouts(evaluator: Evaluator | None) -> tuple[int, str]:
    """Rollouts per leaf for ``evaluator``, or 0 and why the compiled driver cannot run it."""
    if evaluator is None:
        return 1, ""
    if type(evaluator) is Rollout:
        if evaluator.policy is not None and not hasattr(evaluator.policy, "compiled_kernel"):
            return 0, "a custom rollout policy runs in Python"
        if evaluator.max_depth is not None or evaluator.heuristic is not None:
            return 0, "cut-off rollouts (max_depth / heuristic) run in Python"
        return int(evaluator.num_rollouts), ""
    return 0, f"the evaluator {type(evaluator).__name__} runs in Python"


def _selection_problem(selection: SelectionRule | None) -> str:
    if selection is None or hasattr(selection, "compiled") or isinstance(selection, RAVE):
        return ""
    name = type(selection).__name__
    return (
        f"the selection rule {name} runs on the Python driver "
        "(UCB1, PUCT, epsilon-greedy and RAVE are compiled)"
    )


def compiled_support(state: GameState, config: SearchConfig) -> tuple[Kernel | None, str]:
    """The kernel the compiled driver would run ``config``'s search of ``state`` on, or
    ``None`` and the reason it cannot (a game without a kernel, a rule or evaluator in
    Python, the transposition table)."""
    kernel, reason = _find_kernel(state)
    if kernel is None:
        return None, reason
    # A rollout policy with a compiled twin (Go's heavy playouts) brings its own kernel.
    twin = getattr(getattr(config.evaluator, "policy", None), "compiled_kernel", None)
    if twin is not None:
        kernel = twin(kernel)
    reason = _num_rollouts(config.evaluator)[1] or _selection_problem(config.selection)
    if reason:
        return None, reason
    if config.transpositions:
        return None, "the transposition table runs on the Python driver"
    if config.root_noise is not None:
        return None, "root noise runs on the Python driver"
    if isinstance(config.selection, RAVE):
        if config.tree_threads is not None:
            return None, "RAVE's statistics are not kept on a shared tree"
        if config.selection.prior > 0 and kernel.move_priors is None:
            return None, f"RAVE(prior=...) needs move scores, which kernel {kernel.name!r} has not"
    if kernel.encode is None:
        return None, f"kernel {kernel.name!r} has no encode() to convert a Python state"
    return kernel, ""


class CompiledDriver:
    """Runs whole simulations compiled, on the game's :class:`Kernel`.

    Selection, expansion and backup are the shared compiled phase functions of
    :mod:`playout._src.tree`; every tree node keeps its compact state in a row of a
    ``uint64[nodes, state_size]`` array, and the tree's arrays (32-bit ids) come from and go
    back to :mod:`playout._src.compiled.memory`'s pool. A seed reproduces a search exactly
    for a given simulation budget (this driver draws its random numbers differently from the
    Python driver, so the two agree in distribution, not move by move).

    Args:
        state: the root position (a Python game state; never modified).
        config: the engine's configuration, resolved for the game; its selection rule must
            be a built-in one and its evaluator ``None`` or a plain ``Rollout(num_rollouts=n)``
            (see :func:`compiled_support`).
        rng_state: the generator of the compiled phases.
        rng: seeds the rollouts' generator.
        kernel: the game's kernel.

    Raises:
        InvalidParameterError: the configuration needs the Python driver.
    """

    backend: ClassVar[str] = "compiled"
    max_chunk: ClassVar[int] = UNLIMITED

    def __init__(
        self,
        state: GameState,
        config: SearchConfig,
        rng_state: np.ndarray,
        rng: random.Random,
        kernel: Kernel,
    ) -> None:
        num_rollouts, reason = _num_rollouts(config.evaluator)
        reason = reason or _selection_problem(config.selection)
        if config.transpositions:
            reason = reason or "the transposition table runs on the Python driver"
        if config.root_noise is not None:
            reason = reason or "root noise runs on the Python driver"
        if reason:
            raise InvalidParameterError(
                f"the compiled driver cannot run this search: {reason} (use backend='python')"
            )
        if kernel.encode is None:
            raise InvalidParameterError(
                f"kernel {kernel.name!r} has no encode() to convert a Python state"
            )
        self._kernel = kernel
        self._num_rollouts = num_rollouts
        selection = UCB1() if config.selection is None else config.selection
        # RAVE: its own loop, AMAF rows beside the edge rows, moves reported by the rollouts.
        self._rave_params: np.ndarray | None = None
        if isinstance(selection, RAVE):
            self._rave_params = selection.parameters()
            self._rule, self._rule_params = 0, np.zeros(0, dtype=np.float64)
            self._run = rave_kernel_driver(kernel)
            self._stamp = np.zeros(1, dtype=np.int64)
            self._move_actions = np.zeros((num_rollouts, kernel.max_length), dtype=np.int64)
            self._move_players = np.zeros((num_rollouts, kernel.max_length), dtype=np.int64)
            self._move_counts = np.zeros(num_rollouts, dtype=np.int64)
            self._move_values = np.zeros(num_rollouts, dtype=np.float64)
            self._rollout_state = np.zeros(kernel.state_size, dtype=np.uint64)
            self._prior_scores = np.zeros(kernel.num_actions, dtype=np.float64)
        else:
            compiled_rule: tuple[int, np.ndarray] = selection.compiled()  # type: ignore[union-attr]
            self._rule, self._rule_params = compiled_rule
            self._run = kernel_driver(kernel)
        self._amaf: rave.AmafTable | None = None
        # The prior column is read by PUCT (kernels have no chance nodes, rollouts give no
        # policy), RAVE's selection, and the merge of symmetric root moves: without any,
        # edges are allocated without it (24 bytes instead of 32; results report uniform
        # priors).
        self._priors = (
            self._rule == RULE_PUCT or self._rave_params is not None or bool(config.symmetry)
        )
        self._solver = bool(config.solver)
        self._solver_bounds = solver.solver_bounds(state.game.spec)
        self._rng_state = rng_state
        self._rollout_rng = new_rng_state(rng.getrandbits(63))
        self._actions = np.zeros(kernel.num_actions, dtype=np.int64)
        self._path = np.zeros(kernel.max_length + 2, dtype=np.int64)
        self._scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        self._stats = np.zeros(STAT_FIELDS, dtype=np.int64)
        self.max_depth_seen = 0
        self.reset(state)

    @property
    def kernel(self) -> Kernel:
        """The game's compiled kernel."""
        return self._kernel

    @property
    def tree(self) -> T.Tree:
        """The search tree's arrays (read-only use; see :mod:`playout._src.tree.layout`)."""
        return self._tree

    @property
    def root_state(self) -> GameState:
        """The position at the root of the tree."""
        return self._root_state

    @property
    def amaf(self) -> rave.AmafTable | None:
        """RAVE's AMAF statistics, rows parallel to :attr:`tree`'s edge rows (read-only use;
        see :mod:`playout._src.rave`), or ``None`` when the selection rule is not RAVE."""
        return self._amaf

    @property
    def node_states(self) -> np.ndarray:
        """``uint64[node_capacity, state_size]``: the compact state of every tree node."""
        return self._node_states

    # ----------------------------------------------------------------------------- state

    def reset(self, state: GameState) -> None:
        """Start a new tree with ``state`` at its (expanded) root."""
        kernel = self._kernel
        assert kernel.encode is not None  # checked in __init__
        compact = np.ascontiguousarray(kernel.encode(state), dtype=np.uint64)
        if compact.shape != (kernel.state_size,):
            raise GameError(
                f"{kernel.name}: encode() returned shape {compact.shape}, expected "
                f"({kernel.state_size},)"
            )
        self._root_state = state
        self.max_depth_seen = 0
        self._scratch[:] = 0  # what a kernel learned from the last tree's rollouts goes
        tree = memory.new_tree(priors=self._priors)
        if self._rave_params is not None:
            self._amaf = rave.AmafTable(tree.edge_capacity, 2, kernel.num_actions)
        self._replace_tree(tree, memory.POOL.take(tree.node_capacity, kernel.state_size, np.uint64))
        del tree
        self._node_states[T.ROOT] = compact
        terminal = state.is_terminal()
        expansion.add_node(
            self._tree.nodes,
            self._tree.node_values,
            self._tree.edges,
            self._tree.meta,
            T.NO_NODE,
            T.NO_EDGE,
            state.current_player(),
            terminal,
            0.0,
        )
        if not terminal:
            self._expand_root()

    def keep_subtree(self, child: int, state: GameState) -> bool:
        """Make node ``child`` (whose position is ``state``) the root, keeping its subtree
        and its nodes' compact states."""
        new_tree, old_ids = memory.subtree(self._tree, child)
        if self._amaf is not None:
            self._amaf = self._amaf.carried(self._tree, new_tree, old_ids)
        states = memory.POOL.take(new_tree.node_capacity, self._kernel.state_size, np.uint64)
        np.take(self._node_states, old_ids, axis=0, out=states[: old_ids.shape[0]])
        self._replace_tree(new_tree, states)
        del new_tree, states
        self._root_state = state
        self.max_depth_seen = 0
        if self._tree.nodes[T.ROOT, T.N_NUM_EDGES] == T.UNEXPANDED:
            self._expand_root()
        return True

    def _expand_root(self) -> None:
        kernel = self._kernel
        state = self._root_state
        compact = self._node_states[T.ROOT]
        count = int(kernel.legal_actions(kernel.params, compact, self._actions))
        actions = self._actions[:count].copy()
        python_actions = sorted(int(a) for a in state.legal_actions())
        if sorted(actions.tolist()) != python_actions:
            raise GameError(
                f"{kernel.name}: the kernel's legal actions {sorted(actions.tolist())} differ "
                f"from the game's {python_actions} (encode() or the kernel is wrong)"
            )
        player = int(kernel.current_player(kernel.params, compact))
        if player != state.current_player():
            raise GameError(
                f"{kernel.name}: the kernel says player {player} moves, the game says "
                f"{state.current_player()}"
            )
        self._ensure_room(1)
        first = self._tree.num_edges
        expansion.expand(
            self._tree.nodes,
            self._tree.edges,
            self._tree.edge_values,
            self._tree.meta,
            T.ROOT,
            actions,
            np.zeros(0, dtype=np.float64),
        )
        # The root's row again: growing the arrays may have moved it.
        self._add_prior_samples(self._node_states[T.ROOT], actions, first)

    def _add_prior_samples(self, compact: np.ndarray, actions: np.ndarray, first: int) -> None:
        """RAVE's prior knowledge on the edges ``first ..`` of ``actions`` (what the compiled
        loop does for the nodes it makes): virtual AMAF samples of the kernel's scores, none
        for a move scored NaN."""
        params = self._rave_params
        if self._amaf is None or params is None or params[rave.P_PRIOR_SAMPLES] <= 0:
            return
        samples = int(params[rave.P_PRIOR_SAMPLES])
        kernel = self._kernel
        scores = self._prior_scores[: actions.shape[0]]
        kernel.move_priors(kernel.params, compact, actions, scores)
        scored = ~np.isnan(scores)
        rows = np.arange(first, first + actions.shape[0])[scored]
        self._amaf.visit_count[rows] += samples
        self._amaf.value_sum[rows] += samples * scores[scored]

    def _ensure_room(self, simulations: int) -> int:
        """Grow the arrays for ``simulations`` more simulations (fewer on huge boards); how
        many simulations they now have room for."""
        max_actions = self._kernel.num_actions
        max_edges = _MAX_RESERVED_EDGE_BYTES // self._tree.edge_row_bytes
        simulations = max(1, min(simulations, max_edges // max_actions))
        if self._tree.num_edges + (simulations + 1) * max_actions > _MAX_ROWS:
            raise InvalidParameterError(
                "the search tree is full (2**31 edges); search with max_nodes or fewer simulations"
            )
        tree = memory.reserve(self._tree, simulations + 1, (simulations + 1) * max_actions)
        if tree is not self._tree or self._node_states.shape[0] < tree.node_capacity:
            states = memory.with_rows(self._node_states, tree.node_capacity, tree.num_nodes)
            self._replace_tree(tree, states)
        return simulations

    def _replace_tree(self, tree: T.Tree, node_states: np.ndarray) -> None:
        """Install a new tree and state array; the old arrays no one else holds go back to
        the pool (see :mod:`playout._src.compiled.memory`)."""
        old = getattr(self, "_tree", None)
        old_states = getattr(self, "_node_states", None)
        self._tree = tree
        self._node_states = node_states
        del tree, node_states
        if self._amaf is not None:
            self._amaf.fit(self._tree.edge_capacity)
        if old is None or old_states is None:
            return
        keep = {id(a) for a in (*self._tree[:4], self._node_states)}
        arrays = [a for a in (*old[:4], old_states) if id(a) not in keep]
        del old, old_states
        memory.recycle(arrays)

    def __del__(self) -> None:
        try:
            tree, states = self._tree, self._node_states
        except AttributeError:
            return
        arrays = [*tree[:4], states]
        del self._tree, self._node_states, tree, states
        with contextlib.suppress(Exception):  # at interpreter exit modules may be gone
            memory.recycle(arrays, wait=False)  # never wait in a finalizer

    # ----------------------------------------------------------------------------- search

    @property
    def state_bytes(self) -> int:
        """Bytes of a node's compact state."""
        return int(self._kernel.bytes_per_state())

    def node_bytes_bound(self) -> int:
        """Bytes one more node can take at most: its rows, its compact state, and an edge
        row per action of the game (a node is expanded with all its edges), with RAVE's AMAF
        row (16 bytes) beside each."""
        tree = self._tree
        edge_bytes = tree.edge_row_bytes + (16 if self._amaf is not None else 0)
        return tree.node_row_bytes + self.state_bytes + self._kernel.num_actions * edge_bytes

    def reserve(self, simulations: int) -> None:
        """Room for ``simulations`` more simulations, in one growth of the arrays (new rows
        are not touched until used, so this costs the copy of the tree so far)."""
        actions = self._kernel.num_actions
        simulations = min(simulations, (_MAX_ROWS - self._tree.num_edges) // actions - 2)
        if simulations < 1:
            return
        tree = memory.reserve(self._tree, simulations + 1, (simulations + 1) * actions)
        if tree is not self._tree or self._node_states.shape[0] < tree.node_capacity:
            states = memory.with_rows(self._node_states, tree.node_capacity, tree.num_nodes)
            self._replace_tree(tree, states)

    def simulate(self, count: int, *, max_depth: int, max_nodes: int, deadline: float) -> int:
        """Run up to ``count`` simulations in one compiled call (fewer on huge boards, or
        when the root is proven or the tree reaches ``max_nodes``); the number run. The
        engine sizes ``count`` to keep a time limit; here the deadline only stops a growth
        of the arrays that would end past it (0 simulations are run then)."""
        actions = self._kernel.num_actions
        state_bytes = self._kernel.bytes_per_state()
        seconds = T.growth_seconds(self._tree, count + 1, (count + 1) * actions, state_bytes)
        if seconds and time.perf_counter() + seconds > deadline:
            count = T.room_for(self._tree, actions) - 1  # what fits without growing
            if count < 1:
                return 0
        count = self._ensure_room(count)
        return self._run_driver(count, max_depth, max_nodes)

    def _run_driver(self, simulations: int, max_depth: int, max_nodes: int) -> int:
        kernel = self._kernel
        tree = self._tree
        self._stats[STAT_MAX_DEPTH] = self.max_depth_seen
        if self._amaf is not None:
            ran = self._run_rave(simulations, max_depth, max_nodes)
            self.max_depth_seen = int(self._stats[STAT_MAX_DEPTH])
            return ran
        ran = self._run(
            kernel.params,
            *tree,
            self._node_states,
            self._rule,
            self._rule_params,
            self._rng_state,
            self._rollout_rng,
            max_depth,
            max_nodes,
            simulations,
            self._num_rollouts,
            self._solver,
            float(self._solver_bounds[0]),
            float(self._solver_bounds[1]),
            self._actions,
            self._path,
            self._scratch,
            self._stats,
        )
        self.max_depth_seen = int(self._stats[STAT_MAX_DEPTH])
        return int(ran)

    def _run_rave(self, simulations: int, max_depth: int, max_nodes: int) -> int:
        """The RAVE loop (:mod:`playout._src.compiled.rave_driver`) on the tree and AMAF
        rows."""
        kernel, amaf = self._kernel, self._amaf
        assert amaf is not None and self._rave_params is not None
        return int(
            self._run(
                kernel.params,
                *self._tree,
                self._node_states,
                amaf.visit_count,
                amaf.value_sum,
                amaf.marks,
                self._stamp,
                self._rave_params,
                self._rng_state,
                self._rollout_rng,
                max_depth,
                max_nodes,
                simulations,
                self._num_rollouts,
                self._solver,
                float(self._solver_bounds[0]),
                float(self._solver_bounds[1]),
                self._actions,
                self._path,
                self._scratch,
                self._move_actions,
                self._move_players,
                self._move_counts,
                self._move_values,
                self._rollout_state,
                self._prior_scores,
                self._stats,
            )
        )


__all__ = ["CompiledDriver", "compiled_kernel_for", "compiled_support"]
