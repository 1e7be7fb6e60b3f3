"""Seed 000's own Tic-Tac-Toe classes, played through the seed adapter."""

from __future__ import annotations

import random
from typing import Self

import numpy as np
import pytest

from playout import TERMINAL, IllegalMoveError, MoveParseError
from playout.games import from_seed_state, tictactoe
from playout.games.seed import SeedGame, SeedState, SeedValueState

from .seed_tictactoe import TicTacToeAction, TicTacToeGameState


def new_game() -> SeedGame:
    return from_seed_state(TicTacToeGameState(), name="seed-tictactoe")


def play_squares(game: SeedGame, squares: list[tuple[int, int]]) -> SeedState:
    """Play seed actions ``Action(x, y)`` (x = column, y = row) through their notation."""
    state = game.initial_state()
    for x, y in squares:
        state = state.play(game.string_to_action(state, f"Action({x}, {y})"))
    return state


def test_spec_and_players() -> None:
    game = new_game()
    spec = game.spec
    assert (spec.name, spec.num_players, spec.num_actions, spec.max_length) == (
        "seed-tictactoe",
        2,
        None,
        None,
    )
    assert from_seed_state(TicTacToeGameState()).spec.name == "seed-game"
    state = game.initial_state()
    players = []
    for action in [4, 0, 8]:
        players.append(state.current_player())
        state = state.play(action)
    players.append(state.current_player())
    assert players == [0, 1, 0, 1]
    assert state.returns() == (0.0, 0.0)


def test_ids_follow_the_seed_action_order_and_stay_stable() -> None:
    game = new_game()
    root = game.initial_state()
    # get_possible_actions() scans rows top to bottom: Action(x, y) gets id y * 3 + x.
    assert root.legal_actions() == tuple(range(9))
    assert [game.action_for_id(i) for i in range(9)] == [
        TicTacToeAction(x, y) for y in range(3) for x in range(3)
    ]
    assert game.action_to_string(root, 5) == "Action(2, 1)"
    child = root.play(4)
    assert child.legal_actions() == (0, 1, 2, 3, 5, 6, 7, 8)
    grandchild = child.play(2)
    assert grandchild.legal_actions() == (0, 1, 3, 5, 6, 7, 8)
    assert game.actions == tuple(TicTacToeAction(x, y) for y in range(3) for x in range(3))
    assert new_game().initial_state().legal_actions() == tuple(range(9))  # a fresh game, same ids


def test_x_wins() -> None:
    game = new_game()
    state = play_squares(game, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == ()
    assert state.returns() == (1.0, -1.0)
    assert state.inner.get_winner() == -1  # seen from O, to move: the other player won


def test_o_wins() -> None:
    game = new_game()
    state = play_squares(game, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2), (2, 1)])
    assert state.is_terminal()
    assert state.returns() == (-1.0, 1.0)


def test_draw() -> None:
    game = new_game()
    squares = [(0, 0), (1, 0), (2, 0), (1, 1), (0, 1), (2, 1), (1, 2), (0, 2), (2, 2)]
    state = play_squares(game, squares)
    assert state.is_terminal()
    assert state.returns() == (0.0, 0.0)


def test_wrapped_seed000_example_position() -> None:
    """Seed 000's example board, seen from the player to move: that player is player 0."""
    board = np.array([[0, -1, 0], [0, 1, 0], [0, 0, 0]], dtype=np.int8)
    game = from_seed_state(TicTacToeGameState(board))
    state = game.initial_state()
    assert state.current_player() == 0
    assert len(state.legal_actions()) == 7
    # The player to move owns the centre (1 in the seed's board): two more corners win.
    state = play_squares(game, [(0, 0), (0, 1)])
    assert not state.is_terminal()
    state = play_squares(game, [(0, 0), (0, 1), (2, 2)])
    assert state.returns() == (1.0, -1.0)


def test_agrees_with_the_builtin_tictactoe_on_random_games() -> None:
    seed_game = new_game()
    ttt = tictactoe()
    rng = random.Random(11)
    for _ in range(40):
        wrapped = seed_game.initial_state()
        native = ttt.initial_state()
        while not native.is_terminal():
            assert not wrapped.is_terminal()
            assert wrapped.current_player() == native.current_player()
            action = seed_game.action_for_id(rng.choice(wrapped.legal_actions()))
            wrapped = wrapped.play(seed_game.id_for(action))
            native = native.play(action.y * 3 + action.x)
            assert wrapped.returns() == native.returns()
        assert wrapped.is_terminal()


def test_notation_and_errors() -> None:
    game = new_game()
    root = game.initial_state()
    assert game.string_to_action(root, "Action(1, 2)") == 7
    assert game.string_to_action(root, " 7 ") == 7
    with pytest.raises(MoveParseError):
        game.string_to_action(root, "center")
    child = root.play(7)
    with pytest.raises(IllegalMoveError):
        game.string_to_action(child, "7")
    with pytest.raises(IllegalMoveError):
        child.play(7)
    with pytest.raises(IllegalMoveError):
        child.play(99)
    with pytest.raises(IllegalMoveError, match="not legal"):
        game.string_to_action(child, "Action(1, 2)")  # a known action, no longer free
    assert "Action(1, 2)" not in [game.action_to_string(child, a) for a in child.legal_actions()]
    won = play_squares(game, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])
    with pytest.raises(IllegalMoveError, match="over"):
        game.string_to_action(won, "8")
    with pytest.raises(IllegalMoveError, match="over"):
        won.play(8)
    assert "player 1 to move" in game.render(child)


def test_states_are_immutable_and_hash_by_identity() -> None:
    game = new_game()
    root = game.initial_state()
    before = root.inner.board.copy()
    root.play(4)
    assert (root.inner.board == before).all()
    assert type(root) is SeedState  # numpy boards have no equality: identity semantics
    assert root == root and root != game.initial_state().play(4)
    assert hash(root) == hash(root)


class SeedNim:
    """A seed-000-style game with value equality: take 1 or 2 from a pile, last stone wins."""

    def __init__(self, pile: int) -> None:
        self.pile = pile

    def get_winner(self) -> int | None:
        return -1 if self.pile == 0 else None  # the player who just moved took the last stone

    def get_possible_actions(self) -> list[int]:
        return [1, 2] if self.pile >= 2 else [1]

    def transition(self, action: int) -> Self:
        return type(self)(self.pile - action)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeedNim) and other.pile == self.pile

    def __hash__(self) -> int:
        return hash(self.pile)

    def __str__(self) -> str:
        return f"pile {self.pile}"


def test_value_equality_when_the_seed_state_has_it() -> None:
    game = from_seed_state(SeedNim(6), name="nim")
    root = game.initial_state()
    assert isinstance(root, SeedValueState)
    one, two = game.string_to_action(root, "1"), game.string_to_action(root, "2")
    assert (one, two) == (0, 1)  # the text of an action wins over an id of the same spelling
    # 1 + 2 and 2 + 1 reach the same pile with the same player to move.
    assert root.play(one).play(two) == root.play(two).play(one)
    assert hash(root.play(one).play(two)) == hash(root.play(two).play(one))
    assert root.play(one) != root.play(two)
    end = root.play(two).play(two).play(two)  # player 0 takes the last two
    assert end.returns() == (1.0, -1.0)
