"""MCTS-Solver: proven wins, losses and draws, and the moves it chooses from them."""

from __future__ import annotations

import random

import pytest

import playout
from playout import MCTS, Budget
from playout.games import Connect4Game, MnkGame, tictactoe

from .solver import outcome_within, solve

TTT = tictactoe()
C4 = Connect4Game()


def test_tictactoe_empty_board_is_proven_a_draw() -> None:
    result = playout.search(TTT.initial_state(), simulations=200_000, seed=0)
    assert result.proven == "draw"
    assert result.value == 0.0
    assert result.total_simulations < 200_000  # it stopped once solved


@pytest.mark.parametrize("moves", ["0,0 1,1 2,2", "1,1 0,0", "0,0 1,0 0,1 1,1"])
def test_tictactoe_proofs_agree_with_exact_minimax(moves: str) -> None:
    state = TTT.initial_state()
    for move in moves.split():
        state = state.play(TTT.string_to_action(state, move))
    exact = solve(state)
    result = playout.search(state, simulations=100_000, seed=1)
    assert result.proven == {1: "win", 0: "draw", -1: "loss"}[exact]
    # The chosen move keeps the exact value.
    assert -solve(state.play(result.best_action)) == exact


def test_a_proven_win_is_played_at_once_and_is_the_shortest() -> None:
    # X: (0,0) (1,0), O: (0,1) (1,1) and X to move: (2,0) wins now; other wins take longer.
    state = TTT.initial_state()
    for move in ["0,0", "0,1", "1,0", "1,1"]:
        state = state.play(TTT.string_to_action(state, move))
    result = playout.search(state, simulations=10_000, seed=2)
    assert result.proven == "win"
    assert result.best_action == TTT.action_of(2, 0)


def _plies_to_lose(state: playout.GameState) -> int:
    """Plies until the player to move in a lost ``state`` loses under best play."""
    for plies in range(1, 10):
        if outcome_within(state, plies) == -1:
            return plies
    raise AssertionError("not a lost position")


def _lost_positions_with_a_choice_of_delay(limit: int) -> list[playout.GameState]:
    """Reachable tic-tac-toe positions lost for the player to move where some moves lose
    sooner than others (breadth-first, so the list is the same on every run)."""
    found = []
    frontier = [TTT.initial_state()]
    seen = set(frontier)
    while frontier and len(found) < limit:
        state = frontier.pop(0)
        if state.is_terminal():
            continue
        if solve(state) == -1:
            lengths = {1 + _plies_to_lose_after(state.play(a)) for a in state.legal_actions()}
            if len(lengths) > 1:
                found.append(state)
        for action in state.legal_actions():
            child = state.play(action)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return found


def _plies_to_lose_after(child: playout.GameState) -> int:
    # After our move the opponent is to move and winning: plies until they win.
    if child.is_terminal():
        return 0
    for plies in range(1, 10):
        if outcome_within(child, plies) == 1:
            return plies
    raise AssertionError("the opponent does not win")


def test_a_proven_loss_is_delayed_as_long_as_possible() -> None:
    positions = _lost_positions_with_a_choice_of_delay(limit=5)
    assert len(positions) == 5
    for index, state in enumerate(positions):
        result = playout.search(state, simulations=20_000, seed=index)
        assert result.proven == "loss"
        chosen = _plies_to_lose_after(state.play(result.best_action))
        longest = max(_plies_to_lose_after(state.play(a)) for a in state.legal_actions())
        assert chosen == longest, TTT.render(state)


def _random_connect4_positions(count: int, seed: int) -> list[playout.GameState]:
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = C4.initial_state()
        for _ in range(rng.randrange(6, 20)):
            nxt = state.play(rng.choice(state.legal_actions()))
            if nxt.is_terminal():
                break
            state = nxt
        positions.append(state)
    return positions


def test_connect4_forced_wins_are_proven_and_a_winning_column_is_chosen() -> None:
    """Positions with a forced win within 5 plies, found by an exact depth-limited search."""
    checked = 0
    for state in _random_connect4_positions(400, seed=4):
        if outcome_within(state, 1) == 1 or outcome_within(state, 5) != 1:
            continue  # keep the ones that need a real combination
        result = MCTS(state, seed=checked).run(Budget(simulations=30_000))
        assert result.proven == "win", C4.render(state)
        child = state.play(result.best_action)
        assert outcome_within(child, 4) == -1, C4.render(state)  # the opponent is lost
        checked += 1
        if checked == 6:
            break
    assert checked >= 3


def test_connect4_single_saving_column_is_found() -> None:
    """Positions where exactly one column avoids a loss within 4 plies."""
    checked = 0
    for state in _random_connect4_positions(600, seed=5):
        if outcome_within(state, 4) != 0:
            continue
        safe = [a for a in state.legal_actions() if outcome_within(state.play(a), 3) != 1]
        if len(safe) != 1:
            continue
        result = MCTS(state, seed=checked).run(Budget(simulations=20_000))
        assert result.best_action == safe[0], C4.render(state)
        checked += 1
        if checked == 6:
            break
    assert checked >= 3


def test_solver_on_a_bigger_board_finds_the_win_in_one() -> None:
    game = MnkGame(6, 6, 4)
    state = game.initial_state()
    for move in ["0,5", "0,0", "1,5", "1,0", "2,5", "2,0"]:
        state = state.play(game.string_to_action(state, move))
    result = playout.search(state, simulations=5000, seed=6)
    assert result.proven == "win"
    assert result.best_action == game.action_of(3, 5)
