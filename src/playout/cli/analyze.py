"""``playout analyze``: search a position (or evaluate it by flat Monte Carlo) and show the
result."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import playout
from playout import render
from playout._src.errors import GameOverError, InvalidParameterError
from playout._src.results import MAX_EXPORT_DEPTH
from playout.cli.common import DEFAULT_PLAYOUTS, EXIT_OK, capped_workers, note, out, warning
from playout.cli.engine import make_engine, search_budget
from playout.cli.position import make_game, parse_moves
from playout.cli.progress import progress_bar


def parallel_search(
    state: playout.GameState, engine: Any, args: argparse.Namespace
) -> playout.SearchResult | None:
    """``analyze --workers N``: a root-parallel compiled search, merged; or None when the
    compiled search cannot run this search with ``--backend auto`` (after a note on stderr).

    ``engine`` is the one-worker engine the options build: the compiled search can run
    exactly when its backend is ``"compiled"``.

    Raises:
        InvalidParameterError: ``--backend python``.
    """
    if args.backend == "python":
        raise InvalidParameterError(
            "--workers runs the compiled search in parallel; it cannot be combined with "
            "--backend python (use --workers 1)"
        )
    if engine.backend == "compiled":
        return playout.parallel_search(state, engine.config, workers=args.workers)
    try:
        playout.MCTS(state, engine.config.replace(backend="compiled"))
        reason = "the compiled search is not available for it"
    except InvalidParameterError as error:
        reason = str(error).removeprefix("backend='compiled' cannot run this search: ")
    note(f"--workers needs the compiled search ({reason}); searching with 1 worker")
    return None


def value_views(game: Any, state: Any, args: argparse.Namespace) -> list[int | None]:
    """The players whose values the grids show for ``--values-for`` (None: to move).

    ``to-move``, ``both``, a player's name in the game (``Red``, any case) or the seat
    symbols ``X`` / ``O`` (player 0 / player 1, in every two-player game).

    Raises:
        InvalidParameterError: a choice that names no player, or a side for a game that is
            not two-player.
    """
    choice = args.values_for
    if choice == "to-move":
        return [None]
    names = [render.player_label(game, p) for p in range(game.spec.num_players)]
    choices = ["to-move", *dict.fromkeys([*render.SYMBOLS, *names]), "both"]
    if game.spec.num_players != 2:
        raise InvalidParameterError(
            f"--values-for {choice} needs a two-player game; {game.spec.name} has "
            f"{game.spec.num_players} player(s) (use --values-for to-move)"
        )
    mover = state.current_player()
    if choice == "both":
        return [None, 1 - mover]
    for player, name in enumerate(names):
        if choice.casefold() == name.casefold():
            return [player]
    if choice in render.SYMBOLS:
        return [render.SYMBOLS.index(choice)]
    raise InvalidParameterError(
        f"--values-for {choice!r}: {game.spec.name} has no such player (choose from "
        f"{', '.join(choices)})"
    )


FLAT_CONFLICTS = (
    ("simulations", "--simulations", "--playouts N sets the games per move"),
    ("seconds", "--seconds", "it plays a fixed number of games per move"),
    ("rule", "--rule", "it has no tree to select in"),
    ("c", "--c", "it has no tree to select in"),
    ("rave_bias", "--rave-bias", "it has no tree to select in"),
    ("rave_prior", "--rave-prior", "it has no tree to select in"),
    ("bias_weight", "--bias-weight", "it has no tree to select in"),
    ("solver", "--solver/--no-solver", "it has no tree to prove"),
    ("final", "--final", "it takes the move of the best mean"),
    ("max_depth", "--max-depth", "it has no tree"),
    ("model", "--model", "it plays random games, no network"),
)


def check_flat_options(args: argparse.Namespace) -> None:
    """Reject the tree-search options that ``--flat`` would ignore (and ``--playouts``
    without ``--flat``).

    Raises:
        InvalidParameterError: the first such option.
    """
    if not args.flat:
        if args.playouts is not None:
            raise InvalidParameterError("--playouts sets the games per move of --flat")
        return
    for name, option, why in FLAT_CONFLICTS:
        if getattr(args, name) is not None:
            raise InvalidParameterError(f"--flat does not take {option}: {why}")
    if args.ai != "mcts":
        raise InvalidParameterError(
            f"--flat does not take --ai {args.ai}: it plays random games, no search"
        )
    for name, option, default in (
        ("workers", "--workers", 1),
        ("threads", "--threads", 1),
        ("rollouts", "--rollouts", 1),
        ("backend", "--backend", "auto"),
    ):
        if getattr(args, name) != default:
            raise InvalidParameterError(
                f"--flat does not take {option}: flat Monte Carlo runs in Python, one game "
                "at a time (use --playouts for more games)"
            )


def run_flat(state: Any, args: argparse.Namespace) -> tuple[playout.FlatResult, float]:
    """``analyze --flat``: the flat Monte Carlo values of ``state`` and the seconds taken."""
    from playout._src.arena import rollout_policy

    policy = rollout_policy(args.rollout, state.game)
    playouts = DEFAULT_PLAYOUTS if args.playouts is None else args.playouts
    start = time.perf_counter()
    result = playout.flat_monte_carlo(state, playouts=playouts, seed=args.seed, policy=policy)
    return result, time.perf_counter() - start


TREE_SUFFIXES = (".dot", ".json")
"""The files ``--tree`` writes: Graphviz DOT or JSON."""


def check_exports(args: argparse.Namespace) -> None:
    """Reject a bad ``--plot`` or ``--tree`` file name, or an export the search has nothing
    for (``--flat``; ``--tree`` of a root-parallel search), before searching.

    Raises:
        InvalidParameterError: the first problem.
    """
    if args.tree is None and (args.tree_depth != 2 or args.tree_width != 5):
        raise InvalidParameterError("--tree-depth and --tree-width shape --tree's export")
    if args.tree is not None:
        if args.flat:
            raise InvalidParameterError("--tree exports a search tree; --flat has none")
        if args.workers > 1 or args.threads > 1:
            raise InvalidParameterError(
                "--tree exports one search tree; a root-parallel search (--workers, --threads) "
                "merges only the roots of several"
            )
        if Path(args.tree).suffix.lower() not in TREE_SUFFIXES:
            raise InvalidParameterError(f"{args.tree}: a tree is written as .dot or .json")
        if args.tree_depth > MAX_EXPORT_DEPTH:
            raise InvalidParameterError(
                f"--tree-depth must be at most {MAX_EXPORT_DEPTH}, got {args.tree_depth}"
            )
    if args.plot is None:
        return
    from playout.plots import check_image_path

    if args.flat:
        raise InvalidParameterError("--plot draws a tree search's visits; --flat has none")
    check_image_path(args.plot)


def write_exports(
    game: Any,
    state: Any,
    result: playout.SearchResult | playout.FlatResult,
    engine: playout.MCTS | None,
    args: argparse.Namespace,
) -> None:
    """Write ``--plot``'s and ``--tree``'s files and say where (on stderr with ``--json``)."""
    say = note if args.json else out
    if args.tree is not None and engine is not None:
        path = Path(args.tree)
        root = engine.export_tree(depth=args.tree_depth, width=args.tree_width)
        if path.suffix.lower() == ".json":
            text = json.dumps(render.tree_json(game, state, root), indent=1) + "\n"
        else:
            text = render.tree_dot(game, state, root)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            raise InvalidParameterError(f"{path}: cannot write the tree ({error})") from error
        say(f"tree written to {path} ({root.count():,} nodes)")
    if args.plot is not None and isinstance(result, playout.SearchResult):
        from playout.plots import plot_search

        say(f"plot written to {plot_search(game, state, result, args.plot)}")


def cmd_analyze(args: argparse.Namespace) -> int:
    """``playout analyze``: play the moves, search, render the result."""
    check_flat_options(args)
    check_exports(args)
    if args.threads > 1 and args.workers > 1:
        raise InvalidParameterError("give --threads or --workers, not both")
    if args.shared_tree and (args.workers > 1 or args.flat):
        raise InvalidParameterError(
            "--shared-tree runs --threads on one tree: not with --workers or --flat"
        )
    args.workers = capped_workers(args.workers)
    args.threads = capped_workers(args.threads, option="--threads")
    game = make_game(args)
    state, actions = parse_moves(game, args.moves)
    if state.is_terminal():
        raise GameOverError(
            f"the game is over after these moves ({render.outcome_text(game, state)}): "
            "nothing to analyse"
        )
    views = value_views(game, state, args)
    workers = 1
    seconds = 0.0
    result: playout.SearchResult | playout.FlatResult | None
    engine: playout.MCTS | None = None
    if args.flat:
        result, seconds = run_flat(state, args)
    else:
        engine = make_engine(state, args)  # built first: option errors come before any work
        if args.shared_tree:
            result = playout.parallel_search(
                state, engine.config, threads=args.threads, shared_tree=True
            )
        elif args.threads > 1:
            result = playout.parallel_search(state, engine.config, threads=args.threads)
        else:
            result = parallel_search(state, engine, args) if args.workers > 1 else None
        if result is not None:
            workers = max(args.threads, args.workers)
        elif args.json:
            result = engine.run()
        else:
            with progress_bar(search_budget(args), "thinking") as callback:
                result = engine.run(progress=callback)
    if isinstance(result, playout.SearchResult) and result.simulations == 0:
        warning(
            f"the search ran 0 simulations in --seconds {args.seconds:g}: the best move was "
            "not searched, it is a guess (give the search more time)"
            if args.seconds is not None
            else "the search ran 0 simulations: the best move was not searched, it is a guess"
        )
    if args.json:
        if isinstance(result, playout.FlatResult):
            data = render.flat_json(game, state, result, seconds)
        else:
            data = render.analysis_json(game, state, result, workers)
        out(json.dumps(data, indent=2))
        write_exports(game, state, result, engine, args)
        return EXIT_OK
    moves = render.moves_text(game, game.initial_state(), actions)
    label = render.player_label(game, state.current_player())
    header = f"{game.spec.name}: {label} to move"
    plural = "s" if len(moves) != 1 else ""
    header += (
        f" after {len(moves)} move{plural}: {' '.join(moves)}" if moves else " (initial position)"
    )
    if args.shared_tree:
        header += f"; shared-tree search, {args.threads} thread{'s' if args.threads > 1 else ''}"
    elif workers > 1:
        kind = "threads" if args.threads > 1 else "workers"
        header += f"; root-parallel search, {workers} {kind}"
    if args.flat:
        header += f"; flat Monte Carlo in {seconds:.2f} s"
    lines = [header, render.board_text(game, state), ""]
    planned = None if args.flat else search_budget(args).simulations
    grids = render.grids_text(game, result, views=views, planned_simulations=planned)
    if grids:
        lines += [grids, ""]
    elif isinstance(result, playout.SearchResult) and result.proven is not None:
        lines += [render.proven_text(game, result, planned), ""]
    lines += [
        render.top_moves_text(game, state, result, 5),
        "",
        render.result_text(game, state, result),
    ]
    out("\n".join(lines))
    write_exports(game, state, result, engine, args)
    return EXIT_OK


__all__ = ["cmd_analyze", "parallel_search"]
