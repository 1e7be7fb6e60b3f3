"""A training pipeline that never waits: self-play actors play on while the learner trains.

The synchronous loop of :class:`~playout.zero.Trainer` alternates: every worker plays, then
the learner trains while every worker idles. Here the two overlap (the actor/learner split of
Ape-X, Horgan et al. 2018, and of KataGo's and Leela Zero's distributed self-play)::

    actors:   play a job (a few games) with weights v  ->  the games  ->  next job, newest weights
    learner:  take the games that arrived -> gradient steps (taking arrivals between steps)
              -> weights v+1 broadcast -> checkpoint -> evaluation -> metrics

An iteration of the learner waits for ``games_per_iteration`` new games (its share of data,
as in the synchronous loop), then runs ``steps_per_iteration`` gradient steps; the actors
keep playing all the while, and a job that ends is followed at once by another with the
newest weights. Every job's games go to the run's journal (``incoming/``, one file per job,
written whole) before they are counted or enter the replay buffer; the checkpoint records
the last journal file its buffer holds, and a resumed run takes the files after it: no
finished game is lost to a crash, a Ctrl-C or a killed actor (the job an actor did not
finish is played again by another, from its own seed).

**Bounded staleness.** A job played by the weights of version ``v`` (the learner's
iteration count when it was handed out) may enter the buffer while the learner is at
version ``v + staleness`` at most: before the step block that makes version ``t + 1``, the
learner waits for every job of version ``t - staleness`` or older. The default,
:data:`STALENESS` = 1, is the one-version lag of a pipeline that overlaps each iteration's
self-play with the previous iteration's training: the learner trains on games of its
current or previous weights, the data the synchronous loop would have trained on one
iteration later, and no actor ever waits for the learner. 0 would be the synchronous loop.

Actors run in a local process pool (:class:`ProcessActors`) or as Ray actors
(:class:`RayActors`, spread over the nodes of a cluster; a local Ray instance listens on
127.0.0.1 only). New weights go to the actors as the model file's bytes: with each job on
the pool, through Ray's object store (one copy per node) on Ray.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import io
import math
import multiprocessing
import os
import re
import socket
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from playout._src.arena.executors import init_local_ray, is_loopback_address, loopback_ray
from playout._src.errors import ExecutorError, GameError, InvalidParameterError, PlayoutWarning
from playout._src.files import write_atomic
from playout._src.processes import process_pool, sigint_deferred, stop_pool
from playout.zero.evaluator import NetworkEvaluator
from playout.zero.rundir import write_or_fail
from playout.zero.selfplay import Example, SelfPlayGame, SelfPlaySettings, self_play
from playout.zero.train import IterationReport, Trainer

STALENESS = 1
"""The default bound on how many versions older than the learner's the weights that played
a game may be when it enters the replay buffer (see the module docstring)."""

JOURNAL = "incoming"
"""The run directory's folder of finished self-play jobs not yet in a checkpoint."""

ACTOR_NICENESS = 15
"""The scheduling priority (Unix ``nice``) of the pool's actor processes: Ray's own for its
workers (measured: a Ray actor runs at nice 15). A learner at the normal priority then takes
the CPU it needs before the actors do, which play on the rest: on 2 busy cores the pool's
learner trained about 3x slower beside actors at its own priority (docs/how-to/
zero-pipeline.md)."""

MAX_RESTARTS = 3
"""Actors lost in a row (no job finished in between) before the pipeline gives up."""

_JOURNAL_FILE = re.compile(r"games-(\d{9})\.npz")


@dataclasses.dataclass(frozen=True)
class ActorJob:
    """A few self-play games for one actor.

    Attributes:
        number: the job's number in the run (0, 1, ...), which seeds its games.
        version: the learner's iteration count whose weights play the games.
        num_games: games to play.
        seed: the games' seed (:func:`~playout.zero.self_play`'s).
    """

    number: int
    version: int
    num_games: int
    seed: int


@dataclasses.dataclass(frozen=True)
class ActorResult:
    """A finished job: its games, the actor's playing time in seconds and where it ran
    (``host:pid``)."""

    job: ActorJob
    games: tuple[SelfPlayGame, ...]
    seconds: float
    where: str

    @property
    def num_games(self) -> int:
        """The job's games, its side games left out (they come on top of an iteration's)."""
        return sum(not g.side for g in self.games)

    @property
    def moves(self) -> int:
        """The moves its searches chose, side games' included."""
        return sum(g.searched for g in self.games)


class Actors(Protocol):
    """Self-play actors: each plays one job at a time, with the newest weights published."""

    workers: int
    """How many actors play at once."""

    restarts: int
    """Actors lost and replaced (their jobs handed to others) since the start."""

    def start(self) -> None:
        """Start the actors (a failure, such as no Ray cluster, comes now)."""
        ...

    def publish(self, version: int, weights: bytes) -> None:
        """Make ``weights`` (a model file's bytes, version ``version``) the weights of the
        jobs submitted from now on."""
        ...

    def idle(self) -> int:
        """Actors without a job."""
        ...

    def submit(self, job: ActorJob) -> None:
        """Hand ``job`` to an idle actor, with the newest weights (``job.version`` must be
        theirs)."""
        ...

    def collect(self, timeout: float | None) -> list[ActorResult]:
        """The jobs finished: waits up to ``timeout`` seconds (``None``: as long as it takes)
        for one when none is, then takes every one finished. A job whose actor died is
        handed to a new actor, not returned.

        Raises:
            GameError: actors keep dying (:data:`MAX_RESTARTS` in a row), or a job failed.
        """
        ...

    def running(self) -> list[ActorJob]:
        """The jobs handed out and not yet collected."""
        ...

    def close(self) -> None:
        """Stop the actors (jobs in progress are abandoned)."""
        ...


# ------------------------------------------------------------------------- the actors' side

_loaded: tuple[bytes, Any] | None = None
"""An actor process's network: (the model file's bytes, the model), loaded once per
weights."""


def _where() -> str:
    """This process as ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


_niced = False
"""Whether this process lowered its priority (:data:`ACTOR_NICENESS`)."""


def play_job(
    game: Any,
    settings: SelfPlaySettings,
    job: ActorJob,
    weights: bytes,
    threads: int = 1,
    niceness: int = 0,
) -> ActorResult:
    """An actor's job: the network of ``weights`` (loaded once per weights and process),
    ``job.num_games`` games of self-play (module level: pool workers find it by name). The
    first job with a ``niceness`` lowers the process's priority by that much (once)."""
    global _loaded, _niced
    from playout.zero.model import Model, torch

    began = time.perf_counter()
    if niceness and not _niced and hasattr(os, "nice"):
        os.nice(niceness)
        _niced = True
    if _loaded is None or _loaded[0] != weights:
        torch.set_num_threads(threads)
        _loaded = (weights, Model.from_bytes(io.BytesIO(weights), game, device="cpu"))
    evaluator = NetworkEvaluator(_loaded[1])
    games = self_play(evaluator, game, job.num_games, settings, seed=job.seed)
    return ActorResult(job, tuple(games), time.perf_counter() - began, _where())


class SelfPlayActor:
    """A Ray actor's state: the game and the self-play settings (Ray makes the class
    remote; see :class:`RayActors`)."""

    def __init__(self, game: Any, settings: SelfPlaySettings, threads: int = 1) -> None:
        self.game = game
        self.settings = settings
        self.threads = threads

    def play(self, job: ActorJob, weights: bytes) -> ActorResult:
        """Play ``job`` with ``weights`` (Ray passes the object store's copy)."""
        return play_job(self.game, self.settings, job, weights, self.threads)

    def node(self) -> str:
        """The Ray node this actor runs on (its id)."""
        import ray

        return str(ray.get_runtime_context().get_node_id())


# ------------------------------------------------------------------------------ the pool


class ProcessActors:
    """Actors as the processes of a local pool (``forkserver`` where there is one, as the
    arena's :class:`~playout._src.arena.executors.PoolExecutor`), at a lower priority than
    the learner (:data:`ACTOR_NICENESS`, as Ray's workers). A process that dies breaks the
    pool: a new pool takes the jobs that were running."""

    def __init__(self, game: Any, settings: SelfPlaySettings, workers: int) -> None:
        self.game = game
        self.settings = settings
        self.workers = workers
        self.restarts = 0
        self._lost_in_a_row = 0
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._weights: tuple[int, bytes] | None = None
        self._futures: dict[concurrent.futures.Future[ActorResult], ActorJob] = {}

    def start(self) -> None:
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in methods else "spawn"
            )
            self._pool = process_pool(self.workers, context)

    def publish(self, version: int, weights: bytes) -> None:
        self._weights = (version, weights)

    def idle(self) -> int:
        return self.workers - len(self._futures)

    def submit(self, job: ActorJob) -> None:
        assert self._weights is not None
        version, weights = self._weights
        if job.version != version:
            raise InvalidParameterError(f"job of version {job.version}, weights of {version}")
        while True:
            self.start()
            assert self._pool is not None
            try:
                with sigint_deferred():  # a Ctrl-C reaches this process, not a starting worker
                    future = self._pool.submit(
                        play_job, self.game, self.settings, job, weights, 1, ACTOR_NICENESS
                    )
            except concurrent.futures.process.BrokenProcessPool:
                self._replace_pool()  # a worker died: the pool is refused; a new one
                job = dataclasses.replace(job, version=self._weights[0])
                continue
            self._futures[future] = job
            return

    def collect(self, timeout: float | None) -> list[ActorResult]:
        if not self._futures:
            return []
        done, _ = concurrent.futures.wait(
            list(self._futures), timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED
        )
        results = []
        for future in done:
            job = self._futures.pop(future)
            try:
                results.append(future.result())
            except concurrent.futures.process.BrokenProcessPool:
                self._futures[future] = job
                self._replace_pool()
                return results
        if results:
            self._lost_in_a_row = 0
        return results

    def _replace_pool(self) -> None:
        """A worker died: a new pool plays the jobs the broken one held."""
        self._lost_in_a_row += 1
        self.restarts += 1
        if self._lost_in_a_row > MAX_RESTARTS:
            raise GameError(
                "self-play worker processes keep dying (out of memory, or killed); "
                "try fewer workers"
            )
        jobs = list(self._futures.values())
        if self._pool is not None:
            stop_pool(self._pool)
        self._pool, self._futures = None, {}
        assert self._weights is not None
        for job in jobs:  # with the newest weights, whose version it takes
            self.submit(dataclasses.replace(job, version=self._weights[0]))

    def running(self) -> list[ActorJob]:
        return list(self._futures.values())

    def close(self) -> None:
        if self._pool is not None:
            stop_pool(self._pool)
            self._pool = None
        self._futures = {}


# ------------------------------------------------------------------------------ Ray


class RayActors:
    """Actors as Ray actors (one CPU each), spread over the cluster's nodes (Ray's
    ``SPREAD`` strategy). Connects to a running Ray (``ray.is_initialized()``) as it is,
    else to the cluster at ``address``, else starts a local instance with ``workers`` CPUs
    that listens on 127.0.0.1 only. An actor that dies (``ray.kill``, a lost node) is
    replaced and its job handed to the new one.

    Raises:
        MissingDependencyError: Ray is not installed.
    """

    def __init__(
        self, game: Any, settings: SelfPlaySettings, workers: int, address: str | None = None
    ) -> None:
        from playout._src.optional import import_optional

        self._ray = import_optional("ray", extra="ray", needed_by="the Ray self-play actors")
        self.game = game
        self.settings = settings
        self.workers = workers
        self.address = address
        self.restarts = 0
        self._lost_in_a_row = 0
        self._started_ray = False
        self._class: Any = None
        self.handles: list[Any] = []
        """The actors (Ray actor handles), one per worker."""
        self._weights: tuple[int, Any] | None = None
        self._refs: dict[Any, tuple[int, ActorJob]] = {}

    def start(self) -> None:
        ray = self._ray
        if not ray.is_initialized():
            if self.address is None:
                init_local_ray(ray, num_cpus=self.workers)
            else:
                try:
                    with loopback_ray(ray, is_loopback_address(self.address)):
                        ray.init(address=self.address, log_to_driver=False)
                except Exception as error:  # Ray raises ConnectionError, RuntimeError, ...
                    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
                    raise ExecutorError(
                        f"cannot connect to the Ray cluster at {self.address!r}: {first}"
                    ) from None
            self._started_ray = True
        if self._class is None:
            self._class = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(SelfPlayActor)
        while len(self.handles) < self.workers:
            self.handles.append(self._new_actor())

    def _new_actor(self) -> Any:
        return self._class.remote(self.game, self.settings)

    def publish(self, version: int, weights: bytes) -> None:
        self._weights = (version, self._ray.put(weights))

    def _busy(self) -> set[int]:
        return {index for index, _ in self._refs.values()}

    def idle(self) -> int:
        return self.workers - len(self._refs)

    def submit(self, job: ActorJob) -> None:
        self.start()
        assert self._weights is not None
        version, weights = self._weights
        if job.version != version:
            raise InvalidParameterError(f"job of version {job.version}, weights of {version}")
        busy = self._busy()
        index = next(i for i in range(self.workers) if i not in busy)
        self._refs[self.handles[index].play.remote(job, weights)] = (index, job)

    def collect(self, timeout: float | None) -> list[ActorResult]:
        ray = self._ray
        if not self._refs:
            return []
        refs = list(self._refs)
        ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        results = []
        for ref in ready:
            index, job = self._refs.pop(ref)
            try:
                results.append(ray.get(ref))
            except ray.exceptions.RayActorError:
                self._replace(index, job)
            except ray.exceptions.RayTaskError as error:
                raise GameError(f"a self-play job failed on Ray: {error}") from None
        if results:
            self._lost_in_a_row = 0
        return results

    def _replace(self, index: int, job: ActorJob) -> None:
        """Actor ``index`` died: a new actor in its place plays its job again."""
        self._lost_in_a_row += 1
        self.restarts += 1
        if self._lost_in_a_row > MAX_RESTARTS:
            raise GameError("Ray self-play actors keep dying (killed, or their nodes lost)")
        self.handles[index] = self._new_actor()
        assert self._weights is not None
        version, weights = self._weights
        # The job keeps its own version: the weights it was given stay in the object store
        # while its reference lives; the newest ones are as good, and their version is kept.
        job = dataclasses.replace(job, version=version)
        self._refs[self.handles[index].play.remote(job, weights)] = (index, job)

    def running(self) -> list[ActorJob]:
        return [job for _, job in self._refs.values()]

    def close(self) -> None:
        ray = self._ray
        if ray.is_initialized():
            for handle in self.handles:
                ray.kill(handle)
        self.handles, self._refs = [], {}
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False


def make_actors(trainer: Trainer) -> Actors:
    """The actors of ``trainer``'s executor and worker count: Ray actors for ``"ray"``,
    else a process pool (an asynchronous pipeline plays apart from the learner, one process
    at least)."""
    settings = trainer.config.self_play()
    if trainer.executor == "ray":
        return RayActors(trainer.game, settings, trainer.workers, trainer.ray_address)
    return ProcessActors(trainer.game, settings, trainer.workers)


# ------------------------------------------------------------------------------ journal


def _journal_number(path: Path) -> int | None:
    match = _JOURNAL_FILE.fullmatch(path.name)
    return int(match.group(1)) if match else None


def write_journal(folder: Path, number: int, result: ActorResult) -> Path:
    """A finished job's training positions in ``folder``, whole or not at all
    (``games-NNNNNNNNN.npz``).

    Raises:
        RunError: it cannot be written (a full disk).
    """
    from playout.zero.selfplay import stack_examples

    folder.mkdir(exist_ok=True)
    path = folder / f"games-{number:09d}.npz"
    examples = [e for g in result.games for e in g.examples]
    if examples:
        observations, policies, values = stack_examples(examples)
    else:
        observations = policies = values = np.zeros(0, dtype=np.float32)
    # Reply targets (a reply head's), when the games have them: a zero row is none.
    arrays: dict[str, Any] = {"observations": observations, "policies": policies, "values": values}
    if any(e.reply is not None for e in examples):
        arrays["replies"] = np.stack(
            [np.zeros_like(e.policy) if e.reply is None else e.reply for e in examples]
        ).astype(np.float32)

    def write(stream: Any) -> None:
        np.savez(
            stream,
            **arrays,
            meta=np.array(
                [result.job.version, result.num_games, result.moves, result.job.number],
                dtype=np.int64,
            ),
        )

    write_or_fail(path, lambda target: write_atomic(target, write), "")
    return path


def read_journal(path: Path) -> tuple[list[Example], int, int] | None:
    """A journal file's examples (with their reply targets, when it has them), games and
    moves; ``None`` for a damaged file."""
    try:
        with np.load(path, allow_pickle=False) as data:
            observations, policies, values = data["observations"], data["policies"], data["values"]
            replies = data["replies"] if "replies" in data.files else None
            _, games, moves, _ = (int(x) for x in data["meta"])
        if replies is not None and replies.shape != policies.shape:
            return None
    except (OSError, EOFError, KeyError, ValueError, TypeError):
        return None
    examples = [
        Example(
            observations[i], policies[i], float(values[i]),
            None if replies is None or not replies[i].any() else replies[i],
        )
        for i in range(len(values))
    ]  # fmt: skip
    return examples, games, moves


# ------------------------------------------------------------------------------ learner


@dataclasses.dataclass
class _Arrivals:
    """What arrived since the last iteration ended."""

    games: int = 0
    positions: int = 0
    moves: int = 0
    actor_seconds: float = 0.0


class AsyncPipeline:
    """:class:`~playout.zero.Trainer`'s run with self-play and learning overlapped (see the
    module docstring).

    Args:
        trainer: the run (its settings, directory, checkpoint and metrics; its ``workers``,
            ``executor`` and ``ray_address`` choose the actors).
        staleness: the bound S >= 1 on the weights' age (versions) of a game entering the
            buffer.
        games_per_job: games per actor job (default: ``parallel_games / workers``, at most
            the iteration's games per worker): smaller jobs bring fresher weights, larger
            ones fuller network batches.
        actors: the actors (default: :func:`make_actors` of the trainer).

    The first ``expert_iterations`` iterations (rollout MCTS games, no network) run
    synchronously, as :meth:`Trainer.iterate`.

    Raises:
        InvalidParameterError: a bad ``staleness`` or ``games_per_job``.
    """

    def __init__(
        self,
        trainer: Trainer,
        *,
        staleness: int = STALENESS,
        games_per_job: int | None = None,
        actors: Actors | None = None,
    ) -> None:
        if isinstance(staleness, bool) or not isinstance(staleness, int) or staleness < 1:
            raise InvalidParameterError(
                f"staleness must be a whole number >= 1 (0 is the synchronous loop), "
                f"got {staleness!r}"
            )
        config = trainer.config
        workers = trainer.workers
        if games_per_job is None:
            games_per_job = max(
                1,
                min(
                    config.parallel_games // workers,
                    math.ceil(config.games_per_iteration / workers),
                ),
            )
        if (
            isinstance(games_per_job, bool)
            or not isinstance(games_per_job, int)
            or games_per_job < 1
        ):
            raise InvalidParameterError(f"games_per_job must be >= 1, got {games_per_job!r}")
        self.trainer = trainer
        self.staleness = staleness
        self.games_per_job = games_per_job
        self.actors = actors if actors is not None else make_actors(trainer)
        self.journal = trainer.out_dir / JOURNAL
        state = trainer.pipeline_state
        self._next_job = int(state.get("jobs", 0))
        self._through = int(state.get("journal_through", -1))
        self._next_file = self._through + 1
        self._arrived = _Arrivals()
        self.largest_staleness = 0
        """The largest staleness of a game taken so far (versions; at most ``staleness``)."""
        self.jobs_taken: list[int] = []
        """The numbers of the jobs whose games were taken, in order of arrival."""
        self._progress: Callable[[str, int, int], None] | None = None
        self._recover_journal()

    # ----------------------------------------------------------------------- journal

    def _journal_files(self) -> list[tuple[int, Path]]:
        if not self.journal.is_dir():
            return []
        found = ((_journal_number(p), p) for p in self.journal.iterdir())
        return sorted((n, p) for n, p in found if n is not None)

    def _recover_journal(self) -> None:
        """Take the games a stopped run finished after its last checkpoint (files numbered
        after ``journal_through``) into the buffer; drop the files the checkpoint holds."""
        buffer = self.trainer.buffer
        for number, path in self._journal_files():
            if number <= self._through:
                path.unlink(missing_ok=True)
                continue
            read = read_journal(path)
            if read is None:  # written whole or not at all: damaged after it was written
                kept = path.with_name(path.name + ".damaged")
                path.replace(kept)
                warnings.warn(
                    f"{path}: damaged journal file, its games left out of the buffer; "
                    f"kept as {kept.name}",
                    PlayoutWarning,
                    stacklevel=2,
                )
                read = ([], 0, 0)
            examples, games, moves = read
            buffer.add(examples)
            self._arrived.games += games
            self._arrived.positions += len(examples)
            self._arrived.moves += moves
            self._through = number
            self._next_file = number + 1

    def _take(self, results: Sequence[ActorResult]) -> None:
        """Finished jobs: written to the journal, then counted and put in the buffer."""
        version = self.trainer.iteration
        for result in results:
            write_journal(self.journal, self._next_file, result)
            self._through = self._next_file
            self._next_file += 1
            examples = [e for g in result.games for e in g.examples]
            self.trainer.buffer.add(examples)
            arrived = self._arrived
            arrived.games += result.num_games
            arrived.positions += len(examples)
            arrived.moves += result.moves
            arrived.actor_seconds += result.seconds
            self.largest_staleness = max(self.largest_staleness, version - result.job.version)
            self.jobs_taken.append(result.job.number)
        if results and self._progress is not None:
            self._progress("self-play", min(self._arrived.games, self._target()), self._target())

    def _target(self) -> int:
        return self.trainer.config.games_per_iteration

    # ----------------------------------------------------------------------- actors

    def _fill(self) -> None:
        """Hand every idle actor a job with the newest weights."""
        trainer = self.trainer
        while self.actors.idle() > 0:
            number = self._next_job
            self._next_job += 1
            seed = (trainer.config.seed * 1_000_003 + number) * 7_919 + 17
            self.actors.submit(ActorJob(number, trainer.iteration, self.games_per_job, seed))

    def _poll(self, timeout: float | None) -> None:
        """Take what finished (waiting up to ``timeout`` seconds for a job), keep every
        actor busy."""
        self._take(self.actors.collect(timeout))
        self._fill()

    def _too_old(self) -> bool:
        """Whether a running job was handed out ``staleness`` or more versions ago (the
        learner must not make a newer version before it arrives)."""
        oldest = self.trainer.iteration - self.staleness
        return any(job.version <= oldest for job in self.actors.running())

    # ----------------------------------------------------------------------- loop

    def run(
        self,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        log: Callable[[str], None] | None = print,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> list[IterationReport]:
        """As :meth:`Trainer.run`, with the actors started for the run and stopped after it
        (however it ends)."""
        if iterations is None and seconds is None:
            raise InvalidParameterError("give iterations or seconds")
        trainer = self.trainer
        if trainer._lock.released:
            raise InvalidParameterError("this trainer is closed; make a new one to go on")
        reports = []
        start = time.perf_counter()
        done = 0
        try:
            self.actors.start()
            self._publish()
            while (iterations is None or done < iterations) and (
                seconds is None or time.perf_counter() - start < seconds
            ):
                if trainer.iteration < trainer.config.expert_iterations:
                    report = trainer.iterate(progress=progress)
                    self._publish()
                else:
                    report = self.iterate(progress=progress)
                reports.append(report)
                done += 1
                if log is not None:
                    log(report.line())
        finally:
            self.actors.close()
        return reports

    def _publish(self) -> None:
        """Broadcast the learner's weights to the actors."""
        self.actors.publish(self.trainer.iteration, self.trainer.model.to_bytes())

    def iterate(self, progress: Callable[[str, int, int], None] | None = None) -> IterationReport:
        """One learner iteration: wait for the iteration's games (actors playing), train
        (actors playing), broadcast, checkpoint, evaluate, metrics."""
        trainer = self.trainer
        config = trainer.config
        self._progress = progress
        began = time.perf_counter()
        self._poll(0)
        while self._arrived.games < config.games_per_iteration or self._too_old():
            self._poll(None)
        waited = time.perf_counter() - began
        trained = time.perf_counter()
        rate = trainer.learning_rate()
        for group in trainer.optimizer.param_groups:
            group["lr"] = rate
        previous = {k: v.detach().clone() for k, v in trainer.model.net.state_dict().items()}
        policy_loss, value_loss, entropy = trainer._train(progress, lambda: self._poll(0))
        train_seconds = time.perf_counter() - trained
        trainer.iteration += 1
        self._publish()
        self._fill()
        trainer.elapsed += time.perf_counter() - began
        arrived, self._arrived = self._arrived, _Arrivals()
        seconds = time.perf_counter() - began
        trainer.pipeline_state = {"jobs": self._next_job, "journal_through": self._through}
        report = IterationReport(
            iteration=trainer.iteration,
            games=arrived.games,
            positions=arrived.positions,
            buffer=trainer.buffer.size,
            policy_loss=policy_loss,
            value_loss=value_loss,
            policy_entropy=entropy,
            learning_rate=rate,
            self_play_seconds=arrived.actor_seconds / self.actors.workers,
            train_seconds=train_seconds,
            positions_per_second=arrived.positions / max(seconds, 1e-9),
            simulations_per_second=(
                arrived.moves * config.simulations_per_move / max(seconds, 1e-9)
            ),
            eval_score=None,
            eval_opponent=config.eval_opponent,
            eval_elo=None,
            eval_elo_low=None,
            eval_elo_high=None,
            previous_score=None,
            elapsed_seconds=trainer.elapsed,
            total_positions=trainer.buffer.added,
            wait_seconds=waited,
        )
        report = trainer.finish_iteration(report, previous)
        for number, path in self._journal_files():  # now in the checkpoint's buffer
            if number <= self._through:
                path.unlink(missing_ok=True)
        return report


__all__ = [
    "STALENESS",
    "ActorJob",
    "ActorResult",
    "Actors",
    "AsyncPipeline",
    "ProcessActors",
    "RayActors",
    "SelfPlayActor",
    "make_actors",
    "play_job",
]
