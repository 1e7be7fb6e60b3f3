"""Root-parallel search: independent searches in worker processes, root statistics merged.

Root parallelisation (Cazenave & Jouandeau 2007; Chaslot, Winands & van den Herik 2008): N
workers search the same position with different seeds and share nothing; afterwards the
visit counts and value sums of each root action are added up and the move is chosen from the
sums with the engine's final-move rule (:func:`playout._src.results.merge_results`). It needs
no locks and scales with the number of cores for the root decision, though each tree is only
as deep as one worker makes it.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from playout._src.config import Budget, SearchConfig, make_config
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import is_count
from playout._src.game import GameState
from playout._src.processes import process_pool, sigint_deferred, stop_pool
from playout._src.results import SearchResult, merge_results
from playout._src.search import MCTS, check_state


def _search_worker(state: GameState, config: SearchConfig) -> SearchResult:
    """One worker's search (module level so that worker processes can import it)."""
    return MCTS(state, config).run()


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_POOL_LOCK = threading.Lock()
_THREAD_POOL: concurrent.futures.ThreadPoolExecutor | None = None
_THREAD_POOL_SIZE = 0


def _thread_pool(size: int) -> concurrent.futures.ThreadPoolExecutor:
    """The persistent pool of search threads, with at least ``size`` threads: started once
    and kept, so that a move's parallel search starts at once."""
    global _THREAD_POOL, _THREAD_POOL_SIZE
    with _POOL_LOCK:
        if _THREAD_POOL is None or size > _THREAD_POOL_SIZE:
            old = _THREAD_POOL
            _THREAD_POOL = concurrent.futures.ThreadPoolExecutor(
                max_workers=size, thread_name_prefix="playout-search"
            )
            _THREAD_POOL_SIZE = size
            if old is not None:
                old.shutdown(wait=False)
        return _THREAD_POOL


MAX_SEARCHES = 1024
"""The most searches (threads or worker processes) :func:`parallel_search` runs at once, as
many as ``SearchConfig.tree_threads`` allows: each gets its own tree and seed, made before
any runs."""


def _count(name: str, value: object) -> int:
    if not is_count(value) or not 1 <= value <= MAX_SEARCHES:
        raise InvalidParameterError(
            f"{name} must be a whole number in [1, {MAX_SEARCHES}], got {value!r}"
        )
    return int(value)


def parallel_search(
    state: GameState,
    config: SearchConfig | None = None,
    *,
    threads: int | None = None,
    workers: int | None = None,
    executor: concurrent.futures.Executor | None = None,
    shared_tree: bool = False,
    **options: Any,
) -> SearchResult:
    """Root-parallel search: independent searches of ``state``, merged; or, with
    ``shared_tree``, tree parallelism: ``threads`` threads on one shared tree.

    Each search runs the full budget (``simulations`` each, or ``seconds`` of wall time
    each, side by side) with its own seed derived from the configuration's seed. The result
    sums the root statistics of all of them (:func:`~playout._src.results.merge_results`,
    the engine's final-move rule): ``total_simulations`` is about ``n * simulations``.
    Values are for the player to move at the root.

    Threads suit the compiled driver, which releases the GIL while it simulates: they share
    the process (no start-up, no copies) and run from a persistent pool. Processes suit the
    Python driver, whose simulations hold the GIL.

    Args:
        state: the position (picklable, for processes).
        config: the search's configuration, as for :class:`~playout.MCTS`.
        **options: keyword shortcuts for the configuration's fields, as for
            :class:`~playout.MCTS`.
        threads: searches in threads of this process. With neither ``threads`` nor
            ``workers``: one search per available CPU, in threads when the compiled driver
            runs the configuration, else in processes. The budget's memory bound is shared
            out among the searches.
        workers: searches in worker processes (1 runs in this process).
        executor: for ``workers``: an executor to run them on (e.g. a process pool kept
            between moves); by default a new ``"spawn"`` pool is made for the call.
        shared_tree: one search whose simulations ``threads`` threads (default: one per
            available CPU) run on one shared tree, lock-free with virtual loss
            (``SearchConfig.tree_threads``, :mod:`playout._src.compiled.shared`): the budget
            is the whole search's, not each thread's (``simulations`` in all, exactly), and
            the result is that tree's, with one principal variation. Compiled driver only;
            not reproducible for a seed with more than one thread.

    Raises:
        InvalidParameterError: both ``threads`` and ``workers``, a count below 1,
            ``shared_tree`` with ``workers`` or ``executor``, a Gumbel search (whose result
            is no sum of visit counts), or any error of the configuration.
    """
    if threads is not None and workers is not None:
        raise InvalidParameterError("give threads or workers, not both")
    check_state(state)
    config = make_config(config, **options)
    if config.gumbel is not None and not shared_tree:
        raise InvalidParameterError(
            "a Gumbel search cannot be merged: its move and improved policy come from one "
            "tree's sequential halving, not from summed visit counts; run it alone "
            "(playout.search or MCTS)"
        )
    if shared_tree:
        if workers is not None or executor is not None:
            raise InvalidParameterError(
                "shared_tree runs threads on one tree: give threads, not workers or executor"
            )
        count = available_cpus() if threads is None else _count("threads", threads)
        return MCTS(state, config.replace(tree_threads=count)).run()
    # Check the configuration here, where an error is easy to read, before starting anything.
    probe = MCTS(state, config.replace(seed=0))
    if threads is None and workers is None:
        if probe.backend == "compiled":
            threads = available_cpus()
        else:
            workers = available_cpus()
    del probe
    count = _count("threads", threads) if threads is not None else _count("workers", workers)
    seed = config.seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    configs = split_config(config.replace(seed=seed), count)
    if count == 1 and executor is None:
        start = time.perf_counter()
        results = [_search_worker(state, configs[0])]
        elapsed = time.perf_counter() - start
    elif threads is not None:
        results, elapsed = _in_threads([_fresh_search(state, c) for c in configs])
    else:
        results, elapsed = _in_processes(state, configs, executor)
    return merge_results(
        results,
        final=config.final,
        temperature=config.temperature,
        seed=seed,
        seconds=elapsed if math.isfinite(elapsed) else None,
    )


def _in_threads(
    searches: Sequence[Callable[[Callable[[], bool]], SearchResult]],
) -> tuple[list[SearchResult], float]:
    """The searches (each called with a ``stop`` callable for ``MCTS.run``) in the
    persistent thread pool, and their wall-clock seconds; an interrupt (or a failed search)
    stops the others within a chunk of simulations."""
    halt = threading.Event()
    pool = _thread_pool(len(searches))
    start = time.perf_counter()
    futures = [pool.submit(search, halt.is_set) for search in searches]
    try:
        # The first failure stops the others at once, whichever search it is.
        done, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_EXCEPTION)
        for future in done:
            if future.exception() is not None:
                raise future.exception()  # type: ignore[misc]
        results = [f.result() for f in futures]
    except BaseException:
        halt.set()
        concurrent.futures.wait(futures)
        raise
    return results, time.perf_counter() - start


def _fresh_search(
    state: GameState, config: SearchConfig
) -> Callable[[Callable[[], bool]], SearchResult]:
    """A new engine's search of ``state`` for :func:`_in_threads`."""
    return lambda stop: MCTS(state, config).run(stop=stop)


def spawn_seeds(seed: int, count: int) -> list[int]:
    """``count`` independent seeds (non-negative 63-bit) derived from ``seed``
    (:class:`numpy.random.SeedSequence`'s spawning), one per parallel search.

    Raises:
        InvalidParameterError: a negative ``seed``.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    return [
        int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        for s in np.random.SeedSequence(int(seed)).spawn(count)
    ]


def split_config(config: SearchConfig, count: int) -> list[SearchConfig]:
    """The configurations of ``count`` parallel searches of ``config``: seeds spawned from
    its seed (a fresh one when it has none), and the memory bound, which is the whole
    search's, shared out."""
    seed = random.SystemRandom().randrange(2**63) if config.seed is None else config.seed
    share = max(1, config.budget.memory_limit // count)
    return [config.replace(seed=s, max_memory=share) for s in spawn_seeds(seed, count)]


class RootParallel:
    """Root-parallel search that keeps its trees between moves.

    ``engines`` (:class:`~playout.MCTS` engines of one position, seeded differently) search
    side by side in threads at each :meth:`run`, and their root statistics are merged
    (:func:`~playout._src.results.merge_results`, the first engine's final-move rule);
    :meth:`advance` moves every tree to the played move's subtree, so that each keeps what it
    learned, where :func:`parallel_search` starts afresh each call. Each engine runs the whole
    budget (``seconds`` side by side, or ``simulations`` each) but for the memory bound, which
    is shared out. The engine interface the arena's players and the GTP engine use
    (``root_state``, ``config``, ``run``, ``result``, ``advance``).

    Args:
        engines: two or more engines on the compiled driver, all at the same position.

    Raises:
        InvalidParameterError: fewer than two engines, engines at different positions, or one
            on the Python driver (its simulations hold the GIL: threads would take turns).
    """

    def __init__(self, engines: Sequence[MCTS]) -> None:
        if len(engines) < 2:
            raise InvalidParameterError("RootParallel needs at least two engines")
        for engine in engines:
            require_compiled(engine)
            if engine.root_state != engines[0].root_state:
                raise InvalidParameterError("RootParallel's engines must share one position")
        self.engines = list(engines)
        seed = self.config.seed
        # The merge's draws (final="sample") follow one seed, a fresh one when none is given.
        self._seed = random.SystemRandom().randrange(2**62) if seed is None else seed
        self._moves = 0

    @property
    def root_state(self) -> GameState:
        """The position at the root of every tree."""
        return self.engines[0].root_state

    @property
    def config(self) -> SearchConfig:
        """The first engine's configuration."""
        return self.engines[0].config

    def run(
        self, budget: Budget | None = None, *, stop: Callable[[], bool] | None = None
    ) -> SearchResult:
        """Every engine's search with ``budget``, merged; ``simulations`` and
        ``total_simulations`` of the result count all of them.

        Args:
            budget: limits for each engine's search, its memory bound shared out among them
                (default: each engine's own budget).
            stop: asked between chunks of simulations, from the engines' threads at once:
                ``True`` ends every search.
        """
        if budget is not None:  # the bound is the whole search's: each tree gets its share
            share = max(1, budget.memory_limit // len(self.engines))
            budget = dataclasses.replace(budget, max_memory=share)

        def search(engine: MCTS) -> Callable[[Callable[[], bool]], SearchResult]:
            def run_one(halt: Callable[[], bool]) -> SearchResult:
                ended = halt if stop is None else lambda: halt() or stop()
                return engine.run(budget, stop=ended)

            return run_one

        results, elapsed = _in_threads([search(engine) for engine in self.engines])
        self._moves += 1
        return self._merged(results, elapsed)

    def result(self) -> SearchResult:
        """The merged statistics at the root now (no new simulations)."""
        return self._merged([engine.result() for engine in self.engines], None)

    def _merged(self, results: list[SearchResult], seconds: float | None) -> SearchResult:
        config = self.config
        return merge_results(
            results,
            final=config.final,
            temperature=config.temperature,
            seed=self._seed + self._moves,
            seconds=seconds,
        )

    def advance(self, action: int) -> None:
        """Move every tree to the subtree of ``action`` (played by the player to move)."""
        for engine in self.engines:
            engine.advance(action)


def require_compiled(engine: Any) -> None:
    """Refuse an engine whose simulations hold the GIL, naming why it is not compiled.

    Raises:
        InvalidParameterError: ``engine`` does not run on the compiled driver.
    """
    if getattr(engine, "backend", None) == "compiled":
        return
    from playout._src.compiled.engine import compiled_support

    reason = "the engine is not playout's MCTS"
    if isinstance(engine, MCTS):
        reason = compiled_support(engine.root_state, engine.config)[1] or "backend='python'"
    raise InvalidParameterError(
        f"threads > 1 needs the compiled driver (it releases the GIL while it simulates), "
        f"and this search runs on the Python driver ({reason}): use one thread"
    )


def _warm_up(state: GameState, config: SearchConfig) -> int:
    """A worker's first task: import the engine and load its compiled code with a search of
    a few simulations, so that the searches that follow start at once. Its process id."""
    MCTS(state, config.replace(simulations=8, seconds=None)).run()
    time.sleep(0.05)  # hold this worker so that the next warm-up goes to another
    return os.getpid()


def _in_processes(
    state: GameState,
    configs: list[SearchConfig],
    executor: concurrent.futures.Executor | None,
) -> tuple[list[SearchResult], float]:
    """The searches in worker processes, and their wall-clock seconds, counted once the
    workers are up (started and warmed before the clock starts, so that a time limit is the
    search's); an interrupt or a failure stops them all."""
    own = executor is None
    pool = executor or process_pool(len(configs), multiprocessing.get_context("spawn"))
    futures: list[concurrent.futures.Future[Any]] = []
    try:
        with sigint_deferred():  # a Ctrl-C now reaches this process, not starting workers
            futures = [pool.submit(_warm_up, state, c) for c in configs]
        concurrent.futures.wait(futures)
        start = time.perf_counter()
        futures = [pool.submit(_search_worker, state, c) for c in configs]
        results = [f.result() for f in futures]
        elapsed = time.perf_counter() - start
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM) or a worker failed: stop the others now instead of
        # waiting for searches that may run for hours.
        for future in futures:
            future.cancel()
        if own:
            assert isinstance(pool, concurrent.futures.ProcessPoolExecutor)
            stop_pool(pool)
        raise
    if own:
        pool.shutdown()
    return results, elapsed


__all__ = [
    "RootParallel",
    "available_cpus",
    "merge_results",
    "parallel_search",
    "require_compiled",
    "spawn_seeds",
    "split_config",
]
