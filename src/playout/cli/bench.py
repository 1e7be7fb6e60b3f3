"""``playout bench``: playout's engines against OpenSpiel's MCTS, side by side."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from playout._src import benchmark as bench_lib
from playout.cli.common import EXIT_OK, out

BENCH_GAMES = bench_lib.GAMES
BIG_SIMULATIONS = 1_000_000
"""Simulations per decision of ``bench --big`` (tests lower it)."""


def bench_table(case: bench_lib.CaseResult) -> Any:
    """A rich table of one benchmark case: rates, ratios and memory per implementation."""
    from rich.table import Table

    game = case.game
    table = Table(
        title=f"{game.description} ({game.name}; OpenSpiel {game.openspiel_game}), "
        f"{case.repetitions} rep{'s' if case.repetitions != 1 else ''}",
        title_justify="left",
    )
    table.add_column("implementation", no_wrap=True)
    table.add_column("sims/decision", justify="right")
    table.add_column("sims/s (CPU)", justify="right")
    table.add_column("compiled / this", justify="right")
    table.add_column("peak MiB", justify="right")
    for row in case.measurements:
        if row.status != "ok":
            table.add_row(row.implementation, f"{row.simulations:,}", row.status, "-", "-")
            continue
        rate, ratio, peak = row.rate, row.ratio, row.peak_memory_mib
        table.add_row(
            row.implementation,
            f"{row.simulations:,}",
            "-" if rate is None else f"{rate:,.0f}",
            "-" if ratio is None else f"{ratio:.2f}",
            "n/a" if peak is None else f"{peak:.1f}",
        )
    return table


def cmd_bench(args: argparse.Namespace) -> int:
    """``playout bench``: playout's engines against OpenSpiel's MCTS, side by side."""
    from rich.console import Console

    console = Console(file=sys.stdout, highlight=False)
    games = args.game or list(BENCH_GAMES)
    settings = {
        "simulations": args.sims,
        "python_simulations": args.python_sims,
        "repetitions": args.reps,
        "big": args.big,
        "big_simulations": BIG_SIMULATIONS,
        "big_repetitions": args.big_reps,
        "seed": args.seed,
    }
    if args.json:
        report = bench_lib.run_benchmark(games, **settings)
        out(json.dumps(report.as_dict(), indent=2))
        return EXIT_OK
    python_sims = min(args.python_sims, args.sims)
    fewer = python_sims < args.sims
    out(f"machine: {bench_lib.machine_info().text()}")
    out(
        "work: one decision from the empty board, UCT c = sqrt(2), one random rollout per "
        f"leaf, solver off; {args.sims:,} simulations"
        + (f" ({python_sims:,} for the Python implementations)" if fewer else "")
        + f"; sims/s: median of {args.reps} interleaved reps, process CPU time"
    )

    def show(case: bench_lib.CaseResult) -> None:
        console.print()
        console.print(bench_table(case))

    status = console.status("benchmarking ...") if console.is_terminal else None
    with status if status is not None else contextlib.nullcontext():
        report = bench_lib.run_benchmark(games, **settings, on_case=show)
    kept = {name: report.retention(name) for name in bench_lib.BIG_IMPLEMENTATIONS}
    if any(value is not None for value in kept.values()):
        out(
            f"\nrate kept at {BIG_SIMULATIONS:,} simulations (median rate there / median "
            f"connect-four rate at {args.sims:,}): "
            + ", ".join(f"{name} {value:.2f}" for name, value in kept.items() if value is not None)
        )
    out(
        f"\ncompiled / this: median of the per-rep ratios of sims/s, {bench_lib.REFERENCE}'s "
        "over this one's (above 1: playout-compiled is faster)"
        + ("; the Python implementations ran fewer simulations per decision" if fewer else "")
        + ". peak MiB: extra peak resident memory of one decision in a fresh process "
        "(n/a: not measurable here)."
    )
    return EXIT_OK


__all__ = ["BENCH_GAMES", "BIG_SIMULATIONS", "bench_table", "cmd_bench"]
