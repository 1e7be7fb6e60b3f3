"""The compiled engine: :class:`CompiledMCTS`, kernel look-up and backend choice.

:class:`CompiledMCTS` has the interface and the semantics of :class:`~playout.MCTS` (it is a
subclass and builds its :class:`~playout.SearchResult` with the same code) but runs whole
simulations in the compiled driver (:func:`~playout._src.compiled.driver.compiled_driver`)
on the game's compiled kernel. It supports the built-in selection rules and random-rollout
evaluation; a user rule or evaluator needs the Python engine, which :func:`make_engine`
picks automatically.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from typing import Any, Literal

import numpy as np

from playout._src import tree as T
from playout._src.compiled import memory
from playout._src.compiled.connect4_kernel import connect4_kernel, wide_connect4_kernel
from playout._src.compiled.driver import STAT_FIELDS, STAT_MAX_DEPTH, compiled_driver
from playout._src.compiled.kernel import Kernel
from playout._src.compiled.mnk_kernel import MAX_SIDE as MNK_MAX_SIDE
from playout._src.compiled.mnk_kernel import mnk_kernel
from playout._src.errors import GameError, GameOverError, IllegalMoveError, InvalidParameterError
from playout._src.evaluation import Evaluator, Rollout
from playout._src.game import GameState
from playout._src.rules import SelectionRule
from playout._src.search import (
    _UNLIMITED,
    MCTS,
    Budget,
    FinalChoice,
    ProgressCallback,
    SearchResult,
)

Backend = Literal["auto", "python", "compiled"]

_MAX_RESERVED_EDGES = 1 << 24
"""Edge rows reserved at most per driver call (bounds address space on big boards)."""
_MAX_ROWS = 2**31 - 2
"""The most node or edge rows a tree with 32-bit ids may hold."""
_FIRST_TIMED_CHUNK = 64
_TIMED_CHUNK_SECONDS = 0.005


# ------------------------------------------------------------------------------ kernel look-up


@functools.lru_cache(maxsize=64)
def _mnk(width: int, height: int, k: int, name: str) -> Kernel:
    return mnk_kernel(width, height, k, name=name)


@functools.lru_cache(maxsize=64)
def _wide_connect4(width: int, height: int, k: int, name: str) -> Kernel:
    return wide_connect4_kernel(width, height, k, name=name)


@functools.lru_cache(maxsize=64)
def _connect4(width: int, height: int, k: int, name: str) -> Kernel:
    return connect4_kernel(width, height, k, name=name)


def _find_kernel(state: Any) -> tuple[Kernel | None, str]:
    """The compiled kernel of ``state``'s game, or ``None`` and the reason why not."""
    hook = getattr(state, "compiled_kernel", None)
    if callable(hook):
        kernel = hook()
        if kernel is not None and not isinstance(kernel, Kernel):
            raise InvalidParameterError(
                f"{type(state).__name__}.compiled_kernel() must return a Kernel or None"
            )
        if kernel is not None:
            return kernel, ""
        return None, f"{type(state).__name__}.compiled_kernel() returned None"
    from playout.games.connect4 import Connect4State
    from playout.games.mnk import MnkState

    if isinstance(state, MnkState):
        mnk = state.game
        if max(mnk.width, mnk.height) > MNK_MAX_SIDE:
            return None, f"m,n,k boards larger than {MNK_MAX_SIDE} run on the Python backend"
        return _mnk(mnk.width, mnk.height, mnk.k, mnk.spec.name), ""
    if isinstance(state, Connect4State):
        game = state.game
        if (game.height + 1) * game.width > 64:
            return _wide_connect4(game.width, game.height, game.k, game.spec.name), ""
        return _connect4(game.width, game.height, game.k, game.spec.name), ""
    return None, (
        f"{type(state).__name__} has no compiled kernel (built in: m,n,k games and connect "
        "four; a game of your own can offer one through a compiled_kernel() method)"
    )


def compiled_kernel_for(state: GameState) -> Kernel | None:
    """The compiled kernel of ``state``'s game, or ``None`` if it has none.

    Recognises the built-in :class:`~playout.games.MnkState` (tic-tac-toe, gomoku, any
    m,n,k up to 32x32) and :class:`~playout.games.Connect4State` (any size), and any state
    with a ``compiled_kernel()`` method returning a :class:`Kernel` (see
    ``examples/numba_nim.py``). ``kernel.encode(state)`` converts the state into the kernel's
    compact state array.
    """
    return _find_kernel(state)[0]


def _num_rollouts(evaluator: Evaluator | None) -> tuple[int, str]:
    """Rollouts per leaf for ``evaluator``, or 0 and why the compiled driver cannot run it."""
    if evaluator is None:
        return 1, ""
    if type(evaluator) is Rollout:
        if evaluator.policy is not None:
            return 0, "a custom rollout policy runs in Python"
        if evaluator.max_depth is not None or evaluator.heuristic is not None:
            return 0, "cut-off rollouts (max_depth / heuristic) run in Python"
        return int(evaluator.num_rollouts), ""
    return 0, f"the evaluator {type(evaluator).__name__} runs in Python"


def _selection_problem(selection: SelectionRule | None) -> str:
    if selection is None or hasattr(selection, "compiled"):
        return ""
    name = type(selection).__name__
    return (
        f"the selection rule {name} runs on the Python driver "
        "(UCB1, PUCT and epsilon-greedy are compiled)"
    )


# ------------------------------------------------------------------------------ the engine


class CompiledMCTS(MCTS):
    """:class:`~playout.MCTS` with every simulation compiled: same interface, same results.

    Selection, expansion and backup are the shared compiled phase functions of
    :mod:`playout._src.tree`; the game is its :class:`Kernel` (found with
    :func:`compiled_kernel_for` unless given) and every tree node keeps its compact state in a
    row of a ``uint64[nodes, state_size]`` array. Values follow :mod:`playout._src.game`.

    Args:
        state: the position to search from (a Python game state; never modified).
        selection: a built-in rule (:class:`~playout.UCB1` with c = sqrt(2) by default,
            :class:`~playout.PUCT` with uniform priors, :class:`~playout.EpsilonGreedy`).
        evaluator: ``None`` (one uniformly random rollout per leaf) or
            ``Rollout(num_rollouts=n)`` (the mean of n random rollouts).
        budget, final, temperature, seed, reuse, solver: as for :class:`~playout.MCTS`
            (the MCTS-Solver is on by default, as there). A seed
            reproduces a search exactly for a given simulation budget (the compiled engine
            draws its random numbers differently from the Python engine, so the two agree in
            distribution, not move by move).
        store_states: accepted for compatibility; compact states are always stored.
        kernel: the game's kernel (default: ``compiled_kernel_for(state)``).

    Raises:
        InvalidParameterError: the game has no kernel, or an option needs the Python engine.
    """

    def __init__(
        self,
        state: GameState,
        *,
        selection: SelectionRule | None = None,
        evaluator: Evaluator | None = None,
        budget: Budget | None = None,
        final: FinalChoice = "most_visits",
        temperature: float = 1.0,
        seed: int | None = None,
        store_states: bool = True,
        reuse: bool = True,
        solver: bool | None = None,
        kernel: Kernel | None = None,
    ) -> None:
        if kernel is None:
            kernel, reason = _find_kernel(state)
            if kernel is None:
                raise InvalidParameterError(f"no compiled kernel: {reason}")
        if not isinstance(kernel, Kernel):
            raise InvalidParameterError(f"kernel must be a playout Kernel, got {kernel!r}")
        if kernel.encode is None:
            raise InvalidParameterError(
                f"kernel {kernel.name!r} has no encode() to convert a Python state"
            )
        num_rollouts, reason = _num_rollouts(evaluator)
        reason = reason or _selection_problem(selection)
        if reason:
            raise InvalidParameterError(
                f"the compiled engine cannot run this search: {reason} (use backend='python')"
            )
        self._kernel = kernel
        self._driver_functions = kernel.driver_functions()
        self._num_rollouts = num_rollouts
        self._actions = np.zeros(kernel.num_actions, dtype=np.int64)
        self._path = np.zeros(kernel.max_length + 2, dtype=np.int64)
        self._scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        self._stats = np.zeros(STAT_FIELDS, dtype=np.int64)
        super().__init__(
            state,
            selection=selection,
            evaluator=evaluator,
            budget=budget,
            final=final,
            temperature=temperature,
            seed=seed,
            store_states=True,
            reuse=reuse,
            solver=solver,
        )
        self._rollout_rng = T.new_rng_state(self._rng.getrandbits(63))

    @property
    def kernel(self) -> Kernel:
        """The game's compiled kernel."""
        return self._kernel

    @property
    def node_states(self) -> np.ndarray:
        """``uint64[node_capacity, state_size]``: the compact state of every tree node."""
        return self._node_states

    def bytes_per_node(self) -> float:
        """Bytes of tree storage (edges included) and compact state per node in use."""
        tree = self._tree
        num_nodes = max(1, tree.num_nodes)
        node_bytes = tree.nodes.itemsize * tree.nodes.shape[1]
        node_bytes += tree.node_values.itemsize * tree.node_values.shape[1]
        edge_bytes = tree.edges.itemsize * tree.edges.shape[1]
        edge_bytes += tree.edge_values.itemsize * tree.edge_values.shape[1]
        state_bytes = self._kernel.bytes_per_state()
        return float(node_bytes + state_bytes + edge_bytes * tree.num_edges / num_nodes)

    # ----------------------------------------------------------------------------- state

    def _reset(self, state: GameState) -> None:
        kernel = self._kernel
        assert kernel.encode is not None  # checked in __init__
        compact = np.ascontiguousarray(kernel.encode(state), dtype=np.uint64)
        if compact.shape != (kernel.state_size,):
            raise GameError(
                f"{kernel.name}: encode() returned shape {compact.shape}, expected "
                f"({kernel.state_size},)"
            )
        self._root_state = state
        self._states = []
        self._max_depth_seen = 0
        tree = memory.new_tree()
        self._replace_tree(tree, memory.POOL.take(tree.node_capacity, kernel.state_size, np.uint64))
        del tree
        self._node_states[T.ROOT] = compact
        terminal = state.is_terminal()
        T.add_node(
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
        T.expand(
            self._tree.nodes,
            self._tree.edges,
            self._tree.edge_values,
            self._tree.meta,
            T.ROOT,
            actions,
            np.zeros(0, dtype=np.float64),
        )

    def _ensure_room(self, simulations: int) -> int:
        """Grow the arrays for ``simulations`` more simulations (fewer on huge boards); how
        many simulations they now have room for."""
        max_actions = self._kernel.num_actions
        simulations = max(1, min(simulations, _MAX_RESERVED_EDGES // max_actions))
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
            memory.recycle(arrays)

    # ----------------------------------------------------------------------------- search

    def run(
        self,
        budget: Budget | None = None,
        *,
        progress: ProgressCallback | None = None,
        progress_every: int = 100,
    ) -> SearchResult:
        """Run simulations on the current tree until the budget is used; the result.

        The compiled driver runs in chunks: all simulations at once for a simulation budget,
        chunks of a few milliseconds when there is a time limit (checked between chunks), and
        ``progress_every`` simulations per chunk when ``progress`` is given.
        """
        budget = self.budget if budget is None else budget
        if self._root_state.is_terminal():
            raise GameOverError("the game is over: there is nothing to search")
        if progress_every < 1:
            raise InvalidParameterError(f"progress_every must be >= 1, got {progress_every}")
        start = time.perf_counter()
        deadline = math.inf if budget.seconds is None else start + budget.seconds
        limit = budget.simulation_limit
        max_nodes = _UNLIMITED if budget.max_nodes is None else int(budget.max_nodes)
        max_depth = _UNLIMITED if budget.max_depth is None else int(budget.max_depth)
        timed = budget.seconds is not None
        chunk = _FIRST_TIMED_CHUNK if timed else limit
        done = 0
        while done < limit and self._tree.num_nodes < max_nodes:
            now = time.perf_counter()
            if timed and now >= deadline:
                break
            if self._tree.nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN:
                break  # solved: more simulations cannot change the choice
            wanted = min(limit - done, chunk, max_nodes - self._tree.num_nodes)
            if progress is not None:
                wanted = min(wanted, progress_every - done % progress_every)
            wanted = self._ensure_room(wanted)
            ran = self._run_driver(wanted, max_depth, max_nodes)
            if ran == 0:
                break  # solved or full (the loop conditions say which)
            done += ran
            if progress is not None and ran > 0 and done % progress_every == 0:
                progress(done)
            if timed:
                elapsed = time.perf_counter() - now
                rate = ran / elapsed if elapsed > 0 else 1e7
                left = deadline - time.perf_counter()
                chunk = max(16, int(rate * min(_TIMED_CHUNK_SECONDS, left / 2)))
        if progress is not None and done % progress_every != 0:
            progress(done)
        return self._result(done, time.perf_counter() - start)

    def _run_driver(self, simulations: int, max_depth: int, max_nodes: int) -> int:
        kernel = self._kernel
        tree = self._tree
        self._stats[STAT_MAX_DEPTH] = self._max_depth_seen
        ran = compiled_driver()(
            *self._driver_functions,
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
        self._max_depth_seen = int(self._stats[STAT_MAX_DEPTH])
        return int(ran)

    # ----------------------------------------------------------------------------- moves

    def advance(self, action: int) -> None:
        """Move the root to the position after ``action`` (played by either side).

        With ``reuse=True`` the subtree below the action is kept, node states included.
        Raises :class:`~playout.IllegalMoveError` if ``action`` is not legal at the root.
        """
        state = self._root_state
        if state.is_terminal() or int(action) not in set(state.legal_actions()):
            raise IllegalMoveError(f"action {action} is not legal in this position")
        next_state = state.play(int(action))
        edge = int(T.find_child_edge(self._tree.nodes, self._tree.edges, T.ROOT, int(action)))
        child = int(self._tree.edges[edge, T.E_CHILD]) if edge != T.NO_EDGE else T.UNVISITED
        if not self._reuse or child == T.UNVISITED:
            self._reset(next_state)
            return
        new_tree, old_ids = memory.subtree(self._tree, child)
        states = memory.POOL.take(new_tree.node_capacity, self._kernel.state_size, np.uint64)
        np.take(self._node_states, old_ids, axis=0, out=states[: old_ids.shape[0]])
        self._replace_tree(new_tree, states)
        del new_tree, states
        self._root_state = next_state
        self._max_depth_seen = 0
        if self._tree.nodes[T.ROOT, T.N_NUM_EDGES] == T.UNEXPANDED:
            self._expand_root()

    transition = advance


# ------------------------------------------------------------------------------ backend choice


def make_engine(state: GameState, *, backend: Backend = "auto", **kwargs: Any) -> MCTS:
    """A search engine for ``state``: :class:`CompiledMCTS` when it can run, else
    :class:`~playout.MCTS`.

    Args:
        state: the position to search from.
        backend: ``"auto"`` (compiled when the game has a kernel and the options allow it),
            ``"python"`` (always :class:`~playout.MCTS`) or ``"compiled"`` (always
            :class:`CompiledMCTS`, or an error).
        **kwargs: the engine's keyword arguments (``selection``, ``evaluator``, ``budget``,
            ``final``, ``temperature``, ``seed``, ``store_states``, ``reuse``, ``solver``).

    Raises:
        InvalidParameterError: an unknown backend, or ``backend="compiled"`` for a game
            without a kernel or with an option that needs Python (the message says which).
    """
    if backend not in ("auto", "python", "compiled"):
        raise InvalidParameterError(
            f"backend must be 'auto', 'python' or 'compiled', got {backend!r}"
        )
    if backend == "python":
        return MCTS(state, **kwargs)
    kernel, reason = _find_kernel(state)
    if not reason:
        _, reason = _num_rollouts(kwargs.get("evaluator"))
    reason = reason or _selection_problem(kwargs.get("selection"))
    if reason:
        if backend == "compiled":
            raise InvalidParameterError(f"backend='compiled' cannot run this search: {reason}")
        return MCTS(state, **kwargs)
    return CompiledMCTS(state, kernel=kernel, **kwargs)


__all__ = [
    "Backend",
    "CompiledMCTS",
    "compiled_kernel_for",
    "make_engine",
]
