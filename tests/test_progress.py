"""The ready progress bar of the library: ``MCTS.run(progress=True)`` and
``playout.search(..., progress=True)`` draw a rich bar on the terminal and change nothing
else."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest

import playout
from playout.games import Connect4Game, tictactoe

rich = pytest.importorskip("rich")
from rich.console import Console  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """rich's global console (the one the bar draws on) as a terminal writing to a string."""
    screen = io.StringIO()
    monkeypatch.setattr(rich, "_console", Console(file=screen, force_terminal=True, width=80))
    return screen


def same(a: playout.SearchResult, b: playout.SearchResult) -> bool:
    return dataclasses.replace(a, seconds=0.0) == dataclasses.replace(b, seconds=0.0)


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_search_progress_true_draws_a_bar_and_finds_the_same(
    terminal: io.StringIO, backend: str
) -> None:
    state = Connect4Game().initial_state()
    with_bar = playout.search(state, simulations=700, seed=3, backend=backend, progress=True)
    screen = terminal.getvalue()
    text = ANSI.sub("", screen)
    assert "searching" in text
    assert "700/700" in text  # the bar reaches the budget
    assert "\x1b[" in screen  # drawn as a terminal bar, then cleared (transient)
    plain = playout.search(state, simulations=700, seed=3, backend=backend)
    assert same(with_bar, plain)
    assert with_bar.simulations == 700


def test_mcts_run_progress_true(terminal: io.StringIO) -> None:
    state = tictactoe().initial_state()
    engine = playout.MCTS(state, seed=5, solver=False, budget=playout.Budget(simulations=500))
    result = engine.run(progress=True)
    assert "500/500" in ANSI.sub("", terminal.getvalue())
    plain = playout.MCTS(state, seed=5, solver=False, budget=playout.Budget(simulations=500)).run()
    assert same(result, plain)


def test_a_time_budget_counts_without_a_total(terminal: io.StringIO) -> None:
    result = playout.search(Connect4Game().initial_state(), seconds=0.2, seed=1, progress=True)
    text = ANSI.sub("", terminal.getvalue())
    assert "searching" in text and "/?" in text  # no total: simulations done only
    assert result.simulations > 0


def test_no_bar_when_the_output_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(rich, "_console", Console(file=piped, force_terminal=False, width=80))
    result = playout.search(tictactoe().initial_state(), simulations=300, seed=2, progress=True)
    assert "searching" not in piped.getvalue() and "\x1b[" not in piped.getvalue()
    assert same(result, playout.search(tictactoe().initial_state(), simulations=300, seed=2))


def test_progress_false_and_none_draw_nothing(terminal: io.StringIO) -> None:
    state = tictactoe().initial_state()
    for progress in (False, None):
        playout.search(state, simulations=200, seed=1, progress=progress)
    assert terminal.getvalue() == ""
