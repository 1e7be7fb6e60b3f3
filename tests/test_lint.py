"""The code's own standards, checked with the tests: ``ruff check``, ``ruff format --check``
and ``mypy --strict`` (configured in pyproject.toml) on the source tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["src", "tests", "bench", "examples", "docs/hooks"]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def ruff() -> str:
    path = shutil.which("ruff")
    if path is None:  # the test extra installs it; a missing tool is a broken setup
        pytest.fail("ruff is not installed (pip install '.[test]')")
    return path


def test_ruff_check(ruff: str) -> None:
    result = _run(ruff, "check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format(ruff: str) -> None:
    result = _run(ruff, "format", "--check", *PATHS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict() -> None:
    result = _run(sys.executable, "-m", "mypy", "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
