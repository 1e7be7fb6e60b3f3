"""The ``playout`` command line: play against MCTS, analyse a position, run a match.

Usage::

    playout games
    playout play GAME [--width W --height H --k K] [--first human|ai] [--moves MOVES]
                 [--simulations N | --seconds S] [--seed K] [--rollout random|neighbors]
                 [--solver | --no-solver] [--final most-visits|best-value|sample]
                 [--max-depth N]
    playout analyze GAME --moves "1,1 0,0" [--simulations N | --seconds S] [--seed K] [--json]
                    [--workers N] [--solver | --no-solver] [--final ...] [--max-depth N]
                    [--values-for to-move|X|O|NAME|both]
    playout analyze GAME --moves "1,1 0,0" --flat [--playouts N] [--seed K] [--json]
    playout match GAME --p1 SPEC --p2 SPEC --games N [--seed K] [--json] [--workers N]
                  [--executor auto|local|pool|ray] [--ray-address ADDR] [--sprt ELO0,ELO1]
                  [--save FILE.jsonl] [--backend auto|python|compiled|ray]
                  [--solver | --no-solver] [--final ...] [--max-depth N]
    playout tournament GAME --players SPEC SPEC [SPEC ...] --games N [--anchor mean|first]
    playout replay FILE.jsonl [--game-index I]
    playout bench [--game tictactoe|connect4|mnk9 ...] [--sims N] [--python-sims N] [--reps R]
                  [--big [--big-reps R]] [--seed K] [--json]

``match`` and ``tournament`` run games on ``--workers`` processes (default: one per CPU; 1 runs
in this process) or, with ``--executor ray``, on a Ray cluster; ``--backend ray`` is accepted
as a short form of ``--executor ray`` and leaves the search backend on ``auto``. ``analyze
--workers N`` runs a root-parallel compiled search in N processes.

User errors (unknown game, bad move, impossible size, bad budget or player spec) print one
line ``playout: error: ...`` on stderr and exit with code 2. The search itself never prints:
everything shown here is rendered from its results by :mod:`playout.render`.

Modules: :mod:`.parser` (arguments), :mod:`.engine` (engines from options),
:mod:`.position` (games and moves), :mod:`.progress` (progress bars), one module per command
group (:mod:`.analyze`, :mod:`.play`, :mod:`.match`, :mod:`.bench`, :mod:`.games`) and
:mod:`.common` (exit codes, output).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from playout._src.errors import PlayoutError
from playout.cli.common import EXIT_INTERRUPTED, EXIT_OK, PROG, fail
from playout.cli.parser import UsageError, build_parser


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
        return int(args.handler(args))
    except PlayoutError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): stop quietly.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


__all__ = ["build_parser", "main"]
