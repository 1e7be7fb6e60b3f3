"""RAVE on the compiled driver: the same search as the Python driver's where both play the
same rollouts, exact AMAF counts on hand-worked simulations, Go's recorded light playouts,
and invariants on every compiled game."""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np
import pytest

import playout
from playout import MCTS, RAVE, Budget, Rollout
from playout._src.arena import MctsPlayer, parse_player
from playout._src.compiled.kernel import DRAW, MOVER_WON, ONGOING, make_kernel
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout.cli import main
from playout.games import Connect4Game, MnkGame, play_moves, tictactoe
from playout.games.go import GoGame
from playout.games.go.heavy import HEAVY_PLAYOUTS
from playout.games.go.kernel import (
    LAST_LENGTH,
    LAST_MARGIN,
    P_POLICY,
    PRIORS_ALL,
    PRIORS_TACTICS,
    go_kernel,
)
from playout.games.mnk import kernel as mnk_kernel_module
from playout.games.mnk.state import MnkState
from playout.kernels import JIT_OPTIONS, alternating_player

from .test_rave import (
    KNOWN_POSITION,
    KNOWN_SIMULATIONS,
    amaf_by_line,
    amaf_of,
    check_amaf_invariants,
    edge_rows,
    lowest_action,
)

TTT = tictactoe()


# ------------------------------------------------------- a kernel with deterministic rollouts


@numba.njit(**JIT_OPTIONS)
def lowest_recorded_rollout(params, state, scratch, rng, out_actions, out_players):  # type: ignore[no-untyped-def]
    """m,n,k rollouts that always take the smallest empty square (the Python tests'
    ``lowest_action``), every move reported."""
    board = state.copy()
    actions = np.zeros(params[0] * params[1], dtype=np.int64)
    count = 0
    while True:
        player = alternating_player(params, board)
        mnk_kernel_module.mnk_legal_actions(params, board, actions)
        action = actions[0]  # legal actions come in increasing order
        out_actions[count] = action
        out_players[count] = player
        count += 1
        status = mnk_kernel_module.mnk_play(params, board, action)
        if status == MOVER_WON:
            return (1.0 if player == 0 else -1.0), count
        if status == DRAW:
            return 0.0, count
        if status != ONGOING:
            return 0.0, count


@pytest.fixture
def lowest_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """m,n,k states whose compiled kernel's RAVE rollouts take the smallest empty square."""
    original = MnkState.compiled_kernel

    def compiled_kernel(self: MnkState) -> playout.kernels.Kernel:
        kernel = original(self)
        return make_kernel(
            name=kernel.name,
            params=kernel.params,
            state_size=kernel.state_size,
            num_actions=kernel.num_actions,
            max_length=kernel.max_length,
            scratch_size=kernel.scratch_size,
            legal_actions=kernel.legal_actions,
            play=kernel.play,
            current_player=kernel.current_player,
            rollout=kernel.rollout,
            encode=kernel.encode,
            recorded_rollout=lowest_recorded_rollout,
        )

    monkeypatch.setattr(MnkState, "compiled_kernel", compiled_kernel)


def both_backends(state: playout.GameState, **options: object) -> tuple[MCTS, MCTS]:
    """The compiled and the Python engine on ``state``, both with smallest-square rollouts."""
    compiled = MCTS(state, selection=RAVE(), backend="compiled", **options)  # type: ignore[arg-type]
    python = MCTS(
        state,
        selection=RAVE(),
        backend="python",
        evaluator=Rollout(policy=lowest_action),
        **options,  # type: ignore[arg-type]
    )
    assert compiled.backend == "compiled" and python.backend == "python"
    return compiled, python


@pytest.mark.usefixtures("lowest_rollouts")
def test_compiled_amaf_counts_after_one_known_simulation() -> None:
    seen = set()
    for seed in range(40):
        engine = MCTS(KNOWN_POSITION, selection=RAVE(), seed=seed, solver=False)
        assert engine.backend == "compiled"
        engine.run(Budget(simulations=1))
        edges = engine.tree.edges
        taken = [e for e in edge_rows(engine, T.ROOT) if edges[e, T.E_VISITS] == 1]
        assert len(taken) == 1
        first = int(edges[taken[0], T.E_ACTION])
        root, leaf = KNOWN_SIMULATIONS[first]
        assert amaf_of(engine, T.ROOT) == root
        assert amaf_of(engine, int(edges[taken[0], T.E_CHILD])) == leaf
        seen.add(first)
        if len(seen) == 3:
            break
    assert seen == {0, 2, 6}


@pytest.mark.usefixtures("lowest_rollouts")
@pytest.mark.parametrize(
    ("state", "solver", "seed"),
    [
        (TTT.initial_state(), True, 0),
        (TTT.initial_state(), False, 1),
        (MnkGame(4, 4, 3).initial_state(), True, 2),
        (MnkGame(5, 5, 4).initial_state().play(12), False, 3),
    ],
)
def test_compiled_and_python_rave_build_the_same_tree(
    state: playout.GameState, solver: bool, seed: int
) -> None:
    # Same rollouts, same selection draws: the same visits, values, proofs and AMAF rows,
    # before and after tree reuse.
    engines = both_backends(state, seed=seed, solver=solver)
    for _ in range(3):
        results = [engine.run(Budget(simulations=300)) for engine in engines]
        assert results[0] == dataclasses.replace(results[1], seconds=results[0].seconds)
        compiled, python = engines
        used = python.tree.num_edges
        assert compiled.tree.num_edges == used and compiled.tree.num_nodes == python.tree.num_nodes
        np.testing.assert_array_equal(
            compiled.tree.edges[:used], python.tree.edges[:used].astype(np.int32)
        )
        np.testing.assert_allclose(
            compiled.tree.edge_values[:used, T.EV_VALUE_SUM],
            python.tree.edge_values[:used, T.EV_VALUE_SUM],
        )
        assert compiled.amaf is not None and python.amaf is not None
        np.testing.assert_array_equal(
            compiled.amaf.visit_count[:used], python.amaf.visit_count[:used]
        )
        np.testing.assert_allclose(compiled.amaf.value_sum[:used], python.amaf.value_sum[:used])
        assert amaf_by_line(compiled) == amaf_by_line(python)
        if results[0].proven is not None or compiled.root_state.is_terminal():
            break
        action = results[0].best_action
        for engine in engines:
            engine.advance(action)
        if compiled.root_state.is_terminal():
            break


# O to move with two empty squares, 6 and 7:
#   X O X
#   X O O
#   . . X
# O 7 completes the middle column: O wins, a terminal leaf (no rollout). O 6 blocks the left
# column; X must take 7 (the rollout, forced): a draw. {O's move: (root, leaf)}:
FORCED = TTT.from_grid([[1, -1, 1], [1, -1, -1], [0, 0, 1]], to_move=-1)
FORCED_SIMULATIONS = {
    7: ({6: (0, 0.0), 7: (1, 1.0)}, {}),
    6: ({6: (1, 0.0), 7: (0, 0.0)}, {7: (1, 0.0)}),
}


def test_uniform_rollouts_in_the_loop_report_their_moves() -> None:
    # A kernel without recorded_rollout: the loop plays and reports the moves itself.
    assert FORCED.compiled_kernel().recorded_rollout is None
    seen = set()
    for seed in range(40):
        engine = MCTS(FORCED, selection=RAVE(), seed=seed, solver=False)
        assert engine.backend == "compiled"
        engine.run(Budget(simulations=1))
        edges = engine.tree.edges
        taken = [e for e in edge_rows(engine, T.ROOT) if edges[e, T.E_VISITS] == 1]
        first = int(edges[taken[0], T.E_ACTION])
        root, leaf = FORCED_SIMULATIONS[first]
        assert amaf_of(engine, T.ROOT) == root
        assert amaf_of(engine, int(edges[taken[0], T.E_CHILD])) == leaf
        seen.add(first)
        if len(seen) == 2:
            break
    assert seen == {6, 7}
    # Every square is played once per game: the root's edges and its children's edges hold
    # one AMAF sample per simulation for each square the game's two players took.
    engine = MCTS(TTT.initial_state(), selection=RAVE(), seed=5, solver=False)
    engine.run(Budget(simulations=200))
    check_amaf_invariants(engine)


# ------------------------------------------------------------------------------- Go


def test_go_recorded_playout_is_the_light_playout_with_its_first_stones() -> None:
    kernel = go_kernel(9)
    position = GoGame(size=9).initial_state().play(40).play(41)
    state = kernel.encode(position)  # type: ignore[misc]
    before = state.copy()
    out_actions = np.zeros(kernel.max_length, dtype=np.int64)
    out_players = np.zeros(kernel.max_length, dtype=np.int64)
    for seed in range(20):
        plain_rng, recorded_rng = new_rng_state(seed), new_rng_state(seed)
        plain_scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        value = kernel.rollout(kernel.params, state, plain_scratch, plain_rng)
        recorded, count = kernel.recorded_rollout(
            kernel.params, state, scratch, recorded_rng, out_actions, out_players
        )
        # The same game: the same result, length, margin and random draws.
        assert recorded == value
        assert scratch[LAST_LENGTH] == plain_scratch[LAST_LENGTH]
        assert scratch[LAST_MARGIN] == plain_scratch[LAST_MARGIN]
        np.testing.assert_array_equal(plain_rng, recorded_rng)
        np.testing.assert_array_equal(state, before)  # the state is left as it was
        points = out_actions[:count].tolist()
        assert len(set(points)) == count  # a point's first stone only
        assert all(0 <= p < 81 for p in points)  # no passes
        assert set(out_players[:count].tolist()) <= {0, 1}
        # Black moves first from here (two stones down): the first stone is Black's.
        assert count > 0 and out_players[0] == 0
        assert count <= scratch[LAST_LENGTH]


@pytest.mark.parametrize("moves", ["", "4453"])
def test_connect4_recorded_rollout_is_the_rollout_with_its_moves(moves: str) -> None:
    state = play_moves(Connect4Game(), moves) if moves else Connect4Game().initial_state()
    kernel = state.compiled_kernel()  # type: ignore[attr-defined]
    compact = kernel.encode(state)
    out_actions = np.zeros(kernel.max_length, dtype=np.int64)
    out_players = np.zeros(kernel.max_length, dtype=np.int64)
    for seed in range(20):
        plain_rng, recorded_rng = new_rng_state(seed), new_rng_state(seed)
        value = kernel.rollout(kernel.params, compact, np.zeros(7, np.int64), plain_rng)
        recorded, count = kernel.recorded_rollout(
            kernel.params, compact, np.zeros(7, np.int64), recorded_rng, out_actions, out_players
        )
        assert recorded == value
        np.testing.assert_array_equal(plain_rng, recorded_rng)
        # Replayed in the Python game, the reported moves end it with the same result.
        end = state
        for action, player in zip(out_actions[:count], out_players[:count], strict=True):
            assert end.current_player() == player
            end = end.play(int(action))
        assert end.is_terminal() and end.returns()[0] == value


def test_go_rave_search_keeps_the_amaf_invariants() -> None:
    state = GoGame(size=7).initial_state()
    engine = MCTS(state, selection=RAVE(), seed=3)
    assert engine.backend == "compiled"
    engine.run(Budget(simulations=1500))
    check_amaf_invariants(engine)
    amaf = engine.amaf
    assert amaf is not None
    # Each simulation credits each root edge at most once: at most one sample per
    # simulation per point, and Black's stones of a 7x7 playout cover at most 49 points.
    root = edge_rows(engine, T.ROOT)
    assert amaf.visit_count[root.start : root.stop].sum() <= 1500 * 50
    assert amaf.visit_count[root.start : root.stop].sum() > 1500 * 5
    action = engine.result().best_action
    engine.advance(action)
    check_amaf_invariants(engine)
    engine.run(Budget(simulations=300))
    check_amaf_invariants(engine)


@pytest.mark.parametrize(
    "state",
    [
        TTT.initial_state(),
        MnkGame(7, 7, 4).initial_state(),
        Connect4Game().initial_state(),
        GoGame(size=5).initial_state(),
    ],
    ids=["tictactoe", "mnk7", "connect4", "go5"],
)
@pytest.mark.parametrize("num_rollouts", [1, 2])
def test_compiled_rave_invariants_on_every_compiled_game(
    state: playout.GameState, num_rollouts: int
) -> None:
    engine = MCTS(state, selection=RAVE(), seed=7, evaluator=Rollout(num_rollouts=num_rollouts))
    assert engine.backend == "compiled"
    result = engine.run(Budget(simulations=400))
    assert result.simulations == 400 or result.proven is not None
    check_amaf_invariants(engine, num_rollouts)


def test_rave_on_a_shared_tree_is_refused() -> None:
    with pytest.raises(playout.InvalidParameterError, match="RAVE"):
        MCTS(TTT.initial_state(), selection=RAVE(), tree_threads=2)


# ------------------------------------------------------------------- prior knowledge (Go)

# 5x5. Black to move after B 1, W 0, B 23, W 24: White's corner stones each have one
# liberty, 5 and 19: a Black stone there captures.
CAPTURES = GoGame(size=5).initial_state().play(1).play(0).play(23).play(24)
# B 12, W 7, B 0, W 11, B 4, W 13: Black's stone on 12 has one liberty, 17; a stone there
# has three (16, 18, 22): an escape.
ESCAPE = GoGame(size=5).initial_state()
for _move in (12, 7, 0, 11, 4, 13):
    ESCAPE = ESCAPE.play(_move)


def go_scores(state: playout.GameState, priors: int = PRIORS_TACTICS) -> dict[int, float]:
    """The kernel's move scores with the pieces ``priors`` (captures and escapes alone by
    default: the 3x3 patterns and penalties are tested in ``test_go_patterns.py``)."""
    kernel = go_kernel(5, priors=priors)
    actions = np.asarray(state.legal_actions(), dtype=np.int64)
    out = np.full(actions.shape[0], np.nan)
    kernel.move_priors(kernel.params, kernel.encode(state), actions, out)
    return {int(a): float(s) for a, s in zip(actions, out, strict=True)}


def test_go_move_priors_score_captures_and_atari_escapes() -> None:
    scores = go_scores(CAPTURES)
    assert {a for a, s in scores.items() if s != 0.0 and a != 25} == {5, 19}
    assert scores[5] == scores[19] == 1.0 and math.isnan(scores[25])  # 25: the pass
    scores = go_scores(ESCAPE)
    assert {a for a, s in scores.items() if s != 0.0 and a != 25} == {17}
    assert scores[17] == 1.0
    # With every piece, captures and escapes still score 1 (they come first).
    everything = go_scores(CAPTURES, PRIORS_ALL)
    assert everything[5] == everything[19] == 1.0
    assert go_scores(ESCAPE, PRIORS_ALL)[17] == 1.0


def test_rave_prior_gives_new_edges_virtual_amaf_samples() -> None:
    engine = MCTS(CAPTURES, selection=RAVE(prior=7), seed=0, solver=False)
    assert engine.backend == "compiled"
    assert amaf_of(engine, T.ROOT) == {
        a: (0, 0.0) if math.isnan(s) else (7, 7.0 * s)
        for a, s in go_scores(CAPTURES, PRIORS_ALL).items()
    }  # the root, before any simulation; the pass (NaN) gets no samples
    # The first simulation tries the pass, the one edge without samples (RAVE tries those
    # first); the second follows the best AMAF mean: a capture or a pattern move, scored 1.
    best = {a for a, s in go_scores(CAPTURES, PRIORS_ALL).items() if s == 1.0}
    assert {5, 19} < best
    for simulations, expected in ((1, {25}), (2, {25} | best)):
        engine.run(Budget(simulations=1))
        edges = engine.tree.edges
        taken = {
            int(edges[e, T.E_ACTION]) for e in edge_rows(engine, T.ROOT) if edges[e, T.E_VISITS]
        }
        assert len(taken) == simulations and taken <= expected
    engine.run(Budget(simulations=300))
    amaf = engine.amaf
    assert amaf is not None
    for node in range(engine.tree.num_nodes):
        rows = edge_rows(engine, node)
        if rows:  # every expanded node's edges but the pass start with the samples
            actions = engine.tree.edges[rows.start : rows.stop, T.E_ACTION]
            counts = amaf.visit_count[rows.start : rows.stop]
            assert (counts[actions != 25] >= 7).all()


def test_rave_prior_needs_a_kernel_that_scores_moves() -> None:
    with pytest.raises(playout.InvalidParameterError, match="prior"):
        MCTS(Connect4Game().initial_state(), selection=RAVE(prior=5))
    with pytest.raises(playout.InvalidParameterError, match="prior"):
        MCTS(CAPTURES, selection=RAVE(prior=5), backend="python")
    with pytest.raises(playout.InvalidParameterError):
        RAVE(prior=-1.0)
    assert playout.parse_rule("rave", prior=3) == RAVE(prior=3.0)


def test_player_specs_name_the_prior(capsys: pytest.CaptureFixture[str]) -> None:
    game = GoGame(size=5)
    player = parse_player("mcts:simulations=40,rule=rave,bias=0.01,prior=5", game)
    assert isinstance(player, MctsPlayer)
    assert player.options.selection() == RAVE(bias=0.01, prior=5.0)
    with pytest.raises(playout.InvalidParameterError):
        parse_player("mcts:rule=ucb1,prior=5", game)
    code = main(
        [
            "match", "go", "--size", "5", "--workers", "1", "--games", "2",
            "--p1", "mcts:simulations=40,rule=rave,prior=5", "--p2", "mcts:simulations=40",
        ]
    )  # fmt: skip
    assert code == 0
    capsys.readouterr()


# ------------------------------------------------------------------ heavy playouts (Go)


def test_light_kernel_playouts_do_not_change_with_the_heavy_switch() -> None:
    # The same light playouts as before the switch existed (commit 1202709 gives these sums).
    kernel = go_kernel(9)
    assert kernel.params[P_POLICY] == 0 and go_kernel(9, playouts="heavy").params[P_POLICY] == 1
    state = kernel.new_state()
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    rng = new_rng_state(1)
    total = length = 0
    for _ in range(300):
        total += int(kernel.rollout(kernel.params, state, scratch, rng))
        length += int(scratch[LAST_LENGTH])
    assert (total, length) == (-48, 32949)


def test_heavy_playouts_are_other_games_by_the_same_rules() -> None:
    # The kernel does not know the move that led to a position: a heavy playout answers from
    # its second move on. Same seeds, other games; each still a game of Go (first stones on
    # distinct points, Black first from the empty board, a result of +-1 or 0).
    heavy, light = go_kernel(7, playouts="heavy"), go_kernel(7)
    out_actions = np.zeros(heavy.max_length, dtype=np.int64)
    out_players = np.zeros(heavy.max_length, dtype=np.int64)
    games = {}
    for name, kernel in (("heavy", heavy), ("light", light)):
        compact = kernel.new_state()
        played = []
        for seed in range(30):
            scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
            value, count = kernel.recorded_rollout(
                kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
            )
            points = out_actions[:count].tolist()
            assert value in (-1.0, 0.0, 1.0) and len(set(points)) == count
            assert out_players[0] == 0 and all(0 <= p < 49 for p in points)
            played.append(tuple(points))
        games[name] = played
    assert sum(a != b for a, b in zip(games["heavy"], games["light"], strict=True)) > 20


def test_players_name_heavy_playouts_and_the_python_driver_refuses_them() -> None:
    game = GoGame(size=5)
    player = parse_player("mcts:simulations=30,rule=rave,rollout=heavy", game)
    assert isinstance(player, MctsPlayer)
    evaluator = player.options.evaluator(game)
    assert evaluator.policy == HEAVY_PLAYOUTS
    engine = MCTS(game.initial_state(), selection=RAVE(), evaluator=evaluator, seed=0)
    assert engine.backend == "compiled"
    assert engine._driver.kernel.params[P_POLICY] == 1  # type: ignore[attr-defined]
    assert engine.run(Budget(simulations=200)).simulations == 200
    with pytest.raises(playout.InvalidParameterError, match="compiled driver only"):
        MCTS(game.initial_state(), evaluator=evaluator, backend="python")
    with pytest.raises(playout.InvalidParameterError, match="heavy"):
        parse_player("mcts:rollout=heavy", Connect4Game())


def _playout_board(size: int, black: list[int], white: list[int]) -> tuple[np.ndarray, ...]:
    """The heavy playout's board arrays for single-stone chains on points ``y * size + x``:
    colours (with the border), chain heads, pseudo-liberty counts, sums, sums of squares."""
    stride = size + 1
    cells = (size + 2) * stride + 1
    colour = np.full(cells, 3, dtype=np.int64)  # the border
    for y in range(size):
        for x in range(size):
            colour[(y + 1) * stride + x + 1] = 0
    cell_of = {p: (p // size + 1) * stride + p % size + 1 for p in range(size * size)}
    for points, stone in ((black, 1), (white, 2)):
        for p in points:
            colour[cell_of[p]] = stone
    chain = np.full(cells, -1, dtype=np.int64)
    libs, sums, squares = (np.zeros(cells, dtype=np.int64) for _ in range(3))
    for c in range(cells):
        if colour[c] in (1, 2):
            chain[c] = c
            for n in (c - stride, c - 1, c + 1, c + stride):
                if colour[n] == 0:
                    libs[c] += 1
                    sums[c] += n
                    squares[c] += n * n
    return colour, chain, libs, sums, squares, np.array([cell_of[p] for p in range(size**2)])


def test_the_heavy_playouts_answer_to_the_last_stone() -> None:
    from playout.games.go.kernel import _local_answer

    # 3x3: White's stone on 4 (the centre), Black's on 1, 3 and 5; its one liberty is 7.
    colour, chain, libs, sums, squares, cell = _playout_board(3, [1, 3, 5], [4])
    stride = 4
    # White to move after Black's 5: the escape on 7 (two empty points around it).
    assert _local_answer(cell[5], 2, -1, colour, chain, libs, sums, squares, stride) == cell[7]
    # Black to move after White's 4: the capture on 7.
    assert _local_answer(cell[4], 1, -1, colour, chain, libs, sums, squares, stride) == cell[7]
    # ... unless 7 is the ko point: no answer.
    assert _local_answer(cell[4], 1, cell[7], colour, chain, libs, sums, squares, stride) == -1
    # With Black's 6 too, 7 has one empty neighbour left: no escape there.
    colour, chain, libs, sums, squares, cell = _playout_board(3, [1, 3, 5, 6], [4])
    assert _local_answer(cell[5], 2, -1, colour, chain, libs, sums, squares, stride) == -1
    # After Black's 1 in the corner of another board, nothing is in atari: no answer.
    colour, chain, libs, sums, squares, cell = _playout_board(3, [0], [8])
    assert _local_answer(cell[0], 2, -1, colour, chain, libs, sums, squares, stride) == -1
