"""Go's ladder reader (:mod:`playout.games.go.ladder`) on hand-built positions with known
answers, and what the kernel makes of it: ladder priors, MoGo playouts that leave a chain
caught in a ladder, and playouts that answer the tree's last move.

Boards are drawn top row first: ``X``/``x`` Black, ``O``/``o`` White, ``.`` empty; the one
lower-case stone is the chain the reader is asked about.
"""

from __future__ import annotations

import numpy as np
import pytest

from playout._src.tree.rng import new_rng_state
from playout.games.go import GoGame
from playout.games.go.board import point_from_name
from playout.games.go.kernel import (
    LAST_LENGTH,
    PLAYOUT_ALL,
    PLAYOUT_LADDERS,
    PLAYOUT_LAST_MOVE,
    PRIOR_ESCAPE,
    PRIOR_LADDER_ATARI,
    PRIOR_LADDER_ESCAPE,
    PRIORS_ALL,
    PRIORS_LADDERS,
    PRIORS_TACTICS,
    go_kernel,
)
from playout.games.go.ladder import (
    BORDER,
    ladder_captures,
    ladder_work_size,
    max_depth,
    play_on_box,
)

from .test_go_patterns import priors

COLOURS = {".": 0, "X": 1, "x": 1, "O": 2, "o": 2}


def mailbox(rows: list[str]) -> tuple[np.ndarray, int, int]:
    """The mailbox of a drawing, its stride, and the cell of its lower-case stone (-1)."""
    size = len(rows)
    stride = size + 1
    box = np.full((size + 2) * stride + 1, BORDER, dtype=np.int64)
    marked = -1
    for y, row in enumerate(rows):
        assert len(row) == size
        for x, char in enumerate(row):
            cell = (y + 1) * stride + x + 1
            box[cell] = COLOURS[char]
            if char in "xo":
                marked = cell
    return box, stride, marked


def caught(rows: list[str], depth_limit: int | None = None) -> bool:
    """Whether the lower-case stone's chain, its owner to move, is caught in a ladder; the
    reader must leave the board as it was."""
    box, stride, cell = mailbox(rows)
    before = box.copy()
    size = len(rows)
    work = np.zeros(ladder_work_size(size), dtype=np.int64)
    limit = max_depth(size) if depth_limit is None else depth_limit
    answer = bool(ladder_captures(box, cell, stride, -1, work, limit))
    assert np.array_equal(box, before)
    return answer


def put(rows: list[str], x: int, y: int, char: str) -> list[str]:
    """``rows`` with ``char`` on column ``x`` of row ``y``."""
    out = list(rows)
    out[y] = out[y][:x] + char + out[y][x + 1 :]
    return out


# Black's x in atari (liberty to its right) with White's stones set as stairs above it: the
# ladder runs down and to the right, towards the far corner.
LADDER_9 = [
    ".........",
    "..OO.....",
    ".Ox......",
    "..O......",
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
]


def ladder_19(breaker: tuple[int, int, str] | None = None) -> list[str]:
    """The same start on 19x19 (the ladder crosses the whole board), with an optional stone."""
    rows = ["." * 19 for _ in range(19)]
    for x, y, char in ((2, 1, "O"), (3, 1, "O"), (1, 2, "O"), (2, 2, "x"), (2, 3, "O")):
        rows = put(rows, x, y, char)
    if breaker is not None:
        rows = put(rows, *breaker)
    return rows


# ------------------------------------------------------------------------- the reader


def test_a_ladder_with_nothing_in_its_way_works() -> None:
    assert caught(LADDER_9)
    assert caught(ladder_19())  # 17 steps to the edge, well inside the depth bound


@pytest.mark.parametrize("x", [4, 5, 6, 7])
def test_a_ladder_breaker_on_the_diagonal_saves_the_chain(x: int) -> None:
    # A Black stone on the ladder's path: the runner connects and escapes. A White stone
    # there only helps the attacker.
    assert not caught(put(LADDER_9, x, x, "X"))
    assert caught(put(LADDER_9, x, x, "O"))
    assert not caught(ladder_19((x + 8, x + 8, "X")))
    assert caught(ladder_19((x + 8, x + 8, "O")))


def test_a_stone_off_the_path_does_not_break_the_ladder() -> None:
    assert caught(put(LADDER_9, 1, 7, "X"))
    assert caught(ladder_19((17, 2, "X")))


def test_the_defender_escapes_by_capturing_an_attacker_in_atari() -> None:
    # White's stone left of x is in atari (Black on two of its other sides): taking it on B6
    # opens the net. Without Black's A7 it has two liberties, and the ladder works.
    rows = put(put(LADDER_9, 0, 2, "X"), 1, 1, "X")
    assert rows[1:4] == [".XOO.....", "XOx......", "..O......"]
    assert not caught(rows)
    assert caught(put(rows, 0, 2, "."))


def test_a_ladder_along_the_edge() -> None:
    # x on the second line, in atari: extending along the first and second lines runs into
    # the edge, whichever way White ataris.
    rows = [
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        "..OO.....",
        ".Ox......",
        "..O......",
    ]
    assert caught(rows)
    # A Black stone next to its liberty lets it out.
    assert not caught(put(rows, 4, 7, "X"))


def test_what_is_not_a_ladder() -> None:
    # Two liberties (nothing to read), and an empty point: no ladder.
    assert not caught(put(LADDER_9, 2, 3, "."))
    box, stride, _ = mailbox(LADDER_9)
    work = np.zeros(ladder_work_size(9), dtype=np.int64)
    assert not ladder_captures(box, stride + 1, stride, -1, work, max_depth(9))
    # A depth bound too short for the chase answers "escaped".
    assert caught(ladder_19(), depth_limit=max_depth(19))
    assert not caught(ladder_19(), depth_limit=8)


def test_reading_as_white_is_the_same() -> None:
    swapped = [row.translate(str.maketrans("XxOo", "OoXx")) for row in LADDER_9]
    assert caught(swapped)
    assert not caught(put(swapped, 6, 6, "O"))


def test_play_on_box_captures_forbids_suicide_and_finds_the_ko() -> None:
    rows = [
        ".....",
        ".XO..",
        "XO.O.",
        ".XO..",
        ".....",
    ]
    box, stride, _ = mailbox(rows)
    mark = np.zeros(box.shape[0], dtype=np.int64)
    queue = np.zeros(box.shape[0], dtype=np.int64)
    found = np.zeros(box.shape[0], dtype=np.int64)
    centre = 3 * stride + 3
    # Black on the centre takes White's stone left of it: a ko White may not retake at once.
    assert play_on_box(box, centre, 1, stride, mark, queue, found) == (1, 3 * stride + 2)
    assert box[3 * stride + 2] == 0 and box[centre] == 1
    assert not mark.any()
    # Black's corner point A5 is fine; White's stone into Black's single eye is suicide.
    eye = mailbox(["X.X..", "XX...", ".....", ".....", "....."])
    box, stride, _ = eye
    assert play_on_box(box, stride + 2, 2, stride, mark, queue, found) == (-1, -1)
    assert box[stride + 2] == 0


# ------------------------------------------------------------------------- the priors


def test_an_escape_from_a_working_ladder_is_penalised() -> None:
    # Black's C7 in atari, its liberty D7: an escape by the tactics alone, a lost cause by
    # the ladder; with a breaker on the path, an escape again.
    assert priors(LADDER_9, 0, ["D7"], PRIORS_TACTICS) == [PRIOR_ESCAPE]
    assert priors(LADDER_9, 0, ["D7"], PRIORS_ALL) == [PRIOR_LADDER_ESCAPE]
    assert priors(LADDER_9, 0, ["D7"], PRIORS_LADDERS) == [PRIOR_LADDER_ESCAPE]
    assert priors(put(LADDER_9, 6, 6, "X"), 0, ["D7"], PRIORS_ALL) == [PRIOR_ESCAPE]


def test_the_atari_that_starts_a_working_ladder_earns_the_bonus() -> None:
    # Without White's C6, Black's C7 has two liberties: White's C6 starts the ladder, White's
    # D7 lets Black run out through C6.
    rows = put(LADDER_9, 2, 3, ".")
    assert priors(rows, 1, ["C6", "D7"], PRIORS_LADDERS) == [PRIOR_LADDER_ATARI, 0.0]
    assert priors(rows, 1, ["C6"], PRIORS_TACTICS) == [0.0]
    # A breaker on the path: no bonus.
    assert priors(put(rows, 6, 6, "X"), 1, ["C6"], PRIORS_LADDERS) == [0.0]


# ------------------------------------------------------------------------- the playouts


def first_moves(features: int, seeds: int = 20) -> set[str]:
    """The first stone of MoGo playouts after White's D3 put Black's D5-D4 in atari (7x7)."""
    game = GoGame(7)
    rows = [".......", ".......", "..OXO..", "..OXO..", ".......", ".......", "......."]
    d3 = point_from_name(7, "D3")
    assert d3 is not None
    state = game.from_board(rows, 1).play(d3)
    assert state.last_move == d3
    kernel = go_kernel(7, playouts="mogo", features=features)
    compact = kernel.encode(state)
    out_actions = np.zeros(kernel.max_length, dtype=np.int64)
    out_players = np.zeros(kernel.max_length, dtype=np.int64)
    seen = set()
    for seed in range(seeds):
        scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        _, count = kernel.recorded_rollout(
            kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
        )
        assert count > 0 and out_players[0] == 0
        seen.add(game.action_to_string(state, int(out_actions[0])))
    return seen


def test_the_first_playout_move_answers_the_trees_last_move() -> None:
    assert first_moves(PLAYOUT_ALL) == {"D6"}
    assert first_moves(PLAYOUT_LAST_MOVE) == {"D6"}
    assert len(first_moves(PLAYOUT_LADDERS)) > 5  # drawn uniformly


def test_the_last_move_is_in_the_compact_state() -> None:
    game = GoGame(9)
    kernel = go_kernel(9)
    state = game.initial_state()
    compact = kernel.encode(state)
    for move in ("E5", "C3", "pass", "D4"):
        action = game.string_to_action(state, move)
        kernel.play(kernel.params, compact, action)
        state = state.play(action)
        assert np.array_equal(compact, kernel.encode(state))
        assert state.last_move == (-1 if move == "pass" else action)
    with pytest.raises(Exception, match="PLAYOUT"):
        go_kernel(9, features=PLAYOUT_ALL + 1)


@pytest.mark.parametrize("size", [9, 19])
def test_playouts_with_every_feature_are_games_of_go(size: int) -> None:
    # From positions of random games: the playouts end, credit distinct points, leave the
    # state alone, and their first stone is a legal move of the position.
    game = GoGame(size)
    kernel = go_kernel(size, playouts="mogo", features=PLAYOUT_ALL)
    light = go_kernel(size)
    out_actions = np.zeros(kernel.max_length, dtype=np.int64)
    out_players = np.zeros(kernel.max_length, dtype=np.int64)
    rng = np.random.default_rng(size)
    state = game.initial_state()
    # One scratch for all: the last good replies learned in one playout are read in the next.
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    checked = 0
    for _ in range(12):
        for _ in range(int(rng.integers(3, 12))):
            legal = state.legal_actions()[:-1]  # no passes
            state = state.play(int(rng.choice(legal)))
        compact = kernel.encode(state)
        before = compact.copy()
        value, count = kernel.recorded_rollout(
            kernel.params, compact, scratch, new_rng_state(int(rng.integers(1000))),
            out_actions, out_players,
        )  # fmt: skip
        points = out_actions[:count].tolist()
        assert value in (-1.0, 0.0, 1.0) and len(set(points)) == count
        assert np.array_equal(compact, before)
        assert 0 < scratch[LAST_LENGTH] <= kernel.max_length - state.num_moves
        if count and out_players[0] == state.current_player():
            assert points[0] in light.legal(light.encode(state))
            checked += 1
    assert checked >= 6  # the mover's own first stone, not a pass, in most positions
