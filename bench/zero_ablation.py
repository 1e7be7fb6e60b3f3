"""An ablation of KataGo's training tricks on the value-losing-move learning curve.

    PYTHONPATH=src python bench/zero_ablation.py --game tictactoe --minutes 6 --out runs/ablation
    PYTHONPATH=src python bench/zero_ablation.py --game connect4 --minutes 60 \\
        --out runs/c4-ablation --sequential

Trains one run per variant with ``playout train`` (same seed, same settings but the trick),
all at once by default (so that each gets the same share of a shared machine for the same
wall time) or one after another (``--sequential``), each for ``--minutes`` of wall time, then
prints each variant's value-losing rates (policy alone, search) from its ``metrics.csv`` at
fractions of the run's training time (``elapsed_seconds``: self-play and learning), and the
positions it learned from. Every iteration's network is kept (``--keep-models``), so that
``--evaluate 60 120`` can score afterwards, on every labelled position (or an even subset,
``--evaluate-positions``), the network each variant had after 60 and 120 minutes of training
time: the policy alone and PUCT with ``--evaluate-simulations`` (default 800), one process
per (variant, time) pair up to ``--workers``, the table to stdout and to ``--json``;
``--plot FILE`` draws the variants' learning curves side by side
(:func:`playout.plots.plot_learning_curves`).
Variants: ``baseline`` (the plain recipe, :data:`RECIPES`), ``cap`` (playout cap
randomisation, a full search on a quarter of the moves), ``forced`` (forced playouts and
policy-target pruning, k = 2), ``reply`` (the auxiliary opponent-reply head), ``all``;
``gumbel`` (Gumbel AlphaZero self-play, 16 root actions sampled, 32 simulations a move),
``expert`` (a warm start: the first 4 iterations learn from rollout MCTS games of 2,000
simulations a move, as the shipped gomoku network did), ``expert+cap+forced``;
``openings`` (self-play games start after up to 4 random moves, so that the network meets
positions its own play never reaches) and ``openings+gumbel``; ``gpu-recipe`` (the settings
of the connect-four run on a GPU machine, docs/how-to/zero-pipeline.md, without its warm
start: a 64x4 network, 128 games of 64 simulations from up to 4 random moves, 150 steps,
a 400,000-position buffer, a 200-iteration schedule); ``mix`` (the value target half the
outcome, half the search's root value), ``openings+mix`` (both: ``playout train``'s
defaults) and ``openings+mix+forced``; ``workers2`` (self-play on two worker processes, then
learning, in turn: how the first shipped connect-four network was trained),
``workers2+random12`` (the same with a random move on 12% of the moves after the opening),
``async+openings+mix`` (the asynchronous pipeline, two self-play actors playing on while the
learner trains, with the defaults' value mix and random openings),
``async+openings+mix+timed`` (the same with the learning-rate schedule over the run's
``--minutes`` of training time, ``--schedule-hours``, instead of 100 iterations),
``async+openings+mix+timed+forced`` (with forced playouts too, k = 2) and
``async+openings+mix+timed+random`` (with a random move instead of the search's on 4% of
the moves after the opening, about one a game), ``async+openings+mix+timed+random8`` (on
8%), ``async+openings+mix+timed+random12`` (on 12%),
``async+openings+mix+timed+random+wide`` (4%, with a 48x4 network instead of 32x3),
``async+openings+mix+timed+fork4`` (instead of the random moves, a side game forked on 4%
of the searched moves, KataGo's rate, from where another move leads (drawn as KataGo
draws it, mostly from the network's policy), the games
themselves played as searched: ``--fork-rate``) and
``async+openings+mix+timed+random12+wd`` (the 12% recipe with AdamW's weight decay at 0.01
instead of 1e-4) and ``async+openings+mix+timed+random12+64x4`` (the 12% recipe with the
shipped network's size, 64x4, instead of 32x3).
The last twelve use every core each: run them
``--sequential``, and compare their last networks (``--evaluate`` at a time past the end:
the same wall time of the whole machine each, everything included).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

RECIPES = {
    "tictactoe": [
        "--games", "128", "--parallel-games", "128", "--simulations", "64", "--c", "1",
        "--value-mix", "0",
        "--temperature-moves", "2", "--opening-moves", "6", "--steps", "100",
        "--batch-size", "128", "--lr", "0.003", "--schedule", "30", "--buffer", "20000",
        "--channels", "32", "--blocks", "2", "--eval-games", "0",
        "--benchmark-positions", "400", "--benchmark-simulations", "8",
    ],
    "connect4": [
        "--games", "64", "--parallel-games", "64", "--simulations", "100",
        "--value-mix", "0", "--opening-moves", "0",
        "--temperature-moves", "8", "--steps", "100", "--batch-size", "256", "--schedule", "100",
        "--channels", "32", "--blocks", "3", "--eval-games", "0",
        "--benchmark-positions", "200", "--benchmark-simulations", "50",
    ],
}  # fmt: skip
"""The plain recipe per game, AlphaZero's value targets (the game's outcome alone) and
games from the empty board (``--value-mix 0 --opening-moves 0``; the tic-tac-toe one is the
test suite's, which reaches perfect play, with its own random openings), and a learning-rate
schedule of 100 iterations (a new run given ``--hours`` otherwise anneals over its hours).
``playout train``'s defaults are since the ``openings+mix`` variant (``TrainConfig``)."""

SMOKE = [
    "--games", "2", "--parallel-games", "2", "--simulations", "4", "--steps", "2",
    "--batch-size", "16", "--channels", "8", "--blocks", "1", "--benchmark-positions", "6",
    "--benchmark-simulations", "4",
]  # fmt: skip
"""Options of a smoke run (they come last, after the variant's: argparse keeps the last
value)."""

ASYNC = [
    "--pipeline", "async", "--workers", "2", "--opening-moves", "4", "--value-mix", "0.5",
]  # fmt: skip
"""The asynchronous pipeline on two actors with ``playout train``'s value mix and openings."""

TIMED = [*ASYNC, "--schedule-hours", "RUN"]
"""The same with the learning-rate schedule over the run's length (``RUN``: its hours)."""

RANDOM = [*TIMED, "--random-move-rate", "0.04"]
"""The same with a random move instead of the search's on 4% of the moves after the opening."""

VARIANTS = {
    "baseline": [],
    "cap": ["--full-search-fraction", "0.25", "--fast-simulations", "16"],
    "forced": ["--forced-playouts", "2"],
    "reply": ["--reply-head"],
    "all": [
        "--full-search-fraction", "0.25", "--fast-simulations", "16", "--forced-playouts", "2",
        "--reply-head",
    ],
    "gumbel": ["--gumbel", "16", "--simulations", "32"],
    "openings": ["--opening-moves", "4"],
    "openings+gumbel": ["--opening-moves", "4", "--gumbel", "16", "--simulations", "32"],
    "mix": ["--value-mix", "0.5"],
    "openings+mix": ["--opening-moves", "4", "--value-mix", "0.5"],
    "openings+mix+forced": ["--opening-moves", "4", "--value-mix", "0.5", "--forced-playouts", "2"],
    "gpu-recipe": [
        "--channels", "64", "--blocks", "4", "--simulations", "64", "--opening-moves", "4",
        "--games", "128", "--parallel-games", "128", "--steps", "150", "--buffer", "400000",
        "--schedule", "200",
    ],
    "workers2": ["--workers", "2"],
    "workers2+random12": ["--workers", "2", "--random-move-rate", "0.12"],
    "async+openings+mix": ASYNC,
    "async+openings+mix+timed": TIMED,
    "async+openings+mix+timed+forced": [*TIMED, "--forced-playouts", "2"],
    "async+openings+mix+timed+random": RANDOM,
    "async+openings+mix+timed+random8": [*TIMED, "--random-move-rate", "0.08"],
    "async+openings+mix+timed+random12": [*TIMED, "--random-move-rate", "0.12"],
    "async+openings+mix+timed+random+wide": [*RANDOM, "--channels", "48", "--blocks", "4"],
    "async+openings+mix+timed+fork4": [*TIMED, "--fork-rate", "0.04"],
    "async+openings+mix+timed+random12+64x4": [
        *TIMED, "--random-move-rate", "0.12", "--channels", "64", "--blocks", "4",
    ],
    "async+openings+mix+timed+random12+cap": [
        *TIMED, "--random-move-rate", "0.12", "--full-search-fraction", "0.25",
        "--fast-simulations", "16",
    ],
    "async+openings+mix+timed+random12+forced": [
        *TIMED, "--random-move-rate", "0.12", "--forced-playouts", "2",
    ],
    "async+openings+mix+timed+random12+reply": [
        *TIMED, "--random-move-rate", "0.12", "--reply-head",
    ],
    "async+openings+mix+timed+random12+wd": [
        *TIMED, "--random-move-rate", "0.12", "--weight-decay", "0.01",
    ],
    "expert": ["--expert-iterations", "4", "--expert-simulations", "2000"],
    "expert+cap+forced": [
        "--expert-iterations", "4", "--expert-simulations", "2000",
        "--full-search-fraction", "0.25", "--fast-simulations", "16", "--forced-playouts", "2",
    ],
}  # fmt: skip


def command(game: str, variant: str, out: Path, minutes: float, seed: int) -> list[str]:
    hours = f"{minutes / 60:.6f}"
    options = [hours if option == "RUN" else option for option in VARIANTS[variant]]
    return [
        sys.executable, "-m", "playout", "train", game, "--out", str(out / variant),
        "--hours", hours, "--seed", str(seed), "--keep-models", *RECIPES[game], *options,
    ]  # fmt: skip


def curve(metrics: Path) -> list[dict[str, float]]:
    with metrics.open(newline="") as handle:
        return [
            {
                "seconds": float(r["elapsed_seconds"]),
                "positions": float(r["total_positions"] or 0),
                "policy": float(r["benchmark_policy"]),
                "search": float(r["benchmark_search"]),
            }
            for r in csv.DictReader(handle)
            if r.get("benchmark_policy")
        ]


def at(points: list[dict[str, float]], seconds: float) -> dict[str, float] | None:
    """The last measurement at or before ``seconds`` of training."""
    before = [p for p in points if p["seconds"] <= seconds]
    return before[-1] if before else None


def kept_at(run: Path, seconds: float) -> dict[str, str] | None:
    """The ``metrics.csv`` row of the last iteration of ``run`` at or before ``seconds`` of
    training (``elapsed_seconds``), benchmarked or not; ``None`` before the first."""
    with (run / "metrics.csv").open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if float(r["elapsed_seconds"]) <= seconds]
    return rows[-1] if rows else None


def evaluate(
    game_name: str, run: Path, minutes: float, simulations: int, positions: int, seed: int
) -> dict[str, Any]:
    """Score the network ``run`` kept at ``minutes`` of training time (its last iteration at
    or before then): value-losing rates of the policy alone and of ``simulations`` of PUCT,
    on one PyTorch thread (the pool's processes share the machine)."""
    from playout import make_game
    from playout.zero import Model
    from playout.zero import benchmark as bm
    from playout.zero.model import torch
    from playout.zero.train import snapshot_path

    torch.set_num_threads(1)
    row = kept_at(run, minutes * 60)
    if row is None:
        return {"minutes": minutes, "iteration": None}
    iteration = int(row["iteration"])
    game = make_game(game_name)
    model = Model.load(snapshot_path(run, iteration), game)
    labelled = bm.benchmark_positions(game)
    assert labelled is not None
    if positions:
        labelled = bm.subset(labelled, positions)
    policy = bm.score_chooser(bm.policy_chooser(model), labelled, name="policy")
    search = bm.score_chooser(
        bm.network_chooser(model, simulations, seed=seed), labelled, name=f"zero:{simulations}"
    )
    return {
        "minutes": minutes,
        "iteration": iteration,
        "training_seconds": float(row["elapsed_seconds"]),
        "positions_learned": int(row["total_positions"] or 0),
        "policy": policy.to_json(),
        "search": search.to_json(),
    }


def evaluation_table(
    args: argparse.Namespace, found: dict[tuple[str, float], dict[str, Any]]
) -> list[list[str]]:
    """Rows: variant, then per time the two rates (with each stage's rate for the search)."""
    rows = []
    for variant in args.variants:
        row = [variant]
        for minutes in args.evaluate:
            result = found[variant, minutes]
            if result["iteration"] is None:
                row.append("-")
                continue
            policy, search = result["policy"], result["search"]
            stages = ", ".join(
                f"{name}: {100 * s['rate']:.1f}%" for name, s in search["stages"].items()
            )
            row.append(
                f"{100 * policy['rate']:.1f}% / {100 * search['rate']:.1f}% ({stages}; "
                f"iteration {result['iteration']}, {result['training_seconds'] / 60:.1f} min)"
            )
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(RECIPES), default="tictactoe")
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--out", type=Path, default=Path("runs/ablation"))
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sequential", action="store_true")
    parser.add_argument("--report-only", action="store_true", help="only read the runs")
    parser.add_argument("--smoke", action="store_true", help="tiny runs (tests)")
    parser.add_argument("--evaluate", nargs="+", type=float, metavar="MINUTES", default=[])
    parser.add_argument("--evaluate-simulations", type=int, default=800)
    parser.add_argument("--evaluate-positions", type=int, default=0, help="0: every one")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path, help="the evaluation's result file")
    parser.add_argument(
        "--plot", type=Path, help="the variants' learning curves side by side (.png or .svg)"
    )
    args = parser.parse_args(argv)
    if args.plot is not None:  # a bad name or no matplotlib: said now, not after the runs
        from playout import PlayoutError
        from playout.plots import check_image_path, require_matplotlib

        try:
            check_image_path(args.plot)
            require_matplotlib()
        except PlayoutError as error:
            parser.error(str(error))
    env = dict(os.environ)
    if not args.report_only:
        commands = [
            command(args.game, v, args.out, args.minutes, args.seed) + (SMOKE if args.smoke else [])
            for v in args.variants
        ]
        for line in commands:
            print(" ".join(line[1:]), flush=True)
        if args.sequential:
            for line in commands:
                subprocess.run(line, check=True, env=env, stdout=subprocess.DEVNULL)
        else:
            running = [
                subprocess.Popen(line, env=env, stdout=subprocess.DEVNULL) for line in commands
            ]
            if any(p.wait() != 0 for p in running):
                print("a run failed", file=sys.stderr)
                return 1
    fractions = (0.25, 0.5, 0.75, 1.0)
    total = args.minutes * 60
    head = " | ".join(f"{f * args.minutes:g} min" for f in fractions)
    print(f"\nvalue-losing moves, policy alone / search, at training time ({args.game}):")
    print(f"| variant | {head} | end: training minutes, positions, iterations |")
    print("|---|" + "---:|" * (len(fractions) + 1))
    for variant in args.variants:
        points = curve(args.out / variant / "metrics.csv")
        cells = []
        for f in fractions:
            point = at(points, f * total)
            cells.append(
                "-"
                if point is None
                else f"{100 * point['policy']:.1f}% / {100 * point['search']:.1f}%"
            )
        end = points[-1] if points else {"seconds": 0.0, "positions": 0.0}
        print(
            f"| {variant} | " + " | ".join(cells) + f" | {end['seconds'] / 60:.1f}, "
            f"{end['positions']:,.0f}, {len(points)} |"
        )
    if args.plot is not None:
        from playout.plots import plot_learning_curves

        runs = {v: args.out / v / "metrics.csv" for v in args.variants}
        print(f"learning curves: {plot_learning_curves(runs, args.plot)}")
    if args.evaluate:
        return report_evaluation(args)
    return 0


def report_evaluation(args: argparse.Namespace) -> int:
    pairs = [(v, m) for v in args.variants for m in args.evaluate]
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = {
            pair: pool.submit(
                evaluate,
                args.game,
                args.out / pair[0],
                pair[1],
                args.evaluate_simulations,
                args.evaluate_positions,
                args.seed,
            )
            for pair in pairs
        }
        found = {pair: future.result() for pair, future in futures.items()}
    columns = ["variant", *(f"by {m:g} min: policy / {args.evaluate_simulations} simulations"
                            for m in args.evaluate)]  # fmt: skip
    rows = evaluation_table(args, found)
    print(f"\nvalue-losing moves on the labelled positions ({args.game}), kept networks:")
    print("| " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(args.evaluate))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if args.json:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from results import write_results  # bench/results.py, beside this script

        write_results(
            args.json,
            title=f"Value-losing moves of each variant's network after given minutes of "
            f"training ({args.game}): policy alone / {args.evaluate_simulations} simulations",
            columns=columns,
            rows=rows,
            details={f"{v} @ {m:g} min": r for (v, m), r in found.items()},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
