"""The browser app's whole HTTP API fuzzed from its OpenAPI document (schemathesis).

Every operation gets generated requests, valid and invalid (path, query and body), against an
app configured as ``playout serve --host 0.0.0.0`` configures it (a token needed; reached
through the ASGI test transport, nothing listens). A game id is now a random string, now the
id of a real game of the fuzzing client (tic-tac-toe, connect four, m,n,k, chess from a FEN),
so that the game routes are fuzzed beyond their 404. Each answer must be no 5xx, have a
documented status and content type, match its schema (headers included, ``Retry-After`` of a
429); each event of an event stream must be a ``view`` whose data is a ``GameView`` or a
``gone`` whose data is an error. After the run the same server plays a normal game.

That last test needs the fuzzing to have happened in its own process (the app is this module's
``APP``): when an operation's fuzzing test did not run there (the test alone, ``--lf``, ``-k``,
or pytest-xdist running it on another worker: a worker that crashes is replaced and the rest of
its tests go to another process), it fuzzes that operation itself first, with Hypothesis over
the operation's valid and invalid cases and the same checks.

The run is derandomized (the same cases each time): with ``MAX_EXAMPLES`` = 60 per operation
it sends 938 generated requests, 974 with schemathesis 4.32 (the 12 operations' examples,
valid and invalid, and schemathesis's requests with methods the routes do not have), in 20
to 40 s on two shared cores.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest

# One worker runs this file under pytest-xdist: the last test checks the fuzzing run's count
# and plays on the same app (module globals), so it needs every fuzzing test in its process.
pytestmark = pytest.mark.xdist_group("web_fuzz")

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from playout._src import registry  # noqa: E402
from playout.web import Access, Limits, create_app  # noqa: E402
from playout.web.app import GAMES, ErrorMessage, GameView  # noqa: E402

with warnings.catch_warnings():  # starlette's notice about httpx versions
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

MAX_EXAMPLES = 60
"""Examples per operation (valid and invalid together): see the module's count."""

TOKEN = "fuzzing-token-0123456789"
CLIENT = "fuzzclient0123456789ab"  # a client name as the server makes them (22 characters)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
COOKIES = {"playout-client": CLIENT}

# Small budgets, short searches and short streams: the run stays quick and nothing it
# starts outlives it for long.
LIMITS = Limits(
    max_simulations=300,
    max_seconds=0.3,
    analysis_seconds=0.3,
    idle_seconds=0.5,
    stream_seconds=0.3,
    snapshot_interval=0.05,
    max_games=32,
    max_games_per_client=16,
    max_searches=4,
    max_searches_per_client=4,
)

APP = create_app(LIMITS, access=Access.for_host("0.0.0.0", TOKEN))

FENS = [
    "8/4P1k1/8/8/8/7p/7P/4K3 w - - 0 1",  # a promotion
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate: over at once
    "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",  # mate in one
]

POOL_GAMES: dict[str, dict[str, Any]] = {
    "tictactoe": {"game": "tictactoe", "moves": "1,1"},
    "connect4": {"game": "connect4", "moves": "4453"},
    "mnk": {"game": "mnk", "width": 5, "height": 4, "k": 4},
    "tictactoe-over": {"game": "tictactoe", "moves": "0,0 1,0 0,1 1,1 0,2"},
}
if "chess" in registry.game_names():
    POOL_GAMES["chess"] = {"game": "chess", "fen": "8/4P1k1/8/8/8/7p/7P/4K3 w - - 0 1"}

POOL: dict[str, str] = {}
"""Kind of game -> the id of a live game of the fuzzing client (made again when deleted)."""

FUZZED: dict[str, int] = {}
"""Operation's label (``GET /api/games/{game_id}``) -> the cases sent to it in this process."""


def client() -> TestClient:
    """The fuzzing client, outside the run (not as a context manager: leaving one would run
    the app's shutdown, which drops every game)."""
    return TestClient(APP, headers=AUTH, cookies=COOKIES)


def refill_pool() -> None:
    http = client()
    for kind, body in POOL_GAMES.items():
        if kind in POOL and http.get(f"/api/games/{POOL[kind]}").status_code == 200:
            continue
        response = http.post("/api/games", json={"seed": 1, **body})
        assert response.status_code == 201, response.text
        POOL[kind] = response.json()["id"]


schema = schemathesis.openapi.from_asgi("/openapi.json", APP, headers=AUTH)
schema.config.generation.update(max_examples=MAX_EXAMPLES, deterministic=True)


@schemathesis.hook
def flatmap_path_parameters(context: Any, path_parameters: dict[str, Any]) -> Any:
    """Half the game ids are those of real games of the fuzzing client."""
    if not path_parameters or "game_id" not in path_parameters:
        return st.just(path_parameters)
    ids = sorted(POOL.values()) or ["none-yet"]
    real = st.sampled_from(ids).map(lambda game_id: {**path_parameters, "game_id": game_id})
    return st.one_of(st.just(path_parameters), real)


MOVE_TEXT = st.text(alphabet="0123456789abcdefgh,. NQRBK-", max_size=16)
NEW_GAMES = st.one_of(
    st.fixed_dictionaries(
        {"game": st.sampled_from(["mnk", "gomoku", "connect4"])},
        optional={
            "width": st.integers(0, 21),
            "height": st.integers(0, 21),
            "k": st.integers(0, 25),
            "moves": MOVE_TEXT,
            "seed": st.integers(0, 2**70),
            "ai": st.sampled_from(["mcts", "zero"]),
        },
    ),
    st.fixed_dictionaries(
        {"game": st.just("tictactoe")},
        optional={"moves": MOVE_TEXT, "seed": st.integers(0, 2**70)},
    ),
    st.fixed_dictionaries(
        {"game": st.just("chess")},
        optional={
            "fen": st.one_of(
                st.sampled_from(FENS), st.text(alphabet="12345678/kqrbnpKQRBNP wb-", max_size=60)
            ),
            "moves": st.text(alphabet="abcdefgh12345678qrbn ", max_size=20),
        },
    ),
)
"""Requests for new games that get past the game's name, into sizes, moves and positions."""


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> Any:
    """Half the new games name a game the app plays (with the generated sizes, moves, FEN
    and seed), half the moves are action ids near the board's: past the name and the
    notation checks, into the games."""
    path = context.operation.path if context.operation is not None else ""
    if not isinstance(body, dict):
        return st.just(body)
    if path == "/api/games":
        named = st.sampled_from(GAMES).map(lambda game: {**body, "game": game})
        return st.one_of(st.just(body), named, NEW_GAMES)
    if path.endswith("/moves"):
        action = st.integers(-2, 90).map(lambda action: {"action": action})
        return st.one_of(st.just(body), action)
    return st.just(body)


def event_stream_conformance(ctx: Any, response: Any, case: Any) -> bool | None:
    """Each event of ``/events``: ``view`` with a GameView, or ``gone`` with an error."""
    if response.status_code != 200 or not case.path.endswith("/events"):
        return None
    text = response.content.decode("utf-8")
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines or all(line.startswith("retry:") for line in lines):
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        assert set(fields) == {"event", "data"}, block
        data = json.loads(fields["data"])
        if fields["event"] == "view":
            GameView.model_validate(data)
        else:
            assert fields["event"] == "gone", block
            ErrorMessage.model_validate(data)
    return True


CHECKS: list[Callable[..., Any]] = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


WARM_UP: list[dict[str, Any]] = [
    *({"game": game} for game in GAMES),
    {"game": "mnk", "width": 9, "height": 9, "k": 5},  # two words a player (3x3: one)
    {"game": "connect4", "width": 15},  # wider than one 64-bit word: the wide kernel
    {"game": "go", "size": 19},
]
"""Games that reach each game's compiled kernels (a board's bitboard in one, two or more
64-bit words), as the fuzzing's new games do."""


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """The :data:`WARM_UP` games made and one AI move searched in each before the fuzzing:
    on a fresh checkout this compiles their kernels (up to 35 s a game on two busy cores
    until numba's cache has them), which would not fit in a fuzzed request's 10 s. In one
    process the game tests before this module have compiled them; under pytest-xdist, or
    alone, this module can come first."""
    http = client()
    for body in WARM_UP:
        made = http.post("/api/games", json={"seed": 1, **body})
        assert made.status_code == 201, made.text
        path = f"/api/games/{made.json()['id']}"
        moved = http.post(f"{path}/ai-move", json={"simulations": 10})
        assert moved.status_code == 200, moved.text
        assert http.delete(path).status_code == 204


@pytest.fixture(autouse=True)
def pool() -> None:
    """Live pool games before each operation's run (schemathesis ends the app's lifespan
    between operations, and the app's shutdown drops every game)."""
    refill_pool()


FUZZ_SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def send_and_check(case: Any) -> None:
    """One generated request: sent, its answer checked, the fuzzer's own games dropped."""
    label = case.operation.label
    FUZZED[label] = FUZZED.get(label, 0) + 1
    response = case.call_and_validate(
        headers=AUTH,
        cookies=COOKIES,
        checks=CHECKS,
        additional_checks=[event_stream_conformance],
    )
    if response.status_code == 201 and case.path == "/api/games":
        # A game made by the fuzzer: dropped at once, so that its quota stays free.
        dropped = client().delete(f"/api/games/{response.json()['id']}")
        assert dropped.status_code == 204, dropped.text
    if case.method == "DELETE" and response.status_code == 204:
        refill_pool()


def fuzz_here(operation: Any) -> None:
    """Fuzz one operation in this process, outside schemathesis's pytest items: Hypothesis over
    its valid and invalid cases (the hooks above apply), ``MAX_EXAMPLES`` of them, the same
    checks. For :func:`test_after_fuzzing_the_server_still_plays_a_normal_game` when the
    operation's own test ran elsewhere or not at all."""
    modes = [schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE]
    cases = st.one_of([operation.as_strategy(generation_mode=mode) for mode in modes])

    @settings(FUZZ_SETTINGS, max_examples=MAX_EXAMPLES)
    @given(case=cases)
    def run(case: Any) -> None:
        send_and_check(case)

    refill_pool()
    run()


@schema.parametrize()
@FUZZ_SETTINGS
def test_the_api_under_fuzzing(case: Any) -> None:
    send_and_check(case)


def test_after_fuzzing_the_server_still_plays_a_normal_game() -> None:
    operations = [result.ok() for result in schema.get_all_operations()]
    missing = [operation for operation in operations if operation.label not in FUZZED]
    for operation in missing:
        fuzz_here(operation)
    # Every operation fuzzed in this process (and how much): by its test above, or just now.
    assert sorted(FUZZED) == sorted(operation.label for operation in operations), FUZZED
    assert sum(FUZZED.values()) >= 500, FUZZED
    print(f"\nfuzzing: {sum(FUZZED.values())} generated requests", end=" ")
    print(f"({len(missing)} of {len(operations)} operations fuzzed by this test)")
    http = client()
    view = http.post("/api/games", json={"game": "tictactoe", "seed": 3}).json()
    path = f"/api/games/{view['id']}"
    while not view["board"]["terminal"]:
        if view["board"]["to_play"] == 0:
            move = view["board"]["legal"][0]["move"]
            response = http.post(f"{path}/moves", json={"move": move})
        else:
            response = http.post(f"{path}/ai-move", json={"simulations": 200})
        assert response.status_code == 200, response.text
        view = response.json()
    assert view["board"]["outcome"] in ("X wins", "O wins", "draw")
    with http.stream("GET", f"{path}/events?limit=1") as stream:
        assert stream.status_code == 200
        data = next(line for line in stream.iter_lines() if line.startswith("data:"))
    assert GameView.model_validate(json.loads(data[5:])).ply == view["ply"]
    assert http.delete(path).status_code == 204
