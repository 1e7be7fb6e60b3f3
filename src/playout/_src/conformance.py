"""A conformance checker for games: random games that verify the game protocol's promises.

:func:`check_game` is public so authors of new games can run it in their own tests::

    report = playout.check_game(MyGame(), num_games=200)

It only calls protocol methods (see :mod:`playout._src.game`), plays ``num_games`` random games
with ``random.Random(seed)`` and raises :class:`~playout.GameError` with a precise message on
the first violation. Checked at every visited state:

* the spec is a valid :class:`GameSpec`; ``state.game`` is the game;
* ``current_player()`` is ``0 .. num_players - 1`` (or :data:`CHANCE` at chance states of a
  non-deterministic game) until the end; anything once ``is_terminal()``;
* ``legal_actions()`` is non-empty exactly until the end, has no duplicates, holds integer ids
  within ``[0, num_actions)`` when ``num_actions`` is declared;
* ``play()`` leaves its state unchanged (hash, legal actions, returns, player, end flag);
* states are hashable, and replaying the same actions from the start yields equal states with
  equal hashes (only when the state class defines ``__eq__``; identity equality is skipped);
* ``returns()`` has one finite entry per player within ``[min_return, max_return]``, and sums
  to zero at the end of a two-player zero-sum game;
* a game lasts at most ``max_length`` actions (when declared) and ends within ``max_steps``;
* ``string_to_action(state, action_to_string(state, a)) == a`` for every legal action of the
  start state and for every action played;
* at chance states ``chance_outcomes()`` has positive probabilities summing to 1 that cover
  exactly the legal actions.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from typing import Any

from playout._src.errors import GameError, PlayoutError
from playout._src.evaluation import is_count
from playout._src.game import CHANCE, Game, GameSpec, GameState

_TOLERANCE = 1e-9


@dataclasses.dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_game` saw (every check passed).

    Attributes:
        game_name: ``spec.name`` of the checked game.
        num_games: random games played to the end.
        num_states: states checked, terminal ones included, over all games.
        num_chance_states: how many of them were chance states.
        min_length_seen, max_length_seen: shortest and longest game, in actions from the start.
        mean_length: average game length, in actions.
        max_num_actions_seen: the largest number of legal actions met in one state.
        mean_returns: average final ``returns()`` per player.
    """

    game_name: str
    num_games: int
    num_states: int
    num_chance_states: int
    min_length_seen: int
    max_length_seen: int
    mean_length: float
    max_num_actions_seen: int
    mean_returns: tuple[float, ...]


def check_game(
    game: Game,
    *,
    num_games: int = 100,
    seed: int = 0,
    max_steps: int = 10_000,
    start: GameState | None = None,
) -> ConformanceReport:
    """Play ``num_games`` random games and check the game protocol along the way.

    Args:
        game: the game to check.
        num_games: random games to play from the start state (>= 1).
        seed: seed of the ``random.Random`` that picks the moves.
        max_steps: a game still running after this many actions is reported as a violation.
        start: the state the games start from; ``game.initial_state()`` by default.

    Returns:
        A :class:`ConformanceReport` with counts of what was checked.

    Raises:
        GameError: the first violation found, with the game, move number and what was wrong.
    """
    if not is_count(num_games) or not 1 <= num_games <= 1_000_000:
        raise GameError(f"num_games must be a whole number in [1, 1,000,000], got {num_games!r}")
    spec = _check_spec(game)
    rng = random.Random(seed)
    root = game.initial_state() if start is None else start
    label = spec.name
    _check_state(game, spec, root, f"{label}: start state")
    if not root.is_terminal():
        _check_notation(game, root, list(root.legal_actions()), f"{label}: start state")

    num_states = 0
    num_chance_states = 0
    lengths: list[int] = []
    max_num_actions = 0
    return_sums = [0.0] * spec.num_players
    for game_index in range(num_games):
        state = root
        path: list[GameState] = [root]
        actions: list[int] = []
        while True:
            where = f"{label}: game {game_index}, after {len(actions)} actions {actions[-20:]}"
            legal = _check_state(game, spec, state, where)
            num_states += 1
            max_num_actions = max(max_num_actions, len(legal))
            if state.is_terminal():
                break
            if len(actions) >= max_steps:
                raise GameError(f"{where}: the game did not end within max_steps={max_steps}")
            if spec.max_length is not None and len(actions) >= spec.max_length:
                raise GameError(
                    f"{where}: the game is still running after max_length={spec.max_length} "
                    "actions declared in the spec"
                )
            if state.current_player() == CHANCE:
                num_chance_states += 1
                action = _sample_chance(state, legal, rng, where)
            else:
                action = rng.choice(legal)
            _check_notation(game, state, [action], where)
            before = _snapshot(state)
            try:
                child = state.play(action)
            except Exception as error:
                raise GameError(
                    f"{where}: play({action}) of a legal action raised {error!r}"
                ) from error
            after = _snapshot(state)
            if before != after:
                raise GameError(
                    f"{where}: play({action}) changed the state it was called on "
                    f"({_describe_change(before, after)}); play must return a new state"
                )
            state = child
            path.append(state)
            actions.append(action)
        final = _returns(state, spec, where)
        if spec.num_players == 2 and spec.is_zero_sum and abs(sum(final)) > _TOLERANCE:
            raise GameError(f"{where}: final returns {final} do not sum to zero in a zero-sum game")
        for player, value in enumerate(final):
            return_sums[player] += value
        lengths.append(len(actions))
        _check_replay(root, path, actions, f"{label}: game {game_index}")

    return ConformanceReport(
        game_name=spec.name,
        num_games=num_games,
        num_states=num_states,
        num_chance_states=num_chance_states,
        min_length_seen=min(lengths),
        max_length_seen=max(lengths),
        mean_length=sum(lengths) / len(lengths),
        max_num_actions_seen=max_num_actions,
        mean_returns=tuple(total / num_games for total in return_sums),
    )


def _check_spec(game: Game) -> GameSpec:
    spec = getattr(game, "spec", None)
    if not isinstance(spec, GameSpec):
        raise GameError(f"{game!r}: game.spec must be a GameSpec, got {spec!r}")
    # GameSpec validates itself on construction; rebuild it to catch a spec mutated afterwards.
    dataclasses.replace(spec)
    return spec


def _check_state(game: Game, spec: GameSpec, state: GameState, where: str) -> list[int]:
    """Check one state; return its legal actions as a list."""
    try:
        hash(state)
    except TypeError as error:
        raise GameError(f"{where}: states must be hashable ({error})") from None
    owner = getattr(state, "game", None)
    if owner is not game and owner != game:
        raise GameError(f"{where}: state.game is {owner!r}, not the game being checked")
    legal = list(state.legal_actions())
    is_terminal = state.is_terminal()
    if is_terminal and legal:
        raise GameError(f"{where}: terminal state offers legal actions {legal[:10]}")
    if not is_terminal and not legal:
        raise GameError(f"{where}: no legal actions but is_terminal() is False")
    for action in legal:
        if not is_count(action):
            raise GameError(f"{where}: action ids must be integers, got {action!r}")
        if spec.num_actions is not None and not 0 <= action < spec.num_actions:
            raise GameError(
                f"{where}: action {action} outside [0, {spec.num_actions}) declared by num_actions"
            )
    if len(set(legal)) != len(legal):
        raise GameError(f"{where}: duplicate legal actions {sorted(legal)}")
    if not is_terminal:
        player = state.current_player()
        if player == CHANCE:
            if spec.is_deterministic:
                raise GameError(f"{where}: chance state in a game declared deterministic")
        elif not (is_count(player) and 0 <= player < spec.num_players):
            raise GameError(
                f"{where}: current_player() is {player!r}; expected 0..{spec.num_players - 1}"
                + ("" if spec.is_deterministic else " or CHANCE")
            )
    _returns(state, spec, where)
    return legal


def _returns(state: GameState, spec: GameSpec, where: str) -> tuple[float, ...]:
    values = tuple(float(v) for v in state.returns())
    if len(values) != spec.num_players:
        raise GameError(
            f"{where}: returns() has {len(values)} entries for {spec.num_players} players"
        )
    for player, value in enumerate(values):
        if not math.isfinite(value):
            raise GameError(f"{where}: returns()[{player}] is {value}")
        if not spec.min_return - _TOLERANCE <= value <= spec.max_return + _TOLERANCE:
            raise GameError(
                f"{where}: returns()[{player}] = {value} outside the declared "
                f"[{spec.min_return}, {spec.max_return}]"
            )
    return values


def _snapshot(state: GameState) -> tuple[Any, ...]:
    """What ``play()`` must not change, as comparable values."""
    return (
        hash(state),
        tuple(state.legal_actions()),
        tuple(state.returns()),
        state.current_player(),
        state.is_terminal(),
    )


def _describe_change(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    names = ("hash", "legal actions", "returns", "current player", "is_terminal")
    changed = [
        f"{name} {old!r} -> {new!r}"
        for name, old, new in zip(names, before, after, strict=True)
        if old != new
    ]
    return "; ".join(changed)


def _sample_chance(state: GameState, legal: Sequence[int], rng: random.Random, where: str) -> int:
    outcomes_method = getattr(state, "chance_outcomes", None)
    if outcomes_method is None:
        raise GameError(f"{where}: chance state without a chance_outcomes() method")
    outcomes: list[tuple[int, float]] = [
        (action, float(probability)) for action, probability in outcomes_method()
    ]
    actions = [action for action, _ in outcomes]
    if len(set(actions)) != len(actions):
        raise GameError(f"{where}: chance_outcomes() repeats an action: {actions}")
    if set(actions) != set(legal):
        raise GameError(
            f"{where}: chance_outcomes() actions {sorted(actions)} differ from "
            f"legal_actions() {sorted(legal)}"
        )
    for action, probability in outcomes:
        if not probability > 0.0:
            raise GameError(f"{where}: chance outcome {action} has probability {probability}")
    total = sum(probability for _, probability in outcomes)
    if abs(total - 1.0) > 1e-6:
        raise GameError(f"{where}: chance probabilities sum to {total}, not 1")
    threshold = rng.random() * total
    cumulative = 0.0
    for action, probability in outcomes:
        cumulative += probability
        if threshold < cumulative:
            return action
    return outcomes[-1][0]


def _check_notation(game: Game, state: GameState, actions: Sequence[int], where: str) -> None:
    for action in actions:
        try:
            text = game.action_to_string(state, action)
            parsed = game.string_to_action(state, text)
        except PlayoutError as error:
            raise GameError(
                f"{where}: notation of legal action {action} does not round-trip: {error}"
            ) from None
        if parsed != action:
            raise GameError(
                f"{where}: action {action} is written {text!r}, which parses back to {parsed!r}"
            )


def _check_replay(
    root: GameState, path: Sequence[GameState], actions: Sequence[int], where: str
) -> None:
    """Replaying ``actions`` from ``root`` must give states equal to ``path`` (value equality)."""
    if type(root).__eq__ is object.__eq__:
        return
    state = root
    for index, action in enumerate(actions, start=1):
        state = state.play(action)
        original = path[index]
        if type(original).__eq__ is object.__eq__:
            continue
        if state != original:
            raise GameError(
                f"{where}: replaying actions {list(actions[:index])} from the start gives a state "
                f"that is not equal to the one reached the first time"
            )
        if hash(state) != hash(original):
            raise GameError(
                f"{where}: replaying actions {list(actions[:index])} gives an equal state with a "
                "different hash"
            )


__all__ = ["ConformanceReport", "check_game"]
