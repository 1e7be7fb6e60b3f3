"""The compiled game kernels against the pure-Python games: same moves, same outcomes.

Every test plays random games in lockstep on a Python state and on the kernel's compact state
and compares, at every step, the legal actions, the player to move, the compact encoding of
the Python state, and at the end the outcome. Rollouts are checked against known
probabilities and forced endings.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from playout._src.compiled import (
    DRAW,
    MOVER_LOST,
    MOVER_WON,
    ONGOING,
    compiled_kernel_for,
    make_kernel,
)
from playout._src.compiled.kernel import Kernel
from playout._src.errors import InvalidParameterError
from playout._src.tree.rng import new_rng_state
from playout.games import Connect4Game, MnkGame, gomoku, tictactoe
from playout.games.connect4.kernel import connect4_kernel, wide_connect4_kernel
from playout.games.go import GoGame, GoState
from playout.games.go.kernel import area_margin, read_board
from playout.games.mnk.kernel import mnk_kernel


def play_lockstep(game, kernel: Kernel, num_games: int, seed: int) -> dict[int, int]:
    """Random games on both sides; the count of each outcome (0, 1 winner, -1 draw)."""
    rng = random.Random(seed)
    outcomes = {0: 0, 1: 0, -1: 0}
    for _ in range(num_games):
        state = game.initial_state()
        compact = kernel.new_state()
        assert np.array_equal(compact, kernel.encode(state))
        status = ONGOING
        while not state.is_terminal():
            legal = list(state.legal_actions())
            assert kernel.legal(compact) == legal
            player = state.current_player()
            assert kernel.current_player(kernel.params, compact) == player
            action = rng.choice(legal)
            state = state.play(action)
            status = kernel.play(kernel.params, compact, action)
            assert np.array_equal(compact, kernel.encode(state))
            if state.is_terminal():
                winner = state.winner()
                if winner is None:
                    assert status == DRAW
                    outcomes[-1] += 1
                else:
                    assert status == MOVER_WON and winner == player
                    outcomes[winner] += 1
            else:
                assert status == ONGOING
    return outcomes


@pytest.mark.parametrize(
    ("game", "num_games"),
    [
        (tictactoe(), 1000),
        (MnkGame(4, 4, 4), 1000),
        (MnkGame(6, 6, 4), 1000),
        (MnkGame(9, 9, 5), 300),
        (gomoku(), 200),
        (MnkGame(5, 3, 3), 1000),  # not square
        (MnkGame(13, 11, 4), 200),  # 13 * 14 = 182 padded bits: three words per player
        (MnkGame(32, 2, 2), 200),  # the widest board
        (MnkGame(3, 3, 1), 100),  # k = 1: the first move wins
        (MnkGame(8, 7, 5), 300),  # 7 * 9 = 63 padded bits: the largest one-word board
        (MnkGame(7, 9, 4), 300),  # 9 * 8 = 72: the smallest two-word board of this width
        (MnkGame(1, 5, 3), 200),  # one column: the anti-diagonal shift equals the row shift
    ],
    ids=lambda v: repr(v) if not isinstance(v, int) else str(v),
)
def test_mnk_kernel_plays_like_the_python_game(game: MnkGame, num_games: int) -> None:
    kernel = compiled_kernel_for(game.initial_state())
    assert kernel is not None
    outcomes = play_lockstep(game, kernel, num_games, seed=game.width * 100 + game.height)
    assert sum(outcomes.values()) == num_games


@pytest.mark.parametrize(
    ("game", "num_games"),
    [
        (Connect4Game(), 1000),
        (Connect4Game(6, 5, 4), 1000),
        (Connect4Game(8, 7, 4), 500),  # (7 + 1) * 8 = 64 bits: the largest one-word board
        (Connect4Game(5, 4, 3), 500),
        (Connect4Game(4, 9, 5), 300),
        # Wider than one 64-bit word: the wide kernel.
        (Connect4Game(9, 7, 4), 300),  # 72 bits, two words
        (Connect4Game(3, 63, 3), 100),  # 192 bits: columns straddle words
        (Connect4Game(16, 15, 5), 60),  # 256 bits, four words
        (Connect4Game(12, 41, 6), 20),  # 504 bits, close to the largest board
    ],
    ids=repr,
)
def test_connect4_kernel_plays_like_the_python_game(game: Connect4Game, num_games: int) -> None:
    kernel = compiled_kernel_for(game.initial_state())
    assert kernel is not None
    outcomes = play_lockstep(game, kernel, num_games, seed=game.width)
    assert sum(outcomes.values()) == num_games


def test_connect4_wider_than_one_word_gets_the_wide_kernel() -> None:
    kernel = compiled_kernel_for(Connect4Game(9, 7, 4).initial_state())
    assert kernel is not None and kernel.state_size == 1 + 2 * 2
    with pytest.raises(InvalidParameterError, match="wide_connect4_kernel"):
        connect4_kernel(9, 7, 4)
    with pytest.raises(InvalidParameterError, match="too large"):
        wide_connect4_kernel(20, 30, 4)


def test_mnk_kernel_rejects_bad_sizes() -> None:
    with pytest.raises(InvalidParameterError):
        mnk_kernel(33, 3, 3)
    with pytest.raises(InvalidParameterError):
        mnk_kernel(3, 3, 4)


def test_kernels_resume_from_encoded_midgame_positions() -> None:
    # The engine starts from encoded Python states, not from initial_state().
    rng = random.Random(7)
    for game in (MnkGame(7, 5, 4), Connect4Game()):
        kernel = compiled_kernel_for(game.initial_state())
        assert kernel is not None
        for _ in range(50):
            state = game.initial_state()
            for _ in range(rng.randrange(1, 12)):
                if state.is_terminal():
                    break
                state = state.play(rng.choice(state.legal_actions()))
            if state.is_terminal():
                continue
            compact = kernel.encode(state)
            assert kernel.legal(compact) == list(state.legal_actions())
            assert kernel.current_player(kernel.params, compact) == state.current_player()


def mean_rollout(kernel: Kernel, compact: np.ndarray, num: int, seed: int) -> float:
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    rng = new_rng_state(seed)
    before = compact.copy()
    total = sum(kernel.rollout(kernel.params, compact, scratch, rng) for _ in range(num))
    assert np.array_equal(compact, before), "a rollout must not change its state"
    return total / num


def test_tictactoe_rollouts_match_the_exact_random_play_odds() -> None:
    # Uniformly random tic-tac-toe from the empty board: X wins 737/1260 of the time in the
    # limit (0.5849), O 0.2879, draws 0.1272 -> mean outcome for X = 0.2970.
    kernel = compiled_kernel_for(tictactoe().initial_state())
    assert kernel is not None
    mean = mean_rollout(kernel, kernel.new_state(), 40_000, seed=3)
    assert abs(mean - 0.2970) < 0.02


@pytest.mark.parametrize(
    "game",
    [
        MnkGame(5, 5, 4),
        MnkGame(7, 9, 4),
        Connect4Game(),
        Connect4Game(5, 4, 3),
        Connect4Game(9, 7, 4),  # the wide kernel
    ],
    ids=repr,
)
def test_rollouts_agree_with_python_random_games(game) -> None:
    # 5x5 runs on the one-word m,n,k kernel, 7x9 on the multi-word one; connect four 9x7 on
    # the wide kernel.
    kernel = compiled_kernel_for(game.initial_state())
    assert kernel is not None
    rng = random.Random(11)
    num_python = 1500
    total = 0.0
    for _ in range(num_python):
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
        total += state.returns()[0]
    python_mean = total / num_python
    compiled_mean = mean_rollout(kernel, kernel.new_state(), 20_000, seed=5)
    # Outcomes lie in [-1, 1]: the standard error of the Python mean is below 1/sqrt(1500).
    assert abs(python_mean - compiled_mean) < 4.5 / np.sqrt(num_python)


def test_rollouts_from_forced_endings() -> None:
    game = tictactoe()
    # X to move on the last empty square, completing the diagonal: a win for player 0.
    won = game.from_grid([[1, -1, 1], [-1, 1, -1], [-1, 1, 0]], to_move=1)
    # X to move on the last empty square without completing a line: a draw.
    drawn = game.from_grid([[1, -1, 1], [1, -1, -1], [-1, 1, 0]], to_move=1)
    kernel = compiled_kernel_for(won)
    assert kernel is not None
    assert mean_rollout(kernel, kernel.encode(won), 20, seed=1) == 1.0
    assert mean_rollout(kernel, kernel.encode(drawn), 20, seed=1) == 0.0
    # Connect two on 2x2 after X in column 1 and O in column 2: every X move connects.
    c2 = Connect4Game(2, 2, 2)
    state = c2.initial_state().play(0).play(1)
    kernel = compiled_kernel_for(state)
    assert kernel is not None
    assert mean_rollout(kernel, kernel.encode(state), 20, seed=1) == 1.0
    # ... and with O to move after X, O, X, O cannot block both and loses or draws: the
    # rollout of a position one move from the end is exactly the Python outcome.
    last = Connect4Game(3, 2, 3).initial_state()
    for action in (0, 1, 2, 0, 1):
        last = last.play(action)
    kernel = compiled_kernel_for(last)
    assert kernel is not None
    (final,) = last.legal_actions()
    expected = last.play(final).returns()[0]
    assert mean_rollout(kernel, kernel.encode(last), 5, seed=2) == expected


def test_make_kernel_checks_sizes_and_signatures() -> None:
    kernel = compiled_kernel_for(tictactoe().initial_state())
    assert kernel is not None
    fields = kernel._asdict()
    with pytest.raises(InvalidParameterError, match="state_size"):
        make_kernel(**{**fields, "state_size": 0})
    with pytest.raises(InvalidParameterError, match=r"numba\.njit"):
        make_kernel(**{**fields, "play": lambda params, state, action: 0})
    for size in (2**62, 1.5, True):  # a length no buffer can hold, not whole numbers
        with pytest.raises(InvalidParameterError, match="max_length"):
            make_kernel(**{**fields, "max_length": size})
    for params in ("abc", [1.5], [2**70], np.array([2**64 - 1], dtype=np.uint64)):
        with pytest.raises(InvalidParameterError, match="params"):
            make_kernel(**{**fields, "params": params})
    assert make_kernel(**{**fields, "params": np.array([3], dtype=np.uint8)}).params.tolist() == [3]


# ---------------------------------------------------------------------------------------- Go


def go_lockstep(start: GoState, num_games: int, seed: int, pass_share: float | None) -> int:
    """Random games from ``start`` on the Python game and on the kernel in lockstep: at
    every move the same legal actions, player, compact position and area count, and at the
    end the same result. ``pass_share=None`` picks uniformly among the legal actions (the
    pass included); a number passes with that chance only, so that games run long, with
    captures, ko and superko. Returns how many times a ko or superko rule kept an empty
    point off the legal list."""
    game = start.game
    kernel = start.compiled_kernel()
    assert kernel.encode is not None
    rng = random.Random(seed)
    points = game.size * game.size
    colour = np.zeros(points, dtype=np.int64)
    work = np.zeros(points, dtype=np.int64)
    mark = np.zeros(points, dtype=np.int64)
    repetitions = 0
    for _ in range(num_games):
        state = start
        compact = kernel.encode(state)
        status = ONGOING
        while not state.is_terminal():
            legal = list(state.legal_actions())
            assert kernel.legal(compact) == legal
            assert kernel.current_player(kernel.params, compact) == state.current_player()
            read_board(kernel.params, compact, colour)
            black, white = state.area()
            assert area_margin(kernel.params, colour, work, mark) == black - white
            repetitions += sum(
                "repeat" in state.illegal_reason(p)
                for p in range(points)
                if state.board[p] == 0 and p not in legal
            )
            stones = [a for a in legal if a != game.pass_action]
            if pass_share is None or not stones:
                action = rng.choice(legal)
            else:
                action = game.pass_action if rng.random() < pass_share else rng.choice(stones)
            mover = state.current_player()
            state = state.play(action)
            status = kernel.play(kernel.params, compact, action)
            assert np.array_equal(compact, kernel.encode(state))
            if not state.is_terminal():
                assert status == ONGOING
        outcome = state.returns()[mover]
        assert status == (MOVER_WON if outcome > 0 else MOVER_LOST if outcome < 0 else DRAW)
    return repetitions


@pytest.mark.parametrize(
    ("game", "num_games"),
    [
        (GoGame(2, komi=0), 150),  # draws: a whole-number komi
        (GoGame(3), 100),
        (GoGame(4, komi=0.5), 60),
        (GoGame(5), 40),
        (GoGame(7, komi=-3), 15),
        (GoGame(9), 10),
        (GoGame(13, max_length=300), 2),
        (GoGame(19, max_length=400), 1),  # 361 points: six words per colour
    ],
    ids=repr,
)
def test_go_kernel_plays_like_the_python_game(game: GoGame, num_games: int) -> None:
    start = game.initial_state()
    go_lockstep(start, num_games, seed=game.size, pass_share=None)
    repetitions = go_lockstep(start, num_games, seed=game.size + 1, pass_share=0.02)
    if game.size <= 7:  # long games on small boards: ko and superko come up
        assert repetitions > 0


def test_go_kernel_plays_like_the_python_game_from_a_set_position() -> None:
    # The position drawn counts as the first of the game (its hash starts the history).
    game = GoGame(5, komi=0.5)
    start = game.from_board(["XX.OO", "XX.OO", "XXXOO", "XXXOO", "XXXOO"], to_move=1)
    go_lockstep(start, 30, seed=9, pass_share=0.05)
