"""The exact connect-four solver (:mod:`playout.games.connect4.solver`).

Its scores are checked against two independent references: playout's brute-force solver
(:mod:`playout._src.perfect`, win/draw/loss of every position of a 4x3 board with three in a
row) and a plain memoised negamax over :class:`Connect4State` written below, which gives the
exact scores (how soon) on small boards and on 7x6 endgames; then hand-checked 7x6 positions.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playout import GameOverError, InvalidParameterError
from playout._src.perfect import solve as brute_force
from playout.games import Connect4Game, Connect4State, tictactoe
from playout.games.connect4 import solver
from playout.games.connect4.solver import Connect4Solver, SolverLimitError

C4 = Connect4Game()


@functools.cache
def reference_score(state: Connect4State) -> int:
    """The score of a running position by plain negamax over every move (no pruning)."""
    game = state.game
    cells = game.width * game.height
    best = -cells
    for action in state.legal_actions():
        child = state.play(action)
        if child.is_terminal():
            score = (cells + 1 - state.num_moves) // 2 if child.winner() is not None else 0
        else:
            score = -reference_score(child)
        best = max(best, score)
    return best


def reference_move_scores(state: Connect4State) -> dict[int, int]:
    """Each legal move's score for its mover, by :func:`reference_score`."""
    cells = state.game.width * state.game.height
    scores = {}
    for action in state.legal_actions():
        child = state.play(action)
        if child.is_terminal():
            scores[action] = (cells + 1 - state.num_moves) // 2 if child.winner() is not None else 0
        else:
            scores[action] = -reference_score(child)
    return scores


def random_position(game: Connect4Game, columns: list[int]) -> Connect4State | None:
    """The position after playing ``columns`` (each taken modulo the legal moves), or
    ``None`` when the game ends on the way."""
    state = game.initial_state()
    for choice in columns:
        legal = state.legal_actions()
        state = state.play(legal[choice % len(legal)])
        if state.is_terminal():
            return None
    return state


@pytest.mark.parametrize(("width", "height", "k"), [(4, 3, 3), (3, 4, 3), (4, 3, 4)])
def test_every_position_of_a_small_board_agrees_with_the_brute_force(
    width: int, height: int, k: int
) -> None:
    game = Connect4Game(width=width, height=height, k=k)
    values0 = brute_force(game).values0
    sv = Connect4Solver(game, table_size=1 << 12)
    checked = 0
    for state, value0 in values0.items():
        if state.is_terminal():
            continue
        assert isinstance(state, Connect4State)
        expected = int(value0) if state.current_player() == 0 else -int(value0)
        assert sv.outcome(state) == expected, state
        checked += 1
    assert checked > 1_000


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 6), min_size=3, max_size=14))
def test_exact_scores_agree_with_plain_negamax_on_4x4_three_in_a_row(columns: list[int]) -> None:
    state = random_position(Connect4Game(width=4, height=4, k=3), columns)
    if state is None:
        return
    assert solver.solve(state) == reference_score(state)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 4), min_size=8, max_size=19))
def test_exact_scores_agree_with_plain_negamax_on_5x4_four_in_a_row(columns: list[int]) -> None:
    state = random_position(Connect4Game(width=5, height=4, k=4), columns)
    if state is None:
        return
    scores = solver.move_scores(state)
    assert scores == reference_move_scores(state)
    assert solver.solve(state) == reference_score(state) == max(scores.values())


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 6), min_size=32, max_size=32))
def test_7x6_endgames_agree_with_plain_negamax(columns: list[int]) -> None:
    state = random_position(C4, columns)
    if state is None:
        return
    assert solver.solve(state) == reference_score(state)


def test_other_k_and_a_full_64_bit_board() -> None:
    tall = Connect4Game(width=8, height=7, k=5)  # 8 * (7 + 1) = 64 bits
    rng = random.Random(5)
    checked = 0
    while checked < 5:
        state = random_position(tall, [rng.randrange(8) for _ in range(44)])
        if state is not None:
            assert solver.solve(state) == reference_score(state)
            checked += 1
    assert solver.solve(Connect4Game(width=3, height=3, k=1).initial_state()) == 5


def test_immediate_win() -> None:
    # Bottom row X X X . . X X (O on top of each): X to move wins in column 4 at once.
    state = C4.from_moves("7766112233")
    assert solver.solve(state) == (43 - 10) // 2 == 16
    assert solver.outcome(state) == 1
    assert solver.plies_to_end(state) == 1
    assert solver.best_moves(state) == (3,)


def test_must_block() -> None:
    state = C4.from_moves("776611223")  # O to move; X threatens column 4 only
    scores = solver.move_scores(state)
    assert set(scores) == set(range(7))
    for action, score in scores.items():
        if action != 3:  # X completes the row with the tenth stone on the board
            assert score == -((43 - 10) // 2)
    assert scores[3] > -16
    assert solver.best_moves(state) == (3,)
    assert solver.solve(state) == scores[3]


def test_forced_win_three_plies_deep() -> None:
    # X on columns 3 and 4 of the bottom row, both ends open: 2 or 5 makes an open three
    # that O cannot stop; X wins with its fourth stone (the seventh on the board).
    state = C4.from_moves("3747")
    assert solver.solve(state) == (43 - 6) // 2 == 18
    assert solver.plies_to_end(state) == 3
    for action in (1, 4):
        assert solver.solve(state.play(action)) == -18
        assert solver.plies_to_end(state.play(action)) == 2


def test_solve_is_the_best_move_score() -> None:
    rng = random.Random(3)
    checked = 0
    while checked < 6:
        state = random_position(C4, [rng.randrange(7) for _ in range(rng.randrange(14, 26))])
        if state is None:
            continue
        scores = solver.move_scores(state)
        assert solver.solve(state) == max(scores.values())
        assert solver.outcome(state) == (max(scores.values()) > 0) - (max(scores.values()) < 0)
        checked += 1


def test_a_ten_stone_position_in_bounded_time() -> None:
    state = C4.from_moves("3132757642")
    sv = Connect4Solver(C4)
    score = sv.solve(state)
    assert 0 < sv.nodes < 20_000_000
    # The same score through another route: the best child, on a fresh, smaller table.
    assert max(Connect4Solver(C4, table_size=1 << 20).move_scores(state).values()) == score


def test_node_bound_raises_a_typed_error_and_the_solver_recovers() -> None:
    sv = Connect4Solver(C4, max_nodes=1_000)
    state = C4.from_moves("44")
    with pytest.raises(SolverLimitError, match="max_nodes"):
        sv.solve(state)
    late = C4.from_moves("2252576253462244111563365343671351441")
    assert sv.solve(late, max_nodes=1_000_000) == reference_score(late)


def test_bad_input() -> None:
    with pytest.raises(InvalidParameterError, match="Connect4State"):
        solver.solve(tictactoe().initial_state())  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="64"):
        solver.solve(Connect4Game(width=8, height=8).initial_state())
    with pytest.raises(InvalidParameterError, match="64"):
        Connect4Solver(Connect4Game(width=16, height=4))
    with pytest.raises(InvalidParameterError, match="not a position"):
        Connect4Solver(C4).solve(Connect4Game(width=6, height=5).initial_state())
    with pytest.raises(InvalidParameterError, match="max_nodes"):
        Connect4Solver(C4, max_nodes=0)
    with pytest.raises(GameOverError):
        solver.solve(C4.from_moves("1212121"))
