"""Any Go engine that speaks GTP as an arena player (``gtp:COMMAND`` in player specs).

>>> player = playout.parse_player("gtp:gnugo --mode gtp --level 10", go)  # doctest: +SKIP

:class:`GtpPlayer` runs the engine as a child process (the command split like a shell would,
:func:`shlex.split`, but run without one) and talks to it over the Go Text Protocol, version 2
(Gunnar Farnebäck's specification, https://www.lysator.liu.se/~gunnar/gtp/): ``boardsize``,
``komi`` and ``clear_board`` when a game starts, ``play`` for the moves of the other side,
``genmove`` for its own, ``final_score`` when the game has been played out (recorded beside
the game's own Tromp-Taylor result as a :class:`~playout._src.arena.play.ScoreCheck`, with
``final_status_list dead`` when the two differ) and ``quit``. An engine that answers
``resign`` resigns the game (:class:`~playout._src.arena.play.Resignation`).

The process lives for one game: it starts in :meth:`GtpPlayer.reset` (building the player
starts nothing, so a spec can be checked without running the engine) and ends in
:meth:`GtpPlayer.close`, which :func:`~playout._src.arena.play.play_game` calls when the game
ends, also on an error or Ctrl-C (``quit``, then a kill when the engine does not exit). Every
reply has a deadline (``GtpPlayer(timeout=...)``); a late reply, an exit, a reply out of
protocol or an illegal move is an :class:`~playout.EngineError` naming the engine and the last
command.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import shlex
import shutil
import subprocess
import threading
import weakref
from collections.abc import Sequence
from typing import IO

from playout._src.arena.play import Resignation, ScoreCheck
from playout._src.errors import EngineError, InvalidParameterError, MoveError
from playout._src.game import Game, GameState
from playout.games.go import GoGame, GoState
from playout.games.go.board import point_from_name, point_name, score_from_text, score_text

DEFAULT_TIMEOUT = 300.0
"""Seconds an engine may take to answer one command (GNU Go at level 10 takes about 1.3 s a
move on 9x9 on a 2-core machine; 19x19 and slow machines take longer)."""

STARTUP_TIMEOUT = 60.0
"""Seconds the first reply may take at least, whatever the timeout per reply: an engine
answers it only once it has started (a network engine loads its weights first)."""

QUIT_GRACE = 2.0
"""Seconds an engine is given to exit after ``quit`` before it is killed."""

EXTRA_PATHS = ("/usr/games",)
"""Folders searched for an engine's program when it is not on ``PATH`` (Debian installs GNU
Go as ``/usr/games/gnugo``)."""

COLOURS = ("b", "w")
"""GTP's colours of player 0 (Black) and player 1 (White)."""

_STDERR_LINES = 20
"""The last lines of an engine's standard error kept for error messages."""


def engine_argv(command: str) -> list[str]:
    """The argument list of a ``gtp:`` command, its program found on ``PATH`` or in
    :data:`EXTRA_PATHS`.

    Raises:
        InvalidParameterError: an empty or badly quoted command, or a program not found.
    """
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise InvalidParameterError(f"cannot read GTP command {command!r}: {error}") from None
    if not argv:
        raise InvalidParameterError("gtp: needs the engine's command, e.g. gtp:gnugo --mode gtp")
    program = argv[0]
    found = shutil.which(program)
    if found is None and os.sep not in program:
        for folder in EXTRA_PATHS:
            found = shutil.which(program, path=folder)
            if found is not None:
                break
    if found is None:
        raise InvalidParameterError(
            f"GTP engine {program!r} not found (looked on PATH and in {', '.join(EXTRA_PATHS)})"
        )
    return [found, *argv[1:]]


class GtpConnection:
    """One running GTP engine: commands in, replies out, each within a deadline.

    Args:
        argv: the program and its arguments.
        name: the engine's name in error messages.
        timeout: seconds allowed for each reply (the first: at least
            :data:`STARTUP_TIMEOUT`).

    Raises:
        EngineError: the program cannot be started.
    """

    def __init__(self, argv: Sequence[str], *, name: str, timeout: float) -> None:
        self.name = name
        self.timeout = timeout
        self._started = False  # the first reply came
        self.last_command = "(none)"
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        try:
            self._process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            raise EngineError(
                f"GTP engine {name!r} could not start: {error.strerror or error}"
            ) from None
        # Readers in threads, so that a reply can be waited for with a deadline; they end
        # when the process closes its pipes.
        assert self._process.stdout is not None and self._process.stderr is not None
        threading.Thread(target=self._read, args=(self._process.stdout,), daemon=True).start()
        threading.Thread(
            target=self._keep_stderr, args=(self._process.stderr,), daemon=True
        ).start()
        # Kill the process if this object is dropped without close() (a crash of the caller).
        self._finalizer = weakref.finalize(self, _kill, self._process)

    def _read(self, stream: IO[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                self._lines.put(line)
        self._lines.put(None)

    def _keep_stderr(self, stream: IO[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                self._stderr.append(line.rstrip("\n"))

    def error(self, what: str) -> EngineError:
        """The error for a failure ``what`` (``"exited"``), naming the engine, the last
        command and the end of the engine's error output."""
        tail = " | ".join(line for line in self._stderr if line.strip())[-300:]
        said = f" (its last error output: {tail})" if tail else ""
        return EngineError(
            f"GTP engine {self.name!r} {what} after command {self.last_command!r}{said}"
        )

    def _next_line(self) -> str:
        wait = self.timeout if self._started else max(self.timeout, STARTUP_TIMEOUT)
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            raise self.error(f"did not answer within {wait:g} s") from None
        self._started = True
        if line is None:
            code = self._process.poll()
            if code is None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    code = self._process.wait(timeout=0.5)
            raise self.error(f"exited (code {code})")
        return line

    def send(self, command: str) -> str:
        """Send ``command``; its reply's text (after ``=``).

        Raises:
            EngineError: the engine answered with an error (``?``), out of protocol, late,
                or exited.
        """
        self.last_command = command
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(command + "\n")
            stdin.flush()
        except (OSError, ValueError):
            raise self.error("exited") from None
        # A reply: "=" or "?" (GTP allows an id after it), its text, then an empty line.
        first = self._next_line().strip()
        while not first:  # blank lines before a reply are allowed
            first = self._next_line().strip()
        if first[0] not in "=?":
            raise self.error(f"answered out of protocol ({first[:80]!r})")
        lines = [first[1:].lstrip("0123456789").strip()]
        while True:
            line = self._next_line().rstrip("\r\n")
            if not line.strip():
                break
            lines.append(line)
        text = "\n".join(lines).strip()
        if first[0] == "?":
            raise self.error(f"refused ({text or 'no reason given'})")
        return text

    def close(self) -> None:
        """``quit``, then kill the engine if it has not exited within :data:`QUIT_GRACE`."""
        process = self._process
        if process.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.flush()
            try:
                process.wait(timeout=QUIT_GRACE)
            except subprocess.TimeoutExpired:
                _kill(process)
        self._finalizer()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()


def _kill(process: subprocess.Popen[str]) -> None:
    """End ``process`` now (and reap it)."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)


class GtpPlayer:
    """A GTP engine as a :class:`~playout._src.arena.players.Player` of Go.

    Args:
        game: the Go game (its size and komi are sent to the engine).
        command: the engine's command line (``gnugo --mode gtp --level 10``).
        name: label for reports (the spec, when built by ``parse_player``).
        timeout: seconds allowed for each reply (default :data:`DEFAULT_TIMEOUT`).

    Raises:
        InvalidParameterError: a game that is not Go, a bad command, or a program not found.
    """

    def __init__(
        self,
        game: Game,
        command: str,
        *,
        name: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if not isinstance(game, GoGame):
            raise InvalidParameterError(f"a gtp: player plays Go, not {game.spec.name}")
        if not timeout > 0:
            raise InvalidParameterError(f"timeout must be > 0 seconds, got {timeout!r}")
        self._game = game
        self._argv = engine_argv(command)
        self._name = f"gtp:{command}" if name is None else name
        self.timeout = timeout
        self._connection: GtpConnection | None = None
        self._state: GoState = game.initial_state()
        self._generated: int | None = None

    @property
    def name(self) -> str:
        """The label given at construction (the spec)."""
        return self._name

    def __repr__(self) -> str:
        return f"GtpPlayer({self._name!r})"

    def _engine(self) -> GtpConnection:
        if self._connection is None:
            raise EngineError(f"GTP engine {self._name!r} is not running (reset() starts it)")
        return self._connection

    def reset(self, state: GameState, seed: int) -> None:
        """Start the engine (ending one left running) and set up a new game from the empty
        board (``seed`` is not used: the engine draws its own random numbers)."""
        if state != self._game.initial_state():
            raise InvalidParameterError(
                f"{self._name!r} starts from the empty board; an opening is played as moves"
            )
        self.close()
        self._connection = GtpConnection(self._argv, name=self._name, timeout=self.timeout)
        self._state = self._game.initial_state()
        self._generated = None
        engine = self._connection
        engine.send("protocol_version")
        engine.send(f"boardsize {self._game.size}")
        engine.send(f"komi {self._game.komi:g}")
        engine.send("clear_board")

    def choose(self, state: GameState) -> int:
        """The engine's move (``genmove``) for the side to move in ``state``.

        Raises:
            Resignation: the engine resigned.
            EngineError: a reply that is not a move, or a move illegal here.
        """
        if state != self._state:
            raise InvalidParameterError(
                f"{self._name!r} was not told the moves leading to this position"
            )
        engine = self._engine()
        colour = COLOURS[self._state.current_player()]
        reply = engine.send(f"genmove {colour}").strip().lower()
        if reply == "resign":
            raise Resignation(self._name)
        action = self._action(reply, engine)
        self._generated = action
        return action

    def _action(self, reply: str, engine: GtpConnection) -> int:
        """The action of a ``genmove`` reply, checked against the rules."""
        game = self._game
        if reply == "pass":
            return game.pass_action
        try:
            point = point_from_name(game.size, reply)
        except MoveError:  # a vertex off the board
            point = None
        if point is None:
            raise engine.error(f"answered {reply!r}, not a move")
        if point not in self._state.legal_actions():
            reason = self._state.illegal_reason(point)
            raise engine.error(f"played {reply!r}, illegal here ({reason})")
        return point

    def notify(self, action: int) -> None:
        """Tell the engine of a move (``play``), unless it is the one it just generated."""
        if self._connection is None:
            return
        if self._generated is not None and action == self._generated:
            self._generated = None
        else:
            self._generated = None
            colour = COLOURS[self._state.current_player()]
            vertex = (
                "pass" if action == self._game.pass_action else point_name(self._game.size, action)
            )
            self._connection.send(f"play {colour} {vertex}")
        self._state = self._state.play(action)

    def game_over(self, state: GameState) -> ScoreCheck | None:
        """The engine's ``final_score`` of the finished game beside the game's own
        Tromp-Taylor score (see :class:`~playout._src.arena.play.ScoreCheck`)."""
        if self._connection is None or not isinstance(state, GoState):
            return None
        engine = self._connection
        reported = engine.send("final_score").strip()
        ours = state.score()
        theirs = score_from_text(reported)
        same_score = theirs is not None and theirs == ours
        same_winner = (
            theirs is not None and (theirs > 0) == (ours > 0) and (theirs < 0) == (ours < 0)
        )
        dead = ""
        if not same_score and engine.send("known_command final_status_list") == "true":
            # Why the scores differ, mostly: the stones the engine takes off as dead.
            dead = " ".join(engine.send("final_status_list dead").split())
        return ScoreCheck(
            player=self._name,
            reported=reported,
            ours=score_text(ours),
            same_winner=same_winner,
            same_score=same_score,
            dead=dead,
        )

    def close(self) -> None:
        """End the engine's process (``quit``, then a kill); nothing when none runs."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


def parse_gtp_player(text: str, rest: str, game: Game) -> GtpPlayer:
    """``gtp:COMMAND``: the engine ``COMMAND`` as a player of ``game`` (Go)."""
    return GtpPlayer(game, rest.strip(), name=text)


__all__ = [
    "DEFAULT_TIMEOUT",
    "EXTRA_PATHS",
    "GtpConnection",
    "GtpPlayer",
    "engine_argv",
    "parse_gtp_player",
]
