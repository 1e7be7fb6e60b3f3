"""Make the value-losing-move benchmark: connect-four positions from varied play, labelled by
the exact solver (``src/playout/games/connect4/labelled_positions.txt``).

    PYTHONPATH=src python bench/zero_benchmark_positions.py            # the shipped file
    PYTHONPATH=src python bench/zero_benchmark_positions.py --per-cell 2 --stages 29+ \\
        --workers 1 --out /tmp/x.txt

For every stage (8-14 stones, 15-28, 29+) and every play of
:data:`playout.games.connect4.labelled.SOURCES` (uniform random, blunder-avoiding random,
rollout MCTS at 100 and 1,000 simulations, the first shipped network's policy,
``bench/records/c4_first_shipped.pt``), ``--per-cell``
positions: a game is played from the empty board to a stone count drawn uniformly in the
stage, and its last position kept when it is new (a position and its mirror image count as
one), still running, the mover has no immediate win (a trivial position), the solver labels
every move within ``--max-nodes`` (else skipped, and counted: this leans the earliest stage
towards positions the solver finishes quickly), and some move loses value. MCTS and network
games open with 0-4 uniformly random moves and play a blunder-avoiding random move one time in
ten, so that they do not repeat. Each cell (stage and play) draws from its own generator,
seeded by ``--seed``, the stage and the play, in its own worker process (``--workers``); the
cells are merged in order, a position found by an earlier cell taken once. The same seed and
code give the same file, whatever the number of workers.
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
FIRST_SHIPPED = Path(__file__).resolve().parent / "records" / "c4_first_shipped.pt"
"""The network whose policy made the ``zero`` positions: the first one shipped for connect four."""
PLAYER_SPECS = {
    "mcts100": "mcts:simulations=100",
    "mcts1000": "mcts:simulations=1000",
    "zero": f"zero:model={FIRST_SHIPPED},simulations=0",
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


SPARE = 3
"""Positions labelled beyond ``--per-cell`` in every cell: the merge drops a position another
cell found first (the same position, or its mirror image, reached by two plays)."""


def generate_cell(
    seed: int, stage: str, source: str, count: int, max_nodes: int
) -> tuple[list[labelled.LabelledPosition], str]:
    """``count`` labelled positions of one stage and play, from their own generator (seeded
    by ``seed``, the stage and the play); and a line on how they were found."""
    rng = random.Random(f"{seed}:{stage}:{source}")
    players = {source: parse_player(PLAYER_SPECS[source], GAME)} if source in PLAYER_SPECS else {}
    low, high = labelled.STAGES[stage]
    seen: set[tuple[int, int]] = set()
    positions: list[labelled.LabelledPosition] = []
    tries = skipped = trivial = unmistakable = 0
    start = time.perf_counter()
    while len(positions) < count:
        tries += 1
        moves = play_to(rng, source, rng.randint(low, high), players)
        if moves is None:
            continue
        key = canonical(moves)
        if key in seen:
            continue
        seen.add(key)
        if has_immediate_win(GAME.from_moves(moves)):
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
    line = (
        f"{stage:>5} {source:>8}: {len(positions)} labelled of {tries} games; {trivial} with an "
        f"immediate win, {unmistakable} where no move loses, {skipped} past the solver's "
        f"bound; {time.perf_counter() - start:.1f} s"
    )
    return positions, line


def _cell(job: tuple[int, str, str, int, int]) -> tuple[list[labelled.LabelledPosition], str]:
    return generate_cell(*job)


def generate(
    seed: int,
    per_cell: int,
    max_nodes: int,
    workers: int,
    stages: tuple[str, ...] = tuple(labelled.STAGES),
    early_per_cell: int | None = None,
) -> list[labelled.LabelledPosition]:
    """Every cell (stage, play) in worker processes, merged in cell order: a position (or its
    mirror image) already taken from an earlier cell is dropped, and each cell keeps its first
    ``per_cell``. The same for the same arguments, whatever ``workers``."""
    import multiprocessing

    early_per_cell = per_cell if early_per_cell is None else early_per_cell
    wanted = {stage: early_per_cell if stage == "8-14" else per_cell for stage in stages}
    jobs = [
        (seed, stage, source, wanted[stage] + SPARE, max_nodes)
        for stage in stages
        for source in labelled.SOURCES
    ]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        cells = []
        for found, line in pool.imap(_cell, jobs):
            print(line, flush=True)
            cells.append(found)
    taken: set[tuple[int, int]] = set()
    positions: list[labelled.LabelledPosition] = []
    for (_, stage, source, _, _), found in zip(jobs, cells, strict=True):
        kept = [p for p in found if canonical(p.moves) not in taken][: wanted[stage]]
        taken.update(canonical(p.moves) for p in kept)
        if len(kept) < wanted[stage]:
            print(f"{stage} {source}: only {len(kept)} new positions", flush=True)
        positions.extend(kept)
    return positions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--per-cell", type=int, default=130, help="positions per stage and play")
    parser.add_argument(
        "--early-per-cell", type=int, default=50, help="the same in the 8-14 stage (slow to solve)"
    )
    parser.add_argument("--max-nodes", type=int, default=10_000_000, help="per position")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--workers", type=int, default=5, help="processes (any count: same file)")
    parser.add_argument(
        "--stages", nargs="+", choices=list(labelled.STAGES), default=list(labelled.STAGES)
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    positions = generate(
        args.seed,
        args.per_cell,
        args.max_nodes,
        args.workers,
        tuple(args.stages),
        args.early_per_cell,
    )
    made_by = "PYTHONPATH=src python bench/zero_benchmark_positions.py " + shlex.join(
        [
            "--seed",
            str(args.seed),
            "--per-cell",
            str(args.per_cell),
            "--early-per-cell",
            str(args.early_per_cell),
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
