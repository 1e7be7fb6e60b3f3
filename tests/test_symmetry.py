"""Symmetries and transpositions: the games' symmetry hooks, root symmetry merging (both
drivers), tree reuse after a symmetric move, the transposition table, the options."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Hashable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import playout
from playout import MCTS, RAVE, InvalidParameterError
from playout._src import symmetry
from playout._src.tree import layout as T
from playout._src.tree import subtree
from playout.games import Connect4Game, MnkGame, tictactoe
from playout.games.connect4 import play_moves

TTT = tictactoe()
GAMES = {
    "tictactoe": TTT,
    "mnk4x3k3": MnkGame(4, 3, 3),
    "mnk6x6k4": MnkGame(6, 6, 4),
    "mnk1x5k2": MnkGame(1, 5, 2),
    "connect4": Connect4Game(),
    "connect4_5x4k3": Connect4Game(5, 4, 3),
}
GROUP_SIZES = {
    "tictactoe": 8,
    "mnk4x3k3": 4,
    "mnk6x6k4": 8,
    "mnk1x5k2": 2,
    "connect4": 2,
    "connect4_5x4k3": 2,
}
EDGES = [1, 3, 5, 7]
CORNERS = [0, 2, 6, 8]


# ------------------------------------------------------------------------------ the hooks


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_symmetries_form_a_group_of_the_right_size(name: str) -> None:
    perms = GAMES[name].action_symmetries()
    num_actions = GAMES[name].spec.num_actions
    assert len(perms) == GROUP_SIZES[name]
    assert perms[0] == tuple(range(num_actions))
    assert len(set(perms)) == len(perms)
    for p in perms:
        assert sorted(p) == list(range(num_actions))
    for p, q in itertools.product(perms, repeat=2):
        assert tuple(q[p[a]] for a in range(num_actions)) in perms  # closed


def test_rectangles_and_single_squares() -> None:
    assert len(MnkGame(3, 5, 3).action_symmetries()) == 4
    assert len(MnkGame(1, 1, 1).action_symmetries()) == 1
    assert len(Connect4Game(1, 4, 1).action_symmetries()) == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32 - 1))
def test_every_symmetry_commutes_with_the_rules(name: str, seed: int) -> None:
    # Over a random game: legal actions map to legal actions, a move's image is the image's
    # move, terminal states to terminal states with the same returns, one canonical key.
    game = GAMES[name]
    perms = game.action_symmetries()
    rng = random.Random(seed)
    state = game.initial_state()
    while True:
        key = game.canonical_key(state)
        for i, perm in enumerate(perms):
            image = game.transform_state(state, i)
            assert sorted(image.legal_actions()) == sorted(perm[a] for a in state.legal_actions())
            assert image.is_terminal() == state.is_terminal()
            assert tuple(image.returns()) == tuple(state.returns())
            assert image.current_player() == state.current_player()
            assert game.canonical_key(image) == key
            if not state.is_terminal():
                action = rng.choice(state.legal_actions())
                assert game.transform_state(state.play(action), i) == image.play(perm[action])
        if state.is_terminal():
            break
        state = state.play(rng.choice(state.legal_actions()))


def test_canonical_keys_tell_different_positions_apart() -> None:
    corner, centre = TTT.initial_state().play(0), TTT.initial_state().play(4)
    assert TTT.canonical_key(corner) == TTT.canonical_key(TTT.initial_state().play(8))
    assert TTT.canonical_key(corner) != TTT.canonical_key(centre)
    c4 = Connect4Game()
    assert c4.canonical_key(play_moves(c4, "12")) == c4.canonical_key(play_moves(c4, "76"))
    assert c4.canonical_key(play_moves(c4, "12")) != c4.canonical_key(play_moves(c4, "21"))


def test_root_classes_of_tictactoe_positions() -> None:
    classes = symmetry.root_classes(TTT.initial_state())
    assert classes is not None
    assert classes.classes == ((0, 2, 6, 8), (1, 3, 5, 7), (4,))
    assert len(classes.stabilizer) == 8
    edge_example = TTT.from_grid([[-1, 0, 0], [0, 1, 0], [0, 0, -1]], to_move=1)
    classes = symmetry.root_classes(edge_example)
    assert classes is not None
    assert classes.classes == ((1, 3, 5, 7), (2, 6))
    assert symmetry.root_classes(TTT.initial_state().play(1).play(0)) is None


# ------------------------------------------------------------------------ root merging


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_seed001_edge_squares_get_equal_shares_of_a_quarter(backend: str) -> None:
    state = TTT.from_grid([[-1, 0, 0], [0, 1, 0], [0, 0, -1]], to_move=1)
    engine = MCTS(state, simulations=8000, seed=1, solver=False, symmetry=True, backend=backend)
    assert engine.backend == backend
    assert int(engine.tree.nodes[T.ROOT, T.N_NUM_EDGES]) == 2  # one edge per class
    result = engine.run()
    assert result.actions == state.legal_actions()  # every legal action is listed
    shares = result.policy()
    assert sum(shares.values()) == pytest.approx(1.0)
    visits = dict(zip(result.actions, result.visit_counts, strict=True))
    assert max(visits[a] for a in EDGES) - min(visits[a] for a in EDGES) <= 1
    for action in EDGES:
        assert shares[action] == pytest.approx(0.25, abs=0.01)
        assert result.action_values()[action] == result.action_values()[EDGES[0]]
    assert result.best_action in EDGES
    assert result.total_simulations == 8000 == sum(result.visit_counts)


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_symmetric_moves_of_the_empty_board_get_equal_visits(backend: str) -> None:
    result = playout.search(
        TTT.initial_state(), simulations=3000, seed=4, symmetry=True, backend=backend
    )
    visits = dict(zip(result.actions, result.visit_counts, strict=True))
    for members in (CORNERS, EDGES):
        assert max(visits[a] for a in members) - min(visits[a] for a in members) <= 1
        assert len({result.action_values()[a] for a in members}) == 1
    assert sum(result.visit_counts) == result.total_simulations == 3000
    assert result.pv[0] == result.best_action


def test_sampled_final_moves_spread_over_a_class_and_the_pv_stays_legal() -> None:
    chosen = set()
    for seed in range(12):
        result = playout.search(
            TTT.initial_state(),
            simulations=300,
            seed=seed,
            symmetry=True,
            final="sample",
            temperature=100.0,
            backend="python",
        )
        chosen.add(result.best_action)
        state = TTT.initial_state()
        for action in result.pv:  # the mapped line is playable
            state = state.play(action)
    assert len(chosen & set(CORNERS)) > 1 or len(chosen & set(EDGES)) > 1


def test_symmetry_is_a_no_op_for_games_without_symmetries() -> None:
    from playout.games.bandit import BanditTreeGame

    state = BanditTreeGame().initial_state()
    plain = playout.search(state, simulations=200, seed=0)
    merged = playout.search(state, simulations=200, seed=0, symmetry=True)
    assert plain == dataclasses_replace_seconds(merged, plain.seconds)


def dataclasses_replace_seconds(result: playout.SearchResult, seconds: float) -> object:
    import dataclasses

    return dataclasses.replace(result, seconds=seconds)


def test_the_default_search_is_unchanged_when_the_options_are_off() -> None:
    state = TTT.initial_state().play(0)
    for backend in ("python", "compiled"):
        a = playout.search(state, simulations=500, seed=3, backend=backend)
        b = playout.search(
            state, simulations=500, seed=3, backend=backend, symmetry=False, transpositions=False
        )
        assert a.visit_counts == b.visit_counts and a.values == b.values


# ----------------------------------------------------------------------- tree reuse


def _check_tree(engine: MCTS) -> None:
    """Every stored state's edges are its legal actions (one per class at the root)."""
    tree = engine.tree
    states = engine.driver._states  # type: ignore[attr-defined]
    assert states[0] == engine.root_state
    for node in range(tree.num_nodes):
        count = int(tree.nodes[node, T.N_NUM_EDGES])
        if count <= 0:
            continue
        first = int(tree.nodes[node, T.N_FIRST_EDGE])
        actions = [int(a) for a in tree.edges[first : first + count, T.E_ACTION]]
        legal = set(states[node].legal_actions())
        assert set(actions) <= legal
        if node == T.ROOT and engine.root_classes is not None:
            assert len(actions) == len(engine.root_classes.classes)
        elif node != T.ROOT:
            assert set(actions) == legal
        for e in range(first, first + count):
            child = int(tree.edges[e, T.E_CHILD])
            if child != T.UNVISITED:
                assert int(tree.nodes[child, T.N_PARENT_EDGE]) == e
                assert int(tree.nodes[child, T.N_PARENT]) == node
                assert states[child] == states[node].play(int(tree.edges[e, T.E_ACTION]))
                assert int(tree.nodes[child, T.N_VISITS]) == int(tree.edges[e, T.E_VISITS])


def test_advancing_by_a_non_representative_move_keeps_the_mapped_subtree() -> None:
    engine = MCTS(
        TTT.initial_state(), simulations=2000, seed=0, symmetry=True, backend="python", solver=False
    )
    engine.run()
    classes = engine.root_classes
    assert classes is not None
    rep = next(
        a
        for a in CORNERS
        if int(subtree.find_child_edge(engine.tree.nodes, engine.tree.edges, T.ROOT, a))
        != T.NO_EDGE
    )
    other = next(a for a in CORNERS if a != rep)
    edge = int(subtree.find_child_edge(engine.tree.nodes, engine.tree.edges, T.ROOT, rep))
    kept_visits = int(engine.tree.edges[edge, T.E_VISITS])
    engine.advance(other)
    assert engine.root_state == TTT.initial_state().play(other)
    assert engine.result().total_simulations > 0
    assert int(engine.tree.nodes[T.ROOT, T.N_VISITS]) <= kept_visits
    _check_tree(engine)
    result = engine.run()
    assert set(result.actions) == set(engine.root_state.legal_actions())
    _check_tree(engine)


def test_the_compiled_driver_starts_afresh_after_a_non_representative_move() -> None:
    engine = MCTS(TTT.initial_state(), simulations=2000, seed=0, symmetry=True, backend="compiled")
    engine.run()
    reps = {
        int(a)
        for a in engine.tree.edges[: int(engine.tree.nodes[T.ROOT, T.N_NUM_EDGES]), T.E_ACTION]
    }
    other = next(a for a in CORNERS if a not in reps)
    engine.advance(other)
    assert engine.root_state == TTT.initial_state().play(other)
    assert engine.result().total_simulations == 0
    engine.advance(next(iter(reps & set(EDGES))))  # a representative: the subtree is kept
    result = engine.run()
    assert sum(result.visit_counts) == result.total_simulations


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    store_states=st.booleans(),
    transpositions=st.booleans(),
    rule=st.sampled_from(["ucb1", "rave"]),
)
def test_games_played_with_symmetry_keep_a_consistent_tree(
    seed: int, store_states: bool, transpositions: bool, rule: str
) -> None:
    if rule == "rave" and transpositions:
        transpositions = False
    selection = RAVE() if rule == "rave" else None
    game = MnkGame(4, 4, 3)
    rng = random.Random(seed)
    engine = MCTS(
        game.initial_state(),
        simulations=150,
        seed=seed,
        symmetry=True,
        transpositions=transpositions,
        store_states=store_states,
        selection=selection,
        backend="python",
    )
    state = game.initial_state()
    while not state.is_terminal():
        result = engine.run()
        assert result.actions == state.legal_actions()
        assert sum(result.policy().values()) == pytest.approx(1.0)
        action = rng.choice(state.legal_actions())  # often not the representative
        engine.advance(action)
        state = state.play(action)
        assert engine.root_state == state
        if store_states and not state.is_terminal():
            _check_tree(engine)


# ---------------------------------------------------------------------- transpositions


def _node_keys(engine: MCTS, key: object) -> dict[Hashable, list[int]]:
    states = engine.driver._states  # type: ignore[attr-defined]
    groups: dict[Hashable, list[int]] = defaultdict(list)
    for node in range(engine.tree.num_nodes):
        groups[key(states[node])].append(node)  # type: ignore[operator]
    return groups


@pytest.mark.parametrize("use_symmetry", [False, True])
def test_transposed_positions_share_one_entry_with_the_summed_visits(use_symmetry: bool) -> None:
    state = TTT.initial_state().play(4)
    engine = MCTS(
        state, simulations=3000, seed=5, transpositions=True, symmetry=use_symmetry, solver=False
    )
    assert engine.backend == "python"
    engine.run()
    table = engine.transpositions
    key = TTT.canonical_key if use_symmetry else (lambda s: s)
    groups = _node_keys(engine, key)
    assert len(table) == len(groups)
    nodes = engine.tree.nodes
    for k, members in groups.items():
        assert table.statistics(k)[0] == sum(int(nodes[n, T.N_VISITS]) for n in members)
    # Two move orders to one position: O a, X b, O c and O c, X b, O a.
    shared = TTT.initial_state().play(4).play(0).play(8).play(2)
    other_order = TTT.initial_state().play(4).play(2).play(8).play(0)
    assert shared == other_order
    members = groups[key(shared)]
    assert len(members) >= 2
    visits, mean0 = table.statistics(key(shared))
    assert visits == sum(int(nodes[n, T.N_VISITS]) for n in members) > 0
    assert -1.0 <= mean0 <= 1.0


def test_a_new_leaf_of_a_known_position_is_valued_by_the_table() -> None:
    # Selection reads the entry of a child's position, not the edge's own mean: after the
    # search, every expanded edge's score uses the shared entry.
    state = TTT.initial_state().play(4)
    engine = MCTS(state, simulations=1500, seed=2, transpositions=True, solver=False)
    engine.run()
    table = engine.transpositions
    tree = engine.tree
    states = engine.driver._states  # type: ignore[attr-defined]
    differs = 0
    for node in range(tree.num_nodes):
        first, count = int(tree.nodes[node, T.N_FIRST_EDGE]), int(tree.nodes[node, T.N_NUM_EDGES])
        for e in range(first, first + max(count, 0)):
            child = int(tree.edges[e, T.E_CHILD])
            if child == T.UNVISITED:
                continue
            entry = int(table.node_entry[child])
            assert table.statistics(states[child])[0] == int(table.visits[entry])
            differs += int(table.visits[entry]) != int(tree.edges[e, T.E_VISITS])
    assert differs > 0  # some positions were reached by more than one path


def test_transpositions_find_the_seed000_win() -> None:
    state = TTT.from_grid([[0, -1, 0], [0, 1, 0], [0, 0, 0]], to_move=1)
    for sym in (False, True):
        result = playout.search(state, simulations=800, seed=0, transpositions=True, symmetry=sym)
        assert result.proven == "win"


def test_transpositions_with_puct_and_priors_on_connect_four() -> None:
    c4 = Connect4Game(5, 4, 3)
    result = playout.search(
        c4.initial_state(),
        simulations=400,
        seed=1,
        transpositions=True,
        symmetry=True,
        selection=playout.PUCT(),
    )
    assert sum(result.visit_counts) == result.total_simulations
    visits = dict(zip(result.actions, result.visit_counts, strict=True))
    assert abs(visits[0] - visits[4]) <= 1 and abs(visits[1] - visits[3]) <= 1


# ------------------------------------------------------------------------------ options


def test_options_are_validated_and_routed() -> None:
    with pytest.raises(InvalidParameterError, match="symmetry"):
        playout.SearchConfig(symmetry="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="transpositions"):
        playout.SearchConfig(transpositions=1)  # type: ignore[arg-type]
    state = TTT.initial_state()
    assert MCTS(state, symmetry=True).backend == "compiled"
    assert MCTS(state, transpositions=True).backend == "python"
    with pytest.raises(InvalidParameterError, match="transposition"):
        MCTS(state, transpositions=True, backend="compiled")
    with pytest.raises(InvalidParameterError, match="built-in selection rule"):
        MCTS(state, transpositions=True, selection=RAVE())


def test_root_parallel_search_with_symmetry_lists_every_action() -> None:
    result = playout.parallel_search(
        TTT.initial_state(), workers=1, simulations=300, seed=0, symmetry=True
    )
    assert result.actions == TTT.initial_state().legal_actions()
    assert np.isclose(sum(result.policy().values()), 1.0)
