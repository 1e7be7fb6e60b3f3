#!/usr/bin/env python
"""Where playout's Python engine spends a simulation: game code versus engine overhead.

Three views of one move decision from the empty board (default: connect four, 2000
simulations, UCB1, random rollouts, the Python driver ``playout._src.search.MCTS``):

1. **Split by replay** (no profiler, so nothing is distorted): the engine is timed, then the
   exact game work it did is replayed and timed alone -- every expansion ``play()`` from the
   parent's state, and a bare random rollout (the loop of ``bench/python_engine.py``'s bare
   playouts) from every new leaf state. Engine overhead per simulation = engine time minus
   that game work. Medians over interleaved repetitions.
2. **Itemised overhead**: each per-simulation operation of the driver timed alone (best of
   several ``timeit`` repeats) and multiplied by how often a simulation does it. The sum is a
   lower bound of the overhead measured in 1 (the rest is interpreter glue: method calls,
   attribute look-ups, tuple packing).
3. **cProfile** of the same search, grouped by where the code lives, plus the top functions.
   cProfile adds a fixed cost to every Python call, so it inflates the many tiny game calls;
   read its call counts, and views 1 and 2 for times.

Usage::

    python bench/profile_python_engine.py [--game connect4] [--simulations 2000] [--reps 7]
    python bench/profile_python_engine.py --smoke        # seconds: does it still run?
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import random
import statistics
import sys
import time
import timeit
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if (BENCH_DIR.parent / "src" / "playout").is_dir():
    sys.path.insert(0, str(BENCH_DIR.parent / "src"))  # the working tree's playout
sys.path.insert(0, str(BENCH_DIR))

import numpy as np  # noqa: E402

import python_engine as pe  # noqa: E402  (sets up the path to the working tree's playout)
from playout._src.game import CHANCE  # noqa: E402
from playout._src.tree import finish, selection  # noqa: E402
from playout._src.tree import layout as T  # noqa: E402

# ------------------------------------------------------------------------------ 1. replay


def _bare_rollouts(states: list[Any], rng: random.Random) -> None:
    choice = rng.choice
    for state in states:
        while not state.is_terminal():
            state = state.play(choice(state.legal_actions()))
        state.returns()


def _expansions(engine: Any) -> tuple[list[Any], list[int]]:
    """Parent state and action of every node the search created, in creation order."""
    tree = engine.tree
    states = engine.driver._states
    parents, actions = [], []
    for node in range(1, tree.num_nodes):
        edge = int(tree.nodes[node, T.N_PARENT_EDGE])
        parents.append(states[int(tree.nodes[node, T.N_PARENT])])
        actions.append(int(tree.edges[edge, T.E_ACTION]))
    return parents, actions


class _FreeValue:
    """A nearly free evaluator: a random value in {-1, 0, 1}, so the tree still gets noisy
    returns like rollouts give, at the cost of one ``rng.choice``."""

    VALUES = (1.0, -1.0, 0.0, 1.0, -1.0)

    def evaluate(self, state: Any, rng: random.Random) -> float:
        return rng.choice(self.VALUES)


def _make_free_engine(initial: Any, simulations: int, seed: int) -> Any:
    """The same Python driver with its default options, but leaves valued by _FreeValue (an
    evaluator of its own, so the driver calls it through ``_evaluate0`` instead of inlining
    the default random rollout)."""
    budget = pe.playout.Budget(simulations=simulations)
    engine = pe.playout.MCTS(
        initial, backend="python", evaluator=_FreeValue(), budget=budget, seed=seed
    )
    pe._check_python_driver(engine)
    return engine


def split_by_replay(initial: Any, simulations: int, reps: int) -> dict[str, float]:
    """Engine time per simulation split into game work, evaluator overhead, driver overhead."""
    keys = ("engine", "play", "rollout", "evaluator", "free_engine", "free_evaluator", "moves")
    samples: dict[str, list[float]] = {key: [] for key in keys}

    def per_sim(start: float) -> float:
        return (time.perf_counter() - start) * 1e6 / simulations

    for rep in range(reps):
        gc.collect()
        start = time.perf_counter()
        engine = pe.MAKE_ENGINE(initial, simulations, 100 + rep)
        engine.run()
        samples["engine"].append(per_sim(start))
        pe._check_python_driver(engine)
        parents, actions = _expansions(engine)
        leaves = engine.driver._states[1:]
        # The game work the search did, replayed alone: its expansion moves ...
        gc.collect()
        start = time.perf_counter()
        for parent, action in zip(parents, actions, strict=True):
            parent.play(action)
        samples["play"].append(per_sim(start))
        # ... and a bare random rollout from each new leaf.
        start = time.perf_counter()
        _bare_rollouts(leaves, random.Random(rep))
        samples["rollout"].append(per_sim(start))
        # The same rollouts (same generator seed, so the very same games) through the engine's
        # evaluator call: driver._evaluate0 -> Rollout.evaluate -> Rollout._one_game (the path
        # of a Rollout with options; the default one is inlined in the driver's loop).
        engine.driver._rng = random.Random(rep)
        evaluate0 = engine.driver._evaluate0
        start = time.perf_counter()
        for state in leaves:
            evaluate0(state)
        samples["evaluator"].append(per_sim(start))
        # The driver alone: the same search with a nearly free evaluator.
        gc.collect()
        start = time.perf_counter()
        free = _make_free_engine(initial, simulations, 100 + rep)
        free.run()
        samples["free_engine"].append(per_sim(start))
        free_leaves = free.driver._states[1:]
        evaluate0 = free.driver._evaluate0
        start = time.perf_counter()
        for state in free_leaves:
            evaluate0(state)
        samples["free_evaluator"].append(per_sim(start) * simulations / max(1, len(free_leaves)))
        # Moves a simulation plays: its expansion move plus its rollout.
        counter = random.Random(rep)
        total = len(parents)
        for state in leaves:
            while not state.is_terminal():
                state = state.play(counter.choice(state.legal_actions()))
                total += 1
        samples["moves"].append(total / simulations)
    m = {key: statistics.median(values) for key, values in samples.items()}
    paired = list(zip(*(samples[key] for key in keys), strict=True))
    # Driver overhead: the free-evaluator search minus its expansion moves and its evaluator.
    driver = statistics.median([fe - p - fv for _e, p, _r, _v, fe, fv, _m in paired])
    evaluator_extra = statistics.median([v - r for _e, _p, r, v, _fe, _fv, _m in paired])
    return {
        "engine_us": m["engine"],
        "expansion_play_us": m["play"],
        "rollout_us": m["rollout"],
        "game_us": m["play"] + m["rollout"],
        "overhead_us": statistics.median([e - p - r for e, p, r, *_ in paired]),
        "evaluator_us": m["evaluator"],
        "evaluator_overhead_us": evaluator_extra,
        "free_engine_us": m["free_engine"],
        "driver_overhead_us": driver,
        "moves_per_simulation": m["moves"],
        "new_nodes_per_simulation": len(parents) / simulations,
        "inline_rollout": bool(getattr(engine.driver, "_inline_rollout", False)),
    }


# ------------------------------------------------------------------------------ 2. items


TIMEIT = {"number": 20000, "slow_number": 2000, "repeat": 7}
"""Calls per timeit repeat (``slow_number`` for the compiled phase calls) and repeats;
``--smoke`` makes them small."""


def _best_us(stmt: str, namespace: dict[str, Any], number: int) -> float:
    times = timeit.repeat(stmt, number=number, repeat=TIMEIT["repeat"], globals=namespace)
    return min(times) / number * 1e6


def itemised(initial: Any, simulations: int, moves_per_simulation: float) -> list[tuple]:
    """Each operation of the driver's per-simulation loop (``MCTS._simulate_chunk``), timed
    alone, with how often a simulation does it (1/256 for the once-per-chunk ones)."""
    engine = pe.MAKE_ENGINE(initial, simulations, 1)
    engine.run()
    tree = engine.tree
    path = np.zeros(max(64, (initial.game.spec.max_length or 64) + 1), dtype=np.int64)
    # A representative leaf and its parent's state, reached by the compiled walk.
    rng = engine.driver._rng_state.copy()
    node, edge, depth = selection.descend(
        tree.nodes,
        tree.edges,
        tree.edge_values,
        engine.driver._rule,
        engine.driver._rule_params,
        rng,
        2**62,
        path,
    )
    if edge == T.NO_EDGE:  # the walk ended on a terminal or proven node: take a root edge
        node, edge = T.ROOT, int(tree.nodes[T.ROOT, T.N_FIRST_EDGE])
    parent_state = engine.driver._states[node]
    state = parent_state.play(int(tree.edges[edge, T.E_ACTION]))
    while state.is_terminal():  # a non-terminal leaf, so that it has moves to expand
        parent_state = initial
        state = initial.play(initial.legal_actions()[0])
    legal = state.legal_actions()
    actions = np.asarray(legal, dtype=np.int64)
    terminal = initial
    while not terminal.is_terminal():
        terminal = terminal.play(terminal.legal_actions()[0])
    # A copy of the tree with room (memory already touched) for many expansions below `edge`.
    room = 200_000
    copy = T.Tree(
        nodes=np.concatenate([tree.nodes, np.zeros((room, T.NODE_FIELDS), np.int64)]),
        node_values=np.concatenate(
            [tree.node_values, np.zeros((room, T.NODE_VALUE_FIELDS), np.float64)]
        ),
        edges=np.concatenate(
            [tree.edges, np.zeros((room * actions.size, T.EDGE_FIELDS), np.int64)]
        ),
        edge_values=np.concatenate(
            [tree.edge_values, np.zeros((room * actions.size, T.EDGE_VALUE_FIELDS), np.float64)]
        ),
        meta=tree.meta.copy(),
    )
    ns: dict[str, Any] = {
        "T": T,
        "selection": selection,
        "finish": finish,
        "np": np,
        "engine": engine,
        "tree": tree,
        "copy": copy,
        "path": path,
        "rng": rng,
        "node": node,
        "parent": node,
        "edge": edge,
        "depth": depth,
        "state": state,
        "legal": legal,
        "actions": actions,
        "terminal": terminal,
        "states": list(engine.driver._states),
        "action_arrays": {legal: actions},
        "CHANCE": CHANCE,
        "NO_PRIORS": np.zeros(0),
        "limit": None,
        "policy": None,
        "ran": 1,
        "chunk": 256,
        "solved": False,
        "max_seen": 0,
        "deadline": float("inf"),
        "perf_counter": time.perf_counter,
    }
    chunk = 1.0 / 256  # PythonDriver.max_chunk: simulations between capacity checks
    rollout_steps = max(0.0, moves_per_simulation - 1.0)
    # When the driver inlines the default rollout, its evaluator wrappers are not on the path.
    evaluator_calls = 0.0 if getattr(engine.driver, "_inline_rollout", False) else 1.0
    items = [
        # (label, statement, times per simulation)
        (
            "loop tests `ran < chunk and not solved`, deadline check every 16 simulations",
            "ran < chunk and not solved; ran % 16 == 0 and perf_counter() >= deadline",
            1.0,
        ),
        (
            "selection.descend(...): numba dispatch of 8 args + the walk",
            "selection.descend(tree.nodes, tree.edges, tree.edge_values, engine.driver._rule, "
            "engine.driver._rule_params, rng, 2**62, path)",
            1.0,
        ),
        (
            "  of which: numba dispatch alone (no-op kernel, same 8 args)",
            "NOOP8(tree.nodes, tree.edges, tree.edge_values, engine.driver._rule, "
            "engine.driver._rule_params, rng, 2**62, path)",
            0.0,
        ),
        (
            "bookkeeping `ran += 1`, `depth > max_seen`, `edge == NO_EDGE`",
            "done = ran + 1; depth > max_seen; edge == -1",
            1.0,
        ),
        (
            "states[node] + tree.edges.item(edge, E_ACTION)",
            "states[node]; tree.edges.item(edge, T.E_ACTION)",
            1.0,
        ),
        (
            "legal-action array from the cache (`action_arrays.get(legal)`, tuple test)",
            "action_arrays.get(legal) if type(legal) is tuple else None",
            1.0,
        ),
        (
            "  the same without the cache: np.asarray(legal, dtype=np.int64)",
            "np.asarray(legal, dtype=np.int64)",
            0.0,
        ),
        (
            "edge-room test `actions.size > engine.driver._max_actions`",
            "actions.size > engine.driver._max_actions",
            1.0,
        ),
        (
            "state.current_player() for finish_new_leaf's argument",
            "state.current_player()",
            1.0,
        ),
        (
            "finish.finish_new_leaf(*tree, ...): numba dispatch of 18 args + expand, backup, solve",
            "finish.finish_new_leaf(*copy, parent, edge, 0, False, 0.0, actions, NO_PRIORS, 0.5, "
            "True, -1.0, 1.0, path, depth)",
            1.0,
        ),
        (
            "  of which: numba dispatch alone (no-op kernel, same 16 args)",
            "NOOP16(*copy, parent, edge, 0, False, 0.0, actions, NO_PRIORS, 0.5, True, -1.0, 1.0)",
            0.0,
        ),
        (
            "states.append(state) (store_states=True; timed with a pop)",
            "states.append(state); states.pop()",
            1.0,
        ),
        (
            "per chunk: T.reserve(tree, 256, 256 * max_actions)",
            "T.reserve(engine.driver._tree, 256, 256 * engine.driver._max_actions)",
            chunk,
        ),
        (
            "per chunk: _path_buffer(max_depth), _fit_amaf()",
            "engine.driver._path_buffer(2**62); engine.driver._fit_amaf()",
            chunk,
        ),
        (
            "_evaluate0 + Rollout.evaluate wrappers (when the rollout is not inlined)",
            "engine.driver._evaluate0(terminal)",
            evaluator_calls,
        ),
        (
            "  minus the game's is_terminal()+returns() inside it",
            "terminal.is_terminal(); terminal.returns()",
            -evaluator_calls,
        ),
        (
            "Rollout._one_game per step: current_player() == CHANCE, limit/policy tests",
            "limit is not None; state.current_player() == CHANCE; policy is None",
            rollout_steps * evaluator_calls,
        ),
    ]
    import numba

    @numba.njit
    def noop8(a, b, c, d, e, f, g, h):  # type: ignore[no-untyped-def]
        return 0, 0, 0

    @numba.njit
    def noop16(a, b, c, d, e, f, g, h, i, j, k, m, n, o, p, q):  # type: ignore[no-untyped-def]
        return False

    ns["NOOP8"], ns["NOOP16"] = noop8, noop16
    rows = []
    for label, stmt, count in items:
        try:
            exec(stmt, ns)  # compile / warm up
        except Exception as error:  # the driver changed under this list: say so, go on
            print(f"  (skipped {label!r}: {type(error).__name__}: {error})", file=sys.stderr)
            continue
        slow = "finish_new_leaf" in stmt or "reserve" in stmt
        per_call = _best_us(stmt, ns, number=TIMEIT["slow_number" if slow else "number"])
        rows.append((label, per_call, count, per_call * count))
    return rows


# ------------------------------------------------------------------------------ 3. cProfile

GROUPS = (
    ("game code (playout/games)", ("/playout/games/",)),
    ("random module (rng.choice)", ("random.py", "getrandbits", "_randbelow")),
    ("rollout loop (evaluation.py)", ("/_src/evaluation.py",)),
    ("Python driver and engine", ("/_src/python_driver.py", "/_src/search.py")),
    ("_src/tree/: compiled phases incl. numba dispatch", ("/_src/tree/",)),
    ("numpy / builtins", ("numpy", "{built-in", "{method")),
)


def profile(initial: Any, simulations: int, top: int, searches: int = 3) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for rep in range(searches):
        pe.MAKE_ENGINE(initial, simulations, rep).run()
    profiler.disable()
    stats = pstats.Stats(profiler)
    totals: dict[str, float] = {name: 0.0 for name, _ in GROUPS}
    totals["other"] = 0.0
    calls: dict[str, int] = {}
    for (filename, _line, function), (_cc, ncalls, tottime, _ct, _callers) in stats.stats.items():
        where = f"{filename}:{function}"
        for name, needles in GROUPS:
            if any(needle in where for needle in needles):
                totals[name] += tottime
                break
        else:
            totals["other"] += tottime
        calls[where] = ncalls
    everything = sum(totals.values())
    out = io.StringIO()
    print(
        f"cProfile, {searches} searches of {simulations} simulations (tottime by group):",
        file=out,
    )
    for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<48} {100 * seconds / everything:5.1f}%", file=out)
    per_sim = searches * simulations
    print("calls per simulation:", file=out)
    for needle in (
        "play",
        "is_terminal",
        "legal_actions",
        "current_player",
        "returns",
        "choice",
        "descend",
        "finish_new_leaf",
        "reserve",
        "asarray",
    ):
        n = sum(
            c
            for w, c in calls.items()
            if w.endswith(f":{needle}")
            or w.endswith((f".{needle}>", f" {needle}>"))
            or f"method '{needle}'" in w
        )
        print(f"  {needle:<20} {n / per_sim:6.2f}", file=out)
    text = io.StringIO()
    stats.stream = text  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(top)
    lines = text.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    print("top functions by tottime:", file=out)
    print("\n".join(lines[start:]), file=out)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="connect4", choices=sorted(pe.GAMES))
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="a few seconds' run that checks the script still works (figures not meaningful): "
        "200 simulations, 1 rep, short timeit loops, one profiled search",
    )
    args = parser.parse_args(argv)
    if args.simulations < 1 or args.reps < 1 or args.top < 1:
        parser.error("--simulations, --reps and --top must be at least 1")
    searches = 3
    if args.smoke:
        args.simulations, args.reps, args.top, searches = 200, 1, 5, 1
        TIMEIT.update(number=200, slow_number=50, repeat=2)
    initial = pe.GAMES[args.game]().initial_state()
    pe.warm_up({args.game: initial})
    print(f"engine: {pe.ENGINE_HOW}; {args.game}, {args.simulations} simulations\n")

    split = split_by_replay(initial, args.simulations, args.reps)
    print("1. split by replay (median of interleaved reps), microseconds per simulation:")
    print(f"  engine, whole simulation                         {split['engine_us']:7.2f}")
    print(f"  game: expansion play()                           {split['expansion_play_us']:7.2f}")
    print(f"  game: bare random rollout from the new leaf      {split['rollout_us']:7.2f}")
    print(
        f"  engine overhead = whole - game                   {split['overhead_us']:7.2f}"
        f"  ({100 * split['overhead_us'] / split['engine_us']:.0f}% of the simulation)"
    )
    inline = split["inline_rollout"]
    print(
        f"    evaluator: the same games through engine.driver._evaluate0 take "
        f"{split['evaluator_us']:.2f}, {split['evaluator_overhead_us']:+.2f} over the bare loop"
        + (" (not on this search's path: the driver inlines the default rollout)" if inline else "")
    )
    print(
        f"    driver: the search with a nearly free evaluator takes "
        f"{split['free_engine_us']:.2f}; less its play() and"
    )
    print(
        f"      evaluator calls, the driver (run, _simulate, compiled calls) costs "
        f"{split['driver_overhead_us']:.2f}"
    )
    evaluator_overhead = 0.0 if inline else split["evaluator_overhead_us"]
    rest = split["overhead_us"] - evaluator_overhead - split["driver_overhead_us"]
    print(f"    rest (interaction: caches, branch history, allocator): {rest:.2f}")
    print(
        f"  moves per simulation {split['moves_per_simulation']:.2f}, new nodes per simulation "
        f"{split['new_nodes_per_simulation']:.3f}\n"
    )

    rows = itemised(initial, args.simulations, split["moves_per_simulation"])
    print(f"2. itemised engine overhead (best of {TIMEIT['repeat']} timeit repeats), microseconds:")
    print(f"  {'operation':<86} {'per call':>8} {'x/sim':>6} {'per sim':>8}")
    for label, per_call, count, per_sim in rows:
        shown = f"{per_sim:8.2f}" if count else "        "
        print(f"  {label:<86} {per_call:8.3f} {count:6.2f} {shown}")
    accounted = sum(r[3] for r in rows)
    print(f"  {'sum of the items':<86} {'':>8} {'':>6} {accounted:8.2f}")
    measured = evaluator_overhead + split["driver_overhead_us"]
    print(f"  {'measured in view 1 (evaluator + driver)':<86} {'':>8} {'':>6} {measured:8.2f}\n")

    print("3. " + profile(initial, args.simulations, args.top, searches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
