"""Players: the :class:`Player` protocol, a random player and the MCTS player.

* :class:`Player` is the protocol a program follows: :meth:`~Player.reset` at the start of a
  game, :meth:`~Player.choose` when it is to move, :meth:`~Player.notify` after every action
  played by either side (so a search can keep its tree between moves).
* :class:`RandomPlayer` plays a uniformly random legal move.
* :class:`MctsPlayer` plays the move of an MCTS search set up by :class:`MctsOptions`; its
  engine comes from an :data:`EngineFactory` (default :class:`~playout.MCTS`).

Other players live beside what they wrap: :class:`~playout._src.perfect.PerfectPlayer`, and
OpenSpiel's bot in :mod:`playout.interop.openspiel_bot`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from playout._src.errors import InvalidParameterError
from playout._src.evaluation import Rollout, RolloutPolicy
from playout._src.game import Game, GameState
from playout._src.parallel import RootParallel, require_compiled, spawn_seeds
from playout._src.resignation import Resignation, ResignWatch
from playout._src.rules import parse_rule
from playout._src.search import MCTS, Budget

EngineFactory = Callable[..., Any]
"""Builds a search engine: ``factory(state, *, selection, evaluator, budget, seed)``.

The result must offer ``run() -> SearchResult`` and ``advance(action)`` like :class:`MCTS`
(the default factory).
"""

NEIGHBOR_ALIASES = ("neighbors", "neighbours", "neighbor", "neighbour")
"""Spellings of the ``neighbors`` rollout accepted in ``rollout=``."""

GO_ROLLOUTS = ("heavy", "mogo", "lgrf", "mogo-hand", "lgrf-hand")
"""The rollout names Go offers (``GoGame.rollout_policies()``), for help texts and early
checks of a spec."""


@runtime_checkable
class Player(Protocol):
    """A program that plays a game.

    Lifecycle of one game: ``reset(initial_state, seed)`` once, then for every action played
    (by anyone, chance included) ``notify(action)``; ``choose(state)`` is called whenever the
    player is to move and must return a legal action id of ``state``.
    """

    @property
    def name(self) -> str:
        """The spec the player was built from (for reports)."""
        ...

    def reset(self, state: GameState, seed: int) -> None:
        """Start a new game from ``state``; ``seed`` seeds every random choice of the game."""
        ...

    def choose(self, state: GameState) -> int:
        """The action to play in ``state`` (where this player is to move)."""
        ...

    def notify(self, action: int) -> None:
        """``action`` was just played (by this player or another)."""
        ...


class RandomPlayer:
    """Plays a uniformly random legal move."""

    def __init__(self, name: str = "random") -> None:
        self._name = name
        self._rng = random.Random(0)

    @property
    def name(self) -> str:
        """The label given at construction (``"random"`` by default)."""
        return self._name

    def reset(self, state: GameState, seed: int) -> None:
        """Reseed the move generator with ``seed``."""
        self._rng = random.Random(seed)

    def choose(self, state: GameState) -> int:
        """A legal action of ``state``, uniformly at random."""
        return int(self._rng.choice(state.legal_actions()))

    def notify(self, action: int) -> None:
        """Nothing to track."""

    def __repr__(self) -> str:
        return f"RandomPlayer({self._name!r})"


@dataclasses.dataclass(frozen=True, kw_only=True)
class MctsOptions:
    """Settings of an MCTS player, as parsed from its spec.

    Attributes:
        budget: limits of each move's search.
        rollout: ``"random"`` or a rollout policy the game offers (``"neighbors"``: seed
            004's policy, on grid games; see :func:`rollout_policy`).
        num_rollouts: rollouts per leaf (seed 001 averages several).
        rule: selection rule name for :func:`~playout.parse_rule` (``ucb1``, ``puct``,
            ``epsilon``, ``rave``, ``pb``).
        c: the rule's parameter (exploration constant; epsilon for ``epsilon``), or ``None``
            for the rule's default.
        bias: the RAVE bias of ``rule="rave"`` (:class:`~playout.RAVE`), or ``None`` for
            its default.
        prior: RAVE's virtual samples of prior knowledge (``RAVE(prior=...)``), or ``None``
            for none.
        weight: the heuristic's weight of ``rule="pb"`` (:class:`~playout.ProgressiveBias`,
            with the game's move heuristic), or ``None`` for its default.
        reuse: keep the subtree between moves.
        solver: MCTS-Solver on or off (``MCTS(solver=...)``); ``None`` leaves the engine's
            default (on for deterministic games).
        symmetry, transpositions: the :class:`~playout.SearchConfig` options of those names.
        resign: resign below this win rate of the best move on
            :data:`~playout._src.resignation.RESIGN_MOVES` own moves in a row (or at once on a
            proven loss; :class:`~playout._src.resignation.ResignWatch`), or ``None``: play
            every game out.
        threads: searches side by side in threads, each with the whole budget and its own
            tree kept between moves, root statistics merged
            (:class:`~playout._src.parallel.RootParallel`); compiled driver only. 1: one
            search.
    """

    budget: Budget = dataclasses.field(default_factory=Budget)
    rollout: str = "random"
    num_rollouts: int = 1
    rule: str = "ucb1"
    c: float | None = None
    bias: float | None = None
    prior: float | None = None
    weight: float | None = None
    reuse: bool = True
    solver: bool | None = None
    symmetry: bool = False
    transpositions: bool = False
    resign: float | None = None
    threads: int = 1

    def selection(self) -> Any:
        """The selection rule object."""
        options = {
            key: value
            for key, value in (("bias", self.bias), ("prior", self.prior), ("weight", self.weight))
            if value is not None
        }
        return parse_rule(self.rule if self.c is None else f"{self.rule}:{self.c!r}", **options)

    def evaluator(self, game: Game) -> Rollout:
        """The leaf evaluator (a rollout with the chosen policy)."""
        return Rollout(policy=rollout_policy(self.rollout, game), num_rollouts=self.num_rollouts)


def _game_rollout_policies(game: Game) -> Mapping[str, RolloutPolicy]:
    """The named rollout policies ``game`` offers through its ``rollout_policies()`` hook."""
    hook = getattr(game, "rollout_policies", None)
    return {} if hook is None else hook()


def rollout_policy(name: str, game: Game) -> RolloutPolicy | None:
    """The rollout policy called ``name`` for ``game``: ``random`` (None), ``neighbors``, or
    another the game offers (Go: :data:`GO_ROLLOUTS`).

    Every name but ``random`` is asked of the game: a game offers rollout policies by name
    through an optional ``rollout_policies()`` method (the m,n,k games offer ``neighbors``,
    Go :data:`GO_ROLLOUTS`).

    Raises:
        InvalidParameterError: an unknown name, or a name the game does not offer.
    """
    if name == "random":
        return None
    offered = _game_rollout_policies(game)
    if name in NEIGHBOR_ALIASES:
        policy = offered.get("neighbors")
        if policy is None:
            raise InvalidParameterError(
                f"rollout=neighbors needs a grid game (mnk, tictactoe, gomoku), "
                f"not {game.spec.name}"
            )
        return policy
    if name in offered:
        return offered[name]
    names = ", ".join(["random", "neighbors", *sorted(set(offered) - {"neighbors"})])
    raise InvalidParameterError(f"unknown rollout {name!r}; choose {names}")


class SearchPlayer:
    """The part every searching player shares: an engine whose tree is kept between moves.

    :meth:`choose` searches from the engine's root when it is the position asked about and
    from a new engine otherwise (no :meth:`reset`, or moves not notified); :meth:`notify`
    advances the tree to the move played (or drops it when ``reuse`` is off). Subclasses build
    the engine in :meth:`_new_engine` (any object with ``root_state``, ``run()`` returning a
    result with ``best_action``, and ``advance(action)``).

    Args:
        name: label for reports.
        reuse: keep the subtree of the moves played.
        resign: the win rate to resign below (:class:`ResignWatch`), or ``None``: never.
    """

    def __init__(self, name: str, *, reuse: bool = True, resign: float | None = None) -> None:
        self._name = name
        self._reuse = reuse
        self._resign = None if resign is None else ResignWatch(resign)
        self._engine: Any = None
        self._seed = 0
        self.last_result: Any = None

    @property
    def name(self) -> str:
        """The label given at construction (the spec, when built by ``parse_player``)."""
        return self._name

    def _new_engine(self, state: GameState) -> Any:
        raise NotImplementedError

    def reset(self, state: GameState, seed: int) -> None:
        """Start a new search tree at ``state``, seeded with ``seed``."""
        self._seed = int(seed)
        self._engine = self._new_engine(state)
        self.last_result = None
        if self._resign is not None:
            self._resign.reset()

    def choose(self, state: GameState) -> int:
        """Search from ``state`` (keeping the tree when it is in step) and play the best move.

        Raises:
            Resignation: the search says the game is lost (only with ``resign``).
        """
        engine = self._engine
        if engine is None or getattr(engine, "root_state", None) != state:
            # Out of step (no reset, or moves not notified): search from scratch.
            self._seed += 1
            engine = self._engine = self._new_engine(state)
        self.last_result = engine.run()
        if self._resign is not None and self._resign.should_resign(self.last_result):
            raise Resignation(self._name)
        return int(self.last_result.best_action)

    def notify(self, action: int) -> None:
        """Advance the tree to the subtree of ``action`` (or drop it without reuse)."""
        engine = self._engine
        if engine is None:
            return
        if not self._reuse:
            self._engine = None
            return
        if engine.root_state.is_terminal():
            return
        engine.advance(action)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._name!r})"


class MctsPlayer(SearchPlayer):
    """Plays the move an MCTS search chooses; keeps its tree between moves.

    Args:
        game: the game (to build the rollout policy).
        options: search settings.
        name: label for reports.
        engine_factory: builds the engine (default :class:`MCTS`).
    """

    def __init__(
        self,
        game: Game,
        options: MctsOptions | None = None,
        *,
        name: str = "mcts",
        engine_factory: EngineFactory | None = None,
    ) -> None:
        self.options = MctsOptions() if options is None else options
        super().__init__(name, reuse=self.options.reuse, resign=self.options.resign)
        self._game = game
        self._selection = self.options.selection()
        self._evaluator = self.options.evaluator(game)
        self._factory: EngineFactory = MCTS if engine_factory is None else engine_factory

    def _new_engine(self, state: GameState) -> Any:
        budget, threads = self.options.budget, self.options.threads
        if threads == 1:
            return self._one_engine(state, budget, self._seed)
        # Root parallel: the memory bound is the whole player's, each tree gets its share.
        share = dataclasses.replace(budget, max_memory=max(1, budget.memory_limit // threads))
        return RootParallel(
            [self._one_engine(state, share, seed) for seed in spawn_seeds(self._seed, threads)]
        )

    def _one_engine(self, state: GameState, budget: Budget, seed: int) -> Any:
        """One engine of this player's settings at ``state`` (the factory's)."""
        extra: dict[str, Any] = (
            {} if self.options.solver is None else {"solver": self.options.solver}
        )
        # Only when on, so that engine factories written before these options keep working.
        if self.options.symmetry:
            extra["symmetry"] = True
        if self.options.transpositions:
            extra["transpositions"] = True
        return self._factory(
            state,
            selection=self._selection,
            evaluator=self._evaluator,
            budget=budget,
            seed=seed,
            **extra,
        )

    def check(self, state: GameState) -> None:
        """Build one engine at ``state`` and drop it, so that a setting it cannot run
        (``threads`` on the Python driver) fails now rather than at the first move.

        Raises:
            InvalidParameterError: the engine's own errors, or ``threads`` > 1 on a search
                that does not run compiled.
        """
        engine = self._one_engine(state, self.options.budget, 0)
        if self.options.threads > 1:
            require_compiled(engine)


__all__ = [
    "EngineFactory",
    "MctsOptions",
    "MctsPlayer",
    "Player",
    "RandomPlayer",
    "SearchPlayer",
    "rollout_policy",
]
