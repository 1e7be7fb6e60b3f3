#!/usr/bin/env python
"""Threads on one decision: root-parallel compiled searches in a thread pool
(``playout.parallel_search(..., threads=n)``) and tree parallelism, n threads on one shared
tree (``shared_tree=True``), against one thread, per game and size.

Each row: the median over ``--reps`` of simulations per wall-clock second (all threads
together) with 1 thread (``--sims`` simulations), root parallelism (``--sims`` per thread)
and a shared tree (``--sims`` in all), from the empty board, solver off, and the speed-ups
(medians of the per-repetition ratios: the three runs of a repetition are interleaved, so a
busy machine slows them alike). ``cpu_share`` is the process's CPU seconds per wall second
per thread (1.0: every thread had a core to itself) and ``efficiency`` the simulations per
CPU second against one thread's (1.0: the threads cost nothing extra per simulation; on a
busy machine the speed-ups follow the CPU the scheduler gave, the efficiency does not). A
warm-up search runs first, so compiling is not counted.

``--seconds S``: the same with a time budget instead (``S`` seconds of wall time for every
search, side by side), the way play and analysis run. Under a simulation budget root
parallelism waits for the slower of its trees, and trees of the same size take different
times (one connect-four seed's million-simulation tree reaches depth 30 and takes 0.57 s,
another's depth 19 and 0.47 s); under a time budget every thread works to the end.

Usage::

    python bench/threads.py                                  # connect4 and 9x9, 100k and 1M
    python bench/threads.py --sims 2000 --reps 1 --games connect4    # smoke size
    python bench/threads.py --seconds 0.05 0.5                        # time budgets
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


KINDS = ("one", "root", "shared")


Budget = tuple[str, float]
"""``("simulations", n)`` or ``("seconds", s)``: each search's budget."""


def _run(
    state: object, kind: str, budget: Budget, threads: int, seed: int
) -> tuple[float, float, str]:
    """One search: (simulations per wall second, CPU share per thread, stop reason)."""
    import playout

    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = playout.parallel_search(
            state,  # type: ignore[arg-type]
            **{budget[0]: budget[1]},
            threads=1 if kind == "one" else threads,
            shared_tree=kind == "shared",
            seed=seed,
            solver=False,
        )
    wall = time.perf_counter() - start
    used = 1 if kind == "one" else threads
    return result.simulations / wall, (time.process_time() - cpu) / wall / used, result.stop_reason


def measure(game: str, budget: Budget, threads: int, reps: int) -> dict[str, object]:
    import playout

    name, params = GAMES[game]
    state = playout.make_game(name, **params).initial_state()
    for kind in KINDS:
        _run(state, kind, ("simulations", 500), threads, 0)
    rates: dict[str, list[float]] = {k: [] for k in KINDS}
    cpu: dict[str, list[float]] = {k: [] for k in KINDS}
    stops: set[str] = set()
    for rep in range(reps):
        for kind in KINDS:
            rate, share, stop = _run(state, kind, budget, threads, rep)
            rates[kind].append(rate)  # root parallelism: every thread's simulations
            cpu[kind].append(share)
            stops.add(stop)
    median = {k: statistics.median(v) for k, v in rates.items()}
    ratios = {
        k: statistics.median(a / b for a, b in zip(rates[k], rates["one"], strict=True))
        for k in ("root", "shared")
    }
    # Simulations per CPU second against one thread's: 1.0 when the threads cost nothing
    # per simulation (no contention), whatever share of the cores the machine gave them.
    per_cpu = {
        k: [r / (c * (1 if k == "one" else threads)) for r, c in zip(rates[k], cpu[k], strict=True)]
        for k in KINDS
    }
    efficiency = {
        k: statistics.median(a / b for a, b in zip(per_cpu[k], per_cpu["one"], strict=True))
        for k in ("root", "shared")
    }
    return {
        "game": game,
        "sims": int(budget[1]) if budget[0] == "simulations" else None,
        "seconds": budget[1] if budget[0] == "seconds" else None,
        "threads": threads,
        "one_thread_sims_per_sec": median["one"],
        "threads_sims_per_sec": median["root"],
        "shared_tree_sims_per_sec": median["shared"],
        "speed_up": ratios["root"],
        "shared_speed_up": ratios["shared"],
        "cpu_share": {k: statistics.median(cpu[k]) for k in KINDS},
        "efficiency": efficiency,
        "stop_reasons": sorted(stops),
    }


def _budget_text(row: dict[str, object]) -> str:
    if row["sims"] is not None:
        return f"{row['sims']:>9,} sims"
    return f"{row['seconds']:>8} s"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    parser.add_argument("--sims", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument(
        "--seconds", type=float, nargs="+", help="time budgets instead of --sims (seconds)"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.reps < 1 or args.threads < 2 or min(args.sims) < 1:
        parser.error("--reps and --sims must be >= 1, --threads >= 2")
    if args.seconds is not None and min(args.seconds) <= 0:
        parser.error("--seconds must be > 0")
    budgets: list[Budget] = (
        [("seconds", s) for s in args.seconds]
        if args.seconds is not None
        else [("simulations", s) for s in args.sims]
    )
    rows = [measure(g, b, args.threads, args.reps) for g in args.games for b in budgets]
    if args.json:
        print(json.dumps({"rows": rows}, indent=1))
        return
    for row in rows:
        share = row["cpu_share"]
        print(
            f"{row['game']:9} {_budget_text(row)}: 1 thread "
            f"{row['one_thread_sims_per_sec']:>11,.0f}/s; {row['threads']} threads: root "
            f"{row['threads_sims_per_sec']:>11,.0f}/s ({row['speed_up']:.2f}x), shared tree "
            f"{row['shared_tree_sims_per_sec']:>11,.0f}/s ({row['shared_speed_up']:.2f}x); "
            f"efficiency {row['efficiency']['root']:.2f}/{row['efficiency']['shared']:.2f}, "  # type: ignore[index]
            f"cpu share {share['one']:.2f}/{share['root']:.2f}/{share['shared']:.2f} "  # type: ignore[index]
            f"({','.join(row['stop_reasons'])})"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
