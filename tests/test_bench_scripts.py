"""Every script in ``bench/`` runs at a smoke size and prints its figures (so none can rot).

Each script runs in a subprocess on this working tree (``PYTHONPATH=src``) with small
arguments, and the test checks that it exits 0 and prints numbers where its figures go. No
timing is asserted: the figures of a smoke run mean nothing, only that they are there.

Parts left out, on purpose:

* ``bench/compiled_engine.py --startup``: it times a cold numba compile in fresh processes
  (about 11 s each, and more on busy cores); the same script's measuring path is run here.
* ``bench/python_engine.py``'s ``monte-carlo-tree-search`` column when that optional peer
  (the ``bench`` extra) is not installed: the script leaves it out and says so; the column
  is checked when the package is there.
* ``bench/compiled_vs_peers.py``'s C column when ``/work/shared/bench/limit.c`` (kept outside
  this repository) or gcc is missing: the script leaves it out and says so.

``bench/seed_style.py`` and ``bench/mcts_package_adapter.py`` are modules of
``python_engine.py``, run through it.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
LIMIT_C = ROOT.parent / "shared" / "bench" / "limit.c"  # as the bench scripts find it
NUMBER = r"[-+]?\d[\d,]*(?:\.\d+)?"


def run_bench(script: str, *args: str, timeout: float = 300) -> tuple[str, str]:
    """Run ``bench/<script>`` on this working tree; its stdout and stderr (exit code 0)."""
    path = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    process = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert process.returncode == 0, (
        f"{script} {' '.join(args)} exited {process.returncode}\n"
        f"stdout:\n{process.stdout}\nstderr:\n{process.stderr}"
    )
    return process.stdout, process.stderr


def figure(text: str, label: str) -> float:
    """The number printed after ``label`` (on the same line)."""
    match = re.search(re.escape(label) + r"[^\n\d+-]*(" + NUMBER + ")", text)
    assert match, f"no figure after {label!r} in:\n{text}"
    return float(match.group(1).replace(",", ""))


def numbers_after(text: str, label: str) -> list[float]:
    """The numbers on the line after ``label``."""
    line = next((ln for ln in text.splitlines() if label in ln), None)
    assert line is not None, f"no line with {label!r} in:\n{text}"
    rest = line.split(label, 1)[1]
    return [float(x.replace(",", "")) for x in re.findall(NUMBER, rest)]


def positive(value: object) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_every_script_is_covered() -> None:
    scripts = {p.name for p in BENCH.glob("*.py")}
    covered = {
        "python_engine.py",
        "profile_python_engine.py",
        "compiled_engine.py",
        "compiled_vs_peers.py",
        "phase_profile.py",
        "ab_trees.py",
        "symmetry.py",
        "time_limits.py",
        "stop_early.py",
        "threads.py",
        "connect4_positions.py",
        "zero_throughput.py",
        "zero_connect4.py",
        "zero_gomoku.py",
        "zero_pipeline.py",
        "zero_device.py",
        "zero_benchmark_positions.py",
        "zero_benchmark.py",
        "zero_ablation.py",
        "web_load.py",
        "go_playouts.py",
        "rave_speed.py",
        "go_policies.py",
        "go_knowledge.py",
        "go_openings.py",
        "match_records.py",
        "go_turning_points.py",
        "go_ratings.py",
        "seed_style.py",  # a module of python_engine.py
        "mcts_package_adapter.py",  # a module of python_engine.py
        "results.py",  # result files for the docs: test_python_engine_result_file
    }
    assert scripts == covered, f"a bench script without a smoke test: {scripts - covered}"


def test_python_engine() -> None:
    out, err = run_bench("python_engine.py", "--simulations", "100", "--reps", "1", "--json")
    report = json.loads(out)
    has_package = "mcts_pkg" in report["results"]["tictactoe"]
    for game in ("tictactoe", "connect4"):
        entries = report["results"][game]
        expected = {"bare", "engine", "seed"} | ({"mcts_pkg"} if has_package else set())
        assert set(entries) == expected
        for entry in entries.values():
            assert positive(entry["median"]) and positive(entry["us_per_simulation"])
            assert entry["simulations"] == 100
        ratios = report["ratios"][game]
        for name in ("engine/bare", "engine/seed"):
            assert positive(ratios[name]["ratio_of_medians"])
            assert positive(ratios[name]["zero_overhead_bound"])
        assert math.isfinite(ratios["engine_overhead_us_per_simulation"])
    assert "rep 1/1 connect4: bare" in err  # the progress lines
    if not has_package:
        assert any("monte-carlo-tree-search is not installed" in n for n in report["notes"])


def test_python_engine_result_file(tmp_path: Path) -> None:
    """``--json PATH`` writes the result file the documentation renders: its command, date,
    machine and one row per game, in the columns of the committed file."""
    path = tmp_path / "python_engine.json"
    out, _ = run_bench("python_engine.py", "--games", "tictactoe", "--simulations", "50",
                       "--reps", "1", "--json", str(path))  # fmt: skip
    assert "engine / bare playouts" in out  # the table is printed too
    data = json.loads(path.read_text())
    committed = json.loads((BENCH / "results" / "python_engine.json").read_text())
    assert data["columns"] == committed["columns"]
    assert data["source"] == "measured" and data["date"] and data["machine"]
    assert data["command"] == (
        f"python bench/python_engine.py --games tictactoe --simulations 50 --reps 1 --json {path}"
    )
    (row,) = data["rows"]
    assert row[0] == "tic-tac-toe" and len(row) == len(data["columns"])
    assert float(row[3]) > 0  # engine / bare


def test_python_engine_table() -> None:
    out, _ = run_bench("python_engine.py", "--games", "tictactoe", "--simulations", "50",
                       "--reps", "1")  # fmt: skip
    # sims, median, min, max, us/sim (and time beyond a bare playout for the engines)
    bare = numbers_after(out, "bare random playouts")
    assert len(bare) == 5 and bare[0] == 50 and all(x > 0 for x in bare)
    for label in ("playout Python engine", "seed-000-style object MCTS"):
        row = numbers_after(out, label)
        assert len(row) == 6 and row[0] == 50 and all(x > 0 for x in row[:5])
    # of medians, paired, bound, target
    for label in ("engine / bare playouts", "engine / seed-style"):
        ratios = numbers_after(out, label)
        assert len(ratios) == 4 and all(x > 0 for x in ratios)
    figure(out, "engine time beyond one bare playout:")


def test_python_engine_with_the_mcts_package() -> None:
    pytest.importorskip("mcts", reason="monte-carlo-tree-search (the bench extra) not installed")
    out, _ = run_bench(
        "python_engine.py", "--games", "tictactoe", "--simulations", "100", "--reps", "1", "--json"
    )
    report = json.loads(out)
    assert positive(report["results"]["tictactoe"]["mcts_pkg"]["median"])
    assert positive(report["ratios"]["tictactoe"]["engine/mcts_pkg"]["ratio_of_medians"])


def test_profile_python_engine() -> None:
    out, err = run_bench("profile_python_engine.py", "--smoke")
    # Nothing in the itemised list went stale against the driver (it would be skipped).
    assert "skipped" not in err, err
    assert "connect4, 200 simulations" in out
    assert figure(out, "engine, whole simulation") > 0
    assert figure(out, "game: bare random rollout from the new leaf") > 0
    figure(out, "engine overhead = whole - game")  # may be negative on a noisy machine
    assert figure(out, "moves per simulation") > 1
    assert figure(out, "new nodes per simulation") == pytest.approx(1.0, abs=0.05)
    for label in (
        "selection.descend(...): numba dispatch of 8 args + the walk",
        "finish.finish_new_leaf(*tree, ...)",
        "legal-action array from the cache",
        "states.append(state)",
    ):
        assert figure(out, label) > 0
    figure(out, "sum of the items")
    figure(out, "measured in view 1 (evaluator + driver)")
    assert "3. cProfile, 1 searches of 200 simulations" in out
    assert figure(out, "game code (playout/games)") > 0
    # The driver's loop does one compiled selection and one compiled finish per simulation.
    assert figure(out, "\n  descend ") == pytest.approx(1.0, abs=0.05)
    assert figure(out, "\n  finish_new_leaf ") == pytest.approx(1.0, abs=0.05)
    assert figure(out, "\n  play ") > 1
    assert "top functions by tottime:" in out


def test_compiled_engine() -> None:
    out, _ = run_bench("compiled_engine.py", "--sims", "500", "--reps", "2", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["game"] for row in rows] == ["tictactoe", "connect4", "mnk9"]
    for row in rows:
        assert row["sims"] == 500 and row["reps"] == 2
        assert positive(row["median_sims_per_sec"]) and positive(row["best_sims_per_sec"])
        assert positive(row["median_sims_per_cpu_sec"]) and positive(row["bytes_per_node"])
        assert isinstance(row["last_action"], int)


def test_compiled_engine_text() -> None:
    out, _ = run_bench("compiled_engine.py", "--game", "connect4", "--sims", "300", "--reps", "1")
    assert out.startswith("game=connect4  sims=300  reps=1  ")
    assert figure(out, "median_sims_per_sec=") > 0
    assert figure(out, "bytes_per_node=") > 0


def test_compiled_vs_peers() -> None:
    pytest.importorskip("pyspiel", reason="open-spiel (the openspiel extra) not installed")
    with_c = LIMIT_C.is_file() and shutil.which("gcc") is not None
    out, err = run_bench(
        "compiled_vs_peers.py", "--sims", "300", "--reps", "1",
        "--game", "tictactoe", "--game", "connect4", "--limit-c", str(LIMIT_C),
    )  # fmt: skip
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["game"] for row in rows] == ["tictactoe", "connect4"]
    for row in rows:
        assert positive(row["playout_median"]) and positive(row["openspiel_median"])
        assert positive(row["playout_over_openspiel"])
        if with_c:
            assert positive(row["c_median"]) and positive(row["playout_over_c"])
        else:
            assert "c_median" not in row
    if not with_c:
        assert "no C reference" in err


def test_go_playouts() -> None:
    out, _ = run_bench("go_playouts.py", "--smoke")
    assert out.startswith("# python bench/go_playouts.py --smoke\n")
    assert 100 < numbers_after(out, "| moves per playout, his komi 7.5 run |")[-3] < 125
    assert 0.3 < numbers_after(out, "| Black's score, komi 7.5 |")[-3] < 0.55
    assert figure(out, "largest difference:") >= 0
    assert positive(numbers_after(out, "| playout: light playouts (")[-1])
    assert positive(numbers_after(out, "| playout: compiled MCTS,")[-1])
    if importlib.util.find_spec("pyspiel") is not None:
        assert "playouts" in numbers_line(out, "| OpenSpiel: C++ MCTSBot")
    else:
        assert "open-spiel is not installed" in out


def test_go_playouts_result_file(tmp_path: Path) -> None:
    """``--json PATH`` prints the tables and writes the speed table's result file, in the
    columns of the committed one."""
    path = tmp_path / "go_speed.json"
    out, _ = run_bench("go_playouts.py", "--smoke", "--json", str(path))
    assert "| playout: light playouts (" in out
    data = json.loads(path.read_text())
    committed = json.loads((BENCH / "results" / "go_speed.json").read_text())
    assert data["columns"] == committed["columns"] and data["source"] == "measured"
    assert data["command"] == f"python bench/go_playouts.py --smoke --json {path}"
    assert float(data["rows"][0][1].replace(",", "")) > 0  # light playouts per CPU second
    assert data["rows"][-1][0].startswith("libego")


def test_go_playouts_json() -> None:
    out, _ = run_bench("go_playouts.py", "--smoke", "--json")
    report = json.loads(out)
    assert report["command"] == "python bench/go_playouts.py --smoke --json"
    assert report["playouts"] == 20_000 and len(report["fidelity"]) == 8
    for row in report["fidelity"]:
        assert positive(row["ours"]) and positive(row["ours_se"]) and math.isfinite(row["z"])
    assert positive(report["speed"]["playouts_per_second"])
    assert positive(report["speed"]["mcts_simulations_per_second"])
    if "openspiel_simulations_per_second" in report["speed"]:
        assert positive(report["speed"]["playouts_over_openspiel"])
        assert positive(report["speed"]["openspiel_rollout_moves"])


def numbers_line(text: str, label: str) -> str:
    """The line holding ``label``."""
    line = next((ln for ln in text.splitlines() if label in ln), None)
    assert line is not None, f"no line with {label!r} in:\n{text}"
    return line


def test_compiled_vs_peers_without_the_c_reference() -> None:
    pytest.importorskip("pyspiel", reason="open-spiel (the openspiel extra) not installed")
    out, err = run_bench(
        "compiled_vs_peers.py", "--sims", "200", "--reps", "1", "--game", "mnk9", "--limit-c", ""
    )
    (row,) = (json.loads(line) for line in out.splitlines())
    assert row["game"] == "mnk9" and "c_median" not in row and "playout_over_c" not in row
    assert positive(row["playout_median"]) and positive(row["playout_over_openspiel"])
    assert "no C reference" in err


def test_compiled_vs_peers_solver() -> None:
    pytest.importorskip("pyspiel", reason="open-spiel (the openspiel extra) not installed")
    out, _ = run_bench("compiled_vs_peers.py", "--solver", "--sims", "80000", "--reps", "2")
    (row,) = (json.loads(line) for line in out.splitlines())
    assert row["game"] == "tictactoe" and row["solver"] is True and row["budget"] == 80000
    assert row["playout_proven"] == "2/2 draw"  # tic-tac-toe's root is proven at ~50k
    assert 0 < row["playout_sims_median"] < 80000 and "c_median" not in row
    assert re.fullmatch(r"[0-2]/2( draw)?", row["openspiel_proven"])
    for key in ("playout_median", "openspiel_same_sims_median", "playout_over_openspiel"):
        assert positive(row[key])
    assert positive(row["time_to_proof_openspiel_over_playout"])


def test_ab_trees() -> None:
    out, _ = run_bench("ab_trees.py", "--trees", "src", "src", "--sims", "200", "--reps", "2")
    row = json.loads(out.splitlines()[-1])
    assert row["game"] == "connect4" and row["sims"] == 200 and row["reps"] == 2
    assert positive(row["tree0_median"]) and positive(row["tree1_median"])
    assert positive(row["second_over_first"])
    if LIMIT_C.is_file() and shutil.which("gcc"):
        assert positive(row["c_median"]) and positive(row["tree1_over_c"])


@pytest.mark.parametrize("game", ["go9", "connect4"])
def test_rave_speed(game: str) -> None:
    out, _ = run_bench(
        "rave_speed.py", "--runs", "src:ucb1", "src:rave", "--game", game, "--sims", "200",
        "--reps", "2",
    )  # fmt: skip
    report = json.loads(out)
    assert report["game"] == game and report["sims"] == 200 and report["reps"] == 2
    assert [run["run"] for run in report["runs"]] == ["src:ucb1", "src:rave"]
    assert all(positive(run["median_sims_per_cpu_sec"]) for run in report["runs"])
    assert report["runs"][0]["median_ratio_to_first"] == 1.0


def test_go_policies(tmp_path: Path) -> None:
    path = tmp_path / "go_policies.json"
    out, _ = run_bench("go_policies.py", "--playouts", "100", "--reps", "2", "--json", str(path))
    rows = {line.split(" | ")[0]: line.split(" | ")[1:] for line in out.splitlines()[1:]}
    names = ["light", "heavy", "mogo", "mogo+ladders", "mogo+captures"]
    assert list(rows) == names
    assert all(positive(float(row[0].replace(",", ""))) for row in rows.values())
    assert rows["light"][1] == "1.00"
    data = json.loads(path.read_text())
    assert [row[0] for row in data["rows"]] == names


def test_go_openings(tmp_path: Path) -> None:
    out_file = tmp_path / "openings.json"
    out, _ = run_bench(
        "go_openings.py", "--biases", "0.05", "--simulations", "100", "--seeds", "2",
        "--json", str(out_file),
    )  # fmt: skip
    rows = json.loads(out_file.read_text())["rows"]
    assert [row[1] for row in rows] == [
        "empty board (Black)", "after E5 (White)", "after C3 (White)", "after G7 (White)"
    ]  # fmt: skip
    for row in rows:
        assert row[0] == "0.05" and sum(row[2:]) == 2  # every search's move counted once
    assert "second line" in out


def test_match_records(tmp_path: Path) -> None:
    """The tally of saved records agrees with what ``playout match --json`` said of the
    same games, file by file and in all (wins, draws, losses, seats, the Wilson interval)."""
    summaries, files = [], []
    for seed, games in ((1, 6), (2, 5)):
        saved = tmp_path / f"games{seed}.jsonl"
        process = subprocess.run(
            [sys.executable, "-m", "playout", "match", "tictactoe", "--p1",
             "mcts:simulations=30", "--p2", "random", "--games", str(games), "--seed",
             str(seed), "--save", str(saved), "--json"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        summaries.append(json.loads(process.stdout))
        files.append(str(saved))
    out_file = tmp_path / "records.json"
    out, _ = run_bench(
        "match_records.py", *files, "--player", "mcts:", "--title", "t", "--command", "x",
        "--json", str(out_file),
    )  # fmt: skip
    data = json.loads(out_file.read_text())
    assert data["command"] == ["x"] and "games1.jsonl" in out
    assert data["details"]["tallied_by"].startswith("python bench/match_records.py ")
    rows = data["rows"]
    assert [row[0] for row in rows] == ["games1.jsonl", "games2.jsonl", "all"]
    for cells, summary in zip(rows, [*summaries, None], strict=True):
        parts = summaries if summary is None else [summary]
        wins, draws, losses = (sum(p[k] for p in parts) for k in ("wins", "draws", "losses"))
        games = wins + draws + losses
        assert cells[1:3] == [str(games), f"{wins}-{draws}-{losses}"]
        first = [r for p in parts for r in p["results"] if r["p1_first"]]
        first_wins = sum(r["p1_score"] == 1.0 for r in first)
        assert cells[3] == f"{first_wins} of {len(first)}"
        assert cells[4].endswith(f" of {games - len(first)}")
        if summary is not None:
            low, high = summary["ci95"]
            assert cells[5] == f"{summary['score']:.3f} ({low:.3f}-{high:.3f})"
        assert cells[6] == "0 of 0 (0 the same score)"  # no GTP opponent, no other count


def test_go_knowledge() -> None:
    out, _ = run_bench(
        "go_knowledge.py", "--p1", "mogo:patterns+penalties", "--p2", "light:none", "--games",
        "2", "--simulations", "30",
    )  # fmt: skip
    assert "mogo:patterns+penalties vs light:none:" in out
    assert figure(out, "Wilson 95%") >= 0.0 and "2 games" in out
    out, _ = run_bench(
        "go_knowledge.py", "--p1", "mogo:ratings=3:nakade", "--p2", "mogo:ratings", "--games",
        "2", "--simulations", "30",
    )  # fmt: skip
    assert "mogo:ratings=3:nakade vs mogo:ratings:" in out


def test_go_knowledge_against_any_player_with_records(tmp_path: Path) -> None:
    """``--opponent`` takes a player spec of ``playout match``; the games run on two workers
    and their records are saved, p1 named by its knowledge."""
    save = tmp_path / "games.jsonl"
    out, _ = run_bench(
        "go_knowledge.py", "--p1", "mogo:all:nakade+lgrf+captures", "--opponent", "random",
        "--games", "2", "--simulations", "30", "--workers", "2", "--save", str(save),
    )  # fmt: skip
    assert "mogo:all:nakade+lgrf+captures vs random:" in out and "2 games" in out
    records = [json.loads(line) for line in save.read_text().splitlines()]
    assert len(records) == 2 and all(r["game"] == "go" for r in records)
    assert {tuple(r["players"]) for r in records} == {
        ("mogo:all:nakade+lgrf+captures", "random"),
        ("random", "mogo:all:nakade+lgrf+captures"),
    }
    # A spec no player answers to: one line and exit code 2, no traceback.
    process = subprocess.run(
        [sys.executable, str(BENCH / "go_knowledge.py"), "--p1", "mogo:all", "--opponent",
         "bogus:x", "--games", "2"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert process.returncode == 2 and "unknown player 'bogus:x'" in process.stderr
    assert "Traceback" not in process.stderr


def test_ab_trees_solver() -> None:
    out, _ = run_bench(
        "ab_trees.py", "--trees", "src", "--game", "tictactoe", "--solver", "--sims", "200000",
        "--reps", "1",
    )  # fmt: skip
    row = json.loads(out.splitlines()[-1])
    assert row["solver"] is True and positive(row["tree0_median"])
    assert "c_median" not in row  # the C reference has no solver


def test_threads_time_budget() -> None:
    out, _ = run_bench(
        "threads.py", "--seconds", "0.02", "--reps", "1", "--games", "connect4", "--json"
    )
    (row,) = json.loads(out)["rows"]
    assert row["seconds"] == 0.02 and row["sims"] is None
    assert positive(row["one_thread_sims_per_sec"]) and positive(row["threads_sims_per_sec"])
    assert row["stop_reasons"] == ["time"]


def test_phase_profile_mnk9() -> None:
    out, _ = run_bench("phase_profile.py", "--game", "mnk9", "--sims", "500", "--runs", "1")
    (row,) = out.splitlines()[2:]
    assert float(row.split()[0].replace(",", "")) == 500


def test_phase_profile() -> None:
    out, _ = run_bench("phase_profile.py", "--sims", "1000", "--runs", "1")
    lines = out.splitlines()
    assert lines[0].startswith("cycles per simulation")
    assert lines[1].split() == [
        "sims", "depth", "descend", "copy+play", "legal", "rollout", "expand+backup", "total",
        "descend/level",
    ]  # fmt: skip
    (row,) = lines[2:]
    numbers = [float(x.replace(",", "")) for x in row.split()]
    assert len(numbers) == 9 and numbers[0] == 1000
    assert numbers[1] > 1  # edges descended per simulation
    if platform.machine().lower() in ("x86_64", "amd64"):  # a time-stamp counter that counts
        assert all(n > 0 for n in numbers[2:])


def test_symmetry() -> None:
    out, _ = run_bench("symmetry.py", "--match", "ttt-h2h", "--games", "4", "--simulations", "20")
    rows = [line for line in out.splitlines() if line.startswith("ttt-h2h")]
    assert len(rows) == 3  # symmetry, transpositions, both: each against plain
    for row in rows:
        wins, draws, losses = (int(x) for x in re.findall(r"[WDL]\s+(\d+)", row))
        assert wins + draws + losses == 4
        assert 0.0 <= figure(row, "score") <= 1.0


def test_time_limits() -> None:
    out, _ = run_bench(
        "time_limits.py",
        "--seconds",
        "0.05",
        "--reps",
        "1",
        "--games",
        "tictactoe",
        "--json",
    )
    rows = json.loads(out)["rows"]
    assert {(r["game"], r["backend"]) for r in rows} == {
        ("tictactoe", "compiled"),
        ("tictactoe", "python"),
    }
    for row in rows:
        assert row["worst_overrun_percent"] > -100.0  # it took some of its time
        assert set(row["stop_reasons"]) <= {"time", "proven", "memory"}
        assert positive(row["median_sims_per_sec"])


def test_stop_early(tmp_path: Path) -> None:
    # Tic-tac-toe without the solver: every search ends by time or settled, none by proof.
    out_file = tmp_path / "stop.json"
    run_bench(
        "stop_early.py", "--game", "tictactoe", "--games", "2", "--json", str(out_file),
        "--spec", "mcts:seconds=0.02,solver=no",
    )  # fmt: skip
    report = json.loads(out_file.read_text())
    assert report["spec"] == "mcts:seconds=0.02,solver=no,early=yes"
    assert 10 <= report["moves"] <= 18  # two games of 5 to 9 moves
    assert 0 <= report["moves_settled_early"] <= report["moves"]
    assert report["share_settled_early"] == report["moves_settled_early"] / report["moves"]
    assert 0 < report["share_of_limit_used"] < 2


def test_threads() -> None:
    out, _ = run_bench(
        "threads.py", "--sims", "2000", "--reps", "1", "--games", "connect4", "--json"
    )
    (row,) = json.loads(out)["rows"]
    assert row["threads"] == 2 and row["sims"] == 2000
    assert positive(row["one_thread_sims_per_sec"]) and positive(row["threads_sims_per_sec"])
    assert positive(row["shared_tree_sims_per_sec"])
    assert row["speed_up"] == pytest.approx(
        row["threads_sims_per_sec"] / row["one_thread_sims_per_sec"]
    )
    assert row["shared_speed_up"] == pytest.approx(
        row["shared_tree_sims_per_sec"] / row["one_thread_sims_per_sec"]
    )


def test_connect4_positions(tmp_path: Path) -> None:
    out_file = tmp_path / "positions.json"
    out, _ = run_bench(
        "connect4_positions.py", "--per-bucket", "2", "--buckets", "middle,end",
        "--out", str(out_file),
    )  # fmt: skip
    assert figure(out, "wrote") == 4
    data = json.loads(out_file.read_text())
    assert data["game"] == {"name": "connect4", "width": 7, "height": 6, "k": 4}
    for position in data["positions"]:
        stones = len(position["moves"])
        assert position["bucket"] in ("middle", "end") and 15 <= stones <= 30
        scores = [s for s in position["scores"] if s is not None]
        assert position["score"] == max(scores)
        assert position["outcome"] in (-1, 0, 1)
        for column in position["losing"]:
            assert position["scores"][column - 1] < position["score"]
    # The committed data set: the perfect chooser never plays a value-losing move, a random
    # one does.
    data_file = BENCH / "data" / "connect4_positions.json"
    out, _ = run_bench(
        "connect4_positions.py", "--evaluate", str(data_file), "--bucket", "end", "--limit", "40"
    )
    assert figure(out, "positions:") == 40
    assert figure(out, "perfect chooser value-losing fraction:") == 0
    assert figure(out, "random chooser value-losing fraction:") > 0


def test_zero_throughput() -> None:
    pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    out, err = run_bench("zero_throughput.py", "--smoke", "--json")
    report = json.loads(out)
    assert report["command"] == "python bench/zero_throughput.py --smoke --json"
    assert "OpenSpiel's Python AlphaZero" in report["openspiel_note"]
    (entry,) = report["games"].values()
    self_play = entry["self_play"]
    openspiel = (
        "openspiel_positions_per_sec",
        "openspiel_evals_per_sec",
        "lockstep_over_openspiel",
    )
    if "not installed" in report["openspiel_note"]:  # JAX/Flax missing: the column says so
        assert all(self_play[key] is None for key in openspiel)
    else:
        assert all(positive(self_play[key]) for key in openspiel)
        assert "rep 1/1 openspiel" in err
    for key in (
        "lockstep_positions_per_sec",
        "lockstep_evals_per_sec",
        "speed_up",
        "one_leaf_positions_per_sec",
        "one_leaf_evals_per_sec",
        "eval_rate_ratio",
    ):
        assert positive(self_play[key]), key
    assert [(r["parallel_games"], r["leaf_batch"]) for r in entry["sweep"]] == [(1, 1), (2, 2)]
    assert all(positive(r["positions_per_sec"]) for r in entry["sweep"])
    has_onnx = report["onnxruntime"] is not None
    for row in entry["inference"]["rows"]:
        assert positive(row["torch_1t"]) and positive(row["torch_2t"])
        assert positive(row["torch_2t_over_1t"])
        if has_onnx:
            assert positive(row["onnx_1t"]) and positive(row["onnx_over_torch_1t"])
            assert row["max_abs_difference"] < 1e-3  # the exported network computes the same
        else:
            assert row["onnx_1t"] is None
    assert "rep 1/1 ours" in err and "rep 1/1 base" in err


def test_zero_device(tmp_path: Path) -> None:
    """On the CPU alone (CI has no GPU): a row per size with every column, the result file in
    the columns of the committed one (measured on a GPU)."""
    pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    path = tmp_path / "zero_device.json"
    out, _ = run_bench("zero_device.py", "--smoke", "--devices", "cpu", "--json", str(path))
    data = json.loads(path.read_text())
    assert data["command"] == f"python bench/zero_device.py --smoke --devices cpu --json {path}"
    (row,) = data["rows"]
    assert row[:2] == ["cpu (2 threads)", "16x1"] and len(row) == len(data["columns"])
    assert all(float(cell.replace(",", "")) > 0 for cell in row[2:])
    (entry,) = data["details"]["entries"]
    assert entry["device"] == "cpu" and entry["self_play_positions_per_second"] > 0
    committed = json.loads((BENCH / "results" / "zero_device.json").read_text())
    assert len(committed["columns"]) == len(data["columns"]) + 2  # two batch sizes beyond --smoke
    assert " | ".join(row) in out


def test_zero_pipeline(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out_file = tmp_path / "pipeline.json"
    out, _ = run_bench(
        "zero_pipeline.py", "--smoke", "--modes", "async:pool", "--out", str(out_file)
    )
    assert figure(out, "async:pool") > 0
    report = json.loads(out_file.read_text())
    assert report["command"].startswith("python bench/zero_pipeline.py --smoke")
    (row,) = report["rows"]  # the table the documentation renders
    assert row[:2] == ["async", "pool"] and len(row) == len(report["columns"])
    (run,) = report["details"]["runs"]
    assert run["mode"] == "async:pool" and run["iterations"] == 2 and run["positions"] > 0


def test_zero_throughput_table() -> None:
    pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    out, _ = run_bench("zero_throughput.py", "--smoke", "--no-sweep")
    assert out.startswith("# python bench/zero_throughput.py --smoke --no-sweep\n")
    assert figure(out, "lockstep self_play (G=2, B=2)") > 0
    assert figure(out, "one leaf per call, no cache") > 0
    assert figure(out, "speed-up (positions/s):") > 0
    assert "OpenSpiel AlphaZero" in out  # its figures, or 'not installed'
    assert "2. sweep" not in out
    assert len(numbers_after(out, "3. inference")) >= 2  # the thread counts in the header


@pytest.mark.parametrize("symmetries", [False, True])
def test_zero_connect4(tmp_path: Path, symmetries: bool) -> None:
    torch = pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    from playout.games import Connect4Game
    from playout.zero import Architecture, Model

    torch.set_num_threads(1)
    path = Model(Connect4Game(), Architecture(channels=8, blocks=1)).save(tmp_path / "c4.pt")
    out, _ = run_bench(
        "zero_connect4.py", "--model", str(path), "--simulations", "8", "--limit", "6",
        "--games", "2", "--policy-games", "4", "--opponents", "mcts:simulations=20", "--json",
        *(["--symmetries"] if symmetries else []),
    )  # fmt: skip
    report = json.loads(out)
    fractions = report["value_losing"]
    assert set(fractions) == {
        "policy alone", "zero, 8 simulations", "rollout MCTS, 8 simulations"
    }  # fmt: skip
    for row in fractions.values():
        assert 0.0 <= row["all"] <= 1.0 and row["all"] * 6 == pytest.approx(round(row["all"] * 6))
    assert set(report["value_losing_seconds"]) == set(fractions)
    assert all(seconds > 0 for seconds in report["value_losing_seconds"].values())
    assert [m["games"] for m in report["matches"]] == [2, 4]
    for match in report["matches"]:
        assert match["wins"] + match["draws"] + match["losses"] == match["games"]
        assert ("symmetries=yes" in match["player"]) == symmetries


def test_zero_gomoku(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    from playout.games import gomoku
    from playout.zero import Architecture, Model

    torch.set_num_threads(1)
    path = Model(gomoku(), Architecture(channels=8, blocks=1)).save(tmp_path / "gomoku.pt")
    result = tmp_path / "table.json"
    out, err = run_bench(
        "zero_gomoku.py", "--model", str(path), "--seconds", "0.01", "--games", "4",
        "--minutes", "0", "--json", str(result),
    )  # fmt: skip
    # --minutes 0: the first pair of games is played, no second one starts.
    assert "| 0.01 s | 2 |" in out and "game 2/4:" in err and "game 3/4" not in err
    report = json.loads(result.read_text())
    assert report["command"].startswith("python bench/zero_gomoku.py --model")
    (row,) = report["rows"]
    assert len(row) == len(report["columns"]) and row[1] == "2"
    (summary,) = report["details"]["matches"]
    assert summary["wins"] + summary["draws"] + summary["losses"] == 2
    assert (summary["games"], summary["planned_games"]) == (2, 4)
    assert summary["p1"].startswith("zero:seconds=0.01") and "neighbors" in summary["p2"]
    assert [game["p1_first"] for game in summary["results"]] == [True, False]


def test_zero_benchmark_positions(tmp_path: Path) -> None:
    from playout.games.connect4 import labelled

    out_file = tmp_path / "positions.txt"
    out, _ = run_bench(
        "zero_benchmark_positions.py", "--per-cell", "1", "--stages", "29+", "--workers", "1",
        "--out", str(out_file),
    )  # fmt: skip
    assert figure(out, "wrote") == 5
    positions = labelled.read_positions(out_file)
    assert [p.source for p in positions] == list(labelled.SOURCES)
    assert all(p.stage == "29+" and p.losing_actions for p in positions)


def test_zero_benchmark(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    result = tmp_path / "table.json"
    out, _ = run_bench(
        "zero_benchmark.py", "--positions", "6", "--choosers", "policy", "zero:4",
        "mcts:20", "--json", str(result),
    )  # fmt: skip
    assert "| policy alone |" in out and "| rollout MCTS, 20 simulations |" in out
    report = json.loads(result.read_text())
    assert report["details"]["positions"] == 6 and len(report["rows"]) == 3
    assert all(len(row) == len(report["columns"]) for row in report["rows"])
    for row in report["details"]["scores"]:
        assert row["losing"] == sum(s["losing"] for s in row["stages"].values())
        assert sum(s["positions"] for s in row["stages"].values()) == 6
        assert len(row["lost_at"]) == row["losing"]
    first, *others = report["details"]["scores"]
    for score, paired in zip(others, report["details"]["paired_with_first"], strict=True):
        assert paired["first_only"] == len(set(first["lost_at"]) - set(score["lost_at"]))
        assert paired["second_only"] == len(set(score["lost_at"]) - set(first["lost_at"]))
        assert 0 < paired["p_value"] <= 1
    assert out.count("paired with policy alone:") == 2


def test_zero_ablation(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="torch (the zero extra) not installed")
    out, _ = run_bench(
        "zero_ablation.py", "--smoke", "--minutes", "0.01", "--variants", "baseline", "all",
        "--out", str(tmp_path), "--evaluate", "1000", "0", "--evaluate-simulations", "4",
        "--evaluate-positions", "6", "--json", str(tmp_path / "evaluation.json"),
        "--plot", str(tmp_path / "curves.png"),
    )  # fmt: skip
    assert "| baseline |" in out and "| all |" in out
    assert (tmp_path / "curves.png").stat().st_size > 0
    for variant in ("baseline", "all"):
        assert (tmp_path / variant / "metrics.csv").exists()
        assert list((tmp_path / variant / "models").glob("iteration-*.pt"))
    evaluation = json.loads((tmp_path / "evaluation.json").read_text())
    assert evaluation["columns"][1] == "by 1000 min: policy / 4 simulations"
    for variant, row in zip(("baseline", "all"), evaluation["rows"], strict=True):
        # The last network kept at 1000 minutes, none before minute 0.
        with (tmp_path / variant / "metrics.csv").open(newline="") as handle:
            last = list(csv.DictReader(handle))[-1]["iteration"]
        cell = rf"[0-9.]+% / [0-9.]+% \(all: [0-9.]+%; iteration {last}, [0-9.]+ min\)"
        assert re.fullmatch(cell, row[1])
        assert row[2] == "-"
    scores = evaluation["details"]["all @ 1000 min"]
    assert scores["policy"]["positions"] == scores["search"]["positions"] == 6
    assert scores["iteration"] == int(last)


def test_zero_ablation_timed_schedule_spans_the_run() -> None:
    """The timed variant's schedule is the run's own length, whatever ``--minutes`` is."""
    script: Any = _bench_module("zero_ablation")
    for minutes, hours in ((30, "0.500000"), (120, "2.000000")):
        argv = script.command("connect4", "async+openings+mix+timed", Path("o"), minutes, 0)
        assert argv[argv.index("--schedule-hours") + 1] == hours
        assert argv[argv.index("--hours") + 1] == hours
        assert "RUN" not in argv


def test_zero_ablation_random_moves_on_the_plain_recipe() -> None:
    """``workers2+random12`` is ``workers2`` (the plain recipe on two worker processes) with
    a random move on 12% of the moves: the variant's options come after the recipe's."""
    script: Any = _bench_module("zero_ablation")
    plain = script.command("connect4", "workers2", Path("o"), 60, 0)
    argv = script.command("connect4", "workers2+random12", Path("o"), 60, 0)
    assert argv[argv.index("--out") + 1] == str(Path("o") / "workers2+random12")
    after_out = argv.index("--out") + 2
    assert argv[after_out : len(plain)] == plain[after_out:]
    assert argv[len(plain) :] == ["--random-move-rate", "0.12"]
    assert "--pipeline" not in argv


@pytest.mark.parametrize(
    ("trick", "options"),
    [
        ("cap", ["--full-search-fraction", "0.25", "--fast-simulations", "16"]),
        ("forced", ["--forced-playouts", "2"]),
        ("reply", ["--reply-head"]),
    ],
)
def test_zero_ablation_tricks_one_at_a_time_on_the_12_percent_recipe(
    trick: str, options: list[str]
) -> None:
    """Each KataGo trick's variant is the 12% recipe with that one trick's options added."""
    script: Any = _bench_module("zero_ablation")
    recipe = "async+openings+mix+timed+random12"
    base = script.command("connect4", recipe, Path("o"), 60, 0)
    argv = script.command("connect4", f"{recipe}+{trick}", Path("o"), 60, 0)
    out = argv.index("--out") + 2
    assert argv[out : len(base)] == base[out:]
    assert argv[len(base) :] == options


def test_web_load() -> None:
    pytest.importorskip("fastapi", reason="fastapi (the web extra) not installed")
    out, err = run_bench(
        "web_load.py", "--users", "1,3", "--seconds", "2", "--simulations", "50", "--json"
    )
    report = json.loads(out)
    assert [level["users"] for level in report["levels"]] == [1, 3]
    for level in report["levels"]:
        assert level["errors_5xx"] == 0 and level["lost_games"] == 0
        assert level["moves"] > 0 and level["games"] >= level["users"]
        assert positive(level["move_ms_p50"]) and level["move_ms_p99"] >= level["move_ms_p50"]
        assert level["statuses"].get("201", 0) >= level["users"]
        assert 0 <= level["searches_queued"] <= level["ai_moves"]
        if platform.system() == "Linux":
            assert positive(level["rss_mib_start"]) and positive(level["rss_mib_peak"])
    assert "AI 50 simulations a move" in report["machine"]
    assert "3 users for 2 s" in err  # the progress lines


def test_go_ratings_fits_reports_and_writes_a_table(tmp_path: Path) -> None:
    """Fitted to the moves of a few kept games (every second held out), the ratings predict
    the held-out moves better than a uniform draw; the table loads as the kernel's."""
    from playout.games.go.ratings import load_ratings

    games = [
        line
        for line in (ROOT / "bench" / "records" / "go_gnugo_lgrf_111.jsonl")
        .read_text()
        .splitlines()
    ][:6]
    records = tmp_path / "games.jsonl"
    records.write_text("\n".join(games) + "\n")
    table, result = tmp_path / "table.json", tmp_path / "result.json"
    out, _ = run_bench(
        "go_ratings.py", str(records), "--holdout", "2", "--iterations", "20", "--table",
        str(table), "--json", str(result), "--players", "gtp:",
    )  # fmt: skip
    assert "6 games," in out
    rows = {row[0]: row for row in json.loads(result.read_text())["rows"]}
    uniform = float(rows["uniform"][1].rstrip("%"))
    assert float(rows["learned ratings"][1].rstrip("%")) > uniform > 0
    assert float(rows["learned ratings"][2]) > float(rows["uniform"][2])
    assert load_ratings(table.read_text()).shape[0] > 1000
    process = subprocess.run(
        [sys.executable, str(BENCH / "go_ratings.py"), str(records), "--holdout", "1"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert process.returncode == 2 and "--holdout" in process.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**json.loads(games[0]), "actions": [40, 40]}) + "\n")
    for path in (bad, tmp_path / "missing.jsonl"):
        process = subprocess.run(
            [sys.executable, str(BENCH / "go_ratings.py"), str(path)],
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
        assert process.returncode == 2 and process.stderr.startswith("go_ratings:")
        assert "Traceback" not in process.stderr


def _bench_module(name: str) -> object:
    """``bench/<name>.py`` imported as a module (``bench`` is no package)."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCH))
    return module


def test_go_turning_points_reads_scores_and_swings() -> None:
    """GTP scores as Black's lead, phases by move number, and the largest swing against
    either colour, by hand."""
    script: Any = _bench_module("go_turning_points")
    assert script.black_margin("B+3.5") == 3.5
    assert script.black_margin("W+12.0 (upper bound: 14.5, lower: 10.5)") == -12.0
    assert script.black_margin("0") == 0.0
    with pytest.raises(ValueError, match="not a score"):
        script.black_margin("resign")
    assert [script.phase(m) for m in (1, 20, 21, 60, 61, 300)] == [
        "1-20", "1-20", "21-40", "41-60", "61+", "61+",
    ]  # fmt: skip
    margins = [-10.0, -12.0, 5.0, 4.0, -30.0, -29.0]  # Black's lead after moves 1 to 6
    assert script.largest_swing(margins, 0) == (5, 34.0)  # move 5 took 34 points from Black
    assert script.largest_swing(margins, 1) == (3, 17.0)  # move 3 took 17 from White
    assert script.largest_swing([], 0) == (0, 0.0)
    assert script.largest_swing([1.0, 2.0, 3.0], 1) == (2, 1.0)


def test_go_turning_points_on_a_lost_game(tmp_path: Path) -> None:
    """One lost game of the kept records through GNU Go: its swing is found, whole-board
    losses swing by more than a few points, and the table counts the game once."""
    if shutil.which("/usr/games/gnugo") is None:
        pytest.fail("/usr/games/gnugo is missing: .ci/run installs it (apt-get install gnugo)")
    lines = (ROOT / "bench" / "records" / "go_gnugo_lgrf_109.jsonl").read_text().splitlines()
    lost = [line for line in lines if json.loads(line)["winner"] == 1]  # playout was Black
    lost = [line for line in lost if json.loads(line)["players"][0].startswith("mcts:")]
    records = tmp_path / "lost.jsonl"
    records.write_text(lost[0] + "\n")
    out_file = tmp_path / "swings.json"
    out, _ = run_bench(
        "go_turning_points.py", str(records), "--player", "mcts:", "--json", str(out_file)
    )
    assert "61+" in out and "after the opponent's move" in out
    data = json.loads(out_file.read_text())
    (game,) = data["details"]["games"]
    assert game["lost"] and game["colour"] == "B"
    assert 1 < game["swing_move"] <= game["moves"] == len(json.loads(lost[0])["moves"])
    assert game["swing_points"] > 5
    assert sum(int(row[1]) for row in data["rows"]) == 1
    assert game["phase"] in [row[0] for row in data["rows"] if row[1] == "1"]
    assert data["command"].startswith("python bench/go_turning_points.py ")
    tictactoe = tmp_path / "tictactoe.jsonl"
    subprocess.run(
        [sys.executable, "-m", "playout", "match", "tictactoe", "--p1", "mcts:simulations=10",
         "--p2", "random", "--games", "1", "--save", str(tictactoe)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True, timeout=120,
        check=True,
    )  # fmt: skip
    for bad, message in ((tictactoe, "is tictactoe, not go"), (out_file, "not valid JSON")):
        process = subprocess.run(
            [sys.executable, str(BENCH / "go_turning_points.py"), str(bad), "--all"],
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, capture_output=True,
            text=True, timeout=60,
        )  # fmt: skip
        assert process.returncode == 2 and message in process.stderr
        assert "Traceback" not in process.stderr


def test_zero_ablation_side_games_replace_the_random_moves() -> None:
    """``async+openings+mix+timed+fork4`` is the timed asynchronous recipe with side games
    forked on 4% of the moves, where ``...+random12`` has random moves on 12%."""
    script: Any = _bench_module("zero_ablation")
    random12 = script.command("connect4", "async+openings+mix+timed+random12", Path("o"), 60, 0)
    fork4 = script.command("connect4", "async+openings+mix+timed+fork4", Path("o"), 60, 0)
    assert fork4[-2:] == ["--fork-rate", "0.04"]
    assert random12[-2:] == ["--random-move-rate", "0.12"]
    assert fork4[fork4.index("--out") + 2 : -2] == random12[random12.index("--out") + 2 : -2]
    decayed = script.command("connect4", "async+openings+mix+timed+random12+wd", Path("o"), 60, 0)
    assert decayed[-4:] == ["--random-move-rate", "0.12", "--weight-decay", "0.01"]
