"""A compiled kernel is used only for the rules it implements: a subclass or a wrapper of a
built-in state that changes the rules is searched with its own rules (Python driver)."""

from __future__ import annotations

from typing import Any

import pytest

import playout
from playout import Proven
from playout.games import tictactoe
from playout.games.mnk import MnkState

# X to move; X's square 2 (c1... the top row's third square) completes the top row.
GRID = [[1, 1, 0], [-1, -1, 0], [0, 0, 0]]
COMPLETES_ROW = 2


class MisereState(MnkState):
    """Tic-tac-toe where making k in a row loses (returns flipped), by subclassing."""

    __slots__ = ()

    @classmethod
    def of(cls, state: MnkState) -> MisereState:
        new = object.__new__(cls)
        for name in ("game", "stones0", "stones1", "legal"):
            object.__setattr__(new, name, getattr(state, name))
        return new

    def play(self, action: int) -> MisereState:
        return MisereState.of(MnkState.play(self, action))

    def returns(self) -> tuple[float, float]:
        first, second = MnkState.returns(self)
        return (-first, -second)


class MisereWrapper:
    """The same rules by wrapping: everything else, the kernel hook included, is passed on
    to the wrapped state by attribute look-up."""

    def __init__(self, inner: MnkState) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MisereWrapper) and other.inner == self.inner

    def __hash__(self) -> int:
        return hash(self.inner)

    def play(self, action: int) -> MisereWrapper:
        return MisereWrapper(self.inner.play(action))

    def returns(self) -> tuple[float, float]:
        first, second = self.inner.returns()
        return (-first, -second)


def start() -> MnkState:
    return tictactoe().from_grid(GRID, to_move=1)


def test_the_built_in_state_uses_its_kernel_and_wins() -> None:
    engine = playout.MCTS(start(), seed=0)
    assert engine.backend == "compiled"
    result = engine.run(playout.Budget(simulations=2000))
    assert result.action_outcomes()[COMPLETES_ROW] == Proven.WIN


@pytest.mark.parametrize("make", [MisereState.of, MisereWrapper], ids=["subclass", "wrapper"])
def test_changed_rules_are_searched_with_the_changed_rules(make: Any) -> None:
    state = make(start())
    assert callable(state.compiled_kernel)  # the hook is still reachable
    engine = playout.MCTS(state, seed=0)
    assert engine.backend == "python"
    result = engine.run(playout.Budget(simulations=2000))
    assert result.action_outcomes()[COMPLETES_ROW] == Proven.LOSS  # three in a row loses now
    assert result.best_action != COMPLETES_ROW


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (MisereState.of, "overrides play\\(\\), returns\\(\\) of MnkState"),
        (MisereWrapper, "look-up"),
    ],
    ids=["subclass", "wrapper"],
)
def test_asking_for_the_compiled_driver_says_why_not(make: Any, reason: str) -> None:
    with pytest.raises(playout.InvalidParameterError, match=reason):
        playout.search(make(start()), simulations=10, backend="compiled")


def test_a_subclass_that_keeps_the_rules_keeps_the_kernel() -> None:
    class Labelled(MnkState):
        __slots__ = ()

        def describe(self) -> str:
            return "a position"

    state = object.__new__(Labelled)
    for name in ("game", "stones0", "stones1", "legal"):
        object.__setattr__(state, name, getattr(start(), name))
    assert playout.MCTS(state, seed=0).backend == "compiled"
