"""Seed-000-style games whose ``transition()`` draws at random (seed 003's random events,
handled by recomputing states): ``from_seed_state(..., deterministic=False)``."""

from __future__ import annotations

import random

import pytest

import playout
from playout.games import from_seed_state
from playout.games.seed import SeedMCTS, SeedState

TARGET = 12


class Move:
    """A seed-style action: ``"step"`` (+1 for sure) or ``"roll"`` (+ a die, 1..6)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name


STEP, ROLL = Move("step"), Move("roll")


class DiceRace:
    """Seed-style race to ``TARGET``, seen from the player to move: ``mine`` and ``theirs``
    are the two runners' positions. ``transition`` throws the die itself, with ``rng``."""

    def __init__(self, mine: int, theirs: int, rng: random.Random) -> None:
        self.mine, self.theirs, self.rng = mine, theirs, rng

    def get_winner(self) -> int | None:
        return -1 if self.theirs >= TARGET else None  # the last mover got home

    def get_possible_actions(self) -> list[Move]:
        return [STEP, ROLL]

    def transition(self, action: Move) -> DiceRace:
        gain = 1 if action == STEP else self.rng.randint(1, 6)
        return DiceRace(self.theirs, self.mine + gain, self.rng)  # the next player's view


class FixedRace(DiceRace):
    """:class:`DiceRace` over a fixed number of moves: the game ends after ``2 * ROUNDS``
    moves and the runner further ahead wins (equal is a draw). Only the positions are random;
    whether a state is terminal depends on the number of moves alone."""

    ROUNDS = 5

    def __init__(self, mine: int, theirs: int, rng: random.Random, moves: int = 0) -> None:
        super().__init__(mine, theirs, rng)
        self.moves = moves

    def get_winner(self) -> int | None:
        if self.moves < 2 * self.ROUNDS:
            return None
        return (self.mine > self.theirs) - (self.mine < self.theirs)

    def transition(self, action: Move) -> FixedRace:
        gain = 1 if action == STEP else self.rng.randint(1, 6)
        return FixedRace(self.theirs, self.mine + gain, self.rng, self.moves + 1)


def test_the_flag_declares_the_game_non_deterministic() -> None:
    rng = random.Random(0)
    game = from_seed_state(DiceRace(0, 0, rng), deterministic=False)
    assert game.spec.is_deterministic is False
    assert from_seed_state(DiceRace(0, 0, rng)).spec.is_deterministic is True
    assert type(game.initial_state()) is SeedState  # identity: replays may differ
    playout.check_game(game, num_games=30, seed=1)
    engine = playout.MCTS(game.initial_state(), budget=playout.Budget(simulations=10), seed=0)
    assert engine.config.solver is False  # the solver is off by default for such a game
    with pytest.raises(playout.InvalidParameterError):
        from_seed_state(DiceRace(0, 0, rng), deterministic="no")  # type: ignore[arg-type]


def test_search_recomputing_states_gives_sane_statistics() -> None:
    """From the start the die (3.5 on average) beats a sure step of 1; states are recomputed
    by replaying actions (``store_states=False``), so every visit throws the dice again.

    The tree is kept 4 moves deep (the game lasts 10), so every simulation ends on a replayed,
    freshly thrown state evaluated by a rollout."""
    game = from_seed_state(FixedRace(0, 0, random.Random(7)), deterministic=False)
    engine = playout.MCTS(
        game.initial_state(),
        budget=playout.Budget(simulations=1500, max_depth=4),
        seed=3,
        store_states=False,
    )
    result = engine.run()
    roll, step = game.find_id(ROLL), game.find_id(STEP)
    assert set(result.actions) == {roll, step}
    assert sum(result.visit_counts) == result.total_simulations == 1500
    assert result.proven is None
    assert all(-1.0 <= v <= 1.0 for v in result.values)
    assert result.best_action == roll
    assert result.visit_counts[result.actions.index(roll)] > 0.8 * 1500
    values = result.action_values()
    assert values[roll] > values[step] + 0.1
    assert abs(result.value) < 0.15  # both runners start level: about even
    assert result.max_depth == 4
    assert result.nodes <= 31  # within a binary tree 4 moves deep: 1 + 2 + 4 + 8 + 16


def test_seed_facade_with_random_transitions() -> None:
    mcts = SeedMCTS(
        FixedRace(0, 0, random.Random(5)),
        1.4,
        400,
        seed=1,
        deterministic=False,
        store_states=False,
        max_depth=3,
    )
    assert mcts.game.spec.is_deterministic is False
    assert mcts.decide(advance=False) == ROLL


def test_a_random_outcome_near_the_end_is_resampled() -> None:
    """Two to go against one: a step loses for sure (the opponent then gets home with any
    move), a roll wins at once unless it shows a 1 (5/6 - 1/6 = 2/3 for the mover)."""
    game = from_seed_state(DiceRace(TARGET - 2, TARGET - 1, random.Random(11)), deterministic=False)
    engine = playout.MCTS(
        game.initial_state(),
        budget=playout.Budget(simulations=3000),
        seed=2,
        store_states=False,
    )
    values = engine.run().action_values()
    assert values[game.find_id(STEP)] == -1.0
    assert values[game.find_id(ROLL)] == pytest.approx(2 / 3, abs=0.1)


class RandomNim:
    """Seed-style Nim whose ``transition`` sometimes blows a stone away: take 1, 2 or 3
    (at most the pile); after a take, with probability 1/2 one more stone is lost. The last
    to take wins. The actions a pile allows depend on the random past."""

    def __init__(self, pile: int, rng: random.Random) -> None:
        self.pile, self.rng = pile, rng

    def get_winner(self) -> int | None:
        return -1 if self.pile == 0 else None

    def get_possible_actions(self) -> list[int]:
        return list(range(1, min(3, self.pile) + 1))

    def transition(self, action: int) -> RandomNim:
        pile = self.pile - action
        if pile > 0 and self.rng.random() < 0.5:
            pile -= 1
        return RandomNim(pile, self.rng)


def test_search_when_the_random_past_changes_the_legal_actions() -> None:
    game = from_seed_state(RandomNim(9, random.Random(3)), deterministic=False)
    engine = playout.MCTS(
        game.initial_state(),
        budget=playout.Budget(simulations=2000),
        seed=4,
        store_states=False,
    )
    result = engine.run()
    assert sum(result.visit_counts) == 2000
    assert all(-1.0 <= v <= 1.0 for v in result.values)


# ------------------------------------------------------------------ open-loop edge cases


class Turns:
    """Seed-style: rolling keeps the turn with probability 1/2, so the same actions can
    leave either player to move; six moves, the player with more points wins."""

    def __init__(self, me: int, you: int, moves: int, rng: random.Random) -> None:
        self.me, self.you, self.moves, self.rng = me, you, moves, rng

    def get_winner(self) -> int | None:
        if self.moves < 6:
            return None
        return (self.me > self.you) - (self.me < self.you)

    def get_possible_actions(self) -> list[Move]:
        return [STEP, ROLL]

    def transition(self, action: Move) -> Turns:
        if action == ROLL and self.rng.random() < 0.5:
            return Turns(self.me + 1, self.you, self.moves + 1, self.rng)  # again
        return Turns(self.you, self.me, self.moves + 1, self.rng)


def test_open_loop_keeps_the_mover_of_each_replay_and_starts_afresh_on_advance() -> None:
    game = from_seed_state(Turns(0, 0, 0, random.Random(1)), deterministic=False)
    for seed in range(10):
        engine = playout.MCTS(game.initial_state(), seed=seed, store_states=False, backend="python")
        engine.run(playout.Budget(simulations=200))
        engine.advance(game.find_id(ROLL))
        result = engine.result()
        assert result.player == engine.root_state.current_player()
        assert result.total_simulations == 0  # nothing kept: the tree was of other replays


class Wide:
    """Seed-style, 300 actions (more than the engine reserves by default), random gains."""

    def __init__(self, depth: int, score: float, rng: random.Random) -> None:
        self.depth, self.score, self.rng = depth, score, rng

    def get_winner(self) -> int | None:
        return None if self.depth < 4 else (1 if self.score > 0.3 else -1)

    def get_possible_actions(self) -> list[int]:
        return list(range(300))

    def transition(self, action: int) -> Wide:
        gain = self.rng.random() * (action % 3) / 8
        return Wide(self.depth + 1, -(self.score + gain), self.rng)


def test_open_loop_makes_room_for_wide_nodes() -> None:
    game = from_seed_state(Wide(0, 0.0, random.Random(2)), deterministic=False)
    engine = playout.MCTS(game.initial_state(), seed=0, store_states=False, backend="python")
    result = engine.run(playout.Budget(simulations=600))
    tree = engine.tree
    assert result.simulations == 600
    assert tree.num_edges <= tree.edge_capacity and tree.num_nodes <= tree.node_capacity
