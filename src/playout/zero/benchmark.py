"""Value-losing moves on solver-labelled positions: how well a move chooser plays, by stage.

A *chooser* is any ``state -> action`` callable. On each benchmark position some legal move
loses value (its game-theoretic outcome for the mover, win/draw/loss, is worse than the best
move's); :func:`score_chooser` counts the positions where the chooser plays such a move, in
all and per stage, and the seconds its moves took. Choosers for the usual players:
:func:`policy_chooser` (the network's most probable move, no search; optionally averaged over
the board's mirror image), :func:`network_chooser` (the network with a PUCT or Gumbel search
of ``N`` simulations), :func:`rollout_chooser` (rollout MCTS at ``N`` simulations or a time
budget). Every searching chooser starts a fresh, seeded search per position. A score keeps
which positions were lost, so that :func:`compare` can tell whether one chooser loses value
less often than another on the same positions (an exact paired test, not two intervals).

:func:`benchmark_positions` gives the labelled set of a game where one exists: connect four
7x6 ships solver-labelled positions (:mod:`playout.games.connect4.labelled`); a game small
enough to solve exactly (an m,n,k game of at most 9 squares: tic-tac-toe) gets every
reachable position where a move can lose value, labelled by :mod:`playout._src.perfect` on
first use.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from playout._src.arena.match import Z_95, wilson_interval
from playout._src.config import Gumbel
from playout._src.errors import InvalidParameterError
from playout._src.game import GameState

Chooser = Callable[[GameState], int]
"""A move chooser: the action it plays in a position (where it is to move)."""


@dataclasses.dataclass(frozen=True)
class BenchmarkPosition:
    """A position of a benchmark.

    Attributes:
        state: the position (running; some legal move loses value).
        losing_actions: the value-losing moves: their outcome for the mover is worse than the
            best move's.
        stage: the stage it counts in (connect four: ``8-14``, ``15-28``, ``29+`` stones).
    """

    state: GameState
    losing_actions: frozenset[int]
    stage: str


@dataclasses.dataclass(frozen=True)
class StageScore:
    """One stage's count: ``losing`` value-losing moves in ``positions`` positions."""

    stage: str
    positions: int
    losing: int

    @property
    def rate(self) -> float:
        """The share of positions where the chooser lost value (0 to 1)."""
        return self.losing / self.positions if self.positions else 0.0


@dataclasses.dataclass(frozen=True)
class BenchmarkScore:
    """How a chooser did on a benchmark.

    Attributes:
        name: the chooser's label.
        positions: positions played.
        losing: positions where its move lost value.
        stages: the same counts per stage, in the order stages first appear.
        seconds_per_move: mean wall-clock seconds of one call of the chooser.
        lost: per position, in the order scored, whether the move lost value (empty in a
            score made without them).
    """

    name: str
    positions: int
    losing: int
    stages: tuple[StageScore, ...]
    seconds_per_move: float
    lost: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        if self.lost and (len(self.lost) != self.positions or sum(self.lost) != self.losing):
            raise InvalidParameterError(
                f"{len(self.lost)} per-position outcomes with {sum(self.lost)} lost do not "
                f"match {self.positions} positions with {self.losing} lost"
            )

    @property
    def rate(self) -> float:
        """The share of positions where the chooser lost value (0 to 1)."""
        return self.losing / self.positions if self.positions else 0.0

    def interval(self, *, z: float = Z_95) -> tuple[float, float]:
        """The Wilson score interval (Wilson 1927) of :attr:`rate`, the positions as
        independent trials; ``z`` standard normal deviates wide (default: 95%)."""
        return wilson_interval(self.rate, self.positions, z)

    def stage(self, name: str) -> StageScore:
        """The count of one stage.

        Raises:
            KeyError: no position of that stage was played.
        """
        for stage in self.stages:
            if stage.stage == name:
                return stage
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (rates as fractions)."""
        return {
            "chooser": self.name,
            "positions": self.positions,
            "losing": self.losing,
            "rate": self.rate,
            "interval": list(self.interval()),
            "stages": {
                s.stage: {"positions": s.positions, "losing": s.losing, "rate": s.rate}
                for s in self.stages
            },
            "seconds_per_move": self.seconds_per_move,
            "lost_at": [i for i, lost in enumerate(self.lost) if lost] if self.lost else None,
        }


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Two choosers on the same positions, position by position (McNemar's test, McNemar
    1947, in its exact binomial form).

    Attributes:
        first, second: the choosers' labels.
        first_only: positions where only the first lost value.
        second_only: positions where only the second did.
        both: positions where both did.
        p_value: the two-sided exact binomial probability, were each discordant position as
            likely to be either chooser's, of a split at least as uneven (1.0 with none; 0.0
            where it is below the smallest float).
    """

    first: str
    second: str
    first_only: int
    second_only: int
    both: int
    p_value: float


def compare(first: BenchmarkScore, second: BenchmarkScore) -> Comparison:
    """Whether ``first`` loses value less (or more) often than ``second`` on the same
    positions: the positions where only one of them lost value, and McNemar's exact test
    (a two-sided binomial test with probability 1/2 on those positions). Paired, it sees a
    difference that two overlapping intervals hide.

    Raises:
        InvalidParameterError: a score without its per-position outcomes, or scores of
            different position lists (their lengths differ).
    """
    if not first.lost or not second.lost:
        raise InvalidParameterError("compare needs scores with their per-position outcomes")
    if len(first.lost) != len(second.lost):
        raise InvalidParameterError(
            f"scores of different positions: {len(first.lost)} against {len(second.lost)}"
        )
    pairs = list(zip(first.lost, second.lost, strict=True))
    a = sum(x and not y for x, y in pairs)
    b = sum(y and not x for x, y in pairs)
    n = a + b
    # Whole numbers to the end: 2.0**n overflows a float from n = 1024 discordant positions,
    # while Python divides two integers to the nearest float whatever their size.
    tail = sum(math.comb(n, k) for k in range(min(a, b) + 1))
    return Comparison(
        first=first.name, second=second.name, first_only=a, second_only=b,
        both=sum(x and y for x, y in pairs), p_value=min(1.0, 2 * tail / 2**n),
    )  # fmt: skip


def score_chooser(
    choose: Chooser, positions: Iterable[BenchmarkPosition], *, name: str = "chooser"
) -> BenchmarkScore:
    """Play ``choose`` once on every position; count its value-losing moves.

    Raises:
        InvalidParameterError: no positions, or the chooser returned an illegal move.
    """
    counts: dict[str, list[int]] = {}
    lost: list[bool] = []
    seconds = 0.0
    for position in positions:
        state = position.state
        start = time.perf_counter()
        action = choose(state)
        seconds += time.perf_counter() - start
        if action not in state.legal_actions():
            raise InvalidParameterError(f"{name} chose {action!r}, illegal in {state!r}")
        count = counts.setdefault(position.stage, [0, 0])
        lost.append(int(action) in position.losing_actions)
        count[0] += 1
        count[1] += lost[-1]
    if not counts:
        raise InvalidParameterError("no positions to score")
    stages = tuple(StageScore(stage, n, losing) for stage, (n, losing) in counts.items())
    total = sum(s.positions for s in stages)
    return BenchmarkScore(
        name=name,
        positions=total,
        losing=sum(s.losing for s in stages),
        stages=stages,
        seconds_per_move=seconds / total,
        lost=tuple(lost),
    )


def subset(positions: Sequence[BenchmarkPosition], count: int) -> tuple[BenchmarkPosition, ...]:
    """``count`` positions spread evenly over ``positions`` (all of them when it holds no
    more): the file order (stage by stage, play by play) keeps every stage and play in
    proportion. The same positions every time."""
    if count >= len(positions):
        return tuple(positions)
    return tuple(positions[i * len(positions) // count] for i in range(count))


# ----------------------------------------------------------------------------- positions


def benchmark_positions(game: Any) -> tuple[BenchmarkPosition, ...] | None:
    """The labelled positions of ``game``, or ``None`` where it has none: connect four 7x6
    (four in a row) has the shipped set; an m,n,k game of at most 9 squares (tic-tac-toe),
    solved exactly, every reachable position where some move loses value (stage ``all``)."""
    from playout.games.connect4.state import Connect4Game

    if isinstance(game, Connect4Game):
        if (game.width, game.height, game.k) != (7, 6, 4):
            return None
        from playout.games.connect4.labelled import labelled_positions

        return tuple(
            BenchmarkPosition(p.state(), p.losing_actions, p.stage) for p in labelled_positions()
        )
    return _solved_positions(game)


def _solved_positions(game: Any) -> tuple[BenchmarkPosition, ...] | None:
    from playout._src import perfect
    from playout.games.mnk import MnkGame

    if not isinstance(game, MnkGame) or game.width * game.height > 9:
        return None  # other small games (Go 3x3) have too many positions to solve here
    try:
        solution = perfect.solve(game, max_squares=9)
    except InvalidParameterError:
        return None
    found = []
    for state in solution.values0:
        if state.is_terminal():
            continue
        best = set(solution.optimal_actions(state))
        losing = frozenset(a for a in state.legal_actions() if a not in best)
        if losing:  # a move that keeps the value is optimal; any other loses value
            found.append(BenchmarkPosition(state, losing, "all"))
    found.sort(key=repr)  # the same order in every process
    return tuple(found)


# ----------------------------------------------------------------------------- choosers


def policy_chooser(model: Any, *, symmetries: bool = False) -> Chooser:
    """The network's most probable move, no search (``symmetries``: the policy averaged over
    the board's symmetric images, for connect four its mirror)."""
    from playout.zero.player import ZeroPlayer

    player = ZeroPlayer(model.game, model, no_search=True, symmetries=symmetries)
    return player.choose


def network_chooser(
    model: Any,
    simulations: int,
    *,
    gumbel: int = 0,
    c: float | None = None,
    symmetries: bool = False,
    seed: int = 0,
) -> Chooser:
    """The move of a network-guided search of ``simulations`` simulations: PUCT with ``c``
    (default: the model's), or Gumbel AlphaZero's search sampling ``gumbel`` root actions."""
    from playout.zero.player import ZeroPlayer
    from playout.zero.selfplay import ZeroSearch

    search = ZeroSearch(
        simulations=simulations,
        c=float(model.metadata.get("c", 2.0)) if c is None else c,
        gumbel=Gumbel(considered=gumbel) if gumbel else None,
    )
    player = ZeroPlayer(model.game, model, search, symmetries=symmetries)
    return _fresh(player, seed)


def rollout_chooser(
    game: Any, *, simulations: int | None = None, seconds: float | None = None, seed: int = 0
) -> Chooser:
    """The move of rollout MCTS (``mcts`` player: UCB1, random rollouts, solver) with
    ``simulations`` simulations or ``seconds`` seconds per move."""
    from playout._src.arena import parse_player

    if (simulations is None) == (seconds is None):
        raise InvalidParameterError("give simulations or seconds")
    budget = f"simulations={simulations}" if seconds is None else f"seconds={seconds}"
    return _fresh(parse_player(f"mcts:{budget}", game), seed)


def _fresh(player: Any, seed: int) -> Chooser:
    """The player's move from a new search tree, seeded alike, at every position."""

    def choose(state: GameState) -> int:
        player.reset(state, seed)
        return int(player.choose(state))

    return choose
