"""Saved games: the JSON-lines file of ``match --save`` and ``playout replay``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import playout
from playout._src import arena
from playout.cli import main
from playout.games.connect4 import Connect4Game
from playout.games.mnk import tictactoe


def test_save_and_read_back(tmp_path: Path) -> None:
    game = Connect4Game(6, 5, 4)
    path = tmp_path / "games.jsonl"
    result = arena.run_match(game, "mcts:simulations=30", "random", games=3, seed=2, save=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    first = json.loads(lines[0])
    assert first["format"] == arena.RECORD_FORMAT
    assert first["game"] == "connect4" and first["params"] == {"width": 6, "height": 5, "k": 4}
    assert first["p1"] == "mcts:simulations=30" and first["players"][0] == first["p1"]
    assert first["moves"] == [str(a + 1) for a in first["actions"]]
    saved = arena.read_records(path)
    assert [s.actions for s in saved] == [r.actions for r in result.records]
    assert [s.index for s in saved] == [0, 1, 2]
    assert [s.data["seed"] for s in saved] == [r.seed for r in result.records]
    assert saved[0].game == game and saved[0].states[-1].is_terminal()


def test_an_interrupted_match_keeps_the_finished_games(tmp_path: Path) -> None:
    path = tmp_path / "partial.jsonl"

    def stop_after_two(done: int, _: arena.GameRecord) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        arena.run_match(
            tictactoe(), "random", "random", games=10, save=path, progress=stop_after_two
        )
    assert len(arena.read_records(path)) == 2


def test_replay_prints_the_game_move_by_move(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "ttt.jsonl"
    argv = ["match", "tictactoe", "--p1", "mcts:simulations=100", "--p2", "random"]
    assert main([*argv, "--games", "2", "--workers", "1", "--save", str(path)]) == 0
    assert f"saved 2 games to {path}" in capsys.readouterr().out
    record = json.loads(path.read_text().splitlines()[1])
    assert main(["replay", str(path), "--game-index", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 1: tictactoe, random (X) vs mcts:simulations=100 (O)")
    assert out.count("\nmove ") == len(record["actions"])
    assert f"move 1: X plays {record['moves'][0]}" in out
    assert out.rstrip().splitlines()[-1].startswith("result: ")
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.count("game ") == 2


def _write(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


GOOD = {"game": "tictactoe", "params": {}, "actions": [0, 3, 1, 4, 2]}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (["{not json"], "not valid JSON"),
        (['{"game": "tictactoe", "actions": [' + "1" * 5000 + "]}"], "not valid JSON"),
        (["[1, 2]"], "expected a JSON object"),
        ([json.dumps({"params": {}, "actions": []})], "missing 'game'"),
        ([json.dumps(GOOD | {"actions": "0 1"})], "'actions' must be a list"),
        ([json.dumps(GOOD | {"params": []})], "'params' must be an object"),
        ([json.dumps(GOOD | {"game": "chesss"})], "unknown game"),
        ([json.dumps(GOOD | {"params": {"width": 4}})], "unknown parameter"),
        ([json.dumps(GOOD | {"actions": [0, 0]})], "move 2 (action 0): illegal"),
        ([json.dumps(GOOD | {"actions": [0, 3, 1, 4, 2, 5]})], "already over"),
        ([json.dumps(GOOD | {"actions": [0, 3]})], "does not end"),
        ([json.dumps(GOOD | {"returns": [-1, 1]})], "do not match"),
        ([json.dumps(GOOD | {"opening": 6})], "field 'opening' must be a whole number from 0"),
        ([json.dumps(GOOD | {"opening": "two"})], "field 'opening' must be"),
        ([json.dumps(GOOD), "oops"], "line 2"),
        ([""], "no games"),
    ],
)
def test_bad_files_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: list[str], message: str
) -> None:
    path = _write(tmp_path / "bad.jsonl", *content)
    with pytest.raises(arena.RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        arena.read_records(path)
    code = main(["replay", str(path)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.splitlines()) == 1 and captured.err.startswith("playout: error: ")


def test_a_path_that_is_not_a_path_is_a_typed_error() -> None:
    for bad in (None, 5, b"games.jsonl"):
        with pytest.raises(playout.InvalidParameterError, match="path must be a file path"):
            arena.read_records(bad)  # type: ignore[arg-type]


def test_replay_missing_file_and_index(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    path = _write(tmp_path / "one.jsonl", json.dumps(GOOD))
    assert main(["replay", str(path), "--game-index", "4"]) == 2
    assert "no game with index 4" in capsys.readouterr().err
    assert main(["replay", str(path), "--game-index", "0"]) == 0
    assert "result: X wins" in capsys.readouterr().out


def test_save_to_an_unwritable_place_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(playout.InvalidParameterError, match="cannot write"):
        arena.run_match(tictactoe(), "random", "random", 1, save=tmp_path / "no" / "x.jsonl")
