#!/usr/bin/env python
"""A 9x9 Go match between two RAVE players that differ in the kernel's knowledge.

Player specs choose the playouts (``rollout=light|heavy|mogo``) and how many virtual samples
of prior knowledge a player takes (``prior=N``), but the kernel's prior knowledge is one set
(captures and escapes, 3x3 patterns, penalties, ladders: ``PRIORS_ALL``) and so are its
playouts' features. To measure one piece at a time, this script builds each player with a
kernel of its own: ``PLAYOUTS:PIECES[:FEATURES]``, where ``PIECES`` is ``all``, ``none`` or
a ``+``-joined subset of ``tactics``, ``patterns``, ``penalties`` and ``ladders``
(:mod:`playout.games.go.kernel`'s ``PRIORS_*``; ``all`` is these four), or ``ratings`` (the
learned move ratings, :mod:`playout.games.go.ratings`, which replace them; ``ratings=S``
with the scale ``S`` of their scores, default 2), and ``FEATURES`` (default ``none``; the
kernel's own default is ``nakade``) is ``all``, ``none`` or a ``+``-joined subset of
``last`` (the first playout move answers the tree's last move), ``ladders`` (MoGo playouts
leave a chain caught in a ladder), ``nakade`` (MoGo playouts may fill a small enclosure of
the opponent's with a self-atari), ``lowlib`` (MoGo playouts play a liberty of a chain with
two next to the last stone), ``lgrf`` (MoGo playouts answer the last two moves with the last
good reply) and ``captures`` (MoGo playouts that answer nothing capture anywhere on the
board): the ``PLAYOUT_*`` bits. Both players search with ``RAVE(bias=--bias,
prior=--prior)`` and ``--simulations`` a move, colours alternating, through
:func:`playout.run_match` (``--workers`` games at once, records to ``--save``). ``--opponent
SPEC`` plays p1 against any player of ``playout match`` instead of a second such player (GNU
Go: ``gtp:...``).

Usage::

    python bench/go_knowledge.py --p1 mogo:all --p2 mogo:tactics --games 40 --seed 31
    python bench/go_knowledge.py --p1 mogo:all:all --p2 mogo:all:ladders --games 60 --seed 41
    python bench/go_knowledge.py --p1 light:patterns --p2 light:none --games 2 --simulations 50
    python bench/go_knowledge.py --p1 mogo:all:nakade+lgrf+captures --opponent \
        "gtp:/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko \
        --capture-all-dead" --simulations 10000 --games 100 --workers 2 --save games.jsonl
"""

from __future__ import annotations

import argparse
import sys

from playout import RAVE, Budget, run_match
from playout._src.arena.players import MctsOptions, MctsPlayer
from playout._src.errors import PlayoutError
from playout._src.evaluation import Rollout
from playout.games.go import GoGame
from playout.games.go.heavy import GoPlayouts
from playout.games.go.kernel import (
    PLAYOUT_CAPTURES,
    PLAYOUT_LADDERS,
    PLAYOUT_LAST_MOVE,
    PLAYOUT_LGRF,
    PLAYOUT_LOW_LIBERTIES,
    PLAYOUT_NAKADE,
    PRIORS_ALL,
    PRIORS_LADDERS,
    PRIORS_PATTERNS,
    PRIORS_PENALTIES,
    PRIORS_RATINGS,
    PRIORS_TACTICS,
    RATING_SCALE,
)

PIECES = {
    "tactics": PRIORS_TACTICS,
    "patterns": PRIORS_PATTERNS,
    "penalties": PRIORS_PENALTIES,
    "ladders": PRIORS_LADDERS,
    "ratings": PRIORS_RATINGS,
}
FEATURES = {
    "last": PLAYOUT_LAST_MOVE,
    "ladders": PLAYOUT_LADDERS,
    "nakade": PLAYOUT_NAKADE,
    "lowlib": PLAYOUT_LOW_LIBERTIES,
    "lgrf": PLAYOUT_LGRF,
    "captures": PLAYOUT_CAPTURES,
}


def parse_bits(text: str, names: dict[str, int], what: str, every: int | None = None) -> int:
    """``all``, ``none`` (or empty: all) or ``+``-joined ``names`` as the sum of their bits;
    ``all`` is ``every`` if given, else every name's bit."""
    if text in ("", "all"):
        return sum(names.values()) if every is None else every
    if text == "none":
        return 0
    bits = 0
    for name in text.split("+"):
        if name not in names:
            raise SystemExit(f"unknown {what} {name!r}; choose {', '.join(names)}")
        bits |= names[name]
    return bits


def parse_player(text: str) -> GoPlayouts:
    """``PLAYOUTS:PIECES[:FEATURES]`` as the rollout policy that carries that kernel."""
    playouts, _, rest = text.partition(":")
    pieces, _, features = rest.partition(":")
    scale = RATING_SCALE
    if pieces.startswith("ratings="):
        pieces, _, number = pieces.partition("=")
        try:
            scale = float(number)
        except ValueError:
            raise SystemExit(f"ratings=S needs a number, got {number!r}") from None
    return GoPlayouts(
        playouts,
        parse_bits(pieces, PIECES, "piece", every=PRIORS_ALL),
        parse_bits(features or "none", FEATURES, "playout feature"),
        rating_scale=scale,
    )


class KnowledgePlayer(MctsPlayer):
    """An MCTS player whose rollouts (and so its kernel) are ``policy``."""

    def __init__(self, game: GoGame, options: MctsOptions, policy: GoPlayouts, name: str):
        super().__init__(game, options, name=name)
        self._evaluator = Rollout(policy=policy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--p1", required=True)
    second = parser.add_mutually_exclusive_group(required=True)
    second.add_argument("--p2", help="PLAYOUTS:PIECES[:FEATURES], as --p1")
    second.add_argument("--opponent", help="a player spec of playout match (gtp:...)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--bias", type=float, default=0.01)
    parser.add_argument("--prior", type=float, default=50)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--save", help="append each game's record to this file (.jsonl)")
    args = parser.parse_args()
    game = GoGame(size=9, komi=args.komi)
    options = MctsOptions(
        budget=Budget(simulations=args.simulations), rule="rave", bias=args.bias, prior=args.prior
    )
    assert isinstance(options.selection(), RAVE)

    def player(text: str) -> KnowledgePlayer:
        return KnowledgePlayer(game, options, parse_player(text), name=text)

    try:
        opponent = args.opponent if args.opponent is not None else player(args.p2)
        result = run_match(
            game, player(args.p1), opponent, games=args.games, seed=args.seed,
            workers=args.workers, save=args.save,
        )  # fmt: skip
    except PlayoutError as error:  # a bad playouts name or spec, worker count or save file
        print(f"go_knowledge: {error}", file=sys.stderr)
        sys.exit(2)
    low, high = result.confidence_interval
    print(
        f"{args.p1} vs {args.opponent or args.p2}: "
        f"{result.wins}-{result.draws}-{result.losses}, score "
        f"{result.score:.3f} "
        f"(Wilson 95% {low:.3f}-{high:.3f}), {args.games} games, {args.simulations} sims"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
