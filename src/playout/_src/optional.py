"""Optional dependencies: import one, or fail with the extra that provides it.

>>> ray = import_optional("ray", extra="ray", needed_by="the Ray executor")  # doctest: +SKIP

Every optional import of playout goes through :func:`import_optional` (or raises
:func:`missing_dependency` itself), so a missing package is always a
:class:`~playout.MissingDependencyError` whose message names the extra to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from playout._src.errors import MissingDependencyError

EXTRA_PACKAGES: dict[str, str] = {
    "chess": "chess",
    "openspiel": "open-spiel",
    "ray": "ray",
    "zero": "torch",
    "web": "fastapi",
    "plot": "matplotlib",
    "go": "sgfmill",
}
"""The distribution each extra of ``pyproject.toml`` installs (for the messages)."""


def missing_dependency(extra: str, needed_by: str) -> MissingDependencyError:
    """The error for ``needed_by`` (a feature, e.g. ``"the Ray executor"``) without ``extra``.

    The message reads ``<needed_by> needs <package>: pip install "playout[<extra>]"
    (or pip install <package>)``.
    """
    package = EXTRA_PACKAGES.get(extra, extra)
    return MissingDependencyError(
        f'{needed_by} needs {package}: pip install "playout[{extra}]" (or pip install {package})',
        name=package,
    )


def import_optional(module: str, *, extra: str, needed_by: str) -> ModuleType:
    """Import ``module`` (e.g. ``"pyspiel"``), an optional dependency from ``extra``.

    Raises:
        MissingDependencyError: the module cannot be imported; the message names the extra.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise missing_dependency(extra, needed_by) from error


__all__ = ["EXTRA_PACKAGES", "import_optional", "missing_dependency"]
