"""Players, matches and tournaments: programs playing each other.

One job per module:

* :mod:`~playout._src.arena.players`: the :class:`Player` protocol, :class:`RandomPlayer`,
  :class:`MctsPlayer` and its :class:`MctsOptions`;
* :mod:`~playout._src.arena.specs`: :func:`parse_player` builds a player from a spec string
  such as ``"random"``, ``"mcts:simulations=200,rollout=neighbors"``, ``"perfect"`` or
  ``"openspiel-mcts:simulations=1000"``;
* :mod:`~playout._src.arena.play`: :func:`play_game` plays one game into a :class:`GameRecord`,
  with seeds from :func:`game_seed`, optionally from an opening (:func:`random_opening`);
* :mod:`~playout._src.arena.executors`: where games are played (this process, a local process
  pool or a Ray cluster, see :func:`make_executor`);
* :mod:`~playout._src.arena.jobs`: a game as a self-contained job (:class:`GameJob`) and
  :func:`play_job`, which plays it on any executor;
* :mod:`~playout._src.arena.records`: :func:`record_to_json` / :func:`read_records` write and
  read one game per JSON line, so a match can be saved as it runs and replayed later;
* :mod:`~playout._src.arena.match`: :func:`run_match`, a series with alternating first player
  and an optional SPRT early stop, reported as a frozen :class:`MatchResult` (score and Elo
  with 95% intervals);
* :mod:`~playout._src.arena.tournament`: :func:`run_tournament`, a round robin with fitted Elo
  ratings.

OpenSpiel's bot (:class:`OpenSpielMctsPlayer` and its options) lives beside the OpenSpiel
adapter, in :mod:`playout.interop.openspiel_bot`; this package imports it on first use.

Reproducibility: game ``i`` of a match is played with its own seed, derived from the match
seed and ``i`` alone (``SeedSequence(seed).spawn``), and every player is reset with seeds
derived from it, so with simulation budgets the records are the same whatever the number of
workers or the order in which games finish.

Nothing here prints; a front end renders the records.
"""

from __future__ import annotations

import importlib
from typing import Any

from playout._src.arena.executors import (
    ExecutorKind,
    GameExecutor,
    LocalExecutor,
    PoolExecutor,
    RayExecutor,
    make_executor,
)
from playout._src.arena.jobs import GameJob, play_job
from playout._src.arena.match import (
    Z_95,
    MatchProgress,
    MatchResult,
    run_match,
    wilson_interval,
)
from playout._src.arena.play import (
    GameRecord,
    Resignation,
    ScoreCheck,
    game_seed,
    play_game,
    random_opening,
)
from playout._src.arena.players import (
    EngineFactory,
    MctsOptions,
    MctsPlayer,
    Player,
    RandomPlayer,
    rollout_policy,
)
from playout._src.arena.records import (
    RECORD_FORMAT,
    RecordWriter,
    SavedGame,
    game_params,
    read_records,
    record_to_json,
)
from playout._src.arena.specs import describe_players, parse_mcts_options, parse_player
from playout._src.arena.tournament import Standing, TournamentResult, run_tournament
from playout._src.errors import MissingDependencyError, RecordError

_OPENSPIEL_BOT = "playout.interop.openspiel_bot"
_LAZY_NAMES = (
    "OpenSpielMctsOptions",
    "OpenSpielMctsPlayer",
    "openspiel_game_string",
    "parse_openspiel_options",
)
"""Names of :mod:`playout.interop.openspiel_bot` served from here on first use."""


def __getattr__(name: str) -> Any:
    """OpenSpiel's bot names, imported from :mod:`playout.interop.openspiel_bot` on use."""
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_OPENSPIEL_BOT), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_NAMES))


__all__ = [
    "RECORD_FORMAT",
    "Z_95",
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
    "Resignation",
    "SavedGame",
    "ScoreCheck",
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
    "random_opening",
    "read_records",
    "record_to_json",
    "rollout_policy",
    "run_match",
    "run_tournament",
    "wilson_interval",
]
