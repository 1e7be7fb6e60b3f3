"""The batched driver: many leaves per evaluation, for evaluators that value batches (networks).

A network evaluates 64 positions in little more time than one, so AlphaZero-style search
collects leaves before it evaluates (Silver et al. 2017 used batches of 8 with virtual loss).
One step of this driver::

    for each of up to leaf_batch simulations:          # select_leaves
        node, edge, depth = descend(...)               #   selection (tree/selection.py)
        state = states[node].play(action)              #   the new leaf, not yet expanded
        add_virtual_loss(path)                         #   steer the next descents elsewhere
    values, priors = evaluator.evaluate_batch(leaves)   # one call for the whole batch
    remove_virtual_loss(every path, newest first)       # finish_leaves: the tree as it was,
    finish_new_leaf(...) for each leaf in order         #   then expansion, backup, solver

Two descents of one batch that leave the tree by the same edge would create the child twice:
the batch stops at the first such collision and the second descent is not counted (its
random draws are spent, nothing else). With ``leaf_batch=1`` a step is exactly one
simulation of the Python driver with the same evaluator (the same visits for a seed).

:meth:`BatchedDriver.select_leaves` and :meth:`BatchedDriver.finish_leaves` are public so that
self-play can search many games in lockstep and evaluate all their leaves in one call
(:mod:`playout.zero.selfplay`); :meth:`BatchedDriver.simulate` is the same two steps with
the driver's own evaluator.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from playout._src import checks, leaf_batch
from playout._src.config import SearchConfig
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import BatchEvaluator
from playout._src.game import CHANCE, GameState, value_for
from playout._src.python_driver import _NO_ACTIONS, _NO_PRIORS, PythonDriver
from playout._src.tree import backup
from playout._src.tree import layout as T

_NO_FLOATS = np.zeros(0, dtype=np.float64)
_NO_COUNTS = np.zeros(0, dtype=np.int64)
_NO_SCRATCH = np.zeros((0, 0), dtype=np.float64)


@dataclasses.dataclass(slots=True)
class _Leaf:
    """One simulation of a batch, waiting for the batch's evaluation."""

    node: int  # the node the simulation stopped at, or the parent of the new leaf
    edge: int  # the edge to the new leaf, or NO_EDGE for an existing node
    depth: int  # edges on the path
    state: GameState | None  # the new leaf's state (None for an existing node)
    actions: np.ndarray  # the new leaf's legal actions (empty when terminal)
    player: int  # player to move at the new leaf (TERMINAL when it is over)
    reward0: float  # reward to player 0 on the way into the new leaf
    value0: float | None  # known value for player 0 (terminal, proven), else None
    batch_index: int  # row in the evaluation batch, or -1


class BatchedDriver(PythonDriver):
    """Runs simulations in batches of leaves evaluated together (see the module docstring).

    Args:
        state: the root position.
        config: the engine's configuration, resolved for the game; its evaluator must be a
            :class:`~playout._src.evaluation.BatchEvaluator` and its selection a built-in rule
            (PUCT for a network with priors).
        rng_state: the compiled phases' generator.
        rng: the Python generator (root noise).

    Raises:
        InvalidParameterError: a setting this driver cannot run (RAVE, progressive bias, a
            Python selection rule, the transposition table, recomputed states).
    """

    backend: ClassVar[str] = "batched"
    max_chunk: ClassVar[int] = 4096

    def __init__(
        self,
        state: GameState,
        config: SearchConfig,
        rng_state: np.ndarray,
        rng: random.Random,
    ) -> None:
        evaluator = config.evaluator
        if not isinstance(evaluator, BatchEvaluator):
            raise InvalidParameterError(f"not a batch evaluator: {evaluator!r}")
        selection = config.selection
        if selection is not None and not hasattr(selection, "compiled"):
            raise InvalidParameterError(
                "a batch evaluator needs a built-in selection rule (PUCT, UCB1 or "
                f"epsilon-greedy), not {type(selection).__name__}"
            )
        if config.transpositions:
            raise InvalidParameterError("a batch evaluator cannot use the transposition table")
        if not config.store_states:
            raise InvalidParameterError(
                "a batch evaluator needs stored states: not store_states=False, nor a game "
                "whose play() draws at random (hidden chance, searched with states recomputed)"
            )
        super().__init__(state, config, rng_state, rng)
        self._batch_evaluator: BatchEvaluator = evaluator
        self._leaf_batch = int(config.leaf_batch)
        self._loss = float(self._spec.min_return)
        self._pending: list[_Leaf] = []
        batch = self._leaf_batch
        self._paths = np.zeros((batch, 64), dtype=np.int64)
        self._saved = np.zeros((batch, 64), dtype=np.float64)
        self._walks = np.zeros((batch, 3), dtype=np.int64)  # leaf_batch.W_* columns
        # What finish_batch reads of each pending leaf (rows in the order selected).
        self._leaf_players = np.zeros(batch, dtype=np.int64)
        self._leaf_rewards0 = np.zeros(batch, dtype=np.float64)
        self._leaf_values0 = np.zeros(batch, dtype=np.float64)
        self._leaf_num_actions = np.zeros(batch, dtype=np.int64)
        self._leaf_actions = np.zeros((batch, max(1, self._max_actions)), dtype=np.int64)
        self._leaf_priors = np.zeros((batch, max(1, self._max_actions)), dtype=np.float64)
        self.collisions = 0
        """Batches cut short because two descents left the tree by the same edge."""
        self.forced_playouts = 0.0
        """KataGo's forced playouts at the root (:mod:`playout._src.forced`): its ``k``
        (Wu's 2), or 0 for none. Self-play sets it; the search's result is unchanged in
        kind, its root visits include the forced ones."""

    @property
    def pending(self) -> int:
        """Simulations selected and waiting for :meth:`finish_leaves`."""
        return len(self._pending)

    def simulate(self, count: int, *, max_depth: int, max_nodes: int, deadline: float) -> int:
        """Run up to ``count`` simulations in batches of ``leaf_batch`` (fewer if the deadline,
        in ``time.perf_counter`` seconds, passes or the root is proven); the number run."""
        del max_nodes  # the engine never asks for more simulations than nodes are left
        count = self._make_room(count, deadline)
        ran = 0
        while ran < count and time.perf_counter() < deadline:
            states, actions = self.select_leaves(min(self._leaf_batch, count - ran), max_depth)
            if states:
                values, priors = self._batch_evaluator.evaluate_batch(states, actions)
            else:
                values, priors = _NO_PRIORS, ()
            done, solved = self.finish_leaves(values, priors)
            ran += done
            if solved or done == 0:
                break
        return ran

    # ----------------------------------------------------------------------------- steps

    def select_leaves(self, limit: int, max_depth: int) -> tuple[list[GameState], list[np.ndarray]]:
        """Descend up to ``limit`` times with virtual loss (fewer after a collision, or once
        the root is proven); the leaves that need an evaluation, as their states and their
        legal actions (the order :meth:`finish_leaves` expects values and priors in).

        The tree must not change until :meth:`finish_leaves` is called.
        """
        if self._pending:
            raise InvalidParameterError("select_leaves called twice without finish_leaves")
        limit = max(1, min(int(limit), self._leaf_batch))
        self._tree = T.reserve(self._tree, limit, limit * self._max_actions)
        # No walk is deeper than the tree has nodes: room grows with the tree (doubling), not
        # with the game's max_length, which may be huge.
        deepest = min(max_depth, self._spec.max_length or 4096) + 1
        depth_room = min(deepest, self._tree.num_nodes + 1)
        if self._paths.shape[1] < depth_room:
            depth_room = min(max(depth_room, 2 * self._paths.shape[1]), deepest)
            self._paths = np.zeros((self._leaf_batch, depth_room), dtype=np.int64)
            self._saved = np.zeros((self._leaf_batch, depth_room), dtype=np.float64)
        max_depth = min(max_depth, self._paths.shape[1] - 1)
        states: list[GameState] = []
        actions_list: list[np.ndarray] = []
        if self._tree.nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN:
            return states, actions_list
        count, collided, deepest = self._walk_batch(limit, max_depth)
        self.max_depth_seen = max(self.max_depth_seen, deepest)
        self.collisions += collided
        try:
            for node, edge, depth in self._walks[:count].tolist():
                if edge != T.NO_EDGE:
                    leaf = self._new_leaf(node, edge, depth)
                else:
                    leaf = self._old_leaf(node, depth)
                if leaf.value0 is None:
                    leaf.batch_index = len(states)
                    states.append(leaf.state if leaf.state is not None else self._states[node])
                    actions_list.append(leaf.actions)
                self._pending.append(leaf)
        except BaseException:  # a game's broken promise: every walk's virtual loss goes
            self._pending = []
            self._take_back(count)
            raise
        return states, actions_list

    def _take_back(self, count: int) -> None:
        """Remove the virtual losses of the batch's first ``count`` walks (newest first): the
        tree as it was before :meth:`select_leaves`, for a batch that raised."""
        nodes, _, edges, edge_values, _ = self._tree
        for i in range(count - 1, -1, -1):
            depth = int(self._walks[i, leaf_batch.W_DEPTH])
            backup.remove_virtual_loss(
                nodes, edges, edge_values, self._paths[i], depth, self._saved[i]
            )

    def _walk_batch(self, limit: int, max_depth: int) -> tuple[int, bool, int]:
        """Selection: up to ``limit`` walks with virtual loss into ``self._walks`` (the
        compiled :func:`~playout._src.leaf_batch.select_batch` with the configured rule, or
        KataGo's forced walk; a subclass may walk by another rule)."""
        nodes, node_values, edges, edge_values, _ = self._tree
        forced_k = self.forced_playouts
        walk = leaf_batch.WALK_FORCED if forced_k > 0.0 else leaf_batch.WALK_RULE
        count, collided, deepest = leaf_batch.select_batch(
            nodes, node_values, edges, edge_values, walk, self._rule, self._rule_params,
            forced_k, _NO_FLOATS, _NO_COUNTS, _NO_COUNTS, _NO_FLOATS, _NO_SCRATCH, _NO_COUNTS,
            _NO_COUNTS, self._rng_state, max_depth, limit, self._loss, self._paths, self._saved,
            self._walks,
        )  # fmt: skip
        return int(count), bool(collided), int(deepest)

    def _grow_leaf_rows(self, num_actions: int) -> None:
        """Room for ``num_actions`` actions in every pending leaf's row (the rows kept)."""
        width = max(num_actions, 2 * self._leaf_actions.shape[1])
        for name in ("_leaf_actions", "_leaf_priors"):
            old = getattr(self, name)
            new = np.zeros((old.shape[0], width), dtype=old.dtype)
            new[:, : old.shape[1]] = old
            setattr(self, name, new)

    def _new_leaf(self, node: int, edge: int, depth: int) -> _Leaf:
        """The simulation leaves the tree by ``edge`` of ``node``: play the move."""
        parent_state = self._states[node]
        action = int(self._tree.edges[edge, T.E_ACTION])
        state = parent_state.play(action)
        if self._checks and (state is parent_state or state is None):
            checks.child(self._spec, parent_state, state)  # raises
        if self._determinism_checks:
            self._check_determinism(parent_state, action, state)
        reward0 = 0.0
        if self._spec.has_intermediate_rewards:
            reward0 = float(state.returns()[0]) - float(parent_state.returns()[0])
        if state.is_terminal():
            if self._checks:
                self._returns0(state)
            value0 = 0.0 if self._spec.has_intermediate_rewards else float(state.returns()[0])
            return _Leaf(node, edge, depth, state, _NO_ACTIONS, T.TERMINAL, reward0, value0, -1)
        legal = state.legal_actions()
        actions = self._action_arrays.get(legal) if type(legal) is tuple else None
        if actions is None:
            actions = self._action_array(legal, state)
        if actions.size > self._max_actions:
            # Room for the rest of the batch (select_leaves reads the tree's arrays afresh).
            self._grow_edge_room(actions.size, self._leaf_batch + 1)
        player = state.current_player()
        if self._checks and not (0 <= player < self._spec.num_players):
            checks.player(self._spec, state, player)  # CHANCE where allowed, else raises
        return _Leaf(node, edge, depth, state, actions, player, reward0, None, -1)

    def _old_leaf(self, node: int, depth: int) -> _Leaf:
        """The simulation stopped on an existing node: terminal, proven or at the depth limit
        (evaluated again)."""
        nodes = self._tree.nodes
        value0 = None
        if nodes[node, T.N_NUM_EDGES] == 0 or nodes[node, T.N_PROVEN] != T.UNPROVEN:
            value0 = float(self._tree.node_values[node, T.NV_EXACT])
        state = None if value0 is not None else self._states[node]
        actions = _NO_ACTIONS if state is None else self._action_array(state.legal_actions())
        player = int(nodes[node, T.N_PLAYER])
        return _Leaf(node, T.NO_EDGE, depth, None, actions, player, 0.0, value0, -1)

    def finish_leaves(
        self, values: np.ndarray | Sequence[float], priors: Sequence[np.ndarray]
    ) -> tuple[int, bool]:
        """Back up the pending simulations: ``values[i]`` (for the player to move) and
        ``priors[i]`` (one per legal action) belong to the ``i``-th state that
        :meth:`select_leaves` returned. Returns the simulations finished and whether the
        root is now proven."""
        pending, self._pending = self._pending, []
        count = len(pending)
        try:
            self._gather(pending, values, priors)
        except BaseException:  # a bad answer: the batch is dropped, the tree as it was
            self._take_back(count)
            raise
        low, high = self._solver_bounds
        nodes, node_values, edges, edge_values, meta = self._tree
        solved = bool(
            leaf_batch.finish_batch(
                nodes, node_values, edges, edge_values, meta, self._walks, count, self._paths,
                self._saved, self._leaf_players, self._leaf_rewards0, self._leaf_values0,
                self._leaf_actions, self._leaf_num_actions, self._leaf_priors, self._solver, low,
                high,
            )
        )  # fmt: skip
        self._states.extend(leaf.state for leaf in pending if leaf.state is not None)
        return count, solved

    def _gather(
        self,
        pending: list[_Leaf],
        values: np.ndarray | Sequence[float],
        priors: Sequence[np.ndarray],
    ) -> None:
        """Write what :func:`~playout._src.leaf_batch.finish_batch` reads of each pending leaf
        into the per-leaf rows, the evaluator's answers checked (for the states it was given:
        values past them are not read)."""
        count = len(pending)
        players = self._leaf_players[:count]
        rewards0 = self._leaf_rewards0[:count]
        values0 = self._leaf_values0[:count]
        num_actions = self._leaf_num_actions[:count]
        leaf_actions = self._leaf_actions
        leaf_priors = self._leaf_priors
        leaf_priors[:count] = 0.0  # the checks below read whole rows
        name = type(self._batch_evaluator).__name__
        evaluated_states = sum(1 for leaf in pending if leaf.value0 is None)
        if self._checks and evaluated_states:
            values = checks.evaluations(self._spec, values[:evaluated_states], name)
        evaluated = False
        for i, leaf in enumerate(pending):
            players[i] = player = leaf.player
            rewards0[i] = leaf.reward0
            num_actions[i] = size = leaf.actions.size
            if leaf.value0 is not None:
                values0[i] = leaf.value0
                continue
            values0[i] = value_for(player, float(values[leaf.batch_index]))
            if size > leaf_actions.shape[1]:
                self._grow_leaf_rows(size)
                leaf_actions, leaf_priors = self._leaf_actions, self._leaf_priors
            leaf_actions[i, :size] = leaf.actions
            if player == CHANCE:
                state = leaf.state if leaf.state is not None else self._states[leaf.node]
                leaf_priors[i, :size] = self._priors(state, leaf.actions)
                continue
            row = priors[leaf.batch_index]
            if self._checks and not (isinstance(row, np.ndarray) and row.shape == (size,)):
                # Not an array of one number per action (a list, a number, None, a column):
                # checked and converted one by one, as before batches were checked at once.
                row = checks.priors(self._spec, row, leaf.actions, name)
            leaf_priors[i, :size] = row
            evaluated = True
        if evaluated and self._checks and not checks.all_priors(leaf_priors[:count]):
            for leaf in pending:
                if leaf.value0 is None and leaf.player != CHANCE:
                    checks.priors(self._spec, priors[leaf.batch_index], leaf.actions, name)

    def reset(self, state: GameState) -> None:
        """Start a new tree with ``state`` at its (expanded) root."""
        if getattr(self, "_pending", None):
            raise InvalidParameterError("the tree changed while leaves were pending")
        super().reset(state)

    def keep_subtree(self, child: int, state: GameState) -> bool:
        """As :meth:`PythonDriver.keep_subtree` (nothing may be pending)."""
        if self._pending:
            raise InvalidParameterError("the tree changed while leaves were pending")
        return super().keep_subtree(child, state)
