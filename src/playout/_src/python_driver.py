"""The Python driver: simulations driven from Python, for any game that follows the protocol.

One simulation (:meth:`PythonDriver.simulate` runs a chunk of them)::

    node, edge, depth = descend(...)          # 1. selection (compiled, tree/selection.py)
    state = states[node].play(action)         #    the game's own move, in Python
    value0 = evaluator.evaluate(state, rng)   # 3. evaluation (rollout or value function)
    finish_new_leaf(...)                      # 2. expansion + 4. backup + solver (compiled)

The game's code stays in Python; everything that touches the tree is compiled and shared with
the compiled driver (:mod:`playout._src.compiled.engine`), so there is one set of
rules. The engine (:class:`playout.MCTS`) owns the budget, the moves and the results.

This is closed-loop search: a node is one position, stored or recomputed by replaying the
actions from the root (``store_states=False``), and a replay that reaches another position
than the first is an error. Beside it: RAVE's statistics (:mod:`playout._src.rave`, kept per
edge by :class:`~playout._src.rave.AmafTable`), the transposition table
(:mod:`playout._src.transpositions`), and the open-loop subclass for games whose ``play()``
draws at random (:mod:`playout._src.open_loop`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from playout._src import checks, rave, symmetry
from playout._src import transpositions as TT
from playout._src.config import SearchConfig
from playout._src.errors import GameError, IllegalMoveError, InvalidParameterError
from playout._src.evaluation import Evaluator, Rollout
from playout._src.game import CHANCE, TERMINAL, GameState, value_for
from playout._src.rules import RAVE, UCB1, EdgeStatistics, ProgressiveBias, SelectionRule
from playout._src.tree import expansion, finish, selection, solver, subtree
from playout._src.tree import layout as T

_NO_PRIORS = np.zeros(0, dtype=np.float64)
_NO_ACTIONS = np.zeros(0, dtype=np.int64)
_ACTION_CACHE_SIZE = 4096  # distinct legal-action tuples kept as arrays
_CHECKED_RETURNS_SIZE = 4096  # distinct returns() tuples remembered as checked
_STATE_BYTES_ESTIMATE = 400
"""Bytes a stored Python state object takes, as counted against the memory bound (small
frozen dataclasses of ints take 100-400)."""


def _mover_code(player: int) -> str:
    """Who moves, in words, for a node's player code."""
    if player == TERMINAL:
        return "the game over"
    return "chance to move" if player == CHANCE else f"player {player} to move"


def _mover(state: GameState) -> str:
    """Who moves in ``state``, in words."""
    return _mover_code(TERMINAL if state.is_terminal() else state.current_player())


class PythonDriver:
    """Runs simulations with the game's own Python code (see the module docstring).

    Args:
        state: the root position.
        config: the engine's configuration, already resolved for the game
            (:meth:`SearchConfig.for_game`: ``solver`` is a bool).
        rng_state: the compiled phases' generator (selection ties, chance, sampling).
        rng: the Python generator (rollouts and evaluators).
    """

    backend: ClassVar[str] = "python"
    max_chunk: ClassVar[int] = 256
    """Simulations per :meth:`simulate` call at most (capacity is reserved per call)."""
    expansions_per_simulation: ClassVar[int] = 1
    """Nodes a simulation may give edges to, at most (room is reserved for their edges)."""

    def __init__(
        self,
        state: GameState,
        config: SearchConfig,
        rng_state: np.ndarray,
        rng: random.Random,
    ) -> None:
        game = state.game
        self._selection: SelectionRule = UCB1() if config.selection is None else config.selection
        # RAVE and progressive bias: compiled selection on statistics kept by this driver.
        self._rave_params: np.ndarray | None = None
        self._python_rule: Callable[[EdgeStatistics], int] | None = None
        if isinstance(self._selection, RAVE) and self._selection.prior > 0:
            raise InvalidParameterError(
                "RAVE(prior=...) takes its move scores from a compiled kernel: it runs on the "
                f"compiled driver only ({game.spec.name} on the Python driver)"
            )
        if isinstance(self._selection, RAVE | ProgressiveBias):
            self._rule, self._rule_params = selection.RULE_UCB1, np.zeros(2)
            self._rave_params = self._selection.parameters()
        elif hasattr(self._selection, "compiled"):
            self._rule, self._rule_params = self._selection.compiled()
        elif callable(self._selection):
            self._rule, self._rule_params = selection.RULE_UCB1, np.zeros(2)
            self._python_rule = self._selection
        else:
            raise InvalidParameterError(f"not a selection rule: {self._selection!r}")
        self._evaluator: Evaluator = Rollout() if config.evaluator is None else config.evaluator
        policy = getattr(self._evaluator, "policy", None)
        if getattr(policy, "compiled_only", False):
            raise InvalidParameterError(
                f"the rollout policy {policy!r} runs on the compiled driver only "
                f"({game.spec.name} on the Python driver)"
            )
        self._priors_fn = getattr(self._evaluator, "priors", None)
        if isinstance(self._selection, ProgressiveBias):
            self._priors_fn = self._move_scores(self._selection, game)
        self._rng_state, self._rng = rng_state, rng
        self._store_states = bool(config.store_states)
        # A game declared deterministic plays the move of its first new leaves twice: a
        # transition that draws at random is named before the tree trusts what it stored.
        self._determinism_checks = (
            checks.DETERMINISM_CHECKS if config.checks and game.spec.is_deterministic else 0
        )
        self._spec = game.spec
        self._solver = bool(config.solver)
        self._max_actions = min(self._spec.num_actions or 64, 4096)
        self._action_arrays: dict[tuple[int, ...], np.ndarray] = {}
        # The default evaluator is run inline by the driver (same moves, same random draws).
        self._inline_rollout = (
            type(self._evaluator) is Rollout
            and self._evaluator == Rollout()
            and self._spec.is_deterministic
            and not self._spec.has_intermediate_rewards
            and self._spec.max_length is not None
        )
        self._solver_bounds = solver.solver_bounds(self._spec)
        self._checks = config.checks
        self._checked_returns: dict[tuple[float, ...], float] = {}
        self._use_amaf = isinstance(self._selection, RAVE)
        self._amaf: rave.AmafTable | None = None
        self._use_table = bool(config.transpositions)
        if self._use_table and (self._rave_params is not None or self._python_rule is not None):
            raise InvalidParameterError(
                "transpositions need a built-in selection rule (UCB1, PUCT or epsilon-greedy), "
                f"not {type(self._selection).__name__}"
            )
        self._table: TT.TranspositionTable | None = None
        self._key = symmetry.key_function(game, bool(config.symmetry))
        self.root_noise = config.root_noise
        """The Dirichlet noise mixed into each new root's priors (the configuration's;
        self-play turns it off for the fast searches of KataGo's playout cap)."""
        self.max_depth_seen = 0
        self.reset(state)

    def _move_scores(self, rule: ProgressiveBias, game: Any) -> Callable[..., Any]:
        """Where progressive bias takes its move scores from (see ProgressiveBias)."""
        scores = rule.heuristic or getattr(game, "move_heuristic", None) or self._priors_fn
        if scores is None:
            raise InvalidParameterError(
                f"ProgressiveBias needs move scores: pass heuristic=..., or use a game with "
                f"a move_heuristic(state, actions) method ({game.spec.name} has none) or "
                "an evaluator with priors"
            )
        return scores

    # ----------------------------------------------------------------------------- state

    def reset(self, state: GameState) -> None:
        """Start a new tree with ``state`` at its (expanded) root."""
        if self._checks:
            if state.is_terminal():
                checks.returns(self._spec, state)
            else:
                checks.player(self._spec, state, state.current_player())
                checks.legal_action_array(self._spec, state, state.legal_actions())
        self._root_state = state
        self._root_legal = tuple(state.legal_actions())
        self._tree = T.new_tree()
        self._states: list[GameState] = []
        self.max_depth_seen = 0
        expansion.add_node(
            self._tree.nodes,
            self._tree.node_values,
            self._tree.edges,
            self._tree.meta,
            T.NO_NODE,
            T.NO_EDGE,
            state.current_player(),
            state.is_terminal(),
            0.0,
        )
        self._states.append(state)
        if not state.is_terminal():
            self._expand_root()
        if self._use_amaf:
            self._amaf = rave.AmafTable(
                self._tree.edge_capacity, self._spec.num_players, self._spec.num_actions or 64
            )
        if self._use_table:
            self._table = TT.TranspositionTable(self._tree.node_capacity)
            self._table.node_entry[T.ROOT] = self._table.entry(self._key(state))
        self._noise_root()

    def keep_subtree(self, child: int, state: GameState) -> bool:
        """Make node ``child`` (whose position is ``state``) the root, keeping its subtree;
        ``False`` (and nothing changed) when this driver cannot keep it."""
        chance = state.current_player() == CHANCE or self._root_state.current_player() == CHANCE
        if chance and not self._store_states:
            return False  # a replayed chance outcome would be drawn afresh
        new_tree, old_ids = subtree.subtree(self._tree, child)
        if self._amaf is not None:
            self._amaf = self._amaf.carried(self._tree, new_tree, old_ids)
        if self._table is not None:
            self._table.carry(old_ids, new_tree.node_capacity)
        if self._store_states:
            self._states = [self._states[int(i)] for i in old_ids]
            state = self._states[0]
        self._tree = new_tree
        self._root_state = state
        self._root_legal = tuple(state.legal_actions())
        self.max_depth_seen = 0
        if new_tree.nodes[T.ROOT, T.N_NUM_EDGES] == T.UNEXPANDED:
            self._expand_root()
        self._fit_amaf()
        self._noise_root()
        return True

    def _noise_root(self) -> None:
        """Mix the configured Dirichlet noise into the root's priors (AlphaZero's self-play
        exploration), once per root, from the search's seeded generator."""
        noise = self.root_noise
        count = int(self._tree.nodes[T.ROOT, T.N_NUM_EDGES])
        if noise is None or count < 2 or self._root_state.current_player() == CHANCE:
            return
        first = int(self._tree.nodes[T.ROOT, T.N_FIRST_EDGE])
        rows = slice(first, first + count)
        generator = np.random.default_rng(self._rng.getrandbits(64))
        priors = self._tree.edge_values[rows, T.EV_PRIOR]
        self._tree.edge_values[rows, T.EV_PRIOR] = noise.mix(priors, generator)

    def keep_image_subtree(
        self, child: int, state: GameState, preimage: GameState, index: int
    ) -> bool:
        """Make node ``child``, whose position is ``preimage``, the root as the position
        ``state``, its image under the game's symmetry ``index`` (see
        :mod:`playout._src.symmetry`): the subtree is kept with every action mapped by the
        symmetry (and every stored state transformed). ``False`` (nothing changed) when this
        driver cannot keep it."""
        if not self._spec.is_deterministic or not self.keep_subtree(child, preimage):
            return False
        game: Any = state.game
        perm = np.asarray(game.action_symmetries()[index], dtype=np.int64)
        tree = self._tree
        used = tree.num_edges
        tree.edges[:used, T.E_ACTION] = perm[tree.edges[:used, T.E_ACTION]]
        if self._store_states:
            transform = game.transform_state
            self._states = [transform(s, index) for s in self._states]
        self._root_state = state
        self._root_legal = tuple(state.legal_actions())
        per_edge = () if self._amaf is None else (self._amaf.visit_count, self._amaf.value_sum)
        symmetry.sort_all_edges(tree, per_edge)
        return True

    def _expand_root(self) -> None:
        state = self._root_state
        actions = np.asarray(state.legal_actions(), dtype=np.int64)
        if actions.size == 0:
            raise GameError(f"{self._spec.name}: a non-terminal state has no legal actions")
        self._max_actions = max(self._max_actions, int(actions.size))
        self._tree = T.reserve(self._tree, 1, actions.size)
        expansion.expand(
            self._tree.nodes,
            self._tree.edges,
            self._tree.edge_values,
            self._tree.meta,
            T.ROOT,
            actions,
            self._priors(state, actions),
        )

    def _priors(self, state: GameState, actions: np.ndarray) -> np.ndarray:
        if state.current_player() == CHANCE:
            outcomes = dict(state.chance_outcomes())  # type: ignore[attr-defined]
            return np.array([outcomes[int(a)] for a in actions], dtype=np.float64)
        if self._priors_fn is None:
            return _NO_PRIORS
        values = self._priors_fn(state, actions)
        if self._checks:
            name = getattr(self._priors_fn, "__qualname__", type(self._priors_fn).__name__)
            return checks.priors(self._spec, values, actions, name)
        return np.asarray(values, dtype=np.float64)

    @property
    def root_state(self) -> GameState:
        """The position at the root of the tree."""
        return self._root_state

    @property
    def tree(self) -> T.Tree:
        """The search tree's arrays (read-only use; see :mod:`playout._src.tree.layout`)."""
        return self._tree

    @property
    def amaf(self) -> rave.AmafTable | None:
        """RAVE's AMAF statistics, rows parallel to :attr:`tree`'s edge rows (read-only use;
        see :mod:`playout._src.rave`), or ``None`` when the selection rule is not RAVE."""
        return self._amaf

    @property
    def transpositions(self) -> TT.TranspositionTable | None:
        """The transposition table (read-only use; see :mod:`playout._src.transpositions`),
        or ``None`` when ``transpositions`` is off."""
        return self._table

    def _fit_amaf(self) -> None:
        """Give the AMAF table a row for every edge row of the tree, and the transposition
        table one for every node row (after the tree grew)."""
        if self._amaf is not None:
            self._amaf.fit(self._tree.edge_capacity)
        if self._table is not None:
            self._table.fit(self._tree.node_capacity)

    # ----------------------------------------------------------------------------- search

    @property
    def state_bytes(self) -> int:
        """Bytes of per-node data beside the tree, estimated: a few hundred for a stored
        state object (0 when states are recomputed)."""
        return _STATE_BYTES_ESTIMATE if self._store_states else 0

    def node_bytes_bound(self) -> int:
        """Bytes one more node can take, estimated: its rows, twice the edges per node seen
        so far (at least 8, at most the game's action count), and its state
        (:attr:`state_bytes`). Games with many action ids and few legal moves (chess) would
        otherwise be bounded a hundred times too tightly."""
        tree = self._tree
        seen = 2 * math.ceil(tree.num_edges / max(1, tree.num_nodes))
        edges = min(self._max_actions, max(8, seen))
        return tree.node_row_bytes + self.state_bytes + edges * tree.edge_row_bytes

    def reserve(self, simulations: int) -> None:
        """Room for ``simulations`` more simulations, in one growth of the arrays."""
        self._tree = T.reserve(self._tree, simulations, simulations * self._max_actions)
        self._fit_amaf()

    def simulate(self, count: int, *, max_depth: int, max_nodes: int, deadline: float) -> int:
        """Run up to ``count`` simulations (fewer if the deadline, in ``time.perf_counter``
        seconds, passes or the root is proven); the number run (0 when growing the arrays
        for them would end past the deadline)."""
        del max_nodes  # the engine never asks for more simulations than nodes are left
        count = self._make_room(count, deadline)
        if count < 1:
            return 0
        left = deadline - time.perf_counter()
        check_every = 1 if left < 0.05 else 16
        ran = self._simulate_chunk(count, max_depth, deadline, check_every)[0]
        root = self._root_state
        if self._checks and tuple(root.legal_actions()) != self._root_legal:
            raise GameError(
                f"{self._spec.name}: the root position changed during the search: play() "
                "must not change the state it is called on"
            )
        return ran

    def _make_room(self, count: int, deadline: float) -> int:
        """Grow the tree for ``count`` more simulations; fewer (maybe 0) when growing would
        end past ``deadline``. Returns the simulations there is room for."""
        edges_per_simulation = self._max_actions * self.expansions_per_simulation
        seconds = T.growth_seconds(self._tree, count, count * edges_per_simulation)
        if seconds and time.perf_counter() + seconds > deadline:
            count = T.room_for(self._tree, edges_per_simulation)  # what fits without growing
            if count < 1:
                return 0
        self._tree = T.reserve(self._tree, count, count * edges_per_simulation)
        self._fit_amaf()
        return count

    def _simulate_chunk(
        self, chunk: int, max_depth: int, deadline: float, check_every: int
    ) -> tuple[int, bool]:
        """Run up to ``chunk`` simulations; the tree has room for them.

        Returns the number run and whether the root is now proven. Everything the loop
        needs is bound to a local once: this loop is all the engine overhead a Python game
        pays for (one compiled call to select, one to expand, back up and solve).
        """
        nodes, node_values, edges, edge_values, meta = self._tree
        path = self._path_buffer(max_depth)
        max_depth = min(max_depth, path.shape[0] - 1)  # games that declare no max_length
        rule, params, rng_state = self._rule, self._rule_params, self._rng_state
        python_rule = self._python_rule
        solve = self._solver
        low, high = self._solver_bounds
        store = self._store_states
        states = self._states
        inline_rollout = self._inline_rollout
        choice = self._rng.choice
        rewards = self._spec.has_intermediate_rewards
        check, spec = self._checks, self._spec
        checked_returns = self._checked_returns
        num_players = spec.num_players
        may_have_priors = self._priors_fn is not None or not self._spec.is_deterministic
        action_arrays = self._action_arrays
        descend, finish_new_leaf, perf_counter = (
            selection.descend,
            finish.finish_new_leaf,
            time.perf_counter,
        )
        no_edge, terminal, e_action = T.NO_EDGE, T.TERMINAL, T.E_ACTION
        max_seen = self.max_depth_seen
        rave_params, amaf = self._rave_params, self._amaf
        amaf_visits, amaf_sums = self._amaf_arrays()
        table = self._table
        key = self._key
        playouts: Sequence[rave.Playout] = ()
        solved = False
        ran = 0
        leaf = 0
        while ran < chunk and not solved:
            if ran % check_every == 0 and perf_counter() >= deadline:
                break
            # 1. Selection.
            if rave_params is not None:
                node, edge, depth = rave.descend(
                    nodes,
                    edges,
                    edge_values,
                    amaf_visits,
                    amaf_sums,
                    rave_params,
                    rng_state,
                    max_depth,
                    path,
                )
            elif table is not None:
                node, edge, depth = TT.descend(
                    nodes,
                    node_values,
                    edges,
                    edge_values,
                    table.node_entry,
                    table.visits,
                    table.value_sums,
                    rule,
                    params,
                    rng_state,
                    max_depth,
                    path,
                )
            elif python_rule is None:
                node, edge, depth = descend(
                    nodes, edges, edge_values, rule, params, rng_state, max_depth, path
                )
            else:
                node, edge, depth = self._descend_python(max_depth, path)
            ran += 1
            if depth > max_seen:
                max_seen = depth
            if edge == no_edge:
                solved = self._finish_old_leaf(node, path, depth)
                continue
            parent_state = states[node] if store else self._state_of(node, path, depth - 1)
            action = edges.item(edge, e_action)
            state = parent_state.play(action)
            if check and (state is parent_state or state is None):
                checks.child(spec, parent_state, state)  # raises
            if self._determinism_checks:
                self._check_determinism(parent_state, action, state)
            reward0 = self._reward0(parent_state, state) if rewards else 0.0
            if table is not None:
                leaf = int(meta[T.M_NUM_NODES])
                table.node_entry[leaf] = table.entry(key(state))
            if state.is_terminal():
                if check:
                    self._returns0(state)
                value0 = 0.0 if rewards else float(state.returns()[0])
                # 2 + 4. A terminal leaf: nothing to expand; back up its outcome.
                solved = finish_new_leaf(
                    nodes,
                    node_values,
                    edges,
                    edge_values,
                    meta,
                    node,
                    edge,
                    terminal,
                    True,
                    reward0,
                    _NO_ACTIONS,
                    _NO_PRIORS,
                    value0,
                    solve,
                    low,
                    high,
                    path,
                    depth,
                )
                playouts = ()
            else:
                legal = state.legal_actions()
                actions = action_arrays.get(legal) if type(legal) is tuple else None
                if actions is None:
                    actions = self._action_array(legal, state)
                if actions.size > self._max_actions:
                    self._grow_edge_room(actions.size, chunk - ran + 1)
                    nodes, node_values, edges, edge_values, meta = self._tree
                    amaf_visits, amaf_sums = self._amaf_arrays()
                player = state.current_player()
                if check and not (0 <= player < num_players):
                    checks.player(spec, state, player)  # CHANCE where allowed, else raises
                # 3. Evaluation.
                if amaf is not None:
                    value0, playouts = self._evaluate_recording(state)
                elif inline_rollout:
                    # The default evaluator inlined: uniformly random moves to the end.
                    end = state
                    while not end.is_terminal():
                        end = end.play(choice(end.legal_actions()))
                    if check:
                        returns = end.returns()
                        known = checked_returns.get(returns) if type(returns) is tuple else None
                        value0 = self._returns0(end) if known is None else known
                    else:
                        value0 = float(end.returns()[0])
                else:
                    value0 = self._evaluate0(state)
                priors = self._priors(state, actions) if may_have_priors else _NO_PRIORS
                # 2 + 4. Expansion, backpropagation (and the solver), compiled.
                solved = finish_new_leaf(
                    nodes,
                    node_values,
                    edges,
                    edge_values,
                    meta,
                    node,
                    edge,
                    player,
                    False,
                    reward0,
                    actions,
                    priors,
                    value0,
                    solve,
                    low,
                    high,
                    path,
                    depth,
                )
            if amaf is not None:
                self._update_amaf(path, depth, value0, playouts)
            if table is not None:
                TT.backup_table(
                    nodes,
                    node_values,
                    table.node_entry,
                    table.visits,
                    table.value_sums,
                    leaf,
                    value0,
                )
            if store:
                states.append(state)
        self.max_depth_seen = max_seen
        return ran, bool(solved)

    def _check_determinism(self, parent: GameState, action: int, child: GameState) -> None:
        """Play ``action`` from ``parent`` again and check it gives ``child``
        (:func:`playout._src.checks.same_position`); counts one of the driver's
        :data:`~playout._src.checks.DETERMINISM_CHECKS`."""
        self._determinism_checks -= 1
        checks.same_position(self._spec, parent, action, child, parent.play(action))

    def _reward0(self, parent: GameState, child: GameState) -> float:
        """The reward to player 0 on the move from ``parent`` to ``child`` (games with
        intermediate rewards), the child's returns checked when checks are on."""
        now0 = self._returns0(child) if self._checks else float(child.returns()[0])
        return now0 - float(parent.returns()[0])

    def _returns0(self, state: GameState) -> float:
        """Player 0's return in ``state`` (terminal, or on the way in a game with
        intermediate rewards), its ``returns()`` checked
        (:func:`playout._src.checks.returns`); tuples already checked are remembered, so the
        check costs a dictionary look-up per simulation."""
        returns = state.returns()
        if type(returns) is tuple and returns in self._checked_returns:
            return self._checked_returns[returns]
        value0 = checks.returns(self._spec, state)
        if type(returns) is tuple and len(self._checked_returns) < _CHECKED_RETURNS_SIZE:
            self._checked_returns[returns] = value0
        return value0

    def _action_array(self, legal: Sequence[int], state: GameState | None = None) -> np.ndarray:
        """Legal actions as an int64 array, cached by tuple (positions repeat often); checked
        once per distinct tuple (:func:`playout._src.checks.legal_action_array`)."""
        if self._checks:
            actions = checks.legal_action_array(self._spec, state, legal)  # type: ignore[arg-type]
        else:
            actions = np.asarray(legal, dtype=np.int64)
        if actions.size == 0:
            raise GameError(f"{self._spec.name}: a non-terminal state has no legal actions")
        if type(legal) is tuple and len(self._action_arrays) < _ACTION_CACHE_SIZE:
            self._action_arrays[legal] = actions
        return actions

    def _grow_edge_room(self, num_actions: int, simulations_left: int) -> None:
        """A state has more legal actions than room was made for (games that declare no
        ``num_actions``): reserve more edges per simulation from now on."""
        self._max_actions = max(num_actions, 2 * self._max_actions)
        per_simulation = self._max_actions * self.expansions_per_simulation
        self._tree = T.reserve(self._tree, simulations_left, simulations_left * per_simulation)
        self._fit_amaf()

    def _finish_old_leaf(
        self, node: int, path: np.ndarray, depth: int, value0: float | None = None
    ) -> bool:
        """End a simulation that stopped on an existing node: terminal, proven, or at the
        depth limit (evaluated again, unless its value for player 0 is given as ``value0``).
        Returns whether the root is proven."""
        tree = self._tree
        playouts: Sequence[rave.Playout] = ()
        if value0 is not None:
            pass
        elif tree.nodes[node, T.N_NUM_EDGES] == 0 or tree.nodes[node, T.N_PROVEN] != T.UNPROVEN:
            value0 = float(tree.node_values[node, T.NV_EXACT])
        elif self._amaf is not None:
            value0, playouts = self._evaluate_recording(self._state_of(node, path, depth))
        else:
            value0 = self._evaluate0(self._state_of(node, path, depth))
        low, high = self._solver_bounds
        solved = bool(
            finish.finish_old_leaf(
                tree.nodes,
                tree.node_values,
                tree.edges,
                tree.edge_values,
                node,
                value0,
                self._solver,
                low,
                high,
                path,
                depth,
            )
        )
        if self._amaf is not None:
            self._update_amaf(path, depth, value0, playouts)
        table = self._table
        if table is not None:
            TT.backup_table(
                tree.nodes,
                tree.node_values,
                table.node_entry,
                table.visits,
                table.value_sums,
                node,
                value0,
            )
        return solved

    def _evaluate0(self, state: GameState) -> float:
        value = self._evaluator.evaluate(state, self._rng)
        if self._checks:
            value = checks.evaluation(self._spec, value, type(self._evaluator).__name__)
        return value_for(state.current_player(), float(value))

    # ----------------------------------------------------------------------------- RAVE

    def _amaf_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The AMAF rows for the compiled selection (empty when RAVE is off)."""
        if self._amaf is None:
            return _NO_ACTIONS, _NO_PRIORS
        return self._amaf.visit_count, self._amaf.value_sum

    def _evaluate_recording(self, state: GameState) -> tuple[float, Sequence[rave.Playout]]:
        """Evaluate ``state`` (value for player 0) and return the rollouts played for it
        (:data:`playout._src.rave.Playout`); none if the evaluator plays no rollouts it can
        report."""
        if self._inline_rollout:  # the default evaluator, inlined, its moves recorded
            return rave.recorded_random_rollout(state, self._rng.choice)
        record = getattr(self._evaluator, "record_playouts", None)
        if record is None:
            return self._evaluate0(state), ()
        playouts = record(state, self._rng)
        return sum(float(p[0]) for p in playouts) / len(playouts), playouts

    def _update_amaf(
        self, path: np.ndarray, depth: int, value0: float, playouts: Sequence[rave.Playout]
    ) -> None:
        """MC-RAVE's update after a simulation (:meth:`playout._src.rave.AmafTable.
        add_simulation`)."""
        assert self._amaf is not None
        unbounded = self._spec.num_actions is None
        self._amaf.add_simulation(self._tree, path, depth, value0, playouts, unbounded)

    def _state_of(self, node: int, path: np.ndarray, depth: int) -> GameState:
        """The position of ``node``, ``depth`` edges of ``path`` below the root: stored, or
        recomputed by replaying the path's actions from the root.

        Raises:
            GameError: the replay reached another position than the first one did (an
                action no longer legal, another player to move, a finished game): the game
                is declared deterministic but its transition draws at random.
        """
        if self._store_states:
            return self._states[node]
        state = self._root_state
        nodes, edges = self._tree.nodes, self._tree.edges
        check = self._checks
        for i in range(depth):
            edge = int(path[i])
            action = int(edges[edge, T.E_ACTION])
            try:
                state = state.play(action)
            except IllegalMoveError as error:
                raise checks.random_transition(
                    self._spec,
                    f"replaying the moves to a node of the tree, action {action} at depth "
                    f"{i + 1} was refused ({error})",
                ) from error
            if check:
                expected = int(nodes[int(edges[edge, T.E_CHILD]), T.N_PLAYER])
                if state.current_player() != expected:
                    raise checks.random_transition(
                        self._spec,
                        f"replaying the moves to a node of the tree reached a position with "
                        f"{_mover(state)} at depth {i + 1}, where the first replay had "
                        f"{_mover_code(expected)}",
                    )
        return state

    def _path_buffer(self, max_depth: int) -> np.ndarray:
        """Room for the edges of one descent. No descent is deeper than the tree has nodes
        (each edge but the last leads to one), so the buffer grows with the tree, not with
        the game's ``max_length``, which may be huge (a Pig to a million points)."""
        deepest = min(max_depth, self._spec.max_length or 4096) + 1
        size = min(deepest, self._tree.num_nodes + 1)
        buffer = getattr(self, "_path", None)
        if buffer is None or buffer.shape[0] < size:
            grown = 64 if buffer is None else 2 * buffer.shape[0]
            buffer = np.zeros(min(max(size, grown), deepest), dtype=np.int64)
            self._path = buffer
        return buffer

    def _descend_python(self, max_depth: int, path: np.ndarray) -> tuple[int, int, int]:
        """Selection with a user rule, in Python (same walk as the compiled ``descend``)."""
        tree = self._tree
        nodes, edges, edge_values = tree.nodes, tree.edges, tree.edge_values
        rule = self._python_rule
        assert rule is not None
        node, depth = T.ROOT, 0
        while nodes[node, T.N_NUM_EDGES] > 0 and depth < max_depth:
            first = int(nodes[node, T.N_FIRST_EDGE])
            count = int(nodes[node, T.N_NUM_EDGES])
            if nodes[node, T.N_PLAYER] == CHANCE:
                e = int(selection.sample_by_prior(edge_values, first, count, self._rng_state))
            else:
                visits = edges[first : first + count, T.E_VISITS]
                sums = edge_values[first : first + count, T.EV_VALUE_SUM]
                means = np.divide(sums, visits, out=np.zeros(count), where=visits > 0)
                stats = EdgeStatistics(
                    actions=edges[first : first + count, T.E_ACTION].copy(),
                    visit_count=visits.copy(),
                    mean_value=means,
                    prior=edge_values[first : first + count, T.EV_PRIOR].copy(),
                    parent_visits=int(nodes[node, T.N_VISITS]),
                    rng=self._rng,
                )
                e = first + checks.selection_index(rule(stats), count)
            path[depth] = e
            depth += 1
            child = int(edges[e, T.E_CHILD])
            if child == T.UNVISITED:
                return node, e, depth
            node = child
        return node, T.NO_EDGE, depth
