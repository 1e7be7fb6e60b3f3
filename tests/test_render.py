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
    assert render.moves_text(game, game.initial_state(), [4, 0, 4]) == ["b2", "a1"]


# ------------------------------------------------------------------------------ flat results


def test_flat_result_renders_values_for_either_player() -> None:
    game = tictactoe()
    state = game.initial_state().play(0)  # X in a corner: O to move (seed 001's board 2)
    flat = playout.FlatResult(actions=(1, 4, 8), values=(0.5, -0.25, 0.0), playouts=10, player=1)
    assert render.value_grid(flat, 3, 3) == [
        [None, 0.5, None],
        [None, -0.25, None],
        [None, None, 0.0],
    ]
    # Seed 001 prints this grid for the 1s player (X), who is not to move.
    assert render.value_grid(flat, 3, 3, player=0)[0][1] == -0.5
    assert render.value_grid(flat, 3, 3, player=0)[1][1] == 0.25
    with pytest.raises(playout.InvalidParameterError):
        render.value_grid(flat, 3, 3, player=2)
    with pytest.raises(playout.InvalidParameterError):
        render.probability_grid(flat, 3, 3)  # type: ignore[arg-type]
    title, header, row1 = render.value_grid_text(game, flat, player=0).splitlines()[:3]
    assert title == "values for X (O to move; flat Monte Carlo, 10 games per move):"
    assert header.split() == ["a", "b", "c"] and row1.split() == ["1", ".", "-0.50", "."]
    assert render.grids_text(game, flat).startswith(
        "values for O (to move; flat Monte Carlo, 10 games per move):"
    )
    table = render.top_moves_text(game, state, flat, 2)
    assert table.splitlines() == [
        "top moves by value (2 of 3):",
        "  b1  value +0.500",
        "  c3  value +0.000",
    ]
    text = render.result_text(game, state, flat, player_name="O")
    assert text.splitlines() == [
        "best move: b1",
        "value: +0.500 (for O, to move; the best move's mean)",
        "flat Monte Carlo: 10 games per move, 30 games",
    ]
    data = render.flat_json(game, state, flat, 0.25)
    assert data["best_move"] == "b1" and data["games"] == 30 and data["to_play"] == 1


# ------------------------------------------------------------------------------ proven moves


W, D, L = playout.Proven.WIN, playout.Proven.DRAW, playout.Proven.LOSS


def proven(
    result: playout.SearchResult,
    status: str | None,
    outcomes: tuple[playout.Proven | None, ...] = (),
) -> playout.SearchResult:
    return playout.SearchResult(**{**result.__dict__, "proven": status, "outcomes": outcomes})


def test_proven_moves_come_from_the_per_move_proofs() -> None:
    game = tictactoe()
    result = fake_result([1, 2, 3, 5], [30, 10, 20, 0], [0.0, -1.0, -0.5, 0.0])
    assert render.proven_moves(game, result) == {}  # no per-move proof: nothing marked
    assert render.proven_grid_text(game, result) == ""
    assert render.proven_text(game, result) == ""
    # Only what ``outcomes`` says: the root's proof and the exact values infer nothing.
    assert render.proven_moves(game, proven(result, "draw")) == {}
    assert render.proven_moves(game, proven(result, "loss")) == {}
    drawn = proven(result, "draw", (D, L, None, None))
    assert render.proven_moves(game, drawn) == {1: "drawn", 2: "lost"}
    lost = proven(result, "loss", (L, L, L, L))
    assert render.proven_moves(game, lost) == dict.fromkeys([1, 2, 3, 5], "lost")
    # Two moves worth +1 on average, one of them proven: only that one is won.
    won = proven(fake_result([1, 2], [5, 3], [1.0, 1.0]), "win", (W, None))
    assert render.proven_moves(game, won) == {1: "won"}
    assert render.proven_grid_text(game, drawn).splitlines() == [
        "proven moves for X (to move): W won, D drawn, L lost, ? not proven:",
        "  a b c",
        "1 . D L",
        "2 ? . ?",
        "3 . . .",
    ]
    assert render.proven_text(game, drawn, 1000) == (
        "proven draw for X (to move): the solver stopped the search after 60 of 1,000 "
        "simulations, so the visit shares are those of an interrupted search"
    )
    assert render.proven_text(game, drawn, 60) == "proven draw for X (to move)"
    grids = render.grids_text(game, drawn, views=(None, 1), planned_simulations=1000)
    titles = [line for line in grids.splitlines() if line.endswith(":")]
    assert titles == [
        "move probabilities (60 simulations at the root; X to move):",
        "proven moves for X (to move): W won, D drawn, L lost, ? not proven:",
        "values for X (to move):",
        "values for O (X to move):",
    ]
    table = render.top_moves_text(game, game.initial_state(), drawn, 3)
    assert table.splitlines()[1:] == [
        "  b1  visits      30  share 50.0%  value +0.000  proven drawn",
        "  a2  visits      20  share 33.3%  value -0.500",
        "  c1  visits      10  share 16.7%  value -1.000  proven lost",
    ]


def test_proven_moves_of_an_unproven_root() -> None:
    # The solver proved one move lost before the root: the grid shows it, without the
    # root's proof line.
    game = tictactoe()
    result = proven(fake_result([1, 2, 3], [30, 10, 20], [0.25, -1.0, 0.0]), None, (None, L, None))
    assert render.proven_moves(game, result) == {2: "lost"}
    assert render.proven_text(game, result) == ""
    grids = render.grids_text(game, result)
    assert "proven draw" not in grids and "proven win" not in grids
    assert grids.split("\n\n")[1].splitlines() == [
        "proven moves for X (to move): W won, D drawn, L lost, ? not proven:",
        "  a b c",
        "1 . ? L",
        "2 ? . .",
        "3 . . .",
    ]
    assert render.top_moves_text(game, game.initial_state(), result, 3).splitlines()[3] == (
        "  c1  visits      10  share 16.7%  value -1.000  proven lost"
    )
    flat = playout.FlatResult(actions=(1, 2), values=(0.5, -1.0), playouts=10, player=0)
    assert render.proven_moves(game, flat) == {}


def test_analysis_json_has_each_moves_proof() -> None:
    game = tictactoe()
    state = game.initial_state()
    result = proven(fake_result([1, 2, 3], [30, 10, 20], [0.25, -1.0, 1.0]), "win", (None, L, W))
    data = render.analysis_json(game, state, result)
    assert data["proven"] == "win"
    assert [(entry["move"], entry["proven"]) for entry in data["actions"]] == [
        ("b1", None),
        ("c1", "loss"),
        ("a2", "win"),
    ]
    assert all(type(entry["proven"]) in (str, type(None)) for entry in data["actions"])
    # Results without per-move proofs (merged from old results) say null for every move.
    bare = render.analysis_json(game, state, proven(result, None))
    assert [entry["proven"] for entry in bare["actions"]] == [None, None, None]
    assert bare["proven"] is None


def test_label_grid_text_and_board_helpers() -> None:
    assert render.label_grid_text({0: "W", 4: "L"}, 2, 3).splitlines() == [
        "  a b",
        "1 W .",
        "2 . .",
        "3 L .",
    ]
    game = tictactoe()
    assert render.player_label(game, 0) == "X" and render.player_label(game, 1) == "O"
    assert render.player_label(playout.make_game("bandit"), 0) == "the player"
    state = game.initial_state()
    for action in (0, 3, 1, 4, 2):
        state = state.play(action)
    assert render.outcome_text(game, state) == "X wins"
    assert render.board_text(game, state) == game.render(state)


# ------------------------------------------------------------------------------ player names


def test_player_labels_are_the_games_player_names() -> None:
    connect4 = Connect4Game()
    assert render.player_label(connect4, 0) == "Red"
    assert render.player_label(connect4, 1) == "Yellow"
    assert render.player_label(MnkGame(5, 5, 4), 1) == "O"
    assert render.player_label(playout.make_game("pig"), 1) == "player 2"
    assert render.board_legend(MnkGame(3, 3, 3)) == ""  # the board draws X and O, their names


def test_connect4_board_legend_and_outcome() -> None:
    game = Connect4Game()
    state = game.initial_state()
    for action in (0, 1, 0, 1, 0, 1, 0):  # Red four high in column 1
        state = state.play(action)
    assert render.board_legend(game) == "X = Red, O = Yellow"
    text = render.board_text(game, state)
    assert text == game.render(state) + "\nX = Red, O = Yellow"
    assert render.outcome_text(game, state) == "Red wins"
    result = fake_result(list(range(7)), [1, 1, 1, 10, 1, 1, 1], [0.0] * 7)
    assert render.probability_grid_text(game, result).splitlines()[0] == (
        "move probabilities (16 simulations at the root; Red to move):"
    )
    assert render.value_grid_text(game, result, player=1).splitlines()[0] == (
        "values for Yellow (Red to move):"
    )
    assert "(for Red, to move)" in render.result_text(game, game.initial_state(), result)
    lost = proven(result, "loss", (L,) * 7)
    assert render.proven_text(game, lost) == "proven loss for Red (to move)"


def test_match_lines_name_the_winners_colour() -> None:
    from types import SimpleNamespace

    game = Connect4Game()
    record = SimpleNamespace(index=1, winner=0, num_moves=7, seconds=0.5)
    assert render.match_game_line(game, record, 4) == (
        "game 2/4: p2 first, p2 (Red) wins in 7 moves (0.5 s)"
    )
    tictactoe_line = render.match_game_line(tictactoe(), record, 4)
    assert tictactoe_line == "game 2/4: p2 first, p2 (X) wins in 7 moves (0.5 s)"


def test_chess_names_white_and_black() -> None:
    pytest.importorskip("chess")
    game = playout.make_game("chess")
    state = game.initial_state()
    assert render.player_label(game, 0) == "White" and render.player_label(game, 1) == "Black"
    assert render.board_legend(game) == ""  # the board draws pieces, no stones
    assert render.board_text(game, state) == game.render(state)
    for move in ("f2f3", "e7e5", "g2g4", "d8h4"):  # fool's mate
        state = state.play(game.string_to_action(state, move))
    assert render.outcome_text(game, state) == "Black wins"
    start = game.initial_state()
    result = fake_result(list(start.legal_actions())[:1], [1], [0.0])
    assert "(for White, to move)" in render.result_text(game, start, result)


def test_chess_board_json_and_target_shares() -> None:
    pytest.importorskip("chess")
    game = playout.make_game("chess")
    state = game.from_moves("e2e4 f7f6 d2d4 g7g5")
    board = render.board_json(game, state)
    assert board["kind"] == "chess" and board["check"] is None
    assert board["pieces"][4][4] == "P" and board["cells"][4][4] == 0
    assert board["pieces"][3][6] == "p" and board["cells"][3][6] == 1
    assert board["fen"] == state.fen()
    legal = {m["move"]: m for m in board["legal"]}
    assert legal["d1h5"] == {
        "action": game.string_to_action(state, "Qh5"),
        "move": "d1h5",
        "from_square": "d1",
        "to_square": "h5",
        "promotion": None,
    }
    mated = state.play(legal["d1h5"]["action"])
    after = render.board_json(game, mated)
    assert after["check"] == "e8" and after["legal"] == [] and after["outcome"] == "White wins"
    # Shares summed per target square: b1c3 and c2c3 both go to c3.
    start = game.initial_state()
    moves = ["b1c3", "c2c3", "g1f3"]
    actions = [game.string_to_action(start, m) for m in moves]
    grid = render.chess_target_shares(game, start, fake_result(actions, [2, 1, 1], [0, 0, 0]))
    assert grid[5][2] == 0.75 and grid[5][5] == 0.25  # c3 and f3 (rank 3 is row 5)
    assert sum(x is not None for row in grid for x in row) == 2
    assert render.square_name(4, 1) == "e2"
    promotion = playout.make_game("chess", fen="8/4P1k1/8/8/8/7p/7P/4K3 w - - 0 1")
    promotions = [
        m["promotion"]
        for m in render.board_json(promotion, promotion.initial_state())["legal"]
        if m["from_square"] == "e7"
    ]
    assert sorted(promotions) == ["b", "n", "q", "r"]


RENDER_NAMES = {
    "PROVEN_LETTERS", "PROVEN_STATUS", "SYMBOLS", "AnyResult", "Grid", "analysis_json",
    "board_json", "board_legend", "board_text", "chess_target_shares", "column_label",
    "flat_json", "grid_shape", "grid_text", "grid_values", "grids_text", "label_grid_text",
    "match_game_line", "match_text", "moves_text", "outcome_text", "player_label",
    "probability_grid", "probability_grid_text", "proven_grid_text", "proven_moves",
    "proven_text", "replay_text", "result_text", "snapshot_json", "square_name",
    "top_moves_text", "tournament_text", "tree_dot", "tree_json", "value_grid",
    "value_grid_text",
}  # fmt: skip
"""The public names of ``playout.render`` when it was one module: they stay importable."""


def test_render_package_keeps_its_public_names_in_small_modules() -> None:
    import importlib
    import pkgutil
    from pathlib import Path

    assert set(render.__all__) >= RENDER_NAMES
    assert all(hasattr(render, name) for name in render.__all__)
    for info in pkgutil.iter_modules(render.__path__):
        module = importlib.import_module(f"playout.render.{info.name}")
        assert module.__file__ is not None and module.__doc__
        assert len(Path(module.__file__).read_text().splitlines()) <= 1000, info.name
        assert module.__doc__.splitlines()[0].endswith("."), info.name  # one line says it


def test_values_that_round_to_zero_print_without_a_minus_sign() -> None:
    assert [render.number_text(v) for v in (-0.0, -0.004, 0.004, -0.006)] == [
        "0.00", "0.00", "0.00", "-0.01",
    ]  # fmt: skip
    assert render.number_text(-0.004, sign=True) == "+0.00"
    assert render.number_text(-0.0004, 3, sign=True) == "+0.000"
    assert render.number_text(0.25, 1, sign=True) == "+0.2"
    assert render.count_text(1, "ply", "plies") == "1 ply"
    assert render.count_text(1000, "simulation") == "1,000 simulations"
    game = tictactoe()
    state = game.initial_state()
    assert render.grid_text({0: -0.001, 1: -0.0}, 3, 3).splitlines()[1].split() == [
        "1", "0.00", "0.00", ".",
    ]  # fmt: skip
    result = fake_result([1, 2], [10, 10], [-0.0004, 0.0])  # root value -0.0002
    flat = playout.FlatResult(actions=(1, 2), values=(-0.0001, -0.5), playouts=10, player=0)
    texts = [
        render.grids_text(game, result),
        render.top_moves_text(game, state, result),
        render.result_text(game, state, result),
        render.top_moves_text(game, state, flat),
        render.result_text(game, state, flat),
    ]
    assert not [text for text in texts if "-0.0" in text]
    assert "  b1  visits      10  share 50.0%  value +0.000" in texts[1]
    assert "value: +0.000 (for X, to move)" in texts[2]
    # An exported tree whose root and move are worth a hair below zero: +0.00 in DOT.
    leaf = playout.TreeNode(4, 1, 5, -0.001, None, 0.001, None, 0.5, None, False, (), 0)
    root = playout.TreeNode(None, 0, 10, -0.001, None, None, None, None, None, False, (leaf,), 0)
    dot = render.tree_dot(game, state, root)
    assert dot.count("value +0.00") == 2 and "-0.00" not in dot


def test_chance_is_named_chance() -> None:
    # Saved Pig games replay their die rolls as "chance plays 4" (was "player -1 plays 4").
    assert render.player_label(playout.make_game("pig"), playout.CHANCE) == "chance"
