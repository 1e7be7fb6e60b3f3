"""``playout gtp``: the GTP engine's responses, command by command, and the command over pipes."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import playout
from playout.cli.gtp import COMMANDS, TIME_SAFETY, GtpEngine, serve
from playout.games.go import GoState

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def make_engine(size: int = 5, komi: float = 0.5, simulations: int = 30) -> GtpEngine:
    def make_search(state: GoState) -> playout.MCTS:
        return playout.MCTS(state, simulations=simulations, seed=0, backend="python")

    return GtpEngine(size, komi, playout.Budget(simulations=simulations), make_search)


def transcript(engine: GtpEngine, lines: str) -> str:
    return "".join(engine.handle(line) for line in lines.splitlines())


def test_framing_ids_comments_and_errors() -> None:
    engine = make_engine()
    lines = "# a comment\n\n5 protocol_version\nname\n  7 known_command play\nfoo bar\n3 foo\n"
    lines += "known_command foo\nplay x C3\nplay b\nplay b zz\n"
    assert transcript(engine, lines) == (
        "=5 2\n\n"
        "= playout\n\n"
        "=7 true\n\n"
        "? unknown command\n\n"
        "?3 unknown command\n\n"
        "= false\n\n"
        "? syntax error\n\n"
        "? syntax error\n\n"
        "? syntax error\n\n"
    )
    assert engine.handle("list_commands") == "= " + "\n".join(COMMANDS) + "\n\n"
    assert engine.handle("version") == f"= {playout.__version__}\n\n"


def test_capture_showboard_and_undo() -> None:
    engine = make_engine()
    moves = "play b C3\nplay w c4\nplay b B4\nplay w pass\nplay b D4\nplay w pass\n"
    assert transcript(engine, moves) == "=\n\n" * 6
    assert engine.handle("play b c5") == "=\n\n"  # takes the white stone on C4
    board = (
        "= \n"
        "  A B C D E\n"
        "5 . . X . . 5\n"
        "4 . X . X . 4\n"
        "3 . . X . . 3\n"
        "2 . . . . . 2\n"
        "1 . . . . . 1\n"
        "  A B C D E\n"
        "White to move\n\n"
    )
    assert engine.handle("showboard") == board
    assert engine.handle("play w C4") == "? illegal move (C4 is suicide)\n\n"
    assert engine.handle("play w Z9").startswith("? illegal move ('z9' is off the 5x5 board")
    assert engine.handle("2 undo") == "=2\n\n"
    assert "4 . X O X . 4" in engine.handle("showboard")
    assert engine.handle("play b C3") == "? illegal move (C3 is occupied)\n\n"


def test_undo_of_nothing_and_of_a_pass_put_first() -> None:
    engine = make_engine()
    assert engine.handle("undo") == "? cannot undo\n\n"
    # Black moves first, so "play w" puts a pass for Black first; undo takes back both.
    assert engine.handle("play w C3") == "=\n\n"
    assert engine.state.num_moves == 2
    assert engine.handle("undo") == "=\n\n"
    assert engine.state == engine.game.initial_state()
    assert engine.handle("undo") == "? cannot undo\n\n"


def test_final_score_of_a_finished_position() -> None:
    engine = make_engine(komi=0.5)
    # Black's wall on column B, White's on column C.
    wall = "".join(f"play b B{row}\nplay w C{row}\n" for row in range(1, 6))
    assert transcript(engine, wall + "play b pass\nplay w pass\n") == "=\n\n" * 12
    assert engine.state.is_terminal()
    # Black: 5 stones + 5 empty (A) = 10; White: 5 stones + 10 empty (D, E) = 15, + 0.5.
    assert engine.handle("final_score") == "= W+5.5\n\n"
    assert engine.handle("play b A1") == "? illegal move (the game is over)\n\n"
    assert engine.handle("genmove b") == "= pass\n\n"
    assert engine.handle("komi -5") == "=\n\n"
    assert engine.handle("final_score") == "= 0\n\n"
    assert engine.handle("komi -7.5") == "=\n\n"
    assert engine.handle("final_score") == "= B+2.5\n\n"
    assert engine.handle("komi 0.25").startswith("? komi must be a multiple of 0.5")
    assert engine.handle("komi x") == "? syntax error\n\n"


def test_genmove_plays_a_legal_vertex_and_keeps_the_tree() -> None:
    engine = make_engine()
    engine.handle("play b C3")
    before = engine.state
    answer = engine.handle("1 genmove white")
    assert answer.startswith("=1 ") and answer.endswith("\n\n")
    vertex = answer[3:-2]
    action = engine.game.string_to_action(before, vertex)  # a legal move there
    assert engine.state == before.play(action)
    search = engine._search
    assert search is not None and search.root_state == engine.state
    engine.handle("play b pass")
    assert engine._search is search  # moved along, not rebuilt
    assert search.root_state == engine.state
    again = make_engine()
    assert transcript(again, "play b C3\n1 genmove w\n") == "=\n\n" + answer  # the seed


def test_boardsize_and_clear_board() -> None:
    engine = make_engine()
    assert engine.handle("boardsize 7") == "=\n\n"
    assert engine.game.size == 7 and engine.game.komi == 0.5
    assert engine.handle("play b G7") == "=\n\n"
    assert engine.handle("clear_board") == "=\n\n"
    assert engine.state == engine.game.initial_state() and engine.moves == []
    assert engine.handle("boardsize 25") == "? unacceptable size\n\n"
    assert engine.handle("boardsize 1") == "? unacceptable size\n\n"
    assert engine.handle("boardsize seven") == "? syntax error\n\n"
    assert engine.game.size == 7


def test_time_settings_and_time_left_set_the_budget() -> None:
    engine = make_engine(size=9, simulations=30)
    assert engine.move_budget(0) == playout.Budget(simulations=30)
    assert engine.handle("time_settings 60 0 0") == "=\n\n"  # absolute time, 60 s
    budget = engine.move_budget(0)
    assert budget.simulations is None
    assert budget.seconds == pytest.approx(60 / 40 * TIME_SAFETY)  # 81 empty points: 40 moves
    assert engine.handle("time_left b 5 0") == "=\n\n"
    assert engine.move_budget(0).seconds == pytest.approx(5 / 40 * TIME_SAFETY)
    assert engine.move_budget(1).seconds == pytest.approx(60 / 40 * TIME_SAFETY)
    assert engine.handle("time_settings 0 30 5") == "=\n\n"  # byo-yomi: 5 stones in 30 s
    assert engine.move_budget(0).seconds == pytest.approx(6 * TIME_SAFETY)
    assert engine.handle("time_left white 12 3") == "=\n\n"
    assert engine.move_budget(1).seconds == pytest.approx(4 * TIME_SAFETY)
    assert engine.handle("time_settings 0 1 0") == "=\n\n"  # GTP's "no time limits"
    assert engine.move_budget(1) == playout.Budget(simulations=30)
    assert engine.handle("time_left w -1 0") == "? syntax error\n\n"


def test_quit() -> None:
    engine = make_engine()
    assert engine.handle("9 quit") == "=9\n\n"
    assert engine.is_done


def test_gtp_command_over_pipes() -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    commands = "1 name\n2 boardsize 9\n3 play black E5\n4 final_score\n5 quit\n6 name\n"
    done = subprocess.run(
        [sys.executable, "-m", "playout", "gtp", "--komi", "6.5", "--simulations", "10"],
        input=commands,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "=1 playout\n\n=2\n\n=3\n\n=4 B+74.5\n\n=5\n\n"


INFO = re.compile(
    r"info move (?P<move>[A-HJ-T][0-9]{1,2}|pass) visits (?P<visits>[0-9]+) "
    r"winrate (?P<winrate>[0-9]+) prior (?P<prior>[0-9]+) lcb (?P<lcb>[0-9]+) "
    r"order (?P<order>[0-9]+) pv (?P<pv>(?:(?:[A-HJ-T][0-9]{1,2}|pass) ?)+)"
)


def info_records(line: str) -> list[dict[str, str]]:
    """The records of one ``info`` line, each checked against Leela Zero's format."""
    parts = ["info " + part.strip() for part in line.split("info ")[1:]]
    records = []
    for part in parts:
        match = INFO.fullmatch(part)
        assert match is not None, part
        records.append(match.groupdict())
    assert " ".join(parts) == line
    return records


def test_lz_analyze_reports_the_search_in_leela_zeros_format() -> None:
    engine = make_engine(size=5, komi=0.5, simulations=30)
    engine.handle("play b C3")
    assert engine.handle("7 lz-analyze w 10") == "=7\n"
    assert engine.analysis is not None and engine.analysis.interval == 0.1
    line = engine.analyze(playout.Budget(simulations=400))
    records = info_records(line)
    search = engine._search
    assert search is not None
    result = search.result()
    visited = {a: n for a, n in zip(result.actions, result.visit_counts, strict=True) if n}
    # Every move searched, once, most visited first, ranked 0, 1, 2, ...
    assert len(records) == len(visited)
    assert [int(r["order"]) for r in records] == list(range(len(records)))
    visits = [int(r["visits"]) for r in records]
    assert visits == sorted(visits, reverse=True) and sum(visits) == sum(visited.values())
    for record in records:
        action = engine.game.string_to_action(engine.state, record["move"])
        index = result.actions.index(action)
        winrate = (result.values[index] + 1) / 2
        assert int(record["visits"]) == result.visit_counts[index]
        assert int(record["winrate"]) == int(winrate * 10000)
        assert int(record["prior"]) == int(result.priors[index] * 10000)
        assert 0 <= int(record["lcb"]) <= int(record["winrate"])
    best = records[0]
    assert best["pv"].split() == [engine.game.action_to_string(engine.state, a) for a in result.pv]
    # The tree is kept: the next analysis adds to it, and genmove ends the analysis' use.
    more = info_records(engine.analyze(playout.Budget(simulations=100)))
    assert sum(int(r["visits"]) for r in more) == sum(visits) + 100
    assert engine.end_analysis() == "\n" and engine.analysis is None
    assert engine.end_analysis() == ""


def test_lz_analyze_arguments() -> None:
    engine = make_engine()
    for command, interval, max_moves in (
        ("lz-analyze", 1.0, None),
        ("lz-analyze 25", 0.25, None),
        ("lz-analyze b 0", 1.0, None),
        ("lz-analyze B interval 5 minmoves 3", 0.05, None),
        ("lz-analyze interval 200 maxmoves 2", 2.0, 2),
    ):
        assert engine.handle(command) == "=\n", command
        assert engine.analysis is not None
        assert (engine.analysis.interval, engine.analysis.max_moves) == (interval, max_moves)
        engine.end_analysis()
    assert engine.handle("lz-analyze b 5 10") == "? syntax error\n\n"
    assert engine.handle("lz-analyze b speed 5") == "? syntax error\n\n"
    assert engine.handle("lz-analyze w 5") == "? Black is to move\n\n"
    assert engine.analysis is None
    engine.handle("lz-analyze maxmoves 3")
    assert len(info_records(engine.analyze(playout.Budget(simulations=200)))) == 3
    engine.end_analysis()
    # A finished game: nothing to search, no info line.
    transcript(engine, "play b pass\nplay w pass\n")
    assert engine.handle("lz-analyze 10") == "=\n" and engine.analyze() == ""


def test_handicap_commands() -> None:
    engine = make_engine(size=9, komi=0.5)
    assert engine.handle("fixed_handicap 3") == "= C3 G7 C7\n\n"
    assert engine.state.current_player() == 1  # White to move
    assert [engine.state.colour_at(p) for p in ("C3", "G7", "C7")] == [1, 1, 1]
    assert engine.handle("fixed_handicap 2") == "? board not empty\n\n"
    assert engine.handle("undo") == "=\n\n" and engine.state == engine.game.initial_state()
    assert engine.handle("fixed_handicap 10") == "? invalid number of stones\n\n"
    assert engine.handle("fixed_handicap 1") == "? invalid number of stones\n\n"
    assert engine.handle("place_free_handicap 4") == "= C3 G7 C7 G3\n\n"
    engine.handle("clear_board")
    assert engine.handle("set_free_handicap A1 J9 e5") == "=\n\n"
    assert engine.state.num_moves == 5 and engine.state.current_player() == 1
    engine.handle("clear_board")
    assert engine.handle("set_free_handicap A1") == "? invalid number of stones\n\n"
    assert engine.handle("set_free_handicap A1 A1") == "? bad vertex list\n\n"
    assert engine.handle("set_free_handicap A1 pass") == "? bad vertex list\n\n"
    assert engine.handle("set_free_handicap A1 Z1").startswith("? illegal move")
    small = make_engine(size=5)
    assert small.handle("fixed_handicap 2") == "? invalid number of stones\n\n"


def test_a_sabaki_session_over_pipes() -> None:
    """Replay the commands Sabaki sends (tests/golden/sabaki_session.gtp, which says where
    they come from) through ``playout gtp`` and check every reply, ``lz-analyze`` streaming
    ``info`` lines until the next command stops it."""
    script = (HERE / "golden" / "sabaki_session.gtp").read_text().splitlines()
    commands = [line for line in script if line and not line.startswith(("#", "<<"))]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    process = subprocess.Popen(
        [sys.executable, "-m", "playout", "gtp", "--size", "9", "--simulations", "50",
         "--backend", "python"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, bufsize=1,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    try:
        expected = _expected_replies(script)
        for command in commands:
            process.stdin.write(command + "\n")
            process.stdin.flush()
            for want in expected[command]:
                got = process.stdout.readline().rstrip("\n")
                _check_reply(command, want, got, process)
    finally:
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    assert process.stdout.read() == ""


def _expected_replies(script: list[str]) -> dict[str, list[str]]:
    """Each command of the script and the reply lines that follow it."""
    replies: dict[str, list[str]] = {}
    command = ""
    for line in script:
        if not line or line.startswith("#"):
            continue
        if line.startswith("<< "):
            replies[command].append(line[3:])
        else:
            command = line
            replies[command] = []
    return replies


def _check_reply(command: str, want: str, got: str, process: subprocess.Popen[str]) -> None:
    """One expected reply (with its empty line, or the open response of lz-analyze)."""
    assert process.stdout is not None
    if want == "~info":
        info_records(got)  # at least one info line; more may come before the next command
        return
    if want.endswith(" ANALYSIS"):
        assert got == want.removesuffix(" ANALYSIS"), (command, got)
        return
    if want.endswith(" LIST"):
        assert got == want.removesuffix(" LIST") + " " + COMMANDS[0]
        for name in COMMANDS[1:]:
            assert process.stdout.readline().rstrip("\n") == name
    elif want.startswith("~=") and want.endswith(" VERTEX"):
        number = want[2:].removesuffix(" VERTEX")
        assert re.fullmatch(rf"={number} ([A-HJ]\d|pass)", got), (command, got)
    elif want.endswith(" VERSION"):
        assert got == want.removesuffix("VERSION") + playout.__version__
    elif command.endswith("protocol_version") and (got.startswith("info ") or not got):
        # The analysis before it still streaming: its info lines, then its empty line.
        while got.startswith("info "):
            info_records(got)
            got = process.stdout.readline().rstrip("\n")
        assert got == "", (command, got)
        got = process.stdout.readline().rstrip("\n")
        assert got == want, (command, got)
    else:
        assert got == want, (command, got)
    assert process.stdout.readline() == "\n", command


def test_lz_genmove_analyze_streams_then_plays_the_move() -> None:
    engine = make_engine(size=5, komi=0.5, simulations=300)
    engine.handle("play b C3")
    before = engine.state
    assert engine.handle("4 lz-genmove_analyze w 1") == "=4\n"
    lines = list(engine.genmove_analyze())
    assert lines[-1].startswith("play ") and lines[-1].endswith("\n\n")
    vertex = lines[-1][5:-2]
    assert engine.state == before.play(engine.game.string_to_action(before, vertex))
    infos = [info_records(line.rstrip("\n")) for line in lines[:-1]]
    assert infos and all(line.endswith("\n") for line in lines[:-1])
    assert sum(int(r["visits"]) for r in infos[-1]) == 300  # the move's whole budget
    assert infos[-1][0]["move"] == vertex  # the most visited move is played
    assert engine.analysis is None
    assert engine.handle("lz-genmove_analyze 50") == "? syntax error\n\n"  # needs a colour
    # Over serve(): the response, then the next command's.
    output = io.StringIO()
    serve(engine, io.StringIO("lz-genmove_analyze b 1\nshowboard\nquit\n"), output)
    text = output.getvalue()
    assert text.startswith("=\ninfo move ")
    assert re.search(r"\nplay ([A-E][1-5]|pass)\n\n= \n", text), text


def test_threads_give_root_parallel_searches_that_move_along(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from playout._src.parallel import RootParallel, spawn_seeds
    from playout.cli import main

    def make_search(state: GoState) -> RootParallel:
        engines = [playout.MCTS(state, simulations=150, seed=s) for s in spawn_seeds(1, 2)]
        return RootParallel(engines)

    engine = GtpEngine(5, 0.5, playout.Budget(simulations=150), make_search)
    engine.handle("play b C3")
    assert engine.handle("4 lz-genmove_analyze w 1") == "=4\n"
    lines = list(engine.genmove_analyze())
    assert lines[-1].startswith("play ")
    infos = [info_records(line.rstrip("\n")) for line in lines[:-1]]
    # Both searches ran the whole budget; the visits shown are their sum.
    assert sum(int(r["visits"]) for r in infos[-1]) == 2 * 150
    search = engine._search
    assert isinstance(search, RootParallel)
    engine.handle("play b pass")
    assert engine._search is search
    assert all(e.root_state == engine.state for e in search.engines)
    # A budget's memory bound is shared out among the searches.
    budgets: list[playout.Budget | None] = []
    for one in search.engines:
        run = one.run
        one.run = lambda budget=None, run=run, **kw: budgets.append(budget) or run(budget, **kw)  # type: ignore[method-assign]
    search.run(playout.Budget(simulations=10, max_memory=2**24))
    assert [b.max_memory for b in budgets if b is not None] == [2**23, 2**23]
    # The command line: a seed gives the same moves; the Python driver is refused.
    answers = []
    for _ in range(2):
        monkeypatch.setattr("sys.stdin", io.StringIO("genmove b\ngenmove w\n"))
        argv = ["gtp", "--threads", "2", "--simulations", "60", "--seed", "3"]
        assert main(argv) == 0
        answers.append(capsys.readouterr().out)
    assert answers[0] == answers[1] and answers[0].count("= ") == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("genmove b\n"))
    assert main(["gtp", "--threads", "2", "--backend", "python"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs the compiled driver" in err


def test_lz_genmove_analyze_with_threads_gives_each_search_the_whole_budget() -> None:
    from playout._src.parallel import RootParallel, spawn_seeds

    budget = 5000

    def make_search(state: GoState) -> RootParallel:
        engines = [playout.MCTS(state, simulations=budget, seed=s) for s in spawn_seeds(2, 2)]
        return RootParallel(engines)

    engine = GtpEngine(9, 7.5, playout.Budget(simulations=budget), make_search)
    assert engine.handle("lz-genmove_analyze b 1") == "=\n"  # an info line every 10 ms
    lines = list(engine.genmove_analyze())
    steps = len(lines) - 1
    infos = [info_records(line.rstrip("\n")) for line in lines[:-1]]
    total = sum(int(r["visits"]) for r in infos[-1])
    # Each step takes the searches' mean off the budget left: all but a few simulations a
    # step of both whole budgets, never more.
    assert 2 * budget - steps <= total <= 2 * budget
