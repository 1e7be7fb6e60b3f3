"""Test-suite settings shared by every test file.

The suite runs on pytest-xdist workers (``-n`` in pyproject's addopts). Tests are
scheduled a file at a time, so that a file's module fixtures and numba compilations
are made once, in one worker. The files that start Ray share one group: a test that
joins ``--ray-address auto`` must not find another test's instance on this machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

RAY_FILES = frozenset({"test_arena_parallel.py", "test_reliability.py", "test_zero_pipeline.py"})


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        name = Path(str(item.fspath)).name
        item.add_marker(pytest.mark.xdist_group("ray" if name in RAY_FILES else name))
