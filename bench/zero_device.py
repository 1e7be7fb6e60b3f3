#!/usr/bin/env python
"""AlphaZero on a GPU against the CPU: what ``--device cuda`` buys, phase by phase.

For each device (``--devices``, default ``cpu`` and ``cuda`` where PyTorch sees one) and each
network size (``--sizes``, channels x residual blocks; connect four):

1. Inference: positions per second of ``Model.predict`` at batch 1, 64, 256, 1024 and 4096
   (median of ``--reps`` timed calls after two warm-ups; the result is back in numpy, so a
   GPU call is finished when it is counted).
2. Training: the real training loop (:class:`playout.zero.Trainer`, ``--workers 1``: the
   lockstep self-play runs in this process, its network calls on the device) for
   ``--iterations`` iterations of ``--games`` games searched in lockstep
   (``parallel_games = games``) at ``--simulations`` simulations a move, ``--steps`` gradient
   steps of ``--batch`` positions, no evaluation games and no benchmark positions, after an
   untimed tiny run that pays for compilation and the device's start; the table gives the
   last iteration: self-play positions per second and gradient steps per second.

The CPU rows run with ``--threads`` PyTorch threads (default 2, a laptop's share) and train
only the sizes in ``--cpu-sizes`` (default 64x4: a larger network's CPU iteration takes
minutes; its inference row is still measured). Nothing is
kept but the result file (``--json``); the runs go to a temporary folder.

Usage::

    python bench/zero_device.py --smoke                  # seconds: does it still run?
    python bench/zero_device.py --json bench/results/zero_device.json   # a few minutes
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

BATCHES = (1, 64, 256, 1024, 4096)


def parse_size(text: str) -> tuple[int, int]:
    channels, _, blocks = text.partition("x")
    return int(channels), int(blocks)


def measure_inference(model: Any, game: Any, batches: tuple[int, ...], reps: int) -> dict:
    """Positions per second of ``model.predict`` at each batch size (median of ``reps``)."""
    import numpy as np

    one = model.observations([game.initial_state()])
    rates = {}
    for batch in batches:
        x = np.repeat(one, batch, axis=0)
        for _ in range(2):
            model.predict(x)
        times = []
        for _ in range(reps):
            began = time.perf_counter()
            model.predict(x)
            times.append(time.perf_counter() - began)
        rates[batch] = batch / statistics.median(times)
    return rates


def measure_training(game: Any, device: str, size: tuple[int, int], args: argparse.Namespace):
    """The last of ``args.iterations`` training iterations on ``device``: its report."""
    from playout.zero import Architecture, TrainConfig, Trainer

    config = TrainConfig(
        games_per_iteration=args.games,
        parallel_games=args.games,
        simulations=args.simulations,
        steps_per_iteration=args.steps,
        batch_size=args.batch,
        architecture=Architecture(channels=size[0], blocks=size[1]),
        eval_games=0,
        eval_previous=False,
        benchmark_positions=0,
        threads=args.threads,
        seed=0,
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        Trainer(game, Path(folder) / "run", config, device=device) as trainer,
    ):
        report = None
        for _ in range(args.iterations):
            report = trainer.iterate()
    return report


def main(argv: list[str] | None = None) -> None:
    import torch

    import playout
    from playout.zero import Architecture, Model

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", nargs="+", default=None)
    parser.add_argument("--sizes", nargs="+", default=["64x4", "128x8"])
    parser.add_argument(
        "--cpu-sizes", nargs="+", default=["64x4"], help="the sizes trained on the CPU"
    )
    parser.add_argument("--threads", type=int, default=2, help="PyTorch threads on the CPU")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument("--games", type=int, default=128)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--json", metavar="FILE", help="write the result file")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: does it run?")
    args = parser.parse_args(argv)
    if args.smoke:
        args.sizes = args.cpu_sizes = ["16x1"]
        args.reps, args.iterations = 2, 1
        args.games, args.simulations, args.steps, args.batch = 4, 8, 3, 32
    devices = args.devices or (["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"])
    batches = BATCHES[:3] if args.smoke else BATCHES
    game = playout.games.Connect4Game()
    rows, details = [], []
    threads = torch.get_num_threads()
    warm = argparse.Namespace(**{**vars(args), "games": 4, "simulations": 8, "steps": 3})
    for device in devices:
        torch.set_num_threads(args.threads if device == "cpu" else threads)
        # Compilation (numba), the device's start and its kernels' first calls, untimed.
        measure_training(game, device, parse_size(args.sizes[0]), warm)
        name = torch.cuda.get_device_name() if device.startswith("cuda") else "cpu"
        for text in args.sizes:
            size = parse_size(text)
            model = Model(game, Architecture(channels=size[0], blocks=size[1]), device=device)
            rates = measure_inference(model, game, batches, args.reps)
            if device == "cpu" and text not in args.cpu_sizes:
                entry = {"device": device, "size": text, "threads": args.threads}
                details.append({**entry, "inference": rates})
                row = [f"cpu ({args.threads} threads)", text]
                rows.append(row + [f"{rates[b]:,.0f}" for b in batches] + ["-", "-"])
                print(" | ".join(rows[-1]), flush=True)
                continue
            began = time.perf_counter()
            report = measure_training(game, device, size, args)
            seconds = time.perf_counter() - began
            steps_per_second = args.steps / max(report.train_seconds, 1e-9)
            entry = {
                "device": device,
                "name": name,
                "size": text,
                "threads": args.threads if device == "cpu" else None,
                "inference": rates,
                "self_play_positions_per_second": report.positions_per_second,
                "self_play_seconds": report.self_play_seconds,
                "train_seconds": report.train_seconds,
                "steps_per_second": steps_per_second,
                "wall_seconds": seconds,
            }
            details.append(entry)
            label = f"{device} ({args.threads} threads)" if device == "cpu" else name
            rows.append(
                [label, text]
                + [f"{rates[b]:,.0f}" for b in batches]
                + [f"{report.positions_per_second:,.0f}", f"{steps_per_second:,.1f}"]
            )
            print(" | ".join(rows[-1]), flush=True)
    columns = (
        ["device", "network"]
        + [f"inference, batch {b} (positions/s)" for b in batches]
        + [
            f"self-play, {args.games} games x {args.simulations} simulations (positions/s)",
            f"training steps of {args.batch}/s",
        ]
    )
    if args.json:
        from results import write_results

        write_results(
            args.json,
            title="AlphaZero on the device against the CPU (connect four)",
            columns=columns,
            rows=rows,
            notes=(
                f"Self-play: {args.games} games in lockstep in one process, network calls on the "
                f"device; the last of {args.iterations} iterations. CPU rows: {args.threads} "
                "PyTorch threads."
            ),
            details={"entries": details, "torch": torch.__version__},
        )


if __name__ == "__main__":
    main()
