#!/usr/bin/env python
"""Speed of the compiled search (``playout.MCTS(state, backend="compiled")``).

The work is that of ``../shared/bench`` (peers.py, limit.c): one move decision from the
empty board, plain UCT (c = sqrt(2), solver off), one uniformly random rollout per leaf, most
visits, one thread, a fresh engine (and tree) for every decision, after an untimed warm-up
search in the same process. Reports the median and best simulations per second over the
repetitions (wall clock), the tree's bytes per node, and, with ``--startup``, the cold
(empty numba cache) and warm start times of a new process.

Usage::

    python bench/compiled_engine.py                       # tictactoe, connect4, mnk9 at 10k
    python bench/compiled_engine.py --game connect4 --sims 1000000 --reps 3
    python bench/compiled_engine.py --startup             # compile and warm-start times
    python bench/compiled_engine.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

GAMES = {
    "tictactoe": ("tictactoe", {}),
    "connect4": ("connect4", {}),
    "mnk9": ("mnk", {"width": 9, "height": 9, "k": 5}),
    "gomoku15": ("gomoku", {}),
}


def measure(game_name: str, sims: int, reps: int) -> dict[str, object]:
    import playout

    name, params = GAMES[game_name]
    state = playout.make_game(name, **params).initial_state()
    playout.MCTS(state, seed=999, solver=False, backend="compiled").run(
        playout.Budget(simulations=200)
    )
    rates = []
    cpu_rates = []
    bytes_per_node = 0.0
    action = None
    for rep in range(reps):
        engine = playout.MCTS(state, seed=rep, solver=False, backend="compiled")
        start, cpu = time.perf_counter(), time.process_time()
        result = engine.run(playout.Budget(simulations=sims))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        rates.append(result.simulations / wall)
        cpu_rates.append(result.simulations / cpu if cpu > 0 else float("nan"))
        bytes_per_node = engine.bytes_per_node()
        action = result.best_action
        del engine
    return {
        "game": game_name,
        "sims": sims,
        "reps": reps,
        "median_sims_per_sec": statistics.median(rates),
        "best_sims_per_sec": max(rates),
        "median_sims_per_cpu_sec": statistics.median(cpu_rates),
        "bytes_per_node": round(bytes_per_node, 1),
        "last_action": action,
    }


_STARTUP = """
import time
t0 = time.perf_counter()
import playout
t1 = time.perf_counter()
state = playout.make_game("connect4").initial_state()
playout.MCTS(state, seed=0, solver=False, backend="compiled").run(playout.Budget(simulations=100))
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def startup() -> dict[str, float]:
    """Seconds to import and run a first 100-simulation search, with an empty numba cache
    (compiles everything: tree phases, kernels, driver) and then with the warm cache."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        if (REPO / "src" / "playout").is_dir():  # the child imports the same playout
            env["PYTHONPATH"] = os.pathsep.join(
                [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
            )
        for label in ("cold", "warm", "warm_again"):
            start = time.perf_counter()
            text = subprocess.run(
                [sys.executable, "-c", _STARTUP],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            total = time.perf_counter() - start
            imported, first = (float(x) for x in text.split())
            out[f"{label}_process_seconds"] = round(total, 3)
            out[f"{label}_import_seconds"] = round(imported, 3)
            out[f"{label}_first_search_seconds"] = round(first, 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    parser.add_argument("--sims", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--startup", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.startup:
        rows: list[dict[str, object]] = [dict(startup())]
    else:
        games = args.game or ["tictactoe", "connect4", "mnk9"]
        rows = [measure(game, args.sims, args.reps) for game in games]
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            print(
                "  ".join(
                    f"{k}={v:.0f}" if isinstance(v, float) and v > 100 else f"{k}={v}"
                    for k, v in row.items()
                )
            )


if __name__ == "__main__":
    main()
