"""Pig, the dice game: a two-player game with explicit chance nodes (seed 003's random events).

Rules (registry name ``"pig"``):

* Two players take turns. On a turn the player to move repeatedly chooses **roll** or
  **hold**. Rolling hands the move to chance: a fair six-sided die is thrown (a
  :data:`~playout.CHANCE` state with six outcomes of probability 1/6 each).
* A **1** ends the turn and the turn total is lost. Any other face is added to the turn total.
* **Hold** banks the turn total into the player's score and ends the turn. Holding needs a
  positive turn total, so a turn always starts with a roll (no passing).
* The game ends **as soon as** a player's score plus turn total reaches ``target`` (default 20):
  that player wins without having to hold.
* **Length cap** (declared, so that ``spec.max_length`` is finite): after ``max_turns`` turns
  (both players' turns counted, 100 by default) the game ends; the higher banked score wins and
  equal scores are a draw. A turn has at most ``ceil(target / 2)`` rolls (every face that does
  not end the turn adds at least 2), i.e. at most ``2 * ceil(target / 2)`` actions, so
  ``max_length = max_turns * 2 * ceil(target / 2)``.

Actions: :data:`ROLL` (0) and :data:`HOLD` (1) for the player; at a chance state the die face
``f`` is action ``f + 1`` (2..7), so ``spec.num_actions`` is 8. Notation: ``roll``/``hold``
(also ``r``/``h``) and the face ``1``..``6`` for chance outcomes.

Returns: ``(1, -1)`` when player 0 (who moves first) wins, ``(-1, 1)`` when player 1 wins,
``(0, 0)`` for a draw and while the game runs. Values in a search are, as everywhere in playout,
for the player to move. The players are named ``"player 1"`` and ``"player 2"``
(``spec.player_names``).

A search through a chance state samples the die by its probabilities; the game is declared
non-deterministic, so the MCTS-Solver is off by default (proofs assume no chance).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from playout._src.errors import GameError, IllegalMoveError, InvalidParameterError, MoveParseError
from playout._src.game import CHANCE, TERMINAL, GameSpec, GameState, check_action_type

ROLL = 0
"""Action id: throw the die (the next state is a chance state)."""

HOLD = 1
"""Action id: bank the turn total and end the turn."""

NUM_FACES = 6
FACE_OFFSET = 1
"""Die face ``f`` (1..6) is action id ``f + FACE_OFFSET`` (2..7)."""

NUM_ACTIONS = NUM_FACES + FACE_OFFSET + 1
PLAYER_NAMES: tuple[str, str] = ("player 1", "player 2")
FACE_PROBABILITY: Fraction = Fraction(1, NUM_FACES)
"""The probability of each face, exactly."""

_FACE_ACTIONS: tuple[int, ...] = tuple(f + FACE_OFFSET for f in range(1, NUM_FACES + 1))
_OUTCOMES: tuple[tuple[int, float], ...] = tuple((a, 1.0 / NUM_FACES) for a in _FACE_ACTIONS)
_PLAYER0_WINS: tuple[float, float] = (1.0, -1.0)
_PLAYER1_WINS: tuple[float, float] = (-1.0, 1.0)
_NO_WINNER: tuple[float, float] = (0.0, 0.0)
_WORDS = {"roll": ROLL, "r": ROLL, "hold": HOLD, "h": HOLD}


def face_action(face: int) -> int:
    """The chance action id of die face ``face`` (1..6)."""
    if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= NUM_FACES:
        raise IllegalMoveError(f"a die face is 1..{NUM_FACES}, got {face!r}")
    return face + FACE_OFFSET


MAX_TARGET = 1000
"""The largest ``target`` (the classic game plays to 100): a random game to it already lasts
thousands of moves, and one rollout must end within a search's time."""

MAX_TURNS = 10_000
"""The largest ``max_turns``."""


def _check_int(name: str, value: object, lowest: int, highest: int = 2**62) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    if not lowest <= value <= highest:
        raise InvalidParameterError(f"{name} must be between {lowest} and {highest:,}, got {value}")
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class PigState:
    """One position of Pig. Immutable; equal positions compare and hash equal.

    Attributes:
        game: the game (its target and turn cap).
        scores: banked points of player 0 and player 1.
        turn_total: points collected in the current turn, not banked yet.
        player: whose turn it is (0 or 1), also while the die is in the air.
        rolling: the die has been thrown and chance picks the face next.
        turns: turns completed so far (the game ends when it reaches ``game.max_turns``).
        outcome: final returns once the game is over, else ``None``.
    """

    game: PigGame
    scores: tuple[int, int] = (0, 0)
    turn_total: int = 0
    player: int = 0
    rolling: bool = False
    turns: int = 0
    outcome: tuple[float, float] | None = None

    def current_player(self) -> int:
        """The player to move (0 or 1), :data:`~playout.CHANCE` while the die is in the air,
        :data:`~playout.TERMINAL` at the end."""
        if self.outcome is not None:
            return TERMINAL
        return CHANCE if self.rolling else self.player

    def legal_actions(self) -> tuple[int, ...]:
        """Faces 2..7 at a chance state; ``(ROLL,)`` with a zero turn total, else
        ``(ROLL, HOLD)``; ``()`` at the end."""
        if self.outcome is not None:
            return ()
        if self.rolling:
            return _FACE_ACTIONS
        return (ROLL, HOLD) if self.turn_total > 0 else (ROLL,)

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """``(face action, 1/6)`` for the six faces; only at a chance state.

        Raises:
            GameError: the state is not a chance state.
        """
        if self.outcome is not None or not self.rolling:
            raise GameError("chance_outcomes() is only defined while the die is in the air")
        return _OUTCOMES

    def is_terminal(self) -> bool:
        """Whether someone reached the target or the turn cap was reached."""
        return self.outcome is not None

    def returns(self) -> tuple[float, float]:
        """``(1, -1)`` player 0 won, ``(-1, 1)`` player 1 won, ``(0, 0)`` draw or running."""
        return _NO_WINNER if self.outcome is None else self.outcome

    def play(self, action: int) -> PigState:
        """The position after ``action``; ``self`` is unchanged.

        Raises:
            IllegalMoveError: ``action`` is not among :meth:`legal_actions`.
        """
        if type(action) is not int:
            check_action_type(action)
        if action not in self.legal_actions():
            raise IllegalMoveError(_illegal_reason(self, action))
        if action == ROLL:
            return dataclasses.replace(self, rolling=True)
        if action == HOLD:
            return self._end_turn(self.turn_total)
        face = action - FACE_OFFSET
        if face == 1:
            return self._end_turn(0)
        turn_total = self.turn_total + face
        if self.scores[self.player] + turn_total >= self.game.target:
            scores = _banked(self.scores, self.player, turn_total)
            outcome = _PLAYER0_WINS if self.player == 0 else _PLAYER1_WINS
            return dataclasses.replace(
                self, scores=scores, turn_total=0, rolling=False, outcome=outcome
            )
        return dataclasses.replace(self, turn_total=turn_total, rolling=False)

    def _end_turn(self, banked: int) -> PigState:
        scores = _banked(self.scores, self.player, banked)
        turns = self.turns + 1
        outcome = None
        if turns >= self.game.max_turns:
            if scores[0] > scores[1]:
                outcome = _PLAYER0_WINS
            elif scores[1] > scores[0]:
                outcome = _PLAYER1_WINS
            else:
                outcome = _NO_WINNER
        return PigState(self.game, scores, 0, 1 - self.player, False, turns, outcome)

    def __str__(self) -> str:
        return self.game.render(self)


def _banked(scores: tuple[int, int], player: int, points: int) -> tuple[int, int]:
    return (scores[0] + points, scores[1]) if player == 0 else (scores[0], scores[1] + points)


def _illegal_reason(state: PigState, action: object) -> str:
    if state.outcome is not None:
        return "the game is over"
    if state.rolling:
        return f"the die is in the air: only faces 2..7 (1..6) are legal, got {action!r}"
    if action == HOLD and state.turn_total == 0:
        return "cannot hold with a turn total of 0: roll first"
    return f"action {action!r} is not legal here (legal: {state.legal_actions()})"


class PigGame:
    """Pig to ``target`` points with at most ``max_turns`` turns (see the module docstring).

    Args:
        target: points that win (1 to :data:`MAX_TARGET`); 20 by default, small enough for
            fast tests (the classic game plays to 100).
        max_turns: turns (both players' together) after which the game ends on the banked
            scores (1 to :data:`MAX_TURNS`).

    Raises:
        InvalidParameterError: a parameter that is not an integer, too small or too large.
    """

    __slots__ = ("_initial", "max_turns", "spec", "target")

    def __init__(self, target: int = 20, max_turns: int = 100) -> None:
        self.target = _check_int("target", target, 1, MAX_TARGET)
        self.max_turns = _check_int("max_turns", max_turns, 1, MAX_TURNS)
        self.spec = GameSpec(
            name="pig",
            num_players=2,
            num_actions=NUM_ACTIONS,
            max_length=self.max_turns * 2 * math.ceil(self.target / 2),
            is_deterministic=False,
            explicit_chance=True,  # the die is a chance state; play() never draws
            player_names=PLAYER_NAMES,
        )
        self._initial = PigState(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PigGame):
            return NotImplemented
        return (self.target, self.max_turns) == (other.target, other.max_turns)

    def __hash__(self) -> int:
        return hash((PigGame, self.target, self.max_turns))

    def __reduce__(self) -> tuple[type[PigGame], tuple[int, int]]:
        return (PigGame, (self.target, self.max_turns))

    def __repr__(self) -> str:
        return f"PigGame(target={self.target}, max_turns={self.max_turns})"

    def initial_state(self) -> PigState:
        """Scores 0 to 0, player 0 to roll."""
        return self._initial

    def state(
        self,
        scores: tuple[int, int] = (0, 0),
        turn_total: int = 0,
        player: int = 0,
        *,
        rolling: bool = False,
        turns: int = 0,
    ) -> PigState:
        """A running position built from its parts (for analysis and tests).

        Raises:
            InvalidParameterError: negative numbers, a player other than 0 or 1, a score plus
                turn total at or beyond the target, ``turns >= max_turns``, or a turn total
                of 1 (no roll sequence gives it: a 1 ends the turn).
        """
        checked = (("score", scores[0]), ("score", scores[1]), ("turn_total", turn_total))
        for name, value in (*checked, ("turns", turns)):
            _check_int(name, value, 0)
        if player not in (0, 1) or isinstance(player, bool):
            raise InvalidParameterError(f"player must be 0 or 1, got {player!r}")
        if turn_total == 1:
            raise InvalidParameterError("a turn total of 1 cannot happen (a 1 ends the turn)")
        if max(scores) >= self.target or scores[player] + turn_total >= self.target:
            raise InvalidParameterError(
                f"scores {scores} with turn total {turn_total} have already reached the "
                f"target {self.target}"
            )
        if turns >= self.max_turns:
            raise InvalidParameterError(
                f"turns must be below max_turns={self.max_turns}, got {turns}"
            )
        return PigState(self, (scores[0], scores[1]), turn_total, player, rolling, turns)

    def action_to_string(self, state: GameState, action: int) -> str:
        """``"roll"``, ``"hold"``, or the die face ``"1"``..``"6"`` of a chance action."""
        if action == ROLL:
            return "roll"
        if action == HOLD:
            return "hold"
        if action in _FACE_ACTIONS and not isinstance(action, bool):
            return str(action - FACE_OFFSET)
        raise IllegalMoveError(f"no Pig action has id {action!r}")

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse ``roll``/``r``, ``hold``/``h`` (any case) or a die face ``1``..``6``.

        Raises:
            MoveParseError: none of these.
            IllegalMoveError: well-formed but not legal in ``state`` (a face while a player
                is to move, roll or hold while the die is in the air, hold with a zero turn
                total, a finished game).
        """
        own = self._own(state)
        word = text.strip().lower()
        action = _WORDS.get(word)
        if action is None:
            if word.isdigit() and len(word) == 1 and 1 <= int(word) <= NUM_FACES:
                action = face_action(int(word))
            else:
                raise MoveParseError(
                    f"cannot read move {text!r}: write roll or hold (r/h), or a die face 1-6"
                )
        if action not in own.legal_actions():
            raise IllegalMoveError(_illegal_reason(own, action))
        return action

    def render(self, state: GameState) -> str:
        """Scores, turn total, whose turn and the turn count, as text."""
        own = self._own(state)
        names = PLAYER_NAMES
        width = max(len(name) for name in names)
        lines = [f"Pig to {self.target} (turn {own.turns + 1} of at most {self.max_turns})"]
        lines += [f"{names[p].ljust(width)}  {own.scores[p]:>3}" for p in (0, 1)]
        if own.outcome is not None:
            if own.outcome == _NO_WINNER:
                lines.append("game over: a draw")
            else:
                lines.append(f"game over: {names[0 if own.outcome[0] > 0 else 1]} wins")
        else:
            doing = "rolling the die" if own.rolling else "to move"
            lines.append(f"{names[own.player]} {doing}, turn total {own.turn_total}")
        return "\n".join(lines)

    def _own(self, state: GameState) -> PigState:
        if not isinstance(state, PigState) or state.game != self:
            raise GameError(f"{state!r} is not a position of {self!r}")
        return state


__all__ = [
    "FACE_OFFSET",
    "FACE_PROBABILITY",
    "HOLD",
    "NUM_ACTIONS",
    "PLAYER_NAMES",
    "ROLL",
    "PigGame",
    "PigState",
    "face_action",
]
