"""The documentation: the site builds in strict mode, and every page's code runs as written.

The pages are ``README.md`` and every Markdown file under ``docs/`` (the site's pages).

* Every ```python block of a page runs, in the page's order, in one namespace per page (later
  blocks use what earlier ones defined), in a temporary directory. A comment ``# -> ...``
  claims an output: the page's claims are checked by its entry in :data:`CHECKS`, and a page
  that makes a claim without one fails.
* Every line of a ```bash block is a ``playout ...`` command, run as ``python -m playout ...``
  on this checkout in one temporary directory per page (``replay games.jsonl`` reads the file
  that the page's ``match ... --save games.jsonl`` line wrote), and must exit 0. Long runs get
  smaller budgets by the rules of :func:`shrunk` (fewer games, fewer simulations, one
  benchmark repetition).
* A fenced block immediately preceded by a line ``<!-- not run: REASON -->`` is not run (a
  long run, an install, a server, a human at the keyboard); the reason is required. Any other
  bash line (``pip``, ``python bench/...``, ``playout play``, ``playout serve``, ``playout
  gtp``) in a block without the marker fails the test, so the marked blocks are the whole of
  what the pages show and the tests do not run.
* ``mkdocs build --strict`` builds the site into a temporary directory: a broken link, a
  missing page in the navigation, a docstring griffe cannot parse or a missing result file
  fails it.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import shlex
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

MAX_GAMES = 4  # enough for `replay games.jsonl --game-index 3`
MAX_SIMULATIONS = 100  # per move, in player specs of shrunk matches
MAX_SECONDS = 0.01  # per move, in player specs of shrunk matches
BENCH_SMALL = {"--sims": "500", "--python-sims": "100", "--reps": "1"}
BENCH_GAME = "tictactoe"  # the one game of a shrunk `playout bench` (default: all three)
INTERACTIVE = ("playout play ", "playout serve", "playout gtp")

NOT_RUN = re.compile(r"^<!-- not run:(.*)-->$")
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page: its language, its text, where it starts (1-based line
    of the opening fence) and, when it is marked not to run, why."""

    language: str
    text: str
    line: int
    not_run: str | None


def parse_blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown page, in order. A not-run marker without a reason is
    a ``ValueError``."""
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        marker = NOT_RUN.match(lines[start - 1].strip()) if start else None
        reason = marker.group(1).strip() if marker else None
        if marker and not reason:
            raise ValueError(f"line {start}: a not-run marker needs its reason")
        found.append(Block(opening.group(1), "\n".join(body) + "\n", start + 1, reason))
    return found


def pages() -> list[Path]:
    """README.md and the site's pages."""
    found = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)
    return [README, *found]


def page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name


def blocks_of(page: Path) -> list[Block]:
    return parse_blocks(page.read_text(encoding="utf-8"))


def bash_lines(block: Block) -> list[str]:
    """The commands of a bash block: continuation lines joined, comments and blank lines
    dropped, spaces collapsed."""
    joined = re.sub(r"\\\n\s*", "", block.text)
    commands = []
    for line in joined.splitlines():
        line = " ".join(re.sub(r"(^|\s)#.*$", "", line).split())
        if line:
            commands.append(line)
    return commands


def commands_of(page: Path) -> list[str]:
    """The ``playout`` lines a page's unmarked bash blocks run."""
    return [
        line
        for block in blocks_of(page)
        if block.language == "bash" and block.not_run is None
        for line in bash_lines(block)
    ]


def shrunk(argv: list[str]) -> list[str]:
    """``argv`` with a smaller budget where the page's run would take long: at most
    MAX_GAMES games, and then at most MAX_SIMULATIONS simulations and MAX_SECONDS seconds per
    move in the player specs; ``playout bench`` with BENCH_SMALL, on BENCH_GAME alone unless
    the line names its games."""
    argv = list(argv)
    if argv[:1] == ["bench"]:
        for option, value in BENCH_SMALL.items():
            if option in argv:
                argv[argv.index(option) + 1] = value
            else:
                argv += [option, value]
        if "--game" not in argv:
            argv += ["--game", BENCH_GAME]
        return argv
    if "--games" in argv:
        i = argv.index("--games") + 1
        if int(argv[i]) > MAX_GAMES:
            argv[i] = str(MAX_GAMES)

            def smaller(spec: str) -> str:
                spec = re.sub(
                    r"simulations=(\d+)",
                    lambda m: f"simulations={min(int(m.group(1)), MAX_SIMULATIONS)}",
                    spec,
                )
                return re.sub(
                    r"seconds=([\d.]+)",
                    lambda m: f"seconds={min(float(m.group(1)), MAX_SECONDS):g}",
                    spec,
                )

            argv = [smaller(word) if ":" in word else word for word in argv]
    return argv


def source_env() -> dict[str, str]:
    path = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}


def run_cli(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "playout", *argv],
        cwd=cwd,
        env=source_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def run_python_blocks(page: Path) -> tuple[dict[str, Any], list[str]]:
    """Run the page's unmarked python blocks in one namespace, in the current directory:
    the namespace and what each block printed."""
    module = types.ModuleType("docs_page")  # a real module: dataclasses look theirs up
    namespace: dict[str, Any] = module.__dict__
    printed: list[str] = []
    sys.modules[module.__name__] = module
    try:
        for block in blocks_of(page):
            if block.language != "python" or block.not_run is not None:
                continue
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(block.text, f"{page_id(page)}:{block.line}", "exec"), namespace)
            printed.append(out.getvalue())
    finally:
        del sys.modules[module.__name__]
    return namespace, printed


# ------------------------------------------------------------------------------ claims

Check = Callable[[dict[str, Any], list[str]], None]


def check_readme(ns: dict[str, Any], printed: list[str]) -> None:
    import playout
    from playout._src.perfect import solve

    state, result, game = ns["state"], ns["result"], ns["game"]
    # -> a winning move, value 1.0 for the player to move, proven "win"
    assert result.proven == "win" and result.value == 1.0
    solution = solve(game)
    assert solution.value(state) == 1.0
    assert result.best_action in solution.optimal_actions(state)
    move = game.action_to_string(state, result.best_action)
    assert printed[0].split() == [move, "1.0", "win"]
    assert isinstance(ns["config"], playout.SearchConfig)


def check_first_search(ns: dict[str, Any], printed: list[str]) -> None:
    from playout._src.perfect import solve

    check_readme(ns, printed)
    # The engine played its move and then the opponent's column 4 (action 3), keeping a tree.
    engine = ns["engine"]
    initial = ns["Connect4Game"]().initial_state()
    assert engine.root_state == initial.play(ns["action"]).play(3)
    assert engine.result().total_simulations > 0  # the subtree was kept
    # -> 8, the proven lines: the value of the empty board under perfect play is a draw
    assert printed[-1].split()[0] == "draw"
    assert solve(ns["game"]).value(ns["game"].initial_state()) == 0.0


def check_seed_examples(ns: dict[str, Any], printed: list[str]) -> None:
    # The slippery race (seed 003's random events): the best move, values near the exact
    # -1.0 and -0.4 (open loop: the tolerances of tests/test_random_games.py).
    race_values = ns["result"].action_values()
    assert printed[-1].split()[0] == "2"
    assert race_values[1] == pytest.approx(-0.4, abs=0.05)
    assert race_values[0] == pytest.approx(-1.0, abs=0.15)
    assert ns["race"].spec.is_deterministic is False


def check_your_own_game(ns: dict[str, Any], printed: list[str]) -> None:
    # -> 100 random games played and checked
    assert printed[1].split() == ["100"] and ns["report"].num_games == 100
    # -> 2 win: take two, leaving a multiple of four, proven
    assert printed[2].split() == ["2", "win"]


def check_file_formats(ns: dict[str, Any], printed: list[str]) -> None:
    from playout._src.arena.records import RECORD_FORMAT

    # -> playout-game/1 and the keys the docstring shown under it lists
    keys = {"format", "game", "params", "index", "seed", "players", "actions", "moves",
            "returns", "winner", "result", "seconds"}  # fmt: skip
    assert printed[0].split()[0] == RECORD_FORMAT
    assert set(ns["line"]) == keys | {"p1", "p2"}  # a match's extra: the two specs


def check_matches(ns: dict[str, Any], printed: list[str]) -> None:
    match = ns["result"]
    assert match.wins + match.draws + match.losses == 20
    assert match.wins >= 15  # MCTS at 400 simulations against random tic-tac-toe moves
    assert len(ns["saved"]) == 20
    assert len(ns["table"].standings()) == 3


def check_search(ns: dict[str, Any], printed: list[str]) -> None:
    import playout

    # RAVE and progressive bias (the defaults the comments state).
    assert playout.RAVE().c == 0.1 and playout.RAVE().bias == 0.05
    assert playout.ProgressiveBias().c == pytest.approx(math.sqrt(2))
    assert playout.ProgressiveBias().weight == 30
    scores = ns["my_scores"](ns["state"], ns["state"].legal_actions())
    assert all(0.0 <= s <= 1.0 for s in scores)


def check_train_your_game(ns: dict[str, Any], printed: list[str]) -> None:
    from playout._src.perfect import solve

    # playout zero: the shipped network finds a winning move (the solution's), with PUCT
    # and with Gumbel search (whose improved policy peaks on it), and one toy training
    # iteration runs.
    state, result, game = ns["state"], ns["result"], ns["game"]
    assert result.proven == "win"
    assert result.best_action in solve(game).optimal_actions(state)
    assert printed[0].split() == [game.action_to_string(state, result.best_action), "win"]
    planned, target = ns["planned"], ns["target"]
    assert planned.best_action in solve(game).optimal_actions(state)
    assert sum(target.values()) == pytest.approx(1.0)
    assert max(target, key=target.__getitem__) == planned.best_action
    assert [r.iteration for r in ns["reports"]] == [1]


def check_analyse(ns: dict[str, Any], printed: list[str]) -> None:
    # -> the OpenSpiel game searches like a built-in one
    assert ns["hex5"].initial_state().legal_actions()


def check_go_gnugo(ns: dict[str, Any], printed: list[str]) -> None:
    # -> 2 games played, and GNU Go's final_score asked after each of them
    assert printed[0].split() == ["2", "2"]
    counts = ns["result"].score_check_counts()
    assert counts["checks"] == 2 and counts["same_winner"] == 2


def check_go_rave(ns: dict[str, Any], printed: list[str]) -> None:
    # -> RAVE on Go runs on the compiled engine, for the simulations asked
    assert printed[0].split() == ["compiled", "2000"]
    assert ns["engine"].backend == "compiled" and ns["result"].simulations == 2000
    # -> the enclosing hane matches below White's stone between two black ones
    assert printed[1].strip() == "('hane: enclosing',)"
    # -> the escape from a working ladder: +1 by the tactics, -1 with the ladder read, +1
    # again with a breaker on the path
    assert printed[2].split() == ["1.0", "-1.0", "1.0"]


def check_zero_benchmark(ns: dict[str, Any], printed: list[str]) -> None:
    import math

    # -> at least 1,500 labelled positions, the first one's stage, a losing move in it
    assert printed[0].split() == ["True", "8-14", "True"]
    # -> the 30 positions of the subset, split by stage without loss; the paired comparison
    # with the mirror-averaged policy counts the first chooser's losses
    assert printed[1].split() == ["30", "30", "True", "True", "True"]
    paired, score, mirrored = ns["paired"], ns["score"], ns["mirrored"]
    assert paired.second_only + paired.both == mirrored.losing
    assert paired.first_only + paired.both == score.losing
    # -> Wu's n_forced = sqrt(2 * P * 100): 10 and 4 playouts; the pruned targets
    assert [math.sqrt(2 * p * 100) for p in (0.5, 0.08)] == [10.0, 4.0]
    assert printed[2].split("\n")[:2] == ["[10.0, 4.0]", "[80.0, 8.0, 3.0]"]


CHECKS: dict[str, Check] = {
    "README.md": check_readme,
    "docs/tutorials/first-search.md": check_first_search,
    "docs/tutorials/seed-examples.md": check_seed_examples,
    "docs/tutorials/your-own-game.md": check_your_own_game,
    "docs/tutorials/train-your-game.md": check_train_your_game,
    "docs/how-to/matches.md": check_matches,
    "docs/explanation/search.md": check_search,
    "docs/reference/file-formats.md": check_file_formats,
    "docs/how-to/analyse.md": check_analyse,
    "docs/how-to/go-gnugo.md": check_go_gnugo,
    "docs/explanation/go-rave.md": check_go_rave,
    "docs/how-to/zero-benchmark.md": check_zero_benchmark,
}
NEEDS = {"docs/how-to/analyse.md": "pyspiel"}  # the module a page's python needs


# ------------------------------------------------------------------------------ tests


def python_pages() -> list[Path]:
    return [
        p
        for p in pages()
        if any(b.language == "python" and b.not_run is None for b in blocks_of(p))
    ]


@pytest.mark.parametrize("page", python_pages(), ids=page_id)
def test_python_blocks(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = page_id(page)
    if name in NEEDS:
        pytest.importorskip(NEEDS[name], reason=f"{NEEDS[name]} (an optional extra) missing")
    monkeypatch.chdir(tmp_path)
    namespace, printed = run_python_blocks(page)
    if name in CHECKS:
        CHECKS[name](namespace, printed)


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_claims_are_checked(page: Path) -> None:
    """A page whose python claims an output (``# -> ...``) has a check of it."""
    claims = [
        b
        for b in blocks_of(page)
        if b.language == "python" and b.not_run is None and "# -> " in b.text
    ]
    if claims:
        assert page_id(page) in CHECKS, f"{page_id(page)} claims outputs nobody checks"


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_unmarked_bash_is_runnable(page: Path) -> None:
    """Every line of an unmarked bash block is a ``playout`` command the test can run."""
    for block in blocks_of(page):
        if block.language in ("bash", "sh", "shell", "console") and block.not_run is None:
            assert block.language == "bash", f"line {block.line}: say ```bash"
            for line in bash_lines(block):
                assert line.startswith("playout ") and not line.startswith(INTERACTIVE), (
                    f"{page_id(page)}:{block.line}: {line!r} cannot run in the tests: mark "
                    "its block with <!-- not run: REASON -->"
                )


def _bash_cases() -> list[Any]:
    """One case per distinct command, on the first page that shows it (the README's lines
    are the site's again); a line that saves games runs on every page that has it."""
    cases, seen = [], set()
    for page in pages():
        for line in commands_of(page):
            if line.startswith(INTERACTIVE) or (line in seen and "--save" not in line):
                continue
            seen.add(line)
            cases.append(pytest.param(page, line, id=f"{page_id(page)}: {line[:70]}"))
    return cases


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    return {page: tmp_path_factory.mktemp(page.stem) for page in pages()}


@pytest.mark.parametrize(("page", "line"), _bash_cases())
def test_bash_line(page: Path, line: str, workdirs: dict[Path, Path]) -> None:
    workdir = workdirs[page]
    argv = shrunk(shlex.split(line)[1:])
    if argv[:1] == ["replay"] and not (workdir / argv[1]).exists():
        # Run alone: make the file the page's match line makes first.
        (save,) = (c for c in commands_of(page) if f"--save {argv[1]}" in c)
        assert run_cli(shrunk(shlex.split(save)[1:]), workdir).returncode == 0
    process = run_cli(argv, workdir)
    shown = f"$ playout {shlex.join(argv)}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"
    assert process.returncode == 0, shown
    out = process.stdout
    if argv == ["games"]:
        for name in ("tictactoe", "mnk", "gomoku", "connect4", "bandit", "go"):
            assert name in out, shown
    elif argv[0] == "analyze" and "--json" in argv and "--flat" not in argv:
        report = json.loads(out)
        keys = {"best_action", "best_move", "value", "actions", "pv", "simulations", "seconds",
                "nodes", "max_depth", "proven", "game", "to_play", "workers"}  # fmt: skip
        assert keys <= set(report), shown
        assert -1.0 <= report["value"] <= 1.0
        for entry in report["actions"]:
            assert {"action", "move", "visits", "value"} <= set(entry), shown
    elif argv[0] == "match" and "--json" in argv:
        report = json.loads(out)
        assert report["wins"] + report["draws"] + report["losses"] == report["games"]
        lo, hi = report["ci95"]
        assert lo <= report["score"] <= hi
    elif (
        argv[0] == "match" and "--save" in argv and argv[argv.index("--save") + 1].endswith(".sgf")
    ):
        from sgfmill import sgf_grammar

        saved_sgf = (workdir / argv[argv.index("--save") + 1]).read_bytes()
        trees = sgf_grammar.parse_sgf_collection(saved_sgf)
        assert len(trees) == int(argv[argv.index("--games") + 1]), shown
    elif argv[0] == "match" and "--save" in argv:
        saved = (workdir / argv[argv.index("--save") + 1]).read_text().splitlines()
        assert len(saved) == int(argv[argv.index("--games") + 1])
        assert all(json.loads(game) for game in saved)
    elif argv[0] == "bench" and "--json" in argv:
        assert json.loads(out)
    elif argv[0] == "bench":
        assert re.search(r"playout-compiled\D+500\D+[\d,]+", out), shown  # sims, sims/s
    elif "--help" not in argv:
        assert out.strip(), shown


def test_site_builds_strict(tmp_path: Path) -> None:
    """``mkdocs build --strict``: broken links, pages missing from the navigation, docstrings
    griffe cannot parse and missing result files fail it."""
    env = {**source_env(), "NO_MKDOCS_2_WARNING": "1"}
    process = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stdout + process.stderr
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in ("games", "play", "analyze", "match", "tournament", "train", "serve", "gtp"):
        assert f"playout {command}</code>" in cli, command  # written from the parser


def test_cli_reference_follows_the_parser() -> None:
    """Every option of every subcommand appears in the generated reference."""
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import cli_reference
    finally:
        sys.path.pop(0)
    from playout.cli.parser import build_parser

    text = cli_reference.render(build_parser())
    for name, _aliases, sub in cli_reference._subcommands(build_parser()):
        assert f"## `playout {name}`" in text
        for action in sub._actions:
            for option in action.option_strings:
                if action.help != "==SUPPRESS==" and option not in ("-h", "--help"):
                    assert f"`{option}`" in text, (name, option)


def test_result_files_are_complete_and_used() -> None:
    """Every result file has its provenance, and some page shows it."""
    shown = "\n".join(p.read_text(encoding="utf-8") for p in pages())
    files = sorted((ROOT / "bench" / "results").glob("*.json"))
    assert files
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        for field in ("title", "command", "date", "machine", "columns", "rows", "source"):
            assert data.get(field), (path.name, field)
        assert data["source"] in ("measured", "transcribed"), path.name
        if data["source"] == "transcribed":
            assert data.get("transcribed_from"), path.name
        assert all(len(row) == len(data["columns"]) for row in data["rows"]), path.name
        assert f"<!-- results: {path.stem} -->" in shown, f"{path.name} is on no page"


# ------------------------------------------------------------------------------ the README


def test_readme_is_one_screen_with_its_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    first = blocks_of(README)[0]
    assert first.language == "bash" and first.not_run
    assert first.text.splitlines() == [
        "pip install . && playout play tictactoe                # play tic-tac-toe against the AI",
        'pip install -e ".[test]" && python -m pytest -q        # install the test extras, run '
        "every test",
    ]


# ------------------------------------------------------------------------------ the harness


def test_a_failing_block_fails_its_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n```python\nx = 1\n```\n\n```python\nassert x == 2\n```\n")
    with pytest.raises(AssertionError):
        run_python_blocks(page)


def test_not_run_markers() -> None:
    text = "<!-- not run: a server -->\n```bash\nplayout serve\n```\n```bash\nplayout games\n```\n"
    marked, plain = parse_blocks(text)
    assert marked.not_run == "a server" and plain.not_run is None
    assert plain.line == 5 and plain.text == "playout games\n"
    with pytest.raises(ValueError, match="reason"):
        parse_blocks("<!-- not run: -->\n```bash\nplayout serve\n```\n")
    with pytest.raises(ValueError, match="reason"):
        parse_blocks("<!-- not run:  -->\n```python\nx = 1\n```\n")


def test_help_and_metadata_point_to_the_documentation() -> None:
    import tomllib

    from playout.cli.parser import build_parser

    assert "docs/index.md" in " ".join(build_parser().format_help().split())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (ROOT / project["urls"]["Documentation"]).is_file()
