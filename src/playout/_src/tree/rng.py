"""The generator of the compiled phases: xorshift64* in a one-element ``uint64`` array.

Every random choice of the compiled search (selection ties, chance outcomes, sampled final
moves, the kernels' rollouts) draws from such an array, which the engine derives from its
seed: a seed reproduces a search exactly, in compiled code as in Python.
"""

from __future__ import annotations

import numpy as np

from playout._src.jit import jit
from playout._src.tree.compiling import PHASE_JIT


def new_rng_state(seed: int) -> np.ndarray:
    """A generator state for the compiled phases, derived from ``seed`` (never zero)."""
    mixed = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)
    if mixed[0] == 0:
        mixed[0] = np.uint64(0x9E3779B97F4A7C15)
    return mixed


@jit(**PHASE_JIT)
def next_u64(rng: np.ndarray) -> np.uint64:
    """Advance the xorshift64* generator and return 64 random bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(2685821657736338717)


@jit(**PHASE_JIT)
def random_below(rng: np.ndarray, n: int) -> int:
    """A uniform integer in ``[0, n)`` (Lemire's multiply-shift; n < 2**32)."""
    return int(((next_u64(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@jit(**PHASE_JIT)
def random_unit(rng: np.ndarray) -> float:
    """A uniform float in ``[0, 1)`` with 53 random bits."""
    return float(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


__all__ = ["new_rng_state", "next_u64", "random_below", "random_unit"]
