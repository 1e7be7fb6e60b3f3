"""The package's files: what a wheel carries besides Python modules.

The test command installs playout editable (``pip install -e``), so that the tests and the
subprocesses they start (which run this working tree) share one copy and one numba cache;
a data file missing from ``package-data`` would then go unnoticed until a user's
``pip install .``. This test reads the list instead.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_files() -> list[str]:
    """Every file under ``src/playout`` that is not Python source or a cache, relative to it."""
    package = ROOT / "src" / "playout"
    return sorted(
        path.relative_to(package).as_posix()
        for path in package.rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts
    )


def test_every_data_file_is_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["playout"]
    files = data_files()
    assert "zero/models/connect4-7x6-4.pt" in files and "py.typed" in files
    missing = [f for f in files if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    assert missing == [], f"add to [tool.setuptools.package-data]: {missing}"
