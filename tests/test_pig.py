"""Pig: a built-in game with explicit chance nodes (rules, exact probabilities, search)."""

from __future__ import annotations

import functools
import pickle
from fractions import Fraction

import pytest

import playout
from playout import CHANCE, TERMINAL, GameError, IllegalMoveError, MoveParseError
from playout.games.pig import HOLD, ROLL, PigGame, PigState, face_action


def roll(state: PigState, face: int) -> PigState:
    """Roll the die and let it show ``face``."""
    return state.play(ROLL).play(face_action(face))


def test_registry_spec_and_conformance() -> None:
    game = playout.make_game("pig")
    assert game == PigGame(20, 100)
    spec = game.spec
    assert (spec.name, spec.num_players, spec.num_actions) == ("pig", 2, 8)
    assert spec.is_deterministic is False  # so the solver is off by default
    assert spec.max_length == 100 * 2 * 10
    assert spec.player_names == ("player 1", "player 2")
    assert playout.make_game("pig", target="50", max_turns="10") == PigGame(50, 10)
    report = playout.check_game(game, num_games=150, seed=3)
    assert report.num_chance_states > 0
    assert report.max_length_seen <= spec.max_length
    # A tiny cap is reached in random games and still conforms (with draws and score wins).
    capped = playout.check_game(PigGame(target=100, max_turns=3), num_games=100, seed=4)
    assert capped.max_length_seen <= PigGame(100, 3).spec.max_length


@pytest.mark.parametrize(
    ("target", "max_turns"),
    # Past the bounds a rollout (or the search's path buffer) outlasts any time limit.
    [(0, 5), (5, 0), (2.5, 5), (True, 5), (10**6, 5), (5, 10**6), (10**20, 5)],
)
def test_bad_parameters(target: object, max_turns: object) -> None:
    with pytest.raises(playout.InvalidParameterError):
        PigGame(target, max_turns)  # type: ignore[arg-type]


def test_rules_roll_hold_and_lose_the_turn_total() -> None:
    game = PigGame()
    start = game.initial_state()
    assert start.current_player() == 0
    assert start.legal_actions() == (ROLL,)  # no holding with a zero turn total
    in_air = start.play(ROLL)
    assert in_air.current_player() == CHANCE
    assert in_air.legal_actions() == (2, 3, 4, 5, 6, 7)
    assert [p for _, p in in_air.chance_outcomes()] == [1 / 6] * 6
    after_four = roll(start, 4)
    assert (after_four.turn_total, after_four.player, after_four.legal_actions()) == (
        4,
        0,
        (ROLL, HOLD),
    )
    after_one = roll(after_four, 1)  # a 1 loses the turn total and ends the turn
    assert (after_one.scores, after_one.turn_total, after_one.player, after_one.turns) == (
        (0, 0),
        0,
        1,
        1,
    )
    banked = roll(roll(after_four, 6), 3).play(HOLD)
    assert (banked.scores, banked.player, banked.turns) == ((13, 0), 1, 1)
    assert banked.returns() == (0.0, 0.0)
    assert start.turn_total == 0 and after_four.turn_total == 4  # states are immutable
    with pytest.raises(GameError):
        start.chance_outcomes()


def test_reaching_the_target_wins_without_holding() -> None:
    game = PigGame(target=20)
    state = game.state((3, 18), 0, 1)
    won = roll(state, 2)
    assert won.is_terminal() and won.current_player() == TERMINAL
    assert won.returns() == (-1.0, 1.0)
    assert won.scores == (3, 20)
    assert won.legal_actions() == ()
    with pytest.raises(IllegalMoveError, match="over"):
        won.play(ROLL)
    first = roll(game.state((17, 0), 0, 0), 6)
    assert first.returns() == (1.0, -1.0)


def test_turn_cap_decides_on_banked_scores() -> None:
    game = PigGame(target=20, max_turns=2)
    last = game.state((5, 10), 7, 0, turns=1)
    held = last.play(HOLD)
    assert held.is_terminal() and held.returns() == (1.0, -1.0)  # 12 > 10
    busted = roll(last, 1)
    assert busted.is_terminal() and busted.returns() == (-1.0, 1.0)  # 5 < 10
    tied = game.state((10, 4), 6, 1, turns=1).play(HOLD)
    assert tied.is_terminal() and tied.returns() == (0.0, 0.0)


def test_notation() -> None:
    game = PigGame()
    start = game.initial_state()
    assert game.action_to_string(start, ROLL) == "roll"
    assert game.string_to_action(start, " Roll ") == ROLL
    assert game.string_to_action(start, "r") == ROLL
    with pytest.raises(IllegalMoveError, match="turn total of 0"):
        game.string_to_action(start, "hold")
    with pytest.raises(IllegalMoveError, match="not legal"):
        game.string_to_action(start, "3")  # a face while a player is to move
    in_air = start.play(ROLL)
    assert [game.action_to_string(in_air, a) for a in in_air.legal_actions()] == [
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
    ]
    assert game.string_to_action(in_air, "5") == face_action(5)
    with pytest.raises(IllegalMoveError, match="in the air"):
        game.string_to_action(in_air, "hold")
    for text in ("7", "0", "jump", ""):
        with pytest.raises(MoveParseError):
            game.string_to_action(in_air, text)
    assert "player 1 to move, turn total 0" in game.render(start)
    assert "game over: player 2 wins" in game.render(roll(game.state((0, 18), 0, 1), 3))


def test_states_pickle_and_compare() -> None:
    game = PigGame(30, 40)
    state = roll(roll(game.initial_state(), 5), 2)
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and hash(copy) == hash(state)
    assert roll(roll(game.initial_state(), 5), 2) == state


# ------------------------------------------------------------------------ exact probabilities


def exact_value(state: PigState) -> Fraction:
    """Expectimax value of ``state`` for the player to move there (player 0 at chance
    states), with exact fractions; only for positions whose game ends soon."""

    @functools.cache
    def value0(s: PigState) -> Fraction:
        if s.is_terminal():
            return Fraction(s.returns()[0]).limit_denominator()
        if s.current_player() == CHANCE:
            return sum(
                (
                    Fraction(p).limit_denominator() * value0(s.play(a))
                    for a, p in s.chance_outcomes()
                ),
                Fraction(0),
            )
        children = [value0(s.play(a)) for a in s.legal_actions()]
        return max(children) if s.current_player() == 0 else min(children)

    v = value0(state)
    return -v if state.current_player() == 1 else v


def test_exact_outcome_probabilities_on_the_last_turn() -> None:
    game = PigGame(target=20, max_turns=10)
    # Last turn, 0 vs 0: a first 1 (probability 1/6) draws, any other face wins by holding.
    assert exact_value(game.state((0, 0), 0, 0, turns=9)) == Fraction(5, 6)
    # Last turn, 0 vs 3: 1 loses; 4, 5, 6 win by holding; after a 2 or a 3 rolling on wins
    # with 5/6 and loses with 1/6 (worth 2/3, better than holding): 5/9 in all.
    assert exact_value(game.state((0, 3), 0, 0, turns=9)) == Fraction(5, 9)
    # Seen from player 1 to move (values are for the player to move).
    assert exact_value(game.state((3, 0), 0, 1, turns=9)) == Fraction(5, 9)
    # One point from the target: any face but 1 wins at once.
    near = game.state((19, 0), 0, 0).play(ROLL)
    wins = [a for a, _ in near.chance_outcomes() if near.play(a).returns() == (1.0, -1.0)]
    assert len(wins) == 5
    assert sum(p for _, p in near.chance_outcomes()) == pytest.approx(1.0)


# --------------------------------------------------------------------------------- search


def test_search_holds_when_holding_wins_for_sure() -> None:
    # Last turn of the game, 5 banked + 7 on the turn against 10: holding wins (value 1);
    # rolling loses with probability 1/6 (a 1), so it is worth at most 5/6 - 1/6 = 2/3.
    game = PigGame(target=20, max_turns=100)
    state = game.state((5, 10), 7, 0, turns=99)
    assert state.play(HOLD).returns() == (1.0, -1.0)
    assert exact_value(state) == 1
    engine = playout.MCTS(state, budget=playout.Budget(simulations=400), seed=1)
    result = engine.run()
    assert result.best_action == HOLD
    assert result.action_values()[HOLD] == 1.0
    assert result.proven is None  # the solver is off for a game with chance
    assert result.visit_counts[result.actions.index(HOLD)] > 0.9 * sum(result.visit_counts)


def test_search_rolls_when_the_opponent_is_about_to_win() -> None:
    # 0 banked + 15 on the turn against 19 (the opponent needs a single point): holding hands
    # the opponent a 5/6 win at once, rolling keeps the chance of reaching 20 now.
    state = PigGame(target=20).state((0, 19), 15, 0)
    result = playout.search(state, simulations=1500, seed=2)
    assert result.best_action == ROLL
    values = result.action_values()
    assert values[ROLL] > values[HOLD] + 0.5
    assert result.proven is None
    # Player 1 in the mirrored position makes the same choice.
    mirrored = PigGame(target=20).state((19, 0), 15, 1)
    assert playout.search(mirrored, simulations=1500, seed=2).best_action == ROLL


def test_search_samples_chance_edges_by_probability() -> None:
    state = PigGame().state((4, 4), 6, 0).play(ROLL)
    result = playout.MCTS(state, budget=playout.Budget(simulations=1200), seed=5).run()
    assert result.player == CHANCE
    assert result.actions == (2, 3, 4, 5, 6, 7)
    assert result.priors == pytest.approx([1 / 6] * 6)
    for visits in result.visit_counts:
        assert 120 <= visits <= 280  # 200 expected each


@pytest.mark.parametrize("store_states", [True, False])
def test_recomputed_states_sample_chance_by_probability_too(store_states: bool) -> None:
    """With ``store_states=False`` a non-deterministic game is searched open loop (each
    simulation replays its actions, chance outcomes drawn afresh): the chance node's visits
    still follow the outcome probabilities, and the choices match the stored-state search."""
    state = PigGame().state((4, 4), 6, 0).play(ROLL)
    engine = playout.MCTS(
        state, budget=playout.Budget(simulations=1200), seed=5, store_states=store_states
    )
    result = engine.run()
    for visits in result.visit_counts:
        assert 120 <= visits <= 280  # 200 expected each
    near_win = PigGame(target=20).state((0, 19), 15, 0)
    assert (
        playout.search(near_win, simulations=1500, seed=2, store_states=store_states).best_action
        == ROLL
    )
