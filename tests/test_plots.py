"""``playout.plots.plot_match`` / ``plot_tournament`` and ``match`` / ``tournament --plot``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from playout._src.arena.match import wilson_interval
from playout._src.elo import Sprt, elo_interval, format_elo
from playout._src.errors import InvalidParameterError, MissingDependencyError
from playout.cli import main

PNG = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}svg"


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def svg_text(path: Path) -> str:
    """The words an SVG shows (matplotlib writes each text's characters as a comment)."""
    root = ElementTree.fromstring(path.read_bytes())
    assert root.tag == SVG
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_match_plot_writes_an_image(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "sub" / f"match{suffix}"
    argv = ["match", "tictactoe", "--p1", "mcts:simulations=50", "--p2", "random"]
    code, out, err = run_main(capsys, *argv, "--games", "6", "--workers", "1", "--plot", str(plot))
    assert code == 0, err
    assert out.strip().splitlines()[-1] == f"plot written to {plot}"
    data = plot.read_bytes()
    if suffix == ".png":
        assert data[:8] == PNG
    else:
        assert ElementTree.fromstring(data).tag == SVG
    assert [p.name for p in plot.parent.iterdir()] == [plot.name]  # no temporary file left
    # With --json the note goes to stderr and stdout stays one JSON object.
    code, out, err = run_main(
        capsys, *argv, "--games", "2", "--workers", "1", "--json", "--plot", str(plot)
    )
    assert code == 0 and json.loads(out)["games"] == 2
    assert err.strip() == f"playout: note: plot written to {plot}"


def test_match_plot_is_rewritten_while_the_match_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    import playout.plots

    drawn: list[tuple[int, int | None]] = []
    real = playout.plots.plot_match

    def spy(match: Any, path: Any, **kwargs: Any) -> Path:
        games = len(match) if isinstance(match, list) else match.games
        drawn.append((games, kwargs.get("planned_games", getattr(match, "planned_games", None))))
        return real(match, path, **kwargs)

    monkeypatch.setattr(playout.plots, "plot_match", spy)
    plot = tmp_path / "match.png"
    argv = ["match", "tictactoe", "--p1", "random", "--p2", "random", "--games", "25"]
    code, _, err = run_main(capsys, *argv, "--workers", "2", "--plot", str(plot))
    assert code == 0, err
    assert drawn == [(10, 25), (20, 25), (25, 25)]  # every 10 games and at the end
    assert plot.read_bytes()[:8] == PNG


def test_p1_scores_count_each_game_from_its_own_index() -> None:
    from types import SimpleNamespace

    from playout.cli.match import p1_scores

    # Games 0, 1 and 3 finished (2 still running): p1 was player 0 in game 0 and player 1 in
    # games 1 and 3.
    records: Any = {3: SimpleNamespace(winner=1), 0: SimpleNamespace(winner=0),
                    1: SimpleNamespace(winner=None)}  # fmt: skip
    assert p1_scores(records) == [1.0, 0.5, 1.0]


def test_tournament_plot_writes_an_image(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "table.svg"
    argv = ["tournament", "tictactoe", "--players", "random", "perfect", "--games", "2"]
    code, out, err = run_main(capsys, *argv, "--workers", "1", "--plot", str(plot))
    assert code == 0, err
    assert out.strip().splitlines()[-1] == f"plot written to {plot}"
    assert "perfect" in svg_text(plot)


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_plot_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    if command == "match":
        players = ["--p1", "random", "--p2", "random"]
    else:
        players = ["--players", "random", "perfect"]
    argv = [command, "tictactoe", *players, "--games", "2", "--workers", "1"]
    code, out, err = run_main(capsys, *argv, "--plot", "match.pdf")
    assert code == 2 and out == ""
    assert err == "playout: error: match.pdf: a plot is written as .png or .svg\n"
    assert not list(tmp_path.iterdir())
    # Without matplotlib: one line before any game is played.
    import playout.plots

    def missing() -> None:
        raise MissingDependencyError('plots needs matplotlib: pip install "playout[plot]"')

    monkeypatch.setattr(playout.plots, "require_matplotlib", missing)
    code, out, err = run_main(capsys, *argv, "--plot", "match.png", "--save", "games.jsonl")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("playout: error: plots needs matplotlib")
    assert not list(tmp_path.iterdir())


def test_plot_match_title_gives_the_wilson_interval(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from playout.plots import plot_match

    outcomes = [1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 0.5, 1.0]  # 6 points of 8
    low, high = wilson_interval(0.75, 8)
    elo_low, elo_high = elo_interval(low, high)
    path = plot_match(outcomes, tmp_path / "m.svg", p1="mcts", p2="random", game="tictactoe")
    text = svg_text(path)
    assert f"score 0.750 [{low:.3f}, {high:.3f}]" in text
    assert f"Elo +190.8 [{format_elo(elo_low)}, {format_elo(elo_high)}]" in text
    assert "tictactoe: p1 mcts vs p2 random, 8 games" in text
    # With an SPRT the LLR gets a panel of its own; a PNG starts as one.
    path = plot_match(outcomes, tmp_path / "m.png", planned_games=20, sprt=Sprt(elo0=0, elo1=50))
    assert path.read_bytes()[:8] == PNG


def test_plot_match_of_a_match_result(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import playout
    from playout.plots import plot_match

    game = playout.make_game("tictactoe")
    result = playout.run_match(game, "random", "perfect", games=4, seed=3, workers=1)
    low, high = result.confidence_interval
    text = svg_text(plot_match(result, tmp_path / "r.svg"))
    assert "p1 random vs p2 perfect, 4 games" in text
    assert f"score {result.score:.3f} [{low:.3f}, {high:.3f}]" in text


@pytest.mark.parametrize(
    ("outcomes", "name", "message"),
    [
        ([], "m.png", "at least one game"),
        ([1.0, 2.0], "m.png", "must be in [0, 1]"),
        ([1.0], "m.jpg", "a plot is written as .png or .svg"),
    ],
)
def test_plot_match_refuses(tmp_path: Path, outcomes: list[float], name: str, message: str) -> None:
    from playout.plots import plot_match

    with pytest.raises(InvalidParameterError, match=message.replace("[", r"\[")):
        plot_match(outcomes, tmp_path / name)
    assert not list(tmp_path.iterdir())
