"""Load on the browser app: N simulated users, each playing connect four against the AI with
its event stream open, against one ``playout serve`` on 127.0.0.1.

For each N of ``--users`` a fresh server starts (a subprocess, pinned to ``--cores`` CPUs,
on a free loopback port); N users (each an ``httpx.AsyncClient``: its own cookie, so its own
client of the server) each create a game, open its event stream (``GET .../events``) and
play for ``--seconds``: a random legal move (``POST .../moves``, the move request timed),
then the AI's reply (``POST .../ai-move`` with ``--ai-seconds``, default 0.5, or
``--simulations``, waited for; a 429 is a search refused: the user waits ``Retry-After`` and
asks again), a pause of ``--think``
seconds, and a new game (the old one deleted first) when one ends. The server's resident
memory is read from ``/proc`` four times a second.

Printed per N: requests, p50/p99 latency of a move request and of an AI move (from the first
ask to the answer, any refusal included), answers by status, AI moves that waited in the
server's queue for a search slot (its ``X-Search-Wait`` header) and that were refused (429),
the wait for a slot (p50/p99), stream views received, games lost (a user's game that
answered 404, or came back at another ply), and the server's memory (after warm-up, peak,
at the end). Everything stops by
itself: each level lasts ``--seconds`` (plus the stragglers' last requests, bounded by a
timeout), and the server is stopped after it.

    python bench/web_load.py --users 1,8,32,64 --seconds 20 --cores 2

Loopback only: the server listens on 127.0.0.1 and the users connect there.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
REQUEST_TIMEOUT = 60.0  # seconds: one request (an AI move waits for its search)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by linear interpolation (nan when empty)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# ------------------------------------------------------------------------------ the server


class Server:
    """``playout serve --host 127.0.0.1 --port 0`` in a subprocess, pinned to ``cores``
    CPUs; its URL read from the line it prints, its memory sampled while it runs."""

    def __init__(self, cores: int) -> None:
        paths = (str(ROOT / "src"), os.environ.get("PYTHONPATH", ""))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "playout", "serve", "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.cpus = available[:cores]
        if self.cpus:
            os.sched_setaffinity(self.process.pid, self.cpus)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("playout: serving on "):
            self.stop()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.url = line.split()[3].rstrip("/")
        self.memory: list[tuple[float, float]] = []  # (seconds, MiB)
        self._sampling = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def rss_mib(self) -> float:
        """The server's resident memory now (MiB; nan where /proc is missing)."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return float("nan")
        kib = next(
            (line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")), "nan"
        )
        return float(kib) / 1024

    def _sample(self) -> None:
        start = time.monotonic()
        while not self._sampling.wait(0.25):
            self.memory.append((time.monotonic() - start, self.rss_mib()))

    def stop(self) -> None:
        self._sampling.set()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


# ------------------------------------------------------------------------------ the users


class Stats:
    """What the users saw, all together."""

    def __init__(self) -> None:
        self.move_seconds: list[float] = []
        self.ai_seconds: list[float] = []
        self.statuses: collections.Counter[str] = collections.Counter()
        self.refused = 0  # AI moves answered 429 (asked again after Retry-After)
        self.queued = 0  # AI moves that waited in the server's queue for a search slot
        self.queue_seconds: list[float] = []  # each AI move's wait in that queue
        self.transport_errors = 0
        self.slowest: dict[str, float] = {}  # route -> its slowest request (seconds)
        self.views = 0
        self.lost_games = 0
        self.games = 0
        self.moves = 0


class User:
    """One simulated player: its own client (cookie), one game at a time, its stream open."""

    def __init__(self, url: str, stats: Stats, args: argparse.Namespace, seed: int) -> None:
        self.url = url
        self.stats = stats
        self.args = args
        self.random = random.Random(seed)
        self.http = httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT)
        self.view: dict[str, Any] | None = None
        self.stream: asyncio.Task[None] | None = None

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        route = f"{method} {re.sub(r'^/api/games/[^/?]+', '/api/games/{id}', path)}"
        start = time.perf_counter()
        try:
            response = await self.http.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            self.stats.transport_errors += 1
            self.stats.statuses[f"{type(error).__name__} ({route})"] += 1
            return None
        finally:
            took = time.perf_counter() - start
            self.stats.slowest[route] = max(self.stats.slowest.get(route, 0.0), took)
        self.stats.statuses[str(response.status_code)] += 1
        if response.status_code == 404 and "/api/games/" in path:
            self.stats.lost_games += 1
        return response

    async def new_game(self, deadline: float) -> bool:
        if self.view is not None:  # its old game first: a user keeps one
            await self.close_stream()
            await self.request("DELETE", f"/api/games/{self.view['id']}")
            self.view = None
        while time.monotonic() < deadline:
            body = {"game": self.args.game, "seed": self.random.randrange(2**31)}
            response = await self.request("POST", "/api/games", json=body)
            if response is not None and response.status_code == 201:
                self.view = response.json()
                self.stats.games += 1
                self.stream = asyncio.create_task(self.listen(self.view["id"]))
                return True
            wait = 1.0 if response is None else float(response.headers.get("retry-after", 1))
            await asyncio.sleep(min(wait, max(0.0, deadline - time.monotonic())))
        return False

    async def listen(self, game_id: str) -> None:
        """Read the game's event stream (as the page does) until cancelled."""
        with contextlib.suppress(httpx.HTTPError, asyncio.CancelledError):
            async with self.http.stream("GET", f"/api/games/{game_id}/events") as stream:
                self.stats.statuses[f"{stream.status_code} (stream)"] += 1
                async for line in stream.aiter_lines():
                    if line.startswith("event: view"):
                        self.stats.views += 1

    async def close_stream(self) -> None:
        if self.stream is not None:
            self.stream.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.stream
            self.stream = None

    async def play(self, deadline: float) -> None:
        if not await self.new_game(deadline):
            return
        while time.monotonic() < deadline and self.view is not None:
            board = self.view["board"]
            if board["terminal"]:
                if not await self.new_game(deadline):
                    return
                continue
            game = f"/api/games/{self.view['id']}"
            action = self.random.choice(board["legal"])["action"]
            start = time.perf_counter()
            response = await self.request("POST", f"{game}/moves", json={"action": action})
            if response is None or response.status_code != 200:
                return
            self.stats.move_seconds.append(time.perf_counter() - start)
            self.stats.moves += 1
            self.view = response.json()
            if not self.view["board"]["terminal"] and not await self.ai_move(game, deadline):
                return
            await asyncio.sleep(self.args.think * (0.5 + self.random.random()))

    async def ai_move(self, game: str, deadline: float) -> bool:
        start = time.perf_counter()
        while time.monotonic() < deadline:
            body = self.args.budget
            response = await self.request("POST", f"{game}/ai-move", json=body)
            if response is None:
                return False
            if response.status_code == 429:  # no search slot now: ask again after Retry-After
                self.stats.refused += 1
                await asyncio.sleep(float(response.headers.get("retry-after", 1)))
                continue
            if response.status_code != 200:
                return False
            waited = float(response.headers.get("x-search-wait", 0))
            if waited > 0.001:  # it waited in the server's queue for a search slot
                self.stats.queued += 1
            self.stats.queue_seconds.append(waited)
            self.stats.ai_seconds.append(time.perf_counter() - start)
            self.view = response.json()
            return True
        return False

    async def check_game(self) -> None:
        """At the end: the user's game is still there, at the ply it last saw."""
        if self.view is None:
            return
        response = await self.request("GET", f"/api/games/{self.view['id']}")
        answered = response is not None and response.status_code == 200
        if answered and response.json()["ply"] != self.view["ply"]:
            self.stats.lost_games += 1

    async def close(self) -> None:
        await self.close_stream()
        await self.http.aclose()


async def load(url: str, users: int, args: argparse.Namespace) -> Stats:
    stats = Stats()
    players = [User(url, stats, args, seed=args.seed * 1000 + i) for i in range(users)]
    deadline = time.monotonic() + args.seconds
    try:
        await asyncio.wait_for(
            asyncio.gather(*(p.play(deadline) for p in players)),
            timeout=args.seconds + REQUEST_TIMEOUT,
        )
        await asyncio.gather(*(p.check_game() for p in players))
    finally:
        await asyncio.gather(*(p.close() for p in players))
    return stats


def warm_up(url: str, args: argparse.Namespace) -> None:
    """One game and one AI move (the compiled search's first call loads its code)."""
    with httpx.Client(base_url=url, timeout=300) as http:
        game = http.post("/api/games", json={"game": args.game}).json()
        http.post(f"/api/games/{game['id']}/ai-move", json=args.budget)
        http.delete(f"/api/games/{game['id']}")


def run_level(users: int, args: argparse.Namespace) -> dict[str, Any]:
    server = Server(args.cores)
    try:
        warm_up(server.url, args)
        before = server.rss_mib()
        started = time.monotonic()
        stats = asyncio.run(load(server.url, users, args))
        elapsed = time.monotonic() - started
        end = server.rss_mib()
    finally:
        server.stop()
    memory = [mib for _, mib in server.memory]
    errors_5xx = sum(n for status, n in stats.statuses.items() if status.startswith("5"))
    return {
        "users": users,
        "seconds": round(elapsed, 1),
        "cpus": server.cpus,
        "requests": sum(stats.statuses.values()),
        "moves": stats.moves,
        "games": stats.games,
        "move_ms_p50": percentile(stats.move_seconds, 0.5) * 1000,
        "move_ms_p99": percentile(stats.move_seconds, 0.99) * 1000,
        "ai_s_p50": percentile(stats.ai_seconds, 0.5),
        "ai_s_p99": percentile(stats.ai_seconds, 0.99),
        "ai_moves": len(stats.ai_seconds),
        "statuses": dict(sorted(stats.statuses.items())),
        "errors_5xx": errors_5xx,
        "transport_errors": stats.transport_errors,
        "searches_refused": stats.refused,
        "searches_queued": stats.queued,
        "queue_s_p50": percentile(stats.queue_seconds, 0.5),
        "queue_s_p99": percentile(stats.queue_seconds, 0.99),
        "stream_views": stats.views,
        "lost_games": stats.lost_games,
        "rss_mib_start": before,
        "rss_mib_peak": max(memory, default=end),
        "rss_mib_end": end,
        "rss_mib_median": statistics.median(memory) if memory else end,
        "slowest_s": {route: round(s, 3) for route, s in sorted(stats.slowest.items())},
    }


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| users | requests | move p50 / p99 (ms) | AI move p50 / p99 (s) | answers by status "
        "| searches queued / refused (429) | wait for a slot p50 / p99 (s) | stream views "
        "| 5xx | lost games "
        "| memory MiB: start / peak / end |"
    )
    rule = "|" + "---|" * (head.count("|") - 1)
    rows = [head, rule]
    for r in results:
        statuses = ", ".join(f"{k}: {v}" for k, v in r["statuses"].items())
        rows.append(
            f"| {r['users']} | {r['requests']:,} | {r['move_ms_p50']:.0f} / {r['move_ms_p99']:.0f} "
            f"| {r['ai_s_p50']:.2f} / {r['ai_s_p99']:.2f} | {statuses} "
            f"| {r['searches_queued']:,} / {r['searches_refused']:,} "
            f"| {r['queue_s_p50']:.2f} / {r['queue_s_p99']:.2f} | {r['stream_views']:,} "
            f"| {r['errors_5xx']} | {r['lost_games']} "
            f"| {r['rss_mib_start']:.0f} / {r['rss_mib_peak']:.0f} / {r['rss_mib_end']:.0f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", default="1,8,32,64", help="user counts, one level each")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of a level")
    parser.add_argument("--game", default="connect4")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--simulations", type=int, help="an AI move's budget in simulations")
    budget.add_argument(
        "--ai-seconds", type=float, default=0.5, help="an AI move's budget in seconds (0.5)"
    )
    parser.add_argument("--think", type=float, default=0.5, help="a user's pause (mean, s)")
    parser.add_argument("--cores", type=int, default=2, help="CPUs the server is pinned to")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.users.split(",")]
    if any(n < 1 for n in levels) or args.seconds <= 0 or args.cores < 1:
        parser.error("users, seconds and cores must be positive")
    args.budget = (
        {"simulations": args.simulations}
        if args.simulations is not None
        else {"seconds": args.ai_seconds}
    )
    results = []
    for users in levels:
        print(f"{users} users for {args.seconds:g} s ...", file=sys.stderr, flush=True)
        results.append(run_level(users, args))
    ai = ", ".join(f"{value:g} {key}" for key, value in args.budget.items())
    machine = (
        f"server on CPUs {results[0]['cpus']} of {os.cpu_count()} (the load client shares "
        f"them); load average {os.getloadavg()[0]:.1f}; {args.game}, AI {ai} a move, "
        f"think {args.think:g} s, {args.seconds:g} s a level"
    )
    if args.json:
        print(json.dumps({"machine": machine, "levels": results}, indent=1))
    else:
        print(machine)
        print(table(results))
    failed = any(r["errors_5xx"] or r["lost_games"] for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
