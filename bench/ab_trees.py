#!/usr/bin/env python
"""Two versions of playout's compiled search and the C reference, side by side in one run.

For a change to the engine: is the new tree faster than the old one, and how far from C are
both? Each source tree (``--trees OLD/src NEW/src``, e.g. a ``git archive`` of the old commit
unpacked somewhere) runs in a worker process of its own that stays up for the whole run;
every repetition asks each worker for one decision and runs the C reference once, in a
rotating order, so that the load of a shared machine falls on all of them alike. A decision
is the one of ``playout bench`` (:mod:`playout._src.benchmark`: from the empty board, plain
UCT, one rollout per leaf, solver off, a fresh engine, timed in process CPU seconds from
making the engine to freeing it). The report: median rates, the median of the per-repetition
ratios to C, and, for two trees, the median of the per-repetition ratios of the second to
the first (``second/first``).

``--solver``: each decision runs with MCTS-Solver on, to the root's proof or ``--sims``
(:func:`playout._src.benchmark.make_solver_runner`; tic-tac-toe's root is proven a draw at
about 49.5k simulations): simulations per CPU second up to the proof. ``limit.c`` has no
solver: no C column then.

Needs gcc and ``limit.c`` (``--limit-c``, default :data:`LIMIT_C`); without them (or with
``--limit-c ""``) the C column is left out, with a note on stderr.

Usage::

    git archive BASE src | tar -x -C /tmp/base
    python bench/ab_trees.py --trees /tmp/base/src src --game connect4 --sims 10000 --reps 15
    python bench/ab_trees.py --trees src --sims 200 --reps 1       # seconds: does it run?
    python bench/ab_trees.py --trees /tmp/base/src src --game tictactoe --solver --sims 200000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LIMIT_C = Path(__file__).resolve().parents[2] / "shared" / "bench" / "limit.c"
"""The C reference of the peer harness: ``../shared/bench/limit.c``, beside the repository."""

C_FLAGS = {"tictactoe": "GAME_TTT", "connect4": "GAME_C4", "mnk9": "GAME_MNK"}


def worker(source: str, game: str, mode: str) -> None:
    """Serve decisions of the tree at ``source``: read ``SIMS SEED`` lines, print rates
    (``mode``: ``"solver"`` or ``"plain"``)."""
    sys.path.insert(0, os.path.abspath(source))
    from playout._src.benchmark import make_runner, make_solver_runner

    if mode == "solver":
        solve = make_solver_runner("playout-compiled", game)
        assert solve is not None

        def run(sims: int, seed: int) -> float:
            return solve(sims, seed).rate

    else:
        plain = make_runner("playout-compiled", game)
        assert plain is not None
        run = plain
    run(200, 999)  # load the compiled code
    run(2000, 998)  # and fill the array pool
    print("ready", flush=True)
    for line in sys.stdin:
        sims, seed = map(int, line.split())
        print(run(sims, seed), flush=True)


def c_rate(binary: str, sims: int, seed: int) -> float:
    out = subprocess.run(
        [binary, str(sims), "1", str(seed + 1)], capture_output=True, text=True, check=True
    )
    return float(json.loads(out.stdout.splitlines()[-1])["sims_per_cpu_sec"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs="+", default=["src"], help="playout source trees")
    parser.add_argument("--game", choices=sorted(C_FLAGS), default="connect4")
    parser.add_argument("--sims", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=11)
    parser.add_argument(
        "--limit-c",
        default=str(LIMIT_C),
        help="the C reference (default: ../shared/bench/limit.c, beside the repository)",
    )
    parser.add_argument(
        "--solver", action="store_true", help="solver on: simulations per second to the proof"
    )
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    if args.sims < 1 or args.reps < 1:
        parser.error("--sims and --reps must be at least 1")
    with_c = bool(args.limit_c) and os.path.isfile(args.limit_c) and shutil.which("gcc")
    if args.solver:
        with_c = False  # limit.c has no solver
    elif not with_c:
        print(f"note: no C reference (limit.c {args.limit_c!r} or gcc missing)", file=sys.stderr)
    mode = "solver" if args.solver else "plain"
    workers = []
    for tree in args.trees:
        process = subprocess.Popen(
            [sys.executable, __file__, "--worker", tree, args.game, mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None
        if process.stdout.readline().strip() != "ready":
            raise SystemExit(f"the worker for {tree} did not start")
        workers.append(process)
    names = (["c"] if with_c else []) + [f"tree{i}" for i in range(len(workers))]
    rates: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as directory:
        binary = os.path.join(directory, "limit")
        if with_c:
            flag = C_FLAGS[args.game]
            command = ["gcc", "-O2", f"-D{flag}", args.limit_c, "-o", binary, "-lm"]
            subprocess.run(command, check=True)
        for rep in range(args.reps):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                if name == "c":
                    rates["c"].append(c_rate(binary, args.sims, rep))
                    continue
                process = workers[int(name[4:])]
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(f"{args.sims} {rep}\n")
                process.stdin.flush()
                rates[name].append(float(process.stdout.readline()))
    for process in workers:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    row: dict[str, object] = {
        "game": args.game,
        "sims": args.sims,
        "solver": args.solver,
        "reps": args.reps,
        "load_average": round(os.getloadavg()[0], 2),
        "trees": args.trees,
    }
    for name in names:
        row[f"{name}_median"] = round(statistics.median(rates[name]))
    if with_c:
        for name in names[1:]:
            ratios = [p / c for p, c in zip(rates[name], rates["c"], strict=True)]
            row[f"{name}_over_c"] = round(statistics.median(ratios), 3)
    if len(workers) == 2:
        ratios = [b / a for a, b in zip(rates["tree0"], rates["tree1"], strict=True)]
        row["second_over_first"] = round(statistics.median(ratios), 3)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
