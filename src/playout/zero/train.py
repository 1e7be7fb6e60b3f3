"""AlphaZero training: self-play, a replay buffer, gradient steps, evaluation, checkpoints.

One iteration (Silver et al. 2018; the loop of AlphaZero.jl and OpenSpiel's AlphaZero)::

    games = self_play(network, games_per_iteration)      # selfplay.py, lockstep batches
    buffer.add(examples of games)                        # the newest buffer_size positions
    for step in range(steps_per_iteration):              # Adam, weight decay, cosine schedule
        loss = cross_entropy(policy, visit shares) + (value - outcome)^2
    checkpoint(out_dir)                                  # atomic; resume continues from here
    evaluate against rollout MCTS (arena), log a line and a metrics.csv row

Everything the run needs to go on is in ``out_dir``: ``checkpoint.pt`` (weights, optimizer,
iteration, random states), ``buffer.npz`` (the replay buffer), ``metrics.csv`` and
``model.pt`` (the latest network, loadable by ``zero:model=...``). A run stopped by Ctrl-C or
a crash resumes from the last finished iteration with nothing lost; every file is written to
a temporary name first and renamed over the old one. One process at a time trains in a
directory: a :class:`Trainer` holds a lock on ``out_dir/.lock`` from its creation until
:meth:`Trainer.close` (POSIX ``flock``, released when the process ends, however it ends), and
another process's trainer there is refused.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from playout._src.config import DirichletNoise, Gumbel
from playout._src.errors import (
    InvalidParameterError,
    ModelFileError,
    PlayoutWarning,
    RunInUseError,
)
from playout._src.processes import sigint_deferred
from playout.render.formatting import number_text
from playout.zero.evaluator import NetworkEvaluator
from playout.zero.model import (
    Architecture,
    GameSignature,
    Model,
    read_model_file,
    resolve_device,
    torch,
)
from playout.zero.selfplay import (
    Example,
    SelfPlaySettings,
    ZeroSearch,
    expert_games,
    parallel_self_play,
    self_play,
    stack_examples,
)

CHECKPOINT = "checkpoint.pt"
BUFFER = "buffer.npz"
METRICS = "metrics.csv"
MODEL = "model.pt"
SETTINGS = "settings.json"
EVAL_NOISE = DirichletNoise(alpha=1.0, fraction=0.25)
"""Root noise of both players when the network plays its previous self."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """The settings of a training run (all sizes per iteration).

    Attributes:
        games_per_iteration: self-play games per iteration.
        simulations: search simulations per self-play move.
        leaf_batch: leaves per game per network call in self-play.
        parallel_games: self-play games searched in lockstep.
        temperature_moves: opening plies whose move is drawn by visit counts.
        value_mix: weight of the search's value against the game's outcome in the value
            target (see :func:`~playout.zero.selfplay.self_play`).
        opening_moves: self-play games start after up to this many random moves.
        expert_iterations: the first iterations play rollout MCTS against itself instead of
            the network (:func:`~playout.zero.selfplay.expert_games`, a warm start).
        expert_simulations: the rollout search's simulations per move in those iterations.
        dirichlet_alpha, dirichlet_fraction: root noise in self-play.
        c: PUCT constant (playout's [-1, 1] value scale).
        gumbel: 0 (the default): self-play searches with PUCT and Dirichlet noise and learns
            the visit shares (AlphaZero). ``M`` >= 1: Gumbel AlphaZero (Danihelka et al.
            2022): self-play samples ``M`` root actions by the Gumbel-top-k trick, spreads its
            simulations over them by sequential halving, plays the survivor and learns the
            improved policy (:class:`playout.Gumbel`'s other settings at their defaults;
            no Dirichlet noise, no ``temperature_moves``). Evaluation games search with PUCT
            either way.
        buffer_size: positions kept in the replay buffer (the newest).
        batch_size: positions per gradient step.
        steps_per_iteration: gradient steps per iteration.
        learning_rate: Adam's step size at the start; it follows a cosine schedule down to a
            tenth over ``schedule_iterations``.
        schedule_iterations: iterations of the learning-rate schedule.
        weight_decay: L2 penalty (AdamW's decoupled weight decay).
        architecture: the network's size.
        eval_games: games against rollout MCTS after each iteration (0: none).
        eval_simulations: the network player's simulations in evaluation games.
        eval_opponent: the opponent's player spec.
        eval_previous: also play ``eval_games`` against the network as it was before the
            iteration's training.
        seed: seeds weights, self-play and sampling.
        threads: PyTorch's threads in this process. One by default: the network is small
            and batches are a few hundred positions, where more threads mostly wait on each
            other (measured: 1 thread ran a 32x3 connect-four network 8x faster than 2 on a
            busy 2-core machine); parallel self-play uses processes instead.
    """

    games_per_iteration: int = 64
    simulations: int = 100
    leaf_batch: int = 8
    parallel_games: int = 64
    temperature_moves: int = 8
    value_mix: float = 0.0
    opening_moves: int = 0
    expert_iterations: int = 0
    expert_simulations: int = 2000
    dirichlet_alpha: float = 1.0
    dirichlet_fraction: float = 0.25
    c: float = 2.0
    gumbel: int = 0
    buffer_size: int = 100_000
    batch_size: int = 256
    steps_per_iteration: int = 100
    learning_rate: float = 2e-3
    schedule_iterations: int = 100
    weight_decay: float = 1e-4
    architecture: Architecture = dataclasses.field(default_factory=Architecture)
    eval_games: int = 20
    eval_simulations: int = 100
    eval_opponent: str = "mcts:simulations=1000"
    eval_previous: bool = True
    seed: int = 0
    threads: int = 1

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.type in ("int", "float") and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise InvalidParameterError(f"{field.name} must be a number, got {value!r}")
        positive = (
            "games_per_iteration", "simulations", "leaf_batch", "parallel_games",
            "buffer_size", "batch_size", "steps_per_iteration", "schedule_iterations",
            "threads", "expert_simulations",
        )  # fmt: skip
        for name in positive:
            if getattr(self, name) < 1:
                raise InvalidParameterError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.gumbel < 0:
            raise InvalidParameterError(f"gumbel must be >= 0, got {self.gumbel}")
        self.self_play()  # checks the self-play settings (value_mix in [0, 1], ...)
        if not self.learning_rate > 0 or self.weight_decay < 0:
            raise InvalidParameterError("learning_rate must be > 0 and weight_decay >= 0")

    def self_play(self) -> SelfPlaySettings:
        """The self-play settings of this run."""
        noise = DirichletNoise(alpha=self.dirichlet_alpha, fraction=self.dirichlet_fraction)
        gumbel = Gumbel(considered=self.gumbel) if self.gumbel else None
        return SelfPlaySettings(
            search=ZeroSearch(
                simulations=self.simulations,
                c=self.c,
                leaf_batch=self.leaf_batch,
                noise=None if gumbel else noise,
                gumbel=gumbel,
            ),
            temperature_moves=self.temperature_moves,
            parallel_games=self.parallel_games,
            opening_moves=self.opening_moves,
            value_mix=self.value_mix,
        )

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def resumed_with(self, changes: dict[str, Any]) -> TrainConfig:
        """These settings with ``changes`` for a run that goes on (checked like new ones).

        Raises:
            InvalidParameterError: a setting a run cannot change once started (its network's
                size, the replay buffer's size, the seed, the Expert Iteration warm start),
                or an unknown one.
        """
        fields = {field.name for field in dataclasses.fields(self)}
        for name in changes:
            if name not in fields:
                raise InvalidParameterError(f"unknown training setting {name!r}")
            if name in FIXED_SETTINGS and changes[name] != getattr(self, name):
                raise InvalidParameterError(
                    f"{name} cannot change once a run has started (it is "
                    f"{getattr(self, name)!r}); start a new run in another directory"
                )
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        data = dict(data)
        data["architecture"] = Architecture(**data["architecture"])
        return cls(**data)


FIXED_SETTINGS = frozenset(
    {"architecture", "buffer_size", "seed", "expert_iterations", "expert_simulations"}
)
"""Settings a run keeps from its start (the weights, the buffer's arrays and the random
streams depend on them); :meth:`TrainConfig.resumed_with` may change the others."""


def saved_settings(out_dir: str | os.PathLike[str]) -> TrainConfig | None:
    """The settings of the run in ``out_dir``, or ``None`` when it holds none.

    Raises:
        ModelFileError: an unreadable settings file.
    """
    settings = Path(out_dir) / SETTINGS
    if not settings.exists():
        return None
    try:
        return TrainConfig.from_json(json.loads(settings.read_text()))
    except (ValueError, TypeError, KeyError) as error:
        raise ModelFileError(f"{settings}: unreadable settings ({error})") from error


class ReplayBuffer:
    """The newest ``capacity`` training positions, as arrays (a ring)."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int):
        self.capacity = capacity
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.float32)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, examples: list[Example]) -> None:
        if not examples:
            return
        observations, policies, values = stack_examples(examples)
        for i in range(len(examples)):
            self.observations[self.next] = observations[i]
            self.policies[self.next] = policies[i]
            self.values[self.next] = values[i]
            self.next = (self.next + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)
        self.added += len(examples)

    def rewind(self, count: int) -> None:
        """Forget the newest ``count`` positions (saved after the checkpoint a resumed run
        starts from: the iteration that added them is played again). Once the ring has
        wrapped, their rows stay in use until overwritten, holding those positions instead
        of the older ones they replaced."""
        count = max(0, min(count, self.added))
        self.next = (self.next - count) % self.capacity
        self.added -= count
        self.size = min(self.added, self.capacity)

    def sample(
        self, batch_size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = rng.integers(0, self.size, size=min(batch_size, self.size))
        return self.observations[rows], self.policies[rows], self.values[rows]

    def save(self, path: Path) -> None:
        temporary = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(
            temporary,
            observations=self.observations[: self.size],
            policies=self.policies[: self.size],
            values=self.values[: self.size],
            meta=np.array([self.next, self.added], dtype=np.int64),
        )
        os.replace(temporary, path)

    def load(self, path: Path) -> None:
        try:
            with np.load(path) as data:
                size = int(data["values"].shape[0])
                if (
                    size > self.capacity
                    or data["observations"].shape[1:] != (self.observations.shape[1:])
                ):
                    raise ModelFileError(f"{path}: the replay buffer does not fit this run")
                self.observations[:size] = data["observations"]
                self.policies[:size] = data["policies"]
                self.values[:size] = data["values"]
                self.size = size
                self.next, self.added = (int(x) for x in data["meta"])
                self.next %= self.capacity
        except (OSError, KeyError, ValueError) as error:
            raise ModelFileError(f"{path}: unreadable replay buffer ({error})") from error


@dataclasses.dataclass(frozen=True)
class IterationReport:
    """What one iteration did (a row of ``metrics.csv``)."""

    iteration: int
    games: int
    positions: int
    buffer: int
    policy_loss: float
    value_loss: float
    policy_entropy: float
    learning_rate: float
    self_play_seconds: float
    train_seconds: float
    positions_per_second: float
    simulations_per_second: float
    eval_score: float | None
    eval_opponent: str
    eval_elo: float | None
    eval_elo_low: float | None
    eval_elo_high: float | None
    previous_score: float | None
    elapsed_seconds: float

    def line(self) -> str:
        """One log line."""
        score = ""
        if self.eval_score is not None:
            elo, low, high = (
                "-" if value is None else number_text(value, 0, sign=True)
                for value in (self.eval_elo, self.eval_elo_low, self.eval_elo_high)
            )
            score = (
                f", {self.eval_score:.0%} vs {self.eval_opponent} (Elo {elo}, 95% [{low}, {high}])"
            )
        if self.previous_score is not None:
            score += f", {self.previous_score:.0%} vs the previous network"
        return (
            f"iteration {self.iteration}: {self.games} games, {self.positions} positions "
            f"({self.positions_per_second:.0f}/s, "
            f"{self.simulations_per_second:.0f} simulations/s), "
            f"loss {self.policy_loss:.3f}+{self.value_loss:.3f}, entropy "
            f"{self.policy_entropy:.2f}{score}"
        )


class Trainer:
    """A training run in ``out_dir`` (resumed when the directory holds one).

    Args:
        game: the game to learn.
        out_dir: where checkpoints, the buffer, metrics and the model go.
        config: the run's settings; ``None`` resumes with the saved ones (or defaults for a
            new run). A resumed run keeps the saved settings, but for ``changes``.
        device: PyTorch device (``None``: a GPU when there is one).
        workers: self-play workers (1: in this process). Workers run on the CPU, one
            PyTorch thread each, with a copy of the network's weights.
        executor: where workers run: ``"pool"`` (processes; the default for more than one
            worker), ``"ray"`` (a Ray cluster, see ``ray_address``) or ``"local"``.
        ray_address: the Ray cluster to join (default: a local instance).
        changes: settings to change (:class:`TrainConfig` field names) when the run resumes,
            saved with it from then on (e.g. a longer learning-rate schedule); for a new run,
            applied to ``config``. :attr:`changed` lists what they changed.

    Raises:
        ModelFileError: ``out_dir`` holds a run for another game or unreadable files.
        InvalidParameterError: a bad setting, or a device this machine does not have.
        RunInUseError: another process is training in ``out_dir``.

    The trainer holds ``out_dir`` (:class:`RunLock`) until :meth:`close`, the end of a
    ``with`` block, or its process's end; trainers of one process may share a directory.
    """

    def __init__(
        self,
        game: Any,
        out_dir: str | os.PathLike[str],
        config: TrainConfig | None = None,
        *,
        device: str | None = None,
        workers: int = 1,
        executor: str | None = None,
        ray_address: str | None = None,
        changes: dict[str, Any] | None = None,
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
        # A bad device or a game without observations fails before the directory is made.
        resolve_device(device)
        GameSignature.of(game)
        self.workers = workers
        if executor not in (None, "local", "pool", "ray"):
            raise InvalidParameterError(f"executor must be local, pool or ray, not {executor!r}")
        self.executor = executor
        self.ray_address = ray_address
        self.game = game
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._lock = RunLock(self.out_dir)  # before anything in the directory is read
        settings = self.out_dir / SETTINGS
        self.changed: dict[str, tuple[Any, Any]] = {}
        """Settings ``changes`` changed on resuming: name -> (saved value, new value)."""
        saved = saved_settings(self.out_dir)
        if saved is not None:
            config = saved.resumed_with(changes or {})
            self.changed = {
                name: (getattr(saved, name), getattr(config, name))
                for name in (changes or {})
                if getattr(saved, name) != getattr(config, name)
            }
            if self.changed:
                _write_atomic(settings, json.dumps(config.to_json(), indent=2))
        elif changes:
            config = (config or TrainConfig()).resumed_with(changes)
        self.config = config or TrainConfig()
        torch.set_num_threads(self.config.threads)
        self.model = Model(game, self.config.architecture, device=device, seed=self.config.seed)
        self.model.metadata = {"c": float(self.config.c)}
        self.optimizer = torch.optim.AdamW(
            self.model.net.parameters(),
            lr=self.config.learning_rate,
            weight_decay=self.config.weight_decay,
        )
        shape = self.model.signature.observation_shape
        self.buffer = ReplayBuffer(self.config.buffer_size, shape, self.model.signature.num_actions)
        self.iteration = 0
        self.elapsed = 0.0
        self.rng = np.random.default_rng(self.config.seed)
        if (self.out_dir / CHECKPOINT).exists():
            self._resume()
        else:
            _write_atomic(settings, json.dumps(self.config.to_json(), indent=2))

    def close(self) -> None:
        """Let go of the run's directory (another process may train there then)."""
        self._lock.release()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------------------- state

    def _resume(self) -> None:
        path = self.out_dir / CHECKPOINT
        data = read_model_file(path)
        loaded = Model.load(path, self.game, device=str(self.model.device))
        self.model.net.load_state_dict(loaded.net.state_dict())
        self.model.weights_changed()
        try:
            self.optimizer.load_state_dict(data["optimizer"])
            self.iteration = int(data["iteration"])
            self.elapsed = float(data.get("elapsed", 0.0))
            self.rng.bit_generator.state = data["rng"]
        except (KeyError, ValueError, TypeError) as error:
            raise ModelFileError(f"{path}: incomplete training checkpoint ({error})") from error
        buffer = self.out_dir / BUFFER
        if buffer.exists():
            self.buffer.load(buffer)
            # A stop between the buffer's file and the checkpoint's leaves the buffer ahead.
            added = data.get("buffer_added")
            if isinstance(added, int) and self.buffer.added > added:
                self.buffer.rewind(self.buffer.added - added)
        self._write_missing_row(data.get("report"))

    def _write_missing_row(self, saved: Any) -> None:
        """The metrics row of the last saved iteration, from its checkpoint, if the run
        stopped before writing it (an interrupt during the evaluation): the training
        figures, with no evaluation."""
        if not isinstance(saved, dict) or saved.get("iteration") != self.iteration:
            return
        try:
            report = IterationReport(**saved)
        except TypeError:  # written by another version of playout
            return
        path = self.out_dir / METRICS
        if path.exists():
            with path.open(newline="") as handle:
                logged = [row.get("iteration") for row in csv.DictReader(handle)]
            if str(self.iteration) in logged:
                return
        self._append_metrics(report)

    def save(self, report: IterationReport | None = None) -> None:
        """Write the checkpoint, the buffer and the model (each atomically). ``report``, the
        iteration's training figures, goes into the checkpoint: a run resumed from it writes
        the iteration's metrics row if ``metrics.csv`` lacks it (an interrupt during the
        evaluation). A Ctrl-C waits until the files are written."""
        with sigint_deferred():
            self._save(report)

    def _save(self, report: IterationReport | None) -> None:
        state = self.model.state()
        state["optimizer"] = self.optimizer.state_dict()
        state["iteration"] = self.iteration
        state["elapsed"] = self.elapsed
        state["rng"] = self.rng.bit_generator.state
        state["buffer_added"] = self.buffer.added
        if report is not None:
            state["report"] = dataclasses.asdict(report)
        self.buffer.save(self.out_dir / BUFFER)
        temporary = self.out_dir / (CHECKPOINT + ".tmp")
        torch.save(state, temporary)
        os.replace(temporary, self.out_dir / CHECKPOINT)
        self.model.save(self.out_dir / MODEL)

    # ----------------------------------------------------------------------------- loop

    def learning_rate(self) -> float:
        """The cosine schedule's rate at the current iteration."""
        config = self.config
        progress = min(1.0, self.iteration / config.schedule_iterations)
        low = config.learning_rate / 10
        return low + (config.learning_rate - low) * 0.5 * (1 + math.cos(math.pi * progress))

    def run(
        self,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        log: Callable[[str], None] | None = print,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> list[IterationReport]:
        """Train for ``iterations`` more iterations or until ``seconds`` have passed (after
        the iteration that crosses it); the reports of the iterations run. Saves after every
        iteration. ``progress(phase, done, total)`` is called during self-play and training.
        """
        if iterations is None and seconds is None:
            raise InvalidParameterError("give iterations or seconds")
        if self._lock.released:
            raise InvalidParameterError("this trainer is closed; make a new one to go on")
        reports = []
        start = time.perf_counter()
        done = 0
        while (iterations is None or done < iterations) and (
            seconds is None or time.perf_counter() - start < seconds
        ):
            report = self.iterate(progress=progress)
            reports.append(report)
            done += 1
            if log is not None:
                log(report.line())
        return reports

    def iterate(self, progress: Callable[[str, int, int], None] | None = None) -> IterationReport:
        """One iteration: self-play, training, checkpoint, evaluation, metrics."""
        config = self.config
        began = time.perf_counter()
        finished = 0

        def on_game(_: Any) -> None:
            nonlocal finished
            finished += 1
            if progress is not None:
                progress("self-play", finished, config.games_per_iteration)

        settings = config.self_play()
        seed = config.seed * 1_000_003 + self.iteration
        simulations = config.simulations
        if self.iteration < config.expert_iterations:
            simulations = config.expert_simulations
            games = expert_games(
                self.game,
                config.games_per_iteration,
                settings,
                simulations=config.expert_simulations,
                seed=seed,
                on_game=on_game,
            )
        elif self.workers > 1 or self.executor not in ("local", None):
            games = parallel_self_play(
                self.model,
                self.game,
                config.games_per_iteration,
                settings,
                workers=self.workers,
                executor=self.executor or "pool",
                ray_address=self.ray_address,
                seed=seed,
                on_game=on_game,
            )
        else:
            evaluator = NetworkEvaluator(self.model)
            games = self_play(
                evaluator,
                self.game,
                config.games_per_iteration,
                settings,
                seed=seed,
                on_game=on_game,
            )
        examples = [e for g in games for e in g.examples]
        self.buffer.add(examples)
        play_seconds = time.perf_counter() - began
        moves = sum(len(g.moves) for g in games)
        trained = time.perf_counter()
        rate = self.learning_rate()
        for group in self.optimizer.param_groups:
            group["lr"] = rate
        previous = {k: v.detach().clone() for k, v in self.model.net.state_dict().items()}
        policy_loss, value_loss, entropy = self._train(progress)
        train_seconds = time.perf_counter() - trained
        self.iteration += 1
        self.elapsed += time.perf_counter() - began
        trained_report = IterationReport(
            iteration=self.iteration,
            games=len(games),
            positions=len(examples),
            buffer=self.buffer.size,
            policy_loss=policy_loss,
            value_loss=value_loss,
            policy_entropy=entropy,
            learning_rate=rate,
            self_play_seconds=play_seconds,
            train_seconds=train_seconds,
            positions_per_second=moves / max(play_seconds, 1e-9),
            simulations_per_second=moves * simulations / max(play_seconds, 1e-9),
            eval_score=None,
            eval_opponent=config.eval_opponent,
            eval_elo=None,
            eval_elo_low=None,
            eval_elo_high=None,
            previous_score=None,
            elapsed_seconds=self.elapsed,
        )
        # Saved with the checkpoint: an interrupt during the evaluation keeps the row.
        self.save(trained_report)
        against = self._evaluate() if config.eval_games else None
        previous_score = (
            self._against_previous(previous) if config.eval_games and config.eval_previous else None
        )
        report = dataclasses.replace(
            trained_report,
            eval_score=None if against is None else against.score,
            eval_elo=None if against is None else against.elo,
            eval_elo_low=None if against is None else against.elo_interval[0],
            eval_elo_high=None if against is None else against.elo_interval[1],
            previous_score=previous_score,
        )
        self._append_metrics(report)
        return report

    def _train(
        self, progress: Callable[[str, int, int], None] | None
    ) -> tuple[float, float, float]:
        """The iteration's gradient steps; mean policy loss, value loss and policy entropy."""
        config = self.config
        net = self.model.net
        device = self.model.device
        net.train()
        totals = np.zeros(3)
        steps = config.steps_per_iteration
        for step in range(steps):
            observations, policies, values = self.buffer.sample(config.batch_size, self.rng)
            x = torch.from_numpy(observations).to(device)
            target_policy = torch.from_numpy(policies).to(device)
            target_value = torch.from_numpy(values).to(device)
            logits, value = net(x)
            log_probs = torch.log_softmax(logits, dim=1)
            policy_loss = -(target_policy * log_probs).sum(dim=1).mean()
            value_loss = ((value - target_value) ** 2).mean()
            loss = policy_loss + value_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            with torch.no_grad():
                entropy = -(log_probs.exp() * log_probs).sum(dim=1).mean()
            totals += (float(policy_loss.detach()), float(value_loss.detach()), float(entropy))
            if progress is not None:
                progress("training", step + 1, steps)
        net.eval()
        self.model.weights_changed()
        return tuple(float(x) for x in totals / steps)  # type: ignore[return-value]

    def _player(self, model: Model, name: str, noise: DirichletNoise | None = None) -> Any:
        from playout.zero.player import ZeroPlayer

        search = ZeroSearch(simulations=self.config.eval_simulations, c=self.config.c, noise=noise)
        return ZeroPlayer(self.game, model, search, name=name)

    def _evaluate(self) -> Any:
        """The match of the network (with search) against ``eval_opponent``, half the games
        as each side (a :class:`~playout.MatchResult`: score, Elo and its interval)."""
        from playout._src.arena import run_match

        config = self.config
        return run_match(
            self.game,
            self._player(self.model, "zero"),
            config.eval_opponent,
            games=config.eval_games,
            seed=config.seed * 7919 + self.iteration,
        )

    def _against_previous(self, weights: dict[str, Any]) -> float:
        """The network's score against itself before this iteration's training. Two
        network players search almost deterministically, so every game would be one of two:
        each pair of games starts from its own random opening (``opening_moves``, at least
        2; the same for both seat orders) and both players get AlphaZero's self-play root
        noise, so that the games differ."""
        from playout._src.arena import run_match

        previous = Model(self.game, self.config.architecture, device="cpu", seed=None)
        previous.net.load_state_dict(weights)
        config = self.config
        result = run_match(
            self.game,
            self._player(self.model, "zero", EVAL_NOISE),
            self._player(previous, "previous", EVAL_NOISE),
            games=config.eval_games,
            seed=config.seed * 7907 + self.iteration,
            openings=max(2, config.opening_moves),
        )
        return float(result.score)

    def _append_metrics(self, report: IterationReport) -> None:
        """Add the iteration's row to ``metrics.csv``. A file written by another version of
        playout (other columns) is rewritten with its rows under the current columns first,
        atomically, so that a resumed run never mixes two headers in one file."""
        path = self.out_dir / METRICS
        row = dataclasses.asdict(report)
        fields = list(row)
        if path.exists():
            with path.open(newline="") as handle:
                reader = csv.DictReader(handle)
                if reader.fieldnames != fields:
                    old = list(reader)
                    temporary = path.with_name(path.name + ".tmp")
                    with temporary.open("w", newline="") as out:
                        writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
                        writer.writeheader()
                        writer.writerows(old)
                    os.replace(temporary, path)
        new = not path.exists()
        with path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            if new:
                writer.writeheader()
            writer.writerow(row)


def _write_atomic(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


LOCK = ".lock"
"""The file in a run's directory that :class:`RunLock` locks."""

_held: dict[str, tuple[Any, int]] = {}
"""The run directories this process holds: resolved path -> (open lock file, holders)."""


class RunLock:
    """This process's hold on a run's directory: an exclusive, non-blocking ``flock`` on
    its :data:`LOCK` file, which records the holder's process id. Holds of one process on
    one directory share the lock (it goes when the last is released). The operating system
    drops it when the process ends, so a crash leaves nothing to clean up. Without
    ``fcntl`` (Windows), or on a file system without locks, nothing is locked (a
    :class:`~playout.PlayoutWarning` says so).

    Raises:
        RunInUseError: another process holds the directory.
    """

    def __init__(self, out_dir: Path) -> None:
        self.key = str(Path(out_dir).resolve())
        self.released = False
        handle, holders = _held.get(self.key, (None, 0))
        if handle is None:
            handle = _lock_file(Path(out_dir))
        _held[self.key] = (handle, holders + 1)

    def release(self) -> None:
        """Let go (once; later calls do nothing)."""
        if self.released:
            return
        self.released = True
        handle, holders = _held.pop(self.key, (None, 0))
        if holders > 1:
            _held[self.key] = (handle, holders - 1)
        elif handle is not None:
            handle.close()  # closing the file drops the lock

    def __del__(self) -> None:
        self.release()


def _lock_file(out_dir: Path) -> Any:
    """The open lock file of ``out_dir``, locked for this process (``None`` where locks
    are missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        warnings.warn(
            "no file locks here: one training run per directory is not enforced",
            PlayoutWarning,
            stacklevel=3,
        )
        return None
    handle = open(out_dir / LOCK, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        who = f" (process {holder})" if holder.isdigit() else ""
        raise RunInUseError(
            f"{out_dir} is in use by another training run{who}; wait for it to end, "
            "stop it, or give another --out"
        ) from None
    except OSError as error:  # a file system without locks (some network mounts)
        handle.close()
        warnings.warn(
            f"cannot lock {out_dir / LOCK} ({error.strerror}): one training run per "
            "directory is not enforced there",
            PlayoutWarning,
            stacklevel=3,
        )
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle
