"""The ``monte-carlo-tree-search`` PyPI package (import name ``mcts``) on playout's game states.

The package searches objects with its own interface (``mcts.base.base.BaseState``:
``get_current_player`` returning +1 for the maximiser and -1 for the minimiser,
``get_possible_actions``, ``take_action``, ``is_terminal``, ``get_reward`` as the maximiser's
reward). :class:`PlayoutStateAdapter` is a thin wrapper over a playout state (player 0 is the
maximiser), so the tree part calls the same game code as playout's engine.

Rollouts go through the package's documented ``rollout_policy`` plug point with
:func:`random_rollout`, which unwraps the state once and then plays the same loop as the
package's own ``random_policy`` (``random.choice`` over the legal actions until the end) on the
playout state itself: the rollout's game cost is then exactly that of the bare playouts, with
no wrapper object per move. This gives the package its best showing.
"""

from __future__ import annotations

import random
from typing import Any

from mcts.base.base import BaseState
from mcts.searcher.mcts import MCTS

GameState = Any  # a playout game state (playout.GameState)


class PlayoutStateAdapter(BaseState):
    """A playout game state seen through the ``monte-carlo-tree-search`` interface."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def get_current_player(self) -> int:
        return 1 if self.state.current_player() == 0 else -1

    def get_possible_actions(self) -> tuple[int, ...]:
        return self.state.legal_actions()

    def take_action(self, action: int) -> PlayoutStateAdapter:
        return PlayoutStateAdapter(self.state.play(action))

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def get_reward(self) -> float:
        return self.state.returns()[0]


def random_rollout(adapted: PlayoutStateAdapter) -> float:
    """The package's ``random_policy`` on the unwrapped playout state (player 0's reward)."""
    state = adapted.state
    while not state.is_terminal():
        state = state.play(random.choice(state.legal_actions()))
    return state.returns()[0]


def decide(state: GameState, simulations: int, exploration: float) -> int:
    """One move decision: ``simulations`` iterations of the package's UCT from ``state``.

    The package draws from the global :mod:`random` generator (seed it for repeatability). Its
    UCB term is ``c * sqrt(ln N / n)``, so ``exploration = sqrt(2)`` is UCB1.
    """
    searcher = MCTS(
        iteration_limit=simulations,
        exploration_constant=exploration,
        rollout_policy=random_rollout,
    )
    return int(searcher.search(initial_state=PlayoutStateAdapter(state)))
