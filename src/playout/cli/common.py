"""Constants and output helpers shared by the ``playout`` commands."""

from __future__ import annotations

import sys

PROG = "playout"
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
DEFAULT_SIMULATIONS = 1000
DEFAULT_PLAYOUTS = 100
"""Games per move of ``analyze --flat`` without ``--playouts``."""


def out(text: str = "") -> None:
    """Print one line (or block) on stdout, flushed at once."""
    print(text, flush=True)


def note(text: str) -> None:
    """One line ``playout: note: ...`` on stderr (the command goes on)."""
    print(f"{PROG}: note: {text}", file=sys.stderr, flush=True)


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
    "EXIT_USAGE",
    "PROG",
    "fail",
    "note",
    "out",
]
