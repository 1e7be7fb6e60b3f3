"""Seed 002's one-player bandit tree, as a game.

::

            0
          /   \\
         1     2
        / \\   / \\
       3   4 5   6

One player starts at node 0 and takes two steps, each time going left (action 0) or right
(action 1). Nodes 3, 4, 5 and 6 end the game. Moving into node 6 pays a reward of 1; every
other transition pays 0, so the optimal path is ``0 -> 2 -> 6`` with a return of 1.
``returns()`` is the one-tuple ``(total reward so far,)`` -- the reward arrives on a
transition, so the spec declares ``has_intermediate_rewards=True``.

:func:`get_future_value` is the seed's hand-written value function: 0.5 for node 2, 1 for
node 6, 0 elsewhere.
"""

from __future__ import annotations

import dataclasses

from playout._src.errors import GameError, IllegalMoveError, MoveParseError
from playout._src.game import TERMINAL, GameSpec, GameState, check_action_type

CHILDREN: dict[int, tuple[int, int]] = {0: (1, 2), 1: (3, 4), 2: (5, 6)}
"""The tree of seed 002: ``CHILDREN[node] = (left child, right child)`` for inner nodes."""

TERMINAL_NODES: frozenset[int] = frozenset({3, 4, 5, 6})
"""Nodes where the game ends."""

REWARDING_NODE = 6
"""The one node whose entry pays a reward of 1."""

LEFT = 0
RIGHT = 1

_ACTION_NAMES = ("left", "right")
_ACTION_ALIASES = {"left": LEFT, "l": LEFT, "0": LEFT, "right": RIGHT, "r": RIGHT, "1": RIGHT}


@dataclasses.dataclass(frozen=True, slots=True)
class BanditState:
    """A position in the bandit tree.

    Attributes:
        game: the game.
        node: the current node, 0..6.
        reward: total reward collected on the way here (0.0 or 1.0).
    """

    game: BanditTreeGame
    node: int
    reward: float = 0.0

    def current_player(self) -> int:
        """0 (the only player) until a leaf is reached, then :data:`TERMINAL`."""
        return TERMINAL if self.node in TERMINAL_NODES else 0

    def legal_actions(self) -> tuple[int, ...]:
        """``(0, 1)`` (left, right) at inner nodes; ``()`` at the leaves."""
        return () if self.node in TERMINAL_NODES else (LEFT, RIGHT)

    def is_terminal(self) -> bool:
        """Whether the current node is a leaf (3, 4, 5 or 6)."""
        return self.node in TERMINAL_NODES

    def play(self, action: int) -> BanditState:
        """Move to the left (0) or right (1) child, collecting 1 on entering node 6.

        Raises:
            IllegalMoveError: not 0 or 1, or the state is a leaf.
        """
        if self.node in TERMINAL_NODES:
            raise IllegalMoveError(f"node {self.node} is a leaf: the game is over")
        if type(action) is not int:
            check_action_type(action)
        if action not in (LEFT, RIGHT):
            raise IllegalMoveError(f"action must be 0 (left) or 1 (right), got {action!r}")
        child = CHILDREN[self.node][action]
        gain = 1.0 if child == REWARDING_NODE else 0.0
        return BanditState(self.game, child, self.reward + gain)

    def returns(self) -> tuple[float]:
        """``(total reward collected so far,)``."""
        return (self.reward,)


class BanditTreeGame:
    """Seed 002's bandit tree environment as a one-player game (registry name ``"bandit"``).

    Notation: ``"left"`` / ``"right"``; :meth:`string_to_action` also reads ``"l"``, ``"r"``,
    ``"0"`` and ``"1"`` (any case).
    """

    __slots__ = ("_initial", "spec")

    def __init__(self) -> None:
        self.spec = GameSpec(
            name="bandit",
            num_players=1,
            num_actions=2,
            max_length=2,
            is_zero_sum=False,
            has_intermediate_rewards=True,
            min_return=0.0,
            max_return=1.0,
        )
        self._initial = BanditState(self, 0, 0.0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BanditTreeGame)

    def __hash__(self) -> int:
        return hash(BanditTreeGame)

    def __reduce__(self) -> tuple[type[BanditTreeGame], tuple[()]]:
        return (BanditTreeGame, ())

    def __repr__(self) -> str:
        return "BanditTreeGame()"

    def initial_state(self) -> BanditState:
        """Node 0 with no reward collected."""
        return self._initial

    def state_at(self, node: int) -> BanditState:
        """The state at ``node`` reached by the unique path from the root (reward included)."""
        if node not in range(7):
            raise IllegalMoveError(f"node must be 0..6, got {node!r}")
        return BanditState(self, node, 1.0 if node == REWARDING_NODE else 0.0)

    def action_to_string(self, state: GameState, action: int) -> str:
        """``"left"`` for 0, ``"right"`` for 1."""
        if type(action) is not int:
            check_action_type(action)
        if action not in (LEFT, RIGHT):
            raise IllegalMoveError(f"action must be 0 (left) or 1 (right), got {action!r}")
        return _ACTION_NAMES[action]

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse ``left``/``l``/``0`` or ``right``/``r``/``1``.

        Raises:
            MoveParseError: anything else.
            IllegalMoveError: the state is a leaf.
        """
        action = _ACTION_ALIASES.get(text.strip().lower())
        if action is None:
            raise MoveParseError(f"cannot read move {text!r}: write left/right (or l/r, 0/1)")
        own = self._own(state)
        if own.is_terminal():
            raise IllegalMoveError(f"node {own.node} is a leaf: the game is over")
        return action

    def render(self, state: GameState) -> str:
        """The tree with the current node in brackets, and the reward collected."""
        state = self._own(state)

        def label(node: int) -> str:
            return f"[{node}]" if node == state.node else f" {node} "

        lines = [
            f"      {label(0)}",
            "     /   \\",
            f"  {label(1)}     {label(2)}",
            "  / \\     / \\",
            f"{label(3)} {label(4)} {label(5)} {label(6)}",
        ]
        lines = [line.rstrip() for line in lines]
        status = " (game over)" if state.is_terminal() else ""
        lines.append(f"node {state.node}, reward {state.reward:g}{status}")
        return "\n".join(lines)

    @staticmethod
    def _own(state: GameState) -> BanditState:
        if not isinstance(state, BanditState):
            raise GameError(f"{state!r} is not a bandit position")
        return state


def get_future_value(state: BanditState | int) -> float:
    """Seed 002's value function: 0.5 for node 2, 1 for node 6, 0 otherwise.

    Accepts a :class:`BanditState` or a bare node number, like the seed's static method.
    """
    node = state.node if isinstance(state, BanditState) else state
    if node == 2:
        return 0.5
    if node == 6:
        return 1.0
    return 0.0


__all__ = [
    "CHILDREN",
    "LEFT",
    "REWARDING_NODE",
    "RIGHT",
    "TERMINAL_NODES",
    "BanditState",
    "BanditTreeGame",
    "get_future_value",
]
