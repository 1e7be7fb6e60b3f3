"""KataGo's general training tricks (Wu 2019, arXiv 1902.10565): playout cap randomisation,
forced playouts with policy-target pruning, checked against hand computations."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from playout import DirichletNoise, InvalidParameterError
from playout._src import forced
from playout.games import tictactoe

# ----------------------------------------------------------------------------- formulas


def test_forced_playouts_follow_wu_s_formula() -> None:
    # n_forced = sqrt(k P N): k = 2, N = 100: P = 0.5 -> 10, P = 0.08 -> 4, P = 0 -> 0.
    n = forced.forced_playouts(np.array([0.5, 0.08, 0.0, 0.42]), 100)
    assert n.tolist() == pytest.approx([10.0, 4.0, 0.0, math.sqrt(84)])
    assert forced.forced_playouts(np.array([0.5]), 100, k=8.0).tolist() == [20.0]


def test_pruning_by_hand() -> None:
    """Three children, N = 100, c = 1, sqrt(N) = 10.

    Best: a (80 visits, P 0.5, Q 0.5): PUCT = 0.5 + 1 * 0.5 * 10 / 81 = 0.56173.
    b (16 visits, P 0.32, Q 0.2): n_forced = sqrt(2 * 0.32 * 100) = 8. PUCT with n left:
    0.2 + 3.2 / (1 + n) < 0.56173 while 1 + n > 8.84, n >= 8: 8 taken, 8 left.
    c (4 visits, P 0.18, Q 0.0): n_forced = 6, capped by its 4 visits; PUCT with n left:
    1.8 / (1 + n) < 0.56173 while 1 + n > 3.2, n >= 3: one taken, 3 left.
    """
    visits = np.array([80, 16, 4])
    priors = np.array([0.5, 0.32, 0.18])
    values = np.array([0.5, 0.2, 0.0])
    assert forced.pruned_visits(visits, priors, values, c=1.0).tolist() == [80, 8, 3]


def test_pruning_drops_a_child_left_with_one_playout_and_keeps_the_best() -> None:
    # N = 50, sqrt(N) = 7.071; a: 0.9 + 0.5 * 7.071 / 46 = 0.977.
    # b: 3 visits, P 0.4, Q -1: n_forced = sqrt(40) = 6.3, capped by its 3 visits; PUCT
    # -1 + 2.828 / (1 + n) < 0.977 for n = 2 and 1, not 0: two taken, one left: pruned to 0.
    # c: 2 visits, P 0.1, Q 0.88: with one taken, 0.88 + 0.707 / 2 = 1.234 >= 0.977: none
    # taken, 2 left.
    visits = np.array([45, 3, 2])
    priors = np.array([0.5, 0.4, 0.1])
    values = np.array([0.9, -1.0, 0.88])
    assert forced.pruned_visits(visits, priors, values, c=1.0).tolist() == [45, 0, 2]
    assert forced.pruned_visits(np.zeros(3), priors, values, c=1.0).tolist() == [0, 0, 0]


def test_pruning_never_raises_a_count_and_keeps_the_most_visited() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        count = int(rng.integers(2, 8))
        visits = rng.integers(0, 50, count)
        priors = rng.dirichlet(np.ones(count))
        values = rng.uniform(-1, 1, count)
        pruned = forced.pruned_visits(visits, priors, values, c=float(rng.uniform(0.5, 3)))
        assert np.all(pruned <= visits)
        best = int(np.argmax(visits))
        assert pruned[best] == visits[best]
        assert np.all((pruned == 0) | (pruned >= 2) | (np.arange(count) == best))


def _root_with_children(visits: list[int], priors: list[float]) -> tuple[np.ndarray, ...]:
    """A root (node 0) expanded into children 1.. (one per edge, leaves)."""
    from playout._src.tree import layout as T

    tree = T.new_tree(8, 8)
    nodes, edges, edge_values = tree.nodes, tree.edges, tree.edge_values
    nodes[T.ROOT, T.N_FIRST_EDGE] = 0
    nodes[T.ROOT, T.N_NUM_EDGES] = len(visits)
    nodes[T.ROOT, T.N_VISITS] = sum(visits)
    for e, (n, p) in enumerate(zip(visits, priors, strict=True)):
        edges[e, T.E_ACTION] = e
        edges[e, T.E_CHILD] = e + 1 if n > 0 else T.UNVISITED
        edges[e, T.E_VISITS] = n
        edge_values[e, T.EV_PRIOR] = p
        nodes[e + 1, T.N_PLAYER] = 1
    return nodes, edges, edge_values


def test_the_forced_walk_takes_the_root_child_furthest_below_its_count() -> None:
    # N = 100: n_forced = 10 (P 0.5), 4 (P 0.08), 6 (P 0.18), 4.9 (P 0.12).
    # Child 0 has 60 (none short), 1 has 2 (2 short), 2 has 3 (3 short), 3 has 0 (unvisited:
    # never forced). The walk goes to child 2, then stops at that unexpanded leaf.
    nodes, edges, edge_values = _root_with_children([60, 2, 3, 0], [0.5, 0.08, 0.18, 0.12])
    nodes[0, 4] = 100  # N_VISITS
    assert forced.forced_root_edge(nodes, edges, edge_values, 2.0) == 2
    assert forced.forced_root_edge(nodes, edges, edge_values, 0.1) == -1  # all above
    edges[0, 2] = 5  # E_VISITS: child 0 now 5 short of its 10
    assert forced.forced_root_edge(nodes, edges, edge_values, 2.0) == 0
    edges[0, 2] = 60
    from playout._src.tree.selection import RULE_PUCT

    path = np.zeros(8, dtype=np.int64)
    rng = np.array([12345], dtype=np.uint64)
    params = np.array([1.0, 0.0, 0.0])
    node, edge, depth = forced.descend(
        nodes, edges, edge_values, RULE_PUCT, params, rng, 8, path, 2.0
    )
    assert (node, edge, depth, int(path[0])) == (3, -1, 1, 2)


# ----------------------------------------------------------------------------- self-play

torch = pytest.importorskip("torch")

from playout.zero import (  # noqa: E402
    Architecture,
    Model,
    NetworkEvaluator,
    PlayoutCap,
    SelfPlaySettings,
    TrainConfig,
    ZeroSearch,
    self_play,
)


def _settings(**changes: object) -> SelfPlaySettings:
    return SelfPlaySettings(
        search=ZeroSearch(simulations=16, c=1.0, leaf_batch=4),
        parallel_games=4,
        augment=False,
        **changes,  # type: ignore[arg-type]
    )


def _games(settings: SelfPlaySettings, num_games: int = 8) -> list:
    game = tictactoe()
    model = Model(game, Architecture(channels=8, blocks=1, value_hidden=8), seed=0)
    return self_play(NetworkEvaluator(model), game, num_games, settings, seed=3)


def test_playout_cap_records_only_full_search_positions() -> None:
    every = _games(_settings(playout_cap=PlayoutCap(full_fraction=1.0, fast_simulations=2)))
    assert all(len(g.examples) == len(g.moves) for g in every)
    some = _games(_settings(playout_cap=PlayoutCap(full_fraction=0.3, fast_simulations=2)))
    recorded = sum(len(g.examples) for g in some)
    played = sum(len(g.moves) for g in some)
    assert 0 < recorded < played
    assert all(len(g.examples) <= len(g.moves) for g in some)


def test_forced_playouts_in_self_play_give_pruned_targets() -> None:
    plain = _games(_settings())
    pruned = _games(_settings(forced_playouts=2.0))
    for games in (plain, pruned):
        for g in games:
            for example in g.examples:
                assert example.policy.sum() == pytest.approx(1.0, abs=1e-5)
    # Pruning zeroes children of one or two playouts that plain visit shares keep.
    zeros = [int((e.policy == 0).sum()) for g in pruned for e in g.examples]
    plain_zeros = [int((e.policy == 0).sum()) for g in plain for e in g.examples]
    assert sum(zeros) / len(zeros) > sum(plain_zeros) / len(plain_zeros)


def test_bad_settings_are_refused() -> None:
    from playout import Gumbel

    with pytest.raises(InvalidParameterError, match="full_fraction"):
        PlayoutCap(full_fraction=0.0)
    with pytest.raises(InvalidParameterError, match="fast_simulations"):
        PlayoutCap(fast_simulations=0)
    gumbel = ZeroSearch(simulations=16, gumbel=Gumbel(considered=4))
    with pytest.raises(InvalidParameterError, match="PUCT"):
        SelfPlaySettings(search=gumbel, playout_cap=PlayoutCap())
    with pytest.raises(InvalidParameterError, match="PUCT"):
        SelfPlaySettings(search=gumbel, forced_playouts=2.0)
    with pytest.raises(InvalidParameterError, match="forced_playouts"):
        SelfPlaySettings(forced_playouts=-1.0)
    with pytest.raises(InvalidParameterError, match="full_search_fraction"):
        TrainConfig(full_search_fraction=0.0)
    with pytest.raises(InvalidParameterError, match="full_search_fraction"):
        TrainConfig(full_search_fraction=0.5, gumbel=4)
    with pytest.raises(InvalidParameterError, match="forced_playouts"):
        TrainConfig(forced_playouts=2.0, gumbel=4)


def test_train_config_passes_the_tricks_to_self_play() -> None:
    config = TrainConfig(full_search_fraction=0.25, fast_simulations=10, forced_playouts=2.0)
    settings = config.self_play()
    assert settings.playout_cap == PlayoutCap(full_fraction=0.25, fast_simulations=10)
    assert settings.forced_playouts == 2.0
    assert TrainConfig().self_play().playout_cap is None
    assert TrainConfig().self_play().forced_playouts == 0.0


# ----------------------------------------------------------------------------- reply head


def test_reply_targets_are_the_opponent_s_next_move() -> None:
    games = _games(_settings(reply_targets=True), num_games=4)
    for g in games:
        assert len(g.examples) == len(g.moves)
        for i, example in enumerate(g.examples):
            assert example.reply is not None
            if i + 1 < len(g.moves):
                assert example.reply.tolist() == np.eye(9)[g.moves[i + 1]].tolist()
            else:
                assert example.reply.sum() == 0  # the game ended with this move
    assert all(e.reply is None for g in _games(_settings(), 2) for e in g.examples)


def test_symmetric_images_move_the_reply_target_too() -> None:
    from playout.zero.selfplay import symmetric_examples

    game = tictactoe()
    state = game.initial_state().play(0)
    policy = np.eye(9, dtype=np.float32)[4]
    reply = np.eye(9, dtype=np.float32)[2]
    examples = symmetric_examples(state, policy, 0.0, game, reply)
    perms = list(game.action_symmetries())
    assert len(examples) == len(perms)
    for example, perm in zip(examples, perms, strict=True):
        assert example.reply is not None and example.reply.sum() == 1
        assert int(np.argmax(example.reply)) == perm[2]
        assert int(np.argmax(example.policy)) == perm[4]


def test_reply_loss_by_hand() -> None:
    from playout.zero.train import reply_loss

    logits = torch.zeros((3, 4))
    logits[1, 2] = math.log(3.0)  # softmax: 3/6 on action 2, 1/6 on the others
    targets = torch.zeros((3, 4))
    targets[0, 1] = 1.0  # uniform: -log(1/4)
    targets[1, 2] = 1.0  # -log(1/2)
    # row 2 has no target: left out of the mean
    assert float(reply_loss(logits, targets)) == pytest.approx((math.log(4) + math.log(2)) / 2)
    assert float(reply_loss(logits, torch.zeros((3, 4)))) == 0.0


def test_networks_with_and_without_the_reply_head_load(tmp_path: object) -> None:
    from pathlib import Path

    from playout.games import Connect4Game
    from playout.zero import shipped_model_path

    game = Connect4Game()
    shipped = Model.load(shipped_model_path(game), game)  # saved before the head existed
    assert shipped.architecture.reply_head is False and shipped.net.reply is None
    small = Architecture(channels=8, blocks=1, value_hidden=8, reply_head=True)
    model = Model(game, small, seed=1)
    path = model.save(Path(str(tmp_path)) / "m.pt")
    loaded = Model.load(path, game)
    assert loaded.architecture == small and loaded.net.reply is not None
    x = torch.from_numpy(model.observations([game.initial_state()]))
    policy, value = loaded.net(x)
    again, value_again, reply = loaded.net.forward_training(x)
    assert torch.equal(policy, again) and torch.equal(value, value_again)
    assert reply.shape == policy.shape
    with pytest.raises(InvalidParameterError, match="reply_head"):
        Architecture(reply_head=1)  # type: ignore[arg-type]


def test_a_run_with_the_reply_head_trains_and_resumes(tmp_path: object) -> None:
    from pathlib import Path

    from playout.zero import Trainer

    out = Path(str(tmp_path))
    config = TrainConfig(
        games_per_iteration=4, parallel_games=4, simulations=4, steps_per_iteration=2,
        batch_size=16, eval_games=0, benchmark_positions=0,
        architecture=Architecture(channels=8, blocks=1, value_hidden=8, reply_head=True),
    )  # fmt: skip
    game = tictactoe()
    with Trainer(game, out, config, device="cpu") as trainer:
        (report,) = trainer.run(iterations=1, log=None)
        assert math.isfinite(report.policy_loss)
        replies = trainer.buffer.replies[: trainer.buffer.size].copy()
    # Every example but the games' last positions' has a reply target.
    assert 0 < int((replies.sum(axis=1) > 0).sum()) < len(replies)
    with Trainer(game, out, device="cpu") as resumed:
        assert resumed.model.net.reply is not None
        assert np.array_equal(resumed.buffer.replies[: resumed.buffer.size], replies)
        resumed.run(iterations=1, log=None)


def test_a_buffer_saved_without_reply_targets_loads(tmp_path: object) -> None:
    from pathlib import Path

    from playout.zero import ReplayBuffer

    path = Path(str(tmp_path)) / "buffer.npz"
    np.savez_compressed(
        path,
        observations=np.ones((2, 3, 3, 3), dtype=np.float32),
        policies=np.full((2, 9), 1 / 9, dtype=np.float32),
        values=np.zeros(2, dtype=np.float32),
        meta=np.array([2, 2], dtype=np.int64),
    )
    buffer = ReplayBuffer(10, (3, 3, 3), 9)
    buffer.load(path)
    assert buffer.size == 2 and not buffer.replies.any()


# ----------------------------------------------------------------------------- fast searches


def _noisy(**changes: object) -> SelfPlaySettings:
    noise = DirichletNoise(alpha=1.0, fraction=0.25)
    return SelfPlaySettings(
        search=ZeroSearch(simulations=16, c=1.0, leaf_batch=4, noise=noise),
        parallel_games=4,
        augment=False,
        **changes,  # type: ignore[arg-type]
    )


def test_fast_searches_get_no_root_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wu 2019: the playout cap's fast searches explore nothing. With every search full the
    root noise is mixed at every move; with every search fast (a full one once in 10^12)
    it is never mixed, the first move of a game included, and no position is recorded."""
    mixed: list[int] = []
    mix = DirichletNoise.mix

    def spy(self: DirichletNoise, priors: np.ndarray, generator: np.random.Generator) -> object:
        mixed.append(len(priors))
        return mix(self, priors, generator)

    monkeypatch.setattr(DirichletNoise, "mix", spy)
    games = _games(_noisy(playout_cap=PlayoutCap(full_fraction=1.0, fast_simulations=2)), 2)
    assert len(mixed) >= sum(len(g.moves) for g in games) - 2  # one a root (the last two: 1 move)
    mixed.clear()
    games = _games(_noisy(playout_cap=PlayoutCap(full_fraction=1e-12, fast_simulations=2)), 2)
    assert mixed == []
    assert all(g.examples == () for g in games)


def test_a_fast_search_has_no_forced_playouts_and_a_full_one_has() -> None:
    from playout.zero.selfplay import _explore, _Slot

    noise = DirichletNoise(alpha=1.0, fraction=0.25)
    driver = types.SimpleNamespace(forced_playouts=-1.0, root_noise="unset")
    slot = _Slot(None, driver, 0, full=False, noise=noise)  # type: ignore[arg-type]
    _explore(slot, 2.0)
    assert (driver.forced_playouts, driver.root_noise) == (0.0, None)
    slot.full = True
    _explore(slot, 2.0)
    assert (driver.forced_playouts, driver.root_noise) == (2.0, noise)


def test_simulations_per_move_counts_each_search_at_its_size() -> None:
    assert TrainConfig(simulations=100).simulations_per_move == 100
    capped = TrainConfig(simulations=100, full_search_fraction=0.25, fast_simulations=20)
    assert capped.simulations_per_move == pytest.approx(0.25 * 100 + 0.75 * 20)
    small = TrainConfig(simulations=10, full_search_fraction=0.5, fast_simulations=25)
    assert small.simulations_per_move == 10
