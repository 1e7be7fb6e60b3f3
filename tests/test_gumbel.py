"""Gumbel search (Danihelka, Guez, Schrittwieser & Silver 2022): its formulas against hand
computations, sequential halving's schedule, policy improvement on a bandit whose action
values are known, the network-guided search, reproducibility, pickling, bad settings."""

from __future__ import annotations

import dataclasses
import math
import pickle
import random
from collections.abc import Sequence

import numpy as np
import pytest

import playout
from playout import Gumbel
from playout._src import gumbel
from playout._src.tree import backup
from playout._src.tree import layout as T
from playout.games import tictactoe

# --------------------------------------------------------------------------------------------
# A one-step bandit: the root's actions are arms of known value.
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Arms:
    """One player pulls one of ``len(values)`` arms. An arm's state is evaluated as its
    value plus Gaussian noise of deviation ``noise`` (drawn from the search's generator);
    one more move from it ends the game with the value exactly."""

    values: tuple[float, ...]
    prior: tuple[float, ...]
    noise: float = 0.0
    root_value: float = 0.0

    @property
    def spec(self) -> playout.GameSpec:
        return playout.GameSpec("arms", num_players=1, num_actions=len(self.values), max_length=2)

    def initial_state(self) -> ArmState:
        return ArmState(self, -1, False)


@dataclasses.dataclass(frozen=True)
class ArmState:
    game: Arms
    arm: int  # -1 at the root
    done: bool

    def current_player(self) -> int:
        return 0

    def legal_actions(self) -> tuple[int, ...]:
        return tuple(range(len(self.game.values))) if self.arm < 0 else (0,)

    def is_terminal(self) -> bool:
        return self.done

    def play(self, action: int) -> ArmState:
        if self.arm < 0:
            return ArmState(self.game, action, False)
        return ArmState(self.game, self.arm, True)

    def returns(self) -> tuple[float]:
        return (self.game.values[self.arm] if self.done else 0.0,)


@dataclasses.dataclass(frozen=True)
class ArmEvaluator:
    """The arms' values (noisy) and the bandit's prior at the root."""

    game: Arms

    def evaluate(self, state: ArmState, rng: random.Random) -> float:
        if state.arm < 0:
            return self.game.root_value
        noise = rng.gauss(0.0, self.game.noise) if self.game.noise else 0.0
        return max(-1.0, min(1.0, self.game.values[state.arm] + noise))

    def priors(self, state: ArmState, actions: Sequence[int]) -> list[float]:
        return [self.game.prior[a] for a in actions] if state.arm < 0 else [1.0]


VALUES = (-0.5, 0.3, -0.4, -0.6, -0.2, 0.9, -0.8, -0.3)
"""Arm 5 is the best; arm 1, the prior's favourite, is second."""
MISLEADING = tuple(p / 1.05 for p in (0.1, 0.45, 0.1, 0.05, 0.1, 0.05, 0.1, 0.1))
BEST_ARM = 5

FORK = ((0, 0, -1), (0, 0, 0), (1, -1, 1))
"""Tic-tac-toe, X to move: the one winning move is the fork at a1 (action 0), no win in one."""


def arms(noise: float = 0.0, prior: tuple[float, ...] = MISLEADING) -> Arms:
    return Arms(VALUES, prior, noise)


def bandit_search(
    game: Arms, simulations: int, seed: int, **options: object
) -> playout.SearchResult:
    return playout.search(
        game.initial_state(), evaluator=ArmEvaluator(game), simulations=simulations,
        seed=seed, solver=False, **options,  # type: ignore[arg-type]
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# The formulas against hand computations.
# --------------------------------------------------------------------------------------------


def test_sigma_is_the_papers_monotone_transformation() -> None:
    # (c_visit + max N) * c_scale * q (paper, section 4).
    assert gumbel.sigma(0.5, 10, 50.0, 1.0) == pytest.approx(30.0)
    assert gumbel.sigma(1.0, 0, 50.0, 0.1) == pytest.approx(5.0)
    assert gumbel.sigma(0.25, 150, 50.0, 2.0) == pytest.approx(100.0)
    assert gumbel.sigma(0.0, 7, 50.0, 1.0) == 0.0


def test_completed_q_fills_unvisited_actions_with_the_mixed_value() -> None:
    raw = 0.2
    q = np.array([0.5, -0.1, 0.0, 0.0])
    visits = np.array([3, 1, 0, 0])
    priors = np.array([0.4, 0.1, 0.3, 0.2])
    # v_mix = (raw + sum N * (sum_visited P q / sum_visited P)) / (1 + sum N)
    #       = (0.2 + 4 * ((0.4 * 0.5 + 0.1 * -0.1) / 0.5)) / 5 = (0.2 + 4 * 0.38) / 5 = 0.344
    v_mix = gumbel.mixed_value(raw, q, visits, priors)
    assert v_mix == pytest.approx(0.344)
    np.testing.assert_allclose(gumbel.completed_q(q, visits, v_mix), [0.5, -0.1, 0.344, 0.344])
    # Rescaled by min (-0.1) and max (0.5): [1, 0, 0.444/0.6, 0.444/0.6]; times (50 + 3) * 1.
    np.testing.assert_allclose(
        gumbel.transformed_q(raw, q, visits, priors),
        [53.0, 0.0, 53.0 * 0.444 / 0.6, 53.0 * 0.444 / 0.6],
    )
    # c_scale 0.1 (Gumbel MuZero on Atari, mctx's default): a tenth of that.
    np.testing.assert_allclose(
        gumbel.transformed_q(raw, q, visits, priors, c_scale=0.1),
        [5.3, 0.0, 5.3 * 0.444 / 0.6, 5.3 * 0.444 / 0.6],
    )


def test_the_mixed_value_of_an_unvisited_node_is_its_raw_value() -> None:
    q, visits, priors = np.zeros(3), np.zeros(3, dtype=np.int64), np.full(3, 1 / 3)
    assert gumbel.mixed_value(-0.7, q, visits, priors) == -0.7
    # Every completed Q-value is then the same: rescaled to 0, transformed to 0.
    np.testing.assert_array_equal(gumbel.transformed_q(-0.7, q, visits, priors), [0.0] * 3)
    # A visited action of prior 0 still counts (its weight is the smallest positive float).
    q1, n1, p1 = np.array([0.6, 0.0]), np.array([2, 0]), np.array([0.0, 1.0])
    assert gumbel.mixed_value(0.0, q1, n1, p1) == pytest.approx((0.0 + 2 * 0.6) / 3)


def test_the_improved_policy_is_the_softmax_of_logits_plus_sigma() -> None:
    raw = 0.0
    q = np.array([0.8, -0.4, 0.0])
    visits = np.array([1, 1, 0])
    priors = np.array([0.2, 0.5, 0.3])
    # v_mix = (0 + 2 * (0.2 * 0.8 + 0.5 * -0.4) / 0.7) / 3 = -0.04 / 1.05
    v_mix = 2 * (0.16 - 0.2) / 0.7 / 3
    completed = np.array([0.8, -0.4, v_mix])
    scaled = (completed + 0.4) / 1.2 * (50 + 1)
    weights = [p * math.exp(s) for p, s in zip(priors, scaled, strict=True)]
    want = np.array(weights) / sum(weights)
    np.testing.assert_allclose(gumbel.improved_policy(raw, q, visits, priors), want, rtol=1e-9)
    assert gumbel.improved_policy(raw, q, visits, priors).sum() == pytest.approx(1.0)


def test_interior_selection_takes_the_largest_policy_minus_visit_share() -> None:
    # pi - N / (1 + sum N): 0.5 - 2/4 = 0, 0.3 - 1/4 = 0.05, 0.2 - 0 = 0.2.
    assert gumbel.interior_choice(np.array([0.5, 0.3, 0.2]), np.array([2, 1, 0])) == 2
    # 0.6 - 1/3 = 0.267 against 0.4 - 1/3 = 0.067 and 0 - 0.
    assert gumbel.interior_choice(np.array([0.6, 0.4, 0.0]), np.array([1, 1, 0])) == 0
    # Ties go to the first.
    assert gumbel.interior_choice(np.array([0.5, 0.5]), np.array([0, 0])) == 0


def test_interior_visit_shares_follow_the_policy() -> None:
    """The deterministic selection's visit shares converge on the policy it is given (the
    paper's section 5): after n steps each share is within 1/n-ish of it."""
    policy = np.array([0.5, 0.25, 0.15, 0.07, 0.03])
    visits = np.zeros(5, dtype=np.int64)
    for _ in range(1000):
        visits[gumbel.interior_choice(policy, visits)] += 1
    np.testing.assert_allclose(visits / 1000, policy, atol=5 / 1000)


def test_root_choice_takes_the_best_among_the_actions_with_the_visits_wanted() -> None:
    gumbel_logits = np.array([3.0, 1.0, 2.0, 0.5])
    transformed = np.array([0.0, 10.0, 0.0, 0.0])
    visits = np.array([2, 1, 2, 1])
    # Visit count 2: actions 0 and 2, scores 3 and 2.
    assert gumbel.root_choice(2, gumbel_logits, transformed, visits) == 0
    # Visit count 1: actions 1 (1 + 10) and 3 (0.5).
    assert gumbel.root_choice(1, gumbel_logits, transformed, visits) == 1
    assert gumbel.root_choice(5, gumbel_logits, transformed, visits) == -1


# --------------------------------------------------------------------------------------------
# Sequential halving's schedule.
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("m", "n", "want"),
    [
        # log2(4) = 2 phases: floor(8 / (2 * 4)) = 1 round of 4, then floor(8 / (2 * 2)) = 2
        # rounds of 2.
        (4, 8, [0, 0, 0, 0, 1, 1, 2, 2]),
        # One phase of 2: floor(5 / 2) = 2 rounds, then again; cut at 5.
        (2, 5, [0, 0, 1, 1, 2]),
        # ceil(log2 3) = 2: floor(10 / 6) = 1 round of 3, floor(10 / 4) = 2 rounds of 2, again.
        (3, 10, [0, 0, 0, 1, 1, 2, 2, 3, 3, 4]),
        # Fewer simulations than actions: one round, cut.
        (16, 4, [0, 0, 0, 0]),
        # One action takes them all.
        (1, 4, [0, 1, 2, 3]),
        (5, 0, []),
    ],
)
def test_schedule_small_cases_by_hand(m: int, n: int, want: list[int]) -> None:
    assert gumbel.considered_visits(m, n).tolist() == want


def test_schedule_for_200_simulations_and_16_actions() -> None:
    """n = 200, m = 16 (the paper's default m), 4 phases: 16 actions get
    floor(200 / 64) = 3 visits each (48 simulations), 8 get 6 more (floor(200 / 32), 48),
    4 get 12 more (floor(200 / 16), 48), 2 get 25 more (floor(200 / 8), 50); the 6 left
    continue the last phase: 3 more each. The sequence mctx's
    ``get_sequence_of_considered_visits(16, 200)`` gives."""
    levels = [(v, 16) for v in range(0, 3)] + [(v, 8) for v in range(3, 9)]
    levels += [(v, 4) for v in range(9, 21)] + [(v, 2) for v in range(21, 49)]
    want = [v for v, width in levels for _ in range(width)]
    assert len(want) == 200
    schedule = gumbel.considered_visits(16, 200)
    assert schedule.tolist() == want
    # Each entry is the visits an action has when it is taken: the survivors end with 49.
    assert schedule.max() + 1 == 49


def test_a_search_visits_the_root_actions_as_the_schedule_says() -> None:
    """200 simulations on a 20-armed bandit, m = 16: every sampled arm gets the visits of
    its phase (3, 9, 21 or 49), the 4 arms not sampled none, in batches of one or eight."""
    values = tuple(float(v) for v in np.linspace(-0.9, 0.9, 20))
    game = Arms(values, tuple([1 / 20] * 20))
    want = sorted([49, 49, 21, 21, 9, 9, 9, 9] + [3] * 8 + [0] * 4)
    for batch in (1, 8):
        evaluator = _Batched(ArmEvaluator(game))
        result = playout.search(
            game.initial_state(), evaluator=evaluator, gumbel=Gumbel(considered=16),
            simulations=200, seed=3, solver=False, leaf_batch=batch,
        )  # fmt: skip
        assert sorted(result.visit_counts) == want
        assert result.total_simulations == 200
        # The survivors are the best arms (sampled uniformly: g decides who is sampled).
        assert result.visit_counts[result.actions.index(result.best_action)] == 49


class _Batched:
    """An evaluator that values batches (the batched driver's leaf batching)."""

    def __init__(self, inner: ArmEvaluator) -> None:
        self.inner = inner
        self._rng = random.Random(0)

    def evaluate(self, state: ArmState, rng: random.Random) -> float:
        return self.inner.evaluate(state, rng)

    def priors(self, state: ArmState, actions: Sequence[int]) -> list[float]:
        return self.inner.priors(state, actions)

    def evaluate_batch(
        self, states: Sequence[ArmState], actions: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        values = np.array([self.evaluate(s, self._rng) for s in states])
        return values, [
            np.asarray(self.priors(s, list(a))) for s, a in zip(states, actions, strict=True)
        ]


# --------------------------------------------------------------------------------------------
# Policy improvement on the bandit.
# --------------------------------------------------------------------------------------------


def completed_by_hand(result: playout.SearchResult, raw: float) -> np.ndarray:
    """The completed Q-values of ``result``'s root: a visited action's mean, else
    ``v_mix = (raw + sum N * sum_visited P q / sum_visited P) / (1 + sum N)``."""
    visits = np.array(result.visit_counts)
    q = np.array(result.values)
    priors = np.array(result.priors)
    visited = visits > 0
    if not visited.any():
        return np.full(len(q), raw)
    weighted = (priors[visited] * q[visited]).sum() / priors[visited].sum()
    v_mix = (raw + visits.sum() * weighted) / (1 + visits.sum())
    return np.where(visited, q, v_mix)


@pytest.mark.parametrize("simulations", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("prior", [MISLEADING, tuple([1 / 8] * 8)])
def test_the_improved_policy_improves_on_the_prior(
    simulations: int, prior: tuple[float, ...]
) -> None:
    """Policy improvement (paper, section 4): at every budget and seed the improved policy
    is worth at least the prior by the completed Q-values it was built from,
    ``sum pi'(a) q^(a) >= sum P(a) q^(a)``; once every arm was visited (8 simulations for 8
    arms) the completed values are the arms' true values, and the improvement is strict in
    them."""
    game = arms(prior=prior)
    for seed in range(10):
        result = bandit_search(game, simulations, seed, gumbel=Gumbel(considered=8))
        completed = completed_by_hand(result, game.root_value)
        improved = float(np.dot(result.improved_policy, completed))
        assert improved >= float(np.dot(result.priors, completed)) - 1e-12, seed
        if simulations >= 8:
            q = np.array([VALUES[a] for a in result.actions])
            assert np.dot(result.improved_policy, q) > np.dot(result.priors, q) + 0.5


@pytest.mark.parametrize("simulations", [2, 4])
def test_with_fewer_simulations_than_arms_the_improvement_holds_on_average(
    simulations: int,
) -> None:
    """With 2 or 4 simulations for 8 arms, unvisited arms are valued by the mixed value, so
    one search's improved policy can be worth less than the prior by the arms' true values;
    over the Gumbel draws of 40 seeds it is worth clearly more."""
    game = arms()
    gains = []
    for seed in range(40):
        result = bandit_search(game, simulations, seed, gumbel=Gumbel(considered=8))
        q = np.array([VALUES[a] for a in result.actions])
        gains.append(np.dot(result.improved_policy, q) - np.dot(result.priors, q))
    assert np.mean(gains) > 0.2


def test_the_results_improved_policy_is_computed_from_its_statistics() -> None:
    """The result's improved policy is softmax(log P + sigma(completed Q)) of its own root
    statistics, with the root's evaluation (0.0 here) as the raw value, computed by hand."""
    game = arms()
    result = bandit_search(game, 5, 0, gumbel=Gumbel(considered=8))
    visits = np.array(result.visit_counts)
    completed = completed_by_hand(result, game.root_value)
    rescaled = (completed - completed.min()) / (completed.max() - completed.min())
    logits = np.log(np.array(result.priors)) + (50 + visits.max()) * rescaled
    want = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    np.testing.assert_allclose(result.improved_policy, want, rtol=1e-9)
    assert len(result.improved_policy) == len(result.actions)


def test_with_few_simulations_gumbel_finds_the_best_arm_where_puct_does_not() -> None:
    """8 simulations, 8 arms, noisy values, a prior that prefers the second-best arm:
    Gumbel search samples every arm and keeps the best by its value; PUCT, spending the
    same budget, mostly confirms the prior's favourite (arm 1 is good enough to keep
    it there) and its most-visited move is that one."""
    game = arms(noise=0.3)
    gumbel_found = puct_found = 0
    for seed in range(20):
        found = bandit_search(game, 8, seed, gumbel=Gumbel(considered=8)).best_action
        gumbel_found += found == BEST_ARM
        plain = bandit_search(game, 8, seed, selection=playout.PUCT(c=1.25)).best_action
        puct_found += plain == BEST_ARM
    assert gumbel_found >= 17
    assert puct_found <= 3


def test_the_move_is_the_best_score_among_the_most_visited() -> None:
    """Without noise (scale 0) and 8 simulations for 8 arms, each arm gets one visit and
    the move is argmax log P + sigma(q): sigma's spread (51 times the rescaled value) beats
    the prior, so the best arm."""
    result = bandit_search(arms(), 8, 0, gumbel=Gumbel(considered=8, scale=0.0))
    assert result.visit_counts == (1,) * 8
    assert result.best_action == BEST_ARM
    assert result.pv[0] == BEST_ARM
    # With c_visit and c_scale near nothing, the prior decides: arm 1.
    timid = Gumbel(considered=8, scale=0.0, c_visit=0.0, c_scale=1e-6)
    assert bandit_search(arms(), 8, 0, gumbel=timid).best_action == 1


def test_gumbel_scale_zero_samples_the_most_probable_actions() -> None:
    """m = 2 of 8 with no noise: the two arms of largest prior (1, then 0 or 2 or 4 or 6)
    take all the visits."""
    prior = (0.1, 0.4, 0.05, 0.05, 0.3, 0.05, 0.03, 0.02)
    result = bandit_search(arms(prior=prior), 6, 0, gumbel=Gumbel(considered=2, scale=0.0))
    visited = {a for a, n in zip(result.actions, result.visit_counts, strict=True) if n}
    assert visited == {1, 4}


# --------------------------------------------------------------------------------------------
# The engine: other evaluators, reproducibility, reuse, symmetry, pickling, bad settings.
# --------------------------------------------------------------------------------------------


def test_a_value_function_with_uniform_priors_finds_the_tictactoe_win() -> None:
    """No network and no priors: exact values (a value function over the game's solution)
    with uniform priors, one leaf at a time. X to move in ``. . O / . . . / X O X`` has one
    winning move, the fork at a1 (action 0), and no win in one."""
    game = tictactoe()
    exact, _ = exact_values()
    state = game.from_grid([list(row) for row in FORK], to_move=1)
    for seed in range(3):
        result = playout.search(
            state, evaluator=exact, gumbel=Gumbel(), simulations=24, seed=seed, solver=False
        )
        assert result.best_action == 0
        assert result.improved_policy[result.actions.index(0)] > 0.99


def test_rollouts_run_one_leaf_at_a_time() -> None:
    """Rollouts (no priors: uniform) go through the one-by-one adapter: every simulation is
    one evaluation, and the improved policy is a distribution over the root's moves."""
    state = tictactoe().initial_state()
    engine = playout.MCTS(state, gumbel=Gumbel(considered=4), seed=0)
    result = engine.run(playout.Budget(simulations=50))
    assert result.total_simulations == 50
    assert sum(result.improved_policy) == pytest.approx(1.0)
    assert sum(n > 0 for n in result.visit_counts) == 4  # m = 4 actions sampled


def test_seeded_gumbel_searches_reproduce() -> None:
    state = tictactoe().initial_state()
    first = playout.search(state, gumbel=Gumbel(), simulations=60, seed=7)
    again = playout.search(state, gumbel=Gumbel(), simulations=60, seed=7)
    assert dataclasses.replace(first, seconds=0.0) == dataclasses.replace(again, seconds=0.0)
    others = {
        playout.search(state, gumbel=Gumbel(), simulations=60, seed=s).visit_counts
        for s in range(8)
    }
    assert len(others) > 1  # the Gumbel draw comes from the seed


def test_each_run_is_a_round_and_the_tree_is_kept() -> None:
    """Two runs of 30 on one engine: the second is a round of its own (its schedule counts
    its own visits) on the tree the first left; advancing ends the round."""
    engine = playout.MCTS(tictactoe().initial_state(), gumbel=Gumbel(), seed=1)
    first = engine.run(playout.Budget(simulations=30))
    round_one = engine.driver.round  # type: ignore[attr-defined]
    second = engine.run(playout.Budget(simulations=30))
    assert second.total_simulations == 60
    assert engine.driver.round is not round_one  # type: ignore[attr-defined]
    assert engine.driver.round.base_visits.sum() == 30  # type: ignore[attr-defined]
    assert first.best_action in first.actions
    engine.advance(second.best_action)
    assert engine.driver.round is None  # type: ignore[attr-defined]
    third = engine.run(playout.Budget(simulations=20))
    assert third.simulations == 20 and len(third.improved_policy) == len(third.actions)


def test_gumbel_with_symmetry_shares_the_improved_policy_within_classes() -> None:
    result = playout.search(
        tictactoe().initial_state(), gumbel=Gumbel(), symmetry=True, simulations=40, seed=0
    )
    policy = result.improved_policy
    assert len(policy) == 9 and sum(policy) == pytest.approx(1.0)
    corners = [policy[result.actions.index(a)] for a in (0, 2, 6, 8)]
    assert corners == pytest.approx([corners[0]] * 4)


def test_the_raw_value_is_the_nodes_own_evaluation() -> None:
    """Where Gumbel search reads a node's raw value (``NV_EXACT`` until proven): every
    arm's node holds the value its evaluation gave, the root the root's; in a two-player
    game, for the player to move there."""
    game = arms()
    engine = playout.MCTS(
        game.initial_state(), evaluator=ArmEvaluator(game), gumbel=Gumbel(), solver=False,
        seed=0,
    )  # fmt: skip
    engine.run(playout.Budget(simulations=8))
    tree = engine.tree
    assert gumbel.raw_value(tree.nodes, tree.node_values, T.ROOT) == game.root_value
    first = int(tree.nodes[T.ROOT, T.N_FIRST_EDGE])
    for e in range(first, first + 8):
        child = int(tree.edges[e, T.E_CHILD])
        arm = int(tree.edges[e, T.E_ACTION])
        assert gumbel.raw_value(tree.nodes, tree.node_values, child) == VALUES[arm]
    # Tic-tac-toe with exact values: the root (X to move) and its children (O to move).
    ttt, exact, solution = tictactoe(), *exact_values()
    state = ttt.from_grid([list(row) for row in FORK], to_move=1)
    engine = playout.MCTS(state, evaluator=exact, gumbel=Gumbel(), solver=False, seed=0)
    engine.run(playout.Budget(simulations=10))
    tree = engine.tree
    assert gumbel.raw_value(tree.nodes, tree.node_values, T.ROOT) == 1.0  # X wins
    first = int(tree.nodes[T.ROOT, T.N_FIRST_EDGE])
    seen = set()
    for e in range(first, first + int(tree.nodes[T.ROOT, T.N_NUM_EDGES])):
        child = int(tree.edges[e, T.E_CHILD])
        after = state.play(int(tree.edges[e, T.E_ACTION]))
        want = playout.value_for(1, solution.values0[after])  # for O, to move there
        assert gumbel.raw_value(tree.nodes, tree.node_values, child) == want
        seen.add(want)
    assert -1.0 in seen and len(seen) > 1  # the fork loses for O; other values too


def exact_values() -> tuple[playout.ValueFunction, object]:
    """Tic-tac-toe's exact values for the player to move, as an evaluator, and the
    solution they come from."""
    from playout._src.perfect import solve

    solution = solve(tictactoe())
    return playout.ValueFunction(
        lambda state: playout.value_for(state.current_player(), solution.values0[state])
    ), solution


def test_gumbel_settings_pickle_and_compare() -> None:
    setting = Gumbel(considered=8, c_visit=30.0, c_scale=0.5, scale=0.0)
    assert pickle.loads(pickle.dumps(setting)) == setting
    config = playout.SearchConfig(gumbel=setting, seed=3).replace(simulations=50)
    assert pickle.loads(pickle.dumps(config)) == config
    state = tictactoe().initial_state()
    here = playout.search(state, config)
    there = playout.search(state, pickle.loads(pickle.dumps(config)))
    assert here.visit_counts == there.visit_counts and here.best_action == there.best_action


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"considered": 0}, "considered"),
        ({"considered": 2.5}, "considered"),
        ({"considered": True}, "considered"),
        ({"c_visit": -1.0}, "c_visit"),
        ({"c_scale": math.inf}, "c_scale"),
        ({"scale": math.nan}, "scale"),
        ({"scale": "1"}, "scale"),
        ({"c_scale": 1e308}, "c_scale"),  # sigma would overflow: the policy NaN
        ({"c_visit": 10**400}, "c_visit"),
    ],
)
def test_bad_gumbel_values_are_refused(fields: dict[str, object], match: str) -> None:
    with pytest.raises(playout.InvalidParameterError, match=match):
        Gumbel(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"gumbel": 16}, "playout.Gumbel"),
        ({"gumbel": Gumbel(), "selection": playout.PUCT()}, "selection"),
        ({"gumbel": Gumbel(), "root_noise": playout.DirichletNoise()}, "root_noise"),
        ({"gumbel": Gumbel(), "final": "sample"}, "final"),
        ({"gumbel": Gumbel(), "backend": "compiled"}, "compiled"),
        ({"gumbel": Gumbel(), "tree_threads": 2}, "tree_threads"),
        ({"gumbel": Gumbel(), "transpositions": True}, "transposition"),
        ({"gumbel": Gumbel(), "store_states": False}, "stored states"),
    ],
)
def test_settings_gumbel_cannot_run_with_are_refused(
    options: dict[str, object], match: str
) -> None:
    with pytest.raises(playout.InvalidParameterError, match=match):
        playout.search(tictactoe().initial_state(), simulations=10, **options)  # type: ignore[arg-type]


def test_a_round_is_bounded_and_its_value_within_the_values() -> None:
    state = tictactoe().initial_state()
    # The schedule is laid out before the first simulation: a round is bounded, time limit
    # or not.
    with pytest.raises(playout.InvalidParameterError, match="at most 1,000,000 simulations"):
        playout.search(state, gumbel=Gumbel(), simulations=10**7, seconds=0.05)
    # With hardly a visit the value is the root's own: a mean of values in [-1, 1] stays
    # there (the weighted sum rounded to 1.0000000000000002).
    for seed in range(12):
        for simulations in (0, 1, 2):
            result = playout.search(state, gumbel=Gumbel(), simulations=simulations, seed=seed)
            assert -1.0 <= result.value <= 1.0


def test_a_time_limit_alone_is_refused() -> None:
    with pytest.raises(playout.InvalidParameterError, match="simulation count"):
        playout.search(tictactoe().initial_state(), gumbel=Gumbel(), seconds=0.1)
    # With a simulation count, a time limit may cut the round short.
    result = playout.search(
        tictactoe().initial_state(), gumbel=Gumbel(), simulations=20, seconds=30.0, seed=0
    )
    assert result.total_simulations == 20


# --------------------------------------------------------------------------------------------
# With a network: the shipped tic-tac-toe network, the zero player, self-play, training.
# --------------------------------------------------------------------------------------------


def _zero() -> object:
    pytest.importorskip("torch")
    import playout.zero

    return playout.zero


@pytest.mark.parametrize("solver", [True, False])
def test_the_shipped_network_finds_the_forced_win(solver: bool) -> None:
    zero = _zero()
    game = tictactoe()
    evaluator = zero.NetworkEvaluator(zero.ZeroPlayer(game).model)  # type: ignore[attr-defined]
    state = game.from_grid([list(row) for row in FORK], to_move=1)
    for seed in range(3):
        result = playout.search(
            state, evaluator=evaluator, gumbel=Gumbel(), simulations=16, seed=seed,
            solver=solver,
        )  # fmt: skip
        assert result.best_action == 0
        assert max(result.improved_policy) == result.improved_policy[result.actions.index(0)]
    # The win in one (README's position) with leaf batches of 8.
    state = game.from_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], to_move=1)
    result = playout.search(
        state, evaluator=evaluator, gumbel=Gumbel(), simulations=16, seed=0, leaf_batch=8
    )
    assert result.best_action == game.action_of(2, 0)


def test_the_zero_player_spec_takes_gumbel_and_survives_pickling() -> None:
    zero = _zero()
    game = tictactoe()
    player = playout.parse_player("zero:simulations=16,gumbel=4", game)
    assert player.search.gumbel == Gumbel(considered=4)  # type: ignore[attr-defined]
    copy = pickle.loads(pickle.dumps(player))  # as sent to worker processes
    assert copy.search == player.search  # type: ignore[attr-defined]
    state = game.from_grid([list(row) for row in FORK], to_move=1)
    copy.reset(state, 0)
    assert copy.choose(state) == 0
    assert len(copy.last_result.improved_policy) == len(state.legal_actions())
    assert isinstance(zero.ZeroSearch(gumbel=Gumbel()).config(None, 0).gumbel, Gumbel)  # type: ignore[attr-defined]
    with pytest.raises(playout.InvalidParameterError, match="considered"):
        playout.parse_player("zero:gumbel=0", game)
    with pytest.raises(playout.InvalidParameterError, match="whole number"):
        playout.parse_player("zero:gumbel=many", game)
    with pytest.raises(playout.InvalidParameterError, match="simulation count"):
        playout.parse_player("zero:seconds=1,gumbel=4", game)
    with pytest.raises(playout.InvalidParameterError, match="root_noise"):
        zero.ZeroSearch(gumbel=Gumbel(), noise=playout.DirichletNoise())  # type: ignore[attr-defined]


def test_gumbel_self_play_learns_the_improved_policy() -> None:
    """A Gumbel search's move is played as it is (not drawn by visits, even in the
    temperature plies) and its improved policy is the example's policy target; whole
    games of self-play record legal moves and distributions over the legal moves."""
    zero = _zero()
    from playout.zero.selfplay import _play_move, _Slot

    game = tictactoe()
    model = zero.Model(game, zero.Architecture(channels=8, blocks=1, value_hidden=8), seed=0)  # type: ignore[attr-defined]
    search = zero.ZeroSearch(simulations=8, gumbel=Gumbel(considered=4))  # type: ignore[attr-defined]
    evaluator = zero.NetworkEvaluator(model)  # type: ignore[attr-defined]
    engine = playout.MCTS(game.initial_state(), search.config(evaluator, 0))
    result = engine.run()
    slot = _Slot(engine, engine.driver, 0)  # type: ignore[arg-type]
    _play_move(slot, 9, temperature_moves=8, rng=random.Random(0))
    _, policy, _ = slot.history[0]
    want = np.zeros(9)
    want[list(result.actions)] = result.improved_policy
    np.testing.assert_allclose(policy, want, atol=1e-7)
    assert slot.moves == [result.best_action]
    # Whole games, in lockstep.
    settings = zero.SelfPlaySettings(search=search, parallel_games=3, augment=False)  # type: ignore[attr-defined]
    games = zero.self_play(evaluator, game, 3, settings, seed=0)  # type: ignore[attr-defined]
    assert len(games) == 3
    for record in games:
        state = game.initial_state()
        for move, example in zip(record.moves, record.examples, strict=True):
            legal = list(state.legal_actions())
            assert move in legal
            assert example.policy.sum() == pytest.approx(1.0, abs=1e-5)
            assert np.all(np.delete(example.policy, legal) == 0)
            state = state.play(move)
        assert state.is_terminal()


def test_training_takes_gumbel_from_the_config_and_the_command_line() -> None:
    zero = _zero()
    config = zero.TrainConfig(gumbel=8)  # type: ignore[attr-defined]
    search = config.self_play().search
    assert search.gumbel == Gumbel(considered=8) and search.noise is None
    assert zero.TrainConfig().self_play().search.gumbel is None  # type: ignore[attr-defined]
    with pytest.raises(playout.InvalidParameterError, match="gumbel"):
        zero.TrainConfig(gumbel=-1)  # type: ignore[attr-defined]
    from playout.cli.parser import build_parser
    from playout.cli.train import train_config

    args = build_parser().parse_args(
        ["train", "tictactoe", "--out", "x", "--iterations", "1", "--gumbel", "4"]
    )
    assert train_config(args).gumbel == 4


def test_a_gumbel_training_iteration_runs(tmp_path: object) -> None:
    zero = _zero()
    game = tictactoe()
    config = zero.TrainConfig(  # type: ignore[attr-defined]
        games_per_iteration=4, parallel_games=4, simulations=8, gumbel=4, steps_per_iteration=2,
        batch_size=16, architecture=zero.Architecture(channels=8, blocks=1, value_hidden=8),  # type: ignore[attr-defined]
        eval_games=0,
    )  # fmt: skip
    with zero.Trainer(game, tmp_path, config, device="cpu") as trainer:  # type: ignore[attr-defined]
        (report,) = trainer.run(iterations=1, log=None)
        buffer = trainer.buffer
    assert report.iteration == 1 and report.games == 4 and report.positions > 0
    assert np.isfinite(report.policy_loss) and np.isfinite(report.value_loss)
    # The stored policy targets are distributions over the moves.
    targets = buffer.policies[: buffer.size]
    assert buffer.size > 0 and np.allclose(targets.sum(axis=1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------------------------
# A reused tree, pending walks, the root value, merging.
# --------------------------------------------------------------------------------------------

SPREAD = tuple(float(v) for v in np.linspace(-0.9, 0.9, 12))
SPREAD_PRIOR = tuple(float(p) for p in np.random.default_rng(5).dirichlet([1.0] * 12))


def _arms_engine(seed: int, considered: int = 4) -> playout.MCTS:
    game = Arms(SPREAD, SPREAD_PRIOR)
    return playout.MCTS(
        game.initial_state(), evaluator=_Batched(ArmEvaluator(game)), leaf_batch=1,
        gumbel=Gumbel(considered=considered), seed=seed, solver=False,
    )  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_a_round_on_a_reused_tree_samples_by_g_plus_logits_alone(seed: int) -> None:
    """Gumbel-top-k (paper, section 2): the m actions a round samples are the m largest
    ``g + logits``, whatever Q-values a reused tree holds (mctx starts every search on a
    fresh tree). A first round of 60 visits every arm; the second round's first 4
    simulations (its first phase, m = 4) go to the top 4 of its ``g + logits``."""
    engine = _arms_engine(seed)
    first = engine.run(playout.Budget(simulations=60))
    second = engine.run(playout.Budget(simulations=4))
    gained = np.array(second.visit_counts) - np.array(first.visit_counts)
    logits = engine.driver.round.gumbel_logits  # type: ignore[attr-defined]
    assert set(np.flatnonzero(gained)) == set(np.argsort(-logits)[:4])
    assert gained.sum() == 4 and gained.max() == 1


def test_the_halving_reads_finished_simulations_not_pending_ones() -> None:
    """With a batch's walk still pending on a root edge (virtual loss on it), the root's
    choice and its transformed Q-values are those of the tree without that walk, where the
    edge already has the visit the schedule counts: a candidate's last visit, not yet
    evaluated, does not make it look lost when the survivors of a phase are ranked."""
    engine = _arms_engine(seed=2)
    engine.run(playout.Budget(simulations=4))  # m = 4: the first phase, one visit each
    current = engine.driver.round  # type: ignore[attr-defined]
    schedule = gumbel.considered_visits(4, 12)  # 0 0 0 0 1 1 2 2 3 3 4 4: the next wants 1
    nodes, node_values, edges, edge_values, _ = engine.tree
    first = int(nodes[T.ROOT, T.N_FIRST_EDGE])
    count = int(nodes[T.ROOT, T.N_NUM_EDGES])
    params = np.array([50.0, 1.0])
    loss = -1.0

    def choose(base: np.ndarray, pending: np.ndarray) -> tuple[int, np.ndarray]:
        scratch = np.zeros((gumbel.SCRATCH_ROWS, count))
        visits = np.zeros(count, dtype=np.int64)
        edge = gumbel.select_root_edge(
            nodes, node_values, edges, edge_values, current.gumbel_logits, base, schedule,
            params, pending, loss, scratch, visits,
        )  # fmt: skip
        return int(edge), scratch[gumbel.SIGMA_ROW].copy()

    none = np.zeros(count, dtype=np.int64)
    best, _ = choose(current.base_visits, none)  # the first survivor of the phase
    path = np.array([best], dtype=np.int64)
    saved = np.zeros(1)
    # Pending: the walk holds its virtual loss on the edge.
    backup.add_virtual_loss(nodes, edges, edge_values, path, 1, loss, saved)
    pending = none.copy()
    pending[best - first] = 1
    with_pending, sigmas_pending = choose(current.base_visits, pending)
    backup.remove_virtual_loss(nodes, edges, edge_values, path, 1, saved)
    # The same simulation without the walk: its edge's visit counted by the round alone.
    base = current.base_visits.copy()
    base[best - first] -= 1
    finished, sigmas_finished = choose(base, none)
    assert with_pending == finished != best
    np.testing.assert_allclose(sigmas_pending, sigmas_finished, rtol=0, atol=1e-12)


@pytest.mark.parametrize("simulations", [5, 16, 40])
def test_a_gumbel_searchs_value_is_the_improved_policys_mean_completed_q(
    simulations: int,
) -> None:
    """The root value of a Gumbel search is ``sum pi'(a) completed q(a)``, the value of the
    policy it improved, not the visits' mean, which sequential halving drags down by
    visiting the weak sampled arms too."""
    game = arms()
    for seed in range(5):
        result = bandit_search(game, simulations, seed, gumbel=Gumbel(considered=8))
        completed = completed_by_hand(result, game.root_value)
        want = float(np.dot(result.improved_policy, completed))
        assert result.value == pytest.approx(want, abs=1e-12)
        visits = np.array(result.visit_counts)
        visits_mean = float(visits @ np.array(result.values)) / visits.sum()
        assert result.value > visits_mean


def test_a_gumbel_search_is_not_merged_from_parallel_searches() -> None:
    with pytest.raises(playout.InvalidParameterError, match="Gumbel"):
        playout.parallel_search(
            tictactoe().initial_state(), gumbel=Gumbel(considered=4), simulations=16, threads=2
        )
