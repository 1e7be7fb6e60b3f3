"""Matches: a series of games between two players, with statistics and an optional SPRT stop.

:func:`run_match` plays the games (alternating the first player) on any executor, saves them as
they end, and returns a frozen :class:`MatchResult`: the score and Elo difference with 95%
intervals (:func:`wilson_interval`).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from playout._src import elo as E
from playout._src.arena.executors import ExecutorKind, GameExecutor, resolve_executor, running
from playout._src.arena.jobs import GameJob, job_players, play_job
from playout._src.arena.play import (
    GameRecord,
    check_openings,
    check_seed,
    check_two_players,
    game_seed,
    opening_for,
)
from playout._src.arena.players import EngineFactory, Player
from playout._src.arena.records import (
    RecordWriter,
    check_save_format,
    check_writable,
    open_writer,
    record_to_json,
)
from playout._src.arena.specs import as_player
from playout._src.errors import InvalidParameterError
from playout._src.game import Game

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""

MatchProgress = Callable[[int, GameRecord], None]
"""Called after each game with the number of games done and the game's record."""


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
        """Games played."""
        return len(self.records)

    @property
    def wins(self) -> int:
        """Games p1 won."""
        return sum(1 for s in self.outcomes() if s == 1.0)

    @property
    def draws(self) -> int:
        """Games drawn."""
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

    def score_check_counts(self) -> dict[str, int]:
        """How the results other programs reported (GTP engines' ``final_score``, see
        :class:`~playout._src.arena.play.ScoreCheck`) compare with the game's own: ``checks``
        (reports in all), ``same_score``, ``same_winner``, and ``resigned`` (games ended by a
        resignation, which have no final score to compare)."""
        checks = [check for record in self.records for check in record.score_checks]
        return {
            "checks": len(checks),
            "same_score": sum(check.same_score for check in checks),
            "same_winner": sum(check.same_winner for check in checks),
            "resigned": sum(record.resigned is not None for record in self.records),
        }

    def _game_results(self) -> list[dict[str, Any]]:
        """Per-game lines of :meth:`as_dict`."""
        results = []
        for i, (r, s) in enumerate(zip(self.records, self.outcomes(), strict=True)):
            line: dict[str, Any] = {
                "index": i,
                "p1_first": self.p1_seat(i) == 0,
                "p1_score": s,
                "moves": r.num_moves,
                "seconds": r.seconds,
            }
            if r.resigned is not None:
                line["resigned"] = r.resigned
            if r.score_checks:
                line["score_checks"] = [check.as_dict() for check in r.score_checks]
            results.append(line)
        return results

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
            "score_checks": self.score_check_counts(),
            "results": self._game_results(),
        }


MAX_GAMES = 1_000_000
"""The most games of one match (a match's jobs are laid out before the first game)."""


def check_match_args(game: Game, games: int, seed: int) -> None:
    """Refuse a game count below 1, a bad seed, or a game that is not for two players.

    Raises:
        InvalidParameterError: the first problem found, in that order.
    """
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise InvalidParameterError(
            f"games must be a whole number in [1, {MAX_GAMES:,}], got {games!r}"
        )
    check_seed(seed)
    check_two_players(game)


def in_order(records: Mapping[int, GameRecord]) -> tuple[GameRecord, ...]:
    """The records by increasing game index."""
    return tuple(records[index] for index in sorted(records))


def _match_jobs(
    game: Game,
    pair: Sequence[str | Player],
    games: int,
    seed: int,
    engine_factory: EngineFactory | None,
    openings: int = 0,
) -> list[GameJob]:
    """The match's games: p1 (``pair[0]``) moves first in the even-numbered ones; games
    ``2k`` and ``2k + 1`` start from the same opening (see :func:`opening_for`)."""
    pair_openings = [opening_for(game, openings, seed, k) for k in range((games + 1) // 2)]
    return [
        GameJob(
            game=game,
            players=(pair[0], pair[1]) if index % 2 == 0 else (pair[1], pair[0]),
            index=index,
            seed=game_seed(seed, index),
            engine_factory=engine_factory,
            opening=pair_openings[index // 2],
        )
        for index in range(games)
    ]


def _sprt_status(
    sprt: E.Sprt, game: Game, records: Mapping[int, GameRecord], seed: int
) -> E.SprtStatus:
    """Where ``sprt`` stands after the games played so far (counted from p1's side)."""
    partial = MatchResult(game.spec.name, "", "", in_order(records), seed)
    return sprt.status(partial.losses, partial.draws, partial.wins)


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
    overwrite: bool = False,
    openings: int = 0,
) -> MatchResult:
    """Play ``games`` games between two players, alternating who moves first.

    Args:
        game: a two-player game.
        spec1: the first player: a player spec (see
            :func:`~playout._src.arena.specs.parse_player`) or a ready player (which must
            pickle to run in other processes).
        spec2: the second player, as ``spec1``.
        games: number of games (>= 1); p1 moves first in games 0, 2, 4, ...
        seed: match seed; game ``i`` is played with ``game_seed(seed, i)``.
        progress: called after each game (in the order games finish).
        engine_factory: builds the MCTS players' engines (default :class:`~playout.MCTS`).
        workers: games played at once (and the batch size of an SPRT match).
        executor: ``"local"``, ``"pool"``, ``"ray"``, an executor object (left open), or
            ``None`` for ``local`` with one worker and ``pool`` otherwise.
        sprt: stop as soon as this test decides; games then run in batches of ``workers``
            and the test is checked after each batch.
        save: write every game as a JSON line to this file as soon as it ends (appended to
            what the file holds; opened once the executor is up, so a failed start leaves it
            as it was); a name ending in ``.sgf`` gets an SGF collection instead (Go only).
        ray_address: the cluster for ``executor="ray"`` (default: a local instance).
        overwrite: empty ``save`` first instead of appending to it.
        openings: each pair of games (``2k``, ``2k + 1``: the same players, seats swapped)
            starts after this many random moves that do not end the game, the same for both
            games of the pair (:func:`~playout._src.arena.play.opening_for`): players that
            search (almost) deterministically, such as two networks, would otherwise play
            the same two games over and over. 0: every game from the initial position.

    Returns:
        The :class:`MatchResult`, counted from p1's side.
    """
    check_match_args(game, games, seed)
    check_openings(openings)
    player1 = as_player(spec1, game, engine_factory)  # built here: bad specs fail at once
    player2 = as_player(spec2, game, engine_factory)
    # No worker starts before the first batch: nothing to close if setting up fails.
    runner, own_executor = resolve_executor(executor, min(workers, games), ray_address)
    pair = job_players(runner, (spec1, spec2), (player1, player2))
    jobs = _match_jobs(game, pair, games, seed, engine_factory, openings)
    extra = {"p1": player1.name, "p2": player2.name}
    records: dict[int, GameRecord] = {}
    status: E.SprtStatus | None = None
    batch = games if sprt is None else max(1, runner.workers)
    if save is not None:
        check_writable(save)
        check_save_format(save, game, overwrite=overwrite)
    writer: RecordWriter | None = None
    try:
        with running(runner, own_executor):
            # The executor is up (Ray connected) before the save file is opened: a failed
            # start leaves an existing file as it was.
            if save is not None:
                writer = open_writer(save, game, overwrite=overwrite)
            for start in range(0, games, batch):
                for record in runner.run(jobs[start : start + batch], play_job):
                    records[record.index] = record
                    if writer is not None:
                        writer.write(record_to_json(game, record, extra=extra))
                    if progress is not None:
                        progress(len(records), record)
                if sprt is not None:
                    status = _sprt_status(sprt, game, records, seed)
                    if status.decision is not None:
                        break
    finally:
        if writer is not None:
            writer.close()
    return MatchResult(
        game=game.spec.name,
        p1=player1.name,
        p2=player2.name,
        records=in_order(records),
        seed=seed,
        sprt=status,
        planned_games=games,
    )


__all__ = [
    "Z_95",
    "MatchProgress",
    "MatchResult",
    "check_match_args",
    "in_order",
    "run_match",
    "wilson_interval",
]
