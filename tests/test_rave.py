"""RAVE / AMAF statistics and progressive bias: exact AMAF counts on a hand-checked simulation,
invariants (also across tree reuse), tactics, reproducibility, parameters, the command line."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

import playout
from playout import MCTS, RAVE, UCB1, Budget, ProgressiveBias, Rollout
from playout._src import rave
from playout._src.arena import MctsPlayer, parse_player
from playout._src.search import make_engine
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout.cli import main
from playout.games import BanditTreeGame, Connect4Game, MnkGame, play_moves, tictactoe
from playout.games.mnk import threat_scores

from .test_search import _GambleGame

TTT = tictactoe()
MNK7 = MnkGame(7, 7, 4)


def lowest_action(state: playout.GameState, rng: random.Random) -> int:
    """A deterministic rollout policy: the smallest legal action id."""
    return min(state.legal_actions())


def edge_rows(engine: MCTS, node: int) -> range:
    nodes = engine.tree.nodes
    first = int(nodes[node, T.N_FIRST_EDGE])
    return range(first, first + max(0, int(nodes[node, T.N_NUM_EDGES])))


def amaf_of(engine: MCTS, node: int) -> dict[int, tuple[int, float]]:
    """``{action: (AMAF samples, AMAF value sum)}`` over the edges of ``node``."""
    amaf = engine.amaf
    assert amaf is not None
    edges = engine.tree.edges
    return {
        int(edges[e, T.E_ACTION]): (int(amaf.visit_count[e]), float(amaf.value_sum[e]))
        for e in edge_rows(engine, node)
    }


def amaf_by_line(engine: MCTS) -> dict[tuple[int, ...], tuple[int, float]]:
    """AMAF statistics of every edge, keyed by the actions from the root to it."""
    amaf = engine.amaf
    assert amaf is not None
    edges = engine.tree.edges
    out: dict[tuple[int, ...], tuple[int, float]] = {}
    stack: list[tuple[int, tuple[int, ...]]] = [(T.ROOT, ())]
    while stack:
        node, line = stack.pop()
        for e in edge_rows(engine, node):
            key = (*line, int(edges[e, T.E_ACTION]))
            out[key] = (int(amaf.visit_count[e]), float(amaf.value_sum[e]))
            child = int(edges[e, T.E_CHILD])
            if child != T.UNVISITED:
                stack.append((child, key))
    return out


def check_amaf_invariants(engine: MCTS, samples_per_simulation: int = 1) -> None:
    """Rows aligned with the edges, and each simulation (each of its rollouts) credits an edge
    at most once per node it passes, always when it takes the edge."""
    tree, amaf = engine.tree, engine.amaf
    assert amaf is not None
    assert amaf.visit_count.shape[0] >= tree.edge_capacity
    used = tree.num_edges
    assert (amaf.visit_count >= 0).all()
    assert not amaf.visit_count[used:].any() and not amaf.value_sum[used:].any()
    assert (np.abs(amaf.value_sum[:used]) <= amaf.visit_count[:used] + 1e-9).all()
    for node in range(tree.num_nodes):
        rows = edge_rows(engine, node)
        if not rows or tree.nodes[node, T.N_PLAYER] == playout.CHANCE:
            continue
        samples = amaf.visit_count[rows.start : rows.stop]
        assert (samples >= tree.edges[rows.start : rows.stop, T.E_VISITS]).all()
        assert (samples <= samples_per_simulation * tree.nodes[node, T.N_VISITS]).all()


# ------------------------------------------------------------------------ AMAF statistics

# X (1, player 0) to move; empty squares 0, 2 and 6:
#   . X .
#   X X O
#   . O O
# With rollouts that always take the smallest empty square, one simulation is one of:
#   X 0, O 2 (O completes the right column): O wins;
#   X 2, O 0, X 6 (X completes the anti-diagonal): X wins;
#   X 6, O 0, X 2 (the same diagonal): X wins.
# AMAF at the root (X to move) credits X's moves with X's return; at the leaf (O to move)
# it credits O's later moves with O's return. {first move: (root, leaf)}:
KNOWN_SIMULATIONS = {
    0: ({0: (1, -1.0), 2: (0, 0.0), 6: (0, 0.0)}, {2: (1, 1.0), 6: (0, 0.0)}),
    2: ({0: (0, 0.0), 2: (1, 1.0), 6: (1, 1.0)}, {0: (1, -1.0), 6: (0, 0.0)}),
    6: ({0: (0, 0.0), 2: (1, 1.0), 6: (1, 1.0)}, {0: (1, -1.0), 2: (0, 0.0)}),
}
KNOWN_POSITION = TTT.from_grid([[0, 1, 0], [1, 1, -1], [0, -1, -1]], to_move=1)


def test_amaf_counts_after_one_known_simulation() -> None:
    seen = set()
    for seed in range(40):
        engine = MCTS(
            KNOWN_POSITION,
            selection=RAVE(),
            evaluator=Rollout(policy=lowest_action),
            seed=seed,
            solver=False,
        )
        engine.run(Budget(simulations=1))
        edges = engine.tree.edges
        taken = [e for e in edge_rows(engine, T.ROOT) if edges[e, T.E_VISITS] == 1]
        assert len(taken) == 1
        first = int(edges[taken[0], T.E_ACTION])
        root, leaf = KNOWN_SIMULATIONS[first]
        assert amaf_of(engine, T.ROOT) == root
        assert amaf_of(engine, int(edges[taken[0], T.E_CHILD])) == leaf
        seen.add(first)
        if len(seen) == 3:
            break
    assert seen == {0, 2, 6}


def test_the_inlined_rollout_records_the_same_moves_as_the_rollout_evaluator() -> None:
    # Both draw rng.choice(legal_actions()) per move from the same generator.
    state = MNK7.initial_state().play(24).play(25)
    engines = [
        MCTS(state, selection=RAVE(), evaluator=evaluator, seed=9, backend="python")
        for evaluator in (None, Rollout(policy=playout.random_policy))
    ]
    results = [engine.run(Budget(simulations=300)) for engine in engines]
    assert results[0].visit_counts == results[1].visit_counts
    used = engines[0].tree.num_edges
    for column in ("visit_count", "value_sum"):
        a, b = (getattr(engine.amaf, column)[:used] for engine in engines)
        np.testing.assert_array_equal(a, b)
    assert engines[0].amaf is not None and engines[0].amaf.visit_count.sum() > 300


@pytest.mark.parametrize(
    ("state", "evaluator"),
    [
        (TTT.initial_state(), None),
        (MNK7.initial_state(), None),
        (MNK7.initial_state(), Rollout(num_rollouts=2)),  # one AMAF sample per rollout
        (Connect4Game().initial_state(), None),  # columns repeat: still one credit per node
        (TTT.initial_state(), playout.ValueFunction(lambda s: 0.0)),  # tree moves only
    ],
)
@pytest.mark.parametrize("backend", ["python", "auto"])  # auto: compiled where it can
def test_amaf_invariants_hold(state: playout.GameState, evaluator: object, backend: str) -> None:
    engine = MCTS(state, selection=RAVE(), evaluator=evaluator, seed=3, backend=backend)  # type: ignore[arg-type]
    engine.run(Budget(simulations=600))
    check_amaf_invariants(engine, getattr(evaluator, "num_rollouts", 1))


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_tree_reuse_carries_the_amaf_rows_along(backend: str) -> None:
    engine = MCTS(MnkGame(5, 5, 4).initial_state(), selection=RAVE(), seed=5, backend=backend)  # type: ignore[arg-type]
    for _ in range(3):
        engine.run(Budget(simulations=700))
        before = amaf_by_line(engine)
        action = engine.result().best_action
        engine.advance(action)
        expected = {line[1:]: v for line, v in before.items() if line[0] == action and line[1:]}
        assert amaf_by_line(engine) == expected
        assert expected  # something was carried
        check_amaf_invariants(engine)
    # An action whose subtree was never built: a fresh tree, fresh statistics.
    state = engine.root_state
    unvisited = [
        int(engine.tree.edges[e, T.E_ACTION])
        for e in edge_rows(engine, T.ROOT)
        if engine.tree.edges[e, T.E_CHILD] == T.UNVISITED
    ]
    if unvisited:
        engine.advance(unvisited[0])
        assert engine.root_state == state.play(unvisited[0])
        assert engine.amaf is not None and not engine.amaf.visit_count.any()
    engine.run(Budget(simulations=300))
    check_amaf_invariants(engine)


def test_rave_runs_on_one_player_and_chance_games() -> None:
    result = playout.search(
        BanditTreeGame().initial_state(), simulations=300, seed=4, selection=RAVE()
    )
    assert result.pv == (1, 1)  # seed 002's optimal path 0 -> 2 -> 6
    engine = MCTS(_GambleGame(0.8).initial_state(), selection=RAVE(), seed=14)
    assert engine.run(Budget(simulations=2000)).best_action == 1
    check_amaf_invariants(engine)


def _select_at_root(
    rule: RAVE | ProgressiveBias,
    visits: tuple[int, int],
    means: tuple[float, float],
    amaf: tuple[tuple[int, float], tuple[int, float]] = ((0, 0.0), (0, 0.0)),
    scores: tuple[float, float] = (0.0, 0.0),
) -> int:
    """The action the compiled selection picks at a root with two edges set by hand."""
    engine = MCTS(KNOWN_POSITION.play(0), selection=rule, seed=0)  # O to move: 2 or 6
    tree = engine.tree
    rows = edge_rows(engine, T.ROOT)
    amaf_visits = np.zeros(tree.edge_capacity, dtype=np.int64)
    amaf_sums = np.zeros(tree.edge_capacity)
    for i, e in enumerate(rows):
        tree.edges[e, T.E_VISITS] = visits[i]
        tree.edge_values[e, T.EV_VALUE_SUM] = means[i] * visits[i]
        tree.edge_values[e, T.EV_PRIOR] = scores[i]
        amaf_visits[e], amaf_sums[e] = amaf[i][0], amaf[i][0] * amaf[i][1]
    tree.nodes[T.ROOT, T.N_VISITS] = sum(visits)
    path = np.zeros(4, dtype=np.int64)
    rng = new_rng_state(0)
    _, edge, _ = rave.descend(
        tree.nodes,
        tree.edges,
        tree.edge_values,
        amaf_visits,
        amaf_sums,
        rule.parameters(),
        rng,
        10,
        path,
    )
    return int(tree.edges[edge, T.E_ACTION])


def test_rave_mixes_values_with_the_gelly_silver_schedule() -> None:
    # Edge 2: Q = 0.5, AMAF -0.5; edge 6: Q = 0.0, AMAF 0.9; 10 visits and 10 samples each.
    # bias 0: beta = 10 / 20 = 0.5: scores 0.0 and 0.45, edge 6.
    # bias 1: beta = 10 / (20 + 4 * 100) = 0.024: scores 0.476 and 0.021, edge 2.
    case = {"visits": (10, 10), "means": (0.5, 0.0), "amaf": ((10, -0.5), (10, 0.9))}
    assert _select_at_root(RAVE(c=0.0, bias=0.0), **case) == 6  # type: ignore[arg-type]
    assert _select_at_root(RAVE(c=0.0, bias=1.0), **case) == 2  # type: ignore[arg-type]
    # An edge without visits takes its AMAF value (beta = 1); without samples it is untried
    # and comes first.
    assert _select_at_root(RAVE(c=0.0), (10, 0), (0.5, 0.0), ((10, 0.5), (3, 0.6))) == 6
    assert _select_at_root(RAVE(c=0.0), (10, 0), (0.5, 0.0), ((10, 0.5), (3, 0.4))) == 2
    assert _select_at_root(RAVE(c=0.0), (10, 0), (0.9, 0.0), ((10, 0.9), (0, 0.0))) == 6


def test_progressive_bias_adds_weight_times_score_over_visits() -> None:
    # Edge 2: Q = 0.3, H = 0; edge 6: Q = 0.0, H = 1; 10 visits each: bonus weight / 11.
    case = {"visits": (10, 10), "means": (0.3, 0.0), "scores": (0.0, 1.0)}
    assert _select_at_root(ProgressiveBias(c=0.0, weight=1.0), **case) == 2  # type: ignore[arg-type]
    assert _select_at_root(ProgressiveBias(c=0.0, weight=5.0), **case) == 6  # type: ignore[arg-type]
    # Unvisited edges first, the highest score first.
    pb = ProgressiveBias(c=0.0, weight=1.0)
    assert _select_at_root(pb, (0, 0), (0.0, 0.0), scores=(0.2, 0.7)) == 6
    assert _select_at_root(pb, (0, 0), (0.0, 0.0), scores=(0.7, 0.2)) == 2


# ------------------------------------------------------------------------ tactics

WIN_IN_ONE_7 = MNK7.from_grid(
    [
        [-1, 0, 0, 0, 0, 0, -1],
        [0, 1, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, -1],
    ],
    to_move=1,
)
WINNING_MOVE_7 = MNK7.action_of(4, 4)
BLOCK_7 = MNK7.from_grid(
    [
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, -1, 1, 1, 1, 0, 0],
        [0, 0, 0, 0, -1, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
    ],
    to_move=-1,
)
BLOCKING_MOVE_7 = MNK7.action_of(5, 3)


@pytest.mark.parametrize("backend", ["python", "compiled"])
@pytest.mark.parametrize("solver", [True, False])
def test_rave_wins_in_one_and_blocks_on_tictactoe(solver: bool, backend: str) -> None:
    options = {"selection": RAVE(), "solver": solver, "backend": backend}
    win = TTT.from_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], to_move=1)
    result = MCTS(win, seed=0, **options).run(Budget(simulations=2000))  # type: ignore[arg-type]
    assert result.best_action == TTT.action_of(2, 0)
    block = TTT.from_grid([[1, 0, 0], [-1, -1, 0], [1, 0, 0]], to_move=1)
    result = MCTS(block, seed=1, **options).run(Budget(simulations=3000))  # type: ignore[arg-type]
    assert result.best_action == TTT.action_of(2, 1)


@pytest.mark.parametrize("backend", ["python", "compiled"])
@pytest.mark.parametrize("solver", [True, False])
def test_rave_wins_in_one_and_blocks_on_a_gomoku_board(solver: bool, backend: str) -> None:
    options = {"selection": RAVE(), "solver": solver, "backend": backend}
    result = MCTS(WIN_IN_ONE_7, seed=2, **options).run(Budget(simulations=2000))  # type: ignore[arg-type]
    assert result.best_action == WINNING_MOVE_7
    result = MCTS(BLOCK_7, seed=3, **options).run(Budget(simulations=3000))  # type: ignore[arg-type]
    assert result.best_action == BLOCKING_MOVE_7


def points_at_win(state: playout.GameState, actions: np.ndarray) -> list[float]:
    return [1.0 if a == WINNING_MOVE_7 else 0.0 for a in actions]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_progressive_bias_reaches_the_win_in_fewer_simulations(seed: int) -> None:
    # With the solver the search stops once the win is proven: at the first simulation that
    # tries the winning move.
    budget = Budget(simulations=500)
    plain = MCTS(WIN_IN_ONE_7, selection=UCB1(), seed=seed).run(budget)
    biased = MCTS(WIN_IN_ONE_7, selection=ProgressiveBias(heuristic=points_at_win), seed=seed).run(
        budget
    )
    game_heuristic = MCTS(WIN_IN_ONE_7, selection=ProgressiveBias(), seed=seed).run(budget)
    for result in (plain, biased, game_heuristic):
        assert result.best_action == WINNING_MOVE_7 and result.proven == "win"
    assert biased.simulations == game_heuristic.simulations == 1
    assert plain.simulations > 1
    # Without the solver: more of a fixed budget goes to the winning move.
    budget = Budget(simulations=300)
    plain = MCTS(WIN_IN_ONE_7, selection=UCB1(), seed=seed, solver=False).run(budget)
    biased = MCTS(
        WIN_IN_ONE_7,
        selection=ProgressiveBias(heuristic=points_at_win),
        seed=seed,
        solver=False,
    ).run(budget)
    assert biased.policy()[WINNING_MOVE_7] > plain.policy()[WINNING_MOVE_7] + 0.1


def test_progressive_bias_stores_the_scores_as_priors() -> None:
    result = MCTS(WIN_IN_ONE_7, selection=ProgressiveBias(heuristic=points_at_win), seed=0).run(
        Budget(simulations=5)
    )
    assert dict(zip(result.actions, result.priors, strict=True)) == {
        a: points_at_win(WIN_IN_ONE_7, np.array([a]))[0] for a in result.actions
    }


def test_threat_scores() -> None:
    actions = BLOCK_7.legal_actions()
    scores = dict(zip(actions, threat_scores(BLOCK_7, actions), strict=True))
    assert max(scores, key=scores.__getitem__) == BLOCKING_MOVE_7
    assert scores[BLOCKING_MOVE_7] == 1.0
    actions = WIN_IN_ONE_7.legal_actions()
    win = dict(zip(actions, MNK7.move_heuristic(WIN_IN_ONE_7, actions), strict=True))
    assert win[WINNING_MOVE_7] == 1.0 and sorted(win.values())[-2] < 0.05
    empty = MNK7.initial_state()
    board = threat_scores(empty, empty.legal_actions()).reshape(7, 7)
    assert board[3, 3] == 1.0 and board[0, 0] == board.min()
    np.testing.assert_allclose(board, board.T)
    np.testing.assert_allclose(board, board[::-1, ::-1])
    assert threat_scores(empty, []).shape == (0,)


# ------------------------------------------------------------------------ reproducibility


@pytest.mark.parametrize(
    ("rule", "backend"),
    [(RAVE(), "python"), (RAVE(), "compiled"), (ProgressiveBias(), "python")],
)
def test_a_seed_reproduces_the_search(rule: object, backend: str) -> None:
    state = MnkGame(5, 5, 4).initial_state().play(12)
    engines = [MCTS(state, selection=rule, seed=21, backend=backend) for _ in range(2)]  # type: ignore[arg-type]
    first, second = (engine.run(Budget(simulations=400)) for engine in engines)
    assert first == dataclasses.replace(second, seconds=first.seconds)
    if engines[0].amaf is not None:
        used = engines[0].tree.num_edges
        np.testing.assert_array_equal(
            engines[0].amaf.value_sum[:used],
            engines[1].amaf.value_sum[:used],  # type: ignore[union-attr]
        )
    other = MCTS(state, selection=rule, seed=22, backend=backend).run(Budget(simulations=400))  # type: ignore[arg-type]
    assert other.visit_counts != first.visit_counts


# ------------------------------------------------------------------------ parameters, API


@pytest.mark.parametrize(
    "make",
    [
        lambda: RAVE(c=-0.1),
        lambda: RAVE(c=math.inf),
        lambda: RAVE(bias=-1.0),
        lambda: RAVE(bias=math.nan),
        lambda: RAVE(bias="0.1"),
        lambda: RAVE(prior=1e19),  # past MAX_PRIOR_SAMPLES: would overflow the sample counts
        lambda: RAVE(bias=10**400),  # past any float
        lambda: playout.UCB1(c=10**400),
        lambda: playout.DirichletNoise(alpha=10**400),
        lambda: ProgressiveBias(weight=-2.0),
        lambda: ProgressiveBias(c=math.nan),
        lambda: ProgressiveBias(heuristic=3),
        lambda: playout.parse_rule("rave:abc"),
        lambda: playout.parse_rule(None),  # an AttributeError before
        lambda: playout.parse_rule("ucb1", bias=0.1),
        lambda: playout.parse_rule("rave", weight=1.0),
        lambda: playout.parse_rule("rave", bias=-1.0),
        lambda: MCTS(Connect4Game().initial_state(), selection=ProgressiveBias()),
        lambda: make_engine(TTT.initial_state(), selection=RAVE(), tree_threads=2),
        lambda: MCTS(TTT.initial_state(), backend="compiled", selection=ProgressiveBias()),
    ],
)
def test_bad_parameters_raise(make: object) -> None:
    with pytest.raises(playout.InvalidParameterError):
        make()  # type: ignore[operator]


def test_rules_parse_and_choose_their_engine() -> None:
    assert playout.parse_rule("rave") == RAVE()
    assert playout.parse_rule("rave:0.2", bias=0.1) == RAVE(c=0.2, bias=0.1)
    assert playout.parse_rule("progressive-bias", weight=5.0) == ProgressiveBias(weight=5.0)
    assert playout.parse_rule("pb:1.0") == ProgressiveBias(c=1.0)
    for rule, backend in ((RAVE(), "compiled"), (ProgressiveBias(), "python")):
        assert not hasattr(rule, "compiled")
        engine = make_engine(TTT.initial_state(), selection=rule)
        assert type(engine) is MCTS and engine.backend == backend
        assert playout.search(TTT.initial_state(), selection=rule, simulations=50).simulations
    assert MCTS(TTT.initial_state()).amaf is None
    assert MCTS(TTT.initial_state(), selection=ProgressiveBias()).amaf is None


def test_player_specs_and_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    player = parse_player("mcts:simulations=50,rule=rave,c=0.2,bias=0.1", MNK7)
    assert isinstance(player, MctsPlayer) and player.options.selection() == RAVE(c=0.2, bias=0.1)
    player = parse_player("mcts:simulations=50,rule=pb,weight=3", MNK7)
    assert player.options.selection() == ProgressiveBias(weight=3.0)  # type: ignore[attr-defined]
    for spec, game in [
        ("mcts:rule=pb", Connect4Game()),
        ("mcts:rule=ucb1,bias=0.1", MNK7),
        ("mcts:rule=rave,weight=1", MNK7),
        ("mcts:rule=rave,bias=x", MNK7),
    ]:
        with pytest.raises(playout.InvalidParameterError):
            parse_player(spec, game)
    code = main(
        [
            "analyze",
            "tictactoe",
            "--moves",
            "1,1 0,0",
            "--simulations",
            "200",
            "--rule",
            "rave",
            "--rave-bias",
            "0.1",
            "--seed",
            "1",
            "--json",
        ]
    )
    assert code == 0
    code = main(
        [
            "analyze",
            "mnk",
            "--width",
            "5",
            "--height",
            "5",
            "--k",
            "4",
            "--simulations",
            "100",
            "--rule",
            "pb",
            "--bias-weight",
            "10",
            "--json",
        ]
    )
    assert code == 0
    capsys.readouterr()
    assert main(["analyze", "tictactoe", "--simulations", "10", "--rave-bias", "0.1"]) == 2
    assert "bias" in capsys.readouterr().err
    code = main(
        [
            "match",
            "mnk",
            "--width",
            "5",
            "--height",
            "5",
            "--k",
            "4",
            "--workers",
            "1",
            "--p1",
            "mcts:simulations=60,rule=rave",
            "--p2",
            "mcts:simulations=60,rule=pb",
            "--games",
            "2",
        ]
    )
    assert code == 0


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_connect4_rave_smoke(backend: str) -> None:
    state = play_moves(Connect4Game(), "454545")  # X wins in column 4
    result = MCTS(state, selection=RAVE(), seed=2, backend=backend).run(Budget(simulations=800))  # type: ignore[arg-type]
    assert result.best_action == 3
