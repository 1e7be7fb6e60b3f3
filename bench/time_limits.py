#!/usr/bin/env python
"""How well a search keeps its time limit: wall-clock seconds per decision against the
``seconds`` asked for, per game and driver, from the empty board.

Each decision is a fresh engine (a fresh tree, growing from nothing, which is where a limit is
hardest to keep) after one untimed warm-up search in the same process, so compiling is not
counted. Reports the worst and median overrun in percent of the limit, and the stop reasons.

Usage::

    python bench/time_limits.py                        # 0.5, 1 and 5 s; every game, both drivers
    python bench/time_limits.py --seconds 0.05 --reps 1 --games tictactoe   # smoke size
    python bench/time_limits.py --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

GAMES = {
    "tictactoe": ("tictactoe", {}),
    "connect4": ("connect4", {}),
    "mnk9": ("mnk", {"width": 9, "height": 9, "k": 5}),
    "gomoku": ("gomoku", {}),
}


def measure(game_name: str, backend: str, seconds: float, reps: int) -> dict[str, object]:
    """``reps`` decisions of ``seconds`` each; the overruns and what stopped them."""
    import playout

    name, params = GAMES[game_name]
    state = playout.make_game(name, **params).initial_state()
    playout.MCTS(state, seed=0, backend=backend, solver=False).run(playout.Budget(simulations=200))
    overruns, reasons, rates = [], [], []
    for rep in range(reps):
        engine = playout.MCTS(state, seed=rep, backend=backend, solver=False)
        start = time.perf_counter()
        result = engine.run(playout.Budget(seconds=seconds))
        elapsed = time.perf_counter() - start
        overruns.append(100.0 * (elapsed - seconds) / seconds)
        reasons.append(result.stop_reason)
        rates.append(result.simulations / elapsed)
    return {
        "game": game_name,
        "backend": backend,
        "seconds": seconds,
        "reps": reps,
        "worst_overrun_percent": max(overruns),
        "median_overrun_percent": statistics.median(overruns),
        "stop_reasons": sorted(set(reasons)),
        "median_sims_per_sec": statistics.median(rates),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, nargs="+", default=[0.5, 1.0, 5.0])
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    parser.add_argument(
        "--backends", nargs="+", choices=("compiled", "python"), default=["compiled", "python"]
    )
    parser.add_argument("--reps", type=int, default=3, help="decisions per cell (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.reps < 1 or any(s <= 0 for s in args.seconds):
        parser.error("--reps must be >= 1 and --seconds > 0")
    rows = [
        measure(game, backend, seconds, args.reps)
        for game in args.games
        for backend in args.backends
        for seconds in args.seconds
    ]
    if args.json:
        print(json.dumps({"rows": rows}, indent=1))
        return
    print(f"{'game':10} {'backend':9} {'limit s':>7} {'worst %':>8} {'median %':>8}  stop")
    for row in rows:
        print(
            f"{row['game']:10} {row['backend']:9} {row['seconds']:7.2f} "
            f"{row['worst_overrun_percent']:+8.1f} {row['median_overrun_percent']:+8.1f}  "
            f"{','.join(row['stop_reasons'])}"  # type: ignore[arg-type]
        )


if __name__ == "__main__":
    main()
