"""Search settings as values: :class:`Budget` (how much to search) and :class:`SearchConfig`
(how to search).

Every entry point builds one :class:`SearchConfig` and hands it on: :func:`playout.search`,
:class:`playout.MCTS`, :func:`playout.parallel_search`, the players of the arena and the
command line. The keyword forms (``search(state, simulations=800, seed=0)``) are shortcuts for
the same fields, resolved by :func:`make_config`; the game's own recommendations (an evaluator,
a selection rule) are applied in one place, :meth:`SearchConfig.for_game`.
"""

from __future__ import annotations

import dataclasses
import numbers
import os
from typing import Any, Literal

import numpy as np

from playout._src.errors import InvalidParameterError
from playout._src.evaluation import Evaluator, is_count
from playout._src.rules import RAVE, ProgressiveBias, SelectionRule, is_finite

FinalChoice = Literal["most_visits", "best_value", "sample"]
"""The final-move rule: most visits (default), best mean value, or sampled by visits."""

Backend = Literal["auto", "python", "compiled"]
"""Which driver runs the simulations: ``"auto"`` picks the compiled one when it can."""

FINAL_CHOICES: tuple[FinalChoice, ...] = ("most_visits", "best_value", "sample")
BACKENDS: tuple[Backend, ...] = ("auto", "python", "compiled")

UNLIMITED = 2**62
"""Stands for "no limit" in counts handed to compiled code."""

GUMBEL_CONSTANT_BOUND = 1e6
"""The largest ``c_visit``, ``c_scale`` and ``scale`` of :class:`Gumbel` (the paper's are 50,
1 and 1): beyond, ``sigma`` of completed Q-values and the noisy logits overflow to infinity
and the improved policy to NaN."""

DEFAULT_SIMULATIONS = 1000
"""Simulations of a search given neither a simulation count nor a time limit."""


def check_temperature(temperature: object) -> float:
    """A sampling temperature as a float, refused unless a finite number > 0 (numpy's
    included, not a bool): :class:`SearchConfig`'s and :func:`~playout.merge_results`' check.
    The compiled final-move choice takes the float (one compiled version, whatever number
    type was given: a ``Fraction`` or numpy's ``float16`` would not compile).

    Raises:
        InvalidParameterError: the value, named.
    """
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, numbers.Real)
        or not is_finite(temperature)  # type: ignore[arg-type]
        or not float(temperature) > 0
    ):
        raise InvalidParameterError(f"temperature must be a number > 0, got {temperature!r}")
    return float(temperature)


def default_max_memory() -> int:
    """The default memory bound of one search, in bytes: a quarter of the physical memory
    (1 GiB when the memory size is unknown)."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return 1 << 30
    return int(physical // 4)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Budget:
    """How much one search may do; it stops at whichever limit comes first (the role of
    python-chess's ``Limit``).

    Attributes:
        simulations: simulations to run (default 1000 when ``seconds`` is not given either).
        seconds: wall-clock limit in seconds.
        max_nodes: stop when the tree holds this many nodes.
        max_depth: never descend more than this many edges below the root in the tree.
        max_memory: bytes the tree may take at most (node and edge rows, and the compiled
            driver's compact states; arrays are counted at their allocated size, which
            doubles as the tree grows). ``None``: :func:`default_max_memory`, a quarter of
            the physical memory. The search stops there and says so (``stop_reason``
            ``"memory"`` and a :class:`~playout.PlayoutWarning`).
        stop_early: also stop once the move to play is settled: when the most-visited root
            move leads every other by more visits than the simulations left (the count left,
            or under a time limit what the rate measured after the first chunk would run in
            the time left), no other move can overtake it (``stop_reason`` ``"decided"``).
            Under a simulation count and without the solver the move is then the one the
            whole budget would have chosen, in a fraction of the time when one move stands
            out; under a time limit, as far as the measured rate holds. After the STOP
            strategy of Baier and Winands, "Time Management for Monte Carlo Tree Search"
            (IEEE TCIAIG 2016), the most effective of the strategies they measured in Go,
            Connect-4 and three other games. The statistics are those of the shorter
            search. Only with the ``"most_visits"`` final-move rule and without Gumbel
            (:class:`~playout.InvalidParameterError` otherwise). With the solver, moves
            proven lost are no rivals, and a proven leader, or a proven draw beside it,
            never ends the search early; but a proof that the simulations left would have
            found (the leader lost) can still change the move. Root-parallel searches
            (``threads``) each stop on their own tree: their merged choice, of summed
            visits, is not bound by it.
            Default off.
    """

    simulations: int | None = None
    seconds: float | None = None
    max_nodes: int | None = None
    max_depth: int | None = None
    max_memory: int | None = None
    stop_early: bool = False

    def __post_init__(self) -> None:
        for name in ("simulations", "max_nodes", "max_depth", "max_memory"):
            value = getattr(self, name)
            if value is not None and (not is_count(value) or value < 0):
                raise InvalidParameterError(f"{name} must be a whole number >= 0, got {value!r}")
        seconds = self.seconds
        if seconds is not None and not (
            isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and is_finite(seconds)
            and seconds >= 0
        ):
            raise InvalidParameterError(f"seconds must be a number >= 0, got {seconds!r}")
        if not isinstance(self.stop_early, bool | np.bool_):
            raise InvalidParameterError(
                f"stop_early must be True or False, got {self.stop_early!r}"
            )
        if self.max_depth == 0:
            raise InvalidParameterError("max_depth must be at least 1")
        if self.max_nodes == 0:
            raise InvalidParameterError("max_nodes must be at least 1 (the root)")

    @property
    def simulation_limit(self) -> int:
        """Simulations to run at most (:data:`UNLIMITED` for a time limit alone)."""
        if self.simulations is not None:
            return min(int(self.simulations), UNLIMITED)
        return UNLIMITED if self.seconds is not None else DEFAULT_SIMULATIONS

    @property
    def node_limit(self) -> int:
        """Nodes the tree may hold (:data:`UNLIMITED` when not bounded)."""
        return UNLIMITED if self.max_nodes is None else min(int(self.max_nodes), UNLIMITED)

    @property
    def memory_limit(self) -> int:
        """Bytes the tree may take (:func:`default_max_memory` when not given)."""
        return (
            default_max_memory()
            if self.max_memory is None
            else min(int(self.max_memory), UNLIMITED)
        )

    @property
    def depth_limit(self) -> int:
        """Edges below the root a simulation may descend (:data:`UNLIMITED` when not bounded)."""
        return UNLIMITED if self.max_depth is None else min(int(self.max_depth), UNLIMITED)


BUDGET_FIELDS = tuple(f.name for f in dataclasses.fields(Budget))


@dataclasses.dataclass(frozen=True, kw_only=True)
class DirichletNoise:
    """Exploration noise on the root's priors (Silver et al. 2017): each search mixes
    ``(1 - fraction) * P + fraction * eta`` with ``eta ~ Dirichlet(alpha)`` over the root's
    legal moves, drawn from the search's seeded generator. AlphaZero used ``fraction = 0.25``
    and ``alpha`` about ten divided by the typical number of legal moves (0.3 for chess,
    0.03 for Go); self-play uses it, play against people does not.

    Attributes:
        alpha: concentration, > 0 (smaller: the noise lands on fewer moves).
        fraction: weight of the noise, in [0, 1].
    """

    alpha: float = 0.3
    fraction: float = 0.25

    def __post_init__(self) -> None:
        for name in ("alpha", "fraction"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidParameterError(f"Dirichlet {name} must be a number, got {value!r}")
        if not (is_finite(self.alpha) and self.alpha > 0):
            raise InvalidParameterError(f"Dirichlet alpha must be > 0, got {self.alpha!r}")
        if not 0.0 <= self.fraction <= 1.0:
            raise InvalidParameterError(
                f"Dirichlet fraction must be in [0, 1], got {self.fraction!r}"
            )

    def mix(self, priors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``priors`` (one per legal move) with the noise mixed in."""
        if priors.shape[0] < 2 or self.fraction == 0.0:
            return priors
        eta = rng.dirichlet(np.full(priors.shape[0], float(self.alpha)))
        return (1.0 - self.fraction) * priors + self.fraction * eta


@dataclasses.dataclass(frozen=True, kw_only=True)
class Gumbel:
    """Gumbel AlphaZero search (Danihelka, Guez, Schrittwieser & Silver 2022, "Policy
    improvement by planning with Gumbel", ICLR), as DeepMind's mctx runs it in
    ``gumbel_muzero_policy``; the algorithm is in :mod:`playout._src.gumbel`.

    At the root, ``considered`` actions are sampled without replacement by the Gumbel-top-k
    trick (the largest ``g + log P``, ``g ~ Gumbel(0, scale)`` drawn from the search's seeded
    generator) and the simulation budget is spread over them by sequential halving (Karnin,
    Koren & Somekh 2013); the move is the survivor with the largest
    ``g + log P + sigma(completed Q)``. Below the root, the selection is deterministic: the
    action whose visit share falls furthest below the improved policy
    ``softmax(log P + sigma(completed Q))``, which is also the result's
    :attr:`~playout.SearchResult.improved_policy` at the root (the policy target of Gumbel
    self-play). ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q`` of completed Q-values
    rescaled to [0, 1].

    A Gumbel search replaces the selection rule, the final-move rule and root noise (the
    Gumbel draw is its exploration), and needs a simulation count: sequential halving
    divides a known budget.

    Attributes:
        considered: root actions sampled (m; the paper's and mctx's default 16); fewer when
            the root has fewer legal actions.
        c_visit: ``sigma``'s visit offset (the paper's 50).
        c_scale: ``sigma``'s scale (the paper's 1.0; mctx's ``qtransform_completed_by_mix_value``
            defaults to 0.1).
        scale: the Gumbel noise's scale: 1 samples as the paper does; 0 takes the ``considered``
            most probable actions (mctx's ``gumbel_scale``, 0 for deterministic play).
    """

    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        considered = self.considered
        if not is_count(considered) or not 1 <= considered <= 4096:
            raise InvalidParameterError(
                f"Gumbel considered must be a whole number in [1, 4096], got {considered!r}"
            )
        for name in ("c_visit", "c_scale", "scale"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value <= GUMBEL_CONSTANT_BOUND
            ):
                raise InvalidParameterError(
                    f"Gumbel {name} must be a number in [0, {GUMBEL_CONSTANT_BOUND:g}], got "
                    f"{value!r}"
                )


@dataclasses.dataclass(frozen=True, kw_only=True)
class SearchConfig:
    """How to search: every setting of the engine, in one immutable value.

    Attributes:
        selection: the selection rule (:class:`~playout.UCB1`, :class:`~playout.PUCT`,
            :class:`~playout.EpsilonGreedy`, :class:`~playout.RAVE`,
            :class:`~playout.ProgressiveBias`, or a callable on
            :class:`~playout.EdgeStatistics`); ``None``: the game's ``default_selection()``
            if it has one, else UCB1 with c = sqrt(2) (Kocsis & Szepesvari 2006).
        evaluator: values leaves (:class:`~playout.Rollout`, :class:`~playout.ValueFunction`
            or any :class:`~playout.Evaluator`); ``None``: the game's
            ``default_evaluator()`` if it has one, else one uniformly random rollout.
        solver: MCTS-Solver (Winands et al. 2008): prove wins, losses and draws in the tree;
            ``None`` turns it on for deterministic games.
        final: the final-move rule, ``"most_visits"``, ``"best_value"`` or ``"sample"``.
        temperature: for ``final="sample"``: visits are raised to ``1 / temperature``.
        budget: the default limits of a search (:class:`Budget`).
        reuse: keep the subtree of the move played when the root advances (tree reuse).
        store_states: keep every node's state (faster); ``False`` recomputes states by
            replaying actions from the root (less memory; the seed-003 way for hidden
            randomness). ``None`` (the default): store them, except for a game with hidden
            chance (``is_deterministic=False`` without ``explicit_chance``), whose states are
            recomputed at every simulation (open loop) so that every visit throws the dice
            afresh; ``True`` is refused for such a game, as it would search one frozen sample
            of each random move. The compiled driver always stores its compact states.
        seed: seeds every random choice; the same seed, state and simulation budget give the
            same result. ``None`` draws a seed from the operating system.
        backend: ``"auto"`` (the compiled driver when the game has a kernel and the options
            allow it), ``"python"`` or ``"compiled"`` (or an error saying why not).
        checks: check the game's promises as the search meets them (legal action ids,
            players, returns, immutable states) and what evaluators and rules return,
            raising a typed error instead of giving a wrong answer
            (:mod:`playout._src.checks`); ``False`` saves their small cost.
        symmetry: use the symmetries the game declares (``action_symmetries``, see
            :mod:`playout._src.symmetry`): at the root, moves that a symmetry of the root
            position maps onto each other are searched once, as one class, and the result
            shares the class's visits and value among them; with ``transpositions``, symmetric
            positions share one table entry. No effect on a game that declares none. Both
            drivers.
        transpositions: a transposition table (Childs, Brodeur & Kocsis 2008, UCT2): nodes of
            the same position (the same canonical position with ``symmetry``) reached by
            different move orders share their statistics in selection (see
            :mod:`playout._src.transpositions`). Python driver only; needs a built-in
            selection rule (UCB1, PUCT or epsilon-greedy).
        root_noise: :class:`DirichletNoise` on the root's priors at every search (AlphaZero's
            self-play exploration), or ``None``. Python and batched drivers.
        leaf_batch: with an evaluator that values batches (``evaluate_batch``, e.g. a
            network), the leaves evaluated per call: the search descends this many times
            with virtual loss (Chaslot et al. 2008) before one evaluation. 1 evaluates leaf
            by leaf, exactly as the unbatched search does.
        tree_threads: ``None`` (the default): one thread runs the simulations. A number:
            that many threads run them on one shared tree, lock-free, with virtual loss
            (tree parallelism; :mod:`playout._src.compiled.shared`). Compiled driver only;
            not reproducible with more than one thread. ``parallel_search(...,
            shared_tree=True)`` sets it.
        gumbel: :class:`Gumbel` search (Danihelka et al. 2022) instead of the selection
            rule, or ``None``. Runs on the batched driver: a batch evaluator's leaves are
            batched with virtual loss, any other evaluator's are evaluated one by one (with
            its priors, or uniform ones). Needs a simulation count; refuses a selection rule,
            root noise, another final-move rule than ``"most_visits"``, the compiled
            backend, tree threads and the transposition table.
    """

    selection: SelectionRule | None = None
    evaluator: Evaluator | None = None
    solver: bool | None = None
    final: FinalChoice = "most_visits"
    temperature: float = 1.0
    budget: Budget = Budget()
    reuse: bool = True
    store_states: bool | None = None
    seed: int | None = None
    backend: Backend = "auto"
    checks: bool = True
    symmetry: bool = False
    transpositions: bool = False
    root_noise: DirichletNoise | None = None
    leaf_batch: int = 8
    tree_threads: int | None = None
    gumbel: Gumbel | None = None

    def __post_init__(self) -> None:
        if self.final not in FINAL_CHOICES:
            raise InvalidParameterError(
                f"final must be one of {', '.join(FINAL_CHOICES)}, got {self.final!r}"
            )
        object.__setattr__(self, "temperature", check_temperature(self.temperature))
        if not isinstance(self.budget, Budget):
            raise InvalidParameterError(f"budget must be a playout.Budget, got {self.budget!r}")
        if self.backend not in BACKENDS:
            raise InvalidParameterError(
                f"backend must be 'auto', 'python' or 'compiled', got {self.backend!r}"
            )
        if self.seed is not None and (not is_count(self.seed) or self.seed < 0):
            raise InvalidParameterError(f"seed must be a whole number >= 0, got {self.seed!r}")
        for flag in ("reuse", "checks", "symmetry", "transpositions"):
            if not isinstance(getattr(self, flag), bool | np.bool_):
                raise InvalidParameterError(
                    f"{flag} must be True or False, got {getattr(self, flag)!r}"
                )
        if self.root_noise is not None and not isinstance(self.root_noise, DirichletNoise):
            raise InvalidParameterError(
                f"root_noise must be a playout.DirichletNoise or None, got {self.root_noise!r}"
            )
        if not is_count(self.leaf_batch) or not 1 <= self.leaf_batch <= 4096:
            raise InvalidParameterError(
                f"leaf_batch must be a whole number in [1, 4096], got {self.leaf_batch!r}"
            )
        if self.tree_threads is not None and (
            not is_count(self.tree_threads) or not 1 <= self.tree_threads <= 1024
        ):
            raise InvalidParameterError(
                f"tree_threads must be None or a whole number in [1, 1024], got "
                f"{self.tree_threads!r}"
            )
        for flag in ("solver", "store_states"):
            value = getattr(self, flag)
            if value is not None and not isinstance(value, bool | np.bool_):
                raise InvalidParameterError(f"{flag} must be True, False or None, got {value!r}")
        if self.evaluator is not None and not hasattr(self.evaluator, "evaluate"):
            raise InvalidParameterError(f"not an evaluator: {self.evaluator!r}")
        if self.selection is not None and not (
            hasattr(self.selection, "compiled")
            or isinstance(self.selection, RAVE | ProgressiveBias)
            or callable(self.selection)
        ):
            raise InvalidParameterError(f"not a selection rule: {self.selection!r}")
        if self.gumbel is not None:
            self._check_gumbel()
        self.check_budget(self.budget)

    def check_budget(self, budget: Budget) -> None:
        """Refuse a ``budget`` this search cannot keep: ``stop_early`` where the move played
        is not the most visited (a Gumbel search, another final-move rule).

        Raises:
            InvalidParameterError: that setting, named.
        """
        if not budget.stop_early:
            return
        if self.gumbel is not None:
            raise InvalidParameterError(
                "stop_early needs the most-visits choice; a Gumbel search chooses by "
                "sequential halving"
            )
        if self.final != "most_visits":
            raise InvalidParameterError(
                f"stop_early needs final='most_visits', got final={self.final!r}"
            )

    def _check_gumbel(self) -> None:
        """Refuse the settings a Gumbel search replaces or cannot run with."""
        if not isinstance(self.gumbel, Gumbel):
            raise InvalidParameterError(
                f"gumbel must be a playout.Gumbel or None, got {self.gumbel!r}"
            )
        refused = {
            "selection": (
                self.selection is not None,
                "Gumbel search selects by its own rule (sequential halving at the root, the "
                "improved policy below it)",
            ),
            "root_noise": (
                self.root_noise is not None,
                "Gumbel search explores by its Gumbel draw, not Dirichlet noise",
            ),
            "final": (
                self.final != "most_visits",
                "Gumbel search chooses the move (the best survivor of sequential halving)",
            ),
            "backend": (
                self.backend == "compiled",
                "Gumbel search runs on the batched driver, not the compiled one",
            ),
            "tree_threads": (self.tree_threads is not None, "Gumbel search runs in one thread"),
            "transpositions": (
                bool(self.transpositions),
                "Gumbel search has no transposition table",
            ),
        }
        for name, (is_set, reason) in refused.items():
            if is_set:
                raise InvalidParameterError(f"gumbel cannot be used with {name}: {reason}")

    def replace(self, **changes: Any) -> SearchConfig:
        """A copy with ``changes``: any field, or a :class:`Budget` field (``simulations``,
        ``seconds``, ``max_nodes``, ``max_depth``) that replaces that part of the budget.

        Raises:
            InvalidParameterError: an unknown name or a bad value.
        """
        budget_changes = {k: changes.pop(k) for k in BUDGET_FIELDS if k in changes}
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise InvalidParameterError(
                f"unknown search option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}"
                f" (options: {', '.join(OPTION_NAMES)})"
            )
        if budget_changes:
            # One replace, so that the checks (check_budget's among them) see the finished
            # configuration, never the new fields beside the old budget.
            budget = changes.get("budget", self.budget)
            if isinstance(budget, Budget):
                changes["budget"] = dataclasses.replace(budget, **budget_changes)
            else:  # not a Budget: let __post_init__ name it
                return dataclasses.replace(self, **changes)
        return dataclasses.replace(self, **changes) if changes else self

    def for_game(self, game: Any) -> SearchConfig:
        """This configuration with the game's recommendations filled in where a setting is
        ``None``: its ``default_selection()`` and ``default_evaluator()`` (chess has both),
        the solver on for deterministic games, and states stored unless the game has hidden
        chance. The only place these defaults are made.

        Raises:
            InvalidParameterError: ``store_states=True`` for a game with hidden chance.
        """
        spec = game.spec
        hidden_chance = not spec.is_deterministic and not spec.explicit_chance
        changes: dict[str, Any] = {}
        if self.selection is None and self.gumbel is None and hasattr(game, "default_selection"):
            changes["selection"] = game.default_selection()
        if self.evaluator is None and hasattr(game, "default_evaluator"):
            changes["evaluator"] = game.default_evaluator()
        if self.solver is None:
            changes["solver"] = bool(spec.is_deterministic)
        if self.store_states is None:
            changes["store_states"] = not hidden_chance
        elif self.store_states and hidden_chance:
            raise InvalidParameterError(
                f"store_states=True would freeze the first random outcome of every move of "
                f"{spec.name}, whose play() draws at random (its spec: is_deterministic=False, "
                "no explicit_chance), and search that one sample: leave store_states unset "
                "(states are then recomputed at every simulation), or declare the randomness "
                "as chance states (explicit_chance=True with chance_outcomes())"
            )
        return dataclasses.replace(self, **changes) if changes else self


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(SearchConfig)) + BUDGET_FIELDS
"""Every keyword :func:`make_config` accepts."""


def make_config(config: SearchConfig | None = None, /, **options: Any) -> SearchConfig:
    """``config`` (default: all defaults) with the keyword ``options`` applied (see
    :meth:`SearchConfig.replace`); ``None`` values among the options are ignored, so that
    wrappers can pass their keywords through.

    Raises:
        InvalidParameterError: ``config`` is not a :class:`SearchConfig`, or an option is
            unknown or has a bad value.
    """
    if config is None:
        config = SearchConfig()
    elif not isinstance(config, SearchConfig):
        raise InvalidParameterError(f"config must be a playout.SearchConfig, got {config!r}")
    given = {k: v for k, v in options.items() if v is not None}
    return config.replace(**given) if given else config


__all__ = [
    "Backend",
    "Budget",
    "DirichletNoise",
    "FinalChoice",
    "Gumbel",
    "SearchConfig",
    "make_config",
]
