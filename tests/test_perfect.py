"""The exact solver and the perfect player (playout._src.perfect)."""

from __future__ import annotations

import random

import pytest

import playout
from playout._src import arena
from playout._src.perfect import MAX_SQUARES, PerfectPlayer, solve
from playout.games.connect4 import Connect4Game
from playout.games.mnk import MnkGame, tictactoe


def _minimax(state: playout.GameState) -> float:
    """Plain recursive minimax, the value for player 0 (independent of the solver)."""
    if state.is_terminal():
        return float(state.returns()[0])
    values = [_minimax(state.play(a)) for a in state.legal_actions()]
    return max(values) if state.current_player() == 0 else min(values)


def test_tictactoe_has_5478_positions_and_is_a_draw() -> None:
    solution = solve(tictactoe())
    assert solution.num_positions == 5478  # every reachable position, finished ones included
    assert solution.value(tictactoe().initial_state()) == 0.0


def test_values_match_plain_minimax_on_random_positions() -> None:
    game = tictactoe()
    solution = solve(game)
    rng = random.Random(7)
    checked = 0
    for _ in range(12):
        state = game.initial_state()
        for _ in range(rng.randrange(2, 6)):
            if state.is_terminal():
                break
            state = state.play(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        expected = _minimax(state)
        to_move = state.current_player()
        assert solution.value(state) == (expected if to_move == 0 else -expected)
        checked += 1
    assert checked >= 8


def test_known_positions() -> None:
    game = tictactoe()
    solution = solve(game)
    # X: a1 b1, O: a2 b2; X to move wins at c1 (only winning move: O threatens c2).
    state = game.from_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], to_move=1)
    assert solution.value(state) == 1.0
    assert solution.optimal_actions(state) == (2,)
    # Against a corner opening only the centre draws (a classical result).
    corner = game.initial_state().play(0)
    assert solution.value(corner) == 0.0
    assert solution.optimal_actions(corner) == (4,)
    # After a corner opening, an edge reply loses for O.
    state = game.initial_state().play(0).play(1)
    assert solution.value(state) == 1.0


def test_small_boards_agree_with_minimax() -> None:
    game = MnkGame(3, 2, 2)  # tiny: minimax by hand is cheap
    assert solve(game).value(game.initial_state()) == _minimax(game.initial_state())
    connect = Connect4Game(3, 3, 3)
    assert solve(connect).value(connect.initial_state()) == _minimax(connect.initial_state())


def test_perfect_never_loses_and_draws_itself() -> None:
    game = tictactoe()
    versus_random = arena.run_match(game, "perfect", "random", games=30, seed=1)
    assert versus_random.losses == 0 and versus_random.wins > 15
    self_play = arena.run_match(game, "perfect", "perfect", games=20, seed=2)
    assert self_play.draws == 20
    # Different seeds pick different optimal moves.
    assert len({record.actions for record in self_play.records}) > 5


def test_mcts_with_solver_never_loses_to_perfect() -> None:
    game = tictactoe()
    result = arena.run_match(game, "mcts:simulations=2000", "perfect", games=20, seed=3)
    assert result.losses == 0


def test_perfect_player_is_seeded() -> None:
    game = tictactoe()
    player = PerfectPlayer(game)
    first = arena.play_game(game, player, PerfectPlayer(game), seed=11)
    second = arena.play_game(game, player, PerfectPlayer(game), seed=11)
    assert first.actions == second.actions


def test_refuses_large_boards() -> None:
    with pytest.raises(playout.InvalidParameterError, match="too large"):
        arena.parse_player("perfect", MnkGame(4, 4, 4))
    with pytest.raises(playout.InvalidParameterError, match="too large"):
        arena.parse_player("perfect", Connect4Game())
    assert MAX_SQUARES < 16
    # Go gives its board by its side, chess by no board at all: both refused at once.
    with pytest.raises(playout.InvalidParameterError, match="a 9x9 board"):
        arena.parse_player("perfect", playout.make_game("go"))
    with pytest.raises(playout.InvalidParameterError, match="4240 action ids"):
        arena.parse_player("perfect", playout.make_game("chess"))
    with pytest.raises(playout.InvalidParameterError, match="more than 1,000 positions"):
        solve(MnkGame(4, 3, 4), max_nodes=1000)
    with pytest.raises(playout.InvalidParameterError):
        arena.parse_player("perfect", playout.make_game("bandit"))
    with pytest.raises(playout.InvalidParameterError):
        arena.parse_player("perfect:fast", tictactoe())
