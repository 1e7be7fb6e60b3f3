"""Known counts (perft-style) and a cross-check of win detection against a naive scan."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from playout.games import Connect4Game, MnkGame, tictactoe
from playout.games.mnk import MnkState

from .test_games import naive_winner


def test_tictactoe_has_5478_reachable_positions() -> None:
    """Distinct legal positions reachable from the empty board, the empty board and finished
    positions included (a known count; 958 of them are terminal)."""
    root = tictactoe().initial_state()
    seen: set[MnkState] = {root}
    stack = [root]
    while stack:
        state = stack.pop()
        for action in state.legal_actions():
            child = state.play(action)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    assert len(seen) == 5478
    assert sum(state.is_terminal() for state in seen) == 958


def test_tictactoe_has_255168_complete_games() -> None:
    """Every move sequence to the end, enumerated with an explicit stack (no recursion)."""
    outcomes: Counter[tuple[float, float]] = Counter()
    lengths: Counter[int] = Counter()
    stack = [tictactoe().initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            outcomes[state.returns()] += 1
            lengths[state.num_moves] += 1
            continue
        stack.extend(state.play(action) for action in state.legal_actions())
    assert sum(outcomes.values()) == 255_168
    assert outcomes[(1.0, -1.0)] == 131_184  # first player (X) wins
    assert outcomes[(-1.0, 1.0)] == 77_904  # second player (O) wins
    assert outcomes[(0.0, 0.0)] == 46_080  # draws
    assert lengths == {5: 1_440, 6: 5_328, 7: 47_952, 8: 72_576, 9: 127_872}


@pytest.mark.parametrize(
    ("width", "height", "k", "num_games"),
    [
        (3, 3, 3, 300),
        (4, 4, 3, 200),
        (5, 4, 4, 150),
        (3, 5, 4, 150),  # k longer than the width: only vertical lines
        (1, 7, 3, 100),
        (7, 1, 2, 100),
        (6, 6, 4, 100),
        (7, 6, 4, 80),
        (9, 9, 5, 40),
        (15, 15, 5, 8),
        (32, 32, 3, 3),
    ],
)
def test_mnk_win_detection_matches_a_naive_checker(
    width: int, height: int, k: int, num_games: int
) -> None:
    game = MnkGame(width, height, k)
    rng = random.Random(width * 1000 + height * 10 + k)
    results: Counter[tuple[float, float]] = Counter()
    for _ in range(num_games):
        state = game.initial_state()
        while not state.is_terminal():
            state = state.play(rng.choice(state.legal_actions()))
            grid = state.grid()
            mark = naive_winner(grid, k)
            full = state.num_moves == width * height
            assert state.is_terminal() == (mark is not None or full), grid
        expected = {1: (1.0, -1.0), -1: (-1.0, 1.0), None: (0.0, 0.0)}[
            naive_winner(state.grid(), k)
        ]
        assert state.returns() == expected
        results[expected] += 1
    if width * height >= 9 and k >= 3:
        assert results[(1.0, -1.0)] > 0  # the sample exercised wins, not only draws


def test_connect4_perft() -> None:
    """Move sequences of each length from the empty 7x6 board: ``7 ** n`` while no column can be
    full, then 823,536 at depth 7 (the 7 sequences that filled one column have 6 moves left)."""
    game = Connect4Game()
    counts = [0] * 8
    stack = [(game.initial_state(), 0)]
    while stack:
        state, depth = stack.pop()
        counts[depth] += 1
        if depth < 7 and not state.is_terminal():
            stack.extend((state.play(action), depth + 1) for action in state.legal_actions())
    assert counts == [1, 7, 49, 343, 2_401, 16_807, 117_649, 823_536]
