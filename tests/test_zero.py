"""playout.zero: network-guided batched search, self-play, training files, the zero player."""

from __future__ import annotations

import datetime
import json
import math
import os
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playout
from playout._src.tree import backup, expansion, selection
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout.games import Connect4Game, tictactoe

torch = pytest.importorskip("torch")  # the zero extra is part of the test extra

from playout.zero import (  # noqa: E402
    Architecture,
    Model,
    NetworkEvaluator,
    SelfPlaySettings,
    TrainConfig,
    Trainer,
    ZeroPlayer,
    ZeroSearch,
    masked_softmax,
    self_play,
)

SMALL = Architecture(channels=8, blocks=1, value_hidden=8)


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


def small_model(game: object, seed: int = 0) -> Model:
    return Model(game, SMALL, device="cpu", seed=seed)


# --------------------------------------------------------------------------------------------
# Formulas against hand computations.
# --------------------------------------------------------------------------------------------


def test_masked_softmax_masks_illegal_actions() -> None:
    logits = np.array([5.0, 1.0, 0.0, 2.0], dtype=np.float32)
    priors = masked_softmax(logits, np.array([1, 3]))
    expected = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    assert priors == pytest.approx(expected)
    assert priors.sum() == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(
    logits=st.lists(
        st.lists(st.floats(-30.0, 30.0, width=32), min_size=5, max_size=5), min_size=1, max_size=6
    ),
    masks=st.lists(st.integers(1, 2**5 - 1), min_size=6, max_size=6),
)
def test_masked_softmax_of_a_batch_is_each_rows_softmax(
    logits: list[list[float]], masks: list[int]
) -> None:
    """The batch's softmax (one array operation for all the rows) gives each row what
    :func:`masked_softmax` gives it alone."""
    from playout.zero.evaluator import masked_softmax_rows

    table = np.array(logits, dtype=np.float32)
    actions = [np.array([a for a in range(5) if mask >> a & 1]) for mask in masks[: len(table)]]
    batch = masked_softmax_rows(table, actions)
    for row, chosen, got in zip(table, actions, batch, strict=True):
        assert got == pytest.approx(masked_softmax(row, chosen), rel=1e-12, abs=1e-15)
    with pytest.raises(playout.InvalidParameterError, match="action sets"):
        masked_softmax_rows(table, [*actions, actions[0]])


@given(st.integers(min_value=0, max_value=10**6), st.floats(min_value=0.1, max_value=10.0))
@settings(max_examples=50, deadline=None)
def test_puct_schedule_matches_alphazero(parent_visits: int, c: float) -> None:
    c_base = 19652.0
    params = playout.PUCT(c=c, c_base=c_base).compiled()[1]
    got_c, scale = selection.exploration(selection.RULE_PUCT, params, parent_visits)
    assert got_c == pytest.approx(c + math.log((parent_visits + c_base + 1) / c_base))
    assert scale == pytest.approx(math.sqrt(max(parent_visits, 1)))
    constant = playout.PUCT(c=c).compiled()[1]
    assert selection.exploration(selection.RULE_PUCT, constant, parent_visits)[0] == pytest.approx(
        c
    )


def test_puct_selection_picks_the_hand_computed_edge() -> None:
    # Root with three edges: visits, value sums (for the mover) and priors set by hand.
    tree = T.new_tree(8, 8)
    expansion.add_node(tree.nodes, tree.node_values, tree.edges, tree.meta, -1, -1, 0, False, 0.0)
    actions = np.array([0, 1, 2])
    priors = np.array([0.2, 0.5, 0.3])
    expansion.expand(tree.nodes, tree.edges, tree.edge_values, tree.meta, T.ROOT, actions, priors)
    visits, sums = [10, 3, 0], [6.0, -1.0, 0.0]
    for e in range(3):
        tree.edges[e, T.E_VISITS] = visits[e]
        tree.edge_values[e, T.EV_VALUE_SUM] = sums[e]
    tree.nodes[T.ROOT, T.N_VISITS] = 14
    c, c_base, fpv = 1.5, 10.0, -0.2
    rule, params = playout.PUCT(c=c, c_base=c_base, first_play_value=fpv).compiled()
    c_n = c + math.log((14 + c_base + 1) / c_base)
    scores = [
        (sums[e] / visits[e] if visits[e] else fpv)
        + c_n * priors[e] * math.sqrt(14) / (1 + visits[e])
        for e in range(3)
    ]
    chosen = selection.select_edge(
        tree.nodes, tree.edges, tree.edge_values, T.ROOT, rule, params, new_rng_state(1)
    )
    assert chosen == int(np.argmax(scores))


def test_dirichlet_noise_mixes_as_documented() -> None:
    noise = playout.DirichletNoise(alpha=0.5, fraction=0.25)
    priors = np.array([0.5, 0.25, 0.25])
    mixed = noise.mix(priors, np.random.default_rng(7))
    eta = np.random.default_rng(7).dirichlet([0.5, 0.5, 0.5])
    assert mixed == pytest.approx(0.75 * priors + 0.25 * eta)
    assert mixed.sum() == pytest.approx(1.0)
    assert playout.DirichletNoise(fraction=0.0).mix(priors, np.random.default_rng(1)) is priors
    with pytest.raises(playout.InvalidParameterError, match="alpha"):
        playout.DirichletNoise(alpha=0.0)
    with pytest.raises(playout.InvalidParameterError, match="fraction"):
        playout.DirichletNoise(fraction=1.5)


def test_root_noise_changes_root_priors_only() -> None:
    state = tictactoe().initial_state()
    evaluator = NetworkEvaluator(small_model(tictactoe()))
    plain = playout.MCTS(state, evaluator=evaluator, selection=playout.PUCT(), seed=1)
    noisy = playout.MCTS(
        state, evaluator=evaluator, selection=playout.PUCT(), seed=1,
        root_noise=playout.DirichletNoise(alpha=0.3),
    )  # fmt: skip
    p0, p1 = plain.result().priors, noisy.result().priors
    assert sum(p1) == pytest.approx(1.0)
    assert not np.allclose(p0, p1)
    # The same seed draws the same noise.
    again = playout.MCTS(
        state, evaluator=evaluator, selection=playout.PUCT(), seed=1,
        root_noise=playout.DirichletNoise(alpha=0.3),
    )  # fmt: skip
    assert again.result().priors == p1


# --------------------------------------------------------------------------------------------
# The batched driver.
# --------------------------------------------------------------------------------------------


class LeafByLeaf:
    """The same network, offered leaf by leaf (no evaluate_batch): the Python driver."""

    def __init__(self, evaluator: NetworkEvaluator) -> None:
        self._evaluator = evaluator

    def evaluate(self, state: object, rng: random.Random) -> float:
        return self._evaluator.evaluate(state, rng)  # type: ignore[arg-type]

    def priors(self, state: object, actions: object) -> np.ndarray:
        return self._evaluator.priors(state, actions)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", [tictactoe(), Connect4Game()], ids=["tictactoe", "connect4"])
def test_batch_of_one_gives_the_unbatched_search(game: object) -> None:
    evaluator = NetworkEvaluator(small_model(game, seed=3))
    state = game.initial_state().play(game.initial_state().legal_actions()[1])  # type: ignore[attr-defined]
    options = {"selection": playout.PUCT(c=2.0, c_base=50.0), "seed": 5, "simulations": 300}
    batched = playout.MCTS(state, evaluator=evaluator, leaf_batch=1, **options)
    unbatched = playout.MCTS(state, evaluator=LeafByLeaf(evaluator), **options)
    assert batched.backend == "batched" and unbatched.backend == "python"
    a, b = batched.run(), unbatched.run()
    assert a.visit_counts == b.visit_counts
    assert a.values == pytest.approx(b.values)


@given(st.integers(min_value=2, max_value=32), st.integers(min_value=0, max_value=1000))
@settings(max_examples=15, deadline=None)
def test_batches_count_every_simulation_once(batch: int, seed: int) -> None:
    game = Connect4Game()
    evaluator = NetworkEvaluator(small_model(game))
    engine = playout.MCTS(
        game.initial_state(), evaluator=evaluator, selection=playout.PUCT(),
        leaf_batch=batch, seed=seed,
    )  # fmt: skip
    result = engine.run(playout.Budget(simulations=200))
    tree = engine.tree
    assert result.simulations == 200
    assert sum(result.visit_counts) == 200  # no virtual visit left behind
    assert tree.nodes[T.ROOT, T.N_VISITS] == 200
    used = tree.num_edges
    # Every edge's visits equal its child's (virtual losses were all taken back).
    children = tree.edges[:used, T.E_CHILD]
    taken = children != T.UNVISITED
    assert (tree.edges[:used, T.E_VISITS][taken] == tree.nodes[children[taken], T.N_VISITS]).all()
    assert (tree.edges[:used, T.E_VISITS][~taken] == 0).all()


def test_virtual_loss_is_undone_exactly() -> None:
    game = Connect4Game()
    engine = playout.MCTS(
        game.initial_state(), evaluator=NetworkEvaluator(small_model(game)),
        selection=playout.PUCT(), leaf_batch=16, seed=2,
    )  # fmt: skip
    engine.run(playout.Budget(simulations=100))
    driver = engine.driver
    before = [a.copy() for a in engine.tree]
    states, _ = driver.select_leaves(16, 100)  # type: ignore[attr-defined]
    assert states and driver.pending == len(states)  # type: ignore[attr-defined]
    assert engine.tree.nodes[T.ROOT, T.N_VISITS] > before[0][T.ROOT, T.N_VISITS]
    for i in range(driver.pending - 1, -1, -1):  # type: ignore[attr-defined]
        leaf = driver._pending[i]  # type: ignore[attr-defined]
        backup.remove_virtual_loss(
            engine.tree.nodes, engine.tree.edges, engine.tree.edge_values,
            driver._paths[i], leaf.depth, driver._saved[i],  # type: ignore[attr-defined]
        )  # fmt: skip
    for old, new in zip(before, engine.tree, strict=True):
        assert np.array_equal(old, new)


@given(
    st.integers(min_value=1, max_value=16),
    st.integers(min_value=0, max_value=1000),
    st.sampled_from([0.0, 2.0]),
)
@settings(max_examples=20, deadline=None)
def test_a_compiled_batch_walks_as_one_walk_at_a_time(limit: int, seed: int, k: float) -> None:
    """select_batch is ``limit`` walks (the rule's, or forced at the root), each followed by
    its virtual loss, until one leaves by an edge taken before: the same walks, the same
    tree and the same generator afterwards as the phase functions called one by one."""
    from playout._src import forced, leaf_batch
    from playout._src.tree import selection

    game = Connect4Game()
    engine = playout.MCTS(
        game.initial_state(), evaluator=NetworkEvaluator(small_model(game)),
        selection=playout.PUCT(), leaf_batch=16, seed=seed,
    )  # fmt: skip
    engine.run(playout.Budget(simulations=60))
    driver = engine.driver
    rule, params = driver._rule, driver._rule_params  # type: ignore[attr-defined]
    tree = [a.copy() for a in engine.tree]
    rng = driver._rng_state.copy()  # type: ignore[attr-defined]
    paths, saved = np.zeros((limit, 64), np.int64), np.zeros((limit, 64))
    walks = np.zeros((limit, 3), np.int64)
    empty, empty2 = np.zeros(0), np.zeros((0, 0))
    walk = leaf_batch.WALK_FORCED if k else leaf_batch.WALK_RULE
    count, collided, deepest = leaf_batch.select_batch(
        tree[0], tree[1], tree[2], tree[3], walk, rule, params, k, empty,
        np.zeros(0, np.int64), np.zeros(0, np.int64), empty, empty2, np.zeros(0, np.int64),
        np.zeros(0, np.int64), rng, 40, limit, -1.0, paths, saved, walks,
    )  # fmt: skip
    nodes, _, edges, edge_values, _ = ref = [a.copy() for a in engine.tree]
    ref_rng = driver._rng_state.copy()  # type: ignore[attr-defined]
    path, kept, taken, most = np.zeros(64, np.int64), 0, set(), 0
    for _ in range(limit):
        if k:
            node, edge, depth = forced.descend(
                nodes, edges, edge_values, rule, params, ref_rng, 40, path, k
            )
        else:
            node, edge, depth = selection.descend(
                nodes, edges, edge_values, rule, params, ref_rng, 40, path
            )
        most = max(most, depth)
        if edge != T.NO_EDGE and edge in taken:
            break
        taken.add(edge)
        assert tuple(walks[kept]) == (node, edge, depth)
        assert np.array_equal(paths[kept, :depth], path[:depth])
        backup.add_virtual_loss(nodes, edges, edge_values, path, depth, -1.0, np.zeros(64))
        kept += 1
    assert (count, collided, deepest) == (kept, kept < limit, most)
    assert np.array_equal(rng, ref_rng)
    for ours, theirs in zip(tree, ref, strict=True):
        assert np.array_equal(ours, theirs)


def test_values_numpy_cannot_read_are_a_typed_error() -> None:
    """A batch evaluator's values as a tensor still in the autograd graph (numpy cannot read
    it): an InvalidParameterError naming the value, not torch's RuntimeError."""

    class InGraph:
        def evaluate(self, state: object, rng: object) -> float:
            return 0.0

        def evaluate_batch(
            self, states: list[object], actions: list[np.ndarray]
        ) -> tuple[object, list[np.ndarray]]:
            values = torch.zeros(len(states)) * torch.ones(1, requires_grad=True)
            return values, [np.full(len(a), 1.0 / len(a)) for a in actions]

    engine = playout.MCTS(
        tictactoe().initial_state(), simulations=20, seed=0, evaluator=InGraph(),
        selection=playout.PUCT(), leaf_batch=4,
    )  # fmt: skip
    with pytest.raises(playout.InvalidParameterError, match="must return a number"):
        engine.run()


def test_batched_search_still_proves_a_forced_win() -> None:
    game = tictactoe()
    state = game.from_grid([[1, 1, 0], [-1, -1, 0], [0, 0, 0]], to_move=1)
    result = playout.search(
        state, evaluator=NetworkEvaluator(small_model(game)), selection=playout.PUCT(),
        leaf_batch=8, simulations=200, seed=0,
    )  # fmt: skip
    assert result.proven == playout.Proven.WIN
    assert result.best_action == game.action_of(2, 0)


def test_batch_evaluator_refuses_the_compiled_backend() -> None:
    game = tictactoe()
    with pytest.raises(playout.InvalidParameterError, match="batched driver"):
        playout.MCTS(
            game.initial_state(), evaluator=NetworkEvaluator(small_model(game)),
            backend="compiled",
        )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Model files.
# --------------------------------------------------------------------------------------------


def test_model_round_trip(tmp_path: object) -> None:
    game = Connect4Game()
    model = small_model(game, seed=4)
    path = model.save(tmp_path / "m.pt")  # type: ignore[operator]
    loaded = Model.load(path, game, device="cpu")
    states = [game.from_moves(m) for m in ("", "4", "44", "4453")]
    a, b = model.predict(model.observations(states)), loaded.predict(loaded.observations(states))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert loaded.path == path


def test_bad_model_files_name_the_file(tmp_path: object) -> None:
    game = Connect4Game()
    missing = tmp_path / "missing.pt"  # type: ignore[operator]
    with pytest.raises(playout.ModelFileError, match=r"missing.pt: no such model file"):
        Model.load(missing, game)
    corrupt = tmp_path / "corrupt.pt"  # type: ignore[operator]
    corrupt.write_bytes(b"not a model at all")
    with pytest.raises(playout.ModelFileError, match=r"corrupt.pt: not a readable model"):
        Model.load(corrupt, game)
    foreign = tmp_path / "foreign.pt"  # type: ignore[operator]
    torch.save({"weights": {}}, foreign)
    with pytest.raises(playout.ModelFileError, match=r"foreign.pt: not a playout model"):
        Model.load(foreign, game)
    # A small file that records a huge architecture is refused before any network is built.
    saved = torch.load(small_model(game).save(tmp_path / "small.pt"), weights_only=True)  # type: ignore[operator]
    for sizes, detail in (
        ({"channels": 1024, "blocks": 1024, "value_hidden": 1024}, "tensors"),
        ({"channels": 1024, "blocks": saved["architecture"]["blocks"]}, "more differ"),
    ):
        bomb = tmp_path / "bomb.pt"  # type: ignore[operator]
        torch.save({**saved, "architecture": {**saved["architecture"], **sizes}}, bomb)
        with pytest.raises(
            playout.ModelFileError, match=f"weights do not fit the file's .*{detail}"
        ):
            Model.load(bomb, game)
    objects = tmp_path / "objects.pt"  # type: ignore[operator]
    torch.save({"format": datetime.date(2026, 1, 1)}, objects)  # a class no model holds
    with pytest.raises(playout.ModelFileError) as caught:
        Model.load(objects, game)
    # One plain line, not PyTorch's advice to load the file unsafely.
    assert str(caught.value).endswith(
        "objects.pt: not a playout model file (it holds Python objects other than tensors "
        "and plain values, which playout does not load)"
    )
    other = small_model(tictactoe()).save(tmp_path / "ttt.pt")  # type: ignore[operator]
    with pytest.raises(playout.ModelFileError, match=r"ttt.pt: the network was trained for"):
        Model.load(other, game)
    truncated = tmp_path / "truncated.pt"  # type: ignore[operator]
    data = small_model(game).save(tmp_path / "good.pt").read_bytes()  # type: ignore[operator]
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(playout.ModelFileError, match=r"truncated.pt"):
        Model.load(truncated, game)
    for bad in (math.nan, math.inf, 10**400, True, "1.0"):  # the PUCT constant it records
        odd = tmp_path / "odd.pt"  # type: ignore[operator]
        torch.save({**saved, "metadata": {"c": bad}}, odd)
        with pytest.raises(playout.ModelFileError, match=r"odd.pt: bad metadata"):
            Model.load(odd, game)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"seed": "x"}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**64}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"architecture": 5}, "architecture"),
    ],
)
def test_bad_model_arguments_are_typed_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(playout.InvalidParameterError, match=match):
        Model(Connect4Game(), **kwargs)


def test_games_without_observations_are_refused(tmp_path: object) -> None:
    from playout.games.pig import PigGame

    with pytest.raises(playout.InvalidParameterError, match="observation"):
        Model(PigGame())
    out = tmp_path / "run"  # type: ignore[operator]
    with pytest.raises(playout.InvalidParameterError, match="observation"):
        Trainer(PigGame(), out, tiny_config())
    assert not out.exists()  # refused before anything is written


# --------------------------------------------------------------------------------------------
# Self-play and training.
# --------------------------------------------------------------------------------------------


def test_self_play_records_legal_games_with_policies() -> None:
    game = tictactoe()
    evaluator = NetworkEvaluator(small_model(game))
    settings = SelfPlaySettings(search=ZeroSearch(simulations=16), parallel_games=3)
    games = self_play(evaluator, game, 5, settings, seed=1)
    assert len(games) == 5
    symmetries = len(game.action_symmetries())
    for record in games:
        state = game.initial_state()
        for move in record.moves:
            state = state.play(move)
        assert state.is_terminal() and record.outcome0 == state.returns()[0]
        assert len(record.examples) == len(record.moves) * symmetries
        for example in record.examples:
            assert example.policy.sum() == pytest.approx(1.0, abs=1e-5)
            assert example.value in (-1.0, 0.0, 1.0)
            # No probability on an occupied square.
            occupied = (example.observation.sum(axis=0) > 0).reshape(-1)
            assert example.policy[occupied].sum() == 0


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"value_mix": 1.5}, "value_mix"),
        ({"temperature_moves": -1}, "temperature_moves"),
        ({"parallel_games": 0}, "parallel_games"),
        ({"opening_moves": 2.5}, "opening_moves"),
        ({"random_move_rate": -0.1}, "random_move_rate"),
        ({"random_move_rate": 1.5}, "random_move_rate"),
        ({"fork_rate": -0.1}, "fork_rate"),
        ({"fork_rate": 2.0}, "fork_rate"),
    ],
)
def test_bad_self_play_settings_are_refused(changes: dict[str, object], match: str) -> None:
    with pytest.raises(playout.InvalidParameterError, match=match):
        SelfPlaySettings(**changes)  # type: ignore[arg-type]
    with pytest.raises(playout.InvalidParameterError, match=match):
        tiny_config(**changes)


def test_a_training_run_plays_with_its_own_settings() -> None:
    config = tiny_config(
        temperature_moves=3,
        opening_moves=2,
        value_mix=0.25,
        c=1.5,
        random_move_rate=0.1,
        fork_rate=0.05,
    )
    settings = config.self_play()
    assert (settings.temperature_moves, settings.opening_moves) == (3, 2)
    assert (settings.random_move_rate, settings.fork_rate) == (0.1, 0.05)
    assert (settings.value_mix, settings.parallel_games) == (0.25, 4)
    assert (settings.search.simulations, settings.search.c) == (8, 1.5)
    assert settings.search.noise is not None


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"leaf_batch": 0}, "leaf_batch"),
        ({"c": -1.0}, "c must be"),
        ({"c_base": -2.0}, "c_base"),
        ({"first_play_value": float("nan")}, "first_play_value"),
        ({"simulations": 0}, "simulations"),
    ],
)
def test_bad_search_settings_are_refused_when_made(changes: dict[str, object], match: str) -> None:
    with pytest.raises(playout.InvalidParameterError, match=match):
        ZeroSearch(**changes)  # type: ignore[arg-type]


def tiny_config(**changes: object) -> TrainConfig:
    options: dict[str, object] = {
        "games_per_iteration": 4, "simulations": 8, "parallel_games": 4,
        "steps_per_iteration": 3, "batch_size": 16, "architecture": SMALL, "eval_games": 0,
        "buffer_size": 500, "benchmark_positions": 0,
    }  # fmt: skip
    options.update(changes)
    return TrainConfig(**options)  # type: ignore[arg-type]


def test_the_schedule_follows_iterations_or_training_hours(tmp_path: object) -> None:
    """A cosine from the rate to a tenth of it: by iterations, or by training seconds when
    the schedule is in hours (the iteration count then does not matter)."""
    game = tictactoe()
    by_count = Trainer(game, tmp_path / "a", tiny_config(learning_rate=1e-3, schedule_iterations=4))  # type: ignore[operator]
    rates = []
    for iteration in (0, 2, 4, 9):
        by_count.iteration = iteration
        rates.append(by_count.learning_rate())
    assert rates == pytest.approx([1e-3, 5.5e-4, 1e-4, 1e-4])
    by_time = Trainer(game, tmp_path / "b", tiny_config(learning_rate=1e-3, schedule_hours=0.5))  # type: ignore[operator]
    rates = []
    for iteration, seconds in ((0, 0.0), (50, 0.0), (1, 900.0), (1, 1800.0), (0, 7200.0)):
        by_time.iteration, by_time.elapsed = iteration, seconds
        rates.append(by_time.learning_rate())
    assert rates == pytest.approx([1e-3, 1e-3, 5.5e-4, 1e-4, 1e-4])
    by_count.close()
    by_time.close()
    with pytest.raises(playout.InvalidParameterError, match="schedule_hours"):
        tiny_config(schedule_hours=-1.0)


def test_training_resumes_where_it_stopped(tmp_path: object) -> None:
    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    first = Trainer(game, out, tiny_config())
    first.run(iterations=1, log=None)
    saved = {k: v.clone() for k, v in first.model.net.state_dict().items()}
    resumed = Trainer(game, out, device="cpu")
    assert resumed.iteration == 1
    assert resumed.config == first.config
    assert resumed.buffer.size == first.buffer.size > 0
    assert np.array_equal(
        resumed.buffer.values[: first.buffer.size], first.buffer.values[: first.buffer.size]
    )
    for key, value in resumed.model.net.state_dict().items():
        assert torch.equal(value, saved[key])
    resumed.run(iterations=1, log=None)
    assert resumed.iteration == 2
    rows = (out / "metrics.csv").read_text().strip().splitlines()
    assert len(rows) == 3  # header + one row per iteration
    Model.load(out / "model.pt", game)  # the latest network, loadable


def test_a_resumed_run_takes_a_changed_weight_decay(tmp_path: object) -> None:
    """The optimiser's saved state carries its weight decay; a resumed run whose settings
    change it trains with the new one, not the checkpoint's, and keeps it."""
    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    first = Trainer(game, out, tiny_config(weight_decay=1e-4))
    first.run(iterations=1, log=None)
    first.close()
    resumed = Trainer(game, out, device="cpu", changes={"weight_decay": 0.05})
    assert resumed.config.weight_decay == 0.05
    assert [g["weight_decay"] for g in resumed.optimizer.param_groups] == [0.05] * len(
        resumed.optimizer.param_groups
    )
    resumed.close()
    again = Trainer(game, out, device="cpu")  # the change is the run's setting now
    assert {g["weight_decay"] for g in again.optimizer.param_groups} == {0.05}
    again.close()


def test_a_new_run_starts_from_a_model_files_weights(tmp_path: object) -> None:
    game = tictactoe()
    source = small_model(game, seed=3)
    path = source.save(tmp_path / "start.pt")  # type: ignore[operator]
    out = tmp_path / "run"  # type: ignore[operator]
    # The changes name no size: the file's is taken (SMALL, not the default network).
    trainer = Trainer(game, out, None, device="cpu", changes={"init_model": str(path)})
    assert trainer.model.architecture == SMALL
    for key, value in trainer.model.net.state_dict().items():
        assert torch.equal(value, source.net.state_dict()[key])
    trainer.close()
    fresh = Trainer(game, tmp_path / "fresh", tiny_config())  # type: ignore[operator]
    assert not all(
        torch.equal(value, source.net.state_dict()[key])
        for key, value in fresh.model.net.state_dict().items()
    )
    fresh.close()
    # A resumed run goes on from its own checkpoint, not from the file again.
    trainer = Trainer(game, out, tiny_config(init_model=str(path)), device="cpu")
    trainer.run(iterations=1, log=None)
    trained = {k: v.clone() for k, v in trainer.model.net.state_dict().items()}
    trainer.close()
    resumed = Trainer(game, out, device="cpu")
    assert resumed.config.init_model == str(path)
    for key, value in resumed.model.net.state_dict().items():
        assert torch.equal(value, trained[key])
    resumed.close()
    with pytest.raises(playout.InvalidParameterError, match="init_model cannot change"):
        Trainer(game, out, device="cpu", changes={"init_model": ""})


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda game, d: str(d / "missing.pt"), "no such model file"),
        (lambda game, d: str(d), "a directory, not a model file"),
        (lambda game, d: str(small_model(Connect4Game()).save(d / "c4.pt")), "trained for"),
        (
            lambda game, d: str(Model(game, Architecture(channels=4, blocks=1)).save(d / "m.pt")),
            "holds a 4x1 \\(value head 64\\) network, the run's is 8x1 \\(value head 8\\)",
        ),
    ],
)
def test_a_model_file_that_cannot_start_the_run_is_refused_before_anything_is_written(
    tmp_path: object, make: object, match: str
) -> None:
    game = tictactoe()
    path = make(game, tmp_path)  # type: ignore[operator]
    out = tmp_path / "run"  # type: ignore[operator]
    with pytest.raises(playout.InvalidParameterError, match=match) as caught:
        Trainer(game, out, tiny_config(init_model=path), device="cpu")
    assert caught.value.setting == "init_model"  # type: ignore[attr-defined]
    assert not out.exists()


def test_the_train_command_starts_from_a_model_file(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from playout.cli import main

    path = small_model(tictactoe()).save(tmp_path / "m.pt")  # type: ignore[operator]
    out = tmp_path / "run"  # type: ignore[operator]
    argv = [
        "train", "tictactoe", "--out", str(out), "--iterations", "1", "--games", "2",
        "--simulations", "4", "--steps", "1", "--batch-size", "8", "--eval-games", "0",
        "--benchmark-positions", "0",
    ]  # fmt: skip
    assert main([*argv, "--init", str(path), "--blocks", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("playout: error: --init ") and "the run's is 8x2" in err
    assert err.count("\n") == 1 and not out.exists()
    assert main([*argv, "--init", str(path)]) == 0
    assert "8x1 blocks" in capsys.readouterr().out
    assert json.loads((out / "settings.json").read_text())["init_model"] == str(path)


def test_a_run_keeps_each_iterations_network_when_asked(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from playout.cli import main
    from playout.zero.train import snapshot_path

    game = tictactoe()
    plain, kept = tmp_path / "plain", tmp_path / "kept"  # type: ignore[operator]
    Trainer(game, plain, tiny_config()).run(iterations=1, log=None)
    assert not (plain / "models").exists()  # off by default
    trainer = Trainer(game, kept, tiny_config(), keep_models=True)
    trainer.run(iterations=2, log=None)
    assert snapshot_path(kept, 2) == kept / "models" / "iteration-0002.pt"
    assert sorted(p.name for p in (kept / "models").iterdir()) == [
        "iteration-0001.pt", "iteration-0002.pt"
    ]  # fmt: skip
    last = Model.load(snapshot_path(kept, 2), game)
    for key, value in last.net.state_dict().items():
        assert torch.equal(value, trainer.model.net.state_dict()[key])
    first = Model.load(snapshot_path(kept, 1), game)
    assert any(
        not torch.equal(value, last.net.state_dict()[key])
        for key, value in first.net.state_dict().items()
    )
    trainer.close()
    # The command line's --keep-models, on resuming a run that kept none so far.
    argv = ["train", "tictactoe", "--out", str(plain), "--iterations", "1", "--keep-models"]
    assert main(argv) == 0
    assert [p.name for p in (plain / "models").iterdir()] == ["iteration-0002.pt"]
    capsys.readouterr()
    with pytest.raises(playout.InvalidParameterError, match="keep_models must be True or False"):
        Trainer(game, tmp_path / "bad", tiny_config(), keep_models=1)  # type: ignore[arg-type, operator]


def test_a_run_directory_in_use_is_refused(tmp_path: object) -> None:
    fcntl = pytest.importorskip("fcntl")
    from playout.zero.train import LOCK

    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    trainer = Trainer(game, out, tiny_config())
    assert (out / LOCK).read_text() == str(os.getpid())
    with (out / LOCK).open("a") as other, pytest.raises(BlockingIOError):  # held
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    same_process = Trainer(game, out)  # shares the hold
    same_process.close()
    trainer.run(iterations=1, log=None)  # still held by `trainer`
    trainer.close()
    with (out / LOCK).open("a") as other:  # free: another process could take it now
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(playout.RunInUseError, match=rf"{out}"):
            Trainer(game, out)
    with pytest.raises(playout.InvalidParameterError, match="closed"):
        trainer.run(iterations=1, log=None)
    with Trainer(game, out) as resumed:
        assert resumed.iteration == 1


def test_an_interrupt_during_evaluation_keeps_the_iteration_and_its_row(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import csv

    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    trainer = Trainer(game, out, tiny_config(eval_games=2, eval_simulations=4))
    trainer.run(iterations=1, log=None)

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(trainer, "_evaluate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        trainer.run(iterations=1, log=None)
    resumed = Trainer(game, out)
    assert resumed.iteration == 2  # trained and saved before the evaluation
    with (out / "metrics.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["iteration"] for row in rows] == ["1", "2"]
    assert rows[0]["eval_score"] != "" and rows[1]["eval_score"] == ""
    assert float(rows[1]["policy_loss"]) > 0
    Trainer(game, out)  # resuming again adds no second row
    assert len((out / "metrics.csv").read_text().strip().splitlines()) == 3


@pytest.mark.parametrize("capacity", [5000, 300], ids=["filling", "wrapped"])
def test_a_stop_between_the_buffer_and_the_checkpoint_rewinds_the_buffer(
    tmp_path: object, capacity: int
) -> None:
    from playout.zero.train import BUFFER

    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    trainer = Trainer(game, out, tiny_config(buffer_size=capacity))
    trainer.run(iterations=2, log=None)
    kept = Trainer(game, out).buffer
    # The next iteration's positions reach the buffer's file, then the process dies.
    games = self_play(NetworkEvaluator(trainer.model), game, 4, trainer.config.self_play())
    trainer.buffer.add([e for g in games for e in g.examples])
    trainer.buffer.save(out / BUFFER)
    assert trainer.buffer.added > kept.added
    resumed = Trainer(game, out).buffer
    assert (resumed.added, resumed.size, resumed.next) == (kept.added, kept.size, kept.next)
    # The wrapped case overwrote rows (the test means it to); the filling one did not.
    assert (trainer.buffer.added > capacity) == (capacity == 300)
    if trainer.buffer.added <= capacity:  # nothing overwritten: the rows saved before
        rows = slice(0, kept.size)
        assert np.array_equal(resumed.values[rows], kept.values[rows])
        assert np.array_equal(resumed.observations[rows], kept.observations[rows])


def test_a_damaged_checkpoint_is_reported(tmp_path: object) -> None:
    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    Trainer(game, out, tiny_config()).run(iterations=1, log=None)
    (out / "checkpoint.pt").write_bytes(b"\x00" * 10)
    with pytest.raises(playout.ModelFileError, match=r"checkpoint.pt"):
        Trainer(game, out)


# --------------------------------------------------------------------------------------------
# The zero player.
# --------------------------------------------------------------------------------------------


def test_zero_player_spec_plays_a_match(tmp_path: object) -> None:
    game = tictactoe()
    path = small_model(game).save(tmp_path / "ttt.pt")  # type: ignore[operator]
    result = playout.run_match(
        game, f"zero:simulations=20,model={path}", f"zero:simulations=0,model={path}", games=2
    )
    assert result.games == 2
    with pytest.raises(playout.InvalidParameterError, match="unknown zero option"):
        playout.parse_player("zero:simulation=3", game)
    with pytest.raises(playout.ModelFileError, match=r"nope.pt"):
        playout.parse_player(f"zero:model={tmp_path}/nope.pt", game)


def test_zero_player_with_no_search_plays_the_policy_argmax() -> None:
    game = Connect4Game()
    model = small_model(game, seed=9)
    player = ZeroPlayer(game, model, no_search=True)
    state = game.from_moves("44")
    player.reset(state, 0)
    logits, _ = model.predict(model.observations([state]))
    legal = list(state.legal_actions())
    assert player.choose(state) == legal[int(np.argmax(logits[0][legal]))]


@settings(max_examples=25, deadline=None)
@given(
    game_name=st.sampled_from(["connect4", "tictactoe"]),
    moves=st.lists(st.integers(0, 99), max_size=6),
)
def test_symmetric_evaluation_is_the_mean_over_images_and_equivariant(
    game_name: str, moves: list[int]
) -> None:
    game = Connect4Game() if game_name == "connect4" else tictactoe()
    state = game.initial_state()
    for pick in moves:  # a random legal line that stops before the end
        legal = state.legal_actions()
        nxt = state.play(legal[pick % len(legal)])
        if nxt.is_terminal():
            break
        state = nxt
    model = small_model(game, seed=5)
    plain = NetworkEvaluator(model, cache_size=0)
    both = NetworkEvaluator(model, symmetries=True)
    perms = game.action_symmetries()
    images = [game.transform_state(state, i) for i in range(len(perms))]
    # The value: the plain network's mean over the images, by hand.
    want = np.mean([plain.outputs([image])[0][1] for image in images])
    assert both.outputs([state])[0][1] == pytest.approx(want, abs=1e-6)
    # The priors of every image are those of the position, action for action.
    legal = np.asarray(state.legal_actions(), dtype=np.int64)
    _, (priors,) = both.evaluate_batch([state], [legal])
    for image, perm in zip(images, perms, strict=True):
        mapped = np.asarray(perm, dtype=np.int64)[legal]
        _, (image_priors,) = both.evaluate_batch([image], [mapped])
        np.testing.assert_allclose(image_priors, priors, atol=1e-6)


def test_symmetries_need_a_game_that_declares_them() -> None:
    class Asymmetric(Connect4Game):
        action_symmetries = None

    with pytest.raises(playout.InvalidParameterError, match="declares none"):
        NetworkEvaluator(small_model(Asymmetric()), symmetries=True)
    with pytest.raises(playout.InvalidParameterError, match="True or False"):
        NetworkEvaluator(small_model(Connect4Game()), symmetries="no")  # type: ignore[arg-type]


def test_zero_player_spec_takes_symmetries(tmp_path: object) -> None:
    import pickle

    game = Connect4Game()
    path = small_model(game).save(tmp_path / "c4.pt")  # type: ignore[operator]
    player = playout.parse_player(f"zero:simulations=0,model={path},symmetries=yes", game)
    assert player.evaluator.symmetries and player.no_search
    assert pickle.loads(pickle.dumps(player)).evaluator.symmetries  # as sent to workers
    assert not playout.parse_player(f"zero:model={path}", game).evaluator.symmetries
    # A worker builds a player per game from its spec: the weights are loaded once.
    again = playout.parse_player(f"zero:simulations=0,model={path}", game)
    assert again.model is player.model and again.evaluator is not player.evaluator
    assert pickle.loads(pickle.dumps(player)).model is player.model
    with pytest.raises(playout.InvalidParameterError, match="symmetries must be yes or no"):
        playout.parse_player(f"zero:model={path},symmetries=maybe", game)


# --------------------------------------------------------------------------------------------
# Observations, openings, expert games, worker processes.
# --------------------------------------------------------------------------------------------


def test_observations_are_seen_by_the_player_to_move() -> None:
    game = Connect4Game()
    state = game.from_moves("4453")  # X: d1 e1, O: d2 c1; X to move
    planes = state.observation()
    assert planes.shape == game.observation_shape == (2, 6, 7)
    bottom = game.height - 1
    assert planes[0, bottom, 3] == 1 and planes[0, bottom, 4] == 1  # X's (the mover's)
    assert planes[1, bottom - 1, 3] == 1 and planes[1, bottom, 2] == 1  # O's
    assert planes.sum() == 4
    after = state.play(0)  # now O to move: the planes swap
    assert np.array_equal(after.observation()[1][:, 1:], planes[0][:, 1:])
    ttt = tictactoe()
    assert ttt.initial_state().observation().shape == ttt.observation_shape == (2, 3, 3)


@settings(max_examples=60, deadline=None)
@given(
    shape=st.sampled_from([("c4", 7, 6, 4), ("c4", 9, 7, 5), ("c4", 1, 3, 3), ("mnk", 3, 3, 3),
                           ("mnk", 15, 15, 5), ("mnk", 4, 6, 3), ("mnk", 1, 1, 1)]),
    seed=st.integers(0, 2**32 - 1),
    length=st.integers(0, 60),
)  # fmt: skip
def test_observations_read_off_the_bitboards_are_the_grids_planes(
    shape: tuple[str, int, int, int], seed: int, length: int
) -> None:
    """A stone game's observation (read off its bitboards) is what ``grid_planes`` makes of
    its ``grid()``, for the mover, on boards of every shape, in running and finished games."""
    from playout._src.game import grid_planes
    from playout.games import MnkGame

    kind, width, height, k = shape
    game = Connect4Game(width, height, k) if kind == "c4" else MnkGame(width, height, k)
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(length):
        if state.is_terminal():
            break
        state = state.play(rng.choice(state.legal_actions()))
    planes = state.observation()
    second = state.stones0.bit_count() > state.stones1.bit_count()
    expected = grid_planes(state.grid(), second)
    assert planes.dtype == np.float32 and planes.shape == game.observation_shape
    assert np.array_equal(planes, expected)
    # The batch at once: every state's own planes, in order, whatever its mover.
    batch = [state, game.initial_state(), state, *([state.play(state.legal_actions()[0])]
             if not state.is_terminal() else [])]  # fmt: skip
    stacked = game.observations(batch)
    assert stacked.dtype == np.float32 and stacked.shape == (len(batch), *game.observation_shape)
    for row, each in zip(stacked, batch, strict=True):
        second = each.stones0.bit_count() > each.stones1.bit_count()
        assert np.array_equal(row, grid_planes(each.grid(), second))
    other = MnkGame(3, 3, 3) if kind == "c4" else Connect4Game()
    with pytest.raises(playout.GameError, match="is not a position of"):
        game.observations([state, other.initial_state()])


def test_random_openings_never_end_the_game() -> None:
    from playout.zero.selfplay import random_opening

    rng = random.Random(3)
    game = tictactoe()
    for moves in range(12):
        state, played = random_opening(game, moves, rng)
        assert not state.is_terminal()
        replayed = game.initial_state()
        for action in played:
            replayed = replayed.play(action)
        assert replayed.grid() == state.grid()  # the moves played are the position's
        if moves <= 4:  # no tic-tac-toe game ends within four moves: all of them played
            assert len(played) == moves
        else:  # stopped short only where every continuation would end the game
            assert len(played) == moves or all(
                state.play(a).is_terminal() for a in state.legal_actions()
            )


def test_expert_games_record_search_targets() -> None:
    from playout.zero.selfplay import expert_games

    games = expert_games(tictactoe(), 2, SelfPlaySettings(augment=False), simulations=200, seed=4)
    assert len(games) == 2
    for record in games:
        assert len(record.examples) == len(record.moves) > 0
        for example in record.examples:
            assert example.policy.sum() == pytest.approx(1.0, abs=1e-5)


def test_parallel_self_play_in_worker_processes(tmp_path: object) -> None:
    from playout.zero.selfplay import parallel_self_play

    game = tictactoe()
    model = small_model(game)
    settings = SelfPlaySettings(search=ZeroSearch(simulations=8))
    games = parallel_self_play(model, game, 4, settings, workers=2, seed=2)
    assert len(games) == 4
    assert all(g.outcome0 in (-1.0, 0.0, 1.0) for g in games)
    # The same jobs in this process give the same games (the weights travel in the job).
    local = parallel_self_play(model, game, 4, settings, workers=2, executor="local", seed=2)
    assert [g.moves for g in local] == [g.moves for g in games]


def test_train_command_runs_resumes_and_plots(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    from playout.cli import main

    out = tmp_path / "run"  # type: ignore[operator]
    plot = tmp_path / "metrics.png"  # type: ignore[operator]
    argv = [
        "train", "tictactoe", "--out", str(out), "--iterations", "1", "--games", "4",
        "--simulations", "8", "--steps", "2", "--batch-size", "8", "--channels", "8",
        "--blocks", "1", "--eval-games", "2", "--eval-simulations", "4", "--opponent", "random",
    ]  # fmt: skip
    assert main([*argv, "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "iteration 1:" in text and "resuming the run" in text and "iteration 2:" in text
    assert "vs random (Elo" in text and "vs the previous network" in text
    header = (out / "metrics.csv").read_text().splitlines()[0]
    assert "eval_elo_low" in header and "previous_score" in header
    assert main(["train", "tictactoe", "--out", str(out)]) == 2  # --iterations or --hours
    assert "one of the arguments --iterations --hours is required" in capsys.readouterr().err
    # Resuming with settings given again: changed from then on, but not the network's size.
    assert main([*argv, "--schedule", "7", "--lr", "0.01"]) == 0
    text = capsys.readouterr().out
    assert "changed: learning_rate 0.002 -> 0.01, schedule_iterations 100 -> 7" in text
    saved = json.loads((out / "settings.json").read_text())
    assert (saved["schedule_iterations"], saved["learning_rate"]) == (7, 0.01)
    rows = len((out / "metrics.csv").read_text().splitlines())
    assert main([*argv, "--channels", "16"]) == 2
    assert "--channels/--blocks cannot change once a run has started" in capsys.readouterr().err
    assert main([*argv, "--seed", "9"]) == 2
    assert "seed cannot change" in capsys.readouterr().err
    assert main([*argv, "--schedule-hours", "-1"]) == 2
    assert "--schedule-hours must be a finite number >= 0" in capsys.readouterr().err
    assert len((out / "metrics.csv").read_text().splitlines()) == rows  # nothing ran
    assert json.loads((out / "settings.json").read_text()) == saved


def test_a_new_run_given_hours_anneals_over_them(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--hours H`` on a new run sets the schedule to H hours of training time, unless a
    schedule is given; a resumed run keeps its schedule whatever ``--hours`` says."""
    from playout.cli import main

    argv = [
        "train", "tictactoe", "--games", "2", "--simulations", "4", "--steps", "1",
        "--batch-size", "8", "--channels", "4", "--blocks", "1", "--eval-games", "0",
        "--benchmark-positions", "0",
    ]  # fmt: skip

    def saved(run: str) -> tuple[int, float]:
        data = json.loads((tmp_path / run / "settings.json").read_text())  # type: ignore[operator]
        return data["schedule_iterations"], data["schedule_hours"]

    def train(run: str, *options: str) -> None:
        assert main([*argv, "--out", str(tmp_path / run), *options]) == 0  # type: ignore[operator]

    train("a", "--hours", "0.00002")
    assert saved("a") == (100, 0.00002)
    train("a", "--hours", "0.00005")  # resumed: its schedule stays
    assert saved("a") == (100, 0.00002)
    assert "changed" not in capsys.readouterr().out
    train("b", "--hours", "0.00002", "--schedule", "7")
    assert saved("b") == (7, 0.0)
    train("c", "--hours", "0.00002", "--schedule-hours", "3")
    assert saved("c") == (100, 3.0)
    train("d", "--iterations", "1")
    assert saved("d") == (100, 0.0)
    train("a", "--iterations", "1", "--schedule", "50")  # back to a schedule in iterations
    assert saved("a") == (50, 0.0)
    assert "schedule_iterations 100 -> 50, schedule_hours 2e-05 -> 0.0" in capsys.readouterr().out


def test_analyze_with_the_zero_ai(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from playout.cli import main

    path = small_model(tictactoe()).save(tmp_path / "m.pt")  # type: ignore[operator]
    argv = ["analyze", "tictactoe", "--ai", "zero", "--model", str(path), "--simulations", "50"]
    assert main([*argv, "--json"]) == 0
    assert '"simulations": 50' in capsys.readouterr().out
    assert main(["analyze", "connect4", "--ai", "zero", "--model", str(path)]) == 2
    assert "trained for tictactoe" in capsys.readouterr().err
    assert main(["analyze", "tictactoe", "--model", str(path)]) == 2
    assert "--model needs --ai zero" in capsys.readouterr().err


def test_onnx_runtime_agrees_with_pytorch_and_follows_the_weights() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    game = Connect4Game()
    eager = Model(game, SMALL, device="cpu", seed=5, runtime="torch")
    onnx = Model(game, SMALL, device="cpu", seed=5, runtime="onnx")
    assert (eager.runtime, onnx.runtime) == ("torch", "onnx")
    states = [game.from_moves(m) for m in ("", "4", "4453", "1122334")]
    x = eager.observations(states)
    for a, b in zip(eager.predict(x), onnx.predict(x), strict=True):
        assert np.allclose(a, b, atol=1e-5)
    with torch.no_grad():  # change the weights: the exported copy must follow
        for parameter in onnx.net.parameters():
            parameter.add_(0.1)
    onnx.weights_changed()
    for parameter, other in zip(eager.net.parameters(), onnx.net.parameters(), strict=True):
        with torch.no_grad():
            parameter.copy_(other)
    for a, b in zip(eager.predict(x), onnx.predict(x), strict=True):
        assert np.allclose(a, b, atol=1e-5)


def test_metrics_from_another_version_are_rewritten_under_the_current_columns(
    tmp_path: object,
) -> None:
    game = tictactoe()
    out = tmp_path / "run"  # type: ignore[operator]
    trainer = Trainer(game, out, tiny_config())
    (out / "metrics.csv").write_text("iteration,games,old_column\n1,4,x\n")
    trainer.run(iterations=1, log=None)
    import csv

    rows = list(csv.DictReader((out / "metrics.csv").read_text().splitlines()))
    assert [r["iteration"] for r in rows] == ["1", "1"]
    assert rows[0]["games"] == "4" and rows[0]["policy_loss"] == ""
    assert "old_column" not in rows[0] and float(rows[1]["policy_loss"]) > 0


@pytest.mark.parametrize(
    ("device", "match"),
    [("tpu", "unknown device"), ("cuda:99", "not available"), (3, "device must be a name")],
)
def test_a_device_this_machine_lacks_is_refused_before_anything_is_written(
    tmp_path: object, device: object, match: str
) -> None:
    if device == "cuda:99" and torch.cuda.device_count() >= 100:
        pytest.skip("a machine with 100 GPUs")
    game = tictactoe()
    with pytest.raises(playout.InvalidParameterError, match=match):
        Model(game, SMALL, device=device)  # type: ignore[arg-type]
    out = tmp_path / "run"  # type: ignore[operator]
    with pytest.raises(playout.InvalidParameterError, match=match):
        Trainer(game, out, tiny_config(), device=device)  # type: ignore[arg-type]
    assert not out.exists()


def test_the_cli_refuses_a_missing_accelerator_with_exit_2(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from playout.cli import main

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    out = tmp_path / "run"  # type: ignore[operator]
    args = ["train", "tictactoe", "--out", str(out), "--iterations", "1", "--device", "cuda"]
    assert main(args) == 2
    assert "not available" in capsys.readouterr().err
    assert main(["match", "tictactoe", "--p1", "zero:device=cuda", "--p2", "random"]) == 2
    assert "not available" in capsys.readouterr().err
