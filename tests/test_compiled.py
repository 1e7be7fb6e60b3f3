"""The compiled engine: tactics, reproducibility, budgets, tree reuse, agreement with the
Python engine, backend choice, root-parallel search and a user kernel (the Nim example)."""

from __future__ import annotations

import gc
import importlib.util
import pathlib
import sys
import threading
import time

import numba
import numpy as np
import pytest

import playout
from playout import (
    MCTS,
    PUCT,
    UCB1,
    Budget,
    EpsilonGreedy,
    Rollout,
    ValueFunction,
    merge_results,
    parallel_search,
)
from playout._src.compiled import compiled_kernel_for, memory
from playout._src.errors import GameOverError, IllegalMoveError, InvalidParameterError
from playout._src.search import make_engine
from playout._src.tree import expansion, selection
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout.games import BanditTreeGame, Connect4Game, MnkGame, play_moves, tictactoe

from .solver import solve

TTT = tictactoe()
C4 = Connect4Game()


def ttt_grid(rows: list[list[int]], to_move: int = 1) -> playout.GameState:
    return TTT.from_grid(rows, to_move=to_move)


# ------------------------------------------------------------------------------ tactics


@pytest.mark.parametrize("solver", [True, False])
def test_tictactoe_win_in_one(solver: bool) -> None:
    # X (1) to move: (2, 0) completes the top row.
    state = ttt_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]])
    result = MCTS(state, backend="compiled", seed=0, solver=solver).run(Budget(simulations=3000))
    assert result.best_action == TTT.action_of(2, 0)
    assert result.value > 0.5
    if solver:
        assert result.proven == "win"


@pytest.mark.parametrize("solver", [True, False])
def test_tictactoe_forced_block(solver: bool) -> None:
    # O (-1) threatens the middle row; X (1) to move must block at (2, 1).
    state = ttt_grid([[1, 0, 0], [-1, -1, 0], [1, 0, 0]], to_move=1)
    result = MCTS(state, backend="compiled", seed=1, solver=solver).run(Budget(simulations=5000))
    assert result.best_action == TTT.action_of(2, 1)
    assert solve(state.play(result.best_action)) >= 0


@pytest.mark.parametrize("solver", [True, False])
def test_connect4_win_in_one(solver: bool) -> None:
    # X has three in column 4 (moves 4 5 4 5 4 5 ... O answered in column 5).
    state = play_moves(C4, "454545")
    result = MCTS(state, backend="compiled", seed=2, solver=solver).run(Budget(simulations=5000))
    assert result.best_action == 3


@pytest.mark.parametrize("solver", [True, False])
def test_connect4_forced_block(solver: bool) -> None:
    # X 6, O 1, X 7, O 2, X 6, O 3: O threatens the bottom row at column 4; X must block.
    state = play_moves(C4, "617263")
    result = MCTS(state, backend="compiled", seed=4, solver=solver).run(Budget(simulations=20_000))
    assert result.best_action == 3


@pytest.mark.parametrize("solver", [True, False])
def test_connect4_winning_beats_blocking(solver: bool) -> None:
    # X 7, O 2, X 7, O 3, X 7, O 4: O threatens columns 1 and 5, but X wins in column 7.
    state = play_moves(C4, "727374")
    result = MCTS(state, backend="compiled", seed=3, solver=solver).run(Budget(simulations=5000))
    assert result.best_action == 6


@pytest.mark.parametrize("solver", [True, False])
def test_wide_connect4_win_in_one_and_forced_block(solver: bool) -> None:
    # 9x7 (72 bits: the wide kernel). X has three in column 1: X wins there at once.
    wide = Connect4Game(9, 7, 4)
    win = play_moves(wide, "121212")
    assert make_engine(win).backend == "compiled"
    result = MCTS(win, backend="compiled", seed=5, solver=solver).run(Budget(simulations=5000))
    assert result.best_action == 0
    # X 9, O 1, X 9, O 2, X 8, O 3: O threatens the bottom row at column 4; X must block.
    block = play_moves(wide, "919283")
    result = MCTS(block, backend="compiled", seed=6, solver=solver).run(Budget(simulations=20_000))
    assert result.best_action == 3


# ------------------------------------------------------------------------------ semantics


def test_the_same_seed_reproduces_the_search() -> None:
    state = C4.initial_state()
    results = [
        MCTS(state, backend="compiled", seed=42, solver=False).run(Budget(simulations=3000))
        for _ in range(2)
    ]
    first, second = results
    assert first.visit_counts == second.visit_counts
    assert first.values == second.values
    assert first.pv == second.pv and first.nodes == second.nodes
    other = MCTS(state, backend="compiled", seed=43, solver=False).run(Budget(simulations=3000))
    assert other.visit_counts != first.visit_counts


def test_result_invariants() -> None:
    state = MnkGame(6, 6, 4).initial_state()
    engine = MCTS(state, backend="compiled", seed=5)
    result = engine.run(Budget(simulations=2000))
    assert result.simulations == 2000 == result.total_simulations == sum(result.visit_counts)
    assert result.actions == tuple(range(36))
    assert result.nodes == engine.tree.num_nodes <= 2001
    assert result.player == 0
    assert all(-1.0 <= v <= 1.0 for v in result.values)
    assert result.pv[0] == result.best_action
    assert engine.tree.nodes[T.ROOT, T.N_VISITS] == 2000
    assert 0 < engine.bytes_per_node() < 4000


@pytest.mark.parametrize("solver", [False, True])
def test_a_node_gets_its_edges_when_a_simulation_comes_back_to_it(solver: bool) -> None:
    # Lazy expansion: a leaf visited once holds no edges; the second visit expands it.
    engine = make_engine(Connect4Game().initial_state(), seed=3, solver=solver)
    engine.run(Budget(simulations=20_000))
    tree = engine.tree
    nodes = tree.nodes[: tree.num_nodes]
    counts = nodes[:, T.N_NUM_EDGES]
    inner = nodes[:, T.N_PLAYER] != T.TERMINAL
    unexpanded = counts == T.UNEXPANDED
    assert np.array_equal(unexpanded[inner], nodes[inner, T.N_VISITS] == 1)
    assert unexpanded.sum() > tree.num_nodes // 2  # most leaves are visited once
    assert tree.num_edges == int(np.maximum(counts, 0).sum())  # edges only where expanded
    assert set(np.unique(counts[counts > 0]).tolist()) <= set(range(1, 8))  # 7 columns at most


def test_a_node_with_no_listed_move_ends_the_walk_like_a_terminal_one() -> None:
    # A kernel that lists no move in a running position: the node gets no edges.
    tree = T.new_tree(4, 16)
    expansion.add_node(tree.nodes, tree.node_values, tree.edges, tree.meta, -1, -1, 0, False, 0.25)
    path = np.zeros(4, dtype=np.int64)
    no_actions = np.zeros(0, dtype=np.int64)
    edge, depth = expansion.expand_reached(
        tree.nodes, tree.edges, tree.edge_values, tree.meta, selection.RULE_UCB1, np.array([1.0]),
        new_rng_state(0), T.ROOT, no_actions, np.zeros(0), path, 0,
    )  # fmt: skip
    assert (edge, depth) == (T.NO_EDGE, 0)
    assert tree.nodes[T.ROOT, T.N_NUM_EDGES] == 0 and tree.num_edges == 0


def test_node_cap_is_honoured() -> None:
    result = MCTS(C4.initial_state(), backend="compiled", seed=6).run(
        Budget(simulations=100_000, max_nodes=700)
    )
    assert result.nodes <= 700
    assert result.simulations < 100_000


def test_time_limit_is_honoured() -> None:
    engine = MCTS(MnkGame(9, 9, 5).initial_state(), backend="compiled", seed=7, solver=False)
    start = time.perf_counter()
    result = engine.run(Budget(seconds=0.3))
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0  # chunks of a few milliseconds; slack for a busy machine
    # It runs to the deadline, unless growing the full arrays would end past it (then it
    # stops early rather than late).
    assert result.stop_reason == "time"
    assert elapsed >= 0.3 or T.room_for(engine.tree, 81) <= 1
    assert result.simulations > 100
    assert (
        MCTS(C4.initial_state(), backend="compiled", seed=7).run(Budget(seconds=0)).simulations == 0
    )
    # A time limit too long to size the arrays for (1e308 s) ends on the node cap instead.
    capped = MCTS(C4.initial_state(), backend="compiled", seed=7, solver=False)
    assert capped.run(Budget(seconds=1e308, max_nodes=500)).stop_reason == "max_nodes"


def test_max_depth_limits_the_tree() -> None:
    engine = MCTS(C4.initial_state(), backend="compiled", seed=8, solver=False)
    result = engine.run(Budget(simulations=3000, max_depth=2))
    assert result.max_depth <= 2
    assert result.total_simulations == 3000


def test_limits_past_64_bits_mean_no_limit() -> None:
    # Counts too large for the compiled driver's integers (a --max-depth of 10**23) are no
    # limit at all, not an overflow.
    huge = 10**23
    engine = MCTS(C4.initial_state(), backend="compiled", seed=8, solver=False)
    result = engine.run(Budget(simulations=300, max_depth=huge, max_nodes=huge, max_memory=huge))
    assert result.total_simulations == 300
    assert result.max_depth >= 3


def test_progress_is_reported() -> None:
    seen: list[int] = []
    MCTS(C4.initial_state(), backend="compiled", seed=9).run(
        Budget(simulations=1050), progress=seen.append, progress_every=200
    )
    assert seen == [200, 400, 600, 800, 1000, 1050]
    engine = MCTS(C4.initial_state(), backend="compiled", seed=9)
    for every in (0, 2.5, "x"):
        with pytest.raises(InvalidParameterError, match="progress_every"):
            engine.run(Budget(simulations=10), progress=seen.append, progress_every=every)  # type: ignore[arg-type]
    for progress in (5, "yes"):  # neither a callable nor a switch: not silently ignored
        with pytest.raises(InvalidParameterError, match="progress must be"):
            engine.run(Budget(simulations=10), progress=progress)  # type: ignore[arg-type]
    assert engine.run(Budget(simulations=10), progress=False).total_simulations == 10


def test_tree_reuse_keeps_the_subtree_and_its_states() -> None:
    engine = MCTS(C4.initial_state(), backend="compiled", seed=10, solver=False)
    result = engine.run(Budget(simulations=4000))
    action = result.best_action
    child_visits = result.visit_counts[result.actions.index(action)]
    engine.advance(action)
    assert engine.root_state == C4.initial_state().play(action)
    assert engine.tree.nodes[T.ROOT, T.N_VISITS] == child_visits
    kernel = engine.driver.kernel
    assert np.array_equal(engine.driver.node_states[T.ROOT], kernel.encode(engine.root_state))
    # Every kept node's state is its parent's state after the edge's action.
    tree = engine.tree
    for node in range(1, tree.num_nodes):
        edge = tree.nodes[node, T.N_PARENT_EDGE]
        parent = tree.nodes[node, T.N_PARENT]
        expected = engine.driver.node_states[parent].copy()
        kernel.play(kernel.params, expected, int(tree.edges[edge, T.E_ACTION]))
        assert np.array_equal(engine.driver.node_states[node], expected)
    before = engine.result().total_simulations
    assert before == child_visits - 1  # the simulation that created the child ended there
    after = engine.run(Budget(simulations=1000))
    assert after.total_simulations == before + 1000


def test_advance_without_reuse_and_errors() -> None:
    engine = MCTS(TTT.initial_state(), backend="compiled", seed=11, reuse=False)
    engine.run(Budget(simulations=500))
    engine.advance(4)
    assert engine.result().total_simulations == 0
    with pytest.raises(IllegalMoveError):
        engine.advance(4)
    action = engine.decide(budget=Budget(simulations=300))
    assert engine.root_state == TTT.initial_state().play(4).play(action)
    finished = ttt_grid([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], to_move=-1)
    with pytest.raises(GameOverError):
        MCTS(finished, backend="compiled", seed=0).run()


def test_a_whole_game_with_decide() -> None:
    engine = MCTS(TTT.initial_state(), backend="compiled", seed=12, budget=Budget(simulations=2000))
    while not engine.root_state.is_terminal():
        engine.decide()
    assert engine.root_state.winner() is None  # good play draws


@pytest.mark.parametrize("selection", [PUCT(), EpsilonGreedy(epsilon=0.2), UCB1(c=0.5)])
def test_other_selection_rules_run_compiled(selection) -> None:
    state = play_moves(C4, "454545")
    result = MCTS(state, backend="compiled", seed=13, selection=selection).run(
        Budget(simulations=4000)
    )
    assert result.best_action == 3


@pytest.mark.parametrize(
    ("options", "columns"),
    [
        ({}, 1),
        ({"selection": EpsilonGreedy(epsilon=0.2)}, 1),
        ({"selection": PUCT()}, T.EDGE_VALUE_FIELDS),
        ({"symmetry": True}, T.EDGE_VALUE_FIELDS),
    ],
)
def test_edges_have_a_prior_column_only_when_the_search_reads_priors(
    options: dict[str, object], columns: int
) -> None:
    engine = MCTS(C4.initial_state(), backend="compiled", seed=3, **options)  # type: ignore[arg-type]
    result = engine.run(Budget(simulations=2000))
    assert engine.tree.edge_values.shape[1] == columns
    assert result.priors == pytest.approx([1 / len(result.actions)] * len(result.actions))
    engine.advance(result.best_action)  # the kept subtree has the same layout
    assert engine.tree.edge_values.shape[1] == columns
    after = engine.run(Budget(simulations=500))
    assert after.priors == pytest.approx([1 / len(after.actions)] * len(after.actions))


def test_phase_functions_treat_a_missing_prior_column_as_uniform_priors() -> None:
    """PUCT and chance sampling on a tree without ``EV_PRIOR`` choose what they choose on the
    same tree with uniform priors stored."""
    actions = np.arange(5, dtype=np.int64)
    trees = []
    for columns in (T.EDGE_VALUE_FIELDS, 1):
        tree = T.new_tree(8, 64)
        tree = tree._replace(edge_values=np.zeros((64, columns)))
        expansion.add_node(
            tree.nodes, tree.node_values, tree.edges, tree.meta, -1, -1, 0, False, 0.0
        )
        expansion.expand(
            tree.nodes, tree.edges, tree.edge_values, tree.meta, T.ROOT, actions, actions[:0]
        )
        tree.edges[:5, T.E_VISITS] = [3, 1, 4, 1, 5]
        tree.edge_values[:5, T.EV_VALUE_SUM] = [1.0, 0.5, -2.0, 0.25, 2.0]
        tree.nodes[T.ROOT, T.N_VISITS] = 14
        trees.append(tree)
    assert trees[0].edge_values[0, T.EV_PRIOR] == pytest.approx(0.2)
    params = np.array([2.0, 0.0])
    for chance in (False, True):
        picks = []
        for tree in trees:
            tree.nodes[T.ROOT, T.N_PLAYER] = T.CHANCE if chance else 0
            rng = new_rng_state(5)
            picks.append(
                [
                    int(
                        selection.select_edge(
                            tree.nodes,
                            tree.edges,
                            tree.edge_values,
                            T.ROOT,
                            selection.RULE_PUCT,
                            params,
                            rng,
                        )
                    )
                    for _ in range(50)
                ]
            )
        assert picks[0] == picks[1]


def test_several_rollouts_per_leaf() -> None:
    state = ttt_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]])
    engine = MCTS(
        state, backend="compiled", seed=14, evaluator=Rollout(num_rollouts=4), solver=False
    )
    result = engine.run(Budget(simulations=2000))
    assert result.best_action == TTT.action_of(2, 0)
    # Means of 4 rollouts are multiples of 1/4: so are the root's value sums.
    sums = np.array(result.values) * np.array(result.visit_counts)
    assert np.allclose(sums * 4, np.round(sums * 4))


# ------------------------------------------------------------------------------ agreement


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (ttt_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]]), {2}),
        (ttt_grid([[1, 0, 0], [-1, -1, 0], [1, 0, 0]]), {5}),
        (play_moves(C4, "454545"), {3}),
        (play_moves(C4, "617263"), {3}),
        (play_moves(C4, "727374"), {6}),
    ],
)
def test_compiled_and_python_engines_agree_on_tactics(state, expected: set[int]) -> None:
    budget = Budget(simulations=4000)
    python = MCTS(state, seed=1, solver=False).run(budget)
    compiled = MCTS(state, backend="compiled", seed=1, solver=False).run(budget)
    assert python.best_action in expected
    assert compiled.best_action in expected


def test_compiled_and_python_visit_shares_are_close() -> None:
    # Seed 001's position: O to move must take an edge square; each gets about a quarter.
    state = ttt_grid([[-1, 0, 0], [0, 1, 0], [0, 0, -1]], to_move=1)
    budget = Budget(simulations=6000)
    python = MCTS(state, seed=2, solver=False).run(budget).policy()
    compiled = MCTS(state, backend="compiled", seed=2, solver=False).run(budget).policy()
    edges = [1, 3, 5, 7]
    for action in edges:
        assert 0.12 < compiled[action] < 0.38, compiled
        assert abs(compiled[action] - python[action]) < 0.15, (python, compiled)
    assert sum(compiled[a] for a in (2, 6)) < 0.12


def test_compiled_and_python_root_values_are_close_on_the_empty_board() -> None:
    state = MnkGame(4, 4, 3).initial_state()
    budget = Budget(simulations=3000)
    python = MCTS(state, seed=3, solver=False).run(budget)
    compiled = MCTS(state, backend="compiled", seed=3, solver=False).run(budget)
    assert abs(python.value - compiled.value) < 0.15


# ------------------------------------------------------------------------------ backends


def test_make_engine_picks_the_compiled_engine_when_it_can() -> None:
    assert make_engine(TTT.initial_state(), seed=0).backend == "compiled"
    assert make_engine(C4.initial_state(), seed=0).backend == "compiled"
    assert make_engine(TTT.initial_state(), backend="python", seed=0).backend != "compiled"
    bandit = BanditTreeGame().initial_state()
    assert make_engine(bandit, seed=0).backend != "compiled"
    custom = make_engine(TTT.initial_state(), evaluator=ValueFunction(lambda s: 0.0))
    assert custom.backend != "compiled"
    python_rule = make_engine(TTT.initial_state(), selection=lambda stats: 0)
    assert python_rule.backend != "compiled"
    assert make_engine(TTT.initial_state(), evaluator=Rollout(num_rollouts=3)).backend == "compiled"


def test_backend_compiled_refuses_what_it_cannot_run() -> None:
    bandit = BanditTreeGame().initial_state()  # a game without a kernel
    assert compiled_kernel_for(bandit) is None
    with pytest.raises(InvalidParameterError, match="has no compiled kernel"):
        make_engine(bandit, backend="compiled")
    assert make_engine(bandit).backend != "compiled"
    with pytest.raises(InvalidParameterError, match="evaluator"):
        make_engine(TTT.initial_state(), backend="compiled", evaluator=ValueFunction(lambda s: 0.0))
    with pytest.raises(InvalidParameterError, match="rollout policy"):
        make_engine(
            TTT.initial_state(),
            backend="compiled",
            evaluator=Rollout(policy=lambda state, rng: state.legal_actions()[0]),
        )
    with pytest.raises(InvalidParameterError, match="no compiled kernel"):
        MCTS(BanditTreeGame().initial_state(), backend="compiled")
    with pytest.raises(InvalidParameterError, match="backend"):
        make_engine(TTT.initial_state(), backend="gpu")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ parallel


def test_merge_results_adds_visits_and_value_sums() -> None:
    state = C4.initial_state()
    parts = [
        MCTS(state, backend="compiled", seed=s, solver=False).run(Budget(simulations=700))
        for s in (1, 2)
    ]
    merged = merge_results(parts)
    assert merged.total_simulations == 1400
    for i, action in enumerate(merged.actions):
        visits = [p.visit_counts[p.actions.index(action)] for p in parts]
        sums = [p.values[p.actions.index(action)] * n for p, n in zip(parts, visits, strict=True)]
        assert merged.visit_counts[i] == sum(visits)
        if sum(visits):
            assert merged.values[i] == pytest.approx(sum(sums) / sum(visits))
    assert merged.best_action == merged.actions[int(np.argmax(merged.visit_counts))]


def test_parallel_search_merges_the_workers() -> None:
    state = C4.initial_state()
    result = parallel_search(state, workers=2, simulations=1500, seed=5, solver=False)
    assert result.total_simulations == 2 * 1500 == sum(result.visit_counts)
    assert result.simulations == 3000
    assert result.actions == tuple(range(7))
    single = parallel_search(state, workers=1, simulations=500, seed=5, solver=False)
    assert single.total_simulations == 500
    with pytest.raises(InvalidParameterError):
        parallel_search(state, workers=0, simulations=10)


def test_root_parallel_merges_its_engines_and_keeps_their_trees() -> None:
    from playout._src.parallel import RootParallel, spawn_seeds

    state = C4.initial_state()
    seeds = spawn_seeds(9, 2)
    engines = [MCTS(state, simulations=800, seed=s, solver=False) for s in seeds]
    search = RootParallel(engines)
    result = search.run()
    assert result.total_simulations == 2 * 800 == sum(result.visit_counts)
    # The merged visits are each tree's root visits added, action by action.
    alone = [MCTS(state, simulations=800, seed=s, solver=False).run() for s in seeds]
    for i, action in enumerate(result.actions):
        assert result.visit_counts[i] == sum(r.visit_counts[r.actions.index(action)] for r in alone)
    assert search.root_state == state
    search.advance(result.best_action)
    after = state.play(result.best_action)
    assert search.root_state == after
    # Each engine kept its subtree: the next search starts with the visits it had there.
    kept = [e.run(playout.Budget(simulations=1)).total_simulations for e in engines]
    assert all(total > 1 for total in kept)


def test_root_parallel_refuses_what_it_cannot_run() -> None:
    from playout._src.parallel import RootParallel

    state = C4.initial_state()
    one = MCTS(state, simulations=10)
    with pytest.raises(InvalidParameterError, match="at least two engines"):
        RootParallel([one])
    with pytest.raises(InvalidParameterError, match="share one position"):
        RootParallel([one, MCTS(state.play(3), simulations=10)])
    python = MCTS(state, simulations=10, backend="python")
    with pytest.raises(InvalidParameterError, match="Python driver \\(backend='python'\\)"):
        RootParallel([python, MCTS(state, simulations=10, backend="python")])
    with pytest.raises(InvalidParameterError, match="transposition table runs on the Python"):
        RootParallel([MCTS(state, simulations=10, transpositions=True)] * 2)


def test_an_mcts_player_with_threads_is_reproducible_and_finds_the_win() -> None:
    from playout._src.arena.specs import parse_player

    # After 0 1 0 1 0 1 the first player has three in column 0: column 0 wins at once.
    state = C4.initial_state()
    for column in (0, 1, 0, 1, 0, 1):
        state = state.play(column)
    player = parse_player("mcts:simulations=300,threads=2", C4)
    again = parse_player("mcts:simulations=300,threads=2", C4)
    player.reset(state, 11)
    again.reset(state, 11)
    assert player.choose(state) == 0 == again.choose(state)
    assert player.last_result.total_simulations <= 2 * 300
    assert player.last_result.visit_counts == again.last_result.visit_counts
    share = player._engine.engines[0].budget.max_memory  # type: ignore[attr-defined]
    assert share == playout.Budget().memory_limit // 2
    with pytest.raises(InvalidParameterError, match="threads must be >= 1"):
        parse_player("mcts:simulations=10,threads=0", C4)
    with pytest.raises(InvalidParameterError, match="threads must be <= 256"):
        parse_player("mcts:simulations=10,threads=257", C4)
    with pytest.raises(InvalidParameterError, match="seed must be a whole number >= 0"):
        player.reset(state, -5)
    # Reading the spec checks the engine but keeps none (the player travels to workers).
    assert parse_player("mcts:simulations=10,threads=2", C4)._engine is None  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------ user kernel


def load_example(name: str, cache_dir: pathlib.Path):
    """Import ``examples/<name>.py``; its numba cache goes to ``cache_dir`` (numba's cache
    entries remember the module name, and the script run as ``__main__`` has another)."""
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"playout_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(cache_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        numba.config.CACHE_DIR = saved
    return module


def test_the_numba_nim_example_runs_compiled_and_passes_conformance(
    tmp_path: pathlib.Path,
) -> None:
    nim = load_example("numba_nim", tmp_path)
    game = nim.NimGame((3, 4, 5))
    playout.check_game(game, num_games=100)
    state = game.initial_state()
    engine = make_engine(state, seed=0)
    assert engine.backend == "compiled"
    result = engine.run(Budget(simulations=20_000))
    assert game.action_to_string(state, result.best_action) == "0:2"  # 3^4^5 = 2
    # Lockstep against the Python rules, as for the built-in kernels.
    kernel = state.compiled_kernel()
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = state
        compact = kernel.encode(s)
        while not s.is_terminal():
            assert kernel.legal(compact) == s.legal_actions()
            action = int(rng.choice(s.legal_actions()))
            status = kernel.play(kernel.params, compact, action)
            s = s.play(action)
            assert np.array_equal(compact, kernel.encode(s))
            assert (status != 0) == s.is_terminal()
    small = nim.NimGame((2, 3)).initial_state()  # 2^3 = 1: take 1 from heap 1
    for engine in (MCTS(small, seed=0), make_engine(small, seed=0)):
        best = engine.run(Budget(simulations=3000)).best_action
        assert small.game.action_to_string(small, best) == "1:1"


# ------------------------------------------------------------------------------ memory


def test_recycled_memory_never_changes_a_tree_someone_holds() -> None:

    state = C4.initial_state()
    engine = MCTS(state, backend="compiled", seed=20, solver=False)
    engine.run(Budget(simulations=2000))
    kept = engine.tree
    snapshot = [a.copy() for a in kept]
    engine.advance(engine.result().best_action)  # replaces the tree
    del engine
    for seed in range(3):  # new searches take arrays from the pool
        MCTS(state, backend="compiled", seed=seed, solver=False).run(Budget(simulations=2000))
    for array, copy in zip(kept, snapshot, strict=True):
        assert array.tobytes() == copy.tobytes()  # bytes: unused rows may hold NaN
    # Arrays nobody holds are recycled: a second search of the same size reuses them.
    memory.POOL.clear()
    first = MCTS(state, backend="compiled", seed=1, solver=False)
    first.run(Budget(simulations=2000))
    arrays = [*first.tree[:4], first.driver.node_states]
    assert not any(a in memory.POOL for a in arrays)
    del first
    assert not any(a in memory.POOL for a in arrays)  # `arrays` still refers to them
    del arrays
    assert len(memory.POOL) >= 5  # the four tree arrays and the node states
    second = MCTS(state, backend="compiled", seed=1, solver=False)
    second.run(Budget(simulations=2000))
    assert all(a.shape[0] >= 2000 for a in second.tree[:2])


def test_array_pool_keeps_at_most_its_bound_dropping_the_oldest() -> None:
    pool = memory.ArrayPool(max_bytes=3 * 8000)
    arrays = [np.empty((1000, 1), dtype=np.float64) for _ in range(4)]  # 8000 bytes each
    for array in arrays:
        pool.give(array)
    assert len(pool) == 3 and pool.nbytes == 3 * 8000
    assert arrays[0] not in pool and all(a in pool for a in arrays[1:])
    assert pool.take(1000, 1, np.float64) is arrays[1]  # the smallest fit (here the oldest)
    assert pool.take(1000, 2, np.float64).shape == (1000, 2)  # no fit: a fresh array
    assert pool.take(200, 1, np.float64).shape == (200, 1)  # kept ones are over 4x too large


def test_an_engine_collected_while_the_pool_is_busy_lets_its_arrays_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The garbage collector runs wherever an allocation triggers it, also inside the pool's
    own ``give`` or ``take`` on this thread: the finalizer of an engine in a reference cycle
    must then let its arrays go, not wait for the lock its own thread holds (it waited
    forever: a test run hung so)."""
    pool = memory.ArrayPool()
    monkeypatch.setattr(memory, "POOL", pool)
    collected: list[int] = []

    def collect_while_busy() -> None:
        with pool._lock:  # as inside give or take
            collected.append(gc.collect())

    was_enabled = gc.isenabled()
    gc.disable()  # no collection before the lock is held
    try:
        engine = MCTS(C4.initial_state(), backend="compiled", seed=0, solver=False)
        engine.run(Budget(simulations=200))
        cycle: list[object] = [engine.driver]
        cycle.append(cycle)  # only the collector frees the driver now
        del engine, cycle
        # In a thread of its own: were the finalizer to wait, only that thread would hang.
        thread = threading.Thread(target=collect_while_busy, daemon=True)
        thread.start()
        thread.join(60)
    finally:
        if was_enabled:
            gc.enable()
    assert not thread.is_alive(), "the engine's finalizer waited for the pool's lock"
    assert collected and collected[0] > 0 and len(pool) == 0  # collected, arrays let go
    pool.give(np.empty((10, 1)))  # the pool works on
    assert len(pool) == 1


def _unknown_sysconf(name: str) -> int:
    raise OSError(f"unknown: {name}")


def test_default_pool_bound_is_an_eighth_of_memory_within_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sizes = {"SC_PAGE_SIZE": 4096}
    monkeypatch.setattr(memory.os, "sysconf", lambda name: sizes[name])
    sizes["SC_PHYS_PAGES"] = (4 << 30) // 4096  # 4 GiB: an eighth is 512 MiB
    assert memory.default_pool_bytes() == 512 << 20
    sizes["SC_PHYS_PAGES"] = (64 << 30) // 4096
    assert memory.default_pool_bytes() == 1 << 30
    sizes["SC_PHYS_PAGES"] = (1 << 30) // 4096
    assert memory.default_pool_bytes() == 256 << 20
    monkeypatch.setattr(memory.os, "sysconf", _unknown_sysconf)
    assert memory.default_pool_bytes() == 256 << 20
    assert memory.ArrayPool().max_bytes == 256 << 20


def test_tree_capacity_is_that_of_its_shortest_array() -> None:
    from playout._src.compiled import memory

    # Pooled arrays may be longer than asked for: a tree whose `nodes` came back four times
    # longer than its `node_values` must not let the driver write past `node_values`.
    tree = memory.new_tree(64, 512)
    longer = T.Tree(
        nodes=np.zeros((256, T.NODE_FIELDS), dtype=tree.nodes.dtype),
        node_values=np.zeros((64, T.NODE_VALUE_FIELDS)),
        edges=np.zeros((2048, T.EDGE_FIELDS), dtype=tree.edges.dtype),
        edge_values=np.zeros((512, T.EDGE_VALUE_FIELDS)),
        meta=tree.meta,
    )
    assert (longer.node_capacity, longer.edge_capacity) == (64, 512)
    longer.meta[T.M_NUM_NODES] = 60
    longer.meta[T.M_NUM_EDGES] = 500
    grown = memory.reserve(longer, 10, 100)
    assert min(grown.nodes.shape[0], grown.node_values.shape[0]) >= 70
    assert min(grown.edges.shape[0], grown.edge_values.shape[0]) >= 600
    assert grown.node_capacity >= 70 and grown.edge_capacity >= 600


def test_tree_arrays_skip_the_huge_page_advice_and_restore_it() -> None:
    from playout._src.compiled import memory

    advise = memory._set_madvise_hugepage  # numpy >= 2; None on older numpy
    before = advise(True) if advise is not None else None
    try:
        array = memory.empty_array((1000, 4), np.int32)
        assert array.shape == (1000, 4) and array.dtype == np.int32
        if advise is not None:
            assert advise(True) is True  # numpy's own setting is back as it was
    finally:
        if advise is not None:
            advise(before)
