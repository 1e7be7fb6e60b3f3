"""Flat Monte Carlo evaluation (seed 001's first exercise): a value per move from random games.

No tree: every legal move is tried, and each non-terminal result is scored by the mean of
``playouts`` games played on from it by a rollout policy. A move that ends the game is scored
exactly. Values are for the player to move in ``state``.
"""

from __future__ import annotations

import dataclasses
import random

from playout._src.errors import GameOverError, InvalidParameterError
from playout._src.evaluation import Rollout, RolloutPolicy, is_count
from playout._src.game import GameState, value_for


@dataclasses.dataclass(frozen=True)
class FlatResult:
    """Per-move values of a flat Monte Carlo evaluation.

    Attributes:
        actions: the legal actions of the evaluated state.
        values: mean outcome of each action for the player to move, in the game's return range.
        playouts: games played per non-terminal action.
        player: the player to move.
    """

    actions: tuple[int, ...]
    values: tuple[float, ...]
    playouts: int
    player: int

    def action_values(self) -> dict[int, float]:
        return dict(zip(self.actions, self.values, strict=True))

    @property
    def best_action(self) -> int:
        return self.actions[max(range(len(self.actions)), key=self.values.__getitem__)]


MAX_PLAYOUTS = 10_000_000
"""The most games per move of :func:`flat_monte_carlo` (it has no time limit)."""


def flat_monte_carlo(
    state: GameState,
    *,
    playouts: int = 1000,
    seed: int | None = None,
    policy: RolloutPolicy | None = None,
) -> FlatResult:
    """Value every legal move of ``state`` by ``playouts`` random games (seed 001).

    Args:
        state: the position; not modified.
        playouts: games per move (1 to :data:`MAX_PLAYOUTS`).
        seed: seeds the games (a whole number >= 0); the same seed gives the same values.
        policy: rollout policy (uniformly random by default).

    Raises:
        InvalidParameterError: a bad ``playouts`` or ``seed``.
        GameOverError: the game is over.
    """
    if not is_count(playouts) or not 1 <= playouts <= MAX_PLAYOUTS:
        raise InvalidParameterError(
            f"playouts must be a whole number in [1, {MAX_PLAYOUTS:,}], got {playouts!r}"
        )
    if seed is not None and (not is_count(seed) or seed < 0):
        raise InvalidParameterError(f"seed must be None or a whole number >= 0, got {seed!r}")
    if state.is_terminal():
        raise GameOverError("the game is over: there are no moves to evaluate")
    rng = random.Random(seed)
    rollout = Rollout(policy=policy)  # one game per call: any number of playouts per move
    player = state.current_player()
    rewards = state.game.spec.has_intermediate_rewards
    base = float(state.returns()[0]) if rewards else 0.0
    actions = tuple(int(a) for a in state.legal_actions())
    values = []
    for action in actions:
        child = state.play(action)
        gained0 = float(child.returns()[0]) - base if rewards else 0.0
        if child.is_terminal():
            value0 = float(child.returns()[0]) - base
        else:
            future = sum(rollout.evaluate(child, rng) for _ in range(playouts)) / playouts
            value0 = gained0 + value_for(child.current_player(), future)
        values.append(value_for(player, value0))
    return FlatResult(actions=actions, values=tuple(values), playouts=playouts, player=player)


__all__ = ["FlatResult", "flat_monte_carlo"]
