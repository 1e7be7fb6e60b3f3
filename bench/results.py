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
import platform
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def machine() -> str:
    """The CPU model, the usable cores and the load average, in one line."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    try:
        load = f", load average {os.getloadavg()[0]:.1f} at the end"
    except OSError:
        load = ""
    shared = " (shared with other work: noisy)" if load and os.getloadavg()[0] > 1.5 else ""
    return f"{cpu}, {cores} cores{load}{shared}"


def write_results(
    path: str | os.PathLike[str],
    *,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    notes: str = "",
    details: dict[str, Any] | None = None,
) -> None:
    """Write the result file ``path`` for the table ``columns`` x ``rows``, made by this
    process's command line, today, on this machine; ``details``: the raw figures behind the
    rows, kept in the file but not rendered."""
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row {row!r} has {len(row)} cells, not {len(columns)}")
    script = Path(sys.argv[0]).resolve()
    repo = Path(__file__).resolve().parent.parent
    shown = script.relative_to(repo) if script.is_relative_to(repo) else Path(script.name)
    argv = [shown.as_posix(), *sys.argv[1:]]  # as run from the repository's root
    data = {
        "title": title,
        "command": "python " + shlex.join(argv),
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
