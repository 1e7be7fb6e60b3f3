"""Go's heavy playouts as a rollout policy a player names (``mcts:rollout=heavy``).

The playouts themselves are the kernel's (:func:`playout.games.go.kernel.go_kernel` with
``heavy=True``: answers to the last move first, then Dailey's light playout). This module is
the name a search is given: a rollout policy whose ``compiled_kernel(kernel)`` hook hands the
compiled driver that kernel. They run on the compiled driver only; the Python driver refuses
the policy when a search starts.
"""

from __future__ import annotations

import random
from typing import Any

from playout._src.compiled.kernel import Kernel
from playout._src.errors import InvalidParameterError
from playout.games.go.kernel import P_KOMI2, P_MAX_LENGTH, P_SIZE, go_kernel


class HeavyPlayouts:
    """The rollout policy ``heavy`` of Go (see the module docstring); stateless."""

    compiled_only = True
    """Runs on the compiled driver only (the Python driver refuses it)."""

    def compiled_kernel(self, kernel: Kernel) -> Kernel:
        """The kernel of ``kernel``'s board and rules with heavy playouts."""
        params = kernel.params
        return go_kernel(
            int(params[P_SIZE]), params[P_KOMI2] / 2.0, int(params[P_MAX_LENGTH]), heavy=True
        )

    def __call__(self, state: Any, rng: random.Random) -> int:
        raise InvalidParameterError("Go's heavy playouts run on the compiled driver only")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeavyPlayouts)

    def __hash__(self) -> int:
        return hash(HeavyPlayouts)

    def __repr__(self) -> str:
        return "HeavyPlayouts()"


HEAVY_PLAYOUTS = HeavyPlayouts()
"""The one instance (``GoGame.rollout_policies()["heavy"]``)."""

__all__ = ["HEAVY_PLAYOUTS", "HeavyPlayouts"]
