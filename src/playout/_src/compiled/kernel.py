"""Game kernels: a game written as a handful of numba functions on a compact state.

The compiled driver (:mod:`playout._src.compiled.driver`) runs the whole search loop in
machine code. It does not know any game: it calls the functions of a :class:`Kernel`, the
built-in ones or a user's own (see ``examples/numba_nim.py``); its loop is compiled (and
cached on disk) once per kernel, with direct calls to the kernel's functions
(:func:`playout._src.compiled.driver.kernel_driver`).

Compact state
-------------
A state is a 1-D ``uint64`` array of ``state_size`` words (bitboards, counters, ...). The
driver keeps one row per tree node in a 2-D array ``node_states[node, :]`` and makes a child
by copying the parent's row and calling ``play`` on the copy, so a state must be plain data:
no pointers, nothing outside the row.

The five functions (exact numba signatures below; ``params`` is the kernel's own ``int64``
array of parameters, e.g. the board size, passed to every call so that one compiled function
serves every size):

``initial_state(params, out_state) -> None``
    Write the starting position into ``out_state``.
``legal_actions(params, state, out_actions) -> count``
    Write the legal action ids of a non-terminal ``state`` into ``out_actions`` (length
    ``num_actions``) and return how many there are.
``play(params, state, action) -> status``
    Play ``action`` (legal) in place; return :data:`ONGOING`, :data:`MOVER_WON`,
    :data:`MOVER_LOST` or :data:`DRAW` (the "mover" is the player who just played).
``current_player(params, state) -> player``
    0 or 1: the player to move in a non-terminal ``state``.
``rollout(params, state, scratch, rng) -> value0``
    Play uniformly random legal moves from non-terminal ``state`` to the end **without
    changing** ``state``; return the outcome for player 0 (+1 win, -1 loss, 0 draw).
    ``scratch`` is an ``int64`` array of ``scratch_size`` words private to the kernel: the
    engine zeroes it when a new tree starts and keeps it between rollouts and between the
    searches of one tree, so a kernel may cache constant data there, or what its rollouts
    learn (Go's last good replies). Draw random numbers with
    :func:`playout._src.tree.rng.random_below` on ``rng`` so that a seed reproduces a search.

One more function is optional, for RAVE (:mod:`playout._src.compiled.rave_driver`):

``recorded_rollout(params, state, scratch, rng, out_actions, out_players) -> (value0, count)``
    ``rollout``'s game, with the moves that all-moves-as-first statistics credit written to
    ``out_actions[:count]`` and their players to ``out_players[:count]`` (both of length
    ``max_length``), in the order played. A kernel may leave out moves that can earn no
    credit (Go: passes, and a point's later plays after the first). Without it, RAVE's
    rollouts play uniformly random legal moves through ``legal_actions`` and ``play``.
``move_priors(params, state, actions, out_scores) -> None``
    A score in [-1, 1] for each of ``actions`` (legal in non-terminal ``state``), for the
    player to move: RAVE's prior knowledge (``RAVE(prior=n)`` gives each new edge ``n``
    virtual AMAF samples of that mean), or NaN for a move that gets no virtual samples (one
    the recorded rollouts never credit, whose AMAF mean would otherwise stay the prior's for
    good: Go's pass). Go's scores captures, atari escapes, 3x3 patterns and penalties.

Kernels are for deterministic two-player zero-sum games with alternating or any other turn
order given by ``current_player``; values follow :mod:`playout._src.game` (a value for
player 0 is converted to the mover's point of view at every edge by the shared backup).

What most games' kernels would otherwise repeat is written once here: a game whose compact
state starts all zeros leaves ``initial_state`` out (:func:`empty_state`); a game whose
players alternate and whose state counts the moves played in word :data:`MOVES` passes
:func:`alternating_player` as ``current_player``; ``play`` ends with
:func:`move_status` (won, drawn on the last move, or going on). Kernel functions are
compiled with :data:`JIT_OPTIONS`. A game's kernel file then holds only its own rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import types as nt
from numba.core.caching import NullCache

from playout._src.errors import InvalidParameterError
from playout._src.evaluation import is_count
from playout._src.jit import JitOptions, jit

ONGOING = 0
"""``play`` status: the game goes on."""
MOVER_WON = 1
"""``play`` status: the player who just moved won."""
DRAW = 2
"""``play`` status: the game ended in a draw."""
MOVER_LOST = 3
"""``play`` status: the player who just moved lost (e.g. misere games)."""

STATE_TYPE = nt.uint64[::1]
PARAMS_TYPE = nt.int64[::1]
ACTIONS_TYPE = nt.int64[::1]
SCRATCH_TYPE = nt.int64[::1]
RNG_TYPE = nt.uint64[::1]

INITIAL_STATE_SIGNATURE = nt.void(PARAMS_TYPE, STATE_TYPE)
LEGAL_ACTIONS_SIGNATURE = nt.int64(PARAMS_TYPE, STATE_TYPE, ACTIONS_TYPE)
PLAY_SIGNATURE = nt.int64(PARAMS_TYPE, STATE_TYPE, nt.int64)
CURRENT_PLAYER_SIGNATURE = nt.int64(PARAMS_TYPE, STATE_TYPE)
ROLLOUT_SIGNATURE = nt.float64(PARAMS_TYPE, STATE_TYPE, SCRATCH_TYPE, RNG_TYPE)
MOVES_TYPE = nt.int64[::1]
RECORDED_ROLLOUT_SIGNATURE = nt.Tuple((nt.float64, nt.int64))(  # type: ignore[no-untyped-call]
    PARAMS_TYPE, STATE_TYPE, SCRATCH_TYPE, RNG_TYPE, MOVES_TYPE, MOVES_TYPE
)

MOVE_PRIORS_SIGNATURE = nt.void(PARAMS_TYPE, STATE_TYPE, ACTIONS_TYPE, nt.float64[::1])

SIGNATURES = {
    "initial_state": INITIAL_STATE_SIGNATURE,
    "legal_actions": LEGAL_ACTIONS_SIGNATURE,
    "play": PLAY_SIGNATURE,
    "current_player": CURRENT_PLAYER_SIGNATURE,
    "rollout": ROLLOUT_SIGNATURE,
    "recorded_rollout": RECORDED_ROLLOUT_SIGNATURE,
    "move_priors": MOVE_PRIORS_SIGNATURE,
}
"""The numba signature each kernel function must have (keyed by :class:`Kernel` field)."""

JIT_OPTIONS: JitOptions = {
    "cache": True,
    "nogil": True,
    "boundscheck": False,
    "error_model": "numpy",
}
"""Options the built-in kernels are compiled with (use them for your own kernels too, with
``numba.njit(**JIT_OPTIONS)``): cached on disk, and no Python-style ZeroDivisionError checks
in the inner loops. The built-in kernels add a ``sources_digest`` (see
:data:`playout.games._bitboard.STONE_JIT`)."""

MOVES = 0
"""The word of the compact state where an alternating game counts the moves played (read by
:func:`alternating_player`; only its lowest bit matters there, so a 0/1 player flag kept in
the word serves as well)."""


@jit(**JIT_OPTIONS)
def empty_state(params: np.ndarray, state: np.ndarray) -> None:
    """``initial_state`` of a game that starts from an all-zero compact state (empty
    bitboards, no moves played): the default of :func:`make_kernel`."""
    for i in range(state.shape[0]):
        state[i] = 0


@jit(**JIT_OPTIONS)
def alternating_player(params: np.ndarray, state: np.ndarray) -> np.int64:
    """``current_player`` of a game whose players alternate, player 0 first, and whose
    compact state counts the moves played in word :data:`MOVES`: 0 when the count is even,
    else 1."""
    return np.int64(state[MOVES] & np.uint64(1))


@jit(inline="always", **JIT_OPTIONS)
def move_status(won: bool, moves: int | np.integer, max_length: int | np.integer) -> int:
    """The status ``play`` returns after the ``moves``-th move of a game that lasts at most
    ``max_length`` moves and cannot be lost by a move: :data:`MOVER_WON` when the move
    ``won``, :data:`DRAW` when it was the last one possible (a full board), else
    :data:`ONGOING`. Inlined into its callers."""
    if won:
        return MOVER_WON
    if moves == max_length:
        return DRAW
    return ONGOING


Encoder = Callable[[Any], np.ndarray]
"""Turns a Python game state into the kernel's compact state array."""


class Kernel(NamedTuple):
    """A game for the compiled driver: sizes, parameters and five numba functions.

    Build one with :func:`make_kernel`, which compiles the functions for their signatures
    and checks the sizes. See the module docstring for what each function does.

    Attributes:
        name: the game's name, for messages.
        params: ``int64`` parameters passed to every function (board size, ...).
        state_size: ``uint64`` words in a compact state.
        num_actions: action ids lie in ``0 .. num_actions - 1``; bounds the legal count.
        max_length: the most moves a game can last (bounds the tree's depth).
        scratch_size: ``int64`` words of rollout scratch the kernel needs.
        initial_state, legal_actions, play, current_player, rollout: numba functions.
        encode: optional ``encode(python_state) -> np.ndarray`` converting a state of the
            matching pure-Python game into a compact state (used by the engine).
        recorded_rollout: optional numba function, ``rollout`` with its moves reported (for
            RAVE), or ``None``.
        move_priors: optional numba function, move scores for RAVE's prior knowledge, or
            ``None``.
    """

    name: str
    params: np.ndarray
    state_size: int
    num_actions: int
    max_length: int
    scratch_size: int
    initial_state: Any
    legal_actions: Any
    play: Any
    current_player: Any
    rollout: Any
    encode: Encoder | None = None
    recorded_rollout: Any = None
    move_priors: Any = None

    def new_state(self) -> np.ndarray:
        """A fresh compact state holding the initial position."""
        state = np.zeros(self.state_size, dtype=np.uint64)
        self.initial_state(self.params, state)
        return state

    def legal(self, state: np.ndarray) -> list[int]:
        """Legal actions of a compact state (a Python list; for tests and tools)."""
        out = np.zeros(self.num_actions, dtype=np.int64)
        count = int(self.legal_actions(self.params, state, out))
        return [int(a) for a in out[:count]]

    def bytes_per_state(self) -> int:
        """Bytes of one compact state row."""
        return 8 * self.state_size


def _compiled(fn: Any, field: str) -> Any:
    """``fn`` compiled for the signature of kernel function ``field``."""
    signature = SIGNATURES[field]
    if not isinstance(fn, numba.core.registry.CPUDispatcher):
        raise InvalidParameterError(
            f"kernel function {field!r} must be a numba.njit function, got {fn!r}"
        )
    if tuple(signature.args) in fn.overloads:
        return fn
    try:
        fn.compile(signature.args)
    except Exception as error:  # numba raises a variety of typing errors
        if not _compiled_without_cache(fn, signature):
            raise InvalidParameterError(
                f"kernel function {field!r} does not compile for the signature {signature}: {error}"
            ) from error
    return fn


def _compiled_without_cache(fn: Any, signature: Any) -> bool:
    """Compile ``fn`` again past its on-disk cache; whether that worked.

    numba's cache entry of a function remembers the name of its module: a file imported
    under two names (a script run as ``__main__`` and imported by a test, say) leaves
    entries the other name cannot load. The stale index is dropped and the function
    compiled afresh (and cached again).
    """
    cache = getattr(fn, "_cache", None)
    if cache is None or isinstance(cache, NullCache):
        return False
    try:
        cache.flush()
        fn.compile(signature.args)
    except Exception:
        fn._cache = NullCache()
        try:
            fn.compile(signature.args)
        except Exception:
            return False
    return True


_MAX_SIZE = 2**31 - 1
"""The largest state size, action count, game length or scratch size a kernel may declare."""


def make_kernel(
    *,
    name: str,
    params: np.ndarray | list[int] | tuple[int, ...],
    state_size: int,
    num_actions: int,
    max_length: int,
    legal_actions: Any,
    play: Any,
    current_player: Any,
    rollout: Any,
    initial_state: Any = empty_state,
    scratch_size: int = 1,
    encode: Encoder | None = None,
    recorded_rollout: Any = None,
    move_priors: Any = None,
) -> Kernel:
    """A checked :class:`Kernel`: sizes are validated and every function is compiled for
    its signature (loaded from numba's on-disk cache when the functions use ``cache=True``).
    ``initial_state`` defaults to :func:`empty_state` (all zeros); ``recorded_rollout`` is
    optional (RAVE's rollouts then play uniformly random legal moves).

    Raises:
        InvalidParameterError: a size is not a whole number from 1 to 2**31 - 1, ``params``
            are not whole numbers, or a function does not compile.
    """
    for field, value in (
        ("state_size", state_size),
        ("num_actions", num_actions),
        ("max_length", max_length),
        ("scratch_size", scratch_size),
    ):
        if not is_count(value) or not 1 <= value <= _MAX_SIZE:
            raise InvalidParameterError(
                f"{name}: {field} must be a whole number from 1 to {_MAX_SIZE:,}, got {value!r}"
            )
    if isinstance(params, str | bytes):
        raise InvalidParameterError(f"{name}: params must be whole numbers, got {params!r}")
    try:
        raw = np.asarray(params)
    except (TypeError, ValueError, OverflowError):
        raw = np.asarray([0.5])  # refused below
    if raw.size == 0:
        params_array = np.zeros(1, dtype=np.int64)
    elif raw.dtype.kind not in "iu" or (
        raw.dtype.kind == "u" and int(raw.max()) > np.iinfo(np.int64).max
    ):
        raise InvalidParameterError(f"{name}: params must be 64-bit whole numbers, got {params!r}")
    else:
        params_array = np.ascontiguousarray(raw.astype(np.int64).reshape(-1))
    return Kernel(
        name=name,
        params=params_array,
        state_size=int(state_size),
        num_actions=int(num_actions),
        max_length=int(max_length),
        scratch_size=int(scratch_size),
        initial_state=_compiled(initial_state, "initial_state"),
        legal_actions=_compiled(legal_actions, "legal_actions"),
        play=_compiled(play, "play"),
        current_player=_compiled(current_player, "current_player"),
        rollout=_compiled(rollout, "rollout"),
        encode=encode,
        recorded_rollout=(
            None if recorded_rollout is None else _compiled(recorded_rollout, "recorded_rollout")
        ),
        move_priors=None if move_priors is None else _compiled(move_priors, "move_priors"),
    )


__all__ = [
    "DRAW",
    "JIT_OPTIONS",
    "MOVER_LOST",
    "MOVER_WON",
    "MOVES",
    "ONGOING",
    "SIGNATURES",
    "Kernel",
    "alternating_player",
    "empty_state",
    "make_kernel",
    "move_status",
]
