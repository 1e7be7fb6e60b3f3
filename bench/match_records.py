#!/usr/bin/env python
"""A result file from the records of saved matches: one row per file, and all of them.

    python bench/match_records.py games105.jsonl games107.jsonl --player mcts: \\
        --title "..." --json bench/results/go_gnugo_lgrf.json

Reads the games that ``playout match ... --save FILE.jsonl`` wrote (checked move by move by
``playout replay``'s reader) and scores, for the player whose spec starts with ``--player``
(in every game one side, the other not): games, wins-draws-losses, wins as the first and the
second player (Black and White in Go), the score with its 95% Wilson interval, and in how
many games another program's own count named the same winner, and gave the same score (the
``score_checks`` of GTP opponents: GNU Go's ``final_score``). The match commands themselves
are not in the records; give them with ``--command`` (repeatable) to keep them in the result
file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from playout._src.arena.match import wilson_interval
from playout._src.arena.records import read_records


def scored_side(saved: Any, path: str, prefix: str) -> int:
    """The seat (0: first player) of the player whose spec starts with ``prefix`` in the
    saved game ``saved`` of the file ``path``.

    Raises:
        ValueError: neither side's spec, or both, start with ``prefix``.
    """
    players = list(saved.data["players"])
    ours = [i for i, spec in enumerate(players) if str(spec).startswith(prefix)]
    if len(ours) != 1:
        raise ValueError(f"{path}: game {saved.index} has {players!r}: no one side {prefix!r}")
    return ours[0]


def tally(path: str, prefix: str) -> dict[str, Any]:
    """The figures of one file of saved games for the player whose spec starts with
    ``prefix``.

    Raises:
        ValueError: a game where neither side's spec, or both, start with ``prefix``.
    """
    wins = draws = losses = 0
    first = [0, 0]  # wins and games as the first player
    second = [0, 0]
    agreeing = same_score = checked = 0
    for saved in read_records(path):
        side = scored_side(saved, path, prefix)
        winner = saved.data.get("winner")
        won, lost = winner == side, winner is not None and winner != side
        wins += won
        losses += lost
        draws += not won and not lost
        seat = first if side == 0 else second
        seat[0] += won
        seat[1] += 1
        checks = saved.data.get("score_checks", [])
        if checks:
            checked += 1
            agreeing += all(check.get("same_winner") for check in checks)
            same_score += all(check.get("same_score") for check in checks)
    games = wins + draws + losses
    return {
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "first": first,
        "second": second,
        "checked": checked,
        "agreeing": agreeing,
        "same_score": same_score,
    }


def row(name: str, figures: dict[str, Any]) -> list[str]:
    games = figures["games"]
    score = (figures["wins"] + 0.5 * figures["draws"]) / games if games else 0.0
    low, high = wilson_interval(score, games)
    first, second = figures["first"], figures["second"]
    return [
        name,
        str(games),
        f"{figures['wins']}-{figures['draws']}-{figures['losses']}",
        f"{first[0]} of {first[1]}",
        f"{second[0]} of {second[1]}",
        f"{score:.3f} ({low:.3f}-{high:.3f})",
        f"{figures['agreeing']} of {figures['checked']} ({figures['same_score']} the same score)",
    ]


COLUMNS = [
    "records",
    "games",
    "W-D-L",
    "as first player (Black)",
    "as second player (White)",
    "score (Wilson 95%)",
    "other program's count naming the same winner (the same score)",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="saved match records (.jsonl)")
    parser.add_argument("--player", default="mcts", help="the start of the scored player's spec")
    parser.add_argument("--title", default="Saved matches")
    parser.add_argument("--command", action="append", default=[], help="a match's command")
    parser.add_argument("--notes", default="")
    parser.add_argument("--json", help="write the result file here")
    args = parser.parse_args(argv)
    per_file = {Path(path).name: tally(path, args.player) for path in args.files}
    total: dict[str, Any] = {
        key: sum(f[key] for f in per_file.values())
        for key in ("games", "wins", "draws", "losses", "checked", "agreeing", "same_score")
    }
    for seat in ("first", "second"):
        total[seat] = [sum(f[seat][i] for f in per_file.values()) for i in (0, 1)]
    rows = [row(name, figures) for name, figures in per_file.items()]
    if len(per_file) > 1:
        rows.append(row("all", total))
    print(args.title)
    for cells in [COLUMNS, *rows]:
        print(" | ".join(cells))
    if args.json:
        from results import write_results

        write_results(
            args.json, title=args.title, columns=COLUMNS, rows=rows, notes=args.notes,
            details={"files": per_file}, commands=args.command,
        )  # fmt: skip
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
