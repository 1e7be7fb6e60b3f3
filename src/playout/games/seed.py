"""Adapter for games written against seed 000's interface.

Seed 000 ("Coding the AlphaZero search algorithm from scratch, part 2") defines a game by a
state object with three methods, always **seen from the player to move**:

* ``get_winner()``: ``None`` while the game runs; at the end ``1`` if the player to move in
  that state has won, ``-1`` if the other player has won, ``0`` for a draw;
* ``get_possible_actions()``: a list of hashable ``Action`` objects (``__eq__``/``__hash__``);
* ``transition(action)``: the new state, seen from the next player.

:func:`from_seed_state` wraps such a root state into a :class:`SeedGame` that follows playout's
protocol: the player to move at the wrapped root is player 0, the players alternate, and
``get_winner()`` becomes ``returns()`` (``(1, -1)`` when player 0 won, ...). Actions get
integer ids in the order the adapter first sees them; the mapping lives in the game object, so
ids are stable for the lifetime of that :class:`SeedGame` (a cache that only grows).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any, Protocol, Self, cast

from playout._src.errors import GameError, IllegalMoveError, MoveParseError
from playout._src.game import TERMINAL, GameSpec, GameState

_PLAYER0_WINS: tuple[float, float] = (1.0, -1.0)
_PLAYER1_WINS: tuple[float, float] = (-1.0, 1.0)
_NO_WINNER: tuple[float, float] = (0.0, 0.0)


class SeedGameState(Protocol):
    """The interface of seed 000's ``GameState`` (from the player to move's point of view)."""

    def get_winner(self) -> int | None:
        """``None`` while playing; 1 the player to move won, -1 the other won, 0 draw."""
        ...

    def get_possible_actions(self) -> Sequence[Hashable]:
        """The actions available to the player to move."""
        ...

    def transition(self, action: Any) -> SeedGameState:
        """The state after ``action``, seen from the next player."""
        ...


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SeedState:
    """A wrapped seed-000 state plus the absolute player to move.

    Equality is identity unless the wrapped state class defines ``__eq__`` (then see
    :class:`SeedValueState`): seed 000's own states (numpy boards) have no equality.

    Attributes:
        game: the adapter game.
        inner: the wrapped seed state (seen from the player to move).
        player: the absolute player to move in ``inner`` (0 at the root, then alternating).
        legal: action ids of ``inner.get_possible_actions()``; ``()`` once ``get_winner()`` is
            not ``None``.
        winner: ``inner.get_winner()``, cached (``None`` while the game runs).
    """

    game: SeedGame
    inner: Any
    player: int
    legal: tuple[int, ...] = dataclasses.field(repr=False)
    winner: int | None = dataclasses.field(repr=False)

    def current_player(self) -> int:
        """0 or 1, or :data:`TERMINAL` once the wrapped state has a winner (or a draw)."""
        return TERMINAL if self.winner is not None else self.player

    def legal_actions(self) -> tuple[int, ...]:
        """Ids of the wrapped state's possible actions; ``()`` at the end."""
        return self.legal

    def is_terminal(self) -> bool:
        """Whether the wrapped ``get_winner()`` is not ``None``."""
        return self.winner is not None

    def play(self, action: int) -> Self:
        """``inner.transition`` of the action with this id; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the id is not among this state's legal actions.
        """
        if action not in self.legal:
            if self.winner is not None:
                raise IllegalMoveError("the game is over")
            raise IllegalMoveError(f"action id {action!r} is not legal here (legal: {self.legal})")
        inner_action = self.game.action_for_id(action)
        # The game wraps every state in one class (SeedState or SeedValueState): type(self).
        return cast(Self, self.game.wrap(self.inner.transition(inner_action), 1 - self.player))

    def returns(self) -> tuple[float, float]:
        """``(1, -1)`` player 0 won, ``(-1, 1)`` player 1 won, ``(0, 0)`` draw or running."""
        winner = self.winner
        if not winner:  # None (running) or 0 (draw)
            return _NO_WINNER
        # get_winner() is seen from the player to move in ``inner``: +1 means they won.
        player0_won = (winner == 1) == (self.player == 0)
        return _PLAYER0_WINS if player0_won else _PLAYER1_WINS


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SeedValueState(SeedState):
    """A :class:`SeedState` whose wrapped class defines ``__eq__``/``__hash__``: compares by
    ``(game, player, inner)``, so transpositions of a well-behaved seed game are recognised."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeedValueState):
            return NotImplemented
        return (
            self.game is other.game
            and self.player == other.player
            and bool(self.inner == other.inner)
        )

    def __hash__(self) -> int:
        return hash((id(self.game), self.player, self.inner))


class SeedGame:
    """A seed-000 game behind playout's :class:`~playout.Game` protocol.

    Args:
        root: the wrapped initial state; its player to move is player 0.
        name: the name reported in :attr:`spec`.

    The spec: 2 players, zero-sum, deterministic, ``num_actions=None`` (ids are assigned as
    actions are discovered) and ``max_length=None``.
    """

    def __init__(self, root: SeedGameState, name: str = "seed-game") -> None:
        self.spec = GameSpec(name=name, num_players=2, num_actions=None, max_length=None)
        self._ids: dict[Hashable, int] = {}
        self._actions: list[Hashable] = []
        has_value_equality = (
            type(root).__eq__ is not object.__eq__ and type(root).__hash__ is not None
        )
        self._state_class: type[SeedState] = SeedValueState if has_value_equality else SeedState
        self._root = self.wrap(root, 0)

    def __repr__(self) -> str:
        return f"SeedGame(name={self.spec.name!r}, num_action_ids={len(self._actions)})"

    def initial_state(self) -> SeedState:
        """The wrapped root state, player 0 to move."""
        return self._root

    def wrap(self, inner: SeedGameState, player: int) -> SeedState:
        """A :class:`SeedState` for ``inner`` with absolute player ``player`` (0 or 1) to move."""
        winner = inner.get_winner()
        legal = (
            ()
            if winner is not None
            else tuple(self.id_for(a) for a in inner.get_possible_actions())
        )
        return self._state_class(self, inner, player, legal, winner)

    def id_for(self, action: Hashable) -> int:
        """The integer id of a seed action, assigning the next free id on first sight."""
        action_id = self._ids.get(action)
        if action_id is None:
            action_id = len(self._actions)
            self._ids[action] = action_id
            self._actions.append(action)
        return action_id

    def action_for_id(self, action: int) -> Any:
        """The seed action object with id ``action``.

        Raises:
            IllegalMoveError: no action has this id.
        """
        if (
            isinstance(action, bool)
            or not isinstance(action, int)
            or not 0 <= action < len(self._actions)
        ):
            raise IllegalMoveError(f"no action has id {action!r}")
        return self._actions[action]

    @property
    def actions(self) -> tuple[Any, ...]:
        """Every seed action seen so far, indexed by id."""
        return tuple(self._actions)

    def action_to_string(self, state: GameState, action: int) -> str:
        """``str()`` of the seed action (its ``__repr__`` when it defines no ``__str__``)."""
        return str(self.action_for_id(action))

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse ``str()`` or ``repr()`` of one of the legal actions, or an integer id.

        Raises:
            MoveParseError: neither an action's text nor an integer.
            IllegalMoveError: a known action or an id that is not legal here, or a finished game.
        """
        stripped = text.strip()
        state = self._own(state)
        if state.is_terminal():
            raise IllegalMoveError("the game is over")
        for action_id in state.legal:
            action = self._actions[action_id]
            if stripped in (str(action), repr(action)):
                return action_id
        for action in self._actions:
            if stripped in (str(action), repr(action)):
                raise IllegalMoveError(f"{stripped} is not legal here")
        try:
            action_id = int(stripped)
        except ValueError:
            raise MoveParseError(
                f"cannot read move {text!r}: write one of "
                + ", ".join(str(self._actions[a]) for a in state.legal)
                + " or an action id"
            ) from None
        if action_id not in state.legal:
            raise IllegalMoveError(
                f"action id {action_id} is not legal here (legal: {state.legal})"
            )
        return action_id

    def render(self, state: GameState) -> str:
        """``str()`` of the wrapped state and the player to move (seen from that player)."""
        state = self._own(state)
        status = "game over" if state.is_terminal() else f"player {state.player} to move"
        return f"{state.inner}\n({status}; the board is seen from the player to move)"

    def _own(self, state: GameState) -> SeedState:
        if not isinstance(state, SeedState) or state.game is not self:
            raise GameError(f"{state!r} is not a position of {self!r}")
        return state


def from_seed_state(seed_state: SeedGameState, name: str = "seed-game") -> SeedGame:
    """Wrap a seed-000 root state into a :class:`SeedGame` (its player to move is player 0)."""
    return SeedGame(seed_state, name=name)


__all__ = ["SeedGame", "SeedGameState", "SeedState", "SeedValueState", "from_seed_state"]
