"""The Gumbel search's driver: the batched driver walking by Gumbel search's rules.

:class:`GumbelDriver` is :class:`~playout._src.batched_driver.BatchedDriver` (leaves
collected with virtual loss, one evaluation per batch, the same expansion, backup and
solver) with its selection replaced by :func:`playout._src.gumbel.descend`. A search is a
*round* at the root (:class:`GumbelRound`)::

    begin_search(n)                         # the Gumbel draw g, the halving schedule for n
    select_leaves / finish_leaves           # as the batched driver, walking by gumbel.descend
    root_summary()                          # the move: the best survivor; the improved
                                            #   policy and its value

A round begins when :meth:`GumbelDriver.begin_search` is called (:meth:`playout.MCTS.run`
calls it with the run's simulation count) or, when none is running, at the first
:meth:`~GumbelDriver.select_leaves` after the root was set, for the configured simulation
count (self-play drives the driver directly); one that has run its ``n`` simulations is
followed by a fresh one. Visits already in the tree (a reused subtree, an earlier run) count
in the Q-values of the later phases; the schedule counts only the round's own visits, and
the first phase samples by ``g + logits`` alone. The halving's root choices read finished
simulations only: the batch's pending walks are counted per root edge and taken out.

An evaluator without ``evaluate_batch`` (rollouts, a value function) is evaluated one leaf at
a time through :class:`OneByOne`, with its priors or uniform ones.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import numpy as np

from playout._src import checks, gumbel, leaf_batch
from playout._src.batched_driver import _NO_COUNTS, _NO_FLOATS, BatchedDriver
from playout._src.config import UNLIMITED, Gumbel, SearchConfig
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import BatchEvaluator, Evaluator, Rollout
from playout._src.game import CHANCE, GameState, value_for
from playout._src.tree import layout as T

MAX_ROUND = 1_000_000
"""The most simulations of one Gumbel round: its sequential-halving schedule is laid out
before the first (8 bytes a simulation), and published Gumbel searches run tens to
hundreds."""


class OneByOne:
    """A :class:`~playout.BatchEvaluator` over an evaluator that values one state at a time
    (each state of a batch in turn, with ``rng``); its priors, or uniform ones."""

    def __init__(self, evaluator: Evaluator, rng: random.Random) -> None:
        self.evaluator = evaluator
        self._rng = rng
        self._priors = getattr(evaluator, "priors", None)

    def __repr__(self) -> str:
        return f"OneByOne({self.evaluator!r})"

    def evaluate(self, state: GameState, rng: random.Random) -> float:
        return float(self.evaluator.evaluate(state, rng))

    def priors(self, state: GameState, actions: Sequence[int] | np.ndarray) -> np.ndarray:
        """The evaluator's priors over ``actions``, or uniform ones."""
        if self._priors is None:
            return np.full(len(actions), 1.0 / max(1, len(actions)))
        return np.asarray(self._priors(state, actions), dtype=np.float64)

    def evaluate_batch(
        self, states: Sequence[GameState], actions: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        values = np.array([self.evaluate(s, self._rng) for s in states], dtype=np.float64)
        return values, [self.priors(s, a) for s, a in zip(states, actions, strict=True)]


@dataclasses.dataclass(frozen=True)
class GumbelRound:
    """One Gumbel search at the root: what stays fixed while it runs.

    Attributes:
        simulations: the budget ``n`` the schedule spreads.
        num_considered: ``m``, the root actions sampled (at most the root's edge count).
        schedule: :func:`~playout._src.gumbel.considered_visits` for ``m`` and ``n``.
        gumbel: the Gumbel draw ``g`` per root edge (times the configured scale).
        gumbel_logits: ``g + logits - max(logits)`` per root edge.
        base_visits: the root edges' visits when the round began.
    """

    simulations: int
    num_considered: int
    schedule: np.ndarray
    gumbel: np.ndarray
    gumbel_logits: np.ndarray
    base_visits: np.ndarray


class GumbelDriver(BatchedDriver):
    """Runs a Gumbel search (see the module docstring; the algorithm:
    :mod:`playout._src.gumbel`).

    Args:
        state: the root position.
        config: the engine's configuration, resolved for the game, with ``gumbel`` set.
        rng_state: the compiled phases' generator (chance nodes).
        rng: the Python generator (the Gumbel draws; a one-by-one evaluator's rollouts).

    Raises:
        InvalidParameterError: a game or setting Gumbel search cannot run (recomputed
            states: a game with hidden chance or ``store_states=False``).
    """

    def __init__(
        self,
        state: GameState,
        config: SearchConfig,
        rng_state: np.ndarray,
        rng: random.Random,
    ) -> None:
        if not isinstance(config.gumbel, Gumbel):
            raise InvalidParameterError("GumbelDriver needs SearchConfig(gumbel=Gumbel(...))")
        if not config.store_states:
            raise InvalidParameterError(
                "Gumbel search needs stored states: not store_states=False, nor a game whose "
                "play() draws at random (hidden chance, searched with states recomputed)"
            )
        self._gumbel: Gumbel = config.gumbel
        self._params = np.array([config.gumbel.c_visit, config.gumbel.c_scale])
        self._round: GumbelRound | None = None
        self._default_simulations = config.budget.simulation_limit
        self._scratch = np.zeros((gumbel.SCRATCH_ROWS, 64), dtype=np.float64)
        self._visits = np.zeros(64, dtype=np.int64)
        self._root_pending = np.zeros(64, dtype=np.int64)
        evaluator = Rollout() if config.evaluator is None else config.evaluator
        if type(evaluator) is Rollout or not isinstance(evaluator, BatchEvaluator):
            config = config.replace(evaluator=OneByOne(evaluator, rng), leaf_batch=1)
        super().__init__(state, config, rng_state, rng)

    # ----------------------------------------------------------------------------- rounds

    @property
    def round(self) -> GumbelRound | None:
        """The round running at the root, or ``None`` before one begins."""
        return self._round

    def begin_search(self, simulations: int) -> None:
        """Begin a round of ``simulations`` simulations at the root: draw the Gumbel
        variables, sample ``m`` actions (the schedule takes the first ``m`` simulations to
        visit the ``m`` best ``g + logits``), and lay out sequential halving.

        Raises:
            InvalidParameterError: no simulation count (a time limit alone), or leaves pending.
        """
        if simulations >= UNLIMITED:
            raise InvalidParameterError(
                "Gumbel search needs a simulation count (sequential halving divides a known "
                "budget); give simulations=N, alone or with a time limit"
            )
        if simulations > MAX_ROUND:
            raise InvalidParameterError(
                f"a Gumbel search runs at most {MAX_ROUND:,} simulations a round (sequential "
                f"halving lays them all out first), got {simulations:,}"
            )
        if self._pending:
            raise InvalidParameterError("a Gumbel search began while leaves were pending")
        tree = self._tree
        count = max(0, int(tree.nodes[T.ROOT, T.N_NUM_EDGES]))
        if count == 0 or tree.nodes[T.ROOT, T.N_PLAYER] == CHANCE:
            self._round = None  # nothing to choose among: the walk needs no round
            return
        rows = self._root_rows()
        generator = np.random.default_rng(self._rng.getrandbits(64))
        draw = self._gumbel.scale * generator.gumbel(size=count)
        logits = np.empty(count, dtype=np.float64)
        gumbel.logits_into(np.ascontiguousarray(tree.edge_values[rows, T.EV_PRIOR]), logits)
        num_considered = min(int(self._gumbel.considered), count)
        self._round = GumbelRound(
            simulations=int(simulations),
            num_considered=num_considered,
            schedule=gumbel.considered_visits(num_considered, int(simulations)),
            gumbel=draw,
            gumbel_logits=draw + logits - logits.max(),
            base_visits=tree.edges[rows, T.E_VISITS].astype(np.int64),
        )

    def _root_rows(self) -> slice:
        first = int(self._tree.nodes[T.ROOT, T.N_FIRST_EDGE])
        return slice(first, first + max(0, int(self._tree.nodes[T.ROOT, T.N_NUM_EDGES])))

    def _round_done(self) -> int:
        """Simulations of the running round so far (the root edges' visits since it began)."""
        assert self._round is not None
        visits = self._tree.edges[self._root_rows(), T.E_VISITS]
        return int(visits.sum() - self._round.base_visits.sum())

    def select_leaves(self, limit: int, max_depth: int) -> tuple[list[GameState], list[np.ndarray]]:
        """As :meth:`BatchedDriver.select_leaves`, within the running round (one begins if
        none is running, for the configured simulation count, or when it has run them all)."""
        if self._round is None or self._round_done() >= self._round.simulations:
            self.begin_search(self._default_simulations)
        if self._round is not None:
            limit = min(limit, self._round.simulations - self._round_done())
        return super().select_leaves(limit, max_depth)

    def _walk_batch(self, limit: int, max_depth: int) -> tuple[int, bool, int]:
        """Selection by :func:`playout._src.gumbel.descend`, in the round running."""
        if self._scratch.shape[1] < self._max_actions:
            self._scratch = np.zeros((gumbel.SCRATCH_ROWS, self._max_actions), dtype=np.float64)
            self._visits = np.zeros(self._max_actions, dtype=np.int64)
            self._root_pending = np.zeros(self._max_actions, dtype=np.int64)
        nodes, node_values, edges, edge_values, _ = self._tree
        current = self._round
        count, collided, deepest = leaf_batch.select_batch(
            nodes, node_values, edges, edge_values, leaf_batch.WALK_GUMBEL, self._rule,
            self._rule_params, 0.0,
            _NO_FLOATS if current is None else current.gumbel_logits,
            _NO_COUNTS if current is None else current.base_visits,
            _NO_COUNTS if current is None else current.schedule,
            self._params, self._scratch, self._visits, self._root_pending, self._rng_state,
            max_depth, limit, self._loss, self._paths, self._saved, self._walks,
        )  # fmt: skip
        return int(count), bool(collided), int(deepest)

    # ----------------------------------------------------------------------------- root

    def _expand_root(self) -> None:
        """Expand the root and write its evaluation where the walk reads a node's raw value
        (its ``NV_EXACT``, see :mod:`playout._src.gumbel`); the round ends."""
        super()._expand_root()
        self._round = None
        state = self._root_state
        player = state.current_player()
        if player == CHANCE:
            return
        actions = np.asarray(state.legal_actions(), dtype=np.int64)
        # The batched driver's evaluator (set after the first reset; the same object).
        evaluator = self._evaluator
        assert isinstance(evaluator, BatchEvaluator)
        values, _ = evaluator.evaluate_batch([state], [actions])
        if self._checks:  # as the leaves' values are (the batched driver's finish_leaves)
            values = checks.evaluations(self._spec, values[:1], type(evaluator).__name__)
        value = float(values[0])
        self._tree.node_values[T.ROOT, T.NV_EXACT] = value_for(player, value)

    def reset(self, state: GameState) -> None:
        """Start a new tree with ``state`` at its root (no round running)."""
        self._round = None
        super().reset(state)

    def keep_subtree(self, child: int, state: GameState) -> bool:
        """As :meth:`BatchedDriver.keep_subtree`; the round ends (the root moved)."""
        kept = super().keep_subtree(child, state)
        if kept:
            self._round = None
        return kept

    def root_summary(self) -> tuple[int, np.ndarray, float] | None:
        """The move, the improved policy and its value at the root, or ``None`` when the
        root has no move to choose (over, or a chance node).

        The move (paper, algorithm 2; mctx's ``gumbel_muzero_policy``): among the root
        actions visited most in the round, the largest ``g + logits + sigma(completed q)``
        (``g = 0`` before a round). The improved policy ``softmax(logits + sigma(completed
        q))`` over the root's edges, in their order (the result's ``actions``). The value,
        for the player to move: the improved policy's mean of the completed Q-values,
        ``sum_a pi'(a) completed q(a)``. Sequential halving spends visits on every sampled
        action, the weak ones too, so the visits' mean of Q (other searches' root value)
        would understate what the position is worth to the policy the search improves.

        Returns:
            ``(action, policy, value)``.
        """
        tree = self._tree
        nodes = tree.nodes
        if nodes[T.ROOT, T.N_NUM_EDGES] <= 0 or nodes[T.ROOT, T.N_PLAYER] == CHANCE:
            return None
        count = int(nodes[T.ROOT, T.N_NUM_EDGES])
        scratch = np.zeros((gumbel.SCRATCH_ROWS, count), dtype=np.float64)
        visits = np.zeros(count, dtype=np.int64)
        gumbel.node_policy(
            nodes, tree.node_values, tree.edges, tree.edge_values, T.ROOT, self._params,
            scratch, visits,
        )  # fmt: skip
        policy = scratch[gumbel.POLICY_ROW].copy()
        sigmas = np.ascontiguousarray(scratch[gumbel.SIGMA_ROW])
        q, priors = scratch[gumbel.Q_ROW], scratch[gumbel.PRIOR_ROW]
        raw = gumbel.raw_value(nodes, tree.node_values, T.ROOT)
        completed = gumbel.completed_q(q, visits, gumbel.mixed_value(raw, q, visits, priors))
        # A mean of the completed Q-values, kept within them (the sum's rounding may not).
        value = min(max(float(policy @ completed), completed.min()), completed.max())
        current = self._round
        if current is None:
            logits = scratch[gumbel.LOGIT_ROW]
            gumbel_logits = logits - logits.max()
        else:
            gumbel_logits = current.gumbel_logits
            visits = visits - current.base_visits
        choice = gumbel.root_choice(int(visits.max()), gumbel_logits, sigmas, visits)
        first = int(nodes[T.ROOT, T.N_FIRST_EDGE])
        return int(tree.edges[first + choice, T.E_ACTION]), policy, value


__all__ = ["GumbelDriver", "GumbelRound", "OneByOne"]
