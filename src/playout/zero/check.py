"""Checks of a player against exact values: the positions where it throws value away."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playout._src.game import GameState
from playout._src.perfect import solve


def value_losing_positions(
    game: Any, choose: Callable[[GameState], int], *, limit: int | None = None
) -> tuple[int, list[GameState]]:
    """Every non-terminal position reachable in ``game`` (small games: :mod:`perfect`)
    where ``choose(state)`` plays a move worse than the position's exact value; returns the
    number of positions checked and those positions."""
    solution = solve(game)
    checked = 0
    bad: list[GameState] = []
    for state in solution.values0:
        if state.is_terminal():
            continue
        checked += 1
        if choose(state) not in solution.optimal_actions(state):
            bad.append(state)
            if limit is not None and len(bad) >= limit:
                break
    return checked, bad
