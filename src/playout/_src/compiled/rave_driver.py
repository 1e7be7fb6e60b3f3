"""The compiled search loop with RAVE: AMAF statistics kept and read in machine code.

The twin of :func:`playout._src.compiled.driver.kernel_driver`'s loop for the
:class:`~playout.RAVE` rule, and of the Python driver's RAVE simulations
(:mod:`playout._src.python_driver`): the same phase functions, the same selection
(:func:`playout._src.rave.descend`) and the same MC-RAVE update
(:func:`playout._src.rave.update_amaf`, Gelly & Silver 2011), on AMAF rows parallel to the
tree's edge rows (:class:`playout._src.rave.AmafTable`). Per simulation::

    node, edge, depth = rave.descend(...)          # 1. selection on the blended values
    new leaf: node_states[child] = parent's row; play(...)
    value0 = mean of num_rollouts recorded rollouts   # 3. the kernel's recorded_rollout
    finish_new_leaf(..., legal actions) / finish_old_leaf(...)  # 2 + 4
    rave.update_amaf(...) once per rollout          # every move of the simulation credited

Two things differ from the ordinary loop. A new leaf is expanded at once (as the Python
driver does), not when a simulation comes back to it: its edges then get the AMAF samples of
the rollout that valued it, which lazy expansion would lose. And the rollouts report their
moves: through the kernel's optional ``recorded_rollout`` (Go: the first stone on each point,
passes left out), else uniformly random legal moves played through the kernel's
``legal_actions`` and ``play`` (what ``rollout`` plays by the kernel contract; slower than a
kernel's own rollout).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from typing import Any

import numpy as np
from numba import types as nt

from playout._src import rave
from playout._src.compiled.driver import (
    STAT_MAX_DEPTH,
    _dependency_fingerprint,
    borrowed,
    finish_new_leaf,
    finish_old_leaf,
    kernel_loop,
    terminal_value0,
)
from playout._src.compiled.kernel import (
    ACTIONS_TYPE,
    MOVE_PRIORS_SIGNATURE,
    ONGOING,
    PARAMS_TYPE,
    RECORDED_ROLLOUT_SIGNATURE,
    RNG_TYPE,
    SCRATCH_TYPE,
    Kernel,
)
from playout._src.jit import jit
from playout._src.tree import layout as T
from playout._src.tree.rng import random_below

_INT_MATRIX = nt.int32[:, ::1]
_FLOAT_MATRIX = nt.float64[:, ::1]

RAVE_DRIVER_SIGNATURE = nt.int64(
    PARAMS_TYPE,  # params
    _INT_MATRIX,  # nodes
    _FLOAT_MATRIX,  # node_values
    _INT_MATRIX,  # edges
    _FLOAT_MATRIX,  # edge_values
    nt.int64[::1],  # meta
    nt.uint64[:, ::1],  # node_states
    nt.int64[::1],  # amaf_visits
    nt.float64[::1],  # amaf_sums
    nt.int64[:, ::1],  # marks
    nt.int64[::1],  # stamp
    nt.float64[::1],  # rave_params
    RNG_TYPE,  # tree_rng
    RNG_TYPE,  # rollout_rng
    nt.int64,  # max_depth
    nt.int64,  # max_nodes
    nt.int64,  # num_simulations
    nt.int64,  # num_rollouts
    nt.boolean,  # solver
    nt.float64,  # min_return
    nt.float64,  # max_return
    ACTIONS_TYPE,  # actions
    nt.int64[::1],  # path
    SCRATCH_TYPE,  # scratch
    nt.int64[:, ::1],  # move_actions
    nt.int64[:, ::1],  # move_players
    nt.int64[::1],  # move_counts
    nt.float64[::1],  # move_values
    nt.uint64[::1],  # rollout_state
    nt.float64[::1],  # prior_scores
    nt.int64[::1],  # stats
)


@jit(RECORDED_ROLLOUT_SIGNATURE, cache=True, nogil=True)
def no_recorded_rollout(
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    rng: np.ndarray,
    out_actions: np.ndarray,
    out_players: np.ndarray,
) -> tuple[float, int]:
    """Stands for the ``recorded_rollout`` of a kernel that has none: a count of -1 tells the
    loop to play its own uniformly random rollout."""
    return 0.0, -1


@jit(MOVE_PRIORS_SIGNATURE, cache=True, nogil=True)
def no_move_priors(
    params: np.ndarray, state: np.ndarray, actions: np.ndarray, out_scores: np.ndarray
) -> None:
    """Stands for the ``move_priors`` of a kernel that has none: every score 0."""
    for i in range(actions.shape[0]):
        out_scores[i] = 0.0


# The kernel's functions as the loop calls them (bound per kernel by kernel_loop).
legal_actions: Any = None
play: Any = None
current_player: Any = None
rollout: Any = None
recorded_rollout: Any = None
move_priors: Any = None


def _build_rave_driver(fingerprint: int):  # type: ignore[no-untyped-def]
    """The compiled RAVE loop (a closure over ``fingerprint``, see :func:`_rave_fingerprint`)."""

    def run_rave_simulations(  # type: ignore[no-untyped-def]  # typed by RAVE_DRIVER_SIGNATURE
        params,
        nodes,
        node_values,
        edges,
        edge_values,
        meta,
        node_states,
        amaf_visits,
        amaf_sums,
        marks,
        stamp,
        rave_params,
        tree_rng,
        rollout_rng,
        max_depth,
        max_nodes,
        num_simulations,
        num_rollouts,
        solver,
        min_return,
        max_return,
        actions,
        path,
        scratch,
        move_actions,
        move_players,
        move_counts,
        move_values,
        rollout_state,
        prior_scores,
        stats,
    ):
        """Run up to ``num_simulations`` RAVE simulations on the tree; the number run.

        Stops early as :func:`playout._src.compiled.driver.kernel_driver`'s loop does (root
        proven, ``max_nodes``, no room for one more simulation). Every node's state row must
        be filled and every non-terminal node expanded (this loop expands new leaves at once).

        Args (beside those of the ordinary loop, which has ``rule`` and ``rule_params`` where
        this one has ``rave_params``):
            amaf_visits, amaf_sums: AMAF rows parallel to the edge rows (at least as many).
            marks: ``int64[players, num_actions]`` scratch of :func:`playout._src.rave.
                update_amaf`; ``stamp[0]``: the last stamp used (advanced in place).
            rave_params: :func:`playout._src.rave.selection_parameters`.
            move_actions, move_players: ``int64[num_rollouts, max_length]``, the moves each
                rollout of a simulation reported; ``move_counts`` and ``move_values``
                (``[num_rollouts]``): how many, and each rollout's value for player 0.
            rollout_state: ``uint64[state_size]``, the state of a rollout played here.
            prior_scores: ``float64[num_actions]``, the kernel's move scores of a new node
                (``rave_params[P_PRIOR_SAMPLES]`` > 0: that many virtual AMAF samples of that
                mean on each of its edges).
        """
        _ = fingerprint
        params = borrowed(params)
        nodes = borrowed(nodes)
        node_values = borrowed(node_values)
        edges = borrowed(edges)
        edge_values = borrowed(edge_values)
        meta = borrowed(meta)
        node_states = borrowed(node_states)
        amaf_visits = borrowed(amaf_visits)
        amaf_sums = borrowed(amaf_sums)
        marks = borrowed(marks)
        rave_params = borrowed(rave_params)
        tree_rng = borrowed(tree_rng)
        rollout_rng = borrowed(rollout_rng)
        actions = borrowed(actions)
        path = borrowed(path)
        scratch = borrowed(scratch)
        move_actions = borrowed(move_actions)
        move_players = borrowed(move_players)
        move_counts = borrowed(move_counts)
        move_values = borrowed(move_values)
        rollout_state = borrowed(rollout_state)
        prior_scores = borrowed(prior_scores)
        prior_samples = rave_params[rave.P_PRIOR_SAMPLES]
        no_priors = rave_params[:0]  # empty: uniform priors
        max_actions = actions.shape[0]
        capacity = move_actions.shape[1]
        node_capacity = min(nodes.shape[0], node_values.shape[0], node_states.shape[0])
        edge_capacity = min(
            edges.shape[0], edge_values.shape[0], amaf_visits.shape[0], amaf_sums.shape[0]
        )
        state_size = node_states.shape[1]
        done = 0
        solved = nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN
        while done < num_simulations and not solved:
            num_nodes = meta[T.M_NUM_NODES]
            if num_nodes >= max_nodes or num_nodes + 1 > node_capacity:
                break
            if meta[T.M_NUM_EDGES] + max_actions > edge_capacity:
                break
            # 1. Selection on the blend of values and AMAF values.
            node, edge, depth = rave.descend(
                nodes, edges, edge_values, amaf_visits, amaf_sums, rave_params, tree_rng,
                max_depth, path,
            )  # fmt: skip
            done += 1
            if depth > stats[STAT_MAX_DEPTH]:
                stats[STAT_MAX_DEPTH] = depth
            leaf = node  # the row of the position to evaluate
            known = False  # its value is exact: a terminal or proven position
            value0 = 0.0
            if edge == T.NO_EDGE:
                if nodes[node, T.N_NUM_EDGES] == 0 or nodes[node, T.N_PROVEN] != T.UNPROVEN:
                    known = True
                    value0 = node_values[node, T.NV_EXACT]
            else:
                leaf = num_nodes
                for i in range(state_size):
                    node_states[leaf, i] = node_states[node, i]
                mover = nodes[node, T.N_PLAYER]
                status = play(params, node_states[leaf], np.int64(edges[edge, T.E_ACTION]))
                if status != ONGOING:
                    known = True
                    value0 = terminal_value0(mover, status)
            # 3. Evaluation: recorded rollouts (none for a known value: one AMAF sample
            # from the tree's moves alone).
            samples = 1
            if known:
                move_counts[0] = 0
                move_values[0] = value0
            else:
                samples = num_rollouts
                state = node_states[leaf]
                total = 0.0
                for r in range(num_rollouts):
                    value, count = recorded_rollout(
                        params, state, scratch, rollout_rng, move_actions[r], move_players[r]
                    )
                    if count < 0:
                        # The kernel reports no moves: uniformly random legal moves here.
                        for i in range(state_size):
                            rollout_state[i] = state[i]
                        count = 0
                        while True:
                            player = current_player(params, rollout_state)
                            legal = legal_actions(params, rollout_state, actions)
                            action = actions[random_below(rollout_rng, legal)]
                            if count < capacity:
                                move_actions[r, count] = action
                                move_players[r, count] = player
                                count += 1
                            status = play(params, rollout_state, action)
                            if status != ONGOING:
                                value = terminal_value0(player, status)
                                break
                    move_counts[r] = count
                    move_values[r] = value
                    total += value
                value0 = total / num_rollouts
            # 2 + 4. Expansion (a new leaf gets its edges now), backup and the solver.
            if edge == T.NO_EDGE:
                solved = finish_old_leaf(
                    nodes, node_values, edges, edge_values, node, value0, solver, min_return,
                    max_return, path, depth,
                )  # fmt: skip
            elif known:
                solved = finish_new_leaf(
                    nodes, node_values, edges, edge_values, meta, node, edge, T.TERMINAL, True,
                    0.0, actions[:0], no_priors, value0, solver, min_return, max_return, path,
                    depth,
                )  # fmt: skip
            else:
                state = node_states[leaf]
                player = current_player(params, state)
                count = legal_actions(params, state, actions)
                first = meta[T.M_NUM_EDGES]
                solved = finish_new_leaf(
                    nodes, node_values, edges, edge_values, meta, node, edge, player, False,
                    0.0, actions[:count], no_priors, value0, solver, min_return, max_return,
                    path, depth,
                )  # fmt: skip
                if prior_samples > 0.0:
                    # Prior knowledge: virtual AMAF samples of the kernel's move scores (none
                    # for a move scored NaN).
                    move_priors(params, state, actions[:count], prior_scores[:count])
                    for i in range(count):
                        if not np.isnan(prior_scores[i]):
                            amaf_visits[first + i] += np.int64(prior_samples)
                            amaf_sums[first + i] += np.int64(prior_samples) * prior_scores[i]
            # MC-RAVE's update: one AMAF sample per rollout.
            for r in range(samples):
                stamp[0] += 1
                count = move_counts[r]
                rave.update_amaf(
                    nodes, node_values, edges, amaf_visits, amaf_sums, marks, stamp[0], path,
                    depth, move_actions[r, :count], move_players[r, :count], move_values[r],
                )  # fmt: skip
        return done

    return run_rave_simulations


@functools.cache
def _rave_fingerprint() -> int:
    """The ordinary loop's dependency fingerprint and :mod:`playout._src.rave`'s source: what
    the RAVE loop compiles in besides its own file (see the driver's
    ``_dependency_fingerprint``)."""
    digest = hashlib.sha256(_dependency_fingerprint().to_bytes(8, "little"))
    path = inspect.getsourcefile(rave)
    if path is not None:
        with open(path, "rb") as source:
            digest.update(source.read())
    return int.from_bytes(digest.digest()[:7], "little") | 1


def rave_kernel_driver(kernel: Kernel):  # type: ignore[no-untyped-def]
    """The compiled RAVE loop ``run_rave_simulations(params, nodes, ...)`` for ``kernel``
    (see :func:`_build_rave_driver`), compiled once per kernel or loaded from numba's cache."""
    recorded = kernel.recorded_rollout or no_recorded_rollout
    priors = kernel.move_priors or no_move_priors
    return kernel_loop(
        _build_rave_driver,
        RAVE_DRIVER_SIGNATURE,
        _rave_fingerprint(),
        kernel,
        extra=(("recorded_rollout", recorded), ("move_priors", priors)),
    )


__all__ = ["RAVE_DRIVER_SIGNATURE", "no_move_priors", "no_recorded_rollout", "rave_kernel_driver"]
