"""The value-losing-move table of a connect-four network on the labelled benchmark
(``playout.games.connect4.labelled``), beside rollout MCTS.

    PYTHONPATH=src python bench/zero_benchmark.py                  # the issue's table, shipped net
    PYTHONPATH=src python bench/zero_benchmark.py --positions 300 \\
        --choosers policy zero:100 mcts:1000 --json /tmp/table.json
    PYTHONPATH=src python bench/zero_benchmark.py --model runs/c4/model.pt --json ''

Choosers: ``policy`` (the network's most probable move), ``policy-mirror`` (the policy
averaged with the mirror image's), ``zero:N`` (the network with N simulations of PUCT),
``gumbel:N:M`` (Gumbel search, M root actions), ``mcts:N`` (rollout MCTS, N simulations),
``mcts-seconds:S`` (rollout MCTS, S seconds per move). Each searching chooser starts a fresh
search per position, seeded with ``--seed``. ``--positions N`` scores an even subset
(:func:`playout.zero.benchmark.subset`); the default is every position. The table goes to
stdout and, with ``--json`` (default ``bench/results/zero_benchmark.json``), to a JSON file
with the command, the date and the machine. Each chooser after the first is compared with
the first position by position (:func:`playout.zero.benchmark.compare`: the positions only one
of the two lost, and McNemar's exact p-value).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from playout.games import Connect4Game
from playout.zero import Model, shipped_model_path
from playout.zero import benchmark as bm

DEFAULT_CHOOSERS = ("policy", "policy-mirror", "zero:800", "mcts:800", "mcts:10000")
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "zero_benchmark.json"
STAGES = ("8-14", "15-28", "29+")


def make_chooser(spec: str, model: Model, game: Connect4Game, seed: int) -> tuple[str, Any]:
    kind, _, rest = spec.partition(":")
    try:
        if kind == "policy" and not rest:
            return "policy alone", bm.policy_chooser(model)
        if kind == "policy-mirror" and not rest:
            return "policy alone, mirror-averaged", bm.policy_chooser(model, symmetries=True)
        if kind == "zero":
            n = int(rest)
            return f"network + {n:,} simulations", bm.network_chooser(model, n, seed=seed)
        if kind == "gumbel":
            n, m = (int(x) for x in rest.split(":"))
            name = f"network + {n:,} simulations, Gumbel m={m}"
            return name, bm.network_chooser(model, n, gumbel=m, seed=seed)
        if kind == "mcts":
            n = int(rest)
            return f"rollout MCTS, {n:,} simulations", bm.rollout_chooser(
                game, simulations=n, seed=seed
            )
        if kind == "mcts-seconds":
            s = float(rest)
            return f"rollout MCTS, {s * 1000:g} ms", bm.rollout_chooser(game, seconds=s, seed=seed)
    except ValueError:
        pass
    raise SystemExit(
        f"bad chooser {spec!r}: policy, policy-mirror, zero:N, gumbel:N:M, mcts:N, mcts-seconds:S"
    )


def table_rows(scores: list[bm.BenchmarkScore]) -> list[list[str]]:
    """The table's rows: chooser, rate in all, rate per stage, milliseconds per move."""
    rows = []
    for score in scores:
        stages = []
        for name in STAGES:
            try:
                stages.append(f"{100 * score.stage(name).rate:.1f}%")
            except KeyError:
                stages.append("-")
        ms = 1000 * score.seconds_per_move
        rows.append([score.name, f"{100 * score.rate:.1f}%", *stages, f"{ms:.1f} ms"])
    return rows


def table(scores: list[bm.BenchmarkScore]) -> str:
    lines = [
        "| chooser | all | " + " | ".join(f"{s} stones" for s in STAGES) + " | time per move |",
        "|---|---:|" + "---:|" * len(STAGES) + "---:|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(scores)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model file (default: the shipped network)")
    parser.add_argument("--choosers", nargs="+", default=list(DEFAULT_CHOOSERS))
    parser.add_argument("--positions", type=int, help="an even subset of N positions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=str(DEFAULT_JSON), help="'' for none")
    args = parser.parse_args(argv)
    game = Connect4Game()
    model = Model.load(args.model or shipped_model_path(game), game)
    positions = bm.benchmark_positions(game)
    assert positions is not None
    if args.positions:
        positions = bm.subset(positions, args.positions)
    counts = {s: sum(p.stage == s for p in positions) for s in STAGES}
    print(f"{len(positions)} positions ({', '.join(f'{s}: {n}' for s, n in counts.items())})")
    scores = []
    for spec in args.choosers:
        name, chooser = make_chooser(spec, model, game, args.seed)
        # One untimed move first: compiling (numba) and first allocations are not a move's
        # time. Each move is a fresh search seeded alike, so the scores are unchanged.
        chooser(positions[0].state)
        scores.append(bm.score_chooser(chooser, positions, name=name))
        print(f"  {name}: {100 * scores[-1].rate:.1f}%", flush=True)
    print(table(scores))
    comparisons = [bm.compare(scores[0], other) for other in scores[1:]]
    for c in comparisons:
        print(
            f"paired with {c.first}: {c.second} alone lost value in {c.second_only} positions, "
            f"{c.first} alone in {c.first_only} (both in {c.both}; McNemar exact p = "
            f"{c.p_value:.3g})"
        )
    if args.json:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from results import write_results  # bench/results.py, beside this script

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        write_results(
            args.json,
            title=f"Value-losing moves on {len(positions)} labelled connect-four positions "
            f"({', '.join(f'{s}: {n}' for s, n in counts.items())}), "
            f"model {args.model or 'shipped'}",
            columns=["chooser", "all", *(f"{s} stones" for s in STAGES), "time per move"],
            rows=table_rows(scores),
            details={
                "model": str(args.model or "shipped connect4-7x6-4.pt"),
                "positions": len(positions),
                "stage_positions": counts,
                "scores": [s.to_json() for s in scores],
                "paired_with_first": [dataclasses.asdict(c) for c in comparisons],
            },
        )
        print(f"written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
