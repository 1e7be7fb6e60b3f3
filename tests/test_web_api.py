"""The browser app's JSON API (``playout serve``), through FastAPI's test client.

A whole game, bad moves and ids, the server's caps, analysis and the AI's search as
background jobs (started, streamed, stopped, cancelled), games side by side, expiry; and the
pieces under it: ``MCTS.lines`` and ``render.board_json`` / ``snapshot_json``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import playout
from playout import render
from playout.cli import main
from playout.web import Limits, create_app
from playout.web.sessions import QuotaError, SearchSlots

with warnings.catch_warnings():  # starlette's notice about httpx versions
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

FAST = Limits(snapshot_interval=0.05, max_seconds=5.0)
LOCAL = "http://127.0.0.1"  # a loopback server answers requests for this machine only


@pytest.fixture
def client() -> Iterator[TestClient]:
    with make_client(FAST) as test_client:
        yield test_client


def make_client(limits: Limits, app: Any = None) -> TestClient:
    """A test client (one browser: its cookies kept) of ``app``, or of a new app with
    ``limits``."""
    return TestClient(app if app is not None else create_app(limits), base_url=LOCAL)


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"seed": 1, **body})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def events(client: TestClient, game_id: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` views of the game's event stream."""
    views = []
    with client.stream("GET", f"/api/games/{game_id}/events?limit={count}") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            if line.startswith("data:"):
                views.append(json.loads(line[5:]))
    return views


# ------------------------------------------------------------------------------ games


def test_a_whole_tictactoe_game_through_the_api(client: TestClient) -> None:
    view = new_game(client, game="tictactoe")
    game_id = view["id"]
    assert view["board"]["kind"] == "grid" and view["board"]["to_play"] == 0
    assert view["moves"] == [] and view["history"] == [None] and view["thinking"] is None
    while not view["board"]["terminal"]:
        if view["board"]["to_play"] == 0:  # a human who takes the first free square
            move = view["board"]["legal"][0]["move"]
            response = client.post(f"/api/games/{game_id}/moves", json={"move": move})
        else:
            response = client.post(f"/api/games/{game_id}/ai-move", json={"simulations": 300})
        assert response.status_code == 200, response.text
        view = response.json()
        assert view["thinking"] is None
    board = view["board"]
    assert board["outcome"] in ("X wins", "O wins", "draw")
    assert board["legal"] == [] and board["to_play"] is None
    assert len(view["history"]) == view["ply"] + 1 == len(view["moves"]) + 1
    # The AI searched before each of its moves: its positions have values (for X).
    assert all(v is None or -1 <= v <= 1 for v in view["history"])
    assert sum(v is not None for v in view["history"]) >= view["ply"] // 2
    # The move string exports the game and imports it again.
    again = new_game(client, game="tictactoe", moves=view["move_string"])
    assert (
        again["board"]["cells"] == board["cells"] and again["board"]["outcome"] == board["outcome"]
    )
    response = client.post(f"/api/games/{game_id}/moves", json={"move": "0,0"})
    assert response.status_code == 409 and "over" in response.json()["detail"]
    response = client.post(f"/api/games/{game_id}/ai-move", json={"simulations": 10})
    assert response.status_code == 409


def test_import_undo_and_sizes(client: TestClient) -> None:
    view = new_game(client, game="connect4", moves="4453")
    assert view["moves"] == ["4", "4", "5", "3"] and view["move_string"] == "4453"
    assert view["board"]["kind"] == "columns"
    assert (view["board"]["width"], view["board"]["height"]) == (7, 6)
    assert view["board"]["cells"][5][3] == 0 and view["board"]["cells"][4][3] == 1
    assert view["last_move"] == {"action": 2, "move": "3", "player": 1}
    view = client.post(f"/api/games/{view['id']}/undo", json={"count": 2}).json()
    assert view["move_string"] == "44" and view["ply"] == 2
    view = new_game(client, game="mnk", width=5, height=4, k=4, moves="1,1 b3")
    assert (view["board"]["width"], view["board"]["height"]) == (5, 4)
    assert view["moves"] == ["b2", "b3"] and view["move_string"] == "b2 b3"
    response = client.post(f"/api/games/{view['id']}/undo", json={"count": 3})
    assert response.status_code == 400 and "2 played" in response.json()["detail"]


def test_bad_moves_and_games_are_4xx_with_a_clear_message(client: TestClient) -> None:
    game_id = new_game(client, game="tictactoe", moves="1,1")["id"]
    moves = f"/api/games/{game_id}/moves"
    cases = [
        ({"move": "1,1"}, 400, "occupied"),
        ({"action": 4}, 400, "occupied"),  # a click on a taken square: the game's words
        ({"move": "zz"}, 400, "cannot read"),
        ({"move": "5,5"}, 400, "off the 3x3 board"),
        ({"action": 99}, 400, "not a legal move"),
        ({}, 400, "give a move"),
        ({"move": "0,0", "action": 0}, 400, "give a move"),
        ({"action": "x"}, 422, ""),
    ]
    for body, status, words in cases:
        response = client.post(moves, json=body)
        assert response.status_code == status, (body, response.text)
        assert words in str(response.json()["detail"]), (body, response.json())
    assert client.get(f"/api/games/{game_id}").json()["moves"] == ["b2"]

    for body, words in [
        ({"game": "nope"}, "unknown game"),
        ({"game": "mnk", "width": 40}, "at most 19"),
        ({"game": "pig"}, "two-player games without chance"),
        ({"game": "bandit"}, "two-player games without chance"),
        ({"game": "tictactoe", "moves": "1,1 1,1"}, "move 2"),
        ({"game": "mnk", "k": 0}, ""),
    ]:
        response = client.post("/api/games", json=body)
        assert response.status_code in (400, 422), (body, response.text)
        assert words in str(response.json()["detail"]), (body, response.json())


def test_ai_kinds_and_streams_refuse_what_the_app_refuses(client: TestClient) -> None:
    # ai-kinds offered MCTS for games the app would not create: now the same 400.
    for game in ("pig", "bandit"):
        response = client.get("/api/ai-kinds", params={"game": game})
        assert response.status_code == 400, response.text
        assert "two-player games without chance" in response.json()["detail"]
        assert client.post("/api/games", json={"game": game}).status_code == 400
    assert client.get("/api/ai-kinds", params={"game": "connect4"}).status_code == 200
    game_id = new_game(client, game="tictactoe")["id"]
    for limit in (-1, -100):  # was read as 1
        response = client.get(f"/api/games/{game_id}/events", params={"limit": limit})
        assert response.status_code == 422, response.text
    assert len(events(client, game_id, 1)) == 1


def test_unknown_ids_are_404(client: TestClient) -> None:
    routes = [
        ("GET", ""),
        ("GET", "/snapshot"),
        ("GET", "/events"),
        ("DELETE", ""),
        ("POST", "/moves"),
        ("POST", "/undo"),
        ("POST", "/ai-move"),
        ("POST", "/analysis"),
        ("POST", "/stop"),
    ]
    for method, suffix in routes:
        body = {"move": "1,1"} if suffix == "/moves" else None
        response = client.request(method, f"/api/games/nope{suffix}", json=body)
        assert response.status_code == 404, (method, suffix, response.text)
        assert "no game with id 'nope'" in response.json()["detail"]
    game_id = new_game(client, game="tictactoe")["id"]
    assert client.delete(f"/api/games/{game_id}").status_code == 204
    assert client.get(f"/api/games/{game_id}").status_code == 404


def test_budgets_are_capped() -> None:
    limits = Limits(max_simulations=1000, max_seconds=0.5, snapshot_interval=0.05)
    with make_client(limits) as client:
        game_id = new_game(client, game="connect4")["id"]
        url = f"/api/games/{game_id}/ai-move"
        for body, words in [
            ({"simulations": 1001}, "between 1 and 1,000"),
            ({"simulations": 0}, "between 1 and 1,000"),
            ({"seconds": 0.6}, "at most 0.5"),
            ({"seconds": -1}, "> 0"),
            ({"simulations": 10, "seconds": 0.1}, "not both"),
        ]:
            response = client.post(url, json=body)
            assert response.status_code == 400, (body, response.text)
            assert words in response.json()["detail"], (body, response.json())
        assert client.get(f"/api/games/{game_id}").json()["ply"] == 0
        view = client.post(url, json={"simulations": 1000}).json()
        assert view["ply"] == 1
        catalog = client.get("/api/catalog").json()
        assert catalog["limits"]["max_simulations"] == 1000
        assert {"tictactoe", "mnk", "gomoku", "connect4"} <= {g["name"] for g in catalog["games"]}


def test_analysis_streams_views_and_stops(client: TestClient) -> None:
    view = new_game(client, game="connect4")
    game_id = view["id"]
    view = client.post(f"/api/games/{game_id}/analysis").json()
    assert view["thinking"] == "analysis"
    views = events(client, game_id, 4)
    assert [v["version"] for v in views] == sorted({v["version"] for v in views})
    counts = [v["analysis"]["total_simulations"] for v in views if v["analysis"]]
    assert len(counts) >= 2 and counts == sorted(counts) and counts[-1] > counts[0]
    last = views[-1]["analysis"]
    assert len(last["shares"]) == 1 and len(last["shares"][0]) == 7
    assert abs(sum(s for s in last["shares"][0] if s is not None) - 1) < 1e-9
    assert last["top"][0]["pv"][0] == last["top"][0]["move"]
    assert -1 <= last["value_for_first"] <= 1
    # A move while analysing: the analysis goes on from the new position, tree kept.
    before = client.get(f"/api/games/{game_id}/snapshot").json()["analysis"]
    column = before["top"][0]["move"]
    view = client.post(f"/api/games/{game_id}/moves", json={"move": column}).json()
    assert view["thinking"] == "analysis" and view["ply"] == 1
    assert view["analysis"]["total_simulations"] > 0  # the subtree below the move
    view = client.post(f"/api/games/{game_id}/stop").json()
    assert view["thinking"] is None
    total = view["analysis"]["total_simulations"]
    time.sleep(0.2)
    snapshot = client.get(f"/api/games/{game_id}/snapshot").json()
    assert snapshot["thinking"] is None and snapshot["analysis"]["total_simulations"] == total
    # Stopped by hand, it stays stopped after the next move.
    view = client.post(f"/api/games/{game_id}/moves", json={"move": "4"}).json()
    assert view["thinking"] is None and view["ply"] == 2
    assert client.post(f"/api/games/{game_id}/stop").json()["thinking"] is None


def test_analysis_ends_when_proven_and_agrees_with_the_cli(client: TestClient) -> None:
    moves = "1,1 0,0 2,2"
    game_id = new_game(client, game="tictactoe", moves=moves)["id"]
    client.post(f"/api/games/{game_id}/analysis")
    wait_for(lambda: client.get(f"/api/games/{game_id}").json()["thinking"] is None)
    analysis = client.get(f"/api/games/{game_id}").json()["analysis"]
    assert analysis["proven"] == "draw" and analysis["stop_reason"] == "proven"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", "tictactoe", "--moves", moves, "--json", "--simulations", "50000"])
    assert code == 0
    cli = json.loads(out.getvalue())
    assert set(cli) - {"workers"} <= set(analysis)
    assert cli["proven"] == analysis["proven"]
    assert {a["move"]: a["proven"] for a in cli["actions"]} == {
        a["move"]: a["proven"] for a in analysis["actions"]
    }


def test_the_ai_search_is_a_job_that_stop_ends_and_cancel_abandons() -> None:
    app = create_app(FAST)
    with make_client(FAST, app) as client:
        game_id = new_game(client, game="connect4")["id"]
        url = f"/api/games/{game_id}"
        view = client.post(f"{url}/ai-move", json={"seconds": 5, "wait": False}).json()
        assert view["thinking"] == "ai" and view["ply"] == 0
        # Busy: no move, undo or analysis while the AI thinks.
        assert client.post(f"{url}/moves", json={"move": "4"}).status_code == 409
        assert client.post(f"{url}/analysis").status_code == 409
        assert client.post(f"{url}/ai-move", json={"simulations": 5}).status_code == 409
        wait_for(lambda: (client.get(url).json()["analysis"] or {}).get("simulations", 0) > 0)
        start = time.monotonic()
        client.post(f"{url}/stop")
        wait_for(lambda: client.get(url).json()["thinking"] is None)
        assert time.monotonic() - start < 2
        view = client.get(url).json()
        assert view["ply"] == 1  # stopped: it played its best move so far
        # A client that goes away: the search is cancelled and plays nothing.
        client.post(f"{url}/ai-move", json={"seconds": 5, "wait": False})
        session = app.state.store.get(game_id)
        session.cancel()
        wait_for(lambda: session.thinking is None, 3)
        assert client.get(url).json()["ply"] == 1


def test_an_analysis_nobody_watches_stops() -> None:
    app = create_app(Limits(idle_seconds=0.3, snapshot_interval=0.05))
    with make_client(FAST, app) as client:
        game_id = new_game(client, game="connect4")["id"]
        client.post(f"/api/games/{game_id}/analysis")
        session = app.state.store.get(game_id)
        assert session.thinking == "analysis"
        wait_for(lambda: session.thinking is None, 5)  # no request, no event stream


def test_two_games_at_once(client: TestClient) -> None:
    first = new_game(client, game="tictactoe")["id"]
    second = new_game(client, game="connect4")["id"]
    assert first != second
    client.post(f"/api/games/{first}/analysis")
    client.post(f"/api/games/{second}/analysis")
    client.post(f"/api/games/{second}/moves", json={"move": "4"})
    a = client.post(f"/api/games/{first}/moves", json={"move": "1,1"}).json()
    b = client.get(f"/api/games/{second}").json()
    assert a["moves"] == ["b2"] and b["moves"] == ["4"]
    assert a["game"] == "tictactoe" and b["game"] == "connect4"
    for game_id in (first, second):
        assert client.post(f"/api/games/{game_id}/stop").json()["thinking"] is None


def test_one_client_cannot_evict_another_clients_games() -> None:
    """Per-client game quotas: past its own share a client gets 429 with Retry-After, past the
    server's bound everybody does; no game of anybody is dropped to make room."""
    app = create_app(Limits(max_games=3, max_games_per_client=2))
    with make_client(FAST, app) as alice, make_client(FAST, app) as bob:
        mine = [new_game(alice, game="tictactoe")["id"] for _ in range(2)]
        response = alice.post("/api/games", json={"game": "tictactoe"})
        assert response.status_code == 429, response.text
        assert "the most for one client" in response.json()["detail"]
        assert int(response.headers["retry-after"]) >= 1
        theirs = new_game(bob, game="connect4")["id"]
        # The server is full (3 games): Bob, within his own share, is refused too.
        response = bob.post("/api/games", json={"game": "tictactoe"})
        assert response.status_code == 429 and "keeps 3 games" in response.json()["detail"]
        assert int(response.headers["retry-after"]) >= 1
        assert all(alice.get(f"/api/games/{i}").status_code == 200 for i in mine)
        assert bob.get(f"/api/games/{theirs}").status_code == 200
        # Another client's game is as good as absent: not shown, not deleted, not played.
        for method, suffix, body in [
            ("GET", "", None),
            ("DELETE", "", None),
            ("POST", "/moves", {"move": "1,1"}),
            ("POST", "/ai-move", {"simulations": 5}),
            ("GET", "/events", None),
        ]:
            response = bob.request(method, f"/api/games/{mine[0]}{suffix}", json=body)
            assert response.status_code == 404, (method, suffix, response.text)
        assert alice.get(f"/api/games/{mine[0]}").json()["ply"] == 0
        # Room made by its owner is room for anybody.
        assert alice.delete(f"/api/games/{mine[1]}").status_code == 204
        new_game(bob, game="tictactoe")
        assert app.state.store.count() == 3
        assert [alice.get(f"/api/games/{i}").status_code for i in mine] == [200, 404]


def test_each_client_has_its_own_search_quota() -> None:
    app = create_app(Limits(max_searches=3, max_searches_per_client=2, snapshot_interval=0.05))
    with make_client(FAST, app) as alice, make_client(FAST, app) as bob:
        games = [new_game(alice, game="connect4")["id"] for _ in range(3)]
        other = [new_game(bob, game="connect4")["id"] for _ in range(2)]
        for game_id in games[:2]:
            assert alice.post(f"/api/games/{game_id}/analysis").status_code == 200
        for path, body in [("analysis", None), ("ai-move", {"seconds": 1})]:
            response = alice.post(f"/api/games/{games[2]}/{path}", json=body)
            assert response.status_code == 429, response.text
            assert "you run 2 searches" in response.json()["detail"]
            assert response.headers["retry-after"] == "1"
        # Alice's share is used up, not the server's: Bob gets the third slot, then the
        # server is full for him too.
        assert bob.post(f"/api/games/{other[0]}/analysis").status_code == 200
        response = bob.post(f"/api/games/{other[1]}/analysis")
        assert response.status_code == 429 and "runs 3 searches" in response.json()["detail"]
        assert app.state.store.slots.running() == 3
        # A stopped search gives its slot back.
        alice.post(f"/api/games/{games[0]}/stop")
        wait_for(lambda: app.state.store.slots.running() == 2)
        assert alice.post(f"/api/games/{games[2]}/analysis").status_code == 200
        for who, game_id in [(alice, games[1]), (alice, games[2]), (bob, other[0])]:
            who.post(f"/api/games/{game_id}/stop")
        wait_for(lambda: app.state.store.slots.running() == 0)


def test_search_slots_go_in_turn() -> None:
    slots = SearchSlots(total=1, per_client=1, max_waiting=2)
    granted: list[str] = []
    slots.acquire("a")
    b = slots.enqueue("b", lambda: granted.append("b"))
    c = slots.enqueue("c", lambda: granted.append("c"))
    assert not b.granted and not c.granted and slots.waiting() == 2
    with pytest.raises(QuotaError, match="more wait"):
        slots.enqueue("d")  # the queue is full
    with pytest.raises(QuotaError, match="2 more waiting"):
        slots.acquire("e")  # nobody goes ahead of those who wait
    with pytest.raises(QuotaError, match="you run 1 search already"):
        slots.enqueue("b")  # a client's share counts its running and waiting searches
    slots.release("a")
    assert granted == ["b"] and b.granted and not c.granted  # first come, first served
    assert slots.cancel(c) and slots.waiting() == 0
    assert not slots.cancel(b)  # too late: b has its slot
    slots.release("b")
    assert slots.running() == 0 and granted == ["b"]
    ticket = slots.enqueue("f")
    assert ticket.granted and slots.running("f") == 1  # a free slot and nobody waiting


def test_an_ai_move_waits_its_turn_for_a_search_slot() -> None:
    limits = Limits(max_searches=1, snapshot_interval=0.05, max_seconds=5.0)
    app = create_app(limits)
    with make_client(FAST, app) as alice, make_client(FAST, app) as bob:
        busy = new_game(alice, game="connect4")["id"]
        mine = new_game(bob, game="connect4")["id"]
        alice.post(f"/api/games/{busy}/analysis")  # the server's only slot
        assert bob.post(f"/api/games/{mine}/ai-move", json={"wait": False}).status_code == 429
        answers: list[Any] = []
        waiting = threading.Thread(
            target=lambda: answers.append(
                bob.post(f"/api/games/{mine}/ai-move", json={"seconds": 5})
            )
        )
        waiting.start()
        wait_for(lambda: app.state.store.slots.waiting() == 1)
        # Queued, not refused: the slot Alice's analysis gives back is Bob's, and she
        # cannot start another ahead of him.
        assert alice.post(f"/api/games/{busy}/stop").status_code == 200
        assert alice.post(f"/api/games/{busy}/analysis").status_code == 429
        wait_for(lambda: app.state.store.get(mine).thinking == "ai")
        bob.post(f"/api/games/{mine}/stop")  # the AI plays its best move so far
        waiting.join(10)
        assert not waiting.is_alive()
        response = answers[0]
        assert response.status_code == 200, response.text
        assert response.json()["ply"] == 1 and float(response.headers["x-search-wait"]) > 0
    app = create_app(Limits(max_searches=1, queue_seconds=0.3, snapshot_interval=0.05))
    with make_client(FAST, app) as alice, make_client(FAST, app) as bob:
        busy = new_game(alice, game="connect4")["id"]
        mine = new_game(bob, game="connect4")["id"]
        alice.post(f"/api/games/{busy}/analysis")
        response = bob.post(f"/api/games/{mine}/ai-move", json={"simulations": 100})
        assert response.status_code == 429, response.text
        assert "no search slot came free in 0.3 s" in response.json()["detail"]
        assert (
            app.state.store.slots.waiting() == 0
            and bob.get(f"/api/games/{mine}").json()["ply"] == 0
        )
        alice.post(f"/api/games/{busy}/stop")


def test_a_game_deleted_while_its_ai_move_waits_for_a_slot_answers_404() -> None:
    app = create_app(Limits(max_searches=1, snapshot_interval=0.05))
    with make_client(FAST, app) as alice, make_client(FAST, app) as bob:
        busy = new_game(alice, game="connect4")["id"]
        mine = new_game(bob, game="connect4")["id"]
        alice.post(f"/api/games/{busy}/analysis")  # the server's only slot
        answers: list[Any] = []
        waiting = threading.Thread(
            target=lambda: answers.append(
                bob.post(f"/api/games/{mine}/ai-move", json={"simulations": 100})
            )
        )
        waiting.start()
        wait_for(lambda: app.state.store.slots.waiting() == 1)
        assert bob.delete(f"/api/games/{mine}").status_code == 204
        alice.post(f"/api/games/{busy}/stop")  # the slot goes to Bob's move, in turn
        waiting.join(10)
        assert not waiting.is_alive()
        assert answers[0].status_code == 404, answers[0].text
        assert "it was deleted" in answers[0].json()["detail"]
        wait_for(lambda: app.state.store.slots.running() == 0)  # the slot given back


def test_event_streams_are_bounded_per_client() -> None:
    app = create_app(Limits(max_streams_per_client=1, snapshot_interval=0.05))
    with make_client(FAST, app) as client:
        game_id = new_game(client, game="tictactoe")["id"]
        assert len(events(client, game_id, 1)) == 1  # a stream ended gives its place back
        release = app.state.store.open_stream(client.cookies["playout-client"])  # one open
        response = client.get(f"/api/games/{game_id}/events?limit=1")
        assert response.status_code == 429 and "event streams open" in response.json()["detail"]
        release()
        release()  # once only
        assert app.state.store.streams() == 0
        assert len(events(client, game_id, 1)) == 1


def test_deleting_a_game_while_the_ai_thinks_answers_the_waiting_request_404() -> None:
    app = create_app(FAST)
    with make_client(FAST, app) as client:
        game_id = new_game(client, game="connect4")["id"]
        session = app.state.store.get(game_id)
        answers: list[Any] = []
        waiting = threading.Thread(
            target=lambda: answers.append(
                client.post(f"/api/games/{game_id}/ai-move", json={"seconds": 5})
            )
        )
        waiting.start()
        wait_for(lambda: session.thinking == "ai")
        assert client.delete(f"/api/games/{game_id}").status_code == 204
        waiting.join(10)
        assert not waiting.is_alive()
        assert answers[0].status_code == 404, answers[0].text
        assert "no game with id" in answers[0].json()["detail"]
        assert app.state.store.slots.running() == 0


def test_games_expire_but_never_while_they_search() -> None:
    app = create_app(Limits(ttl_seconds=0.3, idle_seconds=10, snapshot_interval=0.05))
    with make_client(FAST, app) as client:
        idle = new_game(client, game="tictactoe")["id"]
        busy = new_game(client, game="connect4")["id"]
        client.post(f"/api/games/{busy}/analysis")
        time.sleep(0.5)
        assert client.get(f"/api/games/{idle}").status_code == 404
        view = client.get(f"/api/games/{busy}").json()
        assert view["thinking"] == "analysis"
        client.post(f"/api/games/{busy}/stop")


def test_the_page_and_the_openapi_document(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<title>playout" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/moves",
        "/api/games/{game_id}/undo",
        "/api/games/{game_id}/ai-move",
        "/api/games/{game_id}/analysis",
        "/api/games/{game_id}/stop",
        "/api/games/{game_id}/snapshot",
        "/api/games/{game_id}/events",
    } <= paths
    assert "GameView" in schema["components"]["schemas"]
    assert client.get("/docs").status_code == 200


def test_the_zero_ai_plays_with_the_shipped_network(client: TestClient) -> None:
    pytest.importorskip("torch")
    kinds = client.get("/api/ai-kinds", params={"game": "tictactoe"}).json()["kinds"]
    assert {k["name"]: k["available"] for k in kinds} == {"mcts": True, "zero": True}
    game = new_game(client, game="tictactoe", ai="zero")
    assert game["ai"] == "zero"
    path = f"/api/games/{game['id']}"
    session = client.app.state.store.get(game["id"])  # type: ignore[attr-defined]
    assert type(session.engine.config.evaluator).__name__ == "NetworkEvaluator"
    # Analysis with the network: snapshots with visits.
    client.post(f"{path}/analysis")
    # (A long timeout: on a cold numba cache the first search compiles for a while.)
    wait_for(
        lambda: (client.get(f"{path}/snapshot").json()["analysis"] or {}).get("nodes", 0) > 1,
        timeout=120.0,
    )
    client.post(f"{path}/stop")
    analysis = client.get(f"{path}/snapshot").json()["analysis"]
    assert analysis["total_simulations"] > 0 and sum(a["visits"] for a in analysis["actions"]) > 0
    # A whole game: the network plays X against the first legal move.
    view = game
    while not view["board"]["terminal"]:
        legal = {m["action"] for m in view["board"]["legal"]}
        if view["ply"] % 2 == 0:
            view = client.post(f"{path}/ai-move", json={"simulations": 64}).json()
        else:
            first = view["board"]["legal"][0]["action"]
            view = client.post(f"{path}/moves", json={"action": first}).json()
        assert view["last_move"] and view["last_move"]["action"] in legal, view
    assert view["board"]["outcome"] is not None and "O wins" not in view["board"]["outcome"], view
    # Undo starts a new engine with the same network.
    view = client.post(f"{path}/undo", json={"count": 2}).json()
    assert type(session.engine.config.evaluator).__name__ == "NetworkEvaluator"


def test_the_zero_ai_plays_connect_four_with_its_shipped_network(client: TestClient) -> None:
    pytest.importorskip("torch")
    kinds = client.get("/api/ai-kinds", params={"game": "connect4"}).json()["kinds"]
    assert {k["name"]: k["available"] for k in kinds} == {"mcts": True, "zero": True}
    # Red has three in the bottom row (columns 1-3) and wins in column 4.
    game = new_game(client, game="connect4", moves="112233", ai="zero")
    assert game["ai"] == "zero" and game["ply"] == 6
    view = client.post(f"/api/games/{game['id']}/ai-move", json={"simulations": 32}).json()
    assert view["last_move"]["move"] == "4"
    assert view["board"]["terminal"] and view["board"]["outcome"] is not None


def test_the_zero_ai_plays_gomoku_15x15_with_its_shipped_network(client: TestClient) -> None:
    pytest.importorskip("torch")
    kinds = client.get("/api/ai-kinds", params={"game": "gomoku"}).json()["kinds"]
    assert {k["name"]: k["available"] for k in kinds} == {"mcts": True, "zero": True}
    sized = {"game": "gomoku", "width": 15, "height": 15, "k": 5}  # as the page asks
    kinds = client.get("/api/ai-kinds", params=sized).json()["kinds"]
    assert {k["name"]: k["available"] for k in kinds} == {"mcts": True, "zero": True}
    # Black (X) has an open four on row 8 (f8-i8) and wins at e8 or j8.
    game = new_game(client, game="gomoku", moves="f8 a1 g8 a2 h8 a3 i8 a15", ai="zero")
    assert game["ai"] == "zero" and game["ply"] == 8
    session = client.app.state.store.get(game["id"])  # type: ignore[attr-defined]
    assert type(session.engine.config.evaluator).__name__ == "NetworkEvaluator"
    view = client.post(f"/api/games/{game['id']}/ai-move", json={"simulations": 64}).json()
    assert view["last_move"]["move"] in {"e8", "j8"}
    assert view["board"]["terminal"] and "X wins" in view["board"]["outcome"]
    # From the empty board, a legal opening move.
    game = new_game(client, **sized, ai="zero")
    view = client.post(f"/api/games/{game['id']}/ai-move", json={"simulations": 16}).json()
    assert view["ply"] == 1 and view["last_move"]["action"] in range(225)


def test_zero_without_a_network_or_torch_is_a_400(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Gomoku has a network for 15x15, five in a row only.
    for other in ({"width": 9, "height": 9}, {"k": 4}):
        params = {"game": "gomoku", **other}
        kinds = client.get("/api/ai-kinds", params=params).json()["kinds"]
        zero = next(k for k in kinds if k["name"] == "zero")
        assert not zero["available"] and "\n" not in zero["reason"]
        response = client.post("/api/games", json={**params, "ai": "zero"})
        assert response.status_code == 400
        detail = response.json()["detail"]
        assert "no network is shipped for gomoku" in detail or "needs torch" in detail
        assert "\n" not in detail
    assert client.post("/api/games", json={"game": "tictactoe", "ai": "alpha"}).status_code == 422
    assert client.get("/api/ai-kinds", params={"game": "nope"}).status_code == 400
    # Without PyTorch the reason is the extra to install.
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    response = client.post("/api/games", json={"game": "tictactoe", "ai": "zero"})
    assert response.status_code == 400
    assert response.json()["detail"] == (
        'the zero AI needs torch: pip install "playout[zero]" (or pip install torch)'
    )


def test_without_the_web_extra(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)
    with pytest.raises(playout.MissingDependencyError, match=r'pip install "playout\[web\]"'):
        create_app()
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "playout[web]" in err and err.startswith("playout: error:")


# ------------------------------------------------------------------------------ pieces


def test_lines_follow_the_most_visited_replies() -> None:
    state = playout.make_game("tictactoe").initial_state()
    engine = playout.MCTS(state, seed=3)
    result = engine.run(playout.Budget(simulations=2000))
    lines = engine.lines(result.actions)
    assert lines[result.best_action] == result.pv
    assert all(line[0] == action for action, line in lines.items())
    assert engine.lines([result.best_action], max_length=2)[result.best_action] == result.pv[:2]
    fresh = playout.MCTS(state, seed=3)
    assert fresh.lines([4]) == {4: (4,)}
    # Moves no tree holds get a line of themselves alone; what is not a move is refused.
    assert engine.lines([-5, 2**70]) == {-5: (-5,), 2**70: (2**70,)}
    for bad in ([1.5], ["4"], [True], 4):
        with pytest.raises(playout.InvalidParameterError, match="action"):
            engine.lines(bad)
    for length in (0, 2.5, "3"):
        with pytest.raises(playout.InvalidParameterError, match="max_length"):
            engine.lines([4], max_length=length)  # type: ignore[arg-type]


def test_board_and_snapshot_json() -> None:
    game = playout.make_game("tictactoe")
    state = game.initial_state().play(4).play(0)
    board = render.board_json(game, state)
    assert board["cells"] == [[1, None, None], [None, 0, None], [None, None, None]]
    assert board["names"] == ["X", "O"] and board["to_play"] == 0
    assert len(board["legal"]) == 7 and board["legal"][0] == {"action": 1, "move": "b1"}
    engine = playout.MCTS(state, seed=0)
    result = engine.run(playout.Budget(simulations=500))
    snapshot = render.snapshot_json(game, state, result, lines=engine.lines(result.actions))
    json.dumps(snapshot, allow_nan=False)
    assert snapshot["shares"] == render.probability_grid(result, 3, 3, fill=None)
    assert {
        k: v for k, v in snapshot.items() if k in render.analysis_json(game, state, result)
    } == (render.analysis_json(game, state, result))
    top = snapshot["top"]
    assert [row["visits"] for row in top] == sorted(result.visit_counts, reverse=True)[:5]
    assert top[0]["pv"] == render.moves_text(game, state, result.pv)
    assert snapshot["value_for_first"] == result.value  # X to move
    chess_like = render.board_json(
        playout.make_game("pig"), playout.make_game("pig").initial_state()
    )
    assert chess_like["kind"] == "text" and chess_like["cells"] == []


# ------------------------------------------------------------------------------ chess

PROMOTION_FEN = "8/4P1k1/8/8/8/7p/7P/4K3 w - - 0 1"


def test_the_chess_board_as_squares_and_legal_moves(client: TestClient) -> None:
    pytest.importorskip("chess")
    view = new_game(client, game="chess")
    board = view["board"]
    assert board["kind"] == "chess" and (board["width"], board["height"]) == (8, 8)
    assert len(board["pieces"]) == 8 and all(len(row) == 8 for row in board["pieces"])
    assert sum(len(row) for row in board["cells"]) == 64
    assert board["pieces"][0] == list("rnbqkbnr") and board["pieces"][7] == list("RNBQKBNR")
    assert board["cells"][7][4] == 0 and board["cells"][0][4] == 1 and board["cells"][4][4] is None
    assert board["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    assert board["check"] is None and board["names"] == ["White", "Black"]
    legal = {m["move"]: m for m in board["legal"]}
    assert len(legal) == 20
    assert legal["e2e4"]["from_square"] == "e2" and legal["e2e4"]["to_square"] == "e4"
    assert legal["e2e4"]["promotion"] is None
    assert legal["g1f3"]["from_square"] == "g1"

    response = client.post(f"/api/games/{view['id']}/moves", json={"move": "e2e4"})
    assert response.status_code == 200, response.text
    after = response.json()
    assert after["moves"] == ["e2e4"] and after["board"]["to_play"] == 1
    assert after["board"]["pieces"][4][4] == "P" and after["board"]["pieces"][6][4] is None
    assert after["last_move"]["move"] == "e2e4"
    # A move by action id, and an illegal one by UCI.
    e7e5 = next(m for m in after["board"]["legal"] if m["move"] == "e7e5")
    response = client.post(f"/api/games/{view['id']}/moves", json={"action": e7e5["action"]})
    assert response.status_code == 200 and response.json()["moves"] == ["e2e4", "e7e5"]
    response = client.post(f"/api/games/{view['id']}/moves", json={"move": "e4e6"})
    assert response.status_code == 400 and "not legal" in response.json()["detail"]


def test_chess_promotions_from_a_fen(client: TestClient) -> None:
    pytest.importorskip("chess")
    view = new_game(client, game="chess", fen=PROMOTION_FEN)
    promotions = sorted(
        (m["move"], m["promotion"]) for m in view["board"]["legal"] if m["promotion"]
    )
    assert promotions == [("e7e8b", "b"), ("e7e8n", "n"), ("e7e8q", "q"), ("e7e8r", "r")]
    assert all(m["from_square"] == "e7" for m in view["board"]["legal"] if m["promotion"])
    response = client.post(f"/api/games/{view['id']}/moves", json={"move": "e7e8n"})
    assert response.status_code == 200, response.text
    board = response.json()["board"]
    assert board["pieces"][0][4] == "N" and board["fen"].startswith("4N3/6k1/")
    bad = client.post("/api/games", json={"game": "chess", "fen": "not a fen"})
    assert bad.status_code == 400 and "FEN" in bad.json()["detail"]


def test_the_ai_replies_at_chess_with_a_heat_map_per_target_square(client: TestClient) -> None:
    pytest.importorskip("chess")
    view = new_game(client, game="chess", moves="e2e4")
    response = client.post(f"/api/games/{view['id']}/ai-move", json={"simulations": 60})
    assert response.status_code == 200, response.text
    after = response.json()
    assert after["ply"] == 2 and after["board"]["to_play"] == 0
    assert after["last_move"]["player"] == 1
    analysis = after["analysis"]
    assert analysis is not None and analysis["values_grid"] is None
    shares = analysis["shares"]
    assert len(shares) == 8 and all(len(row) == 8 for row in shares)
    # The shares of the position after the AI's move: White's targets, summing to 1.
    total = sum(x for row in shares for x in row if x is not None)
    assert total == pytest.approx(1.0)
    check = new_game(client, game="chess", moves="e2e4 f7f6 d2d4 g7g5 d1h5")
    assert check["board"]["check"] == "e8" and check["board"]["terminal"]
    assert check["board"]["outcome"] == "White wins"
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert {"from_square", "to_square", "promotion"} <= set(schema["LegalMove"]["properties"])
    assert {"pieces", "fen", "check"} <= set(schema["Board"]["properties"])


def test_moves_past_the_end_at_creation_are_a_bad_request(client: TestClient) -> None:
    """Found by the fuzzer: a game made from a finished position (a stalemate) with a move
    to play answered 409, a status the creation route does not document; the move string is
    bad input (400), as any other illegal move string there."""
    stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
    response = client.post("/api/games", json={"game": "chess", "fen": stalemate, "moves": "h7"})
    assert response.status_code == 400, response.text
    assert "over" in response.json()["detail"]
    response = client.post("/api/games", json={"game": "tictactoe", "moves": "a1 a2 b1 b2 c1 c2"})
    assert response.status_code == 400, response.text


@pytest.mark.parametrize("size", [9, 13, 19])
def test_go_on_every_usual_board_with_a_pass_captures_and_analysis(
    client: TestClient, size: int
) -> None:
    catalog = client.get("/api/catalog").json()
    (go,) = [g for g in catalog["games"] if g["name"] == "go"]
    assert go["params"] == {"size": 9, "komi": 7.5}
    view = new_game(client, game="go", size=size, komi=6.5, moves="B1 A1 pass A2 B2 pass")
    game_id, board = view["id"], view["board"]
    assert (board["kind"], board["width"], board["height"]) == ("go", size, size)
    assert board["pass_action"] == size * size and board["komi"] == 6.5
    assert len(board["star_points"]) == (5 if size < 19 else 9)
    assert {"action": size * size, "move": "pass"} in [
        {"action": m["action"], "move": m["move"]} for m in board["legal"]
    ]
    bottom = board["cells"][size - 1]
    assert (bottom[0], bottom[1], board["cells"][size - 2][0]) == (1, 0, 1)  # A1 B1 A2
    # A3 takes the two white stones: Black's captures count them.
    view = client.post(f"/api/games/{game_id}/moves", json={"move": "A3"}).json()
    board = view["board"]
    assert board["captures"] == [2, 0] and board["cells"][size - 1][0] is None
    assert view["last_move"]["move"] == "A3"
    # Black's area is the whole board: every empty point reaches only Black.
    assert board["score"] == size * size - 6.5
    # The analysis (White to move): shares on the points (the pass left out of the grid),
    # summing to the points' visits.
    client.post(f"/api/games/{game_id}/analysis")
    views = events(client, game_id, 3)
    last = [v["analysis"] for v in views if v["analysis"]][-1]
    assert len(last["shares"]) == size and all(len(row) == size for row in last["shares"])
    visits = {a["action"]: a["visits"] for a in last["actions"]}
    total = sum(visits.values())
    on_points = sum(s for row in last["shares"] for s in row if s is not None)
    assert abs(on_points - (total - visits.get(size * size, 0)) / total) < 1e-9
    assert -1 <= last["value_for_first"] <= 1
    client.post(f"/api/games/{game_id}/stop")
    view = client.post(f"/api/games/{game_id}/moves", json={"action": size * size}).json()
    assert view["moves"][-1] == "pass" and not view["board"]["terminal"]
    view = client.post(f"/api/games/{game_id}/moves", json={"move": "pass"}).json()
    assert view["board"]["terminal"] and view["board"]["outcome"] == "Black wins"


def test_go_parameters_are_checked(client: TestClient) -> None:
    for body, words in [
        ({"game": "go", "size": 25}, "size must be at most 19"),
        ({"game": "go", "komi": 0.3}, "komi must be a multiple of 0.5"),
        ({"game": "go", "moves": "E5 E5"}, "E5 is occupied"),
    ]:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400, (body, response.text)
        assert words in response.json()["detail"], (body, response.json())
    kinds = client.get("/api/ai-kinds", params={"game": "go", "size": 13, "komi": 5.5}).json()
    assert [k["name"] for k in kinds["kinds"] if k["available"]] == ["mcts"]
    assert client.get("/api/ai-kinds", params={"game": "go", "size": 21}).status_code == 400
