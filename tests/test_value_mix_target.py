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
