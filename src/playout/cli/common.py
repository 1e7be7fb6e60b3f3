"""Constants and output helpers shared by the ``playout`` commands."""

from __future__ import annotations

import os
import sys

PROG = "playout"
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C (SIGINT): 128 + 2."""
EXIT_TERMINATED = 143
"""Exit code after SIGTERM: 128 + 15."""
DEFAULT_SIMULATIONS = 1000
DEFAULT_PLAYOUTS = 100
"""Games per move of ``analyze --flat`` without ``--playouts``."""


def out(text: str = "") -> None:
    """Print one line (or block) on stdout, flushed at once."""
    print(text, flush=True)


def note(text: str) -> None:
    """One line ``playout: note: ...`` on stderr (the command goes on)."""
    print(f"{PROG}: note: {text}", file=sys.stderr, flush=True)


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity where the system says, else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def warning(text: str) -> None:
    """One line ``playout: warning: ...`` on stderr (the command goes on)."""
    one_line = " ".join(str(text).split())
    print(f"{PROG}: warning: {one_line}", file=sys.stderr, flush=True)


def capped_workers(workers: int | None, *, cap: bool = True, option: str = "--workers") -> int:
    """``--workers`` (or ``--threads``): the number of CPUs when not given, and at most that
    many (with a note) when ``cap`` (on this machine); more would only share the CPUs."""
    cpus = cpu_count()
    if workers is None:
        return cpus
    if cap and workers > cpus:
        plural = "s" if cpus != 1 else ""
        note(f"{option} {workers} is more than the {cpus} CPU{plural} here; using {cpus}")
        return cpus
    return workers


def fail(message: str) -> int:
    """Print ``playout: error: message`` as one line on stderr; the usage exit code."""
    one_line = " ".join(str(message).split())
    print(f"{PROG}: error: {one_line}", file=sys.stderr, flush=True)
    return EXIT_USAGE


__all__ = [
    "DEFAULT_PLAYOUTS",
    "DEFAULT_SIMULATIONS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "PROG",
    "capped_workers",
    "cpu_count",
    "fail",
    "note",
    "out",
    "warning",
]
