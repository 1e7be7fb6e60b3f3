"""Cheap checks of a game's promises, made by the search as it meets them.

:func:`playout.check_game` tests a game thoroughly before use; these checks catch, during a
search, what would otherwise turn into a confident wrong answer (a "proven win" from a broken
``returns()``, a value read past the end of a prior array). Each raises
:class:`~playout.GameError` (the game broke its protocol) or
:class:`~playout.InvalidParameterError` (an evaluator or rule returned something unusable),
naming the game and the rule broken. The Python driver runs them unless
``SearchConfig(checks=False)``. Most cost well under a microsecond per simulation; the
legal actions are checked once per distinct tuple, which in a game whose positions rarely
repeat means at every new node (about 17 microseconds for gomoku's 224 actions, measured
with ``timeit``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from playout._src.errors import GameError, InvalidParameterError
from playout._src.game import CHANCE, GameSpec, GameState

_LARGEST_ID = int(np.iinfo(np.int64).max)
"""The largest action id an int64 array holds."""


def _too_large(spec: GameSpec, action: int) -> GameError:
    """The error for an action id past what the tree's int64 arrays hold."""
    return GameError(f"{spec.name}: legal action id {action} is too large for an int64")


def legal_action_array(spec: GameSpec, state: GameState, legal: Sequence[int]) -> np.ndarray:
    """``legal`` as an int64 array, after checking that the actions are whole numbers,
    distinct, at least 0 and below ``spec.num_actions`` (when declared), and that there is one.

    Raises:
        GameError: a broken promise (the message names the game and the action).
    """
    try:
        length = len(legal)
    except TypeError:  # a generator, an iterator, None, a number
        raise GameError(
            f"{spec.name}: legal_actions() must return a sequence of action ids, got "
            f"{type(legal).__name__} in {type(state).__name__}"
        ) from None
    if length == 0:
        raise GameError(f"{spec.name}: a non-terminal state has no legal actions")
    # The types are checked once each, not once per action: the check runs at every new
    # node of a game whose positions rarely repeat (gomoku's 224 actions after one stone).
    if isinstance(legal, np.ndarray) and legal.ndim == 1 and legal.dtype.kind in "iu":
        largest = int(legal.max())
        if largest > _LARGEST_ID:
            raise _too_large(spec, largest)
        actions = legal.astype(np.int64, copy=False)
    else:
        for kind in set(map(type, legal)):
            if kind is bool or not issubclass(kind, int | np.integer):
                action = next(a for a in legal if type(a) is kind)
                raise GameError(
                    f"{spec.name}: legal_actions() must return action ids (whole numbers), "
                    f"got {action!r} in {type(state).__name__}"
                )
        try:
            actions = np.asarray(legal, dtype=np.int64)
        except OverflowError:
            raise _too_large(spec, max(int(a) for a in legal)) from None
    if int(actions.min()) < 0:
        raise GameError(f"{spec.name}: legal action id {int(actions.min())} is negative")
    if spec.num_actions is not None and int(actions.max()) >= spec.num_actions:
        raise GameError(
            f"{spec.name}: legal action id {int(actions.max())} is not below the declared "
            f"num_actions={spec.num_actions}"
        )
    ordered = np.sort(actions)
    if bool((ordered[1:] == ordered[:-1]).any()):
        raise GameError(f"{spec.name}: legal_actions() lists an action twice: {list(legal)}")
    return actions


DETERMINISM_CHECKS = 64
"""New leaves per driver whose move a deterministic game plays twice, to compare
(:func:`same_position`): enough to catch a transition that draws at random, whatever its
odds, before the search trusts (and proves from) the first outcome it stored."""


def random_transition(spec: GameSpec, what: str) -> GameError:
    """The error for a game declared deterministic whose moves come out differently when
    played again (``what`` says how): its transition draws at random."""
    return GameError(
        f"{spec.name}: {what}: the game's transition looks random, but its spec says "
        "is_deterministic=True. Declare it: from_seed_state(state, deterministic=False), "
        "from_env(..., deterministic=False), or GameSpec(is_deterministic=False) "
        "(states are then recomputed at every simulation)"
    )


def _signature(state: GameState) -> tuple[Any, ...]:
    """What the search reads of a position: player to move, legal actions, returns at the
    end (for states whose class defines no equality)."""
    if state.is_terminal():
        return (state.current_player(), tuple(state.returns()))
    return (state.current_player(), tuple(state.legal_actions()))


def same_position(
    spec: GameSpec, parent: GameState, action: int, child: GameState, again: GameState
) -> None:
    """Check that ``again``, a second ``parent.play(action)``, is the position ``child``:
    by the state class's equality when it defines one, else by what the search reads of
    them (player to move, legal actions, returns).

    Raises:
        GameError: they differ, so the transition draws at random (names the flag).
    """
    differ: bool | None = None
    if type(child).__eq__ is not object.__eq__:
        try:
            differ = not bool(child == again)
        except Exception:  # an equality that cannot answer (numpy fields): compare below
            differ = None
    if differ is None:
        differ = _signature(child) != _signature(again)
    if differ:
        raise random_transition(
            spec, f"playing action {action} twice from the same position gave two positions"
        )


def player(spec: GameSpec, state: GameState, who: int) -> int:
    """``who`` (a state's ``current_player()``) after checking that it is a player of the
    game or :data:`~playout.CHANCE` (chance only in games declared non-deterministic)."""
    if isinstance(who, bool) or not isinstance(who, int | np.integer):
        raise GameError(f"{spec.name}: current_player() must return an int, got {who!r}")
    if 0 <= who < spec.num_players:
        return int(who)
    if who == CHANCE and not spec.is_deterministic:
        return int(who)
    raise GameError(
        f"{spec.name}: current_player() returned {who}, not a player of a "
        f"{spec.num_players}-player game"
        + (" (a chance state needs is_deterministic=False)" if who == CHANCE else "")
    )


def returns(spec: GameSpec, state: GameState) -> float:
    """Player 0's return in ``state`` after checking ``state.returns()``: one finite number
    per player, summing to 0 in a zero-sum game, and within ``[min_return, max_return]`` at
    the end of a game (and at every state of a game without intermediate rewards; the returns
    collected so far may stray outside on the way)."""
    values: Any = state.returns()
    try:
        count = len(values)
    except TypeError:
        raise GameError(
            f"{spec.name}: returns() must give one number per player, got {values!r}"
        ) from None
    if count != spec.num_players:
        raise GameError(
            f"{spec.name}: returns() gave {count} values for a {spec.num_players}-player game"
        )
    numbers = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise GameError(f"{spec.name}: returns() must give numbers, got {values!r}")
        if not math.isfinite(value):
            raise GameError(f"{spec.name}: returns() gave a non-finite value: {values!r}")
        numbers.append(float(value))
    if not spec.has_intermediate_rewards or state.is_terminal():
        low, high = spec.min_return, spec.max_return
        if any(not low - 1e-9 <= v <= high + 1e-9 for v in numbers):
            raise GameError(
                f"{spec.name}: returns() {values!r} lie outside the declared "
                f"[min_return, max_return] = [{low}, {high}]"
            )
    if spec.is_zero_sum and spec.num_players == 2 and abs(sum(numbers)) > 1e-9:
        raise GameError(f"{spec.name}: returns() {values!r} do not sum to 0 in a zero-sum game")
    return numbers[0]


def child(spec: GameSpec, parent: GameState, state: Any) -> GameState:
    """``state`` (what ``parent.play(action)`` returned) after checking that it is a new
    state, not ``parent`` changed in place or ``None``."""
    if state is parent:
        raise GameError(
            f"{spec.name}: play() returned the same object: states must be immutable "
            "(return a new state, leave the old one unchanged)"
        )
    if state is None or not hasattr(state, "legal_actions"):
        raise GameError(f"{spec.name}: play() must return the next state, got {state!r}")
    return state  # type: ignore[no-any-return]


def evaluation(spec: GameSpec, value: object, what: str) -> float:
    """An evaluator's ``value`` (for the player to move) as a float, after checking that it
    is a finite number within the game's return bounds (the bounds only without
    intermediate rewards, where values are whole-game returns)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidParameterError(f"{what} must return a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidParameterError(f"{what} returned a non-finite value: {number}")
    if not spec.has_intermediate_rewards:
        low = spec.min_return if spec.num_players == 1 else -spec.max_return
        if not low - 1e-9 <= number <= spec.max_return + 1e-9:
            raise InvalidParameterError(
                f"{what} returned {number}, outside the game's values "
                f"[{low}, {spec.max_return}] ({spec.name})"
            )
    return number


def evaluations(spec: GameSpec, values: Any, what: str) -> np.ndarray:
    """A batch evaluator's ``values`` as a float array, after the checks of
    :func:`evaluation` on every one (at once; the first bad value raises its error)."""
    try:
        raw = np.asarray(values)
    except Exception:  # ragged, or a tensor numpy cannot read: the loop below says which
        raw = np.asarray([None])
    good = raw.ndim == 1 and raw.dtype.kind in "fiu"  # numbers (not bools, not objects)
    if good and not isinstance(values, np.ndarray):  # a bool among numbers reads as one
        good = not any(isinstance(value, bool | np.bool_) for value in values)
    array = raw.astype(np.float64) if good else raw
    good = good and bool(np.isfinite(array).all())
    if good and array.size and not spec.has_intermediate_rewards:
        low = spec.min_return if spec.num_players == 1 else -spec.max_return
        good = low - 1e-9 <= array.min() and array.max() <= spec.max_return + 1e-9
    if not good:
        for value in values:
            evaluation(spec, value, what)
        raise InvalidParameterError(f"{what} must return one number per state, got {values!r}")
    return array


def all_priors(rows: np.ndarray) -> bool:
    """Whether every number of ``rows`` is finite and >= 0 (what :func:`priors` checks)."""
    return bool(np.isfinite(rows).all() and (rows >= 0).all())


def priors(spec: GameSpec, values: Any, actions: np.ndarray, what: str) -> np.ndarray:
    """Prior probabilities (or move scores) for ``actions`` as a float array, after checking
    one finite, non-negative number per action."""
    array = np.asarray(values, dtype=np.float64)
    if array.shape != actions.shape:
        raise InvalidParameterError(
            f"{what} returned {array.size} values for {actions.size} legal actions "
            f"({spec.name}): one per action expected"
        )
    if not np.isfinite(array).all() or (array < 0).any():
        raise InvalidParameterError(
            f"{what} returned values that are not finite numbers >= 0 ({spec.name}): {array}"
        )
    return array


def selection_index(value: object, count: int) -> int:
    """A Python selection rule's answer as an edge index in ``0 .. count - 1``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InvalidParameterError(
            f"selection rule must return an edge index (an int), got {value!r}"
        )
    if not 0 <= value < count:
        raise InvalidParameterError(
            f"selection rule returned edge index {value}, expected 0..{count - 1}"
        )
    return int(value)


__all__ = [
    "all_priors",
    "child",
    "evaluation",
    "evaluations",
    "legal_action_array",
    "player",
    "priors",
    "returns",
    "selection_index",
]
