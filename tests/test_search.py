"""The search engine: seed examples with known answers, invariants, plug points, bad input."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import playout
from playout import MCTS, PUCT, UCB1, Budget, EpsilonGreedy, Rollout, ValueFunction
from playout._src.evaluation import MAX_ROLLOUTS
from playout._src.tree import layout as T
from playout.games import Connect4Game, MnkGame, tictactoe
from playout.games.bandit import BanditTreeGame, get_future_value

from .solver import solve

TTT = tictactoe()


def ttt(*moves: tuple[int, int]) -> playout.GameState:
    state = TTT.initial_state()
    for x, y in moves:
        state = state.play(y * 3 + x)
    return state


# ------------------------------------------------------------------------- seed examples


def test_seed000_example_position_chooses_a_winning_move() -> None:
    # Seed 000: [[0,-1,0],[0,1,0],[0,0,0]] seen by the player to move (1), 800 simulations.
    state = TTT.from_grid([[0, -1, 0], [0, 1, 0], [0, 0, 0]], to_move=1)
    result = playout.search(state, simulations=800, seed=0, solver=False)
    assert solve(state.play(result.best_action)) == -1  # the opponent is lost after it
    assert result.total_simulations == 800
    assert result.proven is None
    # With the solver (the default) the win is proven and the search stops early.
    solved = playout.search(state, simulations=800, seed=0)
    assert solved.proven == "win"
    assert solved.total_simulations < 800
    assert solve(state.play(solved.best_action)) == -1


def test_seed001_edge_squares_approach_a_quarter_of_the_visits() -> None:
    # Seed 001: in [[-1,0,0],[0,1,0],[0,0,-1]] with 1 to move, the four edge squares are the
    # only moves that hold the draw; their visit shares approach 0.25 each.
    state = TTT.from_grid([[-1, 0, 0], [0, 1, 0], [0, 0, -1]], to_move=1)
    result = playout.search(state, simulations=20_000, seed=1, solver=False)
    shares = result.policy()
    edges = [TTT.action_of(1, 0), TTT.action_of(0, 1), TTT.action_of(2, 1), TTT.action_of(1, 2)]
    corners = [TTT.action_of(2, 0), TTT.action_of(0, 2)]
    for action in edges:
        assert 0.15 < shares[action] < 0.35, shares
    assert sum(shares[a] for a in corners) < 0.1, shares
    assert result.best_action in edges


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        # The three boards of seed 001's flat Monte Carlo exercise; grids are from the point of
        # view of the "1s" player (X, who moved first), rows top to bottom.
        (
            [(0, 0), (1, 1), (0, 1), (0, 2)],
            [[None, -0.17, 0.17], [None, None, -0.83], [None, -0.33, -0.50]],
        ),
        ([(0, 0)], [[None, 0.45, 0.29], [0.45, 0.12, 0.45], [0.29, 0.45, 0.29]]),
        (
            [(0, 0), (1, 1), (2, 2)],
            [[None, -0.10, -0.17], [-0.10, None, -0.10], [-0.17, -0.10, None]],
        ),
    ],
)
def test_seed001_flat_monte_carlo_value_grids(
    moves: list[tuple[int, int]], expected: list[list[float | None]]
) -> None:
    state = ttt(*moves)
    result = playout.flat_monte_carlo(state, playouts=4000, seed=2)
    values = result.action_values()
    sign = 1.0 if state.current_player() == 0 else -1.0  # to X's point of view
    for y, row in enumerate(expected):
        for x, want in enumerate(row):
            action = TTT.action_of(x, y)
            if want is None:
                assert action not in values
            else:
                assert sign * values[action] == pytest.approx(want, abs=0.06), (x, y)


@pytest.mark.parametrize(
    "options",
    [{"playouts": 0}, {"playouts": 10**12}, {"playouts": 1.5}, {"seed": -1}, {"seed": "abc"}],
)
def test_flat_monte_carlo_checks_its_arguments(options: dict[str, object]) -> None:
    # It has no time limit: its playouts are bounded, and its seed is search's.
    with pytest.raises(playout.InvalidParameterError):
        playout.flat_monte_carlo(ttt(), **options)  # type: ignore[arg-type]


def test_seed002_bandit_tree_finds_the_optimal_path() -> None:
    game = BanditTreeGame()
    for evaluator in (None, ValueFunction(get_future_value)):
        result = playout.search(game.initial_state(), simulations=200, seed=3, evaluator=evaluator)
        assert result.pv == (1, 1)  # 0 -> 2 -> 6
        assert result.best_action == 1
        assert result.values[result.actions.index(1)] > result.values[result.actions.index(0)]


@pytest.mark.parametrize("rule", [UCB1(), PUCT(), EpsilonGreedy(epsilon=0.2)])
def test_every_built_in_rule_solves_the_bandit(rule: playout.EdgeStatistics) -> None:
    result = playout.search(
        BanditTreeGame().initial_state(), simulations=300, seed=4, selection=rule
    )
    assert result.pv == (1, 1)


def test_user_selection_rule_is_called_and_obeyed() -> None:
    calls = []

    def least_visited(stats: playout.EdgeStatistics) -> int:
        calls.append(stats.parent_visits)
        return int(np.argmin(stats.visit_count))

    result = playout.search(TTT.initial_state(), simulations=450, seed=5, selection=least_visited)
    assert calls
    assert max(result.visit_counts) - min(result.visit_counts) <= 1  # round robin at the root


# ------------------------------------------------------------------------- playing strength


def test_takes_a_win_in_one_and_blocks_a_loss_in_one() -> None:
    # X: (0,0) (1,0); O: (0,1) (1,1); X to move wins at (2,0).
    state = ttt((0, 0), (0, 1), (1, 0), (1, 1))
    assert playout.search(state, simulations=500, seed=6).best_action == TTT.action_of(2, 0)
    # O to move must block at (2,0) after X (0,0) (1,0) and O (1,1).
    state = ttt((0, 0), (1, 1), (1, 0))
    assert playout.search(state, simulations=1500, seed=7).best_action == TTT.action_of(2, 0)


def test_connect_four_takes_the_winning_column() -> None:
    game = Connect4Game()
    state = game.initial_state()
    for column in [3, 3, 4, 4, 5, 5]:  # X threatens four in the bottom row
        state = state.play(column)
    result = playout.search(state, simulations=2000, seed=8)
    assert result.best_action in (2, 6)
    assert solve_connect4_win_in_one(state, result.best_action)


def solve_connect4_win_in_one(state: playout.GameState, action: int) -> bool:
    after = state.play(action)
    return after.is_terminal() and after.returns()[state.current_player()] == 1.0


def _ai_moves(state: playout.GameState, cache: dict[playout.GameState, int]) -> int:
    if state not in cache:
        seed = hash(state) % (2**31)
        cache[state] = playout.search(state, simulations=3000, seed=seed).best_action
    return cache[state]


@pytest.mark.parametrize("ai_player", [0, 1])
def test_tictactoe_ai_never_loses_against_any_reply_sequence(ai_player: int) -> None:
    """Exhaustive over every opponent reply (explicit stack, no recursion)."""
    cache: dict[playout.GameState, int] = {}
    stack = [TTT.initial_state()]
    finished = 0
    while stack:
        state = stack.pop()
        if state.is_terminal():
            assert state.returns()[ai_player] >= 0.0, TTT.render(state)
            finished += 1
        elif state.current_player() == ai_player:
            stack.append(state.play(_ai_moves(state, cache)))
        else:
            stack.extend(state.play(a) for a in state.legal_actions())
    assert finished > 50


# ------------------------------------------------------------------------- invariants


def _check_tree_invariants(engine: MCTS, simulations: int, reused: bool = False) -> None:
    tree = engine.tree
    nodes, edges, edge_values = tree.nodes, tree.edges, tree.edge_values
    # A fresh root is expanded without an evaluation; a reused root was once a leaf.
    assert nodes[T.ROOT, T.N_VISITS] == simulations + int(reused)
    for node in range(tree.num_nodes):
        count = nodes[node, T.N_NUM_EDGES]
        first = nodes[node, T.N_FIRST_EDGE]
        if node != T.ROOT:
            parent_edge = nodes[node, T.N_PARENT_EDGE]
            assert edges[parent_edge, T.E_CHILD] == node
            assert edges[parent_edge, T.E_VISITS] == nodes[node, T.N_VISITS]
        if count > 0:
            child_visits = int(edges[first : first + count, T.E_VISITS].sum())
            # the simulation that created and evaluated it
            own = int(reused) if node == T.ROOT else 1
            assert child_visits + own == nodes[node, T.N_VISITS]
            for e in range(first, first + count):
                n = edges[e, T.E_VISITS]
                if n:
                    assert abs(edge_values[e, T.EV_VALUE_SUM] / n) <= 1.0 + 1e-9


def _random_position(game: playout.Game, num_moves: int, seed: int) -> playout.GameState:
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(num_moves):
        if state.is_terminal():
            break
        nxt = state.play(rng.choice(state.legal_actions()))
        if nxt.is_terminal():
            break
        state = nxt
    return state


GAMES = [tictactoe(), MnkGame(5, 5, 4), Connect4Game(), Connect4Game(5, 4, 3)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_index=st.integers(0, len(GAMES) - 1),
    num_moves=st.integers(0, 12),
    simulations=st.integers(1, 300),
    seed=st.integers(0, 2**32),
)
def test_search_invariants(game_index: int, num_moves: int, simulations: int, seed: int) -> None:
    state = _random_position(GAMES[game_index], num_moves, seed)
    snapshot = (hash(state), state.legal_actions(), state.returns())
    engine = MCTS(state, seed=seed, budget=Budget(simulations=simulations), solver=False)
    result = engine.run()
    assert (hash(state), state.legal_actions(), state.returns()) == snapshot
    assert engine.root_state == state
    assert result.total_simulations == simulations == result.simulations
    assert sum(result.visit_counts) == simulations
    assert sorted(result.actions) == sorted(state.legal_actions())
    assert result.best_action in state.legal_actions()
    assert -1.0 <= result.value <= 1.0
    assert all(-1.0 <= v <= 1.0 for v in result.values)
    assert result.nodes <= simulations + 1
    assert result.pv == () or result.pv[0] in state.legal_actions()
    _check_tree_invariants(engine, simulations)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), num_moves=st.integers(0, 6))
def test_same_seed_same_result(seed: int, num_moves: int) -> None:
    state = _random_position(MnkGame(4, 4, 3), num_moves, seed)
    first = playout.search(state, simulations=200, seed=seed)
    second = playout.search(state, simulations=200, seed=seed)
    assert dataclasses.replace(first, seconds=0.0) == dataclasses.replace(second, seconds=0.0)


def test_stored_and_recomputed_states_give_the_same_search() -> None:
    state = Connect4Game().initial_state().play(3)
    results = [
        MCTS(state, seed=9, store_states=store).run(Budget(simulations=500))
        for store in (True, False)
    ]
    assert results[0].visit_counts == results[1].visit_counts
    assert results[0].values == pytest.approx(results[1].values)


def test_tree_reuse_keeps_the_subtree() -> None:
    engine = MCTS(TTT.initial_state(), seed=10)
    result = engine.run(Budget(simulations=2000))
    action = result.best_action
    kept = result.visit_counts[result.actions.index(action)]
    engine.advance(action)
    after = engine.result()
    assert after.total_simulations == kept - 1  # the child's own evaluation is not an edge
    assert engine.root_state == TTT.initial_state().play(action)
    # The opponent's reply, any legal one, also keeps its subtree.
    reply = engine.root_state.legal_actions()[0]
    engine.advance(reply)
    assert engine.root_state == TTT.initial_state().play(action).play(reply)
    _check_tree_invariants(engine, engine.result().total_simulations, reused=True)
    engine.run(Budget(simulations=100))


def test_decide_plays_a_game_to_the_end() -> None:
    engine = MCTS(TTT.initial_state(), seed=11, budget=Budget(simulations=400))
    moves = 0
    while not engine.root_state.is_terminal():
        engine.decide(advance=True)
        moves += 1
    assert 5 <= moves <= 9


def test_several_rollouts_per_leaf_and_depth_cut_off() -> None:
    state = ttt((0, 0), (0, 1), (1, 0), (1, 1))
    for evaluator in (
        Rollout(num_rollouts=5),
        Rollout(max_depth=1, heuristic=lambda s: 0.0),
        Rollout(max_depth=0),
    ):
        result = playout.search(state, simulations=400, seed=12, evaluator=evaluator)
        assert result.best_action == TTT.action_of(2, 0)


def test_final_move_rules() -> None:
    state = ttt((0, 0), (0, 1), (1, 0), (1, 1))
    for final in ("most_visits", "best_value", "sample"):
        result = playout.search(state, simulations=800, seed=13, final=final, temperature=0.1)
        assert result.best_action == TTT.action_of(2, 0)


# ------------------------------------------------------------------------- budgets


def test_node_cap_and_depth_limit_are_honoured() -> None:
    result = playout.search(MnkGame(5, 5, 4).initial_state(), simulations=5000, max_nodes=300)
    assert result.nodes <= 300
    result = playout.search(MnkGame(5, 5, 4).initial_state(), simulations=500, max_depth=2)
    assert result.max_depth <= 2


def test_time_limit_is_honoured() -> None:
    result = playout.search(MnkGame(7, 7, 5).initial_state(), seconds=0.2)
    assert result.simulations > 0
    assert result.seconds < 0.2 + 1.0  # generous slack for a loaded machine


def test_progress_callback_counts_simulations() -> None:
    seen: list[int] = []
    playout.search(TTT.initial_state(), simulations=250, progress=seen.append)
    assert seen == [100, 200, 250]


# ------------------------------------------------------------------------- chance events


@dataclasses.dataclass(frozen=True)
class _GambleState:
    """One player: stop for 0.5, or gamble: chance pays 1 with probability p, else 0."""

    game: _GambleGame
    stage: str = "choose"  # choose -> (stopped | chance -> (won | lost))

    def current_player(self) -> int:
        if self.stage == "chance":
            return playout.CHANCE
        return playout.TERMINAL if self.is_terminal() else 0

    def legal_actions(self) -> Sequence[int]:
        return {"choose": (0, 1), "chance": (0, 1)}.get(self.stage, ())

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ((0, 1.0 - self.game.p), (1, self.game.p))

    def play(self, action: int) -> _GambleState:
        if self.stage == "choose":
            return _GambleState(self.game, "stopped" if action == 0 else "chance")
        return _GambleState(self.game, "won" if action == 1 else "lost")

    def is_terminal(self) -> bool:
        return self.stage in ("stopped", "won", "lost")

    def returns(self) -> tuple[float]:
        return ({"stopped": 0.5, "won": 1.0}.get(self.stage, 0.0),)


@dataclasses.dataclass(frozen=True)
class _GambleGame:
    p: float
    spec = playout.GameSpec(
        "gamble",
        num_players=1,
        num_actions=2,
        max_length=2,
        is_deterministic=False,
        explicit_chance=True,
        min_return=0.0,
    )

    def initial_state(self) -> _GambleState:
        return _GambleState(self)


@pytest.mark.parametrize(("p", "best"), [(0.8, 1), (0.3, 0)])
def test_chance_nodes_are_sampled_by_probability(p: float, best: int) -> None:
    result = playout.search(_GambleGame(p).initial_state(), simulations=3000, seed=14)
    assert result.best_action == best
    assert result.action_values()[1] == pytest.approx(p, abs=0.05)
    assert result.action_values()[0] == pytest.approx(0.5)


# ------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs",
    [
        {"simulations": -1},
        {"seconds": -0.5},
        {"seconds": math.nan},
        {"seconds": 10**400},  # past any float
        {"temperature": 10**400},
        {"max_nodes": -3},
        {"max_depth": 0},
        {"simulations": 1.5},
        {"seed": -2},
        {"temperature": 0.0},
        {"final": "best"},
    ],
)
def test_bad_parameters_raise_typed_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(playout.InvalidParameterError):
        playout.search(TTT.initial_state(), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("num_rollouts", [0, MAX_ROLLOUTS + 1, 10**8, 1.5, True, "2"])
def test_rollouts_per_leaf_are_bounded(num_rollouts: object) -> None:
    # A search checks its time limit between simulations: a leaf may not play 10**8 games.
    with pytest.raises(playout.InvalidParameterError, match="num_rollouts"):
        Rollout(num_rollouts=num_rollouts)  # type: ignore[arg-type]
    assert Rollout(num_rollouts=MAX_ROLLOUTS).num_rollouts == MAX_ROLLOUTS
    with pytest.raises(playout.InvalidParameterError, match="max_depth"):
        Rollout(max_depth=math.nan)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_stop_early_under_a_time_limit_too_long_to_count(backend: str) -> None:
    # The simulations left are the measured rate times the time left: with 1e305 s that is
    # infinity, which the count must not try to be.
    result = playout.search(
        TTT.initial_state(), seconds=1e305, simulations=3000, stop_early=True, backend=backend
    )
    assert result.stop_reason in ("decided", "simulations")
    assert 0 < result.simulations <= 3000


def test_finished_game_and_foreign_objects_are_rejected() -> None:
    won = ttt((0, 0), (0, 1), (1, 0), (1, 1), (2, 0))
    with pytest.raises(playout.GameOverError):
        playout.search(won, simulations=10)
    with pytest.raises(playout.GameError):
        playout.search("not a state", simulations=10)  # type: ignore[arg-type]
    with pytest.raises(playout.InvalidParameterError):
        UCB1(c=-1.0)
    engine = MCTS(TTT.initial_state(), seed=0)
    with pytest.raises(playout.IllegalMoveError):
        engine.advance(42)
    with pytest.raises(playout.InvalidParameterError):
        playout.search(TTT.initial_state(), selection=lambda stats: 99, simulations=20)
