"""Pure text rendering of search results (playout.render)."""

from __future__ import annotations

import math

import pytest

import playout
from playout import render
from playout.games.connect4 import Connect4Game
from playout.games.mnk import MnkGame, tictactoe


def fake_result(actions: list[int], visits: list[int], values: list[float]) -> playout.SearchResult:
    best = actions[max(range(len(actions)), key=visits.__getitem__)]
    total = sum(visits)
    value = sum(n * q for n, q in zip(visits, values, strict=True)) / total if total else 0.0
    return playout.SearchResult(
        best_action=best,
        actions=tuple(actions),
        visit_counts=tuple(visits),
        values=tuple(values),
        priors=tuple(0.0 for _ in actions),
        value=value,
        pv=(best,),
        player=0,
        simulations=total,
        total_simulations=total,
        seconds=0.5,
        nodes=total + 1,
        max_depth=3,
    )


def test_grid_text_lays_out_rows_top_to_bottom() -> None:
    text = render.grid_text({0: 0.5, 2: -0.25, 4: 1.0, 8: 0.0}, 3, 3)
    assert text.splitlines() == [
        "      a     b     c",
        "1  0.50     . -0.25",
        "2     .  1.00     .",
        "3     .     .  0.00",
    ]


def test_grid_text_decimals_blank_and_labels() -> None:
    text = render.grid_text(
        {1: 0.123, 2: None, 3: math.nan},
        2,
        2,
        decimals=1,
        blank="-",
        column_labels=["x0", "x1"],
        row_labels=["top", "bot"],
    )
    assert text.splitlines() == ["     x0  x1", "top   - 0.1", "bot   -   -"]


def test_grid_text_one_row_for_columns() -> None:
    text = render.grid_text({a: a / 10 for a in range(7)}, 7, 1)
    header, row = text.splitlines()
    assert header.split() == ["1", "2", "3", "4", "5", "6", "7"]
    assert row.split() == ["0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60"]


def test_grid_text_rejects_bad_sizes() -> None:
    with pytest.raises(playout.InvalidParameterError):
        render.grid_text({}, 0, 3)
    with pytest.raises(playout.InvalidParameterError):
        render.grid_text({}, 3, 3, column_labels=["a"])


def test_probability_and_value_grids_seed001_layout() -> None:
    # Seed 001's position [[-1,0,0],[0,1,0],[0,0,-1]]: legal squares are the six others.
    legal = [1, 2, 3, 5, 6, 7]
    result = fake_result(legal, [25, 0, 0, 25, 0, 50], [0.5, 0.0, 0.0, 0.5, 0.0, 0.25])
    probabilities = render.probability_grid(result, 3, 3)
    assert probabilities == [
        [0.0, 0.25, 0.0],
        [0.0, 0.0, 0.25],
        [0.0, 0.5, 0.0],
    ]
    assert math.isclose(sum(sum(row) for row in probabilities), 1.0)
    values = render.value_grid(result, 3, 3)
    assert values == [
        [None, 0.5, None],
        [None, None, 0.5],
        [None, 0.25, None],
    ]
    assert render.value_grid(result, 3, 3, fill=0.0)[0] == [0.0, 0.5, 0.0]
    assert render.grid_values(probabilities)[7] == 0.5


def test_grids_from_a_real_search() -> None:
    game = tictactoe()
    state = game.initial_state().play(4)  # X in the centre
    result = playout.search(state, simulations=200, seed=1)
    grid = render.probability_grid(result, 3, 3)
    assert len(grid) == 3 and all(len(row) == 3 for row in grid)
    assert grid[1][1] == 0.0
    assert math.isclose(sum(sum(row) for row in grid), 1.0)
    text = render.grid_text(render.grid_values(render.value_grid(result, 3, 3)), 3, 3)
    assert text.splitlines()[2].split()[2] == "."  # the centre has no value


def test_grid_shape() -> None:
    assert render.grid_shape(MnkGame(5, 4, 3)) == (5, 4)
    assert render.grid_shape(Connect4Game()) == (7, 1)
    assert render.grid_shape(playout.make_game("bandit")) is None


def test_result_text_uses_notation() -> None:
    game = Connect4Game()
    state = game.initial_state()
    result = fake_result(list(range(7)), [1, 1, 1, 10, 1, 1, 1], [0.0] * 3 + [0.2] + [0.0] * 3)
    result = playout.SearchResult(**{**result.__dict__, "pv": (3, 3, 2)})
    text = render.result_text(game, state, result, player_name="X")
    assert "best move: 4" in text
    assert "pv: 4 4 3" in text
    assert "for X" in text
    assert "16 in 0.50 s (32/s)" in text
    assert "17 nodes, depth 3" in text


def test_moves_text_stops_at_an_illegal_action() -> None:
    game = tictactoe()
    assert render.moves_text(game, game.initial_state(), [4, 0, 4]) == ["1,1", "0,0"]
