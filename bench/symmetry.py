"""Root symmetry merging and the transposition table at equal simulations: match results.

Each variant (``SearchConfig(symmetry=..., transpositions=...)``) plays with the same number
of simulations per move as its opponent, colours alternated game by game (game ``i`` uses
seed ``i``), on the Python driver unless ``--backend`` says otherwise, tree reuse and the
solver on (the engine's defaults)::

    PYTHONPATH=src python bench/symmetry.py                       # a quick look (20 games)
    PYTHONPATH=src python bench/symmetry.py --match ttt-perfect --games 200
    PYTHONPATH=src python bench/symmetry.py --match ttt-h2h --games 400
    PYTHONPATH=src python bench/symmetry.py --match mnk6-h2h --games 200 --simulations 1000

Matches: ``ttt-perfect``: every variant against the perfect player on tic-tac-toe (the score
is the draw rate plus wins; a perfect opponent cannot be beaten); ``ttt-h2h`` and
``mnk6-h2h``: each variant against the plain engine, on tic-tac-toe and on the 6x6 board with
four in a row. The score is the variant's (wins + draws / 2) / games with a 95% Wilson
interval.
"""

from __future__ import annotations

import argparse
import functools
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from playout import MCTS, Budget
from playout._src.arena import MctsOptions, MctsPlayer, play_game, wilson_interval
from playout._src.perfect import PerfectPlayer
from playout.games import MnkGame, tictactoe

VARIANTS: dict[str, dict[str, bool]] = {
    "plain": {},
    "symmetry": {"symmetry": True},
    "transpositions": {"transpositions": True},
    "both": {"symmetry": True, "transpositions": True},
}
MATCHES = ("ttt-perfect", "ttt-h2h", "mnk6-h2h")
DEFAULT_SIMULATIONS = {"ttt-perfect": 200, "ttt-h2h": 200, "mnk6-h2h": 500}


def _game(match: str) -> Any:
    return tictactoe() if match.startswith("ttt") else MnkGame(6, 6, 4)


def _player(game: Any, variant: str, simulations: int, backend: str) -> Any:
    if variant == "perfect":
        return PerfectPlayer(game)
    factory = functools.partial(MCTS, backend=backend, **VARIANTS[variant])
    options = MctsOptions(budget=Budget(simulations=simulations))
    return MctsPlayer(game, options, name=variant, engine_factory=factory)


def _play(match: str, a: str, b: str, simulations: int, backend: str, index: int) -> float:
    """Game ``index`` of ``a`` against ``b`` (``a`` moves first in even games): ``a``'s
    score, 1 for a win, 0.5 for a draw, 0 for a loss."""
    game = _game(match)
    pa = _player(game, a, simulations, backend)
    pb = _player(game, b, simulations, backend)
    first, second = (pa, pb) if index % 2 == 0 else (pb, pa)
    record = play_game(game, first, second, seed=index, index=index)
    a_player = 0 if index % 2 == 0 else 1
    return (float(record.returns[a_player]) + 1.0) / 2.0


def run_match(
    match: str, a: str, b: str, games: int, simulations: int, backend: str, workers: int
) -> dict[str, Any]:
    """``games`` games of variant ``a`` against ``b``: wins, draws, losses and the score."""
    start = time.perf_counter()
    job = functools.partial(_play, match, a, b, simulations, backend)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            scores = list(pool.map(job, range(games)))
    else:
        scores = [job(i) for i in range(games)]
    wins, draws = scores.count(1.0), scores.count(0.5)
    score = sum(scores) / games
    low, high = wilson_interval(score, games)
    return {
        "match": match,
        "a": a,
        "b": b,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": games - wins - draws,
        "score": score,
        "low": low,
        "high": high,
        "seconds": time.perf_counter() - start,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--match", choices=(*MATCHES, "all"), default="all")
    parser.add_argument("--games", type=int, default=20, help="games per pairing (default 20)")
    parser.add_argument(
        "--simulations",
        type=int,
        default=None,
        help="per move (default: 200 on tic-tac-toe, 500 on 6x6)",
    )
    parser.add_argument(
        "--variants",
        default="symmetry,transpositions,both",
        help="variants to measure, comma-separated (against plain)",
    )
    parser.add_argument("--backend", default="python", choices=("python", "auto"))
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    matches = MATCHES if args.match == "all" else (args.match,)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        if v not in VARIANTS:
            parser.error(f"unknown variant {v!r}; choose among {', '.join(VARIANTS)}")
    for match in matches:
        simulations = args.simulations or DEFAULT_SIMULATIONS[match]
        pairs = (
            [(v, "perfect") for v in ("plain", *variants)]
            if match == "ttt-perfect"
            else [(v, "plain") for v in variants if v != "plain"]
        )
        for a, b in pairs:
            r = run_match(match, a, b, args.games, simulations, args.backend, args.workers)
            print(
                f"{match:12s} {a:>14s} vs {b:<8s} {simulations:5d} sims  {r['games']:4d} games"
                f"  W {r['wins']:4d} D {r['draws']:4d} L {r['losses']:4d}"
                f"  score {r['score']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
                f"  {r['seconds']:.0f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
