"""Games of the browser app: one :class:`GameSession` per game (its moves, its search engine,
the search running on it) and the :class:`SessionStore` that keeps them, a bounded number
per client and in all; :class:`SearchSlots` shares the searches out between clients.

Nothing here imports FastAPI: the HTTP layer (:mod:`playout.web.app`) maps the errors below
to status codes and serialises the dicts that :meth:`GameSession.view` returns, which are
built by :mod:`playout.render` (the same pictures as the command line's ``--json``).

Threads
-------
Requests run in a server's worker threads; a search runs in a thread of its own (a
:class:`SearchJob`), in chunks of :attr:`Limits.snapshot_interval` seconds, publishing a
view after each chunk. While a job runs only its thread touches the engine:

* ``GameSession.lock`` serialises the requests on one game (and the AI job's final move);
* a request that changes the position first stops a running analysis (and joins its thread);
  while the AI is thinking it is refused (:class:`BusyError`): ``stop`` first;
* a search takes one of the server's :class:`SearchSlots` for its client (an AI move may
  wait for one in turn) and gives it back when its thread ends;
* the published view is swapped under a lock of its own, so that reading it never waits for
  a search.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import playout
from playout import render
from playout._src.errors import (
    GameOverError,
    InvalidParameterError,
    ModelFileError,
    PlayoutError,
)
from playout.cli.position import is_column_game, parse_moves


class SessionNotFoundError(PlayoutError, KeyError):
    """No game with that id (never created, or expired)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no such game"


class BusyError(PlayoutError, RuntimeError):
    """The game is busy with a search (the AI is thinking); try again after it stops."""


class QuotaError(PlayoutError, RuntimeError):
    """A client, or the whole server, is at one of its :class:`Limits` (games, searches or
    event streams at once): nothing was done; try again in ``retry_after`` seconds (the HTTP
    layer answers 429 with ``Retry-After``). Nobody else's game is dropped to make room."""

    def __init__(self, message: str, *, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = max(1, math.ceil(retry_after))
        """Whole seconds (at least 1) after which trying again may succeed."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one client, and all clients together, may ask of the server.

    A client is one browser (a cookie the server gives it; see :mod:`playout.web.access`).
    Past a per-client limit, or a server-wide one, a request is refused with a
    :class:`QuotaError` (429): no game of anybody is dropped to make room.

    Attributes:
        max_games: games kept at once on the server, all clients together (the last bound
            when many clients each stay within their own share).
        max_games_per_client: games one client keeps at once (delete one, or let it expire,
            to start another).
        ttl_seconds: a game unused this long expires (never while it searches).
        max_simulations: simulations of one AI move.
        max_seconds: seconds of one AI move.
        analysis_seconds: seconds of one analysis (it stops there; start it again to go on).
        max_memory_mib: memory of one game's search tree.
        max_board: largest width and height of a board.
        max_searches: searches running at once on the server.
        max_searches_per_client: searches running (or waiting for a slot) at once for one
            client.
        max_waiting: AI moves waiting for a search slot at once on the server (first come,
            first served).
        queue_seconds: how long an AI move waits for a search slot before it is refused.
        max_streams: event streams open at once on the server.
        max_streams_per_client: event streams one client keeps open at once.
        stream_seconds: an event stream ends after this long (a browser's ``EventSource``
            opens it again by itself).
        idle_seconds: an analysis stops when nobody has asked about its game for this long
            (an open event stream counts as asking).
        snapshot_interval: seconds between the views a search publishes.
    """

    max_games: int = 64
    max_games_per_client: int = 8
    ttl_seconds: float = 3600.0
    max_simulations: int = 2_000_000
    max_seconds: float = 30.0
    analysis_seconds: float = 300.0
    max_memory_mib: float = 512.0
    max_board: int = 19
    max_searches: int = 4
    max_searches_per_client: int = 2
    max_waiting: int = 64
    queue_seconds: float = 30.0
    max_streams: int = 256
    max_streams_per_client: int = 8
    stream_seconds: float = 600.0
    idle_seconds: float = 15.0
    snapshot_interval: float = 0.25

    def budget(self, simulations: int | None, seconds: float | None) -> playout.Budget:
        """The budget of one AI move, checked against the limits (default 2000
        simulations).

        Raises:
            InvalidParameterError: both given, or over a limit (the message says which).
        """
        if simulations is not None and seconds is not None:
            raise InvalidParameterError("give simulations or seconds, not both")
        if simulations is not None and not 1 <= simulations <= self.max_simulations:
            raise InvalidParameterError(
                f"simulations must be between 1 and {self.max_simulations:,} on this server, "
                f"got {simulations:,}"
            )
        if seconds is not None and not (math.isfinite(seconds) and 0 < seconds <= self.max_seconds):
            raise InvalidParameterError(
                f"seconds must be > 0 and at most {self.max_seconds:g} on this server, "
                f"got {seconds:g}"
            )
        if simulations is None and seconds is None:
            simulations = min(2000, self.max_simulations)
        return playout.Budget(simulations=simulations, seconds=seconds)


@dataclasses.dataclass
class SearchJob:
    """A search running in its own thread: ``"ai"`` (plays its move at the end unless
    cancelled) or ``"analysis"`` (runs until stopped or its time is up)."""

    kind: str
    budget: playout.Budget
    stop_event: threading.Event = dataclasses.field(default_factory=threading.Event)
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    cancelled: bool = False
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def stop(self, *, cancel: bool = False) -> None:
        """Ask the search to stop; ``cancel``: an AI job plays no move."""
        if cancel:
            self.cancelled = True
        self.stop_event.set()

    def join(self, timeout: float | None = None) -> None:
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout)


def searches(count: int) -> str:
    """``1 search``, ``2 searches``."""
    return f"{count} search" if count == 1 else f"{count} searches"


@dataclasses.dataclass(eq=False)
class Ticket:
    """A place in the queue of :class:`SearchSlots`: ``granted`` once a slot is the
    client's (then ``on_grant`` is called, from the thread that freed the slot)."""

    client: str
    on_grant: Callable[[], None] | None = None
    granted: bool = False
    since: float = dataclasses.field(default_factory=time.monotonic)


class SearchSlots:
    """The searches running on one server: at most ``total`` at once, at most ``per_client``
    of them running or waiting for any one client, and a first-come, first-served queue of
    at most ``max_waiting`` searches waiting for a slot.

    A search takes a slot before its thread starts and gives it back with :meth:`release`
    when the thread ends. :meth:`acquire` takes one now or refuses; :meth:`enqueue` takes a
    place in the queue (a freed slot goes to the oldest ticket, so that every client waits
    its turn and nobody who asks more often goes first). Refusals are :class:`QuotaError`.
    """

    def __init__(self, total: int, per_client: int, max_waiting: int = 0) -> None:
        self.total = total
        self.per_client = per_client
        self.max_waiting = max_waiting
        self._lock = threading.Lock()
        self._running: collections.Counter[str] = collections.Counter()
        self._waiting: collections.deque[Ticket] = collections.deque()

    def acquire(self, client: str) -> None:
        """Take a slot for ``client`` now (never ahead of a search that waits).

        Raises:
            QuotaError: ``client`` runs (or waits for) ``per_client`` searches already, or
                the server has no free slot.
        """
        with self._lock:
            self._check_client(client)
            if self._running.total() >= self.total or self._waiting:
                raise QuotaError(
                    f"the server runs {searches(self.total)} already, its most "
                    f"({len(self._waiting)} more waiting): try again in a moment"
                )
            self._running[client] += 1

    def enqueue(self, client: str, on_grant: Callable[[], None] | None = None) -> Ticket:
        """A place in the queue for ``client`` (granted at once when a slot is free and
        nobody waits).

        Raises:
            QuotaError: ``client`` runs (or waits for) ``per_client`` searches already, or
                ``max_waiting`` searches wait already.
        """
        ticket = Ticket(client, on_grant)
        with self._lock:
            self._check_client(client)
            if self._running.total() < self.total and not self._waiting:
                self._running[client] += 1
                ticket.granted = True
                return ticket
            if len(self._waiting) >= self.max_waiting:
                raise QuotaError(
                    f"the server runs {searches(self.total)} and {len(self._waiting)} more "
                    "wait, its most: try again in a moment"
                )
            self._waiting.append(ticket)
        return ticket

    def cancel(self, ticket: Ticket) -> bool:
        """Leave the queue. False when too late: the slot was granted, and is the caller's
        to use or :meth:`release`."""
        with self._lock:
            if ticket.granted:
                return False
            self._waiting.remove(ticket)
            return True

    def release(self, client: str) -> None:
        """Give back a slot that ``client`` took; the oldest waiting ticket gets it."""
        with self._lock:
            self._running[client] -= 1
            if self._running[client] <= 0:
                del self._running[client]
            granted = []
            while self._waiting and self._running.total() < self.total:
                ticket = self._waiting.popleft()
                self._running[ticket.client] += 1
                ticket.granted = True
                granted.append(ticket)
        for ticket in granted:
            if ticket.on_grant is not None:
                ticket.on_grant()

    def running(self, client: str | None = None) -> int:
        """Searches running now: ``client``'s, or all of them."""
        with self._lock:
            return self._running.total() if client is None else self._running[client]

    def waiting(self) -> int:
        """Searches waiting for a slot now."""
        with self._lock:
            return len(self._waiting)

    def _check_client(self, client: str) -> None:
        """Refuse ``client`` at its share (searches running and waiting). Lock held."""
        mine = self._running[client] + sum(t.client == client for t in self._waiting)
        if mine >= self.per_client:
            raise QuotaError(
                f"you run {searches(mine)} already, the most for one client on this "
                "server: stop one, or wait for it to end"
            )


SUPPORTED = "two-player games without chance (tictactoe, mnk, gomoku, connect4, go, chess)"


def check_supported(name: str, game: Any) -> None:
    """Refuse a game the browser app cannot play (it shows two-player games without chance).

    Raises:
        InvalidParameterError: ``game`` has another number of players, or chance events.
    """
    spec = game.spec
    if spec.num_players != 2 or not spec.is_deterministic:
        raise InvalidParameterError(f"{name}: the browser app plays {SUPPORTED}")


AI_KINDS = ("mcts", "zero")
"""The AIs of the browser app: rollout MCTS, and a search guided by the network shipped for
the game (``--ai zero`` on the command line)."""


def zero_unavailable(game: Any) -> PlayoutError | None:
    """Why the zero AI cannot play ``game`` here, or None when it can: a
    :class:`MissingDependencyError` (no PyTorch) or a :class:`ModelFileError` (no network is
    shipped for the game). Imports nothing heavy."""
    import importlib.util

    from playout._src.optional import missing_dependency
    from playout._src.shipped import shipped_model_path

    if importlib.util.find_spec("torch") is None:
        return missing_dependency("zero", "the zero AI")
    try:
        shipped_model_path(game)
    except ModelFileError as error:
        return error
    return None


def ai_kinds(game: Any) -> list[dict[str, Any]]:
    """The AIs for ``game``: ``{"name", "available", "reason"}`` each (reason: None, or
    why it is not available)."""
    problem = zero_unavailable(game)
    return [
        {"name": "mcts", "available": True, "reason": None},
        {"name": "zero", "available": problem is None, "reason": problem and str(problem)},
    ]


def ai_options(game: Any, ai: str) -> dict[str, Any]:
    """The engine options of the AI ``ai`` for ``game`` (none for rollout MCTS; for zero,
    :func:`playout.zero.search_options`, the command line's ``--ai zero``).

    Raises:
        InvalidParameterError: an unknown AI.
        MissingDependencyError, ModelFileError: zero without PyTorch or a shipped network.
    """
    if ai == "mcts":
        return {}
    if ai != "zero":
        raise InvalidParameterError(f"ai must be one of {', '.join(AI_KINDS)}, got {ai!r}")
    problem = zero_unavailable(game)
    if problem is not None:
        raise problem
    from playout.zero import search_options

    return search_options(game)


class GameSession:
    """One game in the browser app: the moves played, the search engine at the current
    position (its tree kept across moves with :meth:`playout.MCTS.advance`), the value
    history, and at most one search job. ``ai``: ``"mcts"`` (rollouts) or ``"zero"`` (the
    network shipped for the game, loaded once per process and shared between games).
    ``owner``: the client that created it (its searches count against that client's share of
    ``slots``).

    Raises (constructor):
        UnknownGameError, InvalidParameterError, MoveError, MissingDependencyError: a bad
            game, parameter or move string.
        ModelFileError: ``ai="zero"`` and no network is shipped for the game.
    """

    def __init__(
        self,
        session_id: str,
        name: str,
        params: dict[str, Any],
        moves: str = "",
        *,
        seed: int | None = None,
        ai: str = "mcts",
        owner: str = "",
        limits: Limits | None = None,
        slots: SearchSlots | None = None,
    ) -> None:
        self.id = session_id
        self.owner = owner
        self.limits = limits or Limits()
        self._slots = slots or SearchSlots(
            self.limits.max_searches, self.limits.max_searches_per_client, self.limits.max_waiting
        )
        for key in ("width", "height", "size"):
            value = params.get(key)
            if isinstance(value, int) and value > self.limits.max_board:
                raise InvalidParameterError(
                    f"{key} must be at most {self.limits.max_board} on this server, got {value}"
                )
        self.game: Any = playout.make_game(name, **params)
        check_supported(name, self.game)
        self.name = name
        self.params = dict(params)
        self.ai = ai
        self._ai_options = ai_options(self.game, ai)
        self.seed = secrets.randbelow(2**31) if seed is None else seed
        start = self.game.initial_state()
        _, actions = parse_moves(self.game, moves, start)
        self.actions: list[int] = []
        self.states: list[Any] = [start]
        self.history: list[float | None] = [None]
        self.engine = self._new_engine(start)
        for action in actions:
            self._apply(action)
        self.lock = threading.Lock()
        self._job: SearchJob | None = None
        self.closed = False
        """Dropped from its store: no search starts any more."""
        self._view_lock = threading.Lock()
        self._view: dict[str, Any] = {}
        self.version = 0
        self.last_seen = time.monotonic()
        self.publish()

    # ----------------------------------------------------------------------------- views

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def thinking(self) -> str | None:
        """``"ai"`` or ``"analysis"`` while a search runs, else None."""
        job = self._job
        return job.kind if job is not None and not job.done.is_set() else None

    def touch(self) -> None:
        """Note that a client asked about this game now (keeps its analysis going)."""
        self.last_seen = time.monotonic()

    def move_string(self) -> str:
        """The moves played, in the game's notation: ``4453`` for connect four (digits run
        together up to 9 columns), ``b2 a1`` otherwise; :func:`parse_moves` reads both."""
        moves = render.moves_text(self.game, self.states[0], self.actions)
        if is_column_game(self.game) and self.game.width <= 9:
            return "".join(moves)
        return " ".join(moves)

    def view(self) -> dict[str, Any]:
        """The latest published view (a fresh dict; see :meth:`publish`)."""
        with self._view_lock:
            return dict(self._view)

    def publish(self, result: playout.SearchResult | None = None, *, final: bool = False) -> None:
        """Build the view of the current position and make it the published one.

        ``result``: the search's latest result (default: the engine's statistics now, or
        none at a finished position). ``final``: the search job is ending (not thinking).
        """
        state = self.state
        if result is None and not state.is_terminal():
            result = self.engine.result()
        analysis = None
        if result is not None and result.total_simulations > 0:
            lines = self.engine.lines(result.actions)
            analysis = render.snapshot_json(self.game, state, result, lines=lines)
            self.history[-1] = analysis["value_for_first"]
        moves = render.moves_text(self.game, self.states[0], self.actions)
        last = None
        if self.actions:
            before = self.states[-2]
            last = {
                "action": self.actions[-1],
                "move": moves[-1],
                "player": int(before.current_player()),
            }
        view = {
            "id": self.id,
            "game": self.name,
            "params": self.params,
            "ai": self.ai,
            "moves": moves,
            "move_string": self.move_string(),
            "ply": len(self.actions),
            "last_move": last,
            "board": render.board_json(self.game, state),
            "analysis": analysis,
            "history": list(self.history),
            "thinking": None if final else self.thinking,
        }
        with self._view_lock:
            self.version += 1
            view["version"] = self.version
            self._view = view

    # ----------------------------------------------------------------------------- moves

    def _new_engine(self, state: Any) -> playout.MCTS:
        seed = self.seed + len(self.actions)
        return playout.MCTS(state, playout.SearchConfig(seed=seed, **self._ai_options))

    def _apply(self, action: int) -> None:
        """Play ``action`` (checked by the engine), keeping the search's subtree."""
        self.engine.advance(action)
        self.states.append(self.states[-1].play(action))
        self.actions.append(action)
        self.history.append(None)

    def _parse(self, move: str | None, action: int | None) -> int:
        state = self.state
        if state.is_terminal():
            raise GameOverError(f"the game is over ({render.outcome_text(self.game, state)})")
        if (move is None) == (action is None):
            raise InvalidParameterError("give a move (text) or an action (id), one of them")
        if move is not None:
            return int(self.game.string_to_action(state, move))
        assert action is not None
        legal = state.legal_actions()
        if action not in legal:
            # The game's own words (a square taken, a column full) where it can name it.
            text = None
            with contextlib.suppress(PlayoutError, ValueError, IndexError, TypeError):
                text = self.game.action_to_string(state, action)
            if text is not None:
                self.game.string_to_action(state, text)  # raises the game's IllegalMoveError
            moves = ", ".join(self.game.action_to_string(state, a) for a in legal)
            raise playout.IllegalMoveError(
                f"action {action} is not a legal move here (legal moves: {moves})"
            )
        return action

    def _idle(self) -> None:
        """Stop a running analysis (the position is about to change); refuse while the AI
        thinks. Called with ``lock`` held."""
        job = self._job
        if job is None or job.done.is_set():
            return
        if job.kind == "ai":
            raise BusyError("the AI is thinking; stop it first (POST .../stop)")
        job.stop()
        job.join()

    def play(self, move: str | None = None, action: int | None = None) -> None:
        """Play a move given as text in the game's notation or as an action id."""
        with self.lock:
            self._idle()
            analysing = self._was_analysing()
            self._apply(self._parse(move, action))
            self.publish()
            self._resume(analysing)

    def undo(self, count: int = 1) -> None:
        """Take back the last ``count`` moves (a new search tree from there)."""
        if count < 1:
            raise InvalidParameterError(f"count must be at least 1, got {count}")
        with self.lock:
            self._idle()
            if count > len(self.actions):
                raise InvalidParameterError(
                    f"cannot undo {count} move(s): {len(self.actions)} played"
                )
            analysing = self._was_analysing()
            del self.actions[-count:], self.states[-count:], self.history[-count:]
            self.engine = self._new_engine(self.state)
            self.publish()
            self._resume(analysing)

    def _was_analysing(self) -> bool:
        job = self._job
        return job is not None and job.kind == "analysis" and not job.cancelled

    def _resume(self, analysing: bool) -> None:
        """Analyse the new position if an analysis ran before the move; when its slot went
        to another search meanwhile, the analysis stays stopped (the view says so) and the
        move stands."""
        if analysing and not self.state.is_terminal():
            with contextlib.suppress(QuotaError):
                self._start("analysis", playout.Budget(seconds=self.limits.analysis_seconds))

    # ----------------------------------------------------------------------------- search

    def start_ai(self, budget: playout.Budget, *, slot_held: bool = False) -> SearchJob:
        """Start the AI's search for the player to move; it plays its move when the budget
        is used, the root is proven, or :meth:`stop` is called (:meth:`cancel`: no move).

        ``slot_held``: the caller holds a search slot for the owner (from
        :meth:`SearchSlots.enqueue`); the search takes it over, or it is given back when
        the search cannot start.
        """
        with self.lock:
            try:
                self._idle()
                if self.state.is_terminal():
                    raise GameOverError("the game is over: there is nothing to search")
            except BaseException:
                if slot_held:
                    self._slots.release(self.owner)
                raise
            return self._start("ai", budget, slot_held=slot_held)

    def start_analysis(self) -> SearchJob:
        """Start (or keep) analysing the current position until :meth:`stop`, the server's
        analysis time is up, or nobody asks about the game for a while."""
        with self.lock:
            job = self._job
            if job is not None and not job.done.is_set():
                if job.kind == "analysis":
                    return job
                raise BusyError("the AI is thinking; stop it first (POST .../stop)")
            if self.state.is_terminal():
                raise GameOverError("the game is over: there is nothing to analyse")
            return self._start("analysis", playout.Budget(seconds=self.limits.analysis_seconds))

    def stop(self) -> str | None:
        """Stop the running search: the AI then plays the best move found so far; an
        analysis just stops. The kind of search stopped, or None."""
        job = self._job
        if job is None or job.done.is_set():
            return None
        if job.kind == "analysis":
            job.stop(cancel=True)  # stopped by hand: the next move does not resume it
            job.join()
        else:
            job.stop()
        return job.kind

    def cancel(self) -> None:
        """Stop the running search without playing its move (its client went away)."""
        job = self._job
        if job is not None:
            job.stop(cancel=True)

    def close(self) -> None:
        """Cancel the search and wait for its thread (the game is dropped): no search
        starts on it afterwards (one asked meanwhile gets :class:`SessionNotFoundError`)."""
        with self.lock:
            self.closed = True
            job = self._job
        if job is not None:
            job.stop(cancel=True)
            job.join()

    def _start(self, kind: str, budget: playout.Budget, *, slot_held: bool = False) -> SearchJob:
        """Start a search job (``lock`` held)."""
        if self.closed:  # dropped while the request waited (for the lock, or for a slot)
            if slot_held:
                self._slots.release(self.owner)
            raise SessionNotFoundError(f"no game with id {self.id!r}: it was deleted")
        if not slot_held:
            self._slots.acquire(self.owner)  # QuotaError: no slot for this client now
        job = SearchJob(kind, budget)
        job.thread = threading.Thread(
            target=self._run_job, args=(job,), name=f"playout-{kind}-{self.id}", daemon=True
        )
        self._job = job
        self.touch()
        with self._view_lock:  # the view says so at once (the search publishes later)
            self.version += 1
            self._view = {**self._view, "thinking": kind, "version": self.version}
        try:
            job.thread.start()
        except RuntimeError as error:  # the process cannot start another thread now
            self._slots.release(self.owner)
            job.done.set()
            self.publish(final=True)
            raise QuotaError(f"the server cannot start a search now ({error})") from error
        return job

    def _run_job(self, job: SearchJob) -> None:
        result = None
        try:
            result = self._search(job)
            if job.kind == "ai" and not job.cancelled and result is not None:
                with self.lock:
                    self._apply(result.best_action)
                result = None  # the view of the new position: the statistics kept below
        except BaseException as error:  # reported to the client that waits on the job
            job.error = error
        finally:
            # Published before ``done``: until then no request touches the engine.
            self._slots.release(self.owner)
            try:
                self.publish(result, final=True)
            finally:
                job.done.set()

    def _search(self, job: SearchJob) -> playout.SearchResult | None:
        """Run ``job``'s budget in chunks, publishing a view after each; the last result."""
        limits = self.limits
        budget = job.budget
        limit = budget.simulations if budget.simulations is not None else math.inf
        seconds = budget.seconds if budget.seconds is not None else limits.max_seconds
        if job.kind == "ai":
            seconds = min(seconds, limits.max_seconds)
        max_memory = int(limits.max_memory_mib * 2**20)
        start = time.perf_counter()
        done = 0
        result: playout.SearchResult | None = None
        stop = self._stop_check(job)
        while True:
            left = seconds - (time.perf_counter() - start)
            if done >= limit or left <= 0:
                break
            chunk = playout.Budget(
                simulations=None if limit == math.inf else int(limit - done),
                seconds=min(limits.snapshot_interval, left),
                max_memory=max_memory,
            )
            # The AI's first chunk ignores a stop: it has a move to play.
            step = self.engine.run(chunk, stop=stop if result is not None else None)
            done += step.simulations
            result = dataclasses.replace(
                step, simulations=done, seconds=time.perf_counter() - start
            )
            self.publish(result)
            if step.stop_reason in ("proven", "stopped", "max_nodes", "memory"):
                break
        return result

    def _stop_check(self, job: SearchJob) -> Callable[[], bool]:
        idle = self.limits.idle_seconds

        def stop() -> bool:
            if job.stop_event.is_set():
                return True
            return job.kind == "analysis" and time.monotonic() - self.last_seen > idle

        return stop


class SessionStore:
    """The games of one server, by id, each owned by the client that created it.

    At most ``limits.max_games_per_client`` games per client and ``limits.max_games`` in all;
    past either, :meth:`create` raises :class:`QuotaError` and drops nothing. A game expires
    ``limits.ttl_seconds`` after its last use, unless a search runs on it. Another client's
    game is as good as absent: :meth:`get` and :meth:`delete` with an ``owner`` answer
    :class:`SessionNotFoundError` for it.
    """

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._sessions: collections.OrderedDict[str, GameSession] = collections.OrderedDict()
        self._lock = threading.Lock()
        limits = self.limits
        self._slots = SearchSlots(
            limits.max_searches, limits.max_searches_per_client, limits.max_waiting
        )
        self._streams: collections.Counter[str] = collections.Counter()

    def __len__(self) -> int:
        return len(self._sessions)

    @property
    def slots(self) -> SearchSlots:
        """The server's search slots (shared by its games)."""
        return self._slots

    def count(self, owner: str | None = None) -> int:
        """Games kept now: ``owner``'s, or all of them."""
        with self._lock:
            return sum(owner is None or s.owner == owner for s in self._sessions.values())

    def create(
        self,
        name: str,
        params: dict[str, Any],
        moves: str = "",
        seed: int | None = None,
        ai: str = "mcts",
        *,
        owner: str = "",
    ) -> GameSession:
        """A new game for the client ``owner`` (built outside the store's lock: the first
        search compiles, the first zero game loads its network).

        Raises:
            QuotaError: ``owner`` keeps ``max_games_per_client`` games, or the server keeps
                ``max_games`` (checked before the game is built, and again when it is
                stored).
            UnknownGameError, InvalidParameterError, MoveError, ...: see
                :class:`GameSession`.
        """
        with self._lock:
            dropped = self._expire()
            full = self._full(owner)
        self._close(dropped)
        if full is not None:
            raise full
        session = GameSession(
            secrets.token_urlsafe(12),
            name,
            params,
            moves,
            seed=seed,
            ai=ai,
            owner=owner,
            limits=self.limits,
            slots=self._slots,
        )
        with self._lock:
            dropped = self._expire()
            full = self._full(owner)
            if full is None:
                self._sessions[session.id] = session
        self._close(dropped)
        if full is not None:  # another request of a client took the room meanwhile
            session.close()
            raise full
        return session

    def get(self, session_id: str, owner: str | None = None) -> GameSession:
        """The game ``session_id`` (now the most recently used); with ``owner``, only if
        that client created it.

        Raises:
            SessionNotFoundError: no such game (or not ``owner``'s), or it expired.
        """
        with self._lock:
            dropped = self._expire()
            session = self._sessions.get(session_id)
            if session is not None and owner is not None and session.owner != owner:
                session = None
            if session is not None:
                self._sessions.move_to_end(session_id)
                session.touch()
        self._close(dropped)
        if session is None:
            raise SessionNotFoundError(f"no game with id {session_id!r} (it may have expired)")
        return session

    def delete(self, session_id: str, owner: str | None = None) -> None:
        """Drop the game (its search is cancelled); with ``owner``, only that client's.

        Raises:
            SessionNotFoundError: no such game (or not ``owner``'s).
        """
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and (owner is None or session.owner == owner):
                del self._sessions[session_id]
            else:
                session = None
        if session is None:
            raise SessionNotFoundError(f"no game with id {session_id!r} (it may have expired)")
        session.close()

    def open_stream(self, owner: str) -> Callable[[], None]:
        """Count an open event stream of ``owner``; the function that ends the count (once,
        however many times it is called).

        Raises:
            QuotaError: ``owner`` has ``max_streams_per_client`` streams open already, or the
                server has ``max_streams``.
        """
        limits = self.limits
        with self._lock:
            if self._streams[owner] >= limits.max_streams_per_client:
                raise QuotaError(
                    f"you have {self._streams[owner]} event streams open, the most for one "
                    "client on this server: close one (a browser tab) first"
                )
            if self._streams.total() >= limits.max_streams:
                raise QuotaError(
                    f"the server has {limits.max_streams} event streams open, its most: "
                    "try again in a moment"
                )
            self._streams[owner] += 1
        closed = threading.Event()

        def close() -> None:
            with self._lock:
                if closed.is_set():
                    return
                closed.set()
                self._streams[owner] -= 1
                if self._streams[owner] <= 0:
                    del self._streams[owner]

        return close

    def streams(self, owner: str | None = None) -> int:
        """Event streams open now: ``owner``'s, or all of them."""
        with self._lock:
            return self._streams.total() if owner is None else self._streams[owner]

    def close(self) -> None:
        """Stop every search (server shutdown)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        self._close(sessions)

    @staticmethod
    def _close(sessions: list[GameSession]) -> None:
        for session in sessions:
            session.close()

    def _full(self, owner: str) -> QuotaError | None:
        """Why ``owner`` may not create a game now (None: it may). With the lock held."""
        limits = self.limits
        mine = [s for s in self._sessions.values() if s.owner == owner]
        if len(mine) >= limits.max_games_per_client:
            return QuotaError(
                f"you have {len(mine)} games on this server, the most for one client: "
                "delete one (DELETE /api/games/{id}) or wait for one to expire",
                retry_after=self._first_expiry(mine),
            )
        if len(self._sessions) >= limits.max_games:
            return QuotaError(
                f"the server keeps {limits.max_games} games, its most: try again when one expires",
                retry_after=self._first_expiry(list(self._sessions.values())),
            )
        return None

    def _first_expiry(self, sessions: list[GameSession]) -> float:
        """Seconds until the first of ``sessions`` that can expire does (1 when none can)."""
        now = time.monotonic()
        left = [
            self.limits.ttl_seconds - (now - s.last_seen) for s in sessions if s.thinking is None
        ]
        return min(left, default=1.0)

    def _expire(self) -> list[GameSession]:
        now = time.monotonic()
        old = [
            sid
            for sid, s in self._sessions.items()
            if now - s.last_seen > self.limits.ttl_seconds and s.thinking is None
        ]
        return [self._sessions.pop(sid) for sid in old]


__all__ = [
    "AI_KINDS",
    "SUPPORTED",
    "BusyError",
    "GameSession",
    "Limits",
    "QuotaError",
    "SearchJob",
    "SearchSlots",
    "SessionNotFoundError",
    "SessionStore",
    "Ticket",
    "ai_kinds",
    "ai_options",
    "check_supported",
    "zero_unavailable",
]
