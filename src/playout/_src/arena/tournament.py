"""Tournaments: a round robin between several players, with fitted Elo ratings.

:func:`run_tournament` plays every pairing on any executor and returns a frozen
:class:`TournamentResult` (its table of :class:`Standing` rows and cross table of points).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
import os
from collections.abc import Sequence
from typing import Any

from playout._src import elo as E
from playout._src.arena.executors import ExecutorKind, GameExecutor, resolve_executor, running
from playout._src.arena.jobs import GameJob, job_players, play_job
from playout._src.arena.match import MatchProgress, check_match_args, in_order
from playout._src.arena.play import GameRecord, check_openings, game_seed, opening_for
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
        """Points per game (0.5 when no game was played)."""
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

    def _counts(self) -> list[list[int]]:
        """Wins, draws and losses of each player."""
        counts = [[0, 0, 0] for _ in self.players]
        for record, seats in zip(self.records, self.pairings, strict=True):
            winner = record.winner
            for seat, player in enumerate(seats):
                counts[player][1 if winner is None else 0 if winner == seat else 2] += 1
        return counts

    def standings(self) -> list[Standing]:
        """The table, best rating first."""
        counts = self._counts()
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


def distinct_names(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` with every repeated one numbered in order (``random#1``, ``random#2``), so
    that the table's rows can be told apart; names given once are kept as they are."""
    counts = collections.Counter(names)
    seen: collections.Counter[str] = collections.Counter()
    distinct = []
    for name in names:
        if counts[name] > 1:
            seen[name] += 1
            distinct.append(f"{name}#{seen[name]}")
        else:
            distinct.append(name)
    return tuple(distinct)


def _check_tournament_args(
    game: Game,
    specs: Sequence[str | Player],
    games_per_pair: int,
    seed: int,
    anchor: int | None,
    prior_draws: float,
) -> None:
    """Refuse fewer than two players, bad match arguments, an anchor out of range or a bad
    prior, before any game is played."""
    if len(specs) < 2:
        raise InvalidParameterError(f"a tournament needs at least two players, got {len(specs)}")
    check_match_args(game, games_per_pair, seed)
    if anchor is not None and (
        isinstance(anchor, bool) or not isinstance(anchor, int) or not 0 <= anchor < len(specs)
    ):
        raise InvalidParameterError(f"anchor must be a player's position, got {anchor!r}")
    if (
        isinstance(prior_draws, bool)
        or not isinstance(prior_draws, int | float)
        or not 0 <= prior_draws < math.inf
    ):
        raise InvalidParameterError(
            f"prior_draws must be a finite number >= 0, got {prior_draws!r}"
        )


def _tournament_jobs(
    game: Game,
    carried: Sequence[str | Player],
    games_per_pair: int,
    seed: int,
    engine_factory: EngineFactory | None,
    openings: int = 0,
) -> tuple[list[GameJob], list[tuple[int, int]]]:
    """Every game of the round robin and its seats (positions of player 0 and player 1).

    Pairs come in order (``(0, 1), (0, 2), ..., (1, 2), ...``); within a pair the first-named
    player moves first in the even-numbered games; game ``k`` is seeded ``game_seed(seed, k)``;
    rounds ``2k`` and ``2k + 1`` of a pairing (seats swapped) start from the same opening.
    """
    jobs: list[GameJob] = []
    seats: list[tuple[int, int]] = []
    rounds = (games_per_pair + 1) // 2  # round pairs (seats swapped) of each pairing
    for pairing, (first, second) in enumerate(itertools.combinations(range(len(carried)), 2)):
        pair_openings = [
            opening_for(game, openings, seed, pairing * rounds + k) for k in range(rounds)
        ]
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
                    opening=pair_openings[round_ // 2],
                )
            )
    return jobs, seats


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
    overwrite: bool = False,
    prior_draws: float = 1.0,
    anchor: int | None = None,
    openings: int = 0,
) -> TournamentResult:
    """A round robin: each pair of ``specs`` plays ``games_per_pair`` games, alternating.

    The result names the players by their names, numbered where one is given more than once
    (``random#1``, ``random#2``: see :func:`distinct_names`).

    Pairs are taken in order (``(0, 1), (0, 2), ..., (1, 2), ...``); all games are numbered in
    that order and game ``k`` is played with ``game_seed(seed, k)``, so the records do not
    depend on the executor. See :func:`~playout._src.arena.match.run_match` for the other
    arguments (``openings``: within each pairing, rounds ``2k`` and ``2k + 1``, seats swapped,
    start from the same random opening).

    Raises:
        InvalidParameterError: fewer than two players, or bad arguments.
    """
    _check_tournament_args(game, specs, games_per_pair, seed, anchor, prior_draws)
    check_openings(openings)
    players = [as_player(spec, game, engine_factory) for spec in specs]
    total = len(specs) * (len(specs) - 1) // 2 * games_per_pair
    # No worker starts before the first batch: nothing to close if setting up fails.
    runner, own_executor = resolve_executor(executor, min(workers, total), ray_address)
    carried = job_players(runner, specs, players)
    jobs, seats = _tournament_jobs(game, carried, games_per_pair, seed, engine_factory, openings)
    records: dict[int, GameRecord] = {}
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
            for record in runner.run(jobs, play_job):
                records[record.index] = record
                if writer is not None:
                    extra = {"seats": list(seats[record.index])}
                    writer.write(record_to_json(game, record, extra=extra))
                if progress is not None:
                    progress(len(records), record)
    finally:
        if writer is not None:
            writer.close()
    return TournamentResult(
        game=game.spec.name,
        players=distinct_names([p.name for p in players]),
        games_per_pair=games_per_pair,
        seed=seed,
        records=in_order(records),
        pairings=tuple(seats),
        prior_draws=prior_draws,
        anchor=anchor,
    )


__all__ = ["Standing", "TournamentResult", "distinct_names", "run_tournament"]
