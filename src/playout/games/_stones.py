"""What the two stone-placing games share: connect four and the m,n,k-games.

Both are given by a board size, ``k`` and a name, and both keep a position as two bitboards
(Python ints, one per player) plus the tuple of legal action ids (``()`` exactly when the game
is over). :class:`StoneGame` is their identity (equal parameters make equal games; pickled as
its parameters), initial state, observation shape and ``k``-in-a-row test; :class:`StoneState`
is the part of the game protocol that follows from the two bitboards. Each game keeps its own
layout of the bits, its moves, notation and rendering.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from playout._src.errors import GameError
from playout._src.game import TERMINAL, GameSpec

_PLAYER0_WINS: tuple[float, float] = (1.0, -1.0)
_PLAYER1_WINS: tuple[float, float] = (-1.0, 1.0)
_NO_WINNER: tuple[float, float] = (0.0, 0.0)

S = TypeVar("S", bound="StoneState")


class StoneGame(Generic[S]):
    """The shared part of :class:`~playout.games.Connect4Game` and
    :class:`~playout.games.MnkGame`.

    A subclass's ``__init__`` takes ``(width, height, k, name)`` and sets the attributes
    below, the empty board ``_initial`` and the shifts of :meth:`has_line` (:func:`line_shifts`).

    Attributes:
        width, height: the board's size in cells.
        k: stones in a row that win.
        spec: the game's description.
    """

    __slots__ = ()

    width: int
    height: int
    k: int
    spec: GameSpec
    _hash: int
    _initial: S
    _line_shifts: tuple[tuple[int, ...], ...]
    _planes: tuple[int, np.ndarray]
    """``(bytes per bitboard, index)`` for :meth:`StoneState.observation`: ``index[0]``
    holds the bit of each cell in the order of :meth:`StoneState.grid` (rows top first),
    ``index[1]`` the same bits shifted past the first bitboard's bytes (see
    :func:`observation_index`)."""

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, StoneGame)
        return (self.width, self.height, self.k, self.spec.name) == (
            other.width,
            other.height,
            other.k,
            other.spec.name,
        )

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type, tuple[int, int, int, str]]:
        # Rebuild from the parameters: the cached hash depends on the process's string hashing.
        return (type(self), (self.width, self.height, self.k, self.spec.name))

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(width={self.width}, height={self.height}, k={self.k}, "
            f"name={self.spec.name!r})"
        )

    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """Shape of a state's :meth:`~StoneState.observation`: two planes of the board."""
        return (2, self.height, self.width)

    def observations(self, states: Sequence[Any]) -> np.ndarray:
        """The :meth:`~StoneState.observation` of each of ``states`` (positions of this
        game), stacked: ``float32[len(states), 2, height, width]``, read off all their
        bitboards at once (a network's batch of leaves costs one unpacking, not one each).

        Raises:
            GameError: one of ``states`` is not a position of this game.
        """
        num_bytes, index = self._planes
        raw = bytearray()
        for state in states:
            if getattr(state, "game", None) is not self:
                self._own(state)  # an equal game passes; anything else raises
            stones0, stones1 = state.stones0, state.stones1
            if stones0.bit_count() > stones1.bit_count():  # the second player to move
                stones0, stones1 = stones1, stones0
            raw += stones0.to_bytes(num_bytes, "little")
            raw += stones1.to_bytes(num_bytes, "little")
        rows = np.frombuffer(bytes(raw), dtype=np.uint8).reshape(len(states), 2 * num_bytes)
        bits = np.unpackbits(rows, axis=1, bitorder="little")
        planes: np.ndarray = bits[:, index].astype(np.float32)
        return planes

    def initial_state(self) -> S:
        """The empty board, player 0 (``X``) to move."""
        return self._initial

    def has_line(self, stones: int) -> bool:
        """Whether the bitboard ``stones`` contains ``k`` in a row in any direction (shifts
        along each direction, the layout's padding bits keeping lines from wrapping)."""
        for steps in self._line_shifts:
            run = stones
            for shift in steps:
                run &= run >> shift
            if run:
                return True
        return False

    def _own(self, state: Any) -> S:
        """``state`` as a position of this game.

        Raises:
            GameError: it is not one.
        """
        if not isinstance(state, type(self._initial)) or state.game != self:
            raise GameError(f"{state!r} is not a position of {self!r}")
        return state


def observation_index(bits: list[list[int]]) -> tuple[int, np.ndarray]:
    """:attr:`StoneGame._planes` from the bit index of each cell, ``bits[row][column]`` with
    rows top first as in :meth:`StoneState.grid`."""
    index = np.asarray(bits, dtype=np.intp)
    num_bytes = (int(index.max()) + 8) // 8
    return num_bytes, np.stack([index, index + 8 * num_bytes])


def line_shifts(stride: int, k: int) -> tuple[tuple[int, ...], ...]:
    """The shifts of :meth:`StoneGame.has_line` along each direction of a padded bitboard with
    ``stride`` bits per line (1, ``stride``, ``stride + 1``, ``stride - 1``): each doubles
    the length of the runs found so far, the last one tops them up to exactly ``k``."""
    plans: list[tuple[int, ...]] = []
    for direction in (1, stride, stride + 1, stride - 1):
        steps: list[int] = []
        length = 1
        while length * 2 <= k:
            steps.append(direction * length)
            length *= 2
        if length < k:
            steps.append(direction * (k - length))
        plans.append(tuple(steps))
    return tuple(plans)


class StoneState:
    """The shared part of :class:`~playout.games.Connect4State` and
    :class:`~playout.games.MnkState` (frozen dataclasses with the fields below)."""

    __slots__ = ()

    game: Any
    stones0: int
    stones1: int
    legal: tuple[int, ...]

    def grid(self) -> tuple[tuple[int, ...], ...]:
        """The board, top row first: 1 = player 0 (``X``), -1 = player 1 (``O``), 0 empty."""
        raise NotImplementedError

    @property
    def num_moves(self) -> int:
        """Stones on the board (moves played so far)."""
        return (self.stones0 | self.stones1).bit_count()

    def current_player(self) -> int:
        """0 (``X``) or 1 (``O``) to move, or :data:`TERMINAL` once the game is over."""
        if not self.legal:
            return TERMINAL
        return 1 if self.stones0.bit_count() > self.stones1.bit_count() else 0

    def legal_actions(self) -> tuple[int, ...]:
        """The legal action ids, increasing; empty once the game is over."""
        return self.legal

    def is_terminal(self) -> bool:
        """Whether someone has ``k`` in a row or the board is full."""
        return not self.legal

    def winner(self) -> int | None:
        """Id of the player with ``k`` in a row, or ``None`` (game running or drawn)."""
        if self.legal:
            return None
        if self.game.has_line(self.stones0):
            return 0
        if self.game.has_line(self.stones1):
            return 1
        return None

    def returns(self) -> tuple[float, float]:
        """``(1, -1)`` player 0 won, ``(-1, 1)`` player 1 won, ``(0, 0)`` draw or running."""
        if self.legal:
            return _NO_WINNER
        winner = self.winner()
        if winner == 0:
            return _PLAYER0_WINS
        if winner == 1:
            return _PLAYER1_WINS
        return _NO_WINNER

    def observation(self) -> np.ndarray:
        """The position as input planes for a network (:mod:`playout.zero`), seen by the
        player to move: ``float32[2, height, width]``, plane 0 the mover's stones, plane 1
        the opponent's, rows as in :meth:`grid` (top first); what
        :func:`~playout._src.game.grid_planes` makes of :meth:`grid`, read off the bitboards."""
        planes: np.ndarray = self.game.observations((self,))[0]
        return planes

    def __str__(self) -> str:
        return str(self.game.render(self))
