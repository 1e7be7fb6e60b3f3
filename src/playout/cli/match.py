"""``playout match``, ``playout tournament`` and ``playout replay``: programs against each
other, and the saved games move by move."""

from __future__ import annotations

import argparse
import json
from typing import Any

from playout import render
from playout._src import arena, elo
from playout._src.errors import InvalidParameterError
from playout.cli.common import EXIT_OK, capped_workers, note, out, warning
from playout.cli.engine import engine_factory, with_defaults
from playout.cli.position import make_game
from playout.cli.progress import games_progress


def parse_player(option: str, spec: str, game: Any, factory: arena.EngineFactory) -> arena.Player:
    """The player of ``spec``; an error names the option it came from."""
    try:
        return arena.parse_player(spec, game, engine_factory=factory)
    except InvalidParameterError as error:
        raise InvalidParameterError(f"{option} {spec!r}: {error}") from None


def arena_setup(args: argparse.Namespace) -> tuple[arena.EngineFactory, str]:
    """The engine factory (with the command line's engine defaults) and the executor kind of
    ``match`` / ``tournament``."""
    backend, executor = args.backend, args.executor
    if backend == "ray":  # the spelling: --backend ray runs games on Ray
        if executor not in ("auto", "ray"):
            raise InvalidParameterError(
                f"--backend ray runs games on Ray; it conflicts with --executor {executor}"
            )
        backend, executor = "auto", "ray"
    if args.ray_address is not None and executor != "ray":
        raise InvalidParameterError("--ray-address needs --executor ray")
    if args.overwrite and args.save is None:
        raise InvalidParameterError("--overwrite needs --save FILE")
    if executor == "local" and args.workers is not None and args.workers > 1:
        raise InvalidParameterError(
            f"--executor local plays one game at a time in this process; it cannot use "
            f"--workers {args.workers} (use --executor pool, or leave --workers out)"
        )
    # Processes on this machine (a pool, a local Ray instance): at most one per CPU. A Ray
    # cluster at --ray-address has CPUs of its own.
    args.workers = capped_workers(args.workers, cap=args.ray_address is None)
    if executor == "auto":
        executor = "local" if args.workers == 1 else "pool"
    return with_defaults(engine_factory(backend), args), executor


def check_plot(args: argparse.Namespace) -> None:
    """Reject a bad ``--plot`` file name, or a missing matplotlib, before any game.

    Raises:
        InvalidParameterError: not a ``.png`` or ``.svg`` name.
        MissingDependencyError: matplotlib is not installed.
    """
    if args.plot is None:
        return
    from playout.plots import check_image_path, require_matplotlib

    check_image_path(args.plot)
    require_matplotlib()


def p1_scores(records: dict[int, arena.GameRecord]) -> list[float]:
    """p1's score in each of ``records`` (by game index; p1 moves first in the even-numbered
    games), in order of index: the games of a match finished so far, which need not be the
    first ones in a parallel match."""
    return [
        0.5 if record.winner is None else float(record.winner == index % 2)
        for index, record in sorted(records.items())
    ]


def plot_every(games: int) -> int:
    """``match --plot`` redraws its file after every this many finished games (and at the
    end): 10, or a twentieth of a long match."""
    return max(10, games // 20)


def cmd_match(args: argparse.Namespace) -> int:
    """``playout match``: two programs play a series; the score from p1's side."""
    game = make_game(args)
    factory, executor = arena_setup(args)
    sprt = elo.Sprt.from_text(args.sprt) if args.sprt is not None else None
    p1 = parse_player("--p1", args.p1, game, factory)
    p2 = parse_player("--p2", args.p2, game, factory)
    check_plot(args)
    finished: dict[int, arena.GameRecord] = {}

    def progress(done: int, record: arena.GameRecord) -> None:
        advance(render.match_game_line(game, record, args.games))
        if args.plot is None:
            return
        # While the match runs: the games finished so far, by game index (in a parallel match
        # they finish out of order).
        finished[record.index] = record
        if done % plot_every(args.games) == 0 and done < args.games:
            from playout.plots import plot_match

            plot_match(p1_scores(finished), args.plot, p1=p1.name, p2=p2.name,
                       game=game.spec.name, planned_games=args.games, sprt=sprt)  # fmt: skip

    with games_progress(args.games, not args.json) as advance:
        result = arena.run_match(
            game,
            args.p1 if executor != "local" else p1,
            args.p2 if executor != "local" else p2,
            args.games,
            seed=args.seed,
            progress=progress,
            engine_factory=factory,
            workers=args.workers,
            executor=executor,  # type: ignore[arg-type]
            sprt=sprt,
            save=args.save,
            ray_address=args.ray_address,
            overwrite=args.overwrite,
            openings=args.openings,
        )
    if args.plot is not None:
        from playout.plots import plot_match

        plot_match(result, args.plot)
    if args.json:
        out(json.dumps(result.as_dict(), indent=2))
        if args.plot is not None:
            note(f"plot written to {args.plot}")
        return EXIT_OK
    out("\n" + render.match_text(result, args.games))
    if args.save is not None:
        out(f"saved {result.games} games to {args.save}")
    if args.plot is not None:
        out(f"plot written to {args.plot}")
    return EXIT_OK


def cmd_tournament(args: argparse.Namespace) -> int:
    """``playout tournament``: a round robin and its Elo table."""
    game = make_game(args)
    factory, executor = arena_setup(args)
    if len(args.players) < 2:
        raise InvalidParameterError("--players needs at least two players")
    players = [parse_player("--players", spec, game, factory) for spec in args.players]
    check_plot(args)
    total = len(players) * (len(players) - 1) // 2 * args.games
    with games_progress(total, False) as advance:
        result = arena.run_tournament(
            game,
            args.players if executor != "local" else players,
            args.games,
            seed=args.seed,
            progress=lambda *_: advance(None),
            engine_factory=factory,
            workers=args.workers,
            executor=executor,  # type: ignore[arg-type]
            save=args.save,
            ray_address=args.ray_address,
            overwrite=args.overwrite,
            anchor=0 if args.anchor == "first" else None,
            openings=args.openings,
        )
    if args.plot is not None:
        from playout.plots import plot_tournament

        plot_tournament(result, args.plot)
    if args.json:
        out(json.dumps(result.as_dict(), indent=2))
        if args.plot is not None:
            note(f"plot written to {args.plot}")
        return EXIT_OK
    out(render.tournament_text(result, len(players), args.games, args.anchor == "first"))
    if args.save is not None:
        out(f"saved {len(result.records)} games to {args.save}")
    if args.plot is not None:
        out(f"plot written to {args.plot}")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """``playout replay``: the boards of saved games, move by move."""
    games = arena.read_records(args.file, warn=warning)
    if args.game_index is not None:
        games = [saved for saved in games if saved.index == args.game_index]
        if not games:
            raise InvalidParameterError(f"{args.file}: no game with index {args.game_index}")
    for number, saved in enumerate(games):
        if number:
            out("")
        out(render.replay_text(saved))
    return EXIT_OK


__all__ = [
    "arena_setup",
    "check_plot",
    "cmd_match",
    "cmd_replay",
    "cmd_tournament",
    "p1_scores",
    "parse_player",
    "plot_every",
]
