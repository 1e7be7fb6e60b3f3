"""Result files: a benchmark's table as committed JSON, rendered into the documentation.

``write_results(path, title=..., columns=..., rows=...)`` writes one JSON object with the
command line that made it (``sys.argv``), today's date (UTC), a description of the machine
(CPU model, usable cores, load average: the numbers of a shared machine move with it) and the
rows; ``docs/hooks/results.py`` renders it where a page says ``<!-- results: NAME -->``.
The format is described in ``docs/reference/file-formats.md``.
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def machine() -> str:
    """The CPU model, the usable cores and the load average, in one line (from
    :func:`playout._src.benchmark.machine_info`, as ``playout bench`` reports them)."""
    from playout._src.benchmark import machine_info

    info = machine_info()
    if info.load_average is None:
        return f"{info.cpu}, {info.cpus} cores"
    shared = " (shared with other work: noisy)" if info.load_average > 1.5 else ""
    return f"{info.cpu}, {info.cpus} cores, load average {info.load_average:.1f} at the end{shared}"


def write_results(
    path: str | os.PathLike[str],
    *,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    notes: str = "",
    details: dict[str, Any] | None = None,
    commands: Sequence[str] = (),
) -> None:
    """Write the result file ``path`` for the table ``columns`` x ``rows``, made by this
    process's command line (or by ``commands``, where this process only read what they
    made: its own command line then goes into ``details`` as ``tallied_by``), today, on this
    machine; ``details``: the raw figures behind the rows, kept in the file but not
    rendered."""
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row {row!r} has {len(row)} cells, not {len(columns)}")
    script = Path(sys.argv[0]).resolve()
    repo = Path(__file__).resolve().parent.parent
    shown = script.relative_to(repo) if script.is_relative_to(repo) else Path(script.name)
    argv = [shown.as_posix(), *sys.argv[1:]]  # as run from the repository's root
    own = "python " + shlex.join(argv)
    if commands:  # the table was read off what they made: say which command read it
        details = {**(details or {}), "tallied_by": own}
    data = {
        "title": title,
        "command": list(commands) if commands else own,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "machine": machine(),
        "source": "measured",
        "columns": list(columns),
        "rows": [list(row) for row in rows],
    }
    if notes:
        data["notes"] = notes
    if details:
        data["details"] = details  # the raw figures behind the rows
    Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
