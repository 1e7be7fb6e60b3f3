"""The arena's public face: names exported from ``playout``, and the game hooks it asks."""

from __future__ import annotations

import random

import pytest

import playout
from playout._src import arena
from playout._src.game import GameState
from playout.games.mnk import MnkGame, neighbor_policy, tictactoe

ARENA_EXPORTS = (
    "GameRecord",
    "MatchResult",
    "MctsPlayer",
    "Player",
    "RandomPlayer",
    "TournamentResult",
    "make_executor",
    "parse_player",
    "play_game",
    "read_records",
    "run_match",
    "run_tournament",
)


@pytest.mark.parametrize("name", ARENA_EXPORTS)
def test_arena_names_are_exported_from_playout(name: str) -> None:
    assert name in playout.__all__
    assert getattr(playout, name) is getattr(arena, name)


def test_playout_all_has_each_name_once() -> None:
    assert len(set(playout.__all__)) == len(playout.__all__)
    assert all(hasattr(playout, name) for name in playout.__all__)


def test_arena_all_names_resolve() -> None:
    for name in arena.__all__:
        assert getattr(arena, name) is not None, name
    with pytest.raises(AttributeError):
        arena.no_such_name  # noqa: B018


def test_openspiel_bot_lives_in_interop() -> None:
    from playout.interop import openspiel_bot

    assert arena.OpenSpielMctsPlayer is openspiel_bot.OpenSpielMctsPlayer
    assert arena.parse_openspiel_options is openspiel_bot.parse_openspiel_options


def test_public_names_play_a_match() -> None:
    game = playout.make_game("tictactoe")
    player = playout.parse_player("mcts:simulations=30", game)
    assert isinstance(player, playout.MctsPlayer) and isinstance(player, playout.Player)
    record = playout.play_game(game, player, playout.RandomPlayer(), seed=1)
    assert isinstance(record, playout.GameRecord)
    result = playout.run_match(game, "random", "random", games=2, seed=3)
    assert isinstance(result, playout.MatchResult) and result.games == 2


class _HookedGame(MnkGame):
    """An m,n,k board offering its own ``neighbors`` rollout under another registry name."""

    __slots__ = ()

    def rollout_policies(self) -> dict[str, object]:
        return {"neighbors": _first_legal}


def _first_legal(state: GameState, rng: random.Random) -> int:
    return state.legal_actions()[0]


def test_rollout_policies_come_from_the_game() -> None:
    assert arena.rollout_policy("neighbours", tictactoe()) is neighbor_policy
    hooked = _HookedGame(3, 3, 3, name="hooked")
    assert arena.rollout_policy("neighbors", hooked) is _first_legal
    player = arena.parse_player("mcts:simulations=20,rollout=neighbors", hooked)
    assert player.options.evaluator(hooked).policy is _first_legal
    with pytest.raises(playout.InvalidParameterError, match="needs a grid game"):
        arena.rollout_policy("neighbors", playout.make_game("connect4"))


def test_openspiel_string_from_the_spec() -> None:
    assert arena.openspiel_game_string(playout.make_game("gomoku")) == "mnk(m=15,n=15,k=5)"
    assert arena.openspiel_game_string(MnkGame(3, 3, 3)) == "tic_tac_toe"
    with pytest.raises(playout.InvalidParameterError, match="openspiel-mcts plays"):
        arena.openspiel_game_string(_HookedGame(3, 3, 3, name="hooked"))


def test_mcts_specs_turn_symmetry_and_transpositions_on() -> None:
    game = playout.make_game("tictactoe")
    player = playout.parse_player("mcts:simulations=50,symmetry=yes,transpositions=yes", game)
    player.reset(game.initial_state(), 1)
    config = player._engine.config
    assert (config.symmetry, config.transpositions) == (True, True)
    plain = playout.parse_player("mcts:simulations=50", game)
    plain.reset(game.initial_state(), 1)
    assert (plain._engine.config.symmetry, plain._engine.config.transpositions) == (False, False)
    with pytest.raises(playout.InvalidParameterError):
        playout.parse_player("mcts:symmetry=maybe", game)
