"""The search: a Python driver over the compiled array tree.

One simulation is four phases (:mod:`playout._src.tree` holds the compiled ones)::

    node, edge, depth = descend(...)          # 1. selection (compiled)
    state = states[node].play(action)         #    the game's own move, in Python
    value = evaluator.evaluate(state, rng)    # 3. evaluation (rollout or value function)
    expand_and_backup(...)                    # 2. expansion + 4. backpropagation (compiled)

The game's code stays in Python; everything that touches the tree is compiled and shared with
the compiled driver, so there is one set of rules.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from playout._src import rave
from playout._src import tree as T
from playout._src.errors import GameError, GameOverError, IllegalMoveError, InvalidParameterError
from playout._src.evaluation import Evaluator, Rollout
from playout._src.game import CHANCE, GameState
from playout._src.rules import RAVE, UCB1, EdgeStatistics, ProgressiveBias, SelectionRule

FinalChoice = Literal["most_visits", "best_value", "sample"]
_FINAL_CODES = {
    "most_visits": T.FINAL_MOST_VISITS,
    "best_value": T.FINAL_BEST_VALUE,
    "sample": T.FINAL_SAMPLE,
}
_NO_PRIORS = np.zeros(0, dtype=np.float64)
_UNLIMITED = 2**62
_CHUNK = 256  # simulations between capacity checks
_ACTION_CACHE_SIZE = 4096  # distinct legal-action tuples kept as arrays


@dataclasses.dataclass(frozen=True, kw_only=True)
class Budget:
    """How much one search may do; it stops at whichever limit comes first.

    Attributes:
        simulations: simulations to run (default 1000 when ``seconds`` is not given either).
        seconds: wall-clock limit in seconds.
        max_nodes: stop when the tree holds this many nodes (bounds memory).
        max_depth: never descend more than this many edges below the root in the tree.
    """

    simulations: int | None = None
    seconds: float | None = None
    max_nodes: int | None = None
    max_depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("simulations", "max_nodes", "max_depth"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int | np.integer) or value < 0):
                raise InvalidParameterError(f"{name} must be a whole number >= 0, got {value!r}")
        if self.seconds is not None and not (
            isinstance(self.seconds, int | float) and math.isfinite(self.seconds)
            and self.seconds >= 0
        ):
            raise InvalidParameterError(f"seconds must be a number >= 0, got {self.seconds!r}")
        if self.max_depth == 0:
            raise InvalidParameterError("max_depth must be at least 1")

    @property
    def simulation_limit(self) -> int:
        if self.simulations is not None:
            return int(self.simulations)
        return _UNLIMITED if self.seconds is not None else 1000


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """What a search found at its root. Values are for the player to move at the root.

    Attributes:
        best_action: the action chosen by the final-move rule.
        actions: the root's legal actions.
        visit_counts: simulations through each root action.
        values: mean return of each root action for the player to move (0 if unvisited).
        priors: prior probability of each root action.
        value: the root's value for the player to move (visit-weighted mean of ``values``).
        pv: principal variation, the most-visited line of actions from the root.
        player: the player to move at the root.
        simulations: simulations run by the call that produced this result.
        total_simulations: simulations in the tree (including reused ones).
        seconds: wall-clock seconds of that call.
        nodes: nodes in the tree.
        max_depth: deepest edge count below the root reached by a simulation.
        proven: "win", "loss" or "draw" when the solver proved the root, else None.
    """

    best_action: int
    actions: tuple[int, ...]
    visit_counts: tuple[int, ...]
    values: tuple[float, ...]
    priors: tuple[float, ...]
    value: float
    pv: tuple[int, ...]
    player: int
    simulations: int
    total_simulations: int
    seconds: float
    nodes: int
    max_depth: int
    proven: str | None = None

    def policy(self) -> dict[int, float]:
        """Share of the root's visits per action (the move probabilities of seed 001)."""
        total = sum(self.visit_counts)
        if total == 0:
            return {a: 0.0 for a in self.actions}
        return {a: n / total for a, n in zip(self.actions, self.visit_counts, strict=True)}

    def action_values(self) -> dict[int, float]:
        """Mean value per action, for the player to move at the root."""
        return dict(zip(self.actions, self.values, strict=True))


ProgressCallback = Callable[[int], None]
"""Called now and then during a search with the number of simulations done so far."""


def _derive_seeds(seed: int | None) -> tuple[np.ndarray, random.Random]:
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    sequence = np.random.SeedSequence(int(seed))
    tree_seed, python_seed = sequence.spawn(2)
    rng_state = T.new_rng_state(int(tree_seed.generate_state(1)[0]))
    return rng_state, random.Random(int(python_seed.generate_state(2, dtype=np.uint64)[0]))


class MCTS:
    """Monte Carlo Tree Search over a game given by its current state.

    The search keeps its tree between calls: :meth:`run` adds simulations, :meth:`advance`
    moves the root to the position after an action (by either side) and keeps that subtree,
    :meth:`decide` runs and returns the chosen action (seed 000's API).

    Args:
        state: the position to search from (never modified).
        selection: a rule from :mod:`playout.rules` or a callable on
            :class:`~playout.EdgeStatistics` (default: the game's ``default_selection()`` if
            it has one, else UCB1 with c = sqrt(2)). With :class:`~playout.RAVE` the engine
            keeps AMAF statistics (:attr:`amaf`) and records the moves of every rollout;
            :class:`~playout.ProgressiveBias` fills the edges' prior column with its move
            scores.
        evaluator: values leaves (default: the game's ``default_evaluator()`` if it has one,
            else one uniformly random rollout). For RAVE, an evaluator may offer
            ``record_playouts(state, rng)`` (as :class:`~playout.Rollout` does) so that its
            rollout moves count in the AMAF statistics; otherwise only the tree's moves do.
        budget: default limits for :meth:`run` (default 1000 simulations).
        final: "most_visits" (default), "best_value" or "sample" (with ``temperature``).
        temperature: for ``final="sample"``: visits are raised to ``1 / temperature``.
        seed: seeds every random choice; the same seed, state and simulation budget give
            the same result.
        store_states: keep each node's state (faster); False recomputes states by replaying
            actions from the root (less memory, and the seed-003 way for hidden randomness).
        reuse: keep the subtree in :meth:`advance` (True) or start afresh (False).
        solver: MCTS-Solver (Winands et al. 2008): prove wins, losses and draws in the tree,
            play a proven win at once and put off a proven loss. ``None`` (default) turns it
            on for deterministic games.
    """

    def __init__(
        self,
        state: GameState,
        *,
        selection: SelectionRule | None = None,
        evaluator: Evaluator | None = None,
        budget: Budget | None = None,
        final: FinalChoice = "most_visits",
        temperature: float = 1.0,
        seed: int | None = None,
        store_states: bool = True,
        reuse: bool = True,
        solver: bool | None = None,
    ) -> None:
        _check_state(state)
        # A game may recommend its own evaluator and selection rule (chess does).
        game = state.game
        if selection is None and hasattr(game, "default_selection"):
            selection = game.default_selection()
        if evaluator is None and hasattr(game, "default_evaluator"):
            evaluator = game.default_evaluator()
        self._selection: SelectionRule = UCB1() if selection is None else selection
        # RAVE and progressive bias: compiled selection on statistics kept by this driver.
        self._rave_params: np.ndarray | None = None
        self._python_rule: Callable[[EdgeStatistics], int] | None = None
        if isinstance(self._selection, RAVE | ProgressiveBias):
            self._rule, self._rule_params = T.RULE_UCB1, np.zeros(2)
            self._rave_params = self._selection.parameters()
        elif hasattr(self._selection, "compiled"):
            self._rule, self._rule_params = self._selection.compiled()
        elif callable(self._selection):
            self._rule, self._rule_params = T.RULE_UCB1, np.zeros(2)
            self._python_rule = self._selection
        else:
            raise InvalidParameterError(f"not a selection rule: {self._selection!r}")
        self._evaluator: Evaluator = Rollout() if evaluator is None else evaluator
        if not hasattr(self._evaluator, "evaluate"):
            raise InvalidParameterError(f"not an evaluator: {self._evaluator!r}")
        self._priors_fn = getattr(self._evaluator, "priors", None)
        if isinstance(self._selection, ProgressiveBias):
            self._priors_fn = self._move_scores(self._selection, game)
        self.budget = Budget() if budget is None else budget
        if final not in _FINAL_CODES:
            raise InvalidParameterError(
                f"final must be one of {sorted(_FINAL_CODES)}, got {final!r}"
            )
        if not (math.isfinite(temperature) and temperature > 0):
            raise InvalidParameterError(f"temperature must be > 0, got {temperature}")
        self._final = _FINAL_CODES[final]
        self._temperature = float(temperature)
        self._rng_state, self._rng = _derive_seeds(seed)
        self._store_states = store_states
        self._reuse = reuse
        self._spec = state.game.spec
        self._solver = self._spec.is_deterministic if solver is None else bool(solver)
        self._max_actions = min(self._spec.num_actions or 64, 4096)
        self._action_arrays: dict[tuple[int, ...], np.ndarray] = {}
        # The default evaluator is run inline by the driver (same moves, same random draws).
        self._inline_rollout = (
            type(self._evaluator) is Rollout
            and self._evaluator == Rollout()
            and self._spec.is_deterministic
            and not self._spec.has_intermediate_rewards
        )
        # With rewards on the way, a node's exact value is a future return that cannot be
        # told a win or a loss on its own: prove such games by full enumeration only.
        spec = self._spec
        self._solver_bounds = (
            (-math.inf, math.inf)
            if spec.has_intermediate_rewards
            else (spec.min_return, spec.max_return)
        )
        self._use_amaf = isinstance(self._selection, RAVE)
        self._amaf: rave.AmafTable | None = None
        self._reset(state)

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

    def _reset(self, state: GameState) -> None:
        self._root_state = state
        self._tree = T.new_tree()
        self._states: list[GameState] = []
        self._max_depth_seen = 0
        T.add_node(
            self._tree.nodes, self._tree.node_values, self._tree.edges, self._tree.meta,
            T.NO_NODE, T.NO_EDGE, state.current_player(), state.is_terminal(), 0.0,
        )
        self._states.append(state)
        if not state.is_terminal():
            self._expand_root()
        if self._use_amaf:
            self._amaf = rave.AmafTable(
                self._tree.edge_capacity, self._spec.num_players, self._spec.num_actions or 64
            )

    def _expand_root(self) -> None:
        state = self._root_state
        actions = np.asarray(state.legal_actions(), dtype=np.int64)
        if actions.size == 0:
            raise GameError(f"{self._spec.name}: a non-terminal state has no legal actions")
        self._tree = T.reserve(self._tree, 1, actions.size)
        T.expand(
            self._tree.nodes, self._tree.edges, self._tree.edge_values, self._tree.meta,
            T.ROOT, actions, self._priors(state, actions),
        )

    def _priors(self, state: GameState, actions: np.ndarray) -> np.ndarray:
        if state.current_player() == CHANCE:
            outcomes = dict(state.chance_outcomes())  # type: ignore[attr-defined]
            return np.array([outcomes[int(a)] for a in actions], dtype=np.float64)
        if self._priors_fn is None:
            return _NO_PRIORS
        return np.asarray(self._priors_fn(state, actions), dtype=np.float64)

    @property
    def root_state(self) -> GameState:
        """The position at the root of the tree."""
        return self._root_state

    @property
    def tree(self) -> T.Tree:
        """The search tree's arrays (read-only use; see :mod:`playout._src.tree`)."""
        return self._tree

    @property
    def amaf(self) -> rave.AmafTable | None:
        """RAVE's AMAF statistics, rows parallel to :attr:`tree`'s edge rows (read-only use;
        see :mod:`playout._src.rave`), or ``None`` when the selection rule is not RAVE."""
        return self._amaf

    def _fit_amaf(self) -> None:
        """Give the AMAF table a row for every edge row of the tree (after it grew)."""
        if self._amaf is not None:
            self._amaf.fit(self._tree.edge_capacity)

    # ----------------------------------------------------------------------------- search

    def run(
        self, budget: Budget | None = None, *, progress: ProgressCallback | None = None,
        progress_every: int = 100,
    ) -> SearchResult:
        """Run simulations on the current tree until the budget is used; the result.

        ``progress`` is called with the number of simulations done every ``progress_every``
        simulations, and once more at the end if the count is not a multiple of it.
        """
        budget = self.budget if budget is None else budget
        if self._root_state.is_terminal():
            raise GameOverError("the game is over: there is nothing to search")
        if progress_every < 1:
            raise InvalidParameterError(f"progress_every must be >= 1, got {progress_every}")
        start = time.perf_counter()
        deadline = math.inf if budget.seconds is None else start + budget.seconds
        limit = budget.simulation_limit
        max_nodes = _UNLIMITED if budget.max_nodes is None else budget.max_nodes
        max_depth = _UNLIMITED if budget.max_depth is None else budget.max_depth
        check_every = 1 if budget.seconds is not None and budget.seconds < 0.05 else 16
        done = 0
        solved = bool(self._tree.nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN)
        while done < limit and not solved and self._tree.num_nodes < max_nodes:
            # Room for a chunk of simulations, so that the loop never checks capacity.
            chunk = min(_CHUNK, limit - done, max_nodes - self._tree.num_nodes)
            if progress is not None:
                chunk = min(chunk, progress_every - done % progress_every)
            self._tree = T.reserve(self._tree, chunk, chunk * self._max_actions)
            self._fit_amaf()
            ran, solved = self._simulate_chunk(chunk, max_depth, deadline, check_every)
            done += ran
            if progress is not None and ran and done % progress_every == 0:
                progress(done)
            if ran < chunk and not solved:
                break  # out of time
        if progress is not None and done % progress_every:
            progress(done)
        return self._result(done, time.perf_counter() - start)

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
        rule, params, rng_state = self._rule, self._rule_params, self._rng_state
        python_rule = self._python_rule
        solve = self._solver
        low, high = self._solver_bounds
        store = self._store_states
        states = self._states
        inline_rollout = self._inline_rollout
        choice = self._rng.choice
        rewards = self._spec.has_intermediate_rewards
        may_have_priors = self._priors_fn is not None or not self._spec.is_deterministic
        action_arrays = self._action_arrays
        descend, finish_new_leaf, perf_counter = T.descend, T.finish_new_leaf, time.perf_counter
        no_edge, terminal, e_action = T.NO_EDGE, T.TERMINAL, T.E_ACTION
        max_seen = self._max_depth_seen
        rave_params, amaf = self._rave_params, self._amaf
        amaf_visits, amaf_sums = self._amaf_arrays()
        playouts: Sequence[_Playout] = ()
        solved = False
        ran = 0
        while ran < chunk and not solved:
            if ran % check_every == 0 and perf_counter() >= deadline:
                break
            # 1. Selection.
            if rave_params is not None:
                node, edge, depth = rave.descend(
                    nodes, edges, edge_values, amaf_visits, amaf_sums, rave_params, rng_state,
                    max_depth, path,
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
            state = parent_state.play(edges.item(edge, e_action))
            reward0 = 0.0
            if rewards:
                reward0 = float(state.returns()[0]) - float(parent_state.returns()[0])
            if state.is_terminal():
                value0 = 0.0 if rewards else float(state.returns()[0])
                # 2 + 4. A terminal leaf: nothing to expand; back up its outcome.
                solved = finish_new_leaf(
                    nodes, node_values, edges, edge_values, meta, node, edge, terminal, True,
                    reward0, _NO_ACTIONS, _NO_PRIORS, value0, solve, low, high,
                )
                playouts = ()
            else:
                legal = state.legal_actions()
                actions = action_arrays.get(legal) if type(legal) is tuple else None
                if actions is None:
                    actions = self._action_array(legal)
                if actions.size > self._max_actions:
                    self._grow_edge_room(actions.size, chunk - ran + 1)
                    nodes, node_values, edges, edge_values, meta = self._tree
                    amaf_visits, amaf_sums = self._amaf_arrays()
                player = state.current_player()
                # 3. Evaluation.
                if amaf is not None:
                    value0, playouts = self._evaluate_recording(state)
                elif inline_rollout:
                    # The default evaluator inlined: uniformly random moves to the end.
                    end = state
                    while not end.is_terminal():
                        end = end.play(choice(end.legal_actions()))
                    value0 = float(end.returns()[0])
                else:
                    value0 = self._evaluate0(state)
                priors = self._priors(state, actions) if may_have_priors else _NO_PRIORS
                # 2 + 4. Expansion, backpropagation (and the solver), compiled.
                solved = finish_new_leaf(
                    nodes, node_values, edges, edge_values, meta, node, edge, player, False,
                    reward0, actions, priors, value0, solve, low, high,
                )
            if amaf is not None:
                self._update_amaf(path, depth, value0, playouts)
            if store:
                states.append(state)
        self._max_depth_seen = max_seen
        return ran, bool(solved)

    def _action_array(self, legal: Sequence[int]) -> np.ndarray:
        """Legal actions as an int64 array, cached by tuple (positions repeat often)."""
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
        self._tree = T.reserve(self._tree, simulations_left, simulations_left * self._max_actions)
        self._fit_amaf()

    def _finish_old_leaf(self, node: int, path: np.ndarray, depth: int) -> bool:
        """End a simulation that stopped on an existing node: terminal, proven, or at the
        depth limit (evaluated again). Returns whether the root is proven."""
        tree = self._tree
        playouts: Sequence[_Playout] = ()
        if (
            tree.nodes[node, T.N_NUM_EDGES] == 0
            or tree.nodes[node, T.N_PROVEN] != T.UNPROVEN
        ):
            value0 = float(tree.node_values[node, T.NV_EXACT])
        elif self._amaf is not None:
            value0, playouts = self._evaluate_recording(self._state_of(node, path, depth))
        else:
            value0 = self._evaluate0(self._state_of(node, path, depth))
        low, high = self._solver_bounds
        solved = bool(
            T.finish_old_leaf(
                tree.nodes, tree.node_values, tree.edges, tree.edge_values, node, value0,
                self._solver, low, high,
            )
        )
        if self._amaf is not None:
            self._update_amaf(path, depth, value0, playouts)
        return solved

    def _evaluate0(self, state: GameState) -> float:
        value = float(self._evaluator.evaluate(state, self._rng))
        return -value if state.current_player() == 1 else value

    # ----------------------------------------------------------------------------- RAVE

    def _amaf_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The AMAF rows for the compiled selection (empty when RAVE is off)."""
        if self._amaf is None:
            return _NO_ACTIONS, _NO_PRIORS
        return self._amaf.visit_count, self._amaf.value_sum

    def _evaluate_recording(self, state: GameState) -> tuple[float, Sequence[_Playout]]:
        """Evaluate ``state`` (value for player 0) and return the rollouts played for it,
        each as ``(value for player 0, actions, players)``; none if the evaluator plays no
        rollouts it can report."""
        if self._inline_rollout:
            # The default evaluator, inlined, with its moves and movers recorded.
            choice = self._rng.choice
            actions: list[int] = []
            players: list[int] = []
            end = state
            while not end.is_terminal():
                action = choice(end.legal_actions())
                players.append(end.current_player())
                actions.append(action)
                end = end.play(action)
            value0 = float(end.returns()[0])
            return value0, ((value0, actions, players),)
        record = getattr(self._evaluator, "record_playouts", None)
        if record is None:
            return self._evaluate0(state), ()
        playouts = record(state, self._rng)
        return sum(float(p[0]) for p in playouts) / len(playouts), playouts

    def _update_amaf(
        self, path: np.ndarray, depth: int, value0: float, playouts: Sequence[_Playout]
    ) -> None:
        """MC-RAVE's update after a simulation (:func:`playout._src.rave.update_amaf`): one
        AMAF sample per rollout, or one for the tree's moves alone without rollouts."""
        amaf = self._amaf
        assert amaf is not None
        tree = self._tree
        for playout_value0, actions, players in playouts or ((value0, (), ()),):
            action_array = np.asarray(actions, dtype=np.int64)
            if self._spec.num_actions is None:  # unbounded ids: make room for these
                top = int(tree.edges[path[:depth], T.E_ACTION].max(initial=0))
                amaf.widen(max(top, int(action_array.max(initial=0))))
            rave.update_amaf(
                tree.nodes, tree.node_values, tree.edges, amaf.visit_count, amaf.value_sum,
                amaf.marks, amaf.next_stamp(), path, depth, action_array,
                np.asarray(players, dtype=np.int64), float(playout_value0),
            )

    def _state_of(self, node: int, path: np.ndarray, depth: int) -> GameState:
        if self._store_states:
            return self._states[node]
        state = self._root_state
        edges = self._tree.edges
        for i in range(depth):
            state = state.play(int(edges[path[i], T.E_ACTION]))
        return state

    def _path_buffer(self, max_depth: int) -> np.ndarray:
        size = min(max_depth, self._spec.max_length or 4096) + 1
        buffer = getattr(self, "_path", None)
        if buffer is None or buffer.shape[0] < size:
            buffer = np.zeros(max(size, 64), dtype=np.int64)
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
                e = int(T.sample_by_prior(edge_values, first, count, self._rng_state))
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
                index = int(rule(stats))
                if not 0 <= index < count:
                    raise InvalidParameterError(
                        f"selection rule returned edge index {index}, expected 0..{count - 1}"
                    )
                e = first + index
            path[depth] = e
            depth += 1
            child = int(edges[e, T.E_CHILD])
            if child == T.UNVISITED:
                return node, e, depth
            node = child
        return node, T.NO_EDGE, depth

    # ----------------------------------------------------------------------------- results

    def result(self) -> SearchResult:
        """The statistics at the root now (no new simulations)."""
        return self._result(0, 0.0)

    def _result(self, simulations: int, seconds: float) -> SearchResult:
        tree = self._tree
        first = int(tree.nodes[T.ROOT, T.N_FIRST_EDGE])
        count = max(0, int(tree.nodes[T.ROOT, T.N_NUM_EDGES]))
        rows = slice(first, first + count)
        actions = tuple(int(a) for a in tree.edges[rows, T.E_ACTION])
        visits = tree.edges[rows, T.E_VISITS]
        sums = tree.edge_values[rows, T.EV_VALUE_SUM]
        means = np.divide(sums, visits, out=np.zeros(count), where=visits > 0)
        total = int(visits.sum())
        value = float(sums.sum() / total) if total > 0 else 0.0
        best_edge = int(
            T.choose_edge(
                tree.nodes, tree.edges, tree.edge_values, T.ROOT, self._final,
                self._temperature, self._rng_state,
            )
        )
        proven = None
        if tree.nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN:
            value = float(
                T.value_for(int(tree.nodes[T.ROOT, T.N_PLAYER]),
                            float(tree.node_values[T.ROOT, T.NV_EXACT]))
            )
            proven = _proven_name(value, self._spec)
        pv_buffer = np.zeros(max(1, self._max_depth_seen + 1), dtype=np.int64)
        pv_length = T.principal_variation(tree.nodes, tree.edges, tree.edge_values, pv_buffer)
        return SearchResult(
            best_action=int(tree.edges[best_edge, T.E_ACTION]),
            actions=actions,
            visit_counts=tuple(int(n) for n in visits),
            values=tuple(float(q) for q in means),
            priors=tuple(float(p) for p in tree.edge_values[rows, T.EV_PRIOR]),
            value=value,
            pv=tuple(int(a) for a in pv_buffer[:pv_length]),
            player=int(tree.nodes[T.ROOT, T.N_PLAYER]),
            simulations=simulations,
            total_simulations=total,
            seconds=seconds,
            nodes=tree.num_nodes,
            max_depth=self._max_depth_seen,
            proven=proven,
        )

    # ----------------------------------------------------------------------------- moves

    def advance(self, action: int) -> None:
        """Move the root to the position after ``action`` (played by either side).

        With ``reuse=True`` the subtree below the action is kept (seed 000's ``transition``).
        Raises :class:`~playout.IllegalMoveError` if ``action`` is not legal at the root.
        """
        state = self._root_state
        if state.is_terminal() or int(action) not in set(state.legal_actions()):
            raise IllegalMoveError(f"action {action} is not legal in this position")
        next_state = state.play(int(action))
        edge = int(T.find_child_edge(self._tree.nodes, self._tree.edges, T.ROOT, int(action)))
        child = int(self._tree.edges[edge, T.E_CHILD]) if edge != T.NO_EDGE else T.UNVISITED
        chance_root = next_state.current_player() == CHANCE or state.current_player() == CHANCE
        if not self._reuse or child == T.UNVISITED or (chance_root and not self._store_states):
            self._reset(next_state)
            return
        new_tree, old_ids = T.subtree(self._tree, child)
        if self._amaf is not None:
            self._amaf = self._amaf.carried(self._tree, new_tree, old_ids)
        if self._store_states:
            self._states = [self._states[int(i)] for i in old_ids]
            next_state = self._states[0]
        self._tree = new_tree
        self._root_state = next_state
        self._max_depth_seen = 0
        if new_tree.nodes[T.ROOT, T.N_NUM_EDGES] == T.UNEXPANDED:
            self._expand_root()
        self._fit_amaf()

    transition = advance  # seed 000's name

    def decide(self, advance: bool = True, budget: Budget | None = None) -> int:
        """Run the search and return the chosen action; with ``advance`` also play it."""
        action = self.run(budget).best_action
        if advance:
            self.advance(action)
        return action


_NO_ACTIONS = np.zeros(0, dtype=np.int64)
_Playout = tuple[float, Sequence[int], Sequence[int]]
"""One recorded rollout: player 0's return from the leaf, the actions, who played each."""


def _proven_name(value: float, spec: Any) -> str:
    """"win", "loss" or "draw" for an exact value seen by the player to move."""
    if value >= spec.max_return:
        return "win"
    if value <= (spec.min_return if spec.num_players == 1 else -spec.max_return):
        return "loss"
    return "draw"


def _check_state(state: Any) -> None:
    missing = [
        name
        for name in ("current_player", "legal_actions", "play", "is_terminal", "returns", "game")
        if not hasattr(state, name)
    ]
    if missing:
        raise GameError(
            f"{type(state).__name__} is not a playout game state: missing {', '.join(missing)}"
            " (wrap a seed-style game with playout.games.from_seed_state)"
        )
    spec = getattr(state.game, "spec", None)
    if spec is None:
        raise GameError(f"{type(state).__name__}.game has no spec (a playout.GameSpec)")


def search(
    state: GameState,
    *,
    simulations: int | None = None,
    seconds: float | None = None,
    max_nodes: int | None = None,
    max_depth: int | None = None,
    seed: int | None = None,
    selection: SelectionRule | None = None,
    evaluator: Evaluator | None = None,
    final: FinalChoice = "most_visits",
    temperature: float = 1.0,
    solver: bool | None = None,
    backend: Literal["auto", "python", "compiled"] = "auto",
    progress: ProgressCallback | None = None,
) -> SearchResult:
    """Search ``state`` once and return the result (values for the player to move).

    Stops at the first limit reached; with no limit given, runs 1000 simulations. See
    :class:`MCTS` for the parameters and for keeping the tree between moves. ``backend``:
    ``"auto"`` runs the whole loop compiled for the built-in games when the options allow
    it (random rollouts, a built-in rule), ``"python"`` always uses the Python driver,
    ``"compiled"`` insists on the compiled one (or raises InvalidParameterError).
    """
    from playout._src.compiled.engine import make_engine  # the compiled driver builds on this

    _check_state(state)
    budget = Budget(
        simulations=simulations, seconds=seconds, max_nodes=max_nodes, max_depth=max_depth
    )
    engine = make_engine(
        state, backend=backend, selection=selection, evaluator=evaluator, budget=budget,
        final=final, temperature=temperature, seed=seed, solver=solver,
    )
    return engine.run(progress=progress)


def visit_shares(result: SearchResult) -> Sequence[float]:
    """Visit share of each root action, in the order of ``result.actions``."""
    total = sum(result.visit_counts) or 1
    return [n / total for n in result.visit_counts]


__all__ = ["MCTS", "Budget", "FinalChoice", "SearchResult", "search"]
