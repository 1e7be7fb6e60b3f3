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

from collections.abc import Callable
from typing import Any, Literal, TypedDict, TypeVar, Unpack, cast

import numba

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
    if signature is None:
        compile_ = njit(inline=inline, **options)
    else:
        compile_ = njit(signature, inline=inline, **options)

    def decorate(function: F) -> F:
        return cast(F, compile_(function))

    return decorate


__all__ = ["F", "JitOptions", "jit"]
