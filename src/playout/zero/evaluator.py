"""A network as the search's evaluator: values and priors for batches of leaves, cached.

:class:`NetworkEvaluator` follows :class:`playout.BatchEvaluator`, so any search given one
runs on the batched driver (leaves collected with virtual loss, one network call per batch).
Positions repeat (transpositions, tree reuse across moves, self-play openings), so outputs are
cached by state (states are hashable), in a bounded least-recently-used table.

With ``symmetries=True`` each position is evaluated together with its images under the
game's declared symmetries (``action_symmetries`` / ``transform_state``, as the replay
buffer's augmentation uses them) in the same network call, and the outputs are averaged: the
images' logits, moved back to the position's action ids (so the priors are a normalised
geometric mean of the images' priors), and the values. A network's errors differ between a
position and its mirror image, and the average evens them out, at the cost of one network
row per symmetry. Networks have long been averaged over a board's symmetries (AlphaGo's
evaluation of its networks, Silver et al. 2016, "Methods", averaged their outputs over the
eight symmetries of the board; AlphaGo Zero's search instead draws one symmetry at random
per position, Silver et al. 2017).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from playout._src.errors import InvalidParameterError
from playout._src.game import GameState
from playout._src.symmetry import has_symmetries
from playout.zero.model import Model


def masked_softmax(logits: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Probabilities over ``actions`` from a row of logits over every action id (the other
    ids are masked out): one float64 per action, summing to 1."""
    chosen = logits[actions].astype(np.float64)
    chosen -= chosen.max()
    weights = np.exp(chosen)
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def masked_softmax_rows(logits: np.ndarray, actions: Sequence[np.ndarray]) -> list[np.ndarray]:
    """:func:`masked_softmax` of each row of ``logits`` (``[n, actions]``) over
    ``actions[i]``, computed for the whole batch at once (the rows returned are views of one
    array)."""
    count = len(actions)
    if count != len(logits):
        raise InvalidParameterError(f"{len(logits)} rows of logits for {count} action sets")
    if count == 0:
        return []
    sizes = np.fromiter(map(len, actions), dtype=np.intp, count=count)
    rows_of = np.repeat(np.arange(count), sizes)  # the row of each (row, action) pair
    ids = np.concatenate(actions)  # not cast: ids that are no integers raise, as before
    rows = np.full(logits.shape, -np.inf, dtype=np.float64)
    rows[rows_of, ids] = logits[rows_of, ids]
    top = rows.max(axis=1, keepdims=True)
    top[np.isneginf(top)] = 0.0  # a row without actions stays all zeros
    weights = np.exp(rows - top)
    sums = weights.sum(axis=1, keepdims=True)
    np.divide(weights, sums, out=weights, where=sums > 0)
    return np.split(weights[rows_of, ids], np.cumsum(sizes[:-1]))


class NetworkEvaluator:
    """Evaluates leaves with a :class:`Model`.

    Args:
        model: the network.
        cache_size: positions whose outputs are kept (0: no cache).
        symmetries: average the outputs over the game's symmetric images of each position.

    Raises:
        InvalidParameterError: a bad model or cache size; ``symmetries`` for a game that
            declares none.
    """

    def __init__(
        self, model: Model, *, cache_size: int = 100_000, symmetries: bool = False
    ) -> None:
        if not isinstance(model, Model):
            raise InvalidParameterError(f"model must be a playout.zero.Model, got {model!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise InvalidParameterError(f"cache_size must be a whole number >= 0, got {cache_size}")
        if not isinstance(symmetries, bool):
            raise InvalidParameterError(f"symmetries must be True or False, got {symmetries!r}")
        self.model = model
        self.cache_size = cache_size
        self.symmetries = symmetries
        self._images = _symmetry_images(model.game) if symmetries else ()
        self._cache: OrderedDict[Any, tuple[np.ndarray, float]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        extra = ", symmetries=True" if self.symmetries else ""
        return f"NetworkEvaluator({self.model!r}{extra})"

    def outputs(self, states: Sequence[GameState]) -> list[tuple[np.ndarray, float]]:
        """``(logits over every action id, value for the player to move)`` per state, from
        the cache or from one network call for the states not in it."""
        cache = self._cache
        results: list[tuple[np.ndarray, float] | None] = [None] * len(states)
        missing: dict[Any, list[int]] = {}
        for i, state in enumerate(states):
            found = cache.get(state) if self.cache_size else None
            if found is not None:
                cache.move_to_end(state)
                results[i] = found
                self.hits += 1
            else:
                missing.setdefault(state, []).append(i)
        if missing:
            keys = list(missing)
            self.misses += len(keys)
            logits, values = self._predict(keys)
            for row, key in enumerate(keys):
                entry = (logits[row], float(values[row]))
                for i in missing[key]:
                    results[i] = entry
                if self.cache_size:
                    cache[key] = entry
            while len(cache) > self.cache_size:
                cache.popitem(last=False)
        return [r for r in results if r is not None]

    def _predict(self, states: list[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Logits and values of ``states`` in one network call (averaged over the images)."""
        if not self._images:
            return self.model.predict(self.model.observations(states))
        game = self.model.game
        batch = list(states)
        for index, _ in self._images:
            batch.extend(game.transform_state(state, index) for state in states)
        logits, values = self.model.predict(self.model.observations(batch))
        n = len(states)
        total_logits = logits[:n].astype(np.float64)
        total_values = values[:n].astype(np.float64)
        for block, (_, perm) in enumerate(self._images, start=1):
            # Action a of the position is action perm[a] of its image.
            total_logits += logits[block * n : (block + 1) * n][:, perm]
            total_values += values[block * n : (block + 1) * n]
        count = len(self._images) + 1
        return (total_logits / count).astype(np.float32), total_values / count

    def evaluate_batch(
        self, states: Sequence[GameState], actions: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Values for the player to move and priors over ``actions[i]`` for each state."""
        outputs = self.outputs(states)
        values = np.array([value for _, value in outputs], dtype=np.float64)
        return values, masked_softmax_rows(np.stack([logits for logits, _ in outputs]), actions)

    def evaluate(self, state: GameState, rng: random.Random) -> float:
        """The network's value of ``state`` for the player to move (one position)."""
        del rng
        return self.outputs([state])[0][1]

    def priors(self, state: GameState, actions: Sequence[int]) -> np.ndarray:
        """The network's policy over ``actions`` (legal actions of ``state``)."""
        logits = self.outputs([state])[0][0]
        return masked_softmax(logits, np.asarray(actions, dtype=np.int64))

    def clear(self) -> None:
        """Forget the cached outputs (after the weights change)."""
        self._cache.clear()


def _symmetry_images(game: Any) -> tuple[tuple[int, np.ndarray], ...]:
    """``(index, action permutation)`` of each symmetry of ``game`` but the identity."""
    if not has_symmetries(game):
        raise InvalidParameterError(
            f"symmetries=True needs a game that declares its symmetries (action_symmetries and "
            f"transform_state); {game.spec.name} declares none"
        )
    return tuple(
        (index, np.asarray(perm, dtype=np.int64))
        for index, perm in enumerate(game.action_symmetries())
        if index > 0
    )
