"""Exact game-theoretic values of small games, and a player that plays perfectly.

:func:`solve` enumerates every position reachable from the start with a memoised negamax
(minimax on returns) written with an explicit stack, so it never recurses; each position is
computed once however many move orders reach it. :class:`PerfectPlayer` then picks uniformly
(with its seeded generator) among the moves that keep the game-theoretic value: it never loses
a won or drawn position, and takes any winning line, not necessarily the shortest.

It is meant for reference play on tic-tac-toe and small m,n,k boards (5,478 positions for
tic-tac-toe). Larger boards are refused up front (more than :data:`MAX_SQUARES` squares), and
any game whose enumeration outgrows the node budget stops with a clear error.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping

from playout._src.errors import InvalidParameterError
from playout._src.game import Game, GameState, value_for

MAX_SQUARES = 12
"""Largest board (``width * height``) :func:`solve` accepts: 4x3 takes about a second and
112,000-142,000 positions, 4x4 has about ten million (minutes in pure Python)."""

MAX_ACTIONS = 64
"""The most action ids of a game without a board size that :func:`solve` tries (chess has
4,240)."""

DEFAULT_MAX_NODES = 1_000_000
"""Positions :func:`solve` may store before giving up (about 200 MB at most)."""

_CACHE_SIZE = 4
_SOLUTIONS: dict[Game, Solution] = {}


@dataclasses.dataclass(frozen=True)
class Solution:
    """Exact values of every position reachable from a game's initial state.

    Attributes:
        game: the solved game.
        values0: each position's exact return for player 0 under perfect play by both sides.
    """

    game: Game
    values0: Mapping[GameState, float]

    @property
    def num_positions(self) -> int:
        """Reachable positions, the initial and the finished ones included."""
        return len(self.values0)

    def value(self, state: GameState) -> float:
        """Exact value of ``state`` for the player to move (for player 0 once it is over).

        Raises:
            InvalidParameterError: ``state`` is not reachable from the initial position.
        """
        value0 = self._value0(state)
        return value_for(state.current_player(), value0)

    def optimal_actions(self, state: GameState) -> tuple[int, ...]:
        """The legal actions of ``state`` that keep its value for the player to move."""
        mover = state.current_player()
        scored = [(value_for(mover, self._value0(state.play(a))), a) for a in state.legal_actions()]
        best = max(value for value, _ in scored)
        return tuple(a for value, a in scored if value == best)

    def _value0(self, state: GameState) -> float:
        try:
            return self.values0[state]
        except KeyError:
            raise InvalidParameterError(
                f"{state!r} is not reachable from the initial position of {self.game.spec.name}"
            ) from None


def check_solvable(game: Game, *, max_squares: int = MAX_SQUARES) -> None:
    """Raise :class:`InvalidParameterError` unless ``game`` is a small enough game to solve.

    Needs a deterministic two-player zero-sum game without intermediate rewards; a board game
    (with ``width`` and ``height``, or a square board's ``size``) may have at most
    ``max_squares`` squares, any other game at most :data:`MAX_ACTIONS` action ids.
    """
    spec = game.spec
    if spec.num_players != 2 or not spec.is_deterministic or spec.has_intermediate_rewards:
        raise InvalidParameterError(
            f"perfect play needs a deterministic two-player game, not {spec.name}"
        )
    width, height = getattr(game, "width", None), getattr(game, "height", None)
    size = getattr(game, "size", None)
    if not (isinstance(width, int) and isinstance(height, int)) and isinstance(size, int):
        width = height = size  # a square board given by its side (Go)
    if isinstance(width, int) and isinstance(height, int):
        if width * height > max_squares:
            raise InvalidParameterError(
                f"perfect play: a {width}x{height} board ({width * height} squares) is too "
                f"large to solve exactly; at most {max_squares} squares"
            )
    elif spec.num_actions is None or spec.num_actions > MAX_ACTIONS:
        raise InvalidParameterError(
            f"perfect play: {spec.name} ({spec.num_actions or 'unbounded'} action ids) is too "
            f"large to solve exactly; games without a board size may have at most "
            f"{MAX_ACTIONS} actions"
        )


def solve(
    game: Game, *, max_nodes: int = DEFAULT_MAX_NODES, max_squares: int = MAX_SQUARES
) -> Solution:
    """Exact values of every position reachable in ``game`` (cached per game).

    Negamax over returns with memoisation on the (hashable) states and an explicit stack:
    a position is pushed, its unsolved children are pushed above it, and it is valued when it
    comes up again (its children are then all valued): ``max`` of the children's values for
    the player to move, a finished game's value is its return.

    Raises:
        InvalidParameterError: not a deterministic two-player game, a board larger than
            ``max_squares``, or more than ``max_nodes`` positions.
    """
    cached = _SOLUTIONS.get(game)
    if cached is not None:
        return cached
    check_solvable(game, max_squares=max_squares)
    values0: dict[GameState, float] = {}
    stack: list[tuple[GameState, list[GameState] | None]] = [(game.initial_state(), None)]
    while stack:
        state, children = stack.pop()
        if state in values0:
            continue
        if state.is_terminal():
            values0[state] = float(state.returns()[0])
        elif children is None:
            children = [state.play(a) for a in state.legal_actions()]
            stack.append((state, children))
            stack.extend((child, None) for child in children if child not in values0)
            continue
        else:
            child_values = [values0[child] for child in children]
            values0[state] = max(child_values) if state.current_player() == 0 else min(child_values)
        if len(values0) > max_nodes:
            raise InvalidParameterError(
                f"perfect play: {game.spec.name} has more than {max_nodes:,} positions; "
                "too large to solve exactly"
            )
    solution = Solution(game=game, values0=values0)
    if len(_SOLUTIONS) >= _CACHE_SIZE:
        _SOLUTIONS.pop(next(iter(_SOLUTIONS)))
    _SOLUTIONS[game] = solution
    return solution


class PerfectPlayer:
    """Plays a move of best game-theoretic value, uniformly at random among the best.

    Args:
        game: a small deterministic two-player game (solved when the player is built).
        name: label for reports.
        max_nodes: the solver's position budget.

    Raises:
        InvalidParameterError: the game cannot be solved (see :func:`solve`).
    """

    def __init__(
        self, game: Game, *, name: str = "perfect", max_nodes: int = DEFAULT_MAX_NODES
    ) -> None:
        self._solution = solve(game, max_nodes=max_nodes)
        self._name = name
        self._rng = random.Random(0)

    @property
    def name(self) -> str:
        return self._name

    @property
    def solution(self) -> Solution:
        return self._solution

    def reset(self, state: GameState, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: GameState) -> int:
        return int(self._rng.choice(self._solution.optimal_actions(state)))

    def notify(self, action: int) -> None:
        pass

    def __repr__(self) -> str:
        return f"PerfectPlayer({self._name!r})"


__all__ = [
    "DEFAULT_MAX_NODES",
    "MAX_SQUARES",
    "PerfectPlayer",
    "Solution",
    "check_solvable",
    "solve",
]
