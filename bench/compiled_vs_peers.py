#!/usr/bin/env python
"""The compiled engine against the C reference and OpenSpiel's C++ MCTS, interleaved per rep.

Absolute speeds drift by 30% and more on shared machines, so every repetition runs the three
implementations back to back on the same work (one decision from the empty board, plain UCT
c = sqrt(2), one random rollout per leaf, solver off, fresh search) and the report gives
the median of the per-repetition *ratios*, plus the median rates (process CPU time). As in
``peers.py``, a decision is timed from making the searcher to freeing its tree. The playout
and OpenSpiel runners are those of ``playout bench`` (:mod:`playout._src.benchmark`); this
script adds the C column.

``--solver``: the same search with each implementation's MCTS-Solver on (playout's compiled
engine; OpenSpiel's ``MCTSBot(..., solve=True)``), tic-tac-toe by default, ``--sims`` now the
budget (default 200,000). Each searcher stops by itself once its root is proven. Every
repetition runs three decisions: playout to its proof (or the budget), OpenSpiel for the same
number of simulations (so that the rates compare the same work: "simulations per second up
to the proof"), and OpenSpiel to its own proof (or the budget), the order alternating from one
repetition to the next. It prints the simulations to the proof, the proven result, the median
of the per-repetition ratios of simulations per CPU second (playout / OpenSpiel at the same
count) and of times to the proof (OpenSpiel / playout: a lower bound, flagged, where OpenSpiel
ran out of budget unproven). ``limit.c`` has no solver: no C column in this mode.

Needs ``open-spiel`` and a C compiler; the C reference is ``limit.c`` from the peer harness
(``--limit-c``, default :data:`LIMIT_C`), built once into a temp directory.
Without the file or a compiler (or with ``--limit-c ""``) the C column is left out, with a
note on stderr.

Usage::

    python bench/compiled_vs_peers.py [--reps 15] [--sims 10000] [--game connect4 ...]
    python bench/compiled_vs_peers.py --sims 500 --reps 2     # seconds: does it still run?
    python bench/compiled_vs_peers.py --solver [--reps 21] [--sims 200000] [--game tictactoe]
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

from playout._src.benchmark import (  # noqa: E402
    GAMES,
    Runner,
    SolverDecision,
    SolverRunner,
    make_runner,
    make_solver_runner,
)

LIMIT_C = Path(__file__).resolve().parents[2] / "shared" / "bench" / "limit.c"
"""The C reference of the peer harness: ``../shared/bench/limit.c``, beside the repository."""

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


def solver_runner(implementation: str, game: str) -> SolverRunner:
    run = make_solver_runner(implementation, game)
    if run is None:
        raise SystemExit(f"{implementation} is not installed (pip install open-spiel)")
    return run


def proofs(decisions: list[SolverDecision]) -> str:
    """``"21/21 draw"``: how many decisions proved the root, and the results proven."""
    found = sorted({d.proven for d in decisions if d.proven is not None})
    return f"{sum(d.proven is not None for d in decisions)}/{len(decisions)}" + "".join(
        f" {result}" for result in found
    )


def solver_row(game: str, budget: int, reps: int) -> dict[str, object]:
    """The ``--solver`` comparison on one game (see the module docstring)."""
    ours, theirs = solver_runner("playout-compiled", game), solver_runner("openspiel-cpp", game)
    ours(200, 999)  # warm-up: load the compiled code, fault in the allocator
    theirs(200, 999)
    playout: list[SolverDecision] = []
    same_count: list[SolverDecision] = []  # OpenSpiel, as many simulations as playout ran
    openspiel: list[SolverDecision] = []  # OpenSpiel, to its own proof or the budget
    for rep in range(reps):
        if rep % 2:
            openspiel.append(theirs(budget, rep))
        playout.append(ours(budget, rep))
        same_count.append(theirs(playout[-1].simulations, rep))
        if not rep % 2:
            openspiel.append(theirs(budget, rep))
    proven = [(p, o) for p, o in zip(playout, openspiel, strict=True) if p.proven is not None]
    time_ratios = [o.seconds / max(p.seconds, 1e-9) for p, o in proven]
    row: dict[str, object] = {
        "game": game,
        "solver": True,
        "budget": budget,
        "reps": reps,
        "playout_proven": proofs(playout),
        "openspiel_proven": proofs(openspiel),
        "playout_sims_median": round(statistics.median(d.simulations for d in playout)),
        "openspiel_sims_median": round(statistics.median(d.simulations for d in openspiel)),
        "playout_median": round(statistics.median(d.rate for d in playout)),
        "openspiel_same_sims_median": round(statistics.median(d.rate for d in same_count)),
        "openspiel_budget_median": round(statistics.median(d.rate for d in openspiel)),
        "playout_over_openspiel": round(
            statistics.median(p.rate / o.rate for p, o in zip(playout, same_count, strict=True)),
            2,
        ),
        "time_to_proof_openspiel_over_playout": (
            round(statistics.median(time_ratios), 2) if time_ratios else None
        ),
        "time_to_proof_ratio_is": (
            "n/a (playout never proved the root)"
            if not proven
            else "exact"
            if all(o.proven is not None for _, o in proven)
            else "a lower bound (OpenSpiel unproven at the budget)"
        ),
    }
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    parser.add_argument(
        "--sims", type=int, help="simulations per decision (the budget with --solver)"
    )
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument(
        "--limit-c",
        default=str(LIMIT_C),
        help="the C reference (default: ../shared/bench/limit.c, beside the repository)",
    )
    parser.add_argument(
        "--solver",
        action="store_true",
        help="solver on, each search stops at its root's proof; tic-tac-toe by default",
    )
    args = parser.parse_args()
    if args.sims is None:
        args.sims = 200_000 if args.solver else 10_000
    if args.sims < 1 or args.reps < 1:
        parser.error("--sims and --reps must be at least 1")
    if args.solver:
        for game in args.game or ["tictactoe"]:
            print(json.dumps(solver_row(game, args.sims, args.reps)), flush=True)
        return
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
