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

import dataclasses
import math
import numbers
import os
import time
import warnings
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from playout._src.arena.specs import check_player_spec, parse_player
from playout._src.config import DirichletNoise, Gumbel
from playout._src.errors import (
    InvalidParameterError,
    ModelFileError,
    PlayoutError,
    PlayoutWarning,
    RunError,
    RunInUseError,
)
from playout._src.files import write_atomic
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
from playout.zero.rundir import (
    BUFFER,
    CHECKPOINT,
    GAME_KEY,
    METRICS,
    MODEL,
    RESTORE_SETTINGS,
    SETTINGS,
    START_ANEW,
    MetricsCheck,
    append_metrics_row,
    check_metrics,
    missing_settings,
    read_settings,
    repair_metrics,
    write_or_fail,
    write_settings,
)
from playout.zero.selfplay import (
    Example,
    PlayoutCap,
    SelfPlayGame,
    SelfPlaySettings,
    ZeroSearch,
    expert_games,
    parallel_self_play,
    self_play,
    stack_examples,
)

REPLY_WEIGHT = 0.15
"""The weight of the auxiliary reply head's loss beside the policy's (KataGo's opponent
policy weight, Wu 2019 section 4.1)."""

EVAL_NOISE = DirichletNoise(alpha=1.0, fraction=0.25)
"""Root noise of both players when the network plays its previous self."""


class SettingError(InvalidParameterError):
    """A training setting (a :class:`TrainConfig` field) with a bad value.

    Attributes:
        setting: the field's name.
        problem: what is wrong, a phrase that follows the name ("must be >= 1, got 0").
        saved: the ``settings.json`` that holds the value, when it came from a saved run
            rather than from the caller.
    """

    def __init__(self, setting: str, problem: str, saved: Path | None = None) -> None:
        self.setting = setting
        self.problem = problem
        self.saved = saved
        super().__init__(self.text(setting))

    def text(self, name: str) -> str:
        """The message, with the setting called ``name`` (a command-line option, say)."""
        if self.saved is None:
            return f"{name} {self.problem}"
        return f"{self.saved}: the run's saved {name} {self.problem}; give {name} anew to change it"


_LOWEST = {
    "games_per_iteration": 1, "simulations": 1, "leaf_batch": 1, "parallel_games": 1,
    "temperature_moves": 0, "opening_moves": 0, "expert_iterations": 0,
    "expert_simulations": 1, "gumbel": 0, "buffer_size": 1, "batch_size": 1,
    "steps_per_iteration": 1, "schedule_iterations": 1, "eval_games": 0,
    "eval_simulations": 1, "seed": 0, "threads": 1, "benchmark_positions": 0,
    "benchmark_simulations": 1, "fast_simulations": 1,
}  # fmt: skip
"""The smallest value of each whole-number setting."""

_HIGHEST = {
    "games_per_iteration": 10**6, "simulations": 10**6, "leaf_batch": 1024,
    "parallel_games": 65_536, "temperature_moves": 10**6, "opening_moves": 10**6,
    "expert_iterations": 10**6, "expert_simulations": 10**7, "gumbel": 4096,
    "buffer_size": 10**7, "batch_size": 65_536, "steps_per_iteration": 10**6,
    "schedule_iterations": 10**9, "eval_games": 10**5, "eval_simulations": 10**7,
    "threads": 256, "benchmark_positions": 10**6, "benchmark_simulations": 10**6,
    "fast_simulations": 10**6,
}  # fmt: skip
"""The largest value of each whole-number setting but the seed (:data:`MAX_SEED`): far past
any run's, and small enough that a typo cannot ask for a buffer of terabytes or a million
threads."""

MAX_SEED = 2**63 - 1
"""The largest seed (PyTorch's generators take 64-bit seeds)."""

_RANGES = {
    "value_mix": (0.0, 1.0, "in [0, 1]"),
    "dirichlet_alpha": (0.0, math.inf, "> 0"),
    "dirichlet_fraction": (0.0, 1.0, "in [0, 1]"),
    "c": (0.0, math.inf, "> 0"),
    "full_search_fraction": (0.0, 1.0, "in (0, 1]"),
    "forced_playouts": (0.0, math.inf, ">= 0"),
    "learning_rate": (0.0, math.inf, "> 0"),
    "weight_decay": (0.0, math.inf, ">= 0"),
    "schedule_hours": (0.0, math.inf, ">= 0"),
    "random_move_rate": (0.0, 1.0, "in [0, 1]"),
    "fork_rate": (0.0, 1.0, "in [0, 1]"),
}
"""Each number setting's bounds (exclusive where the phrase says ``>``)."""


def _check_setting(name: str, kind: str, value: Any) -> None:
    """Refuse ``value`` for the :class:`TrainConfig` field ``name`` of type ``kind``."""
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise SettingError(name, f"must be a whole number, got {value!r}")
        if value < _LOWEST[name]:
            raise SettingError(name, f"must be >= {_LOWEST[name]}, got {value}")
        if name in _HIGHEST and int(value) > _HIGHEST[name]:
            raise SettingError(name, f"must be <= {_HIGHEST[name]:,}, got {value}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise SettingError(name, f"must be a number, got {value!r}")
        low, high, phrase = _RANGES[name]
        try:
            number = float(value)
        except OverflowError:  # a whole number past any float
            number = math.inf
        inside = low <= number <= high if phrase.startswith(("in [", ">=")) else low < number
        if phrase.startswith("in ("):
            inside = low < number <= high
        if not (math.isfinite(number) and inside):
            raise SettingError(name, f"must be a finite number {phrase}, got {value!r}")
    elif kind == "bool" and not isinstance(value, bool):
        raise SettingError(name, f"must be true or false, got {value!r}")
    elif kind == "str" and not isinstance(value, str):
        what = "a model file's name" if name == "init_model" else "a player spec"
        raise SettingError(name, f"must be {what} (a string), got {value!r}")
    elif kind == "Architecture" and not isinstance(value, Architecture):
        raise SettingError(name, f"must be an Architecture, got {value!r}")


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
            target (see :func:`~playout.zero.selfplay.self_play`). 0.5 by default, with
            ``opening_moves`` 4: on connect four the two together made a fifth to a quarter
            fewer value-losing moves after an hour of training than AlphaZero's pure outcome
            from the empty board, with two seeds (``docs/how-to/zero-benchmark.md``); 0 and 0
            give that plain recipe.
        opening_moves: self-play games start after up to this many random moves (the
            network meets positions its own play would not reach).
        random_move_rate: after the opening, each self-play move is a uniformly random one
            with this probability (see :class:`~playout.zero.selfplay.SelfPlaySettings`);
            0 (the default): none.
        fork_rate: after each fully searched self-play move, a side game is forked with
            this probability from the position another move would have made (drawn mostly
            from the network's policy, as KataGo draws it), and
            played out too, on top of the iteration's games (KataGo's side positions; see
            :class:`~playout.zero.selfplay.SelfPlaySettings`); 0 (the default): none.
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
        full_search_fraction: KataGo's playout cap randomisation (Wu 2019; see
            :class:`~playout.zero.PlayoutCap`): each self-play move gets the full search of
            ``simulations`` with this probability, else a fast one of ``fast_simulations``,
            and only full-search positions are recorded. 1 (the default): off. PUCT only.
        fast_simulations: the fast search's simulations.
        forced_playouts: KataGo's forced playouts with policy-target pruning (Wu 2019,
            section 3.2; :mod:`playout._src.forced`) in self-play with this ``k`` (Wu's 2),
            or 0 (the default): none. PUCT only.
        buffer_size: positions kept in the replay buffer (the newest).
        batch_size: positions per gradient step.
        steps_per_iteration: gradient steps per iteration.
        learning_rate: Adam's step size at the start; it follows a cosine schedule down to a
            tenth over ``schedule_iterations`` (or ``schedule_hours``), then stays there.
        schedule_iterations: iterations of the learning-rate schedule.
        schedule_hours: if above 0, the schedule follows the run's training time instead
            (``elapsed_seconds``: self-play and learning, not the evaluation) over this many
            hours, and ``schedule_iterations`` is not used: a run's rate then depends on how
            long it has trained, not on how many iterations its machine and pipeline made
            in that time (the asynchronous pipeline makes about twice the iterations of
            the synchronous loop an hour, and reached the floor of a 100-iteration
            schedule at 13 minutes). ``playout train --hours H`` sets it to ``H`` for a
            new run that names no schedule (the run's evaluation and benchmark time count
            toward ``--hours`` but not here: such a run stops a little before the floor).
        weight_decay: L2 penalty (AdamW's decoupled weight decay).
        architecture: the network's size.
        eval_games: games against rollout MCTS after each iteration (0: none).
        eval_simulations: the network player's simulations in evaluation games.
        eval_opponent: the opponent's player spec.
        eval_previous: also play ``eval_games`` against the network as it was before the
            iteration's training.
        benchmark_positions: after each iteration, the network's value-losing moves on this
            many of the game's solver-labelled positions
            (:func:`playout.zero.benchmark.benchmark_positions`, spread evenly over stages
            and plays), by the policy alone and with a search of ``benchmark_simulations``
            (PUCT with ``c``), in ``metrics.csv``; 0, or a game without labelled
            positions: none.
        benchmark_simulations: that search's simulations.
        seed: seeds weights, self-play and sampling.
        init_model: a model file (:meth:`Model.save`, a shipped network) whose weights a
            new run starts from instead of random ones: fine-tuning, or a run that goes on
            from another's network without its buffer (the optimizer and the learning-rate
            schedule start anew). The run's architecture must be the file's: a
            :class:`Trainer` given ``changes`` that name no architecture (the command line's
            ``--init``) takes the file's; a whole ``config`` must state it. "" (the
            default): random weights.
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
    value_mix: float = 0.5
    opening_moves: int = 4
    random_move_rate: float = 0.0
    fork_rate: float = 0.0
    expert_iterations: int = 0
    expert_simulations: int = 2000
    dirichlet_alpha: float = 1.0
    dirichlet_fraction: float = 0.25
    c: float = 2.0
    gumbel: int = 0
    full_search_fraction: float = 1.0
    fast_simulations: int = 25
    forced_playouts: float = 0.0
    buffer_size: int = 100_000
    batch_size: int = 256
    steps_per_iteration: int = 100
    learning_rate: float = 2e-3
    schedule_iterations: int = 100
    schedule_hours: float = 0.0
    weight_decay: float = 1e-4
    architecture: Architecture = dataclasses.field(default_factory=Architecture)
    eval_games: int = 20
    eval_simulations: int = 100
    eval_opponent: str = "mcts:simulations=1000"
    eval_previous: bool = True
    benchmark_positions: int = 200
    benchmark_simulations: int = 50
    seed: int = 0
    threads: int = 1
    init_model: str = ""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            _check_setting(field.name, str(field.type), value)
            if field.type in ("int", "float"):  # numpy's numbers as Python's (for the JSON)
                number = int(value) if field.type == "int" else float(value)
                object.__setattr__(self, field.name, number)
        if self.seed > MAX_SEED:
            raise SettingError("seed", f"must be <= {MAX_SEED}, got {self.seed}")
        try:
            check_player_spec(self.eval_opponent)
        except InvalidParameterError as error:
            raise SettingError("eval_opponent", f"{self.eval_opponent!r}: {error}") from None
        if self.forced_playouts and self.gumbel:
            raise SettingError(
                "forced_playouts",
                "needs PUCT self-play (gumbel 0): a Gumbel search has its own root rule",
            )
        if self.full_search_fraction < 1.0 and self.gumbel:
            raise SettingError(
                "full_search_fraction",
                "needs PUCT self-play (gumbel 0): a Gumbel search "
                "divides a budget fixed in advance",
            )
        self.self_play()  # the self-play settings' own checks

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
            random_move_rate=self.random_move_rate,
            fork_rate=self.fork_rate,
            value_mix=self.value_mix,
            playout_cap=(
                PlayoutCap(self.full_search_fraction, self.fast_simulations)
                if self.full_search_fraction < 1.0
                else None
            ),
            forced_playouts=self.forced_playouts,
            reply_targets=self.architecture.reply_head,
        )

    @property
    def simulations_per_move(self) -> float:
        """The self-play search's simulations per searched move, in expectation: with the
        playout cap a full search's on ``full_search_fraction`` of the moves, a fast one's
        on the others."""
        full = float(self.simulations)
        if self.full_search_fraction >= 1.0:
            return full
        fast = float(min(self.simulations, self.fast_simulations))
        return self.full_search_fraction * full + (1.0 - self.full_search_fraction) * fast

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def resumed_with(self, changes: Mapping[str, Any]) -> TrainConfig:
        """These settings with ``changes`` for a run that goes on (checked like new ones).
        ``changes["architecture"]`` may be a mapping of the :class:`Architecture` fields to
        change.

        Raises:
            InvalidParameterError: a setting a run cannot change once started (its network's
                size, the replay buffer's size, the seed, the Expert Iteration warm start),
                or an unknown one.
        """
        values = _changed(_values(self), changes)
        _refuse_fixed_changes(_values(self), values, changes)
        return TrainConfig(**values)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrainConfig:
        """The settings :meth:`to_json` wrote (fields it lacks at their defaults).

        Raises:
            InvalidParameterError: an unknown field, or a bad value.
        """
        return cls(**_values_from_json(data))


def _values_from_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """:class:`TrainConfig`'s keyword arguments from its JSON form, unchecked but for the
    names and the architecture."""
    names = {field.name for field in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise InvalidParameterError(f"unknown training setting(s) {', '.join(unknown)}")
    values = dict(data)
    if "architecture" in values:
        architecture = values["architecture"]
        if not isinstance(architecture, Mapping):
            raise SettingError("architecture", f"must be an object, got {architecture!r}")
        try:
            values["architecture"] = Architecture(**architecture)
        except (TypeError, InvalidParameterError) as error:
            raise SettingError("architecture", f"is bad: {error}") from None
    return values


def _load_initial(path: str, game: Any) -> Model:
    """The network of the model file ``path`` (made for ``game``), for ``init_model``.

    Raises:
        SettingError: (``init_model``) the file is missing, unreadable, not a playout model
            or made for another game.
    """
    try:
        return Model.load(path, game)
    except ModelFileError as error:
        raise SettingError("init_model", str(error)) from None


def _size(architecture: Architecture) -> str:
    """An architecture in words: ``64x4 (value head 64)`` (channels x blocks), its heads."""
    a = architecture
    text = f"{a.channels}x{a.blocks} (value head {a.value_hidden}"
    return text + (", reply head)" if a.reply_head else ")")


def _values(config: TrainConfig) -> dict[str, Any]:
    """``config``'s keyword arguments (the architecture as itself, not a dictionary)."""
    return dataclasses.asdict(config) | {"architecture": config.architecture}


def _refuse_fixed_changes(
    saved: Mapping[str, Any], values: Mapping[str, Any], changes: Mapping[str, Any]
) -> None:
    """Refuse ``changes`` that make ``values`` differ from ``saved`` in a setting a run
    keeps (:data:`FIXED_SETTINGS`).

    Raises:
        SettingError: naming the first such setting.
    """
    for name in changes:
        if name in FIXED_SETTINGS and values[name] != saved[name]:
            raise SettingError(
                name,
                f"cannot change once a run has started (it is {saved[name]!r}); start a new "
                "run in another directory",
            )


def _changed(values: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (:class:`TrainConfig` keyword arguments) with ``changes``; a mapping under
    ``architecture`` changes only the fields it names."""
    names = {field.name for field in dataclasses.fields(TrainConfig)}
    for name in changes:
        if name not in names:
            raise InvalidParameterError(f"unknown training setting {name!r}")
    base = values.get("architecture") or Architecture()
    values = values | dict(changes)
    architecture = changes.get("architecture")
    if isinstance(architecture, Mapping):
        try:
            values["architecture"] = dataclasses.replace(base, **architecture)
        except (TypeError, InvalidParameterError) as error:
            raise SettingError("architecture", f"is bad: {error}") from None
    return values


FIXED_SETTINGS = frozenset(
    {
        "architecture", "buffer_size", "seed", "expert_iterations", "expert_simulations",
        "init_model",
    }
)  # fmt: skip
"""Settings a run keeps from its start (the weights, the buffer's arrays and the random
streams depend on them); :meth:`TrainConfig.resumed_with` may change the others."""


def saved_settings(out_dir: str | os.PathLike[str]) -> TrainConfig | None:
    """The settings of the run in ``out_dir``, or ``None`` when it holds none.

    Raises:
        RunError: an unreadable settings file.
        SettingError: a bad value in it (:attr:`SettingError.saved` names the file).
    """
    path = Path(out_dir) / SETTINGS
    data = read_settings(Path(out_dir))
    if data is None:
        return None
    data.pop(GAME_KEY, None)
    try:
        return TrainConfig.from_json(data)
    except SettingError as error:
        raise SettingError(error.setting, error.problem, saved=path) from None
    except InvalidParameterError as error:
        raise RunError(f"{path}: unreadable settings ({error}); {RESTORE_SETTINGS}") from None


def _resumed_config(
    data: dict[str, Any], changes: Mapping[str, Any], path: Path
) -> tuple[TrainConfig, dict[str, tuple[Any, Any]]]:
    """The settings saved in ``data`` (``settings.json`` at ``path``) with ``changes``, and
    what the changes changed (name -> (saved value, new value)).

    A bad saved value that ``changes`` replaces is no error: an old run's bad setting can
    be given anew.

    Raises:
        SettingError: a bad value given, or a bad saved one not given anew
            (:attr:`SettingError.saved`), or a change to a setting a run keeps.
        RunError: an unreadable file (an unknown setting).
    """
    try:
        saved = _values_from_json(data)
    except SettingError as error:
        if error.setting not in changes:
            raise SettingError(error.setting, error.problem, saved=path) from None
        saved = _values_from_json({k: v for k, v in data.items() if k != error.setting})
    except InvalidParameterError as error:
        raise RunError(f"{path}: unreadable settings ({error}); {RESTORE_SETTINGS}") from None
    saved = _values(TrainConfig()) | saved
    values = _changed(saved, changes)
    _refuse_fixed_changes(saved, values, changes)
    try:
        config = TrainConfig(**values)
    except SettingError as error:
        if error.setting in changes:
            raise
        raise SettingError(error.setting, error.problem, saved=path) from None
    changed = {name: (saved[name], values[name]) for name in changes if saved[name] != values[name]}
    return config, changed


class ReplayBuffer:
    """The newest ``capacity`` training positions, as arrays (a ring)."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int):
        self.capacity = capacity
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.float32)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.replies = np.zeros((capacity, num_actions), dtype=np.float32)
        """Reply targets (a zero row: none; see :class:`~playout.zero.Example`)."""
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
            reply = examples[i].reply
            self.replies[self.next] = 0.0 if reply is None else reply
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
        return self.sample_with_replies(batch_size, rng)[:3]

    def sample_with_replies(
        self, batch_size: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`sample` with the rows' reply targets (zero rows: none)."""
        rows = rng.integers(0, self.size, size=min(batch_size, self.size))
        return self.observations[rows], self.policies[rows], self.values[rows], self.replies[rows]

    def save(self, path: Path) -> None:
        """Write the buffer to ``path`` (``.npz``) atomically.

        Raises:
            OSError: it cannot be written; ``path`` is as it was.
        """

        def write(stream: Any) -> None:
            np.savez_compressed(
                stream,
                observations=self.observations[: self.size],
                policies=self.policies[: self.size],
                values=self.values[: self.size],
                replies=self.replies[: self.size],
                meta=np.array([self.next, self.added], dtype=np.int64),
            )

        write_atomic(path, write)

    def load(self, path: Path) -> None:
        """Read the buffer :meth:`save` wrote, checked against this buffer's shapes.

        Raises:
            RunError: the file is damaged or made for another run; the message names it.
        """
        advice = f"delete it to resume from {CHECKPOINT} with an empty replay buffer, {START_ANEW}"
        try:
            with np.load(path, allow_pickle=False) as data:
                observations, policies = data["observations"], data["policies"]
                values, meta = data["values"], data["meta"]
                size = int(values.shape[0])
                if (
                    size > self.capacity
                    or observations.shape != (size, *self.observations.shape[1:])
                    or policies.shape != (size, *self.policies.shape[1:])
                    or values.shape != (size,)
                    or meta.shape != (2,)
                ):
                    raise RunError(
                        f"{path}: the replay buffer does not fit this run (another game or "
                        f"buffer size); {advice}"
                    )
                self.observations[:size] = observations
                self.policies[:size] = policies
                self.values[:size] = values
                # A buffer saved before reply targets existed has none: zero rows.
                replies = data["replies"] if "replies" in data.files else None
                if replies is not None and replies.shape != policies.shape:
                    raise RunError(
                        f"{path}: the replay buffer's reply targets do not fit; {advice}"
                    )
                self.replies[:size] = 0.0 if replies is None else replies
                next_row, added = (int(x) for x in meta)
        except RunError:
            raise
        except (OSError, EOFError, KeyError, ValueError, TypeError, zipfile.BadZipFile) as error:
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise RunError(f"{path}: damaged replay buffer ({detail}); {advice}") from error
        if added < size or not 0 <= next_row < max(self.capacity, 1):
            raise RunError(f"{path}: damaged replay buffer (bad counters); {advice}")
        self.size, self.next, self.added = size, next_row % self.capacity, added


@dataclasses.dataclass(frozen=True)
class IterationReport:
    """What one iteration did (a row of ``metrics.csv``).

    ``positions`` counts the training positions the iteration added to the replay buffer
    (every position played and its symmetric images), ``positions_per_second`` the same
    count per second of self-play, ``simulations_per_second`` the search simulations (one
    search per move played, :attr:`TrainConfig.simulations_per_move` each) per second of
    self-play; ``buffer`` is the buffer's size after. With the playout cap, positions are
    those of the full searches only.

    Time per phase, in seconds: ``self_play_seconds`` (the synchronous loop: playing the
    iteration's games; the asynchronous pipeline, :mod:`playout.zero.pipeline`: the actors'
    playing time of the games that arrived, per actor), ``train_seconds`` (gradient steps),
    ``eval_seconds`` (evaluation games), ``wait_seconds`` (the asynchronous learner waiting
    for games; 0 in the synchronous loop, where self-play is the wait).

    ``elapsed_seconds`` is the run's wall-clock seconds of self-play and training so far
    (evaluation and benchmark excluded), ``total_positions`` the training positions it has
    added so far. ``benchmark_policy`` and ``benchmark_search`` are the shares (0 to 1) of
    value-losing moves on the labelled positions (``TrainConfig.benchmark_positions``) of the
    policy alone and of the search, ``None`` with no benchmark; ``benchmark_seconds`` what
    measuring them took.
    """

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
    total_positions: int = 0
    benchmark_policy: float | None = None
    benchmark_search: float | None = None
    benchmark_seconds: float = 0.0
    eval_seconds: float = 0.0
    wait_seconds: float = 0.0

    def phases(self) -> str:
        """The iteration's time per phase, in seconds (``self-play 12.0 s, learning 3.1 s,
        evaluation 20.4 s, waiting 0.0 s``)."""
        return (
            f"self-play {self.self_play_seconds:.1f} s, learning {self.train_seconds:.1f} s, "
            f"evaluation {self.eval_seconds:.1f} s, waiting {self.wait_seconds:.1f} s"
        )

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
        if self.benchmark_policy is not None and self.benchmark_search is not None:
            score += (
                f", value-losing moves {self.benchmark_policy:.1%} (policy), "
                f"{self.benchmark_search:.1%} (search)"
            )
        return (
            f"iteration {self.iteration}: {self.games} games, {self.positions} positions "
            f"({self.positions_per_second:.0f}/s, "
            f"{self.simulations_per_second:.0f} simulations/s), "
            f"loss {self.policy_loss:.3f}+{self.value_loss:.3f}, entropy "
            f"{self.policy_entropy:.2f}{score}; {self.phases()}"
        )


SNAPSHOTS = "models"
"""The folder of a run's kept networks (``Trainer(..., keep_models=True)``)."""


def snapshot_path(out_dir: str | os.PathLike[str], iteration: int) -> Path:
    """The network a run in ``out_dir`` kept after ``iteration`` (``keep_models``):
    ``out_dir/models/iteration-0012.pt``, a model file like ``model.pt``."""
    return Path(out_dir) / SNAPSHOTS / f"iteration-{iteration:04d}.pt"


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
        keep_models: also keep each iteration's network, as
            ``out_dir/models/iteration-NNNN.pt`` (:func:`snapshot_path`), beside ``model.pt``
            (the latest): to pick the best of a run afterwards.

    Raises:
        RunError: ``out_dir`` holds a run of another game (or of the same game with other
            rules, e.g. another ``k``), or a file of its run is damaged, missing or from
            another run; the message names the file and what to do. Nothing in the
            directory is written then.
        SettingError: a bad setting (an :class:`~playout.InvalidParameterError` naming it),
            ``eval_opponent`` included: checked against the game, even with no evaluation
            games.
        InvalidParameterError: a device this machine does not have, a bad ``workers`` or
            ``executor``.
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
        keep_models: bool = False,
    ) -> None:
        if not isinstance(keep_models, bool):
            raise InvalidParameterError(f"keep_models must be True or False, got {keep_models!r}")
        self.keep_models = keep_models
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
        # A bad device or a game without observations fails before the directory is made.
        resolve_device(device)
        self.signature = GameSignature.of(game)
        """The game the run trains (its name, rules, observations and actions)."""
        self.workers = workers
        if executor not in (None, "local", "pool", "ray"):
            raise InvalidParameterError(f"executor must be local, pool or ray, not {executor!r}")
        if executor == "ray":
            from playout._src.optional import import_optional

            import_optional("ray", extra="ray", needed_by="executor='ray'")
        self.executor = executor
        self.ray_address = ray_address
        self.game = game
        self.out_dir = Path(out_dir)
        self.changed: dict[str, tuple[Any, Any]] = {}
        """Settings ``changes`` changed on resuming: name -> (saved value, new value)."""
        self.resumed = False
        """Whether ``out_dir`` held a run, which this trainer goes on with."""
        if not self.out_dir.exists():  # bad settings fail before the directory is made
            new = self._new_config(config, changes)
            self._check_opponent(new)
            self._initial_model(new)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._lock = RunLock(self.out_dir)  # before anything in the directory is read
        try:
            self._open(config, changes, device)
        except BaseException:
            self._lock.release()
            raise

    def _open(
        self, config: TrainConfig | None, changes: dict[str, Any] | None, device: str | None
    ) -> None:
        """Read the run in the directory, or begin one: every file is read and checked
        before any is written (a failed resume changes nothing)."""
        data = read_settings(self.out_dir)
        recorded = None if data is None else data.pop(GAME_KEY, None)
        if data is None:
            missing = missing_settings(self.out_dir)
            if missing is not None:
                raise missing
            self.config = self._new_config(config, changes)
        else:
            self._check_game(recorded)
            self.config, self.changed = _resumed_config(
                data, changes or {}, self.out_dir / SETTINGS
            )
            self.resumed = True
        self._check_opponent(self.config)
        torch.set_num_threads(self.config.threads)
        self.model = Model(
            self.game, self.config.architecture, device=device, seed=self.config.seed
        )
        self.model.metadata = {"c": float(self.config.c)}
        source = None if (self.out_dir / CHECKPOINT).exists() else self._initial_model(self.config)
        if source is not None:  # a new run that starts from a model file's weights
            self.model.net.load_state_dict(source.net.state_dict())
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
        self.pipeline_state: dict[str, Any] = {}
        """What the asynchronous pipeline (:mod:`playout.zero.pipeline`) keeps in the
        checkpoint (its game journal's position)."""
        saved_report: Any = None
        metrics = MetricsCheck()
        if (self.out_dir / CHECKPOINT).exists():
            saved_report = self._resume()
            metrics = check_metrics(self.out_dir / METRICS, _METRICS_FIELDS)
        elif data is not None and check_metrics(self.out_dir / METRICS, _METRICS_FIELDS).logged:
            raise RunError(
                f"{self.out_dir / CHECKPOINT}: missing, but {self.out_dir / METRICS} records "
                f"iterations of a run; restore the run's {CHECKPOINT} to resume, {START_ANEW}"
            )
        # Everything read: now the writes. A run begun before playout recorded its game
        # stays without a record (its checkpoint's game, shapes and actions were checked):
        # this game's could be the wrong one.
        if data is None or self.changed:
            game = self.signature.to_json() if data is None or recorded is not None else None
            write_settings(self.out_dir, self.config.to_json(), game)
        repair_metrics(self.out_dir / METRICS, metrics)
        self._write_missing_row(saved_report, metrics)

    def _new_config(
        self, config: TrainConfig | None, changes: Mapping[str, Any] | None
    ) -> TrainConfig:
        """The settings of a new run: ``config`` (default :class:`TrainConfig`) with
        ``changes``."""
        config = config or TrainConfig()
        if not changes:
            return config
        values = _values(config)
        init_model = changes.get("init_model")
        if isinstance(init_model, str) and init_model:  # the file's size, unless changed
            values["architecture"] = _load_initial(init_model, self.game).architecture
        return TrainConfig(**_changed(values, changes))

    def _initial_model(self, config: TrainConfig) -> Model | None:
        """The network of ``config.init_model``, checked against the run's game and size
        (``None`` when the run starts from random weights).

        Raises:
            SettingError: (``init_model``) the file is not a model for this game, or its
                network's size is not the run's.
        """
        if not config.init_model:
            return None
        source = _load_initial(config.init_model, self.game)
        if source.architecture != config.architecture:
            raise SettingError(
                "init_model",
                f"{config.init_model} holds a {_size(source.architecture)} network, the "
                f"run's is {_size(config.architecture)}",
            )
        return source

    def _check_game(self, recorded: Any) -> None:
        """Refuse a run made for another game, or the same game with other rules.

        Raises:
            RunError: naming ``settings.json`` and both games.
        """
        if recorded is None:  # a run begun before playout recorded the game
            return
        path = self.out_dir / SETTINGS
        try:
            found = GameSignature.from_json(recorded)
        except ValueError as error:
            raise RunError(
                f"{path}: unreadable game record ({error}); {RESTORE_SETTINGS}"
            ) from None
        if not found.fits(self.signature):
            raise RunError(
                f"{path}: the run in {self.out_dir} trains {found}, not {self.signature}: "
                "give the run's game and parameters to resume it, or another directory for "
                "a new run"
            )

    def _check_opponent(self, config: TrainConfig) -> None:
        """Build the evaluation opponent now, against the game, not after an iteration.

        Raises:
            SettingError: ``eval_opponent`` cannot play the game (e.g. ``perfect`` on a large
                board, ``zero:model=`` of another game).
        """
        try:
            parse_player(config.eval_opponent, self.game)
        except PlayoutError as error:
            raise SettingError("eval_opponent", f"{config.eval_opponent!r}: {error}") from None

    def close(self) -> None:
        """Let go of the run's directory (another process may train there then)."""
        self._lock.release()

    def __enter__(self) -> Trainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------------------- state

    def _resume(self) -> Any:
        """Load the checkpoint and the replay buffer; the report saved with the checkpoint.

        Raises:
            RunError: a damaged checkpoint or buffer, or one of another run.
        """
        path = self.out_dir / CHECKPOINT
        how = f"the run cannot resume from it: restore the run's {CHECKPOINT}, {START_ANEW}"
        try:
            data = read_model_file(path)
            architecture = data["architecture"]
            # A checkpoint saved before a field existed lacks it: compare with defaults.
            full = architecture
            if isinstance(architecture, dict):
                full = dataclasses.asdict(Architecture()) | architecture
            if full != dataclasses.asdict(self.config.architecture):
                raise RunError(
                    f"{path}: a network of {_architecture_text(architecture)}, but the run's "
                    f"{SETTINGS} says {_architecture_text(self.config.architecture)}: the "
                    f"directory mixes two runs' files; restore the run's own {CHECKPOINT}, "
                    f"{START_ANEW}"
                )
            loaded = Model.load(path, self.game, device=str(self.model.device))
            self.model.net.load_state_dict(loaded.net.state_dict())
        except RunError:
            raise
        except (ModelFileError, RuntimeError) as error:
            detail = str(error).splitlines()[0]
            raise RunError(f"{detail}; {how}") from error
        self.model.weights_changed()
        try:
            self.optimizer.load_state_dict(data["optimizer"])
            for group in self.optimizer.param_groups:  # the saved groups carry the old one
                group["weight_decay"] = self.config.weight_decay
            self.iteration = int(data["iteration"])
            self.elapsed = float(data.get("elapsed", 0.0))
            self.rng.bit_generator.state = data["rng"]
            self.pipeline_state = dict(data.get("pipeline") or {})
        except (KeyError, ValueError, TypeError, RuntimeError) as error:
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise RunError(f"{path}: incomplete training checkpoint ({detail}); {how}") from error
        buffer = self.out_dir / BUFFER
        if buffer.exists():
            self.buffer.load(buffer)
            # A stop between the buffer's file and the checkpoint's leaves the buffer ahead.
            added = data.get("buffer_added")
            if isinstance(added, int) and self.buffer.added > added:
                self.buffer.rewind(self.buffer.added - added)
        return data.get("report")

    def _write_missing_row(self, saved: Any, metrics: MetricsCheck) -> None:
        """The metrics row of the last saved iteration, from its checkpoint, if the run
        stopped before writing it (an interrupt during the evaluation, a full disk): the
        training figures, with no evaluation."""
        if not isinstance(saved, dict) or saved.get("iteration") != self.iteration:
            return
        try:
            report = IterationReport(**saved)
        except TypeError:  # written by another version of playout
            return
        if str(self.iteration) not in metrics.logged:
            self._append_metrics(report)

    def save(self, report: IterationReport | None = None) -> None:
        """Write the checkpoint, the buffer and the model (each atomically). ``report``, the
        iteration's training figures, goes into the checkpoint: a run resumed from it writes
        the iteration's metrics row if ``metrics.csv`` lacks it (an interrupt during the
        evaluation). A Ctrl-C waits until the files are written.

        Raises:
            RunError: a file cannot be written (a full disk); the message names it. The
                files written before stay as they were: the run resumes from the last
                iteration saved whole.
        """
        with sigint_deferred():
            self._save(report)

    def _save(self, report: IterationReport | None) -> None:
        state = self.model.state()
        state["optimizer"] = self.optimizer.state_dict()
        state["iteration"] = self.iteration
        state["elapsed"] = self.elapsed
        state["rng"] = self.rng.bit_generator.state
        state["buffer_added"] = self.buffer.added
        state["pipeline"] = dict(self.pipeline_state)
        if report is not None:
            state["report"] = dataclasses.asdict(report)
        # The buffer first: a buffer ahead of its checkpoint is rewound on resuming.
        kept = f"after iteration {self.iteration - 1}" if report is not None else ""
        write_or_fail(self.out_dir / BUFFER, self.buffer.save, kept)
        write_or_fail(
            self.out_dir / CHECKPOINT,
            lambda path: write_atomic(path, lambda stream: torch.save(state, stream)),
            kept,
        )
        write_or_fail(self.out_dir / MODEL, self.model.save, f"after iteration {self.iteration}")
        if self.keep_models and report is not None:
            snapshot = snapshot_path(self.out_dir, self.iteration)
            snapshot.parent.mkdir(exist_ok=True)
            write_or_fail(snapshot, self.model.save, f"after iteration {self.iteration}")

    # ----------------------------------------------------------------------------- loop

    def learning_rate(self) -> float:
        """The cosine schedule's rate now: at the current iteration, or at the run's
        training seconds so far where the schedule is in hours."""
        config = self.config
        if config.schedule_hours > 0:
            progress = min(1.0, self.elapsed / (config.schedule_hours * 3600.0))
        else:
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

        def on_game(record: SelfPlayGame) -> None:
            nonlocal finished
            finished += not record.side  # side games come on top of the iteration's
            if progress is not None:
                progress("self-play", finished, config.games_per_iteration)

        settings = config.self_play()
        seed = config.seed * 1_000_003 + self.iteration
        simulations = config.simulations_per_move
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
        moves = sum(g.searched for g in games)  # the random openings' moves searched nothing
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
            positions_per_second=len(examples) / max(play_seconds, 1e-9),
            simulations_per_second=moves * simulations / max(play_seconds, 1e-9),
            eval_score=None,
            eval_opponent=config.eval_opponent,
            eval_elo=None,
            eval_elo_low=None,
            eval_elo_high=None,
            previous_score=None,
            elapsed_seconds=self.elapsed,
            total_positions=self.buffer.added,
        )
        return self.finish_iteration(trained_report, previous)

    def finish_iteration(
        self, trained_report: IterationReport, previous: dict[str, Any]
    ) -> IterationReport:
        """The end of an iteration whose training is done (``self.iteration`` counts it):
        the checkpoint (with ``trained_report``, the training figures), the evaluation
        (against ``eval_opponent``, and against ``previous``, the weights before the
        iteration's training), the metrics row; the full report."""
        config = self.config
        # Saved with the checkpoint: an interrupt during the evaluation keeps the row.
        self.save(trained_report)
        evaluated = time.perf_counter()
        against = self._evaluate() if config.eval_games else None
        previous_score = (
            self._against_previous(previous) if config.eval_games and config.eval_previous else None
        )
        eval_seconds = time.perf_counter() - evaluated
        benchmark = self._benchmark()
        report = dataclasses.replace(
            trained_report,
            benchmark_policy=benchmark[0],
            benchmark_search=benchmark[1],
            benchmark_seconds=benchmark[2],
            eval_score=None if against is None else against.score,
            eval_elo=None if against is None else against.elo,
            eval_elo_low=None if against is None else against.elo_interval[0],
            eval_elo_high=None if against is None else against.elo_interval[1],
            previous_score=previous_score,
            eval_seconds=eval_seconds,
        )
        self._append_metrics(report)
        return report

    def _train(
        self,
        progress: Callable[[str, int, int], None] | None,
        after_step: Callable[[], None] | None = None,
    ) -> tuple[float, float, float]:
        """The iteration's gradient steps; mean policy loss, value loss and policy entropy.
        ``after_step`` is called after each step (the asynchronous pipeline takes the games
        that arrived meanwhile)."""
        config = self.config
        net = self.model.net
        device = self.model.device
        net.train()
        totals = np.zeros(3)
        steps = config.steps_per_iteration
        for step in range(steps):
            observations, policies, values, replies = self.buffer.sample_with_replies(
                config.batch_size, self.rng
            )
            x = torch.from_numpy(observations).to(device)
            target_policy = torch.from_numpy(policies).to(device)
            target_value = torch.from_numpy(values).to(device)
            logits, value, reply_logits = net.forward_training(x)
            log_probs = torch.log_softmax(logits, dim=1)
            policy_loss = -(target_policy * log_probs).sum(dim=1).mean()
            value_loss = ((value - target_value) ** 2).mean()
            loss = policy_loss + value_loss
            if reply_logits is not None:
                loss = loss + REPLY_WEIGHT * reply_loss(
                    reply_logits, torch.from_numpy(replies).to(device)
                )
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            with torch.no_grad():
                entropy = -(log_probs.exp() * log_probs).sum(dim=1).mean()
            totals += (float(policy_loss.detach()), float(value_loss.detach()), float(entropy))
            if progress is not None:
                progress("training", step + 1, steps)
            if after_step is not None:
                after_step()
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

    def _benchmark(self) -> tuple[float | None, float | None, float]:
        """The network's value-losing rates on the game's labelled positions (policy alone,
        search), ``None`` where there are none, and the seconds measuring them took."""
        from playout.zero import benchmark

        config = self.config
        positions = benchmark.benchmark_positions(self.game) if config.benchmark_positions else None
        if not positions:
            return None, None, 0.0
        began = time.perf_counter()
        chosen = benchmark.subset(positions, config.benchmark_positions)
        policy = benchmark.score_chooser(benchmark.policy_chooser(self.model), chosen)
        chooser = benchmark.network_chooser(
            self.model, config.benchmark_simulations, c=config.c, seed=config.seed
        )
        search = benchmark.score_chooser(chooser, chosen)
        return policy.rate, search.rate, time.perf_counter() - began

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
        """Add the iteration's row to ``metrics.csv`` in one write. A file written by another
        version of playout (other columns) is rewritten with its rows under the current
        columns first, atomically, so that a resumed run never mixes two headers in one
        file; a last line cut short (an interrupted write) is dropped first.

        Raises:
            RunError: a damaged metrics file, or the row cannot be written.
        """
        append_metrics_row(
            self.out_dir / METRICS,
            dataclasses.asdict(report),
            f"after iteration {report.iteration}, its metrics row to be written on resuming",
        )


def reply_loss(logits: Any, targets: Any) -> Any:
    """The reply head's cross-entropy, averaged over the rows that have a reply target
    (non-zero rows; 0 when none has)."""
    has_target = targets.sum(dim=1) > 0
    per_row = -(targets * torch.log_softmax(logits, dim=1)).sum(dim=1)
    count = has_target.sum()
    return (per_row * has_target).sum() / count.clamp(min=1)


def _architecture_text(architecture: Any) -> str:
    """An architecture (or its dictionary) as ``8 channels x 1 blocks, value head 64``."""
    values = architecture if isinstance(architecture, dict) else dataclasses.asdict(architecture)
    try:
        return (
            f"{values['channels']} channels x {values['blocks']} blocks, value head "
            f"{values['value_hidden']}"
        )
    except (KeyError, TypeError):
        return repr(architecture)


_METRICS_FIELDS = tuple(field.name for field in dataclasses.fields(IterationReport))
"""The columns of ``metrics.csv``."""


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
    try:  # who holds it, for another process's message; the lock holds without it
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
    except OSError:  # a full disk
        pass
    return handle
