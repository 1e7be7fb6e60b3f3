#!/usr/bin/env python
"""Training throughput of ``playout train``: the synchronous loop against the asynchronous
pipeline (``--pipeline async``), each on the process pool and on Ray, with the same workers.

Every run trains a new network from scratch in a temporary directory with the same settings
and seed, no evaluation games, for ``--iterations`` iterations; the first iteration is a
warm-up (worker processes or Ray starting, numba's compiled code loaded) and is left out of
the rates. Rates: self-play positions (moves played, with their symmetric images: the
positions the replay buffer receives) per second of wall-clock time from the end of the
first iteration to the end of the last, and iterations per hour over the same span. With
``--reps``, every mode runs that many times, the order of the modes alternating from one
repetition to the next (a shared machine drifts), and the summary gives the medians. The
synchronous loop starts its workers anew every iteration (a pool, or a local Ray instance),
as ``playout train`` does; the pipeline's actors live for the whole run.

Usage::

    python bench/zero_pipeline.py                  # connect four, 2 workers: ~15 min
    python bench/zero_pipeline.py --iterations 4 --reps 2 --out bench/results/zero_pipeline.json
    python bench/zero_pipeline.py --smoke --modes async:pool   # does it still run? (~30 s)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

MODES = ("sync:pool", "async:pool", "sync:ray", "async:ray")


def run_mode(mode: str, game: Any, config: Any, workers: int, iterations: int) -> dict[str, Any]:
    """One training run in ``mode`` (``pipeline:executor``); its row."""
    from playout.zero import Trainer
    from playout.zero.pipeline import AsyncPipeline

    pipeline, executor = mode.split(":")
    ends: list[float] = []
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(game, out, config, device="cpu", workers=workers, executor=executor)
        runner: Any = trainer if pipeline == "sync" else AsyncPipeline(trainer)
        began = time.perf_counter()
        reports = runner.run(iterations=iterations, log=lambda _: ends.append(time.perf_counter()))
        trainer.close()
    measured = reports[1:]
    span = ends[-1] - ends[0]
    positions = sum(r.positions for r in measured)
    return {
        "mode": mode,
        "pipeline": pipeline,
        "executor": executor,
        "workers": workers,
        "iterations": len(reports),
        "warmup_seconds": round(ends[0] - began, 2),
        "measured_seconds": round(span, 2),
        "positions": positions,
        "games": sum(r.games for r in measured),
        "positions_per_second": round(positions / span, 1),
        "iterations_per_hour": round(len(measured) / span * 3600, 1),
        "train_seconds": round(sum(r.train_seconds for r in measured), 2),
        "wait_seconds": round(sum(r.wait_seconds for r in measured), 2),
    }


TABLE_COLUMNS = [
    "pipeline",
    "executor",
    "positions/s",
    "iterations/h",
    "learner training, s",
    "learner waiting, s",
    "runs",
]


def table_title(settings: dict[str, Any]) -> str:
    """The result table's title: what was trained, with how many workers."""
    return (
        f"Training throughput, {settings['game']}, {settings['workers']} workers, "
        f"{settings['games_per_iteration']} games x {settings['simulations']} simulations and "
        f"{settings['steps_per_iteration']} steps an iteration, a {settings['channels']}x"
        f"{settings['blocks']} network (medians of {settings['reps']} runs, the first "
        "iteration left out)"
    )


def table_rows(rows: list[dict[str, Any]], modes: list[str]) -> list[list[Any]]:
    """One row per mode: medians of its runs."""
    table = []
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        pipeline, executor = mode.split(":")

        def median(key: str, runs: list[dict[str, Any]] = mine) -> float:
            return statistics.median(r[key] for r in runs)

        table.append(
            [
                pipeline,
                executor,
                round(median("positions_per_second")),
                round(median("iterations_per_hour")),
                round(median("train_seconds")),
                round(median("wait_seconds")),
                len(mine),
            ]
        )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="connect4", choices=("connect4", "tictactoe"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--games", type=int, default=32, help="games per iteration")
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--steps", type=int, default=100, help="gradient steps per iteration")
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated " + str(MODES))
    parser.add_argument("--reps", type=int, default=1, help="repetitions (alternating order)")
    parser.add_argument("--out", metavar="FILE", help="write the rows as JSON to FILE")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: does it run?")
    args = parser.parse_args(argv)
    if args.smoke:
        args.game, args.iterations, args.games, args.simulations = "tictactoe", 2, 4, 4
        args.steps, args.channels, args.blocks = 2, 4, 1
    from playout import make_game
    from playout.zero import Architecture, TrainConfig

    game = make_game(args.game)
    config = TrainConfig(
        games_per_iteration=args.games,
        simulations=args.simulations,
        parallel_games=args.games,
        steps_per_iteration=args.steps,
        eval_games=0,
        architecture=Architecture(channels=args.channels, blocks=args.blocks),
        seed=1,
    )
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}; choose among {', '.join(MODES)}")
    rows = []
    for rep in range(args.reps):  # the order alternates: a drifting machine hurts all alike
        for mode in modes if rep % 2 == 0 else modes[::-1]:
            row = run_mode(mode, game, config, args.workers, args.iterations) | {"rep": rep}
            rows.append(row)
            print(
                f"# rep {rep} {mode:11} {row['positions_per_second']:9.1f} positions/s "
                f"{row['iterations_per_hour']:8.1f} iterations/h  (warm-up "
                f"{row['warmup_seconds']} s, learner waiting {row['wait_seconds']} s, "
                f"training {row['train_seconds']} s)",
                flush=True,
            )
    medians = []
    for mode in modes:
        mine = [r for r in rows if r["mode"] == mode]
        median = {
            "mode": mode,
            "positions_per_second": statistics.median(r["positions_per_second"] for r in mine),
            "iterations_per_hour": statistics.median(r["iterations_per_hour"] for r in mine),
        }
        medians.append(median)
        print(
            f"{mode:11} {median['positions_per_second']:9.1f} positions/s "
            f"{median['iterations_per_hour']:8.1f} iterations/h (median of {len(mine)})"
        )
    settings = {
        "game": args.game,
        "workers": args.workers,
        "iterations": args.iterations,
        "games_per_iteration": args.games,
        "simulations": args.simulations,
        "steps_per_iteration": args.steps,
        "channels": args.channels,
        "blocks": args.blocks,
        "reps": args.reps,
    }
    if args.out:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from results import write_results  # bench/results.py, beside this script

        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        write_results(
            args.out,
            title=table_title(settings),
            columns=TABLE_COLUMNS,
            rows=table_rows(rows, modes),
            details={"settings": settings, "medians": medians, "runs": rows},
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
