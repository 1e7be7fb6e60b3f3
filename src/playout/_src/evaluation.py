"""Leaf evaluation: what a simulation returns once it leaves the tree.

An evaluator gives the value of a non-terminal state **for the player to move in it** (for
player 0 at a chance state), in the range of the game's returns ([-1, 1] for the built-in
two-player games). It may also offer priors over the legal actions (for PUCT).

* :class:`Rollout`: play to the end with a policy (uniformly random by default, or e.g.
  seed 004's neighbour policy), optionally several times (seed 001 averages several playouts
  per leaf) and optionally cut off after ``max_depth`` moves, scoring the cut-off state with a
  heuristic.
* :class:`ValueFunction`: call a user function, e.g. seed 002's ``get_future_value``.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import random
import warnings
from collections.abc import Callable, Sequence
from typing import Protocol, TypeGuard, runtime_checkable

import numpy as np

from playout._src.errors import InvalidParameterError, PlayoutWarning
from playout._src.game import CHANCE, GameState, value_for

RolloutPolicy = Callable[[GameState, random.Random], int]
"""Picks the next action in a rollout: ``policy(state, rng) -> action``."""

Heuristic = Callable[[GameState], float]
"""Estimates a non-terminal state's value for the player to move in it."""


@runtime_checkable
class Evaluator(Protocol):
    """Values leaves. ``evaluate`` returns the value for the player to move in ``state``."""

    def evaluate(self, state: GameState, rng: random.Random) -> float: ...


@runtime_checkable
class PriorEvaluator(Evaluator, Protocol):
    """An evaluator that also returns one prior probability per legal action."""

    def priors(self, state: GameState, actions: Sequence[int]) -> Sequence[float]: ...


@runtime_checkable
class BatchEvaluator(Evaluator, Protocol):
    """An evaluator that values many leaves in one call (a neural network): the engine then
    runs the batched driver (:mod:`playout._src.batched_driver`), which collects
    ``SearchConfig.leaf_batch`` leaves per call with virtual loss.

    ``evaluate_batch(states, actions)`` returns, for each state, its value for the player to
    move (an array of ``len(states)`` floats) and one prior probability per action of
    ``actions[i]`` (the state's legal actions, in the order given).
    """

    def evaluate_batch(
        self, states: Sequence[GameState], actions: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, Sequence[np.ndarray]]: ...


def chance_action(state: GameState, rng: random.Random) -> int:
    """A chance outcome of ``state`` (a :data:`~playout.CHANCE` state) drawn with its
    probabilities from ``rng``."""
    outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
    u = rng.random()
    acc = 0.0
    for action, probability in outcomes:
        acc += probability
        if u < acc:
            return int(action)
    return int(outcomes[-1][0])


def _player0_value(state: GameState, value: float) -> float:
    """A value for the player to move in ``state`` as a value for player 0 (the flip is its
    own inverse)."""
    return value_for(state.current_player(), value)


def is_count(value: object) -> TypeGuard[int]:
    """A whole number (numpy's included), not a bool: what every count setting must be."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


ROLLOUT_CAP = 10_000
"""Moves a rollout plays at most in a game that declares no ``max_length`` (and whose
:class:`Rollout` has no ``max_depth``): such a game may never end."""


MAX_ROLLOUTS = 1_000
"""The most games one :class:`Rollout` evaluation may play. A search checks its time limit
between simulations, so one leaf's games must stay short: a thousand 19x19 Go playouts take
about a tenth of a second on one core."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Rollout:
    """Monte Carlo evaluation by playing games to the end.

    Args:
        policy: chooses rollout moves; ``None`` means uniformly random legal moves.
        num_rollouts: games played per evaluation, 1 to :data:`MAX_ROLLOUTS`; their mean is
            the value.
        max_depth: stop a game after this many moves and score it with ``heuristic``
            (0 when no heuristic is given); ``None`` plays to the end.
        heuristic: value of a cut-off state for the player to move in it.

    Raises:
        InvalidParameterError: ``num_rollouts`` or ``max_depth`` out of range or not a
            whole number, or a ``policy`` or ``heuristic`` that is not callable.
    """

    policy: RolloutPolicy | None = None
    num_rollouts: int = 1
    max_depth: int | None = None
    heuristic: Heuristic | None = None

    def __post_init__(self) -> None:
        count = self.num_rollouts
        if not is_count(count) or not 1 <= count <= MAX_ROLLOUTS:
            raise InvalidParameterError(
                f"num_rollouts must be a whole number between 1 and {MAX_ROLLOUTS:,}, got {count!r}"
            )
        depth = self.max_depth
        if depth is not None and (not is_count(depth) or depth < 0):
            raise InvalidParameterError(f"max_depth must be a whole number >= 0, got {depth!r}")
        if self.policy is not None and not callable(self.policy):
            raise InvalidParameterError(
                "policy must be None or a callable policy(state, rng) -> action, "
                f"got {self.policy!r}"
            )
        if self.heuristic is not None and not callable(self.heuristic):
            raise InvalidParameterError(
                "heuristic must be None or a callable heuristic(state) -> value, "
                f"got {self.heuristic!r}"
            )

    def evaluate(self, state: GameState, rng: random.Random) -> float:
        """Mean outcome of ``num_rollouts`` games from ``state``, for the player to move."""
        base = state.returns()[0] if state.game.spec.has_intermediate_rewards else 0.0
        total = 0.0
        for _ in range(self.num_rollouts):
            total += self._one_game(state, rng) - base
        value0 = total / self.num_rollouts
        return _player0_value(state, value0)

    def record_playouts(
        self, state: GameState, rng: random.Random
    ) -> list[tuple[float, list[int], list[int]]]:
        """The ``num_rollouts`` games of :meth:`evaluate`, each with its moves (for RAVE).

        Returns one ``(value for player 0, actions, players)`` per game: player 0's return
        from ``state`` (minus what was collected before it, for games with intermediate
        rewards), the actions played and the player who played each (chance included).
        """
        base = state.returns()[0] if state.game.spec.has_intermediate_rewards else 0.0
        games = []
        for _ in range(self.num_rollouts):
            actions: list[int] = []
            players: list[int] = []
            value0 = self._one_game(state, rng, actions, players) - base
            games.append((value0, actions, players))
        return games

    def _one_game(
        self,
        state: GameState,
        rng: random.Random,
        actions: list[int] | None = None,
        players: list[int] | None = None,
    ) -> float:
        """Player 0's total return at the end of one game (or at the cut-off); with
        ``actions`` and ``players``, the moves played are appended to them."""
        policy = self.policy
        choice = rng.choice
        limit = self.max_depth
        spec = state.game.spec
        if limit is None and spec.max_length is None:
            limit = ROLLOUT_CAP  # a game that may never end: cut, and say so
        has_chance = not spec.is_deterministic
        steps = 0
        while not state.is_terminal():
            if limit is not None and steps >= limit:
                if self.max_depth is None:
                    warnings.warn(
                        f"{spec.name}: a rollout was cut after {ROLLOUT_CAP} moves (the game "
                        "declares no max_length) and scored as a draw; give the game a "
                        "max_length or the Rollout a max_depth and heuristic",
                        PlayoutWarning,
                        stacklevel=2,
                    )
                estimate = self.heuristic(state) if self.heuristic is not None else 0.0
                current = state.returns()[0] if state.game.spec.has_intermediate_rewards else 0
                return current + _player0_value(state, estimate)
            if has_chance and state.current_player() == CHANCE:
                action = chance_action(state, rng)
            elif policy is None:
                action = choice(state.legal_actions())
            else:
                action = policy(state, rng)
            if actions is not None and players is not None:
                actions.append(action)
                players.append(state.current_player())
            state = state.play(action)
            steps += 1
        return float(state.returns()[0])


@dataclasses.dataclass(frozen=True)
class ValueFunction:
    """Evaluation by a function ``fn(state) -> value for the player to move``.

    ``fn`` returns one real number in the units of the game's returns: the value for the
    player to move in ``state`` (for player 0 at a chance state); in a game with intermediate
    rewards, the return still to come (seed 002's ``get_future_value``). A Python or numpy
    number, or a numpy array holding exactly one number, is accepted.

    Raises:
        InvalidParameterError: ``fn`` is not callable.

    Raises (from :meth:`evaluate`):
        InvalidParameterError: ``fn`` returned something else (``None``, a string, a bool,
            an array of size other than 1) or a value that is not finite.
    """

    fn: Heuristic

    def __post_init__(self) -> None:
        if not callable(self.fn):
            raise InvalidParameterError(
                f"ValueFunction takes a callable fn(state) -> value, got {self.fn!r}"
            )

    def evaluate(self, state: GameState, rng: random.Random) -> float:
        """``fn(state)``, checked to be one finite number."""
        return _checked_value(self.fn(state), self.fn)


def _checked_value(raw: object, fn: object) -> float:
    """``raw`` as a float, or :class:`InvalidParameterError` naming ``fn`` and what it gave."""
    name = getattr(fn, "__qualname__", None) or repr(fn)
    value: float | None = None
    if isinstance(raw, numbers.Real) and not isinstance(raw, bool | np.bool_):
        value = float(raw)
    elif isinstance(raw, np.ndarray | np.generic):
        array = np.asarray(raw)
        if array.size != 1:
            raise InvalidParameterError(
                f"value function {name} returned an array of shape {array.shape}; it must "
                "return one number (the value for the player to move)"
            )
        if array.dtype.kind in "iuf":
            value = float(array.reshape(()))
    if value is None:
        raise InvalidParameterError(
            f"value function {name} returned {raw!r} ({type(raw).__name__}); it must return "
            "one number (the value for the player to move)"
        )
    if not math.isfinite(value):
        raise InvalidParameterError(f"value function {name} returned {value}, not a finite value")
    return value


def random_policy(state: GameState, rng: random.Random) -> int:
    """The uniformly random rollout policy."""
    return int(rng.choice(state.legal_actions()))


__all__ = [
    "Evaluator",
    "Heuristic",
    "PriorEvaluator",
    "Rollout",
    "RolloutPolicy",
    "ValueFunction",
    "random_policy",
]
