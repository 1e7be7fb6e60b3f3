"""Open-loop search: simulations of a game whose ``play()`` draws at random (hidden chance).

Seed 003's way with random events: "compute the game states on-the-fly rather than storing
them". :class:`OpenLoopDriver` is the Python driver with states recomputed at every
simulation by replaying the actions from the root, so each visit throws the dice afresh and a
node stands for the actions that lead to it, not for one position. The engine picks it for a
game with hidden chance (``is_deterministic=False`` without ``explicit_chance``) and for
``store_states=False`` on any non-deterministic game (:func:`playout._src.search.make_driver`).

Its values are those of the actions' sequences: where the best move below a node depends on
what the dice said on the way, open loop cannot tell the cases apart, and its values drift from
the exact (expectimax) ones; a game that makes its random events chance states
(``explicit_chance=True``) gets a node per outcome and exact values in the limit.
"""

from __future__ import annotations

import random
import time
from typing import ClassVar

import numpy as np

from playout._src import checks
from playout._src.config import SearchConfig
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import chance_action
from playout._src.game import CHANCE, GameState
from playout._src.python_driver import _NO_ACTIONS, _NO_PRIORS, PythonDriver
from playout._src.rules import EdgeStatistics
from playout._src.tree import expansion, finish, selection
from playout._src.tree import layout as T


class OpenLoopDriver(PythonDriver):
    """The Python driver, open loop (see the module docstring).

    Args: as :class:`~playout._src.python_driver.PythonDriver`.

    Raises:
        InvalidParameterError: RAVE, progressive bias or the transposition table, which keep
            statistics of stored positions.
    """

    expansions_per_simulation: ClassVar[int] = 2
    """A simulation may expand a node it first saw finished and now finds running, and then
    its new leaf."""

    def __init__(
        self,
        state: GameState,
        config: SearchConfig,
        rng_state: np.ndarray,
        rng: random.Random,
    ) -> None:
        super().__init__(state, config, rng_state, rng)
        if self._rave_params is not None or self._table is not None:
            what = (
                "the transposition table"
                if self._table is not None
                else type(self._selection).__name__
            )
            raise InvalidParameterError(
                f"{what} needs stored states, and {self._spec.name} is searched with states "
                "recomputed (open loop: its play() may draw at random, or store_states=False); "
                "if every random event is a chance state, declare explicit_chance=True"
            )

    def keep_subtree(self, child: int, state: GameState) -> bool:
        """Never: a node's player and edges are those of one replay, not of the position
        now at the root (the engine starts a new tree)."""
        return False

    def _simulate_chunk(
        self, chunk: int, max_depth: int, deadline: float, check_every: int
    ) -> tuple[int, bool]:
        """Simulations of a game whose ``play`` draws at random (states recomputed, seed 003).

        Open-loop MCTS: a node stands for the actions leading to it, not for one state. Each
        simulation replays its actions from the root, so the random events come out afresh:
        it selects only among the edges legal in the state it has now, ends where the replayed
        game has ended (backing up this replay's returns, not a value stored on an earlier
        visit), expands a node it finds running that it first saw finished, and treats a
        state with a legal action its node has no edge for as a leaf (evaluated, not
        expanded). UCB's parent count is the visits of the edges legal now (the availability
        count of Kocsis & Szepesvari's UCT under changing action sets). The solver is off for
        such games. Returns the number of simulations run and ``False`` (nothing is proven).
        """
        path = self._path_buffer(max_depth)
        max_depth = min(max_depth, path.shape[0] - 1)
        low, high = self._solver_bounds
        rewards = self._spec.has_intermediate_rewards
        ran = 0
        while ran < chunk:
            if ran % check_every == 0 and time.perf_counter() >= deadline:
                break
            ran += 1
            nodes, node_values, edges, edge_values, meta = self._tree
            state, node, depth = self._root_state, T.ROOT, 0
            while True:
                # This replay's mover is the node's player for this simulation's backup (with
                # hidden randomness the same actions can leave another player to move).
                nodes[node, T.N_PLAYER] = (
                    T.TERMINAL if state.is_terminal() else (state.current_player())
                )
                if state.is_terminal():
                    value0 = 0.0 if rewards else float(state.returns()[0])
                    finish.finish_old_leaf(
                        nodes, node_values, edges, edge_values, node, value0, False, low, high,
                        path, depth,
                    )  # fmt: skip
                    break
                legal = self._action_array(state.legal_actions())
                if nodes[node, T.N_NUM_EDGES] == 0:  # first seen finished, running now
                    if legal.size > self._max_actions:
                        self._grow_edge_room(legal.size, chunk - ran + 1)
                        nodes, node_values, edges, edge_values, meta = self._tree
                    expansion.expand(
                        nodes, edges, edge_values, meta, node, legal, self._priors(state, legal)
                    )
                edge = self._select_legal(node, state, legal) if depth < max_depth else T.NO_EDGE
                if edge == T.NO_EDGE:  # depth limit, or an action the node has no edge for
                    finish.finish_old_leaf(
                        nodes, node_values, edges, edge_values, node, self._evaluate0(state),
                        False, low, high, path, depth,
                    )  # fmt: skip
                    break
                path[depth] = edge
                depth += 1
                parent_state = state
                state = state.play(int(edges[edge, T.E_ACTION]))
                # This replay's reward into the child (games with rewards on the way).
                reward0 = self._reward0(parent_state, state) if rewards else 0.0
                child = int(edges[edge, T.E_CHILD])
                if child == T.UNVISITED:
                    self._add_leaf(node, edge, state, reward0, path, depth, chunk - ran)
                    break
                node_values[child, T.NV_REWARD] = reward0
                node = child
            self.max_depth_seen = max(self.max_depth_seen, depth)
        return ran, False

    def _select_legal(self, node: int, state: GameState, legal: np.ndarray) -> int:
        """The edge of ``node`` (whose replayed position is ``state``) to follow among those
        whose action is in ``legal``, by the
        engine's rule (UCB1, PUCT or epsilon-greedy; a Python rule on the legal edges), or
        ``NO_EDGE`` when a legal action has no edge at ``node``."""
        tree = self._tree
        first = int(tree.nodes[node, T.N_FIRST_EDGE])
        count = int(tree.nodes[node, T.N_NUM_EDGES])
        rows = np.arange(first, first + count)
        mask = np.isin(tree.edges[rows, T.E_ACTION], legal)
        if int(mask.sum()) < legal.size:
            return T.NO_EDGE
        rows = rows[mask]
        if state.current_player() == CHANCE:  # an outcome drawn afresh, by its probability
            outcome = chance_action(state, self._rng)
            return int(rows[np.flatnonzero(tree.edges[rows, T.E_ACTION] == outcome)[0]])
        visits = tree.edges[rows, T.E_VISITS].astype(np.float64)
        sums = tree.edge_values[rows, T.EV_VALUE_SUM]
        priors = tree.edge_values[rows, T.EV_PRIOR]
        means = np.divide(sums, visits, out=np.zeros(rows.size), where=visits > 0)
        if self._python_rule is not None:
            stats = EdgeStatistics(
                actions=tree.edges[rows, T.E_ACTION].copy(),
                visit_count=visits.astype(np.int64),
                mean_value=means,
                prior=priors.copy(),
                parent_visits=int(visits.sum()),
                rng=self._rng,
            )
            return int(rows[checks.selection_index(self._python_rule(stats), rows.size)])
        rule = self._rule
        c, scale = selection.exploration(rule, self._rule_params, int(visits.sum()))
        if rule != selection.RULE_PUCT and (visits == 0).any():
            return int(self._rng.choice(rows[visits == 0]))
        if rule == selection.RULE_EPSILON_GREEDY:
            if self._rng.random() < c:
                return int(self._rng.choice(rows))
            scores = means
        elif rule == selection.RULE_PUCT:
            first_play = float(self._rule_params[1])
            q = np.where(visits > 0, means, first_play)
            scores = q + c * priors * scale / (1.0 + visits)
        else:
            scores = means + c * np.sqrt(scale / visits)
        best = np.flatnonzero(scores == scores.max())
        return int(rows[best[0] if best.size == 1 else self._rng.choice(best)])

    def _add_leaf(
        self,
        node: int,
        edge: int,
        state: GameState,
        reward0: float,
        path: np.ndarray,
        depth: int,
        simulations_left: int,
    ) -> None:
        """Create the child of ``edge`` for the replayed ``state`` (``reward0`` on the way in,
        for player 0), evaluate it and back up."""
        low, high = self._solver_bounds
        if state.is_terminal():
            value0 = 0.0 if self._spec.has_intermediate_rewards else float(state.returns()[0])
            finish.finish_new_leaf(
                *self._tree, node, edge, T.TERMINAL, True, reward0, _NO_ACTIONS, _NO_PRIORS,
                value0, False, low, high, path, depth,
            )  # fmt: skip
            return
        actions = self._action_array(state.legal_actions())
        if actions.size > self._max_actions:
            self._grow_edge_room(actions.size, simulations_left + 1)
        finish.finish_new_leaf(
            *self._tree, node, edge, state.current_player(), False, reward0, actions,
            self._priors(state, actions), self._evaluate0(state), False, low, high, path, depth,
        )  # fmt: skip


__all__ = ["OpenLoopDriver"]
