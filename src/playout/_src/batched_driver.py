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

from playout._src import checks, forced
from playout._src.config import SearchConfig
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import BatchEvaluator
from playout._src.game import CHANCE, GameState, value_for
from playout._src.python_driver import _NO_ACTIONS, _NO_PRIORS, PythonDriver
from playout._src.tree import backup, finish, selection
from playout._src.tree import layout as T


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
        self._pending_edges: set[int] = set()
        self._paths = np.zeros((self._leaf_batch, 64), dtype=np.int64)
        self._saved = np.zeros((self._leaf_batch, 64), dtype=np.float64)
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
        depth_room = min(max_depth, self._spec.max_length or 4096) + 1
        if self._paths.shape[1] < depth_room:
            self._paths = np.zeros((self._leaf_batch, depth_room), dtype=np.int64)
            self._saved = np.zeros((self._leaf_batch, depth_room), dtype=np.float64)
        max_depth = min(max_depth, self._paths.shape[1] - 1)
        nodes, _, edges, edge_values, _ = self._tree
        states: list[GameState] = []
        actions_list: list[np.ndarray] = []
        if nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN:
            return states, actions_list
        for i in range(limit):
            path = self._paths[i]
            node, edge, depth = self._descend(max_depth, path)
            self.max_depth_seen = max(self.max_depth_seen, depth)
            if edge != T.NO_EDGE and edge in self._pending_edges:
                self.collisions += 1
                break
            leaf = self._new_leaf(node, edge, depth) if edge != T.NO_EDGE else None
            if leaf is None:
                leaf = self._old_leaf(node, depth)
            if leaf.value0 is None:
                leaf.batch_index = len(states)
                states.append(leaf.state if leaf.state is not None else self._states[node])
                actions_list.append(leaf.actions)
            if edge != T.NO_EDGE:
                self._pending_edges.add(edge)
            nodes, _, edges, edge_values, _ = self._tree  # new arrays if the leaf grew them
            backup.add_virtual_loss(
                nodes, edges, edge_values, path, depth, self._loss, self._saved[i]
            )
            self._pending.append(leaf)
        return states, actions_list

    def _descend(self, max_depth: int, path: np.ndarray) -> tuple[int, int, int]:
        """Selection: ``(node, edge, depth)`` of one walk from the root (the compiled
        ``tree.selection.descend`` with the configured rule; a subclass may walk by another
        rule)."""
        nodes, _, edges, edge_values, _ = self._tree
        if self.forced_playouts > 0.0:
            return forced.descend(
                nodes, edges, edge_values, self._rule, self._rule_params, self._rng_state,
                max_depth, path, self.forced_playouts,
            )  # fmt: skip
        return selection.descend(
            nodes, edges, edge_values, self._rule, self._rule_params, self._rng_state,
            max_depth, path,
        )  # fmt: skip

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
        self._pending_edges.clear()
        tree = self._tree
        nodes, node_values, edges, edge_values, meta = tree
        for i in range(len(pending) - 1, -1, -1):
            backup.remove_virtual_loss(
                nodes, edges, edge_values, self._paths[i], pending[i].depth, self._saved[i]
            )
        low, high = self._solver_bounds
        solved = False
        name = type(self._batch_evaluator).__name__
        for i, leaf in enumerate(pending):
            path = self._paths[i]
            value0 = leaf.value0
            leaf_priors = _NO_PRIORS
            if value0 is None:
                state = leaf.state if leaf.state is not None else self._states[leaf.node]
                value = float(values[leaf.batch_index])
                if self._checks:
                    value = checks.evaluation(self._spec, value, name)
                player = state.current_player()
                value0 = value_for(player, value)
                if player == CHANCE:
                    leaf_priors = self._priors(state, leaf.actions)
                elif self._checks:
                    leaf_priors = checks.priors(
                        self._spec, priors[leaf.batch_index], leaf.actions, name
                    )
                else:
                    leaf_priors = np.asarray(priors[leaf.batch_index], dtype=np.float64)
            if leaf.edge == T.NO_EDGE:
                solved = self._finish_old_leaf(leaf.node, path, leaf.depth, value0)
                continue
            solved = bool(
                finish.finish_new_leaf(
                    nodes, node_values, edges, edge_values, meta, leaf.node, leaf.edge,
                    leaf.player, leaf.player == T.TERMINAL, leaf.reward0, leaf.actions,
                    leaf_priors, value0, self._solver, low, high, path, leaf.depth,
                )
            )  # fmt: skip
            assert leaf.state is not None
            self._states.append(leaf.state)
        return len(pending), solved

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
