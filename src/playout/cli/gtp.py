"""``playout gtp``: Go over the Go Text Protocol (GTP version 2), for GUIs such as Sabaki.

The protocol is Gunnar Farnebäck's specification (GTP version 2, draft 2,
https://www.lysator.liu.se/~gunnar/gtp/). :class:`GtpEngine` holds the protocol logic, one
command line in and one response out (:meth:`GtpEngine.handle`), apart from any I/O;
:func:`cmd_gtp` connects it to stdin and stdout.

Choices made where GTP leaves room or playout's Go differs:

* playout's Go alternates Black and White. ``play`` or ``genmove`` for the colour that is
  **not** to move (a GUI placing handicap stones, or setting up a position) first plays a
  pass for the side to move, then the move; ``undo`` takes both back. The passes count as
  moves (two in a row end the game), so ``play w pass`` with Black to move ends it.
* ``genmove`` resigns only with ``--resign P``: it answers ``resign`` (and plays nothing)
  when the chosen move's win rate stays below ``P`` on two of its moves in a row, or the
  solver proved the loss (:class:`~playout._src.resignation.ResignWatch`; ``lz-genmove_analyze``
  then ends with ``play resign``). Once the game is over (two passes, or the game's length
  cap) it answers ``pass`` and plays nothing.
* ``final_score`` is the Tromp-Taylor area score of the board as it stands (the game's own
  scoring): ``B+3.5``, ``W+0.5`` or ``0``. Dead stones are not removed.
* ``komi`` must be a multiple of 0.5 (the compiled kernel counts half points); other values
  are refused with the reason.
* ``time_settings`` / ``time_left`` turn the clock into the next search's seconds (see
  :meth:`GtpEngine.move_budget`); without them the command line's ``--simulations`` or
  ``--seconds`` apply.
* ``lz-analyze`` (Leela Zero's extension, :mod:`playout.cli.gtp_analysis`) searches the
  position to move and streams ``info`` lines until the next command (:func:`serve`); the
  tree is kept for the next ``genmove`` or analysis. ``lz-genmove_analyze`` is ``genmove``
  with the same lines while the move's search runs, then ``play VERTEX``.
* Handicap stones (``fixed_handicap``, ``place_free_handicap``, ``set_free_handicap``, on an
  empty board) are Black moves with a White pass between two of them, taken back by one
  ``undo``; ``place_free_handicap`` chooses the fixed placement.
"""

from __future__ import annotations

import argparse
import dataclasses
import queue
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TextIO

import playout
from playout._src.errors import IllegalMoveError, InvalidParameterError, PlayoutError
from playout._src.parallel import RootParallel, split_config
from playout._src.resignation import ResignWatch
from playout.cli.common import EXIT_OK, capped_workers
from playout.cli.engine import search_budget, search_config
from playout.cli.gtp_analysis import AnalyzeRequest, AnalyzeSyntaxError, info_line, parse_analyze
from playout.games.go import MAX_SIZE, MIN_SIZE, PLAYER_NAMES, GoGame, GoState
from playout.games.go.board import (
    fixed_handicap_points,
    point_from_name,
    point_name,
    score_text,
)

PROTOCOL_VERSION = "2"
ENGINE_NAME = "playout"

COMMANDS = (
    "boardsize",
    "clear_board",
    "final_score",
    "fixed_handicap",
    "genmove",
    "known_command",
    "komi",
    "list_commands",
    "lz-analyze",
    "lz-genmove_analyze",
    "name",
    "place_free_handicap",
    "play",
    "protocol_version",
    "quit",
    "set_free_handicap",
    "showboard",
    "time_left",
    "time_settings",
    "undo",
    "version",
)
"""The commands :class:`GtpEngine` answers, in the order ``list_commands`` gives them."""

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
"""GTP colours (any case) and the players they name: 0 Black, 1 White."""

MIN_MOVES_LEFT = 10
"""The fewest moves a clock in main time is shared out over (see :meth:`GtpEngine.move_budget`)."""
TIME_SAFETY = 0.8
"""The share of the time worked out for a move that the search may use (the rest covers
the protocol's round trip and the search's start and stop)."""
MIN_SECONDS = 0.01
"""The least time a move is given."""

_VERTEX = re.compile(r"^[a-z][0-9]+$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

SearchFactory = Callable[[GoState], "playout.MCTS | RootParallel"]
"""Builds the search engine for a position (the command line's options bound)."""


class GtpError(PlayoutError):
    """A command that fails: the message is the GTP error text (after ``?``)."""


@dataclasses.dataclass(frozen=True)
class Clock:
    """GTP's Canadian byo-yomi settings (``time_settings``) and what ``time_left`` last said
    for one colour; times in seconds.

    Attributes:
        main_time: main time.
        byo_yomi_time: the time of one byo-yomi period.
        byo_yomi_stones: stones to play in a period (0 with a period of time: no limit).
    """

    main_time: float
    byo_yomi_time: float
    byo_yomi_stones: int

    @property
    def is_unlimited(self) -> bool:
        """GTP's "no time limits": byo-yomi time with no stones."""
        return self.byo_yomi_time > 0 and self.byo_yomi_stones == 0


class GtpEngine:
    """The GTP engine: one command line in, one response out, no I/O.

    Args:
        size: the board's side (:data:`~playout.games.go.MIN_SIZE` .. ``MAX_SIZE``).
        komi: points White receives.
        budget: the search's budget per move when no clock is set.
        make_search: builds the search for a position (:class:`playout.MCTS` with the
            command line's options, or a :class:`~playout._src.parallel.RootParallel` of
            them with ``--threads``); the search is kept between moves (tree reuse).
        resign: the win rate ``genmove`` resigns below (:class:`ResignWatch`), or ``None``:
            never.

    Raises:
        InvalidParameterError: a size or komi the game refuses, a resign threshold out of
            (0, 0.5).
    """

    def __init__(
        self,
        size: int,
        komi: float,
        budget: playout.Budget,
        make_search: SearchFactory,
        *,
        resign: float | None = None,
    ) -> None:
        self.budget = budget
        self._resign = None if resign is None else ResignWatch(resign)
        self._make_search = make_search
        self.game = GoGame(size, komi)
        self.state: GoState = self.game.initial_state()
        self.moves: list[tuple[int, ...]] = []
        """The actions of each ``play`` / ``genmove`` (two where a pass was put first)."""
        self.clock: Clock | None = None
        self.time_left: dict[int, tuple[float, int]] = {}
        """Per player, the seconds and byo-yomi stones ``time_left`` last gave."""
        self.is_done = False
        """Whether ``quit`` was received."""
        self.analysis: AnalyzeRequest | None = None
        """The ``lz-analyze`` running (its response open), or ``None``."""
        self._search: playout.MCTS | RootParallel | None = None

    # ------------------------------------------------------------------------------ framing

    def handle(self, line: str) -> str:
        """The response to one command line: ``=[id] text`` or ``?[id] error``, ending with
        an empty line; ``""`` for a line GTP ignores (empty, or a comment)."""
        text = _CONTROL.sub("", line.replace("\t", " ")).split("#", 1)[0].strip()
        if not text:
            return ""
        words = text.split()
        ident = ""
        if words[0].isdecimal():
            ident = words.pop(0)
            if not words:
                return f"?{ident} missing command\n\n"
        name, arguments = words[0], words[1:]
        try:
            if name == "lz-analyze":
                request = self._analyze_request(arguments)
                self._check_to_move(request)
                self.analysis = request
                return f"={ident}\n"  # the response stays open: see analyze()
            if name == "lz-genmove_analyze":
                request = self._analyze_request(arguments)
                if request.player is None:
                    raise GtpError("syntax error")
                self.analysis = dataclasses.replace(request, genmove=True)
                return f"={ident}\n"  # the response stays open: see genmove_analyze()
            answer = self._dispatch(name, arguments)
        except GtpError as error:
            return f"?{ident} {error}\n\n"
        return f"={ident} {answer}".rstrip(" ") + "\n\n"

    def _dispatch(self, name: str, arguments: list[str]) -> str:
        if name not in COMMANDS:
            raise GtpError("unknown command")
        method: Callable[[list[str]], str] = getattr(self, f"cmd_{name.replace('-', '_')}")
        return method(arguments)

    # ------------------------------------------------------------------------------ analysis

    def _analyze_request(self, arguments: list[str]) -> AnalyzeRequest:
        try:
            request = parse_analyze(arguments, COLOURS)
        except AnalyzeSyntaxError:
            raise GtpError("syntax error") from None
        return request

    def _check_to_move(self, request: AnalyzeRequest) -> None:
        """Refuse an ``lz-analyze`` for the colour that is not to move."""
        if (
            request.player is not None
            and not self.state.is_terminal()
            and request.player != self.state.current_player()
        ):
            raise GtpError(f"{PLAYER_NAMES[self.state.current_player()]} is to move")

    def analyze(
        self, budget: playout.Budget | None = None, stop: Callable[[], bool] | None = None
    ) -> str:
        """One ``info`` line of the ``lz-analyze`` running (``""`` when there is nothing to
        search: the game is over), after searching on for ``budget`` (default: the request's
        interval) or until ``stop()`` says so; the tree is kept."""
        request = self.analysis
        if request is None or self.state.is_terminal():
            return ""
        if budget is None:
            budget = dataclasses.replace(
                self.budget, simulations=None, seconds=request.interval, stop_early=False
            )
        result = self._current_search().run(budget, stop=stop)
        return info_line(self.game, result, request.max_moves)

    def end_analysis(self) -> str:
        """The end of the ``lz-analyze`` response (an empty line), or ``""`` when none runs."""
        if self.analysis is None:
            return ""
        self.analysis = None
        return "\n"

    # ------------------------------------------------------------------------------ commands

    def cmd_protocol_version(self, arguments: list[str]) -> str:
        return PROTOCOL_VERSION

    def cmd_name(self, arguments: list[str]) -> str:
        return ENGINE_NAME

    def cmd_version(self, arguments: list[str]) -> str:
        return playout.__version__

    def cmd_known_command(self, arguments: list[str]) -> str:
        _count(arguments, 1)
        return "true" if arguments[0] in COMMANDS else "false"

    def cmd_list_commands(self, arguments: list[str]) -> str:
        return "\n".join(COMMANDS)

    def cmd_quit(self, arguments: list[str]) -> str:
        self.is_done = True
        return ""

    def cmd_boardsize(self, arguments: list[str]) -> str:
        _count(arguments, 1)
        size = _int(arguments[0])
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        self._restart(GoGame(size, self.game.komi), [])
        return ""

    def cmd_clear_board(self, arguments: list[str]) -> str:
        self._restart(self.game, [])
        return ""

    def cmd_komi(self, arguments: list[str]) -> str:
        _count(arguments, 1)
        try:
            komi = float(arguments[0])
        except ValueError:
            raise GtpError("syntax error") from None
        try:
            game = GoGame(self.game.size, komi)
        except InvalidParameterError as error:
            raise GtpError(str(error)) from None
        self._restart(game, self.moves)
        return ""

    def cmd_play(self, arguments: list[str]) -> str:
        _count(arguments, 2)
        player = _colour(arguments[0])
        action = self._vertex(arguments[1])
        if self.state.is_terminal():
            raise GtpError("illegal move (the game is over)")
        actions = self._with_pass(player, action)
        for index, step in enumerate(actions):
            state = self.state
            for earlier in actions[:index]:
                state = state.play(earlier)
            if step not in state.legal_actions():
                raise GtpError(f"illegal move ({state.illegal_reason(step)})")
        self._play(actions)
        return ""

    def cmd_genmove(self, arguments: list[str]) -> str:
        _count(arguments, 1)
        player = _colour(arguments[0])
        prefix = self._pass_first(player)
        if prefix is None:
            return "pass"
        result = self._current_search().run(self.move_budget(player))
        if self._resigns(prefix, result):
            return "resign"
        return self._play_generated(prefix, int(result.best_action))

    def _resigns(self, prefix: tuple[int, ...], result: playout.SearchResult) -> bool:
        """Whether the generated move is a resignation (``--resign``); if so the pass put
        first (``prefix``) is taken back, and nothing stays played."""
        if self._resign is None or not self._resign.should_resign(result):
            return False
        if prefix:
            self._restart(self.game, self.moves)
        return True

    def _pass_first(self, player: int) -> tuple[int, ...] | None:
        """Before ``player``'s generated move: a pass for the other side when it is to move
        (the actions played), or ``None`` when the game is over (then, or after that pass)."""
        if self.state.is_terminal():
            return None
        if self.state.current_player() == player:
            return ()
        self._advance(self.game.pass_action)
        if self.state.is_terminal():  # that pass ended the game
            self.moves.append((self.game.pass_action,))
            return None
        return (self.game.pass_action,)

    def _play_generated(self, prefix: tuple[int, ...], action: int) -> str:
        """Play the generated ``action`` (after ``prefix``) as one GTP move; its vertex."""
        vertex = self.game.action_to_string(self.state, action)
        self._advance(action)
        self.moves.append((*prefix, action))
        return vertex

    def genmove_analyze(self) -> Iterator[str]:
        """The lines of the ``lz-genmove_analyze`` running: an ``info`` line every interval
        while the move's search (its usual budget, :meth:`move_budget`) runs, then ``play
        VERTEX`` (the move, played) and the empty line that ends the response."""
        request = self.analysis
        assert request is not None and request.player is not None
        self.analysis = None
        prefix = self._pass_first(request.player)
        if prefix is None:
            yield "play pass\n\n"
            return
        budget = self.move_budget(request.player)
        search = self._current_search()
        searches = len(search.engines) if isinstance(search, RootParallel) else 1
        simulations = budget.simulations
        seconds = budget.seconds
        result = None
        while simulations is None or simulations > 0:
            step = request.interval if seconds is None else min(request.interval, seconds)
            # Each step is a search of its own: --stop-early would weigh the lead against
            # the step's time, not the move's, so the steps search their whole budget.
            result = search.run(
                dataclasses.replace(budget, simulations=simulations, seconds=step, stop_early=False)
            )
            if simulations is not None:  # a root-parallel result counts every search's
                simulations -= -(-result.simulations // searches)
            if seconds is not None:
                seconds -= result.seconds
            yield info_line(self.game, result, request.max_moves) + "\n"
            # Proven, or the tree full: no more to search. A step that ran out of time before
            # its first simulation (a busy machine) does not end the move.
            if result.stop_reason not in ("time", "simulations"):
                break
            if seconds is not None and seconds <= 0:
                break
        final = search.result()
        if self._resigns(prefix, final):
            yield "play resign\n\n"
            return
        yield f"play {self._play_generated(prefix, int(final.best_action))}\n\n"

    def cmd_fixed_handicap(self, arguments: list[str]) -> str:
        _count(arguments, 1)
        points = fixed_handicap_points(self.game.size, _int(arguments[0]))
        if points is None:
            raise GtpError("invalid number of stones")
        return self._place_handicap(points)

    def cmd_place_free_handicap(self, arguments: list[str]) -> str:
        return self.cmd_fixed_handicap(arguments)

    def cmd_set_free_handicap(self, arguments: list[str]) -> str:
        if len(arguments) < 2:
            raise GtpError("invalid number of stones")
        points = [self._vertex(text) for text in arguments]
        if self.game.pass_action in points or len(set(points)) != len(points):
            raise GtpError("bad vertex list")
        self._place_handicap(tuple(points))
        return ""  # GTP: set_free_handicap answers nothing

    def _place_handicap(self, points: tuple[int, ...]) -> str:
        """Black's handicap stones on the empty board, a White pass between two of them."""
        if self.moves or any(self.state.board):
            raise GtpError("board not empty")
        actions: list[int] = []
        for index, point in enumerate(points):
            if index:
                actions.append(self.game.pass_action)
            actions.append(point)
        state = self.state
        for action in actions:
            if state.is_terminal() or action not in state.legal_actions():
                raise GtpError("bad vertex list")
            state = state.play(action)
        self._play(tuple(actions))
        return " ".join(point_name(self.game.size, point) for point in points)

    def cmd_undo(self, arguments: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo")
        self._restart(self.game, self.moves[:-1])
        return ""

    def cmd_showboard(self, arguments: list[str]) -> str:
        state = self.state
        if state.is_terminal():
            status = "game over"
        else:
            status = f"{PLAYER_NAMES[state.current_player()]} to move"
        return f"\n{self.game.render(state)}\n{status}"

    def cmd_final_score(self, arguments: list[str]) -> str:
        return score_text(self.state.score())

    def cmd_time_settings(self, arguments: list[str]) -> str:
        _count(arguments, 3)
        main_time, byo_yomi_time = _seconds(arguments[0]), _seconds(arguments[1])
        self.clock = Clock(main_time, byo_yomi_time, _int(arguments[2]))
        self.time_left = {}
        return ""

    def cmd_time_left(self, arguments: list[str]) -> str:
        _count(arguments, 3)
        player = _colour(arguments[0])
        self.time_left[player] = (_seconds(arguments[1]), _int(arguments[2]))
        return ""

    # ------------------------------------------------------------------------------ the clock

    def move_budget(self, player: int) -> playout.Budget:
        """The budget of ``player``'s next search.

        Without a clock (no ``time_settings``, or GTP's "no time limits") it is the command
        line's. With one, the search gets :data:`TIME_SAFETY` times the time for one move:
        in byo-yomi (``time_left`` with stones) the time left over the stones left; in
        main time the time left (the main time until ``time_left`` says) over an estimate of
        the moves left, half the empty points but at least :data:`MIN_MOVES_LEFT`, or one
        byo-yomi period's time per stone when that is more. The command line's
        ``--max-depth``, ``--max-nodes`` and ``--max-memory`` still apply.
        """
        clock = self.clock
        if clock is None or clock.is_unlimited:
            return self.budget
        seconds, stones = self.time_left.get(player, (clock.main_time, 0))
        if stones > 0:
            per_move = seconds / stones
        else:
            empty = self.state.board.count(0)
            per_move = seconds / max(MIN_MOVES_LEFT, empty // 2)
            if clock.byo_yomi_stones > 0:
                per_move = max(per_move, clock.byo_yomi_time / clock.byo_yomi_stones)
        return dataclasses.replace(
            self.budget, simulations=None, seconds=max(MIN_SECONDS, per_move * TIME_SAFETY)
        )

    # ------------------------------------------------------------------------------ positions

    def _vertex(self, text: str) -> int:
        """The action of a GTP vertex (any case) or ``pass``."""
        lowered = text.lower()
        if lowered == "pass":
            return self.game.pass_action
        if not _VERTEX.match(lowered):
            raise GtpError("syntax error")
        try:
            point = point_from_name(self.game.size, lowered)
        except IllegalMoveError as error:
            raise GtpError(f"illegal move ({error})") from None
        if point is None:
            raise GtpError("syntax error")
        return point

    def _with_pass(self, player: int, action: int) -> tuple[int, ...]:
        """``action`` for ``player``, after a pass for the other side when it is to move."""
        if self.state.current_player() == player:
            return (action,)
        return (self.game.pass_action, action)

    def _play(self, actions: tuple[int, ...]) -> None:
        """Play ``actions`` (legal) as one GTP move, moving the search's root along."""
        for action in actions:
            self._advance(action)
        self.moves.append(actions)

    def _advance(self, action: int) -> None:
        """Play the legal ``action``, moving the search's root along (tree reuse)."""
        if self._search is not None:
            self._search.advance(action)
        self.state = self.state.play(action)

    def _restart(self, game: GoGame, moves: list[tuple[int, ...]]) -> None:
        """Start ``game`` anew and replay ``moves`` (a fresh search tree, no low moves
        counted towards resigning)."""
        if self._resign is not None:
            self._resign.reset()
        self.game = game
        self.state = game.initial_state()
        self._search = None
        replayed = list(moves)
        self.moves = []
        for actions in replayed:
            self._play(actions)

    def _current_search(self) -> playout.MCTS | RootParallel:
        """The search at the current position (built on first use, then moved along)."""
        if self._search is None:
            self._search = self._make_search(self.state)
        return self._search


def _count(arguments: list[str], expected: int) -> None:
    if len(arguments) != expected:
        raise GtpError("syntax error")


def _colour(text: str) -> int:
    player = COLOURS.get(text.lower())
    if player is None:
        raise GtpError("syntax error")
    return player


def _int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise GtpError("syntax error") from None
    if value < 0:
        raise GtpError("syntax error")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpError("syntax error") from None
    if not value >= 0 or value == float("inf"):
        raise GtpError("syntax error")
    return value


def serve(engine: GtpEngine, lines: TextIO, output: TextIO) -> None:
    """Answer the commands read from ``lines`` on ``output`` until ``quit`` or the end.

    Commands are read in a thread of their own, so that an ``lz-analyze`` can search and
    write an ``info`` line every interval until the next command is there (at least one
    line, so that a GUI sees the search); the response then ends with its empty line and the
    command is answered.
    """
    pending: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in lines:
            pending.put(line)
        pending.put(None)

    threading.Thread(target=read, name="gtp-input", daemon=True).start()
    held: list[str | None] = []  # a command taken off the queue, not yet answered

    def has_command() -> bool:
        return bool(held) or not pending.empty()

    while True:
        line = held.pop() if held else pending.get()
        if line is None:
            break
        response = engine.handle(line)
        if response:
            output.write(response)
            output.flush()
        if engine.is_done:
            return
        if engine.analysis is not None and engine.analysis.genmove:
            for text in engine.genmove_analyze():  # a move: not stopped by the next command
                output.write(text)
                output.flush()
        while engine.analysis is not None:
            info = engine.analyze(stop=has_command)
            if info:
                output.write(info + "\n")
                output.flush()
            elif not has_command():
                held.append(pending.get())  # nothing to search (game over): wait
            if has_command():
                output.write(engine.end_analysis())
                output.flush()
    output.write(engine.end_analysis())
    output.flush()


def cmd_gtp(args: argparse.Namespace) -> int:
    """``playout gtp``: a GTP engine on stdin and stdout."""
    size = 9 if args.size is None else args.size
    komi = 7.5 if args.komi is None else args.komi
    game = GoGame(size, komi)
    threads = capped_workers(args.threads, option="--threads")

    def make_search(state: GoState) -> playout.MCTS | RootParallel:
        config = search_config(state, args)
        if threads == 1:
            return playout.MCTS(state, config)
        return RootParallel([playout.MCTS(state, c) for c in split_config(config, threads)])

    make_search(game.initial_state())  # option errors before the first command

    engine = GtpEngine(size, komi, search_budget(args), make_search, resign=args.resign)
    serve(engine, sys.stdin, sys.stdout)
    return EXIT_OK


__all__ = ["COMMANDS", "Clock", "GtpEngine", "GtpError", "cmd_gtp", "serve"]
