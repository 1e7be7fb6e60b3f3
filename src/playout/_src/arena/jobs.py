"""A match's games as jobs an executor can run anywhere: :class:`GameJob` and :func:`play_job`.

A job is self-contained (game, players or their specs, index, seed), so that it can be sent to
a worker process or a Ray task; :func:`play_job` builds the players a job names
(:func:`~playout._src.arena.specs.as_player`) and plays the game; :func:`job_players` says
what a job carries for a given executor.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Sequence
from typing import Any

from playout._src.arena.executors import GameExecutor, LocalExecutor
from playout._src.arena.play import GameRecord, play_game
from playout._src.arena.players import EngineFactory, Player
from playout._src.arena.specs import as_player
from playout._src.errors import InvalidParameterError
from playout._src.game import Game


@dataclasses.dataclass(frozen=True)
class GameJob:
    """One game to play, self-contained so that it can be sent to another process.

    Attributes:
        game: the game.
        players: player 0 (moves first) and player 1, as specs or (picklable) players.
        index: the game's number (stored in the record).
        seed: the game's seed (see :func:`~playout._src.arena.play.game_seed`).
        engine_factory: builds MCTS players' engines (``None``: :class:`~playout.MCTS`).
        opening: actions played before the players choose (see
            :func:`~playout._src.arena.play.play_game`).
    """

    game: Game
    players: tuple[str | Player, str | Player]
    index: int
    seed: int
    engine_factory: EngineFactory | None = None
    opening: tuple[int, ...] = ()


def play_job(job: GameJob) -> GameRecord:
    """Play ``job`` (module level, so that worker processes and Ray can import it)."""
    p0 = as_player(job.players[0], job.game, job.engine_factory)
    p1 = as_player(job.players[1], job.game, job.engine_factory)
    return play_game(job.game, p0, p1, job.seed, index=job.index, opening=job.opening)


def _check_picklable(item: Any) -> None:
    """Refuse a player that cannot be sent to a worker process."""
    try:
        pickle.dumps(item)
    except Exception as error:  # any pickling failure means the same thing
        raise InvalidParameterError(
            f"{item!r} cannot be sent to a worker process ({error}); pass a spec string or "
            "use workers=1"
        ) from None


def job_players(
    executor: GameExecutor, specs: Sequence[str | Player], players: Sequence[Player]
) -> list[str | Player]:
    """What a job carries: the built players in this process, else specs (or the players,
    pickled) for workers that build their own.

    Raises:
        InvalidParameterError: a player object that cannot be pickled, for another process.
    """
    if isinstance(executor, LocalExecutor):
        return list(players)
    for spec in specs:
        if not isinstance(spec, str):
            _check_picklable(spec)
    return list(specs)


__all__ = ["GameJob", "job_players", "play_job"]
