#!/usr/bin/env python
"""On which line of the 9x9 board a Go player's opening moves land: Black's first move and
White's reply to a few first moves, over several seeds, per player spec.

The line of a point is its distance to the nearest edge plus one (the edge is the first
line, the centre of 9x9 the fifth). Moves on the second line in an empty opening are slow
ones that strong players avoid; a search that plays them often has a bias to look for.

Usage::

    python bench/go_openings.py --biases 0.01 0.05 [--simulations 10000] [--seeds 16] [--json PATH]
    python bench/go_openings.py --biases 0.05 --simulations 200 --seeds 1   # seconds
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

OPENINGS = ("", "E5", "C3", "G7")
"""The positions searched: the empty board, then Black's first move at each of these."""
SPEC = "mcts:simulations={simulations},rule=rave,bias={bias},prior=50,rollout=mogo-hand"
"""The player measured: the default Go player of the GNU Go page, with the bias varied."""


def line(point: int, size: int) -> int:
    """The line of ``point`` (1: the edge)."""
    x, y = point % size, point // size
    return min(x, y, size - 1 - x, size - 1 - y) + 1


def opening_lines(bias: float, simulations: int, seeds: int) -> dict[str, dict[int, int]]:
    """Per opening (``"empty"`` or Black's first move): how many of ``seeds`` searches chose
    a move on each line."""
    import playout
    from playout._src.arena.specs import parse_player

    game = playout.make_game("go", size=9)
    spec = SPEC.format(simulations=simulations, bias=bias)
    counts: dict[str, dict[int, int]] = {}
    for first in OPENINGS:
        state = game.initial_state()
        if first:
            state = state.play(game.string_to_action(state, first))
        tally: collections.Counter[int] = collections.Counter()
        for seed in range(seeds):
            player = parse_player(spec, game)
            player.reset(state, seed)
            tally[line(player.choose(state), 9)] += 1
        counts[first or "empty"] = dict(sorted(tally.items()))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--biases", type=float, nargs="+", default=[0.01, 0.05])
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--json", metavar="PATH", help="write a result file")
    args = parser.parse_args()
    columns = ["RAVE bias", "position", "line 1", "line 2", "line 3", "line 4", "line 5"]
    rows = []
    totals = {}
    for bias in args.biases:
        counts = opening_lines(bias, args.simulations, args.seeds)
        for position, tally in counts.items():
            label = "empty board (Black)" if position == "empty" else f"after {position} (White)"
            rows.append([f"{bias:g}", label, *(tally.get(k, 0) for k in range(1, 6))])
            print(
                f"bias {bias:g}, {label}: " + ", ".join(f"line {k}: {v}" for k, v in tally.items())
            )
        second = sum(tally.get(2, 0) for tally in counts.values())
        searched = args.seeds * len(counts)
        totals[f"{bias:g}"] = second / searched
        print(f"bias {bias:g}: second line {second} of {searched} ({second / searched:.0%})")
    if args.json:
        from results import write_results  # bench/results.py, beside this script

        write_results(
            args.json,
            title=(
                f"Lines of the default Go player's opening moves at {args.simulations:,} "
                f"simulations, {args.seeds} seeds each (9x9, komi 7.5)"
            ),
            columns=columns,
            rows=rows,
            details={"share_on_second_line": totals, "spec": SPEC},
        )


if __name__ == "__main__":
    main()
