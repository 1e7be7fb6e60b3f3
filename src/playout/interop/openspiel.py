"""Run OpenSpiel games under playout's search.

>>> from playout.interop.openspiel import from_openspiel
>>> game = from_openspiel("connect_four")
>>> result = playout.search(game.initial_state(), simulations=200, seed=0)  # doctest: +SKIP

:func:`from_openspiel` wraps a ``pyspiel.Game`` (or the name OpenSpiel's ``load_game`` reads,
parameters included: ``"breakthrough(rows=6,columns=6)"``) as a playout :class:`~playout.Game`.
Its states wrap ``pyspiel.State`` objects **immutably**: :meth:`OpenSpielState.play` calls
``state.child(action)`` and the wrapped state is never changed afterwards.

What is carried over, and how
-----------------------------
* Action ids are OpenSpiel's, unchanged (tic-tac-toe's cell ``row * 3 + col`` is playout's
  ``y * 3 + x``); chance outcomes are actions too, so ``spec.num_actions`` is the larger of
  ``num_distinct_actions()`` and ``max_chance_outcomes()``.
* ``current_player()``: OpenSpiel's chance player (-1) and terminal player (-4) are
  :data:`playout.CHANCE` and :data:`playout.TERMINAL` (the same numbers by design).
* ``returns()`` are OpenSpiel's ``returns()``; values in a search are for the player to move,
  as everywhere in playout.
* Two states are equal when they belong to equal games and have the same ``history()`` (all
  actions from the initial state, chance outcomes included); the hash follows.
* ``spec.max_length`` is ``max_history_length()`` (decisions plus chance events).
* Notation is OpenSpiel's ``state.action_to_string(player, action)``; parsing accepts that
  text (exactly, else ignoring case) or, failing that, the integer action id.

Supported games: sequential, one player or two players with zero-sum utility, explicit chance
(``chance_outcomes()``) or none. Imperfect-information games are refused unless
``allow_imperfect_information=True``: playout's search then sees the whole state (it plays as
if every card were face up), which is useful for testing but is not a sound poker bot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from playout._src.errors import GameError, IllegalMoveError, MoveParseError
from playout._src.game import CHANCE, TERMINAL, GameSpec
from playout._src.optional import missing_dependency

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the environment
    raise missing_dependency("openspiel", "playout.interop.openspiel") from error

_INTEGER = re.compile(r"[+-]?\d+")
_MAX_LISTED_MOVES = 20


def from_openspiel(
    game_or_name: str | pyspiel.Game, *, allow_imperfect_information: bool = False
) -> OpenSpielGame:
    """Wrap an OpenSpiel game as a playout game.

    Args:
        game_or_name: a ``pyspiel.Game``, or a name for ``pyspiel.load_game`` with optional
            parameters, e.g. ``"tic_tac_toe"``, ``"hex(board_size=5)"``.
        allow_imperfect_information: accept games with hidden information; the search then
            sees the full state (see the module docstring).

    Raises:
        GameError: an unknown name or bad parameters, or a game playout cannot search
            (simultaneous moves, sampled chance, more than two players, two players that are
            not zero-sum, hidden information without ``allow_imperfect_information``).
    """
    if isinstance(game_or_name, str):
        short_name = game_or_name.split("(", 1)[0].strip()
        if short_name not in pyspiel.registered_names():
            raise GameError(
                f"unknown OpenSpiel game {short_name!r} (pyspiel.registered_names() lists them)"
            )
        try:
            game = pyspiel.load_game(game_or_name)
        except Exception as error:  # pyspiel.SpielError and pybind's own errors
            lines = str(error).strip().splitlines()
            reason = lines[0].strip() if lines else type(error).__name__
            if reason.startswith("Unknown parameter"):
                accepted = ", ".join(sorted(pyspiel.load_game(short_name).get_parameters()))
                reason = f"{reason.split('.')[0]}; accepted: {accepted or 'none'}"
            raise GameError(f"OpenSpiel cannot load {game_or_name!r}: {reason}") from None
    elif isinstance(game_or_name, pyspiel.Game):
        game = game_or_name
    else:
        raise GameError(
            f"expected an OpenSpiel game or its name, got {type(game_or_name).__name__}"
        )
    return OpenSpielGame(game, allow_imperfect_information=allow_imperfect_information)


def _spec_of(game: pyspiel.Game, allow_imperfect_information: bool) -> GameSpec:
    """The playout :class:`GameSpec` of ``game``; :class:`GameError` if it cannot be searched."""
    game_type = game.get_type()
    name = game_type.short_name
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise GameError(
            f"OpenSpiel game {name!r} has simultaneous moves; playout searches sequential games "
            "(wrap it with pyspiel.convert_to_turn_based(game) first)"
        )
    chance_mode = game_type.chance_mode
    if chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise GameError(
            f"OpenSpiel game {name!r} samples its chance events internally; playout needs "
            "explicit chance_outcomes()"
        )
    if (
        game_type.information != pyspiel.GameType.Information.PERFECT_INFORMATION
        and not allow_imperfect_information
    ):
        raise GameError(
            f"OpenSpiel game {name!r} has hidden information; playout's search would see "
            "every player's private state (pass allow_imperfect_information=True to accept)"
        )
    num_players = game.num_players()
    if num_players not in (1, 2):
        raise GameError(
            f"OpenSpiel game {name!r} has {num_players} players; playout supports 1 or 2"
        )
    is_zero_sum = game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
    if num_players == 2 and not is_zero_sum:
        raise GameError(
            f"OpenSpiel game {name!r} is {game_type.utility.name.lower().replace('_', '-')}; "
            "playout searches two-player games only when they are zero-sum"
        )
    has_rewards = game_type.reward_model == pyspiel.GameType.RewardModel.REWARDS
    # Returns are 0 before any reward arrives, so the declared range includes 0.
    return GameSpec(
        name=name,
        num_players=num_players,
        num_actions=max(game.num_distinct_actions(), game.max_chance_outcomes()),
        max_length=game.max_history_length(),
        is_zero_sum=is_zero_sum,
        is_deterministic=chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC,
        # Explicit chance nodes; a sampled-stochastic game draws inside apply_action.
        explicit_chance=chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        has_intermediate_rewards=has_rewards,
        min_return=min(float(game.min_utility()), 0.0),
        max_return=max(float(game.max_utility()), 0.0),
    )


class OpenSpielGame:
    """A ``pyspiel.Game`` seen through playout's :class:`~playout.Game` protocol.

    Build it with :func:`from_openspiel`. Two wrappers are equal when their OpenSpiel games
    print the same (``str(game)``, e.g. ``"hex(board_size=5)"``).

    Attributes:
        spec: the playout metadata derived from the OpenSpiel game (see the module docstring).
    """

    __slots__ = ("_allow_hidden", "_game", "_hash", "_initial", "_text", "spec")

    def __init__(self, game: pyspiel.Game, *, allow_imperfect_information: bool = False) -> None:
        self._game = game
        self._allow_hidden = bool(allow_imperfect_information)
        self.spec = _spec_of(game, self._allow_hidden)
        self._text = str(game)
        self._hash = hash((OpenSpielGame, self._text))
        self._initial = OpenSpielState(self, game.new_initial_state(), ())

    @property
    def pyspiel_game(self) -> pyspiel.Game:
        """The wrapped OpenSpiel game (games are immutable in OpenSpiel)."""
        return self._game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpenSpielGame):
            return NotImplemented
        return self._text == other._text

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"from_openspiel({self._text!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_load, (self._text, self._allow_hidden))

    def initial_state(self) -> OpenSpielState:
        """OpenSpiel's ``new_initial_state()``, wrapped (a chance state for dealt games)."""
        return self._initial

    def from_history(self, actions: Sequence[int]) -> OpenSpielState:
        """The state after playing ``actions`` (chance outcomes included) from the start.

        Raises:
            IllegalMoveError: an action that is not legal where it is played.
        """
        state = self._initial
        for index, action in enumerate(actions, start=1):
            if int(action) not in state.legal_actions():
                raise IllegalMoveError(
                    f"action {index} of the history ({action}) is not legal there"
                )
            state = state.play(int(action))
        return state

    # -- notation and rendering ---------------------------------------------------------------

    def action_to_string(self, state: Any, action: int) -> str:
        """OpenSpiel's text for ``action`` played by the player to move in ``state``.

        Raises:
            IllegalMoveError: the game is over, or the id is outside ``[0, num_actions)``.
        """
        own = self._own(state)
        if own.is_terminal():
            raise IllegalMoveError("the game is over")
        num_actions = self.spec.num_actions
        if (
            isinstance(action, bool)
            or not isinstance(action, int)
            or not (num_actions is None or 0 <= action < num_actions)
        ):
            raise IllegalMoveError(f"action {action!r} is not an action id of {self._text}")
        return str(own._state.action_to_string(own._state.current_player(), action))

    def string_to_action(self, state: Any, text: str) -> int:
        """Parse OpenSpiel's move text (exact, then ignoring case) or an integer action id.

        Raises:
            IllegalMoveError: the game is over, or the move is well formed but not legal here.
            MoveParseError: text that is neither a legal move's text nor an integer.
        """
        own = self._own(state)
        if own.is_terminal():
            raise IllegalMoveError("the game is over")
        stripped = text.strip()
        legal = own.legal_actions()
        player = own._state.current_player()
        names = {str(own._state.action_to_string(player, a)): a for a in legal}
        if stripped in names:
            return names[stripped]
        folded = [a for name, a in names.items() if name.lower() == stripped.lower()]
        if len(folded) == 1:
            return folded[0]
        if _INTEGER.fullmatch(stripped):
            action = int(stripped)
            if action in legal:
                return action
            raise IllegalMoveError(f"action id {action} is not legal here")
        listed = list(names)[:_MAX_LISTED_MOVES]
        more = ", ..." if len(names) > len(listed) else ""
        raise MoveParseError(
            f"cannot read move {text!r}: not the text of a legal move ({', '.join(listed)}"
            f"{more}) nor an action id"
        )

    def render(self, state: Any) -> str:
        """OpenSpiel's own picture of the state (``str(state)``)."""
        return str(self._own(state)._state)

    def _own(self, state: Any) -> OpenSpielState:
        if not isinstance(state, OpenSpielState) or state.game != self:
            raise GameError(f"{state!r} is not a state of {self!r}")
        return state


class OpenSpielState:
    """An immutable, hashable wrapper of one ``pyspiel.State``.

    The wrapped OpenSpiel state is never modified: :meth:`play` builds the child with
    ``state.child(action)``, and :meth:`pyspiel_state` hands out a clone.

    Attributes:
        game: the :class:`OpenSpielGame`.
        history: every action since the initial state, chance outcomes included.
    """

    __slots__ = ("_hash", "_legal", "_outcomes", "_player", "_state", "game", "history")

    def __init__(self, game: OpenSpielGame, state: pyspiel.State, history: tuple[int, ...]):
        self.game = game
        self.history = history
        self._state = state
        if state.is_terminal():
            self._player = TERMINAL
        elif state.is_chance_node():
            self._player = CHANCE
        else:
            self._player = int(state.current_player())
        self._legal: tuple[int, ...] | None = None
        self._outcomes: tuple[tuple[int, float], ...] | None = None
        self._hash: int | None = None

    def pyspiel_state(self) -> pyspiel.State:
        """A clone of the wrapped OpenSpiel state (changing it does not change this state)."""
        return self._state.clone()

    def current_player(self) -> int:
        """The player to move, :data:`~playout.CHANCE` or :data:`~playout.TERMINAL`."""
        return self._player

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._player == TERMINAL

    def legal_actions(self) -> tuple[int, ...]:
        """Legal action ids (the chance outcomes of positive probability at chance states)."""
        legal = self._legal
        if legal is None:
            if self._player == TERMINAL:
                legal = ()
            elif self._player == CHANCE:
                legal = tuple(action for action, _ in self.chance_outcomes())
            else:
                legal = tuple(int(a) for a in self._state.legal_actions())
            self._legal = legal
        return legal

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """``(action, probability)`` pairs at a chance state (zero-probability ones left out);
        ``()`` elsewhere."""
        outcomes = self._outcomes
        if outcomes is None:
            if self._player != CHANCE:
                outcomes = ()
            else:
                outcomes = tuple(
                    (int(a), float(p)) for a, p in self._state.chance_outcomes() if p > 0.0
                )
            self._outcomes = outcomes
        return outcomes

    def play(self, action: int) -> OpenSpielState:
        """The state after ``action``; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the game is over or the action is not legal here.
        """
        if action not in self.legal_actions():
            if self._player == TERMINAL:
                raise IllegalMoveError("the game is over")
            raise IllegalMoveError(f"action {action!r} is not legal here")
        action = int(action)
        return OpenSpielState(self.game, self._state.child(action), (*self.history, action))

    def returns(self) -> tuple[float, ...]:
        """OpenSpiel's ``returns()``: each player's total so far (final once it is over)."""
        return tuple(float(r) for r in self._state.returns())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpenSpielState):
            return NotImplemented
        return self.history == other.history and self.game == other.game

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.game, self.history))
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (_replay, (self.game, self.history))

    def __repr__(self) -> str:
        return f"OpenSpielState({self.game._text!r}, history={list(self.history)})"

    def __str__(self) -> str:
        return str(self._state)


def _load(text: str, allow_imperfect_information: bool) -> OpenSpielGame:
    return from_openspiel(text, allow_imperfect_information=allow_imperfect_information)


def _replay(game: OpenSpielGame, history: tuple[int, ...]) -> OpenSpielState:
    return game.from_history(history)


__all__ = ["OpenSpielGame", "OpenSpielState", "from_openspiel"]
