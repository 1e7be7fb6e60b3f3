#!/usr/bin/env python
"""Where a compiled simulation spends its time, phase by phase, as the tree grows.

Runs the compiled driver's loop (:mod:`playout._src.compiled.driver`) for plain UCT on
connect four (9x9 k=5 with ``--game mnk9``, tic-tac-toe with ``--game tictactoe``) with the
x86 time-stamp counter read between the phases (``llvm.readcyclecounter``, constant-rate
cycles, not core cycles), and prints per simulation: the mean number of edges descended, the
cycles of selection (``selection.descend``), of copying the parent's state and playing the
move, of listing the legal moves, of the rollout, and of expansion + backup
(``finish.finish_new_leaf``).
One fresh tree per run, preallocated, solver off; the kernel's functions are called directly,
as in the driver.

It shows why a million-simulation search runs at a lower rate than a 10k one: the descent is
about twice as deep while each level costs about the same, in cache or not.

Usage::

    python bench/phase_profile.py                  # 10k and 1M simulations, 2 runs each
    python bench/phase_profile.py --sims 10000 300000 --runs 3
    python bench/phase_profile.py --game mnk9 --sims 10000 100000
    python bench/phase_profile.py --game tictactoe --sims 20000 50000
"""

from __future__ import annotations

import argparse
import functools
import math
import types
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types as nt
from numba.extending import intrinsic

from playout._src.compiled import memory
from playout._src.compiled.kernel import DRAW, ONGOING, Kernel
from playout._src.tree import backup, expansion, finish, selection
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout.games.connect4.kernel import connect4_kernel
from playout.games.mnk.kernel import mnk_kernel

PHASES = ("descend", "copy+play", "legal", "rollout", "expand+backup")


@intrinsic
def cycle_counter(typingctx):  # type: ignore[no-untyped-def]
    """The time-stamp counter (``llvm.readcyclecounter``)."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        function = builder.module.declare_intrinsic(
            "llvm.readcyclecounter", fnty=ir.FunctionType(ir.IntType(64), [])
        )
        return builder.call(function, [])

    return nt.int64(), codegen


# The kernel's functions: globals of each kernel's copy of `profiled_simulations` (direct
# calls, as in the driver's per-kernel copies of its loop).
legal_actions: Any = None
play: Any = None
current_player: Any = None
rollout: Any = None


def profiled_simulations(  # type: ignore[no-untyped-def]
    params, nodes, node_values, edges, edge_values, meta, states, rule_params, tree_rng,
    rollout_rng, simulations, actions, path, scratch, cycles,
):  # fmt: skip
    """The driver's loop for one kernel, UCT, one rollout, solver off; adds the cycles of
    each phase to ``cycles[0:5]`` and the edges descended to ``cycles[5]``."""
    no_priors = rule_params[:0]
    for _ in range(simulations):
        new = meta[T.M_NUM_NODES]
        t0 = cycle_counter()
        node, edge, depth = selection.descend(
            nodes, edges, edge_values, selection.RULE_UCB1, rule_params, tree_rng, 1 << 30, path
        )
        t1 = cycle_counter()
        cycles[5] += depth
        if edge == T.NO_EDGE:  # a terminal node reached again
            finish.finish_old_leaf(
                nodes, node_values, edges, edge_values, node, node_values[node, T.NV_EXACT],
                False, -1.0, 1.0, path, depth,
            )  # fmt: skip
            continue
        for i in range(states.shape[1]):
            states[new, i] = states[node, i]
        mover = nodes[node, T.N_PLAYER]
        status = play(params, states[new], edges[edge, T.E_ACTION])
        t2 = cycle_counter()
        if status != ONGOING:
            value0 = 0.0 if status == DRAW else backup.value_for(mover, 1.0)
            finish.finish_new_leaf(
                nodes, node_values, edges, edge_values, meta, node, edge, T.TERMINAL, True,
                0.0, actions[:0], no_priors, value0, False, -1.0, 1.0, path, depth,
            )  # fmt: skip
            continue
        count = legal_actions(params, states[new], actions)
        t3 = cycle_counter()
        value0 = rollout(params, states[new], scratch, rollout_rng)
        t4 = cycle_counter()
        finish.finish_new_leaf(
            nodes, node_values, edges, edge_values, meta, node, edge,
            current_player(params, states[new]), False, 0.0, actions[:count], no_priors,
            value0, False, -1.0, 1.0, path, depth,
        )  # fmt: skip
        t5 = cycle_counter()
        cycles[0] += t1 - t0
        cycles[1] += t2 - t1
        cycles[2] += t3 - t2
        cycles[3] += t4 - t3
        cycles[4] += t5 - t4


GAMES = {
    "connect4": lambda: connect4_kernel(),
    "mnk9": lambda: mnk_kernel(9, 9, 5),
    "tictactoe": lambda: mnk_kernel(3, 3, 3),
}


@functools.cache
def profiled_for(game: str) -> tuple[Kernel, object]:
    """The game's kernel and :func:`profiled_simulations` compiled with its functions."""
    kernel = GAMES[game]()
    namespace = dict(globals())
    namespace.update(
        play=kernel.play,
        legal_actions=kernel.legal_actions,
        rollout=kernel.rollout,
        current_player=kernel.current_player,
    )
    code = profiled_simulations.__code__
    copy = types.FunctionType(code, namespace, profiled_simulations.__name__)
    return kernel, numba.njit(nogil=True, boundscheck=False, error_model="numpy")(copy)


def profile(simulations: int, seed: int, game: str = "connect4") -> np.ndarray:
    """Cycles per simulation of each phase, then the mean edges descended."""
    kernel, run = profiled_for(game)
    tree = memory.new_tree(simulations + 2, (simulations + 2) * kernel.num_actions)
    states = np.zeros((simulations + 2, kernel.state_size), dtype=np.uint64)
    kernel.initial_state(kernel.params, states[T.ROOT])
    actions = np.zeros(kernel.num_actions, dtype=np.int64)
    expansion.add_node(tree.nodes, tree.node_values, tree.edges, tree.meta, T.NO_NODE, T.NO_EDGE,
                       0, False, 0.0)  # fmt: skip
    count = kernel.legal_actions(kernel.params, states[T.ROOT], actions)
    expansion.expand(tree.nodes, tree.edges, tree.edge_values, tree.meta, T.ROOT,
                     actions[:count], np.zeros(0))  # fmt: skip
    cycles = np.zeros(6, dtype=np.int64)
    run(  # type: ignore[operator]
        kernel.params, *tree, states, np.array([math.sqrt(2.0)]), new_rng_state(seed),
        new_rng_state(seed + 1_000_003), simulations, actions, np.zeros(4096, np.int64),
        np.zeros(kernel.scratch_size, np.int64), cycles,
    )  # fmt: skip
    return cycles / simulations


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sims", type=_positive, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--runs", type=_positive, default=2)
    parser.add_argument("--game", choices=sorted(GAMES), default="connect4")
    args = parser.parse_args()
    profile(1_000, 0, args.game)  # compile
    print("cycles per simulation (time-stamp counter); depth: edges descended per simulation")
    print(f"{'sims':>9} {'depth':>6} " + " ".join(f"{p:>13}" for p in PHASES)
          + f" {'total':>7} {'descend/level':>13}")  # fmt: skip
    for run in range(args.runs):
        for simulations in args.sims:
            per = profile(simulations, run, args.game)
            total = per[:5].sum()
            print(f"{simulations:>9,} {per[5]:>6.2f} "
                  + " ".join(f"{c:>13.0f}" for c in per[:5])
                  + f" {total:>7.0f} {per[0] / per[5]:>13.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
