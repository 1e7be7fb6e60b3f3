"""OpenSpiel games under playout's search, through ``playout.interop.openspiel``."""

from __future__ import annotations

import pickle
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import playout  # noqa: E402
from playout import CHANCE, TERMINAL  # noqa: E402
from playout._src.errors import GameError, IllegalMoveError, MoveParseError  # noqa: E402
from playout.games import tictactoe  # noqa: E402
from playout.interop.openspiel import OpenSpielGame, OpenSpielState, from_openspiel  # noqa: E402

CONFORMING_GAMES = [
    ("tic_tac_toe", 100),
    ("connect_four", 30),
    ("breakthrough(rows=6,columns=6)", 20),
    ("hex(board_size=5)", 30),
    ("pig(winscore=10)", 30),  # two players, explicit chance (the die)
    ("catch", 30),  # one player, chance
    ("cliff_walking", 20),  # one player, rewards on the way
]


@pytest.mark.parametrize(("name", "num_games"), CONFORMING_GAMES)
def test_conformance(name: str, num_games: int) -> None:
    game = from_openspiel(name)
    report = playout.check_game(game, num_games=num_games, seed=3)
    assert report.num_games == num_games
    assert report.max_length_seen <= game.spec.max_length
    if not game.spec.is_deterministic:
        assert report.num_chance_states > 0


def test_spec_from_the_pyspiel_game() -> None:
    spec = from_openspiel("breakthrough(rows=6,columns=6)").spec
    assert (spec.name, spec.num_players, spec.num_actions) == ("breakthrough", 2, 432)
    assert spec.max_length == pyspiel.load_game("breakthrough(rows=6,columns=6)").max_game_length()
    assert spec.is_zero_sum and spec.is_deterministic and not spec.has_intermediate_rewards
    assert (spec.min_return, spec.max_return) == (-1.0, 1.0)

    pig = from_openspiel(pyspiel.load_game("pig(winscore=10)")).spec
    assert not pig.is_deterministic and pig.num_actions == 6  # die faces are actions 0..5
    cliff = from_openspiel("cliff_walking").spec
    assert cliff.num_players == 1 and cliff.has_intermediate_rewards and not cliff.is_zero_sum
    assert cliff.min_return == -199.0 and cliff.max_return == 0.0  # 0 before any reward
    catch = from_openspiel("catch").spec
    assert catch.max_length == 11  # ten moves and the chance event that drops the ball


def test_players_map_to_playout_sentinels() -> None:
    game = from_openspiel("catch")
    start = game.initial_state()
    assert start.current_player() == CHANCE
    assert sum(p for _, p in start.chance_outcomes()) == pytest.approx(1.0)
    state = start.play(start.legal_actions()[0])
    assert state.current_player() == 0 and state.chance_outcomes() == ()
    while not state.is_terminal():
        state = state.play(state.legal_actions()[0])
    assert state.current_player() == TERMINAL and state.legal_actions() == ()


def test_states_are_immutable_values() -> None:
    game = from_openspiel("tic_tac_toe")
    start = game.initial_state()
    child = start.play(4)
    assert start.history == () and start.legal_actions() == tuple(range(9))
    assert child.history == (4,) and 4 not in child.legal_actions()
    again = game.initial_state().play(4)
    assert again == child and hash(again) == hash(child)
    assert child != start.play(3)
    clone = child.pyspiel_state()
    clone.apply_action(0)
    assert child.history == (4,) and len(child.legal_actions()) == 8
    assert game.from_history([4, 0]) == child.play(0)
    restored = pickle.loads(pickle.dumps(child.play(0)))
    assert restored == child.play(0) and restored.game == game
    with pytest.raises(IllegalMoveError):
        child.play(4)


def test_notation() -> None:
    game = from_openspiel("tic_tac_toe")
    state = game.initial_state()
    assert game.action_to_string(state, 5) == "x(1,2)"  # row 1, column 2: cell 1 * 3 + 2
    assert game.string_to_action(state, "x(1,2)") == 5
    assert game.string_to_action(state, " X(1,2) ") == 5  # case and spaces are forgiven
    assert game.string_to_action(state, "5") == 5  # the integer id
    with pytest.raises(MoveParseError):
        game.string_to_action(state, "middle")
    with pytest.raises(IllegalMoveError):
        game.string_to_action(state.play(5), "5")
    with pytest.raises(IllegalMoveError):
        game.action_to_string(state, 9)
    assert game.render(state.play(5)).split() == ["...", "..x", "..."]
    over = game.from_history([0, 3, 1, 4, 2])
    assert over.is_terminal() and over.returns() == (1.0, -1.0)
    with pytest.raises(IllegalMoveError, match="over"):
        game.string_to_action(over, "x(2,2)")
    with pytest.raises(GameError):
        game.string_to_action(from_openspiel("connect_four").initial_state(), "0")


def test_games_compare_by_their_openspiel_string() -> None:
    assert from_openspiel("hex(board_size=5)") == from_openspiel(
        pyspiel.load_game("hex", {"board_size": 5})
    )
    assert from_openspiel("hex(board_size=5)") != from_openspiel("hex(board_size=4)")
    assert isinstance(from_openspiel("hex(board_size=5)").initial_state(), OpenSpielState)
    assert isinstance(from_openspiel("tic_tac_toe"), OpenSpielGame)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no_such_game", "unknown OpenSpiel game"),
        ("tic_tac_toe(colour=1)", "Unknown parameter 'colour'"),
        ("pig(players=3)", "3 players"),
        ("kuhn_poker", "hidden information"),
        ("matrix_rps", "simultaneous"),
    ],
)
def test_unsupported_games_are_refused_clearly(name: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        from_openspiel(name)


def test_hidden_information_can_be_accepted() -> None:
    game = from_openspiel("kuhn_poker", allow_imperfect_information=True)
    playout.check_game(game, num_games=30)
    assert game.initial_state().current_player() == CHANCE


def test_tic_tac_toe_agrees_with_playouts_own() -> None:
    """Same cell ids (OpenSpiel's row * 3 + col is playout's y * 3 + x), same outcomes."""
    ours, theirs = tictactoe(), from_openspiel("tic_tac_toe")
    rng = random.Random(7)
    for _ in range(200):
        mine, other = ours.initial_state(), theirs.initial_state()
        while True:
            assert sorted(mine.legal_actions()) == sorted(other.legal_actions())
            assert mine.is_terminal() == other.is_terminal()
            assert tuple(mine.returns()) == tuple(other.returns())
            if mine.is_terminal():
                break
            assert mine.current_player() == other.current_player()
            action = rng.choice(list(mine.legal_actions()))
            mine, other = mine.play(action), other.play(action)


def test_search_finds_a_win_in_one_at_tic_tac_toe() -> None:
    game = from_openspiel("tic_tac_toe")
    # x x .      x to move wins with (0,2) = action 2
    # o o .
    # . . .
    state = game.from_history([0, 3, 1, 4])
    result = playout.search(state, simulations=300, seed=0)
    assert result.best_action == 2
    assert result.proven == "win"


def test_search_finds_a_win_in_one_at_connect_four() -> None:
    game = from_openspiel("connect_four")
    state = game.from_history([0, 6, 1, 6, 2, 5])  # x holds columns 0, 1, 2 on the bottom row
    result = playout.search(state, simulations=500, seed=0)
    assert game.action_to_string(state, result.best_action) == "x3"
    assert result.proven == "win"


def test_search_runs_on_a_chance_game_and_breakthrough() -> None:
    pig = from_openspiel("pig(winscore=10)")
    result = playout.search(pig.initial_state(), simulations=200, seed=1)
    assert result.best_action in pig.initial_state().legal_actions()
    breakthrough = from_openspiel("breakthrough(rows=6,columns=6)")
    result = playout.search(breakthrough.initial_state(), simulations=100, seed=1)
    assert result.total_simulations == 100
