#!/usr/bin/env python
"""The compiled engine against the C reference and OpenSpiel's C++ MCTS, interleaved per rep.

Absolute speeds drift by 30% and more on shared machines, so every repetition runs the three
implementations back to back on the same work (one decision from the empty board, plain UCT
c = sqrt(2), one random rollout per leaf, solver off, fresh search) and the report gives
the median of the per-repetition *ratios*, plus the median rates (process CPU time). As in
``peers.py``, a decision is timed from making the searcher to freeing its tree. The playout
and OpenSpiel runners are those of ``playout bench`` (:mod:`playout._src.benchmark`); this
script adds the C column.

Needs ``open-spiel`` and a C compiler; the C reference is ``limit.c`` from the peer harness
(``--limit-c``, default ``/work/shared/bench/limit.c``), built once into a temp directory.
Without the file or a compiler (or with ``--limit-c ""``) the C column is left out, with a
note on stderr.

Usage::

    python bench/compiled_vs_peers.py [--reps 15] [--sims 10000] [--game connect4 ...]
    python bench/compiled_vs_peers.py --sims 500 --reps 2     # seconds: does it still run?
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

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

from playout._src.benchmark import GAMES, Runner, make_runner  # noqa: E402

C_FLAGS = {"tictactoe": "GAME_TTT", "connect4": "GAME_C4", "mnk9": "GAME_MNK"}
"""limit.c's compile-time game flag for each of :data:`playout._src.benchmark.GAMES`."""


def build_c(source: str, flag: str, directory: str) -> str:
    binary = os.path.join(directory, f"limit_{flag}")
    subprocess.run(["gcc", "-O2", f"-D{flag}", source, "-o", binary, "-lm"], check=True)
    return binary


def c_rate(binary: str, sims: int, seed: int) -> float:
    out = subprocess.run([binary, str(sims), "1", str(seed + 1)], capture_output=True, text=True)
    return float(json.loads(out.stdout.splitlines()[-1])["sims_per_cpu_sec"])


def runner(implementation: str, game: str) -> Runner:
    run = make_runner(implementation, game)
    if run is None:
        raise SystemExit(f"{implementation} is not installed (pip install open-spiel)")
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    parser.add_argument("--sims", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--limit-c", default="/work/shared/bench/limit.c")
    args = parser.parse_args()
    if args.sims < 1 or args.reps < 1:
        parser.error("--sims and --reps must be at least 1")
    with_c = bool(args.limit_c) and os.path.isfile(args.limit_c) and shutil.which("gcc")
    if not with_c:
        print(
            f"note: no C reference (limit.c {args.limit_c!r} or gcc missing): "
            "its column is left out",
            file=sys.stderr,
        )
    with tempfile.TemporaryDirectory() as directory:
        for game in args.game or list(GAMES):
            binary = build_c(args.limit_c, C_FLAGS[game], directory) if with_c else ""
            ours = runner("playout-compiled", game)
            theirs = runner("openspiel-cpp", game)
            ours(200, 999)  # warm-up: load the compiled code, fault in the allocator
            theirs(200, 999)
            rates: dict[str, list[float]] = {"playout": [], "c": [], "openspiel": []}
            if not with_c:
                del rates["c"]
            for rep in range(args.reps):
                if with_c:
                    rates["c"].append(c_rate(binary, args.sims, rep))
                rates["playout"].append(ours(args.sims, rep))
                rates["openspiel"].append(theirs(args.sims, rep))
            ratio_os = [p / o for p, o in zip(rates["playout"], rates["openspiel"], strict=True)]
            row: dict[str, object] = {
                "game": game,
                "sims": args.sims,
                "reps": args.reps,
                **{f"{k}_median": round(statistics.median(v)) for k, v in rates.items()},
            }
            if with_c:
                ratio_c = [p / c for p, c in zip(rates["playout"], rates["c"], strict=True)]
                row["playout_over_c"] = round(statistics.median(ratio_c), 3)
            row["playout_over_openspiel"] = round(statistics.median(ratio_os), 2)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
