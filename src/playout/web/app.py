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

Errors are ``{"detail": message}``: 400 a bad move or parameter, 404 an unknown id, 409 the
game is busy (the AI is thinking) or over, 422 a malformed request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from playout._src import registry
from playout._src.errors import GameOverError, InvalidParameterError, PlayoutError
from playout.web import sessions
from playout.web.sessions import (
    SUPPORTED,
    BusyError,
    GameSession,
    Limits,
    SessionNotFoundError,
    SessionStore,
)

GAMES = ("tictactoe", "mnk", "gomoku", "connect4", "chess")
"""The games the page offers (each must be registered; chess needs python-chess)."""


# ------------------------------------------------------------------------------ models


class CreateGame(BaseModel):
    game: str = Field(description="a registered game name", examples=["tictactoe"])
    width: int | None = Field(None, ge=1, description="board width (mnk, gomoku, connect4)")
    height: int | None = Field(None, ge=1, description="board height")
    k: int | None = Field(None, ge=1, description="stones in a row to win")
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
    kind: Literal["grid", "columns", "chess", "text"] = Field(
        description="grid (squares), columns (connect four), chess (8x8 with pieces) or text"
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


# ------------------------------------------------------------------------------ app


def create_app(limits: Limits | None = None) -> FastAPI:
    """The browser app: the page at ``/``, the JSON API under ``/api``."""
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
    static = resources.files("playout.web") / "static"

    def error(status: int) -> Any:
        def handler(request: Request, exc: Exception) -> JSONResponse:
            return JSONResponse({"detail": str(exc)}, status_code=status)

        return handler

    app.add_exception_handler(SessionNotFoundError, error(404))
    app.add_exception_handler(BusyError, error(409))
    app.add_exception_handler(GameOverError, error(409))
    app.add_exception_handler(PlayoutError, error(400))

    def view(session: GameSession) -> dict[str, Any]:
        return session.view()

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(static / "index.html"))

    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.get("/api/catalog", response_model=Catalog)
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
                        if isinstance(v, int | str)
                    },
                }
                for name in names
            ],
            "limits": {**store.limits.__dict__, "supported": SUPPORTED},
        }

    @app.get("/api/ai-kinds", response_model=AiKinds)
    def ai_kinds(
        game: str,
        width: int | None = None,
        height: int | None = None,
        k: int | None = None,
    ) -> dict[str, Any]:
        """Which AIs can play this game here: rollout MCTS always; zero when PyTorch is
        installed and a network is shipped for the game with these parameters."""
        params = {
            key: value
            for key, value in (("width", width), ("height", height), ("k", k))
            if value is not None
        }
        for key in ("width", "height"):
            value = params.get(key)
            if value is not None and not 1 <= value <= store.limits.max_board:
                raise InvalidParameterError(
                    f"{key} must be between 1 and {store.limits.max_board} on this server, "
                    f"got {value}"
                )
        instance = registry.make_game(game, **params)
        return {"game": game, "kinds": sessions.ai_kinds(instance)}

    @app.post("/api/games", response_model=GameView, status_code=201)
    def create_game(body: CreateGame) -> dict[str, Any]:
        """Create a game, optionally after a move string (``b2 a1``, ``4453``), with the
        AI ``ai`` (400 when zero cannot play it here: no PyTorch, or no network shipped)."""
        params = {
            key: getattr(body, key)
            for key in ("width", "height", "k", "fen")
            if getattr(body, key) is not None
        }
        return view(store.create(body.game, params, body.moves, body.seed, body.ai))

    @app.get("/api/games/{game_id}", response_model=GameView)
    def get_game(game_id: str) -> dict[str, Any]:
        """The game: board, moves, the latest analysis and the value history."""
        return view(store.get(game_id))

    @app.delete("/api/games/{game_id}", status_code=204)
    def delete_game(game_id: str) -> None:
        """Drop the game; its search stops."""
        store.delete(game_id)

    @app.get("/api/games/{game_id}/snapshot", response_model=Snapshot)
    def snapshot(game_id: str) -> dict[str, Any]:
        """The latest snapshot of the game's search (the analysis part of the view)."""
        return view(store.get(game_id))

    @app.post("/api/games/{game_id}/moves", response_model=GameView)
    def play(game_id: str, body: PlayMove) -> dict[str, Any]:
        """Play a move for the player to move (a running analysis goes on from the new
        position)."""
        session = store.get(game_id)
        session.play(body.move, body.action)
        return view(session)

    @app.post("/api/games/{game_id}/undo", response_model=GameView)
    def undo(game_id: str, body: Undo | None = None) -> dict[str, Any]:
        """Take back moves (default one)."""
        session = store.get(game_id)
        session.undo(1 if body is None else body.count)
        return view(session)

    @app.post("/api/games/{game_id}/ai-move", response_model=GameView)
    async def ai_move(game_id: str, request: Request, body: AiMove | None = None) -> Any:
        """The AI searches for the player to move (snapshots stream on ``/events``) and
        plays. With ``wait`` the answer comes after the move; the search is cancelled if
        the client goes away first."""
        body = body or AiMove(simulations=None, seconds=None, wait=True)
        session = store.get(game_id)
        budget = store.limits.budget(body.simulations, body.seconds)
        job = await run_in_threadpool(session.start_ai, budget)
        if body.wait:
            while not job.done.is_set():
                if await request.is_disconnected():
                    session.cancel()
                    break
                await asyncio.sleep(0.02)
            if job.error is not None:
                raise job.error
        return view(session)

    @app.post("/api/games/{game_id}/analysis", response_model=GameView)
    def analyse(game_id: str) -> dict[str, Any]:
        """Analyse the position until stopped (snapshots on ``/events``); it follows the
        moves played, and stops by itself when nobody asks about the game for a while."""
        session = store.get(game_id)
        session.start_analysis()
        return view(session)

    @app.post("/api/games/{game_id}/stop", response_model=GameView)
    def stop(game_id: str) -> dict[str, Any]:
        """Stop the search: an analysis stops, the AI plays the best move found so far."""
        session = store.get(game_id)
        session.stop()
        return view(session)

    @app.get("/api/games/{game_id}/events")
    async def events(game_id: str, request: Request, limit: int = 0) -> StreamingResponse:
        """The game's views as server-sent events (``event: view``), each time it changes
        and at most a few times a second; ``event: gone`` when the game expires. ``limit``:
        end the stream after that many views (0: never)."""
        store.get(game_id)  # 404 before the stream starts
        interval = store.limits.snapshot_interval

        async def stream() -> AsyncIterator[str]:
            last, sent, beat = -1, 0, time.monotonic()
            while not await request.is_disconnected():
                try:
                    session = store.get(game_id)
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

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return app


__all__ = ["GAMES", "create_app"]
