# ruff: noqa
"""Seed 000's Tic-Tac-Toe, copied verbatim (test fixture for the seed-000 adapter).

Source: /work/shared/seeds/000_c994457005a53d86.txt ("Coding the AlphaZero search algorithm
from scratch - Part 2"): the ``Action`` and ``GameState`` abstract classes and the
``TicTacToeAction`` / ``TicTacToeGameState`` example, unchanged apart from being gathered into
one module (hence the lint exemption). Note the seed's conventions: ``get_possible_actions``
builds ``TicTacToeAction(column, row)``; ``transition`` writes 1 for the mover and then negates
the board, so a state is always seen from the player to move; ``get_winner`` only looks for a
line of the player who just moved (-1) and ends without an explicit ``return None``.
"""

from abc import ABC, abstractmethod
from typing import Optional, Self

import numpy as np
import numpy.typing as npt


class Action(ABC):
    """Represent a generic possible action a player can do in a game."""

    @abstractmethod
    def __eq__(self: Self, other: Self) -> bool:
        """Test equality between two Actions."""
        pass

    @abstractmethod
    def __hash__(self: Self) -> int:
        """Return a unique hash value for this Action."""
        pass


class GameState(ABC):
    """Abstract class to represent a game state.

    It is assumed that the player playing the position can be identified using some internal data.
    For instance, the player whose turn it is could have their pieces represented by positive
    numbers, while the other one would have their pieces represented by negative numbers.
    """

    @abstractmethod
    def get_winner(self: Self) -> Optional[int]:
        """Return the winner of the game, if it exists.

        If the current game state isn't terminal, then None is returned. Otherwise, it returns:
        - 1 if player playing this position won.;
        - -1 if the other player won;
        - 0 in case of a draw.
        """
        pass

    @abstractmethod
    def get_possible_actions(self: Self) -> list[Action]:
        """Return the list of possible actions when playing this game state."""
        pass

    @abstractmethod
    def transition(self: Self, action: Action) -> Self:
        """Return the new game state resulting from a given action applied on the current state."""
        pass


class TicTacToeAction(Action):
    """A Tic-Tac-Toe action."""

    def __init__(self: Self, x: int, y: int) -> None:
        """Initialize the action."""
        self.x = x
        self.y = y

    def __eq__(self: Self, other: Self):
        return self.x == other.x and self.y == other.y

    def __hash__(self: Self):
        return 3 * self.x + self.y

    def __repr__(self: Self) -> str:
        """Return a string representation of the action."""
        return f"Action({self.x}, {self.y})"


class TicTacToeGameState(GameState):
    """A Tic-Tac-Toe game state."""

    def __init__(self: Self, initial_state: Optional[npt.NDArray[np.int8]] = None) -> None:
        """Initialize the game state."""
        if initial_state is None:
            self.board: npt.NDArray[np.int8] = np.zeros((3, 3), dtype=np.int8)
        else:
            if initial_state.shape != (3, 3):
                raise ValueError(
                    "Wrong shape provided for initial state. "
                    f"Expected (3,3) and got {initial_state.shape}"
                )

            self.board = initial_state

    def get_winner(self: Self) -> Optional[int]:
        check_col = self.board.sum(axis=0)
        check_row = self.board.sum(axis=1)
        check_diag = np.trace(self.board)
        check_anti_diag = np.trace(np.fliplr(self.board))

        if -3 in check_col or -3 in check_row or check_diag == -3 or check_anti_diag == -3:
            return -1

        if 0 not in self.board:
            return 0

    def get_possible_actions(self: Self) -> list[Action]:
        return [TicTacToeAction(int(y), int(x)) for x, y in np.argwhere(self.board == 0)]

    def transition(self: Self, action: TicTacToeAction) -> Self:
        new_state = TicTacToeGameState(self.board.copy())
        new_state.board[action.y, action.x] = 1
        new_state.board *= -1

        return new_state

    def __repr__(self: Self) -> str:
        """Return a string representation of the game state."""
        res = ""
        for row in self.board:
            res += "|".join(("X" if x == 1 else "O") if x else " " for x in row) + "\n"

        # Remove last \n
        return res[:-1]
