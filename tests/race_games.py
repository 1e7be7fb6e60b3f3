"""The slippery race to 10 in three forms, and its exact values by dynamic programming.

The game: a running total starts at ``start``; the player to move adds 1 or 2; the step then
slips one further with probability ``SLIP`` (0.3); whoever brings the total to ``TARGET`` (10)
or beyond wins. Three forms of the same game:

* :class:`SeedRace`: seed 000's interface (``get_winner``, ``get_possible_actions``,
  ``transition``), the slip drawn inside ``transition()`` (seed 003's random events), for
  ``from_seed_state(..., deterministic=False)`` and ``SeedMCTS``;
* :class:`HiddenRaceGame`: playout's own protocol, the slip drawn inside ``play()`` (hidden
  chance: ``is_deterministic=False``);
* :class:`ChanceRaceGame`: playout's protocol with the slip as an explicit chance state
  (``explicit_chance=True``), so states can be stored.

:func:`exact_values` gives each action's exact value for the player to move (expectimax).
"""

from __future__ import annotations

import dataclasses
import random
from functools import cache

from playout import CHANCE, TERMINAL, GameSpec

TARGET = 10
SLIP = 0.3
ADD = (1, 2)
"""Action ``i`` adds ``ADD[i]``."""


@cache
def exact_value(total: int) -> float:
    """The value for the player to move at ``total`` (< TARGET) under best play."""
    return max(exact_values(total))


def exact_values(total: int) -> tuple[float, float]:
    """Each action's exact value (add 1, add 2) for the player to move at ``total``."""
    values = []
    for add in ADD:
        value = 0.0
        for slip, probability in ((0, 1.0 - SLIP), (1, SLIP)):
            reached = total + add + slip
            value += probability * (1.0 if reached >= TARGET else -exact_value(reached))
        values.append(value)
    return values[0], values[1]


class SeedRace:
    """The race in seed 000's interface, seen from the player to move; ``transition()``
    draws the slip from ``rng``."""

    def __init__(self, total: int, rng: random.Random) -> None:
        self.total, self.rng = total, rng

    def get_winner(self) -> int | None:
        return -1 if self.total >= TARGET else None  # the last mover reached the target

    def get_possible_actions(self) -> list[int]:
        return list(ADD)

    def transition(self, action: int) -> SeedRace:
        slip = 1 if self.rng.random() < SLIP else 0
        return SeedRace(self.total + action + slip, self.rng)


class HiddenRaceGame:
    """The race in playout's protocol with the slip drawn inside ``play()``."""

    def __init__(self, start: int = 0, seed: int = 0, deterministic: bool = False) -> None:
        self.spec = GameSpec(
            name="slippery-race", num_players=2, num_actions=2, max_length=TARGET,
            is_deterministic=deterministic,
        )  # fmt: skip
        self.rng = random.Random(seed)
        self.start = start

    def initial_state(self) -> HiddenRaceState:
        return HiddenRaceState(self, self.start, 0)

    def action_to_string(self, state: object, action: int) -> str:
        return f"+{ADD[action]}"

    def string_to_action(self, state: object, text: str) -> int:
        return ADD.index(int(text))


@dataclasses.dataclass(frozen=True)
class HiddenRaceState:
    game: HiddenRaceGame = dataclasses.field(compare=False)
    total: int
    player: int

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.player

    def legal_actions(self) -> tuple[int, ...]:
        return () if self.is_terminal() else (0, 1)

    def is_terminal(self) -> bool:
        return self.total >= TARGET

    def play(self, action: int) -> HiddenRaceState:
        slip = 1 if self.game.rng.random() < SLIP else 0
        return HiddenRaceState(self.game, self.total + ADD[action] + slip, 1 - self.player)

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        return (-1.0, 1.0) if self.player == 0 else (1.0, -1.0)  # the last mover won


class ChanceRaceGame:
    """The race in playout's protocol with the slip as a chance state: after a move the
    state is ``CHANCE`` to move with outcomes 0 (no slip, 0.7) and 1 (slip, 0.3)."""

    def __init__(self, start: int = 0) -> None:
        self.spec = GameSpec(
            name="slippery-race-chance", num_players=2, num_actions=2, max_length=2 * TARGET,
            is_deterministic=False, explicit_chance=True,
        )  # fmt: skip
        self.start = start

    def initial_state(self) -> ChanceRaceState:
        return ChanceRaceState(self, self.start, 0, None)

    def action_to_string(self, state: object, action: int) -> str:
        return f"+{ADD[action]}"

    def string_to_action(self, state: object, text: str) -> int:
        return ADD.index(int(text))


@dataclasses.dataclass(frozen=True)
class ChanceRaceState:
    game: ChanceRaceGame = dataclasses.field(compare=False)
    total: int
    player: int
    """The player to move, or who moved when the slip is pending."""
    pending: int | None
    """The step just chosen, waiting for the slip; ``None`` when a player is to move."""

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL
        return CHANCE if self.pending is not None else self.player

    def legal_actions(self) -> tuple[int, ...]:
        return () if self.is_terminal() else (0, 1)

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        return ((0, 1.0 - SLIP), (1, SLIP))

    def is_terminal(self) -> bool:
        return self.total >= TARGET and self.pending is None

    def play(self, action: int) -> ChanceRaceState:
        if self.pending is None:
            return ChanceRaceState(self.game, self.total, self.player, ADD[action])
        return ChanceRaceState(self.game, self.total + self.pending + action, 1 - self.player, None)

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        return (-1.0, 1.0) if self.player == 0 else (1.0, -1.0)
