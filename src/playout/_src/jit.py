"""One typed decorator for the numba-compiled functions.

``@numba.njit(**options)`` with the options in a plain dict does not type-check under
``mypy --strict``: no overload of numba's ``njit`` stub takes ``**dict[str, object]``
(``call-overload``), so the decorator's result is ``Any`` and every decorated function loses
its signature (``untyped-decorator``), and with it the checks of every call to it. :func:`jit`
is ``numba.njit`` with a type that hands the decorated function's own signature back to the
type checker, and :class:`JitOptions` names the options, so that a misspelt one is a type
error instead of a numba warning at compile time::

    _JIT: JitOptions = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": False}

    @jit(inline="always", **_JIT)
    def value_for(player: int, value0: float) -> float: ...

At run time the result is numba's dispatcher, exactly what ``numba.njit(**options)`` returns
(``py_func``, ``signatures``, calls from other compiled functions, ``inline`` all behave the
same); only its static type is the Python function's. Code that reads dispatcher attributes
(``.py_func``, ``.signatures``) needs a cast, which is rare and local.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypedDict, TypeVar, Unpack, cast

import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])


class JitOptions(TypedDict, total=False):
    """The ``numba.njit`` options playout uses (all optional)."""

    cache: bool
    """Keep the machine code on disk (``__pycache__``) for the next process."""
    nogil: bool
    """Release the GIL while the function runs."""
    boundscheck: bool | None
    """Check array indices (``None``: numba's default, off unless NUMBA_BOUNDSCHECK)."""
    error_model: Literal["python", "numpy"]
    """``"numpy"``: no ZeroDivisionError checks (division by zero gives inf or nan)."""
    fastmath: bool
    """Let LLVM reorder floating point arithmetic."""
    _nrt: bool
    """``False``: compile without numba's reference counting (for functions that allocate
    nothing; each call then skips the count updates of its array arguments)."""
    sources_digest: str
    """A digest of the other source files compiled into the function (the functions it calls,
    the constants it reads). numba keys a function's on-disk cache on its own file only; with
    this, a cached entry is stale once the digest changes, as after an edit of that file. Not
    a numba option: :func:`jit` applies it to the dispatcher's cache."""


int64 = cast(Callable[[object], int], np.int64)
"""``np.int64`` typed for mypy as returning an ``int``. In compiled code, ``int64(0)`` is a
plain int64 where ``0`` is a literal: numba compiles (and caches) a separate copy of any
function called with a literal argument, or with a variable it first saw as a literal."""


def jit(
    signature: Any = None,
    /,
    *,
    inline: Literal["never", "always"] = "never",
    **options: Unpack[JitOptions],
) -> Callable[[F], F]:
    """``numba.njit(signature, inline=inline, **options)`` as a decorator that keeps the
    function's type.

    Args:
        signature: optional explicit numba signature (compiles eagerly, as with njit).
        inline: ``"always"`` inlines the function into its compiled callers (numba IR
            inlining); a keyword of its own, not a :class:`JitOptions` key, so that
            ``jit(inline="always", **shared_options)`` type-checks.
        **options: :class:`JitOptions`.

    Returns:
        A decorator returning numba's dispatcher for the function, typed as the function.
    """
    njit: Callable[..., Callable[[Callable[..., Any]], Any]] = numba.njit
    sources_digest = options.pop("sources_digest", None)
    compile_ = njit(inline=inline, **options)

    def decorate(function: F) -> F:
        dispatcher = compile_(function)
        _tolerate_damaged_cache(dispatcher)
        if sources_digest is not None:
            _key_cache_on(dispatcher, sources_digest)
            dispatcher._playout_sources_digest = sources_digest
        if signature is not None:
            # What njit(signature) does, after the cache is made tolerant: compile eagerly,
            # then no other signatures.
            for each in signature if isinstance(signature, list) else [signature]:
                dispatcher.compile(each)
            dispatcher.disable_compile()
        return cast(F, dispatcher)

    return decorate


def files_digest(*files: str | os.PathLike[str]) -> str:
    """sha256 of the named source files (names and contents, in the order given): the
    ``sources_digest`` of functions that compile those files' functions or constants in."""
    digest = hashlib.sha256()
    for file in files:
        path = Path(file)
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def sources_digest_of(dispatcher: Any) -> str:
    """The ``sources_digest`` a function was compiled with by :func:`jit` (``""`` if none):
    a loop that compiles the function in keys its own cache on it too."""
    return str(getattr(dispatcher, "_playout_sources_digest", ""))


def _key_cache_on(dispatcher: Any, sources_digest: str) -> None:
    """Make ``sources_digest`` part of the source stamp of ``dispatcher``'s on-disk cache.

    numba's cache index records a stamp of the function's own file (a hash of its contents)
    and ignores entries saved under another stamp; a stamp that also holds the digest makes
    the entries saved with another digest stale in the same way. Without a disk cache
    (``cache=False``) there is nothing to key.
    """
    cache_file: Any = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    stamp = getattr(cache_file, "_source_stamp", None)
    if stamp is not None:
        cache_file._source_stamp = (stamp, sources_digest)


def _tolerate_damaged_cache(dispatcher: Any) -> None:
    """Make a damaged on-disk cache entry of ``dispatcher`` a cache miss.

    numba's cache files (``*.nbi`` index, ``*.nbc`` data, in ``__pycache__`` next to the
    source) are unpickled as they are: a file cut short or overwritten (a full disk, a copy
    interrupted, two numba versions) makes every later compile of the function raise, and
    with it every run, with an error that names a typing failure. Here a failed load empties
    the function's index and returns no entry, so the function is compiled afresh and saved
    again (a failed save is retried once on an emptied index, then left uncached).
    """
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or not hasattr(cache, "load_overload") or not hasattr(cache, "flush"):
        return
    load, save = cache.load_overload, cache.save_overload

    def load_overload(signature: Any, target_context: Any) -> Any:
        try:
            return load(signature, target_context)
        except Exception:  # unpickling a damaged file raises anything
            with contextlib.suppress(Exception):
                cache.flush()
            return None

    def save_overload(signature: Any, data: Any) -> None:
        try:
            save(signature, data)
        except Exception:  # a damaged index that cannot be read back
            with contextlib.suppress(Exception):
                cache.flush()
                save(signature, data)

    cache.load_overload = load_overload
    cache.save_overload = save_overload


__all__ = ["F", "JitOptions", "files_digest", "int64", "jit", "sources_digest_of"]
