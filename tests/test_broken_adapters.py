"""The adapters refuse broken games: every contract of seed 000's interface
(``from_seed_state``, ``SeedMCTS``) and of reset/step environments (``from_env``) broken in
turn, each a :class:`~playout.GameError` whose message names the contract, never a
``TypeError``, an ``AttributeError`` or a confident wrong value."""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest

import playout
from playout import GameError
from playout.games import from_env, from_seed_state
from playout.games.seed import SeedMCTS

# ---------------------------------------------------------------------------- seed 000


class Action:
    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other.n == self.n

    def __hash__(self) -> int:
        return hash(self.n)

    def __repr__(self) -> str:
        return f"Action({self.n})"


class Countdown:
    """A seed-000 game: players take 1 or 2 from a pile; taking the last wins. The hooks
    below break one contract each."""

    def __init__(self, pile: int = 5) -> None:
        self.pile = pile

    def get_winner(self) -> Any:
        return -1 if self.pile == 0 else None  # the last mover took the last one

    def get_possible_actions(self) -> Any:
        return [Action(n) for n in (1, 2) if n <= self.pile]

    def transition(self, action: Action) -> Any:
        return type(self)(self.pile - action.n)


class WinnerTwo(Countdown):
    def get_winner(self) -> Any:
        return 2 if self.pile == 0 else None


class WinnerWord(Countdown):
    def get_winner(self) -> Any:
        return "lost" if self.pile == 0 else None


class WinnerHalf(Countdown):
    def get_winner(self) -> Any:
        return 0.5 if self.pile == 0 else None


class WinnerNan(Countdown):
    def get_winner(self) -> Any:
        return math.nan if self.pile == 0 else None


class UnhashableAction(Countdown):
    def get_possible_actions(self) -> Any:
        return [[n] for n in (1, 2) if n <= self.pile]


class EqualsWithoutHash:
    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:  # defines __eq__, so __hash__ is None
        return isinstance(other, EqualsWithoutHash) and other.n == self.n


class EqOnlyAction(Countdown):
    def get_possible_actions(self) -> Any:
        return [EqualsWithoutHash(n) for n in (1, 2) if n <= self.pile]


class TransitionNone(Countdown):
    def transition(self, action: Action) -> Any:
        self.pile -= action.n  # forgets to return


class ActionsNone(Countdown):
    def get_possible_actions(self) -> Any:
        return None if self.pile < 5 else super().get_possible_actions()


class NoActionsRunning(Countdown):
    def get_possible_actions(self) -> Any:
        return [] if self.pile < 3 else super().get_possible_actions()


class Mutating(Countdown):
    def transition(self, action: Action) -> Any:
        self.pile -= action.n  # changes itself, then returns a copy
        return Mutating(self.pile)


class ReturnsSelf(Countdown):
    def transition(self, action: Action) -> Any:
        self.pile -= action.n
        return self


SEED_CASES = [
    (WinnerTwo, "get_winner\\(\\) returned 2"),
    (WinnerWord, "get_winner\\(\\) returned 'lost'"),
    (WinnerHalf, "get_winner\\(\\) returned 0.5"),
    (WinnerNan, "get_winner\\(\\) returned nan"),
    (UnhashableAction, "cannot be hashed"),
    (EqOnlyAction, "__eq__ without __hash__"),
    (TransitionNone, "did transition\\(\\) forget to return"),
    (ActionsNone, "get_possible_actions\\(\\) returned None"),
    (NoActionsRunning, "returned no action while get_winner\\(\\) is None"),
    (Mutating, "changed the state it was called on"),
    (ReturnsSelf, "returned the state it was called on"),
]


@pytest.mark.parametrize(("cls", "message"), SEED_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_broken_seed_game_is_named_in_search(cls: type[Countdown], message: str) -> None:
    with pytest.raises(GameError, match=message):
        game = from_seed_state(cls())
        playout.search(game.initial_state(), simulations=300, seed=0)


@pytest.mark.parametrize(("cls", "message"), SEED_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_broken_seed_game_is_named_by_seed_mcts(cls: type[Countdown], message: str) -> None:
    with pytest.raises(GameError, match=message):
        SeedMCTS(cls(), 2**0.5, 300, seed=0).decide()


@pytest.mark.parametrize(("cls", "message"), SEED_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_broken_seed_game_is_named_by_check_game(cls: type[Countdown], message: str) -> None:
    with pytest.raises(GameError, match=message):
        playout.check_game(from_seed_state(cls()), num_games=20, seed=0)


def test_a_sound_seed_game_passes_everything() -> None:
    """The same game unbroken: a pile of 5 is won by taking 2 (leaving a multiple of 3)."""
    game = from_seed_state(Countdown())
    playout.check_game(game, num_games=20, seed=0)
    result = playout.search(game.initial_state(), simulations=500, seed=0)
    assert game.action_for_id(result.best_action) == Action(2)
    assert result.proven == "win"


# ---------------------------------------------------------------------------- environments


class Walk:
    """A reset/step environment: walk right (1) or stay (0) for up to 3 steps; reward 1 for
    each step right. The hooks below break one contract each."""

    reward: Any = 1.0

    def __init__(self) -> None:
        self.position = 0

    def reset(self) -> int:
        self.position = 0
        return self.position

    def step(self, action: int) -> tuple[Any, ...]:
        self.position += action
        return self.position, self.reward if action else 0.0, False


class WordReward(Walk):
    reward = "one"


class NoneReward(Walk):
    reward = None


class BigReward(Walk):
    reward = 10.0


class Locked(Walk):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()  # cannot be copied


def walk_game(factory: Any, **options: Any) -> Any:
    settings: dict[str, Any] = {"num_actions": 2, "max_length": 3}
    settings.update(options)
    return from_env(factory, **settings)


@pytest.mark.parametrize(
    ("factory", "options", "message"),
    [
        (WordReward, {}, "reward of 'one'"),
        (NoneReward, {}, "reward of None"),
        (Walk, {"legal_actions": lambda obs: None}, "legal_actions\\(\\) returned None"),
        (Walk, {"legal_actions": lambda obs: [0, 1.5]}, "legal_actions\\(\\) listed 1.5"),
        (Walk, {"legal_actions": lambda obs: ["1"]}, "legal_actions\\(\\) listed '1'"),
        (Walk, {"legal_actions": lambda obs: [0, 7]}, "legal_actions\\(\\) listed 7"),
        (lambda: None, {}, "env_factory\\(\\) returned None"),
        (Locked, {}, "restore='replay'"),
        (BigReward, {"min_return": -1.0, "max_return": 1.0}, "outside the declared"),
    ],
    ids=["word-reward", "none-reward", "legal-none", "legal-float", "legal-str", "legal-range",
         "factory-none", "uncopyable", "reward-out-of-bounds"],
)  # fmt: skip
def test_a_broken_environment_is_named(factory: Any, options: Any, message: str) -> None:
    with pytest.raises(GameError, match=message):
        game = walk_game(factory, **options)
        playout.search(game.initial_state(), simulations=200, seed=0)


def test_an_environment_that_cannot_be_copied_runs_with_replay() -> None:
    game = walk_game(Locked, restore="replay", min_return=0.0, max_return=3.0)
    result = playout.search(game.initial_state(), simulations=300, seed=0)
    assert result.best_action == 1  # walking right pays
    assert result.value == pytest.approx(3.0, abs=0.5)
