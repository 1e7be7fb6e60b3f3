"""Reliability of the ``playout`` command: bad inputs per command (exit code 2, exactly one
line on stderr, no traceback), interrupts and terminations (every worker stopped, one line,
exit 130 / 143, the save file intact), write failures and damaged save files."""

from __future__ import annotations

import contextlib
import io
import json
import math
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import playout
from playout.cli import main

SRC = str(Path(playout.__file__).resolve().parent.parent)


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_error_line(code: int, err: str, *needles: str) -> str:
    """Exit code 2, exactly one stderr line ``playout: error: ...`` holding ``needles``."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("playout: error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def module_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


# ----------------------------------------------------------------------- processes (/proc)


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                stat = file.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                stat = file.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def wait_for_group_gone(pgid: int, timeout: float) -> list[int]:
    """Wait until process group ``pgid`` has no live member; those left after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = group_members(pgid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


class Command:
    """``python -m playout ARGV`` in a new session (its own process group), output collected
    by threads so that the test can watch it while it runs."""

    def __init__(self, *argv: str, cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "playout", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=module_env(),
            cwd=cwd,
            start_new_session=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self.readers = [
            threading.Thread(target=self._collect, args=(self.process.stdout, self.out)),
            threading.Thread(target=self._collect, args=(self.process.stderr, self.err)),
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _collect(stream: io.TextIOBase, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)

    def wait_until(self, ready: object, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not ready() and time.monotonic() < deadline:  # type: ignore[operator]
            assert self.process.poll() is None, "".join(self.err)
            time.sleep(0.05)

    def finish(self, timeout: float) -> tuple[int, float]:
        """The exit code and the seconds it took to exit."""
        start = time.monotonic()
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            message = f"no exit within {timeout} s; stderr: {''.join(self.err)}"
            raise AssertionError(message) from None
        finally:
            for reader in self.readers:
                reader.join(10)
        return code, time.monotonic() - start

    def cleanup(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def check_stopped(command: Command, signum: int, code: int, to_group: bool) -> None:
    """Send ``signum`` (to the process group: a Ctrl-C in a terminal), then expect ``code``
    within seconds, no process of the group left and one line on stderr."""
    pid = command.process.pid
    if to_group:
        os.killpg(pid, signum)
    else:
        os.kill(pid, signum)
    exit_code, seconds = command.finish(timeout=15)
    assert exit_code == code, "".join(command.err)
    # Without the signal the command runs forever; the bound leaves room for a loaded
    # machine (two test workers on two cores took up to 7 s to see the workers out).
    assert seconds < 10, seconds
    assert wait_for_group_gone(pid, 3) == []
    err = "".join(command.err)
    assert "Traceback" not in err
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert err.splitlines() == [f"playout: {word}"], err


ANALYZE_FOREVER = ["analyze", "connect4", "--seconds", "1e9", "--workers", "2"]


@pytest.mark.parametrize(
    ("signum", "code", "to_group"),
    [(signal.SIGINT, 130, True), (signal.SIGINT, 130, False), (signal.SIGTERM, 143, False)],
    ids=["ctrl-c", "sigint", "sigterm"],
)
def test_analyze_workers_stop_on_interrupt(signum: int, code: int, to_group: bool) -> None:
    command = Command(*ANALYZE_FOREVER)
    try:
        # Running: both workers started (then a little longer, into the search).
        command.wait_until(lambda: len(children(command.process.pid)) >= 2, 60)
        time.sleep(2)
        check_stopped(command, signum, code, to_group)
        assert command.out == []
    finally:
        command.cleanup()


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_ctrl_c_while_workers_start_is_held_back_not_lost() -> None:
    from playout._src.processes import process_pool, sigint_deferred

    pool = process_pool(1, multiprocessing.get_context("spawn"))
    try:
        with pytest.raises(KeyboardInterrupt), sigint_deferred():  # raised, not dropped
            future = pool.submit(os.getpid)
            for process in pool._processes.values():  # a Ctrl-C reaches the whole group
                os.kill(process.pid, signal.SIGINT)  # still starting up
            os.kill(os.getpid(), signal.SIGINT)
        # The worker was not stopped by it, and ignores SIGINT from its initializer on.
        worker = future.result(timeout=60)
        os.kill(worker, signal.SIGINT)
        assert pool.submit(os.getpid).result(timeout=60) == worker
    finally:
        pool.shutdown()


MATCH = "match connect4 --p1 mcts:simulations=2000 --p2 mcts:simulations=2000 --games 50"


@pytest.mark.parametrize(
    ("signum", "code", "to_group"),
    [(signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)],
    ids=["sigterm", "ctrl-c"],
)
def test_match_workers_stop_on_interrupt(
    tmp_path: Path, signum: int, code: int, to_group: bool
) -> None:
    save = tmp_path / "games.jsonl"
    command = Command(*MATCH.split(), "--workers", "2", "--save", str(save))
    try:
        command.wait_until(lambda: command.out, 60)  # the first finished game
        assert command.out, "no game finished"
        check_stopped(command, signum, code, to_group)
    finally:
        command.cleanup()
    text = save.read_text()
    lines = text.splitlines()
    assert lines, "no game saved"
    complete = lines if text.endswith("\n") else lines[:-1]
    for line in complete:
        json.loads(line)
    saved = playout.read_records(save)
    assert len(saved) == len(complete) >= 1


TRAIN = (
    "train tictactoe --iterations 1000 --workers 2 --games 4 --parallel-games 4 "
    "--simulations 8 --steps 3 --batch-size 16 --channels 8 --blocks 1 --buffer 500 "
    "--eval-games 0"
)


def test_train_stops_on_ctrl_c_and_resumes_with_nothing_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from playout.games import tictactoe
    from playout.zero import Trainer

    out = tmp_path / "run"
    command = Command(*TRAIN.split(), "--out", str(out))
    try:
        iterations = lambda: [x for x in command.out if x.startswith("iteration ")]  # noqa: E731
        command.wait_until(lambda: len(iterations()) >= 2, 120)  # two iterations saved
        # A second run in the same directory is refused while this one trains.
        pid = command.process.pid
        with pytest.raises(playout.RunInUseError, match=f"process {pid}"):
            Trainer(tictactoe(), out)
        code, _, err = run_main(capsys, *TRAIN.split(), "--out", str(out))
        assert_one_error_line(code, err, "in use by another training run", f"process {pid}")
        check_stopped(command, signal.SIGINT, 130, to_group=True)
    finally:
        command.cleanup()
    logged = iterations()
    trainer = Trainer(tictactoe(), out)
    # Every iteration logged was saved (the last may have been saved as Ctrl-C came), and
    # each has its metrics row.
    assert trainer.iteration >= len(logged) >= 2
    done = trainer.iteration
    assert len((out / "metrics.csv").read_text().strip().splitlines()) == 1 + done
    trainer.run(iterations=1, log=None)
    assert trainer.iteration == done + 1
    assert len((out / "metrics.csv").read_text().strip().splitlines()) == 2 + done


# ------------------------------------------------------------------------------ save files


MATCH_TTT = ["match", "tictactoe", "--p1", "random", "--p2", "random", "--workers", "1"]


@pytest.mark.usefixtures("one_ray_instance")  # "auto" must find no other test's Ray
def test_failed_ray_connection_keeps_the_save_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    save = tmp_path / "games.jsonl"
    save.write_text('{"kept": true}\n')
    argv = ["match", "tictactoe", "--p1", "random", "--p2", "random", "--games", "2"]
    argv += ["--executor", "ray", "--ray-address", "auto", "--save", str(save)]
    code, _, err = run_main(capsys, *argv)
    assert_one_error_line(code, err, "cannot connect to the Ray cluster at 'auto'")
    assert save.read_text() == '{"kept": true}\n'


def test_save_appends_and_overwrite_empties(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "games.jsonl"
    for games in ("2", "3"):
        assert main([*MATCH_TTT, "--games", games, "--save", str(save)]) == 0
    assert len(playout.read_records(save)) == 5
    assert main([*MATCH_TTT, "--games", "1", "--save", str(save), "--overwrite"]) == 0
    assert len(playout.read_records(save)) == 1
    capsys.readouterr()
    code, _, err = run_main(capsys, *MATCH_TTT, "--games", "1", "--overwrite")
    assert_one_error_line(code, err, "--overwrite needs --save")


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("notes.txt", "my notes\n", "saved games (JSON lines)"),
        ("list.jsonl", "[1, 2]\n", "saved games (JSON lines)"),
        ("go.sgf", "not a game tree\n", "SGF game records"),
    ],
)
def test_games_are_not_appended_to_another_kind_of_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, kind: str
) -> None:
    save = tmp_path / name
    save.write_text(text)
    game = ["go", "--size", "5"] if name.endswith(".sgf") else ["tictactoe"]
    argv = ["match", *game, "--p1", "random", "--p2", "random", "--games", "1", "--workers", "1"]
    code, _, err = run_main(capsys, *argv, "--save", str(save))
    assert_one_error_line(code, err, f"is not a file of {kind}: games are not appended to it")
    assert save.read_text() == text  # untouched
    if name.endswith(".sgf"):
        return
    assert main([*argv, "--save", str(save), "--overwrite"]) == 0  # asked for: replaced
    assert len(playout.read_records(save)) == 1


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_play_refuses_a_save_file_that_cannot_be_made_before_the_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # /proc passes a permission check yet no file can be made there; the game must not be
    # played only to be lost.
    monkeypatch.setattr("sys.stdin", io.StringIO("A1\n"))
    code, out, err = run_main(capsys, "play", "go", "--size", "5", "--save", "/proc/game.sgf")
    assert_one_error_line(code, err, "cannot write '/proc/game.sgf'")
    assert out == ""  # no board drawn: refused before the game


def test_appending_after_an_interrupted_write_keeps_every_intact_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "games.jsonl"
    assert main([*MATCH_TTT, "--games", "1", "--save", str(save)]) == 0
    first = save.read_text()
    save.write_text(first + first[:50])  # a second game cut short by a crash
    assert main([*MATCH_TTT, "--games", "1", "--save", str(save)]) == 0
    capsys.readouterr()
    assert main(["replay", str(save)]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("game 0:") == 2
    assert captured.err.splitlines() == [
        f"playout: warning: {save}: skipped line 2 cut short: a game whose writing was interrupted"
    ]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_save_to_a_full_device(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(capsys, *MATCH_TTT, "--games", "3", "--save", "/dev/full")
    assert_one_error_line(code, err, "cannot write games to '/dev/full': No space left on device")


def test_a_write_failure_keeps_the_games_written_before(tmp_path: Path) -> None:
    import resource

    save = tmp_path / "games.jsonl"
    limit = 1000  # bytes: room for a few tic-tac-toe games, then the file is too large

    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of the signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    argv = [*MATCH_TTT, "--games", "20", "--save", str(save)]
    done = subprocess.run(
        [sys.executable, "-m", "playout", *argv],
        capture_output=True,
        text=True,
        env=module_env(),
        preexec_fn=limit_file_size,
        timeout=120,
    )
    kept = len(save.read_text().splitlines())
    assert 1 <= kept < 20
    assert_one_error_line(
        done.returncode,
        done.stderr,
        f"cannot write games to '{save}': File too large; the {kept} game(s) written before "
        "are kept",
    )
    assert save.read_text().endswith("\n")  # the game that did not fit was cut off whole
    assert len(playout.read_records(save)) == kept


# ---------------------------------------------------------------------------------- workers


def test_workers_are_capped_at_the_cpus(capsys: pytest.CaptureFixture[str]) -> None:
    from playout.cli.common import cpu_count

    many = str(cpu_count() + 3)
    code, out, err = run_main(capsys, *MATCH_TTT[:-1], many, "--games", "2", "--json")
    assert code == 0
    assert err.splitlines() == [
        f"playout: note: --workers {many} is more than the {cpu_count()} CPU"
        f"{'s' if cpu_count() != 1 else ''} here; using {cpu_count()}"
    ]
    assert json.loads(out)["games"] == 2
    argv = ["analyze", "connect4", "--simulations", "50", "--workers", many, "--json"]
    code, out, err = run_main(capsys, *argv)
    assert code == 0 and f"--workers {many} is more than" in err
    assert json.loads(out)["workers"] in (1, cpu_count())


# ---------------------------------------------------------------------------------- records


GOOD = {"game": "tictactoe", "params": {}, "actions": [0, 3, 1, 4, 2], "index": 0}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"returns": 5}, "line 1: field 'returns' must be a list of 2 numbers, got 5"),
        ({"returns": None}, "line 1: field 'returns' must be a list of 2 numbers, got null"),
        ({"returns": [1, "x"]}, "field 'returns' must be a list of 2 numbers"),
        ({"index": "abc"}, "line 1: field 'index' must be a whole number >= 0, got \"abc\""),
        ({"index": 1.7}, "line 1: field 'index' must be a whole number >= 0, got 1.7"),
        ({"index": True}, "field 'index' must be a whole number >= 0, got true"),
        ({"players": 5}, "line 1: field 'players' must be a list of 2 strings, got 5"),
        ({"players": "xy"}, "line 1: field 'players' must be a list of 2 strings, got \"xy\""),
        ({"players": ["a"]}, "field 'players' must be a list of 2 strings"),
        ({"seed": "7"}, "field 'seed' must be a whole number or null"),
        ({"winner": 2}, "field 'winner' must be a player or null, got 2"),
        ({"moves": [1, 2]}, "field 'moves' must be a list of strings, got [1, 2]"),
        ({"moves": ["a1"]}, "field 'moves' has 1 moves for 5 actions"),
        ({"seconds": -1}, "field 'seconds' must be a number >= 0"),
        ({"format": 1}, "field 'format' must be a string"),
        ({"actions": None}, "line 1: 'actions' must be a list of action ids"),
        ({"actions": [[[0]]]}, "line 1: 'actions' must be a list of action ids"),
        ({"params": None}, "line 1: 'params' must be an object"),
        ({"params": {"width": [[3]]}}, "'params' field 'width' must be a number or a string"),
        ({"game": None}, "line 1: missing 'game'"),
    ],
)
def test_ill_typed_record_fields(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: dict, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(GOOD | change) + "\n")
    with pytest.raises(playout.RecordError) as caught:
        playout.read_records(path)
    assert message in str(caught.value)
    code, out, err = run_main(capsys, "replay", str(path))
    assert out == ""
    assert_one_error_line(code, err, message)


def test_deeply_nested_json_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    code, _, err = run_main(capsys, "replay", str(path))
    assert_one_error_line(code, err, "line 1: JSON nested too deeply")


def test_a_truncated_last_line_keeps_the_intact_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "cut.jsonl"
    line = json.dumps(GOOD)
    path.write_text(line + "\n" + line[:30])
    with pytest.warns(UserWarning, match="skipped line 2 cut short"):
        assert len(playout.read_records(path)) == 1
    code, out, err = run_main(capsys, "replay", str(path))
    assert code == 0 and out.startswith("game 0: tictactoe")
    assert err.splitlines() == [
        f"playout: warning: {path}: skipped line 2 cut short: a game whose writing was interrupted"
    ]
    path.write_text(line[:30])
    code, _, err = run_main(capsys, "replay", str(path))
    assert_one_error_line(code, err, "no intact games in the file (line 1 cut short")


# ------------------------------------------------------------------------------ numba cache


def test_a_damaged_numba_cache_is_compiled_afresh(tmp_path: Path) -> None:
    import shutil

    def copy_unless_gone(source: str, target: str) -> None:
        # Another test process may be writing a cache file meanwhile (numba and Python write
        # a temporary file and rename it): the temporary name listed can be gone by now.
        with contextlib.suppress(FileNotFoundError):
            shutil.copy2(source, target)

    package = Path(playout.__file__).resolve().parent
    copy = tmp_path / "playout"
    # copy2: source times kept, so the caches stay valid
    shutil.copytree(package, copy, copy_function=copy_unless_gone)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    argv = [sys.executable, "-m", "playout", "analyze", "connect4", "--simulations", "50"]
    argv += ["--json"]
    caches = sorted(copy.rglob("*.nbi"))
    if not caches:  # a fresh checkout: compile once to have caches to damage
        subprocess.run(argv, env=env, capture_output=True, timeout=600, check=True)
        caches = sorted(copy.rglob("*.nbi"))
    data = sorted(copy.rglob("*.nbc"))
    assert caches and data
    noise = random.Random(460)  # the same damage every run
    for number, path in enumerate(caches + data):
        # Index files and data files cut short or overwritten.
        path.write_bytes(b"" if number % 3 == 0 else noise.randbytes(64))
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads(done.stdout)["simulations"] == 50


# -------------------------------------------------------------------------- CLI odds, ends


def test_moves_given_twice_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("analyze", "play"):
        code, out, err = run_main(capsys, command, "tictactoe", "--moves", "1,1", "--moves", "0,0")
        assert out == ""
        assert_one_error_line(code, err, "--moves given twice")
    code, _, err = run_main(capsys, "analyze", "chess", "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1",
                            "--fen", "8/8/8/8/8/8/8/K6k w - - 0 1")  # fmt: skip
    assert_one_error_line(code, err, "--fen given twice")


@pytest.mark.parametrize(
    ("option", "position"),
    [
        ("--moves", "f3 e5 g4 Qh4"),  # fool's mate
        ("--fen", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"),
        ("--fen", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),  # stalemate
    ],
)
def test_play_rejects_a_finished_start_position_like_analyze(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, option: str, position: str
) -> None:
    pytest.importorskip("chess")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    code, out, err = run_main(capsys, "play", "chess", option, position)
    assert out == ""
    assert_one_error_line(code, err, "the game is over", "nothing to play")
    code, out, err = run_main(capsys, "analyze", "chess", option, position)
    assert_one_error_line(code, err, "the game is over", "nothing to analyse")


def test_a_search_of_no_simulations_warns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "analyze", "tictactoe", "--seconds", "0.000001", "--json")
    assert code == 0
    assert json.loads(out)["simulations"] == 0
    assert err.splitlines() == [
        "playout: warning: the search ran 0 simulations in --seconds 1e-06: the best move "
        "was not searched, it is a guess (give the search more time)"
    ]


def test_tournament_rows_of_the_same_player_are_numbered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["tournament", "tictactoe", "--players", "random", "random", "mcts:simulations=20"]
    code, out, _ = run_main(capsys, *argv, "--games", "2", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"] == ["random#1", "random#2", "mcts:simulations=20"]
    assert sorted(row["player"] for row in data["standings"]) == sorted(data["players"])
    code, out, _ = run_main(capsys, *argv, "--games", "2", "--workers", "1")
    assert code == 0 and "random#1" in out and "random#2" in out


# --------------------------------------------------------------------- bad inputs, per command

BAD_INPUTS = {
    "games": [["games", "extra"]],
    "play": [
        ["play", "nosuchgame"],
        ["play", "tictactoe", "--moves", "1,1", "--moves", "0,0"],
        ["play", "tictactoe", "--moves", "9,9"],
        ["play", "tictactoe", "--moves", "0,0 1,0 0,1 1,1 0,2"],
        ["play", "tictactoe", "--seconds", "nan"],
        ["play", "tictactoe", "--seconds", "inf"],
        ["play", "connect4", "--width", "0"],
        ["play", "connect4", "--moves", "8"],
        ["play", "tictactoe", "--fen", "x"],
        ["play", "mnk", "--width", "100000", "--height", "100000"],
    ],
    "analyze": [
        ["analyze", "tictactoe", "--moves", "1,1", "--moves", "0,0"],
        ["analyze", "tictactoe", "--workers", "-1"],
        ["analyze", "tictactoe", "--seconds", "-inf"],
        ["analyze", "tictactoe", "--simulations", "1e3"],
        ["analyze", "tictactoe", "--moves", "\x00"],
        ["analyze", "connect4", "--moves", "1111111"],
        ["analyze", "chess", "--fen", "not a fen"],
        ["analyze", "chess", "--moves", "e2e5"],
        ["analyze", "tictactoe", "--c", "nan"],
        ["analyze", "tictactoe", "--values-for", "both", "--flat", "--playouts", "0"],
        ["analyze", "tictactoe", "--flat", "--ai", "zero"],
        ["analyze", "tictactoe", "--flat", "--model", "model.pt"],
        ["analyze", "pig", "--ai", "zero"],
    ],
    "match": [
        [
            "match",
            "tictactoe",
            "--p1",
            "random",
            "--p2",
            "random",
            "--executor",
            "local",
            "--workers",
            "2",
        ],
        ["match", "tictactoe", "--p1", "random", "--p2", "random", "--overwrite"],
        ["match", "tictactoe", "--p1", "random", "--p2", "random", "--save", "/"],
        [
            "match",
            "tictactoe",
            "--p1",
            "random",
            "--p2",
            "random",
            "--save",
            "/nonexistent/dir/games.jsonl",
        ],
        [
            "match",
            "tictactoe",
            "--p1",
            "random",
            "--p2",
            "random",
            "--games",
            "2",
            "--workers",
            "1",
            "--save",
            "/dev/full",
        ],
        ["match", "tictactoe", "--p1", "random", "--p2", "random", "--sprt", "x"],
        ["match", "tictactoe", "--p1", "random", "--p2", "random", "--sprt", "10,0"],
        ["match", "tictactoe", "--p1", "mcts:simulations=", "--p2", "random"],
        ["match", "tictactoe", "--p1", "mcts:seconds=-1", "--p2", "random"],
        ["match", "tictactoe", "--p1", "", "--p2", "random"],
        ["match", "tictactoe", "--p1", "random", "--p2", "random", "--seed", "1.5"],
    ],
    "tournament": [
        ["tournament", "tictactoe", "--players", "random"],
        ["tournament", "tictactoe", "--players", "random", "nobody"],
        ["tournament", "tictactoe", "--players", "random", "random", "--games", "0"],
        ["tournament", "tictactoe", "--players", "random", "random", "--anchor", "last"],
        [
            "tournament",
            "tictactoe",
            "--players",
            "random",
            "random",
            "--executor",
            "local",
            "--workers",
            "3",
        ],
    ],
    "replay": [
        ["replay", "/nonexistent.jsonl"],
        ["replay", "/"],
        ["replay", "/dev/null"],
        ["replay", "/dev/null", "--game-index", "-1"],
    ],
    "bench": [
        ["bench", "--game", "go"],
        ["bench", "--sims", "0"],
        ["bench", "--reps", "x"],
    ],
}

BAD_CASES = [argv for cases in BAD_INPUTS.values() for argv in cases]


@pytest.mark.parametrize("argv", BAD_CASES, ids=lambda argv: " ".join(argv)[:60])
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, err = run_main(capsys, *argv)
    assert out == ""
    assert_one_error_line(code, err)


@pytest.mark.parametrize(
    "argv",
    [BAD_INPUTS["match"][4], BAD_INPUTS["replay"][2], BAD_INPUTS["analyze"][0]],
    ids=["save to /dev/full", "replay /dev/null", "moves twice"],
)
def test_bad_input_in_a_process_is_one_line_exit_2(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "playout", *argv],
        capture_output=True,
        text=True,
        env=module_env(),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.stdout == ""
    assert_one_error_line(done.returncode, done.stderr)


def test_flat_refuses_the_network_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(capsys, "analyze", "tictactoe", "--flat", "--ai", "zero")
    assert_one_error_line(code, err, "--flat does not take --ai zero")
    code, _, err = run_main(capsys, "analyze", "tictactoe", "--flat", "--model", "m.pt")
    assert_one_error_line(code, err, "--flat does not take --model")


def test_the_zero_ai_suggests_training_only_where_a_network_can_be_trained(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run_main(capsys, "analyze", "pig", "--ai", "zero")
    assert_one_error_line(code, err, "none can be trained for it", "--ai mcts")
    assert "playout train" not in err
    code, _, err = run_main(capsys, "analyze", "mnk", "--width", "4", "--ai", "zero")
    assert_one_error_line(code, err, "train one with `playout train`")


def test_a_one_player_games_moves_are_proven_by_their_whole_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seed 002's bandit: right (reward 1) is the best possible return, left (0) the worst;
    the moves' proofs agree with the root's (both said "drawn" under a root "win")."""
    code, out, _ = run_main(capsys, "analyze", "bandit", "--simulations", "200", "--seed", "0")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if "visits" in line}
    assert rows["right"].endswith("proven won") and rows["left"].endswith("proven lost")
    assert "proven: win" in out


def test_a_spec_with_nan_bounds_says_so() -> None:
    with pytest.raises(playout.GameError, match="min_return must be a number, got nan"):
        playout.GameSpec(name="x", num_players=1, num_actions=2, max_length=3, min_return=math.nan)
