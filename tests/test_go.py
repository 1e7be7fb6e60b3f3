"""Go: the rules with known answers, the notation, and the compiled kernel's light playouts.

Positions are drawn as in :meth:`GoGame.from_board` (``X`` Black, ``O`` White, top row first)
and points named in GTP coordinates (``A1`` the lower left corner). Every rule is checked on
the Python game and, where the position allows, on the kernel too (:func:`kernel_legal`):
captures (one stone, a chain, two chains at once, on the edge), suicide and the capture that
looks like it, ko and positional superko, a seki, hand-counted scores, the end of the game.
The kernel's playouts are checked against Don Dailey's eye rule on tailored end positions,
and against his published statistics on a sample (the full 1,000,000-playout comparison is
``bench/go_playouts.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import playout
from playout import GameError, IllegalMoveError, InvalidParameterError, MoveParseError
from playout._src.tree.rng import new_rng_state
from playout.games.go import GoGame, GoState, play_moves
from playout.games.go.kernel import LAST_LENGTH, LAST_MARGIN, go_kernel
from playout.games.go.playouts import (
    DAILEY_BLACK_SCORE,
    DAILEY_MOVES,
    DAILEY_PLAYOUTS,
    light_playouts,
)
from playout.kernels import MOVER_LOST, MOVER_WON
from playout.render import board_legend


def at(state: GoState, name: str) -> str:
    """What point ``name`` holds: ``X``, ``O`` or ``.``."""
    return ".XO"[state.colour_at(name)]


def move(state: GoState, name: str) -> int:
    return state.game.string_to_action(state, name)


def kernel_legal(state: GoState) -> list[int]:
    """The kernel's legal actions of ``state``, checked equal to the Python game's."""
    kernel = state.compiled_kernel()
    legal = kernel.legal(kernel.encode(state))
    assert legal == list(state.legal_actions())
    return legal


# ------------------------------------------------------------------------ game and notation


def test_the_game_and_its_parameters() -> None:
    game = GoGame()
    assert (game.size, game.komi, game.max_length) == (9, 7.5, 243)
    assert game.spec.num_actions == 82 and game.pass_action == 81
    assert game.spec.player_names == ("Black", "White")
    assert playout.make_game("go") == game
    big = playout.make_game("go", size="19", komi="6.5")  # text from a command line
    assert isinstance(big, GoGame) and (big.size, big.komi, big.max_length) == (19, 6.5, 1083)
    assert GoGame(13, komi=0, max_length=50).max_length == 50
    assert hash(GoGame(9)) == hash(game) and GoGame(9, 6.5) != game
    for bad in ({"size": 1}, {"size": 20}, {"size": 9.0}, {"komi": 7.3}, {"max_length": 0}):
        with pytest.raises(InvalidParameterError):
            GoGame(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="komi"):
        playout.make_game("go", komi="lots")
    for huge in (1e308, -1e308, 10**400):  # doubled, infinite, past any float: checked first
        with pytest.raises(InvalidParameterError, match=r"within -361\.\.361"):
            GoGame(9, komi=huge)


def test_notation_is_the_board_labels() -> None:
    game = GoGame(9)
    state = game.initial_state()
    assert game.action_to_string(state, 0) == "A9"  # top left
    assert game.action_to_string(state, 72) == "A1"  # bottom left
    assert game.action_to_string(state, 80) == "J1"  # no column I
    assert game.action_to_string(state, 81) == "pass"
    for action in state.legal_actions():
        assert game.string_to_action(state, game.action_to_string(state, action)) == action
    assert game.string_to_action(state, " d4 ") == game.string_to_action(state, "D4") == 48
    assert game.string_to_action(state, "PASS") == 81
    with pytest.raises(MoveParseError):
        game.string_to_action(state, "44")
    with pytest.raises(IllegalMoveError, match="no column I"):
        game.string_to_action(state, "I5")
    with pytest.raises(IllegalMoveError, match="off the 9x9 board"):
        game.string_to_action(state, "K5")
    with pytest.raises(IllegalMoveError, match="off the 9x9 board"):
        game.string_to_action(state, "A10")
    after = state.play(48)
    with pytest.raises(IllegalMoveError, match="D4 is occupied"):
        game.string_to_action(after, "D4")
    with pytest.raises(IllegalMoveError):
        after.play(48)
    with pytest.raises(IllegalMoveError):
        after.play(82)


def test_render_shows_the_labels_stones_and_star_points() -> None:
    game = GoGame(9)
    state = play_moves(game, "E5 C3")
    assert game.render(state) == "\n".join(
        [
            "  A B C D E F G H J",
            "9 . . . . . . . . . 9",
            "8 . . . . . . . . . 8",
            "7 . . + . . . + . . 7",
            "6 . . . . . . . . . 6",
            "5 . . . . X . . . . 5",
            "4 . . . . . . . . . 4",
            "3 . . O . . . + . . 3",
            "2 . . . . . . . . . 2",
            "1 . . . . . . . . . 1",
            "  A B C D E F G H J",
        ]
    )
    assert str(state) == game.render(state)
    assert board_legend(game) == "X = Black, O = White"
    thirteen = GoGame(13)
    assert thirteen.render(thirteen.initial_state()).splitlines()[0].endswith("L M N")


def test_from_board_checks_its_position() -> None:
    game = GoGame(3)
    state = game.from_board(["X.O", ".X.", "..."], to_move=1)
    assert state.current_player() == 1 and at(state, "A3") == "X" and at(state, "C3") == "O"
    with pytest.raises(GameError, match="rows"):
        game.from_board(["...", "..."])
    with pytest.raises(GameError, match="unknown point"):
        game.from_board(["...", ".?.", "..."])
    with pytest.raises(GameError, match="no liberty"):
        game.from_board(["XO.", "O..", "..."])


# ------------------------------------------------------------------------------ captures


def test_a_single_stone_is_captured() -> None:
    state = GoGame(5).from_board([".....", "..X..", ".XO..", "..X..", "....."])
    after = state.play(move(state, "D3"))
    assert at(after, "C3") == "." and at(after, "D3") == "X"
    assert after.area() == (25, 0)
    kernel_legal(state)


def test_a_chain_is_captured() -> None:
    state = GoGame(5).from_board([".XX..", "XOOX.", ".XO..", "..X..", "....."])
    after = state.play(move(state, "D3"))
    assert [at(after, p) for p in ("B4", "C4", "C3")] == [".", ".", "."]
    assert (at(after, "D3"), after.area()) == ("X", (25, 0))


def test_one_move_captures_two_chains() -> None:
    # D3 takes the last liberty of the white stone C3 and of the white pair E3-E4.
    state = GoGame(5).from_board([".....", "..XOX", ".XO.O", "..XXX", "....."])
    assert state.legal_actions()  # Black to move
    after = state.play(move(state, "D3"))
    assert [at(after, p) for p in ("C3", "E3", "D4")] == [".", ".", "O"]
    assert at(after, "E4") == "X"  # a black stone, untouched
    assert sorted(after.board).count(2) == 1  # only D4 is left of White's four stones


def test_captures_on_the_edge_and_in_the_corner() -> None:
    corner = GoGame(5).from_board(["OX...", ".....", ".....", ".....", "....."])
    after = corner.play(move(corner, "A4"))  # the corner stone's last liberty
    assert at(after, "A5") == "." and after.area() == (25, 0)
    edge = GoGame(5).from_board(["XOX..", ".....", ".....", ".....", "....."])
    after = edge.play(move(edge, "B4"))
    assert at(after, "B5") == "." and after.area() == (25, 0)
    kernel_legal(corner)
    kernel_legal(edge)


# ------------------------------------------------------------------------------- suicide


def test_suicide_is_illegal() -> None:
    # White to move: a stone on A5, B4, C3, D2 or E1 would have no liberty and take none of
    # the black stones around it (each has others).
    state = GoGame(5).from_board([".X...", "X.X..", ".X.X.", "..X.X", "...X."], to_move=1)
    legal = kernel_legal(state)
    for name in ("A5", "B4", "C3", "D2", "E1"):
        assert move_if_legal(state, name) is None, name
        with pytest.raises(IllegalMoveError, match=f"{name} is suicide"):
            state.game.string_to_action(state, name)
    assert len(legal) == 25 - 8 - 5 + 1  # the other empty points and the pass
    # A chain's suicide: White's A2 would join A3 and leave the pair without a liberty.
    pair = GoGame(3).from_board(["OX.", ".X.", "X.."], to_move=1)
    assert move_if_legal(pair, "A2") is None and move_if_legal(pair, "C3") is not None
    kernel_legal(pair)
    # White's A3 fills its own chain's last liberty: suicide. Its C1 takes the last liberty
    # of both black chains instead: legal, and both are captured.
    full = GoGame(3).from_board([".OX", "OOX", "XX."], to_move=1)
    assert move_if_legal(full, "A3") is None
    after = full.play(move(full, "C1"))
    assert after.area() == (0, 9) and sorted(after.board).count(1) == 0
    kernel_legal(full)


def move_if_legal(state: GoState, name: str) -> int | None:
    """The action of ``name`` when it is legal, else ``None``."""
    try:
        return move(state, name)
    except IllegalMoveError:
        return None


def test_a_capture_that_looks_like_suicide_is_legal() -> None:
    # White's A5 has no empty neighbour, but it is the black chain's last liberty.
    state = GoGame(5).from_board([".XO..", "XXO..", "OOO..", ".....", "....."], to_move=1)
    action = move(state, "A5")
    after = state.play(action)
    assert [at(after, p) for p in ("A5", "B5", "A4", "B4")] == ["O", ".", ".", "."]
    assert after.area() == (0, 25)
    assert action in kernel_legal(state)


# ------------------------------------------------------------------------ ko and superko


def test_ko_forbids_the_immediate_recapture() -> None:
    # Black captures the white stone at C3 by playing D3... and White may not take back at C3
    # at once, which would repeat the position; after an exchange elsewhere it may.
    state = GoGame(5).from_board([".....", "..XO.", ".XO.O", "..XO.", "....."])
    took = state.play(move(state, "D3"))
    assert at(took, "C3") == "." and took.ko_point == 12  # C3: the third row from the top
    with pytest.raises(IllegalMoveError, match="C3 would repeat an earlier position"):
        took.game.string_to_action(took, "C3")
    assert 12 not in kernel_legal(took)
    later = play_moves(took.game, "A1 A5", start=took)
    assert move(later, "C3") == 12 and 12 in kernel_legal(later)
    back = later.play(12)
    assert at(back, "D3") == "." and at(back, "C3") == "O"


def test_positional_superko_goes_beyond_simple_ko() -> None:
    # On 3x3, Black's A1 takes two white stones (A2, A3); White's recapture at A2 would take
    # back one stone only, which simple ko allows, but it would recreate the position after
    # move 7: positional superko forbids it.
    game = GoGame(3)
    state = play_moves(game, "pass B1 A1 C3 B3 A2 B2 A3 A1")
    assert game.render(state).splitlines()[1:4] == ["3 . X O 3", "2 . X . 2", "1 X O . 1"]
    assert state.ko_point == -1  # not a simple ko: two stones were taken
    assert state.current_player() == 1
    with pytest.raises(IllegalMoveError, match="A2 would repeat an earlier position"):
        game.string_to_action(state, "A2")
    seventh = play_moves(game, "pass B1 A1 C3 B3 A2 B2")
    assert game.from_board([".XO", "OX.", ".O."]).board == seventh.board  # A2's position
    assert seventh.position_hash in state.seen
    a2 = 3
    assert a2 not in kernel_legal(state)
    # The same position without that history: A2 is legal.
    fresh = game.from_board([".XO", ".X.", "XO."], to_move=1)
    assert a2 in kernel_legal(fresh)


def test_passes_do_not_count_as_repetitions() -> None:
    state = play_moves(GoGame(5), "C3 pass pass")
    assert state.is_terminal()
    state = play_moves(GoGame(5), "C3 pass D4 pass")
    assert not state.is_terminal() and state.passes == 1


# ----------------------------------------------------------------- seki and scoring


SEKI = ["XX.OO", "XX.OO", "XXXOO", "XXXOO", "XXXOO"]
"""Black's chain and White's chain share their only two liberties, C5 and C4: whoever fills
one is taken by the other's move on the second."""


def test_seki_points_are_nobodys() -> None:
    game = GoGame(5, komi=0.5)
    state = game.from_board(SEKI)
    assert state.area() == (13, 10)  # C5 and C4 reach both colours
    done = play_moves(game, "pass pass", start=state)
    assert done.is_terminal() and done.score() == 2.5 and done.returns() == (1.0, -1.0)
    # With komi 3.5 White wins by half a point.
    assert play_moves(
        GoGame(5, 3.5), "pass pass", start=GoGame(5, 3.5).from_board(SEKI)
    ).returns() == (
        -1.0,
        1.0,
    )
    # Black filling a shared liberty loses its chain: White's answer takes all 14 stones.
    filled = play_moves(game, "C5 C4", start=state)
    assert filled.area() == (0, 25) and sorted(filled.board).count(1) == 0
    kernel_legal(state)


def test_hand_counted_area_scores() -> None:
    game = GoGame(5, komi=7.5)
    # Black: 7 stones + A5, A3, A1 = 10. White: 12 stones + D3, D1 = 14. C5 touches both.
    state = game.from_board([".X.OO", "XXOOO", ".XO.O", "XXOOO", ".XO.O"])
    assert state.area() == (10, 14)
    assert state.score() == 10 - 14 - 7.5
    over = play_moves(game, "pass pass", start=state)
    assert over.returns() == (-1.0, 1.0) and over.legal_actions() == ()
    # A larger territory counts in full; a region touching both colours not at all.
    region = GoGame(5, komi=0).from_board(["...X.", "...XO", "XXXXO", "OOOOO", "....."])
    # Black: 6 stones + the 6-point region top left = 12; White: 7 stones + the bottom row
    # (5 points) = 12; E5 touches both: nobody's.
    assert region.area() == (12, 12)
    assert GoGame(5).initial_state().area() == (0, 0)
    assert play_moves(GoGame(5), "C3").area() == (25, 0)


def test_draws_need_a_whole_number_komi() -> None:
    game = GoGame(2, komi=0)
    state = game.from_board(["X.", ".O"])
    over = play_moves(game, "pass pass", start=state)
    assert over.area() == (1, 1) and over.returns() == (0.0, 0.0)


# --------------------------------------------------------------------- the end of a game


def test_two_passes_end_the_game() -> None:
    game = GoGame(9)
    state = play_moves(game, "E5 pass")
    assert not state.is_terminal() and state.current_player() == 0
    over = state.play(game.pass_action)
    assert over.is_terminal() and over.current_player() == playout.TERMINAL
    assert over.legal_actions() == () and over.returns() == (1.0, -1.0)  # 81 - 0 - 7.5
    with pytest.raises(IllegalMoveError, match="the game is over"):
        over.play(40)
    kernel = over.compiled_kernel()
    row = kernel.encode(state)
    assert kernel.play(kernel.params, row, game.pass_action) == MOVER_WON


def test_the_game_ends_at_its_maximum_length() -> None:
    game = GoGame(5, max_length=3)
    state = play_moves(game, "C3 D4")
    assert not state.is_terminal()
    over = state.play(move(state, "B2"))
    # Scored as it stands: Black 2 stones, White 1, the empty points touch both; komi 7.5.
    assert over.is_terminal() and over.num_moves == 3 and over.area() == (2, 1)
    assert over.returns() == (-1.0, 1.0) and over.legal_actions() == ()
    kernel = over.compiled_kernel()
    row = kernel.encode(state)
    assert kernel.max_length == 3
    assert kernel.play(kernel.params, row, move(state, "B2")) == MOVER_LOST


def test_states_are_immutable_values() -> None:
    game = GoGame(9)
    start = game.initial_state()
    one = play_moves(game, "C3 D4 E5")
    two = play_moves(game, "C3 D4 E5")
    assert one == two and hash(one) == hash(two) and one is not two
    assert start.legal_actions() == tuple(range(82))
    other_order = play_moves(game, "E5 D4 C3")
    assert other_order.board == one.board and other_order != one  # other positions seen
    with pytest.raises(AttributeError):
        one.num_moves = 5  # type: ignore[misc]


def test_the_game_conforms() -> None:
    for size, games in ((9, 10), (5, 30), (2, 30)):
        report = playout.check_game(GoGame(size), num_games=games, seed=3)
        assert report.max_length_seen <= GoGame(size).max_length


# --------------------------------------------------------------------- the search on Go


def test_the_search_runs_compiled_and_finds_the_winning_pass() -> None:
    # After Black's E5 and White's pass, Black's pass ends the game with all 81 points.
    state = play_moves(GoGame(9), "E5 pass")
    engine = playout.MCTS(state, seed=1)
    assert engine.backend == "compiled"
    result = engine.run(playout.Budget(simulations=500))
    assert result.best_action == 81 and result.proven == "win"


# ------------------------------------------------------------------------- light playouts


def rollouts(rows: list[str], komi: float = 7.5, n: int = 30) -> set[tuple[float, int, int]]:
    """(value, moves, area margin) of ``n`` kernel rollouts from a Black-to-move position."""
    state = GoGame(len(rows), komi).from_board(rows)
    kernel = state.compiled_kernel()
    row = kernel.encode(state)
    before = row.copy()
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    rng = new_rng_state(1)
    seen = set()
    for _ in range(n):
        value = kernel.rollout(kernel.params, row, scratch, rng)
        seen.add((float(value), int(scratch[LAST_LENGTH]), int(scratch[LAST_MARGIN])))
    assert np.array_equal(row, before), "a rollout must not change its state"
    return seen


INTERIOR_EYE = ["XXXO.", "XXXOO", "X.XO.", "XXXOO", ".XXO."]
"""Black's eyes B3 (inside) and A1 (corner), White's E5, E3, E1: nothing left to play."""


def test_playouts_end_when_only_eyes_are_left() -> None:
    # Both pass at once: 2 moves, Black 15 - White 10.
    assert rollouts(INTERIOR_EYE) == {(-1.0, 2, 5)}
    assert rollouts(INTERIOR_EYE, komi=4.5) == {(1.0, 2, 5)}
    assert rollouts(INTERIOR_EYE, komi=5) == {(0.0, 2, 5)}


def test_dailey_eye_rule_inside_the_board() -> None:
    # One white stone diagonal to the inside point B3 (C4) leaves it an eye ...
    one = ["XXXO.", "XXOOO", "X.XO.", "XXXOO", ".XXO."]
    assert rollouts(one) == {(-1.0, 2, 3)}
    # ... two (C4, C2) make it a false eye, which Black fills (and White then takes all).
    two = ["XXXO.", "XXOOO", "X.XO.", "XXOOO", ".XXO."]
    assert all(length > 2 for _, length, _ in rollouts(two))


def test_dailey_eye_rule_on_the_edge() -> None:
    # Black's ring holds the white group (eyes C4, E4) and has eyes B1, F1, and C7 on the top
    # edge. With the diagonal points of C7 both Black's, C7 is an eye: both pass at once ...
    ring = ["XX.XXXX", "XXXXOOX", "XOOOOOX", "XO.O.OX", "XOOOOOX", "XXXXXXX", "X.XXX.X"]
    assert rollouts(ring) == {(1.0, 2, 15)}
    # ... with one of them White's (B6), C7 is a false eye on the edge: Black fills it, its
    # only move, then both pass.
    ring[1] = "XOXXOOX"
    assert rollouts(ring) == {(1.0, 3, 13)}
    # Corners count as the edge: with B2 White's, A1 (and A3) are false eyes, filled.
    corner = [".XO.O", "XXOOO", ".XO.O", "XOOOO", ".XO.O"]
    assert all(length > 2 for _, length, _ in rollouts(corner))


def test_light_playout_statistics_match_daileys_reference_bot() -> None:
    # Dailey's figures over 1,000,000 playouts from the empty 9x9 board; ours over 20,000,
    # within 4 standard errors of the two samples combined (ours from the sample, his from
    # the same spread over his 1,000,000, binomial for the scores). Each part of his eye rule
    # moves the length by 6 to 18 moves per playout (50 standard errors and more at 20,000).
    stats = light_playouts(GoGame(9), 20_000, seed=2008)
    spread = stats.moves_standard_error * math.sqrt(stats.num_playouts)
    his_moves = DAILEY_MOVES[7.5] / DAILEY_PLAYOUTS
    tolerance = 4 * math.hypot(stats.moves_standard_error, spread / math.sqrt(DAILEY_PLAYOUTS))
    assert abs(stats.mean_moves - his_moves) < tolerance
    assert 0.1 < stats.moves_standard_error < 0.13  # a playout's length spreads by about 16
    for komi in (7.5, 0.0):
        his = DAILEY_BLACK_SCORE[komi]
        ours = stats.black_score(komi)
        tolerance = 4 * math.hypot(
            stats.black_score_standard_error(komi), math.sqrt(his * (1 - his) / DAILEY_PLAYOUTS)
        )
        assert abs(ours - his) < tolerance, (komi, ours, his)


def test_light_playouts_are_the_kernels_rollouts() -> None:
    # The statistics helper runs exactly the kernel's rollout: the same seed gives the same
    # playouts as calling kernel.rollout from Python.
    game = GoGame(9)
    kernel = go_kernel(9, 7.5)
    scratch = np.zeros(kernel.scratch_size, dtype=np.int64)
    rng = new_rng_state(5)
    row = kernel.encode(game.initial_state())  # type: ignore[misc]
    lengths = []
    for _ in range(50):
        kernel.rollout(kernel.params, row, scratch, rng)
        lengths.append(int(scratch[LAST_LENGTH]))
    stats = light_playouts(game, 50, seed=5)
    assert stats.total_moves == sum(lengths)
    with pytest.raises(InvalidParameterError):
        light_playouts(game, 0)
    with pytest.raises(InvalidParameterError, match="over"):
        light_playouts(play_moves(game, "pass pass"), 10)
