"""``SelfPlaySettings(value_mix=...)``: the value target ``(1 - mix) * z + mix * q`` takes the
outcome ``z`` and the search value ``q`` both for the player to move at the position."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("torch")

import playout
from playout.games import tictactoe
from playout.zero.selfplay import SelfPlaySettings, _finish, _play_move, _Slot


@pytest.mark.parametrize("mix", [0.0, 0.5, 1.0])
def test_the_mixed_target_is_for_the_player_to_move(mix: float) -> None:
    # O (the second player) to move wins at once: z = +1 for O, and the search (solver off)
    # values the position above 0 for O, below 1: a sign slip in either term shows.
    game = tictactoe()
    state = game.from_grid([[1, 1, 0], [-1, -1, 0], [1, 0, 0]], to_move=-1)
    assert state.current_player() == 1
    engine = playout.MCTS(state, simulations=200, seed=0, solver=False)
    q = engine.run().value
    assert 0.0 < q < 1.0
    slot = _Slot(engine, None, 0)
    assert _play_move(slot, 9, 0, random.Random(0))
    record = _finish(slot, game, SelfPlaySettings(value_mix=mix, augment=False))
    assert record.outcome0 == -1.0  # player 0's return: O won
    expected = (1.0 - mix) * 1.0 + mix * q
    assert [example.value for example in record.examples] == pytest.approx([expected])


def test_a_random_move_is_drawn_from_the_legal_moves_with_the_runs_stream() -> None:
    game = tictactoe()
    state = game.from_grid([[1, 0, 0], [0, -1, 0], [0, 0, 0]], to_move=1)
    engine = playout.MCTS(state, simulations=50, seed=0)
    engine.run()
    slot = _Slot(engine, None, 0)
    _play_move(slot, 9, 0, random.Random(7), random_rate=1.0)
    replay = random.Random(7)
    assert replay.random() < 1.0
    assert slot.moves == [replay.choice(list(state.legal_actions()))]
    assert slot.last_random == 0
    # Rate 0 draws nothing from the stream: the search's move, as without the option.
    engine = playout.MCTS(state, simulations=50, seed=0)
    best = int(engine.run().best_action)
    slot, rng = _Slot(engine, None, 0), random.Random(7)
    _play_move(slot, 9, 0, rng, random_rate=0.0)
    assert slot.moves == [best] and slot.last_random == -1
    assert rng.random() == random.Random(7).random()


def test_positions_before_a_random_move_learn_the_search_value_alone() -> None:
    # A game from the empty board whose third move is random: the outcome is the target's
    # half only from the fourth position on; before, the target is the search's value q.
    game = tictactoe()
    engine = playout.MCTS(game.initial_state(), simulations=50, seed=1)
    slot, rng = _Slot(engine, None, 0), random.Random(5)
    over = False
    while not over:
        engine.run()
        over = _play_move(slot, 9, 0, rng, random_rate=1.0 if slot.plies == 2 else 0.0)
    assert slot.last_random == 2 and len(slot.history) >= 5
    record = _finish(slot, game, SelfPlaySettings(value_mix=0.5, augment=False))
    assert len(record.examples) == len(slot.history)
    for index, ((state, _, q), example) in enumerate(
        zip(slot.history, record.examples, strict=True)
    ):
        z = record.outcome0 if state.current_player() == 0 else -record.outcome0
        want = q if index <= 2 else 0.5 * z + 0.5 * q
        assert example.value == pytest.approx(want)
