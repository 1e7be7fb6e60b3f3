"""Go's heavier playouts as rollout policies a player names (``mcts:rollout=heavy|mogo``).

The playouts themselves are the kernel's (:func:`playout.games.go.kernel.go_kernel` with
``playouts="heavy"``: answers to the last move first, then Dailey's light playout; with
``playouts="mogo"``: MoGo's escapes, 3x3 patterns and captures around the last move, self-
ataris refused). This module is the name a search is given: a rollout policy whose
``compiled_kernel(kernel)`` hook hands the compiled driver that kernel. They run on the
compiled driver only; the Python driver refuses the policies when a search starts.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from playout._src.compiled.kernel import Kernel
from playout._src.errors import InvalidParameterError
from playout.games.go.kernel import (
    P_KOMI2,
    P_MAX_LENGTH,
    P_SIZE,
    PLAYOUT_DEFAULT,
    PLAYOUT_LGRF,
    POLICIES,
    PRIORS_ALL,
    PRIORS_RATINGS,
    RATING_SCALE,
    go_kernel,
)


@dataclasses.dataclass(frozen=True)
class GoPlayouts:
    """A rollout policy of Go's kernel (see the module docstring); an immutable value.

    Attributes:
        playouts: the kernel's playouts, ``light``, ``heavy`` or ``mogo``.
        priors: the pieces of the kernel's prior knowledge (``PRIORS_*`` bits of
            :mod:`playout.games.go.kernel`), read by ``RAVE(prior=...)``: every hand-made
            piece by default (``PRIORS_ALL``), ``PRIORS_RATINGS`` for the learned ratings.
        features: what the heavier playouts add (``PLAYOUT_*`` bits: answer the tree's last
            move, leave chains caught in a ladder, fill an enclosure with a self-atari, play
            a liberty of a chain with two, answer with the last good reply, capture anywhere
            when nothing answers the last stone); the nakade exception alone by default
            (``PLAYOUT_DEFAULT``).
        rating_scale: with ``PRIORS_RATINGS`` in ``priors``, the scale of the learned
            ratings' scores (``RATING_SCALE``: natural-log units per unit of score).
    """

    playouts: str = "heavy"
    priors: int = PRIORS_ALL
    features: int = PLAYOUT_DEFAULT
    rating_scale: float = RATING_SCALE

    compiled_only = True
    """Runs on the compiled driver only (the Python driver refuses it)."""

    def __post_init__(self) -> None:
        if self.playouts not in POLICIES:
            raise InvalidParameterError(
                f"unknown Go playouts {self.playouts!r}; choose {', '.join(POLICIES)}"
            )

    def compiled_kernel(self, kernel: Kernel) -> Kernel:
        """The kernel of ``kernel``'s board and rules with these playouts and priors."""
        params = kernel.params
        return go_kernel(
            int(params[P_SIZE]),
            params[P_KOMI2] / 2.0,
            int(params[P_MAX_LENGTH]),
            playouts=self.playouts,
            priors=self.priors,
            features=self.features,
            rating_scale=self.rating_scale,
        )

    def __call__(self, state: Any, rng: random.Random) -> int:
        raise InvalidParameterError(
            f"Go's {self.playouts} playouts run on the compiled driver only"
        )


HeavyPlayouts = GoPlayouts
"""The former name of :class:`GoPlayouts`."""

HEAVY_PLAYOUTS = GoPlayouts("heavy")
"""``GoGame.rollout_policies()["heavy"]``: the heavy playouts with the hand-made priors (as
they were measured)."""
MOGO_PLAYOUTS = GoPlayouts("mogo", PRIORS_RATINGS)
"""``GoGame.rollout_policies()["mogo"]``: the MoGo playouts with the learned move ratings as
priors."""
LGRF_PLAYOUTS = GoPlayouts("mogo", PRIORS_RATINGS, PLAYOUT_DEFAULT | PLAYOUT_LGRF)
"""``GoGame.rollout_policies()["lgrf"]``: the MoGo playouts with the last good replies
(:data:`~playout.games.go.kernel.PLAYOUT_LGRF`) and the learned move ratings as priors: the
player that won 325 of 400 games against GNU Go 3.8 at level 10 (``docs/how-to/go-gnugo.md``)
where the hand-made priors' won 260 of 337."""
MOGO_HAND_PLAYOUTS = dataclasses.replace(MOGO_PLAYOUTS, priors=PRIORS_ALL)
"""``GoGame.rollout_policies()["mogo-hand"]``: the MoGo playouts with the hand-made priors
(``rollout=mogo`` before the learned ratings became its priors)."""
LGRF_HAND_PLAYOUTS = dataclasses.replace(LGRF_PLAYOUTS, priors=PRIORS_ALL)
"""``GoGame.rollout_policies()["lgrf-hand"]``: the same with the last good replies."""

__all__ = [
    "HEAVY_PLAYOUTS",
    "LGRF_HAND_PLAYOUTS",
    "LGRF_PLAYOUTS",
    "MOGO_HAND_PLAYOUTS",
    "MOGO_PLAYOUTS",
    "GoPlayouts",
    "HeavyPlayouts",
]
