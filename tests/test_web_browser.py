"""The browser app end to end: Debian's chromium, driven by Playwright for Python, against
``playout serve``'s app on a free port (uvicorn in a thread).

It plays a whole tic-tac-toe game and a few connect-four moves by clicking, checks the result
shown, that the heat map and the evaluation bar appear and change while the AI thinks, and
that an illegal click is refused; it plays chess by clicking and dragging (the AI replies),
and promotes a pawn to a knight through the promotion prompt in a position set by FEN; and it
opens the URL that ``playout serve --token`` prints (a subprocess on 127.0.0.1), as a server
off the loopback prints it, and plays there;
screenshots (laptop and phone widths) go to a temporary folder, or to ``$PLAYOUT_SCREENSHOTS``
when set.

The machine cannot download a browser build (no ``playwright install``): the test uses
``/usr/bin/chromium`` (``apt-get install chromium``; ``.ci/run`` installs it). Without it the
tests skip, except in CI (``CI`` set), where they must run.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# One worker runs this file under pytest-xdist: its tests share one browser and one server
# (module fixtures), started once a run rather than once a worker.
pytestmark = pytest.mark.xdist_group("browser")

if not os.environ.get("CI"):
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True
        )
    pytest.importorskip("playwright.sync_api")

import uvicorn  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # noqa: E402

from playout.web import Limits, create_app  # noqa: E402


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    # The server gets the socket bound here (port 0: the system's free port), never a port
    # number to bind again later, which another test process could take in between.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    app = create_app(Limits(snapshot_interval=0.1, max_seconds=5.0))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("PLAYOUT_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, url: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#board .cell")
    yield page
    context.close()
    assert not errors, errors


def ply(page: Page) -> int:
    return int(page.evaluate("document.body.dataset.ply"))


IDLE = "!document.body.dataset.thinking && !app.aiPending"
"""Nothing thinks: no search runs, and no AI move is asked for (the page marks a request as
thinking only at its next render)."""

PATIENCE_MS = 60_000
"""How long a wait for the AI may take on a loaded two-core CI machine (a bound on liveness,
not a measure of speed: the moves take well under a second)."""


def wait_for(page: Page, condition: str, timeout: int = PATIENCE_MS) -> None:
    """Until ``condition`` (JavaScript) holds on the page; on a timeout, the failure says
    what the page showed (its message, status, ply and thinking), not only that it waited."""
    try:
        page.wait_for_function(condition, timeout=timeout)
    except PlaywrightTimeoutError:
        shown = page.evaluate(
            "({message: document.getElementById('message').textContent,"
            " status: document.getElementById('status').textContent,"
            " ply: document.body.dataset.ply, thinking: document.body.dataset.thinking,"
            " aiPending: Boolean(app.aiPending)})"
        )
        raise AssertionError(
            f"waited {timeout} ms for {condition}; the page shows {shown}"
        ) from None


def wait_idle(page: Page, at_ply: int) -> None:
    """Until the page shows ply ``at_ply`` and nothing is thinking."""
    wait_for(page, f"document.body.dataset.ply === '{at_ply}' && {IDLE}")


def setup(page: Page, game: str, budget: str, unit: str, ai: str = "second") -> None:
    page.select_option("#game-select", game)
    page.select_option("#ai-side", ai)
    page.fill("#budget-value", budget)
    page.select_option("#budget-kind", unit)
    old = page.evaluate("app.view && app.view.id")
    page.click("#new-game")
    wait_for(page, f"app.view && app.view.id !== {old!r}")  # may compile the game's kernel
    wait_idle(page, 0)


def test_a_whole_tictactoe_game_by_clicking(page: Page, screenshots: Path) -> None:
    setup(page, "tictactoe", "300", "simulations")
    page.click('#board .cell[data-action="4"]')
    wait_idle(page, 2)
    assert page.locator("#board .cell.taken").count() == 2
    assert page.locator("#move-string").input_value().startswith("b2 ")  # the board's labels
    # An illegal click (a taken square) is refused with the game's reason.
    page.click('#board .cell[data-action="4"]')
    page.wait_for_function("document.getElementById('message').textContent.includes('occupied')")
    assert ply(page) == 2
    page.screenshot(path=str(screenshots / "tictactoe-midgame.png"), full_page=True)
    moves = 2
    while "Game over" not in page.inner_text("#status"):
        page.locator("#board .cell:not(.taken)").first.click()
        # The human's turn again (the AI has replied) or the end: never the moment between
        # the human's move and the AI's request, when a click would be refused.
        wait_for(
            page,
            f"(Number(document.body.dataset.ply) > {moves}"
            f" && Number(document.body.dataset.ply) % 2 === 0 && {IDLE})"
            " || document.getElementById('status').textContent.includes('Game over')",
        )
        moves = ply(page)
    status = page.inner_text("#status")
    assert any(words in status for words in ("X wins", "O wins", "draw")), status
    assert page.inner_text("#eval-text") in ("X wins", "O wins", "draw")
    # Clicking after the end is refused too.
    before = ply(page)
    free = page.locator("#board .cell:not(.taken)")
    if free.count():
        free.first.click()
        page.wait_for_function("document.getElementById('message').textContent.includes('over')")
        assert ply(page) == before
    assert page.locator("#graph circle").count() >= 2  # the value graph
    page.screenshot(path=str(screenshots / "tictactoe-over.png"), full_page=True)
    # Undo goes back to the human's turn: the AI's move (O, even plies) and the human's.
    page.click("#undo")
    wait_idle(page, before - 2 if before % 2 == 0 else before - 1)


def test_connect_four_heat_map_and_evaluation_bar_change_while_the_ai_thinks(
    page: Page, screenshots: Path
) -> None:
    setup(page, "connect4", "1.5", "seconds")
    page.click('#board .column[data-action="3"]')
    page.wait_for_function("document.body.dataset.thinking === 'ai'")
    page.wait_for_selector("#board .heat")
    first = (page.inner_text("#stats"), page.get_attribute("#board", "data-version"))
    width = page.eval_on_selector("#evalbar-fill", "e => e.style.width")
    assert width.endswith("%")
    assert page.inner_text("#eval-text").startswith("Red ")
    page.wait_for_timeout(400)
    assert page.evaluate("document.body.dataset.thinking") == "ai"
    second = (page.inner_text("#stats"), page.get_attribute("#board", "data-version"))
    assert second != first  # new snapshots: more simulations, a new board version
    assert page.locator("#top-moves tr").count() >= 3
    page.screenshot(path=str(screenshots / "connect4-thinking.png"), full_page=True)
    wait_idle(page, 2)
    assert page.locator("#board .slot.d0").count() == 1
    assert page.locator("#board .slot.d1").count() == 1
    page.select_option("#budget-kind", "simulations")
    page.fill("#budget-value", "300")
    page.click('#board .column[data-action="3"]')
    wait_idle(page, 4)
    page.click('#board .column[data-action="2"]')
    wait_idle(page, 6)
    assert page.locator("#board .slot.d0").count() == 3
    assert len(page.locator("#move-string").input_value()) == 6
    page.screenshot(path=str(screenshots / "connect4-laptop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshots / "connect4-phone.png"), full_page=True)
    box = page.locator("#board").bounding_box()
    assert box is not None and box["width"] <= 390


def test_go_on_three_board_sizes_with_pass_captures_heat_map_and_evaluation(
    page: Page, screenshots: Path
) -> None:
    """Go by clicking: a 9x9 game with the AI (heat map and evaluation bar while it thinks),
    a capture counted in the status, the pass button, and the 13x13 and 19x19 boards."""
    page.select_option("#game-select", "go")
    assert page.is_visible("#go-fields") and not page.is_visible("#size-fields")
    page.select_option("#go-size", "9")
    setup(page, "go", "0.8", "seconds")
    assert page.locator("#board .point").count() == 81
    assert page.locator("#board .point.star").count() == 5
    assert page.is_visible("#pass")
    page.click('#board .point[aria-label="E5"]')
    page.wait_for_function("document.body.dataset.thinking === 'ai'")
    page.wait_for_selector("#board .heat")
    assert page.inner_text("#eval-text").startswith("Black ")
    page.screenshot(path=str(screenshots / "go-9x9-thinking.png"), full_page=True)
    wait_idle(page, 2)
    assert page.locator("#board .gostone.black").count() == 1
    assert page.locator("#board .gostone.white").count() == 1
    assert "captures: Black 0, White 0" in page.inner_text("#status")
    # An analysis board: Black takes a White stone in the corner.
    page.select_option("#ai-side", "none")
    page.fill("#move-string", "B1 A1 pass A2 B2 pass")
    page.click("#import")
    page.wait_for_function("app.view && app.view.ply === 6")
    page.click('#board .point[aria-label="A3"]')
    page.wait_for_function("app.view && app.view.ply === 7")
    assert "captures: Black 2, White 0" in page.inner_text("#status")
    assert page.locator("#board .gostone.white").count() == 0
    page.click("#pass")
    page.wait_for_function("app.view && app.view.ply === 8")
    page.click("#pass")
    page.wait_for_function("document.getElementById('status').textContent.includes('Game over')")
    assert "B+" in page.inner_text("#status") and "Black wins" in page.inner_text("#eval-text")
    page.screenshot(path=str(screenshots / "go-9x9-over.png"), full_page=True)
    for size, points in (("13", 169), ("19", 361)):
        page.select_option("#go-size", size)
        old = page.evaluate("app.view.id")
        page.click("#new-game")
        wait_for(page, f"app.view && app.view.id !== {old!r}")
        assert page.locator("#board .point").count() == points
        assert page.locator("#board .point.star").count() == (5 if size == "13" else 9)
        # Analyse: the search's heat map and evaluation bar on this board too.
        assert page.inner_text("#eval-text") == "\u2013"  # a new game: no evaluation yet (a dash)
        page.check("#analyse")
        page.wait_for_selector("#board .heat", timeout=PATIENCE_MS)
        assert re.fullmatch("Black [+\u2212]\\d\\.\\d\\d.*", page.inner_text("#eval-text"))
        page.screenshot(path=str(screenshots / f"go-{size}x{size}-analysis.png"), full_page=True)
        page.uncheck("#analyse")  # stops it, and no streamed view ticks it again
        wait_idle(page, 0)
        assert not page.is_checked("#analyse")
        # A view of an analysis arriving after the untick (a late one) leaves the box
        # unticked and stops that analysis.
        page.evaluate("show({...app.view, thinking: 'analysis'}, false)")
        assert not page.is_checked("#analyse")
        wait_for(page, "app.view.thinking === null || app.view.thinking === ''")


def test_the_zero_ai_is_offered_where_a_network_is_shipped(page: Page, screenshots: Path) -> None:
    pytest.importorskip("torch")
    page.select_option("#game-select", "tictactoe")
    page.wait_for_selector("#ai-kind-field", state="visible")
    page.select_option("#ai-kind", "zero")
    setup(page, "tictactoe", "64", "simulations")
    page.click('#board .cell[data-action="0"]')
    wait_idle(page, 2)
    assert page.locator("#board .cell.taken").count() == 2
    assert page.evaluate("app.view.ai") == "zero"
    page.screenshot(path=str(screenshots / "tictactoe-zero.png"), full_page=True)
    page.select_option("#game-select", "gomoku")  # 15x15, five in a row: a network
    page.wait_for_selector("#ai-kind-field", state="visible")
    page.fill("#width", "9")  # no network shipped for 9x15: no selector
    page.dispatch_event("#width", "change")
    page.wait_for_selector("#ai-kind-field", state="hidden")


PROMOTION_FEN = "8/4P1k1/8/8/8/7p/7P/4K3 w - - 0 1"


def square(name: str) -> str:
    return f'#board .sq[data-square="{name}"]'


def message(page: Page, words: str) -> None:
    page.wait_for_function(
        f"document.getElementById('message').textContent.includes({words!r})", timeout=5_000
    )


def test_chess_by_clicking_and_dragging_with_a_promotion(page: Page, screenshots: Path) -> None:
    pytest.importorskip("chess")
    setup(page, "chess", "40", "simulations")
    assert page.locator("#board .sq").count() == 64
    assert page.locator("#board .piece").count() == 32
    # Click e2: its targets light up; click e4: played, and the AI (black) replies.
    page.click(square("e2"))
    assert page.locator("#board .sq.target").count() == 2
    assert page.locator(f"{square('e4')}.target").count() == 1
    page.screenshot(path=str(screenshots / "chess-selected.png"), full_page=True)
    page.click(square("e4"))
    wait_idle(page, 2)
    assert page.locator("#move-string").input_value().startswith("e2e4 ")
    assert page.locator(f"{square('e4')} .piece.w").count() == 1
    assert page.locator("#board .sq.last").count() == 2  # the AI's move, from and to
    # Illegal clicks are refused with a message: a knight's impossible jump, a black piece.
    page.click(square("g1"))
    page.click(square("g4"))
    message(page, "Illegal move: g1g4")
    page.click(square("d8"))
    message(page, "Black's piece")
    assert ply(page) == 2
    # Drag and drop: d2 to d4.
    page.drag_and_drop(f"{square('d2')} .piece", square("d4"))
    wait_idle(page, 4)
    assert page.locator("#move-string").input_value().split()[2] == "d2d4"
    page.screenshot(path=str(screenshots / "chess-laptop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(screenshots / "chess-phone.png"), full_page=True)
    box = page.locator("#board .chess").bounding_box()
    assert box is not None and box["width"] <= 390
    page.set_viewport_size({"width": 1280, "height": 860})

    # A pawn on the 7th rank: the promotion prompt offers four pieces; take a knight.
    page.select_option("#game-select", "chess")
    page.fill("#fen", PROMOTION_FEN)
    setup(page, "chess", "40", "simulations")
    page.click(square("e7"))
    page.click(square("e8"))
    page.wait_for_selector("#promotion")
    assert page.locator("#promotion button[data-piece]").count() == 4
    assert ply(page) == 0
    page.screenshot(path=str(screenshots / "chess-promotion.png"), full_page=True)
    page.click('#promotion button[data-piece="n"]')
    wait_idle(page, 2)
    assert page.locator("#move-string").input_value().startswith("e7e8n ")
    assert page.evaluate("app.view.moves[0]") == "e7e8n"
    assert page.locator("#promotion").count() == 0


# ------------------------------------------------------------------------------ the token path

TOKEN = "browser-test-token-0123"


@pytest.fixture(scope="module")
def printed_url() -> Iterator[str]:
    """``playout serve --port 0 --token ...`` in a subprocess: the URL it printed (as a
    server off the loopback prints it; this one listens on 127.0.0.1 only)."""
    root = Path(__file__).resolve().parent.parent
    paths = (str(root / "src"), os.environ.get("PYTHONPATH", ""))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    process = subprocess.Popen(
        [sys.executable, "-m", "playout", "serve", "--port", "0", "--token", TOKEN],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("playout: serving on "), line
        yield line.split()[3]
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def test_the_printed_url_with_its_token_opens_the_app(browser: Any, printed_url: str) -> None:
    assert printed_url.endswith(f"/?token={TOKEN}")
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(printed_url)  # one click: the page, and the token kept in a cookie
    page.wait_for_selector("#board .cell")
    assert "token" not in page.url  # taken out of the address bar
    setup(page, "tictactoe", "100", "simulations")
    page.click('#board .cell[data-action="4"]')
    wait_idle(page, 2)  # the AI replied: its requests and its event stream got through
    assert page.locator("#board .cell.taken").count() == 2
    page.reload()  # the cookie, not the URL, carries the token now
    page.wait_for_selector("#board .cell")
    context.close()
    assert not errors, errors
    # A browser without the token gets the page, and a message instead of a game.
    stranger = browser.new_context()
    page = stranger.new_page()
    page.goto(printed_url.split("?")[0])
    page.wait_for_function(
        "document.getElementById('message').textContent.includes('needs its token')",
        timeout=15_000,
    )
    assert page.locator("#board .cell").count() == 0
    stranger.close()
