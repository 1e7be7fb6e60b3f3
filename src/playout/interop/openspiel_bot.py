"""OpenSpiel's C++ MCTS bot as an arena player (``openspiel-mcts`` in player specs).

>>> player = playout.parse_player("openspiel-mcts:simulations=1000", game)  # doctest: +SKIP

:class:`OpenSpielMctsPlayer` plays a built-in game (tic-tac-toe, m,n,k boards, gomoku,
connect four) with ``pyspiel.MCTSBot`` on the equal OpenSpiel game
(:func:`openspiel_game_string`), so playout's search can be measured against OpenSpiel's.
:func:`parse_openspiel_options` reads the options of an ``openspiel-mcts:`` spec.

Unlike :mod:`playout.interop.openspiel`, importing this module does not import ``pyspiel``:
the string and option functions work without OpenSpiel, and the player imports it when built
(a :class:`~playout.MissingDependencyError` naming the ``openspiel`` extra when missing).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from playout._src.errors import GameError, InvalidParameterError
from playout._src.game import Game, GameState
from playout._src.keyvalue import parse_key_values, parse_number, parse_yes_no
from playout._src.optional import import_optional

OPENSPIEL_KEYS = ("simulations", "seconds", "c", "rollouts", "solve", "memory")
MIN_SECONDS = 0.001
"""The shortest time a move may be given: OpenSpiel's ``MCTSBot`` (1.6) ends the process with
a segmentation fault when its clock runs out before one simulation is done (seen here with
30 microseconds on connect four; 100 microseconds and up played)."""
"""The option keys of ``openspiel-mcts:``."""


def _mnk_string(game: Any) -> str:
    """OpenSpiel's name of an m,n,k board (``tic_tac_toe`` for 3x3, k=3)."""
    if (game.width, game.height, game.k) == (3, 3, 3):
        return "tic_tac_toe"
    return f"mnk(m={game.width},n={game.height},k={game.k})"


def _connect_four_string(game: Any) -> str:
    """OpenSpiel's name of a connect-``k`` board."""
    return f"connect_four(columns={game.width},rows={game.height},x_in_row={game.k})"


_OPENSPIEL_EQUIVALENTS: dict[str, Callable[[Any], str]] = {
    "tictactoe": _mnk_string,
    "mnk": _mnk_string,
    "gomoku": _mnk_string,
    "connect4": _connect_four_string,
}
"""Registry names of the built-in games with an OpenSpiel equivalent, and how to name it
(from the board's ``width``, ``height`` and ``k``)."""


def openspiel_game_string(game: Game) -> str:
    """The ``pyspiel.load_game`` string of the OpenSpiel game equal to ``game``.

    Tic-tac-toe is ``tic_tac_toe``, other m,n,k boards (gomoku included) ``mnk(m=W,n=H,k=K)``,
    connect four ``connect_four(columns=W,rows=H,x_in_row=K)``. Action ids agree: a square
    ``(x, y)`` is ``y * width + x`` in both, a connect-four move the 0-based column. The game is
    recognised by its registry name (``game.spec.name``) and its board by the game's ``width``,
    ``height`` and ``k``.

    Raises:
        InvalidParameterError: a game OpenSpiel has no equivalent of here.
    """
    to_string = _OPENSPIEL_EQUIVALENTS.get(game.spec.name)
    if to_string is None or not all(hasattr(game, key) for key in ("width", "height", "k")):
        raise InvalidParameterError(
            f"openspiel-mcts plays tictactoe, mnk, gomoku and connect4, not {game.spec.name}"
        )
    return to_string(game)


def _import_pyspiel() -> Any:
    """The ``pyspiel`` module.

    Raises:
        MissingDependencyError: OpenSpiel is not installed (``playout[openspiel]``).
    """
    return import_optional("pyspiel", extra="openspiel", needed_by="player openspiel-mcts")


@dataclasses.dataclass(frozen=True, kw_only=True)
class OpenSpielMctsOptions:
    """Settings of OpenSpiel's C++ ``MCTSBot`` with random-rollout evaluation.

    Attributes:
        simulations: simulations per move (default 1000, or unlimited with ``seconds``).
        seconds: wall-clock limit per move (the bot's ``max_wall_clock_time``); with both,
            whichever comes first.
        c: UCT exploration constant (``uct_c``; OpenSpiel's examples use 2).
        num_rollouts: random rollouts per leaf.
        solve: the bot's own MCTS-Solver (off by default, as in the benchmark brief).
        max_memory_mb: the bot's tree memory limit.
    """

    simulations: int | None = None
    seconds: float | None = None
    c: float = 2.0
    num_rollouts: int = 1
    solve: bool = False
    max_memory_mb: int = 1000

    @property
    def max_simulations(self) -> int:
        """The bot's simulation limit: ``simulations``, else 1000, or unlimited with a time."""
        if self.simulations is not None:
            return self.simulations
        return 2**31 - 1 if self.seconds is not None else 1000


def parse_openspiel_options(text: str) -> OpenSpielMctsOptions:
    """Options of ``openspiel-mcts:``: ``simulations``, ``seconds``, ``c``, ``rollouts``,
    ``solve`` (yes/no), ``memory`` (MB).

    Raises:
        InvalidParameterError: an unknown key or a bad value.
    """
    values = parse_key_values(text, "openspiel-mcts", OPENSPIEL_KEYS)
    options: dict[str, Any] = {}
    for key, field, kind, low in (
        ("simulations", "simulations", int, 1),
        ("rollouts", "num_rollouts", int, 1),
        ("memory", "max_memory_mb", int, 1),
    ):
        if key in values:
            options[field] = parse_number(key, values[key], kind)
            if options[field] < low:
                raise InvalidParameterError(f"{key} must be >= {low}, got {options[field]}")
    for key in ("seconds", "c"):
        if key in values:
            options[key] = parse_number(key, values[key], float)
            if options[key] <= 0:
                raise InvalidParameterError(f"{key} must be > 0, got {options[key]}")
    if options.get("seconds", MIN_SECONDS) < MIN_SECONDS:
        raise InvalidParameterError(
            f"seconds must be >= {MIN_SECONDS} for openspiel-mcts, got {options['seconds']}: "
            "OpenSpiel's MCTSBot crashes when its time is up before its first simulation"
        )
    if "solve" in values:
        options["solve"] = parse_yes_no("solve", values["solve"])
    return OpenSpielMctsOptions(**options)


class OpenSpielMctsPlayer:
    """OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``, UCT with random rollouts) as a player.

    The bot searches an OpenSpiel state kept in step with the game by replaying every action
    it is notified of (the action ids of the built-in games and OpenSpiel's agree; see
    :func:`openspiel_game_string`). A new bot, seeded from the game seed, starts every game.

    Raises:
        MissingDependencyError: OpenSpiel is not installed.
        InvalidParameterError: a game without an OpenSpiel equivalent.
    """

    def __init__(
        self,
        game: Game,
        options: OpenSpielMctsOptions | None = None,
        *,
        name: str = "openspiel-mcts",
    ) -> None:
        self._pyspiel = _import_pyspiel()
        self._game = game
        self.options = OpenSpielMctsOptions() if options is None else options
        self._os_game = self._pyspiel.load_game(openspiel_game_string(game))
        self._name = name
        self._bot: Any = None
        self._os_state: Any = None

    @property
    def name(self) -> str:
        """The label given at construction (the spec, when built by ``parse_player``)."""
        return self._name

    def _new_bot(self, seed: int) -> Any:
        """A fresh ``MCTSBot`` with random-rollout evaluation, seeded with ``seed``."""
        pyspiel, options = self._pyspiel, self.options
        bot_seed = int(seed) % 2**31
        evaluator = pyspiel.RandomRolloutEvaluator(options.num_rollouts, bot_seed)
        return pyspiel.MCTSBot(
            self._os_game,
            evaluator,
            options.c,
            options.max_simulations,
            options.max_memory_mb,
            options.solve,
            bot_seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            -1.0 if options.seconds is None else options.seconds,
        )

    def reset(self, state: GameState, seed: int) -> None:
        """Start a new bot and OpenSpiel state for a game from the initial position.

        Raises:
            GameError: ``state`` is not the initial position.
        """
        if state != self._game.initial_state():
            raise GameError("openspiel-mcts can only start from the initial position")
        self._bot = self._new_bot(seed)
        self._os_state = self._os_game.new_initial_state()

    def choose(self, state: GameState) -> int:
        """The bot's move in the OpenSpiel state that mirrors ``state``.

        Raises:
            GameError: the OpenSpiel state is out of step with ``state``.
        """
        os_state = self._os_state
        if (
            self._bot is None
            or os_state.current_player() != state.current_player()
            or sorted(os_state.legal_actions()) != sorted(state.legal_actions())
        ):
            raise GameError(
                "openspiel-mcts is out of step with the game (reset and notify every action)"
            )
        return int(self._bot.step(os_state))

    def notify(self, action: int) -> None:
        """Replay ``action`` on the OpenSpiel state."""
        if self._os_state is not None and not self._os_state.is_terminal():
            self._os_state.apply_action(int(action))

    def __repr__(self) -> str:
        return f"OpenSpielMctsPlayer({self._name!r})"


__all__ = [
    "OPENSPIEL_KEYS",
    "OpenSpielMctsOptions",
    "OpenSpielMctsPlayer",
    "openspiel_game_string",
    "parse_openspiel_options",
]
