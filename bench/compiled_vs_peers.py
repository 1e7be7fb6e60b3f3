#!/usr/bin/env python
"""The compiled engine against the C reference and OpenSpiel's C++ MCTS, interleaved per rep.

Absolute speeds drift by 30% and more on shared machines, so every repetition runs the three
implementations back to back on the same work (one decision from the empty board, plain UCT
c = sqrt(2), one random rollout per leaf, solver off, fresh search) and the report gives
the median of the per-repetition *ratios*, plus the median rates (process CPU time). As in
``peers.py``, a decision is timed from making the searcher to freeing its tree.

Needs ``open-spiel`` and a C compiler; the C reference is ``limit.c`` from the peer harness
(``--limit-c``, default ``/work/shared/bench/limit.c``), built once into a temp directory.

Usage::

    python bench/compiled_vs_peers.py [--reps 15] [--sims 10000] [--game connect4 ...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import tempfile
import time

GAMES = {
    # name: (playout registry name and parameters, limit.c flag, OpenSpiel game string)
    "tictactoe": (("tictactoe", {}), "GAME_TTT", "tic_tac_toe"),
    "connect4": (("connect4", {}), "GAME_C4", "connect_four"),
    "mnk9": (("mnk", {"width": 9, "height": 9, "k": 5}), "GAME_MNK", "gomoku(size=9,connect=5)"),
}


def build_c(source: str, flag: str, directory: str) -> str:
    binary = os.path.join(directory, f"limit_{flag}")
    subprocess.run(["gcc", "-O2", f"-D{flag}", source, "-o", binary, "-lm"], check=True)
    return binary


def c_rate(binary: str, sims: int, seed: int) -> float:
    out = subprocess.run([binary, str(sims), "1", str(seed + 1)], capture_output=True, text=True)
    return float(json.loads(out.stdout.splitlines()[-1])["sims_per_cpu_sec"])


def openspiel_runner(game_string: str):  # type: ignore[no-untyped-def]
    import pyspiel

    game = pyspiel.load_game(game_string)
    state = game.new_initial_state()

    def decide(sims: int, seed: int) -> int:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, math.sqrt(2), sims, 4000, False, seed, False)
        root = bot.mcts_search(state)
        return int(root.explore_count)  # the tree is freed on return, inside the timing

    def run(sims: int, seed: int) -> float:
        start = time.process_time()
        done = decide(sims, seed)
        return done / (time.process_time() - start)

    return run


def playout_runner(name: str, params: dict[str, int]):  # type: ignore[no-untyped-def]
    import playout
    from playout._src.compiled import CompiledMCTS

    state = playout.make_game(name, **params).initial_state()

    def decide(sims: int, seed: int) -> int:
        engine = CompiledMCTS(state, seed=seed, solver=False)
        return engine.run(playout.Budget(simulations=sims)).simulations

    def run(sims: int, seed: int) -> float:
        start = time.process_time()
        done = decide(sims, seed)
        return done / (time.process_time() - start)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    parser.add_argument("--sims", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--limit-c", default="/work/shared/bench/limit.c")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        for game in args.game or list(GAMES):
            (name, params), flag, openspiel_name = GAMES[game]
            binary = build_c(args.limit_c, flag, directory)
            ours = playout_runner(name, params)
            theirs = openspiel_runner(openspiel_name)
            ours(200, 999)  # warm-up: load the compiled code, fault in the allocator
            theirs(200, 999)
            rates: dict[str, list[float]] = {"playout": [], "c": [], "openspiel": []}
            for rep in range(args.reps):
                rates["c"].append(c_rate(binary, args.sims, rep))
                rates["playout"].append(ours(args.sims, rep))
                rates["openspiel"].append(theirs(args.sims, rep))
            ratio_c = [p / c for p, c in zip(rates["playout"], rates["c"], strict=True)]
            ratio_os = [p / o for p, o in zip(rates["playout"], rates["openspiel"], strict=True)]
            row = {
                "game": game,
                "sims": args.sims,
                "reps": args.reps,
                **{f"{k}_median": round(statistics.median(v)) for k, v in rates.items()},
                "playout_over_c": round(statistics.median(ratio_c), 3),
                "playout_over_openspiel": round(statistics.median(ratio_os), 2),
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
