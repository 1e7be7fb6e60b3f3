"""Who may use a ``playout serve`` server: the loopback test, the access token, the client
cookie, and the addresses the server announces.

* On a loopback address (``127.0.0.1``, ``::1``, ``localhost``) only this machine can connect:
  no token is needed (unless one is given), and without one a request's ``Host`` header must
  name this machine, so that a web page elsewhere cannot reach the server through a DNS name
  of its own that points here (DNS rebinding). A reverse proxy that passes another ``Host``
  needs a token.
* On any other address every API request needs the token, whichever address it comes from:
  in the URL (``?token=...``, as the announced URL has it), in an ``Authorization: Bearer``
  header, or in the cookie the server sets when a request's URL carries the right token. The
  page and its static files need none (they hold no data); the JSON API, ``/docs`` and
  ``/openapi.json`` do. A token is generated when none is given, as Jupyter does.
* Every client gets an identity, a random cookie (``playout-client``) that the server sets on
  its first answer; games and searches are counted per client (:class:`~.sessions.Limits`).
* Cross-origin requests are closed: the server sends no CORS headers, and its cookies are
  ``SameSite=Strict``, so another site's page can neither read its answers nor act with its
  cookies.

Nothing here imports FastAPI (the middleware that applies this is in :mod:`playout.web.app`).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import secrets
import socket

from playout._src.errors import InvalidParameterError

TOKEN_PATTERN = re.compile(r"[A-Za-z0-9._~-]{8,128}")
"""What a token given with ``--token`` may be: 8 to 128 URL-safe characters."""

CLIENT_COOKIE = "playout-client"
"""The cookie that names a client (its games and searches are counted under that name)."""

CLIENT_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")
"""A client name as the server makes them (any other cookie value gets a new name)."""

WILDCARDS = ("0.0.0.0", "::", "")
"""Hosts that mean every address of this machine."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or name to listen on, or a ``Host`` header's name) is this
    machine only: ``localhost``, ``127.0.0.0/8``, ``::1``. Any other name counts as reachable
    from elsewhere (it is not resolved)."""
    name = host.strip().strip("[]").lower().rstrip(".")
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port: ``[::1]:8000`` gives ``::1``."""
    header = header.strip()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def new_token() -> str:
    """A random token (32 URL-safe characters, 192 bits)."""
    return secrets.token_urlsafe(24)


def new_client() -> str:
    """A random client name (22 URL-safe characters, 128 bits)."""
    return secrets.token_urlsafe(16)


def check_token(token: str) -> str:
    """``token`` if it can be a token (see :data:`TOKEN_PATTERN`).

    Raises:
        InvalidParameterError: it cannot (too short, too long, or a character that a URL or a
            cookie would have to escape).
    """
    if not TOKEN_PATTERN.fullmatch(token):
        raise InvalidParameterError(
            "a token is 8 to 128 characters among letters, digits and . _ ~ -"
        )
    return token


@dataclasses.dataclass(frozen=True)
class Access:
    """What a request needs to be served.

    Attributes:
        token: the token every API request must carry (None: none needed).
        local_only: a request's ``Host`` header must name this machine (see
            :func:`is_loopback`): the policy of a server on a loopback address.
    """

    token: str | None = None
    local_only: bool = True

    def __post_init__(self) -> None:
        if self.token is not None:
            check_token(self.token)

    @classmethod
    def for_host(cls, host: str, token: str | None = None) -> Access:
        """The policy of a server listening on ``host``: on a loopback address, ``token``
        (default none; without one, only ``Host`` headers naming this machine); anywhere
        else, ``token`` or a new random one, and any ``Host``. (With a token a page
        elsewhere gets nowhere anyway: the token's cookie is not sent to its origin.)

        Raises:
            InvalidParameterError: ``token`` cannot be a token (:func:`check_token`).
        """
        loopback = is_loopback(host)
        if token is None and not loopback:
            token = new_token()
        return cls(token=token, local_only=loopback and token is None)

    def allows_host(self, header: str) -> bool:
        """Whether a request with this ``Host`` header may be served."""
        return not self.local_only or is_loopback(host_name(header))

    def accepts(self, given: str | None) -> bool:
        """Whether ``given`` is the token (always, when none is needed); compared in constant
        time."""
        if self.token is None:
            return True
        return given is not None and secrets.compare_digest(
            given.encode("utf-8", "replace"), self.token.encode()
        )

    def token_cookie(self, port: int | None) -> str:
        """The name of the cookie that keeps the token in a browser: one per port, so that
        two servers on one machine do not overwrite each other's."""
        return f"playout-token-{port or 80}"


def urls(host: str, port: int, token: str | None = None) -> tuple[str, str | None]:
    """The URLs to announce for a server on ``host``:``port``: one for this machine, and one
    for other machines when ``host`` is a wildcard (``0.0.0.0``, ``::``; this machine's name),
    else None. Each ends with ``?token=...`` when a token is needed."""
    query = f"?token={token}" if token is not None else ""
    if host in WILDCARDS:
        local = "[::1]" if host == "::" else "127.0.0.1"
        return f"http://{local}:{port}/{query}", f"http://{socket.gethostname()}:{port}/{query}"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/{query}", None


__all__ = [
    "CLIENT_COOKIE",
    "CLIENT_PATTERN",
    "TOKEN_PATTERN",
    "Access",
    "check_token",
    "host_name",
    "is_loopback",
    "new_client",
    "new_token",
    "urls",
]
