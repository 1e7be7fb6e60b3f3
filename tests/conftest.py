"""Test-suite settings shared by every test file.

The suite runs on pytest-xdist workers (pyproject's addopts: a test file at a time, so that
a file's module fixtures and numba compilations are made once, in one worker). Tests that
start or look for a Ray instance take :func:`one_ray_instance` first: a test that joins
``--ray-address auto`` must not find another worker's instance on this machine.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def one_ray_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Held while a test module uses Ray: an exclusive lock on a file that every worker of
    the run (and any other pytest run of this user) sees, released at the module's end."""
    path = tmp_path_factory.getbasetemp().parent / "playout-ray.lock"
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
