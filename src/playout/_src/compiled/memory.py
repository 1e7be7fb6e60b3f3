"""Tree memory for the compiled engine: compact dtypes, and arrays recycled between searches.

The compiled engine's trees have the layout of :mod:`playout._src.tree` with 32-bit ``nodes``
and ``edges`` (:data:`~playout._src.compiled.driver.TREE_INT_DTYPE`), ``node_values`` without
the reward column (kernels have no intermediate rewards) and, when the search never reads
priors (UCB1 or epsilon-greedy, no symmetry), ``edge_values`` without the prior column: a
node row of 40 bytes and an edge row of 24 (32 with priors). Their arrays come from
a small pool of the arrays of finished trees: a fresh array of a few megabytes is new memory
for the process, and every 4 KiB page of it costs a page fault when the search first writes
it (about 2.5 microseconds each on a virtual machine, a sixth of a 10 000-simulation
connect-four search). A recycled array has its pages already.

Rows past ``meta[M_NUM_NODES]`` / ``meta[M_NUM_EDGES]`` of a recycled array hold old data;
the tree functions never read them (``add_node`` and ``expand`` write every field of the rows
they take). An array goes back to the pool only when nothing outside the engine refers to it
(its reference count is checked), so a tree a caller kept (``engine.tree``) is never reused.

The pool is bounded by :func:`default_pool_bytes`: an eighth of the machine's memory, at most
1 GiB, so that the arrays of a million-simulation connect-four search (about 260 MiB) are kept
for the next decision: in fresh memory, where the kernel zeroes each page on first write, such
a decision ran at 0.60M simulations per second, in recycled memory at 0.81-0.93M.
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np

from playout._src.compiled.driver import TREE_INT_DTYPE
from playout._src.tree import layout as T
from playout._src.tree.subtree import extract_subtree

_MIN_POOL_BYTES = 256 << 20
_MAX_POOL_BYTES = 1 << 30


_set_madvise_hugepage = getattr(
    getattr(getattr(np, "_core", None), "multiarray", None), "_set_madvise_hugepage", None
)
_ADVICE_LOCK = threading.Lock()


def empty_array(shape: tuple[int, int], dtype: np.dtype | type) -> np.ndarray:
    """``np.empty(shape, dtype)`` without numpy's transparent-huge-page advice.

    numpy advises the kernel to back large arrays with huge pages; for a tree filled row by
    row that made the first million-simulation connect-four decision of a process run at
    0.72-0.75M simulations per second against 1.12-1.15M without the advice (the kernel
    zeroes and compacts 2 MiB pages on first touch), and later decisions no faster.
    """
    if _set_madvise_hugepage is None:
        return np.empty(shape, dtype=dtype)
    with _ADVICE_LOCK:
        previous = _set_madvise_hugepage(False)
        try:
            return np.empty(shape, dtype=dtype)
        finally:
            _set_madvise_hugepage(previous)


def default_pool_bytes() -> int:
    """The default bound of :data:`POOL`, in bytes: an eighth of the physical memory, between
    256 MiB and 1 GiB (256 MiB when the memory size is unknown)."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return _MIN_POOL_BYTES
    return min(_MAX_POOL_BYTES, max(_MIN_POOL_BYTES, physical // 8))


class ArrayPool:
    """Arrays of finished trees, kept for the next trees (thread-safe, bounded).

    Args:
        max_bytes: total size of the arrays kept, in bytes; the oldest go first beyond it
            (:func:`default_pool_bytes` when ``None``).
    """

    def __init__(self, max_bytes: int | None = None) -> None:
        self._lock = threading.Lock()
        self._arrays: list[np.ndarray] = []
        self._max_bytes = default_pool_bytes() if max_bytes is None else int(max_bytes)

    @property
    def max_bytes(self) -> int:
        """The bound on the total size of the arrays kept, in bytes."""
        return self._max_bytes

    @property
    def nbytes(self) -> int:
        """The total size of the arrays kept now, in bytes."""
        with self._lock:
            return sum(a.nbytes for a in self._arrays)

    def take(self, rows: int, cols: int, dtype: np.dtype | type) -> np.ndarray:
        """A C-contiguous ``(r, cols)`` array with ``rows <= r <= 4 * rows`` (``r == rows``
        when freshly allocated); a recycled one holds old data."""
        dtype = np.dtype(dtype)
        with self._lock:
            best = -1
            for i, array in enumerate(self._arrays):
                if (
                    array.dtype == dtype
                    and array.shape[1] == cols
                    and rows <= array.shape[0] <= 4 * rows
                    and (best < 0 or array.shape[0] < self._arrays[best].shape[0])
                ):
                    best = i
            if best >= 0:
                return self._arrays.pop(best)
        return empty_array((rows, cols), dtype)

    def give(self, array: np.ndarray, *, wait: bool = True) -> None:
        """Keep ``array`` for a later :meth:`take` (the caller no longer uses it).

        With ``wait=False`` (from a finalizer) the array is let go instead while the pool is
        busy: the garbage collector runs a finalizer wherever an allocation triggers it,
        also inside this pool's own ``give`` or ``take`` on the same thread, where waiting
        for the lock would wait forever.
        """
        if not self._lock.acquire(blocking=wait):
            return
        try:
            self._arrays.append(array)
            total = sum(a.nbytes for a in self._arrays)
            while self._arrays and total > self._max_bytes:
                total -= self._arrays.pop(0).nbytes
        finally:
            self._lock.release()

    def __len__(self) -> int:
        """Number of arrays kept."""
        with self._lock:
            return len(self._arrays)

    def __contains__(self, array: object) -> bool:
        """Whether this very array object is kept."""
        with self._lock:
            return any(a is array for a in self._arrays)

    def clear(self) -> None:
        """Drop every kept array."""
        with self._lock:
            self._arrays.clear()


POOL = ArrayPool()
"""The process's pool of tree arrays (bounded by :func:`default_pool_bytes`; ``POOL.clear()``
lets it go)."""


def recycle(arrays: list[np.ndarray], *, wait: bool = True) -> None:
    """Give the arrays in ``arrays`` back to :data:`POOL`, each only if nothing else refers to
    it; empties the list. Callers drop their own other references first. ``wait=False``
    from a finalizer: see :meth:`ArrayPool.give`."""
    while arrays:
        array = arrays.pop()
        # References now: `array` and getrefcount's argument. Any other one (a caller's
        # tree, a view of the array) means someone may still read it: let it go instead.
        if sys.getrefcount(array) == 2 and array.base is None and array.flags.c_contiguous:
            POOL.give(array, wait=wait)


def with_rows(array: np.ndarray, rows: int, used: int) -> np.ndarray:
    """``array`` itself if it has ``rows`` rows, else a pooled array with its first ``used``
    rows copied."""
    if array.shape[0] >= rows:
        return array
    out = POOL.take(rows, array.shape[1], array.dtype)
    out[:used] = array[:used]
    return out


def new_tree(
    node_capacity: int = 1024,
    edge_capacity: int | None = None,
    *,
    priors: bool = True,
) -> T.Tree:
    """An empty tree (the layout of :func:`playout._src.tree.layout.new_tree`, 32-bit ids and
    counts) in pooled memory. Its ``node_values`` has the ``NV_EXACT`` column only (kernels
    have no intermediate rewards); with ``priors=False`` its ``edge_values`` has the
    value-sum column only (24-byte edges instead of 32), for searches that never read
    priors."""
    node_capacity = max(2, int(node_capacity))
    edge_capacity = max(8, int(node_capacity * 8 if edge_capacity is None else edge_capacity))
    edge_value_fields = T.EDGE_VALUE_FIELDS if priors else T.EV_VALUE_SUM + 1
    return T.Tree(
        nodes=POOL.take(node_capacity, T.NODE_FIELDS, TREE_INT_DTYPE),
        node_values=POOL.take(node_capacity, T.NV_EXACT + 1, np.float64),
        edges=POOL.take(edge_capacity, T.EDGE_FIELDS, TREE_INT_DTYPE),
        edge_values=POOL.take(edge_capacity, edge_value_fields, np.float64),
        meta=np.zeros(T.META_FIELDS, dtype=np.int64),
    )


def reserve(tree: T.Tree, extra_nodes: int, extra_edges: int) -> T.Tree:
    """:func:`playout._src.tree.layout.reserve` in pooled memory: ``tree`` itself if it has room,
    else a tree with doubled capacities (the caller recycles the arrays it outgrew)."""
    return T.reserve(tree, extra_nodes, extra_edges, grow=with_rows)


def subtree(tree: T.Tree, new_root: int) -> tuple[T.Tree, np.ndarray]:
    """:func:`playout._src.tree.subtree.subtree` into a pooled tree: the subtree below ``new_root``
    as a new tree, and the old id of each of its nodes."""
    out = new_tree(
        tree.node_capacity, tree.edge_capacity, priors=tree.edge_values.shape[1] > T.EV_PRIOR
    )
    old_ids = np.zeros(tree.node_capacity, dtype=np.int64)
    extract_subtree(*tree, new_root, *out, old_ids)
    return out, old_ids[: out.num_nodes].copy()


__all__ = [
    "POOL",
    "ArrayPool",
    "default_pool_bytes",
    "new_tree",
    "recycle",
    "reserve",
    "subtree",
    "with_rows",
]
