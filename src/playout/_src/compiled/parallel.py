"""Root-parallel search: independent searches in worker processes, root statistics merged.

Root parallelisation (Cazenave & Jouandeau 2007; Chaslot, Winands & van den Herik 2008): N
workers search the same position with different seeds and share nothing; afterwards the
visit counts and value sums of each root action are added up and the move is chosen from the
sums. It needs no locks and scales with the number of cores for the root decision, though
each tree is only as deep as one worker makes it.
"""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from playout._src.compiled.engine import Backend, make_engine
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import Evaluator
from playout._src.game import GameState
from playout._src.rules import SelectionRule
from playout._src.search import Budget, FinalChoice, SearchResult


def _search_worker(
    state: GameState, seed: int, backend: Backend, budget: Budget, options: dict[str, Any]
) -> SearchResult:
    """One worker's search (module level so that worker processes can import it)."""
    engine = make_engine(state, backend=backend, budget=budget, seed=seed, **options)
    return engine.run()


def merge_results(
    results: Sequence[SearchResult],
    *,
    final: FinalChoice = "most_visits",
    temperature: float = 1.0,
    seed: int | None = None,
    seconds: float | None = None,
) -> SearchResult:
    """One result from searches of the same position: visits and value sums added per action.

    ``values`` are the merged means (``sum of value sums / sum of visits``), ``value`` the
    visit-weighted mean over all actions, ``best_action`` follows ``final`` on the merged
    statistics (a root a worker proved keeps its proof: that worker's move is played),
    ``pv`` is the line of the worker whose first move is the merged choice and which visited
    it most, ``nodes`` the sum over workers and ``max_depth`` the largest.

    Raises:
        InvalidParameterError: no results, or results for different root actions.
    """
    if not results:
        raise InvalidParameterError("merge_results needs at least one result")
    actions = sorted(set(results[0].actions))
    for result in results[1:]:
        if sorted(set(result.actions)) != actions:
            raise InvalidParameterError("cannot merge searches of different positions")
    index = {a: i for i, a in enumerate(actions)}
    visits = np.zeros(len(actions), dtype=np.int64)
    sums = np.zeros(len(actions), dtype=np.float64)
    priors = np.zeros(len(actions), dtype=np.float64)
    for result in results:
        for a, n, q, p in zip(
            result.actions, result.visit_counts, result.values, result.priors, strict=True
        ):
            visits[index[a]] += n
            sums[index[a]] += q * n
            priors[index[a]] += p / len(results)
    means = np.divide(sums, visits, out=np.zeros(len(actions)), where=visits > 0)
    total = int(visits.sum())
    proven = [r for r in results if r.proven is not None]
    if proven:
        best_result = max(proven, key=lambda r: ("loss", "draw", "win").index(r.proven or ""))
        best_action = best_result.best_action
        proven_name = best_result.proven
    else:
        best_action = _choose(actions, visits, means, final, temperature, seed)
        proven_name = None
    with_best = [r for r in results if r.pv and r.pv[0] == best_action]
    pv = (
        max(with_best, key=lambda r: r.visit_counts[r.actions.index(best_action)]).pv
        if with_best
        else (best_action,)
    )
    return SearchResult(
        best_action=int(best_action),
        actions=tuple(actions),
        visit_counts=tuple(int(n) for n in visits),
        values=tuple(float(q) for q in means),
        priors=tuple(float(p) for p in priors),
        value=float(sums.sum() / total) if total > 0 else 0.0,
        pv=tuple(pv),
        player=results[0].player,
        simulations=sum(r.simulations for r in results),
        total_simulations=total,
        seconds=max(r.seconds for r in results) if seconds is None else seconds,
        nodes=sum(r.nodes for r in results),
        max_depth=max(r.max_depth for r in results),
        proven=proven_name,
    )


def _choose(
    actions: list[int],
    visits: np.ndarray,
    means: np.ndarray,
    final: FinalChoice,
    temperature: float,
    seed: int | None,
) -> int:
    """The final-move rule of :func:`playout._src.tree.choose_edge` on merged statistics."""
    if final == "sample":
        weights = [(n / max(visits.max(), 1)) ** (1.0 / temperature) for n in visits]
        if sum(weights) == 0:
            weights = [1.0] * len(actions)
        return random.Random(seed).choices(actions, weights=weights)[0]
    best = 0
    for i in range(1, len(actions)):
        if final == "best_value":
            better = means[i] > means[best] or (
                means[i] == means[best] and visits[i] > visits[best]
            )
            if visits[best] == 0 or (visits[i] > 0 and better):
                best = i
        elif visits[i] > visits[best] or (visits[i] == visits[best] and means[i] > means[best]):
            best = i
    return actions[best]


def parallel_search(
    state: GameState,
    *,
    workers: int = 2,
    simulations: int | None = None,
    seconds: float | None = None,
    max_nodes: int | None = None,
    max_depth: int | None = None,
    seed: int | None = None,
    selection: SelectionRule | None = None,
    evaluator: Evaluator | None = None,
    final: FinalChoice = "most_visits",
    temperature: float = 1.0,
    solver: bool | None = None,
    backend: Backend = "auto",
    executor: concurrent.futures.Executor | None = None,
) -> SearchResult:
    """Root-parallel search: ``workers`` independent searches of ``state``, merged.

    Every worker runs the full budget (``simulations`` each, or ``seconds`` of wall time
    each, in parallel) with its own seed derived from ``seed``, on the engine
    :func:`make_engine` picks for ``backend``. The result sums the root statistics of all
    workers (:func:`merge_results`): ``total_simulations`` is about ``workers *
    simulations``. Values are for the player to move at the root.

    Args:
        state: the position (must be picklable: it is sent to the workers).
        workers: number of worker processes (1 runs in this process).
        executor: an executor to run the workers on, e.g. a ``ProcessPoolExecutor`` kept
            between moves so that its processes start (import numba, load the compiled
            code) once; by default a new pool with the ``"spawn"`` start method is made for
            the call and shut down after it.
        other arguments: as for :func:`playout.search`.

    Raises:
        InvalidParameterError: ``workers`` < 1, or any error of the engine's arguments.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
    budget = Budget(
        simulations=simulations, seconds=seconds, max_nodes=max_nodes, max_depth=max_depth
    )
    options: dict[str, Any] = {
        "selection": selection,
        "evaluator": evaluator,
        "final": final,
        "temperature": temperature,
        "solver": solver,
    }
    # Check the arguments here, where an error is easy to read, before starting processes.
    make_engine(state, backend=backend, budget=budget, seed=0, **options)
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    seeds = [
        int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        for s in np.random.SeedSequence(int(seed)).spawn(workers)
    ]
    start = time.perf_counter()
    if workers == 1 and executor is None:
        results = [_search_worker(state, seeds[0], backend, budget, options)]
    else:
        own = executor is None
        pool = executor or concurrent.futures.ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn")
        )
        try:
            futures = [
                pool.submit(_search_worker, state, s, backend, budget, options) for s in seeds
            ]
            results = [f.result() for f in futures]
        finally:
            if own:
                pool.shutdown()
    elapsed = time.perf_counter() - start
    merged = merge_results(
        results,
        final=final,
        temperature=temperature,
        seed=seed,
        seconds=elapsed if math.isfinite(elapsed) else None,
    )
    return merged


__all__ = ["merge_results", "parallel_search"]
