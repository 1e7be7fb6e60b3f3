"""The ``gtp:COMMAND`` arena player: a GTP engine in a child process, its errors, its cleanup,
the score cross-check, and a real game against GNU Go (installed by ``.ci/run``)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

import playout
from playout import render
from playout._src import arena
from playout._src.arena.play import play_game
from playout._src.arena.specs import check_player_spec
from playout._src.errors import EngineError, InvalidParameterError
from playout.games.go import GoGame
from playout.games.go.board import score_text
from playout.interop.gtp_player import GtpPlayer, engine_argv

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
FAKE = HERE / "fake_gtp_engine.py"
GNUGO = "/usr/games/gnugo"


@pytest.fixture(autouse=True)
def _engine_finds_playout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake engine imports playout from this checkout."""
    monkeypatch.setenv("PYTHONPATH", str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def fake(mode: str = "normal") -> str:
    return f"gtp:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} {mode}"


def test_two_engines_play_a_whole_game_and_the_scores_agree() -> None:
    game = GoGame(5, 0.5)
    p0 = playout.parse_player(fake(), game)
    p1 = playout.parse_player(fake(), game)
    record = play_game(game, p0, p1, seed=1)
    state = game.initial_state()
    for action in record.actions:
        state = state.play(action)
    assert state.is_terminal() and record.resigned is None
    assert record.actions[-2:] == (game.pass_action, game.pass_action)
    assert record.returns == state.returns()
    # Both engines report the final score; both are Tromp-Taylor here, so all agree.
    assert len(record.score_checks) == 2
    ours = score_text(state.score())
    for check in record.score_checks:
        assert (check.reported, check.ours, check.same_score, check.same_winner) == (
            ours, ours, True, True,
        )  # fmt: skip
    # The processes were ended with the game.
    assert p0._connection is None and p1._connection is None  # type: ignore[attr-defined]


def test_a_disagreeing_score_is_recorded_and_shown(tmp_path: Path) -> None:
    game = GoGame(5, 0.5)
    save = tmp_path / "games.jsonl"
    result = arena.run_match(game, fake(), fake("score:W+99"), 1, save=save)
    record = result.records[0]
    (normal, odd) = record.score_checks
    assert normal.same_score and not odd.same_score
    assert odd.reported == "W+99" and odd.dead == "A1 B1" and normal.dead == ""
    assert odd.same_winner == (normal.ours.startswith("W"))
    counts = result.score_check_counts()
    assert counts == {"checks": 2, "same_score": 1, "same_winner": 1 + odd.same_winner,
                      "resigned": 0}  # fmt: skip
    text = render.match_text(result, 1)
    assert "engine scores: 1 of 2 agree with ours (Tromp-Taylor)" in text
    assert f"says W+99, ours {normal.ours} (dead for it: A1 B1)" in text
    line = json.loads(save.read_text())
    assert [c["reported"] for c in line["score_checks"]] == [normal.ours, "W+99"]
    assert arena.read_records(save)[0].data["score_checks"] == line["score_checks"]


def test_resignation_ends_the_game_and_is_saved(tmp_path: Path) -> None:
    game = GoGame(5, 0.5)
    save = tmp_path / "games.jsonl"
    result = arena.run_match(game, "random", fake("resign"), 2, save=save)
    first, second = result.records
    # Game 1: the engine is White and resigns at its first move; game 2 it is Black.
    assert (first.num_moves, first.resigned, first.returns) == (1, 1, (1.0, -1.0))
    assert (second.num_moves, second.resigned, second.returns) == (0, 0, (-1.0, 1.0))
    assert result.wins == 2 and not first.score_checks
    saved = arena.read_records(save)
    assert [s.data["resigned"] for s in saved] == [1, 0]
    assert "White resigned; Black wins" in render.replay_text(saved[0])


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", r"exited \(code 3\) after command 'genmove b' \(its last error output: fake"),
        (
            "garbage",
            r"answered out of protocol \('I am not a GTP engine'\) after command 'genmove b'",
        ),
        ("illegal", r"played 'a5', illegal here .* after command 'genmove b'"),
    ],
)
def test_a_misbehaving_engine_is_an_engine_error_naming_it(mode: str, message: str) -> None:
    game = GoGame(5, 0.5)
    engine = GtpPlayer(game, f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} {mode}",
                       name="fake")  # fmt: skip
    with pytest.raises(EngineError, match="GTP engine 'fake' " + message):
        play_game(game, engine, playout.parse_player(fake(), game))
    assert engine._connection is None  # type: ignore[attr-defined]  # closed on the error


def test_a_silent_engine_times_out_and_is_killed() -> None:
    game = GoGame(5, 0.5)
    engine = GtpPlayer(game, f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} silent",
                       name="slow", timeout=3)  # fmt: skip
    engine.reset(game.initial_state(), 0)
    process = engine._connection._process  # type: ignore[union-attr]
    with pytest.raises(
        EngineError, match=r"'slow' did not answer within 3 s after command 'genmove b'"
    ):
        engine.choose(game.initial_state())
    engine.close()
    assert process.poll() is not None  # killed, not left running


def test_the_first_reply_may_take_longer_than_the_timeout() -> None:
    # An engine that loads before it answers gets STARTUP_TIMEOUT for its first reply;
    # every later reply keeps the timeout asked for (3 s: the fake engine's replies take
    # milliseconds, its start 6 s).
    game = GoGame(5, 0.5)
    engine = GtpPlayer(game, f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))} slowstart",
                       name="loading", timeout=3)  # fmt: skip
    try:
        engine.reset(game.initial_state(), 0)
        assert engine.choose(game.initial_state()) in game.initial_state().legal_actions()
        assert engine._connection.timeout == 3  # type: ignore[union-attr]
    finally:
        engine.close()


def test_bad_specs_fail_before_anything_runs() -> None:
    go = GoGame(9)
    with pytest.raises(InvalidParameterError, match="'no-such-engine-here' not found"):
        playout.parse_player("gtp:no-such-engine-here --mode gtp", go)
    with pytest.raises(InvalidParameterError, match="needs the engine's command"):
        playout.parse_player("gtp:", go)
    with pytest.raises(InvalidParameterError, match="cannot read GTP command"):
        playout.parse_player('gtp:gnugo "unclosed', go)
    with pytest.raises(InvalidParameterError, match="plays Go, not tictactoe"):
        playout.parse_player(fake(), playout.make_game("tictactoe"))
    with pytest.raises(InvalidParameterError, match="not found"):
        check_player_spec("gtp:no-such-engine-here")


def test_gnugo_is_found_in_usr_games(monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.access(GNUGO, os.X_OK):
        pytest.fail(f"{GNUGO} is missing: .ci/run installs it (apt-get install gnugo)")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert engine_argv("gnugo --mode gtp") == [GNUGO, "--mode", "gtp"]


def test_a_real_game_against_gnugo_with_the_score_cross_checked(tmp_path: Path) -> None:
    """A short game on 7x7 against GNU Go at level 1 (Chinese rules, positional superko,
    capture-all-dead, a fixed seed): GNU Go's final_score must name the same winner as
    ours, and give the same score unless it takes stones off as dead (then it names them)."""
    if not os.access(GNUGO, os.X_OK):
        pytest.fail(f"{GNUGO} is missing: .ci/run installs it (apt-get install gnugo)")
    game = GoGame(7, 7.5)
    gnugo = ("gtp:gnugo --mode gtp --level 1 --chinese-rules --positional-superko "
             "--capture-all-dead --never-resign --seed 1")  # fmt: skip
    result = arena.run_match(game, "mcts:simulations=300", gnugo, 1, save=tmp_path / "g.jsonl")
    (record,) = result.records
    (check,) = record.score_checks
    assert record.resigned is None
    state = game.initial_state()
    for action in record.actions:
        state = state.play(action)
    assert check.ours == score_text(state.score())
    assert check.same_winner, check
    assert check.same_score or check.dead, check
    assert check.same_score, check  # this game, with these seeds, ends with no dead stones
    assert arena.read_records(tmp_path / "g.jsonl")[0].data["score_checks"][0]["same_score"]


def test_engines_play_in_worker_processes() -> None:
    """The pool executor sends the specs; each worker starts its own engines."""
    game = GoGame(5, 0.5)
    result = arena.run_match(game, fake(), "mcts:simulations=30", 2, workers=2, executor="pool")
    assert result.games == 2
    assert [len(record.score_checks) for record in result.records] == [1, 1]
    assert all(record.score_checks[0].player == fake() for record in result.records)


def test_an_sgf_save_is_refused_for_other_games_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameterError, match="SGF files hold Go games"):
        arena.run_match(playout.make_game("tictactoe"), "random", "random", 1,
                        save=tmp_path / "t.sgf")  # fmt: skip
    assert not (tmp_path / "t.sgf").exists()
