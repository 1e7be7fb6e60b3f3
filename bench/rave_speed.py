#!/usr/bin/env python
"""Compiled RAVE against compiled UCT (and one source tree against another), side by side.

Each run, ``SRC:RULE`` (a playout source tree and ``ucb1`` or ``rave``), is a worker process
of its own that stays up for the whole measurement; every repetition asks each worker for one
decision, in a rotating order, so that the load of a shared machine falls on all of them
alike. A decision: a fresh engine on the empty board of ``--game`` (``go9``: 9x9 Go, komi 7.5,
light playouts; ``connect4``), ``--sims`` simulations, one rollout per leaf, solver off,
timed in CPU seconds of the worker from making the engine to the result. The report: each
run's median simulations per CPU second, and the median of the per-repetition ratios to the
first run.

Usage::

    python bench/rave_speed.py --runs src:ucb1 src:rave --game go9 --sims 10000 --reps 7
    git archive BASE src | tar -x -C /tmp/base
    python bench/rave_speed.py --runs /tmp/base/src:ucb1 src:ucb1 --game go9
    python bench/rave_speed.py --runs src:ucb1 src:rave --sims 200 --reps 1   # does it run?
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def worker(source: str, rule: str, game: str) -> None:
    """Serve decisions: read ``SIMS SEED`` lines, print simulations per CPU second."""
    sys.path.insert(0, os.path.abspath(source))
    import playout
    from playout.games import Connect4Game
    from playout.games.go import GoGame

    state = GoGame(size=9).initial_state() if game == "go9" else Connect4Game().initial_state()
    selection = playout.RAVE() if rule == "rave" else playout.UCB1()

    def run(sims: int, seed: int) -> float:
        start = time.process_time()
        engine = playout.MCTS(state, selection=selection, seed=seed, solver=False)
        assert engine.backend == "compiled", engine.backend
        result = engine.run(playout.Budget(simulations=sims))
        del engine
        return result.simulations / max(time.process_time() - start, 1e-9)

    run(200, 999)  # load the compiled code
    run(2000, 998)  # and fill the array pool
    print("ready", flush=True)
    for line in sys.stdin:
        sims, seed = map(int, line.split())
        print(run(sims, seed), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", nargs="+", default=["src:ucb1", "src:rave"])
    parser.add_argument("--game", choices=("go9", "connect4"), default="go9")
    parser.add_argument("--sims", type=int, default=10000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    runs = [run.rsplit(":", 1) for run in args.runs]
    for _source, rule in runs:
        if rule not in ("ucb1", "rave"):
            parser.error(f"unknown rule {rule!r} (ucb1 or rave)")
    workers = [
        subprocess.Popen(
            [sys.executable, __file__, "--worker", source, rule, args.game],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for source, rule in runs
    ]
    for process in workers:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
    rates: list[list[float]] = [[] for _ in runs]
    for rep in range(args.reps):
        order = list(range(len(runs)))
        order = order[rep % len(order) :] + order[: rep % len(order)]
        for i in order:
            process = workers[i]
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(f"{args.sims} {rep}\n")
            process.stdin.flush()
            rates[i].append(float(process.stdout.readline()))
    for process in workers:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    report = {
        "game": args.game,
        "sims": args.sims,
        "reps": args.reps,
        "runs": [
            {
                "run": f"{source}:{rule}",
                "median_sims_per_cpu_sec": round(statistics.median(rate)),
                "median_ratio_to_first": round(
                    statistics.median(a / b for a, b in zip(rate, rates[0], strict=True)), 3
                ),
            }
            for (source, rule), rate in zip(runs, rates, strict=True)
        ],
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
