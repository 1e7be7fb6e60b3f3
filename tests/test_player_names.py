"""GameSpec.player_names: defaults, validation and the names of the built-in games."""

from __future__ import annotations

import dataclasses

import pytest

import playout
from playout import GameError, GameSpec
from playout.games import BanditTreeGame, Connect4Game, MnkGame, from_seed_state, tictactoe
from playout.games.pig import PigGame

from .seed_tictactoe import TicTacToeGameState


def test_defaults() -> None:
    two = GameSpec(name="g", num_players=2, num_actions=3, max_length=3)
    assert two.player_names == ("X", "O")
    assert two.player_name(0) == "X" and two.player_name(1) == "O"
    one = GameSpec(name="p", num_players=1, num_actions=2, max_length=2, is_zero_sum=False)
    assert one.player_names == ("player 0",)
    # replace() keeps the filled-in names valid (the conformance checker rebuilds specs).
    assert dataclasses.replace(two).player_names == ("X", "O")
    assert dataclasses.replace(two, player_names=("A", "B")).player_name(1) == "B"


def test_given_names_become_a_tuple() -> None:
    spec = GameSpec(
        name="g", num_players=2, num_actions=3, max_length=3, player_names=["Light", "Dark"]
    )  # type: ignore[arg-type]
    assert spec.player_names == ("Light", "Dark")


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("X",), "1 entries for 2 players"),
        (("X", "O", "Z"), "3 entries"),
        ("XO", "tuple of strings"),
        (("X", ""), "non-empty strings"),
        (("X", "  "), "non-empty strings"),
        (("X", 1), "non-empty strings"),
        (("X", "X"), "distinct"),
        (7, "tuple of strings"),
    ],
)
def test_invalid_names(names: object, message: str) -> None:
    with pytest.raises(GameError, match=message):
        GameSpec(name="g", num_players=2, num_actions=3, max_length=3, player_names=names)  # type: ignore[arg-type]


def test_player_name_rejects_unknown_players() -> None:
    spec = tictactoe().spec
    for player in (-1, 2, True):
        with pytest.raises(GameError, match="no player"):
            spec.player_name(player)


def test_builtin_games_name_their_players() -> None:
    assert tictactoe().spec.player_names == ("X", "O")
    assert MnkGame(6, 6, 4).spec.player_names == ("X", "O")
    assert playout.make_game("gomoku").spec.player_names == ("X", "O")
    assert Connect4Game().spec.player_names == ("Red", "Yellow")
    assert playout.make_game("connect4").spec.player_name(0) == "Red"
    assert PigGame().spec.player_names == ("player 1", "player 2")
    assert BanditTreeGame().spec.player_names == ("player 0",)
    assert from_seed_state(TicTacToeGameState()).spec.player_names == ("X", "O")


def test_chess_names() -> None:
    pytest.importorskip("chess")
    game = playout.make_game("chess")
    assert game.spec.player_names == ("White", "Black")
    # Player 0 is white (the side to move in the standard start position).
    assert game.spec.player_name(game.initial_state().current_player()) == "White"
