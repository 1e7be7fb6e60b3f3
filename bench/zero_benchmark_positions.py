"""Make the value-losing-move benchmark: connect-four positions from varied play, labelled by
the exact solver (``src/playout/games/connect4/labelled_positions.txt``).

    PYTHONPATH=src python bench/zero_benchmark_positions.py            # the shipped file
    PYTHONPATH=src python bench/zero_benchmark_positions.py --per-cell 2 --out /tmp/x.txt

For every stage (8-14 stones, 15-28, 29+) and every play of
:data:`playout.games.connect4.labelled.SOURCES` (uniform random, blunder-avoiding random,
rollout MCTS at 100 and 1,000 simulations, the shipped network's policy), ``--per-cell``
positions: a game is played from the empty board to a stone count drawn uniformly in the
stage, and its last position kept when it is new (a position and its mirror image count as
one), still running, the mover has no immediate win (a trivial position), the solver labels
every move within ``--max-nodes`` (else skipped, and counted: this leans the earliest stage
towards positions the solver finishes quickly), and some move loses value. MCTS and network
games open with 0-4 uniformly random moves and play a blunder-avoiding random move one time in
ten, so that they do not repeat. Everything is drawn from ``random.Random(--seed)``; the same
seed and code give the same file.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from playout import parse_player
from playout._src.errors import SolverLimitError
from playout.games import Connect4Game, Connect4State
from playout.games.connect4 import labelled, solver

GAME = Connect4Game()
DEFAULT_OUT = Path(labelled.__file__).with_name(labelled.DATA_FILE)
PLAYER_SPECS = {
    "mcts100": "mcts:simulations=100",
    "mcts1000": "mcts:simulations=1000",
    "zero": "zero:simulations=0",
}


def safe_moves(state: Connect4State) -> list[int]:
    """Blunder-avoiding moves: an immediate win if there is one; else the moves that leave the
    opponent no immediate win (all legal moves when none does)."""
    actions = state.legal_actions()
    winning = [a for a in actions if state.play(a).winner() is not None]
    if winning:
        return winning
    safe = []
    for action in actions:
        child = state.play(action)
        if child.is_terminal():
            continue
        if not any(child.play(b).winner() is not None for b in child.legal_actions()):
            safe.append(action)
    return safe or list(actions)


def has_immediate_win(state: Connect4State) -> bool:
    return any(state.play(a).winner() is not None for a in state.legal_actions())


def canonical(moves: str) -> tuple[int, int]:
    """The position after ``moves``, up to mirror image."""
    state = GAME.from_moves(moves)
    mirrored = GAME.from_moves("".join(str(GAME.width + 1 - int(m)) for m in moves))
    return min((state.stones0, state.stones1), (mirrored.stones0, mirrored.stones1))


def play_to(rng: random.Random, source: str, stones: int, players: dict[str, Any]) -> str | None:
    """The moves of a game of ``source`` play stopped at ``stones`` stones (``None`` when it
    ended before)."""
    state = GAME.initial_state()
    moves = ""
    player = players.get(source)
    opening = rng.randint(0, 4)
    if player is not None:
        player.reset(state, rng.randrange(2**31))
    for ply in range(stones):
        if state.is_terminal():
            return None
        if source == "random" or (player is not None and ply < opening):
            action = rng.choice(state.legal_actions())
        elif source == "safe" or rng.random() < 0.1:
            action = rng.choice(safe_moves(state))
        else:
            action = int(player.choose(state))
        if player is not None:
            player.notify(action)
        state = state.play(action)
        moves += str(action + 1)
    return None if state.is_terminal() else moves


def label(moves: str, source: str, max_nodes: int) -> labelled.LabelledPosition:
    scores = solver.move_scores(GAME.from_moves(moves), max_nodes=max_nodes)
    return labelled.LabelledPosition(moves, source, tuple(scores.get(c) for c in range(GAME.width)))


def generate(seed: int, per_cell: int, max_nodes: int) -> list[labelled.LabelledPosition]:
    rng = random.Random(seed)
    players = {name: parse_player(spec, GAME) for name, spec in PLAYER_SPECS.items()}
    seen: set[tuple[int, int]] = set()
    positions: list[labelled.LabelledPosition] = []
    for stage, (low, high) in labelled.STAGES.items():
        for source in labelled.SOURCES:
            made = tries = skipped = trivial = unmistakable = 0
            start = time.perf_counter()
            while made < per_cell:
                tries += 1
                moves = play_to(rng, source, rng.randint(low, high), players)
                if moves is None:
                    continue
                state = GAME.from_moves(moves)
                key = canonical(moves)
                if key in seen:
                    continue
                seen.add(key)
                if has_immediate_win(state):
                    trivial += 1
                    continue
                try:
                    position = label(moves, source, max_nodes)
                except SolverLimitError:
                    skipped += 1
                    continue
                if not position.losing_actions:
                    unmistakable += 1
                    continue
                positions.append(position)
                made += 1
            print(
                f"{stage:>5} {source:>8}: {made} kept of {tries} games; {trivial} with an "
                f"immediate win, {unmistakable} where no move loses, {skipped} past the "
                f"solver's bound; {time.perf_counter() - start:.1f} s",
                flush=True,
            )
    return positions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--per-cell", type=int, default=110, help="positions per stage and play")
    parser.add_argument("--max-nodes", type=int, default=20_000_000, help="per position")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    positions = generate(args.seed, args.per_cell, args.max_nodes)
    made_by = "PYTHONPATH=src python bench/zero_benchmark_positions.py " + shlex.join(
        [
            "--seed",
            str(args.seed),
            "--per-cell",
            str(args.per_cell),
            "--max-nodes",
            str(args.max_nodes),
        ]
    )
    args.out.write_text(labelled.format_file(positions, made_by), encoding="utf-8")
    labelled.read_positions(args.out)  # the file reads back
    print(f"wrote {len(positions)} positions to {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
