#!/usr/bin/env python
"""Speed of playout's Python engine against the ceiling and two pure-Python peers.

One move decision from the empty board, one thread, a fresh tree every time, UCB1 with
c = sqrt(2) and uniformly random rollouts to the end of the game, on playout's own pure-Python
games (tic-tac-toe and connect four 7x6). Four entries, all running on the **same** game-state
objects through playout's protocol methods, so the game's cost is identical in each:

* ``bare``: full random games from the initial state with ``random.Random`` (playouts per
  second): no engine playing random rollouts can do more simulations per second than this;
* ``engine``: playout's Python driver (``playout._src.search.MCTS``, selected with
  ``backend="python"`` once the engine factory has one) with its default options;
* ``seed``: seed 000's object MCTS (``bench/seed_style.py``), the baseline playout replaces;
* ``mcts_pkg``: the ``monte-carlo-tree-search`` PyPI package through a thin adapter
  (``bench/mcts_package_adapter.py``).

The entries are interleaved repetition by repetition (rotating their order) so that drift of a
shared machine hits them alike; the figure is the median rate over the repetitions and the
ratios are those of the medians (the medians of the per-repetition ratios are in ``--json``).

Usage::

    python bench/python_engine.py [--games tictactoe,connect4] [--simulations N] [--reps R]
                                  [--json [PATH]]  (PATH: the result file the docs render)
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import importlib.metadata
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not
sys.path.insert(0, str(BENCH_DIR))

NOTES: list[str] = []


def _import_playout() -> types.ModuleType:
    """``import playout``; if its facade does not import (work in progress), the bare package."""
    try:
        import playout

        return playout
    except ImportError as error:
        for name in [m for m in sys.modules if m == "playout" or m.startswith("playout.")]:
            del sys.modules[name]
        package = types.ModuleType("playout")
        package.__path__ = [str(REPO / "src" / "playout")]
        sys.modules["playout"] = package
        NOTES.append(f"playout's facade did not import ({error}); used its modules directly")
        return package


playout = _import_playout()

import seed_style  # noqa: E402
from playout.games.connect4 import Connect4Game  # noqa: E402
from playout.games.mnk import tictactoe  # noqa: E402

try:  # an optional peer (the bench extra): without it, its entry is left out
    import mcts_package_adapter
except ImportError as _missing:
    mcts_package_adapter = None  # type: ignore[assignment]
    NOTES.append(
        f"monte-carlo-tree-search is not installed ({_missing}); its entry is left out "
        '(pip install ".[bench]")'
    )

UCB1_C = math.sqrt(2.0)
DEFAULT_SIMULATIONS = {"tictactoe": 2000, "connect4": 2000}
GAMES: dict[str, Callable[[], Any]] = {"tictactoe": tictactoe, "connect4": Connect4Game}
PEERS = ("seed", "mcts_pkg") if mcts_package_adapter is not None else ("seed",)
ENTRIES = ("bare", "engine", *PEERS)
LABELS = {
    "bare": "bare random playouts",
    "engine": "playout Python engine",
    "seed": "seed-000-style object MCTS",
    "mcts_pkg": "monte-carlo-tree-search",
}
UNITS = {"bare": "playouts/s", "engine": "sims/s", "seed": "sims/s", "mcts_pkg": "sims/s"}
TARGETS = {"bare": 0.85, "seed": 3.0, "mcts_pkg": None}
TARGETS = {name: target for name, target in TARGETS.items() if name in ENTRIES}


# ------------------------------------------------------------------------------ the engine


def _engine_factory() -> tuple[Callable[[Any, int, int], Any], str]:
    """How to build playout's **Python** engine, and a description of it."""

    def make(state: Any, simulations: int, seed: int) -> Any:
        return playout.MCTS(state, backend="python", simulations=simulations, seed=seed)

    return make, 'playout.MCTS(state, backend="python")'


def _check_python_driver(engine: Any) -> None:
    """Fail loudly if ``engine`` does not run on playout's Python driver."""
    if engine.backend != "python":
        raise SystemExit(f"expected playout's Python driver, got the {engine.backend} driver")


MAKE_ENGINE, ENGINE_HOW = _engine_factory()


# ------------------------------------------------------------------------------ the entries
# Each returns (seconds, work done, chosen action or None) for one decision from `initial` with a
# budget of n simulations (or n bare playouts). The work done is n, except for playout's engine
# when its solver proves the root before the budget is spent (it then stops early).


def run_bare(initial: Any, n: int, seed: int) -> tuple[float, int, int | None]:
    rng = random.Random(seed)
    choice = rng.choice
    start = time.perf_counter()
    for _ in range(n):
        state = initial
        while not state.is_terminal():
            state = state.play(choice(state.legal_actions()))
        state.returns()
    return time.perf_counter() - start, n, None


def run_engine(initial: Any, n: int, seed: int) -> tuple[float, int, int | None]:
    start = time.perf_counter()
    engine = MAKE_ENGINE(initial, n, seed)
    result = engine.run()
    seconds = time.perf_counter() - start
    _check_python_driver(engine)
    if not 0 < result.simulations <= n:
        raise SystemExit(f"the engine ran {result.simulations} simulations of {n}")
    return seconds, int(result.simulations), int(result.best_action)


def run_seed(initial: Any, n: int, seed: int) -> tuple[float, int, int | None]:
    random.seed(seed)  # the seed's code draws from the global generator
    start = time.perf_counter()
    searcher = seed_style.MCTS(initial, UCB1_C, n)
    action = searcher.decide(advance=False)
    return time.perf_counter() - start, n, int(action)


def run_mcts_pkg(initial: Any, n: int, seed: int) -> tuple[float, int, int | None]:
    assert mcts_package_adapter is not None
    random.seed(seed)  # the package draws from the global generator
    start = time.perf_counter()
    action = mcts_package_adapter.decide(initial, n, UCB1_C)
    return time.perf_counter() - start, n, action


RUNNERS: dict[str, Callable[[Any, int, int], tuple[float, int, int | None]]] = {
    "bare": run_bare,
    "engine": run_engine,
    "seed": run_seed,
    "mcts_pkg": run_mcts_pkg,
}
RUNNERS = {name: runner for name, runner in RUNNERS.items() if name in ENTRIES}


# ------------------------------------------------------------------------------ the machine


def machine_info() -> dict[str, Any]:
    """playout's own machine record (:func:`playout._src.benchmark.machine_info`) with what
    this report adds: all cores, the peer's version, the commit measured, the three loads."""
    from playout._src.benchmark import machine_info as playout_machine

    machine = playout_machine()
    commit = "unknown"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        commit = subprocess.run(
            ["git", "-C", str(REPO), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    peer = "not installed"
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        peer = importlib.metadata.version("monte-carlo-tree-search")
    return {
        "cpu": machine.cpu,
        "cores": os.cpu_count(),
        "usable_cores": machine.cpus,
        "python": machine.python,
        "implementation": platform.python_implementation(),
        "numpy": machine.numpy or "not installed",
        "numba": machine.numba or "not installed",
        "monte_carlo_tree_search": peer,
        "playout_commit": commit,
        "load_average": _load_average(),
    }


def _load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages: above about 1 other work shares the machine."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


# ------------------------------------------------------------------------------ the run


def warm_up(games: dict[str, Any]) -> None:
    """Compile (or load) numba's code and touch every entry once, untimed."""
    for initial in games.values():
        for name, runner in RUNNERS.items():
            runner(initial, 100 if name == "bare" else 50, 12345)


def measure(
    games: dict[str, Any], simulations: dict[str, int], reps: int, progress: bool
) -> dict[str, dict[str, dict[str, Any]]]:
    samples = {g: {e: [] for e in ENTRIES} for g in games}
    actions = {g: {e: [] for e in ENTRIES} for g in games}
    work = {g: {e: [] for e in ENTRIES} for g in games}
    for rep in range(reps):
        for game_name, initial in games.items():
            n = simulations[game_name]
            order = ENTRIES[rep % len(ENTRIES) :] + ENTRIES[: rep % len(ENTRIES)]
            for entry in order:
                gc.collect()
                seconds, done, action = RUNNERS[entry](initial, n, 1000 * rep + 7)
                samples[game_name][entry].append(done / seconds)
                actions[game_name][entry].append(action)
                work[game_name][entry].append(done)
            if progress:
                line = ", ".join(f"{e} {samples[game_name][e][-1]:,.0f}" for e in ENTRIES)
                print(f"rep {rep + 1}/{reps} {game_name}: {line}", file=sys.stderr, flush=True)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for game_name in games:
        results[game_name] = {}
        for entry in ENTRIES:
            rates = samples[game_name][entry]
            results[game_name][entry] = {
                "label": LABELS[entry],
                "unit": UNITS[entry],
                "simulations": simulations[game_name],
                "median": statistics.median(rates),
                "min": min(rates),
                "max": max(rates),
                "samples": rates,
                "us_per_simulation": 1e6 / statistics.median(rates),
                # Time per simulation beyond one bare playout of the game: the implementation's
                # own cost (tree, expansion, rollout wrapper). For engines whose rollouts start
                # at a new leaf (playout, monte-carlo-tree-search) this understates it by the
                # moves the tree saves (about 3.5 of 21 in connect four); seed 000 replays the
                # path from the root, so its simulations play about a whole game.
                "us_beyond_bare": 1e6 / statistics.median(rates)
                - 1e6 / statistics.median(samples[game_name]["bare"]),
                "chosen_actions": actions[game_name][entry],
                "simulations_done": work[game_name][entry],
            }
            if min(work[game_name][entry]) < simulations[game_name]:
                NOTES.append(
                    f"{game_name}: {LABELS[entry]} stopped early in some reps (root proven): "
                    f"simulations done {work[game_name][entry]}; rates use the work done"
                )
    return results


def ratios(results: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for game_name, by_entry in results.items():
        engine = by_entry["engine"]
        out[game_name] = {}
        for other, target in TARGETS.items():
            paired = [
                a / b for a, b in zip(engine["samples"], by_entry[other]["samples"], strict=True)
            ]
            value = engine["median"] / by_entry[other]["median"]
            out[game_name][f"engine/{other}"] = {
                "ratio_of_medians": value,
                # What an engine with no overhead at all would score (bare playouts' rate over
                # the other's), if its rollouts were full games; a real engine's rollouts start
                # below the root, so it can do slightly better than this bound.
                "zero_overhead_bound": by_entry["bare"]["median"] / by_entry[other]["median"],
                "median_of_paired_ratios": statistics.median(paired),
                "target": target,
                "meets_target": None if target is None else value >= target,
            }
        # Time per simulation the engine spends beyond one bare playout (tree work, expansion,
        # evaluation wrapper), in microseconds: 1/engine - 1/bare.
        overhead = engine["us_beyond_bare"]
        out[game_name]["engine_overhead_us_per_simulation"] = overhead
        # The seed-style and package costs beyond a bare playout, as multiples of the engine's.
        out[game_name]["overhead_multiples_of_engine"] = {
            other: by_entry[other]["us_beyond_bare"] / overhead if overhead > 0 else None
            for other in PEERS
        }
    return out


def print_table(report: dict[str, Any]) -> None:
    m = report["machine"]
    print(
        f"machine: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), "
        f"{m['implementation']} {m['python']}, numpy {m['numpy']}, numba {m['numba']}"
    )
    print(f"playout {m['playout_commit']}; engine: {report['engine']}")
    print(
        f"load average before/after: {m['load_average_before']} / {m['load_average']}"
        " (this run adds about 1; well above 1 before it: other work shared the cores)"
    )
    print(
        f"one decision from the empty board, fresh tree, one thread, UCB1 c=sqrt(2), random "
        f"rollouts; median of {report['reps']} interleaved reps"
    )
    for note in report["notes"]:
        print(f"note: {note}")
    print()
    header = (
        f"{'game':<10} {'implementation':<28} {'sims':>6} {'median':>10} {'unit':<10} "
        f"{'min':>9} {'max':>9} {'us/sim':>8} {'beyond bare':>11}"
    )
    print(header)
    print("-" * len(header))
    for game_name, by_entry in report["results"].items():
        for i, entry in enumerate(ENTRIES):
            r = by_entry[entry]
            print(
                f"{game_name if i == 0 else '':<10} {r['label']:<28} {r['simulations']:>6} "
                f"{r['median']:>10,.0f} {r['unit']:<10} {r['min']:>9,.0f} {r['max']:>9,.0f} "
                f"{r['us_per_simulation']:>8.1f} "
                f"{'' if entry == 'bare' else format(r['us_beyond_bare'], '11.1f'):>11}"
            )
    print()
    header = (
        f"{'game':<10} {'ratio':<26} {'of medians':>10} {'paired':>8} {'bound':>7} "
        f"{'target':>8}  status"
    )
    print(header)
    print("-" * len(header))
    for game_name, by_ratio in report["ratios"].items():
        first = True
        for name, r in by_ratio.items():
            if not name.startswith("engine/"):
                continue
            label = {
                "engine/bare": "engine / bare playouts",
                "engine/seed": "engine / seed-style",
                "engine/mcts_pkg": "engine / mcts package",
            }[name]
            target = "" if r["target"] is None else f">= {r['target']:g}"
            status = "" if r["meets_target"] is None else ("ok" if r["meets_target"] else "BELOW")
            print(
                f"{game_name if first else '':<10} {label:<26} {r['ratio_of_medians']:>10.2f} "
                f"{r['median_of_paired_ratios']:>8.2f} {r['zero_overhead_bound']:>7.2f} "
                f"{target:>8}  {status}"
            )
            first = False
        overhead = by_ratio["engine_overhead_us_per_simulation"]
        multiples = by_ratio["overhead_multiples_of_engine"]
        names = {"seed": "seed-style", "mcts_pkg": "mcts package"}
        text = ", ".join(
            f"{names[name]} {value:.1f}x" for name, value in multiples.items() if value is not None
        )
        print(f"{'':<10} engine time beyond one bare playout: {overhead:.1f} us per simulation")
        print(f"{'':<10} others' time beyond one bare playout: {text} the engine's")
    print(
        "paired: median of the per-rep ratios; bound: bare playouts / that implementation, the "
        "ratio an engine with\nzero overhead would reach (playing full-length rollouts); "
        "beyond bare: us per simulation minus us per\nbare playout (each implementation's own "
        "cost; understated for the engines whose rollouts start at a leaf)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", default="tictactoe,connect4", help="comma-separated: tictactoe, connect4"
    )
    parser.add_argument(
        "--simulations",
        type=int,
        default=None,
        help="simulations per decision (and playouts per bare rep) for every game; default 2000",
    )
    parser.add_argument("--reps", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print the results as JSON; with PATH, also write the result file the "
        "documentation renders there (bench/results/python_engine.json)",
    )
    args = parser.parse_args(argv)
    names = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in names if g not in GAMES]
    if unknown or not names:
        parser.error(f"unknown game(s) {unknown}; choose from {sorted(GAMES)}")
    if args.reps < 1 or (args.simulations is not None and args.simulations < 1):
        parser.error("--reps and --simulations must be at least 1")
    games = {g: GAMES[g]().initial_state() for g in names}
    simulations = {
        g: args.simulations if args.simulations is not None else DEFAULT_SIMULATIONS[g]
        for g in names
    }
    started = time.perf_counter()
    warm_up(games)
    load_before = _load_average()
    results = measure(games, simulations, args.reps, progress=True)
    machine = machine_info()
    machine["load_average_before"] = load_before
    report = {
        "machine": machine,
        "engine": ENGINE_HOW,
        "reps": args.reps,
        "notes": NOTES,
        "results": results,
        "ratios": ratios(results),
        "wall_seconds": time.perf_counter() - started,
    }
    if args.json == "-":
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        print_table(report)
    if args.json not in (None, "-"):
        write_result_file(args.json, report)
    return 0


def write_result_file(path: str, report: dict[str, Any]) -> None:
    """The documentation's table (docs/explanation/performance.md) as a result file."""
    from results import write_results  # bench/results.py, beside this script

    def rate(value: float) -> str:
        return f"{value / 1000:#.3g}k" if value < 1e6 else f"{value / 1e6:#.3g}M"

    rows = []
    for game_name, by_entry in report["results"].items():
        by_ratio = report["ratios"][game_name]
        rows.append(
            [
                {"tictactoe": "tic-tac-toe", "connect4": "connect four"}.get(game_name, game_name),
                rate(by_entry["bare"]["median"]),
                rate(by_entry["engine"]["median"]),
                *(
                    f"{by_ratio[name]['ratio_of_medians']:.2f}" if name in by_ratio else "n/a"
                    for name in ("engine/bare", "engine/seed", "engine/mcts_pkg")
                ),
            ]
        )
    simulations = {r["engine"]["simulations"] for r in report["results"].values()}
    write_results(
        path,
        title="playout's Python driver against bare random playouts, a seed-000-style object "
        f"MCTS and the monte-carlo-tree-search package (one decision from the empty board, "
        f"{', '.join(f'{n:,}' for n in sorted(simulations))} simulations, median of "
        f"{report['reps']} interleaved repetitions)",
        columns=[
            "game",
            "bare playouts/s",
            "playout (Python driver)",
            "engine / bare",
            "engine / seed-style",
            "engine / `monte-carlo-tree-search`",
        ],
        rows=rows,
    )


if __name__ == "__main__":
    sys.exit(main())
