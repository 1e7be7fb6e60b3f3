"""Speed and memory of one MCTS decision: playout's two engines and OpenSpiel's two bots.

What is timed: one move decision from the empty board by a fresh searcher, from building the
searcher to freeing its tree, under the same plain search for every implementation: UCT with
c = sqrt(2) on values in [-1, 1] (Kocsis & Szepesvari 2006), one uniformly random rollout per
new leaf, the solver off. The clock is the CPU time of the measuring process
(:func:`time.process_time`), so a rate is in simulations per CPU second and does not count
time the process spent waiting for a core.

The implementations (:data:`IMPLEMENTATIONS`):

* ``playout-compiled``: :class:`playout.MCTS` on the compiled driver
  (:class:`playout._src.compiled.CompiledDriver`), the loop in numba;
* ``playout-python``: :class:`playout.MCTS`, the Python driver;
* ``openspiel-cpp``: OpenSpiel's C++ ``pyspiel.MCTSBot`` with ``RandomRolloutEvaluator(1)``;
* ``openspiel-python``: OpenSpiel's ``open_spiel.python.algorithms.mcts.MCTSBot`` with
  ``RandomRolloutEvaluator(n_rollouts=1)``.

The two Python implementations run :attr:`BenchmarkReport.python_simulations` per decision
(fewer than the others, to keep a run short); their rates are per simulation all the same, but
a smaller tree is a little cheaper per simulation, which favours them slightly.

Point of view of the ratios: ``playout-compiled``'s rate divided by the other's, so a ratio
above 1 means playout-compiled did more simulations per CPU second. In every repetition the
implementations take turns on the same work (the order rotates from one repetition to the
next), and the ratio reported is the median of the per-repetition ratios, so that the drift
of a shared machine hits both sides of a ratio alike.

With the solver on: :func:`make_solver_runner` times one decision of the same search with
each implementation's MCTS-Solver on, from making the searcher until the root is proven (every
implementation stops by itself there) or a budget runs out, and says which
(:class:`SolverDecision`); ``bench/compiled_vs_peers.py --solver`` compares them.

Peak memory: each implementation decides once more in a fresh worker process (after an
untimed warm-up decision there); the figure is the peak resident set size during the
decision minus the resident size just before it, in MiB (2**20 bytes), read from
``/proc/self/status`` after resetting the peak through ``/proc/self/clear_refs`` (Linux).
It is ``None`` where that is not possible.
"""

from __future__ import annotations

import concurrent.futures
import gc
import importlib.metadata
import math
import multiprocessing
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from playout._src.errors import InvalidParameterError

Implementation = Literal["playout-compiled", "playout-python", "openspiel-cpp", "openspiel-python"]
IMPLEMENTATIONS: tuple[Implementation, ...] = (
    "playout-compiled",
    "playout-python",
    "openspiel-cpp",
    "openspiel-python",
)
REFERENCE: Implementation = "playout-compiled"
"""The implementation every ratio is taken from (its rate over the other's)."""
PYTHON_IMPLEMENTATIONS: frozenset[Implementation] = frozenset(
    {"playout-python", "openspiel-python"}
)
"""The implementations that run ``python_simulations`` per decision."""
BIG_IMPLEMENTATIONS: tuple[Implementation, ...] = ("playout-compiled", "openspiel-cpp")
"""The implementations of the large-tree case (``big=True``)."""
BIG_GAME = "connect4"
UCT_C = math.sqrt(2.0)
WARMUP_SIMULATIONS = 200
OPENSPIEL_MAX_MEMORY_MB = 4000
"""OpenSpiel's ``max_memory_mb``: high enough that its tree is never pruned here."""

Status = Literal["ok", "not installed", "failed"]
Runner = Callable[[int, int], float]
"""``runner(simulations, seed)``: one timed decision; simulations per CPU second."""


@dataclass(frozen=True)
class BenchGame:
    """A benchmark game: its playout registry entry and the same game in OpenSpiel."""

    name: str
    description: str
    playout_game: str
    playout_params: tuple[tuple[str, int], ...]
    openspiel_game: str


GAMES: Mapping[str, BenchGame] = MappingProxyType(
    {
        "tictactoe": BenchGame("tictactoe", "tic-tac-toe", "tictactoe", (), "tic_tac_toe"),
        "connect4": BenchGame("connect4", "connect four 7x6", "connect4", (), "connect_four"),
        "mnk9": BenchGame(
            "mnk9",
            "9x9, five in a row",
            "mnk",
            (("width", 9), ("height", 9), ("k", 5)),
            "gomoku(size=9,connect=5)",
        ),
    }
)


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class Machine:
    """Where a benchmark ran: CPU model, logical CPUs available, load and library versions
    (``None`` for a library that is not installed)."""

    cpu: str
    cpus: int
    load_average: float | None
    python: str
    numpy: str | None
    numba: str | None
    open_spiel: str | None

    def text(self) -> str:
        """One line for a report header."""
        load = "" if self.load_average is None else f", load {self.load_average:.2f}"
        versions = ", ".join(
            f"{name} {version or 'not installed'}"
            for name, version in (
                ("numpy", self.numpy),
                ("numba", self.numba),
                ("open-spiel", self.open_spiel),
            )
        )
        return f"{self.cpu}, {self.cpus} CPUs{load}; Python {self.python}, {versions}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "cpu": self.cpu,
            "cpus": self.cpus,
            "load_average": self.load_average,
            "python": self.python,
            "numpy": self.numpy,
            "numba": self.numba,
            "open_spiel": self.open_spiel,
        }


@dataclass(frozen=True)
class Measurement:
    """One implementation on one game.

    Attributes:
        implementation: one of :data:`IMPLEMENTATIONS`.
        status: ``"ok"``; ``"not installed"`` (open-spiel missing: no figures);
            ``"failed"`` (its worker process died, e.g. out of memory: no figures).
        simulations: simulations per decision.
        rates: simulations per CPU second, one per repetition, in repetition order.
        ratios: the reference's rate / this rate, per repetition (1.0 for the reference).
        peak_memory_mib: extra peak resident memory of one decision in MiB, or ``None``.
    """

    implementation: Implementation
    status: Status
    simulations: int
    rates: tuple[float, ...] = ()
    ratios: tuple[float, ...] = ()
    peak_memory_mib: float | None = None

    @property
    def rate(self) -> float | None:
        """The median rate (simulations per CPU second), or ``None`` without figures."""
        return statistics.median(self.rates) if self.rates else None

    @property
    def ratio(self) -> float | None:
        """The median per-repetition ratio ``reference rate / this rate``, or ``None``."""
        return statistics.median(self.ratios) if self.ratios else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "implementation": self.implementation,
            "status": self.status,
            "simulations": self.simulations,
            "sims_per_second": self.rate,
            "ratio": self.ratio,
            "rates": list(self.rates),
            "ratios": list(self.ratios),
            "peak_memory_mib": self.peak_memory_mib,
        }


@dataclass(frozen=True)
class CaseResult:
    """Every implementation on one game at one size (one table of the report)."""

    game: BenchGame
    repetitions: int
    measurements: tuple[Measurement, ...]

    def measurement(self, implementation: str) -> Measurement:
        """The row of ``implementation``; KeyError if it was not part of this case."""
        for row in self.measurements:
            if row.implementation == implementation:
                return row
        raise KeyError(implementation)

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "description": self.game.description,
            "openspiel_game": self.game.openspiel_game,
            "repetitions": self.repetitions,
            "results": [row.as_dict() for row in self.measurements],
        }


@dataclass(frozen=True)
class BenchmarkReport:
    """The result of :func:`run_benchmark`: the machine, the settings and one case per table.

    ``big_simulations`` is ``None`` when the large-tree case was not run.
    """

    machine: Machine
    simulations: int
    python_simulations: int
    repetitions: int
    seed: int
    big_simulations: int | None
    cases: tuple[CaseResult, ...]

    def retention(self, implementation: str) -> float | None:
        """How much of its rate ``implementation`` keeps on the large tree: its median rate at
        ``big_simulations`` over its median rate in the same run's connect-four case at
        ``simulations`` (None unless both were measured)."""
        if self.big_simulations is None:
            return None
        small = [case for case in self.cases[:-1] if case.game.name == BIG_GAME]
        if not small:
            return None
        try:
            big_rate = self.cases[-1].measurement(implementation).rate
            small_rate = small[0].measurement(implementation).rate
        except KeyError:
            return None
        if big_rate is None or not small_rate:
            return None
        return big_rate / small_rate

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (rates in simulations per CPU second)."""
        return {
            "machine": self.machine.as_dict(),
            "reference": REFERENCE,
            "simulations": self.simulations,
            "python_simulations": self.python_simulations,
            "repetitions": self.repetitions,
            "seed": self.seed,
            "big_simulations": self.big_simulations,
            "retention": {
                name: kept
                for name in BIG_IMPLEMENTATIONS
                if (kept := self.retention(name)) is not None
            },
            "cases": [case.as_dict() for case in self.cases],
        }


# ------------------------------------------------------------------------------ machine


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine_info() -> Machine:
    """The machine and library versions, as they are now."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        load: float | None = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return Machine(
        cpu=_cpu_model(),
        cpus=cpus,
        load_average=load,
        python=platform.python_version(),
        numpy=_version("numpy"),
        numba=_version("numba"),
        open_spiel=_version("open_spiel"),
    )


# ------------------------------------------------------------------------------ runners


Decide = Callable[[int, int], tuple[int, str | None]]
"""``decide(simulations, seed)``: one decision by a fresh searcher whose tree is freed on return;
``(simulations run, the root's proven result)``, the result ``"win"``, ``"draw"`` or ``"loss"``
for the player to move, or ``None`` (not proven, or the solver off)."""


def _timed(decide: Decide) -> Runner:
    """A runner timing ``decide`` in CPU seconds: simulations per CPU second."""

    def run(simulations: int, seed: int) -> float:
        start = time.process_time()
        done, _ = decide(simulations, seed)  # the tree is freed on return, inside the timing
        elapsed = time.process_time() - start
        return done / max(elapsed, 1e-9)

    return run


def _playout_state(game: BenchGame) -> Any:
    from playout._src.registry import make_game

    return make_game(game.playout_game, **dict(game.playout_params)).initial_state()


def _playout(backend: Literal["compiled", "python"]) -> Callable[[BenchGame, bool], Decide]:
    def make(game: BenchGame, solver: bool) -> Decide:
        from playout._src.search import MCTS, Budget

        state = _playout_state(game)

        def decide(simulations: int, seed: int) -> tuple[int, str | None]:
            engine = MCTS(state, seed=seed, solver=solver, backend=backend)
            result = engine.run(Budget(simulations=simulations))  # stops once the root is proven
            return result.simulations, None if result.proven is None else result.proven.value

        return decide

    return make


def _openspiel_proven(outcome: Sequence[float], player: int, spiel_game: Any) -> str | None:
    """An OpenSpiel node's ``outcome`` (returns per player, empty while unsolved) as the result
    for ``player``."""
    if len(outcome) == 0:
        return None
    value = float(outcome[player])
    if value >= spiel_game.max_utility():
        return "win"
    if value <= spiel_game.min_utility():
        return "loss"
    return "draw"


def _openspiel_cpp(game: BenchGame, solver: bool) -> Decide:
    import pyspiel

    spiel_game = pyspiel.load_game(game.openspiel_game)
    state = spiel_game.new_initial_state()
    player = state.current_player()

    def decide(simulations: int, seed: int) -> tuple[int, str | None]:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(
            spiel_game, evaluator, UCT_C, simulations, OPENSPIEL_MAX_MEMORY_MB, solver, seed, False
        )
        root = bot.mcts_search(state)  # stops once the root is solved (with ``solve``)
        return int(root.explore_count), _openspiel_proven(root.outcome, player, spiel_game)

    return decide


def _openspiel_python(game: BenchGame, solver: bool) -> Decide:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    spiel_game = pyspiel.load_game(game.openspiel_game)
    state = spiel_game.new_initial_state()
    player = state.current_player()

    def decide(simulations: int, seed: int) -> tuple[int, str | None]:
        random_state = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
        bot = mcts.MCTSBot(
            spiel_game, UCT_C, simulations, evaluator, solve=solver, random_state=random_state
        )
        root = bot.mcts_search(state)
        outcome = () if root.outcome is None else root.outcome
        return int(root.explore_count), _openspiel_proven(outcome, player, spiel_game)

    return decide


_DECIDERS: Mapping[str, Callable[[BenchGame, bool], Decide]] = MappingProxyType(
    {
        "playout-compiled": _playout("compiled"),
        "playout-python": _playout("python"),
        "openspiel-cpp": _openspiel_cpp,
        "openspiel-python": _openspiel_python,
    }
)


def _decider(implementation: str, game: str, solver: bool) -> Decide | None:
    if implementation not in _DECIDERS:
        raise InvalidParameterError(
            f"unknown implementation {implementation!r}; one of {', '.join(IMPLEMENTATIONS)}"
        )
    try:
        return _DECIDERS[implementation](_game(game), solver)
    except ImportError:
        if implementation.startswith("openspiel"):
            return None
        raise


def make_runner(implementation: str, game: str) -> Runner | None:
    """A timed decision of ``implementation`` on the empty board of ``game``, or ``None``
    when the implementation's package is not installed (open-spiel).

    ``runner(simulations, seed)`` builds a fresh searcher, runs ``simulations`` simulations
    from the empty board with the solver off and frees the tree, and returns simulations per
    CPU second.

    Raises:
        InvalidParameterError: an unknown implementation or game.
    """
    decide = _decider(implementation, game, solver=False)
    return None if decide is None else _timed(decide)


@dataclass(frozen=True)
class SolverDecision:
    """One decision with the solver on, timed in CPU seconds of the measuring process.

    Attributes:
        simulations: simulations run: those up to the root's proof when ``proven`` is set,
            else the whole budget.
        seconds: process CPU seconds from making the searcher to freeing its tree.
        proven: the root's proven result for the player to move (``"win"``, ``"draw"``,
            ``"loss"``), or ``None`` when the budget ran out first.
    """

    simulations: int
    seconds: float
    proven: str | None

    @property
    def rate(self) -> float:
        """Simulations per CPU second."""
        return self.simulations / max(self.seconds, 1e-9)


SolverRunner = Callable[[int, int], SolverDecision]
"""``runner(budget, seed)``: one timed decision with the solver on, stopping at the proof."""


def make_solver_runner(implementation: str, game: str) -> SolverRunner | None:
    """A timed decision of ``implementation`` on the empty board of ``game`` with its
    MCTS-Solver on, or ``None`` when the implementation's package is not installed.

    ``runner(budget, seed)`` builds a fresh searcher and searches from the empty board until
    the root is proven or ``budget`` simulations are done (every implementation stops by
    itself on a proven root: playout's search, and OpenSpiel's ``MCTSBot`` with ``solve``),
    frees the tree and returns a :class:`SolverDecision`. The search is otherwise that of
    :func:`make_runner` (UCT c = sqrt(2), one random rollout per leaf).

    Raises:
        InvalidParameterError: an unknown implementation or game.
    """
    decide = _decider(implementation, game, solver=True)
    if decide is None:
        return None

    def run(budget: int, seed: int) -> SolverDecision:
        start = time.process_time()
        done, proven = decide(budget, seed)  # the tree is freed on return, inside the timing
        return SolverDecision(done, time.process_time() - start, proven)

    return run


def _game(name: str) -> BenchGame:
    if name not in GAMES:
        raise InvalidParameterError(f"unknown benchmark game {name!r}; one of {', '.join(GAMES)}")
    return GAMES[name]


# ------------------------------------------------------------------------------ memory


def _status_kib(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``), or None."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_peak_rss() -> bool:
    """Reset ``VmHWM`` to the current resident size (Linux >= 4.0); False if impossible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


def _probe(
    implementation: str, game: str, simulations: int, seed: int, repetitions: int = 1
) -> tuple[tuple[float, ...], float | None]:
    """In a worker process: a warm-up decision, then ``repetitions`` timed decisions (seeds
    ``seed``, ``seed + 1``, ...); their rates and the extra peak resident memory of the first,
    in MiB (None where /proc cannot tell)."""
    runner = make_runner(implementation, game)
    if runner is None:
        raise ImportError(f"{implementation} is not installed")
    runner(min(WARMUP_SIMULATIONS, simulations), seed + repetitions)
    gc.collect()
    is_reset = _reset_peak_rss()
    before = _status_kib("VmRSS")
    rates = [runner(simulations, seed)]
    peak = _status_kib("VmHWM")
    rates.extend(runner(simulations, seed + rep) for rep in range(1, repetitions))
    if not is_reset or before is None or peak is None:
        return tuple(rates), None
    return tuple(rates), max(peak - before, 0) / 1024.0


def _probe_in_fresh_process(
    implementation: str, game: str, simulations: int, seed: int, repetitions: int = 1
) -> tuple[tuple[float, ...], float | None] | None:
    """:func:`_probe` in a new ``spawn`` process; None if that process died."""
    context = multiprocessing.get_context("spawn")
    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            return pool.submit(
                _probe, implementation, game, simulations, seed, repetitions
            ).result()
    except concurrent.futures.process.BrokenProcessPool:
        return None


# ------------------------------------------------------------------------------ benchmark


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(f"{name} must be a whole number >= 1, got {value!r}")


def _ratios(reference: Sequence[float], rates: Sequence[float]) -> tuple[float, ...]:
    if len(reference) != len(rates):
        return ()
    return tuple(ours / theirs for ours, theirs in zip(reference, rates, strict=True))


def _interleaved_case(
    game: BenchGame,
    implementations: Sequence[Implementation],
    simulations: Mapping[Implementation, int],
    repetitions: int,
    seed: int,
    memory: bool,
) -> CaseResult:
    """Timing in this process, implementations interleaved; memory in fresh processes."""
    found = {name: make_runner(name, game.name) for name in implementations}
    runners = {name: runner for name, runner in found.items() if runner is not None}
    ready = list(runners)
    for name in ready:  # warm-up: load compiled code, fault in the allocator
        runners[name](min(WARMUP_SIMULATIONS, simulations[name]), seed + repetitions)
    rates: dict[str, list[float]] = {name: [] for name in ready}
    for rep in range(repetitions):
        shift = rep % len(ready) if ready else 0
        for name in ready[shift:] + ready[:shift]:
            rates[name].append(runners[name](simulations[name], seed + rep))
    peaks: dict[str, float | None] = {}
    for name in ready:
        probe = (
            _probe_in_fresh_process(name, game.name, simulations[name], seed) if memory else None
        )
        peaks[name] = None if probe is None else probe[1]
    reference = rates.get(REFERENCE, [])
    rows = tuple(
        Measurement(name, "not installed", simulations[name])
        if name not in runners
        else Measurement(
            name,
            "ok",
            simulations[name],
            tuple(rates[name]),
            _ratios(reference, rates[name]),
            peaks[name],
        )
        for name in implementations
    )
    return CaseResult(game, repetitions, rows)


def _worker_case(
    game: BenchGame,
    implementations: Sequence[Implementation],
    simulations: int,
    repetitions: int,
    seed: int,
) -> CaseResult:
    """``repetitions`` decisions per implementation, in a fresh process each that also reports
    the memory of the first (for large trees, where every decision takes seconds)."""
    probes: dict[str, tuple[tuple[float, ...], float | None] | None] = {}
    installed: dict[str, bool] = {}
    for name in implementations:
        installed[name] = make_runner(name, game.name) is not None
        if installed[name]:
            probes[name] = _probe_in_fresh_process(name, game.name, simulations, seed, repetitions)
    reference_probe = probes.get(REFERENCE)
    reference = () if reference_probe is None else reference_probe[0]
    rows = []
    for name in implementations:
        probe = probes.get(name)
        if not installed[name]:
            rows.append(Measurement(name, "not installed", simulations))
        elif probe is None:
            rows.append(Measurement(name, "failed", simulations))
        else:
            rates, peak = probe
            rows.append(
                Measurement(name, "ok", simulations, rates, _ratios(reference, rates), peak)
            )
    return CaseResult(game, repetitions, tuple(rows))


def run_benchmark(
    games: Sequence[str] = tuple(GAMES),
    *,
    simulations: int = 10_000,
    python_simulations: int = 2_000,
    repetitions: int = 5,
    big: bool = False,
    big_simulations: int = 1_000_000,
    big_repetitions: int = 3,
    seed: int = 0,
    memory: bool = True,
    on_case: Callable[[CaseResult], None] | None = None,
) -> BenchmarkReport:
    """Every implementation on every game, side by side; see the module docstring.

    Args:
        games: names from :data:`GAMES`, in the order to run them.
        simulations: simulations per decision for the compiled and C++ implementations.
        python_simulations: simulations per decision for the Python implementations
            (capped at ``simulations``).
        repetitions: timed decisions per implementation and game, interleaved.
        big: add the large-tree case: connect four at ``big_simulations``, playout-compiled
            and openspiel-cpp only, ``big_repetitions`` decisions each in a fresh process
            (the first of them in new memory, the next ones in memory the process reuses).
        seed: repetition ``r`` uses seed ``seed + r`` for every implementation.
        memory: measure peak memory (one more decision per row, in a fresh process).
        on_case: called with each case's result as soon as it is done (for a live report).

    Raises:
        InvalidParameterError: an unknown game, no games, or a count below 1.
    """
    for name, value in (
        ("simulations", simulations),
        ("python_simulations", python_simulations),
        ("repetitions", repetitions),
        ("big_simulations", big_simulations),
        ("big_repetitions", big_repetitions),
    ):
        _check_count(name, value)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    if not games:
        raise InvalidParameterError("no games to benchmark")
    chosen = [_game(name) for name in dict.fromkeys(games)]
    machine = machine_info()
    python_simulations = min(python_simulations, simulations)
    per_implementation: dict[Implementation, int] = {
        name: python_simulations if name in PYTHON_IMPLEMENTATIONS else simulations
        for name in IMPLEMENTATIONS
    }
    cases = []
    for game in chosen:
        case = _interleaved_case(
            game, IMPLEMENTATIONS, per_implementation, repetitions, seed, memory
        )
        cases.append(case)
        if on_case is not None:
            on_case(case)
    if big:
        case = _worker_case(
            GAMES[BIG_GAME], BIG_IMPLEMENTATIONS, big_simulations, big_repetitions, seed
        )
        cases.append(case)
        if on_case is not None:
            on_case(case)
    return BenchmarkReport(
        machine=machine,
        simulations=simulations,
        python_simulations=python_simulations,
        repetitions=repetitions,
        seed=seed,
        big_simulations=big_simulations if big else None,
        cases=tuple(cases),
    )


__all__ = [
    "GAMES",
    "IMPLEMENTATIONS",
    "REFERENCE",
    "BenchGame",
    "BenchmarkReport",
    "CaseResult",
    "Machine",
    "Measurement",
    "SolverDecision",
    "SolverRunner",
    "machine_info",
    "make_runner",
    "make_solver_runner",
    "run_benchmark",
]
