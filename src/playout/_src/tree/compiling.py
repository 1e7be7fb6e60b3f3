"""The numba options of the phase functions, keyed on every source they compile in.

The phase functions call one another across the modules of :mod:`playout._src.tree` and read
its layout constants, which numba compiles in as values. numba's on-disk cache is keyed on a
function's own file only, so an edit of ``layout.py`` (a column moved, say) would leave
``selection.descend`` running from a stale cache. The options below carry
:data:`SOURCES_DIGEST`, a digest of every module of this package and of
:mod:`playout._src.game` (player constants, ``value_for``): an edit of any of them makes the
cached machine code of every phase function stale, as one edit of the single ``tree.py``
did before the phases had a module each. The compiled drivers, which compile the phase
functions into their loops, put :func:`sources_fingerprint` in their closures for the same
reason (:func:`playout._src.compiled.driver._dependency_fingerprint`,
:func:`playout._src.rave._tree_fingerprint`). A module added to the package is in the
digest without a list to update.
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

from playout._src import game
from playout._src.jit import JitOptions


def _sources_digest() -> str:
    """sha256 of the package's modules (in name order) and of :mod:`playout._src.game`."""
    package = sorted(Path(__file__).resolve().parent.glob("*.py"))
    game_file = inspect.getsourcefile(game)
    digest = hashlib.sha256()
    for path in [*package, *([Path(game_file)] if game_file is not None else [])]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


SOURCES_DIGEST = _sources_digest()
"""A digest of the sources compiled into the phase functions (see the module docstring)."""


def sources_fingerprint() -> int:
    """:data:`SOURCES_DIGEST` as a nonzero int, for a compiled loop's closure."""
    return int.from_bytes(bytes.fromhex(SOURCES_DIGEST)[:7], "little") | 1


PHASE_JIT: JitOptions = {
    "cache": True,
    "nogil": True,
    "error_model": "numpy",
    "_nrt": False,
    "sources_digest": SOURCES_DIGEST,
}
"""Compile options of the phase functions. None of them allocates, so they are compiled
without numba's reference counting (``_nrt=False``): with it, every call increments and
decrements the count of every array argument through a runtime function call, which costs
more than the selection arithmetic itself. ``error_model="numpy"``: no ZeroDivisionError
checks in the inner loops."""

PHASE_JIT_ALLOCATING: JitOptions = {
    "cache": True,
    "nogil": True,
    "sources_digest": SOURCES_DIGEST,
}
"""Compile options of the read-outs that allocate their result arrays."""


__all__ = ["PHASE_JIT", "PHASE_JIT_ALLOCATING", "SOURCES_DIGEST", "sources_fingerprint"]
