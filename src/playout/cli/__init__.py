"""The ``playout`` command line: play against MCTS, analyse a position, run a match.

Usage::

    playout games
    playout play GAME [--width W --height H --k K | --size N --komi K] [--first human|ai]
                 [--moves MOVES]
                 [--simulations N | --seconds S] [--seed K] [--rollout random|neighbors]
                 [--solver | --no-solver] [--final most-visits|best-value|sample]
                 [--max-depth N]
    playout analyze GAME --moves "b2 a1" [--simulations N | --seconds S] [--seed K] [--json]
                    [--workers N | --threads N [--shared-tree]] [--solver | --no-solver]
                    [--final ...]
                    [--max-depth N] [--max-nodes N] [--max-memory MIB]
                    [--symmetry] [--transpositions]
                    [--values-for to-move|X|O|NAME|both]
    playout analyze GAME --moves "b2 a1" --flat [--playouts N] [--seed K] [--json]
    playout match GAME --p1 SPEC --p2 SPEC --games N [--seed K] [--openings N] [--json]
                  [--workers N]
                  [--executor auto|local|pool|ray] [--ray-address ADDR] [--sprt ELO0,ELO1]
                  [--save FILE.jsonl [--overwrite]] [--backend auto|python|compiled|ray]
                  [--solver | --no-solver] [--final ...] [--max-depth N]
    playout tournament GAME --players SPEC SPEC [SPEC ...] --games N [--anchor mean|first]
    playout replay FILE.jsonl [--game-index I]
    playout bench [--game tictactoe|connect4|mnk9 ...] [--sims N] [--python-sims N] [--reps R]
                  [--big [--big-reps R]] [--seed K] [--json]
    playout serve [--host 127.0.0.1] [--port 8000] [--token T] [--open]
    playout gtp [--size 9] [--komi 7.5] [--simulations N | --seconds S] [--seed K]

``match`` and ``tournament`` run games on ``--workers`` processes (default: one per CPU; 1 runs
in this process) or, with ``--executor ray``, on a Ray cluster; ``--backend ray`` is accepted
as a short form of ``--executor ray`` and leaves the search backend on ``auto``. ``analyze
--workers N`` runs a root-parallel compiled search in N processes, ``--threads N`` in N
threads of one process (the compiled search releases the GIL); ``--threads N --shared-tree``
runs N threads on one shared tree instead (tree parallelism with virtual loss).

User errors (unknown game, bad move, impossible size, bad budget or player spec, a save file
that cannot be written) print one line ``playout: error: ...`` on stderr and exit with code 2.
Ctrl-C (SIGINT) and SIGTERM stop every worker process, print one line and exit with 130 and
143. The search itself never prints:
everything shown here is rendered from its results by :mod:`playout.render`.

Modules: :mod:`.parser` (arguments), :mod:`.engine` (engines from options),
:mod:`.position` (games and moves), :mod:`.progress` (progress bars), one module per command
group (:mod:`.analyze`, :mod:`.play`, :mod:`.match`, :mod:`.bench`, :mod:`.games`,
:mod:`.serve`, :mod:`.gtp`) and
:mod:`.common` (exit codes, output).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence

from playout._src.errors import PlayoutError, PlayoutWarning
from playout.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    PROG,
    fail,
    warning,
)
from playout.cli.parser import UsageError, build_parser


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM, so that workers are stopped and files closed on
    the way out (like ``KeyboardInterrupt`` for SIGINT)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` while the command runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """The library's warnings (:class:`~playout.PlayoutWarning`) as one line each,
    ``playout: warning: ...``, instead of Python's two-line format with a source line."""
    with warnings.catch_warnings():
        warnings.simplefilter("default", PlayoutWarning)
        warnings.showwarning = _show_warning
        yield


def _show_warning(message: Warning | str, *args: object, **kwargs: object) -> None:
    warning(str(message))


def _stop_line(word: str) -> None:
    """One line on stderr saying the command stopped (on a new line in a terminal, after the
    ``^C`` the terminal echoes or a progress bar)."""
    start = "\n" if sys.stderr.isatty() else ""
    with contextlib.suppress(OSError, ValueError):
        print(f"{start}{PROG}: {word}", file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """Point stdout at /dev/null: nothing more is written, and the flush at exit cannot fail."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``playout`` command with ``argv`` (default ``sys.argv[1:]``); the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except UsageError as error:
        return fail(str(error))
    except SystemExit as exit_:  # --help and --version
        return exit_.code if isinstance(exit_.code, int) else EXIT_OK
    try:
        with _sigterm_raises(), _warnings_as_lines():
            return int(args.handler(args))
    except PlayoutError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        _stop_line("interrupted")
        return EXIT_INTERRUPTED
    except Terminated:
        _stop_line("terminated")
        return EXIT_TERMINATED
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): stop quietly.
        _silence_stdout()
        return EXIT_OK
    except OSError as error:
        # Output that cannot be written (stdout on a full disk, /dev/full).
        _silence_stdout()
        where = f" {error.filename!r}" if error.filename else ""
        return fail(f"cannot write{where}: {error.strerror or error}")


__all__ = ["build_parser", "main"]
