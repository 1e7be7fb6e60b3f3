"""The ``playout`` command line: play against MCTS, analyse a position, run a match.

Usage::

    playout games
    playout play GAME [--width W --height H --k K] [--first human|ai]
                 [--simulations N | --seconds S] [--seed K] [--rollout random|neighbors]
    playout analyze GAME --moves "1,1 0,0" [--simulations N | --seconds S] [--seed K] [--json]
                    [--workers N]
    playout match GAME --p1 SPEC --p2 SPEC --games N [--seed K] [--json] [--workers N]
                  [--executor auto|local|pool|ray] [--ray-address ADDR] [--sprt ELO0,ELO1]
                  [--save FILE.jsonl] [--backend auto|python|compiled|ray]
    playout tournament GAME --players SPEC SPEC [SPEC ...] --games N [--anchor mean|first]
    playout replay FILE.jsonl [--game-index I]
    playout bench [--game tictactoe|connect4|mnk9 ...] [--sims N] [--python-sims N] [--reps R]
                  [--big [--big-reps R]] [--seed K] [--json]

``match`` and ``tournament`` run games on ``--workers`` processes (default: one per CPU; 1 runs
in this process) or, with ``--executor ray``, on a Ray cluster; ``--backend ray`` is accepted
as a short form of ``--executor ray`` and leaves the search backend on ``auto``. ``analyze
--workers N`` runs a root-parallel compiled search in N processes.

User errors (unknown game, bad move, impossible size, bad budget or player spec) print one
line ``playout: error: ...`` on stderr and exit with code 2. The search itself never prints:
everything shown here is rendered from its results by :mod:`playout.render`.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import playout
from playout import render
from playout._src import arena, elo
from playout._src import benchmark as bench_lib
from playout._src.errors import (
    GameOverError,
    InvalidParameterError,
    MoveError,
    MoveParseError,
    PlayoutError,
)

PROG = "playout"
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
DEFAULT_SIMULATIONS = 1000
SYMBOLS = ("X", "O")
"""How the built-in two-player games draw player 0 and player 1."""
QUIT_WORDS = frozenset({"q", "quit", "exit"})
HELP_WORDS = frozenset({"?", "h", "help"})
BENCH_GAMES = bench_lib.GAMES
BIG_SIMULATIONS = 1_000_000


class UsageError(Exception):
    """Raised by the argument parser instead of exiting (``main`` turns it into exit 2)."""


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line ``playout: error: ...`` (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# ------------------------------------------------------------------------------ arguments


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def _add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="game name (see 'playout games')")
    group = parser.add_argument_group("game parameters (mnk, gomoku, connect4)")
    group.add_argument("--width", type=_positive_int, help="board width (columns)")
    group.add_argument("--height", type=_positive_int, help="board height (rows)")
    group.add_argument("--k", type=_positive_int, help="stones in a row needed to win")


def _add_backend_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=("auto", "python", "compiled"),
        default="auto",
        help="search implementation (default: auto)",
    )


def _add_search_arguments(parser: argparse.ArgumentParser) -> None:
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--simulations",
        type=_positive_int,
        metavar="N",
        help=f"simulations per search (default {DEFAULT_SIMULATIONS})",
    )
    budget.add_argument(
        "--seconds", type=_positive_float, metavar="S", help="seconds per search instead"
    )
    parser.add_argument("--seed", type=_non_negative_int, metavar="K", help="random seed")
    parser.add_argument(
        "--rollout",
        choices=("random", "neighbors"),
        default="random",
        help="rollout policy; neighbors (seed 004) only for grid games",
    )
    parser.add_argument(
        "--rollouts", type=_positive_int, default=1, metavar="N", help="rollouts per leaf"
    )
    parser.add_argument(
        "--rule",
        choices=("ucb1", "puct", "epsilon", "rave", "pb"),
        default=None,
        help="selection rule (default ucb1, or the game's own: puct for chess); rave: MC-RAVE, "
        "pb: UCB1 with progressive bias from the game's move heuristic (both run on the "
        "Python search)",
    )
    parser.add_argument(
        "--c",
        type=float,
        metavar="C",
        help="the rule's constant (exploration; epsilon for --rule epsilon)",
    )
    parser.add_argument(
        "--rave-bias", type=float, metavar="B", help="the RAVE bias b of --rule rave"
    )
    parser.add_argument(
        "--bias-weight", type=float, metavar="W", help="the heuristic's weight of --rule pb"
    )
    _add_backend_argument(parser)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``playout`` command."""
    parser = _Parser(
        prog=PROG,
        description="Monte Carlo Tree Search for games: play, analyse positions, run matches.",
    )
    parser.add_argument("--version", action="version", version=f"playout {playout.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    games = commands.add_parser("games", help="list the games")
    games.set_defaults(handler=cmd_games)

    play = commands.add_parser(
        "play",
        help="play against MCTS in the terminal",
        description="Play against MCTS. Type moves in the game's notation ('x,y' or 'b3' "
        "for grid games, a column number for connect four); 'help' lists the legal moves, "
        "'quit' ends the game.",
    )
    _add_game_arguments(play)
    play.add_argument("--first", choices=("human", "ai"), default="human", help="who moves first")
    play.add_argument("--fen", metavar="FEN", help="chess: start from this position")
    _add_search_arguments(play)
    play.set_defaults(handler=cmd_play)

    analyze = commands.add_parser(
        "analyze",
        aliases=["analyse"],
        help="search a position and show what MCTS thinks",
        description="Play MOVES from the initial position, search, and show the move "
        "probabilities, values, best move and principal variation.",
    )
    _add_game_arguments(analyze)
    analyze.add_argument(
        "--moves",
        default="",
        metavar="MOVES",
        help='space-separated moves in the game\'s notation, e.g. "1,1 0,0"; for connect '
        'four also a digit string like 4453; for chess UCI or SAN, e.g. "e2e4 e7e5 Nf3"',
    )
    analyze.add_argument(
        "--fen", metavar="FEN", help="chess: start from this position (then play --moves)"
    )
    _add_search_arguments(analyze)
    analyze.add_argument("--json", action="store_true", help="print one JSON object")
    analyze.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        metavar="N",
        help="root-parallel search: N worker processes search the position independently "
        "(each with the whole --simulations or --seconds budget and its own seed) and their "
        "root statistics are added up, so about N times the simulations are reported. It "
        "needs the compiled search: where the game or the options have none (auto backend) "
        "it searches with 1 worker and says so on stderr; with --backend python it is an "
        "error (default 1)",
    )
    analyze.set_defaults(handler=cmd_analyze)

    match = commands.add_parser(
        "match",
        help="play programs against each other",
        description="Play GAMES games between two players, alternating who moves first "
        "(p1 starts the even-numbered games), in parallel worker processes. " + PLAYERS_HELP,
    )
    _add_game_arguments(match)
    match.add_argument("--p1", required=True, metavar="SPEC", help="first player")
    match.add_argument("--p2", required=True, metavar="SPEC", help="second player")
    match.add_argument(
        "--games", type=_positive_int, default=10, metavar="N", help="number of games"
    )
    match.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="stop early once a sequential test (GSPRT, alpha = beta = 0.05) decides between "
        "'p1 is ELO0 Elo stronger' and 'ELO1 Elo stronger'; games run in batches of --workers",
    )
    _add_arena_arguments(match)
    match.set_defaults(handler=cmd_match)

    tournament = commands.add_parser(
        "tournament",
        help="round robin between several programs, with Elo ratings",
        description="Every pair of PLAYERS plays GAMES games, alternating who moves first; "
        "ratings are fitted by maximum likelihood (Bradley-Terry, draws as half a win, one "
        "virtual draw per pair). " + PLAYERS_HELP,
    )
    _add_game_arguments(tournament)
    tournament.add_argument(
        "--players", required=True, nargs="+", metavar="SPEC", help="two or more players"
    )
    tournament.add_argument(
        "--games", type=_positive_int, default=10, metavar="N", help="games per pair"
    )
    tournament.add_argument(
        "--anchor",
        choices=("mean", "first"),
        default="mean",
        help="ratings average 0 (mean) or the first player is at 0 (first)",
    )
    _add_arena_arguments(tournament)
    tournament.set_defaults(handler=cmd_tournament)

    replay = commands.add_parser(
        "replay",
        help="show the games saved by match --save move by move",
        description="Print the boards of saved games move by move (every game in the file, "
        "or the one numbered --game-index).",
    )
    replay.add_argument("file", metavar="FILE", help="a file written by --save (JSON lines)")
    replay.add_argument(
        "--game-index",
        type=_non_negative_int,
        metavar="I",
        help="only the game with this index (0-based game number of the match)",
    )
    replay.set_defaults(handler=cmd_replay)

    bench = commands.add_parser(
        "bench",
        help="speed and memory of playout's engines against OpenSpiel's MCTS",
        description="One decision from the empty board (plain UCT, c = sqrt(2), one random "
        "rollout per leaf, solver off) by playout-compiled, playout-python, OpenSpiel's C++ "
        "MCTSBot and OpenSpiel's Python MCTSBot, interleaved repetition by repetition. "
        "Reports simulations per CPU second (median), the ratio playout-compiled / each "
        "(median of the per-repetition ratios; above 1: playout-compiled is faster) and the "
        "extra peak resident memory of one decision, measured in a fresh process (Linux). "
        "Without open-spiel its columns say 'not installed'.",
    )
    bench.add_argument(
        "--game",
        choices=tuple(BENCH_GAMES),
        action="append",
        metavar="GAME",
        help=f"a game to run, repeatable: {', '.join(BENCH_GAMES)} (default: all)",
    )
    bench.add_argument(
        "--sims",
        type=_positive_int,
        default=10_000,
        metavar="N",
        help="simulations per decision for playout-compiled and openspiel-cpp (default 10000)",
    )
    bench.add_argument(
        "--python-sims",
        type=_positive_int,
        default=2_000,
        metavar="N",
        help="simulations per decision for the two Python implementations, at most --sims "
        "(default 2000)",
    )
    bench.add_argument(
        "--reps", type=_positive_int, default=5, metavar="R", help="repetitions (default 5)"
    )
    bench.add_argument(
        "--big",
        action="store_true",
        help="add connect four at 1,000,000 simulations (playout-compiled and openspiel-cpp, "
        "in a fresh process each): how the cost grows with the tree",
    )
    bench.add_argument(
        "--big-reps",
        type=_positive_int,
        default=3,
        metavar="R",
        help="decisions per implementation at 1,000,000 simulations with --big (default 3)",
    )
    bench.add_argument(
        "--seed", type=_non_negative_int, default=0, metavar="K", help="base seed (default 0)"
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=cmd_bench)
    return parser


PLAYERS_HELP = (
    "Players: 'random'; 'perfect' (exact play, boards up to 12 squares); "
    "'mcts[:key=value,...]' with keys simulations, seconds, rollout (random|neighbors), "
    "rollouts, rule (ucb1|puct|epsilon|rave|pb), c, bias (rave), weight (pb), reuse (yes|no), "
    "solver (yes|no), e.g. "
    "mcts:simulations=400,rollout=neighbors; 'openspiel-mcts[:simulations=N,seconds=S,c=C]' "
    "(OpenSpiel's C++ MCTS with random rollouts, needs open-spiel)."
)


def _add_arena_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``match`` and ``tournament``: seed, output, where games run."""
    parser.add_argument(
        "--seed", type=_non_negative_int, default=0, metavar="K", help="match seed (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--save",
        metavar="FILE",
        help="write every game to FILE as one JSON line as soon as it ends (see replay)",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="games played at once (default: the number of CPUs; 1 plays in this process)",
    )
    parser.add_argument(
        "--executor",
        choices=("auto", "local", "pool", "ray"),
        default="auto",
        help="where games run: this process (local), a process pool (pool) or a Ray cluster "
        "(ray, needs 'pip install ray'); auto: local for --workers 1, else pool",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="Ray cluster to join (e.g. ray://host:10001 or auto); default a local instance",
    )
    parser.add_argument(
        "--backend",
        choices=("auto", "python", "compiled", "ray"),
        default="auto",
        help="search implementation (default: auto); 'ray' is short for --executor ray "
        "with the auto search backend",
    )


# ------------------------------------------------------------------------------ engine


def _engine_factory(backend: str) -> arena.EngineFactory:
    """The function that builds search engines for ``--backend`` (the one place to route)."""
    return functools.partial(playout.MCTS, backend=backend)


def _search_options(args: argparse.Namespace) -> arena.MctsOptions:
    if args.seconds is not None:
        budget = playout.Budget(seconds=args.seconds)
    else:
        simulations = DEFAULT_SIMULATIONS if args.simulations is None else args.simulations
        budget = playout.Budget(simulations=simulations)
    options = arena.MctsOptions(
        budget=budget,
        rollout=args.rollout,
        num_rollouts=args.rollouts,
        rule=args.rule or "ucb1",
        c=args.c,
        bias=args.rave_bias,
        weight=args.bias_weight,
    )
    options.selection()  # validate the rule's constant
    return options


def _engine_options(state: playout.GameState, args: argparse.Namespace) -> dict[str, Any]:
    """The engine's ``selection``, ``evaluator``, ``budget`` and ``seed`` from the options."""
    options = _search_options(args)
    selection, evaluator = options.selection(), options.evaluator(state.game)
    # A game may recommend its own evaluator and selection rule (chess: a static evaluation
    # with move priors, for PUCT); they apply unless the options ask for something else.
    game = state.game
    if args.rollout == "random" and args.rollouts == 1 and hasattr(game, "default_evaluator"):
        evaluator = game.default_evaluator()
        if args.rule is None and args.c is None and hasattr(game, "default_selection"):
            selection = game.default_selection()
    return {
        "selection": selection,
        "evaluator": evaluator,
        "budget": options.budget,
        "seed": args.seed,
    }


def _engine(state: playout.GameState, args: argparse.Namespace) -> Any:
    """The search engine for ``play`` and ``analyze``, built from the command's options."""
    return _engine_factory(args.backend)(state, **_engine_options(state, args))


def _parallel_search(
    state: playout.GameState, engine: Any, args: argparse.Namespace
) -> playout.SearchResult | None:
    """``analyze --workers N``: a root-parallel compiled search, merged; or None when the
    compiled search cannot run this search with ``--backend auto`` (after a note on stderr).

    ``engine`` is the one-worker engine the options build: the compiled search can run
    exactly when it is a :class:`~playout._src.compiled.CompiledMCTS`.

    Raises:
        InvalidParameterError: ``--backend python``.
    """
    if args.backend == "python":
        raise InvalidParameterError(
            "--workers runs the compiled search in parallel; it cannot be combined with "
            "--backend python (use --workers 1)"
        )
    options = _engine_options(state, args)
    if engine.backend == "compiled":
        from playout._src.parallel import parallel_search

        return parallel_search(
            state, workers=args.workers, backend="compiled", **options
        )
    try:
        playout.MCTS(state, backend="compiled", **options)
        reason = "the compiled search is not available for it"
    except InvalidParameterError as error:
        reason = str(error).removeprefix("backend='compiled' cannot run this search: ")
    print(
        f"{PROG}: note: --workers needs the compiled search ({reason}); searching with 1 worker",
        file=sys.stderr,
        flush=True,
    )
    return None


@contextlib.contextmanager
def _progress_bar(
    budget: playout.Budget, description: str
) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar over simulations when stdout is a terminal; else no callback."""
    if not sys.stdout.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    total = budget.simulations if budget.simulations is not None else None
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stdout),
        transient=True,
    )
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda done: progress.update(task, completed=done)


# ------------------------------------------------------------------------------ games


def _make_game(args: argparse.Namespace) -> Any:
    params = {
        name: getattr(args, name)
        for name in ("width", "height", "k", "fen")
        if getattr(args, name, None) is not None
    }
    return playout.make_game(args.game, **params)


def _is_column_game(game: Any) -> bool:
    shape = render.grid_shape(game)
    return shape is not None and shape[1] == 1 and getattr(game, "height", 1) > 1


def _parse_moves(game: Any, text: str) -> tuple[Any, list[int]]:
    """The position after ``text`` (space-separated moves) and the actions played.

    For column games up to 9 columns wide (connect four) a token of several digits is one
    move per digit, so ``4453`` is columns 4, 4, 5, 3.
    """
    state = game.initial_state()
    tokens: list[str] = []
    split_digits = _is_column_game(game) and game.width <= 9
    for token in text.split():
        if split_digits and token.isdecimal() and len(token) > 1:
            tokens.extend(token)
        else:
            tokens.append(token)
    actions: list[int] = []
    for index, token in enumerate(tokens, start=1):
        if state.is_terminal():
            raise GameOverError(f"move {index} ({token!r}): the game is already over")
        try:
            action = game.string_to_action(state, token)
        except MoveError as error:
            raise type(error)(f"move {index} ({token!r}): {error}") from None
        state = state.play(action)
        actions.append(action)
    return state, actions


def _board_text(game: Any, state: Any) -> str:
    render_fn = getattr(game, "render", None)
    return render_fn(state) if render_fn is not None else str(state)


def _player_label(game: Any, player: int) -> str:
    """``X``/``O`` for the players of a two-player game (as the built-in games draw them)."""
    if game.spec.num_players == 1:
        return "the player"
    return SYMBOLS[player] if 0 <= player < len(SYMBOLS) else f"player {player}"


def _outcome_text(game: Any, state: Any) -> str:
    returns = tuple(state.returns())
    if game.spec.num_players == 1:
        return f"game over: return {returns[0]:+g}"
    if returns[0] > returns[1]:
        return f"{_player_label(game, 0)} wins"
    if returns[1] > returns[0]:
        return f"{_player_label(game, 1)} wins"
    return "draw"


# ------------------------------------------------------------------------------ rendering


def _grids_text(game: Any, result: playout.SearchResult) -> list[str]:
    """Move-probability and value grids (or a table for games without a board layout)."""
    shape = render.grid_shape(game)
    if shape is None:
        return []
    width, height = shape
    probabilities = render.probability_grid(result, width, height, fill=None)
    values = render.value_grid(result, width, height)
    label = _player_label(game, result.player)
    return [
        f"move probabilities ({result.total_simulations:,} simulations at the root):",
        render.grid_text(render.grid_values(probabilities), width, height),
        "",
        f"values for {label} (to move):",
        render.grid_text(render.grid_values(values), width, height),
    ]


def _top_moves_text(game: Any, state: Any, result: playout.SearchResult, limit: int) -> str:
    rows = sorted(
        zip(result.actions, result.visit_counts, result.values, strict=True),
        key=lambda row: (-row[1], row[0]),
    )[:limit]
    total = sum(result.visit_counts) or 1
    notation = [game.action_to_string(state, action) for action, _, _ in rows]
    pad = max((len(text) for text in notation), default=0)
    lines = [f"top moves ({min(limit, len(result.actions))} of {len(result.actions)}):"]
    for text, (_, visits, value) in zip(notation, rows, strict=True):
        lines.append(
            f"  {text.ljust(pad)}  visits {visits:>7,}  share {visits / total:5.1%}"
            f"  value {value:+.3f}"
        )
    return "\n".join(lines)


def _out(text: str = "") -> None:
    print(text, flush=True)


# ------------------------------------------------------------------------------ commands


def cmd_games(args: argparse.Namespace) -> int:
    """``playout games``: every registered game with a one-line summary."""
    names = list(playout.game_names())
    pad = max((len(name) for name in names), default=0)
    for name in names:
        _out(f"{name.ljust(pad)}  {_game_summary(name)}")
    return EXIT_OK


def _game_summary(name: str) -> str:
    from playout._src.registry import game_summary

    return game_summary(name)


def cmd_analyze(args: argparse.Namespace) -> int:
    """``playout analyze``: play the moves, search, render the result."""
    game = _make_game(args)
    state, actions = _parse_moves(game, args.moves)
    if state.is_terminal():
        raise GameOverError(
            f"the game is over after these moves ({_outcome_text(game, state)}): nothing to analyse"
        )
    engine = _engine(state, args)  # built first: option errors come before any work
    workers = 1
    result = _parallel_search(state, engine, args) if args.workers > 1 else None
    if result is not None:
        workers = args.workers
    elif args.json:
        result = engine.run()
    else:
        with _progress_bar(_search_options(args).budget, "thinking") as callback:
            result = engine.run(progress=callback)
    if args.json:
        _out(json.dumps(_analysis_json(game, state, result, workers), indent=2))
        return EXIT_OK
    moves = render.moves_text(game, game.initial_state(), actions)
    header = f"{game.spec.name}: {_player_label(game, state.current_player())} to move"
    header += f" after {len(moves)} moves: {' '.join(moves)}" if moves else " (initial position)"
    if workers > 1:
        header += f"; root-parallel search, {workers} workers"
    lines = [header, _board_text(game, state), ""]
    grids = _grids_text(game, result)
    if grids:
        lines += [*grids, ""]
    lines += [
        _top_moves_text(game, state, result, 5),
        "",
        render.result_text(game, state, result, player_name=_player_label(game, result.player)),
    ]
    _out("\n".join(lines))
    return EXIT_OK


def _analysis_json(
    game: Any, state: Any, result: playout.SearchResult, workers: int = 1
) -> dict[str, Any]:
    return {
        "game": game.spec.name,
        "to_play": state.current_player(),
        "best_action": result.best_action,
        "best_move": game.action_to_string(state, result.best_action),
        "value": result.value,
        "actions": [
            {
                "action": action,
                "move": game.action_to_string(state, action),
                "visits": visits,
                "value": value,
            }
            for action, visits, value in zip(
                result.actions, result.visit_counts, result.values, strict=True
            )
        ],
        "pv": render.moves_text(game, state, result.pv),
        "simulations": result.simulations,
        "seconds": result.seconds,
        "nodes": result.nodes,
        "max_depth": result.max_depth,
        "proven": result.proven,
        "workers": workers,
    }


def _read_line(prompt: str) -> str:
    """One line of input; raises EOFError at end of input. Echoes piped input."""
    if sys.stdin.isatty():
        return input(prompt)
    print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    print(line.rstrip("\r\n"), flush=True)
    return line


def _human_move(game: Any, state: Any, label: str) -> int | None:
    """Ask until the human types a legal move; None to quit."""
    while True:
        text = _read_line(f"your move ({label}): ").strip()
        if text.lower() in QUIT_WORDS:
            return None
        if not text:
            continue
        if text.lower() in HELP_WORDS:
            legal = " ".join(game.action_to_string(state, a) for a in state.legal_actions())
            _out(f"legal moves: {legal}")
            _out("type a move in the notation shown, or 'quit' to stop")
            continue
        try:
            return int(game.string_to_action(state, text))
        except MoveParseError as error:
            _out(f"cannot read that move: {error}")
        except MoveError as error:
            _out(f"illegal move: {error}")


def cmd_play(args: argparse.Namespace) -> int:
    """``playout play``: a human against MCTS in the terminal."""
    game = _make_game(args)
    if game.spec.num_players != 2:
        raise InvalidParameterError(f"{game.spec.name} is not a two-player game; try analyze")
    state = game.initial_state()
    engine = _engine(state, args)  # built before the first prompt: option errors come first
    human = 0 if args.first == "human" else 1
    ai_label, human_label = _player_label(game, 1 - human), _player_label(game, human)
    try:
        _out(
            f"{game.spec.name}: you are {human_label}, the AI is {ai_label}. "
            "Type 'help' for the legal moves, 'quit' to stop."
        )
        _out(_board_text(game, state))
        while not state.is_terminal():
            if state.current_player() == human:
                action = _human_move(game, state, human_label)
                if action is None:
                    _out("bye")
                    return EXIT_OK
                _out(f"you play {game.action_to_string(state, action)}")
                engine.advance(action)
                state = state.play(action)
                if state.is_terminal():
                    _out(_board_text(game, state))
                continue
            with _progress_bar(_search_options(args).budget, f"{ai_label} thinking") as callback:
                result = engine.run(progress=callback)
            action = result.best_action
            _out(f"\nAI ({ai_label}) plays {game.action_to_string(state, action)}")
            engine.advance(action)
            state = state.play(action)
            _out(_board_text(game, state))
            _out("")
            for line in _grids_text(game, result)[:2]:
                _out(line)
            _out(
                f"AI value: {result.value:+.2f} (for {ai_label}, in [-1, 1]; "
                f"{result.simulations:,} simulations in {result.seconds:.2f} s)\n"
            )
        returns = tuple(state.returns())
        if returns[human] > returns[1 - human]:
            verdict = "you win"
        elif returns[human] < returns[1 - human]:
            verdict = "the AI wins"
        else:
            verdict = "nobody wins"
        _out(f"game over: {_outcome_text(game, state)} ({verdict})")
        return EXIT_OK
    except (EOFError, KeyboardInterrupt):
        _out("\nbye")
        return EXIT_OK


def _parse_player(option: str, spec: str, game: Any, factory: arena.EngineFactory) -> arena.Player:
    try:
        return arena.parse_player(spec, game, engine_factory=factory)
    except InvalidParameterError as error:
        raise InvalidParameterError(f"{option} {spec!r}: {error}") from None


def _arena_setup(args: argparse.Namespace) -> tuple[arena.EngineFactory, str]:
    """The engine factory and the executor kind of ``match`` / ``tournament``."""
    backend, executor = args.backend, args.executor
    if backend == "ray":  # the spelling: --backend ray runs games on Ray
        if executor not in ("auto", "ray"):
            raise InvalidParameterError(
                f"--backend ray runs games on Ray; it conflicts with --executor {executor}"
            )
        backend, executor = "auto", "ray"
    if args.ray_address is not None and executor != "ray":
        raise InvalidParameterError("--ray-address needs --executor ray")
    if executor == "auto":
        executor = "local" if args.workers == 1 else "pool"
    return _engine_factory(backend), executor


@contextlib.contextmanager
def _games_progress(total: int, show_lines: bool) -> Iterator[Callable[[str | None], None]]:
    """A callback per finished game: a rich progress bar on a terminal (game lines printed
    above it), plain game lines otherwise (none when ``show_lines`` is False)."""
    if not sys.stdout.isatty():
        yield lambda line: _out(line) if show_lines and line is not None else None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stdout),
        transient=True,
    )
    with progress:
        task = progress.add_task("games", total=total)

        def advance(line: str | None) -> None:
            if show_lines and line is not None:
                progress.console.print(line, markup=False, highlight=False)
            progress.advance(task)

        yield advance


def cmd_match(args: argparse.Namespace) -> int:
    """``playout match``: two programs play a series; the score from p1's side."""
    game = _make_game(args)
    factory, executor = _arena_setup(args)
    sprt = elo.Sprt.from_text(args.sprt) if args.sprt is not None else None
    p1 = _parse_player("--p1", args.p1, game, factory)
    p2 = _parse_player("--p2", args.p2, game, factory)

    def line(record: arena.GameRecord) -> str:
        index = record.index
        first = "p1" if index % 2 == 0 else "p2"
        winner = record.winner
        if winner is None:
            text = "draw"
        else:
            p1_won = winner == index % 2
            text = f"{'p1' if p1_won else 'p2'} ({_player_label(game, winner)}) wins"
        return (
            f"game {index + 1}/{args.games}: {first} first, {text} in {record.num_moves} moves"
            f" ({record.seconds:.1f} s)"
        )

    with _games_progress(args.games, not args.json) as advance:
        result = arena.run_match(
            game,
            args.p1 if executor != "local" else p1,
            args.p2 if executor != "local" else p2,
            args.games,
            seed=args.seed,
            progress=lambda _, record: advance(line(record)),
            engine_factory=factory,
            workers=args.workers,
            executor=executor,  # type: ignore[arg-type]
            sprt=sprt,
            save=args.save,
            ray_address=args.ray_address,
        )
    if args.json:
        _out(json.dumps(result.as_dict(), indent=2))
        return EXIT_OK
    low, high = result.confidence_interval
    elo_low, elo_high = result.elo_interval
    fmt = elo.format_elo
    _out(f"\n{result.game}: p1 = {result.p1}, p2 = {result.p2}, {result.games} games")
    _out(f"p1: {result.wins} wins, {result.draws} draws, {result.losses} losses")
    _out(f"p1 score: {result.score:.3f} (95% CI {low:.3f} .. {high:.3f}, Wilson)")
    _out(f"p1 Elo: {fmt(result.elo)} (95% CI {fmt(elo_low)} .. {fmt(elo_high)})")
    if result.sprt is not None:
        status = result.sprt
        verdict = {
            "H1": f"H1 accepted (p1 is {status.test.elo1:g} Elo stronger or more)",
            "H0": f"H0 accepted (p1 is at most {status.test.elo0:g} Elo stronger)",
            None: "no decision yet",
        }[status.decision]
        _out(
            f"SPRT [{status.test.elo0:g}, {status.test.elo1:g}]: LLR {status.llr:.2f} "
            f"(bounds {status.lower:.2f}, {status.upper:.2f}): {verdict} after "
            f"{result.games} of {args.games} games"
        )
    if args.save is not None:
        _out(f"saved {result.games} games to {args.save}")
    return EXIT_OK


def cmd_tournament(args: argparse.Namespace) -> int:
    """``playout tournament``: a round robin and its Elo table."""
    game = _make_game(args)
    factory, executor = _arena_setup(args)
    if len(args.players) < 2:
        raise InvalidParameterError("--players needs at least two players")
    players = [_parse_player("--players", spec, game, factory) for spec in args.players]
    total = len(players) * (len(players) - 1) // 2 * args.games
    with _games_progress(total, False) as advance:
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
            anchor=0 if args.anchor == "first" else None,
        )
    if args.json:
        _out(json.dumps(result.as_dict(), indent=2))
        return EXIT_OK
    rows = result.standings()
    pad = max(len("player"), *(len(row.player) for row in rows))
    _out(
        f"{result.game}: round robin of {len(players)} players, {args.games} games per pair, "
        f"{len(result.records)} games"
    )
    _out(
        f"{'#':>2}  {'player'.ljust(pad)}  {'Elo':>7}  {'games':>5}  {'W':>4}  {'D':>4}"
        f"  {'L':>4}  {'score':>5}"
    )
    for rank, row in enumerate(rows, start=1):
        _out(
            f"{rank:>2}  {row.player.ljust(pad)}  {row.rating:>+7.1f}  {row.games:>5}"
            f"  {row.wins:>4}  {row.draws:>4}  {row.losses:>4}  {row.score:>5.3f}"
        )
    anchor = "the first player" if args.anchor == "first" else "the mean"
    _out(f"Elo: Bradley-Terry maximum likelihood, anchored at {anchor} = 0")
    if args.save is not None:
        _out(f"saved {len(result.records)} games to {args.save}")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """``playout replay``: the boards of saved games, move by move."""
    games = arena.read_records(args.file)
    if args.game_index is not None:
        games = [saved for saved in games if saved.index == args.game_index]
        if not games:
            raise InvalidParameterError(f"{args.file}: no game with index {args.game_index}")
    for number, saved in enumerate(games):
        game, data = saved.game, saved.data
        names = list(data.get("players", []))
        versus = " vs ".join(
            f"{name} ({_player_label(game, seat)})" for seat, name in enumerate(names)
        )
        if number:
            _out("")
        _out(f"game {saved.index}: {game.spec.name}" + (f", {versus}" if versus else ""))
        _out(_board_text(game, saved.states[0]))
        for move, (action, before, after) in enumerate(
            zip(saved.actions, saved.states[:-1], saved.states[1:], strict=True), start=1
        ):
            label = _player_label(game, before.current_player())
            _out(f"\nmove {move}: {label} plays {game.action_to_string(before, action)}")
            _out(_board_text(game, after))
        _out(f"result: {_outcome_text(game, saved.states[-1])}")
    return EXIT_OK


def _bench_table(case: bench_lib.CaseResult) -> Any:
    """A rich table of one benchmark case: rates, ratios and memory per implementation."""
    from rich.table import Table

    game = case.game
    table = Table(
        title=f"{game.description} ({game.name}; OpenSpiel {game.openspiel_game}), "
        f"{case.repetitions} rep{'s' if case.repetitions != 1 else ''}",
        title_justify="left",
    )
    table.add_column("implementation", no_wrap=True)
    table.add_column("sims/decision", justify="right")
    table.add_column("sims/s (CPU)", justify="right")
    table.add_column("compiled / this", justify="right")
    table.add_column("peak MiB", justify="right")
    for row in case.measurements:
        if row.status != "ok":
            table.add_row(row.implementation, f"{row.simulations:,}", row.status, "-", "-")
            continue
        rate, ratio, peak = row.rate, row.ratio, row.peak_memory_mib
        table.add_row(
            row.implementation,
            f"{row.simulations:,}",
            "-" if rate is None else f"{rate:,.0f}",
            "-" if ratio is None else f"{ratio:.2f}",
            "n/a" if peak is None else f"{peak:.1f}",
        )
    return table


def cmd_bench(args: argparse.Namespace) -> int:
    """``playout bench``: playout's engines against OpenSpiel's MCTS, side by side."""
    from rich.console import Console

    console = Console(file=sys.stdout, highlight=False)
    games = args.game or list(BENCH_GAMES)
    settings = {
        "simulations": args.sims,
        "python_simulations": args.python_sims,
        "repetitions": args.reps,
        "big": args.big,
        "big_simulations": BIG_SIMULATIONS,
        "big_repetitions": args.big_reps,
        "seed": args.seed,
    }
    if args.json:
        report = bench_lib.run_benchmark(games, **settings)
        _out(json.dumps(report.as_dict(), indent=2))
        return EXIT_OK
    python_sims = min(args.python_sims, args.sims)
    fewer = python_sims < args.sims
    _out(f"machine: {bench_lib.machine_info().text()}")
    _out(
        "work: one decision from the empty board, UCT c = sqrt(2), one random rollout per "
        f"leaf, solver off; {args.sims:,} simulations"
        + (f" ({python_sims:,} for the Python implementations)" if fewer else "")
        + f"; sims/s: median of {args.reps} interleaved reps, process CPU time"
    )

    def show(case: bench_lib.CaseResult) -> None:
        console.print()
        console.print(_bench_table(case))

    status = console.status("benchmarking ...") if console.is_terminal else None
    with status if status is not None else contextlib.nullcontext():
        report = bench_lib.run_benchmark(games, **settings, on_case=show)
    kept = {name: report.retention(name) for name in bench_lib.BIG_IMPLEMENTATIONS}
    if any(value is not None for value in kept.values()):
        _out(
            f"\nrate kept at {BIG_SIMULATIONS:,} simulations (median rate there / median "
            f"connect-four rate at {args.sims:,}): "
            + ", ".join(f"{name} {value:.2f}" for name, value in kept.items() if value is not None)
        )
    _out(
        f"\ncompiled / this: median of the per-rep ratios of sims/s, {bench_lib.REFERENCE}'s "
        "over this one's (above 1: playout-compiled is faster)"
        + ("; the Python implementations ran fewer simulations per decision" if fewer else "")
        + ". peak MiB: extra peak resident memory of one decision in a fresh process "
        "(n/a: not measurable here)."
    )
    return EXIT_OK


# ------------------------------------------------------------------------------ main


def _fail(message: str) -> int:
    one_line = " ".join(str(message).split())
    print(f"{PROG}: error: {one_line}", file=sys.stderr, flush=True)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``playout`` command with ``argv`` (default ``sys.argv[1:]``); the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except UsageError as error:
        return _fail(str(error))
    except SystemExit as exit_:  # --help and --version
        return exit_.code if isinstance(exit_.code, int) else EXIT_OK
    try:
        return int(args.handler(args))
    except PlayoutError as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. piped into head): stop quietly.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


__all__ = ["build_parser", "main"]
