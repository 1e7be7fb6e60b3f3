"""MkDocs hook: result tables rendered from the committed result files of the benchmarks.

A page line ``<!-- results: NAME -->`` becomes the table of ``bench/results/NAME.json`` with
the command that made it, its date and its machine under it. A result file is one JSON object
(``bench/results.py`` writes it; ``docs/reference/file-formats.md`` documents the fields)::

    {"title": str, "command": str | [str, ...], "date": "YYYY-MM-DD", "machine": str,
     "columns": [str, ...], "rows": [[cell, ...], ...],
     "source": "measured" | "transcribed", "transcribed_from": str (when transcribed),
     "notes": str (optional)}

A missing file, a missing field or a row of the wrong length fails the build.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
MARKER = re.compile(r"^<!-- results: ([\w-]+) -->$", flags=re.M)
REQUIRED = ("title", "command", "date", "machine", "columns", "rows", "source")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value).replace("|", "\\|")


def render(name: str) -> str:
    """The Markdown table of the result file ``name``, with its provenance under it."""
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        raise PluginError(f"results: no result file {path}")
    data = json.loads(path.read_text(encoding="utf-8"))
    missing = [field for field in REQUIRED if field not in data]
    if missing:
        raise PluginError(f"results: {path.name} lacks {', '.join(missing)}")
    columns = data["columns"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in data["rows"]:
        if len(row) != len(columns):
            raise PluginError(f"results: {path.name}: row {row} has not {len(columns)} cells")
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    commands = data["command"] if isinstance(data["command"], list) else [data["command"]]
    provenance = f"{data['date']}, {data['machine']}."
    if data["source"] == "transcribed":
        provenance += f" Transcribed from {data.get('transcribed_from', 'the README')}."
    caption = [
        "",
        f"*{data['title']}.* {provenance} Result file: `bench/results/{name}.json`. Made by:",
        "",
        "```text",
        *commands,
        "```",
    ]
    if data.get("notes"):
        caption[2:2] = ["", data["notes"]]
    return "\n".join(lines + caption) + "\n"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return MARKER.sub(lambda m: render(m.group(1)), markdown)
