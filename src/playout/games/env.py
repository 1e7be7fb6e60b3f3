"""Adapter for one-player environments with ``reset()`` / ``step(action)`` and rewards (seed 002).

Seed 002 searches a gym-like environment: ``reset()`` returns the first observation and
``step(action)`` returns ``(observation, reward, done)`` (the 4-tuple ``(..., done, info)`` of
gym and the 5-tuple ``(..., terminated, truncated, info)`` of gymnasium are read too). Actions
are integers ``0 .. num_actions - 1``.

:func:`from_env` turns a factory of such environments into a one-player :class:`EnvGame`:

* a state is the sequence of actions since ``reset()`` (its *history*), with the observation,
  the total reward and the ``done`` flag that history produced; states are equal when their
  histories are (so the environment must be deterministic unless ``deterministic=False``);
* ``returns()`` is the one-tuple ``(total reward so far,)`` and the spec declares
  ``has_intermediate_rewards=True``: the search credits each step's reward to the edge that
  earned it, and a value function (seed 002's ``get_future_value``) estimates the reward still
  to come, for the player to move (the only player);
* an episode ends when ``step`` says ``done`` or after ``max_length`` steps (the cut-off keeps
  ``spec.max_length`` finite; seed 002's max depth).

Environments are mutable, states are not: every :meth:`EnvState.play` steps a private copy of
the environment (``restore="deepcopy"``, the default: a ``copy.deepcopy`` of the environment
kept with the parent state) or a fresh one replayed from ``reset()`` through the history
(``restore="replay"``: seed 003's recomputing of states, for environments that cannot be
copied; it costs one step per action of the history).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, Literal, Protocol

import numpy as np

from playout._src.errors import GameError, IllegalMoveError, InvalidParameterError, MoveParseError
from playout._src.game import TERMINAL, GameSpec, GameState

Restore = Literal["deepcopy", "replay"]


class Environment(Protocol):
    """What :func:`from_env` needs of an environment (seed 002's ``BanditEnvironment``)."""

    def reset(self) -> Any:
        """Start an episode; return the first observation."""
        ...

    def step(self, action: int) -> tuple[Any, ...]:
        """Take ``action``; return ``(observation, reward, done, ...)``."""
        ...


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class EnvState:
    """A point of an episode: the actions since ``reset()`` and what they produced.

    Equal (and hashed) by ``(game, history)``.

    Attributes:
        game: the adapter game.
        history: the actions taken since ``reset()``.
        observation: the last observation (``reset()``'s for the empty history).
        reward: total reward collected since ``reset()`` (this state's return, in the
            environment's reward units).
        done: whether the environment said the episode ended.
        env: the environment right after ``history`` (a private copy, never stepped again;
            ``None`` with ``restore="replay"``).
    """

    game: EnvGame
    history: tuple[int, ...]
    observation: Any
    reward: float
    done: bool
    env: Any = dataclasses.field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EnvState):
            return NotImplemented
        return self.game is other.game and self.history == other.history

    def __hash__(self) -> int:
        return hash((id(self.game), self.history))

    def current_player(self) -> int:
        """0 (the only player) while the episode runs, then :data:`~playout.TERMINAL`."""
        return TERMINAL if self.is_terminal() else 0

    def is_terminal(self) -> bool:
        """``done`` was returned, or ``max_length`` steps have been taken."""
        return self.done or len(self.history) >= self.game.max_length

    def legal_actions(self) -> tuple[int, ...]:
        """The game's actions for this observation; ``()`` at the end."""
        if self.is_terminal():
            return ()
        return self.game.actions_for(self.observation)

    def play(self, action: int) -> EnvState:
        """Step a private copy of the environment with ``action``; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the episode is over or ``action`` is not legal here.
        """
        if self.is_terminal():
            raise IllegalMoveError("the episode is over")
        if isinstance(action, bool) or action not in self.legal_actions():
            raise IllegalMoveError(
                f"action {action!r} is not legal here (legal: {self.legal_actions()})"
            )
        return self.game.step(self, int(action))

    def returns(self) -> tuple[float]:
        """``(total reward collected so far,)``."""
        return (self.reward,)


class EnvGame:
    """A reset/step environment as a one-player game with intermediate rewards.

    Args:
        env_factory: makes a new environment (called once, and once per step with
            ``restore="replay"``).
        num_actions: actions are ``0 .. num_actions - 1``.
        max_length: an episode is cut off after this many steps (>= 1).
        legal_actions: ``legal_actions(observation) -> actions``, when not every action is
            always legal (``None``: all ``num_actions`` are).
        min_return: lower bound of an episode's total reward (unbounded by default).
        max_return: upper bound of an episode's total reward (unbounded by default).
        deterministic: False when ``step`` draws at random (the solver is then off).
        restore: ``"deepcopy"`` or ``"replay"`` (see the module docstring).
        name: the name reported in :attr:`spec`.

    Raises:
        InvalidParameterError: bad counts, bounds or ``restore``.
        GameError: the environment's ``step`` returns something other than a tuple
            ``(observation, reward, done, ...)`` (raised when a state is played).
    """

    def __init__(
        self,
        env_factory: Callable[[], Environment],
        *,
        num_actions: int,
        max_length: int,
        legal_actions: Callable[[Any], Sequence[int]] | None = None,
        min_return: float = -math.inf,
        max_return: float = math.inf,
        deterministic: bool = True,
        restore: Restore = "deepcopy",
        name: str = "env",
    ) -> None:
        for label, value in (("num_actions", num_actions), ("max_length", max_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidParameterError(f"{label} must be a whole number >= 1, got {value!r}")
        if restore not in ("deepcopy", "replay"):
            raise InvalidParameterError(f"restore must be 'deepcopy' or 'replay', got {restore!r}")
        if not callable(env_factory):
            raise InvalidParameterError(f"env_factory must be callable, got {env_factory!r}")
        self.spec = GameSpec(
            name=name,
            num_players=1,
            num_actions=num_actions,
            max_length=max_length,
            is_zero_sum=False,
            is_deterministic=bool(deterministic),
            has_intermediate_rewards=True,
            min_return=float(min_return),
            max_return=float(max_return),
        )
        self.max_length = max_length
        self._factory = env_factory
        self._legal_fn = legal_actions
        self._all_actions = tuple(range(num_actions))
        self._restore: Restore = restore
        env = self._new_env()
        observation = env.reset()
        if restore == "deepcopy":
            try:
                copy.deepcopy(env)
            except Exception as error:  # whatever the environment's copy raises
                raise GameError(
                    f"{name}: the environment cannot be copied ({type(error).__name__}: "
                    f"{error}); pass restore='replay' to rebuild it from reset() instead"
                ) from error
        self._initial = EnvState(
            self, (), observation, 0.0, False, env if restore == "deepcopy" else None
        )

    def __repr__(self) -> str:
        return (
            f"EnvGame(name={self.spec.name!r}, num_actions={self.spec.num_actions}, "
            f"max_length={self.spec.max_length}, restore={self._restore!r})"
        )

    def initial_state(self) -> EnvState:
        """The state right after ``reset()``: no action taken, no reward."""
        return self._initial

    def _new_env(self) -> Environment:
        """A new environment from the factory, checked to be one.

        Raises:
            GameError: the factory returned ``None`` or an object without ``reset``/``step``.
        """
        env = self._factory()
        if not (callable(getattr(env, "reset", None)) and callable(getattr(env, "step", None))):
            raise GameError(
                f"{self.spec.name}: env_factory() returned {env!r}, not an environment with "
                "reset() and step(action)"
            )
        return env

    def actions_for(self, observation: Any) -> tuple[int, ...]:
        """Legal actions for ``observation`` (all of them without a ``legal_actions``).

        Raises:
            GameError: ``legal_actions`` returned something other than action ids
                ``0 .. num_actions - 1``.
        """
        if self._legal_fn is None:
            return self._all_actions
        listed = self._legal_fn(observation)
        if listed is None or isinstance(listed, str | bytes):
            raise GameError(
                f"{self.spec.name}: legal_actions() returned {listed!r}; it must return a "
                "sequence of action ids"
            )
        actions = tuple(listed)
        for action in actions:
            if (
                isinstance(action, bool)
                or not isinstance(action, int | np.integer)
                or not 0 <= action < len(self._all_actions)
            ):
                raise GameError(
                    f"{self.spec.name}: legal_actions() listed {action!r}; action ids are "
                    f"whole numbers 0 .. {len(self._all_actions) - 1}"
                )
        return tuple(int(a) for a in actions)

    def step(self, state: EnvState, action: int) -> EnvState:
        """The state after ``action`` from ``state`` (a copy of the environment is stepped)."""
        if self._restore == "deepcopy":
            env = copy.deepcopy(state.env)
        else:
            env = self._new_env()
            env.reset()
            for past in state.history:
                env.step(past)
        outcome = env.step(action)
        if not isinstance(outcome, tuple) or len(outcome) < 3:
            raise GameError(
                f"{self.spec.name}: step() must return (observation, reward, done, ...), "
                f"got {outcome!r}"
            )
        observation, raw_reward = outcome[0], outcome[1]
        done = bool(outcome[2]) or (len(outcome) == 5 and bool(outcome[3]))
        if isinstance(raw_reward, bool) or not isinstance(raw_reward, Real | np.number):
            raise GameError(
                f"{self.spec.name}: step() returned a reward of {raw_reward!r}; a reward is a "
                "number"
            )
        reward = float(raw_reward)
        if not math.isfinite(reward):
            raise GameError(f"{self.spec.name}: step() returned a reward of {reward}")
        return EnvState(
            self,
            (*state.history, action),
            observation,
            state.reward + reward,
            done,
            env if self._restore == "deepcopy" else None,
        )

    def action_to_string(self, state: GameState, action: int) -> str:
        """The action id as a decimal number."""
        if isinstance(action, bool) or action not in self._all_actions:
            raise IllegalMoveError(f"no action has id {action!r}")
        return str(action)

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse an action id.

        Raises:
            MoveParseError: not an integer.
            IllegalMoveError: not legal in ``state`` (or the episode is over).
        """
        try:
            action = int(text.strip())
        except ValueError:
            raise MoveParseError(f"cannot read move {text!r}: write an action id") from None
        own = self._own(state)
        if own.is_terminal():
            raise IllegalMoveError("the episode is over")
        if action not in own.legal_actions():
            raise IllegalMoveError(
                f"action {action} is not legal here (legal: {own.legal_actions()})"
            )
        return action

    def render(self, state: GameState) -> str:
        """The observation, the reward so far and the step count."""
        own = self._own(state)
        status = " (episode over)" if own.is_terminal() else ""
        return (
            f"observation {own.observation!r}, reward {own.reward:g}, "
            f"step {len(own.history)}{status}"
        )

    def _own(self, state: GameState) -> EnvState:
        if not isinstance(state, EnvState) or state.game is not self:
            raise GameError(f"{state!r} is not a state of {self!r}")
        return state


def from_env(
    env_factory: Callable[[], Environment],
    *,
    num_actions: int,
    max_length: int,
    legal_actions: Callable[[Any], Sequence[int]] | None = None,
    min_return: float = -math.inf,
    max_return: float = math.inf,
    deterministic: bool = True,
    restore: Restore = "deepcopy",
    name: str = "env",
) -> EnvGame:
    """Wrap a reset/step environment factory into an :class:`EnvGame` (see its arguments).

    >>> game = from_env(BanditEnvironment, num_actions=2, max_length=2,
    ...                 min_return=0.0, max_return=1.0)           # seed 002's environment
    >>> playout.search(game.initial_state(), simulations=200).pv    # doctest: +SKIP
    (1, 1)
    """
    return EnvGame(
        env_factory,
        num_actions=num_actions,
        max_length=max_length,
        legal_actions=legal_actions,
        min_return=min_return,
        max_return=max_return,
        deterministic=deterministic,
        restore=restore,
        name=name,
    )


__all__ = ["EnvGame", "EnvState", "Environment", "from_env"]
