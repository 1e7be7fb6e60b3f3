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
import math
import multiprocessing
import random
import time
from typing import Any

import numpy as np

from playout._src.config import SearchConfig, make_config
from playout._src.errors import InvalidParameterError
from playout._src.game import GameState
from playout._src.processes import process_pool, sigint_ignored, stop_pool
from playout._src.results import SearchResult, merge_results
from playout._src.search import MCTS, check_state


def _search_worker(state: GameState, config: SearchConfig) -> SearchResult:
    """One worker's search (module level so that worker processes can import it)."""
    return MCTS(state, config).run()


def parallel_search(
    state: GameState,
    config: SearchConfig | None = None,
    *,
    workers: int = 2,
    executor: concurrent.futures.Executor | None = None,
    **options: Any,
) -> SearchResult:
    """Root-parallel search: ``workers`` independent searches of ``state``, merged.

    Every worker runs the full budget (``simulations`` each, or ``seconds`` of wall time
    each, in parallel) with its own seed derived from the configuration's seed. The result
    sums the root statistics of all workers (:func:`~playout._src.results.merge_results`):
    ``total_simulations`` is about ``workers * simulations``. Values are for the player to
    move at the root.

    Args:
        state: the position (must be picklable: it is sent to the workers).
        config, options: the search's configuration, as for :class:`~playout.MCTS`.
        workers: number of worker processes (1 runs in this process).
        executor: an executor to run the workers on, e.g. a ``ProcessPoolExecutor`` kept
            between moves so that its processes start (import numba, load the compiled
            code) once; by default a new pool with the ``"spawn"`` start method is made for
            the call and shut down after it.

    Raises:
        InvalidParameterError: ``workers`` < 1, or any error of the configuration.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
    check_state(state)
    config = make_config(config, **options)
    # Check the configuration here, where an error is easy to read, before starting processes.
    MCTS(state, config.replace(seed=0))
    seed = config.seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    seeds = [
        int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        for s in np.random.SeedSequence(int(seed)).spawn(workers)
    ]
    configs = [config.replace(seed=s) for s in seeds]
    start = time.perf_counter()
    if workers == 1 and executor is None:
        results = [_search_worker(state, configs[0])]
    else:
        own = executor is None
        pool = executor or process_pool(workers, multiprocessing.get_context("spawn"))
        futures: list[concurrent.futures.Future[SearchResult]] = []
        try:
            with sigint_ignored():  # workers that start now do not see a Ctrl-C
                futures = [pool.submit(_search_worker, state, c) for c in configs]
            results = [f.result() for f in futures]
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
    elapsed = time.perf_counter() - start
    return merge_results(
        results,
        final=config.final,
        temperature=config.temperature,
        seed=seed,
        seconds=elapsed if math.isfinite(elapsed) else None,
    )


__all__ = ["merge_results", "parallel_search"]
