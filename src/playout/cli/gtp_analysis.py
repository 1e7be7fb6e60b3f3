"""``lz-analyze``: Leela Zero's live-analysis extension of GTP, as Sabaki and Lizzie read it.

A GUI sends ``lz-analyze [colour] [interval]`` (or ``lz-analyze [colour] interval N``, with
optional ``minmoves N`` / ``maxmoves N``); the engine answers ``=`` at once, then, every
``interval`` centiseconds while it searches, one line of ``info`` records, one per move
searched, best first::

    info move E5 visits 812 winrate 5318 prior 123 lcb 5112 order 0 pv E5 D4 F6 info move ...

until the next command arrives; an empty line then ends the response and the command is
answered. The fields are Leela Zero's (``UCTSearch.cpp``, ``OutputAnalysisData``): ``winrate``,
``prior`` and ``lcb`` in ten-thousandths, ``winrate`` for the player to move, ``order`` the
rank. Here ``winrate`` is ``(value + 1) / 2`` of the move's mean return (a draw counts half a
win), ``prior`` the root's prior (uniform without a heuristic), ``lcb`` a 95% lower bound of
the win rate (the normal approximation, ``winrate - 1.96 * sqrt(w (1 - w) / visits)``, at least
0), and ``pv`` the principal variation for the best move and the move alone for the others
(the engine keeps only the root's line).

Pure functions over a :class:`~playout.SearchResult`; the streaming is
:func:`playout.cli.gtp.serve`'s.
"""

from __future__ import annotations

import dataclasses
import math

from playout._src.results import SearchResult
from playout.games.go import GoGame

DEFAULT_INTERVAL = 1.0
"""Seconds between ``info`` lines when the command gives no interval (Leela Zero's
default, 100 centiseconds)."""

MIN_INTERVAL = 0.01
"""The shortest interval (one centisecond; 0 means the default)."""

LCB_Z = 1.96
"""The normal quantile of the ``lcb`` field's 95% lower bound."""


class AnalyzeSyntaxError(ValueError):
    """``lz-analyze`` arguments that cannot be read."""


@dataclasses.dataclass(frozen=True)
class AnalyzeRequest:
    """What an ``lz-analyze`` command asked for.

    Attributes:
        player: the colour named (0 Black, 1 White), or ``None``.
        interval: seconds between ``info`` lines.
        max_moves: the most moves an ``info`` line lists (``None``: every move searched).
        genmove: ``lz-genmove_analyze`` (a move is played at the end) rather than
            ``lz-analyze``.
    """

    player: int | None
    interval: float
    max_moves: int | None = None
    genmove: bool = False


def parse_analyze(arguments: list[str], colours: dict[str, int]) -> AnalyzeRequest:
    """The request of ``lz-analyze``'s arguments: an optional colour, then an interval in
    centiseconds, bare or as ``interval N``, and optional ``minmoves N`` (accepted, no
    effect) and ``maxmoves N``.

    Raises:
        AnalyzeSyntaxError: anything else.
    """
    words = list(arguments)
    player = None
    if words and words[0].lower() in colours:
        player = colours[words.pop(0).lower()]
    interval = DEFAULT_INTERVAL
    max_moves = None
    if words and words[0].isdecimal():
        interval = _interval(words.pop(0))
    while words:
        if len(words) < 2 or not words[1].isdecimal():
            raise AnalyzeSyntaxError("syntax error")
        key, value = words[0].lower(), words[1]
        del words[:2]
        if key == "interval":
            interval = _interval(value)
        elif key == "maxmoves":
            max_moves = int(value) if int(value) > 0 else None
        elif key != "minmoves":
            raise AnalyzeSyntaxError("syntax error")
    return AnalyzeRequest(player, interval, max_moves)


def _interval(text: str) -> float:
    centiseconds = int(text)
    return DEFAULT_INTERVAL if centiseconds == 0 else max(MIN_INTERVAL, centiseconds / 100)


def lower_bound(winrate: float, visits: int) -> float:
    """The ``lcb`` of a move: a 95% lower bound of its win rate (0 when unvisited)."""
    if visits <= 0:
        return 0.0
    half = LCB_Z * math.sqrt(max(0.0, winrate * (1.0 - winrate)) / visits)
    return max(0.0, winrate - half)


def info_line(game: GoGame, result: SearchResult, max_moves: int | None = None) -> str:
    """The ``info`` records of a search: every move with visits, most visited first (ties by
    win rate, then by the board's order); ``""`` when no move has been searched."""
    state_moves = []
    for action, visits, value, prior in zip(
        result.actions, result.visit_counts, result.values, result.priors, strict=True
    ):
        if visits > 0:
            state_moves.append((action, visits, (value + 1.0) / 2.0, prior))
    state_moves.sort(key=lambda move: (-move[1], -move[2], move[0]))
    if max_moves is not None:
        state_moves = state_moves[:max_moves]
    records = []
    for order, (action, visits, winrate, prior) in enumerate(state_moves):
        name = _name(game, action)
        if action == result.best_action and result.pv and result.pv[0] == action:
            line = " ".join(_name(game, step) for step in result.pv)
        else:
            line = name
        records.append(
            f"info move {name} visits {visits} winrate {_ten_thousandths(winrate)} "
            f"prior {_ten_thousandths(prior)} lcb {_ten_thousandths(lower_bound(winrate, visits))}"
            f" order {order} pv {line}"
        )
    return " ".join(records)


def _name(game: GoGame, action: int) -> str:
    """A move in GTP's notation (``D4``, ``pass``)."""
    return game.action_to_string(game.initial_state(), action)


def _ten_thousandths(fraction: float) -> int:
    """A fraction in [0, 1] as Leela Zero writes it: whole ten-thousandths, rounded down."""
    return int(min(1.0, max(0.0, fraction)) * 10000)


__all__ = [
    "DEFAULT_INTERVAL",
    "AnalyzeRequest",
    "AnalyzeSyntaxError",
    "info_line",
    "lower_bound",
    "parse_analyze",
]
