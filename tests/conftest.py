"""Fixtures and settings shared by every test file.

The suite runs on every CPU this process may use (pytest-xdist, ``-n auto --dist
loadgroup``), set by :func:`pytest_cmdline_main` below rather than by ``addopts``: an
``-n`` in ``addopts`` would make ``pytest -p no:xdist`` (and a machine without xdist) refuse
to start. ``-n 0`` (or ``-p no:xdist``) runs the tests in this one process; ``-n N`` uses
``N`` workers; ``--pdb`` runs in this process too.

The groups are dealt in the order of the tests, as a serial run meets them (not the biggest
group first, pytest-xdist's default): on a fresh checkout the first test to create a game
compiles its kernels (up to 35 s a game on two busy cores, before numba's cache has them),
and the browser and web-fuzzing modules, which wait 15 s and 10 s for an answer, then run
after the game tests that compiled them, as they do in one process.

Tests that start or look for a Ray instance take :func:`one_ray_instance` first: a test
that joins ``--ray-address auto`` must not find the instance of another test run on this
machine (a second pytest process, or another pytest-xdist worker). Those tests are put in
one ``xdist_group`` (:func:`pytest_collection_modifyitems`), so that one worker runs them
and the others do not wait on the lock.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Default to ``-n auto --dist loadgroup`` when pytest-xdist is loaded and neither is
    given. ``loadgroup`` deals single tests to the workers as they free up (the suite's time
    is in a few hundred slow tests spread over many files, so ``loadfile`` would leave a
    worker idle behind the slowest file) and keeps the tests of one ``xdist_group`` on one
    worker. Runs before pytest-xdist's own hook, which reads these options (a conftest's
    hooks are called before those of plugins registered earlier)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        # A worker parses the command line and addopts again, without these defaults: it
        # needs to know of loadgroup to send each test's group with its id.
        if workerinput.get("playout_dist") == "loadgroup":
            config.option.loadgroup = True
        return
    if not config.pluginmanager.hasplugin("xdist"):
        return  # pytest -p no:xdist
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
    if config.option.dist == "no":
        config.option.dist = "loadgroup"
        config.option.loadscopereorder = False  # groups in the tests' order: see above


UNGROUPED = pytest.StashKey[set[str]]()
"""On a worker: the ids of the tests of an ``xdist_group`` that were sent without it."""


def _group(item: pytest.Item) -> str | None:
    """The ``xdist_group`` of a test as pytest-xdist's worker writes it after the test's id
    (``...::test@web_fuzz``; several groups: their names sorted, joined by ``_``), or
    ``None`` for a test of no group."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) if names else None


def _loadgroup_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker of a ``--dist loadgroup`` run."""
    workerinput = getattr(config, "workerinput", None)
    return workerinput is not None and workerinput.get("playout_dist") == "loadgroup"


def pytest_collection_finish(session: pytest.Session) -> None:
    """On a worker told of ``loadgroup``: each test of an ``xdist_group`` must carry its
    group after its id (``...::test@web_fuzz``, put there by pytest-xdist's worker), all
    that the controller deals by. One without it would be dealt alone, away from its group
    (pytest 9.2 with pytest-xdist 3.8, see ``pyproject.toml``): it fails at setup instead
    (:func:`pytest_runtest_setup`), saying why."""
    if not _loadgroup_worker(session.config):
        return
    ungrouped = set()
    for item in session.items:
        group = _group(item)
        if group is not None and not item.nodeid.endswith("@" + group):
            ungrouped.add(item.nodeid)
    session.config.stash[UNGROUPED] = ungrouped


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.nodeid in item.config.stash.get(UNGROUPED, set()):
        pytest.fail(
            "--dist loadgroup: this test was sent to the controller without its xdist_group"
            " after its id, so it was dealt alone, away from its group"
        )


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which may be absent
def pytest_configure_node(node: Any) -> None:
    """Tell each worker the distribution mode chosen by :func:`pytest_cmdline_main`."""
    node.workerinput["playout_dist"] = node.config.option.dist


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which may be absent
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: the CPUs this process may run on (as ``playout``'s own ``--workers``
    default counts them), not psutil's physical cores (one where two vCPUs are one core's
    two threads) nor the host's CPUs seen from a container pinned to fewer;
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still overrides it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return None


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's worker reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that takes :func:`one_ray_instance` goes to ``xdist_group("ray")``: one
    worker runs them one after the other, instead of several workers each holding a
    module's lock while the others wait on it."""
    for item in items:
        if "one_ray_instance" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("ray"))


def _ray_lock_path() -> Path:
    """One file for every pytest process of this user on this machine: serial runs,
    pytest-xdist workers and their controllers alike (``getbasetemp()`` differs between
    them: a worker's is a folder below its run's)."""
    return Path(tempfile.gettempdir()) / f"playout-tests-ray-{os.getuid()}.lock"


@pytest.fixture(scope="module")
def one_ray_instance() -> Iterator[None]:
    """Held while a test module uses Ray: an exclusive lock on :func:`_ray_lock_path`,
    released at the module's end."""
    with open(_ray_lock_path(), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
