"""Tree parallelism: several threads on one shared tree (``tree_threads``, lock-free, virtual
loss; :mod:`playout._src.compiled.shared`).

With two threads the statistics are updated with plain racy increments, so the invariants on
counts are stated as they hold under lost updates: a count is only ever incremented, so a
lost update leaves it below its ideal value, never above; the tests check the exact bounds and
allow lost updates on at most 5% of the increments (on two busy cores about 0.5% of the
root's increments were lost, none elsewhere; a missing backup or a virtual loss left behind
breaks the bounds on almost every edge).
"""

from __future__ import annotations

import numpy as np
import pytest

import playout
from playout import MCTS, Budget, InvalidParameterError
from playout._src.compiled.shared import EXPANDING, SharedTreeDriver, shares
from playout._src.tree import layout as T
from playout.games import Connect4Game, tictactoe

from .solver import outcome_within, solve
from .test_solver import _random_connect4_positions

TTT = tictactoe()
C4 = Connect4Game()


def _reachable(tree: T.Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(nodes, parent_nodes, parent_edges)`` of every node linked below the root,
    breadth-first; a node linked twice would appear twice."""
    nodes, edges = tree.nodes, tree.edges
    found, parents, via = [np.array([T.ROOT])], [np.array([T.NO_NODE])], [np.array([T.NO_EDGE])]
    frontier = found[0]
    while frontier.size:
        counts = np.maximum(nodes[frontier, T.N_NUM_EDGES], 0).astype(np.int64)
        firsts = nodes[frontier, T.N_FIRST_EDGE].astype(np.int64)
        rows = np.repeat(firsts, counts) + (
            np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        )
        owners = np.repeat(frontier, counts)
        children = edges[rows, T.E_CHILD].astype(np.int64)
        linked = children != T.UNVISITED
        frontier = children[linked]
        found.append(frontier)
        parents.append(owners[linked])
        via.append(rows[linked])
    return np.concatenate(found), np.concatenate(parents), np.concatenate(via)


def check_shared_tree(engine: MCTS, simulations: int, *, solver: bool) -> dict[str, int]:
    """Assert the invariants of a tree searched by several threads from an empty tree (see
    the module docstring); returns the measured lost updates."""
    driver = engine.driver
    assert isinstance(driver, SharedTreeDriver)
    tree = engine.tree
    nodes, edges, values = tree.nodes, tree.edges, tree.edge_values
    used = tree.num_nodes
    linked, parents, via = _reachable(tree)
    # Structure (exact): ids unique, in range, pointers back to the edge and node linking them.
    assert np.unique(linked).size == linked.size, "a node is linked twice"
    assert linked.max() < used
    child, parent, edge = linked[1:], parents[1:], via[1:]
    assert np.array_equal(nodes[child, T.N_PARENT_EDGE], edge)
    assert np.array_equal(nodes[child, T.N_PARENT], parent)
    # Every row is linked, a dead row (an unused block row) or a wasted node (exact counts).
    rows = np.ones(used, dtype=bool)
    rows[linked] = False
    unlinked = np.flatnonzero(rows)
    dead = (nodes[unlinked, T.N_PARENT] == T.NO_NODE) & (
        nodes[unlinked, T.N_PARENT_EDGE] == T.NO_EDGE
    )
    assert int(dead.sum()) == driver.hole_rows
    wasted = unlinked[~dead]
    assert wasted.size == driver.wasted_nodes
    # A wasted node points at the edge it lost, which links another node of the same move.
    lost_edges = nodes[wasted, T.N_PARENT_EDGE]
    assert np.all(edges[lost_edges, T.E_CHILD] != wasted)
    assert np.all(edges[lost_edges, T.E_CHILD] != T.UNVISITED)
    # Counts: never above the increments made, equal up to lost updates.
    first = int(nodes[T.ROOT, T.N_FIRST_EDGE])
    root_rows = slice(first, first + int(nodes[T.ROOT, T.N_NUM_EDGES]))
    root_visits = int(edges[root_rows, T.E_VISITS].sum())
    assert root_visits <= simulations
    lost_root = simulations - root_visits
    total_edge_visits = _visits_of_all_blocks(tree, linked)
    assert total_edge_visits <= driver.edge_visits
    lost_edges_total = driver.edge_visits - total_edge_visits
    mismatch = int(np.abs(edges[edge, T.E_VISITS] - nodes[child, T.N_VISITS]).sum())
    assert lost_root <= simulations // 20
    assert lost_edges_total <= driver.edge_visits // 20
    assert mismatch <= simulations // 20
    # No virtual loss left: recompute the value of every edge into a terminal node (its
    # outcome times its visits) and compare.
    terminal = nodes[child, T.N_PLAYER] == T.TERMINAL
    movers = nodes[parent[terminal], T.N_PLAYER]
    outcome = tree.node_values[child[terminal], T.NV_EXACT] * np.where(movers == 1, -1.0, 1.0)
    expected = outcome * edges[edge[terminal], T.E_VISITS]
    off = int(np.count_nonzero(values[edge[terminal], T.EV_VALUE_SUM] != expected))
    assert terminal.sum() > 10
    assert off <= max(1, int(terminal.sum()) // 20), (off, int(terminal.sum()))
    # Means stay within the outcomes' range, but for edges whose visit or value update was
    # lost to a race (a lost visit with its value kept can put a mean past 1): as rare as
    # the lost updates above.
    visited = edges[edge, T.E_VISITS] > 0
    means = values[edge[visited], T.EV_VALUE_SUM] / edges[edge[visited], T.E_VISITS]
    outside = int(np.count_nonzero(np.abs(means) > 1.0 + 1e-9))
    assert outside <= max(1, int(visited.sum()) // 20), (outside, int(visited.sum()))
    if not solver:
        assert not np.any(nodes[linked, T.N_PROVEN] != T.UNPROVEN)
    # Lazy expansion: no node is left half expanded, and the edge blocks of the expanded
    # nodes lie in the rows in use without overlapping.
    counts = nodes[linked, T.N_NUM_EDGES].astype(np.int64)
    assert not np.any(counts == EXPANDING)
    assert np.all(counts >= T.UNEXPANDED)
    assert np.count_nonzero(counts == T.UNEXPANDED) > 0  # most leaves never get edges
    expanded = counts > 0
    firsts = nodes[linked[expanded], T.N_FIRST_EDGE].astype(np.int64)
    order = np.argsort(firsts)
    starts, ends = firsts[order], firsts[order] + counts[expanded][order]
    assert np.all(ends[:-1] <= starts[1:]) and ends[-1] <= tree.num_edges
    return {"root": lost_root, "edges": lost_edges_total, "mismatch": mismatch, "off": off}


def _visits_of_all_blocks(tree: T.Tree, linked: np.ndarray) -> int:
    """Edge visits summed over the edge blocks of the linked nodes."""
    nodes, edges = tree.nodes, tree.edges
    counts = np.maximum(nodes[linked, T.N_NUM_EDGES], 0).astype(np.int64)
    firsts = nodes[linked, T.N_FIRST_EDGE].astype(np.int64)
    rows = np.repeat(firsts, counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    )
    return int(edges[rows, T.E_VISITS].sum())


def _statistics_by_line(tree: T.Tree) -> dict[tuple[int, ...], tuple[object, ...]]:
    """Every visited edge's statistics and its child's, keyed by the line of actions from the
    root: what a search computed, whatever the order of its rows (the shared loop takes its
    rows from per-thread blocks, so they are laid out differently)."""
    nodes, edges, values = tree.nodes, tree.edges, tree.edge_values
    found: dict[tuple[int, ...], tuple[object, ...]] = {}
    stack: list[tuple[int, tuple[int, ...]]] = [(T.ROOT, ())]
    while stack:
        node, line = stack.pop()
        first, count = int(nodes[node, T.N_FIRST_EDGE]), int(nodes[node, T.N_NUM_EDGES])
        for e in range(first, first + max(count, 0)):
            if edges[e, T.E_VISITS] == 0:
                continue
            child = int(edges[e, T.E_CHILD])
            here = (*line, int(edges[e, T.E_ACTION]))
            exact = (
                float(tree.node_values[child, T.NV_EXACT])
                if nodes[child, T.N_PLAYER] == T.TERMINAL or nodes[child, T.N_PROVEN] != T.UNPROVEN
                else None  # NV_EXACT of other nodes is not read (the first rollout's value)
            )
            found[here] = (
                int(edges[e, T.E_VISITS]),
                float(values[e, T.EV_VALUE_SUM]),
                int(edges[e, T.E_PROVEN]),
                int(nodes[child, T.N_VISITS]),
                int(nodes[child, T.N_PLAYER]),
                int(nodes[child, T.N_PROVEN]),
                int(nodes[child, T.N_PLIES]),
                exact,
            )
            stack.append((child, here))
    return found


def _same_tree(a: T.Tree, b: T.Tree) -> None:
    assert a.num_nodes == b.num_nodes
    assert int(a.nodes[T.ROOT, T.N_VISITS]) == int(b.nodes[T.ROOT, T.N_VISITS])
    assert int(a.nodes[T.ROOT, T.N_PROVEN]) == int(b.nodes[T.ROOT, T.N_PROVEN])
    lines_a, lines_b = _statistics_by_line(a), _statistics_by_line(b)
    assert len(lines_a) == a.num_nodes - 1  # every node but the root is on one line
    assert lines_a == lines_b


def _play(game: object, moves: str) -> playout.GameState:
    state = game.initial_state()  # type: ignore[attr-defined]
    for move in moves.split():
        state = state.play(game.string_to_action(state, move))  # type: ignore[attr-defined]
    return state


@pytest.mark.parametrize(
    ("state", "solver", "simulations"),
    [
        (TTT.initial_state(), True, 3000),
        (TTT.initial_state(), False, 3000),
        (C4.initial_state(), False, 5000),
        (_play(C4, "4 4 3 5"), True, 5000),
    ],
)
def test_one_thread_builds_the_ordinary_tree_for_a_seed(
    state: playout.GameState, solver: bool, simulations: int
) -> None:
    for seed in (0, 7):
        plain = MCTS(state, seed=seed, solver=solver)
        shared = MCTS(state, seed=seed, solver=solver, tree_threads=1)
        assert isinstance(shared.driver, SharedTreeDriver)
        one, two = (
            plain.run(Budget(simulations=simulations)),
            shared.run(Budget(simulations=simulations)),
        )
        _same_tree(plain.tree, shared.tree)
        assert (one.best_action, one.visit_counts, one.values, one.proven, one.pv) == (
            two.best_action,
            two.visit_counts,
            two.values,
            two.proven,
            two.pv,
        )
        assert shared.driver.wasted_nodes == 0
        # Tree reuse and a second search: still the same.
        plain.advance(one.best_action)
        shared.advance(one.best_action)
        if not plain.root_state.is_terminal():
            plain.run(Budget(simulations=1000))
            shared.run(Budget(simulations=1000))
            _same_tree(plain.tree, shared.tree)


@pytest.mark.parametrize("solver", [False, True])
def test_two_threads_keep_every_invariant_of_the_tree(solver: bool) -> None:
    simulations = 40_000
    engine = MCTS(C4.initial_state(), seed=3, solver=solver, tree_threads=2)
    result = engine.run(Budget(simulations=simulations))
    assert result.simulations == simulations  # exact: each thread ran its share
    check_shared_tree(engine, simulations, solver=solver)
    # Tree reuse keeps the reachable subtree only: a compact, ordinary tree.
    engine.advance(result.best_action)
    tree = engine.tree
    linked, _, _ = _reachable(tree)
    assert np.array_equal(np.sort(linked), np.arange(tree.num_nodes))
    again = engine.run(Budget(simulations=2000))
    assert again.simulations == 2000


def test_two_threads_on_a_small_tree_stop_exactly_or_when_proven() -> None:
    # Tic-tac-toe: the hottest rows; the root gets proven a draw.
    engine = MCTS(TTT.initial_state(), seed=1, tree_threads=2)
    result = engine.run(Budget(simulations=200_000))
    assert result.proven == "draw"
    assert result.simulations < 200_000
    for moves in ["0,0 1,1 2,2", "1,1 0,0", "0,0 1,0 0,1 1,1"]:
        state = _play(TTT, moves)
        exact = solve(state)
        found = MCTS(state, seed=2, tree_threads=2).run(Budget(simulations=100_000))
        assert found.proven == {1: "win", 0: "draw", -1: "loss"}[exact]
        assert -solve(state.play(found.best_action)) == exact


def test_two_threads_find_forced_wins() -> None:
    # Tic-tac-toe: the win in one is played, and the seed-000 position is proven won.
    state = _play(TTT, "0,0 0,1 1,0 1,1")
    result = MCTS(state, seed=2, tree_threads=2).run(Budget(simulations=10_000))
    assert result.proven == "win" and result.best_action == TTT.action_of(2, 0)
    state = TTT.from_grid([[0, -1, 0], [0, 1, 0], [0, 0, 0]], to_move=1)
    result = MCTS(state, seed=3, tree_threads=2).run(Budget(simulations=20_000))
    assert result.proven == "win" and result.value == 1.0
    # Connect four: forced wins within 5 plies (an exact depth-limited search says so).
    checked = 0
    for state in _random_connect4_positions(400, seed=4):
        if outcome_within(state, 1) == 1 or outcome_within(state, 5) != 1:
            continue
        result = MCTS(state, seed=checked, tree_threads=2).run(Budget(simulations=30_000))
        assert result.proven == "win", C4.render(state)
        assert outcome_within(state.play(result.best_action), 4) == -1, C4.render(state)
        checked += 1
        if checked == 4:
            break
    assert checked >= 3


def test_shares_split_the_budget_exactly() -> None:
    assert shares(10, 3) == [4, 3, 3]
    assert shares(2, 4) == [1, 1]
    assert sum(shares(1_000_001, 7)) == 1_000_001


def test_shared_tree_options_are_checked() -> None:
    with pytest.raises(InvalidParameterError, match="tree_threads"):
        MCTS(TTT.initial_state(), tree_threads=0)
    with pytest.raises(InvalidParameterError, match="needs the compiled driver"):
        MCTS(TTT.initial_state(), tree_threads=2, backend="python")
    with pytest.raises(InvalidParameterError, match="needs the compiled driver"):
        MCTS(TTT.initial_state(), tree_threads=2, selection=playout.RAVE())


def test_parallel_search_with_a_shared_tree() -> None:
    state = C4.initial_state()
    result = playout.parallel_search(
        state, simulations=6000, threads=2, shared_tree=True, seed=1, solver=False
    )
    assert result.simulations == 6000
    assert result.total_simulations <= 6000
    with pytest.raises(InvalidParameterError, match="shared_tree"):
        playout.parallel_search(state, simulations=10, workers=2, shared_tree=True)


def test_publish_links_one_node_per_edge() -> None:
    from playout._src.compiled.shared import publish
    from playout._src.jit import jit

    @jit(cache=False, nogil=True)
    def link(edges: np.ndarray, edge: int, child: int) -> bool:
        return publish(edges, edge, child)

    edges = np.full((3, T.EDGE_FIELDS), 7, dtype=np.int32)
    edges[1, T.E_CHILD] = T.UNVISITED
    assert link(edges, 1, 5)
    assert not link(edges, 1, 6)  # the second expansion of the edge is wasted
    assert edges[1, T.E_CHILD] == 5
    assert not link(edges, 0, 9) and edges[0, T.E_CHILD] == 7


def test_analyze_shared_tree_on_the_command_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from .test_cli import analyze_json, run_main

    monkeypatch.setattr("playout.cli.common.cpu_count", lambda: 2)
    report = analyze_json(
        capsys, "connect4", "--simulations", "3000", "--threads", "2", "--shared-tree",
        "--no-solver",
    )  # fmt: skip
    assert report["simulations"] == 3000  # the budget is the whole search's
    code, out, _ = run_main(
        capsys, "analyze", "tictactoe", "--simulations", "2000", "--threads", "2",
        "--shared-tree",
    )  # fmt: skip
    assert code == 0 and "shared-tree search, 2 threads" in out
    code, _, err = run_main(
        capsys, "analyze", "connect4", "--simulations", "10", "--workers", "2", "--shared-tree"
    )
    assert code == 2 and "--shared-tree" in err
