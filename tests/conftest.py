"""Fixtures shared by every test file.

Tests that start or look for a Ray instance take :func:`one_ray_instance` first: a test
that joins ``--ray-address auto`` must not find the instance of another test run on this
machine (a second pytest process, or a pytest-xdist worker).
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def one_ray_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Held while a test module uses Ray: an exclusive lock on a file that every pytest
    process of this user on this machine sees, released at the module's end."""
    path = tmp_path_factory.getbasetemp().parent / "playout-ray.lock"
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
