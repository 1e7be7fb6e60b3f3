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
    assert data["best_move"] == "a3"
    assert data["best_action"] == 2 * 3 + 0
    assert data["pv"][0] == "a3"
    assert data["value"] == 1.0
    # The solver proves the win in one and stops early.
    assert data["proven"] == "win"
    assert 1 <= data["simulations"] < 300
    assert data["seconds"] >= 0 and data["nodes"] >= 2 and data["max_depth"] >= 1
    moves = {entry["move"]: entry for entry in data["actions"]}
    assert set(moves) == {"c1", "c2", "a3", "b3", "c3"}
    for entry in data["actions"]:
        assert set(entry) == {"action", "move", "visits", "value", "proven"}
        assert -1.0 <= entry["value"] <= 1.0
        assert entry["proven"] in ("win", "draw", "loss", None)
    assert sum(entry["visits"] for entry in data["actions"]) == data["simulations"]
    assert moves["a3"]["value"] == 1.0
    assert moves["a3"]["action"] == data["best_action"]
    assert moves["a3"]["proven"] == "win"  # the solver's proof of that move


def test_analyze_finds_the_only_defence(capsys: pytest.CaptureFixture[str]) -> None:
    # X threatens (0,2); O must block there.
    data = analyze_json(
        capsys, "tictactoe", "--moves", "0,0 1,1 0,1", "--simulations", "400", "--seed", "2"
    )
    assert data["to_play"] == 1
    assert data["best_move"] == "a3"


def test_analyze_accepts_letter_notation(capsys: pytest.CaptureFixture[str]) -> None:
    # a1 = (0,0), b1 = (1,0), a2 = (0,1), b2 = (1,1): the same position as above.
    data = analyze_json(
        capsys, "mnk", "--moves", "a1 b1 a2 b2", "--simulations", "200", "--seed", "1"
    )
    assert data["best_move"] == "a3"


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
    assert "best move: a3" in out
    assert "pv: a3" in out
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


@pytest.mark.parametrize(
    ("game", "moves", "suffix"),
    [("tictactoe", "1,1", ".png"), ("connect4", "4453", ".svg"), ("chess", "e4", ".png")],
)
def test_analyze_plot_writes_an_image(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, moves: str, suffix: str
) -> None:
    pytest.importorskip("matplotlib")
    if game == "chess":
        pytest.importorskip("chess")
    plot = tmp_path / f"search{suffix}"
    argv = ["analyze", game, "--moves", moves, "--simulations", "200", "--seed", "1"]
    code, out, err = run_main(capsys, *argv, "--plot", str(plot))
    assert code == 0, err
    assert out.strip().splitlines()[-1] == f"plot written to {plot}"
    data = plot.read_bytes()
    if suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        from xml.etree import ElementTree

        assert ElementTree.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"
    # With --json the note goes to stderr and stdout stays one JSON object.
    code, out, err = run_main(capsys, *argv, "--json", "--plot", str(plot))
    assert code == 0 and json.loads(out)["simulations"] == 200
    assert err.strip() == f"playout: note: plot written to {plot}"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--plot", "search.pdf"], "search.pdf: a plot is written as .png or .svg"),
        (["--plot", "search.png", "--flat"], "--plot draws a tree search's visits"),
    ],
)
def test_analyze_plot_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(capsys, "analyze", "tictactoe", *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("playout: error: ") and message in err
    assert not list(tmp_path.iterdir())


def parse_dot(text: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """A tiny parser for the DOT that ``--tree`` writes: node labels by name, and edges."""
    assert text.startswith("digraph ") and text.rstrip().endswith("}")
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in text.splitlines()[1:-1]:
        line = line.strip()
        assert line.endswith(";"), line
        if match := re.fullmatch(r'(n\d+) -> (n\d+) \[label="(\d+)%"\];', line):
            edges.append((match[1], match[2]))
        elif match := re.fullmatch(r'(n\d+) \[label="((?:[^"\\]|\\.)*)"\];', line):
            assert match[1] not in nodes
            nodes[match[1]] = match[2]
        else:
            assert re.fullmatch(r"(label|node|edge)[ =].*;", line), line
    assert all(a in nodes and b in nodes for a, b in edges)
    return nodes, edges


def tree_nodes(node: dict) -> list[tuple[dict, int]]:
    """Every node of a ``--tree`` JSON export with its depth (pre-order)."""
    found, stack = [], [(node, 0)]
    while stack:
        node, depth = stack.pop()
        found.append((node, depth))
        stack.extend((child, depth + 1) for child in reversed(node["children"]))
    return found


@pytest.mark.parametrize(("depth", "width"), [(2, 3), (3, 2), (0, 5)])
def test_analyze_tree_exports_the_top_of_the_tree(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, depth: int, width: int
) -> None:
    argv = ["analyze", "connect4", "--moves", "4453", "--simulations", "500", "--seed", "3"]
    shape = ["--tree-depth", str(depth), "--tree-width", str(width)]
    code, out, err = run_main(capsys, *argv, "--tree", str(tmp_path / "t.json"), *shape)
    assert code == 0, err
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["game"] == "connect4"
    root = data["root"]
    assert root["visits"] == 500 and root["move"] is None and root["to_play"] == "Red"
    nodes = tree_nodes(root)
    assert (
        out.strip().splitlines()[-1]
        == f"tree written to {tmp_path / 't.json'} ({len(nodes)} nodes)"
    )
    for node, level in nodes:
        assert level <= depth and len(node["children"]) <= width
        visits = [child["visits"] for child in node["children"]]
        assert visits == sorted(visits, reverse=True) and all(v > 0 for v in visits)
        assert sum(visits) <= node["visits"]
        if level == depth:
            assert node["children"] == []
        for child in node["children"]:
            # Values for the player to move at each node: the mover's value negated.
            assert child["to_play"] != node["to_play"]
            assert child["value"] == pytest.approx(-child["move_value"], abs=1e-5)
            assert child["share"] == pytest.approx(child["visits"] / node["visits"], abs=1e-5)
    if depth:
        assert len(root["children"]) + root["hidden"] == 7  # every column was searched
    # The root's moves agree with --json.
    result = analyze_json(capsys, *argv[1:])
    by_move = {a["move"]: a for a in result["actions"]}
    for child in root["children"]:
        assert child["visits"] == by_move[child["move"]]["visits"]
        assert child["move_value"] == pytest.approx(by_move[child["move"]]["value"], abs=1e-5)
    # DOT: the same nodes and edges.
    code, out, err = run_main(capsys, *argv, "--tree", str(tmp_path / "t.dot"), *shape)
    assert code == 0, err
    labels, edges = parse_dot((tmp_path / "t.dot").read_text())
    assert len(labels) == len(nodes) and len(edges) == len(nodes) - 1
    assert labels["n0"].startswith("root\\nRed to move\\n500 visits")


def test_analyze_tree_shows_proofs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    argv = ["analyze", "tictactoe", "--moves", "0,0 1,0 1,1 2,0", "--simulations", "300"]
    code, _, err = run_main(capsys, *argv, "--seed", "1", "--json", "--tree", str(path))
    count = len(tree_nodes(json.loads(path.read_text())["root"]))
    assert code == 0 and err.strip() == f"playout: note: tree written to {path} ({count} nodes)"
    root = json.loads(path.read_text())["root"]
    assert root["proven"] == "win" and root["value"] == 1.0 and root["plies"] == 1
    win = next(c for c in root["children"] if c["move"] == "c3")
    assert win["terminal"] and win["to_play"] is None and win["value"] is None
    assert win["move_proven"] == "win" and win["move_value"] == 1.0 and win["children"] == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--tree", "t.txt"], "t.txt: a tree is written as .dot or .json"),
        (["--tree", "t.dot", "--flat"], "--flat has none"),
        (["--tree", "t.dot", "--threads", "2"], "--tree exports one search tree"),
        (["--tree", "t.dot", "--tree-depth", "65"], "--tree-depth must be at most 64"),
        (["--tree-depth", "3"], "--tree-depth and --tree-width shape --tree's export"),
        (["--tree", "t.dot", "--tree-width", "0"], "--tree-width"),
    ],
)
def test_analyze_tree_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(capsys, "analyze", "tictactoe", *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("playout: error: ") and message in err, err
    assert not list(tmp_path.iterdir())


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
    assert "legal moves: a1 b1 c1" in out  # help
    assert "you play b2" in out  # typed b2
    assert "AI (O) plays" in out
    assert "move probabilities" in out
    assert "AI value:" in out
    assert "square b2 is already occupied" in out  # 1,1 again, named as the board does
    assert out.rstrip().endswith("bye")
    assert out.count("your move (X):") == 7


EVERY_SQUARE_XY = "".join(f"{x},{y}\n" for y in range(3) for x in range(3))
"""Every tic-tac-toe square in seed 001's 0-based ``x,y``, top row first: piped to ``play``,
the first free one is played (the taken ones are refused)."""

SQUARE = re.compile(r"^[a-c][1-3]$")
"""A tic-tac-toe square as the board labels it."""


def test_play_tictactoe_speaks_the_board_notation(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The board is labelled a-c / 1-3: the moves played before, help, the AI's move and the
    # echo of the user's move (typed as x,y) all say b2, never 1,1.
    stdin = "help\n" + EVERY_SQUARE_XY + "quit\n"
    code, out, err = play(
        capsys, monkeypatch, stdin, "tictactoe", "--moves", "0,0", "--simulations", "100",
        "--seed", "1",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert "  a b c\n1 X . ." in out  # the labels the notation follows
    assert "after 1 move: a1" in out
    ai = re.findall(r"^AI \(O\) plays (.+)$", out, re.MULTILINE)
    legal = re.findall(r"^legal moves: (.+)$", out, re.MULTILINE)[0].split()
    mine = re.findall(r"^you play (.+)$", out, re.MULTILINE)
    assert ai and mine and len(legal) == 7
    assert all(SQUARE.match(move) for move in [*ai, *legal, *mine])
    assert ai[0] not in legal and mine[0] == legal[0]  # the first free square, typed as x,y
    assert "square a1 is already occupied" in out  # 0,0 refused, in the board's words
    printed = [line for line in out.splitlines() if not line.startswith("your move")]
    assert not [line for line in printed if re.search(r"\d,\d", line)]  # no x,y anywhere


def test_play_says_when_the_kept_tree_already_proved_the_position(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Four empty squares, O (the AI) to move, a draw: the first search proves it before its
    # budget, and with it every position below. After the user's reply the tree the AI kept
    # (tree reuse) holds the proof, so its second search runs no simulation at all: the
    # grid's shares and the proof come from the first search, and the lines say so.
    code, out, err = play(
        capsys, monkeypatch, EVERY_SQUARE_XY + "quit\n", "tictactoe", "--moves",
        "a1 b2 c3 b1 b3", "--simulations", "300", "--seed", "1",
    )  # fmt: skip
    assert code == 0 and err == ""
    first, second = out.split("AI (O) plays ")[1:]
    assert "proven draw for O (to move): the solver stopped the search after " in first
    assert re.search(r"AI value: \+0\.00 \(for O, in \[-1, 1\]; \d+ simulations in ", first)
    assert re.search(
        r"move probabilities \(\d+ simulations at the root, all from earlier searches; O to "
        r"move\):",
        second,
    )
    assert (
        "proven draw for O (to move): the tree already proved this position (a draw in 2 "
        "plies), so no new simulations ran\nAI value: +0.00 (for O, in [-1, 1]; no new "
        "simulations)"
    ) in second
    assert not re.search(r"\b0 simulations", out) and "-0.00" not in out
    assert "game over: draw (nobody wins)" in out


def test_play_pig_draws_the_die_instead_of_letting_the_ai_choose(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = play(
        capsys, monkeypatch, "roll\n" * 6 + "quit\n", "pig", "--simulations", "50",
        "--seed", "1",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert re.search(r"^chance plays [1-6]$", out, re.MULTILINE)
    assert not re.search(r"plays [1-6]$", out.replace("chance plays", ""), re.MULTILINE)


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
    assert out.count("AI (Yellow) plays") == 2  # connect four names its players by colour
    assert "AI (O)" not in out
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


# ---------------------------------------------------------------------- solver, final, depth

WIN_IN_ONE = ("tictactoe", "--moves", "0,0 1,0 0,1 1,1", "--simulations", "300", "--seed", "1")
SEED001_GRID = ("tictactoe", "--moves", "0,0 1,1 2,2", "--simulations", "1000", "--seed", "1")
"""Seed 001's grid example: two corners against the centre (colours swapped: X starts)."""


def test_no_solver_runs_the_whole_budget(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(capsys, *WIN_IN_ONE, "--no-solver")
    assert data["proven"] is None
    assert data["simulations"] == 300
    assert data["best_move"] == "a3"
    solved = analyze_json(capsys, *WIN_IN_ONE, "--solver")
    assert solved["proven"] == "win" and solved["simulations"] < 300
    default = analyze_json(capsys, *WIN_IN_ONE)  # the library's default: on for tic-tac-toe
    assert {**default, "seconds": 0} == {**solved, "seconds": 0}


@pytest.mark.parametrize(
    ("flag", "final"),
    [("most-visits", "most_visits"), ("best-value", "best_value"), ("sample", "sample")],
)
def test_final_maps_to_the_library_names(flag: str, final: str) -> None:
    from playout.cli.engine import engine_options
    from playout.cli.parser import build_parser

    args = build_parser().parse_args(["analyze", "tictactoe", "--final", flag])
    state = playout.make_game("tictactoe").initial_state()
    assert engine_options(state, args)["final"] == final


def test_final_best_value_picks_the_best_mean(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(capsys, *SEED001_GRID[:-4], "--simulations", "400", "--seed", "3",
                        "--no-solver", "--final", "best-value")  # fmt: skip
    visited = [entry for entry in data["actions"] if entry["visits"] > 0]
    best = max(entry["value"] for entry in visited)
    chosen = next(entry for entry in data["actions"] if entry["action"] == data["best_action"])
    assert chosen["value"] == best
    sampled = analyze_json(capsys, *SEED001_GRID[:-4], "--simulations", "400", "--seed", "3",
                           "--final", "sample")  # fmt: skip
    assert sampled["best_action"] in [entry["action"] for entry in sampled["actions"]]


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_max_depth_bounds_the_tree(capsys: pytest.CaptureFixture[str], backend: str) -> None:
    data = analyze_json(
        capsys, *WIN_IN_ONE, "--no-solver", "--max-depth", "1", "--backend", backend
    )
    assert data["max_depth"] == 1
    assert data["simulations"] == 300
    assert data["nodes"] == 1 + len(data["actions"])  # the root and its children only
    deeper = analyze_json(capsys, *WIN_IN_ONE, "--no-solver", "--backend", backend)
    assert deeper["max_depth"] > 1


def test_unset_options_leave_the_defaults_to_the_library() -> None:
    from playout.cli.engine import engine_options
    from playout.cli.parser import build_parser

    parser = build_parser()
    state = playout.make_game("tictactoe").initial_state()
    options = engine_options(state, parser.parse_args(["analyze", "tictactoe"]))
    assert options["selection"] is None and options["evaluator"] is None
    assert options["solver"] is None and options["final"] == "most_visits"
    assert options["budget"] == playout.Budget(simulations=1000)
    given = engine_options(
        state,
        parser.parse_args(
            ["analyze", "tictactoe", "--rule", "puct", "--rollouts", "3", "--no-solver",
             "--max-depth", "4", "--seconds", "2"]
        ),
    )  # fmt: skip
    assert type(given["selection"]).__name__ == "PUCT"
    assert given["evaluator"].num_rollouts == 3
    assert given["solver"] is False
    assert given["budget"] == playout.Budget(seconds=2.0, max_depth=4)


def test_match_engine_defaults_fill_what_specs_leave_open() -> None:
    import pickle

    from playout.cli.engine import EngineDefaults

    calls: list[dict] = []

    def factory(state: object, **kwargs: object) -> dict:
        calls.append(kwargs)
        return kwargs

    defaults = EngineDefaults(factory, solver=False, final="best_value", max_depth=3)
    budget = playout.Budget(simulations=10)
    assert defaults(None, budget=budget) == {
        "budget": playout.Budget(simulations=10, max_depth=3),
        "solver": False,
        "final": "best_value",
    }
    # A spec's own solver=yes and depth win over the defaults.
    kept = defaults(None, budget=playout.Budget(max_depth=7), solver=True)
    assert kept["solver"] is True and kept["budget"].max_depth == 7
    assert pickle.loads(pickle.dumps(EngineDefaults(playout.MCTS, solver=True))).solver is True


def test_match_with_engine_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(
        capsys, "match", "tictactoe", "--p1", "mcts:simulations=100", "--p2", "random",
        "--games", "2", "--workers", "1", "--no-solver", "--final", "best-value",
        "--max-depth", "3", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 2 and data["wins"] + data["draws"] + data["losses"] == 2


def test_seed001_grid_says_the_root_is_proven(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "analyze", *SEED001_GRID)
    assert code == 0 and err == ""
    data = analyze_json(capsys, *SEED001_GRID)
    assert data["proven"] == "draw"
    assert 100 <= data["simulations"] < 400  # seed 001: "around 200 cycles"
    simulations = data["simulations"]
    assert f"move probabilities ({simulations} simulations at the root; O to move):" in out
    assert (
        f"proven draw for O (to move): the solver stopped the search after {simulations} of "
        "1,000 simulations, so the visit shares are those of an interrupted search"
    ) in out
    grid = out.split("proven moves for O (to move): W won, D drawn, L lost, ? not proven:\n")
    assert grid[1].splitlines()[:4] == ["  a b c", "1 . D L", "2 D . D", "3 L D ."]
    assert "  a3  visits" in out and out.count("proven lost") == 1  # top 5 of 6 moves
    assert out.count("proven drawn") == 4
    assert "proven: draw" in out


def test_seed001_json_gives_each_moves_proof(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(capsys, *SEED001_GRID)
    assert {entry["move"]: entry["proven"] for entry in data["actions"]} == {
        "b1": "draw", "c1": "loss", "a2": "draw", "c2": "draw", "a3": "loss",
        "b3": "draw",
    }  # fmt: skip


BLOCK_OR_LOSE = ("tictactoe", "--moves", "0,0 1,1 0,1", "--simulations", "30", "--seed", "1")
"""X threatens (0,2): O's other moves lose at once, and 30 simulations prove three of them
but not the root."""


def test_moves_proven_before_the_root(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(capsys, *BLOCK_OR_LOSE)
    assert data["proven"] is None and data["simulations"] == 30
    proofs = {entry["move"]: entry["proven"] for entry in data["actions"]}
    assert proofs == {
        "b1": "loss", "c1": "loss", "c2": None, "a3": None, "b3": "loss", "c3": None,
    }  # fmt: skip
    # (2,2) lost every simulation so far, but is not proven: the mean is no proof.
    assert {e["move"]: e["value"] for e in data["actions"]}["c3"] == -1.0
    code, out, _ = run_main(capsys, "analyze", *BLOCK_OR_LOSE)
    assert code == 0
    assert "proven draw" not in out and "proven win" not in out and "proven loss" not in out
    grid = out.split("proven moves for O (to move): W won, D drawn, L lost, ? not proven:\n")
    assert grid[1].splitlines()[:4] == ["  a b c", "1 . L L", "2 . . ?", "3 ? L ?"]
    assert out.count("proven lost") == 3 and "proven: " not in out


def test_workers_merge_each_moves_proof(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(capsys, *WIN_IN_ONE, "--workers", "2")
    assert data["workers"] == 2 and data["proven"] == "win"
    proofs = {entry["move"]: entry["proven"] for entry in data["actions"]}
    assert proofs["a3"] == "win"
    assert set(proofs.values()) <= {"win", "draw", "loss", None}


def test_no_solver_grid_shows_shares_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "analyze", *SEED001_GRID, "--no-solver")
    assert code == 0
    assert "move probabilities (1,000 simulations at the root; O to move):" in out
    assert "proven" not in out


# ---------------------------------------------------------------------------------- values for


def test_values_for_names_whose_view_each_grid_shows(capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 001's board 2: X took a corner, O to move; the seed prints X's values.
    argv = ("analyze", "tictactoe", "--moves", "0,0", "--simulations", "200", "--seed", "1")
    code, out, _ = run_main(capsys, *argv)
    assert code == 0
    assert "values for O (to move):" in out and "values for X" not in out
    code, out_x, _ = run_main(capsys, *argv, "--values-for", "X")
    assert code == 0
    assert "values for X (O to move):" in out_x and "values for O" not in out_x
    code, both, _ = run_main(capsys, *argv, "--values-for", "both")
    assert code == 0
    assert both.index("values for O (to move):") < both.index("values for X (O to move):")

    def grid(text: str, title: str) -> list[list[float | None]]:
        rows = text.split(title + "\n")[1].splitlines()[1:4]
        return [[None if c == "." else float(c) for c in row.split()[1:]] for row in rows]

    mine, theirs = grid(both, "values for O (to move):"), grid(both, "values for X (O to move):")
    for row_o, row_x in zip(mine, theirs, strict=True):
        for o, x in zip(row_o, row_x, strict=True):
            assert (o is None and x is None) or o == -x


def test_values_for_takes_the_players_names(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("analyze", "connect4", "--moves", "44", "--simulations", "100", "--seed", "1")
    code, out, err = run_main(capsys, *argv)
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "connect4: Red to move after 2 moves: 4 4"
    assert "\nX = Red, O = Yellow\n" in out  # the board's legend
    assert "move probabilities (100 simulations at the root; Red to move):" in out
    assert "values for Red (to move):" in out
    assert "value: " in out and "(for Red, to move)" in out
    assert "values for X" not in out and "for O" not in out
    for choice in ("Yellow", "yellow", "O"):
        code, out, _ = run_main(capsys, *argv, "--values-for", choice)
        assert code == 0
        assert "values for Yellow (Red to move):" in out and "values for Red" not in out
    code, both, _ = run_main(capsys, *argv, "--values-for", "both")
    assert both.index("values for Red (to move):") < both.index("values for Yellow (Red to move):")
    code, _, err = run_main(capsys, *argv, "--values-for", "Blue")
    assert code == 2 and len(err.splitlines()) == 1
    assert "connect4 has no such player (choose from to-move, X, O, Red, Yellow, both)" in err


def test_chess_names_white_and_black(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("chess")
    code, out, err = run_main(capsys, "analyze", "chess", "--simulations", "20", "--seed", "1")
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "chess: White to move (initial position)"
    assert "(for White, to move)" in out
    assert " X " not in out and "(for X" not in out
    code, out, _ = run_main(
        capsys, "analyze", "chess", "--moves", "e2e4", "--simulations", "20", "--seed", "1"
    )
    assert code == 0
    assert out.splitlines()[0] == "chess: Black to move after 1 move: e2e4"
    assert "(for Black, to move)" in out


def test_play_chess_names_the_colours(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("chess")
    code, out, err = play(capsys, monkeypatch, "e2e4\nquit\n", "chess", "--simulations", "20",
                          "--seed", "1")  # fmt: skip
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith("chess: you are White, the AI is Black.")
    assert "your move (White): e2e4" in out and "AI (Black) plays " in out
    assert "(for Black, in [-1, 1];" in out
    assert "(X)" not in out and "(O)" not in out


def test_match_and_replay_name_connect4_colours(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "games.jsonl"
    code, out, err = run_main(
        capsys, "match", "connect4", "--p1", "random", "--p2", "random", "--games", "4",
        "--workers", "1", "--seed", "2", "--save", str(save),
    )  # fmt: skip
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("game ")]
    assert len(lines) == 4
    for line in lines:
        assert re.fullmatch(
            r"game \d/4: p[12] first, (draw|p[12] \((Red|Yellow)\) wins) in \d+ moves "
            r"\(\d+\.\d s\)",
            line,
        ), line
    code, replay, err = run_main(capsys, "replay", str(save), "--game-index", "0")
    assert code == 0, err
    assert replay.splitlines()[0] == "game 0: connect4, random (Red) vs random (Yellow)"
    assert "\nmove 1: Red plays " in replay and "\nmove 2: Yellow plays " in replay
    assert "X = Red, O = Yellow" in replay
    assert re.search(r"^result: (Red wins|Yellow wins|draw)$", replay, re.MULTILINE)


def test_match_openings_start_each_pair_from_its_own_random_moves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "games.jsonl"
    code, _, err = run_main(
        capsys, "match", "connect4", "--p1", "mcts:simulations=20", "--p2", "random",
        "--games", "4", "--workers", "1", "--openings", "3", "--save", str(save),
    )  # fmt: skip
    assert code == 0, err
    games = [json.loads(line) for line in save.read_text().splitlines()]
    assert [g["opening"] for g in games] == [3, 3, 3, 3]
    assert games[0]["actions"][:3] == games[1]["actions"][:3]
    assert games[2]["actions"][:3] == games[3]["actions"][:3]
    code, _, err = run_main(
        capsys, "match", "connect4", "--p1", "random", "--p2", "random", "--games", "2",
        "--openings", "-2",
    )  # fmt: skip
    assert code == 2 and "--openings" in err


# ---------------------------------------------------------------------------------- play --moves


def test_play_from_moves(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # X took the centre: O (the AI, since the human plays X) moves first.
    code, out, err = play(
        capsys, monkeypatch, "quit\n", "tictactoe", "--moves", "b2", "--simulations", "100",
        "--seed", "1",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert "after 1 move: b2" in out
    assert out.index("AI (O) plays") < out.index("your move (X):")
    assert "you play" not in out
    code, out, _ = play(
        capsys, monkeypatch, "2,2\nquit\n", "connect4", "--moves", "4453", "--first", "ai",
        "--simulations", "100", "--seed", "1",
    )  # fmt: skip
    assert code == 0
    assert "after 4 moves: 4 4 5 3" in out  # Red (X) to move: the AI plays Red
    assert out.index("AI (Red) plays") < out.index("your move (Yellow):")
    assert "you are Yellow, the AI is Red" in out


# ---------------------------------------------------------------------------------- flat

FLAT_KEYS = {
    "game", "method", "to_play", "best_action", "best_move", "value", "actions", "playouts",
    "games", "seconds",
}  # fmt: skip


def test_flat_json_seed001_board1(capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 001's board 1 (X to move): (2,1) is the worst move, about -0.83.
    argv = ("tictactoe", "--moves", "0,0 1,1 0,1 0,2", "--flat", "--playouts", "200")
    data = analyze_json(capsys, *argv, "--seed", "1")
    assert set(data) == FLAT_KEYS
    assert data["method"] == "flat" and data["to_play"] == 0
    assert data["playouts"] == 200 and data["games"] == 5 * 200
    moves = {entry["move"]: entry["value"] for entry in data["actions"]}
    assert set(moves) == {"b1", "c1", "c2", "b3", "c3"}
    assert all(set(entry) == {"action", "move", "value"} for entry in data["actions"])
    assert min(moves, key=moves.__getitem__) == "c2"
    assert -1.0 <= moves["c2"] < -0.6
    assert data["value"] == max(moves.values()) == moves[data["best_move"]]
    again = analyze_json(capsys, *argv, "--seed", "1")
    assert {**again, "seconds": 0} == {**data, "seconds": 0}


def test_flat_scores_a_winning_move_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(capsys, *WIN_IN_ONE[:3], "--flat", "--playouts", "20", "--seed", "2")
    assert data["best_move"] == "a3" and data["value"] == 1.0


def test_flat_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(
        capsys, "analyze", "tictactoe", "--moves", "0,0", "--flat", "--playouts", "50",
        "--seed", "1", "--values-for", "X",
    )  # fmt: skip
    assert code == 0 and err == ""
    assert "flat Monte Carlo in" in out.splitlines()[0]
    assert "values for X (O to move; flat Monte Carlo, 50 games per move):" in out
    assert "move probabilities" not in out
    assert "top moves by value (5 of 8):" in out
    assert "flat Monte Carlo: 50 games per move, 400 games" in out
    code, out, _ = run_main(capsys, "analyze", "bandit", "--flat", "--playouts", "20")
    assert code == 0 and "best move:" in out  # no grid: the table only


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
    # --solver/--no-solver, --final, --max-depth
    ["analyze", "tictactoe", "--solver=yes"],
    ["analyze", "tictactoe", "--final", "worst"],
    ["analyze", "tictactoe", "--final", "most_visits"],  # the option says most-visits
    ["analyze", "tictactoe", "--max-depth", "0"],
    ["analyze", "tictactoe", "--max-depth", "deep"],
    ["play", "tictactoe", "--final", "best"],
    ["play", "tictactoe", "--max-depth", "-1"],
    ["match", "tictactoe", "--p1", "random", "--p2", "random", "--max-depth", "0"],
    ["match", "tictactoe", "--p1", "random", "--p2", "random", "--final", "x"],
    ["tournament", "tictactoe", "--players", "random", "random", "--solver=no"],
    # play --moves
    ["play", "tictactoe", "--moves", "0,0 0,0"],
    ["play", "tictactoe", "--moves", "hello"],
    ["play", "tictactoe", "--moves", "0,0 1,0 0,1 1,1 0,2"],  # game over
    # analyze --flat, --playouts, --values-for
    ["analyze", "tictactoe", "--flat", "--simulations", "10"],
    ["analyze", "tictactoe", "--flat", "--seconds", "1"],
    ["analyze", "tictactoe", "--flat", "--solver"],
    ["analyze", "tictactoe", "--flat", "--final", "best-value"],
    ["analyze", "tictactoe", "--flat", "--max-depth", "2"],
    ["analyze", "tictactoe", "--flat", "--rule", "puct"],
    ["analyze", "tictactoe", "--flat", "--workers", "2"],
    ["analyze", "tictactoe", "--flat", "--backend", "compiled"],
    ["analyze", "tictactoe", "--flat", "--playouts", "0"],
    ["analyze", "tictactoe", "--flat", "--playouts", "some"],
    ["analyze", "connect4", "--flat", "--rollout", "neighbors"],
    ["analyze", "tictactoe", "--flat", "--moves", "0,0 1,0 0,1 1,1 0,2"],  # game over
    ["analyze", "tictactoe", "--playouts", "10"],  # without --flat
    ["analyze", "tictactoe", "--values-for", "Z"],
    ["analyze", "bandit", "--values-for", "X"],  # one player
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
    assert json.loads(proc.stdout)["best_move"] == "a3"


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


# ------------------------------------------------------------------ threads, bounds, symmetry


def test_analyze_threads_runs_a_root_parallel_search_in_threads(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("playout.cli.common.cpu_count", lambda: 2)
    report = analyze_json(
        capsys, "connect4", "--simulations", "3000", "--threads", "2", "--seed", "3", "--no-solver"
    )
    assert report["workers"] == 2
    assert report["simulations"] == 6000
    code, _, err = run_main(
        capsys, "analyze", "connect4", "--simulations", "10", "--threads", "2", "--workers", "2"
    )
    assert code == 2 and err.count("\n") == 1 and "not both" in err


def test_analyze_max_memory_stops_with_one_warning_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_main(
        capsys,
        "analyze",
        "gomoku",
        "--simulations",
        "100000000",
        "--max-memory",
        "20",
        "--seed",
        "1",
        "--json",
    )
    assert code == 0
    assert err.startswith("playout: warning: the search stopped at its memory bound (20 MiB")
    assert err.count("\n") == 1
    assert json.loads(out)["simulations"] < 100000000


def test_analyze_max_nodes_and_symmetry(capsys: pytest.CaptureFixture[str]) -> None:
    report = analyze_json(
        capsys,
        "tictactoe",
        "--simulations",
        "100000",
        "--max-nodes",
        "50",
        "--no-solver",
        "--seed",
        "2",
    )
    assert report["nodes"] == 50
    report = analyze_json(
        capsys, "tictactoe", "--simulations", "2000", "--symmetry", "--no-solver", "--seed", "2"
    )
    visits = {a["move"]: a["visits"] for a in report["actions"]}
    corners = [visits[m] for m in ("a1", "c1", "a3", "c3")]
    assert max(corners) - min(corners) <= 1  # one class, shared evenly
    code, _, err = run_main(capsys, "analyze", "tictactoe", "--max-memory", "0")
    assert code == 2 and err.count("\n") == 1
