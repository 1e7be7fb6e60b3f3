"""Where jobs run: this process, a local process pool, or a Ray cluster.

A :class:`GameExecutor` runs a task (a module-level function) on each job of a batch and
yields the results as they finish; :func:`make_executor` builds one by name (``local``,
``pool``, ``ray``). The tasks are the callers' own: a match's games
(:func:`playout._src.arena.jobs.play_job`), self-play (:mod:`playout.zero.selfplay`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from playout._src.errors import ExecutorError, GameError, InvalidParameterError
from playout._src.optional import import_optional
from playout._src.processes import process_pool, sigint_deferred, stop_pool

ExecutorKind = Literal["local", "pool", "ray"]
"""The executors :func:`make_executor` builds by name."""


Task = Callable[[Any], Any]
"""What an executor runs for each job: a module-level function (it travels to workers by
name), such as :func:`playout._src.arena.jobs.play_job`."""


class GameExecutor(Protocol):
    """Plays batches of games somewhere (this process, a process pool, a Ray cluster)."""

    workers: int
    """How many games it plays at once (the batch size of an SPRT match)."""

    def run(self, jobs: Sequence[Any], task: Task) -> Iterator[Any]:
        """Run ``task`` (a module-level function: :func:`~playout._src.arena.jobs.play_job`
        for a match's games, self-play's own for :mod:`playout.zero.selfplay`) on every job;
        yield the results as they finish (in any order)."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


def _check_workers(workers: object) -> None:
    """Refuse a worker count that is not a whole number >= 1."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")


class LocalExecutor:
    """Plays the games one after the other in this process."""

    workers = 1

    def start(self) -> None:
        """Nothing to start."""

    def run(self, jobs: Sequence[Any], task: Task) -> Iterator[Any]:
        """Run the jobs in order; yield each result as its job ends."""
        for job in jobs:
            yield task(job)

    def close(self) -> None:
        """Nothing to release."""


class PoolExecutor:
    """Plays games in parallel in a local pool of ``workers`` processes.

    The processes come from a ``forkserver`` context (``spawn`` where there is none): no
    process is forked from a parent that may hold threads (numba, Ray). They start on the first
    batch and are reused until :meth:`close`.
    """

    def __init__(self, workers: int) -> None:
        _check_workers(workers)
        self.workers = workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _started_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        """The process pool, started on first use."""
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in methods else "spawn"
            )
            self._pool = process_pool(self.workers, context)
        return self._pool

    def start(self) -> None:
        """Make the pool (its processes start with the first batch)."""
        self._started_pool()

    def run(self, jobs: Sequence[Any], task: Task) -> Iterator[Any]:
        """Run the jobs in the pool; yield the results as jobs finish.

        Raises:
            GameError: a worker process died.
        """
        pool = self._started_pool()
        with sigint_deferred():  # a Ctrl-C now reaches this process, not starting workers
            futures = [pool.submit(task, job) for job in jobs]
        try:
            for future in concurrent.futures.as_completed(futures):
                try:
                    record = future.result()
                except concurrent.futures.process.BrokenProcessPool:
                    raise GameError(
                        "a worker process died (out of memory, or killed); "
                        "try fewer workers or --workers 1"
                    ) from None
                yield record
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        """Shut the pool down (a later batch starts a new one)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def terminate(self) -> None:
        """Stop now: cancel the games not started, terminate the workers playing (an
        interrupt, or an error that ends the match)."""
        if self._pool is not None:
            stop_pool(self._pool)
            self._pool = None


def _import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        MissingDependencyError: Ray is not installed (``playout[ray]``).
    """
    return import_optional("ray", extra="ray", needed_by="the Ray executor")


def _package_root() -> str:
    """The directory playout is imported from (put on local Ray workers' ``PYTHONPATH``):
    three levels above this file's folder (``playout/_src/arena``)."""
    return str(Path(__file__).resolve().parents[3])


LOOPBACK = "127.0.0.1"
"""The address every local Ray instance playout starts listens on."""


def is_loopback_address(address: str) -> bool:
    """Whether a Ray address (``host:port``) names this machine's loopback interface."""
    host = address.rsplit(":", 1)[0].strip("[]")
    return host in ("127.0.0.1", "localhost", "::1")


@contextlib.contextmanager
def loopback_ray(ray: Any, loopback: bool = True) -> Iterator[None]:
    """Ray's own services kept on the loopback interface while the block starts or joins
    Ray (nothing changes when ``loopback`` is false).

    Ray replaces a node address of ``127.0.0.1`` with the machine's network address (it
    treats the loopback as "this machine, reachable by others"), and then its servers
    listen on every interface: anyone who can reach the machine can submit code to it. On
    Windows and macOS, where Ray runs single-machine instances, it keeps ``127.0.0.1``
    instead and its servers listen there only; this block asks Ray for that behaviour
    (``ray._private.ray_constants.ENABLE_RAY_CLUSTER``, read when Ray resolves an address).
    Once a node is up, its address is fixed: the flag is restored after the block.
    """
    if not loopback:
        yield
        return
    constants = ray._private.ray_constants
    before = constants.ENABLE_RAY_CLUSTER
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = before


def init_local_ray(ray: Any, *, num_cpus: int, **options: Any) -> None:
    """``ray.init`` of a new single-machine Ray instance that listens on 127.0.0.1 only
    (:func:`loopback_ray`; never one started on the machine before, which a plain
    ``ray.init()`` would join), without the dashboard, with this playout importable by its
    workers (its directory on their ``PYTHONPATH``) and Ray's logs kept out of the
    terminal; ``options`` go to ``ray.init``."""
    path = os.pathsep.join(p for p in (_package_root(), os.environ.get("PYTHONPATH", "")) if p)
    settings: dict[str, Any] = {
        "address": "local",  # a new instance, never one found on the machine
        "num_cpus": num_cpus,
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.WARNING,
        "runtime_env": {"env_vars": {"PYTHONPATH": path}},
        "_node_ip_address": LOOPBACK,
    }
    with loopback_ray(ray):
        ray.init(**(settings | options))


class RayExecutor:
    """Plays games as Ray tasks (one CPU each) on a Ray cluster.

    Connects on the first batch: to a running Ray (``ray.is_initialized()``) as it is, else
    ``ray.init(address=address)``, or a new local instance with ``workers`` CPUs when
    ``address`` is ``None`` (listening on 127.0.0.1 only: :func:`init_local_ray`). Every
    node needs playout installed; for a local instance the directory playout is imported
    from is put on the workers' ``PYTHONPATH``.

    Raises:
        MissingDependencyError: Ray is not installed (when the executor is built).
    """

    def __init__(self, workers: int, address: str | None = None) -> None:
        self._ray = _import_ray()
        self.workers = workers
        self._address = address
        self._remotes: dict[Task, Any] = {}
        self._started = False

    def _init_ray(self) -> None:
        """Start a local Ray instance (on the loopback only), or connect to the cluster at the
        address."""
        ray = self._ray
        if self._address is None:
            init_local_ray(ray, num_cpus=self.workers)
        else:
            try:
                with loopback_ray(ray, is_loopback_address(self._address)):
                    ray.init(
                        address=self._address, log_to_driver=False, logging_level=logging.WARNING
                    )
            except Exception as error:  # Ray raises ConnectionError, RuntimeError, ...
                first = (str(error).strip().splitlines() or [type(error).__name__])[0]
                raise ExecutorError(
                    f"cannot connect to the Ray cluster at {self._address!r}: {first}"
                ) from None
        self._started = True

    def _connect(self) -> None:
        """Connect to Ray, unless connected."""
        if not self._ray.is_initialized():
            self._init_ray()

    def _remote(self, task: Task) -> Any:
        """The remote version of ``task``, connecting to Ray on first use."""
        self._connect()
        if task not in self._remotes:
            self._remotes[task] = self._ray.remote(task)
        return self._remotes[task]

    def start(self) -> None:
        """Connect to Ray now (a failed connection raises before any file is written)."""
        self._connect()

    def run(self, jobs: Sequence[Any], task: Task) -> Iterator[Any]:
        """Run the jobs as Ray tasks; yield the results as jobs finish."""
        remote = self._remote(task)
        ray = self._ray
        pending = [remote.remote(job) for job in jobs]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        """Shut down the Ray instance this executor started (a running one is left alone)."""
        if self._started:
            self._ray.shutdown()
            self._started = False
        self._remotes = {}


def make_executor(
    kind: ExecutorKind | None = None, workers: int = 1, *, ray_address: str | None = None
) -> GameExecutor:
    """An executor by name: ``local`` (this process), ``pool`` (``workers`` processes) or
    ``ray``; ``None`` picks ``local`` for one worker and ``pool`` otherwise.

    Raises:
        InvalidParameterError: an unknown kind or a bad worker count.
        MissingDependencyError: ``ray`` without Ray installed.
    """
    _check_workers(workers)
    if kind is None:
        kind = "local" if workers == 1 else "pool"
    if kind == "local":
        return LocalExecutor()
    if kind == "pool":
        return PoolExecutor(workers)
    if kind == "ray":
        return RayExecutor(workers, ray_address)
    raise InvalidParameterError(f"unknown executor {kind!r}; choose local, pool or ray")


def start_executor(executor: GameExecutor) -> None:
    """Start ``executor``'s workers or connection where it can say so (a ``start`` method):
    a failure (no Ray cluster) then comes before any game, and before a save file is opened."""
    start = getattr(executor, "start", None)
    if callable(start):
        start()


def stop_executor(executor: GameExecutor) -> None:
    """Stop ``executor`` at once (its ``terminate`` method, else ``close``): the games in
    progress are abandoned (an interrupt, or an error that ends the match)."""
    terminate = getattr(executor, "terminate", None)
    if callable(terminate):
        terminate()
    else:
        executor.close()


@contextlib.contextmanager
def running(executor: GameExecutor, own: bool) -> Iterator[GameExecutor]:
    """``executor`` started (:func:`start_executor`) for the ``with`` block. When ``own``
    (built by :func:`resolve_executor`), it is closed on leaving the block, and stopped at
    once first when the block ends by an exception (Ctrl-C, SIGTERM, a worker that died, a
    full disk): the games in progress are abandoned rather than waited for. An executor the
    caller passed in is left running for the caller."""
    try:
        start_executor(executor)
        yield executor
    except BaseException:
        if own:
            stop_executor(executor)
        raise
    finally:
        if own:
            executor.close()


def resolve_executor(
    executor: ExecutorKind | GameExecutor | None, workers: int, ray_address: str | None
) -> tuple[GameExecutor, bool]:
    """The executor to use and whether it is ours to close (built here from a name)."""
    if executor is None or isinstance(executor, str):
        return make_executor(executor, workers, ray_address=ray_address), True
    return executor, False


__all__ = [
    "ExecutorKind",
    "GameExecutor",
    "LocalExecutor",
    "PoolExecutor",
    "RayExecutor",
    "Task",
    "init_local_ray",
    "is_loopback_address",
    "loopback_ray",
    "make_executor",
    "resolve_executor",
    "running",
    "start_executor",
    "stop_executor",
]
