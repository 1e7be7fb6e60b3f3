"""Reliability of training runs (``playout train``, :class:`~playout.zero.Trainer`), part of the
reliability suite (:mod:`tests.test_reliability`): options checked when given, runs and
models of other rules refused, a catalogue of damaged run directories (each one error line,
exit 2, naming the file and what to do, or a clean resume), nothing written lost (metrics
rows, settings) and a full disk mid-run, on a real tiny file system where the machine allows
one.
"""

from __future__ import annotations

import csv
import dataclasses
import errno
import io
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import playout
from playout.games import tictactoe
from tests.test_reliability import assert_one_error_line, module_env, run_main

torch = pytest.importorskip("torch")

from playout.zero import Architecture, Model, TrainConfig, Trainer  # noqa: E402
from playout.zero.train import SettingError  # noqa: E402

TINY = TrainConfig(
    games_per_iteration=2,
    parallel_games=2,
    simulations=4,
    steps_per_iteration=1,
    batch_size=8,
    architecture=Architecture(channels=4, blocks=1, value_hidden=8),
    eval_games=0,
    buffer_size=200,
    benchmark_positions=0,
)
"""A run of about a second an iteration (no value-losing benchmark: see test_zero_benchmark)."""

TINY_ARGS = [
    "--games", "2", "--parallel-games", "2", "--simulations", "4", "--steps", "1",
    "--batch-size", "8", "--channels", "4", "--blocks", "1", "--buffer", "200",
    "--eval-games", "0", "--benchmark-positions", "0",
]  # fmt: skip
"""The command-line options of :data:`TINY` (but the value head's size)."""


def train_argv(out: Path, *more: str, game: str = "tictactoe", iterations: int = 1) -> list[str]:
    return ["train", game, "--out", str(out), "--iterations", str(iterations), *TINY_ARGS, *more]


def metrics_rows(out: Path) -> list[dict[str, str]]:
    with (out / "metrics.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def assert_rows_intact(out: Path, iterations: int) -> None:
    """One row per iteration, 1 to ``iterations``, every training column filled."""
    rows = metrics_rows(out)
    assert [row["iteration"] for row in rows] == [str(i) for i in range(1, iterations + 1)]
    for row in rows:
        assert None not in row  # no row longer than the header
        for column in ("games", "positions", "buffer", "policy_loss", "value_loss"):
            assert math.isfinite(float(row[column])), (column, row)


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tic-tac-toe run of two iterations, copied by each test that damages it."""
    out = tmp_path_factory.mktemp("good") / "run"
    with Trainer(tictactoe(), out, TINY, device="cpu") as trainer:
        trainer.run(iterations=2, log=None)
    return out


def copy_of(good_run: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(good_run, out, ignore=shutil.ignore_patterns(".lock"))
    return out


# ------------------------------------------------------------ options checked when given


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"eval_opponent": "nonsense"}, "eval_opponent 'nonsense': unknown player"),
        ({"eval_opponent": "mcts:simulations=abc"}, "eval_opponent 'mcts:simulations=abc': "),
        ({"eval_opponent": "mcts:rollout=nope"}, "unknown rollout 'nope'"),
        ({"eval_opponent": "zero:batch=0"}, "eval_opponent 'zero:batch=0'"),
        ({"eval_opponent": "random:x=1"}, "player 'random' takes no options"),
        ({"eval_opponent": 7}, "eval_opponent must be a player spec"),
        ({"learning_rate": math.inf}, "learning_rate must be a finite number > 0, got inf"),
        ({"learning_rate": math.nan}, "learning_rate must be a finite number > 0"),
        ({"weight_decay": math.inf}, "weight_decay must be a finite number >= 0"),
        ({"c": math.inf}, "c must be a finite number > 0"),
        ({"dirichlet_alpha": math.nan}, "dirichlet_alpha must be a finite number > 0"),
        ({"dirichlet_fraction": 1.5}, "dirichlet_fraction must be a finite number in [0, 1]"),
        ({"value_mix": math.nan}, "value_mix must be a finite number in [0, 1]"),
        ({"random_move_rate": 1.5}, "random_move_rate must be a finite number in [0, 1]"),
        ({"schedule_hours": math.inf}, "schedule_hours must be a finite number >= 0"),
        ({"eval_simulations": 0}, "eval_simulations must be >= 1, got 0"),
        ({"eval_games": -1}, "eval_games must be >= 0, got -1"),
        ({"eval_games": 2.5}, "eval_games must be a whole number, got 2.5"),
        ({"seed": -1}, "seed must be >= 0, got -1"),
        ({"seed": 2**64}, "seed must be <= "),
        ({"threads": 10**6}, "threads must be <= 256, got 1000000"),  # crashed PyTorch's pool
        ({"buffer_size": 10**12}, "buffer_size must be <= 10,000,000"),  # terabytes of arrays
        ({"batch_size": 10**30}, "batch_size must be <= 65,536"),
        ({"c": 10**400}, "c must be a finite number > 0"),  # past any float
        ({"games_per_iteration": True}, "games_per_iteration must be a whole number, got True"),
        ({"eval_previous": "yes"}, "eval_previous must be true or false"),
        ({"architecture": {"channels": 4}}, "architecture must be an Architecture"),
    ],
)
def test_every_training_setting_is_checked_when_given(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(SettingError) as caught:
        TrainConfig(**changes)
    assert isinstance(caught.value, playout.InvalidParameterError)
    assert message in str(caught.value)
    assert caught.value.setting == next(iter(changes))


def test_numpy_numbers_are_settings_saved_as_json_numbers(tmp_path: Path) -> None:
    config = dataclasses.replace(TINY, games_per_iteration=np.int64(2), c=np.float32(1.5))
    assert type(config.games_per_iteration) is int and type(config.c) is float
    with Trainer(tictactoe(), tmp_path / "run", config):
        pass
    assert json.loads((tmp_path / "run" / "settings.json").read_text())["c"] == 1.5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--opponent", "mcts:simulations=abc", "--eval-games", "2"],
            "--opponent 'mcts:simulations=abc': simulations must be a whole number, got 'abc'",
        ),
        (["--opponent", "mcts:simulations=abc"], "--opponent 'mcts:simulations=abc'"),
        (["--opponent", "nonsense"], "--opponent 'nonsense': unknown player"),
        (["--opponent", "zero:model=/nonexistent/m.pt"], "--opponent 'zero:model=/nonexistent"),
        (["--opponent", "mcts:rule=pb"], "--opponent 'mcts:rule=pb'"),
        (["--value-mix", "nan"], "--value-mix must be a finite number in [0, 1], got nan"),
        (["--value-mix", "2"], "--value-mix must be a finite number in [0, 1], got 2.0"),
        (["--channels", "2000"], "--channels/--blocks is bad: channels must be"),
        (["--plot", "x.txt"], "--plot x.txt: a plot is written as .png or .svg"),
    ],
    ids=lambda value: " ".join(value)[:40] if isinstance(value, list) else "",
)
def test_a_bad_option_is_refused_at_the_start_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, options: list[str], message: str
) -> None:
    """Before: the opponent's spec failed after a whole iteration was trained and saved
    (and reading as if --simulations were wrong), or never with --eval-games 0; --plot
    failed after the training, so a good run exited 2."""
    out = tmp_path / "run"
    game = "connect4" if "rule=pb" in " ".join(options) else "tictactoe"
    code, stdout, err = run_main(capsys, *train_argv(out, *options, game=game))
    assert_one_error_line(code, err, message)
    assert stdout == ""
    assert not out.exists()  # refused before anything was made


def test_a_bad_option_on_resuming_is_refused_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, good_run: Path
) -> None:
    out = copy_of(good_run, tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    for options, message in [
        (["--opponent", "mcts:simulations=abc"], "--opponent 'mcts:simulations=abc'"),
        (["--lr", "0.1", "--opponent", "perfect:x"], "--opponent 'perfect:x'"),
        (["--channels", "8"], "--channels/--blocks cannot change once a run has started"),
        (["--plot", "x.txt"], "--plot x.txt"),
    ]:
        code, _, err = run_main(capsys, *train_argv(out, *options))
        assert_one_error_line(code, err, message)
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != ".lock"}
    assert after == {k: v for k, v in before.items() if k != ".lock"}


def test_a_bad_opponent_saved_by_an_older_playout_is_named_and_can_be_given_anew(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, good_run: Path
) -> None:
    """Before: every plain resume trained one more iteration and died the same way."""
    out = copy_of(good_run, tmp_path)
    settings = json.loads((out / "settings.json").read_text())
    settings["eval_opponent"] = "mcts:simulations=abc"
    (out / "settings.json").write_text(json.dumps(settings))
    with pytest.raises(SettingError, match="the run's saved eval_opponent 'mcts:simulations=abc'"):
        Trainer(tictactoe(), out)
    code, _, err = run_main(capsys, *train_argv(out))
    assert_one_error_line(
        code, err, f"{out / 'settings.json'}: the run's saved --opponent", "give --opponent anew"
    )
    assert len(metrics_rows(out)) == 2  # nothing ran
    code, stdout, _ = run_main(capsys, *train_argv(out, "--opponent", "random"))
    assert code == 0 and "iteration 3:" in stdout
    assert json.loads((out / "settings.json").read_text())["eval_opponent"] == "random"


def test_the_opponent_is_checked_against_the_game_even_with_no_evaluation_games(
    tmp_path: Path,
) -> None:
    from playout.games import Connect4Game

    config = dataclasses.replace(TINY, eval_opponent="perfect")
    with pytest.raises(SettingError, match="eval_opponent 'perfect'"):
        Trainer(Connect4Game(), tmp_path / "run", config)
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------- other rules refused


def test_a_model_of_other_rules_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: a k=3 network analysed a k=4 board without a word (same shapes)."""
    k3 = playout.make_game("mnk", width=4, height=4, k=3)
    k4 = playout.make_game("mnk", width=4, height=4, k=4)
    path = Model(k3, Architecture(channels=4, blocks=1), device="cpu").save(tmp_path / "k3.pt")
    Model.load(path, k3)
    both = ("mnk (width=4, height=4, k=3)", "not for mnk (width=4, height=4, k=4)")
    with pytest.raises(playout.ModelFileError) as caught:
        Model.load(path, k4)
    assert all(text in str(caught.value) for text in (str(path), *both))
    argv = ["analyze", "mnk", "--width", "4", "--height", "4", "--k", "4", "--ai", "zero"]
    code, _, err = run_main(capsys, *argv, "--model", str(path))
    assert_one_error_line(code, err, str(path), *both)
    argv = ["match", "mnk", "--width", "4", "--height", "4", "--k", "4", "--games", "1"]
    code, _, err = run_main(capsys, *argv, "--p1", f"zero:model={path}", "--p2", "random")
    assert_one_error_line(code, err, str(path), *both)


def test_a_model_file_without_parameters_still_loads(tmp_path: Path) -> None:
    """Files written before playout recorded the parameters: name, shapes and actions."""
    game = tictactoe()
    state = Model(game, Architecture(channels=4, blocks=1), device="cpu").state()
    del state["params"]
    torch.save(state, tmp_path / "old.pt")
    assert Model.load(tmp_path / "old.pt", game).signature.name == "tictactoe"


def test_a_run_of_other_rules_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: a k=4 command resumed a k=3 run and mixed k=4 games into its buffer."""
    out = tmp_path / "run"
    k3 = ["--width", "4", "--height", "4", "--k", "3"]
    assert main_quiet(capsys, *train_argv(out, *k3, game="mnk")) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != ".lock"}
    k4 = playout.make_game("mnk", width=4, height=4, k=4)
    with pytest.raises(playout.RunError) as caught:
        Trainer(k4, out)
    both = ("trains mnk (width=4, height=4, k=3)", "not mnk (width=4, height=4, k=4)")
    assert all(text in str(caught.value) for text in (str(out / "settings.json"), *both))
    k4_argv = train_argv(out, "--width", "4", "--height", "4", "--k", "4", game="mnk")
    code, _, err = run_main(capsys, *k4_argv)
    assert_one_error_line(code, err, str(out / "settings.json"), *both)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != ".lock"} == before
    settings = json.loads((out / "settings.json").read_text())
    assert settings["game"] == {
        "game": "mnk",
        "params": {"width": 4, "height": 4, "k": 3},
        "observation_shape": [2, 4, 4],
        "num_actions": 16,
    }
    assert main_quiet(capsys, *train_argv(out, *k3, game="mnk")) == 0  # its own rules: goes on


def main_quiet(capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    code, _, _ = run_main(capsys, *argv)
    return code


# ---------------------------------------------------------- a catalogue of damaged runs


def _truncate(name: str, keep: float) -> Callable[[Path], None]:
    def damage(out: Path) -> None:
        data = (out / name).read_bytes()
        (out / name).write_bytes(data[: int(len(data) * keep)])

    return damage


def _write(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda out: (out / name).write_bytes(data)


def _delete(name: str) -> Callable[[Path], None]:
    return lambda out: (out / name).unlink()


def _edit_settings(change: Callable[[dict[str, Any]], Any]) -> Callable[[Path], None]:
    def damage(out: Path) -> None:
        settings = json.loads((out / "settings.json").read_text())
        (out / "settings.json").write_text(json.dumps(change(settings)))

    return damage


def _buffer_of_another_shape(out: Path) -> None:
    np.savez_compressed(
        out / "buffer.npz",
        observations=np.zeros((3, 2, 6, 7), np.float32),
        policies=np.zeros((3, 7), np.float32),
        values=np.zeros(3, np.float32),
        meta=np.array([3, 3]),
    )


def _checkpoint_of_another_size(out: Path) -> None:
    other = out.parent / "other"
    config = dataclasses.replace(TINY, architecture=Architecture(channels=8, blocks=2))
    with Trainer(tictactoe(), other, config) as trainer:
        trainer.save()
    shutil.copy(other / "checkpoint.pt", out / "checkpoint.pt")


def _model_as_checkpoint(out: Path) -> None:
    shutil.copy(out / "model.pt", out / "checkpoint.pt")


def _rng_state_damaged(out: Path) -> None:
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    state["rng"] = {"bit_generator": "nothing"}
    torch.save(state, out / "checkpoint.pt")


def _game_record_damaged(settings: dict[str, Any]) -> dict[str, Any]:
    settings["game"] = "tictactoe"
    return settings


DAMAGED = {
    "buffer.npz truncated": (
        _truncate("buffer.npz", 0.5), "buffer.npz: damaged replay buffer",
        "delete it to resume from checkpoint.pt with an empty replay buffer",
    ),
    "buffer.npz empty": (_write("buffer.npz", b""), "buffer.npz: damaged replay buffer", ""),
    "buffer.npz not a zip": (
        _write("buffer.npz", b"PK\x03\x04" + b"\x00" * 40), "buffer.npz: damaged replay buffer", "",
    ),
    "buffer.npz of another game": (
        _buffer_of_another_shape, "buffer.npz: the replay buffer does not fit this run",
        "delete it",
    ),
    "metrics.csv binary": (
        _write("metrics.csv", bytes(range(256)) * 4), "metrics.csv: not a metrics file",
        "move it away to resume",
    ),
    "metrics.csv with NUL bytes": (
        _write("metrics.csv", b"iteration,games\r\n1\x00,2\r\n"), "metrics.csv: not a metrics file",
        "",
    ),
    "metrics.csv of foreign rows": (
        _write("metrics.csv", b"a,b\r\n1,2,3\r\n"), "metrics.csv: not a metrics file",
        "rows fit neither its header nor playout's columns",
    ),
    "settings.json deleted": (
        _delete("settings.json"), "settings.json: missing, but",
        "restore the run's settings.json to resume, or start a new run in another directory",
    ),
    "settings.json truncated": (
        _truncate("settings.json", 0.5), "settings.json: unreadable settings",
        "restore the run's settings.json",
    ),
    "settings.json binary": (
        _write("settings.json", b"\xff\xfe\x00"), "settings.json: unreadable settings", "",
    ),
    "settings.json not an object": (
        _write("settings.json", b"[1, 2]"), "settings.json: not a run's settings", "",
    ),
    "settings.json an empty object": (
        _write("settings.json", b"{}"),
        "settings.json: not a run's settings (it lacks architecture, seed, buffer_size)", "",
    ),
    "settings.json of a newer version": (
        _edit_settings(lambda s: s | {"warp_drive": 9}),
        "settings.json: unreadable settings (unknown training setting(s) warp_drive)", "",
    ),
    "settings.json game record damaged": (
        _edit_settings(_game_record_damaged), "settings.json: unreadable game record", "",
    ),
    "checkpoint.pt of another size": (
        _checkpoint_of_another_size,
        "checkpoint.pt: a network of 8 channels x 2 blocks, value head 64, but the run's "
        "settings.json says 4 channels x 1 blocks, value head 8",
        "the directory mixes two runs' files",
    ),
    "checkpoint.pt truncated": (
        _truncate("checkpoint.pt", 0.5), "checkpoint.pt: not a readable model file",
        "the run cannot resume from it: restore the run's checkpoint.pt, or start a new run",
    ),
    "checkpoint.pt empty": (
        _write("checkpoint.pt", b""), "checkpoint.pt: not a readable model file", "",
    ),
    "checkpoint.pt deleted": (
        _delete("checkpoint.pt"), "checkpoint.pt: missing, but",
        "metrics.csv records iterations of a run; restore the run's checkpoint.pt",
    ),
    "checkpoint.pt is a model file": (
        _model_as_checkpoint, "checkpoint.pt: incomplete training checkpoint", "",
    ),
    "checkpoint.pt random state damaged": (
        _rng_state_damaged, "checkpoint.pt: incomplete training checkpoint", "",
    ),
}  # fmt: skip
"""Damaged run directories: the damage, and what the error must say (after the file)."""


@pytest.mark.parametrize("case", list(DAMAGED))
def test_a_damaged_run_directory_is_one_error_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, good_run: Path, case: str
) -> None:
    """Before: BadZipFile, EOFError, UnicodeDecodeError, 34 lines of size mismatch, or a
    deleted settings.json read as a new run. Now a RunError naming the file (the API) and
    one line, exit 2 (the command), with nothing in the directory written: a failed resume
    with --lr 0.1 leaves settings.json as it was."""
    damage, message, advice = DAMAGED[case]
    out = copy_of(good_run, tmp_path)
    damage(out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with pytest.raises(playout.RunError) as caught:
        Trainer(tictactoe(), out, device="cpu")
    assert str(out) in str(caught.value) and message in str(caught.value)
    assert advice in str(caught.value)
    code, stdout, err = run_main(capsys, *train_argv(out, "--lr", "0.1"))
    assert_one_error_line(code, err, str(out), message, advice)
    assert stdout == ""
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file() and p.name != ".lock"}
    assert after == before, "a failed resume wrote to the run's directory"


def test_deleting_a_damaged_buffer_resumes_the_run_as_the_message_says(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, good_run: Path
) -> None:
    out = copy_of(good_run, tmp_path)
    (out / "buffer.npz").write_bytes(b"")
    assert main_quiet(capsys, *train_argv(out)) == 2
    (out / "buffer.npz").unlink()
    code, stdout, _ = run_main(capsys, *train_argv(out))
    assert code == 0 and "resuming the run" in stdout and "iteration 3:" in stdout
    assert_rows_intact(out, 3)


# ------------------------------------------------------------ nothing written is lost


def test_a_metrics_row_cut_short_is_dropped_and_written_again_from_the_checkpoint(
    tmp_path: Path, good_run: Path
) -> None:
    """Before: the next row was appended to the cut one, and both were lost."""
    out = copy_of(good_run, tmp_path)
    text = (out / "metrics.csv").read_text()
    (out / "metrics.csv").write_text(text[: len(text) - 20])  # the last row cut
    with pytest.warns(playout.PlayoutWarning, match="dropped its last line, cut short"):
        trainer = Trainer(tictactoe(), out)
    assert_rows_intact(out, 2)  # iteration 2's training figures, from the checkpoint
    trainer.run(iterations=1, log=None)
    assert_rows_intact(out, 3)


def test_a_cut_header_over_intact_rows_keeps_every_column(tmp_path: Path, good_run: Path) -> None:
    """Before: the next resume rewrote the rows under the cut header, columns emptied."""
    out = copy_of(good_run, tmp_path)
    header, rest = (out / "metrics.csv").read_text().split("\n", 1)
    (out / "metrics.csv").write_text(header[:25] + "\n" + rest)
    rows = metrics_rows(good_run)
    with Trainer(tictactoe(), out) as trainer:
        trainer.run(iterations=1, log=None)
    assert_rows_intact(out, 3)
    assert metrics_rows(out)[:2] == rows


def test_a_header_cut_short_alone_is_begun_again(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with Trainer(tictactoe(), out, TINY) as trainer:
        (out / "metrics.csv").write_text("iteration,ga")
        with pytest.warns(playout.PlayoutWarning, match="dropped its last line"):
            trainer.run(iterations=1, log=None)
    assert_rows_intact(out, 1)


def enospc_after(limit: int) -> Callable[..., Any]:
    """A stand-in for a write that fills the disk after ``limit`` bytes."""

    def write(data: bytes, stream: Any) -> None:
        stream.write(data[:limit])
        stream.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


def test_a_full_disk_during_the_checkpoint_is_one_line_and_leaves_no_temporary_file(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    good_run: Path,
) -> None:
    """A write that raises ENOSPC half-way through checkpoint.pt (the file system test
    below fills a real one): one line naming the file; the run resumes from iteration 2."""
    out = copy_of(good_run, tmp_path)
    real_save = torch.save

    def save(state: Any, target: Any, *args: Any, **kwargs: Any) -> None:
        if getattr(target, "name", "").endswith("checkpoint.pt.tmp"):
            buffer = io.BytesIO()
            real_save(state, buffer)
            enospc_after(1000)(buffer.getvalue(), target)
        real_save(state, target, *args, **kwargs)

    monkeypatch.setattr(torch, "save", save)
    checkpoint = (out / "checkpoint.pt").read_bytes()
    code, _, err = run_main(capsys, *train_argv(out))
    assert_one_error_line(
        code,
        err,
        f"cannot write {out / 'checkpoint.pt'}: No space left on device; the run is kept as "
        "it was after iteration 2",
    )
    assert sorted(p.name for p in out.iterdir() if "tmp" in p.name) == []
    assert (out / "checkpoint.pt").read_bytes() == checkpoint
    monkeypatch.undo()
    code, stdout, _ = run_main(capsys, *train_argv(out))
    assert code == 0 and "after iteration 2" in stdout and "iteration 3:" in stdout
    assert_rows_intact(out, 3)


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc")
def test_a_metrics_row_that_does_not_fit_is_undone_and_written_on_resuming(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    good_run: Path,
) -> None:
    """Half a row written, then ENOSPC: the file is cut back to its last whole row, and
    the resumed run writes the row from the checkpoint."""
    out = copy_of(good_run, tmp_path)
    real_write = os.write

    def write(descriptor: int, data: bytes) -> int:
        if os.readlink(f"/proc/self/fd/{descriptor}").endswith("metrics.csv"):
            real_write(descriptor, bytes(data)[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(descriptor, data)

    monkeypatch.setattr(os, "write", write)
    code, _, err = run_main(capsys, *train_argv(out))
    monkeypatch.undo()
    assert_one_error_line(code, err, f"cannot write {out / 'metrics.csv'}: No space left")
    assert_rows_intact(out, 2)  # the half row undone
    assert (out / "metrics.csv").read_text().endswith("\n")
    code, stdout, _ = run_main(capsys, *train_argv(out))
    assert code == 0 and "after iteration 3" in stdout
    assert_rows_intact(out, 4)


FULL_DISK_SCRIPT = r"""
import contextlib, io, json, os, subprocess, sys

from playout.cli import main

disk, result, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], check=True)
run = os.path.join(disk, "run")
steps = {}


def train(iterations):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["train", "tictactoe", "--out", run, "--iterations", iterations, *argv])
    return [code, out.getvalue(), err.getvalue()]


steps["before"] = train("2")
settings = open(os.path.join(run, "settings.json"), "rb").read()
filler = os.open(os.path.join(disk, "filler"), os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(filler, bytes(4096))
except OSError as error:
    steps["filled"] = error.errno
os.close(filler)
steps["full"] = train("1")
steps["left"] = sorted(os.listdir(run))
steps["settings kept"] = open(os.path.join(run, "settings.json"), "rb").read() == settings
os.remove(os.path.join(disk, "filler"))  # space is back
steps["after"] = train("1")
steps["metrics"] = open(os.path.join(run, "metrics.csv")).read()
with open(result, "w") as handle:
    json.dump(steps, handle)
"""


def _can_mount_tmpfs(where: Path) -> bool:
    """Whether this machine lets a user namespace mount a tmpfs (``unshare -rm``)."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    where.mkdir()
    probe = subprocess.run(
        ["unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
        capture_output=True,
        timeout=30,
    )
    return probe.returncode == 0


def test_a_run_on_a_full_file_system_resumes_cleanly_once_space_is_back(
    tmp_path: Path,
) -> None:
    """A real full disk: the run's directory on a 1 MiB tmpfs mounted in a user namespace
    (``unshare -rm``), filled up after two iterations. The third stops with one line naming
    the file that did not fit, no temporary file left and settings.json as it was; with the
    space back the same command trains iteration 3, and every metrics row is whole. (Where
    no tmpfs can be mounted, the ENOSPC tests above stand in.)"""
    disk = tmp_path / "disk"
    if not _can_mount_tmpfs(disk):
        pytest.skip("no tmpfs mount in a user namespace here (unshare -rm)")
    result = tmp_path / "result.json"
    done = subprocess.run(
        ["unshare", "-rm", sys.executable, "-c", FULL_DISK_SCRIPT, str(disk), str(result),
         *TINY_ARGS],
        capture_output=True, text=True, env=module_env(), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    steps = json.loads(result.read_text())
    assert steps["before"][0] == 0, steps["before"]
    assert steps["filled"] == errno.ENOSPC
    code, _, err = steps["full"]
    line = assert_one_error_line(code, err, "No space left on device", "run the same command")
    assert f"cannot write {disk / 'run'}/" in line
    assert [name for name in steps["left"] if "tmp" in name] == []
    assert steps["settings kept"]
    code, stdout, err = steps["after"]
    assert code == 0, err
    assert "after iteration 2" in stdout and "iteration 3:" in stdout
    rows = list(csv.DictReader(io.StringIO(steps["metrics"], newline="")))
    assert [row["iteration"] for row in rows] == ["1", "2", "3"]
    for row in rows:
        assert None not in row and math.isfinite(float(row["policy_loss"]))


# ------------------------------------------------------------------ the log's counts


@pytest.mark.parametrize("opening_moves", [0, 4])
def test_positions_per_second_counts_the_positions_the_log_shows(
    tmp_path: Path, opening_moves: int
) -> None:
    """Before: "112 positions (16/s)" divided the moves (not their symmetric images) by the
    self-play time; and the simulations counted the random openings' moves as searched."""
    config = dataclasses.replace(TINY, opening_moves=opening_moves)
    with Trainer(tictactoe(), tmp_path / "run", config) as trainer:
        (report,) = trainer.run(iterations=1, log=None)
    moves = report.positions / 8  # tic-tac-toe's eight symmetries
    assert report.positions_per_second * report.self_play_seconds == pytest.approx(report.positions)
    assert report.simulations_per_second * report.self_play_seconds == pytest.approx(
        moves * TINY.simulations
    )


def test_a_run_begun_before_the_game_was_recorded_resumes_and_checks_its_checkpoint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, good_run: Path
) -> None:
    """settings.json without a game record (an older playout): the run goes on (and gains
    no record it cannot vouch for); another game is still refused by its checkpoint."""
    out = copy_of(good_run, tmp_path)
    _edit_settings(lambda s: {k: v for k, v in s.items() if k != "game"})(out)
    code, stdout, _ = run_main(capsys, *train_argv(out, "--lr", "0.01"))
    assert code == 0 and "changed: learning_rate 0.002 -> 0.01" in stdout
    settings = json.loads((out / "settings.json").read_text())
    assert settings["learning_rate"] == 0.01 and "game" not in settings
    code, _, err = run_main(capsys, *train_argv(out, game="connect4"))
    assert_one_error_line(
        code, err, f"{out / 'checkpoint.pt'}: the network was trained for tictactoe"
    )
