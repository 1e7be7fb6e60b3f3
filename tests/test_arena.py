"""Players and matches (playout._src.arena): spec parsing, one game, a series, the interval."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import playout
from playout._src import arena
from playout.games.connect4 import Connect4Game
from playout.games.mnk import MnkGame, neighbor_policy, tictactoe


def test_parse_player_specs() -> None:
    game = MnkGame(5, 5, 4)
    assert isinstance(arena.parse_player("random", game), arena.RandomPlayer)
    player = arena.parse_player("mcts:simulations=200,rollout=neighbors,c=1.0,rollouts=3", game)
    assert isinstance(player, arena.MctsPlayer)
    assert player.name == "mcts:simulations=200,rollout=neighbors,c=1.0,rollouts=3"
    options = player.options
    assert options.budget == playout.Budget(simulations=200)
    assert options.num_rollouts == 3
    assert options.selection() == playout.UCB1(c=1.0)
    assert options.evaluator(game).policy is neighbor_policy
    assert arena.parse_player("mcts", game).options.budget == playout.Budget()
    puct = arena.parse_player("mcts:seconds=0.1,rule=puct", game)
    assert puct.options.budget == playout.Budget(seconds=0.1)
    assert isinstance(puct.options.selection(), playout.PUCT)


@pytest.mark.parametrize(
    "spec",
    [
        "minimax",
        "random:x",
        "mcts:simulations=-1",
        "mcts:seconds=0",
        "mcts:simulations",
        "mcts:simulations=1,simulations=2",
        "mcts:rollout=smart",
        "mcts:rule=puct,epsilon=0.1",
        "mcts:c=nan",
    ],
)
def test_parse_player_rejects_bad_specs(spec: str) -> None:
    with pytest.raises(playout.InvalidParameterError):
        arena.parse_player(spec, tictactoe())


def test_player_help_names_every_key_of_every_kind() -> None:
    """The help of ``match`` and ``tournament`` (and the reference page built from
    ``describe_players``) names each option a spec accepts, as ``key=``."""
    from playout._src.arena.specs import MCTS_KEYS
    from playout.cli.parser import PLAYERS_HELP
    from playout.zero.player import ZERO_KEYS

    described = arena.describe_players()
    for kind, keys in (("mcts", MCTS_KEYS), ("zero", ZERO_KEYS)):
        missing = [key for key in keys if f"{key}=" not in described[kind]]
        assert missing == [], (kind, missing)
    for kind in described:
        assert f"{kind}: " in PLAYERS_HELP


def test_neighbors_only_for_grid_games() -> None:
    with pytest.raises(playout.InvalidParameterError, match="grid game"):
        arena.parse_player("mcts:rollout=neighbors", Connect4Game())


def test_play_game_is_reproducible_and_legal() -> None:
    game = Connect4Game()
    p0 = arena.parse_player("mcts:simulations=50", game)
    p1 = arena.parse_player("random", game)
    first = arena.play_game(game, p0, p1, seed=5)
    second = arena.play_game(game, p0, p1, seed=5)
    assert first.actions == second.actions
    state = game.initial_state()
    for action in first.actions:
        state = state.play(action)
    assert state.is_terminal()
    assert first.returns == tuple(state.returns())
    assert first.players == ("mcts:simulations=50", "random")


def test_mcts_player_keeps_its_tree() -> None:
    game = tictactoe()
    player = arena.parse_player("mcts:simulations=100", game)
    state = game.initial_state()
    player.reset(state, seed=1)
    action = player.choose(state)
    player.notify(action)
    state = state.play(action)
    reply = next(a for a in state.legal_actions())
    player.notify(reply)
    state = state.play(reply)
    player.choose(state)
    assert player.last_result.total_simulations > 100


class Scripted:
    """A player for tests: always the lowest legal action."""

    name = "lowest"

    def reset(self, state: playout.GameState, seed: int) -> None:
        pass

    def choose(self, state: playout.GameState) -> int:
        return min(state.legal_actions())

    def notify(self, action: int) -> None:
        pass


def test_run_match_alternates_and_counts_from_p1() -> None:
    game = tictactoe()
    # Lowest-square play: the first player wins on the top row... checked by hand below.
    result = arena.run_match(game, Scripted(), Scripted(), games=4, seed=0)
    assert isinstance(Scripted(), arena.Player)
    # X takes 0, 2, 4, 6: the anti-diagonal 2-4-6 wins for whoever moves first.
    assert all(record.winner == 0 for record in result.records)
    assert result.outcomes() == (1.0, 0.0, 1.0, 0.0)
    assert (result.wins, result.draws, result.losses) == (2, 0, 2)
    assert result.score == 0.5
    summary = result.as_dict()
    assert summary["ci_method"] == "wilson"
    assert [r["p1_first"] for r in summary["results"]] == [True, False, True, False]


def test_run_match_progress_and_errors() -> None:
    game = tictactoe()
    seen: list[int] = []
    arena.run_match(game, "random", "random", games=3, progress=lambda done, _: seen.append(done))
    assert seen == [1, 2, 3]
    with pytest.raises(playout.InvalidParameterError):
        arena.run_match(game, "random", "random", games=0)
    with pytest.raises(playout.InvalidParameterError):
        arena.run_match(playout.make_game("bandit"), "random", "random", games=1)
    # The jobs are laid out before the first game: a match is bounded.
    with pytest.raises(playout.InvalidParameterError, match=r"games must be a whole number in"):
        arena.run_match(game, "random", "random", games=10**8)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"prior_draws": math.nan}, "prior_draws"),  # the ratings were all NaN
        ({"prior_draws": "x"}, "prior_draws"),  # a TypeError after the whole tournament
        ({"anchor": True}, "anchor"),
        ({"anchor": "x"}, "anchor"),
    ],
)
def test_tournament_settings_are_checked_before_any_game(
    options: dict[str, object], match: str
) -> None:
    with pytest.raises(playout.InvalidParameterError, match=match):
        arena.run_tournament(tictactoe(), ["random", "random"], 2, **options)  # type: ignore[arg-type]


def test_names_that_are_not_strings_are_typed_errors() -> None:
    with pytest.raises(playout.InvalidParameterError, match="a player spec is a string"):
        arena.parse_player(None, tictactoe())  # type: ignore[arg-type]
    for name in (None, ["x"], 5):
        with pytest.raises(playout.UnknownGameError, match="a game's name is a string"):
            playout.make_game(name)  # type: ignore[arg-type]


def test_merged_results_check_their_temperature_and_seed() -> None:
    parts = [playout.search(tictactoe().initial_state(), simulations=50, seed=k) for k in range(2)]
    bad_temperatures = (-1.0, 0, math.nan, math.inf, 10**400, True, "1", None)
    for bad in bad_temperatures:
        with pytest.raises(playout.InvalidParameterError, match="temperature"):
            playout.merge_results(parts, final="sample", temperature=bad)  # type: ignore[arg-type]
        # The search's own setting refuses the same (one check serves both).
        with pytest.raises(playout.InvalidParameterError, match="temperature"):
            playout.SearchConfig(temperature=bad)  # type: ignore[arg-type]
    state = tictactoe().initial_state()
    for good in (0.5, np.float32(2.0), 3, Fraction(1, 2), np.float16(0.5), 2**64):
        # Kept as a float: the compiled final-move choice takes nothing else.
        config = playout.SearchConfig(temperature=good)
        assert type(config.temperature) is float and config.temperature == float(good)
        merged = playout.merge_results(parts, final="sample", temperature=good, seed=1)
        sampled = playout.search(state, simulations=20, seed=1, final="sample", temperature=good)
        assert merged.best_action in state.legal_actions()
        assert sampled.best_action in state.legal_actions()
    with pytest.raises(playout.InvalidParameterError, match="seed"):
        playout.merge_results(parts, seed=-1)


def test_openings_give_deterministic_players_different_games_in_pairs() -> None:
    game = Connect4Game()
    plain = arena.run_match(game, Scripted(), Scripted(), games=8, seed=3)
    assert len({r.actions for r in plain.records}) == 1  # the same game again and again
    opened = arena.run_match(game, Scripted(), Scripted(), games=8, seed=3, openings=4)
    openings = [r.actions[:4] for r in opened.records]
    for index, record in enumerate(opened.records):
        assert record.opening == 4
        assert record.actions[:4] == openings[index - index % 2]  # a pair shares it
        state = game.initial_state()
        for action in record.actions:  # a legal game from the initial position
            state = state.play(action)
        assert state.is_terminal() and record.returns == state.returns()
        # After the opening, each side plays its own (lowest-column) move.
        state = game.initial_state()
        for action in record.actions[:4]:
            state = state.play(action)
        assert record.actions[4] == min(state.legal_actions())
    assert len(set(openings[::2])) == 4  # four pairs, four openings
    again = arena.run_match(game, Scripted(), Scripted(), games=8, seed=3, openings=4)
    assert [r.actions for r in again.records] == [r.actions for r in opened.records]
    saved = arena.record_to_json(game, opened.records[0])
    assert saved["opening"] == 4 and "opening" not in arena.record_to_json(game, plain.records[0])


@pytest.mark.parametrize("openings", [-1, 1.5, True])
def test_bad_openings_are_refused(openings: object) -> None:
    with pytest.raises(playout.InvalidParameterError, match="openings"):
        arena.run_match(tictactoe(), "random", "random", games=2, openings=openings)  # type: ignore[arg-type]
    with pytest.raises(playout.InvalidParameterError, match="openings"):
        arena.run_tournament(tictactoe(), ["random", "random"], 2, openings=openings)  # type: ignore[arg-type]


def test_openings_leave_the_game_to_the_players_in_a_chance_game() -> None:
    import random

    pig = playout.make_game("pig")
    for seed in range(200):
        state, _ = arena.random_opening(pig, 30, random.Random(seed))
        assert not state.is_terminal()
    result = arena.run_match(pig, "random", "random", games=10, seed=1, openings=30)
    assert all(record.opening < record.num_moves for record in result.records)


def test_tournament_openings_pair_the_same_players_with_seats_swapped() -> None:
    from playout._src.arena.tournament import _tournament_jobs

    for games_per_pair in (2, 3):
        jobs, _ = _tournament_jobs(tictactoe(), ["A", "B", "C"], games_per_pair, 5, None, 3)
        groups: dict[tuple[int, ...], list[tuple[object, ...]]] = {}
        for job in jobs:
            groups.setdefault(job.opening, []).append(job.players)
        for players in groups.values():
            assert len(players) <= 2
            assert len(players) == 1 or players[0] == players[1][::-1]


def test_an_illegal_opening_is_a_game_error() -> None:
    with pytest.raises(playout.GameError, match="opening"):
        arena.play_game(tictactoe(), Scripted(), Scripted(), opening=(4, 4))


def test_wilson_interval() -> None:
    low, high = arena.wilson_interval(0.5, 100)
    assert math.isclose(low, 0.4038, abs_tol=1e-3) and math.isclose(high, 0.5962, abs_tol=1e-3)
    low, high = arena.wilson_interval(1.0, 10)
    assert math.isclose(high, 1.0) and 0.69 < low < 0.73  # does not collapse after a sweep
    assert arena.wilson_interval(0.0, 10)[0] == 0.0
    assert arena.wilson_interval(0.3, 0) == (0.0, 1.0)
