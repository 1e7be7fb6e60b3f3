#!/usr/bin/env python
"""Where lost Go games turned: GNU Go's score estimate after every move of saved games, and
the move that swung it most against the scored player.

    python bench/go_turning_points.py bench/records/go_gnugo_lgrf_111.jsonl --player mcts: \\
        --json bench/results/go_turning_points.json

Reads the games that ``playout match go ... --save FILE.jsonl`` wrote; for each game the
player whose spec starts with ``--player`` lost (every game with ``--all``), replays the moves
into one GNU Go process (GTP ``play``) and asks its ``estimate_score`` after each move. The
estimate is GNU Go's influence count (crude in the opening: it reads an empty-ish board as
White's by about komi plus a few points), so the figures are the swings, not the levels: for
each game the largest change of the estimate against the player from one move to the next,
the move number, and whose move it was. A swing after the opponent's move is the opponent's
capture or kill: the player's move before it failed to prevent it. The table counts the
games by the phase of their largest swing (moves 1-20, 21-40, 41-60, 61 and later) and says
whether it followed the player's move or the opponent's.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from typing import Any

from match_records import scored_side
from playout._src.arena.records import read_records
from playout._src.errors import PlayoutError
from playout.interop.gtp_player import GtpConnection, engine_argv

GNUGO = "/usr/games/gnugo --mode gtp --level 10 --chinese-rules"
PHASES = ((1, 20), (21, 40), (41, 60), (61, 10**6))
_ESTIMATE = re.compile(r"^([BW])\+([0-9.]+)|^0")


def black_margin(text: str) -> float:
    """Black's lead in points from a GTP score (``B+3.5``, ``W+12.0 (upper bound...)``,
    ``0``).

    Raises:
        ValueError: text that is no score.
    """
    found = _ESTIMATE.match(text.strip())
    if found is None:
        raise ValueError(f"not a score: {text!r}")
    if found.group(1) is None:
        return 0.0
    points = float(found.group(2))
    return points if found.group(1) == "B" else -points


def phase(move: int) -> str:
    """The phase (``"1-20"`` ... ``"61+"``) of a move numbered from 1."""
    for low, high in PHASES:
        if low <= move <= high:
            return f"{low}+" if high >= 10**6 else f"{low}-{high}"
    raise ValueError(f"move {move} is not numbered from 1")


def estimates(engine: GtpConnection, size: int, komi: float, moves: list[str]) -> list[float]:
    """Black's estimated lead after each of ``moves`` (GTP vertices or ``pass``), Black
    first."""
    engine.send(f"boardsize {size}")
    engine.send(f"komi {komi}")
    engine.send("clear_board")
    out = []
    colour = "B"
    for move in moves:
        engine.send(f"play {colour} {move}")
        out.append(black_margin(engine.send("estimate_score")))
        colour = "W" if colour == "B" else "B"
    return out


def largest_swing(margins: list[float], side: int) -> tuple[int, float]:
    """The move (numbered from 1) after which the estimate moved most against ``side`` (0
    Black, 1 White), and by how many points (> 0: against it); ``(0, 0.0)`` for no moves."""
    sign = 1.0 if side == 0 else -1.0
    best, drop = 0, 0.0
    previous = 0.0
    for i, margin in enumerate(margins):
        change = sign * (previous - margin)
        if i > 0 and change > drop:
            best, drop = i + 1, change
        previous = margin
    return best, drop


def analyse(paths: list[str], prefix: str, gnugo: str, every_game: bool) -> list[dict[str, Any]]:
    """Each game's largest swing (see the module docstring); ``phase`` and ``swing_after``
    are ``None`` for a game without one."""
    games = []
    engine = GtpConnection(engine_argv(gnugo), name="gnugo", timeout=60.0)
    try:
        for path in paths:
            for saved in read_records(path):
                data = saved.data
                if data["game"] != "go":
                    raise ValueError(f"{path}: game {saved.index} is {data['game']}, not go")
                side = scored_side(saved, path, prefix)
                lost = data.get("winner") is not None and data.get("winner") != side
                if not (lost or every_game):
                    continue
                params = data["params"]
                margins = estimates(engine, params["size"], params["komi"], list(data["moves"]))
                move, drop = largest_swing(margins, side)
                games.append(
                    {
                        "file": path,
                        "index": saved.index,
                        "colour": "B" if side == 0 else "W",
                        "lost": lost,
                        "moves": len(margins),
                        "swing_move": move,
                        "swing_points": round(drop, 1),
                        "phase": phase(move) if move else None,
                        "swing_after": (
                            None if not move else "player" if (move - 1) % 2 == side else "opponent"
                        ),
                        "played": data["moves"][move - 1] if move else "",
                    }
                )
    finally:
        engine.close()
    return games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="saved Go match records (.jsonl)")
    parser.add_argument("--player", default="mcts", help="the start of the scored player's spec")
    parser.add_argument("--gnugo", default=GNUGO, help="the GNU Go command (GTP mode)")
    parser.add_argument("--all", action="store_true", help="every game, not only the lost ones")
    parser.add_argument("--json", help="write the result file here")
    args = parser.parse_args(argv)
    try:
        games = analyse(args.files, args.player, args.gnugo, args.all)
    except (ValueError, PlayoutError) as error:  # bad records (RecordError), GNU Go failing
        print(f"go_turning_points: {error}", file=sys.stderr)
        return 2
    by_phase = Counter((g["phase"], g["swing_after"]) for g in games)
    columns = ["moves", "games", "after the player's move", "after the opponent's move",
               "median swing (points)"]  # fmt: skip
    rows = []
    for low, _ in PHASES:
        name = phase(low)
        swings = sorted(g["swing_points"] for g in games if g["phase"] == name)
        median = f"{swings[len(swings) // 2]:.1f}" if swings else "-"
        rows.append([
            name, str(len(swings)), str(by_phase[(name, "player")]),
            str(by_phase[(name, "opponent")]), median,
        ])  # fmt: skip
    title = (
        f"The largest swing of GNU Go's estimate against {args.player} in "
        f"{'each' if args.all else 'each lost'} game, by phase ({len(games)} games)"
    )
    print(title)
    for cells in [columns, *rows]:
        print(" | ".join(cells))
    if args.json:
        from results import write_results

        write_results(
            args.json, title=title, columns=columns, rows=rows,
            details={"games": games}, commands=[],
        )  # fmt: skip
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
