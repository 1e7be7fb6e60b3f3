"""The browser app behind ``playout serve``: one page (plain HTML, CSS and JavaScript, no
build step) over a JSON API, with live search snapshots as server-sent events.

>>> from playout.web import create_app   # doctest: +SKIP
>>> app = create_app()                    # a FastAPI application; serve it with uvicorn

Needs the ``web`` extra (FastAPI and uvicorn): without it, :func:`create_app` and
:func:`serve` raise :class:`~playout.MissingDependencyError` naming the extra.

Modules: :mod:`.sessions` (games, their searches, the store, the limits per client; no
FastAPI), :mod:`.access` (who may connect: the loopback test, the token, the client cookie;
no FastAPI) and :mod:`.app` (the routes). The page's files are in ``static/``.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from typing import Any

from playout._src.errors import PlayoutError
from playout._src.optional import import_optional
from playout.web.access import Access, is_loopback, urls
from playout.web.sessions import Limits

NEEDED_BY = "the browser app (playout serve)"


class ListenError(PlayoutError, RuntimeError):
    """The server cannot listen on the address and port asked for (a port in use, an
    address this machine does not have, a port below 1024 without the right)."""


def create_app(limits: Limits | None = None, *, access: Access | None = None) -> Any:
    """The FastAPI application of the browser app (see :mod:`playout.web.app`); ``access``:
    who may use it (default: this machine only, no token).

    Raises:
        MissingDependencyError: FastAPI is not installed (extra ``web``).
    """
    import_optional("fastapi", extra="web", needed_by=NEEDED_BY)
    from playout.web.app import create_app as build

    return build(limits, access=access)


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (``port`` 0: a free one; read it with
    ``getsockname``), for the server to take.

    Raises:
        ListenError: the address cannot be had; the message says why, in one line.
    """
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as error:
        raise ListenError(f"cannot listen on {where}: {error}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not past a listener
        sock.bind(address)
        sock.listen(2048)
    except OSError as error:
        sock.close()
        reason = (error.strerror or str(error)).lower()
        raise ListenError(f"cannot listen on {where}: {reason}") from None
    return sock


def announcement(host: str, port: int, access: Access) -> list[str]:
    """The lines ``serve`` prints when it listens: the URL to open (with ``?token=`` when the
    server needs one) and, on a wildcard address, the URL for other machines."""
    local, network = urls(host, port, access.token)
    lines = [f"playout: serving on {local} (Ctrl-C to stop)"]
    if network is not None:
        lines.append(f"playout: from other machines: {network}")
    return lines


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    token: str | None = None,
    open_browser: bool = False,
    limits: Limits | None = None,
    announce: Any = print,
) -> None:
    """Serve the browser app with uvicorn until Ctrl-C. It listens first, then ``announce``
    gets the URL (the port it got when ``port`` is 0).

    Off the loopback (any ``host`` but ``127.0.0.1``, ``::1``, ``localhost``) every API
    request needs ``token``, or a random one made here; the announced URL carries it, and a
    browser that opens that URL keeps it in a cookie. On the loopback, ``token`` (default
    none) is needed when given. See :mod:`playout.web.access`.

    Raises:
        MissingDependencyError: FastAPI or uvicorn is not installed (extra ``web``).
        InvalidParameterError: ``token`` cannot be a token (8 to 128 URL-safe characters).
        ListenError: ``host``:``port`` cannot be had (a port in use, ...).
    """
    uvicorn = import_optional("uvicorn", extra="web", needed_by=NEEDED_BY)
    access = Access.for_host(host, token)
    app = create_app(limits, access=access)
    sock = listen(host, port)
    try:
        lines = announcement(host, int(sock.getsockname()[1]), access)
        for line in lines:
            announce(line)
        if open_browser:
            url = lines[0].split()[3]
            threading.Timer(1.0, webbrowser.open, args=(url,)).start()
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=3)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


__all__ = [
    "Access",
    "Limits",
    "ListenError",
    "announcement",
    "create_app",
    "is_loopback",
    "listen",
    "serve",
]
