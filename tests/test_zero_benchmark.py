"""The value-losing-move benchmark: the shipped labelled positions, their checked loader,
scoring a chooser (known answers), and the training metrics that record it."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from playout import InvalidParameterError, LabelledDataError
from playout.games import Connect4Game, tictactoe
from playout.games.connect4 import labelled, solver
from playout.games.connect4.labelled import LabelledPosition, labelled_positions

GAME = Connect4Game()


# ----------------------------------------------------------------------------- the data


def test_the_shipped_set_has_enough_positions_in_every_stage_and_play() -> None:
    positions = labelled_positions()
    assert len(positions) >= 1500
    stages = {name: sum(p.stage == name for p in positions) for name in labelled.STAGES}
    assert sum(stages.values()) == len(positions)
    assert stages == {"8-14": 250, "15-28": 650, "29+": 650}  # 50 and 130 per play
    assert {p.source for p in positions} == set(labelled.SOURCES)
    assert all(p.losing_actions and p.stones >= 8 for p in positions)
    assert len({p.moves for p in positions}) == len(positions)


def test_labels_agree_with_the_solver_on_a_sample() -> None:
    """Re-solve a sample of later positions (quick for the solver): the same scores."""
    rng = random.Random(7)
    later = [p for p in labelled_positions() if p.stones >= 20]
    for position in rng.sample(later, 20):
        scores = solver.move_scores(position.state())
        assert position.scores == tuple(scores.get(c) for c in range(GAME.width))


def test_a_position_s_labels() -> None:
    # Labels as given (not solved); column 7 marked full to show the notation.
    position = LabelledPosition("41414212", "random", (-1, 0, 2, 5, 0, -3, None))
    assert position.stones == 8 and position.stage == "8-14"
    assert position.outcome == 1
    assert position.losing_actions == frozenset({0, 1, 4, 5})
    assert position.best_actions == frozenset({3})
    assert position.to_row() == "41414212 random -1 0 2 5 0 -3 x"


def _write(path: Path, positions: list[LabelledPosition]) -> Path:
    path.write_text(labelled.format_file(positions, "a test"), encoding="utf-8")
    return path


def test_a_written_file_reads_back(tmp_path: Path) -> None:
    positions = list(labelled_positions()[:5])
    assert labelled.read_positions(_write(tmp_path / "p.txt", positions)) == tuple(positions)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda text: text.replace(" random ", " safe ", 1), "SHA-256"),
        (lambda text: text.replace("# playout", "# another", 1), "not a labelled-positions"),
        (lambda text: text[: len(text) // 2], "SHA-256"),
        (lambda text: "\x00" + text, "not a labelled-positions"),
    ],
)
def test_a_damaged_file_is_a_typed_error(tmp_path: Path, damage: object, message: str) -> None:
    path = _write(tmp_path / "p.txt", list(labelled_positions()[:5]))
    path.write_text(damage(path.read_text()))  # type: ignore[operator]
    with pytest.raises(LabelledDataError, match=message):
        labelled.read_positions(path)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("41414212 random 0 0 0 0 0 0 0", "no move loses"),
        ("41414212 random -1 0 2 5 0 -3 x", "legal moves"),
        ("4141 random -1 0 2 5 0 -3 0", "fewer than 8"),
        ("41414219 random -1 0 2 5 0 -3 0", "row 1"),
        ("41414212 oracle -1 0 2 5 0 -3 0", "unknown source"),
        ("41414212 random -1 0 2 5 0 -3", "fields"),
    ],
)
def test_a_bad_row_is_a_typed_error_naming_it(tmp_path: Path, row: str, message: str) -> None:
    text = f"# {labelled.FORMAT}\n# sha256: {labelled.rows_digest([row])}\n{row}\n"
    path = tmp_path / "p.txt"
    path.write_text(text)
    with pytest.raises(LabelledDataError, match=message):
        labelled.read_positions(path)


def test_a_missing_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(LabelledDataError, match="cannot read"):
        labelled.read_positions(tmp_path / "none.txt")


def test_stages() -> None:
    assert [labelled.stage_of(n) for n in (8, 14, 15, 28, 29, 42)] == [
        "8-14", "8-14", "15-28", "15-28", "29+", "29+"
    ]  # fmt: skip
    with pytest.raises(ValueError):
        labelled.stage_of(7)


# ----------------------------------------------------------------------------- scoring

torch = pytest.importorskip("torch")

from playout.zero import Architecture, TrainConfig, Trainer  # noqa: E402
from playout.zero import benchmark as bm  # noqa: E402


def _best(position: bm.BenchmarkPosition) -> int:
    return int(solver.best_moves(position.state)[0])


def test_known_answers_perfect_zero_losing_all_and_stage_counts() -> None:
    positions = bm.subset(bm.benchmark_positions(GAME) or (), 150)
    assert len(positions) == 150
    by_state = {p.state: p for p in positions}

    def perfect(state: object) -> int:
        return _best(by_state[state])  # type: ignore[index]

    def losing(state: object) -> int:
        return min(by_state[state].losing_actions)  # type: ignore[index]

    best = bm.score_chooser(perfect, positions, name="perfect")
    worst = bm.score_chooser(losing, positions, name="losing")
    assert (best.losing, best.rate) == (0, 0.0)
    assert (worst.losing, worst.rate) == (150, 1.0)
    for score in (best, worst):
        assert score.positions == 150
        assert sum(s.positions for s in score.stages) == 150
        assert {s.stage for s in score.stages} == set(labelled.STAGES)
        assert sum(s.losing for s in score.stages) == score.losing
    assert worst.stage("29+").rate == 1.0

    # One stage wrong, the others right: the rate is that stage's share.
    def half(state: object) -> int:
        position = by_state[state]  # type: ignore[index]
        return min(position.losing_actions) if position.stage == "8-14" else _best(position)

    mixed = bm.score_chooser(half, positions)
    assert mixed.losing == mixed.stage("8-14").positions == worst.stage("8-14").positions


def test_paired_comparison_counts_discordant_positions_and_tests_them_exactly() -> None:
    """McNemar's exact test by hand: of 20 positions the first chooser loses only 1 and the
    second only 9 (3 both, 7 neither); the two-sided binomial probability of a split of 10
    at least as uneven as 1-9 is 2 * (1 + 10) / 1024 = 22/1024."""
    positions = bm.subset(bm.benchmark_positions(GAME) or (), 20)
    by_state = {p.state: i for i, p in enumerate(positions)}
    first_loses = {0, 1, 2, 3}  # 3 shared, 1 of its own
    second_loses = {0, 1, 2, *range(4, 13)}  # 3 shared, 9 of its own

    def chooser(losing: set[int]) -> bm.Chooser:
        def choose(state: object) -> int:
            i = by_state[state]  # type: ignore[index]
            position = positions[i]
            return min(position.losing_actions) if i in losing else _best(position)

        return choose

    first = bm.score_chooser(chooser(first_loses), positions, name="a")
    second = bm.score_chooser(chooser(second_loses), positions, name="b")
    assert first.lost == tuple(i in first_loses for i in range(20))
    assert first.to_json()["lost_at"] == [0, 1, 2, 3]
    result = bm.compare(first, second)
    assert (result.first_only, result.second_only, result.both) == (1, 9, 3)
    assert result.p_value == pytest.approx(22 / 1024)
    assert bm.compare(second, first).p_value == pytest.approx(22 / 1024)
    same = bm.compare(first, first)
    assert (same.first_only, same.second_only, same.p_value) == (0, 0, 1.0)
    # The rate's interval (Wilson 95%): 4 of 20 -> 0.081-0.416.
    low, high = first.interval()
    assert (round(low, 3), round(high, 3)) == (0.081, 0.416)

    # Over a thousand discordant positions (2**n no longer fits a float): 540 against 560
    # of 1,100 is no evidence, McNemar's normal approximation with continuity correction
    # gives p = 0.567; 1,100 against none, p = 2 / 2**1100, below the smallest float.
    def score(lost: list[bool]) -> bm.BenchmarkScore:
        return bm.BenchmarkScore("s", len(lost), sum(lost), (), 0.0, tuple(lost))

    close = bm.compare(score([True] * 540 + [False] * 560), score([False] * 540 + [True] * 560))
    assert close.p_value == pytest.approx(0.567, abs=0.01)
    apart = bm.compare(score([False] * 1100), score([True] * 1100))
    assert apart.second_only == 1100 and apart.p_value == 0.0
    with pytest.raises(InvalidParameterError, match="different positions"):
        bm.compare(first, bm.score_chooser(chooser(set()), positions[:10]))
    with pytest.raises(InvalidParameterError, match="per-position outcomes"):
        bm.compare(first, bm.BenchmarkScore("old", 20, 4, first.stages, 0.0))
    assert bm.BenchmarkScore("old", 20, 4, first.stages, 0.0).to_json()["lost_at"] is None
    with pytest.raises(InvalidParameterError, match="do not match 20 positions with 5 lost"):
        bm.BenchmarkScore("bad", 20, 5, first.stages, 0.0, first.lost)


def test_an_illegal_choice_and_no_positions_are_errors() -> None:
    from playout import InvalidParameterError

    positions = bm.subset(bm.benchmark_positions(GAME) or (), 3)
    with pytest.raises(InvalidParameterError, match="illegal"):
        bm.score_chooser(lambda state: 99, positions)
    with pytest.raises(InvalidParameterError, match="no positions"):
        bm.score_chooser(lambda state: 0, ())


def test_the_subset_is_even_and_stable() -> None:
    positions = bm.benchmark_positions(GAME) or ()
    assert bm.subset(positions, 10) == bm.subset(positions, 10)
    assert bm.subset(positions, 10)[0] == positions[0]
    assert bm.subset(positions, 10**6) == tuple(positions)


def test_tictactoe_positions_come_from_its_exact_solution() -> None:
    """Every reachable running position with a move that loses value: a uniformly random
    chooser errs in some, the first optimal move never."""
    from playout._src import perfect

    game = tictactoe()
    positions = bm.benchmark_positions(game) or ()
    solution = perfect.solve(game)
    assert 0 < len(positions) < 4520
    best = bm.score_chooser(lambda s: solution.optimal_actions(s)[0], positions)
    assert best.losing == 0
    assert bm.benchmark_positions(Connect4Game(width=6, height=5)) is None


def test_choosers_play_legal_moves_and_time_them() -> None:
    positions = bm.subset(bm.benchmark_positions(GAME) or (), 6)
    from playout.zero import Model

    model = Model(GAME, Architecture(channels=8, blocks=1, value_hidden=8), seed=0)
    for chooser in (
        bm.policy_chooser(model),
        bm.policy_chooser(model, symmetries=True),
        bm.network_chooser(model, 8),
        bm.network_chooser(model, 8, gumbel=4),
        bm.rollout_chooser(GAME, simulations=50),
    ):
        score = bm.score_chooser(chooser, positions)
        assert score.positions == 6 and 0 <= score.losing <= 6
        assert score.seconds_per_move > 0
    one = bm.network_chooser(model, 16, seed=3)
    two = bm.network_chooser(model, 16, seed=3)
    assert [one(p.state) for p in positions] == [two(p.state) for p in positions]


# ----------------------------------------------------------------------------- training

TINY = TrainConfig(
    games_per_iteration=4,
    parallel_games=4,
    simulations=4,
    steps_per_iteration=2,
    batch_size=16,
    eval_games=0,
    benchmark_positions=12,
    benchmark_simulations=4,
    architecture=Architecture(channels=8, blocks=1, value_hidden=8),
)


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "metrics.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_training_run_records_the_benchmark_columns(tmp_path: Path) -> None:
    with Trainer(GAME, tmp_path, TINY, device="cpu") as trainer:
        reports = trainer.run(iterations=2, log=None)
    rows = _rows(tmp_path)
    assert [r["iteration"] for r in rows] == ["1", "2"]
    for report, row in zip(reports, rows, strict=True):
        assert report.benchmark_policy is not None and report.benchmark_search is not None
        # Rates of 12 positions: whole counts of twelfths.
        assert round(report.benchmark_policy * 12, 9) == round(report.benchmark_policy * 12)
        assert float(row["benchmark_policy"]) == report.benchmark_policy
        assert float(row["benchmark_search"]) == report.benchmark_search
        assert float(row["benchmark_seconds"]) > 0
    assert int(rows[0]["total_positions"]) == reports[0].positions
    assert int(rows[1]["total_positions"]) == reports[0].positions + reports[1].positions
    assert float(rows[1]["elapsed_seconds"]) > float(rows[0]["elapsed_seconds"])


def test_no_benchmark_leaves_the_columns_empty(tmp_path: Path) -> None:
    config = TrainConfig(**{**TINY.to_json(), "architecture": TINY.architecture,
                            "benchmark_positions": 0})  # fmt: skip
    with Trainer(GAME, tmp_path, config, device="cpu") as trainer:
        (report,) = trainer.run(iterations=1, log=None)
    assert report.benchmark_policy is None and report.benchmark_seconds == 0.0
    assert _rows(tmp_path)[0]["benchmark_policy"] == ""


def test_plots_of_new_and_old_metrics(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from playout.plots import plot_training

    with Trainer(GAME, tmp_path / "run", TINY, device="cpu") as trainer:
        trainer.run(iterations=1, log=None)
    assert plot_training(tmp_path / "run" / "metrics.csv", tmp_path / "new.png").stat().st_size
    # A metrics file of an older playout: no benchmark, no total_positions columns.
    rows = _rows(tmp_path / "run")
    old = [k for k in rows[0] if not k.startswith("benchmark") and k != "total_positions"]
    with (tmp_path / "old.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, old, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    assert plot_training(tmp_path / "old.csv", tmp_path / "old.png").stat().st_size
    # Runs side by side: the run twice under two labels; the older file measured nothing.
    from playout.plots import plot_learning_curves

    run = tmp_path / "run" / "metrics.csv"
    svg = plot_learning_curves({"a": run, "b": run}, tmp_path / "curves.svg").read_text()
    assert "a: policy" in svg and "b: search" in svg  # the legend names each run's lines
    for runs, message in (
        ({"old": tmp_path / "old.csv"}, "no value-losing moves measured"),
        ({"gone": tmp_path / "missing.csv"}, "cannot read the metrics"),
        ({}, "no runs to plot"),
    ):
        with pytest.raises(InvalidParameterError, match=message):
            plot_learning_curves(runs, tmp_path / "x.png")
    with pytest.raises(InvalidParameterError, match=r"\.png or \.svg"):
        plot_learning_curves({"a": run}, tmp_path / "x.pdf")
