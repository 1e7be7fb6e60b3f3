"""The README's code blocks run as written, and say what they print.

* Every ```python block runs, in the README's order, in one namespace (later blocks use
  ``playout`` and ``state`` from the first), in a temporary directory. Where a comment claims
  an output, the test checks it.
* Every line of a ```bash block that starts with ``playout `` runs as ``python -m playout ...``
  on this checkout, in one temporary directory (``replay games.jsonl`` reads the file that the
  ``match ... --save games.jsonl`` line wrote), and must exit 0. Long runs get smaller budgets
  by the rules of :func:`shrunk` (fewer games, fewer simulations, one benchmark repetition);
  the lines in :data:`NOT_RUN` are not run at all, and the test fails if any other line is left
  out, so this list is the whole of what the README shows and the test does not run.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

NOT_RUN = {
    # a GTP engine waits for commands on stdin (tests/test_gtp.py runs it over pipes)
    "playout gtp --size 9 --komi 7.5 --seconds 2": "a GTP engine reading stdin",
    # installs, and the whole test suite (this test is part of it)
    "pip install . && playout play tictactoe": "installs the package; interactive",
    'pip install ".[test]" && python -m pytest -q': "installs the package; runs every test",
    # a server that runs until Ctrl-C (tests/test_web_api.py and test_web_browser.py test it)
    'pip install ".[web]" && playout serve --open': "installs the package; a server",
    "playout serve --host 0.0.0.0 --port 8000": (
        "a server on every address (tests/test_web_access.py tests its token policy)"
    ),
    "python bench/web_load.py --users 1,8,32,64 --seconds 20 --cores 2": (
        "a load benchmark of minutes (test_bench_scripts.py runs it at a smoke size)"
    ),
    'pip install ".[zero]" && playout play tictactoe --ai zero': "installs; interactive",
    "playout train tictactoe --out runs/ttt --iterations 30 --games 128 --parallel-games 128 "
    "--simulations 64 --c 1.0 --steps 100 --batch-size 128 --channels 32 --blocks 2 "
    "--temperature-moves 2 --opening-moves 6 --lr 0.003 --schedule 30 --buffer 20000 "
    "--eval-games 0 --seed 0": "minutes (tests/test_zero_training.py trains the same way)",
    "playout train connect4 --out runs/c4 --iterations 33 --games 200 --simulations 200 "
    "--expert-iterations 5 --expert-simulations 3000 --opening-moves 4 --temperature-moves 8 "
    "--steps 300 --batch-size 256 --buffer 300000 --channels 64 --blocks 4 --eval-games 20 "
    "--eval-simulations 200 --opponent mcts:simulations=1000 --schedule 40 --seed 1": (
        "an hour and a half of training"
    ),
    "playout train connect4 --out runs/c4 --iterations 71 --workers 2 --schedule 75": (
        "resumes that run for hours more"
    ),
    "playout train connect4 --out runs/c4 --iterations 52 --workers 2 --simulations 400": (
        "resumes it for hours more again"
    ),
    # a human at the keyboard
    "playout play go --size 9": "interactive",
    "playout play connect4 --first ai --seconds 2": "interactive",
    "playout play mnk --width 6 --height 6 --k 4 --simulations 5000": "interactive",
    'playout play tictactoe --moves "b2" --no-solver --final best-value --max-depth 4': (
        "interactive"
    ),
    # measurements of minutes (bench/symmetry.py runs at smoke size in test_bench_scripts.py)
    "python bench/symmetry.py --match ttt-perfect --games 2000": "a benchmark of minutes",
    "python bench/symmetry.py --match ttt-h2h --games 400 --simulations 50": "minutes",
    "python bench/symmetry.py --match mnk6-h2h --games 1000 --simulations 1000": "an hour",
    "python bench/go_playouts.py": "a minute (bench/go_playouts.py --smoke runs in "
    "test_bench_scripts.py)",
    # no smaller size: it adds 1,000,000-simulation decisions, each in a fresh process
    "playout bench --game connect4 --reps 3 --big": "1M-simulation decisions (about a minute)",
}

MAX_GAMES = 4  # enough for `replay games.jsonl --game-index 3`
MAX_SIMULATIONS = 100  # per move, in player specs of shrunk matches
MAX_SECONDS = 0.01  # per move, in player specs of shrunk matches
BENCH_SMALL = {"--sims": "500", "--python-sims": "100", "--reps": "1"}
BENCH_GAME = "tictactoe"  # the one game of a shrunk `playout bench` (default: all three)


def blocks(language: str) -> list[str]:
    """The README's fenced blocks in ``language``, in order."""
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


def bash_lines() -> list[str]:
    """Every command of the README's bash blocks: continuation lines joined, comments and
    blank lines dropped."""
    commands = []
    for block in blocks("bash"):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            line = " ".join(re.sub(r"(^|\s)#.*$", "", line).split())  # no comment, one space
            if line:
                commands.append(line)
    return commands


def shrunk(argv: list[str]) -> list[str]:
    """``argv`` with a smaller budget where the README's run would take long: at most
    MAX_GAMES games, and then at most MAX_SIMULATIONS simulations and MAX_SECONDS seconds per
    move in the player specs; ``playout bench`` with BENCH_SMALL, on BENCH_GAME alone unless
    the line names its games."""
    argv = list(argv)
    if argv[:1] == ["bench"]:
        for option, value in BENCH_SMALL.items():
            if option in argv:
                argv[argv.index(option) + 1] = value
            else:
                argv += [option, value]
        if "--game" not in argv:
            argv += ["--game", BENCH_GAME]
        return argv
    if "--games" in argv:
        i = argv.index("--games") + 1
        if int(argv[i]) > MAX_GAMES:
            argv[i] = str(MAX_GAMES)

            def smaller(spec: str) -> str:
                spec = re.sub(
                    r"simulations=(\d+)",
                    lambda m: f"simulations={min(int(m.group(1)), MAX_SIMULATIONS)}",
                    spec,
                )
                return re.sub(
                    r"seconds=([\d.]+)",
                    lambda m: f"seconds={min(float(m.group(1)), MAX_SECONDS):g}",
                    spec,
                )

            argv = [smaller(word) if ":" in word else word for word in argv]
    return argv


def run_cli(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    path = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    return subprocess.run(
        [sys.executable, "-m", "playout", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# ------------------------------------------------------------------------------ python


def test_python_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sources = blocks("python")
    assert len(sources) == 6, "the README's python blocks changed: check the claims below"
    namespace: dict[str, Any] = {"__name__": "readme"}

    # 1. The tour.
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(sources[0], "README.md python block 1", "exec"), namespace)
    import playout
    from playout._src.perfect import solve

    state, result, game = namespace["state"], namespace["result"], namespace["game"]
    # -> a winning move, value 1.0 for the player to move, proven "win"
    assert result.proven == "win" and result.value == 1.0
    solution = solve(game)
    assert solution.value(state) == 1.0
    assert result.best_action in solution.optimal_actions(state)
    move = game.action_to_string(state, result.best_action)
    assert printed.getvalue().split() == [move, "1.0", "win"]
    # The engine played its move and then the opponent's column 4 (action 3), keeping a tree.
    engine = namespace["engine"]
    initial = namespace["Connect4Game"]().initial_state()
    assert engine.root_state == initial.play(namespace["action"]).play(3)
    assert engine.result().total_simulations > 0  # the subtree was kept

    # 2. The slippery race (seed 003's random events): the best move, values near the exact
    # -1.0 and -0.4 (open loop: the tolerances of tests/test_random_games.py).
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(sources[1], "README.md python block 2", "exec"), namespace)
    race_values = namespace["result"].action_values()
    assert printed.getvalue().split()[0] == "2"
    assert race_values[1] == pytest.approx(-0.4, abs=0.05)
    assert race_values[0] == pytest.approx(-1.0, abs=0.15)
    assert namespace["race"].spec.is_deterministic is False

    # 3. The arena from Python: 20 games against a random player, saved and read back.
    exec(compile(sources[2], "README.md python block 3", "exec"), namespace)
    match = namespace["result"]
    assert match.wins + match.draws + match.losses == 20
    assert match.wins >= 15  # MCTS at 400 simulations against random tic-tac-toe moves
    assert len(namespace["saved"]) == 20
    assert len(namespace["table"].standings()) == 3

    # 4. RAVE and progressive bias (the defaults the comments state).
    exec(compile(sources[3], "README.md python block 4", "exec"), namespace)
    assert playout.RAVE().c == 0.1 and playout.RAVE().bias == 0.05
    assert playout.ProgressiveBias().c == pytest.approx(math.sqrt(2))
    assert playout.ProgressiveBias().weight == 30
    scores = namespace["my_scores"](state, state.legal_actions())
    assert all(0.0 <= s <= 1.0 for s in scores)

    # 6. playout zero: the shipped network finds a winning move (the solution's), with PUCT
    # and with Gumbel search (whose improved policy peaks on it), and one toy training
    # iteration runs.
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(sources[5], "README.md python block 6", "exec"), namespace)
    state, result, game = namespace["state"], namespace["result"], namespace["game"]
    assert result.proven == "win"
    assert result.best_action in solve(game).optimal_actions(state)
    assert printed.getvalue().split() == [game.action_to_string(state, result.best_action), "win"]
    planned, target = namespace["planned"], namespace["target"]
    assert planned.best_action in solve(game).optimal_actions(state)
    assert sum(target.values()) == pytest.approx(1.0)
    assert max(target, key=target.__getitem__) == planned.best_action
    assert [r.iteration for r in namespace["reports"]] == [1]

    # 5. OpenSpiel.
    pytest.importorskip("pyspiel", reason="open-spiel (the openspiel extra) not installed")
    exec(compile(sources[4], "README.md python block 5", "exec"), namespace)
    assert namespace["hex5"].initial_state().legal_actions()


# ------------------------------------------------------------------------------ bash


def test_every_bash_line_is_run_or_listed() -> None:
    lines = bash_lines()
    left_out = {line for line in lines if not line.startswith("playout ")}
    left_out |= {line for line in lines if line.startswith("playout play ")}
    assert left_out <= set(NOT_RUN), f"README lines neither run nor in NOT_RUN: {left_out}"
    assert set(NOT_RUN) <= set(lines), "NOT_RUN lists a line the README no longer has"


def _commands() -> list[str]:
    return [line for line in bash_lines() if line.startswith("playout ") and line not in NOT_RUN]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("readme")


@pytest.mark.parametrize("line", _commands())
def test_bash_line(line: str, workdir: Path) -> None:
    argv = shrunk(shlex.split(line)[1:])
    if argv[:2] == ["replay", "games.jsonl"] and not (workdir / "games.jsonl").exists():
        # Run alone: make the file the README's match line makes first.
        (save,) = (c for c in _commands() if "--save games.jsonl" in c)
        assert run_cli(shrunk(shlex.split(save)[1:]), workdir).returncode == 0
    process = run_cli(argv, workdir)
    shown = f"$ playout {shlex.join(argv)}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"
    assert process.returncode == 0, shown
    out = process.stdout
    if argv == ["games"]:
        for name in ("tictactoe", "mnk", "gomoku", "connect4", "bandit"):  # the README's table
            assert name in out, shown
    elif argv[0] == "analyze" and "--json" in argv:
        report = json.loads(out)
        keys = {"best_action", "best_move", "value", "actions", "pv", "simulations", "seconds",
                "nodes", "max_depth", "proven", "game", "to_play", "workers"}  # fmt: skip
        assert keys <= set(report), shown
        assert -1.0 <= report["value"] <= 1.0
        for entry in report["actions"]:
            assert {"action", "move", "visits", "value"} <= set(entry), shown
        assert report["workers"] == 1
    elif argv[0] == "match" and "--json" in argv:
        report = json.loads(out)
        assert report["wins"] + report["draws"] + report["losses"] == report["games"]
        lo, hi = report["ci95"]
        assert lo <= report["score"] <= hi
    elif argv[0] == "match" and "--save" in argv:
        saved = (workdir / argv[argv.index("--save") + 1]).read_text().splitlines()
        assert len(saved) == int(argv[argv.index("--games") + 1])
        assert all(json.loads(game) for game in saved)
    elif argv[0] == "bench" and "--json" in argv:
        assert json.loads(out)
    elif argv[0] == "bench":
        assert re.search(r"playout-compiled\D+500\D+[\d,]+", out), shown  # sims, sims/s
    else:
        assert out.strip(), shown
