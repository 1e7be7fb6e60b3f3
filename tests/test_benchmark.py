"""``playout bench`` and :mod:`playout._src.benchmark`: the report's shape, its invariants and
user errors. Tiny budgets and no timing thresholds: these tests check what is measured and
reported, not how fast anything is."""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import sys

import pytest

from playout._src import benchmark
from playout._src.errors import InvalidParameterError
from playout.cli import main

ROW_KEYS = {
    "implementation",
    "status",
    "simulations",
    "sims_per_second",
    "ratio",
    "rates",
    "ratios",
    "peak_memory_mib",
}
HAS_PROC_PEAK = os.path.exists("/proc/self/clear_refs") and os.path.exists("/proc/self/status")


def has_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------------------------- command


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(
        capsys, "bench", "--sims", "200", "--reps", "2", "--game", "tictactoe", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {
        "machine",
        "reference",
        "simulations",
        "python_simulations",
        "repetitions",
        "seed",
        "big_simulations",
        "retention",
        "cases",
    }
    assert data["reference"] == "playout-compiled"
    assert data["simulations"] == 200
    assert data["python_simulations"] == 200  # capped at --sims
    assert data["big_simulations"] is None
    assert data["retention"] == {}  # no large-tree case
    machine = data["machine"]
    assert machine["cpus"] >= 1 and machine["python"].count(".") == 2
    assert machine["numba"] and machine["numpy"]
    [case] = data["cases"]
    assert case["game"] == "tictactoe" and case["openspiel_game"] == "tic_tac_toe"
    assert case["repetitions"] == 2
    rows = {row["implementation"]: row for row in case["results"]}
    assert list(rows) == list(benchmark.IMPLEMENTATIONS)
    openspiel = has_openspiel()
    for name, row in rows.items():
        assert set(row) == ROW_KEYS
        assert row["simulations"] == 200
        if name.startswith("openspiel") and not openspiel:
            assert row["status"] == "not installed"
            assert row["sims_per_second"] is None and row["rates"] == []
            continue
        assert row["status"] == "ok"
        assert len(row["rates"]) == len(row["ratios"]) == 2
        assert all(rate > 0 for rate in row["rates"])
        assert row["sims_per_second"] == statistics.median(row["rates"])
        assert row["ratio"] > 0
        if HAS_PROC_PEAK:
            assert row["peak_memory_mib"] >= 0
    assert rows["playout-compiled"]["ratios"] == [1.0, 1.0]


def test_bench_text_says_not_installed_without_openspiel(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now fails
    code, out, err = run_main(
        capsys,
        "bench",
        "--sims",
        "300",
        "--python-sims",
        "100",
        "--reps",
        "1",
        "--game",
        "connect4",
    )
    assert code == 0, err
    assert out.startswith("machine: ")
    assert "300 simulations (100 for the Python implementations)" in out
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith("│")}
    assert set(lines) == set(benchmark.IMPLEMENTATIONS)
    assert "not installed" in lines["openspiel-cpp"]
    assert "not installed" in lines["openspiel-python"]
    assert "not installed" not in lines["playout-python"]
    assert "1.00" in lines["playout-compiled"]  # its ratio to itself


BENCH_ERRORS = [
    ["bench", "--sims", "0"],
    ["bench", "--sims", "-3"],
    ["bench", "--sims", "lots"],
    ["bench", "--python-sims", "0"],
    ["bench", "--reps", "0"],
    ["bench", "--seed", "-1"],
    ["bench", "--game", "chess"],
    ["bench", "--game", "tictactoe", "--game", "gomoku"],
    ["bench", "--big", "yes"],
]


@pytest.mark.parametrize("argv", BENCH_ERRORS, ids=" ".join)
def test_bench_user_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = run_main(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("playout: error: ")


# ---------------------------------------------------------------------------------- library


def test_report_is_an_immutable_value() -> None:
    report = benchmark.run_benchmark(
        ["connect4"], simulations=100, python_simulations=50, repetitions=3, memory=False
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.seed = 1  # type: ignore[misc]
    [case] = report.cases
    row = case.measurement("playout-python")
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.rates = ()  # type: ignore[misc]
    assert isinstance(report.cases, tuple) and isinstance(row.rates, tuple)
    assert isinstance(benchmark.GAMES, type(benchmark.GAMES)) and "mnk9" in benchmark.GAMES
    with pytest.raises(TypeError):
        benchmark.GAMES["x"] = benchmark.GAMES["mnk9"]  # type: ignore[index]
    assert json.loads(json.dumps(report.as_dict())) == report.as_dict()
    with pytest.raises(KeyError):
        case.measurement("nobody")


def test_ratios_are_the_reference_over_each_rate_per_repetition() -> None:
    report = benchmark.run_benchmark(
        ["tictactoe"], simulations=150, python_simulations=60, repetitions=3, seed=4, memory=False
    )
    [case] = report.cases
    reference = case.measurement(benchmark.REFERENCE)
    assert reference.simulations == 150
    for row in case.measurements:
        if row.status != "ok":
            continue
        expected = (
            row.simulations if row.implementation not in (benchmark.PYTHON_IMPLEMENTATIONS) else 60
        )
        assert row.simulations == expected
        assert row.ratios == pytest.approx(
            [ours / theirs for ours, theirs in zip(reference.rates, row.rates, strict=True)]
        )
        assert row.ratio == statistics.median(row.ratios)
        assert row.peak_memory_mib is None  # memory=False


def test_big_case_runs_in_fresh_processes() -> None:
    report = benchmark.run_benchmark(
        ["tictactoe"],
        simulations=100,
        repetitions=1,
        big=True,
        big_simulations=400,
        big_repetitions=2,
        memory=False,
    )
    assert report.big_simulations == 400
    big = report.cases[-1]
    assert big.game.name == "connect4" and big.repetitions == 2
    assert [row.implementation for row in big.measurements] == list(benchmark.BIG_IMPLEMENTATIONS)
    for row in big.measurements:
        assert row.simulations == 400
        if row.status == "ok":
            assert len(row.rates) == 2 and min(row.rates) > 0
            if HAS_PROC_PEAK:
                assert row.peak_memory_mib is not None
    # No connect-four case at `simulations` in this run: nothing to compare the big rate with.
    assert report.retention(benchmark.REFERENCE) is None
    assert report.as_dict()["retention"] == {}


def test_retention_is_the_big_rate_over_the_same_runs_connect4_rate() -> None:
    report = benchmark.run_benchmark(
        ["connect4"],
        simulations=300,
        repetitions=3,
        big=True,
        big_simulations=600,
        big_repetitions=1,
        memory=False,
    )
    small = report.cases[0].measurement(benchmark.REFERENCE)
    big = report.cases[-1].measurement(benchmark.REFERENCE)
    expected = statistics.median(big.rates) / statistics.median(small.rates)
    assert report.retention(benchmark.REFERENCE) == pytest.approx(expected)
    assert report.as_dict()["retention"][benchmark.REFERENCE] == pytest.approx(expected)
    assert report.retention("playout-python") is None  # not part of the large-tree case


@pytest.mark.skipif(not HAS_PROC_PEAK, reason="needs /proc/self/clear_refs (Linux)")
def test_peak_memory_grows_with_the_tree() -> None:
    small = benchmark._probe_in_fresh_process("playout-compiled", "connect4", 1_000, 0)
    large = benchmark._probe_in_fresh_process("playout-compiled", "connect4", 100_000, 0, 2)
    assert small is not None and large is not None
    assert small[1] is not None and large[1] is not None
    # 100,000 simulations add about 100,000 nodes and 700,000 edges: several MiB.
    assert large[1] > 2.0
    assert large[1] > small[1]
    assert len(small[0]) == 1 and len(large[0]) == 2  # one rate per decision


@pytest.mark.parametrize(
    "kwargs",
    [
        {"simulations": 0},
        {"python_simulations": 0},
        {"repetitions": 0},
        {"repetitions": True},
        {"big_simulations": -1},
        {"big_repetitions": 0},
        {"seed": -1},
        {"games": []},
        {"games": ["go"]},
    ],
)
def test_bad_arguments_raise(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidParameterError):
        benchmark.run_benchmark(**kwargs)  # type: ignore[arg-type]


def test_make_runner() -> None:
    run = benchmark.make_runner("playout-compiled", "mnk9")
    assert run is not None and run(50, 0) > 0
    with pytest.raises(InvalidParameterError):
        benchmark.make_runner("alphazero", "connect4")
    with pytest.raises(InvalidParameterError):
        benchmark.make_runner("playout-python", "chess")


@pytest.mark.parametrize("implementation", ["playout-compiled", "playout-python"])
def test_solver_runner_stops_at_the_proof_of_tictactoe(implementation: str) -> None:
    run = benchmark.make_solver_runner(implementation, "tictactoe")
    assert run is not None
    proof = run(200_000, 0)
    assert proof.proven == "draw" and 0 < proof.simulations < 200_000
    assert proof.seconds > 0 and proof.rate == proof.simulations / proof.seconds
    short = run(100, 0)  # far too few simulations to prove the empty board
    assert short.proven is None and short.simulations == 100
    with pytest.raises(InvalidParameterError):
        benchmark.make_solver_runner("alphazero", "tictactoe")


@pytest.mark.parametrize("implementation", ["openspiel-cpp", "openspiel-python"])
def test_openspiel_solver_runner_reports_an_unproven_root(implementation: str) -> None:
    pytest.importorskip("pyspiel", reason="open-spiel (the openspiel extra) not installed")
    run = benchmark.make_solver_runner(implementation, "tictactoe")
    assert run is not None
    short = run(100, 0)
    assert short.proven is None and short.simulations == 100 and short.seconds > 0


def test_openspiel_outcome_is_read_for_the_player_to_move() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="open-spiel not installed")
    game = pyspiel.load_game("tic_tac_toe")
    read = benchmark._openspiel_proven
    assert read([1.0, -1.0], 0, game) == "win" and read([1.0, -1.0], 1, game) == "loss"
    assert read([0.0, 0.0], 0, game) == "draw" and read([], 0, game) is None


def test_machine_line() -> None:
    machine = benchmark.machine_info()
    assert machine.cpus >= 1
    text = machine.text()
    assert f"Python {machine.python}" in text and "numba" in text and "open-spiel" in text


def test_bench_big_reports_the_rate_kept_on_the_large_tree(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import playout.cli.bench

    monkeypatch.setattr(playout.cli.bench, "BIG_SIMULATIONS", 500)
    code, out, err = run_main(
        capsys, "bench", "--sims", "200", "--reps", "1", "--game", "connect4", "--big",
        "--big-reps", "1",
    )  # fmt: skip
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("rate kept at 500"))
    kept = float(line.split("playout-compiled ")[1].split(",")[0])
    assert kept > 0
