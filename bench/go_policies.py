#!/usr/bin/env python
"""Go's playout policies side by side: playouts per CPU second, length and Black's score.

From the empty 9x9 board (komi 7.5), for each of the kernel's playouts (``light``: Dailey's;
``heavy``: answers to the last stone; ``mogo``: MoGo's escapes, 3x3 patterns and captures,
self-atari refused; ``mogo+ladders``: the same with the ladder reads that leave a chain
caught in a ladder, the ``PLAYOUT_LADDERS`` feature; ``mogo+captures``: the MoGo playouts
with their default features and a capture anywhere on the board when nothing answers the
last stone, the ``PLAYOUT_CAPTURES`` feature; see
:func:`playout.games.go.kernel.go_kernel`): ``--playouts`` kernel
rollouts in a row per repetition, the policies taking turns within each repetition, timed
in CPU seconds of this process. The report: each policy's median playouts per CPU second,
the median of the per-repetition ratios to the light playouts, the mean moves per playout
(passes included) and Black's score (wins, draws half) over every playout played.

Usage::

    python bench/go_policies.py [--playouts 20000] [--reps 5] [--json PATH]
    python bench/go_policies.py --playouts 200 --reps 1     # does it run?
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from playout._src.tree.rng import new_rng_state
from playout.games.go.kernel import (
    LAST_LENGTH,
    PLAYOUT_CAPTURES,
    PLAYOUT_DEFAULT,
    PLAYOUT_LADDERS,
    POLICIES,
    go_kernel,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--playouts", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", metavar="PATH", help="write the result file")
    args = parser.parse_args()
    kernels = {name: go_kernel(9, 7.5, playouts=name) for name in POLICIES}
    kernels["mogo+ladders"] = go_kernel(9, 7.5, playouts="mogo", features=PLAYOUT_LADDERS)
    kernels["mogo+captures"] = go_kernel(
        9, 7.5, playouts="mogo", features=PLAYOUT_DEFAULT | PLAYOUT_CAPTURES
    )
    names = list(kernels)
    rates: dict[str, list[float]] = {name: [] for name in names}
    moves = dict.fromkeys(names, 0)
    score = dict.fromkeys(names, 0.0)
    count = dict.fromkeys(names, 0)
    for kernel in kernels.values():  # compile outside the timing
        scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        kernel.rollout(kernel.params, kernel.new_state(), scratch, new_rng_state(0))
    for rep in range(args.reps):
        order = names[rep % len(names) :] + names[: rep % len(names)]
        for name in order:
            kernel = kernels[name]
            state = kernel.new_state()
            scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
            rng = new_rng_state(1000 + rep)
            start = time.process_time()
            for _ in range(args.playouts):
                value = kernel.rollout(kernel.params, state, scratch, rng)
                moves[name] += int(scratch[LAST_LENGTH])
                score[name] += (value + 1.0) / 2.0
            rates[name].append(args.playouts / max(time.process_time() - start, 1e-9))
            count[name] += args.playouts
    rows = []
    for name in names:
        ratios = [r / base for r, base in zip(rates[name], rates["light"], strict=True)]
        rows.append(
            [
                name,
                f"{statistics.median(rates[name]):,.0f}",
                f"{statistics.median(ratios):.2f}",
                f"{moves[name] / count[name]:.1f}",
                f"{score[name] / count[name]:.3f}",
            ]
        )
    columns = ["playouts", "per CPU second", "over light", "moves per playout", "Black's score"]
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join(row))
    if args.json:
        from results import write_results  # bench/results.py, beside this script

        write_results(
            args.json,
            title=(
                "Go's playouts from the empty 9x9 board (komi 7.5) on one core, per CPU "
                f"second (median of {args.reps} interleaved repetitions of "
                f"{args.playouts:,} playouts)"
            ),
            columns=columns,
            rows=rows,
        )


if __name__ == "__main__":
    main()
