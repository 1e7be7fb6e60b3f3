"""The browser app's HTTP layer: a FastAPI application over a :class:`SessionStore`.

Routes (all JSON; FastAPI documents them at ``/docs`` and ``/openapi.json``):

=======  ===============================  ==================================================
POST     ``/api/games``                   create a game (name, size, optional move string)
GET      ``/api/games/{id}``              the game's view: board, moves, analysis, history
DELETE   ``/api/games/{id}``              drop the game (its search stops)
POST     ``/api/games/{id}/moves``        play a move (text in the game's notation, or id)
POST     ``/api/games/{id}/undo``         take moves back
POST     ``/api/games/{id}/ai-move``      the AI searches and plays (budget capped)
POST     ``/api/games/{id}/analysis``     start analysing the position
POST     ``/api/games/{id}/stop``         stop the search (the AI plays its best move so far)
GET      ``/api/games/{id}/snapshot``     the latest search snapshot
GET      ``/api/games/{id}/events``       the views as server-sent events, a few a second
GET      ``/api/catalog``                 the games and the server's limits
GET      ``/api/ai-kinds``                which AIs can play a game (zero: a network)
=======  ===============================  ==================================================

Errors are ``{"detail": message}``: 400 a bad move or parameter, 401 no token (a server off
the loopback; :mod:`playout.web.access`), 404 an unknown id (or another client's game), 409
the game is busy (the AI is thinking) or over, 422 a malformed request, 429 a limit reached
(the client's games, searches or event streams, or the server's; ``Retry-After`` says when
to try again).

Every client is named by a cookie the server sets (``playout-client``): its games are its
own (another client gets 404 for them) and count against its share of the limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from playout._src import registry
from playout._src.errors import GameOverError, InvalidParameterError, PlayoutError
from playout.web import sessions
from playout.web.access import CLIENT_COOKIE, CLIENT_PATTERN, Access, new_client
from playout.web.sessions import (
    SUPPORTED,
    BusyError,
    GameSession,
    Limits,
    QuotaError,
    SessionNotFoundError,
    SessionStore,
)

GAMES = ("tictactoe", "mnk", "gomoku", "connect4", "go", "chess")
"""The games the page offers (each must be registered; chess needs python-chess)."""


# ------------------------------------------------------------------------------ models


class CreateGame(BaseModel):
    game: str = Field(description="a registered game name", examples=["tictactoe"])
    width: int | None = Field(None, ge=1, description="board width (mnk, gomoku, connect4)")
    height: int | None = Field(None, ge=1, description="board height")
    k: int | None = Field(None, ge=1, description="stones in a row to win")
    size: int | None = Field(None, ge=2, description="go: the board's side (9, 13, 19)")
    komi: float | None = Field(None, description="go: points White receives (a multiple of 0.5)")
    fen: str | None = Field(
        None,
        description="chess: the starting position",
        examples=["8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"],
    )
    moves: str = Field("", description="moves to play first, e.g. 'b2 a1' or '4453'")
    seed: int | None = Field(None, ge=0, description="search seed (default: random)")
    ai: Literal["mcts", "zero"] = Field(
        "mcts",
        description="the AI: rollout MCTS, or zero (PUCT guided by the network shipped for "
        "the game; see /api/ai-kinds)",
    )


class PlayMove(BaseModel):
    move: str | None = Field(
        None, description="a move in the game's notation, e.g. 'b2', '4', 'e2e4' or 'e7e8n'"
    )
    action: int | None = Field(None, description="or its action id")


class Undo(BaseModel):
    count: int = Field(1, ge=1, description="moves to take back")


class AiMove(BaseModel):
    simulations: int | None = Field(None, description="simulations (default 2000)")
    seconds: float | None = Field(None, description="or seconds")
    wait: bool = Field(True, description="answer after the move (else at once)")


class LegalMove(BaseModel):
    action: int
    move: str = Field(description="the move in the game's notation (chess: UCI, e.g. e7e8q)")
    from_square: str | None = Field(None, description="chess: the square it leaves, e.g. e7")
    to_square: str | None = Field(None, description="chess: the square it reaches, e.g. e8")
    promotion: Literal["q", "r", "b", "n"] | None = Field(
        None, description="chess: the piece a pawn promotes to (four moves share the squares)"
    )


class Board(BaseModel):
    game: str
    kind: Literal["grid", "columns", "go", "chess", "text"] = Field(
        description="grid (squares), columns (connect four), go (points and a pass), chess "
        "(8x8 with pieces) or text"
    )
    width: int
    height: int
    cells: list[list[int | None]] = Field(
        description="player 0/1 per square (chess: the piece's owner, 0 white), top row "
        "first (chess: rank 8 first, file a on the left)"
    )
    text: str
    names: list[str]
    to_play: int | None
    terminal: bool
    outcome: str | None
    legal: list[LegalMove]
    pieces: list[list[str | None]] | None = Field(
        None,
        description="chess: the piece on each square as a FEN letter (K white king, p black "
        "pawn), laid out as cells",
    )
    fen: str | None = Field(None, description="chess: the position")
    check: str | None = Field(None, description="chess: the square of the king in check")
    pass_action: int | None = Field(None, description="go: the pass's action id")
    captures: list[int] | None = Field(
        None, description="go: the stones Black and White have captured (Black's first)"
    )
    star_points: list[int] | None = Field(None, description="go: the star points (hoshi)")
    komi: float | None = Field(None, description="go: points White receives")
    score: float | None = Field(
        None,
        description="go: the area score as it stands (Tromp-Taylor: Black's points minus "
        "White's and komi; stones on the board count as alive)",
    )


class ActionStats(BaseModel):
    action: int
    move: str
    visits: int
    value: float
    proven: str | None


class TopMove(BaseModel):
    action: int
    move: str
    visits: int
    share: float
    value: float
    proven: str | None = Field(description="won, drawn or lost, for the player to move")
    plies: int | None = Field(description="plies after the move to the proven end")
    pv: list[str] = Field(description="the move and the line after it, in notation")
    line: list[int] = Field(description="the same line as action ids")


class Analysis(BaseModel):
    game: str
    to_play: int
    best_action: int
    best_move: str
    value: float = Field(description="root value for the player to move, in [-1, 1]")
    value_for_first: float | None
    player_name: str
    actions: list[ActionStats]
    pv: list[str]
    simulations: int
    total_simulations: int
    seconds: float
    rate: float | None = Field(description="simulations per second")
    nodes: int
    max_depth: int
    proven: str | None
    stop_reason: str
    shares: list[list[float | None]] | None = Field(
        description="visit shares, board layout (chess: summed per target square)"
    )
    values_grid: list[list[float | None]] | None
    top: list[TopMove]
    workers: int


class LastMove(BaseModel):
    action: int
    move: str
    player: int


class GameView(BaseModel):
    id: str
    game: str
    params: dict[str, Any]
    ai: str = Field(description="mcts or zero")
    moves: list[str]
    move_string: str
    ply: int
    last_move: LastMove | None
    board: Board
    analysis: Analysis | None
    history: list[float | None] = Field(description="value for player 0 after each ply")
    thinking: str | None = Field(description="ai or analysis while a search runs")
    version: int


class Snapshot(BaseModel):
    version: int
    ply: int
    thinking: str | None
    analysis: Analysis | None
    history: list[float | None]


class GameInfo(BaseModel):
    name: str
    summary: str
    params: dict[str, Any]


class Catalog(BaseModel):
    games: list[GameInfo]
    limits: dict[str, Any]


class AiKind(BaseModel):
    name: str = Field(description="mcts or zero")
    available: bool
    reason: str | None = Field(description="why not, in one line (e.g. no network shipped)")


class AiKinds(BaseModel):
    game: str
    kinds: list[AiKind]


class ErrorMessage(BaseModel):
    detail: str = Field(description="what went wrong, in one line")


ERRORS: dict[int, str] = {
    400: "a bad move or parameter (the reason in detail)",
    401: "this server needs its token (?token=, Authorization: Bearer, or its cookie)",
    404: "no such game: never created, expired, deleted, or another client's",
    409: "the game is busy (the AI is thinking) or over",
    429: "a limit reached (games, searches or event streams, of this client or the server): "
    "nothing was done; try again after Retry-After seconds",
}


def errors(*codes: int, stream: bool = False) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI description of the error answers ``codes`` (every route can get a 401);
    ``stream``: of a route whose answer is an event stream (its errors are JSON still)."""
    documented: dict[int | str, dict[str, Any]] = {}
    for code in sorted({401, *codes}):
        documented[code] = {"description": ERRORS[code]}
        if stream:
            schema = {"$ref": "#/components/schemas/ErrorMessage"}
            documented[code]["content"] = {"application/json": {"schema": schema}}
        else:
            documented[code]["model"] = ErrorMessage
        if code == 429:
            documented[code]["headers"] = {
                "Retry-After": {
                    "description": "seconds to wait before trying again",
                    "schema": {"type": "integer", "minimum": 1},
                }
            }
    return documented


# ------------------------------------------------------------------------------ access


CLIENT_KEY = "playout.client"
"""Where :class:`AccessMiddleware` leaves the client's name in a request's scope."""

SECURITY_HEADERS = (
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),  # the page's URL may hold the token
    ("x-frame-options", "DENY"),
)


class AccessMiddleware:
    """Apply an :class:`~playout.web.access.Access` policy to every HTTP request, and name
    its client.

    A ``Host`` that is not this machine, on a loopback server, gets 400; an API request
    without the token, when one is needed, 401 (``WWW-Authenticate: Bearer``). A request
    whose URL carries the right token gets the token cookie; one without a valid client
    cookie gets a new client name (and the cookie). No CORS headers are ever added.
    """

    PUBLIC = ("/static/",)
    """Paths served without the token (with ``/`` itself): the page's files."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        access = self.access
        if not access.allows_host(request.headers.get("host", "")):
            refusal = JSONResponse(
                {"detail": "this server answers requests for this machine only (Host header)"},
                status_code=400,
            )
            await refusal(scope, receive, send)
            return
        path = scope["path"]
        cookie_name = access.token_cookie(request.url.port)
        from_url = request.query_params.get("token")
        set_token = access.token is not None and access.accepts(from_url)
        public = path == "/" or path.startswith(self.PUBLIC)
        if not (public or set_token or self._authorized(request, cookie_name)):
            refusal = JSONResponse(
                {
                    "detail": "this server needs its token: open the URL that playout serve "
                    "printed (it ends with ?token=...), or send Authorization: Bearer <token>"
                },
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await refusal(scope, receive, send)
            return
        client = request.cookies.get(CLIENT_COOKIE, "")
        new = not CLIENT_PATTERN.fullmatch(client)
        if new:
            client = new_client()
        scope[CLIENT_KEY] = client

        async def send_with_cookies(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    if name not in headers:
                        headers[name] = value
                if new:
                    headers.append("set-cookie", cookie(CLIENT_COOKIE, client))
                if set_token and access.token is not None:
                    headers.append("set-cookie", cookie(cookie_name, access.token))
            await send(message)

        await self.app(scope, receive, send_with_cookies)

    def _authorized(self, request: Request, cookie_name: str) -> bool:
        access = self.access
        if access.token is None:
            return True
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and access.accepts(credentials.strip()):
            return True
        return access.accepts(request.cookies.get(cookie_name))


def cookie(name: str, value: str) -> str:
    """A ``Set-Cookie`` value: this server's pages only (``SameSite=Strict``), not readable by
    scripts, until the browser closes."""
    return f"{name}={value}; Path=/; HttpOnly; SameSite=Strict"


def client_of(request: Request) -> str:
    """The name of the request's client (set by :class:`AccessMiddleware`)."""
    return str(request.scope.get(CLIENT_KEY, ""))


ClientName = Annotated[str, Depends(client_of)]
"""A route parameter: the name of the request's client."""


class EventStream(StreamingResponse):
    """A stream of server-sent events."""

    media_type = "text/event-stream"


RECONNECT_MS = 1000
"""How soon a browser's EventSource opens a stream again after it ends (milliseconds)."""

EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["view", "gone"]},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "description": "view: a GameView; gone: an ErrorMessage",
        },
    },
}
"""One event of ``/events`` (OpenAPI 3.1 describes each event of a stream by its schema)."""


# ------------------------------------------------------------------------------ app


def create_app(limits: Limits | None = None, *, access: Access | None = None) -> FastAPI:
    """The browser app: the page at ``/``, the JSON API under ``/api``.

    ``access``: who may use it (default: this machine only, no token; ``playout serve``
    passes :meth:`Access.for_host` of its address). Cross-origin requests get no CORS
    headers; to open the API to another origin, add Starlette's ``CORSMiddleware`` to the
    returned application.
    """
    store = SessionStore(limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        store.close()

    app = FastAPI(
        title="playout",
        summary="Play and analyse games with Monte Carlo Tree Search",
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.access = access or Access()
    app.add_middleware(AccessMiddleware, access=app.state.access)
    static = resources.files("playout.web") / "static"

    def error(status: int) -> Any:
        def handler(request: Request, exc: Exception) -> JSONResponse:
            return JSONResponse({"detail": str(exc)}, status_code=status)

        return handler

    app.add_exception_handler(SessionNotFoundError, error(404))
    app.add_exception_handler(BusyError, error(409))
    app.add_exception_handler(GameOverError, error(409))
    app.add_exception_handler(PlayoutError, error(400))

    def quota(request: Request, exc: Exception) -> JSONResponse:
        retry_after = exc.retry_after if isinstance(exc, QuotaError) else 1
        return JSONResponse(
            {"detail": str(exc)}, status_code=429, headers={"Retry-After": str(retry_after)}
        )

    app.add_exception_handler(QuotaError, quota)

    def view(session: GameSession) -> dict[str, Any]:
        return session.view()

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(static / "index.html"))

    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.get("/api/catalog", response_model=Catalog, responses=errors())
    def catalog() -> dict[str, Any]:
        """The games the page offers, their parameters, and the server's limits."""
        names = [name for name in GAMES if name in registry.game_names()]
        return {
            "games": [
                {
                    "name": name,
                    "summary": registry.game_summary(name),
                    "params": {
                        k: v
                        for k, v in registry.game_parameters(name).items()
                        if isinstance(v, int | float | str)
                    },
                }
                for name in names
            ],
            "limits": {**store.limits.__dict__, "supported": SUPPORTED},
        }

    @app.get("/api/ai-kinds", response_model=AiKinds, responses=errors(400))
    def ai_kinds(
        game: str,
        width: int | None = None,
        height: int | None = None,
        k: int | None = None,
        size: int | None = None,
        komi: float | None = None,
    ) -> dict[str, Any]:
        """Which AIs can play this game here: rollout MCTS always; zero when PyTorch is
        installed and a network is shipped for the game with these parameters. A game the
        app does not play (or a size over the server's limit) is a 400, as creating it
        is."""
        params: dict[str, Any] = {
            key: value
            for key, value in (
                ("width", width),
                ("height", height),
                ("k", k),
                ("size", size),
                ("komi", komi),
            )
            if value is not None
        }
        for key in ("width", "height", "size"):
            value = params.get(key)
            if value is not None and not 1 <= value <= store.limits.max_board:
                raise InvalidParameterError(
                    f"{key} must be between 1 and {store.limits.max_board} on this server, "
                    f"got {value}"
                )
        instance = registry.make_game(game, **params)
        sessions.check_supported(game, instance)
        return {"game": game, "kinds": sessions.ai_kinds(instance)}

    @app.post("/api/games", response_model=GameView, status_code=201, responses=errors(400, 429))
    def create_game(body: CreateGame, owner: ClientName) -> dict[str, Any]:
        """Create a game, optionally after a move string (``b2 a1``, ``4453``), with the
        AI ``ai`` (400 when zero cannot play it here: no PyTorch, or no network shipped).
        429 when this client keeps its most games already, or the server does: no game is
        dropped to make room."""
        params = {
            key: getattr(body, key)
            for key in ("width", "height", "k", "fen", "size", "komi")
            if getattr(body, key) is not None
        }
        try:
            game = store.create(body.game, params, body.moves, body.seed, body.ai, owner=owner)
        except GameOverError as exc:  # moves past the end of the game asked for: bad input
            raise InvalidParameterError(str(exc)) from exc
        return view(game)

    @app.get("/api/games/{game_id}", response_model=GameView, responses=errors(404))
    def get_game(game_id: str, owner: ClientName) -> dict[str, Any]:
        """The game: board, moves, the latest analysis and the value history."""
        return view(store.get(game_id, owner))

    @app.delete("/api/games/{game_id}", status_code=204, responses=errors(404))
    def delete_game(game_id: str, owner: ClientName) -> None:
        """Drop the game; its search stops (an AI move waiting on it answers 404)."""
        store.delete(game_id, owner)

    @app.get("/api/games/{game_id}/snapshot", response_model=Snapshot, responses=errors(404))
    def snapshot(game_id: str, owner: ClientName) -> dict[str, Any]:
        """The latest snapshot of the game's search (the analysis part of the view)."""
        return view(store.get(game_id, owner))

    @app.post(
        "/api/games/{game_id}/moves", response_model=GameView, responses=errors(400, 404, 409)
    )
    def play(game_id: str, body: PlayMove, owner: ClientName) -> dict[str, Any]:
        """Play a move for the player to move (a running analysis goes on from the new
        position)."""
        session = store.get(game_id, owner)
        session.play(body.move, body.action)
        return view(session)

    @app.post("/api/games/{game_id}/undo", response_model=GameView, responses=errors(400, 404, 409))
    def undo(game_id: str, owner: ClientName, body: Undo | None = None) -> dict[str, Any]:
        """Take back moves (default one)."""
        session = store.get(game_id, owner)
        session.undo(1 if body is None else body.count)
        return view(session)

    async def wait_for_slot(owner: str, request: Request) -> float | None:
        """Wait in turn for a search slot for ``owner`` (at most ``queue_seconds``); the
        seconds waited, or None when the client went away meanwhile (no slot held).

        Raises:
            QuotaError: the client's share or the queue is full, or no slot came in time.
        """
        loop = asyncio.get_running_loop()
        granted = asyncio.Event()

        def wake() -> None:  # from the thread that freed the slot
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server stops
                loop.call_soon_threadsafe(granted.set)

        slots = store.slots
        ticket = slots.enqueue(owner, wake)
        deadline = ticket.since + store.limits.queue_seconds
        while not ticket.granted:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(granted.wait(), timeout=0.25)
            if ticket.granted:
                break
            gone = await request.is_disconnected()
            if gone or time.monotonic() >= deadline:
                if not slots.cancel(ticket):  # granted meanwhile
                    if not gone:
                        break
                    slots.release(owner)
                if gone:
                    return None
                raise QuotaError(
                    f"no search slot came free in {store.limits.queue_seconds:g} s (the "
                    "server runs its most searches, and more wait): try again"
                )
        return time.monotonic() - ticket.since

    @app.post(
        "/api/games/{game_id}/ai-move",
        response_model=GameView,
        responses={
            200: {
                "description": "the game after the AI's move (with wait) or as it starts",
                "headers": {
                    "X-Search-Wait": {
                        "description": "seconds the move waited for a search slot",
                        "schema": {"type": "string"},
                    }
                },
            },
            **errors(400, 404, 409, 429),
        },
    )
    async def ai_move(
        game_id: str,
        request: Request,
        response: Response,
        owner: ClientName,
        body: AiMove | None = None,
    ) -> Any:
        """The AI searches for the player to move (snapshots stream on ``/events``) and
        plays. With ``wait`` the move waits its turn for a search slot when the server runs
        its most searches (first come, first served, at most ``queue_seconds``), and the
        answer comes after the move; the search is cancelled if the client goes away
        first, and a game deleted meanwhile answers 404. Without ``wait`` a busy server
        answers 429 at once. 429 also when this client runs its most searches already, or
        the queue is full (``Retry-After``)."""
        body = body or AiMove(simulations=None, seconds=None, wait=True)
        session = store.get(game_id, owner)
        budget = store.limits.budget(body.simulations, body.seconds)
        if not body.wait:
            await run_in_threadpool(session.start_ai, budget)
            return view(session)
        waited = await wait_for_slot(owner, request)
        if waited is None:  # the client went away while it waited
            return view(session)
        response.headers["X-Search-Wait"] = f"{waited:.3f}"
        job = await run_in_threadpool(functools.partial(session.start_ai, budget, slot_held=True))
        gone = False
        while not job.done.is_set():
            if await request.is_disconnected():
                session.cancel()
                gone = True
                break
            await asyncio.sleep(0.02)
        if job.error is not None:
            raise job.error
        if job.cancelled and not gone:
            # Cancelled by someone else: the game was deleted (or the server stops).
            store.get(game_id, owner)  # SessionNotFoundError: 404
            raise BusyError("the AI's search was cancelled before it played")
        return view(session)

    @app.post(
        "/api/games/{game_id}/analysis",
        response_model=GameView,
        responses=errors(404, 409, 429),
    )
    def analyse(game_id: str, owner: ClientName) -> dict[str, Any]:
        """Analyse the position until stopped (snapshots on ``/events``); it follows the
        moves played, and stops by itself when nobody asks about the game for a while.
        429 as for ``ai-move``."""
        session = store.get(game_id, owner)
        session.start_analysis()
        return view(session)

    @app.post("/api/games/{game_id}/stop", response_model=GameView, responses=errors(404))
    def stop(game_id: str, owner: ClientName) -> dict[str, Any]:
        """Stop the search: an analysis stops, the AI plays the best move found so far."""
        session = store.get(game_id, owner)
        session.stop()
        return view(session)

    @app.get(
        "/api/games/{game_id}/events",
        response_class=EventStream,
        responses={
            200: {
                "description": "server-sent events: `view` (data: a GameView, as JSON) each "
                "time the game changes; `gone` (data: an ErrorMessage) when it expires",
                "content": {"text/event-stream": {"schema": EVENT_SCHEMA}},
            },
            **errors(404, 429, stream=True),
        },
    )
    async def events(
        game_id: str,
        request: Request,
        owner: ClientName,
        limit: int = Query(0, ge=0, description="end the stream after this many views (0: never)"),
    ) -> StreamingResponse:
        """The game's views as server-sent events (``event: view``), each time it changes
        and at most a few times a second; ``event: gone`` when the game expires. The stream
        ends after ``limit`` views (0: never) or the server's ``stream_seconds`` (a
        browser's EventSource then opens it again). 429 when this client has its most
        streams open already, or the server has."""
        store.get(game_id, owner)  # 404 before the stream starts
        release = store.open_stream(owner)  # 429 before it starts
        interval = store.limits.snapshot_interval
        end = time.monotonic() + store.limits.stream_seconds

        async def stream() -> AsyncIterator[str]:
            try:
                yield f"retry: {RECONNECT_MS}\n\n"
                last, sent, beat = -1, 0, time.monotonic()
                while time.monotonic() < end and not await request.is_disconnected():
                    try:
                        session = store.get(game_id, owner)
                    except SessionNotFoundError as exc:
                        yield f"event: gone\ndata: {json.dumps({'detail': str(exc)})}\n\n"
                        return
                    data = session.view()
                    if data["version"] != last:
                        last = data["version"]
                        yield f"event: view\ndata: {json.dumps(data, allow_nan=False)}\n\n"
                        sent += 1
                        beat = time.monotonic()
                        if limit and sent >= limit:
                            return
                    elif time.monotonic() - beat > 15:
                        yield ": keep-alive\n\n"
                        beat = time.monotonic()
                    await asyncio.sleep(interval)
            finally:
                release()

        return EventStream(
            stream(),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            background=BackgroundTask(release),  # also when the stream never started
        )

    return app


__all__ = ["GAMES", "create_app"]
