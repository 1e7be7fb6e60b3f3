"""The conformance checker passes every built-in game and catches deliberately broken ones."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Self

import pytest

from playout import (
    CHANCE,
    TERMINAL,
    GameError,
    GameSpec,
    GameState,
    IllegalMoveError,
    MoveParseError,
)
from playout._src.conformance import ConformanceReport, check_game
from playout._src.registry import game_names, make_game
from playout.games import BanditTreeGame, Connect4Game, MnkGame, from_seed_state, play_moves

from .seed_tictactoe import TicTacToeGameState

# ---------------------------------------------------------------------------- built-in games


@pytest.mark.parametrize("name", game_names())
def test_every_registered_game_conforms(name: str) -> None:
    game = make_game(name)
    num_games = {"gomoku": 15, "chess": 10, "go": 10}.get(name, 100)
    report = check_game(game, num_games=num_games, seed=1)
    assert isinstance(report, ConformanceReport)
    assert report.game_name == name
    assert report.num_games == num_games
    assert report.num_states > num_games
    max_length = game.spec.max_length
    assert max_length is not None and 1 <= report.max_length_seen <= max_length


@pytest.mark.parametrize(
    "game",
    [
        MnkGame(1, 1, 1),
        MnkGame(6, 6, 4),
        MnkGame(32, 2, 2),
        Connect4Game(1, 1, 1),
        Connect4Game(9, 7, 5),
    ],
)
def test_odd_sizes_conform(game: MnkGame | Connect4Game) -> None:
    check_game(game, num_games=20)


def test_seed_adapter_conforms() -> None:
    report = check_game(from_seed_state(TicTacToeGameState()), num_games=60)
    assert report.min_length_seen >= 5 and report.max_length_seen <= 9


def test_check_game_from_a_start_state() -> None:
    game = Connect4Game()
    report = check_game(game, num_games=20, start=play_moves(game, "4444"))
    assert report.max_length_seen <= 42 - 4
    bandit = BanditTreeGame()
    report = check_game(bandit, num_games=10, start=bandit.initial_state().play(1))
    assert report.max_length_seen == 1
    assert 0.0 <= report.mean_returns[0] <= 1.0


def test_check_game_is_reproducible() -> None:
    game = make_game("mnk", width=4, height=4, k=3)
    assert check_game(game, seed=5) == check_game(game, seed=5)
    assert check_game(game, num_games=1).num_games == 1
    for bad in (0, 10**12, 1.5, "x"):  # 10**12 games would never end
        with pytest.raises(GameError, match="num_games must be"):
            check_game(game, num_games=bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------ a small correct game
# Take-away: a pile of stones, the player to move takes 1 (action 0) or 2 (action 1); whoever
# takes the last stone wins. With ``chance_start`` a chance event first picks the pile size.


@dataclasses.dataclass(frozen=True)
class PileState:
    game: PileGame
    pile: int
    player: int

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        if self.pile < 0:
            return CHANCE
        return self.player

    def legal_actions(self) -> Sequence[int]:
        if self.is_terminal():
            return ()
        if self.pile < 0:
            return tuple(a for a, _ in self.chance_outcomes())
        return (0, 1) if self.pile >= 2 else (0,)

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ((0, 0.5), (1, 0.5))

    def play(self, action: int) -> Self:
        if action not in self.legal_actions():
            raise IllegalMoveError(f"illegal {action}")
        if self.pile < 0:
            return dataclasses.replace(self, pile=3 + action)
        return dataclasses.replace(self, pile=self.pile - 1 - action, player=1 - self.player)

    def is_terminal(self) -> bool:
        return self.pile == 0

    def returns(self) -> Sequence[float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        winner = 1 - self.player  # took the last stone
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


class PileGame:
    state_class: type[PileState] = PileState

    def __init__(
        self, pile: int = 5, *, chance_start: bool = False, **spec_changes: object
    ) -> None:
        spec = GameSpec(
            name="pile",
            num_players=2,
            num_actions=2,
            max_length=6,
            is_deterministic=not chance_start,
        )
        self.spec = dataclasses.replace(spec, **spec_changes)  # type: ignore[arg-type]
        self.start_pile = -1 if chance_start else pile

    def initial_state(self) -> PileState:
        return self.state_class(self, self.start_pile, 0)

    def action_to_string(self, state: GameState, action: int) -> str:
        return str(action)

    def string_to_action(self, state: GameState, text: str) -> int:
        if not text.strip().isdigit():
            raise MoveParseError(text)
        return int(text)

    def render(self, state: GameState) -> str:
        assert isinstance(state, PileState)
        return f"pile {state.pile}"


def test_the_reference_game_conforms() -> None:
    check_game(PileGame(), num_games=50)
    report = check_game(PileGame(chance_start=True), num_games=50)
    assert report.num_chance_states == 50


# -------------------------------------------------------------------------- broken games


class MutatingState(PileState):
    """play() also changes the state it is called on."""

    def play(self, action: int) -> Self:
        child = super().play(action)
        object.__setattr__(self, "pile", child.pile)
        return child


class OutOfBoundsState(PileState):
    """A win is worth 2, beyond the declared max_return of 1."""

    def returns(self) -> Sequence[float]:
        return tuple(2 * v for v in super().returns())


class StuckState(PileState):
    """No legal actions with one stone left, yet the game is not over."""

    def legal_actions(self) -> Sequence[int]:
        return () if self.pile == 1 else super().legal_actions()


class NonZeroSumState(PileState):
    """The loser gets 0 instead of -1 in a game declared zero-sum."""

    def returns(self) -> Sequence[float]:
        return tuple(max(v, 0.0) for v in super().returns())


class WrongActionsState(PileState):
    """Action ids 1 and 2, but the spec declares num_actions=2 (ids 0 and 1)."""

    def legal_actions(self) -> Sequence[int]:
        return tuple(a + 1 for a in super().legal_actions())

    def play(self, action: int) -> Self:
        return super().play(action - 1)


_serial = itertools.count()


@dataclasses.dataclass(frozen=True)
class UnstableState(PileState):
    """Equality includes a serial number, so the same position reached twice differs."""

    serial: int = dataclasses.field(default_factory=lambda: next(_serial))

    def play(self, action: int) -> Self:
        child = super().play(action)
        return dataclasses.replace(child, serial=next(_serial))


class BadChanceState(PileState):
    """Chance probabilities that sum to 0.9."""

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ((0, 0.5), (1, 0.4))


class UnhashableState(PileState):
    __hash__ = None  # type: ignore[assignment]


def _broken(state_class: type[PileState], **kwargs: object) -> PileGame:
    game = PileGame(**kwargs)  # type: ignore[arg-type]
    game.state_class = state_class
    return game


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (_broken(MutatingState), "changed the state it was called on"),
        (_broken(OutOfBoundsState), r"returns\(\)\[\d\] = -?2.0 outside"),
        (_broken(StuckState), "no legal actions but is_terminal"),
        (_broken(NonZeroSumState), "do not sum to zero"),
        (_broken(WrongActionsState), r"outside \[0, 2\)"),
        (_broken(UnstableState), "not equal to the one reached the first time"),
        (_broken(BadChanceState, chance_start=True), "sum to 0.9"),
        (_broken(PileState, chance_start=True, is_deterministic=True), "declared deterministic"),
        (_broken(PileState, max_length=2), "max_length=2"),
        (_broken(UnhashableState), "hashable"),
    ],
    ids=[
        "mutating-play",
        "returns-out-of-bounds",
        "no-actions-before-the-end",
        "non-zero-sum",
        "action-ids-out-of-range",
        "unequal-replay",
        "bad-chance-probabilities",
        "chance-in-deterministic-game",
        "too-long",
        "unhashable",
    ],
)
def test_check_game_catches_broken_games(game: PileGame, message: str) -> None:
    with pytest.raises(GameError, match=message):
        check_game(game, num_games=30)


class NeverEndingState(PileState):
    def play(self, action: int) -> Self:
        return dataclasses.replace(self, player=1 - self.player)  # the pile never shrinks


def test_check_game_catches_a_game_that_never_ends() -> None:
    with pytest.raises(GameError, match="max_steps=50"):
        check_game(_broken(NeverEndingState, max_length=None), max_steps=50)


class BadNotationGame(PileGame):
    def action_to_string(self, state: GameState, action: int) -> str:
        return "take " + str(action + 1)


def test_check_game_catches_notation_that_does_not_round_trip() -> None:
    with pytest.raises(GameError, match="round-trip"):
        check_game(BadNotationGame())


class WrongPlayerState(PileState):
    def current_player(self) -> int:
        return 2 if not self.is_terminal() else TERMINAL


def test_check_game_catches_a_player_out_of_range() -> None:
    with pytest.raises(GameError, match="current_player"):
        check_game(_broken(WrongPlayerState))


class BoolPlayerState(PileState):
    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return bool(super().current_player())  # True == 1, yet no player id


def test_check_game_catches_a_bool_as_the_player_to_move() -> None:
    with pytest.raises(GameError, match=r"current_player\(\) is (True|False)"):
        check_game(_broken(BoolPlayerState))
