#!/usr/bin/env python
"""Fit Go move ratings (Coulom 2007) to kept game records, and measure how well they predict.

    python bench/go_ratings.py bench/records/go_gnugo_*.jsonl \\
        --table /tmp/ratings-9x9.json

(The shipped table was fitted to the seven files named in ``bench/results/go_ratings.json``'s
command, the records kept before it; a glob now reads the matches played with it too.)

Reads the records (``playout match --save`` files of 9x9 Go), makes each move that is not a
pass a competition among its position's legal moves (:func:`playout.games.go.ratings.
competitions`), holds out every ``--holdout``-th game (by its order in the files read), fits
the ratings to the other games' moves (:func:`~playout.games.go.ratings.fit`) and reports on
the held-out moves: how often each predictor's best move is the one played (ties shared) and
the mean log-probability of the moves played, for a uniform choice, the kernel's hand-made
priors (every piece: captures, escapes, MoGo's 3x3 patterns, penalties, ladders) and the
ratings. ``--players`` keeps only the moves of players whose spec starts with one of the given
prefixes (``gtp:`` for GNU Go). ``--table`` writes the fitted table (the one the kernel ships,
:data:`playout.games.go.kernel.PRIORS_RATINGS`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from playout._src.errors import InvalidParameterError
from playout.games.go.features import GROUPS
from playout.games.go.ratings import (
    competitions,
    fit,
    log_likelihood,
    prediction_rate,
    ratings_of,
    save_ratings,
)


def read_records(paths: list[Path]) -> list[dict[str, Any]]:
    records = []
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                records.append(json.loads(line))
    return records


def table_rows(data: Any, log_gamma: np.ndarray) -> list[list[str]]:
    """The held-out figures: a row per predictor."""
    ratings = ratings_of(data, log_gamma)
    uniform = np.zeros_like(ratings)
    rows = []
    for name, scores in (
        ("uniform", uniform),
        ("hand-made priors", data.priors),
        ("learned ratings", ratings),
    ):
        likelihood = f"{log_likelihood(data, scores):.3f}" if name != "hand-made priors" else ""
        rows.append([name, f"{prediction_rate(data, scores):.1%}", likelihood])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("records", nargs="+", type=Path)
    parser.add_argument("--holdout", type=int, default=10, help="hold out every Nth game")
    parser.add_argument("--players", nargs="*", default=[], help="spec prefixes to learn from")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--table", type=Path, help="write the fitted table here")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    if args.holdout < 2:
        print("go_ratings: --holdout must be 2 or more", file=sys.stderr)
        return 2
    try:
        records = read_records(args.records)
    except (OSError, ValueError) as error:  # a missing file, a line that is not JSON
        print(f"go_ratings: {error}", file=sys.stderr)
        return 2
    prefixes = tuple(args.players)

    def keep(record: Mapping[str, Any], player: int) -> bool:
        return not prefixes or str(record["players"][player]).startswith(prefixes)

    start = time.perf_counter()
    try:
        data = competitions(records, keep)
    except (InvalidParameterError, KeyError, TypeError) as error:  # not Go, illegal moves
        print(f"go_ratings: bad record: {error}", file=sys.stderr)
        return 2
    held = data.game % args.holdout == args.holdout - 1
    train, test = data.subset(~held), data.subset(held)
    log_gamma = fit(train, iterations=args.iterations)
    seconds = time.perf_counter() - start
    rows = table_rows(test, log_gamma)
    print(
        f"{len(records)} games, {data.positions} moves ({train.positions} to fit, "
        f"{test.positions} held out), {seconds:.0f} s"
    )
    print("| predictor (held-out moves) | best move played | log-likelihood (nats) |")
    print("|---|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    command = "python bench/go_ratings.py " + " ".join(sys.argv[1:] if argv is None else argv)
    strongest = {
        name: [round(float(v), 2) for v in np.sort(log_gamma[lo:hi])[::-1][:3]]
        for name, lo, hi in GROUPS
    }
    if args.table is not None:
        save_ratings(
            args.table,
            log_gamma,
            {
                "command": command,
                "records": [str(p) for p in args.records],
                "games": len(records),
                "moves_fitted": train.positions,
                "players": list(prefixes) or "all",
            },
        )
    if args.json is not None:
        from results import write_results  # bench/results.py, beside this script

        write_results(
            args.json,
            title="Go move ratings (Coulom 2007) against the hand-made priors, held-out moves",
            columns=["predictor", "best move is the one played", "log-likelihood (nats)"],
            rows=rows,
            notes=(
                f"{len(records)} games of 9x9 Go; every {args.holdout}th game held out "
                f"({test.positions} moves), the ratings fitted to the other {train.positions}"
            ),
            details={"largest_log_gamma_by_group": strongest},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
