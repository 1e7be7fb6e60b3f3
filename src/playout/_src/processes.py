"""Worker process pools that stop at once when the parent is interrupted.

Pools made by :func:`process_pool` have workers that ignore SIGINT: a Ctrl-C in a terminal
reaches the whole process group, and only the parent should act on it (no worker prints a
``KeyboardInterrupt`` traceback). When the parent gives up on the work (an interrupt, a
termination, any error), :func:`stop_pool` cancels what has not started and terminates the
workers still running, instead of waiting in ``shutdown`` for searches that may run for hours.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing.context
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

STOP_SECONDS = 1.0
"""How long :func:`stop_pool` waits for terminated workers before it kills them."""


def ignore_sigint() -> None:
    """Pool initializer: the worker ignores SIGINT (the parent handles Ctrl-C) and dies
    quietly on SIGTERM (the default action). A worker started inside :func:`sigint_deferred`
    holds SIGINT blocked until here; a Ctrl-C pending meanwhile is dropped with the block."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def signals_ignored(*signals: signal.Signals) -> Iterator[None]:
    """Ignore ``signals`` in this process while the block runs.

    Outside the main thread (where signal handlers cannot be changed) it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in signals}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold SIGINT back while the block runs, for starting worker processes.

    A Ctrl-C that comes meanwhile is recorded and delivered to this process when the block
    ends, rather than lost (as ignoring it would) or raised in the middle of a worker's start
    (as the usual ``KeyboardInterrupt`` would, leaving a half-made request to the forkserver).
    The signal is also blocked, so processes started meanwhile inherit the block (a signal
    mask survives ``exec``, a Python handler does not: spawned and forkserver workers start
    from a fresh interpreter) and do not see a Ctrl-C before their initializer,
    :func:`ignore_sigint`, takes over. Outside the main thread (where handlers cannot be
    changed) it does nothing.

    Start the pool (:func:`process_pool`) before the block: its constructor starts
    multiprocessing's resource tracker, whose first start unblocks SIGINT in this thread.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _: caught.append(number))
    masked = hasattr(signal, "pthread_sigmask")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masked else None
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one held back arrives now
        # None: the handler before was not set from Python; Python's own is the closest.
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
        if caught:
            signal.raise_signal(signal.SIGINT)  # to the handler of before the block


def process_pool(
    workers: int, context: multiprocessing.context.BaseContext
) -> concurrent.futures.ProcessPoolExecutor:
    """A process pool of ``workers`` processes from ``context`` whose workers ignore SIGINT.

    Submit work inside :func:`sigint_deferred` (the pool starts its processes on submit).
    """
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=ignore_sigint
    )


def stop_pool(pool: concurrent.futures.ProcessPoolExecutor, timeout: float = STOP_SECONDS) -> None:
    """Shut ``pool`` down now: cancel pending work, terminate (then kill) running workers.

    Returns once every worker has exited (at most about ``2 * timeout`` seconds).
    """
    # A second Ctrl-C (or SIGTERM) while the workers are being stopped is not acted on: the
    # first one is on its way out already.
    with signals_ignored(signal.SIGINT, signal.SIGTERM):
        _stop_pool(pool, timeout)


def _stop_pool(pool: concurrent.futures.ProcessPoolExecutor, timeout: float) -> None:
    processes: list[Any] = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.kill()
                process.join(timeout)


__all__ = [
    "STOP_SECONDS",
    "ignore_sigint",
    "process_pool",
    "sigint_deferred",
    "signals_ignored",
    "stop_pool",
]
