"""The browser app behind ``playout serve``: one page (plain HTML, CSS and JavaScript, no
build step) over a JSON API, with live search snapshots as server-sent events.

>>> from playout.web import create_app   # doctest: +SKIP
>>> app = create_app()                    # a FastAPI application; serve it with uvicorn

Needs the ``web`` extra (FastAPI and uvicorn): without it, :func:`create_app` and
:func:`serve` raise :class:`~playout.MissingDependencyError` naming the extra.

Modules: :mod:`.sessions` (games, their searches, the store; no FastAPI) and :mod:`.app`
(the routes). The page's files are in ``static/``.
"""

from __future__ import annotations

import threading
import webbrowser
from typing import Any

from playout._src.optional import import_optional
from playout.web.sessions import Limits

NEEDED_BY = "the browser app (playout serve)"


def create_app(limits: Limits | None = None) -> Any:
    """The FastAPI application of the browser app (see :mod:`playout.web.app`).

    Raises:
        MissingDependencyError: FastAPI is not installed (extra ``web``).
    """
    import_optional("fastapi", extra="web", needed_by=NEEDED_BY)
    from playout.web.app import create_app as build

    return build(limits)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    open_browser: bool = False,
    limits: Limits | None = None,
    announce: Any = print,
) -> None:
    """Serve the browser app with uvicorn until Ctrl-C; ``announce`` gets the URL first.

    Raises:
        MissingDependencyError: FastAPI or uvicorn is not installed (extra ``web``).
    """
    uvicorn = import_optional("uvicorn", extra="web", needed_by=NEEDED_BY)
    app = create_app(limits)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"
    announce(f"playout: serving on {url} (Ctrl-C to stop)")
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")


__all__ = ["Limits", "create_app", "serve"]
