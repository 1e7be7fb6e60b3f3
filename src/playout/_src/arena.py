"""Players, matches and tournaments: programs playing each other.

* :class:`Player` is the protocol a program follows: :meth:`~Player.reset` at the start of a
  game, :meth:`~Player.choose` when it is to move, :meth:`~Player.notify` after every action
  played by either side (so a search can keep its tree between moves).
* :func:`parse_player` builds a player from a spec string such as ``"random"``,
  ``"mcts:simulations=200,rollout=neighbors"``, ``"perfect"`` or
  ``"openspiel-mcts:simulations=1000"``.
* :func:`play_game` plays one game; :func:`run_match` a series with alternating first player,
  optionally in parallel (a local process pool or a Ray cluster, see :func:`make_executor`) and
  with an SPRT early stop, reported as a frozen :class:`MatchResult` (score and Elo with 95%
  intervals); :func:`run_tournament` a round robin with fitted Elo ratings.
* :func:`record_to_json` / :func:`read_records` write and read one game per JSON line, so a
  match can be saved as it runs and replayed later.

Reproducibility: game ``i`` of a match is played with its own seed, derived from the match
seed and ``i`` alone (``SeedSequence(seed).spawn``), and every player is reset with seeds
derived from it, so with simulation budgets the records are the same whatever the number of
workers or the order in which games finish.

Nothing here prints; a front end renders the records.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import itertools
import json
import logging
import math
import multiprocessing
import os
import pickle
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Literal, Protocol, runtime_checkable

import numpy as np

from playout._src import elo as E
from playout._src.errors import GameError, InvalidParameterError, PlayoutError
from playout._src.evaluation import Rollout, RolloutPolicy
from playout._src.game import CHANCE, Game, GameState
from playout._src.rules import ProgressiveBias, parse_rule
from playout._src.search import MCTS, Budget

EngineFactory = Callable[..., Any]
"""Builds a search engine: ``factory(state, *, selection, evaluator, budget, seed)``.

The result must offer ``run() -> SearchResult`` and ``advance(action)`` like :class:`MCTS`
(the default factory).
"""

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""

RECORD_FORMAT = "playout-game/1"
"""The ``format`` field of a saved game line (see :func:`record_to_json`)."""


class MissingDependencyError(PlayoutError, ImportError):
    """An optional dependency (Ray, OpenSpiel) is needed but not installed."""


class RecordError(PlayoutError, ValueError):
    """A saved game file is unreadable, malformed or holds an illegal move."""


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
        return self._name

    def reset(self, state: GameState, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, state: GameState) -> int:
        return int(self._rng.choice(state.legal_actions()))

    def notify(self, action: int) -> None:
        pass

    def __repr__(self) -> str:
        return f"RandomPlayer({self._name!r})"


@dataclasses.dataclass(frozen=True, kw_only=True)
class MctsOptions:
    """Settings of an MCTS player, as parsed from its spec.

    Attributes:
        budget: limits of each move's search.
        rollout: ``"random"`` or ``"neighbors"`` (seed 004's policy; grid games only).
        num_rollouts: rollouts per leaf (seed 001 averages several).
        rule: selection rule name for :func:`~playout.parse_rule` (``ucb1``, ``puct``,
            ``epsilon``, ``rave``, ``pb``).
        c: the rule's parameter (exploration constant; epsilon for ``epsilon``), or ``None``
            for the rule's default.
        bias: the RAVE bias of ``rule="rave"`` (:class:`~playout.RAVE`), or ``None`` for
            its default.
        weight: the heuristic's weight of ``rule="pb"`` (:class:`~playout.ProgressiveBias`,
            with the game's move heuristic), or ``None`` for its default.
        reuse: keep the subtree between moves.
        solver: MCTS-Solver on or off (``MCTS(solver=...)``); ``None`` leaves the engine's
            default (on for deterministic games).
    """

    budget: Budget = dataclasses.field(default_factory=Budget)
    rollout: str = "random"
    num_rollouts: int = 1
    rule: str = "ucb1"
    c: float | None = None
    bias: float | None = None
    weight: float | None = None
    reuse: bool = True
    solver: bool | None = None

    def selection(self) -> Any:
        """The selection rule object."""
        options = {
            key: value
            for key, value in (("bias", self.bias), ("weight", self.weight))
            if value is not None
        }
        return parse_rule(self.rule if self.c is None else f"{self.rule}:{self.c!r}", **options)

    def evaluator(self, game: Game) -> Rollout:
        """The leaf evaluator (a rollout with the chosen policy)."""
        return Rollout(policy=rollout_policy(self.rollout, game), num_rollouts=self.num_rollouts)


def rollout_policy(name: str, game: Game) -> RolloutPolicy | None:
    """The rollout policy called ``name`` for ``game``: ``random`` (None) or ``neighbors``.

    Raises:
        InvalidParameterError: an unknown name, or ``neighbors`` for a non-grid game.
    """
    if name == "random":
        return None
    if name in ("neighbors", "neighbours", "neighbor", "neighbour"):
        from playout.games.mnk import MnkGame, neighbor_policy

        if not isinstance(game, MnkGame):
            raise InvalidParameterError(
                f"rollout=neighbors needs a grid game (mnk, tictactoe, gomoku), "
                f"not {game.spec.name}"
            )
        return neighbor_policy
    raise InvalidParameterError(f"unknown rollout {name!r}; choose random or neighbors")


class MctsPlayer:
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
        self._game = game
        self.options = MctsOptions() if options is None else options
        self._selection = self.options.selection()
        self._evaluator = self.options.evaluator(game)
        self._name = name
        self._factory: EngineFactory = MCTS if engine_factory is None else engine_factory
        self._engine: Any = None
        self._seed = 0
        self.last_result: Any = None

    @property
    def name(self) -> str:
        return self._name

    def _new_engine(self, state: GameState) -> Any:
        extra = {} if self.options.solver is None else {"solver": self.options.solver}
        return self._factory(
            state,
            selection=self._selection,
            evaluator=self._evaluator,
            budget=self.options.budget,
            seed=self._seed,
            **extra,
        )

    def reset(self, state: GameState, seed: int) -> None:
        self._seed = int(seed)
        self._engine = self._new_engine(state)
        self.last_result = None

    def choose(self, state: GameState) -> int:
        engine = self._engine
        if engine is None or getattr(engine, "root_state", None) != state:
            # Out of step (no reset, or moves not notified): search from scratch.
            self._seed += 1
            engine = self._engine = self._new_engine(state)
        self.last_result = engine.run()
        return int(self.last_result.best_action)

    def notify(self, action: int) -> None:
        engine = self._engine
        if engine is None:
            return
        if not self.options.reuse:
            self._engine = None
            return
        if engine.root_state.is_terminal():
            return
        engine.advance(action)

    def __repr__(self) -> str:
        return f"MctsPlayer({self._name!r})"


_MCTS_KEYS = (
    "simulations",
    "seconds",
    "rollout",
    "rollouts",
    "c",
    "rule",
    "epsilon",
    "bias",
    "weight",
    "reuse",
    "solver",
)
_YES = ("yes", "true", "1", "on")
_NO = ("no", "false", "0", "off")


def _parse_number(key: str, text: str, kind: type) -> Any:
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise InvalidParameterError(f"{key} must be {noun}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise InvalidParameterError(f"{key} must be a finite number, got {text!r}")
    return value


def _parse_yes_no(key: str, text: str) -> bool:
    lowered = text.lower()
    if lowered not in _YES + _NO:
        raise InvalidParameterError(f"{key} must be yes or no, got {text!r}")
    return lowered in _YES


def _parse_key_values(text: str, kind: str, keys: Sequence[str]) -> dict[str, str]:
    """``key=value`` pairs separated by commas, keys checked against ``keys``."""
    values: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise InvalidParameterError(f"expected key=value in player options, got {item!r}")
        if key not in keys:
            raise InvalidParameterError(f"unknown {kind} option {key!r}; known: {', '.join(keys)}")
        if key in values:
            raise InvalidParameterError(f"{kind} option {key!r} given twice")
        values[key] = value
    return values


def parse_mcts_options(text: str) -> MctsOptions:
    """Options from ``key=value`` pairs separated by commas (the part after ``mcts:``).

    Keys: ``simulations`` (> 0), ``seconds`` (> 0), ``rollout`` (``random``/``neighbors``),
    ``rollouts`` (per leaf, >= 1), ``rule`` (``ucb1``/``puct``/``epsilon``/``rave``/``pb``),
    ``c`` (the rule's constant), ``epsilon`` (same as ``c`` for ``rule=epsilon``), ``bias``
    (the RAVE bias, ``rule=rave``), ``weight`` (the progressive-bias weight, ``rule=pb``),
    ``reuse`` (``yes``/``no``), ``solver`` (``yes``/``no``: MCTS-Solver, Winands et al. 2008;
    default on).
    """
    values = _parse_key_values(text, "mcts", _MCTS_KEYS)
    simulations = seconds = None
    if "simulations" in values:
        simulations = _parse_number("simulations", values["simulations"], int)
        if simulations < 1:
            raise InvalidParameterError(f"simulations must be >= 1, got {simulations}")
    if "seconds" in values:
        seconds = _parse_number("seconds", values["seconds"], float)
        if seconds <= 0:
            raise InvalidParameterError(f"seconds must be > 0, got {seconds}")
    num_rollouts = 1
    if "rollouts" in values:
        num_rollouts = _parse_number("rollouts", values["rollouts"], int)
        if num_rollouts < 1:
            raise InvalidParameterError(f"rollouts must be >= 1, got {num_rollouts}")
    rule = values.get("rule", "ucb1").lower()
    if "c" in values and "epsilon" in values:
        raise InvalidParameterError("give c or epsilon, not both")
    c_text = values.get("c", values.get("epsilon"))
    c = None if c_text is None else _parse_number("c", c_text, float)
    if "epsilon" in values and rule not in ("epsilon", "epsilon-greedy", "egreedy"):
        raise InvalidParameterError("epsilon is a parameter of rule=epsilon")
    bias = _parse_number("bias", values["bias"], float) if "bias" in values else None
    weight = _parse_number("weight", values["weight"], float) if "weight" in values else None
    reuse = _parse_yes_no("reuse", values.get("reuse", "yes"))
    solver = _parse_yes_no("solver", values["solver"]) if "solver" in values else None
    options = MctsOptions(
        budget=Budget(simulations=simulations, seconds=seconds),
        rollout=values.get("rollout", "random").lower(),
        num_rollouts=num_rollouts,
        rule=rule,
        c=c,
        bias=bias,
        weight=weight,
        reuse=reuse,
        solver=solver,
    )
    options.selection()  # validate the rule and its constants now
    return options


# ------------------------------------------------------------------------------ OpenSpiel


def openspiel_game_string(game: Game) -> str:
    """The ``pyspiel.load_game`` string of the OpenSpiel game equal to ``game``.

    Tic-tac-toe is ``tic_tac_toe``, other m,n,k boards (gomoku included) ``mnk(m=W,n=H,k=K)``,
    connect four ``connect_four(columns=W,rows=H,x_in_row=K)``. Action ids agree: a square
    ``(x, y)`` is ``y * width + x`` in both, a connect-four move the 0-based column.

    Raises:
        InvalidParameterError: a game OpenSpiel has no equivalent of here.
    """
    from playout.games.connect4 import Connect4Game
    from playout.games.mnk import MnkGame

    if isinstance(game, MnkGame):
        if (game.width, game.height, game.k) == (3, 3, 3):
            return "tic_tac_toe"
        return f"mnk(m={game.width},n={game.height},k={game.k})"
    if isinstance(game, Connect4Game):
        return f"connect_four(columns={game.width},rows={game.height},x_in_row={game.k})"
    raise InvalidParameterError(
        f"openspiel-mcts plays tictactoe, mnk, gomoku and connect4, not {game.spec.name}"
    )


def _import_pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise MissingDependencyError(
            "player openspiel-mcts needs OpenSpiel: pip install open-spiel"
        ) from None
    return pyspiel


_OPENSPIEL_KEYS = ("simulations", "seconds", "c", "rollouts", "solve", "memory")


@dataclasses.dataclass(frozen=True, kw_only=True)
class OpenSpielMctsOptions:
    """Settings of OpenSpiel's C++ ``MCTSBot`` with random-rollout evaluation.

    Attributes:
        simulations: simulations per move (default 1000, or unlimited with ``seconds``).
        seconds: wall-clock limit per move (the bot's ``max_wall_clock_time``); with both,
            whichever comes first.
        c: UCT exploration constant (``uct_c``; OpenSpiel's examples use 2).
        num_rollouts: random rollouts per leaf.
        solve: the bot's own MCTS-Solver (off by default, as in the benchmark brief).
        max_memory_mb: the bot's tree memory limit.
    """

    simulations: int | None = None
    seconds: float | None = None
    c: float = 2.0
    num_rollouts: int = 1
    solve: bool = False
    max_memory_mb: int = 1000

    @property
    def max_simulations(self) -> int:
        if self.simulations is not None:
            return self.simulations
        return 2**31 - 1 if self.seconds is not None else 1000


def parse_openspiel_options(text: str) -> OpenSpielMctsOptions:
    """Options of ``openspiel-mcts:``: ``simulations``, ``seconds``, ``c``, ``rollouts``,
    ``solve`` (yes/no), ``memory`` (MB)."""
    values = _parse_key_values(text, "openspiel-mcts", _OPENSPIEL_KEYS)
    options: dict[str, Any] = {}
    for key, field, kind, low in (
        ("simulations", "simulations", int, 1),
        ("rollouts", "num_rollouts", int, 1),
        ("memory", "max_memory_mb", int, 1),
    ):
        if key in values:
            options[field] = _parse_number(key, values[key], kind)
            if options[field] < low:
                raise InvalidParameterError(f"{key} must be >= {low}, got {options[field]}")
    for key in ("seconds", "c"):
        if key in values:
            options[key] = _parse_number(key, values[key], float)
            if options[key] <= 0:
                raise InvalidParameterError(f"{key} must be > 0, got {options[key]}")
    if "solve" in values:
        options["solve"] = _parse_yes_no("solve", values["solve"])
    return OpenSpielMctsOptions(**options)


class OpenSpielMctsPlayer:
    """OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``, UCT with random rollouts) as a player.

    The bot searches an OpenSpiel state kept in step with the game by replaying every action
    it is notified of (the action ids of the built-in games and OpenSpiel's agree; see
    :func:`openspiel_game_string`). A new bot, seeded from the game seed, starts every game.

    Raises:
        MissingDependencyError: OpenSpiel is not installed.
        InvalidParameterError: a game without an OpenSpiel equivalent.
    """

    def __init__(
        self,
        game: Game,
        options: OpenSpielMctsOptions | None = None,
        *,
        name: str = "openspiel-mcts",
    ) -> None:
        self._pyspiel = _import_pyspiel()
        self._game = game
        self.options = OpenSpielMctsOptions() if options is None else options
        self._os_game = self._pyspiel.load_game(openspiel_game_string(game))
        self._name = name
        self._bot: Any = None
        self._os_state: Any = None

    @property
    def name(self) -> str:
        return self._name

    def reset(self, state: GameState, seed: int) -> None:
        if state != self._game.initial_state():
            raise GameError("openspiel-mcts can only start from the initial position")
        pyspiel, options = self._pyspiel, self.options
        bot_seed = int(seed) % 2**31
        evaluator = pyspiel.RandomRolloutEvaluator(options.num_rollouts, bot_seed)
        self._bot = pyspiel.MCTSBot(
            self._os_game,
            evaluator,
            options.c,
            options.max_simulations,
            options.max_memory_mb,
            options.solve,
            bot_seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            -1.0 if options.seconds is None else options.seconds,
        )
        self._os_state = self._os_game.new_initial_state()

    def choose(self, state: GameState) -> int:
        os_state = self._os_state
        if (
            self._bot is None
            or os_state.current_player() != state.current_player()
            or sorted(os_state.legal_actions()) != sorted(state.legal_actions())
        ):
            raise GameError(
                "openspiel-mcts is out of step with the game (reset and notify every action)"
            )
        return int(self._bot.step(os_state))

    def notify(self, action: int) -> None:
        if self._os_state is not None and not self._os_state.is_terminal():
            self._os_state.apply_action(int(action))

    def __repr__(self) -> str:
        return f"OpenSpielMctsPlayer({self._name!r})"


# ------------------------------------------------------------------------------ player specs


def parse_player(spec: str, game: Game, *, engine_factory: EngineFactory | None = None) -> Player:
    """Build a player from its spec.

    Specs:

    * ``random``: a uniformly random legal move;
    * ``mcts`` (1000 simulations per move, UCB1, random rollouts, solver on) or ``mcts:``
      followed by options, e.g. ``mcts:simulations=400``, ``mcts:seconds=0.1``,
      ``mcts:simulations=200,rollout=neighbors,c=1.0,solver=no`` (see
      :func:`parse_mcts_options`);
    * ``perfect``: exact game-theoretic play on small boards (:mod:`playout._src.perfect`);
    * ``openspiel-mcts[:simulations=N,seconds=S,c=C,rollouts=N,solve=yes|no,memory=MB]``:
      OpenSpiel's C++ MCTS (needs ``open-spiel``).

    Raises:
        InvalidParameterError: an unknown player, a bad option, or a game the player cannot
            play (``perfect`` on a large board).
        MissingDependencyError: ``openspiel-mcts`` without OpenSpiel.
    """
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind == "random":
        if rest.strip():
            raise InvalidParameterError(f"player 'random' takes no options, got {spec!r}")
        return RandomPlayer(name=text)
    if kind == "mcts":
        options = parse_mcts_options(rest)
        rollout_policy(options.rollout, game)  # fail now, not mid-match
        selection = options.selection()
        if (
            isinstance(selection, ProgressiveBias)
            and selection.heuristic is None
            and not hasattr(game, "move_heuristic")
        ):
            raise InvalidParameterError(
                f"rule=pb needs a game with a move heuristic (mnk, tictactoe, gomoku), "
                f"not {game.spec.name}"
            )
        return MctsPlayer(game, options, name=text, engine_factory=engine_factory)
    if kind == "perfect":
        if rest.strip():
            raise InvalidParameterError(f"player 'perfect' takes no options, got {spec!r}")
        from playout._src.perfect import PerfectPlayer

        return PerfectPlayer(game, name=text)
    if kind in ("openspiel-mcts", "openspiel_mcts"):
        return OpenSpielMctsPlayer(game, parse_openspiel_options(rest), name=text)
    raise InvalidParameterError(
        f"unknown player {spec!r}; use random, perfect, mcts[:key=value,...] "
        "(e.g. mcts:simulations=400,rollout=neighbors) or openspiel-mcts[:simulations=N]"
    )


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One finished game.

    Attributes:
        actions: every action played, in order (chance actions included).
        returns: final return of each player (player 0 moved first).
        players: names of the players as player 0 and player 1.
        seed: the seed the game was played with.
        seconds: wall-clock duration.
        index: the game's number in its match or tournament (0-based).
    """

    actions: tuple[int, ...]
    returns: tuple[float, ...]
    players: tuple[str, ...]
    seed: int
    seconds: float
    index: int = 0

    @property
    def winner(self) -> int | None:
        """Player id with the strictly highest return, or ``None`` for a draw."""
        best = max(self.returns)
        leaders = [p for p, r in enumerate(self.returns) if r == best]
        return leaders[0] if len(leaders) == 1 else None

    @property
    def num_moves(self) -> int:
        return len(self.actions)

    @property
    def result_text(self) -> str:
        """``1-0`` (player 0 won), ``0-1`` or ``1/2-1/2``."""
        winner = self.winner
        return "1/2-1/2" if winner is None else "1-0" if winner == 0 else "0-1"


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a match seeded ``seed`` (independent of the game count)."""
    child = np.random.SeedSequence(int(seed), spawn_key=(int(index),))
    return int(child.generate_state(1, dtype=np.uint64)[0] >> 1)


def _sub_seeds(seed: int, count: int) -> list[int]:
    return [game_seed(seed, index) for index in range(count)]


def play_game(game: Game, p0: Player, p1: Player, seed: int = 0, *, index: int = 0) -> GameRecord:
    """Play one game of a two-player game; ``p0`` moves first (is player 0).

    Both players are reset with seeds derived from ``seed``; chance actions, if any, are drawn
    from a generator seeded the same way. The same seed and players give the same game when
    the players' budgets are simulation counts. ``index`` is only stored in the record.

    Raises:
        GameError: a player returned an illegal action.
    """
    if game.spec.num_players != 2:
        raise InvalidParameterError(
            f"{game.spec.name} is a {game.spec.num_players}-player game; a match needs two"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    seed0, seed1, chance_seed = _sub_seeds(seed, 3)
    chance_rng = random.Random(chance_seed)
    players = (p0, p1)
    state = game.initial_state()
    start = time.perf_counter()
    p0.reset(state, seed0)
    p1.reset(state, seed1)
    actions: list[int] = []
    limit = game.spec.max_length
    while not state.is_terminal():
        mover = state.current_player()
        if mover == CHANCE:
            outcomes = state.chance_outcomes()  # type: ignore[attr-defined]
            action = int(chance_rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            player = players[mover]
            action = int(player.choose(state))
            if action not in state.legal_actions():
                raise GameError(f"player {player.name!r} chose illegal action {action}")
        for player in players:
            player.notify(action)
        state = state.play(action)
        actions.append(action)
        if limit is not None and len(actions) > limit:
            raise GameError(f"{game.spec.name}: game longer than max_length={limit}")
    return GameRecord(
        actions=tuple(actions),
        returns=tuple(float(r) for r in state.returns()),
        players=(p0.name, p1.name),
        seed=seed,
        seconds=time.perf_counter() - start,
        index=index,
    )


def wilson_interval(score: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``score`` observed over ``n`` trials.

    Used for a match score with draws counted as half a win. Per-game scores in {0, 1/2, 1}
    have a variance of at most ``score * (1 - score)``, so with draws the interval is
    conservative (a little wide). Unlike the plain normal approximation it stays inside
    [0, 1] and does not collapse to a point after a clean sweep. ``(0, 1)`` when ``n == 0``.
    """
    if n <= 0:
        return (0.0, 1.0)
    denominator = 1.0 + z * z / n
    centre = (score + z * z / (2 * n)) / denominator
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denominator
    # The interval always contains the observed score; clamp away rounding at 0 and 1.
    return (max(0.0, min(score, centre - half)), min(1.0, max(score, centre + half)))


# ------------------------------------------------------------------------------ executors


@dataclasses.dataclass(frozen=True)
class GameJob:
    """One game to play, self-contained so that it can be sent to another process.

    Attributes:
        game: the game.
        players: player 0 (moves first) and player 1, as specs or (picklable) players.
        index: the game's number (stored in the record).
        seed: the game's seed (see :func:`game_seed`).
        engine_factory: builds MCTS players' engines (``None``: :class:`MCTS`).
    """

    game: Game
    players: tuple[str | Player, str | Player]
    index: int
    seed: int
    engine_factory: EngineFactory | None = None


def play_job(job: GameJob) -> GameRecord:
    """Play ``job`` (module level, so that worker processes and Ray can import it)."""
    p0 = _as_player(job.players[0], job.game, job.engine_factory)
    p1 = _as_player(job.players[1], job.game, job.engine_factory)
    return play_game(job.game, p0, p1, job.seed, index=job.index)


class GameExecutor(Protocol):
    """Plays batches of games somewhere (this process, a process pool, a Ray cluster)."""

    workers: int
    """How many games it plays at once (the batch size of an SPRT match)."""

    def run(self, jobs: Sequence[GameJob]) -> Iterator[GameRecord]:
        """Play every job; yield the records as games finish (in any order)."""
        ...

    def close(self) -> None:
        """Release workers."""
        ...


class LocalExecutor:
    """Plays the games one after the other in this process."""

    workers = 1

    def run(self, jobs: Sequence[GameJob]) -> Iterator[GameRecord]:
        for job in jobs:
            yield play_job(job)

    def close(self) -> None:
        pass


class PoolExecutor:
    """Plays games in parallel in a local pool of ``workers`` processes.

    The processes come from a ``forkserver`` context (``spawn`` where there is none): no
    process is forked from a parent that may hold threads (numba, Ray). They start on the first
    batch and are reused until :meth:`close`.
    """

    def __init__(self, workers: int) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
        self.workers = workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def run(self, jobs: Sequence[GameJob]) -> Iterator[GameRecord]:
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in methods else "spawn"
            )
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context
            )
        futures = [self._pool.submit(play_job, job) for job in jobs]
        try:
            for future in concurrent.futures.as_completed(futures):
                try:
                    record = future.result()
                except concurrent.futures.process.BrokenProcessPool:
                    raise GameError(
                        "a worker process died (out of memory, or killed); "
                        "try fewer workers or --workers 1"
                    ) from None
                yield record
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingDependencyError(
            "the Ray executor needs Ray: pip install 'ray' (or playout[ray])"
        ) from None
    return ray


class RayExecutor:
    """Plays games as Ray tasks (one CPU each) on a Ray cluster.

    Connects on the first batch: to a running Ray (``ray.is_initialized()``) as it is, else
    ``ray.init(address=address)``, or a new local instance with ``workers`` CPUs when
    ``address`` is ``None``. Every node needs playout installed; for a local instance the
    directory playout is imported from is put on the workers' ``PYTHONPATH``.

    Raises:
        MissingDependencyError: Ray is not installed (when the executor is built).
    """

    def __init__(self, workers: int, address: str | None = None) -> None:
        self._ray = _import_ray()
        self.workers = workers
        self._address = address
        self._remote: Any = None
        self._started = False

    def _connect(self) -> Any:
        ray = self._ray
        if self._remote is None:
            if not ray.is_initialized():
                if self._address is None:
                    package_root = str(Path(__file__).resolve().parents[2])
                    path = os.pathsep.join(
                        p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p
                    )
                    ray.init(
                        num_cpus=self.workers,
                        include_dashboard=False,
                        log_to_driver=False,
                        logging_level=logging.WARNING,
                        runtime_env={"env_vars": {"PYTHONPATH": path}},
                    )
                else:
                    ray.init(
                        address=self._address, log_to_driver=False, logging_level=logging.WARNING
                    )
                self._started = True
            self._remote = ray.remote(play_job)
        return self._remote

    def run(self, jobs: Sequence[GameJob]) -> Iterator[GameRecord]:
        remote = self._connect()
        ray = self._ray
        pending = [remote.remote(job) for job in jobs]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False
        self._remote = None


ExecutorKind = Literal["local", "pool", "ray"]


def make_executor(
    kind: ExecutorKind | None = None, workers: int = 1, *, ray_address: str | None = None
) -> GameExecutor:
    """An executor by name: ``local`` (this process), ``pool`` (``workers`` processes) or
    ``ray``; ``None`` picks ``local`` for one worker and ``pool`` otherwise.

    Raises:
        InvalidParameterError: an unknown kind or a bad worker count.
        MissingDependencyError: ``ray`` without Ray installed.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
    if kind is None:
        kind = "local" if workers == 1 else "pool"
    if kind == "local":
        return LocalExecutor()
    if kind == "pool":
        return PoolExecutor(workers)
    if kind == "ray":
        return RayExecutor(workers, ray_address)
    raise InvalidParameterError(f"unknown executor {kind!r}; choose local, pool or ray")


def _resolve_executor(
    executor: ExecutorKind | GameExecutor | None, workers: int, ray_address: str | None
) -> tuple[GameExecutor, bool]:
    """The executor to use and whether it is ours to close (built here from a name)."""
    if executor is None or isinstance(executor, str):
        return make_executor(executor, workers, ray_address=ray_address), True
    return executor, False


def _check_picklable(item: Any) -> None:
    try:
        pickle.dumps(item)
    except Exception as error:  # any pickling failure means the same thing
        raise InvalidParameterError(
            f"{item!r} cannot be sent to a worker process ({error}); pass a spec string or "
            "use workers=1"
        ) from None


# ------------------------------------------------------------------------------ saved games


def game_params(game: Game) -> dict[str, Any]:
    """The registry parameters that rebuild ``game`` with ``make_game(name, **params)``."""
    from playout._src.registry import game_names, game_parameters

    name = game.spec.name
    if name not in game_names():
        return {}
    return {key: getattr(game, key) for key in game_parameters(name) if hasattr(game, key)}


def record_to_json(
    game: Game, record: GameRecord, *, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """One game as a JSON-ready object (one line of a saved file).

    Keys: ``format`` (:data:`RECORD_FORMAT`), ``game`` and ``params`` (for
    :func:`~playout.make_game`), ``index``, ``seed``, ``players`` (player 0 first),
    ``actions`` (ids), ``moves`` (the game's notation), ``returns``, ``winner`` (player id or
    null), ``result`` (``1-0``, ``0-1``, ``1/2-1/2``), ``seconds``, then ``extra``.
    """
    state = game.initial_state()
    moves = []
    for action in record.actions:
        moves.append(game.action_to_string(state, action))
        state = state.play(action)
    data: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": game.spec.name,
        "params": game_params(game),
        "index": record.index,
        "seed": record.seed,
        "players": list(record.players),
        "actions": list(record.actions),
        "moves": moves,
        "returns": list(record.returns),
        "winner": record.winner,
        "result": record.result_text,
        "seconds": round(record.seconds, 4),
    }
    if extra:
        data.update(extra)
    return data


class RecordWriter:
    """Appends one JSON line per game to a file, flushed and synced as each game ends.

    A line is written with a single ``write`` of the whole line, so an interrupted run leaves
    every finished game readable. The file is truncated when the writer opens it.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self._file: IO[str] = open(self.path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise InvalidParameterError(f"cannot write {str(path)!r}: {error.strerror}") from None

    def write(self, data: Mapping[str, Any]) -> None:
        self._file.write(json.dumps(data, separators=(",", ":")) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclasses.dataclass(frozen=True)
class SavedGame:
    """A game read back from a saved file, checked move by move.

    Attributes:
        line: its line number in the file (1-based).
        data: the JSON object as written.
        game: the game rebuilt from ``data["game"]`` and ``data["params"]``.
        states: every position, the initial one first and the final one last.
    """

    line: int
    data: Mapping[str, Any]
    game: Game
    states: tuple[GameState, ...]

    @property
    def index(self) -> int:
        return int(self.data.get("index", self.line - 1))

    @property
    def actions(self) -> tuple[int, ...]:
        return tuple(self.data["actions"])


def read_records(path: str | os.PathLike[str]) -> list[SavedGame]:
    """Read and check a file written by :class:`RecordWriter` (blank lines are skipped).

    Every line must be a JSON object with ``game`` (a registered name), ``params`` (an object)
    and ``actions`` (a list of action ids legal in turn from the initial position, ending the
    game); ``returns``, when present, must match the final position.

    Raises:
        RecordError: an unreadable file, bad JSON, a missing field, an unknown game or an
            illegal move (the message names the line).
    """
    from playout._src.registry import make_game

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise RecordError(f"cannot read {str(path)!r}: {reason}") from None
    games: list[SavedGame] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(f"{where}: not valid JSON ({error.msg})") from None
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected a JSON object")
        name, params, actions = data.get("game"), data.get("params", {}), data.get("actions")
        if not isinstance(name, str):
            raise RecordError(f"{where}: missing 'game' (the game's name)")
        if not isinstance(params, dict):
            raise RecordError(f"{where}: 'params' must be an object")
        if not isinstance(actions, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions
        ):
            raise RecordError(f"{where}: 'actions' must be a list of action ids")
        try:
            game = make_game(name, **params)
        except PlayoutError as error:
            raise RecordError(f"{where}: {error}") from None
        state = game.initial_state()
        states = [state]
        for move, action in enumerate(actions, start=1):
            if state.is_terminal() or action not in state.legal_actions():
                reason = "the game is already over" if state.is_terminal() else "illegal"
                raise RecordError(f"{where}: move {move} (action {action}): {reason}")
            state = state.play(action)
            states.append(state)
        if not state.is_terminal():
            raise RecordError(f"{where}: the game does not end after {len(actions)} moves")
        returns = data.get("returns")
        if returns is not None and [float(r) for r in returns] != [
            float(r) for r in state.returns()
        ]:
            raise RecordError(f"{where}: 'returns' {returns} do not match the final position")
        games.append(SavedGame(line=number, data=data, game=game, states=tuple(states)))
    if not games:
        raise RecordError(f"{path}: no games in the file")
    return games


# ------------------------------------------------------------------------------ matches


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A series of games between two players, counted from the first player's (p1's) side.

    Game ``i`` has p1 moving first when ``i`` is even, p2 when ``i`` is odd.

    Attributes:
        game: the game's registry name.
        p1, p2: the player specs.
        records: every game, in order of index.
        seed: the match seed.
        sprt: where the sequential test stood when the match ended (``None`` without one).
        planned_games: the games asked for (more than played after an SPRT stop).
    """

    game: str
    p1: str
    p2: str
    records: tuple[GameRecord, ...]
    seed: int
    sprt: E.SprtStatus | None = None
    planned_games: int | None = None

    def p1_seat(self, index: int) -> int:
        """Player id (0 = first to move) p1 had in game ``index``."""
        return index % 2

    def outcomes(self) -> tuple[float, ...]:
        """p1's score in each game: 1 win, 0.5 draw, 0 loss."""
        scores = []
        for index, record in enumerate(self.records):
            winner = record.winner
            seat = self.p1_seat(index)
            scores.append(0.5 if winner is None else 1.0 if winner == seat else 0.0)
        return tuple(scores)

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def wins(self) -> int:
        """Games p1 won."""
        return sum(1 for s in self.outcomes() if s == 1.0)

    @property
    def draws(self) -> int:
        return sum(1 for s in self.outcomes() if s == 0.5)

    @property
    def losses(self) -> int:
        """Games p1 lost."""
        return sum(1 for s in self.outcomes() if s == 0.0)

    @property
    def score(self) -> float:
        """p1's score ``(wins + draws / 2) / games`` (0.5 when no game was played)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def confidence_interval(self) -> tuple[float, float]:
        """95% Wilson score interval of p1's score (see :func:`wilson_interval`)."""
        return wilson_interval(self.score, self.games)

    @property
    def elo(self) -> float:
        """p1's Elo advantage from the score, clamped to +-800 (:func:`~elo.elo_from_score`)."""
        return E.elo_from_score(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """The 95% score interval in Elo (clamped to +-800)."""
        return E.elo_interval(*self.confidence_interval)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no per-move records, only per-game results)."""
        low, high = self.confidence_interval
        elo_low, elo_high = self.elo_interval
        return {
            "game": self.game,
            "p1": self.p1,
            "p2": self.p2,
            "games": self.games,
            "planned_games": self.games if self.planned_games is None else self.planned_games,
            "seed": self.seed,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "ci95": [low, high],
            "ci_method": "wilson",
            "elo": self.elo,
            "elo_ci95": [elo_low, elo_high],
            "elo_limit": E.ELO_LIMIT,
            "sprt": None if self.sprt is None else self.sprt.as_dict(),
            "results": [
                {
                    "index": i,
                    "p1_first": self.p1_seat(i) == 0,
                    "p1_score": s,
                    "moves": r.num_moves,
                    "seconds": r.seconds,
                }
                for i, (r, s) in enumerate(zip(self.records, self.outcomes(), strict=True))
            ],
        }


MatchProgress = Callable[[int, GameRecord], None]
"""Called after each game with the number of games done and the game's record."""


def _check_match_args(game: Game, games: int, seed: int) -> None:
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InvalidParameterError(f"games must be a whole number >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    if game.spec.num_players != 2:
        raise InvalidParameterError(
            f"{game.spec.name} is a {game.spec.num_players}-player game; a match needs two"
        )


def _job_players(
    executor: GameExecutor, specs: Sequence[str | Player], players: Sequence[Player]
) -> list[str | Player]:
    """What a job carries: the built players in this process, else specs (or the players,
    pickled) for workers that build their own."""
    if isinstance(executor, LocalExecutor):
        return list(players)
    for spec in specs:
        if not isinstance(spec, str):
            _check_picklable(spec)
    return list(specs)


def run_match(
    game: Game,
    spec1: str | Player,
    spec2: str | Player,
    games: int,
    seed: int = 0,
    progress: MatchProgress | None = None,
    *,
    engine_factory: EngineFactory | None = None,
    workers: int = 1,
    executor: ExecutorKind | GameExecutor | None = None,
    sprt: E.Sprt | None = None,
    save: str | os.PathLike[str] | None = None,
    ray_address: str | None = None,
) -> MatchResult:
    """Play ``games`` games between two players, alternating who moves first.

    Args:
        game: a two-player game.
        spec1, spec2: player specs (see :func:`parse_player`) or ready players (which must
            pickle to run in other processes).
        games: number of games (>= 1); p1 moves first in games 0, 2, 4, ...
        seed: match seed; game ``i`` is played with ``game_seed(seed, i)``.
        progress: called after each game (in the order games finish).
        engine_factory: builds the MCTS players' engines (default :class:`MCTS`).
        workers: games played at once (and the batch size of an SPRT match).
        executor: ``"local"``, ``"pool"``, ``"ray"``, an executor object (left open), or
            ``None`` for ``local`` with one worker and ``pool`` otherwise.
        sprt: stop as soon as this test decides; games then run in batches of ``workers``
            and the test is checked after each batch.
        save: write every game as a JSON line to this file as soon as it ends.
        ray_address: the cluster for ``executor="ray"`` (default: a local instance).

    Returns:
        The :class:`MatchResult`, counted from p1's side.
    """
    _check_match_args(game, games, seed)
    player1 = _as_player(spec1, game, engine_factory)  # built here: bad specs fail at once
    player2 = _as_player(spec2, game, engine_factory)
    # No worker starts before the first batch: nothing to close if setting up fails.
    runner, own_executor = _resolve_executor(executor, min(workers, games), ray_address)
    pair = _job_players(runner, (spec1, spec2), (player1, player2))
    jobs = [
        GameJob(
            game=game,
            players=(pair[0], pair[1]) if index % 2 == 0 else (pair[1], pair[0]),
            index=index,
            seed=game_seed(seed, index),
            engine_factory=engine_factory,
        )
        for index in range(games)
    ]
    writer = RecordWriter(save) if save is not None else None
    extra = {"p1": player1.name, "p2": player2.name}
    records: dict[int, GameRecord] = {}
    status: E.SprtStatus | None = None
    batch = games if sprt is None else max(1, runner.workers)
    try:
        for start in range(0, games, batch):
            for record in runner.run(jobs[start : start + batch]):
                records[record.index] = record
                if writer is not None:
                    writer.write(record_to_json(game, record, extra=extra))
                if progress is not None:
                    progress(len(records), record)
            if sprt is not None:
                partial = MatchResult(game.spec.name, "", "", _in_order(records), seed)
                status = sprt.status(partial.losses, partial.draws, partial.wins)
                if status.decision is not None:
                    break
    finally:
        if writer is not None:
            writer.close()
        if own_executor:
            runner.close()
    return MatchResult(
        game=game.spec.name,
        p1=player1.name,
        p2=player2.name,
        records=_in_order(records),
        seed=seed,
        sprt=status,
        planned_games=games,
    )


def _in_order(records: Mapping[int, GameRecord]) -> tuple[GameRecord, ...]:
    return tuple(records[index] for index in sorted(records))


def _as_player(spec: str | Player, game: Game, factory: EngineFactory | None) -> Player:
    if isinstance(spec, str):
        return parse_player(spec, game, engine_factory=factory)
    return spec


# ------------------------------------------------------------------------------ tournaments


@dataclasses.dataclass(frozen=True)
class Standing:
    """One player's line in a tournament table.

    Attributes:
        player: its spec.
        rating: fitted Elo rating (see :func:`~elo.fit_ratings`).
        games, wins, draws, losses: its games.
        score: points per game (a draw is half a point).
    """

    player: str
    rating: float
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5


@dataclasses.dataclass(frozen=True)
class TournamentResult:
    """A round robin: every pair of players met ``games_per_pair`` times.

    Attributes:
        game: the game's registry name.
        players: the player specs, in the order given.
        games_per_pair: games of each pairing (the first-named player of a pair moves first in
            the pairing's even-numbered games).
        seed: the tournament seed.
        records: every game, in order of index.
        pairings: for each record, the positions in ``players`` of player 0 and player 1.
        prior_draws, anchor: the rating fit's settings (see :func:`~elo.fit_ratings`).
    """

    game: str
    players: tuple[str, ...]
    games_per_pair: int
    seed: int
    records: tuple[GameRecord, ...]
    pairings: tuple[tuple[int, int], ...]
    prior_draws: float = 1.0
    anchor: int | None = None

    def points(self) -> tuple[list[list[float]], list[list[float]]]:
        """``(scores, games)``: points of ``i`` against ``j`` and games between them."""
        size = len(self.players)
        scores = [[0.0] * size for _ in range(size)]
        games = [[0.0] * size for _ in range(size)]
        for record, (first, second) in zip(self.records, self.pairings, strict=True):
            winner = record.winner
            games[first][second] += 1
            games[second][first] += 1
            if winner is None:
                scores[first][second] += 0.5
                scores[second][first] += 0.5
            else:
                scores[first if winner == 0 else second][second if winner == 0 else first] += 1
        return scores, games

    def ratings(self) -> list[float]:
        """Fitted Elo ratings, one per player."""
        scores, games = self.points()
        return E.fit_ratings(scores, games, prior_draws=self.prior_draws, anchor=self.anchor)

    def standings(self) -> list[Standing]:
        """The table, best rating first."""
        size = len(self.players)
        counts = [[0, 0, 0] for _ in range(size)]  # wins, draws, losses
        for record, seats in zip(self.records, self.pairings, strict=True):
            winner = record.winner
            for seat, player in enumerate(seats):
                counts[player][1 if winner is None else 0 if winner == seat else 2] += 1
        rows = [
            Standing(
                player=self.players[i],
                rating=rating,
                games=sum(counts[i]),
                wins=counts[i][0],
                draws=counts[i][1],
                losses=counts[i][2],
            )
            for i, rating in enumerate(self.ratings())
        ]
        return sorted(rows, key=lambda row: -row.rating)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary: the table and the cross table of points."""
        scores, games = self.points()
        return {
            "game": self.game,
            "players": list(self.players),
            "games_per_pair": self.games_per_pair,
            "games": len(self.records),
            "seed": self.seed,
            "rating_method": "bradley-terry maximum likelihood, draws as half a win",
            "prior_draws": self.prior_draws,
            "anchor": "mean" if self.anchor is None else self.players[self.anchor],
            "standings": [
                {
                    "player": row.player,
                    "rating": row.rating,
                    "games": row.games,
                    "wins": row.wins,
                    "draws": row.draws,
                    "losses": row.losses,
                    "score": row.score,
                }
                for row in self.standings()
            ],
            "points": scores,
            "pair_games": games,
        }


def run_tournament(
    game: Game,
    specs: Sequence[str | Player],
    games_per_pair: int,
    seed: int = 0,
    progress: MatchProgress | None = None,
    *,
    engine_factory: EngineFactory | None = None,
    workers: int = 1,
    executor: ExecutorKind | GameExecutor | None = None,
    save: str | os.PathLike[str] | None = None,
    ray_address: str | None = None,
    prior_draws: float = 1.0,
    anchor: int | None = None,
) -> TournamentResult:
    """A round robin: each pair of ``specs`` plays ``games_per_pair`` games, alternating.

    Pairs are taken in order (``(0, 1), (0, 2), ..., (1, 2), ...``); all games are numbered in
    that order and game ``k`` is played with ``game_seed(seed, k)``, so the records do not
    depend on the executor. See :func:`run_match` for the other arguments.

    Raises:
        InvalidParameterError: fewer than two players, or bad arguments.
    """
    if len(specs) < 2:
        raise InvalidParameterError(f"a tournament needs at least two players, got {len(specs)}")
    _check_match_args(game, games_per_pair, seed)
    if anchor is not None and not 0 <= anchor < len(specs):
        raise InvalidParameterError(f"anchor must be a player's position, got {anchor}")
    players = [_as_player(spec, game, engine_factory) for spec in specs]
    pairs = list(itertools.combinations(range(len(specs)), 2))
    total = len(pairs) * games_per_pair
    # No worker starts before the first batch: nothing to close if setting up fails.
    runner, own_executor = _resolve_executor(executor, min(workers, total), ray_address)
    carried = _job_players(runner, specs, players)
    jobs: list[GameJob] = []
    seats: list[tuple[int, int]] = []
    for first, second in pairs:
        for round_ in range(games_per_pair):
            seat = (first, second) if round_ % 2 == 0 else (second, first)
            seats.append(seat)
            jobs.append(
                GameJob(
                    game=game,
                    players=(carried[seat[0]], carried[seat[1]]),
                    index=len(jobs),
                    seed=game_seed(seed, len(jobs)),
                    engine_factory=engine_factory,
                )
            )
    writer = RecordWriter(save) if save is not None else None
    records: dict[int, GameRecord] = {}
    try:
        for record in runner.run(jobs):
            records[record.index] = record
            if writer is not None:
                extra = {"seats": list(seats[record.index])}
                writer.write(record_to_json(game, record, extra=extra))
            if progress is not None:
                progress(len(records), record)
    finally:
        if writer is not None:
            writer.close()
        if own_executor:
            runner.close()
    return TournamentResult(
        game=game.spec.name,
        players=tuple(p.name for p in players),
        games_per_pair=games_per_pair,
        seed=seed,
        records=_in_order(records),
        pairings=tuple(seats),
        prior_draws=prior_draws,
        anchor=anchor,
    )


def describe_players() -> Mapping[str, str]:
    """Player kinds and a one-line description of each (for help texts)."""
    return {
        "random": "uniformly random legal moves",
        "mcts": "MCTS; options simulations=N, seconds=S, rollout=random|neighbors, "
        "rollouts=N, rule=ucb1|puct|epsilon|rave|pb, c=X, bias=B (rave), weight=W (pb), "
        "reuse=yes|no, solver=yes|no",
        "perfect": "exact game-theoretic play (tic-tac-toe and boards up to 12 squares)",
        "openspiel-mcts": "OpenSpiel's C++ MCTS with random rollouts; options simulations=N, "
        "seconds=S, c=X, rollouts=N, solve=yes|no, memory=MB (needs open-spiel)",
    }


__all__ = [
    "RECORD_FORMAT",
    "EngineFactory",
    "ExecutorKind",
    "GameExecutor",
    "GameJob",
    "GameRecord",
    "LocalExecutor",
    "MatchProgress",
    "MatchResult",
    "MctsOptions",
    "MctsPlayer",
    "MissingDependencyError",
    "OpenSpielMctsOptions",
    "OpenSpielMctsPlayer",
    "Player",
    "PoolExecutor",
    "RandomPlayer",
    "RayExecutor",
    "RecordError",
    "RecordWriter",
    "SavedGame",
    "Standing",
    "TournamentResult",
    "describe_players",
    "game_params",
    "game_seed",
    "make_executor",
    "openspiel_game_string",
    "parse_mcts_options",
    "parse_openspiel_options",
    "parse_player",
    "play_game",
    "play_job",
    "read_records",
    "record_to_json",
    "rollout_policy",
    "run_match",
    "run_tournament",
    "wilson_interval",
]
