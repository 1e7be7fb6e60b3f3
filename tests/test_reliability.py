"""Reliability of the ``playout`` command: bad inputs per command (exit code 2, exactly one
line on stderr, no traceback), interrupts and terminations (every worker stopped, one line,
exit 130 / 143, the save file intact), write failures and damaged save files."""

from __future__ import annotations

import io
import json
import os
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
    assert seconds < 5, seconds
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
