"""docs/ARCHITECTURE.md stays true to the package: every module has its line."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "playout"
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def _module_rows() -> list[tuple[str, str]]:
    """The module table's rows: (first cell, whole row)."""
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            rows.append((line.split("|")[1], line))
    return rows


def _named(relative: str, rows: list[tuple[str, str]]) -> bool:
    """Whether a row names the module: its path in the first cell, or its folder there and
    its file name in the row (a folder's row that lists its files)."""
    folder, _, name = relative.rpartition("/")
    for first, row in rows:
        for prefix in ("", "playout/"):
            if f"`{prefix}{relative}`" in first:
                return True
            if folder and f"`{prefix}{folder}/" in first and name in row:
                return True
    return False


def test_every_module_has_a_line_in_the_architecture() -> None:
    rows = _module_rows()
    assert len(rows) > 50
    modules = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))
    assert "_src/search.py" in modules
    missing = [module for module in modules if not _named(module, rows)]
    assert missing == [], f"docs/ARCHITECTURE.md has no line for {missing}"


def test_every_module_the_architecture_names_exists() -> None:
    rows = _module_rows()
    named = set()
    for first, _ in rows:
        for cell in first.split("`")[1::2]:
            if cell.endswith(".py") and not cell.startswith(("bench/", "docs/", "tests/")):
                named.add(cell.removeprefix("playout/"))
    assert "_src/search.py" in named
    gone = sorted(module for module in named if not (PACKAGE / module).is_file())
    assert gone == [], f"docs/ARCHITECTURE.md names modules that do not exist: {gone}"
