"""Players and matches: programs playing each other (seed 004's MCTS-vs-MCTS self-play).

* :class:`Player` is the protocol a program follows: :meth:`~Player.reset` at the start of a
  game, :meth:`~Player.choose` when it is to move, :meth:`~Player.notify` after every action
  played by either side (so a search can keep its tree between moves).
* :func:`parse_player` builds a player from a spec string such as ``"random"`` or
  ``"mcts:simulations=200,rollout=neighbors"``.
* :func:`play_game` plays one game, :func:`run_match` a series with alternating first player,
  reported as a frozen :class:`MatchResult` (score with a 95% confidence interval).

Nothing here prints; a front end renders the records.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from playout._src.errors import GameError, InvalidParameterError
from playout._src.evaluation import Rollout, RolloutPolicy
from playout._src.game import CHANCE, Game, GameState
from playout._src.rules import parse_rule
from playout._src.search import MCTS, Budget

EngineFactory = Callable[..., Any]
"""Builds a search engine: ``factory(state, *, selection, evaluator, budget, seed)``.

The result must offer ``run() -> SearchResult`` and ``advance(action)`` like :class:`MCTS`
(the default factory).
"""

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""


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
            ``epsilon``).
        c: the rule's parameter (exploration constant; epsilon for ``epsilon``), or ``None``
            for the rule's default.
        reuse: keep the subtree between moves.
    """

    budget: Budget = dataclasses.field(default_factory=Budget)
    rollout: str = "random"
    num_rollouts: int = 1
    rule: str = "ucb1"
    c: float | None = None
    reuse: bool = True

    def selection(self) -> Any:
        """The selection rule object."""
        return parse_rule(self.rule if self.c is None else f"{self.rule}:{self.c!r}")

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
        return self._factory(
            state,
            selection=self._selection,
            evaluator=self._evaluator,
            budget=self.options.budget,
            seed=self._seed,
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


_MCTS_KEYS = ("simulations", "seconds", "rollout", "rollouts", "c", "rule", "epsilon", "reuse")


def _parse_number(key: str, text: str, kind: type) -> Any:
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise InvalidParameterError(f"{key} must be {noun}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise InvalidParameterError(f"{key} must be a finite number, got {text!r}")
    return value


def parse_mcts_options(text: str) -> MctsOptions:
    """Options from ``key=value`` pairs separated by commas (the part after ``mcts:``).

    Keys: ``simulations`` (> 0), ``seconds`` (> 0), ``rollout`` (``random``/``neighbors``),
    ``rollouts`` (per leaf, >= 1), ``rule`` (``ucb1``/``puct``/``epsilon``), ``c`` (the rule's
    constant), ``epsilon`` (same as ``c`` for ``rule=epsilon``), ``reuse`` (``yes``/``no``).
    """
    values: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise InvalidParameterError(f"expected key=value in player options, got {item!r}")
        if key not in _MCTS_KEYS:
            raise InvalidParameterError(
                f"unknown mcts option {key!r}; known: {', '.join(_MCTS_KEYS)}"
            )
        if key in values:
            raise InvalidParameterError(f"mcts option {key!r} given twice")
        values[key] = value
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
    reuse_text = values.get("reuse", "yes").lower()
    if reuse_text not in ("yes", "no", "true", "false", "1", "0"):
        raise InvalidParameterError(f"reuse must be yes or no, got {reuse_text!r}")
    options = MctsOptions(
        budget=Budget(simulations=simulations, seconds=seconds),
        rollout=values.get("rollout", "random").lower(),
        num_rollouts=num_rollouts,
        rule=rule,
        c=c,
        reuse=reuse_text in ("yes", "true", "1"),
    )
    options.selection()  # validate the rule and its constant now
    return options


def parse_player(spec: str, game: Game, *, engine_factory: EngineFactory | None = None) -> Player:
    """Build a player from its spec.

    Specs: ``random``; ``mcts`` (1000 simulations per move, UCB1, random rollouts);
    ``mcts:`` followed by options, e.g. ``mcts:simulations=400``, ``mcts:seconds=0.1``,
    ``mcts:simulations=200,rollout=neighbors,c=1.0`` (see :func:`parse_mcts_options`).

    Raises:
        InvalidParameterError: an unknown player or a bad option.
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
        return MctsPlayer(game, options, name=text, engine_factory=engine_factory)
    raise InvalidParameterError(
        f"unknown player {spec!r}; use random or mcts[:key=value,...] "
        "(e.g. mcts:simulations=400,rollout=neighbors)"
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
    """

    actions: tuple[int, ...]
    returns: tuple[float, ...]
    players: tuple[str, ...]
    seed: int
    seconds: float

    @property
    def winner(self) -> int | None:
        """Player id with the strictly highest return, or ``None`` for a draw."""
        best = max(self.returns)
        leaders = [p for p, r in enumerate(self.returns) if r == best]
        return leaders[0] if len(leaders) == 1 else None

    @property
    def num_moves(self) -> int:
        return len(self.actions)


def _sub_seeds(seed: int, count: int) -> list[int]:
    sequence = np.random.SeedSequence(int(seed))
    return [int(s.generate_state(1, dtype=np.uint64)[0] >> 1) for s in sequence.spawn(count)]


def play_game(game: Game, p0: Player, p1: Player, seed: int = 0) -> GameRecord:
    """Play one game of a two-player game; ``p0`` moves first (is player 0).

    Both players are reset with seeds derived from ``seed``; chance actions, if any, are drawn
    from a generator seeded the same way. The same seed and players give the same game when
    the players' budgets are simulation counts.

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


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """A series of games between two players, counted from the first player's (p1's) side.

    Game ``i`` has p1 moving first when ``i`` is even, p2 when ``i`` is odd.

    Attributes:
        game: the game's registry name.
        p1, p2: the player specs.
        records: every game, in order.
        seed: the match seed.
    """

    game: str
    p1: str
    p2: str
    records: tuple[GameRecord, ...]
    seed: int

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

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no per-move records, only per-game results)."""
        low, high = self.confidence_interval
        return {
            "game": self.game,
            "p1": self.p1,
            "p2": self.p2,
            "games": self.games,
            "seed": self.seed,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "ci95": [low, high],
            "ci_method": "wilson",
            "results": [
                {
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


def run_match(
    game: Game,
    spec1: str | Player,
    spec2: str | Player,
    games: int,
    seed: int = 0,
    progress: MatchProgress | None = None,
    *,
    engine_factory: EngineFactory | None = None,
) -> MatchResult:
    """Play ``games`` games between two players, alternating who moves first.

    Args:
        game: a two-player game.
        spec1, spec2: player specs (see :func:`parse_player`) or ready players.
        games: number of games (>= 1); p1 moves first in games 0, 2, 4, ...
        seed: match seed; game ``i`` is played with a seed derived from it.
        progress: called after each game.
        engine_factory: builds the MCTS players' engines (default :class:`MCTS`).

    Returns:
        The :class:`MatchResult`, counted from p1's side.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InvalidParameterError(f"games must be a whole number >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")
    if game.spec.num_players != 2:
        raise InvalidParameterError(
            f"{game.spec.name} is a {game.spec.num_players}-player game; a match needs two"
        )
    player1 = _as_player(spec1, game, engine_factory)
    player2 = _as_player(spec2, game, engine_factory)
    game_seeds = _sub_seeds(seed, games)
    records: list[GameRecord] = []
    for index in range(games):
        first, second = (player1, player2) if index % 2 == 0 else (player2, player1)
        record = play_game(game, first, second, game_seeds[index])
        records.append(record)
        if progress is not None:
            progress(index + 1, record)
    return MatchResult(
        game=game.spec.name,
        p1=player1.name,
        p2=player2.name,
        records=tuple(records),
        seed=seed,
    )


def _as_player(spec: str | Player, game: Game, factory: EngineFactory | None) -> Player:
    if isinstance(spec, str):
        return parse_player(spec, game, engine_factory=factory)
    return spec


def describe_players() -> Mapping[str, str]:
    """Player kinds and a one-line description of each (for help texts)."""
    return {
        "random": "uniformly random legal moves",
        "mcts": "MCTS; options simulations=N, seconds=S, rollout=random|neighbors, "
        "rollouts=N, rule=ucb1|puct|epsilon, c=X, reuse=yes|no",
    }


__all__ = [
    "EngineFactory",
    "GameRecord",
    "MatchProgress",
    "MatchResult",
    "MctsOptions",
    "MctsPlayer",
    "Player",
    "RandomPlayer",
    "describe_players",
    "parse_mcts_options",
    "parse_player",
    "play_game",
    "rollout_policy",
    "run_match",
    "wilson_interval",
]
