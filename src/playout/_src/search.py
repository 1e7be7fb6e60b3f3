"""The engine: :class:`MCTS` over a driver, and :func:`search`, the one-call form.

One search (:meth:`MCTS.run`) is a loop of three calls, as in mctx's ``search``::

    while budget left and root not proven:
        count = next_chunk(...)                 # simulations until the next look at the clock
        ran = driver.simulate(count, ...)       # select, expand, evaluate, back up (driver)
        report progress
    return result_from_tree(...)                # the one result builder

A driver runs simulations on the engine's array tree (:mod:`playout._src.tree`): the Python
driver (:class:`~playout._src.python_driver.PythonDriver`) for any game, the compiled driver
(:class:`~playout._src.compiled.engine.CompiledDriver`) for games with a compiled kernel.
:func:`make_driver` is the one place that chooses. Everything else (the budget and the clock,
tree reuse on :meth:`MCTS.advance`, the final move and the result) is here, once.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar, Protocol

import numpy as np

from playout._src import symmetry
from playout._src.config import (
    UNLIMITED,
    Backend,
    Budget,
    FinalChoice,
    SearchConfig,
    make_config,
)
from playout._src.errors import (
    GameError,
    GameOverError,
    IllegalMoveError,
    InvalidParameterError,
    PlayoutWarning,
)
from playout._src.evaluation import is_count
from playout._src.game import GameState
from playout._src.results import (
    Proven,
    SearchResult,
    StopReason,
    TreeNode,
    export_tree,
    result_from_tree,
)
from playout._src.rules import ProgressiveBias
from playout._src.tree import final_move, subtree
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state

ProgressCallback = Callable[[int], None]
"""Called now and then during a search with the number of simulations done so far."""

_FIRST_TIMED_CHUNK = 64
"""Simulations before the first look at the clock under a time limit."""
_TIMED_CHUNK_SECONDS = 0.005
"""Seconds of simulations between looks at the clock (sized from the measured rate)."""
_MIN_SETTLE_CHUNK = 16
"""The fewest simulations between two looks at the root under ``Budget(stop_early=True)``."""
STOPPABLE_CHUNK = 4096
"""Simulations between two questions to a ``stop`` callable, at most."""
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
"""The actions a tree's edges can hold."""


class Driver(Protocol):
    """Runs simulations on a tree: the plug point for a new kind of search.

    A driver owns the tree arrays and whatever it keeps per node (Python states, compact
    states); the engine reads the tree to build results and asks the driver to reset or keep
    a subtree when the root moves.
    """

    backend: ClassVar[str]
    """Its name: ``"python"`` or ``"compiled"``."""
    max_chunk: ClassVar[int]
    """The most simulations one :meth:`simulate` call may be asked for."""
    max_depth_seen: int
    """The deepest edge count below the root a simulation reached since the root was set."""

    @property
    def tree(self) -> T.Tree: ...

    @property
    def root_state(self) -> GameState: ...

    def reset(self, state: GameState) -> None:
        """Start a new tree with ``state`` at its (expanded) root."""

    def keep_subtree(self, child: int, state: GameState) -> bool:
        """Make node ``child`` (position ``state``) the root, keeping its subtree; ``False``
        if this driver cannot (the engine then calls :meth:`reset`)."""

    def simulate(self, count: int, *, max_depth: int, max_nodes: int, deadline: float) -> int:
        """Run up to ``count`` simulations (fewer if the root gets proven, the tree reaches
        ``max_nodes`` or ``deadline`` in ``time.perf_counter`` seconds passes, or the driver
        works in smaller chunks: the engine asks again while budget is left, and stops when
        none ran); how many ran."""

    @property
    def state_bytes(self) -> int:
        """Bytes of per-node data the driver keeps beside the tree."""

    def reserve(self, simulations: int) -> None:
        """Make room for ``simulations`` more simulations now (one growth of the arrays
        while the tree is small, instead of several later)."""

    def node_bytes_bound(self) -> int:
        """Bytes one more node of the tree can take at most (for the memory bound)."""


def bytes_in_use(driver: Driver) -> int:
    """Bytes of the rows ``driver``'s tree uses now: every node's rows and per-node data
    (:attr:`Driver.state_bytes`), and every edge row made so far (a lazily expanded tree has
    far fewer edges than nodes times actions)."""
    tree = driver.tree
    return int(
        tree.num_nodes * (tree.node_row_bytes + driver.state_bytes)
        + tree.num_edges * tree.edge_row_bytes
    )


def memory_node_limit(driver: Driver, memory_limit: int) -> int:
    """The node count ``driver``'s tree may grow to under ``memory_limit`` bytes, as known
    now: the nodes it has, plus as many more as fit in the room left at the bound for one
    new node (:meth:`Driver.node_bytes_bound`, all its edges). The tree's arrays double as
    they grow (both copies live for a moment), so the rows in use stay within half the
    limit. Asked again as the tree grows, the answer rises while nodes come in under the
    bound (most nodes of a lazily expanded tree never get edges) and converges on the
    limit."""
    room = memory_limit // 2 - bytes_in_use(driver)
    return max(2, driver.tree.num_nodes + max(0, room) // driver.node_bytes_bound())


def derive_seeds(seed: int | None) -> tuple[np.ndarray, random.Random]:
    """The compiled phases' generator state and the Python generator for ``seed`` (drawn
    from the operating system when ``None``)."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    sequence = np.random.SeedSequence(int(seed))
    tree_seed, python_seed = sequence.spawn(2)
    rng_state = new_rng_state(int(tree_seed.generate_state(1)[0]))
    return rng_state, random.Random(int(python_seed.generate_state(2, dtype=np.uint64)[0]))


def make_driver(
    state: GameState, config: SearchConfig, rng_state: np.ndarray, rng: random.Random
) -> Driver:
    """The driver for ``config.backend``: ``"auto"`` picks the compiled driver when the game
    has a compiled kernel and the configuration allows it, else the Python driver (open loop,
    :class:`~playout._src.open_loop.OpenLoopDriver`, when a non-deterministic game's states
    are recomputed: hidden chance); an evaluator that values batches (a network) gets the
    batched driver, a Gumbel search (``config.gumbel``) the Gumbel driver
    (:mod:`playout._src.gumbel_driver`).

    Raises:
        InvalidParameterError: ``backend="compiled"`` and the compiled driver cannot run this
            search (the message says why).
    """
    from playout._src.compiled.engine import CompiledDriver, compiled_support
    from playout._src.evaluation import BatchEvaluator, Rollout

    if config.tree_threads is not None:
        from playout._src.compiled.shared import SharedTreeDriver

        kernel, reason = compiled_support(state, config)
        if config.backend == "python" or kernel is None:
            reason = "backend='python'" if kernel is not None else reason
            raise InvalidParameterError(
                f"tree_threads (a shared tree) needs the compiled driver: {reason}"
            )
        return SharedTreeDriver(state, config, rng_state, rng, kernel, config.tree_threads)
    if config.gumbel is not None:
        from playout._src.gumbel_driver import GumbelDriver

        return GumbelDriver(state, config, rng_state, rng)
    evaluator = config.evaluator
    # isinstance() on a runtime-checkable protocol is slow (tens of microseconds a search):
    # the common evaluators skip it.
    if (
        evaluator is not None
        and type(evaluator) is not Rollout
        and isinstance(evaluator, BatchEvaluator)
    ):
        from playout._src.batched_driver import BatchedDriver

        if config.backend == "compiled":
            raise InvalidParameterError(
                "backend='compiled' cannot run this search: a batch evaluator (a network) "
                "runs on the batched driver"
            )
        return BatchedDriver(state, config, rng_state, rng)
    if config.backend != "python":
        kernel, reason = compiled_support(state, config)
        if kernel is not None:
            return CompiledDriver(state, config, rng_state, rng, kernel)
        if config.backend == "compiled":
            raise InvalidParameterError(f"backend='compiled' cannot run this search: {reason}")
    if not config.store_states and not state.game.spec.is_deterministic:
        from playout._src.open_loop import OpenLoopDriver

        return OpenLoopDriver(state, config, rng_state, rng)
    from playout._src.python_driver import PythonDriver

    return PythonDriver(state, config, rng_state, rng)


def check_state(state: Any) -> None:
    """Raise :class:`~playout.GameError` unless ``state`` follows the game protocol."""
    missing = [
        name
        for name in ("current_player", "legal_actions", "play", "is_terminal", "returns", "game")
        if not hasattr(state, name)
    ]
    if missing:
        raise GameError(
            f"{type(state).__name__} is not a playout game state: missing {', '.join(missing)}"
            " (wrap a seed-style game with playout.games.from_seed_state)"
        )
    if getattr(state.game, "spec", None) is None:
        raise GameError(f"{type(state).__name__}.game has no spec (a playout.GameSpec)")


class MCTS:
    """Monte Carlo Tree Search over a game given by its current state.

    The search keeps its tree between calls: :meth:`run` adds simulations, :meth:`advance`
    moves the root to the position after an action (by either side) and keeps that subtree,
    :meth:`decide` runs and returns the chosen action (seed 000's API).

    Args:
        state: the position to search from (never modified).
        config: every setting of the search (:class:`~playout.SearchConfig`; defaults when
            ``None``).
        **options: shortcuts that replace fields of ``config``: any :class:`SearchConfig`
            field (``selection``, ``evaluator``, ``solver``, ``final``, ``temperature``,
            ``budget``, ``reuse``, ``store_states``, ``seed``, ``backend``, ``symmetry``,
            ``transpositions``) or a
            :class:`~playout.Budget` field (``simulations``, ``seconds``, ``max_nodes``,
            ``max_depth``).

    Raises:
        GameError: ``state`` does not follow the game protocol.
        InvalidParameterError: a bad option, or a backend that cannot run this search.
    """

    def __init__(self, state: GameState, config: SearchConfig | None = None, **options: Any):
        check_state(state)
        self._config = make_config(config, **options).for_game(state.game)
        self._spec = state.game.spec
        self._rng_state, rng = derive_seeds(self._config.seed)
        self._driver = make_driver(state, self._config, self._rng_state, rng)
        self._classes: symmetry.RootClasses | None = None
        # A merged class's prior: the sum of its members' (a policy) or, for progressive
        # bias, their mean (a move score).
        self._sum_priors = not isinstance(self._config.selection, ProgressiveBias)
        self._merge_root_classes()

    # ----------------------------------------------------------------------------- views

    @property
    def config(self) -> SearchConfig:
        """The configuration in use (with the game's recommendations filled in)."""
        return self._config

    @property
    def budget(self) -> Budget:
        """The default limits of :meth:`run`."""
        return self._config.budget

    @property
    def backend(self) -> str:
        """The driver running the simulations: ``"python"`` or ``"compiled"``."""
        return self._driver.backend

    @property
    def driver(self) -> Driver:
        """The driver (its tree and per-node data; read-only use)."""
        return self._driver

    @property
    def root_state(self) -> GameState:
        """The position at the root of the tree."""
        return self._driver.root_state

    @property
    def tree(self) -> T.Tree:
        """The search tree's arrays (read-only use; see :mod:`playout._src.tree.layout`)."""
        return self._driver.tree

    @property
    def root_classes(self) -> symmetry.RootClasses | None:
        """The classes of symmetric root moves searched as one (``symmetry=True``), or
        ``None`` when each root move is its own class."""
        return self._classes

    @property
    def transpositions(self) -> Any:
        """The transposition table (:class:`playout._src.transpositions.TranspositionTable`),
        or ``None`` when ``transpositions`` is off."""
        return getattr(self._driver, "transpositions", None)

    @property
    def amaf(self) -> Any:
        """RAVE's AMAF statistics (:class:`playout._src.rave.AmafTable`), or ``None`` when
        the selection rule is not RAVE."""
        return getattr(self._driver, "amaf", None)

    def bytes_per_node(self) -> float:
        """Bytes per node in use: node rows, edge rows per node, and the driver's per-node
        state (the compiled driver's compact state; an estimate for Python state objects)."""
        return self.tree.bytes_per_node(self._driver.state_bytes)

    # ----------------------------------------------------------------------------- search

    def run(
        self,
        budget: Budget | None = None,
        *,
        progress: ProgressCallback | bool | None = None,
        progress_every: int = 100,
        stop: Callable[[], bool] | None = None,
    ) -> SearchResult:
        """Run simulations on the current tree until the budget is used; the result.

        Args:
            budget: limits for this call (default: the configuration's).
            progress: a callable, called with the number of simulations done every
                ``progress_every`` simulations and once more at the end; or ``True`` for a
                progress bar on the terminal (seed 000's ``trange``).
            progress_every: simulations between progress reports.
            stop: asked between chunks of simulations (at most
                :data:`STOPPABLE_CHUNK` simulations, or a few milliseconds under a time
                limit): ``True`` ends the search there (``stop_reason`` ``"stopped"``). For a
                stop button, or another thread ending a parallel search.

        Raises:
            GameOverError: the root position is terminal.
            InvalidParameterError: ``budget`` is not a :class:`~playout.Budget` (or breaks
                the configuration's limits), ``progress`` is neither a switch nor a
                callable, or ``progress_every`` is not a whole number >= 1.
        """
        budget = self._config.budget if budget is None else budget
        if not isinstance(budget, Budget):
            raise InvalidParameterError(f"budget must be a playout.Budget, got {budget!r}")
        if self.root_state.is_terminal():
            raise GameOverError("the game is over: there is nothing to search")
        if not is_count(progress_every) or progress_every < 1:
            raise InvalidParameterError(
                f"progress_every must be a whole number >= 1, got {progress_every!r}"
            )
        if not (progress is None or isinstance(progress, bool) or callable(progress)):
            raise InvalidParameterError(
                f"progress must be True, False, None or a callable, got {progress!r}"
            )
        if progress is True:
            with _progress_bar(budget) as bar:
                return self.run(budget, progress=bar, progress_every=progress_every, stop=stop)
        report = progress if callable(progress) else None
        self._config.check_budget(budget)
        begin_search = getattr(self._driver, "begin_search", None)
        if begin_search is not None:  # a Gumbel search: a round of this run's simulations
            begin_search(budget.simulation_limit)
        start = time.perf_counter()
        deadline = math.inf if budget.seconds is None else start + budget.seconds
        driver = self._driver
        limit, max_depth = budget.simulation_limit, budget.depth_limit
        memory_nodes = memory_node_limit(driver, budget.memory_limit)
        max_nodes = min(budget.node_limit, memory_nodes)
        timed = budget.seconds is not None
        chunk = _FIRST_TIMED_CHUNK if timed else limit
        if stop is not None:
            chunk = min(chunk, STOPPABLE_CHUNK)
        done = 0
        stopped = decided = False
        reserved = False
        # Simulations before stop_early can first hold (see below): a first look soon.
        settle_chunk = _MIN_SETTLE_CHUNK if budget.stop_early else limit
        # Under a time limit, stop_early's rate is measured from the end of the first chunk:
        # that one carries the warm-up (compiling, first allocations), which would make the
        # simulations left look fewer than they are.
        rate_done, rate_clock = 0, start
        while done < limit and driver.tree.num_nodes < max_nodes and not self._is_solved():
            now = time.perf_counter()
            if timed and now >= deadline:
                break
            if stop is not None and stop():
                stopped = True
                break
            if budget.stop_early and done > 0 and not (timed and done == rate_done):
                left = limit - done
                if timed:  # what the rate since the first chunk would run in the time left
                    rate = (done - rate_done) / max(now - rate_clock, 1e-9)
                    left = int(min(left, rate * (deadline - now)))  # no int() of infinity
                lead = root_lead(driver.tree)
                if lead > left:
                    decided = True
                    break
                # Each simulation adds at most one to the lead and takes one from what is
                # left: the lead cannot pass it in fewer simulations than this.
                settle_chunk = max(_MIN_SETTLE_CHUNK, (left - lead) // 2 + 1)
            wanted = min(
                limit - done,
                chunk,
                settle_chunk,
                driver.max_chunk,
                max_nodes - driver.tree.num_nodes,
            )
            if report is not None:
                wanted = min(wanted, progress_every - done % progress_every)
            ran = driver.simulate(
                wanted, max_depth=max_depth, max_nodes=max_nodes, deadline=deadline
            )
            if ran == 0:
                break  # proven, full or out of time: the loop conditions say which
            done += ran
            if memory_nodes < budget.node_limit:
                memory_nodes = memory_node_limit(driver, budget.memory_limit)
                max_nodes = min(budget.node_limit, memory_nodes)
            if report is not None and done % progress_every == 0:
                report(done)
            if timed:
                elapsed = time.perf_counter() - now
                if not reserved and elapsed > 0:
                    # Size the arrays for the whole time limit at the rate just measured, so
                    # that no growth (a copy of the whole tree) falls near the deadline.
                    # In floats first: a time limit of 1e308 s would overflow int().
                    expected = min(
                        2 * ran * (deadline - time.perf_counter()) / elapsed,
                        limit - done,
                        max_nodes - driver.tree.num_nodes,
                    )
                    if 0 < expected < math.inf:
                        driver.reserve(int(expected))
                    reserved = True
                chunk = _next_timed_chunk(ran, elapsed, deadline)
                if stop is not None:
                    chunk = min(chunk, STOPPABLE_CHUNK)
                if rate_done == 0:
                    rate_done, rate_clock = done, time.perf_counter()
        if report is not None and done % progress_every != 0:
            report(done)
        reason: StopReason = (
            "stopped"
            if stopped
            else "decided"
            if decided
            else self._stop_reason(done, limit, budget.node_limit, memory_nodes)
        )
        if reason == "memory":
            warnings.warn(
                f"the search stopped at its memory bound ({budget.memory_limit / 2**20:.3g} MiB,"
                f" {driver.tree.num_nodes} nodes) after {done} simulations; raise the bound "
                "(Budget(max_memory=...), --max-memory on the command line) or search less",
                PlayoutWarning,
                stacklevel=2,
            )
        return self._result(done, time.perf_counter() - start, reason)

    def _stop_reason(self, done: int, limit: int, node_limit: int, memory_nodes: int) -> StopReason:
        """Why :meth:`run` stopped after ``done`` simulations."""
        if self._is_solved():
            return "proven"
        if done >= limit:
            return "simulations"
        num_nodes = self._driver.tree.num_nodes
        if num_nodes >= node_limit:
            return "max_nodes"
        if num_nodes >= memory_nodes:
            return "memory"
        return "time"

    def _is_solved(self) -> bool:
        return bool(self._driver.tree.nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN)

    def result(self) -> SearchResult:
        """The statistics at the root now (no new simulations)."""
        return self._result(0, 0.0)

    def _result(
        self, simulations: int, seconds: float, stop_reason: StopReason = ""
    ) -> SearchResult:
        result = result_from_tree(
            self._driver.tree,
            self._spec,
            final=self._config.final,
            temperature=self._config.temperature,
            rng_state=self._rng_state,
            simulations=simulations,
            seconds=seconds,
            max_depth=self._driver.max_depth_seen,
            stop_reason=stop_reason,
        )
        if self._config.gumbel is not None:
            result = self._gumbel_result(result)
        if self._classes is not None:
            result = symmetry.expand_result(
                result,
                self._classes,
                sample=self._config.final == "sample",
                rng_state=self._rng_state,
                sum_priors=self._sum_priors,
            )
        return result

    def _gumbel_result(self, result: SearchResult) -> SearchResult:
        """``result`` with a Gumbel search's move, improved policy and value (unless the
        solver proved the root: its move and exact value then; see
        :meth:`GumbelDriver.root_summary`)."""
        from playout._src.gumbel_driver import GumbelDriver

        driver = self._driver
        assert isinstance(driver, GumbelDriver)
        summary = driver.root_summary()
        if summary is None:
            return result
        action, policy, value = summary
        if result.proven is not None:
            action, value = result.best_action, result.value
        pv = result.pv
        if not pv or pv[0] != action:
            pv = self.lines([action], max(1, len(pv)))[action]
        return dataclasses.replace(
            result,
            best_action=action,
            improved_policy=tuple(float(p) for p in policy),
            value=value,
            pv=pv,
        )

    def lines(self, actions: Iterable[int], max_length: int = 12) -> dict[int, tuple[int, ...]]:
        """The principal variation after each of ``actions`` (root moves): the action
        itself, then the most visited line below it, at most ``max_length`` actions in all.

        For front ends that show a line per candidate move (the CLI's ``pv`` is the best
        move's). A root action without a searched subtree (or, with ``symmetry``, one merged
        into another move's class) gets a line of itself alone.

        Raises:
            InvalidParameterError: an action that is not a whole number, or a ``max_length``
                that is not a whole number >= 1.
        """
        if not is_count(max_length) or max_length < 1:
            raise InvalidParameterError(
                f"max_length must be a whole number >= 1, got {max_length!r}"
            )
        try:
            actions = list(actions)
        except TypeError:
            raise InvalidParameterError(
                f"actions must be an iterable of action ids, got {actions!r}"
            ) from None
        for action in actions:
            if not is_count(action):
                raise InvalidParameterError(
                    f"an action is a whole number (an action id), got {action!r}"
                )
        tree = self._driver.tree
        nodes, edges, values = tree.nodes, tree.edges, tree.edge_values
        dummy = np.zeros(1, dtype=np.uint64)
        found: dict[int, tuple[int, ...]] = {}
        for action in actions:
            line = [int(action)]
            if not _INT64_MIN <= int(action) <= _INT64_MAX:  # no edge holds it
                found[int(action)] = tuple(line)
                continue
            edge = int(subtree.find_child_edge(nodes, edges, T.ROOT, int(action)))
            node = int(edges[edge, T.E_CHILD]) if edge != T.NO_EDGE else T.UNVISITED
            while node != T.UNVISITED and len(line) < max_length and nodes[node, T.N_NUM_EDGES] > 0:
                e = int(
                    final_move.choose_edge(
                        nodes, edges, values, node, final_move.FINAL_MOST_VISITS, 1.0, dummy
                    )
                )
                if edges[e, T.E_VISITS] == 0:
                    break
                line.append(int(edges[e, T.E_ACTION]))
                node = int(edges[e, T.E_CHILD])
            found[int(action)] = tuple(line)
        return found

    def export_tree(self, depth: int = 2, width: int = 5) -> TreeNode:
        """The top of the search tree as immutable nested :class:`~playout.TreeNode` values:
        ``depth`` moves deep, the ``width`` most visited moves of each node, with visits,
        values for the player to move at each node, and the solver's proofs (read only;
        ``playout analyze --tree``). With ``symmetry`` the root shows the moves searched
        (one per class of equivalent moves).

        Raises:
            InvalidParameterError: a bad ``depth`` or ``width``.
        """
        return export_tree(self._driver.tree, depth=depth, width=width)

    # ----------------------------------------------------------------------------- moves

    def advance(self, action: int) -> None:
        """Move the root to the position after ``action`` (played by either side).

        With ``reuse`` on (the default) the subtree below the action is kept (seed 000's
        ``transition``).

        Raises:
            IllegalMoveError: ``action`` is not a legal action id at the root.
        """
        state = self.root_state
        legal = () if state.is_terminal() else state.legal_actions()
        if (
            isinstance(action, bool)
            or not isinstance(action, int | np.integer)
            or int(action) not in set(legal)
        ):
            raise IllegalMoveError(
                f"action {action!r} is not legal in this position (legal action ids: "
                f"{', '.join(map(str, legal)) or 'none'})"
            )
        action = int(action)
        next_state = state.play(action)
        if not (self._config.reuse and self._keep_subtree(state, action, next_state)):
            self._driver.reset(next_state)
        self._merge_root_classes()

    def _keep_subtree(self, state: GameState, action: int, next_state: GameState) -> bool:
        """Make the subtree below ``action`` the tree; ``False`` if there is none or the
        driver cannot keep it.

        With root symmetry merging, ``action`` may be a member of a class whose
        representative ``rep`` was searched: the subtree below ``rep`` is then kept mapped by
        the symmetry that takes ``rep`` to ``action`` (drivers with ``keep_image_subtree``;
        the others start afresh). Before the subtree becomes the tree, its root's edges are
        merged into the classes of its position.
        """
        tree = self._driver.tree
        source, index = action, 0
        edge = int(subtree.find_child_edge(tree.nodes, tree.edges, T.ROOT, action))
        if edge == T.NO_EDGE and self._classes is not None:
            for member in self._classes.class_of(action):
                edge = int(subtree.find_child_edge(tree.nodes, tree.edges, T.ROOT, member))
                if edge != T.NO_EDGE:
                    source, index = member, self._classes.mapping(member, action)
                    break
        child = int(tree.edges[edge, T.E_CHILD]) if edge != T.NO_EDGE else T.UNVISITED
        if child == T.UNVISITED:
            return False
        keep_image = getattr(self._driver, "keep_image_subtree", None)
        if index != 0 and keep_image is None:
            return False
        preimage = next_state if index == 0 else state.play(source)
        if self._config.symmetry:
            classes = symmetry.root_classes(preimage)
            if classes is not None:
                symmetry.collapse_edges(
                    tree, child, classes, self._per_edge_rows(), sum_priors=self._sum_priors
                )
        if keep_image is None or index == 0:
            return bool(self._driver.keep_subtree(child, next_state))
        return bool(keep_image(child, next_state, preimage, index))

    def _per_edge_rows(self) -> tuple[np.ndarray, ...]:
        """Arrays a driver keeps parallel to the tree's edge rows (RAVE's AMAF rows)."""
        amaf = self.amaf
        return () if amaf is None else (amaf.visit_count, amaf.value_sum)

    def _merge_root_classes(self) -> None:
        """With ``symmetry``: find the root's classes of symmetric moves and keep one root
        edge per class (see :mod:`playout._src.symmetry`)."""
        self._classes = symmetry.root_classes(self.root_state) if self._config.symmetry else None
        if self._classes is not None:
            symmetry.collapse_edges(
                self.tree,
                T.ROOT,
                self._classes,
                self._per_edge_rows(),
                sum_priors=self._sum_priors,
            )

    transition = advance  # seed 000's name

    def decide(self, advance: bool = True, budget: Budget | None = None) -> int:
        """Run the search and return the chosen action; with ``advance`` also play it."""
        action = self.run(budget).best_action
        if advance:
            self.advance(action)
        return action


def root_lead(tree: T.Tree) -> int:
    """How many more visits the root's most-visited move has than any other that the final
    move could be (the count of simulations that could not make another move the most
    visited); a very large number for a root with one such move.

    Moves proven lost for the player to move are no candidates (:func:`choose_among` plays
    them last). 0 while the root has no edges, while the leader is proven, or while another
    move is proven a draw or a win: the solver's rule, not the visits, then decides (a proven
    draw is played instead of a leader whose mean is not above it, and the leader's mean
    still moves).
    """
    nodes, edges = tree.nodes, tree.edges
    first = int(nodes[T.ROOT, T.N_FIRST_EDGE])
    count = int(nodes[T.ROOT, T.N_NUM_EDGES])
    if count <= 0:
        return 0
    mover = int(nodes[T.ROOT, T.N_PLAYER])
    visits: list[int] = []
    for e in range(first, first + count):
        proven = int(edges[e, T.E_PROVEN])
        if proven != T.UNPROVEN:
            if final_move.outcome_for(mover, proven) != final_move.OUTCOME_LOSS:
                return 0
            continue
        visits.append(int(edges[e, T.E_VISITS]))
    if not visits:
        return 0
    if len(visits) == 1:
        return UNLIMITED
    visits.sort()
    return visits[-1] - visits[-2]


def _next_timed_chunk(ran: int, elapsed: float, deadline: float) -> int:
    """Simulations to run before the next look at the clock: about
    :data:`_TIMED_CHUNK_SECONDS` at the rate just measured, and at most half the time left."""
    rate = ran / elapsed if elapsed > 0 else 1e7
    left = deadline - time.perf_counter()
    return max(16, int(rate * min(_TIMED_CHUNK_SECONDS, left / 2)))


@contextmanager
def _progress_bar(budget: Budget) -> Iterator[ProgressCallback]:
    """A rich progress bar over the simulations of one search (seconds when only a time
    limit is given: the bar then shows simulations done, without a total)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    total = budget.simulations
    with Progress(
        TextColumn("searching"), BarColumn(), MofNCompleteColumn(), transient=True
    ) as bar:
        task = bar.add_task("search", total=total)
        yield lambda done: bar.update(task, completed=done)


def search(state: GameState, config: SearchConfig | None = None, **options: Any) -> SearchResult:
    """Search ``state`` once and return the result (values for the player to move).

    ``config`` and ``options`` are those of :class:`MCTS` (e.g. ``simulations=800, seed=0``,
    ``selection=PUCT(c=1.5)``, ``backend="python"``), plus ``progress`` (a callable or
    ``True``, see :meth:`MCTS.run`). Stops at the first limit reached; with no limit given,
    runs 1000 simulations.
    """
    progress = options.pop("progress", None)
    return MCTS(state, config, **options).run(progress=progress)


def make_engine(state: GameState, *, backend: Backend = "auto", **options: Any) -> MCTS:
    """``MCTS(state, backend=backend, **options)``: kept for code written against the
    earlier two-class engine."""
    return MCTS(state, backend=backend, **options)


__all__ = [
    "MCTS",
    "Budget",
    "Driver",
    "FinalChoice",
    "Proven",
    "SearchConfig",
    "SearchResult",
    "make_driver",
    "search",
]
