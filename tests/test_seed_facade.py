"""Seed 000's own calling code, run unchanged on :class:`playout.games.seed.SeedMCTS`."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import playout
from playout import GameOverError, IllegalMoveError, InvalidParameterError
from playout.games.seed import SeedMCTS
from playout.games.seed import SeedMCTS as MCTS

from .seed_tictactoe import TicTacToeAction, TicTacToeGameState

EXAMPLE = [[0, -1, 0], [0, 1, 0], [0, 0, 0]]  # seed 000's position, seen from the mover


@functools.cache
def _negamax(board: bytes) -> int:
    """Exact value (1 win, 0 draw, -1 loss) for the player to move in a seed board."""
    state = TicTacToeGameState(np.frombuffer(board, dtype=np.int8).reshape(3, 3).copy())
    winner = state.get_winner()
    if winner is not None:
        return int(winner)
    return max(-_negamax(state.transition(a).board.tobytes()) for a in state.get_possible_actions())


def exact_value(state: TicTacToeGameState) -> int:
    return _negamax(state.board.astype(np.int8).tobytes())


def winning_actions(state: TicTacToeGameState) -> list[TicTacToeAction]:
    return [a for a in state.get_possible_actions() if exact_value(state.transition(a)) == -1]


def test_seed000_main_program_runs_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    # The seed's main.py, with only its import of MCTS pointed at playout:
    initial_state = np.array(
        [
            [0, -1, 0],
            [0, 1, 0],
            [0, 0, 0],
        ]
    )

    mcts_player = MCTS(TicTacToeGameState(initial_state), np.sqrt(2), 800)
    action = mcts_player.decide(advance=False)

    print(mcts_player.root_state.transition(action))
    # ---
    assert isinstance(action, TicTacToeAction)
    start = TicTacToeGameState(np.array(EXAMPLE))
    assert exact_value(start) == 1  # the mover (centre) wins by force...
    assert action in winning_actions(start)  # ...and the search picks a winning square
    assert len(winning_actions(start)) < len(start.get_possible_actions())
    assert capsys.readouterr().out == repr(start.transition(action)) + "\n"
    assert (mcts_player.root_state.board == np.array(EXAMPLE)).all()  # advance=False
    result = mcts_player.result()
    assert sum(result.visit_counts) == 800 or result.proven == "win"
    assert result.value > 0.5


def test_it_is_playout_mcts_underneath() -> None:
    player = MCTS(TicTacToeGameState(), 1.5, 30, seed=0)
    assert isinstance(player.engine, playout.MCTS)
    assert player.engine.config.selection == playout.UCB1(c=1.5)
    assert player.engine.budget == playout.Budget(simulations=30)
    assert (player.trade_off_constant, player.n_simulations) == (1.5, 30)
    assert "n_simulations=30" in repr(player)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seed_self_play_loop_draws(seed: int) -> None:
    """Both sides decide with advance=True (the seed's tree reuse) until get_winner()."""
    mcts = MCTS(TicTacToeGameState(), np.sqrt(2), 800, seed=seed)
    moves = 0
    while mcts.root_state.get_winner() is None:
        action = mcts.decide()
        assert isinstance(action, TicTacToeAction)
        moves += 1
    assert mcts.root_state.get_winner() == 0  # perfect play draws tic-tac-toe
    assert moves == 9
    with pytest.raises(GameOverError):
        mcts.decide()


def test_seed_loop_against_an_outside_player_never_loses() -> None:
    """The seed's human-vs-AI pattern: the opponent's moves come in through transition()."""
    for seed in range(3):
        mcts = MCTS(TicTacToeGameState(), np.sqrt(2), 400, seed=seed)
        mcts_to_move = False
        while (winner := mcts.root_state.get_winner()) is None:
            if mcts_to_move:
                mcts.decide()
            else:
                # A fresh Action object equal to the first possible one (not the same object).
                first = mcts.root_state.get_possible_actions()[0]
                mcts.transition(TicTacToeAction(first.x, first.y))
            mcts_to_move = not mcts_to_move
        # get_winner() is seen from the player to move: -1 means the last mover won.
        last_mover_was_mcts = not mcts_to_move
        assert winner == 0 or (winner == -1 and last_mover_was_mcts)


def test_transition_keeps_the_subtree() -> None:
    mcts = MCTS(TicTacToeGameState(), np.sqrt(2), 300, seed=4)
    mcts.decide(advance=False)
    mcts.transition(TicTacToeAction(1, 1))
    assert mcts.result().total_simulations > 0
    assert mcts.root_state.board[1, 1] == -1  # seen from the next player: the mover's stone


@pytest.mark.parametrize(
    ("foreign", "message"),
    [
        ("b2", "is a str, not an action of this game"),
        (4, "is a int, not an action"),
        (None, "is a NoneType"),
        ((1, 1), "is a tuple"),
        (TicTacToeAction(5, 5), r"Action\(5, 5\) is not possible here"),
        (TicTacToeAction(1, 1), r"Action\(1, 1\) is not possible here"),  # occupied
    ],
)
def test_foreign_actions_raise_illegal_move_error(foreign: object, message: str) -> None:
    mcts = MCTS(TicTacToeGameState(np.array(EXAMPLE)), np.sqrt(2), 50, seed=0)
    before = mcts.root_state
    with pytest.raises(IllegalMoveError, match=message) as info:
        mcts.transition(foreign)
    assert "int() argument" not in str(info.value)
    assert mcts.root_state is before  # nothing moved
    mcts.transition(TicTacToeAction(0, 0))  # a legal one still works


def test_transition_after_the_end() -> None:
    board = np.array([[-1, -1, -1], [1, 1, 0], [0, 0, 0]])  # the last mover made a row
    mcts = MCTS(TicTacToeGameState(board), np.sqrt(2), 10)
    with pytest.raises(IllegalMoveError, match="game is over"):
        mcts.transition(TicTacToeAction(2, 1))


@pytest.mark.parametrize(
    ("constant", "simulations"),
    [(-1.0, 10), (float("nan"), 10), ("2", 10), (1.0, 0), (1.0, 2.5), (1.0, True)],
)
def test_bad_parameters(constant: object, simulations: object) -> None:
    with pytest.raises(InvalidParameterError):
        SeedMCTS(TicTacToeGameState(), constant, simulations)  # type: ignore[arg-type]
