#!/usr/bin/env python
"""Go's light playouts against Don Dailey's reference bot, and their speed against OpenSpiel.

1. Fidelity. Dailey's reference bot (computer-go mailing list, "java reference bot", October
   2008) published what its light playouts come to from the empty 9x9 board over 1,000,000
   playouts: 111.05 moves per playout (both final passes counted), Black's score 0.4213 at
   komi 7.5 and 0.5245 at komi 0 (wins, draws counted half), and four more komi. This script
   plays ``--playouts`` playouts of playout's Go kernel (``GoGame(9).initial_state()
   .compiled_kernel().rollout``, through :func:`playout.games.go.playouts.light_playouts`)
   and prints a table, ours against his, with standard errors: ours from the sample, his from
   the same spread over his 1,000,000 (binomial for the scores), and the difference in units
   of the two combined. Playouts do not depend on komi, so one run gives every row.

2. Speed, one core, from the empty 9x9 board, in CPU seconds of this process, ``--reps``
   repetitions that take turns (the median of the per-repetition ratios is reported, so that
   the drift of a shared machine hits both sides of a ratio alike):

   * playout's light playouts: ``--speed-playouts`` kernel rollouts in a row;
   * playout's compiled MCTS: one search of ``--sims`` simulations (UCT c = sqrt(2), one
     light playout per simulation, solver off), a fresh tree each time;
   * OpenSpiel's C++ Go (``go(board_size=9,komi=7.5)``) under its C++ ``MCTSBot`` with
     ``RandomRolloutEvaluator(1)``, ``--sims`` simulations, the same UCT. Not like for like:
     its rollouts pick uniformly among all legal moves, eye-filling moves and the pass
     included, until its ``max_game_length`` (162 moves on 9x9); their mean length is
     printed too. Left out, with a note, when open-spiel is not installed.

   libego (Lukasz Lew's library, 2009) is the anchor: about 100,000 light playouts per second
   on one core of the hardware of the day.

Usage::

    python bench/go_playouts.py [--playouts 1000000] [--seed 0] [--reps 5] [--sims 10000]
                                [--speed-playouts 100000] [--json [PATH]]
    python bench/go_playouts.py --smoke      # a few seconds: does it still run?
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

import playout  # noqa: E402
from playout.games.go import GoGame  # noqa: E402
from playout.games.go.playouts import (  # noqa: E402
    DAILEY_BLACK_SCORE,
    DAILEY_MOVES,
    DAILEY_PLAYOUTS,
    PlayoutStatistics,
    light_playouts,
)

UCT_C = math.sqrt(2.0)
OPENSPIEL_GAME = "go(board_size=9,komi=7.5)"
LIBEGO_PLAYOUTS_PER_SECOND = 100_000
"""libego's light playouts per second on one core of 2009 hardware (the anchor)."""
KOMI_ROWS = (7.5, 0.0, 5.5, 6.0, 6.5, 7.0)


# ------------------------------------------------------------------------------ fidelity


def fidelity_rows(stats: PlayoutStatistics) -> list[dict[str, Any]]:
    """Dailey's figures against ours: moves per playout (his komi 7.5 run, and his five runs
    pooled: playouts do not depend on komi), then Black's score at each komi of his post.
    Standard errors: ours from the sample; his moves from our spread over his playouts, his
    scores binomial; ``z``: ours minus his over the two combined."""
    n = stats.num_playouts
    spread = stats.moves_standard_error * math.sqrt(n)  # one playout's standard deviation
    pooled = sum(DAILEY_MOVES.values()) / (DAILEY_PLAYOUTS * len(DAILEY_MOVES))
    moves = [
        ("moves per playout, his komi 7.5 run", DAILEY_MOVES[7.5] / DAILEY_PLAYOUTS, 1),
        ("moves per playout, his 5 runs pooled", pooled, len(DAILEY_MOVES)),
    ]
    rows = []
    for figure, his, runs in moves:
        his_se = spread / math.sqrt(DAILEY_PLAYOUTS * runs)
        rows.append(
            {
                "figure": figure,
                "dailey": round(his, 4),
                "dailey_se": round(his_se, 4),
                "dailey_playouts": DAILEY_PLAYOUTS * runs,
                "ours": round(stats.mean_moves, 4),
                "ours_se": round(stats.moves_standard_error, 4),
                "z": round(
                    (stats.mean_moves - his) / math.hypot(stats.moves_standard_error, his_se), 2
                ),
            }
        )
    for komi in KOMI_ROWS:
        his = DAILEY_BLACK_SCORE[komi]
        his_se = math.sqrt(his * (1 - his) / DAILEY_PLAYOUTS)
        ours = stats.black_score(komi)
        ours_se = stats.black_score_standard_error(komi)
        rows.append(
            {
                "figure": f"Black's score, komi {komi:g}",
                "dailey": his,
                "dailey_se": round(his_se, 6),
                "dailey_playouts": DAILEY_PLAYOUTS,
                "ours": round(ours, 6),
                "ours_se": round(ours_se, 6),
                "z": round((ours - his) / math.hypot(ours_se, his_se), 2),
            }
        )
    return rows


def fidelity_text(stats: PlayoutStatistics, rows: list[dict[str, Any]], seed: int) -> str:
    lines = [
        f"Dailey's reference bot against ours, light playouts from the empty 9x9 board; ours: "
        f"{stats.num_playouts:,} playouts (seed {seed}); moves count both final passes; "
        "score: wins, draws counted half; (standard error)",
        "",
        "| figure | Dailey | playouts | ours | z |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        digits = 3 if row["figure"].startswith("moves") else 4
        lines.append(
            f"| {row['figure']} | {row['dailey']:.{digits}f} ({row['dailey_se']:.{digits}f}) | "
            f"{row['dailey_playouts']:,} | {row['ours']:.{digits}f} ({row['ours_se']:.{digits}f}) "
            f"| {row['z']:+.2f} |"
        )
    worst = max(abs(row["z"]) for row in rows)
    lines.append("")
    lines.append(f"largest difference: {worst:.2f} combined standard errors")
    return "\n".join(lines)


# --------------------------------------------------------------------------------- speed


def playout_rate(num_playouts: int, seed: int) -> float:
    """Light playouts per CPU second: ``num_playouts`` kernel rollouts from the empty board."""
    start = time.process_time()
    light_playouts(GoGame(9), num_playouts, seed=seed)
    return num_playouts / max(time.process_time() - start, 1e-9)


def mcts_rate(simulations: int, seed: int) -> float:
    """Simulations per CPU second of playout's compiled MCTS: one fresh search."""
    state = GoGame(9).initial_state()
    start = time.process_time()
    engine = playout.MCTS(state, seed=seed, solver=False, backend="compiled")
    result = engine.run(playout.Budget(simulations=simulations))
    del engine
    return result.simulations / max(time.process_time() - start, 1e-9)


def openspiel_runner() -> Any:
    """``run(simulations, seed)``: OpenSpiel's C++ MCTS on 9x9 Go, simulations per CPU
    second; ``None`` when open-spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(OPENSPIEL_GAME)
    state = game.new_initial_state()

    def run(simulations: int, seed: int) -> float:
        start = time.process_time()
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, UCT_C, simulations, 4000, False, seed, False)
        root = bot.mcts_search(state)
        done = int(root.explore_count)
        del root, bot
        return done / max(time.process_time() - start, 1e-9)

    return run


def openspiel_rollout_moves(num_games: int, seed: int) -> float:
    """Mean length of OpenSpiel's random rollouts from the empty board (uniform over its
    legal moves until the end or its length cap), played through pyspiel."""
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_GAME)
    rng = random.Random(seed)
    total = 0
    for _ in range(num_games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            total += 1
    return total / num_games


def speed(args: argparse.Namespace) -> dict[str, Any]:
    theirs = openspiel_runner()
    playout_rate(1000, 999)  # warm-up: load the compiled code
    mcts_rate(200, 999)
    if theirs is not None:
        theirs(200, 999)
    rates: dict[str, list[float]] = {"playouts": [], "mcts": [], "openspiel": []}
    for rep in range(args.reps):
        rates["playouts"].append(playout_rate(args.speed_playouts, rep))
        rates["mcts"].append(mcts_rate(args.sims, rep))
        if theirs is not None:
            rates["openspiel"].append(theirs(args.sims, rep))
    out: dict[str, Any] = {
        "reps": args.reps,
        "sims": args.sims,
        "speed_playouts": args.speed_playouts,
        "playouts_per_second": round(statistics.median(rates["playouts"])),
        "mcts_simulations_per_second": round(statistics.median(rates["mcts"])),
        "libego_playouts_per_second": LIBEGO_PLAYOUTS_PER_SECOND,
    }
    if theirs is not None:
        out["openspiel_simulations_per_second"] = round(statistics.median(rates["openspiel"]))
        out["playouts_over_openspiel"] = round(
            statistics.median(
                p / o for p, o in zip(rates["playouts"], rates["openspiel"], strict=True)
            ),
            2,
        )
        out["mcts_over_openspiel"] = round(
            statistics.median(
                m / o for m, o in zip(rates["mcts"], rates["openspiel"], strict=True)
            ),
            2,
        )
        out["openspiel_rollout_moves"] = round(openspiel_rollout_moves(args.openspiel_games, 1), 1)
    return out


def speed_text(row: dict[str, Any]) -> str:
    lines = [
        f"Speed from the empty 9x9 board, one core, per CPU second (median of {row['reps']} "
        "interleaved repetitions):",
        "",
        "| what | per CPU second | ours over it |",
        "|---|---:|---:|",
        f"| playout: light playouts ({row['speed_playouts']:,} kernel rollouts) | "
        f"{row['playouts_per_second']:,} | |",
        f"| playout: compiled MCTS, {row['sims']:,} simulations (one light playout each) | "
        f"{row['mcts_simulations_per_second']:,} | |",
    ]
    if "openspiel_simulations_per_second" in row:
        lines.append(
            f"| OpenSpiel: C++ MCTSBot on {OPENSPIEL_GAME}, {row['sims']:,} simulations "
            f"(random rollouts of {row['openspiel_rollout_moves']} moves on average) | "
            f"{row['openspiel_simulations_per_second']:,} | playouts "
            f"{row['playouts_over_openspiel']:.1f}x, MCTS {row['mcts_over_openspiel']:.1f}x |"
        )
    lines.append(
        f"| libego, light playouts on 2009 hardware (anchor) | "
        f"~{row['libego_playouts_per_second']:,} | "
        f"{row['playouts_per_second'] / row['libego_playouts_per_second']:.2f}x |"
    )
    if "openspiel_simulations_per_second" not in row:
        lines.append("")
        lines.append("(open-spiel is not installed: its row is left out)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", type=int, default=1_000_000, help="for the fidelity table")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fidelity playouts")
    parser.add_argument("--reps", type=int, default=5, help="speed repetitions")
    parser.add_argument("--sims", type=int, default=10_000, help="MCTS simulations per search")
    parser.add_argument("--speed-playouts", type=int, default=100_000)
    parser.add_argument("--openspiel-games", type=int, default=2000, help=argparse.SUPPRESS)
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="one JSON object; with PATH, print the tables and write the speed table's result "
        "file, which the documentation renders (bench/results/go_speed.json)",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="tiny sizes: a few seconds, figures meaningless"
    )
    args = parser.parse_args()
    if args.smoke:
        args.playouts, args.reps, args.sims, args.speed_playouts = 20_000, 1, 300, 2_000
        args.openspiel_games = 50
    if min(args.playouts, args.reps, args.sims, args.speed_playouts) < 1:
        parser.error("--playouts, --reps, --sims and --speed-playouts must be at least 1")
    if args.json != "-":
        print(f"# python bench/go_playouts.py {' '.join(sys.argv[1:])}".rstrip(), flush=True)
    stats = light_playouts(GoGame(9), args.playouts, seed=args.seed)
    rows = fidelity_rows(stats)
    if args.json != "-":
        print(fidelity_text(stats, rows, args.seed), flush=True)
        print(flush=True)
    row = speed(args)
    if args.json == "-":
        report = {
            "command": f"python bench/go_playouts.py {' '.join(sys.argv[1:])}".rstrip(),
            "playouts": stats.num_playouts,
            "seed": args.seed,
            "moves_per_playout": round(stats.mean_moves, 4),
            "moves_standard_error": round(stats.moves_standard_error, 4),
            "fidelity": rows,
            "speed": row,
        }
        print(json.dumps(report))
    else:
        print(speed_text(row))
    if args.json not in (None, "-"):
        write_speed_file(args.json, row)


def write_speed_file(path: str, row: dict[str, Any]) -> None:
    """The speed table of the documentation (docs/explanation/performance.md, "Go") as a
    result file."""
    from results import write_results  # bench/results.py, beside this script

    rows = [
        ["playout's light playouts (kernel rollouts)", f"{row['playouts_per_second']:,}", ""],
        [
            f"playout's compiled MCTS, {row['sims']:,} simulations, one light playout each",
            f"{row['mcts_simulations_per_second']:,}",
            "",
        ],
    ]
    if "openspiel_simulations_per_second" in row:
        rows.append(
            [
                f"OpenSpiel's C++ Go under its C++ `MCTSBot` (`RandomRolloutEvaluator(1)`), "
                f"{row['sims']:,} simulations",
                f"{row['openspiel_simulations_per_second']:,}",
                f"{row['playouts_over_openspiel']:.1f}x (playouts), "
                f"{row['mcts_over_openspiel']:.1f}x (MCTS)",
            ]
        )
    rows.append(
        [
            "libego's light playouts on 2009 hardware (the anchor)",
            f"about {row['libego_playouts_per_second']:,}",
            f"{row['playouts_per_second'] / row['libego_playouts_per_second']:.2f}x",
        ]
    )
    write_results(
        path,
        title="Go speed from the empty 9x9 board on one core, per CPU second (median of "
        f"{row['reps']} interleaved repetitions)",
        columns=["what", "per CPU second", "playout over it"],
        rows=rows,
    )


if __name__ == "__main__":
    main()
