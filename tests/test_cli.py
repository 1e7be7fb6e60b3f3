"""The ``playout`` command line: analyze, play (piped stdin), match, games and user errors."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import playout
from playout.cli import main

SRC = str(Path(playout.__file__).resolve().parent.parent)

ANALYSIS_KEYS = {
    "game",
    "to_play",
    "best_action",
    "best_move",
    "value",
    "actions",
    "pv",
    "simulations",
    "seconds",
    "nodes",
    "max_depth",
    "proven",
    "workers",
}


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def analyze_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run_main(capsys, "analyze", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def run_module(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "playout", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


# ---------------------------------------------------------------------------------- analyze


def test_analyze_json_schema_and_winning_move(capsys: pytest.CaptureFixture[str]) -> None:
    # X: (0,0) (0,1); O: (1,0) (1,1). X to move wins at (0,2).
    data = analyze_json(
        capsys, "tictactoe", "--moves", "0,0 1,0 0,1 1,1", "--simulations", "300", "--seed", "1"
    )
    assert set(data) == ANALYSIS_KEYS
    assert data["game"] == "tictactoe"
    assert data["to_play"] == 0
    assert data["best_move"] == "0,2"
    assert data["best_action"] == 2 * 3 + 0
    assert data["pv"][0] == "0,2"
    assert data["value"] == 1.0
    # The solver proves the win in one and stops early.
    assert data["proven"] == "win"
    assert 1 <= data["simulations"] < 300
    assert data["seconds"] >= 0 and data["nodes"] >= 2 and data["max_depth"] >= 1
    moves = {entry["move"]: entry for entry in data["actions"]}
    assert set(moves) == {"2,0", "2,1", "0,2", "1,2", "2,2"}
    for entry in data["actions"]:
        assert set(entry) == {"action", "move", "visits", "value"}
        assert -1.0 <= entry["value"] <= 1.0
    assert sum(entry["visits"] for entry in data["actions"]) == data["simulations"]
    assert moves["0,2"]["value"] == 1.0
    assert moves["0,2"]["action"] == data["best_action"]


def test_analyze_finds_the_only_defence(capsys: pytest.CaptureFixture[str]) -> None:
    # X threatens (0,2); O must block there.
    data = analyze_json(
        capsys, "tictactoe", "--moves", "0,0 1,1 0,1", "--simulations", "400", "--seed", "2"
    )
    assert data["to_play"] == 1
    assert data["best_move"] == "0,2"


def test_analyze_accepts_letter_notation(capsys: pytest.CaptureFixture[str]) -> None:
    # a1 = (0,0), b1 = (1,0), a2 = (0,1), b2 = (1,1): the same position as above.
    data = analyze_json(
        capsys, "mnk", "--moves", "a1 b1 a2 b2", "--simulations", "200", "--seed", "1"
    )
    assert data["best_move"] == "0,2"


@pytest.mark.parametrize("moves", ["445566", "4455 66", "4 4 5 5 6 6"])
def test_analyze_connect4_immediate_win(capsys: pytest.CaptureFixture[str], moves: str) -> None:
    # X on columns 4, 5, 6 of the bottom row, O on top: X wins in column 3 or 7.
    data = analyze_json(capsys, "connect4", "--moves", moves, "--simulations", "400", "--seed", "3")
    assert data["game"] == "connect4"
    assert data["to_play"] == 0
    assert data["best_move"] in {"3", "7"}
    assert data["best_action"] in {2, 6}
    assert [entry["move"] for entry in data["actions"]] == [str(c) for c in range(1, 8)]
    assert data["value"] > 0.5


def test_analyze_is_reproducible_with_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("connect4", "--moves", "44", "--simulations", "200", "--seed", "7")
    first = analyze_json(capsys, *args)
    second = analyze_json(capsys, *args)
    first.pop("seconds")
    second.pop("seconds")
    assert first == second


def test_analyze_workers_runs_a_root_parallel_search(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(
        capsys, "connect4", "--simulations", "2000", "--workers", "2", "--seed", "5"
    )
    assert set(data) == ANALYSIS_KEYS
    assert data["workers"] == 2
    # Each worker runs the whole budget; the root statistics of both are added up.
    visits = [entry["visits"] for entry in data["actions"]]
    assert sum(visits) == data["simulations"] == 2 * 2000
    assert all(n > 0 for n in visits)
    assert data["best_action"] in range(7)
    assert data["best_move"] == str(data["best_action"] + 1)
    best = max(data["actions"], key=lambda entry: (entry["visits"], entry["value"]))
    assert best["action"] == data["best_action"]  # most merged visits
    assert data["nodes"] > 2000  # two trees


def test_analyze_workers_fall_back_to_one_without_a_compiled_search(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The bandit tree has no compiled kernel: one worker, and a note says why.
    code, out, err = run_main(
        capsys, "analyze", "bandit", "--workers", "2", "--simulations", "50", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["workers"] == 1
    assert data["best_move"] == "right"  # the optimal path 0 -> 2 -> 6 starts right
    assert err.startswith("playout: note: --workers needs the compiled search")
    assert len(err.splitlines()) == 1


def test_analyze_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(
        capsys,
        "analyze",
        "tictactoe",
        "--moves",
        "0,0 1,0 0,1 1,1",
        "--simulations",
        "200",
        "--seed",
        "1",
    )
    assert code == 0 and err == ""
    assert "X O ." in out  # the board
    assert "move probabilities" in out
    assert "values for X" in out
    assert "best move: 0,2" in out
    assert "pv: 0,2" in out
    assert "proven: win" in out
    assert re.search(r"simulations: \d+ in", out)


def test_analyze_one_player_game_lists_moves(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "analyze", "bandit", "--simulations", "200", "--seed", "1")
    assert code == 0
    assert "top moves" in out and "best move:" in out


def test_analyze_gomoku_with_neighbor_rollouts(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(
        capsys,
        "gomoku",
        "--width",
        "5",
        "--height",
        "5",
        "--k",
        "4",
        "--moves",
        "2,2",
        "--simulations",
        "100",
        "--seed",
        "1",
        "--rollout",
        "neighbors",
    )
    assert data["to_play"] == 1
    assert len(data["actions"]) == 24


# ---------------------------------------------------------------------------------- play


def play(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: str,
    *argv: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return run_main(capsys, "play", *argv)


def test_play_reprompts_on_bad_input_then_quits(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = "zz\n9,9\n\nhelp\nb2\n1,1\nquit\n"
    code, out, err = play(
        capsys, monkeypatch, stdin, "tictactoe", "--simulations", "100", "--seed", "1"
    )
    assert code == 0
    assert err == ""
    assert "Traceback" not in out
    assert "cannot read that move" in out  # zz
    assert "off the 3x3 board" in out  # 9,9
    assert "legal moves: 0,0 1,0 2,0" in out  # help
    assert "you play 1,1" in out  # b2
    assert "AI (O) plays" in out
    assert "move probabilities" in out
    assert "AI value:" in out
    assert "already occupied" in out  # 1,1 again
    assert out.rstrip().endswith("bye")
    assert out.count("your move (X):") == 7


def test_play_end_of_input_exits_cleanly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = play(capsys, monkeypatch, "", "tictactoe", "--simulations", "50")
    assert code == 0 and err == ""
    assert "bye" in out


def test_play_ctrl_c_exits_cleanly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Interrupting(io.StringIO):
        def readline(self, *args: object) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", Interrupting())
    code, out, err = run_main(capsys, "play", "connect4", "--simulations", "50")
    assert code == 0 and err == ""
    assert "bye" in out


def test_play_full_game_ai_first(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The human tries every square in order; occupied ones are re-prompted, so the game ends.
    squares = [f"{x},{y}" for y in range(3) for x in range(3)]
    stdin = "\n".join(squares * 5) + "\n"
    code, out, _ = play(
        capsys,
        monkeypatch,
        stdin,
        "tictactoe",
        "--first",
        "ai",
        "--simulations",
        "300",
        "--seed",
        "4",
    )
    assert code == 0
    assert "you are O, the AI is X" in out
    assert "game over:" in out
    assert "you win" not in out  # the AI does not lose tic-tac-toe to this player


def test_play_connect4_and_ai_keeps_its_tree(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = play(
        capsys, monkeypatch, "4\n8\nx\n4\nq\n", "connect4", "--simulations", "200", "--seed", "1"
    )
    assert code == 0
    assert "there is no column 8" in out
    assert "cannot read that move" in out
    assert out.count("AI (O) plays") == 2
    # The second search starts from the subtree kept after the moves: more root visits
    # than its own 200 simulations.
    totals = [
        int(line.split("(")[1].split()[0].replace(",", ""))
        for line in out.splitlines()
        if line.startswith("move probabilities")
    ]
    assert totals[0] == 200 and totals[1] > 200


# ---------------------------------------------------------------------------------- match


def test_match_mcts_never_loses_to_random(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(
        capsys,
        "match",
        "tictactoe",
        "--p1",
        "mcts:simulations=300",
        "--p2",
        "random",
        "--games",
        "10",
        "--seed",
        "1",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 10
    assert data["losses"] == 0
    assert data["wins"] + data["draws"] == 10
    assert data["score"] == (data["wins"] + data["draws"] / 2) / 10
    low, high = data["ci95"]
    assert 0.0 <= low <= data["score"] <= high <= 1.0
    assert [r["p1_first"] for r in data["results"]] == [True, False] * 5


def test_match_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(
        capsys,
        "match",
        "tictactoe",
        "--p1",
        "random",
        "--p2",
        "mcts:simulations=100,c=1.0",
        "--games",
        "4",
        "--seed",
        "3",
    )
    assert code == 0
    assert "game 4/4: p2 first" in out
    assert "p1:" in out and "wins" in out and "losses" in out
    assert "95% CI" in out


def test_match_seed004_self_play_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(
        capsys,
        "match",
        "gomoku",
        "--width",
        "5",
        "--height",
        "5",
        "--k",
        "4",
        "--p1",
        "mcts:simulations=100,rollout=neighbors",
        "--p2",
        "mcts:simulations=100",
        "--games",
        "2",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["game"] == "gomoku" and data["games"] == 2
    assert data["wins"] + data["draws"] + data["losses"] == 2


def test_games_lists_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "games")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == playout.game_names()
    assert all(len(line.split()) > 1 for line in out.splitlines())


# ---------------------------------------------------------------------------------- errors


ERROR_CASES = [
    ["analyze", "nosuchgame"],
    ["play", "nosuchgame"],
    ["analyze", "tictactoe", "--moves", "0,0 0,0"],  # illegal: occupied
    ["analyze", "tictactoe", "--moves", "3,3"],  # off the board
    ["analyze", "tictactoe", "--moves", "hello"],  # malformed
    ["analyze", "connect4", "--moves", "1111111"],  # column full
    ["analyze", "tictactoe", "--moves", "0,0 1,0 0,1 1,1 0,2"],  # game over
    ["analyze", "tictactoe", "--moves", "0,0 1,0 0,1 1,1 0,2 2,2"],  # move after the end
    ["analyze", "mnk", "--width", "3", "--height", "3", "--k", "4"],  # k too long
    ["analyze", "gomoku", "--width", "0"],
    ["analyze", "tictactoe", "--width", "4"],  # tictactoe takes no parameters
    ["analyze", "tictactoe", "--simulations", "0"],
    ["analyze", "tictactoe", "--simulations", "-5"],
    ["analyze", "tictactoe", "--simulations", "many"],
    ["analyze", "tictactoe", "--seconds", "0"],
    ["analyze", "tictactoe", "--seconds", "-1"],
    ["analyze", "tictactoe", "--simulations", "10", "--seconds", "1"],
    ["analyze", "tictactoe", "--c", "-1"],
    ["analyze", "connect4", "--rollout", "neighbors"],
    ["analyze", "tictactoe", "--seed", "-1"],
    ["analyze", "connect4", "--workers", "0"],
    ["analyze", "connect4", "--workers", "two"],
    ["analyze", "connect4", "--workers", "2", "--backend", "python"],
    ["analyze", "bandit", "--workers", "2", "--backend", "compiled"],
    ["match", "tictactoe", "--p1", "alphazero", "--p2", "random"],
    ["match", "tictactoe", "--p1", "mcts:simulations=0", "--p2", "random"],
    ["match", "tictactoe", "--p1", "mcts:simulations=x", "--p2", "random"],
    ["match", "tictactoe", "--p1", "mcts:depth=3", "--p2", "random"],
    ["match", "tictactoe", "--p1", "mcts:rule=magic", "--p2", "random"],
    ["match", "tictactoe", "--p1", "random:3", "--p2", "random"],
    ["match", "connect4", "--p1", "mcts:rollout=neighbors", "--p2", "random"],
    ["match", "tictactoe", "--p1", "random", "--p2", "random", "--games", "0"],
    ["match", "tictactoe", "--p1", "random"],
    ["match", "bandit", "--p1", "random", "--p2", "random"],
    ["play", "bandit"],
    ["play", "tictactoe", "--first", "nobody"],
    ["frobnicate"],
    [],
]


@pytest.mark.parametrize("argv", ERROR_CASES, ids=lambda argv: " ".join(argv) or "(none)")
def test_user_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, err = run_main(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("playout: error: ")
    assert "Traceback" not in err


def test_backend_choice(capsys: pytest.CaptureFixture[str]) -> None:
    # The bandit tree has no compiled kernel: insisting on the compiled backend is an error.
    code, _, err = run_main(capsys, "analyze", "bandit", "--backend", "compiled")
    assert code == 2 and err.startswith("playout: error: ") and len(err.splitlines()) == 1
    for backend in ("python", "compiled", "auto"):
        code, out, _ = run_main(
            capsys,
            "analyze",
            "tictactoe",
            "--backend",
            backend,
            "--simulations",
            "50",
            "--json",
        )
        assert code == 0
        assert json.loads(out)["best_action"] in range(9)


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "match", "--help")
    assert code == 0
    assert "--p1" in out


# ---------------------------------------------------------------------------------- python -m


def test_module_analyze_json() -> None:
    proc = run_module(
        "analyze",
        "tictactoe",
        "--moves",
        "0,0 1,0 0,1 1,1",
        "--simulations",
        "200",
        "--seed",
        "1",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["best_move"] == "0,2"


def test_module_play_with_piped_stdin() -> None:
    proc = run_module(
        "play", "tictactoe", "--simulations", "50", "--seed", "2", stdin="nonsense\n1,1\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "cannot read that move" in proc.stdout
    assert "AI (O) plays" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "\x1b[" not in proc.stdout  # no progress bar or colours when piped


def test_module_error_is_one_line() -> None:
    proc = run_module("analyze", "tictactoe", "--moves", "0,0 0,0")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("playout: error: ")
    assert len(proc.stderr.splitlines()) == 1
    assert "Traceback" not in proc.stderr
