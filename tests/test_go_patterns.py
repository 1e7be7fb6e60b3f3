"""Go's 3x3 patterns, MoGo playouts and pattern priors, with known answers.

The pattern table is checked on hand-made neighbourhoods (each family, its rotations and
reflections, the colour swap, the colour restriction of the thin hane, the edge), against the
direct matcher of the readable descriptions on every code, and the compiled lookups against
the Python ones on random positions. The MoGo playout's parts are checked where the rule
forces the answer (an escape, a capture, the patterns around the last stone), its self-atari
test against liberties counted in Python, and its playouts for the invariants every playout
keeps (they end, leave eyes alone, record legal first stones). Positions are drawn as in
:meth:`GoGame.from_board` (``X`` Black, ``O`` White, top row first).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np
import pytest

import playout
from playout import RAVE, Budget
from playout._src.arena.players import MctsPlayer
from playout._src.arena.specs import parse_player
from playout._src.tree.rng import new_rng_state
from playout.cli import main
from playout.games.go import GoGame, GoState
from playout.games.go import patterns as P
from playout.games.go.board import point_from_name
from playout.games.go.heavy import MOGO_PLAYOUTS, GoPlayouts
from playout.games.go.kernel import (
    LAST_LENGTH,
    NAKADE_POINTS,
    P_CELLS,
    P_POLICY,
    P_TABLES,
    PLAYOUT_CAPTURES,
    PLAYOUT_LAST_MOVE,
    PLAYOUT_LGRF,
    PLAYOUT_NAKADE,
    POLICY_MOGO,
    PRIOR_LONE_EDGE,
    PRIOR_PATTERN,
    PRIOR_SELF_ATARI,
    PRIORS_ALL,
    PRIORS_PATTERNS,
    PRIORS_RATINGS,
    PRIORS_TACTICS,
    _cell_code,
    _global_capture,
    _in_small_enclosure,
    _is_self_atari,
    _learn_replies,
    _mogo_answer,
    _pattern_matches,
    _point_code,
    go_kernel,
    reply_offset,
)
from playout.games.go.ladder import ladder_work_size, max_depth

BLACK, WHITE, EMPTY, OFF = 1, 2, 0, 3


def around(rows: tuple[str, str, str]) -> list[int]:
    """The eight neighbour values of a 3x3 drawing (``X`` Black, ``O`` White, ``.`` empty,
    ``#`` off the board), in the table's order."""
    values = {"X": BLACK, "O": WHITE, ".": EMPTY, "#": OFF}
    return [values[rows[dy + 1][dx + 1]] for dx, dy in P.NEIGHBOUR_OFFSETS]


def match(rows: tuple[str, str, str], to_play: int) -> bool:
    return bool(P.pattern_table()[P.neighbour_code(around(rows))] >> (to_play - 1) & 1)


# ------------------------------------------------------------------------------ the table


def test_hane_in_every_orientation_and_colour() -> None:
    hane = ("XOX", "...", "...")
    assert match(hane, BLACK) and match(hane, WHITE)
    # Rotated a quarter turn, upside down, and with the colours swapped.
    assert match(("X..", "O..", "X.."), BLACK)
    assert match(("...", "...", "XOX"), WHITE)
    assert match(("OXO", "...", "..."), BLACK)
    # Not a hane: the stones are not attached to the point diagonally around it.
    assert not match(("X.X", "...", "..."), BLACK)
    assert not match(("...", "...", "..."), BLACK)


def test_the_thin_hane_matches_for_the_x_player_only() -> None:
    thin = ("XOO", "...", "...")  # X Black: Black to play only
    assert match(thin, BLACK) and not match(thin, WHITE)
    swapped = ("OXX", "...", "...")
    assert match(swapped, WHITE) and not match(swapped, BLACK)
    # The other hanes need an empty point below the point: thin hane's "?.?".
    assert not match(("XOO", "...", ".X."), BLACK)


def test_cut1_unless_guarded() -> None:
    cut = ("XO.", "O..", "...")
    assert match(cut, BLACK) and match(cut, WHITE)
    # Reflected left to right.
    assert match((".OX", "..O", "..."), BLACK)
    # Guarded by an O stone right of the point or below it: no cut 1 (nothing else either).
    assert not match(("XO.", "O.O", "..."), BLACK)
    assert not match(("XO.", "O..", ".O."), BLACK)


def test_cut2_unless_o_below() -> None:
    assert match((".X.", "O.O", "..."), BLACK)
    assert match((".X.", "O.O", "X.X"), WHITE)
    assert not match((".X.", "O.O", "O.."), BLACK)


def test_edge_patterns_need_the_edge() -> None:
    # Sagari: on the edge (bottom row off the board), and rotated onto the left edge.
    assert match((".XO", "...", "###"), BLACK)
    assert match(("#..", "#.X", "#.O"), BLACK)
    # The same stones away from the edge match no pattern (with a stone below the point,
    # which rules out the non-cutting hane these stones also make).
    assert not match((".XO", "...", ".X."), BLACK)
    # Block the connection, colours swapped.
    assert match((".O.", "..X", "###"), WHITE)
    assert not match((".O.", "..X", "..."), WHITE)


def test_the_table_agrees_with_the_descriptions_everywhere() -> None:
    # Every code, decoded to a 3x3 board of its own, against the direct matcher of each
    # pattern's images (the centre of a 3x3 board with the edges marked outside it).
    table = P.pattern_table()
    rng = random.Random(3)
    codes = rng.sample(range(P.NUM_CODES), 3000)
    checked = matched = 0
    for code in codes:
        values = [(code >> (2 * i)) & 3 for i in range(8)]
        for to_play in (BLACK, WHITE):
            direct = _direct(values, to_play)
            assert bool(table[code] >> (to_play - 1) & 1) == direct, (values, to_play)
            checked += 1
            matched += direct
    assert checked == 6000 and 0 < matched < checked


def _direct(values: list[int], to_play: int) -> bool:
    """Whether a pattern matches ``values`` for ``to_play``, symbol by symbol, without the
    library's images: each pattern's eight symmetric drawings built here."""
    grid = {offset: v for offset, v in zip(P.NEIGHBOUR_OFFSETS, values, strict=True)}
    for pattern in P.PATTERNS:
        for x_colour in (BLACK, WHITE):
            if pattern.x_to_play and to_play != x_colour:
                continue
            for turn in range(4):
                for flip in (False, True):
                    if all(
                        _symbol_accepts(
                            pattern.rows[dy + 1][dx + 1],
                            grid[_image(dx, dy, turn, flip)],
                            x_colour,
                        )
                        for dx in (-1, 0, 1)
                        for dy in (-1, 0, 1)
                        if (dx, dy) != (0, 0)
                    ):
                        return True
    return False


def _image(dx: int, dy: int, turn: int, flip: bool) -> tuple[int, int]:
    if flip:
        dx = -dx
    for _ in range(turn):
        dx, dy = -dy, dx
    return dx, dy


def _symbol_accepts(symbol: str, value: int, x: int) -> bool:
    o = 3 - x
    return {
        "X": value == x,
        "O": value == o,
        "x": value in (EMPTY, o),
        "o": value in (EMPTY, x),
        ".": value == EMPTY,
        "#": value == OFF,
        "?": True,
    }[symbol]


def test_bad_pattern_input_is_refused() -> None:
    with pytest.raises(ValueError, match="eight values"):
        P.neighbour_code([0] * 7)
    with pytest.raises(ValueError, match="three rows"):
        P.pattern_table((P.Pattern("bad", ("XO", "...", "...")),))


# ------------------------------------------------------------ compiled against Python


def random_position(size: int, moves: int, seed: int) -> GoState:
    """The position after ``moves`` uniformly random legal moves (passes left out)."""
    rng = random.Random(seed)
    state = GoGame(size).initial_state()
    for _ in range(moves):
        legal = [a for a in state.legal_actions() if a != size * size]
        if not legal:
            break
        state = state.play(rng.choice(legal))
    return state


def playout_board(state: GoState) -> tuple[np.ndarray, ...]:
    """The playout's board arrays of ``state`` (colours with the border, chain heads, rings,
    pseudo-liberty counts, sums and sums of squares) and each point's cell."""
    size = state.game.size
    stride = size + 1
    cells = (size + 2) * stride + 1
    colour = np.full(cells, OFF, dtype=np.int64)
    cell_of = np.array([(p // size + 1) * stride + p % size + 1 for p in range(size * size)])
    for p, value in enumerate(state.board):
        colour[cell_of[p]] = value
    chain = np.full(cells, -1, dtype=np.int64)
    ring = np.zeros(cells, dtype=np.int64)
    libs, sums, squares = (np.zeros(cells, dtype=np.int64) for _ in range(3))
    for start in range(cells):
        if colour[start] not in (BLACK, WHITE) or chain[start] >= 0:
            continue
        stones, stack = [start], [start]
        chain[start] = start
        while stack:
            c = stack.pop()
            for n in (c - stride, c - 1, c + 1, c + stride):
                if colour[n] == colour[start] and chain[n] < 0:
                    chain[n] = start
                    stones.append(n)
                    stack.append(n)
        for i, c in enumerate(stones):
            ring[c] = stones[(i + 1) % len(stones)]
            for n in (c - stride, c - 1, c + 1, c + stride):
                if colour[n] == EMPTY:
                    libs[start] += 1
                    sums[start] += n
                    squares[start] += n * n
    return colour, chain, ring, libs, sums, squares, cell_of


def liberties_after(state: GoState, point: int, own: int) -> tuple[int, int, bool]:
    """(stones, liberties) of the chain a stone of ``own`` on ``point`` makes, and whether it
    captures: counted in Python on the board after the move."""
    size = state.game.size
    board = list(state.board)
    board[point] = own

    def neighbours(p: int) -> list[int]:
        x, y = p % size, p // size
        return [
            (y + dy) * size + x + dx
            for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1))
            if 0 <= x + dx < size and 0 <= y + dy < size
        ]

    def group(p: int) -> tuple[set[int], set[int]]:
        stones, libs, stack = {p}, set(), [p]
        while stack:
            q = stack.pop()
            for n in neighbours(q):
                if board[n] == EMPTY:
                    libs.add(n)
                elif board[n] == board[p] and n not in stones:
                    stones.add(n)
                    stack.append(n)
        return stones, libs

    captures = any(board[n] == 3 - own and not group(n)[1] for n in neighbours(point))
    stones, libs = group(point)
    return len(stones), len(libs), captures


def test_compiled_lookups_agree_with_python() -> None:
    params = go_kernel(7).params
    stride = 8
    for seed in range(6):
        state = random_position(7, 10 + 6 * seed, seed)
        board = list(state.board)
        colour = playout_board(state)[0]
        for p in range(49):
            code = P.point_code(board, 7, p)
            assert _point_code(7, np.array(board, dtype=np.int64), p) == code
            assert _cell_code((p // 7 + 1) * stride + p % 7 + 1, colour, stride) == code
            if board[p] == EMPTY:
                for own in (BLACK, WHITE):
                    expected = P.matches(board, 7, p, own)
                    assert _pattern_matches(params, code, own) == expected
                    assert expected == bool(P.matching_patterns(board, 7, p, own))


def test_self_atari_agrees_with_liberties_counted_in_python() -> None:
    seen = {True: 0, False: 0}
    for seed in range(12):
        state = random_position(7, 25 + 2 * seed, seed)
        colour, chain, ring, libs, sums, squares, cell_of = playout_board(state)
        legal = set(state.legal_actions())
        own = state.current_player() + 1
        for p in range(49):
            if state.board[p] != EMPTY or p not in legal:
                continue
            stones, liberties, captures = liberties_after(state, p, own)
            expected = stones >= 2 and liberties == 1 and not captures
            got = _is_self_atari(cell_of[p], own, colour, chain, ring, libs, sums, squares, 8)
            assert got == expected, (seed, p)
            seen[got] += 1
    assert seen[True] > 0 and seen[False] > 0


def enclosure(rows: list[str], name: str, own: int) -> bool:
    """:func:`_in_small_enclosure` for ``own`` on the empty point ``name`` of a drawing."""
    game = GoGame(len(rows))
    state = game.from_board(rows, 0)
    colour, *_, cell_of = playout_board(state)
    point = point_from_name(game.size, name)
    assert point is not None and state.board[point] == EMPTY
    region = np.zeros(NAKADE_POINTS + 1, dtype=np.int64)
    return bool(_in_small_enclosure(cell_of[point], own, colour, game.size + 1, region))


def test_small_enclosures_of_the_opponent() -> None:
    # White's eye space B4-D4 with a Black stone on C4: enclosed by White and the edge.
    eye = ["OOOOO", "O.X.O", "OOOOO", "XXXXX", "X.X.X"]
    assert enclosure(eye, "B4", BLACK) and enclosure(eye, "D4", BLACK)
    # For White the same points are its own eye space, enclosed by nothing of Black's: the
    # region runs through White's stones and is large.
    assert not enclosure(eye, "B4", WHITE)
    # Black's own eye B1: Black's stones join it to the whole Black group (and on).
    assert not enclosure(eye, "B1", BLACK)

    # Up to six points (the rabbity six's size), own stones inside counted; not seven.
    def row_six(middle: str) -> list[str]:
        return ["OOOOOOO", middle, "OOOOOOO", *["......."] * 4]

    assert enclosure(row_six("O..X..O"), "B6", BLACK)  # five points, one a Black stone
    assert enclosure(row_six("......O"), "B6", BLACK)  # six, the edge closing the left end
    assert not enclosure(row_six("......."), "B6", BLACK)  # seven
    # An open board is no enclosure.
    assert not enclosure(["....."] * 5, "C3", BLACK)


def test_nakade_lets_the_playout_fill_the_opponents_eye() -> None:
    # Black to move can only play B4 or D4 (both self-ataris of two stones, inside White's
    # eye space) or fill its own eyes: MoGo's uniform draw refuses all of them and Black
    # passes; with PLAYOUT_NAKADE it plays inside the eye first.
    game = GoGame(5)
    state = game.from_board(["OOOOO", "O.X.O", "OOOOO", "XXXXX", "X.X.X"], 0)
    inside = {point_from_name(5, "B4"), point_from_name(5, "D4")}

    def first_stones(features: int) -> list[tuple[int, int] | None]:
        kernel = go_kernel(5, playouts="mogo", features=features)
        compact = kernel.encode(state)
        out_actions = np.zeros(kernel.max_length, dtype=np.int64)
        out_players = np.zeros(kernel.max_length, dtype=np.int64)
        stones = []
        for seed in range(10):
            scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
            _, count = kernel.recorded_rollout(
                kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
            )
            stones.append((int(out_players[0]), int(out_actions[0])) if count else None)
        return stones

    with_nakade = first_stones(PLAYOUT_NAKADE)
    assert all(stone is not None and stone[0] == 0 for stone in with_nakade)
    assert {stone[1] for stone in with_nakade if stone is not None} == inside
    # Without: Black passes, and so does White (each of its moves is a self-atari of its
    # whole group): the playout ends at once.
    assert first_stones(0) == [None] * 10


# ------------------------------------------------------------------- the MoGo playout


def answers(
    rows: list[str],
    last: str,
    to_move: int,
    seeds: int = 40,
    ladders: bool = True,
    low_liberties: bool = False,
) -> set[str]:
    """The MoGo answers to the stone on ``last`` over ``seeds`` random draws (``ladders``:
    whether escapes from working ladders are left out; ``low_liberties``: whether chains
    with two liberties are answered)."""
    game = GoGame(len(rows))
    state = game.from_board(rows, to_move)
    size = game.size
    colour, chain, ring, libs, sums, squares, cell_of = playout_board(state)
    params = go_kernel(size, playouts="mogo").params
    last_cell = cell_of[point_from_name(size, last)]
    point_of = {int(c): p for p, c in enumerate(cell_of)}
    out = set()
    candidates = np.zeros(size * size, dtype=np.int64)
    ladder_work = np.zeros(ladder_work_size(size), dtype=np.int64)
    for seed in range(seeds):
        cell = _mogo_answer(
            params, last_cell, to_move + 1, -1, colour, chain, ring, libs, sums, squares,
            size + 1, candidates, new_rng_state(seed), ladder_work,
            max_depth(size) if ladders else 0, low_liberties,
        )  # fmt: skip
        out.add("none" if cell < 0 else game.action_to_string(state, point_of[int(cell)]))
    return out


def test_mogo_saves_a_chain_in_atari_first() -> None:
    # White's D3 put Black's C4-C3 in atari (liberty C5): Black extends there, although hane
    # patterns match around D3 too.
    rows = [".....", ".OXO.", ".OXO.", "..O..", "....."]
    assert answers(rows, "D3", 0, ladders=False) == {"C5"}
    # But C5 is caught on the edge (White B5 or D5 ataris again, then captures): with ladders
    # read, the playout leaves the chain and answers with the patterns around D3.
    assert "C5" not in answers(rows, "D3", 0)
    # The same shape in the middle of a 7x7 board: D6 escapes (three liberties).
    rows = [".......", ".......", "..OXO..", "..OXO..", "...O...", ".......", "......."]
    assert answers(rows, "D3", 0) == {"D6"}


def test_mogo_captures_when_no_pattern_matches() -> None:
    # White's A1 is in atari next to Black's B1; no pattern matches around A1: capture on A2.
    rows = [".....", ".....", ".....", ".O...", "OXX.."]
    assert answers(rows, "A1", 0) == {"A2"}


def test_mogo_plays_the_patterns_around_the_last_stone() -> None:
    # White's C4 between Black's B4 and D4: the matching points around C4, each drawn.
    rows = [".....", ".XOX.", ".....", ".....", "....."]
    game = GoGame(5)
    state = game.from_board(rows, 0)
    board = list(state.board)
    c4 = point_from_name(5, "C4")
    x, y = c4 % 5, c4 // 5
    expected = {
        game.action_to_string(state, (y + dy) * 5 + x + dx)
        for dx, dy in P.NEIGHBOUR_OFFSETS
        if board[(y + dy) * 5 + x + dx] == EMPTY
        and P.matching_patterns(board, 5, (y + dy) * 5 + x + dx, BLACK)
    }
    assert "C3" in expected and len(expected) >= 3
    assert answers(rows, "C4", 0) == expected


def test_mogo_plays_the_liberties_of_chains_with_two() -> None:
    # White's D4 between Black's C4 and E4 has two liberties, D5 and D3: with the low-liberty
    # answers Black ataris it from either side; without them the patterns around D4 answer.
    rows = [".......", ".......", ".......", "..XOX..", ".......", ".......", "......."]
    assert answers(rows, "D4", 0, low_liberties=True) == {"D3", "D5"}
    assert answers(rows, "D4", 0) == {"C3", "C5", "D3", "D5", "E3", "E5"}
    # White's E5 left Black's D5-D4 with two liberties, D6 and D3: Black lengthens on either
    # (without the answers, the hane patterns around E5: D6 and E6).
    rows = [".......", ".......", "..OXO..", "..OXO..", ".......", ".......", "......."]
    assert answers(rows, "E5", 0, low_liberties=True) == {"D3", "D6"}
    assert answers(rows, "E5", 0) == {"D6", "E6"}
    # With White on C3, E3 and D2, D3 would leave the chain one liberty (a self-atari, never
    # played): D6 alone.
    rows = [".......", ".......", "..OXO..", "..OXO..", "..O.O..", "...O...", "......."]
    assert answers(rows, "E5", 0, low_liberties=True) == {"D6"}
    # A chain of the mover's with three liberties (D5-D4: C5, E5, D3; the walk stops at the
    # third) is not answered, nor the last stone's with three (E4: E5, F4, E3).
    rows = [".......", "...O...", "...X...", "..OXO..", ".......", ".......", "......."]
    assert answers(rows, "E4", 0, low_liberties=True) == answers(rows, "E4", 0)
    # Three chains at once, their liberties drawn among together: White's D4 (D3, E4), Black's
    # C4 (B4, C3) and Black's D5 (D6, E5); White's C5, with two but not the last stone's
    # chain, is not answered.
    rows = [".......", ".......", "..OX...", "..XO...", ".......", ".......", "......."]
    assert answers(rows, "D4", 0, low_liberties=True) == {"B4", "C3", "D3", "D6", "E4", "E5"}


def global_captures(rows: list[str], to_move: int, ko: str | None = None) -> set[str]:
    """The captures anywhere on the board that :func:`_global_capture` draws for the player
    ``to_move`` (0 Black) over 40 seeds, as move names (``none`` for -1)."""
    game = GoGame(len(rows))
    state = game.from_board(rows, to_move)
    size = game.size
    colour, chain, _, libs, sums, squares, cell_of = playout_board(state)
    empties = np.array([cell_of[p] for p, v in enumerate(state.board) if v == EMPTY])
    ko_cell = int(cell_of[point_from_name(size, ko)]) if ko else -1
    point_of = {int(c): p for p, c in enumerate(cell_of)}
    candidates = np.zeros(size * size, dtype=np.int64)
    out = set()
    for seed in range(40):
        cell = _global_capture(
            to_move + 1, ko_cell, colour, chain, libs, sums, squares, size + 1, empties,
            len(empties), candidates, new_rng_state(seed),
        )  # fmt: skip
        out.add("none" if cell < 0 else game.action_to_string(state, point_of[int(cell)]))
    return out


def test_captures_anywhere_on_the_board() -> None:
    # White's A1 (liberty A2) and E4-E5 (liberty E3) are in atari, White's C3 is not: Black
    # takes either of the two, drawn uniformly; White, to move, has nothing to capture.
    rows = ["...XO", "...XO", "..O..", ".....", "OX..."]
    assert global_captures(rows, 0) == {"A2", "E3"}
    assert global_captures(rows, 1) == {"none"}
    # The ko point is not played: E3 alone.
    assert global_captures(rows, 0, ko="A2") == {"E3"}
    # White's C3 has two liberties (D3, C2): nothing to capture.
    assert global_captures([".....", "..X..", ".XO..", ".....", "....."], 0) == {"none"}


def test_the_playout_captures_far_from_the_last_move_with_the_feature() -> None:
    # Black to move at the start of the playout (no last move to answer): with
    # PLAYOUT_CAPTURES its first stone takes White's chain in atari in every draw; without,
    # the uniform draw plays elsewhere too.
    game = GoGame(7)
    rows = [".......", ".......", "...X...", "..XOX..", ".......", ".......", "......."]
    capture = point_from_name(7, "D3")

    def first_stones(state: GoState, features: int) -> set[int]:
        kernel = go_kernel(7, playouts="mogo", features=features)
        compact = kernel.encode(state)
        out_actions = np.zeros(kernel.max_length, dtype=np.int64)
        out_players = np.zeros(kernel.max_length, dtype=np.int64)
        stones = set()
        for seed in range(12):
            scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
            _, count = kernel.recorded_rollout(
                kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
            )
            assert count > 0 and out_players[0] == 0
            stones.add(int(out_actions[0]))
        return stones

    start = game.from_board(rows, 0)
    assert first_stones(start, PLAYOUT_NAKADE | PLAYOUT_CAPTURES) == {capture}
    assert len(first_stones(start, PLAYOUT_NAKADE)) > 1
    # After White's G1, which MoGo's answers to the last stone leave unanswered, the capture
    # comes after them: the first stone still captures on D3.
    after = [*rows[:-1], "......O"]
    assert answers(after, "G1", 0) == {"none"}
    answered = game.from_board(rows, 1).play(point_from_name(7, "G1"))
    features = PLAYOUT_LAST_MOVE | PLAYOUT_NAKADE | PLAYOUT_CAPTURES
    assert first_stones(answered, features) == {capture}


def test_nothing_to_answer() -> None:
    assert answers([".....", ".....", "..X..", ".....", "....."], "C3", 1) == {"none"}


def mogo_rollouts(rows: list[str], n: int = 30) -> set[tuple[float, int]]:
    state = GoGame(len(rows)).from_board(rows)
    kernel = go_kernel(len(rows), playouts="mogo")
    row = kernel.encode(state)
    before = row.copy()
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    rng = new_rng_state(1)
    seen = set()
    for _ in range(n):
        value = kernel.rollout(kernel.params, row, scratch, rng)
        seen.add((float(value), int(scratch[LAST_LENGTH])))
    assert np.array_equal(row, before)
    return seen


def test_mogo_playouts_leave_eyes_alone() -> None:
    # Only eyes left (the light playouts' test position): both pass at once.
    assert mogo_rollouts(["XXXO.", "XXXOO", "X.XO.", "XXXOO", ".XXO."]) == {(-1.0, 2)}


def test_mogo_playouts_are_games_of_go() -> None:
    kernel = go_kernel(9, playouts="mogo")
    assert kernel.params[P_POLICY] == POLICY_MOGO
    out_actions = np.zeros(kernel.max_length, dtype=np.int64)
    out_players = np.zeros(kernel.max_length, dtype=np.int64)
    light = go_kernel(9)
    checked = 0
    for seed in range(20):
        state = random_position(9, seed, seed)
        compact = kernel.encode(state)
        before = compact.copy()
        scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        value, count = kernel.recorded_rollout(
            kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
        )
        points = out_actions[:count].tolist()
        assert value in (-1.0, 0.0, 1.0) and len(set(points)) == count
        assert 0 < scratch[LAST_LENGTH] <= kernel.max_length - state.num_moves
        assert np.array_equal(compact, before)
        # The first recorded stone is a legal move of the position.
        if count and out_players[0] == state.current_player():
            assert points[0] in light.legal(light.encode(state))
            checked += 1
    assert checked >= 10  # the mover's own first stone, not a pass, in most positions


def test_light_playouts_are_unchanged() -> None:
    # Commit 1202709's sums, as in test_compiled_rave: the switch leaves light playouts alone.
    kernel = go_kernel(9)
    state = kernel.new_state()
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    rng = new_rng_state(1)
    total = length = 0
    for _ in range(300):
        total += int(kernel.rollout(kernel.params, state, scratch, rng))
        length += int(scratch[LAST_LENGTH])
    assert (total, length) == (-48, 32949)


# ------------------------------------------------------------------------------ priors


def priors(rows: list[str], to_move: int, points: list[str], pieces: int) -> list[float]:
    """The kernel's prior scores (``pieces``) of ``points`` in the position ``rows`` (a
    lower-case stone, which some tests use to mark a chain, is a stone like any other)."""
    game = GoGame(len(rows))
    state = game.from_board([row.upper() for row in rows], to_move)
    kernel = go_kernel(len(rows), priors=pieces)
    actions = np.array([game.string_to_action(state, p) for p in points], dtype=np.int64)
    out = np.zeros(len(points))
    kernel.move_priors(kernel.params, kernel.encode(state), actions, out)
    return out.tolist()


def test_pattern_priors() -> None:
    rows = [".....", ".XOX.", ".....", ".....", "....."]
    # C3 (enclosing hane) and C5 match; C1 and A1 do not (A1, a lone first-line move, is
    # penalised when penalties are on).
    assert priors(rows, 0, ["C3", "C5", "C1"], PRIORS_PATTERNS) == [PRIOR_PATTERN] * 2 + [0.0]
    assert priors(rows, 0, ["C3", "A1"], PRIORS_TACTICS) == [0.0, 0.0]
    scores = priors(rows, 0, ["C3", "A1", "pass"], PRIORS_ALL)
    assert scores[:2] == [PRIOR_PATTERN, PRIOR_LONE_EDGE]
    assert math.isnan(scores[2])  # the pass: no virtual samples


def test_penalties_for_self_atari_and_captures_first() -> None:
    # Black's A5 in the corner under White's B5 and B4: A4 is a self-atari of two stones
    # for Black; for White, A4 captures.
    rows = ["XO...", ".O...", ".....", ".....", "....."]
    assert priors(rows, 0, ["A4"], PRIORS_ALL) == [PRIOR_SELF_ATARI]
    assert priors(rows, 1, ["A4"], PRIORS_ALL) == [1.0]
    with pytest.raises(playout.InvalidParameterError, match="priors"):
        go_kernel(5, priors=32)  # no such piece
    with pytest.raises(playout.InvalidParameterError, match="playouts"):
        go_kernel(5, playouts="medium")


# ------------------------------------------------------------------------------ players


def test_players_name_mogo_playouts() -> None:
    game = GoGame(size=5)
    player = parse_player("mcts:simulations=30,rule=rave,prior=10,rollout=mogo", game)
    assert isinstance(player, MctsPlayer)
    evaluator = player.options.evaluator(game)
    assert evaluator.policy == MOGO_PLAYOUTS == GoPlayouts("mogo", PRIORS_RATINGS)
    engine = playout.MCTS(
        game.initial_state(), selection=RAVE(prior=10), evaluator=evaluator, seed=0
    )
    assert engine.backend == "compiled"
    assert engine._driver.kernel.params[P_POLICY] == POLICY_MOGO  # type: ignore[attr-defined]
    assert engine.run(Budget(simulations=200)).simulations == 200
    with pytest.raises(playout.InvalidParameterError, match="compiled driver only"):
        playout.MCTS(game.initial_state(), evaluator=evaluator, backend="python")
    with pytest.raises(playout.InvalidParameterError, match="playouts"):
        GoPlayouts("medium")


def test_the_command_line_takes_mogo_and_priors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["analyze", "go", "--size", "5", "--simulations", "50", "--seed", "1", "--json"]
    assert main([*args, "--rule", "rave", "--rave-prior", "10", "--rollout", "mogo"]) == 0
    capsys.readouterr()
    assert main(["analyze", "connect4", "--simulations", "10", "--rollout", "mogo"]) == 2
    assert "unknown rollout 'mogo'" in capsys.readouterr().err
    assert main([*args, "--rave-prior", "10"]) == 2
    assert "prior" in capsys.readouterr().err


# --------------------------------------------------------------- the last good replies


def test_replies_are_learned_from_the_winner_and_forgotten_by_the_loser() -> None:
    """LGRF-2 by hand: Black (first) wins a playout of moves a, b, c, pass, d after the
    tree's move z; Black's a, c become its replies to z, b and (a, b); White's b, which
    was its stored reply to a and to (z, a), is forgotten; a pass neither is nor has a
    reply."""
    cells = 11
    z, a, b, c, d, other = 1, 2, 3, 4, 5, 6
    reply1 = np.zeros(2 * cells, dtype=np.int64)
    reply2 = np.zeros(2 * cells * cells, dtype=np.int64)
    white1, white2 = cells, cells * cells
    reply1[white1 + a] = b
    reply2[white2 + z * cells + a] = b
    reply1[white1 + c] = other  # not b's move: White's loss leaves it
    logged = np.array([a, b, c, 0, d], dtype=np.int64)
    _learn_replies(reply1, reply2, logged, 5, z, BLACK, BLACK, cells)
    assert reply1[z] == a and reply1[b] == c and reply2[a * cells + b] == c
    assert reply1[white1 + a] == 0 and reply2[white2 + z * cells + a] == 0
    assert reply1[white1 + c] == other
    assert reply1[0] == 0 and reply1[white1] == 0  # nothing answers a pass
    assert np.count_nonzero(reply1) == 3 and np.count_nonzero(reply2) == 1


def reply_kernel() -> tuple[playout.Kernel, Callable[[str], int], int]:
    """The 9x9 MoGo kernel with the last good replies, the playout-board cell of a point
    name, and where Black's replies to a last move start in the rollout's scratch."""
    kernel = go_kernel(9, playouts="mogo", features=PLAYOUT_NAKADE | PLAYOUT_LGRF)
    points = 81
    cell_of = P_TABLES + 6 * points

    def cell(name: str) -> int:
        return int(kernel.params[cell_of + point_from_name(9, name)])

    return kernel, cell, reply_offset(int(kernel.params[P_CELLS]), points)


def test_the_playout_plays_a_stored_reply_when_it_can() -> None:
    """Black's stored reply to White's E5 (the tree's last move) is its first playout move
    in every draw; once the point is taken the playout plays as MoGo's would, and without
    the feature the table is not read."""
    game = GoGame(9)
    state = game.initial_state().play(point_from_name(9, "E5"))  # Black plays E5
    state = state.play(point_from_name(9, "C3"))  # White answers C3: Black to move
    kernel, cell, start = reply_kernel()

    def first_moves(kernel: playout.Kernel, reply: str, seeds: int = 12) -> set[int]:
        compact = kernel.encode(state)
        out_actions = np.zeros(kernel.max_length, dtype=np.int64)
        out_players = np.zeros(kernel.max_length, dtype=np.int64)
        first = set()
        for seed in range(seeds):
            scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
            scratch[start + cell("C3")] = cell(reply)  # Black's reply to C3
            _, count = kernel.recorded_rollout(
                kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
            )
            assert count > 0 and out_players[0] == 0
            first.add(int(out_actions[0]))
        return first

    assert first_moves(kernel, "G7") == {point_from_name(9, "G7")}
    assert len(first_moves(kernel, "E5")) > 1  # taken: the playout draws as usual
    plain = go_kernel(9, playouts="mogo", features=PLAYOUT_NAKADE)
    assert len(first_moves(plain, "G7")) > 1


def test_replies_learned_over_many_playouts_are_points_of_the_board() -> None:
    """After 200 playouts from the empty board the tables hold replies, each a cell of the
    board's points (never a border cell), and the learning is reproducible by seed."""
    kernel = go_kernel(9, playouts="mogo", features=PLAYOUT_NAKADE | PLAYOUT_LGRF)
    points, cells = 81, int(kernel.params[P_CELLS])
    board_cells = set(int(c) for c in kernel.params[P_TABLES + 6 * points :][:points])
    start = reply_offset(cells, points)
    compact = kernel.encode(GoGame(9).initial_state())

    def learned(seed: int) -> np.ndarray:
        scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
        rng = new_rng_state(seed)
        for _ in range(200):
            kernel.rollout(kernel.params, compact, scratch, rng)
        return scratch[start : start + 2 * cells + 2 * cells * cells].copy()

    tables = learned(3)
    stored = tables[tables != 0]
    assert len(stored) > 100
    assert set(int(c) for c in stored) <= board_cells
    assert np.array_equal(learned(3), tables)


def test_a_new_tree_starts_without_the_last_trees_replies() -> None:
    """The replies a search learns stay with its tree (the next search on it reads them)
    and go when the engine starts a new tree, so that a seeded player's games do not
    depend on the games before them."""
    game = GoGame(9)
    policy = GoPlayouts("mogo", PRIORS_ALL, PLAYOUT_NAKADE | PLAYOUT_LGRF)
    search = playout.MCTS(
        game.initial_state(),
        selection=RAVE(bias=0.01, prior=50),
        evaluator=playout.Rollout(policy=policy),
        seed=4,
    )
    search.run(Budget(simulations=300))
    engine = search.driver
    scratch = engine._scratch  # type: ignore[attr-defined]
    assert np.count_nonzero(scratch) > 0
    learned = scratch.copy()
    search.run(Budget(simulations=10))
    assert np.count_nonzero(scratch) >= np.count_nonzero(learned) // 2  # kept, and updated
    engine.reset(game.initial_state())
    assert np.count_nonzero(scratch) == 0


def test_the_reply_after_a_capture_answers_the_capturing_move() -> None:
    """A capture in the playout does not lose the last move: Black's stored reply E4 to
    White's C7 captures E5, and White then plays its stored reply to E4, as it plays its
    reply to E3, a move that captures nothing."""
    game = GoGame(9)
    state = game.initial_state()
    for move in ("D5", "E5", "F5", "A9", "E6", "C7"):  # E5 in atari at E4, Black to move
        state = state.play(point_from_name(9, move))
    kernel, cell, start = reply_kernel()
    compact = kernel.encode(state)
    out_actions = np.zeros(kernel.max_length, dtype=np.int64)
    out_players = np.zeros(kernel.max_length, dtype=np.int64)

    def first_two(black: str, seeds: int = 8) -> set[tuple[str, str]]:
        seen = set()
        for seed in range(seeds):
            scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
            scratch[start + cell("C7")] = cell(black)  # Black's reply to C7
            white = start + int(kernel.params[P_CELLS])  # White's replies to a last move
            scratch[white + cell(black)] = cell("G3")
            _, count = kernel.recorded_rollout(
                kernel.params, compact, scratch, new_rng_state(seed), out_actions, out_players
            )
            assert count >= 2 and out_players[0] == 0 and out_players[1] == 1
            seen.add(tuple(game.action_to_string(state, int(a)) for a in out_actions[:2]))
        return seen

    assert first_two("E3") == {("E3", "G3")}
    assert first_two("E4") == {("E4", "G3")}  # the capture of E5
