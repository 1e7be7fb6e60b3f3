"""The arena at scale: parallel executors, SPRT early stop, tournaments, reference players."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import playout
from playout._src import arena, elo
from playout.cli import main
from playout.games.connect4 import Connect4Game
from playout.games.mnk import MnkGame, tictactoe

SRC = str(Path(playout.__file__).resolve().parent.parent)


def _key(result: arena.MatchResult | arena.TournamentResult) -> list[tuple[object, ...]]:
    """Everything of the records but the wall-clock times."""
    return [(r.index, r.seed, r.players, r.actions, r.returns) for r in result.records]


# ------------------------------------------------------------------------------ seeds, pool


def test_game_seeds_do_not_depend_on_the_number_of_games() -> None:
    assert arena.game_seed(5, 3) == arena.game_seed(5, 3)
    assert len({arena.game_seed(5, i) for i in range(50)}) == 50
    assert arena.game_seed(5, 0) != arena.game_seed(6, 0)


def test_pool_gives_the_same_records_as_one_worker() -> None:
    game = Connect4Game()
    specs = ("mcts:simulations=60", "mcts:simulations=40,c=1.0")
    serial = arena.run_match(game, *specs, games=6, seed=9, workers=1)
    done: list[int] = []
    parallel = arena.run_match(
        game, *specs, games=6, seed=9, workers=2, progress=lambda n, _: done.append(n)
    )
    assert _key(serial) == _key(parallel)
    assert done == [1, 2, 3, 4, 5, 6]
    assert [r.index for r in parallel.records] == list(range(6))
    assert parallel.outcomes() == serial.outcomes()


def test_pool_sends_picklable_players_and_rejects_others() -> None:
    game = tictactoe()
    player = arena.RandomPlayer("rnd")
    result = arena.run_match(game, player, "random", games=2, workers=2)
    assert result.p1 == "rnd" and result.games == 2

    class Local(arena.RandomPlayer):  # defined in a function: cannot be pickled
        pass

    with pytest.raises(playout.InvalidParameterError, match="cannot be sent"):
        arena.run_match(game, Local("local"), "random", games=2, workers=2)


def test_cli_workers_do_not_change_the_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outputs = []
    for workers in ("1", "2"):
        path = tmp_path / f"games{workers}.jsonl"
        code = main(
            [
                "match", "connect4", "--p1", "mcts:simulations=50", "--p2", "random",
                "--games", "4", "--seed", "3", "--workers", workers, "--save", str(path),
                "--json",
            ]
        )  # fmt: skip
        out = capsys.readouterr().out
        assert code == 0
        data = json.loads(out)
        for row in data["results"]:
            row.pop("seconds")
        lines = sorted(
            (json.loads(line) for line in path.read_text().splitlines()), key=lambda d: d["index"]
        )
        outputs.append((data, [(d["index"], d["actions"], d["seed"]) for d in lines]))
    assert outputs[0] == outputs[1]


# ------------------------------------------------------------------------------ SPRT


def test_sprt_stops_a_lopsided_match_in_batches() -> None:
    game = tictactoe()
    test = elo.Sprt(elo0=0.0, elo1=100.0)
    result = arena.run_match(
        game, "mcts:simulations=300", "random", games=200, seed=4, workers=2, sprt=test
    )
    assert result.sprt is not None and result.sprt.decision == "H1"
    assert result.games < 60 and result.games % 2 == 0  # stopped at a batch boundary
    assert result.planned_games == 200
    assert result.sprt.llr >= result.sprt.upper
    assert result.sprt.llr == pytest.approx(
        elo.sprt_llr(result.losses, result.draws, result.wins, 0.0, 100.0)
    )
    summary = result.as_dict()
    assert summary["sprt"]["decision"] == "H1" and summary["games"] == result.games


def test_sprt_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "match", "tictactoe", "--p1", "mcts:simulations=300", "--p2", "random",
            "--games", "100", "--sprt", "0,100", "--workers", "1",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "SPRT [0, 100]: LLR" in out and "H1 accepted" in out
    assert "p1 Elo:" in out


# ------------------------------------------------------------------------------ tournament


def test_tournament_table_on_three_cheap_players() -> None:
    game = tictactoe()
    specs = ["random", "perfect", "mcts:simulations=100"]
    result = arena.run_tournament(game, specs, games_per_pair=4, seed=1)
    assert len(result.records) == 12
    assert result.pairings[:4] == ((0, 1), (1, 0), (0, 1), (1, 0))
    table = {row.player: row for row in result.standings()}
    assert all(row.games == 8 for row in table.values())
    assert table["perfect"].losses == 0
    assert table["perfect"].rating > table["random"].rating
    assert sum(row.rating for row in table.values()) == pytest.approx(0.0, abs=1e-6)
    assert sum(row.wins for row in table.values()) == sum(row.losses for row in table.values())
    anchored = arena.run_tournament(game, specs, games_per_pair=4, seed=1, anchor=0)
    assert anchored.ratings()[0] == 0.0
    parallel = arena.run_tournament(game, specs, games_per_pair=4, seed=1, workers=2)
    assert _key(parallel) == _key(result)


def test_tournament_cli(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "tictactoe", "--players", "random", "perfect", "mcts:simulations=50"]
    code = main([*argv, "--games", "2", "--workers", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["games"] == 6 and len(data["standings"]) == 3
    assert {row["player"] for row in data["standings"]} == set(argv[3:])
    code = main([*argv, "--games", "2", "--workers", "1", "--anchor", "first"])
    out = capsys.readouterr().out
    assert code == 0 and "Elo" in out and "perfect" in out
    line = next(line for line in out.splitlines() if line.split()[1:2] == ["random"])
    assert "+0.0" in line or "-0.0" in line


# ------------------------------------------------------------------------------ players


def test_mcts_solver_option() -> None:
    game = Connect4Game()
    off = arena.parse_player("mcts:simulations=50,solver=no", game)
    on = arena.parse_player("mcts:simulations=50,solver=yes", game)
    default = arena.parse_player("mcts:simulations=50", game)
    assert (off.options.solver, on.options.solver, default.options.solver) == (False, True, None)
    off.reset(game.initial_state(), 1)
    assert off._engine.config.solver is False
    with pytest.raises(playout.InvalidParameterError):
        arena.parse_player("mcts:solver=maybe", game)


@pytest.mark.parametrize(
    ("game", "name"),
    [
        (tictactoe(), "tic_tac_toe"),
        (Connect4Game(), "connect_four(columns=7,rows=6,x_in_row=4)"),
        (MnkGame(5, 4, 3), "mnk(m=5,n=4,k=3)"),
    ],
)
def test_openspiel_mcts_plays_legal_moves(game: playout.Game, name: str) -> None:
    pytest.importorskip("pyspiel")
    assert arena.openspiel_game_string(game) == name
    player = arena.parse_player("openspiel-mcts:simulations=100", game)
    assert isinstance(player, arena.OpenSpielMctsPlayer)
    record = arena.play_game(game, player, arena.RandomPlayer(), seed=2)  # checks legality
    again = arena.play_game(game, player, arena.RandomPlayer(), seed=2)
    assert record.actions == again.actions  # seeded
    os_state = player._os_state  # the OpenSpiel state followed the same game
    assert os_state.is_terminal()
    assert tuple(os_state.returns()) == record.returns


def test_openspiel_options_and_errors() -> None:
    pytest.importorskip("pyspiel")
    options = arena.parse_openspiel_options("simulations=50,seconds=0.5,c=1.5,solve=yes")
    assert (options.simulations, options.seconds, options.c, options.solve) == (50, 0.5, 1.5, True)
    assert arena.parse_openspiel_options("seconds=0.1").max_simulations > 10**6
    assert arena.parse_openspiel_options("seconds=0.001").seconds == 0.001
    # Below a millisecond OpenSpiel's bot may run out of time before one simulation and
    # crash the process: refused with the reason, where a match would end in a segfault.
    with pytest.raises(playout.InvalidParameterError, match="before its first simulation"):
        arena.parse_openspiel_options("seconds=0.00001")
    for spec in ("openspiel-mcts:depth=2", "openspiel-mcts:simulations=0"):
        with pytest.raises(playout.InvalidParameterError):
            arena.parse_player(spec, tictactoe())
    with pytest.raises(playout.InvalidParameterError, match="openspiel-mcts plays"):
        arena.parse_player("openspiel-mcts", playout.make_game("bandit"))


def test_missing_optional_dependencies_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(arena.MissingDependencyError):
        arena.make_executor("ray", 2)
    with pytest.raises(arena.MissingDependencyError):
        arena.parse_player("openspiel-mcts", tictactoe())
    for argv in (
        ["match", "tictactoe", "--p1", "random", "--p2", "random", "--backend", "ray"],
        ["match", "tictactoe", "--p1", "random", "--p2", "openspiel-mcts"],
    ):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2
        assert len(err.splitlines()) == 1 and err.startswith("playout: error: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["--sprt", "50,0"],
        ["--sprt", "x"],
        ["--executor", "pool", "--backend", "ray"],
        ["--ray-address", "auto", "--executor", "pool"],
        ["--workers", "0"],
        ["--p1", "perfect", "--width", "4", "--height", "4", "--k", "3"],
    ],
)
def test_match_option_errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    base = ["match", "mnk", "--p1", "random", "--p2", "random"]
    code = main(base + argv)
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("playout: error: ")


# ------------------------------------------------------------------------------ Ray


@pytest.fixture(scope="module")
def local_ray(one_ray_instance: None) -> object:
    ray = pytest.importorskip("ray")
    import os

    from playout._src.arena.executors import init_local_ray

    path = os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH", "")) if p)
    init_local_ray(ray, num_cpus=2, runtime_env={"env_vars": {"PYTHONPATH": path}})  # 127.0.0.1
    yield ray
    ray.shutdown()


def test_ray_executor_matches_the_local_records(local_ray: object) -> None:
    game = tictactoe()
    specs = ("mcts:simulations=100", "random")
    local = arena.run_match(game, *specs, games=4, seed=5, workers=1)
    on_ray = arena.run_match(game, *specs, games=4, seed=5, workers=2, executor="ray")
    assert _key(on_ray) == _key(local)
    test = elo.Sprt(elo0=0.0, elo1=200.0)
    stopped = arena.run_match(game, *specs, games=40, seed=5, workers=2, executor="ray", sprt=test)
    assert stopped.sprt is not None and stopped.sprt.decision == "H1" and stopped.games < 40


def test_ray_runs_self_play_like_this_process(local_ray: object) -> None:
    torch = pytest.importorskip("torch")
    from playout.zero import Architecture, Model, SelfPlaySettings, ZeroSearch
    from playout.zero.selfplay import parallel_self_play

    torch.set_num_threads(1)
    game = tictactoe()
    model = Model(game, Architecture(channels=8, blocks=1), device="cpu")
    settings = SelfPlaySettings(search=ZeroSearch(simulations=8))
    on_ray = parallel_self_play(model, game, 4, settings, workers=2, executor="ray", seed=3)
    local = parallel_self_play(model, game, 4, settings, workers=2, executor="local", seed=3)
    assert [g.moves for g in on_ray] == [g.moves for g in local]


class _Recorder:
    """An executor that records what is done to it."""

    workers = 1

    def __init__(self) -> None:
        self.calls: list[str] = []

    def start(self) -> None:
        self.calls.append("start")

    def run(self, jobs: object, task: object = None) -> object:
        return iter(())

    def close(self) -> None:
        self.calls.append("close")

    def terminate(self) -> None:
        self.calls.append("terminate")


@pytest.mark.parametrize("own", [True, False])
def test_running_closes_its_own_executor_and_stops_it_on_an_error(own: bool) -> None:
    from playout._src.arena.executors import running

    fine = _Recorder()
    with running(fine, own):  # type: ignore[arg-type]
        pass
    assert fine.calls == (["start", "close"] if own else ["start"])
    failed = _Recorder()
    with pytest.raises(KeyboardInterrupt), running(failed, own):  # type: ignore[arg-type]
        raise KeyboardInterrupt
    assert failed.calls == (["start", "terminate", "close"] if own else ["start"])
