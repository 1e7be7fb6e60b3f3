"""One registry of games by name, shared by the library, the CLI and the tests.

>>> game = make_game("gomoku", width=4, height=4, k=4)   # seed 004's 4x4 gomoku
>>> game.spec.name
'gomoku'

A factory is any callable returning a :class:`~playout.Game`; its keyword parameters (with
defaults) are the game's parameters. :func:`make_game` checks parameter names against the
factory's signature and converts text values (``"9"`` from a command line) to the type of the
parameter's default, so every caller gets the same one-line errors.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

from playout._src.errors import InvalidParameterError, UnknownGameError
from playout._src.game import Game
from playout._src.optional import missing_dependency


@dataclasses.dataclass(frozen=True)
class GameEntry:
    """A registered game.

    Attributes:
        name: the registry name.
        factory: builds the game from keyword parameters.
        summary: one line for listings (``playout games``).
        defaults: the factory's keyword parameters and their defaults (parameters without a
            default map to ``inspect.Parameter.empty``).
    """

    name: str
    factory: Callable[..., Game]
    summary: str
    defaults: dict[str, Any]


_REGISTRY: dict[str, GameEntry] = {}


def register_game(name: str, factory: Callable[..., Game], summary: str) -> None:
    """Register ``factory`` under ``name`` (replacing an earlier entry of that name).

    Raises:
        InvalidParameterError: an empty name, or a factory whose signature cannot be read.
    """
    if not name or not name.strip():
        raise InvalidParameterError("a game name must not be empty")
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError) as error:
        raise InvalidParameterError(
            f"cannot read the parameters of the {name!r} factory"
        ) from error
    defaults = {
        p.name: p.default
        for p in signature.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    _REGISTRY[name] = GameEntry(name=name, factory=factory, summary=summary, defaults=defaults)


def game_names() -> list[str]:
    """Names of all registered games, sorted."""
    return sorted(_REGISTRY)


def _entry(name: str) -> GameEntry:
    if not isinstance(name, str):
        raise UnknownGameError(f"a game's name is a string, got {name!r}")
    entry = _REGISTRY.get(name)
    if entry is None:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return entry


def game_summary(name: str) -> str:
    """The one-line summary of a registered game; :class:`UnknownGameError` if unknown."""
    return _entry(name).summary


def game_parameters(name: str) -> dict[str, Any]:
    """The parameters of a registered game and their defaults."""
    return dict(_entry(name).defaults)


def game_params(game: Game) -> dict[str, Any]:
    """The registry parameters that rebuild ``game`` with ``make_game(name, **params)``.

    The names come from the registry entry of ``game.spec.name`` (the factory's keyword
    parameters) and the values from the game's attributes of the same names; ``{}`` for a game
    that is not registered.
    """
    name = game.spec.name
    if name not in _REGISTRY:
        return {}
    return {key: getattr(game, key) for key in game_parameters(name) if hasattr(game, key)}


def _coerce(game: str, key: str, value: Any, default: Any) -> Any:
    """Convert text (from a command line) to the type of the parameter's default."""
    if not isinstance(value, str) or default is inspect.Parameter.empty or default is None:
        return value
    kind = type(default)
    try:
        if kind is bool:
            lowered = value.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if kind in (int, float):
            return kind(value.strip())
    except ValueError:
        raise InvalidParameterError(
            f"{game}: parameter {key} must be {kind.__name__}, got {value!r}"
        ) from None
    return value


def make_game(name: str, **params: Any) -> Game:
    """Build the game registered under ``name`` with keyword ``params``.

    Raises:
        UnknownGameError: no game of that name (the message lists the known names).
        InvalidParameterError: a parameter the game does not take, or a value it rejects.
    """
    entry = _entry(name)
    unknown = sorted(set(params) - set(entry.defaults))
    if unknown:
        expected = ", ".join(entry.defaults) if entry.defaults else "none"
        raise InvalidParameterError(
            f"{name}: unknown parameter{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(unknown)}; accepted: {expected}"
        )
    kwargs = {key: _coerce(name, key, value, entry.defaults[key]) for key, value in params.items()}
    try:
        return entry.factory(**kwargs)
    except InvalidParameterError as error:
        raise InvalidParameterError(f"{name}: {error}") from None
    except TypeError as error:
        raise InvalidParameterError(f"{name}: invalid parameters {params!r}: {error}") from None


def _register_builtin_games() -> None:
    from playout.games.bandit import BanditTreeGame
    from playout.games.connect4 import Connect4Game
    from playout.games.mnk import MnkGame, gomoku, tictactoe

    def mnk(width: int = 3, height: int = 3, k: int = 3) -> Game:
        return MnkGame(width, height, k)

    def connect4(width: int = 7, height: int = 6, k: int = 4) -> Game:
        return Connect4Game(width, height, k)

    register_game("tictactoe", tictactoe, "Tic-tac-toe: 3x3, three in a row (seeds 000, 001, 003)")
    register_game(
        "mnk", mnk, "m,n,k-game: width x height board, k in a row wins (seed 001; default 3x3, k=3)"
    )
    register_game(
        "gomoku",
        gomoku,
        "Gomoku: 15x15, five in a row; width/height/k overridable (seed 004's 4x4: width=4, "
        "height=4, k=4)",
    )
    register_game("connect4", connect4, "Connect four: 7 columns x 6 rows, gravity, four in a row")
    register_game(
        "bandit", BanditTreeGame, "Seed 002's one-player bandit tree (optimal 0 -> 2 -> 6)"
    )

    def go(size: int = 9, komi: float = 7.5) -> Game:
        from playout.games.go import GoGame

        return GoGame(size, komi)

    register_game(
        "go",
        go,
        "Go: size=9 (13, 19, any of 2..19), area scoring (Tromp-Taylor), komi=7.5, "
        "positional superko, no suicide; moves like D4 or pass",
    )

    def pig(target: int = 20, max_turns: int = 100) -> Game:
        from playout.games.pig import PigGame

        return PigGame(target, max_turns)

    register_game(
        "pig",
        pig,
        "Pig, the dice game with explicit chance nodes: roll or hold, a 1 loses the turn "
        "total, first to target=20 wins; after max_turns=100 turns the higher score wins",
    )

    def chess(fen: str = "startpos", max_plies: int = 512) -> Game:
        # Imported on use: python-chess is an optional dependency (the ``chess`` extra).
        try:
            from playout.games.chess import ChessGame
        except ImportError as error:
            raise missing_dependency("chess", "the chess game") from error
        return ChessGame(fen, max_plies=max_plies)

    register_game(
        "chess",
        chess,
        "Chess via python-chess (UCI or SAN moves; fen=FEN to start elsewhere; drawn after "
        "max_plies=512 half-moves)",
    )


_register_builtin_games()

__all__ = [
    "GameEntry",
    "game_names",
    "game_parameters",
    "game_params",
    "game_summary",
    "make_game",
    "register_game",
]
