#!/usr/bin/env python
"""Threads on one decision: root-parallel compiled searches in a thread pool
(``playout.parallel_search(..., threads=n)``) against one thread, per game and size.

Each row: the median over ``--reps`` of simulations per wall-clock second (all threads
together) with 1 thread and with ``--threads`` threads, from the empty board, solver off, and
the speed-up. A warm-up search runs first, so compiling is not counted.

Usage::

    python bench/threads.py                                  # connect4 and 9x9, 100k and 1M
    python bench/threads.py --sims 2000 --reps 1 --games connect4    # smoke size
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

GAMES = {"connect4": ("connect4", {}), "mnk9": ("mnk", {"width": 9, "height": 9, "k": 5})}


def measure(game: str, sims: int, threads: int, reps: int) -> dict[str, object]:
    import playout

    name, params = GAMES[game]
    state = playout.make_game(name, **params).initial_state()
    playout.parallel_search(state, simulations=500, threads=threads, seed=0, solver=False)
    rates: dict[int, list[float]] = {1: [], threads: []}
    stops: set[str] = set()
    for rep in range(reps):
        for n in (1, threads):
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = playout.parallel_search(
                    state, simulations=sims, threads=n, seed=rep, solver=False
                )
            rates[n].append(result.total_simulations / (time.perf_counter() - start))
            stops.add(result.stop_reason)
    one, many = statistics.median(rates[1]), statistics.median(rates[threads])
    return {
        "game": game,
        "sims_per_thread": sims,
        "threads": threads,
        "one_thread_sims_per_sec": one,
        "threads_sims_per_sec": many,
        "speed_up": many / one,
        "stop_reasons": sorted(stops),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    parser.add_argument("--sims", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.reps < 1 or args.threads < 2 or min(args.sims) < 1:
        parser.error("--reps and --sims must be >= 1, --threads >= 2")
    rows = [measure(g, s, args.threads, args.reps) for g in args.games for s in args.sims]
    if args.json:
        print(json.dumps({"rows": rows}, indent=1))
        return
    for row in rows:
        print(
            f"{row['game']:9} {row['sims_per_thread']:>9,} sims/thread: 1 thread "
            f"{row['one_thread_sims_per_sec']:>11,.0f}/s, {row['threads']} threads "
            f"{row['threads_sims_per_sec']:>11,.0f}/s, speed-up {row['speed_up']:.2f}x "
            f"({','.join(row['stop_reasons'])})"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
