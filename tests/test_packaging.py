"""The package's files: what a wheel carries besides Python modules.

The test command installs playout editable (``pip install -e``), so that the tests and the
subprocesses they start (which run this working tree) share one copy and one numba cache;
a data file missing from ``package-data`` would then go unnoticed until a user's
``pip install .``. This test reads the list instead, with setuptools' glob semantics (``*``
stops at a ``/``).
"""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "playout"


def data_files() -> list[str]:
    """The files under ``src/playout`` that are not Python source, relative to it: those git
    tracks (a checkout), else those on disk but hidden files and caches (an unpacked sdist)."""
    git = shutil.which("git")
    if git is not None and (ROOT / ".git").exists():
        listed = subprocess.run(
            [git, "ls-files", "-z", "src/playout"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        paths = [ROOT / name for name in listed.split("\0") if name]
    else:
        paths = [p for p in PACKAGE.rglob("*") if p.is_file()]
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in paths
        if path.suffix != ".py"
        and "__pycache__" not in path.parts
        and not any(part.startswith(".") for part in path.relative_to(PACKAGE).parts)
    )


def test_every_data_file_is_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["playout"]
    included = {
        path.relative_to(PACKAGE).as_posix()
        for pattern in patterns
        for path in PACKAGE.glob(pattern)
        if path.is_file()
    }
    files = data_files()
    assert "zero/models/connect4-7x6-4.pt" in files and "py.typed" in files
    missing = [name for name in files if name not in included]
    assert missing == [], f"add to [tool.setuptools.package-data]: {missing}"


def test_the_test_extra_is_installed() -> None:
    """Every distribution of the ``test`` extra (and of the extras it names) is installed:
    many tests start with ``pytest.importorskip`` so that a partial install still runs the
    rest, and this one fails instead where the test command's install fell short (a run
    that skipped the network or Ray tests would otherwise pass)."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    wanted, pending, seen = [], ["test"], set()
    while pending:
        extra = pending.pop()
        seen.add(extra)
        for line in extras[extra]:
            requirement = Requirement(line)
            if requirement.name == "playout":
                pending += [e for e in requirement.extras if e not in seen]
            else:
                wanted.append(requirement.name)
    assert {"torch", "ray", "sgfmill", "hypothesis"} <= set(wanted)
    missing = []
    for name in sorted(set(wanted)):
        try:
            version(name)
        except PackageNotFoundError:
            missing.append(name)
    assert not missing, f"not installed: {missing} (pip install -e '.[test]')"
