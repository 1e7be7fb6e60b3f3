"""The ``playout`` argument parser: option types, the option groups shared by commands, and
the sub-commands (each bound to its handler in its own module)."""

from __future__ import annotations

import argparse
import math
from typing import NoReturn

import playout
from playout._src.arena.players import GO_ROLLOUTS
from playout._src.arena.specs import describe_players
from playout._src.resignation import check_threshold
from playout._src.results import MAX_EXPORT_DEPTH
from playout.cli.analyze import cmd_analyze
from playout.cli.bench import BENCH_GAMES, cmd_bench
from playout.cli.common import DEFAULT_PLAYOUTS, DEFAULT_SIMULATIONS, PROG
from playout.cli.engine import FINAL_CHOICES
from playout.cli.games import cmd_games
from playout.cli.gtp import cmd_gtp
from playout.cli.match import cmd_match, cmd_replay, cmd_tournament
from playout.cli.play import cmd_play
from playout.cli.serve import cmd_serve
from playout.cli.train import add_train_parser


class UsageError(Exception):
    """Raised by the argument parser instead of exiting (``main`` turns it into exit 2)."""


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line ``playout: error: ...`` (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


DOCUMENTATION = (
    "Documentation: docs/index.md in playout's source repository (tutorials, how-to guides, "
    "the API and command-line reference); 'pip install \".[docs]\" && mkdocs serve' there "
    "builds the site and serves it on http://127.0.0.1:8000/."
)
"""Where ``playout --help`` sends its reader (there is no public host)."""


# ------------------------------------------------------------------------------ arguments


class Once(argparse.Action):
    """Store an option's value, refusing the option given a second time (argparse would keep
    only the last one)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, f"_given_{self.dest}", False):
            hint = " (give all the moves in one, quoted)" if self.dest == "moves" else ""
            raise argparse.ArgumentError(None, f"{option_string} given twice{hint}")
        setattr(namespace, f"_given_{self.dest}", True)
        setattr(namespace, self.dest, values)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 .. 65535, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text}")
    return value


def resign_rate(text: str) -> float:
    """A win rate to resign below: a number strictly between 0 and 0.5."""
    value = finite_float(text)
    try:
        return check_threshold(value)
    except playout.InvalidParameterError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="game name (see 'playout games')")
    group = parser.add_argument_group("game parameters (mnk, gomoku, connect4; go)")
    group.add_argument("--width", type=positive_int, help="board width (columns)")
    group.add_argument("--height", type=positive_int, help="board height (rows)")
    group.add_argument("--k", type=positive_int, help="stones in a row needed to win")
    group.add_argument(
        "--size",
        type=positive_int,
        help="go: the board's side (2 to 19, usually 9, 13 or 19; default 9)",
    )
    group.add_argument("--komi", type=finite_float, help="go: points White receives (default 7.5)")


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=("auto", "python", "compiled"),
        default="auto",
        help="search implementation (default: auto)",
    )


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ai",
        choices=("mcts", "zero"),
        default="mcts",
        help="the AI: mcts (rollouts, the default) or zero (a network-guided search; the "
        "network shipped for the game unless --model is given; needs playout[zero])",
    )
    parser.add_argument("--model", metavar="FILE", help="the network of --ai zero")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--simulations",
        type=positive_int,
        metavar="N",
        help=f"simulations per search (default {DEFAULT_SIMULATIONS})",
    )
    budget.add_argument(
        "--seconds", type=positive_float, metavar="S", help="seconds per search instead"
    )
    parser.add_argument("--seed", type=non_negative_int, metavar="K", help="random seed")
    parser.add_argument(
        "--rollout",
        choices=("random", "neighbors", *GO_ROLLOUTS),
        default="random",
        help="rollout policy; neighbors (seed 004) only for grid games; heavy, mogo (MoGo's "
        "3x3 patterns) and lgrf (mogo with last good replies) only for Go, on the compiled "
        "search; mogo and lgrf take the learned move ratings as --rave-prior's knowledge, "
        "mogo-hand and lgrf-hand the hand-made priors",
    )
    parser.add_argument(
        "--rollouts", type=positive_int, default=1, metavar="N", help="rollouts per leaf"
    )
    parser.add_argument(
        "--rule",
        choices=("ucb1", "puct", "epsilon", "rave", "pb"),
        default=None,
        help="selection rule (default ucb1, or the game's own: puct for chess); rave: MC-RAVE, "
        "pb: UCB1 with progressive bias from the game's move heuristic (pb runs on the "
        "Python search; rave is compiled for games with a kernel)",
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
        "--rave-prior",
        type=float,
        metavar="N",
        help="virtual AMAF samples of the game kernel's move scores for --rule rave (Go)",
    )
    parser.add_argument(
        "--bias-weight", type=float, metavar="W", help="the heuristic's weight of --rule pb"
    )
    parser.add_argument(
        "--symmetry",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="search moves that a symmetry of the position maps onto each other once "
        "(games that declare symmetries: m,n,k, connect four; default off)",
    )
    parser.add_argument(
        "--transpositions",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="share statistics between transposed positions (UCT2; Python search; default off)",
    )
    parser.add_argument(
        "--max-nodes", type=positive_int, metavar="N", help="stop when the tree has N nodes"
    )
    parser.add_argument(
        "--max-memory",
        type=positive_float,
        metavar="MIB",
        help="memory the tree may take, in MiB (default: a quarter of the machine's memory); "
        "the search stops there and says so",
    )
    parser.add_argument(
        "--stop-early",
        action="store_true",
        help="end a search once no other move can overtake the most-visited one in the "
        "simulations or time left (the same move, sooner)",
    )
    add_tree_arguments(parser)
    add_backend_argument(parser)


def add_tree_arguments(parser: argparse.ArgumentParser, *, defaults_for: str = "") -> None:
    """``--solver/--no-solver``, ``--final`` and ``--max-depth``: how the tree search proves,
    chooses and descends. ``defaults_for`` names the players they are defaults for
    (``match`` / ``tournament``); empty for the search of ``play`` / ``analyze``."""
    scope = f" ({defaults_for})" if defaults_for else ""
    solver_scope = f" ({defaults_for}; a spec's solver=yes|no wins)" if defaults_for else ""
    parser.add_argument(
        "--solver",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="MCTS-Solver: prove wins, losses and draws in the tree and stop once the root "
        f"is proven (default: the library's, on for deterministic games){solver_scope}",
    )
    parser.add_argument(
        "--final",
        choices=tuple(FINAL_CHOICES),
        default=None,
        help="how the move is chosen after the search: the most visited (most-visits, the "
        "default), the best mean value (best-value) or at random in proportion to the "
        f"visits (sample){scope}",
    )
    parser.add_argument(
        "--max-depth",
        type=positive_int,
        metavar="N",
        help=f"never descend more than N moves below the root in the tree{scope}",
    )


def add_position_arguments(parser: argparse.ArgumentParser, *, start: str) -> None:
    """``--moves`` and ``--fen``: the position ``play`` / ``analyze`` start from."""
    parser.add_argument(
        "--moves",
        action=Once,
        default="",
        metavar="MOVES",
        help=f"{start} after these space-separated moves in the game's notation, e.g. "
        '"b2 a1" (grid games also read 0-based "x,y": "1,1 0,0"); for connect four also a '
        "digit string like 4453; for chess UCI or SAN, "
        'e.g. "e2e4 e7e5 Nf3"',
    )
    parser.add_argument(
        "--fen",
        action=Once,
        metavar="FEN",
        help="chess: start from this position (then play --moves)",
    )


def add_position_search_arguments(parser: argparse.ArgumentParser, *, start: str) -> None:
    """What ``play`` and ``analyze`` share: the game and its size, the position they
    ``start`` from (``--moves``, ``--fen``) and how the AI searches it."""
    add_game_arguments(parser)
    add_position_arguments(parser, start=start)
    add_search_arguments(parser)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``playout`` command."""
    parser = Parser(
        prog=PROG,
        description="Monte Carlo Tree Search for games: play, analyse positions, run matches.",
        epilog=DOCUMENTATION,
    )
    parser.add_argument("--version", action="version", version=f"playout {playout.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    games = commands.add_parser("games", help="list the games")
    games.set_defaults(handler=cmd_games)

    play = commands.add_parser(
        "play",
        help="play against MCTS in the terminal",
        description="Play against MCTS. Type moves in the notation of the board's labels "
        "('b3': column b, row 3 for grid games, also 0-based 'x,y'; a column number for "
        "connect four; D4 or pass for go; UCI or SAN for chess); 'help' lists the legal moves, "
        "'quit' ends the game.",
    )
    add_position_search_arguments(play, start="play from the position")
    play.add_argument(
        "--first",
        choices=("human", "ai"),
        default="human",
        help="who plays the side that moves first (X)",
    )
    play.add_argument(
        "--save",
        metavar="FILE.sgf",
        help="write the game to FILE.sgf (SGF, Go only) when it ends or you quit",
    )
    play.set_defaults(handler=cmd_play)

    analyze = commands.add_parser(
        "analyze",
        aliases=["analyse"],
        help="search a position and show what MCTS thinks",
        description="Play MOVES from the initial position, search, and show the move "
        "probabilities, values, best move and principal variation.",
    )
    add_position_search_arguments(analyze, start="analyse the position")
    analyze.add_argument("--json", action="store_true", help="print one JSON object")
    analyze.add_argument(
        "--flat",
        action="store_true",
        help="flat Monte Carlo instead of a tree search (seed 001's first exercise): every "
        "legal move is valued by the mean of --playouts random games played on from it",
    )
    analyze.add_argument(
        "--playouts",
        type=positive_int,
        metavar="N",
        help=f"games per move of --flat (default {DEFAULT_PLAYOUTS})",
    )
    analyze.add_argument(
        "--values-for",
        default="to-move",
        metavar="to-move|X|O|NAME|both",
        help="whose point of view the value grid shows: the player to move (default), a "
        "player by name (X, O; Red, Yellow in connect four; any case) or by seat symbol (X "
        "moves first, O second, whatever the game calls them), or both sides (two grids); "
        "seed 001 prints its grids for X (its 1s player)",
    )
    analyze.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="N",
        help="root-parallel search: N worker processes (at most one per CPU) search the "
        "position independently (each with the whole --simulations or --seconds budget and "
        "its own seed) and their root statistics are added up, so about N times the "
        "simulations are reported. It needs the compiled search: where the game or the "
        "options have none (auto backend) it searches with 1 worker and says so on stderr; "
        "with --backend python it is an error (default 1)",
    )
    analyze.add_argument(
        "--threads",
        type=positive_int,
        default=1,
        metavar="N",
        help="root-parallel search in N threads of this process (at most one per CPU; the "
        "compiled search runs them side by side, no start-up), each with the whole budget "
        "and its own seed, merged as for --workers (default 1)",
    )
    analyze.add_argument(
        "--shared-tree",
        action="store_true",
        help="with --threads N: tree parallelism instead, the N threads run the "
        "--simulations (in all, not each) or --seconds on one shared tree, lock-free with "
        "virtual loss, for one principal variation (compiled search only; not reproducible "
        "for a seed)",
    )
    analyze.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the search to FILE (.png or .svg; needs matplotlib, extra plot): a "
        "heat map of the visit shares on the board and the most visited moves' values with "
        "their visits",
    )
    analyze.add_argument(
        "--tree",
        metavar="FILE",
        help="also write the top of the search tree to FILE: Graphviz DOT (.dot) or JSON "
        "(.json), with visits, values for the player to move at each node, and proofs",
    )
    analyze.add_argument(
        "--tree-depth",
        type=non_negative_int,
        default=2,
        metavar="D",
        help=f"moves below the root that --tree shows (default 2, at most {MAX_EXPORT_DEPTH})",
    )
    analyze.add_argument(
        "--tree-width",
        type=positive_int,
        default=5,
        metavar="W",
        help="the most visited moves --tree shows at each node (default 5)",
    )
    analyze.set_defaults(handler=cmd_analyze)

    match = commands.add_parser(
        "match",
        help="play programs against each other",
        description="Play GAMES games between two players, alternating who moves first "
        "(p1 starts the even-numbered games), in parallel worker processes. " + PLAYERS_HELP,
    )
    add_game_arguments(match)
    match.add_argument("--p1", required=True, metavar="SPEC", help="first player")
    match.add_argument("--p2", required=True, metavar="SPEC", help="second player")
    match.add_argument(
        "--games", type=positive_int, default=10, metavar="N", help="number of games"
    )
    match.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="stop early once a sequential test (GSPRT, alpha = beta = 0.05) decides between "
        "'p1 is ELO0 Elo stronger' and 'ELO1 Elo stronger'; games run in batches of --workers",
    )
    match.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the match to FILE (.png or .svg; needs matplotlib, extra plot): p1's "
        "running score with its 95%% interval, the Elo difference with its interval (and the "
        "SPRT's LLR); rewritten every few games while the match runs",
    )
    add_arena_arguments(match)
    match.set_defaults(handler=cmd_match)

    tournament = commands.add_parser(
        "tournament",
        help="round robin between several programs, with Elo ratings",
        description="Every pair of PLAYERS plays GAMES games, alternating who moves first; "
        "ratings are fitted by maximum likelihood (Bradley-Terry, draws as half a win, one "
        "virtual draw per pair). " + PLAYERS_HELP,
    )
    add_game_arguments(tournament)
    tournament.add_argument(
        "--players", required=True, nargs="+", metavar="SPEC", help="two or more players"
    )
    tournament.add_argument(
        "--games", type=positive_int, default=10, metavar="N", help="games per pair"
    )
    tournament.add_argument(
        "--anchor",
        choices=("mean", "first"),
        default="mean",
        help="ratings average 0 (mean) or the first player is at 0 (first)",
    )
    tournament.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the standings to FILE (.png or .svg; needs matplotlib, extra plot): each "
        "player's score with its 95%% interval and its rating",
    )
    add_arena_arguments(tournament)
    tournament.set_defaults(handler=cmd_tournament)

    replay = commands.add_parser(
        "replay",
        help="show the games saved by match --save move by move",
        description="Print the boards of saved games move by move (every game in the file, "
        "or the one numbered --game-index).",
    )
    replay.add_argument(
        "file", metavar="FILE", help="a file written by --save (JSON lines, or SGF: *.sgf)"
    )
    replay.add_argument(
        "--game-index",
        type=non_negative_int,
        metavar="I",
        help="only the game with this index (0-based game number of the match)",
    )
    replay.set_defaults(handler=cmd_replay)

    add_train_parser(
        commands,
        add_game_arguments,
        {
            "positive_int": positive_int,
            "positive_float": positive_float,
            "non_negative_int": non_negative_int,
        },
    )

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
        type=positive_int,
        default=10_000,
        metavar="N",
        help="simulations per decision for playout-compiled and openspiel-cpp (default 10000)",
    )
    bench.add_argument(
        "--python-sims",
        type=positive_int,
        default=2_000,
        metavar="N",
        help="simulations per decision for the two Python implementations, at most --sims "
        "(default 2000)",
    )
    bench.add_argument(
        "--reps", type=positive_int, default=5, metavar="R", help="repetitions (default 5)"
    )
    bench.add_argument(
        "--big",
        action="store_true",
        help="add connect four at 1,000,000 simulations (playout-compiled and openspiel-cpp, "
        "in a fresh process each): how the cost grows with the tree",
    )
    bench.add_argument(
        "--big-reps",
        type=positive_int,
        default=3,
        metavar="R",
        help="decisions per implementation at 1,000,000 simulations with --big (default 3)",
    )
    bench.add_argument(
        "--seed", type=non_negative_int, default=0, metavar="K", help="base seed (default 0)"
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(handler=cmd_bench)

    gtp = commands.add_parser(
        "gtp",
        help="play go through a GUI (Sabaki, Lizzie, GoGui): a GTP engine on stdin/stdout",
        description="A Go Text Protocol (version 2) engine for go on stdin and stdout: "
        "GUIs and other programs send commands (play, genmove, undo, final_score, "
        "time_settings, ...) and read the answers. Each genmove searches with "
        "--simulations or --seconds unless the GUI sets a clock (time_settings/time_left). "
        "lz-analyze streams the search's win rates and visits (Leela Zero's format, as "
        "Sabaki and Lizzie show them) until the next command.",
    )
    gtp.add_argument(
        "--size", type=positive_int, help="the board's side until boardsize (default 9)"
    )
    gtp.add_argument(
        "--komi", type=finite_float, help="points White receives until komi (default 7.5)"
    )
    gtp.add_argument(
        "--resign",
        type=resign_rate,
        metavar="P",
        help="answer genmove with resign when the chosen move's win rate stays below P "
        "(0 < P < 0.5) two moves in a row, or the loss is proven (default: never resign)",
    )
    gtp.add_argument(
        "--threads",
        type=positive_int,
        default=1,
        metavar="N",
        help="N root-parallel searches in threads, each with the whole budget and its own "
        "tree, merged before each move (--ai mcts; default 1)",
    )
    add_search_arguments(gtp)
    gtp.set_defaults(handler=cmd_gtp)

    serve = commands.add_parser(
        "serve",
        help="play and analyse in the browser (needs the web extra)",
        description="Serve the browser app: play against MCTS by clicking, watch the search "
        "live (heat map, evaluation bar, best lines, value graph), import and export games. "
        'Needs FastAPI and uvicorn: pip install "playout[web]".',
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; any other address "
        "needs a token for every API request)",
    )
    serve.add_argument(
        "--port",
        type=port_number,
        default=8000,
        help="port to listen on (default 8000; 0: a free one, announced)",
    )
    serve.add_argument(
        "--token",
        default=None,
        help="the token every API request must carry (default: none on a loopback address; "
        "off it, a random one); the announced URL carries it",
    )
    serve.add_argument("--open", action="store_true", help="open the page in a web browser")
    serve.set_defaults(handler=cmd_serve)
    return parser


PLAYERS_HELP = (
    "Players (KIND or KIND:key=value,...): "
    + "; ".join(f"{kind}: {text}" for kind, text in describe_players().items())
    + "; e.g. mcts:simulations=400,rollout=neighbors."
)
"""The player kinds for ``match`` and ``tournament``, from :func:`describe_players`."""


def add_arena_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``match`` and ``tournament``: seed, output, where games run, and
    the defaults of the MCTS players."""
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, metavar="K", help="match seed (default 0)"
    )
    parser.add_argument(
        "--openings",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="start each pair of games (the same players, seats swapped) after N random moves "
        "that do not end the game, the same for both games: players that search "
        "deterministically, such as networks, otherwise repeat the same two games "
        "(default 0: every game from the initial position)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--save",
        metavar="FILE",
        help="write every game to FILE as one JSON line as soon as it ends (see replay); "
        "a FILE ending in .sgf gets an SGF collection instead (Go); "
        "added to the end of an existing FILE unless --overwrite",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="empty the --save file first instead of adding to it",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="games played at once (default: the number of CPUs; at most that many; 1 plays "
        "in this process)",
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
    add_tree_arguments(parser, defaults_for="for every mcts player")


__all__ = [
    "PLAYERS_HELP",
    "Once",
    "Parser",
    "UsageError",
    "add_arena_arguments",
    "add_game_arguments",
    "add_position_arguments",
    "add_position_search_arguments",
    "add_search_arguments",
    "add_tree_arguments",
    "build_parser",
    "non_negative_int",
    "positive_float",
    "positive_int",
]
