"""Go games as SGF (through sgfmill): what is written, round trips over random legal games,
``play``/``match --save FILE.sgf``, ``replay`` of SGF, and malformed files."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playout import make_game
from playout._src.arena.match import run_match
from playout._src.arena.records import read_records
from playout._src.errors import InvalidParameterError, RecordError
from playout.games.go import GoGame
from playout.games.go.sgf import game_to_sgf, games_from_sgf

SRC = Path(__file__).resolve().parents[1] / "src"


def random_game(size: int, komi: float, seed: int, max_moves: int) -> tuple[GoGame, list[int]]:
    """A random legal game (played to its end, or cut after ``max_moves``)."""
    game = GoGame(size, komi)
    rng = random.Random(seed)
    state, actions = game.initial_state(), []
    while not state.is_terminal() and len(actions) < max_moves:
        action = rng.choice(state.legal_actions())
        actions.append(action)
        state = state.play(action)
    return game, actions


def test_what_a_game_tree_holds() -> None:
    game = GoGame(9, 7.5)
    # D4 (B), pass (W), C3 (B), pass (W), pass... Black ends on C3 D4 with the board.
    actions = [game.string_to_action(game.initial_state(), "D4")]
    state = game.initial_state().play(actions[0])
    for move in ("pass", "C3", "pass"):
        action = game.string_to_action(state, move)
        actions.append(action)
        state = state.play(action)
    actions.append(game.pass_action)  # Black's pass: the game ends, Black has the board
    data = game_to_sgf(game, actions, players=("me", "you"))
    assert data.replace(b"\n", b"") == (  # sgfmill wraps long lines between nodes
        b"(;FF[4]CA[UTF-8]GM[1]KM[7.5]PB[me]PW[you]RE[B+73.5]RU[Chinese]SZ[9];B[df]"
        b";W[];B[cg];W[];B[])"
    )


def test_a_resignation_is_written_as_plus_r() -> None:
    game = GoGame(5, 0.5)
    data = game_to_sgf(game, [12], resigned=1)
    assert b"RE[B+R]" in data
    (record,) = games_from_sgf(data, "x.sgf")
    assert record.resigned == 1 and record.result == "B+R"


@settings(max_examples=40, deadline=None)
@given(
    size=st.sampled_from([2, 3, 5, 7, 9, 13, 19]),
    komi=st.sampled_from([0.0, 0.5, 5.5, 7.5, -3.0]),
    seed=st.integers(0, 2**32 - 1),
    max_moves=st.integers(0, 400),
)
def test_save_then_load_gives_the_same_moves_and_result(
    size: int, komi: float, seed: int, max_moves: int
) -> None:
    game, actions = random_game(size, komi, seed, max_moves)
    (record,) = games_from_sgf(game_to_sgf(game, actions, players=("a", "b")), "x.sgf")
    assert record.game == game
    assert list(record.actions) == actions
    assert record.players == ("a", "b")
    final = record.states[-1]
    if final.is_terminal():
        assert record.result is not None
        expected = final.score()
        sign = 0 if expected == 0 else 1 if expected > 0 else -1
        assert record.result == (
            "0" if sign == 0 else f"{'B' if sign > 0 else 'W'}+{abs(expected):g}"
        )
    else:
        assert record.result is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"hello", "not an SGF file"),
        (b"", "not an SGF file"),
        (b"(;FF[4]SZ[9];B[zz])", "malformed property value"),
        (b"(;FF[4]SZ[9];B[ee];B[ff])", r"move 2 \(B\) is out of turn"),
        (b"(;FF[4]SZ[9];B[ee];W[ee])", r"move 2 \(E5\): E5 is occupied"),
        (b"(;GM[3]SZ[9])", r"not a game of Go \(GM\[3\]\)"),
        (b"(;FF[4]SZ[25])", "board size 25"),
        (b"(;FF[4]SZ[9]KM[0.3])", "komi"),
        (b"(;FF[4]SZ[9]AB[ee])", "set-up stones"),
        (b"(;FF[4]SZ[9];B[];W[];B[ee])", "after the end of the game"),
    ],
)
def test_malformed_sgf_is_a_record_error(tmp_path: Path, text: bytes, message: str) -> None:
    path = tmp_path / "bad.sgf"
    path.write_bytes(text)
    with pytest.raises(RecordError, match=message):
        read_records(path)


def test_match_saves_an_sgf_collection_that_replays(tmp_path: Path) -> None:
    game = GoGame(5, 0.5)
    path = tmp_path / "games.sgf"
    result = run_match(game, "random", "mcts:simulations=20", 3, seed=4, save=path)
    saved = read_records(path)
    assert [s.actions for s in saved] == [r.actions for r in result.records]
    assert [s.data["players"] for s in saved] == [list(r.players) for r in result.records]
    assert [s.states[-1].returns() for s in saved] == [r.returns for r in result.records]
    assert path.read_bytes().count(b"(;FF[4]") == 3
    with pytest.raises(InvalidParameterError, match="SGF files hold Go games"):
        run_match(make_game("tictactoe"), "random", "random", 1, save=tmp_path / "t.sgf")


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "playout", *args], input=stdin, capture_output=True, text=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}, timeout=600,
    )  # fmt: skip


def test_play_save_and_replay_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "game.sgf"
    done = run_cli("play", "go", "--size", "5", "--simulations", "50", "--backend", "python",
                   "--save", str(path), stdin="C3\nquit\n")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (record,) = games_from_sgf(path.read_bytes(), "game.sgf")
    assert record.players == ("human", "playout")
    assert record.actions[0] == 12 and len(record.actions) == 2 and record.result is None
    shown = run_cli("replay", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "move 1: Black plays C3" in shown.stdout
    assert "result: none (the game was not finished)" in shown.stdout
    path.write_bytes(b"(;FF[4]SZ[9];B[zz])")
    bad = run_cli("replay", str(path))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    refused = run_cli("play", "tictactoe", "--save", str(tmp_path / "t.sgf"))
    assert refused.returncode == 2 and "--save writes Go games as SGF" in refused.stderr
