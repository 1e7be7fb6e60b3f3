"""The built-in games: rules, notation, seed positions, the neighbor policy and the registry."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playout import (
    TERMINAL,
    GameError,
    IllegalMoveError,
    InvalidParameterError,
    MoveError,
    MoveParseError,
    Proven,
    UnknownGameError,
    search,
)
from playout._src import registry
from playout._src.registry import game_names, game_summary, make_game, register_game
from playout.games import (
    BanditTreeGame,
    Connect4Game,
    MnkGame,
    NeighborRollout,
    get_future_value,
    gomoku,
    neighbor_actions,
    neighbor_policy,
    play_moves,
    tictactoe,
)
from playout.games.mnk import MnkState, column_label

Grid = Sequence[Sequence[int]]


def naive_winner(grid: Grid, k: int) -> int | None:
    """1 or -1 if that mark has k in a row somewhere (checked cell by cell), else None."""
    height, width = len(grid), len(grid[0])
    for y in range(height):
        for x in range(width):
            mark = grid[y][x]
            if mark == 0:
                continue
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(x + i * dx, y + i * dy) for i in range(k)]
                if all(0 <= cx < width and 0 <= cy < height for cx, cy in cells) and all(
                    grid[cy][cx] == mark for cx, cy in cells
                ):
                    return mark
    return None


def play_xy(game: MnkGame, moves: Sequence[tuple[int, int]]) -> MnkState:
    state = game.initial_state()
    for x, y in moves:
        state = state.play(game.action_of(x, y))
    return state


# --------------------------------------------------------------------------- m,n,k notation


@pytest.mark.parametrize(("width", "height", "k"), [(3, 3, 3), (5, 4, 3), (1, 6, 2), (30, 2, 3)])
def test_mnk_notation_round_trips_on_every_square(width: int, height: int, k: int) -> None:
    game = MnkGame(width, height, k)
    state = game.initial_state()
    for action in state.legal_actions():
        x, y = action % width, action // width
        text = game.action_to_string(state, action)
        assert text == f"{column_label(x)}{y + 1}"  # the board's labels
        assert game.string_to_action(state, text) == action
        assert game.string_to_action(state, f"{x},{y}") == action  # seed 001's x,y too
        assert game.string_to_action(state, f" ({x}, {y}) ") == action
        assert game.square_of(action) == (x, y)


def test_mnk_letter_notation_counts_rows_from_the_top() -> None:
    game = tictactoe()
    state = game.initial_state()
    assert game.string_to_action(state, "a1") == 0  # top-left
    assert game.string_to_action(state, "b3") == 7  # column b, bottom row
    assert game.string_to_action(state, "C2") == 5
    assert game.string_to_action(state, "1, 2") == 7  # x=1, y=2
    assert column_label(25) == "z"
    assert column_label(26) == "aa"
    wide = MnkGame(30, 2, 2)
    assert wide.string_to_action(wide.initial_state(), "ab2") == 30 + 27


@pytest.mark.parametrize("text", ["", "abc", "1,", ",2", "1 2", "b", "3b", "1,2,3", "x=1"])
def test_mnk_malformed_moves_raise_move_parse_error(text: str) -> None:
    game = tictactoe()
    with pytest.raises(MoveParseError):
        game.string_to_action(game.initial_state(), text)


@pytest.mark.parametrize("text", ["3,0", "0,3", "-1,0", "d1", "a4", "a0"])
def test_mnk_off_board_moves_raise_illegal_move_error(text: str) -> None:
    game = tictactoe()
    with pytest.raises(IllegalMoveError):
        game.string_to_action(game.initial_state(), text)


def test_mnk_occupied_square_and_finished_game_are_illegal() -> None:
    game = tictactoe()
    state = game.initial_state().play(4)
    with pytest.raises(IllegalMoveError, match="square b2 is already occupied"):
        game.string_to_action(state, "1,1")  # named in the board's notation
    with pytest.raises(IllegalMoveError):
        state.play(4)
    with pytest.raises(IllegalMoveError):
        state.play(9)
    won = play_xy(game, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)])
    assert won.is_terminal()
    with pytest.raises(IllegalMoveError, match="over"):
        game.string_to_action(won, "2,2")
    with pytest.raises(IllegalMoveError, match="over"):
        won.play(8)
    assert issubclass(MoveParseError, MoveError) and issubclass(IllegalMoveError, MoveError)


def test_mnk_render_has_labels_and_marks() -> None:
    game = tictactoe()
    state = play_xy(game, [(0, 0), (1, 1)])
    assert game.render(state).splitlines() == ["  a b c", "1 X . .", "2 . O .", "3 . . ."]
    assert str(state) == game.render(state)


# ------------------------------------------------------------------------ m,n,k parameters


@pytest.mark.parametrize(
    ("width", "height", "k"),
    [(0, 3, 1), (3, 0, 1), (-1, 3, 1), (3, 3, 0), (3, 3, 4), (33, 3, 3), (3, 33, 3), (2, 5, 6)],
)
def test_mnk_rejects_impossible_sizes(width: int, height: int, k: int) -> None:
    with pytest.raises(InvalidParameterError):
        MnkGame(width, height, k)


def test_mnk_accepts_k_up_to_the_longer_side() -> None:
    game = MnkGame(2, 5, 5)  # only a full column wins
    state = game.initial_state()
    for y in range(4):
        state = state.play(game.action_of(0, y)).play(game.action_of(1, y))  # X col 0, O col 1
    assert not state.is_terminal()
    state = state.play(2 * 4 + 0)
    assert state.returns() == (1.0, -1.0)
    one = MnkGame(1, 1, 1)
    assert one.initial_state().play(0).returns() == (1.0, -1.0)


def test_spec_of_the_factories() -> None:
    assert tictactoe().spec.name == "tictactoe"
    assert tictactoe().spec.num_actions == 9
    assert tictactoe().spec.max_length == 9
    big = gomoku()
    assert (big.width, big.height, big.k, big.spec.name) == (15, 15, 5, "gomoku")
    assert MnkGame(4, 5, 3).spec.name == "mnk"
    assert tictactoe() == tictactoe()
    assert tictactoe() != MnkGame(3, 3, 3)  # different names
    assert hash(tictactoe()) == hash(tictactoe())


# ---------------------------------------------------------------------- m,n,k win detection

DIRECTIONS = {
    "horizontal": (1, 0),
    "vertical": (0, 1),
    "diagonal": (1, 1),
    "anti-diagonal": (1, -1),
}


def _line(
    width: int, height: int, k: int, direction: tuple[int, int], rng: random.Random
) -> list[tuple[int, int]]:
    dx, dy = direction
    starts = [
        (x, y)
        for y in range(height)
        for x in range(width)
        if 0 <= x + (k - 1) * dx < width and 0 <= y + (k - 1) * dy < height
    ]
    x0, y0 = rng.choice(starts)
    return [(x0 + i * dx, y0 + i * dy) for i in range(k)]


@pytest.mark.parametrize(("width", "height", "k"), [(3, 3, 3), (6, 6, 4), (15, 15, 5), (7, 5, 4)])
@pytest.mark.parametrize("direction", list(DIRECTIONS))
@pytest.mark.parametrize("winner", [0, 1])
def test_mnk_detects_k_in_a_row(
    width: int, height: int, k: int, direction: str, winner: int
) -> None:
    """The winner completes a line in the given direction; the loser scatters stones that
    neither block it nor make a line; the game ends exactly on the k-th stone."""
    game = MnkGame(width, height, k)
    rng = random.Random(f"{width}{height}{k}{direction}{winner}")
    line = _line(width, height, k, DIRECTIONS[direction], rng)
    rng.shuffle(line)
    # The winner's moves in order; None is a harmless first move of player 0 when O wins.
    moves: list[tuple[int, int] | None] = [None, *line] if winner == 1 else list(line)
    state = game.initial_state()
    other = [(x, y) for y in range(height) for x in range(width) if (x, y) not in line]
    rng.shuffle(other)
    for index, square in enumerate(moves):
        if square is not None:
            assert not state.is_terminal()
            assert state.current_player() == winner
            state = state.play(game.action_of(*square))
        if index == len(moves) - 1:
            break
        # the opponent's harmless move: any free square that does not give it k in a row
        for candidate in other:
            action = game.action_of(*candidate)
            if action in state.legal_actions():
                trial = state.play(action)
                if naive_winner(trial.grid(), k) is None:
                    state = trial
                    break
        else:  # pragma: no cover - boards in this test always leave a harmless square
            pytest.fail("no harmless square")
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == ()
    assert state.winner() == winner
    assert state.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    assert naive_winner(state.grid(), k) == (1 if winner == 0 else -1)


def test_mnk_draw_on_a_full_board() -> None:
    game = tictactoe()
    # X O X / X O O / O X X
    state = play_xy(game, [(0, 0), (1, 0), (2, 0), (1, 1), (0, 1), (2, 1), (1, 2), (0, 2), (2, 2)])
    assert state.is_terminal()
    assert state.returns() == (0.0, 0.0)
    assert state.winner() is None
    assert state.current_player() == TERMINAL
    assert state.num_moves == 9
    assert state.grid() == ((1, -1, 1), (1, -1, -1), (-1, 1, 1))


def test_mnk_a_win_on_the_last_square_is_a_win_not_a_draw() -> None:
    game = tictactoe()
    # X fills the last square and completes the anti-diagonal.
    moves = [(0, 0), (1, 0), (1, 1), (0, 1), (2, 1), (2, 2), (0, 2), (1, 2), (2, 0)]
    state = play_xy(game, moves[:-1])
    assert not state.is_terminal()
    state = state.play(game.action_of(*moves[-1]))
    assert state.returns() == (1.0, -1.0)


def test_mnk_returns_are_zero_before_the_end() -> None:
    state = tictactoe().initial_state()
    assert state.returns() == (0.0, 0.0)
    assert state.current_player() == 0
    assert state.play(0).current_player() == 1
    assert state.winner() is None


# ------------------------------------------------------------------------------ from_grid


def test_from_grid_seed000_example() -> None:
    game = tictactoe()
    rows = [[0, -1, 0], [0, 1, 0], [0, 0, 0]]
    state = game.from_grid(rows, to_move=1)
    assert state.current_player() == 0  # equal counts: the mark to move moved first
    assert state.grid() == tuple(map(tuple, rows))
    assert state.num_moves == 2
    assert state.legal_actions() == (0, 2, 3, 5, 6, 7, 8)
    assert state == play_xy(game, [(1, 1), (1, 0)])
    assert hash(state) == hash(play_xy(game, [(1, 1), (1, 0)]))


def test_from_grid_seed001_move_probability_example() -> None:
    game = tictactoe()
    state = game.from_grid([[-1, 0, 0], [0, 1, 0], [0, 0, -1]], to_move=1)
    # -1 has one stone more: it moved first and is player 0 (X); the mark to move is O.
    assert state.current_player() == 1
    assert state.grid() == ((1, 0, 0), (0, -1, 0), (0, 0, 1))
    assert not state.is_terminal()


def test_from_grid_seed001_value_grid_example() -> None:
    game = tictactoe()
    state = game.from_grid([[-1, -1, 1], [1, -1, 0], [1, 0, 1]], to_move=-1)
    assert state.current_player() == 1  # -1 to move with one stone fewer: player 1 (O)
    assert state.grid() == ((-1, -1, 1), (1, -1, 0), (1, 0, 1))
    assert set(state.legal_actions()) == {5, 7}
    # Seed 001: the bottom square wins for -1 ...
    assert state.play(7).returns() == (-1.0, 1.0)
    # ... and the right square lets the 1s player win on the bottom row.
    after = state.play(5)
    assert not after.is_terminal()
    assert after.play(7).returns() == (1.0, -1.0)


def test_from_grid_accepts_a_consistent_finished_position() -> None:
    game = tictactoe()
    state = game.from_grid([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], to_move=-1)
    assert state.is_terminal()
    assert state.returns() == (1.0, -1.0)
    assert state.legal_actions() == ()
    full = game.from_grid([[1, -1, 1], [1, -1, -1], [-1, 1, 1]], to_move=-1)
    assert full.is_terminal() and full.returns() == (0.0, 0.0)
    array = game.from_grid(np.array([[1, -1, 1], [1, -1, -1], [-1, 1, 1]]), to_move=-1)
    assert array == full  # a numpy grid is a grid


@pytest.mark.parametrize(
    ("rows", "to_move"),
    [
        ([[1, 1, 0], [0, 0, 0], [0, 0, 0]], 1),  # the mark to move has two more stones
        ([[1, 1, 1], [-1, -1, 0], [0, 0, 0]], 1),  # mover has one stone more
        ([[1, 1, 1], [-1, -1, -1], [0, 0, 0]], 1),  # the player to move already won
        ([[0, 0, 0], [0, 0, 0]], 1),  # wrong shape
        ([[0, 0, 0], [0, 2, 0], [0, 0, 0]], 1),  # bad value
        ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], 0),  # bad to_move
        ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], True),  # a bool is not a mark
        ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], 1.0),  # nor a float
        (None, 1),  # not a grid
        ([0, 0, 0], 1),  # not rows
        ([[0, 0, 0], [0, 0.5, 0], [0, 0, 0]], 1),  # not a mark
    ],
)
def test_from_grid_rejects_impossible_positions(rows: Grid, to_move: int) -> None:
    with pytest.raises(GameError):
        tictactoe().from_grid(rows, to_move=to_move)


# ----------------------------------------------------------------------------- connect four


def test_connect4_notation() -> None:
    game = Connect4Game()
    state = game.initial_state()
    assert game.action_to_string(state, 3) == "4"
    assert game.string_to_action(state, "4") == 3
    assert game.string_to_action(state, " 7 ") == 6
    for action in range(7):
        assert game.string_to_action(state, game.action_to_string(state, action)) == action
    for text in ["0", "8", "10"]:
        with pytest.raises(IllegalMoveError):
            game.string_to_action(state, text)
    for text in ["x", "", "4.0", "-1", "4 4"]:
        with pytest.raises(MoveParseError):
            game.string_to_action(state, text)
    full = play_moves(game, "444444")
    with pytest.raises(IllegalMoveError, match="full"):
        game.string_to_action(full, "4")
    with pytest.raises(IllegalMoveError, match="full"):
        full.play(3)
    assert 3 not in full.legal_actions()
    with pytest.raises(IllegalMoveError):
        state.play(7)


def test_connect4_from_a_digit_string() -> None:
    game = Connect4Game()
    state = game.from_moves("4453")
    assert state == play_moves(game, "4, 4, 5, 3") == play_moves(game, "4 4 5 3")
    assert state.num_moves == 4
    assert state.current_player() == 0
    assert state.grid()[-1] == (0, 0, -1, 1, 1, 0, 0)  # bottom row
    assert state.grid()[-2] == (0, 0, 0, -1, 0, 0, 0)
    assert game.render(state).splitlines()[-1] == "1 2 3 4 5 6 7"
    assert game.render(state).splitlines()[-2] == ". . O X X . ."
    assert play_moves(game, "") == game.initial_state()
    with pytest.raises(MoveParseError, match="move 3"):
        play_moves(game, "44x")
    with pytest.raises(IllegalMoveError, match="move 7"):
        play_moves(game, "4444444")
    wide = Connect4Game(width=12, height=4, k=4)
    assert play_moves(wide, "12 1 10").grid()[-1][-1] == 1


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        ("4545454", 0),  # vertical in column 4
        ("1122334", 0),  # horizontal on the bottom row
        ("12234334464", 0),  # diagonal /
        ("76654554424", 0),  # diagonal \ (the mirror image)
        ("12121272", 1),  # vertical for O in column 2
        ("1726354", 0),  # horizontal across the middle columns, O scattered
    ],
)
def test_connect4_detects_lines(moves: str, winner: int) -> None:
    game = Connect4Game()
    state = game.initial_state()
    for index, column in enumerate(moves):
        assert not state.is_terminal(), f"ended early, before move {index + 1}"
        state = play_moves(game, column, start=state)
    assert naive_winner(state.grid(), 4) == (1 if winner == 0 else -1)
    assert state.is_terminal()
    assert state.winner() == winner
    assert state.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    assert state.current_player() == TERMINAL


@pytest.mark.parametrize(("width", "height", "k"), [(7, 6, 4), (5, 4, 3), (1, 5, 3), (6, 1, 2)])
def test_connect4_random_games_agree_with_a_naive_checker(width: int, height: int, k: int) -> None:
    game = Connect4Game(width, height, k)
    rng = random.Random(7)
    num_draws = 0
    for _ in range(60):
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
            mark = naive_winner(state.grid(), k)
            full = all(v != 0 for row in state.grid() for v in row)
            assert state.is_terminal() == (mark is not None or full)
        mark = naive_winner(state.grid(), k)
        expected = {1: (1.0, -1.0), -1: (-1.0, 1.0), None: (0.0, 0.0)}[mark]
        assert state.returns() == expected
        num_draws += mark is None
    if (width, height, k) == (7, 6, 4):
        assert num_draws < 60


def test_connect4_draw() -> None:
    game = Connect4Game(width=4, height=4, k=4)
    rng = random.Random(0)
    for _ in range(200):
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
        if naive_winner(state.grid(), 4) is None:
            assert state.num_moves == 16
            assert state.returns() == (0.0, 0.0)
            assert state.winner() is None
            return
    pytest.fail("no drawn game in 200 random 4x4 games")


@pytest.mark.parametrize(
    ("width", "height", "k"), [(0, 6, 4), (7, 0, 4), (7, 6, 0), (3, 2, 4), (65, 7, 4)]
)
def test_connect4_rejects_impossible_sizes(width: int, height: int, k: int) -> None:
    with pytest.raises(InvalidParameterError):
        Connect4Game(width, height, k)


# ------------------------------------------------------------------------------ the bandit


def test_bandit_transitions_and_rewards() -> None:
    game = BanditTreeGame()
    root = game.initial_state()
    assert (root.node, root.reward, root.current_player(), root.legal_actions()) == (
        0,
        0.0,
        0,
        (0, 1),
    )
    expected = {(0, 0): (3, 0.0), (0, 1): (4, 0.0), (1, 0): (5, 0.0), (1, 1): (6, 1.0)}
    for (first, second), (leaf, reward) in expected.items():
        middle = root.play(first)
        assert middle.node == 1 + first
        assert middle.returns() == (0.0,)
        assert not middle.is_terminal()
        end = middle.play(second)
        assert (end.node, end.returns()) == (leaf, (reward,))
        assert end.is_terminal() and end.legal_actions() == () and end.current_player() == TERMINAL
        with pytest.raises(IllegalMoveError):
            end.play(0)
    with pytest.raises(IllegalMoveError):
        root.play(2)
    spec = game.spec
    assert (spec.name, spec.num_players, spec.has_intermediate_rewards) == ("bandit", 1, True)
    assert (spec.min_return, spec.max_return) == (0.0, 1.0)


def test_bandit_notation_and_value_function() -> None:
    game = BanditTreeGame()
    root = game.initial_state()
    for text, action in [("left", 0), ("L", 0), ("0", 0), ("Right", 1), ("r", 1), ("1", 1)]:
        assert game.string_to_action(root, text) == action
    assert game.action_to_string(root, 1) == "right"
    with pytest.raises(MoveParseError):
        game.string_to_action(root, "up")
    with pytest.raises(IllegalMoveError):
        game.string_to_action(root.play(0).play(0), "left")
    values = [get_future_value(node) for node in range(7)]
    assert values == [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0]
    assert get_future_value(root.play(1)) == 0.5
    assert "[2]" in game.render(root.play(1))
    assert game.state_at(6).returns() == (1.0,)


@pytest.mark.parametrize("name", ["tictactoe", "connect4", "go", "pig", "bandit", "chess"])
def test_an_action_is_a_whole_number(name: str) -> None:
    # True == 1 and 1.0 == 1: each compares equal to a legal action id yet is none.
    import numpy as np

    game = make_game(name)
    state = game.initial_state()
    legal = state.legal_actions()
    for action in (True, False, float(legal[0]), complex(legal[0]), str(legal[0]), None):
        with pytest.raises(IllegalMoveError):
            state.play(action)  # type: ignore[arg-type]
    assert state.play(np.int64(legal[0])) == state.play(int(legal[0]))
    with pytest.raises(MoveParseError):  # past Python's 4,300 digits: no raw ValueError
        game.string_to_action(state, "1" * 5000)


def test_a_player_must_answer_an_action_id() -> None:
    from playout._src.arena import play_game

    class Sloppy:
        name = "sloppy"

        def __init__(self, answer: object) -> None:
            self.answer = answer

        def reset(self, state: object, seed: int) -> None: ...

        def choose(self, state: object) -> object:
            return self.answer

        def notify(self, action: int) -> None: ...

    game = make_game("tictactoe")
    for answer in (4.9, "4", True):
        with pytest.raises(GameError, match="not an action id"):
            play_game(game, Sloppy(answer), Sloppy(0))  # type: ignore[arg-type]


def test_a_sampled_bandit_move_is_never_one_proven_worse() -> None:
    # Left is proven to end with 0, right with 1: the classes of the moves (their rewards
    # included), not those of the return still to come below them, rule the final move.
    root = BanditTreeGame().initial_state()
    for seed in range(20):
        result = search(root, simulations=50, seed=seed, final="sample")
        assert result.outcomes == (Proven.LOSS, Proven.WIN)
        assert result.best_action == 1


# -------------------------------------------------------------------------- neighbor policy


def naive_neighbors(state: MnkState) -> list[int]:
    grid = state.grid()
    height, width = len(grid), len(grid[0])
    found = [
        y * width + x
        for y in range(height)
        for x in range(width)
        if grid[y][x] == 0
        and any(
            0 <= x + dx < width and 0 <= y + dy < height and grid[y + dy][x + dx] != 0
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
        )
    ]
    return found or list(state.legal_actions())


def test_neighbor_actions_on_small_boards() -> None:
    ttt = tictactoe()
    assert neighbor_actions(ttt.initial_state()) == list(range(9))
    assert neighbor_actions(ttt.initial_state().play(4)) == [0, 1, 2, 3, 5, 6, 7, 8]
    assert neighbor_actions(ttt.initial_state().play(0)) == [1, 3, 4]
    four = MnkGame(4, 4, 4)
    assert neighbor_actions(four.initial_state().play(3)) == [2, 6, 7]  # no wrap to (0, 1)
    assert neighbor_actions(four.initial_state().play(4)) == [0, 1, 5, 8, 9]  # nor to (3, 0)
    assert neighbor_actions(four.initial_state().play(15)) == [10, 11, 14]
    line = MnkGame(5, 1, 2)
    assert neighbor_actions(line.initial_state().play(2)) == [1, 3]
    won = ttt.initial_state().play(0).play(3).play(1).play(4).play(2)
    assert neighbor_actions(won) == []


@pytest.mark.parametrize(("width", "height"), [(3, 3), (4, 4), (5, 3), (1, 6), (9, 9), (15, 15)])
def test_neighbor_actions_match_a_naive_scan(width: int, height: int) -> None:
    game = MnkGame(width, height, min(5, max(width, height)))
    rng = random.Random(width * 100 + height)
    for _ in range(20 if width * height <= 81 else 3):
        state = game.initial_state()
        while not state.is_terminal():
            assert neighbor_actions(state) == naive_neighbors(state)
            state = state.play(rng.choice(state.legal_actions()))


def test_neighbor_policy_picks_a_neighbor() -> None:
    game = gomoku(9, 9, 5)
    rng = random.Random(3)
    policy = NeighborRollout()
    state = game.initial_state()
    while not state.is_terminal():
        allowed = neighbor_actions(state)
        action = neighbor_policy(state, rng) if state.num_moves % 2 else policy(state, rng)
        assert action in allowed
        state = state.play(action)


# ------------------------------------------------------------------------------- registry


def test_registry_lists_the_builtin_games() -> None:
    assert {"tictactoe", "mnk", "gomoku", "connect4", "bandit"} <= set(game_names())
    assert game_names() == sorted(game_names())
    for name in game_names():
        assert game_summary(name)
        assert make_game(name).spec.name == name


def test_registry_parameters() -> None:
    assert make_game("mnk") == MnkGame(3, 3, 3)
    mnk = make_game("mnk", width=6, height=6, k=4)
    assert isinstance(mnk, MnkGame) and (mnk.width, mnk.height, mnk.k) == (6, 6, 4)
    seed004 = make_game("gomoku", width=4, height=4, k=4)
    assert isinstance(seed004, MnkGame) and (seed004.width, seed004.k, seed004.spec.name) == (
        4,
        4,
        "gomoku",
    )
    big = make_game("gomoku")
    assert isinstance(big, MnkGame) and (big.width, big.height, big.k) == (15, 15, 5)
    c4 = make_game("connect4", width="8", height="7")  # text from a command line
    assert isinstance(c4, Connect4Game) and (c4.width, c4.height, c4.k) == (8, 7, 4)


def test_registry_errors() -> None:
    with pytest.raises(UnknownGameError, match=r"known games: .*tictactoe") as info:
        make_game("shogi")
    assert isinstance(info.value, KeyError)
    assert "\n" not in str(info.value)
    with pytest.raises(UnknownGameError):
        game_summary("shogi")
    with pytest.raises(
        InvalidParameterError, match="unknown parameter size; accepted: width, height, k"
    ):
        make_game("mnk", size=9)
    with pytest.raises(InvalidParameterError, match="tictactoe: unknown parameter"):
        make_game("tictactoe", width=4)
    with pytest.raises(InvalidParameterError, match="mnk: k=4"):
        make_game("mnk", k=4)
    with pytest.raises(InvalidParameterError, match="width must be int"):
        make_game("connect4", width="wide")
    with pytest.raises(InvalidParameterError):
        make_game("gomoku", width=0)


def test_register_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def tiny(size: int = 2) -> MnkGame:
        return MnkGame(size, size, 2, name="tiny")

    register_game("tiny", tiny, "2x2, two in a row")
    assert "tiny" in game_names()
    assert game_summary("tiny") == "2x2, two in a row"
    game = make_game("tiny", size="3")
    assert isinstance(game, MnkGame) and game.width == 3
    with pytest.raises(InvalidParameterError):
        register_game("", tiny, "no name")


def test_states_pickle_and_copy() -> None:
    games: list[MnkGame | Connect4Game | BanditTreeGame] = [
        tictactoe(),
        gomoku(),
        Connect4Game(),
        BanditTreeGame(),
    ]
    for game in games:
        state = game.initial_state()
        state = state.play(state.legal_actions()[-1])
        for clone in [pickle.loads(pickle.dumps(state)), copy.deepcopy(state)]:
            assert clone == state and hash(clone) == hash(state)
            assert clone.legal_actions() == state.legal_actions()
            assert clone.game == game and hash(clone.game) == hash(game)


# ---------------------------------------------------------------------- property-based tests

GAMES: list[MnkGame | Connect4Game] = [
    tictactoe(),
    MnkGame(4, 3, 3),
    MnkGame(6, 6, 4),
    Connect4Game(),
    Connect4Game(5, 4, 3),
]


@settings(max_examples=60, deadline=None)
@given(
    game_index=st.integers(min_value=0, max_value=len(GAMES) - 1),
    picks=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40),
)
def test_random_action_sequences_keep_states_immutable(game_index: int, picks: list[int]) -> None:
    game = GAMES[game_index]
    state = game.initial_state()
    history = [state]
    snapshots = [(state.stones0, state.stones1, state.legal_actions(), hash(state))]
    for pick in picks:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        player = state.current_player()
        child = state.play(legal[pick % len(legal)])
        assert child.num_moves == state.num_moves + 1
        assert child.is_terminal() or child.current_player() == 1 - player
        assert child != state
        history.append(child)
        snapshots.append((child.stones0, child.stones1, child.legal_actions(), hash(child)))
        state = child
    # Nothing played later changed an earlier state.
    for old, snapshot in zip(history, snapshots, strict=True):
        assert (old.stones0, old.stones1, old.legal_actions(), hash(old)) == snapshot
    # The final returns agree with an independent scan of the grid.
    mark = naive_winner(state.grid(), game.k)
    if state.is_terminal():
        assert state.returns() == {1: (1.0, -1.0), -1: (-1.0, 1.0), None: (0.0, 0.0)}[mark]
    else:
        assert mark is None and state.returns() == (0.0, 0.0)


@settings(max_examples=40, deadline=None)
@given(picks=st.lists(st.integers(min_value=0, max_value=10_000), max_size=9))
def test_from_grid_round_trips_reachable_positions(picks: list[int]) -> None:
    game = tictactoe()
    state = game.initial_state()
    for pick in picks:
        if state.is_terminal():
            break
        state = state.play(state.legal_actions()[pick % len(state.legal_actions())])
    to_move = 1 if state.num_moves % 2 == 0 else -1  # the mark of the player to move
    rebuilt = game.from_grid(state.grid(), to_move=to_move)
    assert rebuilt == state
    assert rebuilt.legal_actions() == state.legal_actions()
    assert rebuilt.returns() == state.returns()
