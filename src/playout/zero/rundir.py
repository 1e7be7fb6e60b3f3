"""A training run's directory: its files' names, the settings and metrics files read back
checked, and every write whole or not at all.

A run directory holds ``settings.json`` (the run's :class:`~playout.zero.TrainConfig` and the
game it trains: name, registry parameters, observation shape, number of actions),
``checkpoint.pt``, ``buffer.npz``, ``metrics.csv`` and ``model.pt``. Files are replaced
atomically (:func:`~playout._src.files.write_atomic`) and metrics rows appended one line in
one write (:func:`~playout._src.files.append_line`), so a crash or a full disk never leaves
half a file or half a row. A file found damaged, missing or from another run raises
:class:`~playout.RunError` naming it and what to do; nothing is written before every file has
been read.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playout._src.errors import PlayoutWarning, RunError
from playout._src.files import append_line, write_text_atomic

CHECKPOINT = "checkpoint.pt"
BUFFER = "buffer.npz"
METRICS = "metrics.csv"
MODEL = "model.pt"
SETTINGS = "settings.json"
GAME_KEY = "game"
"""The key of ``settings.json`` that records the run's game (the rest is its settings)."""

START_ANEW = "or start a new run in another directory"
"""The way out every damaged-run message offers last."""

RESTORE_SETTINGS = f"restore the run's {SETTINGS}, {START_ANEW}"
"""What to do about a damaged ``settings.json``."""


RECORDED_SETTINGS = ("architecture", "seed", "buffer_size")
"""Settings every run's ``settings.json`` has recorded from the start. The network, the
random streams and the buffer depend on them, so a file without them is refused rather
than read with defaults (settings added later may be absent: an older run's defaults)."""


def read_settings(out_dir: Path) -> dict[str, Any] | None:
    """The JSON object in ``out_dir/settings.json``, or ``None`` when there is none.

    Raises:
        RunError: the file is unreadable, not a JSON object, or lacks one of
            :data:`RECORDED_SETTINGS`.
    """
    path = out_dir / SETTINGS
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise RunError(
            f"{path}: unreadable settings ({_first_line(error)}); {RESTORE_SETTINGS}"
        ) from error
    if not isinstance(data, dict):
        raise RunError(f"{path}: not a run's settings (a JSON object); {RESTORE_SETTINGS}")
    lacking = [name for name in RECORDED_SETTINGS if name not in data]
    if lacking:  # filled with defaults, they might not be the run's own
        raise RunError(
            f"{path}: not a run's settings (it lacks {', '.join(lacking)}); {RESTORE_SETTINGS}"
        )
    return data


def write_settings(out_dir: Path, settings: dict[str, Any], game: dict[str, Any] | None) -> None:
    """Write ``settings.json``: the settings and, under :data:`GAME_KEY`, the game (none for
    a run begun before playout recorded it)."""
    record = {} if game is None else {GAME_KEY: game}
    text = json.dumps({**settings, **record}, indent=2)
    write_or_fail(out_dir / SETTINGS, lambda path: write_text_atomic(path, text))


def write_or_fail(path: Path, write: Any, after: str = "") -> None:
    """``write(path)``; an :class:`OSError` (a full disk) as a :class:`RunError` naming the
    file and saying how to go on (``after``: what the run keeps, e.g. "after iteration 3")."""
    try:
        write(path)
    except OSError as error:
        kept = f"the run is kept as it was{' ' + after if after else ''}"
        raise RunError(
            f"cannot write {path}: {error.strerror or error}; {kept}: make room (or allow "
            "the write) and run the same command again to resume"
        ) from error


def missing_settings(out_dir: Path) -> RunError | None:
    """The error for a directory that holds a run's files but no ``settings.json``."""
    found = [name for name in (CHECKPOINT, BUFFER, METRICS) if (out_dir / name).exists()]
    if not found:
        return None
    return RunError(
        f"{out_dir / SETTINGS}: missing, but {out_dir} holds a run ({', '.join(found)}); "
        f"restore the run's settings.json to resume, {START_ANEW}"
    )


# ----------------------------------------------------------------------------- metrics


@dataclasses.dataclass(frozen=True)
class MetricsCheck:
    """What :func:`check_metrics` found in ``metrics.csv``.

    Attributes:
        logged: the ``iteration`` of every complete row.
        cut: the length in bytes the file keeps when its last line was cut short (a write
            interrupted), else ``None``.
        rewrite: the whole file under the current columns when its header is another's (a
            file of another version of playout, or a damaged header line), else ``None``.
    """

    logged: tuple[str, ...] = ()
    cut: int | None = None
    rewrite: str | None = None


def check_metrics(path: Path, fields: Sequence[str]) -> MetricsCheck:
    """Read ``metrics.csv`` (missing: nothing logged) against the current ``fields``.

    A header of another version (other columns, each row as long as it) is kept by name
    (:attr:`MetricsCheck.rewrite`); a damaged header over rows of the current columns is
    replaced by the current one; a last line cut short is dropped (:attr:`MetricsCheck.cut`).

    Raises:
        RunError: not a metrics file (not text, no ``iteration`` column, rows that fit
            neither its header nor the current columns).
    """
    if not path.exists():
        return MetricsCheck()
    advice = f"move it away to resume (a new one is begun), {START_ANEW}"
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RunError(f"{path}: not a metrics file ({_first_line(error)}); {advice}") from error
    if "\x00" in text:
        raise RunError(f"{path}: not a metrics file (it holds NUL bytes); {advice}")
    cut = None
    if text and not text.endswith("\n"):
        complete = text[: text.rfind("\n") + 1]
        cut = len(complete.encode("utf-8"))
        text = complete
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as error:
        raise RunError(f"{path}: not a metrics file ({error}); {advice}") from error
    if not rows:
        return MetricsCheck(cut=cut)
    header, body = rows[0], [row for row in rows[1:] if row]
    if header == list(fields):
        return MetricsCheck(tuple(row[0] for row in body if row), cut)
    if "iteration" in header and all(len(row) == len(header) for row in body):
        kept = [dict(zip(header, row, strict=True)) for row in body]  # another version's file
    elif all(len(row) == len(fields) for row in body):
        kept = [dict(zip(fields, row, strict=True)) for row in body]  # a damaged header line
    else:
        raise RunError(
            f"{path}: not a metrics file (its rows fit neither its header nor playout's "
            f"columns); {advice}"
        )
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields), extrasaction="ignore")
    writer.writeheader()
    writer.writerows(kept)
    logged = tuple(row.get("iteration", "") for row in kept)
    return MetricsCheck(logged, cut, out.getvalue())


def repair_metrics(path: Path, check: MetricsCheck) -> None:
    """Apply what :func:`check_metrics` found: drop a cut last line (with a
    :class:`~playout.PlayoutWarning`), put rows under the current columns."""
    if check.rewrite is not None:
        text = check.rewrite
        write_or_fail(path, lambda target: write_text_atomic(target, text))
    elif check.cut is not None:
        size = check.cut

        def truncate(target: Path) -> None:
            with target.open("r+b") as stream:
                stream.truncate(size)
                stream.flush()
                os.fsync(stream.fileno())

        write_or_fail(path, truncate)
    if check.cut is not None:
        warnings.warn(
            f"{path}: dropped its last line, cut short by an interrupted write",
            PlayoutWarning,
            stacklevel=3,
        )


def append_metrics_row(path: Path, row: dict[str, Any], after: str) -> None:
    """Add ``row`` to ``metrics.csv`` in one write (with the header, into an empty file),
    after bringing the file to the current columns (:func:`check_metrics`).

    Raises:
        RunError: a damaged file, or the row cannot be written (the file is as it was).
    """
    fields = list(row)
    check = check_metrics(path, fields)
    repair_metrics(path, check)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields)
    if not path.exists() or path.stat().st_size == 0:
        writer.writeheader()
    writer.writerow(row)
    line = out.getvalue()
    write_or_fail(path, lambda target: append_line(target, line), after)


def _first_line(error: BaseException) -> str:
    """The first line of an error's message, or its type's name."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


__all__ = [
    "BUFFER",
    "CHECKPOINT",
    "GAME_KEY",
    "METRICS",
    "MODEL",
    "RESTORE_SETTINGS",
    "SETTINGS",
    "MetricsCheck",
    "append_metrics_row",
    "check_metrics",
    "missing_settings",
    "read_settings",
    "repair_metrics",
    "write_or_fail",
    "write_settings",
]
