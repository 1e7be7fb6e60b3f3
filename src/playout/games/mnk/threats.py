"""The compiled part of :func:`playout.games.mnk.threat_scores` (a move heuristic for
progressive bias on m,n,k boards); see there for the scores."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from playout._src.jit import jit

if TYPE_CHECKING:
    from playout.games.mnk.state import MnkState

_THREAT_OWN = 4.0
"""A line with ``m`` of the mover's stones and none of the opponent's is worth ``4**m``."""
_THREAT_OPPONENT = 0.5
"""... and one with ``o`` of the opponent's stones and none of the mover's ``0.5 * 4**o``."""


@functools.lru_cache(maxsize=64)
def _threat_tables(width: int, height: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every line of ``k`` squares as action ids (``int64[lines, k]``) and the padded bit
    index of each action (``int64[width * height]``)."""
    lines = [
        [(y0 + i * dy) * width + x0 + i * dx for i in range(k)]
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1))
        for y0 in range(height)
        for x0 in range(width)
        if 0 <= x0 + (k - 1) * dx < width and 0 <= y0 + (k - 1) * dy < height
    ]
    padded = np.array([a + a // width for a in range(width * height)], dtype=np.int64)
    return np.array(lines, dtype=np.int64).reshape(len(lines), k), padded


@jit(cache=True, nogil=True)
def _threat_kernel(
    own: np.ndarray, opponent: np.ndarray, lines: np.ndarray, padded: np.ndarray, out: np.ndarray
) -> None:
    """Add each live line's worth to its empty squares (see :func:`threat_scores`)."""
    k = lines.shape[1]
    out[:] = 0.0
    for w in range(lines.shape[0]):
        m = 0
        o = 0
        for i in range(k):
            bit = padded[lines[w, i]]
            m += own[bit]
            o += opponent[bit]
        if m > 0 and o > 0:
            continue  # both colours: nobody can complete this line
        if m > 0:
            score = _THREAT_OWN ** (k + 2) if m == k - 1 else _THREAT_OWN**m
        elif o > 0:
            score = _THREAT_OWN ** (k + 1) if o == k - 1 else _THREAT_OPPONENT * _THREAT_OWN**o
        else:
            score = 1.0
        for i in range(k):
            action = lines[w, i]
            bit = padded[action]
            if own[bit] == 0 and opponent[bit] == 0:
                out[action] += score


def _bits(stones: int, num_bytes: int) -> np.ndarray:
    """A padded bitboard as one uint8 (0 or 1) per bit."""
    raw = np.frombuffer(stones.to_bytes(num_bytes, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")


def line_threat_scores(state: MnkState, actions: Sequence[int]) -> np.ndarray:
    """:func:`playout.games.mnk.threat_scores` of ``actions`` in ``state`` (float64)."""
    game = state.game
    action_ids = np.asarray(actions, dtype=np.int64)
    if action_ids.size == 0:
        return np.zeros(0, dtype=np.float64)
    lines, padded = _threat_tables(game.width, game.height, game.k)
    num_bytes = (game.height * (game.width + 1) + 7) // 8
    own, opponent = state.stones0, state.stones1
    if state.current_player() == 1:
        own, opponent = opponent, own
    out = np.empty(game.width * game.height, dtype=np.float64)
    _threat_kernel(_bits(own, num_bytes), _bits(opponent, num_bytes), lines, padded, out)
    scores = out[action_ids]
    best = float(scores.max())
    return scores / best if best > 0 else scores


__all__ = ["line_threat_scores"]
