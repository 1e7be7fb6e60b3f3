"""``playout games``: the registered games."""

from __future__ import annotations

import argparse

import playout
from playout.cli.common import EXIT_OK, out


def cmd_games(args: argparse.Namespace) -> int:
    """``playout games``: every registered game with a one-line summary."""
    from playout._src.registry import game_summary

    names = list(playout.game_names())
    pad = max((len(name) for name in names), default=0)
    for name in names:
        out(f"{name.ljust(pad)}  {game_summary(name)}")
    return EXIT_OK


__all__ = ["cmd_games"]
