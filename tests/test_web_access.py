"""Who may use the browser app's server (``playout.web.access``), and ``playout serve``'s start.

The loopback test and the policy it gives (a token off the loopback, whichever address a
request comes from; none on it), the token from the URL, a header or the cookie, the ``Host``
check of a loopback server (DNS rebinding), CORS closed, the client cookie; ``playout serve``
on a port in use (one line, exit 2), ``--port 0`` (the port it got, announced) and the token
in the announced URL. Nothing here listens on anything but 127.0.0.1: an app configured as a
server off the loopback is reached through FastAPI's test client.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest

from playout import InvalidParameterError
from playout.cli import main
from playout.web import Access, Limits, announcement, create_app, listen
from playout.web.access import is_loopback, urls

with warnings.catch_warnings():  # starlette's notice about httpx versions
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "class-of-2025-token"
LIMITS = Limits(snapshot_interval=0.05, max_seconds=5.0)


PROTECTED = (
    "/api/catalog",
    "/api/ai-kinds?game=tictactoe",
    "/openapi.json",
    "/docs",
    "/api/games/x",
)


def client_of(access: Access, base_url: str = "http://127.0.0.1:8000") -> TestClient:
    return TestClient(create_app(LIMITS, access=access), base_url=base_url)


# ------------------------------------------------------------------------------ policy


def test_the_loopback_test() -> None:
    for host in (
        "127.0.0.1",
        "127.0.0.2",
        "::1",
        "[::1]",
        "localhost",
        "LOCALHOST",
        "::ffff:127.0.0.1",
    ):
        assert is_loopback(host), host
    for host in (
        "0.0.0.0",
        "::",
        "",
        "192.168.1.20",
        "10.0.0.5",
        "example.org",
        "localhost.example.org",
    ):
        assert not is_loopback(host), host


def test_a_token_off_the_loopback_and_none_on_it() -> None:
    for host in ("0.0.0.0", "::", "192.168.1.20", "myhost.local"):
        access = Access.for_host(host)
        assert access.token is not None and len(access.token) >= 32 and not access.local_only
        assert Access.for_host(host).token != access.token  # a new random one each start
        assert Access.for_host(host, TOKEN).token == TOKEN
    for host in ("127.0.0.1", "::1", "localhost"):
        assert Access.for_host(host) == Access(token=None, local_only=True)
        # Given, a token is needed on the loopback too (and then any Host will do).
        assert Access.for_host(host, TOKEN) == Access(token=TOKEN, local_only=False)
    for bad in ("short", "has space in it", "semi;colon;x", "x" * 129):
        with pytest.raises(InvalidParameterError, match="8 to 128 characters"):
            Access.for_host("0.0.0.0", bad)


def test_the_announced_urls_carry_the_token() -> None:
    access = Access.for_host("0.0.0.0", TOKEN)
    lines = announcement("0.0.0.0", 8123, access)
    assert lines[0] == f"playout: serving on http://127.0.0.1:8123/?token={TOKEN} (Ctrl-C to stop)"
    assert len(lines) == 2 and lines[1].endswith(f":8123/?token={TOKEN}")
    assert urls("127.0.0.1", 8000) == ("http://127.0.0.1:8000/", None)
    assert urls("::1", 8000, TOKEN) == (f"http://[::1]:8000/?token={TOKEN}", None)
    assert announcement("127.0.0.1", 8000, Access()) == [
        "playout: serving on http://127.0.0.1:8000/ (Ctrl-C to stop)"
    ]


# ------------------------------------------------------------------------------ the app


def test_off_the_loopback_every_api_request_needs_the_token() -> None:
    # As `playout serve --host 0.0.0.0` configures it; requests name the server by a LAN
    # address (only the Host header: nothing listens there) or by 127.0.0.1, alike.
    access = Access.for_host("0.0.0.0", TOKEN)
    for base in ("http://192.168.1.20:8000", "http://127.0.0.1:8000"):
        with client_of(access, base) as client:
            for path in PROTECTED:
                response = client.get(path)
                assert response.status_code == 401, (base, path, response.text)
                assert response.headers["www-authenticate"] == "Bearer"
                assert "?token=" in response.json()["detail"]
            assert client.post("/api/games", json={"game": "tictactoe"}).status_code == 401
            wrong = {"Authorization": "Bearer not-the-token"}
            assert client.get("/api/catalog", headers=wrong).status_code == 401
            assert client.get("/api/catalog?token=not-the-token").status_code == 401
            right = {"Authorization": f"Bearer {TOKEN}"}
            assert client.get("/api/catalog", headers=right).status_code == 200
            # The page and its files hold no data: served without the token.
            assert client.get("/").status_code == 200
            assert client.get("/static/app.js").status_code == 200
            assert "playout-token-8000" not in client.cookies


def test_the_url_token_becomes_a_cookie_and_the_page_works_with_it() -> None:
    with client_of(Access.for_host("0.0.0.0", TOKEN), "http://192.168.1.20:8000") as client:
        page = client.get(f"/?token={TOKEN}")  # the announced URL, opened
        assert page.status_code == 200 and "<title>playout" in page.text
        cookies = page.headers.get_list("set-cookie")
        token_cookie = next(c for c in cookies if c.startswith("playout-token-8000="))
        assert f"={TOKEN};" in token_cookie
        assert "HttpOnly" in token_cookie and "SameSite=Strict" in token_cookie
        assert page.headers["referrer-policy"] == "no-referrer"
        # From then on the browser's requests carry the cookie: a whole game, no header.
        game = client.post("/api/games", json={"game": "tictactoe", "seed": 1})
        assert game.status_code == 201, game.text
        path = f"/api/games/{game.json()['id']}"
        assert client.post(f"{path}/moves", json={"move": "1,1"}).status_code == 200
        reply = client.post(f"{path}/ai-move", json={"simulations": 50})
        assert reply.status_code == 200 and reply.json()["ply"] == 2
        with client.stream("GET", f"{path}/events?limit=1") as stream:
            assert stream.status_code == 200
        # Another browser without the token gets nothing, even knowing the game's id.
        stranger = TestClient(client.app, base_url="http://192.168.1.20:8000")
        assert stranger.get(path).status_code == 401
        assert stranger.delete(path).status_code == 401
        assert client.get(path).status_code == 200


def test_on_the_loopback_no_token_but_only_this_machines_host_names() -> None:
    with client_of(Access.for_host("127.0.0.1")) as client:
        assert client.get("/api/catalog").status_code == 200
        for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "127.0.0.2:9"):
            assert client.get("/api/catalog", headers={"Host": host}).status_code == 200, host
        # A page elsewhere whose DNS name points here (DNS rebinding) is refused.
        for host in ("evil.example", "evil.example:8000", "192.168.1.20:8000"):
            response = client.get("/api/catalog", headers={"Host": host})
            assert response.status_code == 400, host
            assert "this machine only" in response.json()["detail"]
    # With a token given on the loopback, it is needed there too, and it is the guard: a
    # reverse proxy may pass another Host.
    with client_of(Access.for_host("127.0.0.1", TOKEN)) as client:
        assert client.get("/api/catalog").status_code == 401
        assert client.get("/api/catalog", params={"token": TOKEN}).status_code == 200
        assert client.get("/api/catalog").status_code == 200  # the cookie now
        proxied = {"Host": "games.example.org", "Authorization": f"Bearer {TOKEN}"}
        assert client.get("/api/catalog", headers=proxied).status_code == 200


def test_cross_origin_requests_get_no_cors_headers() -> None:
    for access in (Access(), Access.for_host("0.0.0.0", TOKEN)):
        with client_of(access) as client:
            origin = {"Origin": "http://evil.example"}
            preflight = client.options(
                "/api/games",
                headers={
                    **origin,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "content-type",
                },
            )
            assert preflight.status_code >= 400
            answer = client.get("/", headers=origin)
            for response in (preflight, answer):
                assert not any(h.startswith("access-control-") for h in response.headers)


def test_each_browser_gets_a_client_cookie_once() -> None:
    with client_of(Access()) as client:
        first = client.get("/")
        client_cookie = next(
            c for c in first.headers.get_list("set-cookie") if c.startswith("playout-client=")
        )
        assert "HttpOnly" in client_cookie and "SameSite=Strict" in client_cookie
        name = client.cookies["playout-client"]
        assert "set-cookie" not in client.get("/api/catalog").headers
        assert client.cookies["playout-client"] == name
        # A made-up value is not a name: the server gives a new one.
        client.cookies.set("playout-client", "x")
        assert "playout-client=" in client.get("/api/catalog").headers["set-cookie"]


# ------------------------------------------------------------------------------ playout serve


def test_serve_on_a_port_in_use_is_one_line_and_exit_2(capsys: Any) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no URL announced
    err = captured.err.strip()
    assert err == f"playout: error: cannot listen on 127.0.0.1:{port}: address already in use"
    assert main(["serve", "--port", "0", "--token", "short"]) == 2
    assert "8 to 128 characters" in capsys.readouterr().err
    assert main(["serve", "--host", "no-such-host.invalid", "--port", "0"]) == 2
    assert "cannot listen on no-such-host.invalid:0" in capsys.readouterr().err


def test_listen_gives_the_port_it_got() -> None:
    with listen("127.0.0.1", 0) as sock:
        port = sock.getsockname()[1]
        assert port > 0
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass


def test_serve_port_0_announces_its_port_and_the_token() -> None:
    paths = (str(ROOT / "src"), os.environ.get("PYTHONPATH", ""))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    process = subprocess.Popen(
        [sys.executable, "-m", "playout", "serve", "--port", "0", "--token", TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("playout: serving on http://127.0.0.1:"), line
        url = line.split()[3]
        port = int(url.split(":")[2].split("/")[0])
        assert port > 0 and url == f"http://127.0.0.1:{port}/?token={TOKEN}"
        with httpx.Client(timeout=20) as client:
            assert client.get(f"http://127.0.0.1:{port}/api/catalog").status_code == 401
            assert client.get(url).status_code == 200  # the page, and the token's cookie
            assert client.get(f"http://127.0.0.1:{port}/api/catalog").status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    # Ctrl-C ends it as it ends every command: one line, exit code 130.
    assert process.stderr is not None
    assert (code, process.stderr.read().strip()) == (130, "playout: interrupted")
