"""How strong a connect-four network is: value-losing moves on solver-labelled positions, and
matches against rollout MCTS.

    PYTHONPATH=src python bench/zero_connect4.py                       # the shipped network
    PYTHONPATH=src python bench/zero_connect4.py --model runs/c4/model.pt --games 200 \\
        --opponents mcts:simulations=10000 mcts:simulations=100000 --workers 2

1. **Value-losing moves** on ``bench/data/connect4_positions.json`` (300 positions labelled
   by the exact solver, ``bench/connect4_positions.py``): the share of positions where the
   chooser plays a move whose outcome for the mover is worse than the best move's, for the
   network's policy alone (argmax, no search), the network with ``--simulations`` of search,
   and rollout MCTS with as many simulations, per bucket (begin 8-14 stones, middle 15-22,
   end 23-30), and the seconds each chooser's moves took (one move per position).
2. **Matches** (``--games`` > 0): ``zero:simulations=S`` and the policy alone
   (``zero:simulations=0``; ``--policy-games`` games, default ``--games``: it plays fast) against
   each ``--opponents`` spec, half the games as each side, through the arena (score with a 95%
   interval and Elo).

``--symmetries`` averages the network over each position and its mirror image (``zero:...,
symmetries=yes``) in both parts.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import connect4_positions as labelled
import playout
from playout.games import Connect4Game


def choosers(
    model_path: str | None, simulations: int, seed: int, symmetries: bool = False
) -> dict[str, Any]:
    """The move choosers compared on labelled positions."""
    from playout.zero import Model, ZeroPlayer, ZeroSearch, shipped_model_path

    game = Connect4Game()
    model = Model.load(model_path or shipped_model_path(game), game)
    c = model.metadata.get("c", 2.0)
    policy = ZeroPlayer(game, model, no_search=True, symmetries=symmetries)
    search = ZeroPlayer(
        game, model, ZeroSearch(simulations=simulations, c=c), symmetries=symmetries
    )

    def fresh(player: Any) -> Any:
        def choose(state: Any) -> int:
            player.reset(state, seed)
            return int(player.choose(state))

        return choose

    def rollout(state: Any) -> int:
        return int(playout.search(state, simulations=simulations, seed=seed).best_action)

    return {
        "policy alone": fresh(policy),
        f"zero, {simulations} simulations": fresh(search),
        f"rollout MCTS, {simulations} simulations": rollout,
    }


def value_losing(args: argparse.Namespace) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Per chooser, the value-losing share overall and per bucket, and the seconds its moves
    took (each position searched once)."""
    positions = labelled.load_positions(args.positions)
    if args.limit:
        positions = positions[: args.limit]
    buckets = [b for b in labelled.BUCKETS if any(p["bucket"] == b for p in positions)]
    report: dict[str, dict[str, float]] = {}
    seconds: dict[str, float] = {}
    for name, choose in choosers(args.model, args.simulations, args.seed, args.symmetries).items():
        chosen: dict[Any, int] = {}

        def once(state: Any, choose: Any = choose, chosen: dict[Any, int] = chosen) -> int:
            if state not in chosen:
                chosen[state] = choose(state)
            return chosen[state]

        started = time.perf_counter()
        row = {"all": labelled.value_losing_fraction(once, positions)}
        seconds[name] = time.perf_counter() - started
        for bucket in buckets:
            row[bucket] = labelled.value_losing_fraction(
                once, [p for p in positions if p["bucket"] == bucket]
            )
        report[name] = row
    return report, seconds


def matches(args: argparse.Namespace) -> list[dict[str, Any]]:
    game = Connect4Game()
    model = f",model={args.model}" if args.model else ""
    if args.symmetries:
        model += ",symmetries=yes"
    rows = []
    for opponent in args.opponents:
        for spec, games in (
            (f"zero:simulations={args.simulations}{model}", args.games),
            (f"zero:simulations=0{model}", args.policy_games or args.games),
        ):
            started = time.perf_counter()
            result = playout.run_match(
                game, spec, opponent, games=games, seed=args.seed, workers=args.workers
            )
            low, high = result.confidence_interval
            rows.append(
                {
                    "player": spec,
                    "opponent": opponent,
                    "games": result.games,
                    "wins": result.wins,
                    "draws": result.draws,
                    "losses": result.losses,
                    "score": result.score,
                    "interval": [low, high],
                    "elo": result.elo,
                    "seconds": time.perf_counter() - started,
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model file (default: the shipped network)")
    parser.add_argument("--simulations", type=int, default=800)
    parser.add_argument("--positions", type=Path, default=labelled.DEFAULT_OUT)
    parser.add_argument("--limit", type=int, help="only the first N labelled positions")
    parser.add_argument("--games", type=int, default=0, help="games per match (0: none)")
    parser.add_argument(
        "--policy-games", type=int, default=0, help="games of the policy alone (0: --games)"
    )
    parser.add_argument(
        "--opponents", nargs="+", default=["mcts:simulations=10000", "mcts:simulations=100000"]
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--symmetries", action="store_true", help="average the network over the mirror image"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    command = "python bench/zero_connect4.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    fractions, seconds = value_losing(args)
    report: dict[str, Any] = {
        "command": command.strip(),
        "value_losing": fractions,
        "value_losing_seconds": seconds,
    }
    if args.games:
        report["matches"] = matches(args)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"# {report['command']}")
    print("value-losing moves (share of labelled positions):")
    for name, row in report["value_losing"].items():
        cells = "  ".join(f"{k} {v:6.1%}" for k, v in row.items())
        print(f"  {name:32} {cells}  ({seconds[name]:.1f} s)")
    for row in report.get("matches", []):
        low, high = row["interval"]
        print(
            f"{row['player']} vs {row['opponent']}: {row['score']:.1%} [{low:.1%}, {high:.1%}]"
            f" ({row['wins']}-{row['draws']}-{row['losses']}, Elo {row['elo']:+.0f}, "
            f"{row['seconds']:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
