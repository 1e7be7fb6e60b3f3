"""The asynchronous training pipeline (playout.zero.pipeline): bounded staleness, the game
journal across a crash, actors lost on the process pool and on a two-node Ray cluster, and
local Ray instances that listen on the loopback only."""

from __future__ import annotations

import dataclasses
import itertools
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

import playout
from playout.cli import main
from playout.games.mnk import tictactoe

torch = pytest.importorskip("torch")

from playout.zero import Architecture, TrainConfig, Trainer  # noqa: E402
from playout.zero.pipeline import (  # noqa: E402
    ACTOR_NICENESS,
    JOURNAL,
    ActorJob,
    ActorResult,
    AsyncPipeline,
    ProcessActors,
    RayActors,
    play_job,
    write_journal,
)

sys.path.insert(0, str(Path(__file__).parent))
from listening import is_loopback, listening  # noqa: E402

SRC = str(Path(playout.__file__).resolve().parent.parent)

SMALL = TrainConfig(
    games_per_iteration=4,
    simulations=4,
    leaf_batch=2,
    parallel_games=2,
    batch_size=32,
    steps_per_iteration=3,
    eval_games=0,
    architecture=Architecture(channels=4, blocks=1, value_hidden=8),
    benchmark_positions=0,
    seed=3,
)
"""A run small enough for tests: 2 games per job with 2 workers."""


class InlineActors:
    """Actors in this process for the learner's logic: a job plays when it is collected,
    ``hold[n]`` collections after it was handed out (0 by default)."""

    def __init__(self, game: Any, settings: Any, workers: int, hold: dict[int, int]) -> None:
        self.game, self.settings, self.workers = game, settings, workers
        self.hold = dict(hold)
        self.restarts = 0
        self.weights: tuple[int, bytes] | None = None
        self.jobs: list[ActorJob] = []
        self.closed = False

    def start(self) -> None:
        self.closed = False

    def publish(self, version: int, weights: bytes) -> None:
        self.weights = (version, weights)

    def idle(self) -> int:
        return self.workers - len(self.jobs)

    def submit(self, job: ActorJob) -> None:
        assert self.weights is not None and job.version == self.weights[0]
        assert self.idle() > 0
        self.jobs.append(job)
        self.hold.setdefault(job.number, 0)

    def collect(self, timeout: float | None) -> list[ActorResult]:
        assert self.weights is not None
        done = [job for job in self.jobs if self.hold[job.number] <= 0]
        for job in self.jobs:
            self.hold[job.number] -= 1
        self.jobs = [job for job in self.jobs if job not in done]
        return [play_job(self.game, self.settings, job, self.weights[1]) for job in done]

    def running(self) -> list[ActorJob]:
        return list(self.jobs)

    def close(self) -> None:
        self.jobs = []
        self.closed = True


def _pipeline(out: Path, hold: dict[int, int] | None = None, staleness: int = 1) -> AsyncPipeline:
    trainer = Trainer(tictactoe(), out, SMALL, device="cpu", workers=2)
    actors = InlineActors(trainer.game, trainer.config.self_play(), 2, hold or {})
    return AsyncPipeline(trainer, staleness=staleness, actors=actors)


def _journal(out: Path) -> list[Path]:
    return sorted((out / JOURNAL).glob("games-*.npz"))


# ------------------------------------------------------------------------------ learner


def _check_bound(pipeline: AsyncPipeline, staleness: int) -> Any:
    """A progress callback that checks, at every gradient step, that no job running is
    older than the bound allows for the version the steps make."""
    steps = []

    def check(phase: str, done: int, total: int) -> None:
        if phase == "training":
            making = pipeline.trainer.iteration + 1
            assert all(making - job.version <= staleness for job in pipeline.actors.running())
            steps.append(making)

    check.steps = steps  # type: ignore[attr-defined]
    return check


@pytest.mark.parametrize(("staleness", "hold"), [(1, 25), (3, 60)])
def test_a_late_job_is_waited_for_within_the_staleness_bound(
    tmp_path: Path, staleness: int, hold: int
) -> None:
    # Job 0 (version 0) comes back only after `hold` collections (later than `staleness`
    # iterations take), while the other actor plays on: the learner trains on without it,
    # never makes a version more than `staleness` newer than the job's while it is out, and
    # waits for it at the bound.
    pipeline = _pipeline(tmp_path / "run", hold={0: hold}, staleness=staleness)
    check = _check_bound(pipeline, staleness)
    pipeline.run(iterations=staleness + 2, log=None, progress=check)
    assert 0 in pipeline.jobs_taken and pipeline.jobs_taken[0] != 0  # late, and taken
    assert pipeline.largest_staleness == staleness
    assert len(check.steps) == (staleness + 2) * SMALL.steps_per_iteration
    pipeline.trainer.close()


def test_every_game_counted_is_in_the_buffer_and_the_journal_is_emptied(tmp_path: Path) -> None:
    pipeline = _pipeline(tmp_path / "run")
    reports = pipeline.run(iterations=3, log=None)
    trainer = pipeline.trainer
    assert trainer.buffer.added == sum(r.positions for r in reports)
    assert [r.total_positions for r in reports] == list(
        itertools.accumulate(r.positions for r in reports)
    )
    assert sum(r.games for r in reports) == pipeline.games_per_job * len(pipeline.jobs_taken)
    assert trainer.pipeline_state["journal_through"] == len(pipeline.jobs_taken) - 1
    assert _journal(tmp_path / "run") == []  # all in the checkpoint's buffer
    assert pipeline.actors.closed  # type: ignore[attr-defined]
    assert [r.iteration for r in reports] == [1, 2, 3]
    trainer.close()


def test_games_finished_after_the_checkpoint_survive_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "run"
    pipeline = _pipeline(out)
    pipeline.run(iterations=1, log=None)
    saved = pipeline.trainer.buffer.added
    pipeline._fill()
    pipeline._poll(None)  # two jobs arrive after the checkpoint: journaled, then counted
    pipeline._poll(None)
    after = pipeline.trainer.buffer.added
    assert after > saved and len(_journal(out)) >= 2
    pipeline.trainer.close()  # a crash: no checkpoint after these games
    again = _pipeline(out)
    assert again.trainer.iteration == 1
    assert again.trainer.buffer.added == after
    report = again.run(iterations=1, log=None)[0]
    assert report.positions >= after - saved  # counted in the iteration they arrived for
    again.trainer.close()


def test_journal_files_already_in_the_checkpoint_are_not_taken_twice(tmp_path: Path) -> None:
    out = tmp_path / "run"
    pipeline = _pipeline(out)
    pipeline.run(iterations=1, log=None)
    trainer = pipeline.trainer
    saved = trainer.buffer.added
    # A stop between the checkpoint and the journal's clean-up leaves a file it holds.
    job = ActorJob(0, 0, 1, 5)
    weights = trainer.model.to_bytes()
    result = play_job(trainer.game, trainer.config.self_play(), job, weights)
    write_journal(out / JOURNAL, trainer.pipeline_state["journal_through"], result)
    trainer.close()
    again = _pipeline(out)
    assert again.trainer.buffer.added == saved and _journal(out) == []
    again.trainer.close()


def test_a_damaged_journal_file_is_kept_aside_with_a_warning(tmp_path: Path) -> None:
    out = tmp_path / "run"
    pipeline = _pipeline(out)
    pipeline.run(iterations=1, log=None)
    trainer = pipeline.trainer
    saved = trainer.buffer.added
    damaged = out / JOURNAL / f"games-{trainer.pipeline_state['journal_through'] + 1:09d}.npz"
    damaged.write_bytes(b"not a journal file")
    trainer.close()
    with pytest.warns(playout.PlayoutWarning, match="damaged journal file"):
        again = _pipeline(out)
    assert again.trainer.buffer.added == saved
    assert _journal(out) == [] and damaged.with_name(damaged.name + ".damaged").exists()
    again.trainer.close()


def test_bad_pipeline_settings_are_refused(tmp_path: Path) -> None:
    trainer = Trainer(tictactoe(), tmp_path / "run", SMALL, device="cpu")
    with pytest.raises(playout.InvalidParameterError, match="staleness"):
        AsyncPipeline(trainer, staleness=0)
    with pytest.raises(playout.InvalidParameterError, match="games_per_job"):
        AsyncPipeline(trainer, games_per_job=0)
    trainer.close()


@pytest.mark.parametrize(
    "argv",
    [
        ["--staleness", "2"],
        ["--pipeline", "async", "--staleness", "0"],
        ["--pipeline", "later"],
        ["--pipeline", "async", "--executor", "local"],
    ],
)
def test_pipeline_option_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    base = ["train", "tictactoe", "--out", str(tmp_path / "run"), "--iterations", "1"]
    assert main(base + argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("playout: error: ")


# ------------------------------------------------------------------------------ the pool


def test_process_actors_lose_a_worker_and_go_on(tmp_path: Path) -> None:
    trainer = Trainer(tictactoe(), tmp_path / "run", SMALL, device="cpu", workers=2)
    actors = ProcessActors(trainer.game, trainer.config.self_play(), 2)
    pipeline = AsyncPipeline(trainer, actors=actors)
    killed: list[int] = []
    priorities: set[int] = set()

    def kill_one(phase: str, done: int, total: int) -> None:
        # Mid-iteration, while both actors play: kill one worker process.
        if phase == "training" and not killed and trainer.iteration == 1:
            assert actors._pool is not None
            pids = list(actors._pool._processes)  # type: ignore[attr-defined]
            priorities.update(os.getpriority(os.PRIO_PROCESS, pid) for pid in pids)
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    reports = pipeline.run(iterations=3, log=None, progress=kill_one)
    assert killed and actors.restarts >= 1
    # Actors that have played run below the learner's priority, as Ray's workers do.
    assert min(19, os.getpriority(os.PRIO_PROCESS, 0) + ACTOR_NICENESS) in priorities
    assert [r.iteration for r in reports] == [1, 2, 3]
    assert trainer.buffer.added == sum(r.positions for r in reports)
    assert [r.total_positions for r in reports] == list(
        itertools.accumulate(r.positions for r in reports)
    )
    assert trainer.pipeline_state["journal_through"] == len(pipeline.jobs_taken) - 1
    assert len(set(pipeline.jobs_taken)) == len(pipeline.jobs_taken)
    trainer.close()


# ------------------------------------------------------------------------------ Ray


def _assert_loopback_only() -> list[tuple[str, int]]:
    found = listening(os.getpid())
    assert found, "no listening socket found: the check would pass vacuously"
    assert all(is_loopback(host) for host, _ in found), found
    return found


@pytest.mark.usefixtures("one_ray_instance")
def test_a_local_ray_instance_listens_on_the_loopback_only() -> None:
    ray = pytest.importorskip("ray")
    from playout._src.arena.executors import RayExecutor

    assert not ray.is_initialized()
    executor = RayExecutor(1)
    try:
        executor.start()
        found = _assert_loopback_only()
        gcs_port = int(ray.get_runtime_context().gcs_address.rsplit(":", 1)[1])
        assert gcs_port in {port for _, port in found}
    finally:
        executor.close()


@pytest.mark.usefixtures("one_ray_instance")
def test_two_node_ray_cluster_loses_an_actor_and_training_goes_on(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    from playout._src.arena.executors import LOOPBACK, loopback_ray

    assert not ray.is_initialized()
    cluster = None
    trainer = Trainer(tictactoe(), tmp_path / "run", SMALL, device="cpu", workers=2)
    try:
        # Two nodes on this machine, both on 127.0.0.1, one CPU and a resource each.
        with loopback_ray(ray):
            cluster = Cluster(
                initialize_head=True,
                head_node_args={
                    "node_ip_address": LOOPBACK,
                    "num_cpus": 1,
                    "resources": {"head": 1},
                    "include_dashboard": False,
                },
            )
            cluster.add_node(node_ip_address=LOOPBACK, num_cpus=1, resources={"second": 1})
            path = os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH", "")) if p)
            ray.init(
                address=cluster.address,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": path}},
            )
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        actors = RayActors(trainer.game, trainer.config.self_play(), 2)
        pipeline = AsyncPipeline(trainer, actors=actors)
        killed: list[Any] = []
        nodes: list[set[str]] = []

        def kill_one(phase: str, done: int, total: int) -> None:
            # Mid-iteration, while both actors play: kill one with ray.kill.
            if phase == "training" and not killed and trainer.iteration == 1:
                nodes.append(set(ray.get([h.node.remote() for h in actors.handles])))
                _assert_loopback_only()
                killed.append(actors.handles[0])
                ray.kill(actors.handles[0])

        reports = pipeline.run(iterations=3, log=None, progress=kill_one)
        assert killed and actors.restarts == 1
        assert nodes and len(nodes[0]) == 2  # an actor on each node
        assert [r.iteration for r in reports] == [1, 2, 3]
        assert trainer.buffer.added == sum(r.positions for r in reports)
        assert trainer.pipeline_state["journal_through"] == len(pipeline.jobs_taken) - 1
        assert len(set(pipeline.jobs_taken)) == len(pipeline.jobs_taken)
    finally:
        trainer.close()
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()


def test_playout_train_async_runs_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = [
        "train", "tictactoe", "--out", str(out), "--iterations", "1", "--pipeline", "async",
        "--workers", "2", "--games", "4", "--simulations", "4", "--steps", "2",
        "--eval-games", "0", "--channels", "4", "--blocks", "1",
    ]  # fmt: skip
    assert main(argv) == 0
    assert main(argv) == 0  # resumes after iteration 1
    text = capsys.readouterr().out
    assert "resuming the run" in text and "iteration 2:" in text and "waiting" in text
    import csv

    with open(out / "metrics.csv", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert [row["iteration"] for row in rows] == ["1", "2"]
    assert all(float(row["wait_seconds"]) >= 0 for row in rows)
    assert not list((out / JOURNAL).glob("games-*.npz"))


def test_a_journal_file_keeps_the_reply_targets(tmp_path: Path) -> None:
    """Positions recovered from the journal (a run stopped between a job's file and the
    checkpoint) keep their opponent-reply targets, the reply head's; games without any
    write none."""
    from playout.zero.pipeline import read_journal

    game = tictactoe()
    for reply_head in (True, False):
        architecture = dataclasses.replace(SMALL.architecture, reply_head=reply_head)
        config = dataclasses.replace(SMALL, architecture=architecture)
        trainer = Trainer(game, tmp_path / f"run-{reply_head}", config, device="cpu")
        job = ActorJob(0, 0, 2, 5)
        result = play_job(game, trainer.config.self_play(), job, trainer.model.to_bytes())
        path = write_journal(tmp_path / f"journal-{reply_head}", 1, result)
        read = read_journal(path)
        assert read is not None
        examples = [e for g in result.games for e in g.examples]
        assert len(read[0]) == len(examples) > 0
        for got, want in zip(read[0], examples, strict=True):
            assert (got.reply is None) == (want.reply is None or not want.reply.any())
            if got.reply is not None:
                assert (got.reply == want.reply).all()
        assert any(e.reply is not None for e in read[0]) == reply_head
        trainer.close()


def test_side_games_come_on_top_of_a_jobs_games(tmp_path: Path) -> None:
    """With a fork rate, a job plays its games and their side games; the journal (and so
    the iteration's count toward ``games_per_iteration``) counts the games alone, while
    every side game's positions are kept."""
    from playout.zero.pipeline import read_journal

    game = tictactoe()
    config = dataclasses.replace(SMALL, fork_rate=1.0)
    trainer = Trainer(game, tmp_path / "run", config, device="cpu")
    job = ActorJob(0, 0, 3, 5)
    result = play_job(game, trainer.config.self_play(), job, trainer.model.to_bytes())
    assert sum(g.side for g in result.games) > 0
    read = read_journal(write_journal(tmp_path / "journal", 1, result))
    assert read is not None
    assert read[1] == 3 == sum(not g.side for g in result.games)
    assert len(read[0]) == sum(len(g.examples) for g in result.games)
    trainer.close()
