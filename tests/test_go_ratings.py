"""Learned Go move ratings (Coulom 2007): the features of a move on hand-built positions, the
shape classes, the priors they give, and the MM fit against answers worked out by hand.

Boards are drawn top row first: ``X`` Black, ``O`` White, ``.`` empty
(:meth:`GoGame.from_board`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playout
from playout import MCTS, RAVE, Budget, Rollout
from playout._src.arena.players import GO_ROLLOUTS, MctsOptions, MctsPlayer
from playout._src.arena.specs import parse_player
from playout._src.errors import InvalidParameterError
from playout.cli import main
from playout.games.go import GoGame
from playout.games.go import features as F
from playout.games.go import ratings as R
from playout.games.go.board import default_max_length, point_from_name
from playout.games.go.heavy import GoPlayouts
from playout.games.go.kernel import (
    P_FEATURES,
    P_POLICY,
    P_PRIORS,
    P_RATINGS,
    PRIORS_ALL,
    PRIORS_RATINGS,
    RATING_SCALE,
    encode,
    go_kernel,
    go_move_features,
    go_move_priors,
    kernel_params,
)
from playout.games.go.patterns import (
    NEIGHBOUR_OFFSETS,
    NUM_CODES,
    OFF_BOARD,
    neighbour_code,
    point_code,
    shape_ids,
    swap_colours,
)

from .test_go_ladder import LADDER_9, put


def slots_of(
    rows: list[str], to_move: int, moves: list[str], last: str | None = None
) -> list[set[int]]:
    """The rating slots of ``moves`` (names) for ``to_move`` in the drawn position; ``last``:
    a move of the other player to play first (the position is drawn before it)."""
    size = len(rows)
    game = GoGame(size)
    rows = [row.upper() for row in rows]  # a lower-case stone is a stone like any other
    state = game.from_board(rows, to_move if last is None else 1 - to_move)
    if last is not None:
        state = state.play(game.string_to_action(state, last))
    params = kernel_params(
        size, 7.5, default_max_length(size), priors=PRIORS_RATINGS, ratings=np.zeros(F.NUM_SLOTS)
    )
    actions = np.array([point_from_name(size, m) for m in moves], dtype=np.int64)
    out = np.empty((len(moves), F.MAX_FEATURES), dtype=np.int64)
    go_move_features(params, encode(state, size, default_max_length(size)), actions, out)
    return [set(int(s) for s in row if s >= 0) for row in out]


def tactical(slots: set[int]) -> set[int]:
    """The slots of the capture, escape, atari and self-atari groups."""
    return {s for s in slots if s < F.F_DISTANCE}


EMPTY_9 = ["." * 9] * 9


# ------------------------------------------------------------------------- the shapes


def images(code: int) -> set[int]:
    """The codes of the eight rotations and reflections of ``code``'s surroundings."""
    position = {offset: i for i, offset in enumerate(NEIGHBOUR_OFFSETS)}
    values = [(code >> (2 * i)) & 3 for i in range(8)]
    out = set()
    for swap, sx, sy in itertools.product((False, True), (1, -1), (1, -1)):
        moved = [0] * 8
        for i, (dx, dy) in enumerate(NEIGHBOUR_OFFSETS):
            image = ((dy if swap else dx) * sx, (dx if swap else dy) * sy)
            moved[position[image]] = values[i]
        out.add(neighbour_code(moved))
    return out


def test_the_shapes_are_the_classes_of_the_codes_a_board_has() -> None:
    ids, count = shape_ids()
    valid = np.flatnonzero(ids >= 0)
    # 3^8 inside, 3^5 along each of 4 edges, 3^3 in each of 4 corners.
    assert valid.shape[0] == 3**8 + 4 * 3**5 + 4 * 3**3
    classes = {frozenset(images(int(code))) for code in valid}
    assert count == len(classes) == F.NUM_SHAPES
    for members in classes:
        assert len({int(ids[c]) for c in members}) == 1  # one id per class
    assert len({int(ids[min(c)]) for c in classes}) == count  # and classes do not share
    # A code with an off-board point between two on the board exists on no board.
    middle = neighbour_code([0, OFF_BOARD, 0, 0, 0, 0, 0, 0])
    assert ids[middle] == -1
    # Every point of every board has a shape.
    for size in (2, 3, 9):
        board = [0] * (size * size)
        for point in range(size * size):
            assert ids[point_code(board, size, point)] >= 0


@given(st.lists(st.integers(0, 3), min_size=8, max_size=8))
def test_swapping_colours_twice_is_the_identity(values: list[int]) -> None:
    code = neighbour_code(values)
    swapped = swap_colours(code)
    assert swapped == neighbour_code([{1: 2, 2: 1}.get(v, v) for v in values])
    assert swap_colours(swapped) == code and 0 <= swapped < NUM_CODES


# ------------------------------------------------------------------------- the features


def test_captures_of_one_stone_of_more_and_those_that_save_a_chain() -> None:
    rows = list(EMPTY_9)
    rows[3] = "....X...."
    rows[4] = "...XO...."  # White's E5 in atari (at F5): Black's F5 captures a lone stone
    rows[5] = "....X...."
    assert tactical(slots_of(rows, 0, ["F5"])[0]) == {F.F_CAPTURE_ONE}
    two = put(put(put(rows, 5, 4, "O"), 5, 3, "X"), 5, 5, "X")  # E5-F5 in atari, at G5
    assert tactical(slots_of(two, 0, ["G5"])[0]) == {F.F_CAPTURE_MANY}
    # Black's E5 in atari (at E4) from White's F5, itself in atari (at G5): G5 saves E5.
    rows = list(EMPTY_9)
    rows[3] = "....OX..."
    rows[4] = "...OXO..."
    rows[5] = ".....X..."
    assert tactical(slots_of(rows, 0, ["G5"])[0]) == {F.F_CAPTURE_SAVES}


def test_escapes_by_liberties_and_the_ladder() -> None:
    # Black's C7 in atari (its liberty D7) in a working ladder: the extension is caught.
    assert F.F_ESCAPE_LADDER in slots_of(LADDER_9, 0, ["D7"])[0]
    # A breaker on the path: an extension to two liberties.
    assert F.F_ESCAPE_TWO in slots_of(put(LADDER_9, 6, 6, "X"), 0, ["D7"])[0]
    # A lone Black stone in atari on the open board, White on three sides: D5's extension
    # to E5 gives three liberties.
    rows = list(EMPTY_9)
    rows = put(put(put(put(rows, 3, 4, "X"), 2, 4, "O"), 3, 3, "O"), 3, 5, "O")
    assert tactical(slots_of(rows, 0, ["E5"])[0]) == {F.F_ESCAPE_MORE}


def test_ataris_and_the_one_that_starts_a_working_ladder() -> None:
    rows = put(LADDER_9, 2, 3, ".")  # Black's C7 with two liberties, C6 and D7
    assert tactical(slots_of(rows, 1, ["C6"])[0]) == {F.F_ATARI_LADDER}
    assert tactical(slots_of(rows, 1, ["D7"])[0]) == {F.F_ATARI}  # Black runs out at C6


def test_self_ataris_of_a_lone_stone_and_of_a_chain() -> None:
    rows = list(EMPTY_9)
    rows[0] = "O.O......"  # Black's B9 alone between White stones: one liberty (B8)
    assert tactical(slots_of(rows, 0, ["B9"])[0]) == {F.F_SELF_ATARI_ONE}
    rows = list(EMPTY_9)
    rows[1] = "XO......."  # Black's A8 in atari (at A9): A9 joins it, one liberty (B9)
    rows[2] = "O........"
    assert tactical(slots_of(rows, 0, ["A9"])[0]) == {F.F_SELF_ATARI_MANY}


def test_the_distance_to_the_last_move_and_the_line() -> None:
    found = slots_of(EMPTY_9, 0, ["E5", "F6", "A1", "E7", "J9"], last="E6")
    line = [min(s for s in slots if F.F_LINE <= s < F.F_SHAPE) - F.F_LINE + 1 for slots in found]
    assert line == [5, 4, 1, 3, 1]
    distance = [
        {s - F.F_DISTANCE + 2 for s in slots if F.F_DISTANCE <= s < F.F_LINE} for slots in found
    ]
    # E5: 0 + 1 + 1; F6: 1 + 0 + 1; A1: 4 + 5 + 5 = 14; E7: 2; J9: 4 + 3 + 4 = 11.
    assert distance == [{2}, {2}, {14}, {2}, {11}]
    # Far away (A9 to J1: 8 + 8 + 8): no slot past 16.
    far = slots_of(EMPTY_9, 0, ["J1"], last="A9")[0]
    assert not any(F.F_DISTANCE <= s < F.F_LINE for s in far)
    # No last move: no distance.
    assert not any(F.F_DISTANCE <= s < F.F_LINE for s in slots_of(EMPTY_9, 0, ["E5"])[0])


def test_the_shape_is_the_movers_whatever_the_colour() -> None:
    rows = list(EMPTY_9)
    rows[3] = "...XO...."
    swapped = [r.replace("X", "x").replace("O", "X").replace("x", "O") for r in rows]
    black = slots_of(rows, 0, ["D5"])[0]
    white = slots_of(swapped, 1, ["D5"])[0]
    shape = {s for s in black if s >= F.F_SHAPE}
    assert len(shape) == 1 and shape == {s for s in white if s >= F.F_SHAPE}
    code = point_code([{"X": 1, "O": 2}.get(c, 0) for r in rows for c in r], 9, 4 * 9 + 3)
    assert shape == {F.F_SHAPE + int(shape_ids()[0][code])}
    # The other player sees the other shape.
    other = {s for s in slots_of(rows, 1, ["D5"])[0] if s >= F.F_SHAPE}
    assert other != shape


def test_a_move_has_at_most_one_slot_a_group() -> None:
    rows = list(EMPTY_9)
    rows[3] = "....X...."
    rows[4] = "...XO...."
    rows[5] = "....X...."
    for slots in slots_of(rows, 0, ["F5", "A1", "C5"]):
        for _, start, stop in F.GROUPS:
            assert len([s for s in slots if start <= s < stop]) <= 1


# ------------------------------------------------------------------------- the priors


def rated_priors(
    rows: list[str], to_move: int, moves: list[str], ratings: np.ndarray
) -> list[float]:
    size = len(rows)
    game = GoGame(size)
    state = game.from_board(rows, to_move)
    params = kernel_params(
        size, 7.5, default_max_length(size), priors=PRIORS_RATINGS, ratings=ratings
    )
    actions = np.array(
        [size * size if m == "pass" else point_from_name(size, m) for m in moves], dtype=np.int64
    )
    out = np.empty(len(moves), dtype=np.float64)
    go_move_priors(params, encode(state, size, default_max_length(size)), actions, out)
    return [float(v) for v in out]


def test_priors_from_ratings_are_the_log_odds_against_a_uniform_draw() -> None:
    rows = list(EMPTY_9)
    rows[4] = "...XO...."
    rows[3] = "....X...."
    rows[5] = "....X...."
    moves = ["F5", "A1", "C3", "G7", "pass"]
    # All gammas 1: every move as likely as a uniform draw, score 0; the pass: NaN.
    flat = rated_priors(rows, 0, moves, np.zeros(F.NUM_SLOTS))
    assert flat[:4] == [0.0] * 4 and math.isnan(flat[4])
    # The capture three times likelier than the others (gamma 3): among four moves its
    # chance is 3 / 6, the others' 1 / 6; scores log(p * 4) / RATING_SCALE, clipped.
    table = np.zeros(F.NUM_SLOTS)
    table[F.F_CAPTURE_ONE] = math.log(3)
    scores = rated_priors(rows, 0, moves, table)
    assert scores[0] == pytest.approx(math.log(4 * 3 / 6) / RATING_SCALE, abs=1e-3)
    assert scores[1:4] == pytest.approx([math.log(4 / 6) / RATING_SCALE] * 3, abs=1e-3)
    # A sure capture: the chance 1, the score log(4) / scale; the others clipped to -1.
    table[F.F_CAPTURE_ONE] = 50.0
    sure = rated_priors(rows, 0, moves, table)
    assert sure[0] == pytest.approx(math.log(4) / RATING_SCALE, abs=1e-3)
    assert sure[1:4] == [-1.0] * 3


def test_a_kernel_with_ratings_searches_and_refuses_bad_tables() -> None:
    game = GoGame(9)
    search = MCTS(
        game.initial_state(),
        selection=RAVE(bias=0.01, prior=50),
        evaluator=Rollout(policy=GoPlayouts("mogo", priors=PRIORS_RATINGS)),
        seed=1,
    )
    assert search.backend == "compiled"
    result = search.run(Budget(simulations=200))
    assert result.best_action in game.initial_state().legal_actions()
    assert go_kernel(9, priors=PRIORS_RATINGS).params.shape[0] > go_kernel(9).params.shape[0]
    with pytest.raises(InvalidParameterError, match="log gammas"):
        kernel_params(9, 7.5, 243, priors=PRIORS_RATINGS, ratings=np.zeros(3))
    with pytest.raises(InvalidParameterError, match="log gammas"):
        kernel_params(9, 7.5, 243, priors=PRIORS_RATINGS, ratings=np.full(F.NUM_SLOTS, np.nan))
    with pytest.raises(InvalidParameterError, match="rating_scale"):
        kernel_params(9, 7.5, 243, priors=PRIORS_RATINGS, rating_scale=0.0)
    with pytest.raises(InvalidParameterError, match="rating_scale"):
        go_kernel(9, priors=PRIORS_RATINGS, rating_scale="2")  # type: ignore[arg-type]
    # The scale a player's playouts name reaches the kernel (thousandths).
    kernel = GoPlayouts("mogo", PRIORS_RATINGS, rating_scale=3.0).compiled_kernel(go_kernel(9))
    assert kernel.params[kernel.params[P_RATINGS]] == 3000


def test_the_mogo_playouts_take_the_learned_ratings_as_priors() -> None:
    """``rollout=mogo|lgrf`` score moves with the shipped ratings; ``mogo-hand``,
    ``lgrf-hand``, ``heavy`` and the game's own kernel (light playouts) with the hand-made
    pieces."""
    game = GoGame(9)
    base = game.initial_state().compiled_kernel()
    offered = game.rollout_policies()

    def kernel_of(name: str) -> playout.Kernel:
        player = parse_player(f"mcts:simulations=30,rule=rave,prior=50,rollout={name}", game)
        assert isinstance(player, MctsPlayer)
        policy = player.options.evaluator(game).policy
        assert policy is offered[name]
        return policy.compiled_kernel(base)

    shipped = np.round(1000 * R.shipped_ratings()).astype(np.int64)
    for name in ("mogo", "lgrf"):
        params = kernel_of(name).params
        assert params[P_PRIORS] == PRIORS_RATINGS and params[P_RATINGS] > 0
        assert np.array_equal(params[params[P_RATINGS] + 1 + len(shape_ids()[0]) :], shipped)
        hand = kernel_of(f"{name}-hand").params
        assert hand[P_PRIORS] == PRIORS_ALL and hand[P_RATINGS] == 0
        assert hand[P_FEATURES] == params[P_FEATURES] and hand[P_POLICY] == params[P_POLICY]
    for params in (kernel_of("heavy").params, base.params):
        assert params[P_PRIORS] == PRIORS_ALL and params[P_RATINGS] == 0
    assert set(offered) == set(GO_ROLLOUTS)
    with pytest.raises(InvalidParameterError, match=r"choose .*\blgrf-hand\b"):
        parse_player("mcts:rule=rave,rollout=lgrf_hand", game)
    args = ["analyze", "go", "--size", "5", "--simulations", "20", "--seed", "1", "--json"]
    assert main([*args, "--rule", "rave", "--rave-prior", "10", "--rollout", "lgrf-hand"]) == 0


def test_features_without_ratings_leave_the_shape_out() -> None:
    game = GoGame(9)
    compact = encode(game.initial_state(), 9, 243)
    actions = np.array([40, 0], dtype=np.int64)
    out = np.empty((2, F.MAX_FEATURES), dtype=np.int64)
    go_move_features(kernel_params(9, 7.5, 243), compact, actions, out)
    assert [set(int(s) for s in row if s >= 0) for row in out] == [
        {F.F_LINE + 4},
        {F.F_LINE},
    ]
    with pytest.raises(ValueError, match="MAX_FEATURES"):
        go_move_features(kernel_params(9, 7.5, 243), compact, actions, out[:, :2])


# ------------------------------------------------------------------------- the fit


def two_way(wins: int, games: int) -> R.Competitions:
    """``games`` positions of two candidates, one with the lone-stone capture feature (and
    nothing else), chosen in the first ``wins``."""
    slots = np.full((2 * games, F.MAX_FEATURES), -1, dtype=np.int64)
    slots[0::2, 0] = F.F_CAPTURE_ONE
    chosen = np.zeros(2 * games, dtype=bool)
    chosen[0 : 2 * wins : 2] = True
    chosen[2 * wins + 1 :: 2] = True
    return R.Competitions(
        slots=slots,
        position=np.repeat(np.arange(games), 2),
        chosen=chosen,
        game=np.arange(games),
        priors=np.zeros(2 * games),
    )


@pytest.mark.parametrize(("wins", "games"), [(7, 10), (0, 5), (20, 20), (3, 12)])
def test_the_fit_of_a_two_way_choice_is_the_smoothed_odds(wins: int, games: int) -> None:
    # With a virtual win and loss against strength 1, P(feature) = gamma / (gamma + 1) is
    # (wins + 1) / (games + 2): gamma = (wins + 1) / (games - wins + 1). Unseen slots keep 1.
    log_gamma = R.fit(two_way(wins, games), iterations=2000, tolerance=1e-12)
    assert log_gamma[F.F_CAPTURE_ONE] == pytest.approx(
        math.log((wins + 1) / (games - wins + 1)), abs=1e-6
    )
    others = np.delete(log_gamma, F.F_CAPTURE_ONE)
    assert np.allclose(others, 0.0)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_fit_raises_the_likelihood_and_predicts_a_known_model(seed: int) -> None:
    # Positions of six candidates with random slots of two groups; the moves drawn from a
    # known model. The fit's likelihood is above the start's, and with enough
    # positions its best guesses order the slots as the model does.
    rng = np.random.default_rng(seed)
    positions = 400
    truth = np.zeros(F.NUM_SLOTS)
    truth[F.F_LINE : F.F_LINE + 3] = [1.5, 0.0, -1.5]
    truth[F.F_DISTANCE : F.F_DISTANCE + 2] = [1.0, -1.0]
    slots = np.full((6 * positions, F.MAX_FEATURES), -1, dtype=np.int64)
    slots[:, 0] = F.F_LINE + rng.integers(0, 3, 6 * positions)
    slots[:, 1] = F.F_DISTANCE + rng.integers(0, 2, 6 * positions)
    position = np.repeat(np.arange(positions), 6)
    strength = np.exp(truth[slots[:, 0]] + truth[slots[:, 1]]).reshape(positions, 6)
    choice = [rng.choice(6, p=row / row.sum()) for row in strength]
    chosen = np.zeros(6 * positions, dtype=bool)
    chosen[np.arange(positions) * 6 + np.array(choice)] = True
    data = R.Competitions(slots, position, chosen, np.arange(positions), np.zeros(6 * positions))
    fitted = R.fit(data, iterations=200)
    scores = R.ratings_of(data, fitted)
    assert R.log_likelihood(data, scores) > R.log_likelihood(data, np.zeros(6 * positions))
    line = fitted[F.F_LINE : F.F_LINE + 3]
    assert line[0] > line[1] > line[2]
    assert fitted[F.F_DISTANCE] > fitted[F.F_DISTANCE + 1]


def test_prediction_rate_and_likelihood_by_hand() -> None:
    data = two_way(1, 2)  # position 0: the feature chosen; position 1: the other
    scores = np.array([1.0, 0.0, 1.0, 0.0])
    assert R.prediction_rate(data, scores) == 0.5
    assert R.prediction_rate(data, np.zeros(4)) == 0.5  # ties: half a hit each
    p = math.exp(1) / (math.exp(1) + 1)
    assert R.log_likelihood(data, scores) == pytest.approx((math.log(p) + math.log(1 - p)) / 2)


def test_competitions_of_a_record() -> None:
    record = {
        "game": "go",
        "params": {"size": 9, "komi": 7.5},
        "players": ["a", "b"],
        "actions": [40, 41, 81, 31, 30, 81, 81],
    }
    data = R.competitions([record])
    assert data.positions == 4  # the passes are no competitions
    assert np.bincount(data.position, weights=data.chosen).tolist() == [1, 1, 1, 1]
    # 81 legal points on the empty board, then 80, (a pass), 79 and 78.
    assert np.bincount(data.position).tolist() == [81, 80, 79, 78]
    blacks = R.competitions([record], keep=lambda _, player: player == 0)
    assert blacks.positions == 2  # Black's 40 and 30 (Black's pass is none)
    with pytest.raises(InvalidParameterError, match="not legal"):
        R.competitions([{**record, "actions": [40, 40]}])
    with pytest.raises(InvalidParameterError, match="not a Go game"):
        R.competitions([{**record, "game": "connect4"}])


def test_tables_are_saved_loaded_and_checked(tmp_path: Path) -> None:
    values = np.linspace(-1, 1, F.NUM_SLOTS)
    path = tmp_path / "table.json"
    R.save_ratings(path, values, {"command": "test"})
    assert np.allclose(R.load_ratings(path.read_text()), values, atol=1e-4)
    assert json.loads(path.read_text())["source"] == {"command": "test"}
    with pytest.raises(InvalidParameterError, match="rating table"):
        R.load_ratings('{"format": "other"}')
    with pytest.raises(InvalidParameterError, match="JSON"):
        R.load_ratings("{")
    document = json.loads(path.read_text())
    document["log_gamma"] = document["log_gamma"][:-1]
    with pytest.raises(InvalidParameterError, match="finite log gammas"):
        R.load_ratings(json.dumps(document))
    document = json.loads(path.read_text())
    document["groups"]["line"] = [25, 31]
    with pytest.raises(InvalidParameterError, match="layout"):
        R.load_ratings(json.dumps(document))
    shipped = R.shipped_ratings()
    assert shipped.shape == (F.NUM_SLOTS,) and np.all(np.isfinite(shipped))


def test_the_gnugo_matches_player_is_the_lgrf_spec() -> None:
    """The 325-of-400 player of bench/go_knowledge.py (``mogo:ratings:nakade+lgrf`` with its
    defaults: RAVE bias 0.01, 50 virtual samples) is ``mcts:...,rule=rave,bias=0.01,
    prior=50,rollout=lgrf``: the same search options, the same kernel parameters, and so,
    seeded alike, the same moves."""
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "bench" / "go_knowledge.py"
    spec = importlib.util.spec_from_file_location("go_knowledge", script)
    assert spec is not None and spec.loader is not None
    knowledge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(knowledge)
    game = GoGame(9)
    base = game.initial_state().compiled_kernel()
    named = parse_player("mcts:simulations=300,rule=rave,bias=0.01,prior=50,rollout=lgrf", game)
    assert isinstance(named, MctsPlayer)
    # The options go_knowledge.main() makes (its --bias and --prior defaults).
    options = MctsOptions(budget=Budget(simulations=300), rule="rave", bias=0.01, prior=50)
    assert dataclasses.replace(named.options, rollout="random") == options
    bench = knowledge.KnowledgePlayer(
        game, options, knowledge.parse_player("mogo:ratings:nakade+lgrf"), name="bench"
    )
    ours = named.options.evaluator(game).policy.compiled_kernel(base).params
    theirs = bench._evaluator.policy.compiled_kernel(base).params
    assert np.array_equal(ours, theirs)
    state = game.initial_state()
    for player in (named, bench):
        player.reset(state, 5)
    for _ in range(4):
        move = named.choose(state)
        assert bench.choose(state) == move
        state = state.play(move)
