"""The gomoku network against rollout MCTS with neighbour rollouts, at equal time per move.

    PYTHONPATH=src python bench/zero_gomoku.py                        # the shipped network
    PYTHONPATH=src python bench/zero_gomoku.py --model runs/gomoku15/model.pt \\
        --seconds 1 --games 200 --minutes 21 --json bench/results/zero_gomoku.json

Gomoku 15x15, five in a row (seed 004's game). For each ``--seconds`` budget, one match of
``--games`` games: ``zero:seconds=S`` (PUCT guided by the network, the constant its file
records; ``--model``, default the network shipped with playout) against
``mcts:seconds=S,rollout=neighbors`` (rollout MCTS whose rollouts play next to existing
stones, the rollouts seed 004 asked for), in pairs of games: the network moves first in the
first game of pair ``k`` and second in the other, the pair seeded ``--seed`` + ``k``.
``--minutes M`` starts no new pair after M minutes (the games played so far are the
result). Both players get the same wall-clock seconds per move, in the same process, one
game at a time by default (``--workers``: games at once, each in its own process; on a
machine with fewer free cores than workers the players' time buys less search). The score
(wins + draws / 2, from the network's side) comes with its 95% Wilson interval and the Elo
difference.

The table goes to stdout and, with ``--json PATH``, to a result file
(``bench/results.py``'s ``write_results``) with the raw match summaries under ``details``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import playout
from playout.games import gomoku

COLUMNS = (
    "time per move",
    "games",
    "network wins-draws-losses",
    "network score (95% Wilson)",
    "Elo (95% CI)",
    "as first / second player",
    "mean moves per game",
)
OPPONENT = "mcts:seconds={seconds:g},rollout=neighbors"


def network_spec(seconds: float, model: str | None) -> str:
    """The network's player spec at ``seconds`` per move."""
    return f"zero:seconds={seconds:g}" + (f",model={model}" if model else "")


def match(
    seconds: float,
    *,
    model: str | None,
    games: int,
    seed: int,
    workers: int,
    minutes: float | None = None,
) -> dict[str, Any]:
    """One match at ``seconds`` per move, played as pairs of games (the network first, then
    second; pair ``k`` is a two-game match seeded ``seed + k``), until ``games`` are played or,
    with ``minutes``, no new pair starts after that many minutes. Its summary
    (``MatchResult.as_dict``) with the wall-clock seconds it took and the network's score as
    each colour."""
    game = gomoku()
    started = time.perf_counter()
    records: list[Any] = []
    result = None
    for pair in range((games + 1) // 2):
        if pair and minutes is not None and time.perf_counter() - started > minutes * 60:
            break
        result = playout.run_match(
            game,
            network_spec(seconds, model),
            OPPONENT.format(seconds=seconds),
            games=min(2, games - 2 * pair),
            seed=seed + pair,
            workers=workers,
        )
        records.extend(result.records)
        for record in result.records:
            print(
                f"  game {len(records) - len(result.records) + record.index + 1}/{games}: "
                f"{record.num_moves} moves, {record.seconds:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    assert result is not None  # the first pair always starts
    result = dataclasses.replace(result, records=tuple(records), seed=seed, planned_games=games)
    summary = result.as_dict()
    summary["seconds_per_move"] = seconds
    summary["wall_seconds"] = time.perf_counter() - started
    scores = result.outcomes()
    summary["score_first"] = _mean([s for i, s in enumerate(scores) if i % 2 == 0])
    summary["score_second"] = _mean([s for i, s in enumerate(scores) if i % 2 == 1])
    summary["mean_moves"] = _mean([float(r["moves"]) for r in summary["results"]])
    return summary


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def row(summary: dict[str, Any]) -> list[str]:
    """The table row of a match summary."""
    low, high = summary["ci95"]
    elo_low, elo_high = summary["elo_ci95"]
    first, second = summary["score_first"], summary["score_second"]
    sides = " / ".join("-" if s is None else f"{s:.0%}" for s in (first, second))
    return [
        f"{summary['seconds_per_move']:g} s",
        str(summary["games"]),
        f"{summary['wins']}-{summary['draws']}-{summary['losses']}",
        f"{summary['score']:.1%} ({low:.1%}-{high:.1%})",
        f"{summary['elo']:+.0f} ({elo_low:+.0f}..{elo_high:+.0f})",
        sides,
        f"{summary['mean_moves']:.1f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="the network's file (default: the shipped network)")
    parser.add_argument(
        "--seconds", type=float, nargs="+", default=[0.5], help="time budgets per move"
    )
    parser.add_argument("--games", type=int, default=20, help="games per budget")
    parser.add_argument(
        "--minutes",
        type=float,
        help="per budget, start no new pair of games after this many minutes",
    )
    parser.add_argument("--seed", type=int, default=0, help="the matches' seed")
    parser.add_argument("--workers", type=int, default=1, help="games at once")
    parser.add_argument("--json", metavar="PATH", help="write a result file here")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1 or any(not s > 0 for s in args.seconds):
        parser.error("--games and --workers must be >= 1 and --seconds > 0")
    summaries = []
    for seconds in args.seconds:
        print(f"{seconds:g} s per move, {args.games} games", file=sys.stderr, flush=True)
        summaries.append(
            match(
                seconds,
                model=args.model,
                games=args.games,
                seed=args.seed,
                workers=args.workers,
                minutes=args.minutes,
            )
        )
    rows = [row(s) for s in summaries]
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for cells in rows:
        print("| " + " | ".join(cells) + " |")
    if args.json:
        from results import write_results

        model = args.model or "the shipped network (gomoku-15x15-5.pt)"
        write_results(
            args.json,
            title="The gomoku 15x15 network against rollout MCTS with neighbour rollouts, "
            "equal time per move",
            columns=COLUMNS,
            rows=rows,
            notes=f"network: {model}; opponent: mcts:seconds=S,rollout=neighbors",
            details={"matches": summaries},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
