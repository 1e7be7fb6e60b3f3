#!/usr/bin/env python
"""AlphaZero self-play and inference throughput: playout's lockstep self-play against a
one-leaf-at-a-time loop over the same network and against OpenSpiel's Python AlphaZero, a
(parallel games, leaf batch) sweep, and PyTorch against ONNX Runtime.

Every part uses one freshly initialised network per game (``Architecture(channels, blocks)``;
64x4 for connect four, 32x2 for tic-tac-toe), on the CPU, with ``torch.set_num_threads(1)``
unless ``--threads``. Shared machines drift, so every repetition runs the compared entries
back to back (the order alternates from one repetition to the next) and the report gives the
median rates and the median of the per-repetition ratios.

1. Self-play. ``playout.zero.self_play`` (every game its own batched-driver search; one step
   asks each game for up to ``leaf_batch`` leaves and evaluates all of them in one network
   call, through :class:`NetworkEvaluator` and its cache) against a straightforward loop: the
   same number of games, one after the other, move by move, each move ``playout.MCTS`` with
   PUCT and an evaluator that has ``evaluate`` and ``priors`` only (no ``evaluate_batch``, so
   the engine runs the plain Python driver, one leaf per simulation) and no cache. That
   evaluator makes one ``Model.predict`` call on a batch of one per new leaf: the Python
   driver asks for a leaf's priors and then its value, and the value call reuses the priors
   call's output for that same state object (the one thing it remembers; without it every
   leaf would cost two calls). Both sides: the same search settings (PUCT c = 2, c_base =
   19652, solver on, no root noise, tree kept across moves), the same move choice (the first
   8 plies drawn in proportion to the visits, then the most visited move) and a training
   record per position (observation and visit shares). Rates: positions (moves played) per
   second and network evaluations (positions through the network) per second.
   The third column is OpenSpiel's Python AlphaZero (``open_spiel.python.algorithms.
   alpha_zero``, JAX/Flax, its default ``nnx`` API), run through its own actor code: the
   model from ``alpha_zero._init_model_from_config`` ("resnet", ``nn_width``/``nn_depth`` =
   playout's channels/blocks, observation shape and outputs from the OpenSpiel game, as
   ``alpha_zero.alpha_zero`` sets them), one ``AlphaZeroEvaluator`` (with its LRU cache) per
   repetition, two ``mcts.MCTSBot`` (one per player, as ``actor`` makes them) and
   ``alpha_zero._play_game`` with temperature 1 for the first 8 plies, then the best child.
   Network evaluations are calls to the model's ``inference`` (one position each; cache hits
   do not call it). Where it differs from OpenSpiel's actor: the bots are built as
   ``_init_bot`` builds them but with ``solve=True`` and no Dirichlet noise (the actor has
   ``solve=False`` and root noise), to search as playout's side does. Where it differs from
   playout's side, by OpenSpiel's design: its PUCT is ``Q + c P sqrt(N) / (1 + n)`` with a
   constant c = 2 (no c_base growth), unvisited children have Q = 0, and every move searches
   a new tree (none kept across moves); its ``inference`` runs the Flax model op by op (not
   under ``jax.jit``); its resnet reads the game's [3, 6, 7] (connect four) observation as
   3 x 6 cells of 7 planes, so its convolutions cover 18 cells where playout's cover 42.
   The column needs ``pyspiel`` and JAX, Flax, optax, chex and orbax-checkpoint; without
   them it reads 'not installed' (``--no-openspiel`` leaves it out). With ``--threads 1``
   the script sets ``XLA_FLAGS`` to one XLA CPU thread unless it is set already.
2. Sweep: positions per second of ``self_play`` for (parallel games, leaf batch) pairs; each
   pair plays ``max(parallel games, 2)`` games (one lockstep wave, as a training iteration
   with ``games_per_iteration == parallel_games``), with a fresh evaluator (empty cache).
3. Inference: positions per second of ``Model.predict`` (PyTorch, 1 thread and 2 threads)
   and of ONNX Runtime on the same network (``torch.onnx.export(..., dynamo=False)`` with a
   dynamic batch axis; ``intra_op_num_threads`` as for PyTorch) at batch 1, 16, 64 and 256.
   Without ``onnx``/``onnxruntime`` those columns read 'not installed'.

Usage::

    python bench/zero_throughput.py                # both games: 3 minutes on 2 busy cores
    python bench/zero_throughput.py --game connect4 --games 16 --simulations 32 --reps 3
    python bench/zero_throughput.py --smoke               # seconds: does it still run?

The OpenSpiel column wants JAX and Flax beside the project's numpy (numba pins it): a venv with
``--system-site-packages`` and ``pip install -c <numpy==installed version> jax flax optax chex
orbax-checkpoint`` runs the script with all three columns.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if (REPO / "src" / "playout").is_dir():
    sys.path.insert(0, str(REPO / "src"))  # measure the working tree, installed or not

import numpy as np  # noqa: E402

GAMES = {"connect4": (64, 4), "tictactoe": (32, 2)}
"""Each game's default network size: (channels, residual blocks)."""

SWEEP = ((1, 1), (16, 8), (64, 8), (128, 8), (64, 16))
BATCHES = (1, 16, 64, 256)
C, C_BASE, TEMPERATURE_MOVES = 2.0, 19652.0, 8


def make_game(name: str) -> Any:
    import playout

    return playout.games.Connect4Game() if name == "connect4" else playout.make_game(name)


def median_ratio(a: list[float], b: list[float]) -> float:
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


# --------------------------------------------------------------------------- 1. self-play


class OneLeaf:
    """A network evaluator for the plain Python driver: one ``predict`` call on a batch of
    one per leaf, no cache, no ``evaluate_batch``. The driver asks a new leaf's priors, then
    its value; the value reuses the priors call's output when it is for the same state
    object (the last call only), so a leaf costs one network call, not two."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls = 0
        self._last: tuple[Any, Any, float] | None = None

    def _outputs(self, state: Any) -> tuple[Any, float]:
        last = self._last
        if last is not None and last[0] is state:
            return last[1], last[2]
        logits, values = self.model.predict(state.observation()[None].astype(np.float32))
        self.calls += 1
        self._last = (state, logits[0], float(values[0]))
        return logits[0], float(values[0])

    def evaluate(self, state: Any, rng: random.Random) -> float:
        del rng
        return self._outputs(state)[1]

    def priors(self, state: Any, actions: Any) -> np.ndarray:
        from playout.zero import masked_softmax

        return masked_softmax(self._outputs(state)[0], np.asarray(actions, dtype=np.int64))


def one_leaf_self_play(model: Any, game: Any, num_games: int, sims: int, seed: int) -> int:
    """``num_games`` games, one after the other, one leaf per network call; moves played."""
    import playout

    rng = random.Random(seed)
    evaluator = OneLeaf(model)
    num_actions = int(game.spec.num_actions)
    moves = 0
    for index in range(num_games):
        engine = playout.MCTS(
            game.initial_state(),
            evaluator=evaluator,
            selection=playout.PUCT(c=C, c_base=C_BASE),
            solver=True,
            simulations=sims,
            seed=seed * 100_003 + index,
        )
        if engine.backend != "python":
            raise SystemExit(f"the one-leaf loop ran on the {engine.backend!r} driver")
        records = []
        ply = 0
        while not engine.root_state.is_terminal():
            result = engine.run()
            visits = np.asarray(result.visit_counts, dtype=np.float64)
            policy = np.zeros(num_actions, dtype=np.float32)
            if visits.sum() > 0:
                policy[np.asarray(result.actions, dtype=np.int64)] = visits / visits.sum()
            records.append((engine.root_state.observation(), policy))
            if ply < TEMPERATURE_MOVES and visits.sum() > 0 and result.proven is None:
                action = int(rng.choices(result.actions, weights=visits.tolist())[0])
            else:
                action = int(result.best_action)
            engine.advance(action)
            ply += 1
        moves += ply
    return moves


def lockstep(model: Any, game: Any, games: int, sims: int, batch: int, parallel: int, seed: int):
    """``self_play`` with a fresh evaluator: (moves, network evaluations, leaves, seconds)."""
    from playout.zero import NetworkEvaluator, SelfPlaySettings, ZeroSearch, self_play

    evaluator = NetworkEvaluator(model)
    before = model.evaluations
    start = time.perf_counter()
    settings = SelfPlaySettings(
        search=ZeroSearch(simulations=sims, leaf_batch=batch),
        temperature_moves=TEMPERATURE_MOVES,
        parallel_games=parallel,
        augment=False,
    )
    played = self_play(evaluator, game, games, settings, seed=seed)
    seconds = time.perf_counter() - start
    moves = sum(len(g.moves) for g in played)
    return moves, model.evaluations - before, evaluator.hits + evaluator.misses, seconds


OPENSPIEL_GAMES = {"connect4": "connect_four", "tictactoe": "tic_tac_toe"}
OPENSPIEL_NEEDS = ("pyspiel", "jax", "flax", "optax", "chex", "orbax.checkpoint")


def load_openspiel() -> tuple[Any, str]:
    """OpenSpiel's ``alpha_zero`` module and a note, or ``None`` and why not."""
    for name in OPENSPIEL_NEEDS:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # the parent package of a dotted name is missing
            found = False
        if not found:
            return None, (
                "OpenSpiel's Python AlphaZero (open_spiel.python.algorithms.alpha_zero, JAX/Flax) "
                f"is not installed ({name} is missing): no OpenSpiel column"
            )
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # model_nnx warns that the nnx API is in use
        # Importing it sets multiprocessing's start method to "spawn" (as its actors need).
        from open_spiel.python.algorithms.alpha_zero import alpha_zero, utils

        utils.api_selector("nnx")
    import flax
    import jax

    note = (
        f"OpenSpiel's Python AlphaZero (open_spiel.python.algorithms.alpha_zero, nnx API; jax "
        f"{jax.__version__}, flax {flax.__version__}, XLA_FLAGS "
        f"{os.environ.get('XLA_FLAGS') or 'unset'}): its actor's _play_game, MCTSBot (PUCT, "
        "c=2 constant, solve=True, no root noise, new tree per move) and AlphaZeroEvaluator"
    )
    return alpha_zero, note


class _QuietLogger:
    """The logger that ``alpha_zero._play_game`` prints to, silent."""

    def print(self, *args: Any) -> None:
        del args

    def opt_print(self, *args: Any) -> None:
        del args


class OpenSpielActor:
    """OpenSpiel's AlphaZero actor for one game: its model, its evaluator and its bots; counts
    the model's ``inference`` calls (one position each)."""

    def __init__(self, alpha_zero: Any, name: str, channels: int, blocks: int, sims: int):
        import warnings

        import pyspiel

        self.az = alpha_zero
        self.game = pyspiel.load_game(OPENSPIEL_GAMES[name])
        self.config = alpha_zero.Config(
            game=OPENSPIEL_GAMES[name],
            path=None,
            learning_rate=0.001,
            weight_decay=0.0001,
            decouple_weight_decay=False,
            train_batch_size=2**10,
            replay_buffer_size=2**16,
            replay_buffer_reuse=3,
            max_steps=0,
            checkpoint_freq=100,
            actors=1,
            evaluators=0,
            evaluation_window=100,
            eval_levels=7,
            uct_c=C,
            max_simulations=sims,
            policy_alpha=1.0,
            policy_epsilon=0.0,
            temperature=1.0,
            temperature_drop=TEMPERATURE_MOVES,
            nn_model="resnet",
            nn_width=channels,
            nn_depth=blocks,
            observation_shape=self.game.observation_tensor_shape(),
            output_size=self.game.num_distinct_actions(),
            verbose=False,
            quiet=True,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model = alpha_zero._init_model_from_config(self.config)
        self.parameters = int(self.model.num_trainable_variables)
        self.calls = 0
        inference = self.model.inference

        def counted(observation: Any, legals_mask: Any) -> Any:
            self.calls += 1
            return inference(observation, legals_mask)

        self.model.inference = counted

    def play(self, games: int, seed: int, sims: int | None = None) -> tuple[int, int]:
        """``games`` games of ``_play_game`` with a fresh evaluator: (moves, evaluations)."""
        from open_spiel.python.algorithms import mcts
        from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib

        config = self.config
        np.random.seed(seed)  # _play_game draws the temperature moves from np.random
        az_evaluator = evaluator_lib.AlphaZeroEvaluator(self.game, self.model)
        random_state = np.random.RandomState(seed)
        bots = tuple(  # alpha_zero._init_bot's arguments, with solve=True and no noise
            mcts.MCTSBot(
                self.game,
                config.uct_c,
                sims or config.max_simulations,
                az_evaluator,
                solve=True,
                random_state=random_state,
                dirichlet_noise=None,
                child_selection_fn=mcts.SearchNode.puct_value,
                verbose=config.verbose,
                dont_return_chance_node=True,
            )
            for _ in range(2)
        )
        before = self.calls
        moves = 0
        for number in range(games):
            trajectory = self.az._play_game(
                _QuietLogger(), number, self.game, bots, config.temperature, config.temperature_drop
            )
            moves += len(trajectory.states)
        return moves, self.calls - before


def measure_self_play(
    model: Any, game: Any, args: argparse.Namespace, openspiel: OpenSpielActor | None = None
) -> dict[str, Any]:
    games, sims = args.games, args.simulations
    # Warm-up of both drivers: numba's compiled code, the allocator, torch's kernels.
    lockstep(model, game, 1, 2, 1, 1, 999)
    one_leaf_self_play(model, game, 1, 2, 999)
    sides = ("ours", "base") if openspiel is None else ("ours", "base", "openspiel")
    if openspiel is not None:
        openspiel.play(1, 999, sims=2)  # JAX's first calls compile each operation
    rates: dict[str, list[float]] = {k: [] for s in sides for k in (s, s + "_evals")}
    hits = []
    for rep in range(args.reps):
        for side in sides if rep % 2 == 0 else sides[::-1]:
            if side == "ours":
                moves, evals, leaves, seconds = lockstep(
                    model, game, games, sims, args.leaf_batch, args.parallel_games, rep
                )
                hits.append(1.0 - evals / max(1, leaves))
            elif side == "openspiel":
                assert openspiel is not None
                start = time.perf_counter()
                moves, evals = openspiel.play(games, rep)
                seconds = time.perf_counter() - start
            else:
                before = model.evaluations
                start = time.perf_counter()
                moves = one_leaf_self_play(model, game, games, sims, rep)
                seconds = time.perf_counter() - start
                evals = model.evaluations - before
            rates[side].append(moves / seconds)
            rates[side + "_evals"].append(evals / seconds)
            print(f"  rep {rep + 1}/{args.reps} {side}: {moves / seconds:,.1f} positions/s",
                  file=sys.stderr)  # fmt: skip
    result = {
        "games": games,
        "simulations": sims,
        "parallel_games": args.parallel_games,
        "leaf_batch": args.leaf_batch,
        "lockstep_positions_per_sec": statistics.median(rates["ours"]),
        "lockstep_evals_per_sec": statistics.median(rates["ours_evals"]),
        "lockstep_cache_hit_rate": statistics.median(hits),
        "one_leaf_positions_per_sec": statistics.median(rates["base"]),
        "one_leaf_evals_per_sec": statistics.median(rates["base_evals"]),
        "speed_up": median_ratio(rates["ours"], rates["base"]),
        "eval_rate_ratio": median_ratio(rates["ours_evals"], rates["base_evals"]),
    }
    has = openspiel is not None
    result.update(
        {
            "openspiel_parameters": openspiel.parameters if has else None,
            "openspiel_positions_per_sec": statistics.median(rates["openspiel"]) if has else None,
            "openspiel_evals_per_sec": statistics.median(rates["openspiel_evals"]) if has else None,
            "lockstep_over_openspiel": median_ratio(rates["ours"], rates["openspiel"])
            if has
            else None,
            "lockstep_evals_over_openspiel": median_ratio(
                rates["ours_evals"], rates["openspiel_evals"]
            )
            if has
            else None,
            "one_leaf_over_openspiel": median_ratio(rates["base"], rates["openspiel"])
            if has
            else None,
        }
    )
    return result


# --------------------------------------------------------------------------- 2. sweep


def measure_sweep(model: Any, game: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    pairs = args.sweep
    rates: dict[tuple[int, int], list[float]] = {p: [] for p in pairs}
    evals: dict[tuple[int, int], list[float]] = {p: [] for p in pairs}
    for rep in range(args.sweep_reps):
        for g, b in pairs if rep % 2 == 0 else pairs[::-1]:
            moves, n, _, seconds = lockstep(
                model, game, max(g, 2), args.simulations, b, g, 100 + rep
            )
            rates[(g, b)].append(moves / seconds)
            evals[(g, b)].append(n / seconds)
    base = pairs[0]
    return [
        {
            "parallel_games": g,
            "leaf_batch": b,
            "games": max(g, 2),
            "positions_per_sec": statistics.median(rates[(g, b)]),
            "evals_per_sec": statistics.median(evals[(g, b)]),
            f"over_{base[0]}x{base[1]}": median_ratio(rates[(g, b)], rates[base]),
        }
        for g, b in pairs
    ]


# --------------------------------------------------------------------------- 3. inference


def onnx_session(model: Any, threads: int) -> Any:
    """An ONNX Runtime session on ``model``'s network, or ``None`` when not installed."""
    if not (importlib.util.find_spec("onnx") and importlib.util.find_spec("onnxruntime")):
        return None
    return model.onnx_session(threads)  # the library's own export


def measure_inference(model: Any, game: Any, args: argparse.Namespace) -> dict[str, Any]:
    import torch

    threads = args.threads
    more = 2 if threads == 1 else 1  # the other PyTorch thread count to compare with
    sessions = {t: onnx_session(model, t) for t in sorted({threads, more})}
    from playout.zero.selfplay import random_opening

    rng = random.Random(0)  # positions from random openings, not one board over and over
    states = [random_opening(game, rng.randint(0, 6), rng)[0] for _ in range(max(args.batches))]
    observations = model.observations(states)
    rows = []
    for batch in args.batches:
        x = np.ascontiguousarray(observations[:batch])
        calls = max(3, math.ceil(args.positions / batch))
        runners = {
            f"torch_{threads}t": (threads, lambda x=x: model.predict(x)),
            f"torch_{more}t": (more, lambda x=x: model.predict(x)),
        }
        for t, session in sessions.items():
            if session is not None:
                runners[f"onnx_{t}t"] = (
                    threads,
                    lambda x=x, s=session: s.run(None, {"observations": x}),
                )
        error = None
        if sessions[threads] is not None:
            logits, values = model.predict(x)
            o_logits, o_values = sessions[threads].run(None, {"observations": x})
            error = float(max(np.abs(logits - o_logits).max(), np.abs(values - o_values).max()))
        rates: dict[str, list[float]] = {k: [] for k in runners}
        names = list(runners)
        for rep in range(args.reps):
            for name in names if rep % 2 == 0 else names[::-1]:
                torch_threads, call = runners[name]
                torch.set_num_threads(torch_threads)
                call()  # warm-up for this shape
                start = now = time.perf_counter()
                done = 0
                while done < calls and (done < 2 or now - start < args.seconds):
                    call()
                    done += 1
                    now = time.perf_counter()
                rates[name].append(batch * done / (now - start))
        torch.set_num_threads(threads)
        row: dict[str, Any] = {"batch": batch, "max_abs_difference": error}
        for name in (f"torch_{threads}t", f"torch_{more}t", f"onnx_{threads}t", f"onnx_{more}t"):
            row[name] = statistics.median(rates[name]) if name in rates else None
        row[f"torch_{more}t_over_{threads}t"] = median_ratio(
            rates[f"torch_{more}t"], rates[f"torch_{threads}t"]
        )
        if f"onnx_{threads}t" in rates:
            row[f"onnx_over_torch_{threads}t"] = median_ratio(
                rates[f"onnx_{threads}t"], rates[f"torch_{threads}t"]
            )
        else:
            row[f"onnx_over_torch_{threads}t"] = None
        rows.append(row)
    return {"threads": threads, "other_threads": more, "rows": rows}


# --------------------------------------------------------------------------- report


def fmt(value: float | None, spec: str = ",.0f") -> str:
    return "not installed" if value is None else format(value, spec)


def print_report(report: dict[str, Any]) -> None:
    print(f"# {report['command']}")
    print(
        f"# python {report['python']}, torch {report['torch']}, onnxruntime "
        f"{report['onnxruntime'] or 'not installed'}, {report['cpus']} CPUs, "
        f"torch threads {report['threads']}, OMP_WAIT_POLICY "
        f"{report['omp_wait_policy'] or 'unset'}, reps {report['reps']} (sweep "
        f"{report['sweep_reps']}); medians, ratios are medians of per-repetition ratios"
    )
    print(f"# {report['openspiel_note']}")
    for name, entry in report["games"].items():
        sp = entry["self_play"]
        print(
            f"\n== {name}: network {entry['channels']}x{entry['blocks']} "
            f"({entry['parameters']:,} parameters), {sp['games']} games, "
            f"{sp['simulations']} simulations/move, self-play runtime {entry['runtime']}"
        )
        print(f"1. self-play{'':26} positions/s   network evals/s")
        print(
            f"  lockstep self_play (G={sp['parallel_games']}, B={sp['leaf_batch']})"
            f"{'':4}{sp['lockstep_positions_per_sec']:>11,.1f} "
            f"{sp['lockstep_evals_per_sec']:>17,.0f}"
            f"   (cache hits {sp['lockstep_cache_hit_rate']:.0%} of leaves)"
        )
        print(
            f"  one leaf per call, no cache{'':8}{sp['one_leaf_positions_per_sec']:>11,.1f} "
            f"{sp['one_leaf_evals_per_sec']:>17,.0f}"
        )
        print(
            f"  speed-up (positions/s): {sp['speed_up']:.2f}x (target >= 10x); "
            f"network evals/s ratio: {sp['eval_rate_ratio']:.2f}x"
        )
        if sp["openspiel_positions_per_sec"] is None:
            print(f"  OpenSpiel AlphaZero (JAX/Flax){'':7}{fmt(None):>11} {fmt(None):>17}")
        else:
            print(
                f"  OpenSpiel AlphaZero, MCTSBot{'':8}{sp['openspiel_positions_per_sec']:>11,.1f} "
                f"{sp['openspiel_evals_per_sec']:>17,.0f}"
                f"   (resnet {entry['channels']}x{entry['blocks']}, "
                f"{sp['openspiel_parameters']:,} parameters)"
            )
            print(
                f"  lockstep over OpenSpiel (positions/s): {sp['lockstep_over_openspiel']:.2f}x "
                f"(target >= 10x); network evals/s: {sp['lockstep_evals_over_openspiel']:.2f}x; "
                f"one leaf over OpenSpiel: {sp['one_leaf_over_openspiel']:.2f}x"
            )
        if entry["sweep"]:
            base = next(k for k in entry["sweep"][0] if k.startswith("over_"))
            print(f"2. sweep{'':12}games  positions/s   evals/s   {base.replace('_', ' ')}")
            for row in entry["sweep"]:
                pair = f"G={row['parallel_games']}, B={row['leaf_batch']}"
                print(
                    f"  {pair:17} {row['games']:>5} {row['positions_per_sec']:>12,.1f} "
                    f"{row['evals_per_sec']:>9,.0f} {row[base]:>9.2f}x"
                )
        inf = entry["inference"]
        t, m = inf["threads"], inf["other_threads"]
        print(
            f"3. inference (positions/s) batch  torch {t}t   torch {m}t    onnx {t}t    "
            f"onnx {m}t  torch {m}t/{t}t  onnx/torch {t}t  max|diff|"
        )
        for row in inf["rows"]:
            ratio = row[f"onnx_over_torch_{t}t"]
            diff = row["max_abs_difference"]
            print(
                f"{'':27}{row['batch']:>6} {row[f'torch_{t}t']:>9,.0f} "
                f"{row[f'torch_{m}t']:>10,.0f} {fmt(row[f'onnx_{t}t']):>10} "
                f"{fmt(row[f'onnx_{m}t']):>10} {row[f'torch_{m}t_over_{t}t']:>12.2f}x "
                f"{fmt(ratio, '.2f'):>14}{'x' if ratio is not None else ''} "
                f"{fmt(diff, '.1e'):>9}"
            )


def parse_pairs(text: str) -> tuple[tuple[int, int], ...]:
    pairs = tuple(tuple(int(n) for n in p.split("x")) for p in text.split(","))
    if not pairs or any(len(p) != 2 or min(p) < 1 for p in pairs):
        raise argparse.ArgumentTypeError("pairs are GxB, comma separated, each >= 1")
    return pairs  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    parser.add_argument("--games", type=int, default=16, help="self-play games per side")
    parser.add_argument("--simulations", type=int, default=32, help="simulations per move")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--parallel-games", type=int, default=64)
    parser.add_argument("--leaf-batch", type=int, default=8)
    parser.add_argument("--channels", type=int, help="network width (default: per game)")
    parser.add_argument("--blocks", type=int, help="residual blocks (default: per game)")
    parser.add_argument("--threads", type=int, default=1, help="PyTorch/ONNX threads")
    parser.add_argument(
        "--runtime",
        choices=("auto", "torch", "onnx"),
        default="auto",
        help="the network runtime of the self-play parts (default auto: the library's choice)",
    )
    parser.add_argument("--sweep", type=parse_pairs, default=SWEEP,
                        help="GxB pairs (parallel games x leaf batch): 1x1,16x8")  # fmt: skip
    parser.add_argument("--sweep-reps", type=int, default=1,
                        help="repetitions of the sweep (its big pairs take a while)")  # fmt: skip
    parser.add_argument("--no-sweep", action="store_true", help="leave part 2 out")
    parser.add_argument("--no-openspiel", action="store_true",
                        help="leave OpenSpiel's AlphaZero out of part 1")  # fmt: skip
    parser.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    parser.add_argument("--positions", type=int, default=512,
                        help="positions per inference timing (per entry, batch, rep)")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="cap on one inference timing (at least 2 calls)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: does it still run?")
    args = parser.parse_args(argv)
    if args.smoke:
        args.game = args.game or ["tictactoe"]
        args.games, args.simulations, args.reps = 2, 4, 1
        args.parallel_games, args.leaf_batch = 2, 2
        args.sweep, args.batches, args.positions = ((1, 1), (2, 2)), [1, 4], 8
        args.seconds = 0.05
        args.channels, args.blocks = args.channels or 8, args.blocks or 1
    if min(args.games, args.simulations, args.reps, args.parallel_games, args.leaf_batch,
           args.threads, args.positions, args.sweep_reps, *args.batches) < 1:  # fmt: skip
        parser.error("sizes, counts and threads must be >= 1")

    import torch

    import playout
    from playout.zero import Architecture, Model

    torch.set_num_threads(args.threads)
    if args.no_openspiel:
        alpha_zero, openspiel_note = None, "OpenSpiel's AlphaZero left out (--no-openspiel)"
    else:
        if args.threads == 1:  # one XLA CPU thread, as PyTorch and ONNX Runtime get here
            os.environ.setdefault(
                "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
            )
        alpha_zero, openspiel_note = load_openspiel()
    ort_version = None
    if importlib.util.find_spec("onnxruntime") and importlib.util.find_spec("onnx"):
        import onnxruntime

        ort_version = onnxruntime.__version__
    report: dict[str, Any] = {
        "command": shlex.join(
            ["python", "bench/zero_throughput.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "python": sys.version.split()[0],
        "playout": getattr(playout, "__version__", "?"),
        "torch": torch.__version__,
        "onnxruntime": ort_version,
        "cpus": os.cpu_count(),
        "threads": args.threads,
        "reps": args.reps,
        "sweep_reps": args.sweep_reps,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "openspiel_note": openspiel_note,
        "games": {},
    }
    for name in args.game or list(GAMES):
        game = make_game(name)
        channels, blocks = GAMES[name]
        arch = Architecture(channels=args.channels or channels, blocks=args.blocks or blocks)
        model = Model(game, arch, device="cpu", seed=0, runtime=args.runtime)
        eager = Model(game, arch, device="cpu", seed=0, runtime="torch")  # same weights
        print(f"{name}: {model!r}, runtime {model.runtime}", file=sys.stderr)
        entry: dict[str, Any] = {
            "channels": arch.channels,
            "blocks": arch.blocks,
            "parameters": model.num_parameters(),
        }
        openspiel = None
        if alpha_zero is not None:
            openspiel = OpenSpielActor(
                alpha_zero, name, arch.channels, arch.blocks, args.simulations
            )
        entry["self_play"] = measure_self_play(model, game, args, openspiel)
        entry["sweep"] = [] if args.no_sweep else measure_sweep(model, game, args)
        entry["runtime"] = model.runtime
        entry["inference"] = measure_inference(eager, game, args)
        report["games"][name] = entry
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)


if __name__ == "__main__":
    main()
