#!/usr/bin/env python
"""What ``Budget(stop_early=True)`` saves over whole games: self-play of one player spec
(with ``early=yes``) from the initial position, per move the seconds used against the
limit and why the search stopped.

The move played is the most visited, which no other move could reach in the simulations the
rate measured so far would run in the time left; so what a game shows is mostly the time
spent: the share of the limit used, and how many moves were settled early. (Not a proof of
the same moves: under a time limit the rate is an estimate, and with the solver on, the
``mcts:`` default, a proof the time left would have found can still change a move.)

Usage::

    python bench/stop_early.py --game go --size 9 --games 2 \\
        --spec mcts:seconds=1,rule=rave,bias=0.01,prior=50,rollout=mogo-hand
    python bench/stop_early.py --game connect4 --games 1 --spec mcts:seconds=0.05 --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not


def play(
    game_name: str, params: dict[str, object], spec: str, games: int, seed: int
) -> dict[str, object]:
    """``games`` self-play games of ``spec`` + ``early=yes``; per-move seconds and reasons."""
    import playout
    from playout._src.arena.players import MctsPlayer
    from playout._src.arena.specs import parse_player

    game = playout.make_game(game_name, **params)
    spec = f"{spec},early=yes" if ":" in spec else f"{spec}:early=yes"
    limit = parse_player(spec, game).options.budget.seconds  # type: ignore[attr-defined]
    used: list[float] = []
    reasons: list[str] = []
    lengths: list[int] = []
    start = time.perf_counter()
    for index in range(games):
        players = [parse_player(spec, game), parse_player(spec, game)]
        assert all(isinstance(player, MctsPlayer) for player in players)
        state = game.initial_state()
        for number, player in enumerate(players):
            player.reset(state, seed + 2 * index + number)
        moves = 0
        while not state.is_terminal():
            mover = players[moves % 2]
            action = mover.choose(state)
            result = mover.last_result  # type: ignore[attr-defined]
            used.append(result.seconds)
            reasons.append(result.stop_reason)
            for player in players:
                player.notify(action)
            state = state.play(action)
            moves += 1
        lengths.append(moves)
    decided = reasons.count("decided")
    return {
        "game": game_name,
        "params": params,
        "spec": spec,
        "games": games,
        "moves": len(used),
        "mean_moves_per_game": statistics.mean(lengths),
        "limit_seconds": limit,
        "mean_seconds_per_move": statistics.mean(used),
        "share_of_limit_used": (sum(used) / (limit * len(used))) if limit else None,
        "moves_settled_early": decided,
        "share_settled_early": decided / len(used),
        "wall_seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="go")
    parser.add_argument("--size", type=int, help="go: the board's side")
    parser.add_argument(
        "--spec", default="mcts:seconds=1,rule=rave,bias=0.01,prior=50,rollout=mogo-hand"
    )
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    args = parser.parse_args()
    params: dict[str, object] = {} if args.size is None else {"size": args.size}
    report = play(args.game, params, args.spec, args.games, args.seed)
    for key, value in report.items():
        print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
