"""Rich progress bars of the ``playout`` commands (only when stdout is a terminal)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import playout
from playout.cli.common import out


def _progress(first_column: str) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn(first_column),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stdout),
        transient=True,
    )


@contextlib.contextmanager
def progress_bar(
    budget: playout.Budget, description: str
) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar over simulations when stdout is a terminal; else no callback."""
    if not sys.stdout.isatty():
        yield None
        return
    total = budget.simulations if budget.simulations is not None else None
    progress = _progress("{task.description}")
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextlib.contextmanager
def games_progress(total: int, show_lines: bool) -> Iterator[Callable[[str | None], None]]:
    """A callback per finished game: a rich progress bar on a terminal (game lines printed
    above it), plain game lines otherwise (none when ``show_lines`` is False)."""
    if not sys.stdout.isatty():
        yield lambda line: out(line) if show_lines and line is not None else None
        return
    progress = _progress("games")
    with progress:
        task = progress.add_task("games", total=total)

        def advance(line: str | None) -> None:
            if show_lines and line is not None:
                progress.console.print(line, markup=False, highlight=False)
            progress.advance(task)

        yield advance


__all__ = ["games_progress", "progress_bar"]
