"""``SelfPlaySettings(value_mix=...)``: the value target ``(1 - mix) * z + mix * q`` takes the
outcome ``z`` and the search value ``q`` both for the player to move at the position."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("torch")

import playout
from playout._src.game import value_for
from playout.games import tictactoe
from playout.zero.selfplay import (
    PlayoutCap,
    SelfPlaySettings,
    ZeroSearch,
    _finish,
    _play_move,
    _Slot,
)


@pytest.mark.parametrize("mix", [0.0, 0.5, 1.0])
def test_the_mixed_target_is_for_the_player_to_move(mix: float) -> None:
    # O (the second player) to move wins at once: z = +1 for O, and the search (solver off)
    # values the position above 0 for O, below 1: a sign slip in either term shows.
    game = tictactoe()
    state = game.from_grid([[1, 1, 0], [-1, -1, 0], [1, 0, 0]], to_move=-1)
    assert state.current_player() == 1
    engine = playout.MCTS(state, simulations=200, seed=0, solver=False)
    q = engine.run().value
    assert 0.0 < q < 1.0
    slot = _Slot(engine, None, 0)
    assert _play_move(slot, 9, 0, random.Random(0))
    record = _finish(slot, game, SelfPlaySettings(value_mix=mix, augment=False))
    assert record.outcome0 == -1.0  # player 0's return: O won
    expected = (1.0 - mix) * 1.0 + mix * q
    assert [example.value for example in record.examples] == pytest.approx([expected])


def test_a_random_move_is_drawn_from_the_legal_moves_with_the_runs_stream() -> None:
    game = tictactoe()
    state = game.from_grid([[1, 0, 0], [0, -1, 0], [0, 0, 0]], to_move=1)
    engine = playout.MCTS(state, simulations=50, seed=0)
    engine.run()
    slot = _Slot(engine, None, 0)
    _play_move(slot, 9, 0, random.Random(7), random_rate=1.0)
    replay = random.Random(7)
    assert replay.random() < 1.0
    drawn = replay.choice(list(state.legal_actions()))
    assert slot.moves == [drawn] and slot.random_moves == [0]
    # Rate 0 draws nothing from the stream: the search's move, as without the option.
    engine = playout.MCTS(state, simulations=50, seed=0)
    best = int(engine.run().best_action)
    slot, rng = _Slot(engine, None, 0), random.Random(7)
    _play_move(slot, 9, 0, rng, random_rate=0.0)
    assert slot.moves == [best] and slot.random_moves == []
    assert rng.random() == random.Random(7).random()


def test_positions_before_a_random_move_learn_the_search_value_alone() -> None:
    # A game from the empty board whose third move is random: the outcome is the target's
    # half only from the fourth position on; before, the target is the search's value q.
    game = tictactoe()
    engine = playout.MCTS(game.initial_state(), simulations=50, seed=1)
    slot, rng = _Slot(engine, None, 0), random.Random(5)
    over = False
    while not over:
        engine.run()
        over = _play_move(slot, 9, 0, rng, random_rate=1.0 if slot.plies == 2 else 0.0)
    assert slot.random_moves == [2] and len(slot.history) >= 5
    record = _finish(slot, game, SelfPlaySettings(value_mix=0.5, augment=False))
    assert len(record.examples) == len(slot.history)
    for index, ((state, _, q), example) in enumerate(
        zip(slot.history, record.examples, strict=True)
    ):
        z = record.outcome0 if state.current_player() == 0 else -record.outcome0
        want = q if index <= 2 else 0.5 * z + 0.5 * q
        assert example.value == pytest.approx(want)


def _game_with_a_random_move(seed: int, *, full: tuple[bool, ...] = ()) -> _Slot:
    """A tic-tac-toe game from the empty board whose third move is random (a seed where it
    differs from the search's); ``full[i]`` False: ply i's position is not recorded."""
    game = tictactoe()
    engine = playout.MCTS(game.initial_state(), simulations=50, seed=1)
    slot, rng = _Slot(engine, None, 0), random.Random(seed)
    over = False
    while not over:
        engine.run()
        slot.full = full[slot.plies] if slot.plies < len(full) else True
        over = _play_move(slot, 9, 0, rng, random_rate=1.0 if slot.plies == 2 else 0.0)
    return slot


def test_only_recorded_positions_count_and_a_random_reply_is_no_target() -> None:
    # Playout cap randomisation records some positions only: the rule follows the moves'
    # indices, not the recorded positions'. Positions 2 and 3 are not recorded here, and
    # position 1's reply is the random move.
    slot = _game_with_a_random_move(5, full=(True, True, False, False))
    assert slot.random_moves == [2] and slot.played[:3] == [0, 1, 4]
    game = tictactoe()
    settings = SelfPlaySettings(value_mix=0.5, augment=False, reply_targets=True)
    record = _finish(slot, game, settings)
    z0 = record.outcome0
    for (state, _, q), played, example in zip(
        slot.history, slot.played, record.examples, strict=True
    ):
        z = z0 if state.current_player() == 0 else -z0
        assert example.value == pytest.approx(q if played <= 2 else 0.5 * z + 0.5 * q)
        assert example.reply is not None
        if played + 1 == 2 or played + 1 == len(slot.moves):  # a random reply, or none
            assert example.reply.sum() == 0.0
        else:
            assert example.reply[slot.moves[played + 1]] == 1.0
    assert record.examples[1].reply is not None and record.examples[1].reply.sum() == 0.0
    assert record.examples[0].reply is not None and record.examples[0].reply.sum() == 1.0


def test_a_random_draw_of_the_searchs_own_move_is_no_deviation() -> None:
    game = tictactoe()
    state = game.from_grid([[1, 0, 0], [0, -1, 0], [0, 0, 0]], to_move=1)
    legal = list(state.legal_actions())
    best = int(playout.MCTS(state, simulations=50, seed=0).run().best_action)
    # A seed whose draw is the search's move.
    seed = next(s for s in range(1000) if _draw(s, legal) == best)
    engine = playout.MCTS(state, simulations=50, seed=0)
    engine.run()
    slot = _Slot(engine, None, 0)
    _play_move(slot, 9, 0, random.Random(seed), random_rate=1.0)
    assert slot.moves == [best] and slot.random_moves == []


def _draw(seed: int, legal: list[int]) -> int:
    rng = random.Random(seed)
    rng.random()
    return rng.choice(legal)


# ----------------------------------------------------------------------------- side games


class _Largest:
    """A network evaluator that keeps the largest batch it was given."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.largest = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def evaluate_batch(self, states: list, actions: list) -> object:
        self.largest = max(self.largest, len(states))
        return self.inner.evaluate_batch(states, actions)  # type: ignore[attr-defined]


def _side_games(rate: float, num_games: int = 12, cap: PlayoutCap | None = None) -> list:
    from playout.zero import Architecture, Model, NetworkEvaluator, self_play

    game = tictactoe()
    model = Model(game, Architecture(channels=8, blocks=1, value_hidden=8), seed=0)
    settings = SelfPlaySettings(
        search=ZeroSearch(simulations=8, leaf_batch=4), parallel_games=2, augment=False,
        fork_rate=rate, opening_moves=0, playout_cap=cap,
    )  # fmt: skip
    evaluator = _Largest(NetworkEvaluator(model))
    games = self_play(evaluator, game, num_games, settings, seed=5)  # type: ignore[arg-type]
    assert 0 < evaluator.largest <= 2 * 4  # parallel_games games of leaf_batch leaves at most
    return games


def test_side_games_start_where_a_random_other_move_leads_and_keep_their_outcome() -> None:
    """KataGo's forked side positions: with fork rate 1 every searched move forks one, and a
    call plays its 12 games and 12 side games (the forks past that dropped). A side game
    starts where a random other move than the one its game played leads: its moves up to
    there are its opening (no training positions), its positions learn its own outcome;
    the games it forked from are untouched (they replay as the searches chose)."""
    games = _side_games(1.0)
    fresh = [g for g in games if not g.side]
    side = [g for g in games if g.side]
    assert (len(fresh), len(side)) == (12, 12)
    assert all(g.opening == 0 for g in fresh) and all(g.opening > 0 for g in side)
    game = tictactoe()
    for record in games:
        state = game.initial_state()
        for move in record.moves:
            assert move in state.legal_actions()
            state = state.play(move)
        assert state.is_terminal()
        assert record.outcome0 == state.returns()[0]
        assert len(record.examples) == record.searched > 0
        searched = range(record.opening, len(record.moves))
        for example, move_index in zip(record.examples, searched, strict=True):
            replay = game.initial_state()
            for move in record.moves[:move_index]:
                replay = replay.play(move)
            assert example.value == value_for(replay.current_player(), record.outcome0)
    # A side game's opening is a prefix of another game's moves, but for its last move.
    for record in side:
        prefix = record.moves[: record.opening]
        assert any(
            tuple(other.moves[: len(prefix) - 1]) == tuple(prefix[:-1])
            and other.moves[len(prefix) - 1] != prefix[-1]
            for other in games
            if other is not record
        )


def test_under_a_playout_cap_forks_follow_full_searches_and_are_searched_fully() -> None:
    """As in KataGo: a side game is forked only where its game searched fully (the position
    it forks from is one of that game's recorded positions), and its own first position
    gets a full search, so it is recorded."""
    games = _side_games(1.0, num_games=16, cap=PlayoutCap(full_fraction=0.3, fast_simulations=2))
    side = [g for g in games if g.side]
    assert len(side) >= 4
    game = tictactoe()

    def observation(moves: tuple[int, ...]) -> np.ndarray:
        state = game.initial_state()
        for move in moves:
            state = state.play(move)
        return np.asarray(state.observation())  # type: ignore[attr-defined]

    for record in side:
        start, fork = record.moves[: record.opening], record.moves[: record.opening - 1]
        assert np.array_equal(record.examples[0].observation, observation(start))
        parents = [
            g for g in games
            if g.moves[: len(fork)] == fork and len(g.moves) > len(fork)
            and g.moves[len(fork)] != start[-1]
        ]  # fmt: skip
        assert any(
            np.array_equal(e.observation, observation(fork)) for p in parents for e in p.examples
        )


def test_without_a_fork_rate_no_game_is_forked() -> None:
    games = _side_games(0.0)
    assert len(games) == 12 and not any(g.side or g.opening for g in games)


def test_a_side_game_counts_its_plies_on_from_the_game_it_left() -> None:
    """The temperature's plies go on from the forking game's (the forking move counted), so a
    side game forked late is not sampled again from its first ply."""
    from playout.zero.selfplay import _side_game

    game = tictactoe()
    engine = playout.MCTS(game.initial_state().play(4), simulations=4, seed=0)
    slot = _Slot(engine, None, 0, plies=3, moves=[4])
    side = _side_game(slot, 0, 1.0, random.Random(1))
    assert side is not None
    assert side.plies == 4 and side.moves[0] == 4 and side.moves[1] != 0
    assert side.state == game.initial_state().play(4).play(side.moves[1])
    assert _side_game(slot, 0, 0.0, random.Random(1)) is None


def test_a_forking_move_is_drawn_as_katago_draws_it() -> None:
    """KataGo's ``chooseRandomForkingMove``: 70% from the policy at temperature 1, 25% at
    temperature 2, 5% uniformly, the played move never. With priors 0.64 / 0.32 / 0.04 on
    three moves (and 0 on a fourth) the first is drawn with probability
    0.70 * 0.64 + 0.25 * 0.8 / (0.8 + 0.566 + 0.2) + 0.05 / 4 = 0.588, the fourth only by
    the uniform draw (0.0125)."""
    from playout.zero.selfplay import FORK_DRAWS, _fork_move

    assert FORK_DRAWS == ((0.70, 1.0), (0.95, 2.0))
    priors = {0: 0.64, 1: 0.32, 2: 0.04, 3: 0.0, 4: 0.9}  # 4: the move played
    rng = random.Random(3)
    draws = [_fork_move([0, 1, 2, 3], priors, rng) for _ in range(20_000)]
    share = [draws.count(a) / len(draws) for a in range(5)]
    policy = (0.64, 0.32, 0.04)
    t2 = [p**0.5 for p in policy]
    expected = [0.70 * p + 0.25 * q / sum(t2) + 0.05 / 4 for p, q in zip(policy, t2, strict=True)]
    assert share[4] == 0.0
    for got, want in zip(share, [*expected, 0.05 / 4], strict=False):
        # Four binomial standard errors of each share: the fourth move's 0.0125 within
        # +-0.0031, so a uniform draw at half the rate fails.
        assert abs(got - want) < 4 * (want * (1 - want) / len(draws)) ** 0.5, (share, expected)
    # Without any prior mass on the candidates, the draw is uniform (4 standard errors: 28).
    flat = [_fork_move([5, 6], {}, random.Random(seed)) for seed in range(200)]
    assert abs(flat.count(5) - 100) < 28


def test_the_command_line_sets_the_fork_rate_and_the_weight_decay() -> None:
    from playout.cli.parser import build_parser
    from playout.cli.train import train_config

    argv = ["train", "connect4", "--out", "x", "--iterations", "1"]
    options = ["--fork-rate", "0.12", "--weight-decay", "0.01"]
    config = train_config(build_parser().parse_args([*argv, *options]))
    assert (config.fork_rate, config.weight_decay) == (0.12, 0.01)
    assert config.self_play().fork_rate == 0.12
    with pytest.raises(playout.InvalidParameterError, match="--fork-rate must be"):
        train_config(build_parser().parse_args([*argv, "--fork-rate", "1.5"]))
