"""A catalogue of broken games, evaluators and rules: the search raises a typed error naming
the broken rule instead of giving a confident wrong answer (``SearchConfig.checks``)."""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from typing import Any

import numpy as np
import pytest

import playout
from playout import GameError, GameSpec, InvalidParameterError, PlayoutWarning


class RaceGame:
    """Two players add 1 or 2 to a counter in turn; whoever brings it to ``TARGET`` or more
    wins. Subclasses of :class:`Race` break one promise each."""

    TARGET = 6

    def __init__(self, state_class: type[Race], **spec_changes: Any) -> None:
        fields: dict[str, Any] = {
            "name": "race",
            "num_players": 2,
            "num_actions": 2,
            "max_length": self.TARGET,
        }
        fields.update(spec_changes)
        self.spec = GameSpec(**fields)
        self.state_class = state_class

    def initial_state(self) -> Race:
        return self.state_class(self, 0, 0)

    def action_to_string(self, state: Race, action: int) -> str:
        return f"+{action + 1}"

    def string_to_action(self, state: Race, text: str) -> int:
        return int(text.lstrip("+")) - 1


@dataclasses.dataclass(frozen=True, eq=False)
class Race:
    game: Any
    total: int
    mover: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Race) and (self.total, self.mover) == (other.total, other.mover)

    def __hash__(self) -> int:
        return hash((self.total, self.mover))

    def current_player(self) -> int:
        return playout.TERMINAL if self.is_terminal() else self.mover

    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (0, 1)

    def is_terminal(self) -> bool:
        return self.total >= RaceGame.TARGET

    def play(self, action: int) -> Any:
        return type(self)(self.game, self.total + action + 1, 1 - self.mover)

    def returns(self) -> Any:
        if not self.is_terminal():
            return (0.0, 0.0)
        winner = 1 - self.mover  # the player who moved last
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


class InPlace(Race):
    def play(self, action: int) -> Any:
        object.__setattr__(self, "total", self.total + action + 1)
        object.__setattr__(self, "mover", 1 - self.mover)
        return self


class ReturnsNone(Race):
    def play(self, action: int) -> Any:
        return None


class ShortReturns(Race):
    def returns(self) -> Any:
        return super().returns()[:1]


class EmptyReturns(Race):
    def returns(self) -> Any:
        return ()


class NotZeroSum(Race):
    def returns(self) -> Any:
        return (1.0, 1.0) if self.is_terminal() else (0.0, 0.0)


class NaNReturns(Race):
    def returns(self) -> Any:
        return (math.nan, math.nan) if self.is_terminal() else (0.0, 0.0)


class OutOfRange(Race):
    def returns(self) -> Any:
        return tuple(3 * r for r in super().returns())


class BigActionIds(Race):
    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (0, 7)

    def play(self, action: int) -> Any:
        return super().play(min(action, 1))


class DuplicateActions(Race):
    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (0, 1, 1)


class NegativeAction(Race):
    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (-1, 1)

    def play(self, action: int) -> Any:
        return super().play(max(action, 0))


class FloatActions(Race):
    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (0, 1.5)

    def play(self, action: Any) -> Any:
        return super().play(int(action))


class BoolActions(Race):
    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (0, True)

    def play(self, action: Any) -> Any:
        return super().play(int(action))


class NumpyBoolActions(Race):
    def legal_actions(self) -> Any:
        return np.array([]) if self.is_terminal() else np.array([False, True])

    def play(self, action: Any) -> Any:
        return super().play(int(action))


class NumpyIntActions(Race):
    """A correct game whose legal actions are an unsigned numpy array."""

    def legal_actions(self) -> Any:
        return np.array([], np.uint8) if self.is_terminal() else np.array([0, 1], np.uint8)


class GeneratorActions(Race):
    def legal_actions(self) -> Any:
        return (a for a in (() if self.is_terminal() else (0, 1)))


class HugeActions(Race):
    def legal_actions(self) -> tuple[Any, ...]:
        return () if self.is_terminal() else (0, 2**70)

    def play(self, action: int) -> Any:
        return super().play(min(action, 1))


class HugeUnsignedActions(Race):
    def legal_actions(self) -> Any:
        if self.is_terminal():
            return np.array([], np.uint64)
        return np.array([0, 2**63 + 5], np.uint64)

    def play(self, action: Any) -> Any:
        return super().play(min(int(action), 1))


class PlayerFive(Race):
    def current_player(self) -> int:
        return playout.TERMINAL if self.is_terminal() else 5


CATALOGUE = [
    (InPlace, "play\\(\\) returned the same object"),
    (ReturnsNone, "play\\(\\) must return the next state"),
    (ShortReturns, "returns\\(\\) gave 1 values for a 2-player game"),
    (EmptyReturns, "returns\\(\\) gave 0 values"),
    (NotZeroSum, "do not sum to 0"),
    (NaNReturns, "non-finite"),
    (OutOfRange, "outside the declared"),
    (BigActionIds, "not below the declared num_actions=2"),
    (DuplicateActions, "lists an action twice"),
    (NegativeAction, "is negative"),
    (FloatActions, "must return action ids"),
    (BoolActions, "must return action ids \\(whole numbers\\), got True"),
    (NumpyBoolActions, "must return action ids \\(whole numbers\\), got np.False_"),
    (PlayerFive, "returned 5, not a player"),
    (GeneratorActions, "must return a sequence of action ids, got generator"),
    (HugeActions, f"legal action id {2**70} is too large for an int64"),
    (HugeUnsignedActions, f"legal action id {2**63 + 5} is too large for an int64"),
]


@pytest.mark.parametrize(("state_class", "message"), CATALOGUE)
def test_a_broken_game_gets_a_typed_error_naming_the_rule(
    state_class: type[Race], message: str
) -> None:
    state = RaceGame(state_class).initial_state()
    with pytest.raises(GameError, match=message):
        playout.search(state, simulations=200, seed=0)


def test_numpy_integer_actions_are_taken_as_they_are() -> None:
    # The checks take a 1-D integer array without looking at each action: the search and its
    # answer are those of the same game listing its actions as a tuple.
    as_array = playout.search(RaceGame(NumpyIntActions).initial_state(), simulations=200, seed=0)
    as_tuple = playout.search(RaceGame(Race).initial_state(), simulations=200, seed=0)
    assert as_array.best_action == as_tuple.best_action
    assert as_array.visit_counts == as_tuple.visit_counts
    assert as_array.value == as_tuple.value


def test_the_caller_state_is_never_changed_silently() -> None:
    state = RaceGame(InPlace).initial_state()
    with pytest.raises(GameError):
        playout.search(state, simulations=200, seed=0)


def test_the_checks_can_be_turned_off_for_a_trusted_game() -> None:
    state = RaceGame(Race).initial_state()
    checked = playout.search(state, simulations=500, seed=1)
    unchecked = playout.search(state, simulations=500, seed=1, checks=False)
    assert checked == dataclasses.replace(unchecked, seconds=checked.seconds)
    # Off, a broken game is not caught (that is the cost of the option):
    playout.search(RaceGame(NotZeroSum).initial_state(), simulations=50, seed=1, checks=False)


def test_a_correct_game_passes_the_checks_and_the_conformance_checker() -> None:
    game = RaceGame(Race)
    playout.check_game(game, num_games=50, seed=0)
    # 6 to go in steps of 1 or 2: whoever leaves a multiple of 3 wins, so the first player
    # loses; with 5 to go the mover wins by adding 2.
    assert playout.search(game.initial_state(), simulations=3000, seed=2).proven == "loss"
    result = playout.search(Race(game, 1, 0), simulations=3000, seed=2)
    assert result.proven == "win" and result.best_action == 1


# ------------------------------------------------------------------ evaluators and rules


@pytest.mark.parametrize(
    ("value", "message"),
    [(math.nan, "finite"), (math.inf, "finite"), (2.5, "outside the game's values")],
)
def test_a_value_function_must_return_a_finite_value_in_range(value: float, message: str) -> None:
    state = RaceGame(Race).initial_state()
    with pytest.raises(InvalidParameterError, match=message):
        playout.search(
            state, simulations=50, seed=0, evaluator=playout.ValueFunction(lambda s: value)
        )


def test_evaluators_refuse_what_is_not_callable_when_built() -> None:
    with pytest.raises(InvalidParameterError, match="callable fn"):
        playout.ValueFunction(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="policy must be None or a callable"):
        playout.Rollout(policy=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="heuristic must be None or a callable"):
        playout.Rollout(max_depth=3, heuristic=0.5)  # type: ignore[arg-type]


class BadPriors:
    """An evaluator whose priors have the wrong length (or are not finite)."""

    def __init__(self, priors: list[float]) -> None:
        self._priors = priors

    def evaluate(self, state: Any, rng: Any) -> float:
        return 0.0

    def priors(self, state: Any, actions: Any) -> list[float]:
        return self._priors


@pytest.mark.parametrize(
    ("priors", "message"),
    [
        ([1.0], "1 values for 2 legal actions"),
        ([0.5, math.nan], "not finite numbers"),
        ([0.5, -0.1], "not finite numbers"),
    ],
)
def test_priors_must_fit_the_legal_actions(priors: list[float], message: str) -> None:
    state = RaceGame(Race).initial_state()
    with pytest.raises(InvalidParameterError, match=message):
        playout.search(
            state, simulations=50, seed=0, evaluator=BadPriors(priors), selection=playout.PUCT()
        )


class BadBatch:
    """A batch evaluator (the batched driver checks a whole batch at once) whose answer for
    the last state of each batch has ``priors`` and ``bad_value``; the root's priors, asked
    one by one, are good."""

    def __init__(self, priors: list[float], bad_value: object) -> None:
        self._priors = priors
        self._bad_value = bad_value

    def evaluate(self, state: Any, rng: Any) -> float:
        return 0.0

    def priors(self, state: Any, actions: Any) -> list[float]:
        return [1.0 / len(actions)] * len(actions)

    def evaluate_batch(self, states: Any, actions: Any) -> tuple[list[object], list[Any]]:
        values: list[object] = [0.0] * len(states)
        values[-1] = self._bad_value
        priors = [self.priors(s, a) for s, a in zip(states, actions, strict=True)]
        priors[-1] = self._priors
        return values, priors


@pytest.mark.parametrize(
    ("priors", "bad_value", "message"),
    [
        ([1.0], 0.0, "1 values for 2 legal actions"),
        ([0.5, math.nan], 0.0, "not finite numbers"),
        ([0.5, -0.1], 0.0, "not finite numbers"),
        ([0.5, 0.5], math.nan, "non-finite value"),
        ([0.5, 0.5], 1.5, "outside the game's values"),
        ([0.5, 0.5], "a", "must return a number"),
        ([0.5, 0.5], True, "must return a number"),
    ],
)
@pytest.mark.parametrize("leaf_batch", [1, 8])
def test_a_batch_evaluators_answers_are_checked_too(
    priors: list[float], bad_value: object, message: str, leaf_batch: int
) -> None:
    state = RaceGame(Race).initial_state()
    engine = playout.MCTS(
        state, simulations=50, seed=0, evaluator=BadBatch(priors, bad_value),
        selection=playout.PUCT(), leaf_batch=leaf_batch,
    )  # fmt: skip
    assert engine.backend == "batched"
    with pytest.raises(InvalidParameterError, match=message):
        engine.run()


@pytest.mark.parametrize(
    "priors",
    [0.5, None, np.array(0.5), np.full((2, 1), 0.5), [[0.5], [0.5]]],
    ids=["number", "None", "0-d array", "column", "nested list"],
)
@pytest.mark.parametrize("leaf_batch", [1, 8])
def test_a_batch_evaluators_prior_rows_that_are_not_one_per_action_are_typed_errors(
    priors: object, leaf_batch: int
) -> None:
    """A row of priors that is not a flat sequence (a number, None, a column) is the same
    InvalidParameterError as one of the wrong length, not a TypeError or ValueError."""
    state = RaceGame(Race).initial_state()
    engine = playout.MCTS(
        state, simulations=50, seed=0, evaluator=BadBatch(priors, 0.0),  # type: ignore[arg-type]
        selection=playout.PUCT(), leaf_batch=leaf_batch,
    )  # fmt: skip
    with pytest.raises(InvalidParameterError, match="one per action expected"):
        engine.run()


class PaddedBatch(BadBatch):
    """Answers for a batch padded to a fixed size (a compiled network's batch): the values
    past the states' are garbage."""

    def evaluate_batch(self, states: Any, actions: Any) -> tuple[list[object], list[Any]]:
        values, priors = super().evaluate_batch(states, actions)
        return [*values, math.nan, 7.0], priors


@pytest.mark.parametrize(
    ("bad_value", "message"),
    [(math.nan, "non-finite value"), (1.5, "outside the game's values"), (True, "a number")],
)
def test_a_gumbel_roots_batch_value_is_checked_as_the_leaves_are(
    bad_value: object, message: str
) -> None:
    """Gumbel search values its root with one batch call: the same checks as the leaves'."""
    state = RaceGame(Race).initial_state()
    with pytest.raises(InvalidParameterError, match=message):
        playout.MCTS(
            state, simulations=16, seed=0, evaluator=BadBatch([0.5, 0.5], bad_value),
            gumbel=playout.Gumbel(considered=2),
        )  # fmt: skip


def test_a_batch_evaluators_values_past_its_states_are_not_read() -> None:
    state = RaceGame(Race).initial_state()
    results = [
        playout.MCTS(
            state, simulations=50, seed=0, evaluator=evaluator, selection=playout.PUCT(),
            leaf_batch=8,
        ).run()
        for evaluator in (PaddedBatch([0.5, 0.5], 0.0), BadBatch([0.5, 0.5], 0.0))
    ]  # fmt: skip
    assert results[0].visit_counts == results[1].visit_counts


@pytest.mark.parametrize("bad", ["value", "priors"])
def test_a_rejected_batch_leaves_the_tree_as_it_was(bad: str) -> None:
    """An evaluator's bad answer raises before the batch changes the tree: the virtual losses
    of its walks are taken back, nothing is pending, and the search can go on."""
    state = RaceGame(Race).initial_state()
    engine = playout.MCTS(
        state, seed=0, evaluator=BadBatch([0.5, 0.5], 0.0), selection=playout.PUCT(),
        leaf_batch=8,
    )  # fmt: skip
    engine.run(playout.Budget(simulations=20))
    driver: Any = engine.driver
    before = [a.copy() for a in engine.tree]
    states, actions = driver.select_leaves(8, 100)
    assert len(states) > 1
    values: list[float] = [0.0] * len(states)
    priors = [np.full(len(a), 1.0 / len(a)) for a in actions]
    if bad == "value":
        values[0] = math.nan
    else:
        priors[0] = np.array([0.5, -0.5])
    with pytest.raises(InvalidParameterError):
        driver.finish_leaves(values, priors)
    assert driver.pending == 0
    for old, new in zip(before, engine.tree, strict=True):
        assert np.array_equal(old, new[: len(old)])
    assert engine.run(playout.Budget(simulations=20)).simulations > 0


def test_a_broken_promise_met_by_a_batch_leaves_the_tree_as_it_was() -> None:
    """A leaf whose move breaks a promise raises from select_leaves with the virtual losses
    of all the batch's walks taken back and nothing pending."""
    state = RaceGame(ReturnsNone).initial_state()
    engine = playout.MCTS(
        state, seed=0, evaluator=BadBatch([0.5, 0.5], 0.0), selection=playout.PUCT(),
        leaf_batch=8,
    )  # fmt: skip
    driver: Any = engine.driver
    before = [a.copy() for a in engine.tree]
    with pytest.raises(GameError, match="must return the next state"):
        driver.select_leaves(8, 100)
    assert driver.pending == 0
    for old, new in zip(before, engine.tree, strict=True):
        assert np.array_equal(old, new[: len(old)])


def test_a_progressive_bias_heuristic_must_fit_the_legal_actions() -> None:
    state = RaceGame(Race).initial_state()
    rule = playout.ProgressiveBias(heuristic=lambda s, actions: np.zeros(len(actions) + 1))
    with pytest.raises(InvalidParameterError, match="values for 2 legal actions"):
        playout.search(state, simulations=50, seed=0, selection=rule)


@pytest.mark.parametrize("answer", [None, 0.0, 1.7, True, 9])
def test_a_python_rule_must_return_an_edge_index(answer: Any) -> None:
    state = RaceGame(Race).initial_state()
    with pytest.raises(InvalidParameterError, match="edge index"):
        playout.search(state, simulations=50, seed=0, selection=lambda stats: answer)


@pytest.mark.parametrize(
    "make",
    [
        lambda: playout.UCB1(c="x"),  # type: ignore[arg-type]
        lambda: playout.UCB1(c=None),  # type: ignore[arg-type]
        lambda: playout.PUCT(c=math.nan),
        lambda: playout.EpsilonGreedy(epsilon="0.1"),  # type: ignore[arg-type]
        lambda: playout.SearchConfig(temperature="1"),  # type: ignore[arg-type]
        lambda: playout.Budget(simulations=True),
        lambda: playout.SearchConfig(reuse="yes"),  # type: ignore[arg-type]
    ],
)
def test_bad_rule_and_budget_values_are_typed_errors(make: Any) -> None:
    with pytest.raises(InvalidParameterError):
        make()


# ------------------------------------------------------------------ games that may not end


class Forever(Race):
    """Adds 0 or 1: a game that can go on for ever (and declares no max_length)."""

    def play(self, action: int) -> Any:
        return type(self)(self.game, self.total + action * (self.total % 2), 1 - self.mover)


def test_a_game_without_max_length_honours_the_time_limit_and_warns() -> None:
    state = RaceGame(Forever, max_length=None).initial_state()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = playout.search(state, seconds=1.0, seed=0)
    assert time.perf_counter() - start < 10.0  # bounded; a rollout could run for ever before
    assert result.simulations > 0
    assert any(
        issubclass(w.category, PlayoutWarning) and "cut after" in str(w.message) for w in caught
    )
