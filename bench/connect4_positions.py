"""Connect-four test positions labelled by the exact solver, and the value-losing-move rate.

For evaluating a move chooser (an AlphaZero-style network's policy, an MCTS player): the
share of positions where it plays a *value-losing* move, one whose game-theoretic outcome
for the mover (win, draw or loss, under perfect play afterwards) is worse than the best
move's. Faster or slower wins do not count, only the outcome.

Positions are drawn deterministically from a seed by playing moves from the empty 7x6 board,
in three buckets by the number of stones on the board (after Pons's test sets): ``begin``
8-14, ``middle`` 15-22, ``end`` 23-30. Half the positions come from uniformly random moves,
half from "safe" random moves that never hand the opponent an immediate win (positions
closer to real play); moves that end the game are never played, and positions where the mover
can win at once are skipped. Each position is labelled with
:func:`playout.games.connect4.solver.move_scores`::

    PYTHONPATH=src python bench/connect4_positions.py            # writes the data file
    PYTHONPATH=src python bench/connect4_positions.py --per-bucket 2 --buckets end --out x.json
    PYTHONPATH=src python bench/connect4_positions.py --evaluate bench/data/connect4_positions.json

The data file is JSON: ``{"game": ..., "seed": ..., "buckets": ..., "positions": [...]}``
with, per position, ``moves`` (columns 1-7 as :meth:`Connect4Game.from_moves` takes them),
``bucket``, ``play`` (``random`` or ``safe``), ``score`` (Pons's convention, for the player to
move: positive wins, larger sooner), ``outcome`` (+1/0/-1), ``scores`` (each column's score
for the mover, ``null`` for a full column) and ``losing`` (the value-losing columns, 1-7).

:func:`value_losing_fraction` scores any ``state -> action`` callable on such a list.
``--evaluate`` prints it for the perfect chooser (must be 0) and a random one.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from playout.games import Connect4Game, Connect4State
from playout.games.connect4 import solver
from playout.games.connect4.solver import SolverLimitError

GAME = Connect4Game()
BUCKETS: dict[str, tuple[int, int]] = {"begin": (8, 14), "middle": (15, 22), "end": (23, 30)}
DEFAULT_OUT = Path(__file__).resolve().parent / "data" / "connect4_positions.json"
MAX_NODES = 100_000_000  # per position; a position past it is skipped (and counted)

Position = dict[str, Any]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _safe_moves(state: Connect4State) -> list[int]:
    """Moves that do not end the game and leave the opponent no immediate win (all the
    non-ending moves when every one of them does)."""
    running = [a for a in state.legal_actions() if not state.play(a).is_terminal()]
    safe = []
    for action in running:
        child = state.play(action)
        if not any(child.play(b).winner() is not None for b in child.legal_actions()):
            safe.append(action)
    return safe or running


def _walk(rng: random.Random, stones: int, play: str) -> str | None:
    """The move string of a position with ``stones`` stones, or ``None`` when the walk got
    stuck or the mover can win at once."""
    state = GAME.initial_state()
    moves = ""
    for _ in range(stones):
        if play == "safe":
            choices = _safe_moves(state)
        else:
            choices = [a for a in state.legal_actions() if not state.play(a).is_terminal()]
        if not choices:
            return None
        action = rng.choice(choices)
        state = state.play(action)
        moves += str(action + 1)
    if any(state.play(a).winner() is not None for a in state.legal_actions()):
        return None
    return moves


def label(moves: str, bucket: str, play: str) -> Position:
    """The solver's labels of the position after ``moves``."""
    state = GAME.from_moves(moves)
    scores = solver.move_scores(state, max_nodes=MAX_NODES)
    best = max(scores.values())
    return {
        "moves": moves,
        "bucket": bucket,
        "play": play,
        "score": best,
        "outcome": _sign(best),
        "scores": [scores.get(c) for c in range(GAME.width)],
        "losing": sorted(c + 1 for c, s in scores.items() if _sign(s) < _sign(best)),
    }


def generate(
    seed: int, per_bucket: int, buckets: Sequence[str], *, log: Callable[[str], None] = print
) -> list[Position]:
    """``per_bucket`` labelled positions for each bucket, the same for the same seed."""
    rng = random.Random(seed)
    positions: list[Position] = []
    for bucket in buckets:
        low, high = BUCKETS[bucket]
        made = skipped = 0
        seconds: list[float] = []
        while made < per_bucket:
            play = "random" if made % 2 == 0 else "safe"
            stones = rng.randint(low, high)
            moves = _walk(rng, stones, play)
            if moves is None:
                continue
            start = time.perf_counter()
            try:
                positions.append(label(moves, bucket, play))
            except SolverLimitError:
                skipped += 1
                continue
            seconds.append(time.perf_counter() - start)
            made += 1
        log(
            f"{bucket} ({low}-{high} stones): {made} positions, labelling seconds mean "
            f"{sum(seconds) / max(1, len(seconds)):.3f} max {max(seconds, default=0.0):.3f}, "
            f"{skipped} skipped past {MAX_NODES:,} nodes"
        )
    return positions


def write(path: Path, seed: int, positions: list[Position]) -> None:
    """The data file: a header, then one position per line."""
    header = {
        "game": {"name": "connect4", "width": GAME.width, "height": GAME.height, "k": GAME.k},
        "seed": seed,
        "buckets": BUCKETS,
    }
    head = json.dumps(header, separators=(",", ":"))[:-1]
    lines = ",\n".join(json.dumps(p, separators=(",", ":")) for p in positions)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'{head},"positions":[\n{lines}\n]}}\n')


def load_positions(path: Path = DEFAULT_OUT) -> list[Position]:
    """The positions of a data file written by this script."""
    data: dict[str, Any] = json.loads(Path(path).read_text())
    positions: list[Position] = data["positions"]
    return positions


def value_losing_fraction(
    choose_move: Callable[[Connect4State], int], positions: Sequence[Position]
) -> float:
    """The fraction of ``positions`` where ``choose_move(state)`` (a column id, 0-6) is a
    value-losing move: its outcome for the mover is worse than the best move's."""
    if not positions:
        raise ValueError("no positions to evaluate")
    losing = 0
    for position in positions:
        state = GAME.from_moves(position["moves"])
        action = choose_move(state)
        if action not in state.legal_actions():
            raise ValueError(f"illegal move {action!r} in {position['moves']!r}")
        losing += (action + 1) in position["losing"]
    return losing / len(positions)


def perfect_chooser(state: Connect4State) -> int:
    """A best move by the solver (the quickest win, the slowest loss)."""
    return solver.best_moves(state, max_nodes=MAX_NODES)[0]


def random_chooser(seed: int) -> Callable[[Connect4State], int]:
    """A uniformly random legal move, from a seeded generator."""
    rng = random.Random(seed)
    return lambda state: rng.choice(state.legal_actions())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--per-bucket", type=int, default=100)
    parser.add_argument("--buckets", default=",".join(BUCKETS), help="comma-separated")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--evaluate", type=Path, help="score choosers on this data file")
    parser.add_argument("--bucket", help="with --evaluate: only this bucket")
    parser.add_argument("--limit", type=int, help="with --evaluate: the first N positions")
    args = parser.parse_args(argv)
    if args.evaluate is not None:
        positions = load_positions(args.evaluate)
        if args.bucket:
            positions = [p for p in positions if p["bucket"] == args.bucket]
        positions = positions[: args.limit]
        decisive = sum(1 for p in positions if p["losing"])
        print(f"positions: {len(positions)} ({decisive} with a value-losing move)")
        start = time.perf_counter()
        perfect = value_losing_fraction(perfect_chooser, positions)
        seconds = time.perf_counter() - start
        print(f"perfect chooser value-losing fraction: {perfect:.4f} ({seconds:.2f} s)")
        rand = value_losing_fraction(random_chooser(args.seed), positions)
        print(f"random chooser value-losing fraction: {rand:.4f}")
        return 0
    buckets = [b.strip() for b in args.buckets.split(",") if b.strip()]
    unknown = set(buckets) - set(BUCKETS)
    if unknown:
        parser.error(f"unknown buckets {sorted(unknown)}; use {', '.join(BUCKETS)}")
    start = time.perf_counter()
    positions = generate(args.seed, args.per_bucket, buckets)
    write(args.out, args.seed, positions)
    size = args.out.stat().st_size
    print(
        f"wrote {len(positions)} positions to {args.out} ({size:,} bytes) "
        f"in {time.perf_counter() - start:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
