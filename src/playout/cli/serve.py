"""``playout serve``: the browser app (extra ``web``)."""

from __future__ import annotations

import argparse

from playout.cli.common import EXIT_OK, out


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the browser app on ``--host``/``--port`` until Ctrl-C (prints the URL, with the
    token off the loopback). A port in use, or a token that cannot be one, is one line and
    exit code 2 (raised as a PlayoutError)."""
    from playout.web import serve

    serve(args.host, args.port, token=args.token, open_browser=args.open, announce=out)
    return EXIT_OK


__all__ = ["cmd_serve"]
