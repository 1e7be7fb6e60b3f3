"""Learned ratings of Go moves: Coulom's Elo ratings of move patterns, fitted to game records.

Rémi Coulom ("Computing Elo Ratings of Move Patterns in the Game of Go", ICGA Journal 30(4),
2007) models the choice of a move in a position as a competition among the legal moves, each
a team of features (:mod:`.features`): a move's strength is the product of its features'
``gamma``, and it is chosen with probability its strength over the sum of all the legal
moves' strengths. The ``gamma`` are fitted to the moves of played games by
minorization-maximization (Hunter, "MM algorithms for generalized Bradley-Terry models",
Annals of Statistics 32(1), 2004), one group of features at a time, each ``gamma`` with a
virtual win and a virtual loss against a strength of 1 (Coulom's prior), so that a feature
seen rarely stays near 1.

The kernel's prior knowledge reads a fitted table (:data:`~.kernel.PRIORS_RATINGS`); the
package ships one for 9x9 (:func:`shipped_ratings`), fitted by ``bench/go_ratings.py`` to the
game records kept in ``bench/records``.

    >>> records = [{"game": "go", "params": {"size": 9, "komi": 7.5},
    ...             "actions": [40, 41, 30, 31, 81, 81]}]
    >>> data = competitions(records)
    >>> data.positions, int(data.chosen.sum())
    (4, 4)
    >>> log_gamma = fit(data, iterations=3)
    >>> log_gamma.shape == (NUM_SLOTS,)
    True
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from playout._src.errors import InvalidParameterError
from playout.games.go.board import default_max_length
from playout.games.go.features import (
    FORMAT,
    GROUPS,
    MAX_FEATURES,
    NUM_SLOTS,
    SHIPPED,
    load_ratings,
    shipped_ratings,
)
from playout.games.go.kernel import (
    PRIORS_ALL,
    PRIORS_RATINGS,
    encode,
    go_move_features,
    go_move_priors,
    kernel_params,
)
from playout.games.go.state import GoGame


@dataclasses.dataclass(frozen=True)
class Competitions:
    """Positions of played games, each a competition among its legal moves (passes left
    out), as arrays over the candidate moves of all positions, position after position.

    Attributes:
        slots: ``int64[candidates, MAX_FEATURES]``, each candidate's rating slots, -1 after
            its last (:func:`~.kernel.go_move_features`).
        position: ``int64[candidates]``, the index of the candidate's position.
        chosen: ``bool[candidates]``, whether the candidate is the move played.
        game: ``int64[positions]``, the index of each position's game in the records read.
        priors: ``float64[candidates]``, the hand-made prior scores of the candidates
            (:func:`~.kernel.go_move_priors` with every hand-made piece), for comparison.
    """

    slots: np.ndarray
    position: np.ndarray
    chosen: np.ndarray
    game: np.ndarray
    priors: np.ndarray

    @property
    def positions(self) -> int:
        """How many positions (competitions)."""
        return int(self.game.shape[0])

    def subset(self, keep: np.ndarray) -> Competitions:
        """The positions whose ``keep`` (``bool[positions]``) is set, renumbered."""
        rows = keep[self.position]
        renumber = np.cumsum(keep) - 1
        return Competitions(
            slots=self.slots[rows],
            position=renumber[self.position[rows]],
            chosen=self.chosen[rows],
            game=self.game[keep],
            priors=self.priors[rows],
        )


def _parameters(size: int, komi: float) -> np.ndarray:
    """Kernel params with ratings (all ``gamma`` 1: only the slots are read), for
    :func:`competitions`."""
    return kernel_params(
        size, komi, default_max_length(size), priors=PRIORS_RATINGS, ratings=np.zeros(NUM_SLOTS)
    )


def competitions(
    records: Iterable[Mapping[str, Any]],
    keep: Callable[[Mapping[str, Any], int], bool] | None = None,
) -> Competitions:
    """The competitions of the moves played in ``records`` (``playout-game/1`` records of Go,
    as ``playout match --save`` writes them: ``params`` and ``actions``): one per move that
    is not a pass, among the legal moves of its position. ``keep(record, player)`` chooses
    whose moves count (player 0 Black, 1 White; default every move).

    Raises:
        InvalidParameterError: a record that is not Go, or whose moves are not legal.
    """
    slot_rows: list[np.ndarray] = []
    position_rows: list[np.ndarray] = []
    chosen_rows: list[np.ndarray] = []
    prior_rows: list[np.ndarray] = []
    games: list[int] = []
    for index, record in enumerate(records):
        if record.get("game") != "go":
            raise InvalidParameterError(f"record {index} is not a Go game")
        options = dict(record.get("params") or {})
        size = int(options.get("size", 9))
        komi = float(options.get("komi", 7.5))
        game = GoGame(size=size, komi=komi)
        params = _parameters(size, komi)
        hand = _hand_parameters(size, komi)
        state = game.initial_state()
        pass_action = size * size
        for action in record.get("actions", []):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if action not in legal:
                raise InvalidParameterError(f"record {index}: move {action} is not legal")
            player = state.current_player()
            if action != pass_action and (keep is None or keep(record, player)):
                moves = np.array([a for a in legal if a != pass_action], dtype=np.int64)
                compact = encode(state, size, default_max_length(size))
                slots = np.empty((moves.shape[0], MAX_FEATURES), dtype=np.int64)
                go_move_features(params, compact, moves, slots)
                scores = np.empty(moves.shape[0], dtype=np.float64)
                go_move_priors(hand, compact, moves, scores)
                slot_rows.append(slots)
                position_rows.append(np.full(moves.shape[0], len(games), dtype=np.int64))
                chosen_rows.append(moves == action)
                prior_rows.append(scores)
                games.append(index)
            state = state.play(action)
    if not games:
        empty = np.empty(0, dtype=np.int64)
        return Competitions(
            np.empty((0, MAX_FEATURES), dtype=np.int64), empty, np.empty(0, bool), empty,
            np.empty(0),
        )  # fmt: skip
    return Competitions(
        slots=np.concatenate(slot_rows),
        position=np.concatenate(position_rows),
        chosen=np.concatenate(chosen_rows),
        game=np.array(games, dtype=np.int64),
        priors=np.concatenate(prior_rows),
    )


@functools.cache
def _hand_parameters(size: int, komi: float) -> np.ndarray:
    return kernel_params(size, komi, default_max_length(size), priors=PRIORS_ALL)


def _group_slots(slots: np.ndarray) -> np.ndarray:
    """``int64[candidates, len(GROUPS)]``: each candidate's slot in each group, -1 for none."""
    out = np.full((slots.shape[0], len(GROUPS)), -1, dtype=np.int64)
    for g, (_, start, stop) in enumerate(GROUPS):
        inside = (slots >= start) & (slots < stop)
        has = inside.any(axis=1)
        out[has, g] = slots[has, np.argmax(inside[has], axis=1)]
    return out


def ratings_of(data: Competitions, log_gamma: np.ndarray) -> np.ndarray:
    """Each candidate's rating: the sum of its slots' ``log gamma``."""
    padded = np.append(np.asarray(log_gamma, dtype=np.float64), 0.0)
    return np.asarray(padded[data.slots].sum(axis=1))  # slot -1 reads the appended 0


def fit(data: Competitions, iterations: int = 100, tolerance: float = 1e-6) -> np.ndarray:
    """``log gamma`` per slot (``float64[NUM_SLOTS]``) fitted to ``data`` by
    minorization-maximization, one group at a time (each group's update is an MM step, so
    the likelihood, prior included, never falls), until no ``log gamma`` moves more than
    ``tolerance`` in a sweep or after ``iterations`` sweeps. Each ``gamma`` starts at 1 and
    has a virtual win and a virtual loss against a strength of 1."""
    log_gamma = np.zeros(NUM_SLOTS)
    if data.positions == 0:
        return log_gamma
    grouped = _group_slots(data.slots)
    winners = np.zeros(NUM_SLOTS)
    for g in range(len(GROUPS)):
        present = grouped[data.chosen, g]
        winners += np.bincount(present[present >= 0], minlength=NUM_SLOTS)
    winners += 1.0  # the virtual win
    for _ in range(iterations):
        moved = 0.0
        for g in range(len(GROUPS)):
            rating = ratings_of(data, log_gamma)
            top = np.full(data.positions, -np.inf)
            np.maximum.at(top, data.position, rating)
            strength = np.exp(rating - top[data.position])
            total = np.bincount(data.position, weights=strength, minlength=data.positions)
            rows = grouped[:, g] >= 0
            slot = grouped[rows, g]
            # Each candidate's strength without this group's gamma, over its position's
            # total (both scaled by the same exp(-max) of the position).
            share = strength[rows] * np.exp(-log_gamma[slot]) / total[data.position[rows]]
            denominator = np.bincount(slot, weights=share, minlength=NUM_SLOTS)
            _, start, stop = GROUPS[g]
            gamma = np.exp(log_gamma[start:stop])
            updated = np.log(winners[start:stop] / (denominator[start:stop] + 2.0 / (gamma + 1.0)))
            moved = max(moved, float(np.max(np.abs(updated - log_gamma[start:stop]))))
            log_gamma[start:stop] = updated
        if moved < tolerance:
            break
    return log_gamma


def log_likelihood(data: Competitions, scores: np.ndarray) -> float:
    """Mean log-probability of the moves played when each position's moves are chosen with
    probability proportional to ``exp(scores)`` (nats per position)."""
    if data.positions == 0:
        return 0.0
    top = np.full(data.positions, -np.inf)
    np.maximum.at(top, data.position, scores)
    total = np.bincount(
        data.position, weights=np.exp(scores - top[data.position]), minlength=data.positions
    )
    at = data.position[data.chosen]
    chosen = scores[data.chosen] - top[at] - np.log(total[at])
    return float(chosen.mean())


def prediction_rate(data: Competitions, scores: np.ndarray) -> float:
    """The share of positions whose played move has the highest score, a position whose
    played move ties with ``k - 1`` others counting ``1 / k``."""
    if data.positions == 0:
        return 0.0
    top = np.full(data.positions, -np.inf)
    np.maximum.at(top, data.position, scores)
    at_top = scores >= top[data.position]
    ties = np.bincount(data.position, weights=at_top, minlength=data.positions)
    hits = (data.chosen & at_top).astype(np.float64)
    return float((np.bincount(data.position, weights=hits, minlength=data.positions) / ties).mean())


def save_ratings(path: Path, log_gamma: np.ndarray, source: Mapping[str, Any]) -> None:
    """Write a rating table (``log gamma`` per slot, rounded to 1e-4) and where it came from
    (``source``: the command, the records, the counts) as JSON."""
    values = np.asarray(log_gamma, dtype=np.float64)
    if values.shape != (NUM_SLOTS,) or not np.all(np.isfinite(values)):
        raise InvalidParameterError(f"a rating table has {NUM_SLOTS} finite log gammas")
    document = {
        "format": FORMAT,
        "slots": NUM_SLOTS,
        "groups": {name: [start, stop] for name, start, stop in GROUPS},
        "source": dict(source),
        "log_gamma": [round(float(v), 4) for v in values],
    }
    path.write_text(json.dumps(document, indent=1) + "\n")


__all__ = [
    "FORMAT",
    "SHIPPED",
    "Competitions",
    "competitions",
    "fit",
    "load_ratings",
    "log_likelihood",
    "prediction_rate",
    "ratings_of",
    "save_ratings",
    "shipped_ratings",
]
