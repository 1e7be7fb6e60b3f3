"""Seed 002's reset/step environment searched through ``playout.games.from_env``, and the
check that a value function returns one number."""

from __future__ import annotations

import numpy as np
import pytest

import playout
from playout import GameError, IllegalMoveError, InvalidParameterError, MoveParseError
from playout.games import BanditTreeGame, from_env
from playout.games.env import EnvGame, EnvState


class BanditEnvironment:
    """Seed 002's environment, copied verbatim (only the docstring drawing is left out)."""

    def __init__(self):
        self.tree = {0: [1, 2], 1: [3, 4], 2: [5, 6], 3: [], 4: [], 5: [], 6: []}
        self.current_state = np.array(0)

    def reset(self):
        self.current_state = np.array(0)
        return self.current_state

    def set_state(self, state):
        assert state in [0, 1, 2, 3, 4, 5, 6]
        self.current_state = state

    def step(self, action):
        if self.current_state in [3, 4, 5, 6]:
            return self.current_state, 0, True

        if action < 0 or action >= len(self.tree[int(self.current_state)]):
            raise ValueError("Invalid action")

        self.current_state = self.tree[int(self.current_state)][action]

        done = self.current_state in [3, 4, 5, 6]
        reward = 1 if self.current_state == 6 else 0

        return self.current_state, reward, done

    def render(self):
        print(f"Current state: {self.current_state}")

    @staticmethod
    def get_future_value(state):
        if state == 2:
            return 0.5
        elif state == 6:
            return 1
        else:
            return 0


def bandit_game(**options: object) -> EnvGame:
    return from_env(
        BanditEnvironment,
        num_actions=2,
        max_length=2,
        min_return=0.0,
        max_return=1.0,
        name="seed002",
        **options,  # type: ignore[arg-type]
    )


def future_value(state: EnvState) -> float:
    """Seed 002's value function on the observation (the node number)."""
    return BanditEnvironment.get_future_value(state.observation)


@pytest.mark.parametrize("restore", ["deepcopy", "replay"])
def test_spec_transitions_and_rewards(restore: str) -> None:
    game = bandit_game(restore=restore)
    spec = game.spec
    assert (spec.num_players, spec.num_actions, spec.max_length) == (1, 2, 2)
    assert spec.has_intermediate_rewards and not spec.is_zero_sum and spec.is_deterministic
    root = game.initial_state()
    assert (int(root.observation), root.returns(), root.legal_actions()) == (0, (0.0,), (0, 1))
    right = root.play(1)
    assert int(right.observation) == 2 and right.returns() == (0.0,)
    best = right.play(1)
    assert best.observation == 6 and best.returns() == (1.0,) and best.is_terminal()
    assert best.current_player() == playout.TERMINAL and best.legal_actions() == ()
    assert right.play(0).returns() == (0.0,) and right.play(0).is_terminal()
    assert int(root.observation) == 0 and int(right.observation) == 2  # nothing changed
    assert root.play(1).play(1) == best and hash(root.play(1).play(1)) == hash(best)
    report = playout.check_game(game, num_games=40, seed=2)
    assert report.max_length_seen == 2
    assert report.mean_returns[0] == pytest.approx(0.25, abs=0.15)


@pytest.mark.parametrize("restore", ["deepcopy", "replay"])
def test_seed002_optimal_path_through_the_adapter(restore: str) -> None:
    game = bandit_game(restore=restore)
    for evaluator in (None, playout.ValueFunction(future_value)):
        result = playout.search(game.initial_state(), simulations=200, seed=3, evaluator=evaluator)
        assert result.pv == (1, 1)  # 0 -> 2 -> 6
        assert result.best_action == 1
        values = result.action_values()
        assert values[1] > values[0]
    # The same numbers as the built-in bandit tree, seed for seed.
    native = playout.search(BanditTreeGame().initial_state(), simulations=200, seed=3)
    adapted = playout.search(game.initial_state(), simulations=200, seed=3)
    assert (adapted.visit_counts, adapted.values, adapted.value) == (
        native.visit_counts,
        native.values,
        native.value,
    )


def test_seed002_value_function_at_depth_one() -> None:
    """Seed 002's setting: a tree one step deep, leaves valued by ``get_future_value``
    (node 1: 0, node 2: 0.5); the values are the future reward for the player to move."""
    game = bandit_game()
    engine = playout.MCTS(
        game.initial_state(),
        evaluator=playout.ValueFunction(future_value),
        budget=playout.Budget(simulations=50, max_depth=1),
        solver=False,
        seed=0,
    )
    result = engine.run()
    assert result.best_action == 1
    assert result.action_values() == {0: 0.0, 1: 0.5}


def test_max_length_cuts_an_episode_off() -> None:
    game = from_env(BanditEnvironment, num_actions=2, max_length=1)
    child = game.initial_state().play(1)
    assert child.is_terminal() and not child.done
    assert playout.check_game(game, num_games=5).max_length_seen == 1


def test_legal_actions_callback_and_errors() -> None:
    game = from_env(BanditEnvironment, num_actions=2, max_length=2, legal_actions=lambda obs: [1])
    root = game.initial_state()
    assert root.legal_actions() == (1,)
    with pytest.raises(IllegalMoveError, match="not legal"):
        root.play(0)
    with pytest.raises(IllegalMoveError, match="not legal"):
        game.string_to_action(root, "0")
    with pytest.raises(MoveParseError):
        game.string_to_action(root, "left")
    assert game.string_to_action(root, " 1 ") == 1
    assert game.action_to_string(root, 1) == "1"
    end = root.play(1).play(1)
    with pytest.raises(IllegalMoveError, match="over"):
        end.play(1)
    assert "reward 1, step 2 (episode over)" in game.render(end)
    with pytest.raises(GameError):
        game.render(BanditTreeGame().initial_state())


@pytest.mark.parametrize(
    "options",
    [
        {"num_actions": 0, "max_length": 2},
        {"num_actions": 2, "max_length": 0},
        {"num_actions": 2.0, "max_length": 2},
        {"num_actions": 2, "max_length": 2, "restore": "pickle"},
        {"num_actions": 2, "max_length": 2, "min_return": 1.0, "max_return": 0.0},
    ],
)
def test_bad_options(options: dict[str, object]) -> None:
    with pytest.raises((InvalidParameterError, GameError)):
        from_env(BanditEnvironment, **options)  # type: ignore[arg-type]


def test_a_step_that_returns_no_tuple_is_a_game_error() -> None:
    class Broken(BanditEnvironment):
        def step(self, action):  # type: ignore[no-untyped-def]
            return 3

    game = from_env(Broken, num_actions=2, max_length=2)
    with pytest.raises(GameError, match=r"\(observation, reward, done"):
        game.initial_state().play(0)


# ------------------------------------------------------------------------- ValueFunction check


@pytest.mark.parametrize(
    "returned",
    [None, "0.5", True, np.array([0.5, 0.5]), np.zeros((0,)), [0.5], float("nan"), np.array(["x"])],
)
def test_value_function_must_return_one_number(returned: object) -> None:
    evaluator = playout.ValueFunction(lambda state: returned)
    state = BanditTreeGame().initial_state()
    with pytest.raises(InvalidParameterError, match="value function"):
        evaluator.evaluate(state, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"one number|finite"):
        playout.search(state, simulations=5, seed=0, evaluator=evaluator)


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        (1, 1.0),
        (0.25, 0.25),
        (np.float32(0.5), 0.5),
        (np.int64(-1), -1.0),
        (np.array(0.75), 0.75),
        (np.array([[0.5]]), 0.5),
    ],
)
def test_value_function_accepts_numbers(returned: object, expected: float) -> None:
    evaluator = playout.ValueFunction(lambda state: returned)
    assert evaluator.evaluate(BanditTreeGame().initial_state(), None) == expected  # type: ignore[arg-type]
