"""Go as a compiled kernel: the game's rules on a compact state, and light playouts.

The tree's functions (``legal_actions``, ``play``) follow :mod:`playout.games.go.state`
exactly: suicide is illegal, a move may not repeat an earlier position (positional superko,
by Zobrist hash), two passes in a row end the game, so does the ``max_length``-th move, and
the score is Tromp-Taylor's area count with komi. Compact state (``uint64`` words),
``W = ceil(size * size / 64)``::

    [0]                moves played, passes included (Black moves when it is even)
    [1]                passes in a row at the end of the game so far (2 ends it)
    [2]                the point of a simple ko (1 + point; 0 for none): where the player to
                       move may not retake at once; the playouts and the prior
                       knowledge's ladder reads use it
    [3]                the position's Zobrist hash (:func:`~.board.zobrist_keys`)
    [4]                how many positions the history holds
    [5]                the last move's point (1 + point; 0 after a pass and at the start):
                       the stone the heavier playouts answer first (and the distance
                       of the learned ratings, :func:`go_move_features`)
    [6 .. 6 + W)       Black's stones, a bit per point ``y * size + x``
    [6 + W .. 6 + 2W)  White's stones
    [6 + 2W ..]        the history: the hash of every position a real move (or the setup)
                       has made, oldest first, room for ``max_length + 1``

so a node costs ``8 * (7 + 2W + max_length)`` bytes: 2 KiB on 9x9. ``play`` and
``legal_actions`` read the board into points, label its chains (flood fills on an explicit
stack) and check each candidate's resulting hash against the history; they run once per new
node, the rollout once per simulation.

The rollout is the light playout of Don Dailey's reference bot (computer-go mailing list,
"java reference bot", October 2008), a conformance and speed test for Monte Carlo Go
programs:

* the player to move picks uniformly among its legal moves that do not fill one of its own
  one-point eyes, and passes only when there is none;
* an eye: an empty point whose orthogonal neighbours are all the mover's stones (or the edge),
  and of whose diagonal neighbours at most one is an opponent's stone, none when the point is
  on the edge or in a corner (otherwise it is a false eye, and may be filled);
* suicide is illegal; the ko rule is simple ko (no immediate recapture of a single stone),
  not superko: a cycle such as a triple ko runs until the length cap;
* the playout ends after two passes in a row or at the game's ``max_length`` (default
  ``3 * size * size``, his cap), and is scored by area with komi.

From the empty 9x9 board his bot played 111.05 moves per playout (both final passes counted)
and Black scored 0.4213 at komi 7.5, 0.5245 at komi 0 (wins, draws counted half);
``bench/go_playouts.py`` reproduces them.
The playout board lives in the rollout's scratch: a mailbox with a border of sentinel points,
chains as rings of stones with pseudo-liberty counts, and the sum and sum of squares of the
pseudo-liberties' positions, so that a chain is in atari exactly when ``sum ** 2 == count *
sum_of_squares`` (every pseudo-liberty is the same point); the empty points are a list with
swap-removal. After each rollout ``scratch[LAST_LENGTH]`` holds the moves it played (passes
included) and ``scratch[LAST_MARGIN]`` Black's area minus White's (without komi), for
statistics (:mod:`playout.games.go.playouts`).

Two heavier policies share that body, chosen by ``params[P_POLICY]``: ``heavy`` answers the
last stone with an escape or a capture, ``mogo`` plays MoGo's answers (escapes, the 3x3
patterns of :mod:`playout.games.go.patterns`, captures) and refuses self-ataris
(:func:`_light_playout`); both start by answering the tree's last move, and ``mogo`` leaves
alone a chain caught in a ladder (:mod:`playout.games.go.ladder`), fills a small enclosure
of the opponent's with a self-atari (nakade) and answers chains with two liberties, as
``params[P_FEATURES]`` says, and may capture anywhere when nothing answers the last stone.
The prior knowledge for RAVE, :func:`go_move_priors`, scores moves by the pieces
``params[P_PRIORS]`` names.
"""

from __future__ import annotations

import functools
from typing import Protocol

import numpy as np

from playout._src.compiled import kernel as kernel_api
from playout._src.compiled.kernel import (
    DRAW,
    MOVER_LOST,
    MOVER_WON,
    MOVES,
    ONGOING,
    Kernel,
    alternating_player,
    empty_state,
    make_kernel,
)
from playout._src.errors import InvalidParameterError
from playout._src.jit import JitOptions, files_digest, int64, jit
from playout._src.tree import rng as rng_module
from playout._src.tree.rng import random_below
from playout.games.go import board, features, ladder, patterns
from playout.games.go.board import (
    BLACK,
    EMPTY,
    WHITE,
    check_komi,
    check_max_length,
    check_size,
    neighbour_table,
    zobrist_keys,
)
from playout.games.go.features import (
    F_ATARI,
    F_ATARI_LADDER,
    F_CAPTURE_MANY,
    F_CAPTURE_ONE,
    F_CAPTURE_SAVES,
    F_DISTANCE,
    F_ESCAPE_LADDER,
    F_ESCAPE_MORE,
    F_ESCAPE_TWO,
    F_LINE,
    F_SELF_ATARI_MANY,
    F_SELF_ATARI_ONE,
    F_SHAPE,
    LINES,
    MAX_DISTANCE,
    MAX_FEATURES,
    NUM_SLOTS,
    shipped_ratings,
)
from playout.games.go.ladder import (
    BORDER,
    add_candidate,
    free_around,
    ladder_captures,
    ladder_work_size,
    max_depth,
    play_on_box,
)
from playout.games.go.patterns import NUM_CODES, packed_table, shape_ids

GO_JIT: JitOptions = {
    **kernel_api.JIT_OPTIONS,
    "_nrt": False,
    "sources_digest": files_digest(
        kernel_api.__file__,
        rng_module.__file__,
        board.__file__,
        ladder.__file__,
        features.__file__,
        patterns.__file__,
    ),
}
"""The kernel options, with the cache keyed on :mod:`.board` too (its constants are compiled
in), and without numba's reference counting: for the functions that allocate nothing (all but
two), which would otherwise count every array argument up and down through the runtime at
every call, at more cost than the work of most of them."""

GO_JIT_ALLOCATING: JitOptions = {**GO_JIT, "_nrt": True}
""":data:`GO_JIT` with reference counting, for ``legal_actions`` and ``play``, which allocate
their working arrays."""

# params (int64): a header, then the tables of the board.
P_SIZE, P_KOMI2, P_MAX_LENGTH, P_POINTS, P_WORDS, P_STRIDE, P_CELLS = range(7)
P_POLICY = 7
"""``params[P_POLICY]``: the rollouts' policy, one of the ``POLICY_*`` codes."""
P_PRIORS = 8
"""``params[P_PRIORS]``: what :func:`go_move_priors` scores, a sum of ``PRIORS_*`` bits."""
P_PATTERNS = 9
"""``params[P_PATTERNS]``: where the packed pattern table starts in ``params``."""
P_FEATURES = 10
"""``params[P_FEATURES]``: what the heavier playouts add, a sum of ``PLAYOUT_*`` bits."""
P_RATINGS = 11
"""``params[P_RATINGS]``: where the move ratings start in ``params`` (0 when the kernel has
none, :data:`PRIORS_RATINGS`): the scale of the priors' scores (thousandths,
:data:`RATING_SCALE`), each 3x3 code's shape slot (:data:`NUM_CODES` words, -1 for none),
then each slot's ``log gamma`` (thousandths, :data:`~.features.NUM_SLOTS` words)."""
P_TABLES = 12
"""``params[P_TABLES:]``: each point's four neighbours (-1 past the last), then the Zobrist
keys of Black's and White's stones (``int64`` bit patterns), then each point's cell on the
playout board, then the 3x3 pattern table (:func:`playout.games.go.patterns.packed_table`),
then the move ratings if any (:data:`P_RATINGS`)."""

PLAYOUT_LADDER_NODES = 24
"""The most moves a playout's ladder read plays (:func:`~.ladder.ladder_captures`); a
longer read answers "escaped", and the playout extends as before."""

POLICY_LIGHT, POLICY_HEAVY, POLICY_MOGO = 0, 1, 2
"""The rollouts' policies: Dailey's light playouts; ``heavy``: answers to the last stone
(escapes and captures) first; ``mogo``: MoGo's order of answers (escape, 3x3 patterns,
capture) with self-atari avoided (:func:`_light_playout`)."""
POLICIES: dict[str, int] = {"light": POLICY_LIGHT, "heavy": POLICY_HEAVY, "mogo": POLICY_MOGO}
"""The policies by the names players give them."""

PRIORS_TACTICS, PRIORS_PATTERNS, PRIORS_PENALTIES, PRIORS_LADDERS = 1, 2, 4, 8
"""The pieces of :func:`go_move_priors`' knowledge: captures and atari escapes; 3x3 pattern
matches; penalties for self-atari and for lone moves on the first line; ladders (no escape
from a working ladder, a bonus for the atari that starts one)."""
PRIORS_ALL = PRIORS_TACTICS | PRIORS_PATTERNS | PRIORS_PENALTIES | PRIORS_LADDERS
"""Every hand-made piece: the default of :func:`go_kernel`."""
PRIORS_RATINGS = 16
"""Learned move ratings instead of the hand-made pieces (Coulom 2007): each move's strength
is the product of its features' ``gamma`` (:mod:`.features`, a table fitted to played
games by :mod:`.ratings`), its score the log of its chance among the legal moves over the
uniform chance, divided by the scale (:data:`RATING_SCALE`), clipped to [-1, 1]. With this
bit the other pieces are not read."""
RATING_SCALE = 2.0
"""The natural-log units of a move's rating per unit of its prior score: a move
``e ** 2`` (7.4) times likelier than a uniform draw scores 1, one that much less likely -1."""

PLAYOUT_LAST_MOVE, PLAYOUT_LADDERS, PLAYOUT_NAKADE, PLAYOUT_LOW_LIBERTIES = 1, 2, 4, 8
"""What the heavier playouts add (``params[P_FEATURES]``): answer the tree's last move with
the first playout move (``heavy`` and ``mogo``; without it the first move is drawn
uniformly); leave a chain caught in a working ladder in atari instead of extending it
(``mogo``); let the uniform draw play a self-atari inside a small enclosure of the opponent
(``mogo``, :func:`_in_small_enclosure`), where only such moves kill; answer a last stone
that leaves a chain with two liberties by playing one of them (``mogo``,
:func:`_low_liberty_answers`: attack the opponent's, lengthen one's own), the capturing
races that plain MoGo playouts leave to chance. Light playouts read none of them."""
PLAYOUT_LGRF = 16
"""MoGo playouts answer the last two moves with the last good reply (LGRF-2, Baier and
Drake, "The Power of Forgetting: Improving the Last-Good-Reply Policy in Monte Carlo Go",
IEEE TCIAIG 2010): before MoGo's answers, the mover plays the reply that last followed the
same two moves (else the same last move) in a playout the mover won, if it is playable and
no self-atari; after each playout the winner's replies are stored and the loser's
forgotten (:func:`_learn_replies`). The replies live in the kernel's scratch, kept between
playouts and between the searches of one tree (the engine zeroes the scratch when a new
tree starts); only the playout's own moves are learned from, the tree's last move as the
first one's predecessor."""
PLAYOUT_CAPTURES = 32
"""MoGo playouts that find no answer to the last stone capture anywhere on the board: a
liberty of an opponent's chain in atari, drawn uniformly among them, before the uniform draw
(the third rule of MoGo's playouts, Gelly et al. 2006, section 4.2, and the capture
heuristic of Fuego's; :func:`_global_capture`): a chain left in atari far from the last
stone is taken instead of living or dying by the draw."""
PLAYOUT_ALL = (
    PLAYOUT_LAST_MOVE
    | PLAYOUT_LADDERS
    | PLAYOUT_NAKADE
    | PLAYOUT_LOW_LIBERTIES
    | PLAYOUT_LGRF
    | PLAYOUT_CAPTURES
)
"""Every playout feature."""
PLAYOUT_DEFAULT = PLAYOUT_NAKADE
"""The playout features of :func:`go_kernel` by default: the nakade exception, which won 79
of 120 games (0.658) against the same player without it (RAVE, prior 50, 1,000 simulations;
``docs/explanation/go-rave.md``). Measured the same way, neither the answer to the tree's
last move nor the ladder reads in the playouts changed the score (and the reads cost a third
of the MoGo playouts' speed), and the low-liberty answers did not raise it (54 of 120,
0.450, Wilson 95% 0.364-0.539): all three off."""

# The compact state's words.
S_PASSES, S_KO, S_HASH, S_HISTORY_LENGTH, S_LAST, S_BOARD = 1, 2, 3, 4, 5, 6

LAST_LENGTH = 0
"""``scratch[LAST_LENGTH]``: the moves the last rollout played, passes included."""
LAST_MARGIN = 1
"""``scratch[LAST_MARGIN]``: Black's area minus White's at the end of the last rollout."""
_SCRATCH_HEADER = 2

_ONE = np.uint64(1)


class GoPosition(Protocol):
    """What :func:`encode` reads of a :class:`~playout.games.go.state.GoState`."""

    @property
    def board(self) -> bytes: ...
    @property
    def num_moves(self) -> int: ...
    @property
    def passes(self) -> int: ...
    @property
    def ko_point(self) -> int: ...
    @property
    def position_hash(self) -> int: ...
    @property
    def history(self) -> tuple[int, ...]: ...
    @property
    def last_move(self) -> int: ...


def num_words(size: int) -> int:
    """64-bit words of one colour's stones on a ``size`` x ``size`` board."""
    return (size * size + 63) // 64


def state_size(size: int, max_length: int) -> int:
    """Words of the compact state (see the module docstring)."""
    return S_BOARD + 2 * num_words(size) + max_length + 1


def encode(state: GoPosition, size: int, max_length: int) -> np.ndarray:
    """The compact state of a Python position (the layout of the module docstring)."""
    words = num_words(size)
    out = np.zeros(state_size(size, max_length), dtype=np.uint64)
    out[MOVES] = state.num_moves
    out[S_PASSES] = state.passes
    out[S_KO] = state.ko_point + 1
    out[S_HASH] = state.position_hash
    history = state.history
    out[S_HISTORY_LENGTH] = len(history)
    out[S_LAST] = state.last_move + 1
    black = 0
    white = 0
    for point, colour in enumerate(state.board):
        if colour == BLACK:
            black |= 1 << point
        elif colour == WHITE:
            white |= 1 << point
    mask = (1 << 64) - 1
    for word in range(words):
        out[S_BOARD + word] = (black >> (64 * word)) & mask
        out[S_BOARD + words + word] = (white >> (64 * word)) & mask
    start = S_BOARD + 2 * words
    out[start : start + len(history)] = np.array(history, dtype=np.uint64)
    return out


def kernel_params(
    size: int,
    komi: float,
    max_length: int,
    policy: int = POLICY_LIGHT,
    priors: int = PRIORS_ALL,
    features: int = PLAYOUT_DEFAULT,
    ratings: np.ndarray | None = None,
    rating_scale: float = RATING_SCALE,
) -> np.ndarray:
    """The kernel's ``params``: the header and the board's tables (see :data:`P_TABLES`);
    ``policy``: the rollouts' (a ``POLICY_*`` code, :func:`_light_playout`); ``priors``: the
    pieces of prior knowledge (``PRIORS_*`` bits, :func:`go_move_priors`); ``features``:
    what the heavier playouts add (``PLAYOUT_*`` bits). With :data:`PRIORS_RATINGS`, the
    move ratings: ``ratings``, a ``log gamma`` per slot (``float[NUM_SLOTS]``; default the
    shipped table, :func:`playout.games.go.features.shipped_ratings`), and ``rating_scale``
    (:data:`RATING_SCALE`)."""
    points = size * size
    stride = size + 1
    neighbours = np.full((points, 4), -1, dtype=np.int64)
    for point, around in enumerate(neighbour_table(size)):
        neighbours[point, : len(around)] = around
    keys = zobrist_keys()[:, :points].view(np.int64).reshape(-1)
    cells = np.array(
        [(y + 1) * stride + x + 1 for y in range(size) for x in range(size)], dtype=np.int64
    )
    header = np.zeros(P_TABLES, dtype=np.int64)
    header[P_SIZE] = size
    header[P_KOMI2] = round(2 * komi)
    header[P_MAX_LENGTH] = max_length
    header[P_POINTS] = points
    header[P_WORDS] = num_words(size)
    header[P_STRIDE] = stride
    header[P_CELLS] = (size + 2) * stride + 1
    header[P_POLICY] = policy
    header[P_PRIORS] = priors
    header[P_PATTERNS] = P_TABLES + 7 * points
    header[P_FEATURES] = features
    tables = [header, neighbours.reshape(-1), keys, cells, packed_table()]
    if priors & PRIORS_RATINGS:
        if ratings is None:
            ratings = shipped_ratings()
        if (
            isinstance(rating_scale, bool)
            or not isinstance(rating_scale, int | float)
            or not rating_scale >= 0.01
        ):
            raise InvalidParameterError(f"rating_scale must be 0.01 or more, got {rating_scale!r}")
        ratings = np.asarray(ratings, dtype=np.float64)
        if ratings.shape != (NUM_SLOTS,) or not np.all(np.isfinite(ratings)):
            raise InvalidParameterError(
                f"ratings must be {NUM_SLOTS} finite log gammas, got shape {ratings.shape}"
            )
        header[P_RATINGS] = sum(t.shape[0] for t in tables)
        tables += [
            np.array([round(1000 * rating_scale)], dtype=np.int64),
            shape_ids()[0] + np.where(shape_ids()[0] >= 0, F_SHAPE, 0),
            np.round(1000 * np.asarray(ratings, dtype=np.float64)).astype(np.int64),
        ]
    return np.concatenate(tables)


def scratch_size(size: int) -> int:
    """``int64`` words of the rollout's scratch: the header, nine arrays over the playout
    board's cells, three over the points, one more over the cells (the points a recorded
    playout has played), the last good replies (:func:`reply_words`), then the ladder
    reader's (:func:`~.ladder.ladder_work_size`)."""
    cells = (size + 2) * (size + 1) + 1
    return (
        _SCRATCH_HEADER
        + 10 * cells
        + 3 * size * size
        + reply_words(cells, size * size)
        + ladder_work_size(size)
    )


@jit(**GO_JIT)
def reply_offset(cells: int, points: int) -> int:
    """Where the last good replies (:data:`PLAYOUT_LGRF`) start in the rollout's scratch:
    each colour's reply to a last move at ``reply_offset + (colour - 1) * cells + cell``,
    to a pair at ``reply_offset + 2 * cells + ((colour - 1) * cells + first) * cells +
    second`` (colours 1 Black, 2 White; cells of the playout board)."""
    return _SCRATCH_HEADER + 10 * cells + 3 * points


@jit(**GO_JIT)
def reply_words(cells: int, points: int) -> int:
    """Scratch words of :data:`PLAYOUT_LGRF`: each colour's reply to a last move (``cells``
    each) and to a pair of last moves (``cells * cells`` each), then the log of a playout's
    first ``3 * points`` moves."""
    return 2 * cells + 2 * cells * cells + 3 * points


# ------------------------------------------------------------------------- the tree's rules


@jit(**GO_JIT)
def _key(params: np.ndarray, colour: int, point: int) -> np.uint64:
    """The Zobrist key of a ``colour`` stone on ``point``."""
    points = params[P_POINTS]
    return np.uint64(params[P_TABLES + 4 * points + (colour - 1) * points + point])


@jit(**GO_JIT)
def read_board(params: np.ndarray, state: np.ndarray, colour: np.ndarray) -> None:
    """``colour[p]``: what point ``p`` holds in the compact ``state``."""
    words = params[P_WORDS]
    for p in range(params[P_POINTS]):
        shift = np.uint64(p & 63)
        word = p >> 6
        if (state[S_BOARD + word] >> shift) & _ONE:
            colour[p] = BLACK
        elif (state[S_BOARD + words + word] >> shift) & _ONE:
            colour[p] = WHITE
        else:
            colour[p] = EMPTY


@jit(**GO_JIT)
def label_chains(
    params: np.ndarray,
    colour: np.ndarray,
    chain: np.ndarray,
    liberties: np.ndarray,
    chain_hash: np.ndarray,
    stack: np.ndarray,
    mark: np.ndarray,
) -> None:
    """Label every chain by its lowest point: ``chain[p]`` for each stone (-1 on empty
    points), and for each label its number of liberties and the xor of its stones' keys.
    Flood fills on ``stack``; ``mark`` records which chain last counted a liberty."""
    points = params[P_POINTS]
    for p in range(points):
        chain[p] = -1
        mark[p] = -1
    for start in range(points):
        own = colour[start]
        if own == EMPTY or chain[start] >= 0:
            continue
        chain[start] = start
        stack[0] = start
        top = 1
        count = 0
        key = np.uint64(0)
        while top > 0:
            top -= 1
            q = stack[top]
            key ^= _key(params, own, q)
            for k in range(4):
                n = params[P_TABLES + 4 * q + k]
                if n < 0:
                    break
                if colour[n] == EMPTY:
                    if mark[n] != start:
                        mark[n] = start
                        count += 1
                elif colour[n] == own and chain[n] < 0:
                    chain[n] = start
                    stack[top] = n
                    top += 1
        liberties[start] = count
        chain_hash[start] = key


@jit(**GO_JIT)
def area_margin(params: np.ndarray, colour: np.ndarray, stack: np.ndarray, mark: np.ndarray) -> int:
    """Black's area minus White's (Tromp-Taylor): stones, plus the empty points of each
    region that reaches stones of one colour only. Flood fills on ``stack``."""
    points = params[P_POINTS]
    for p in range(points):
        mark[p] = 0
    margin = int64(0)
    for start in range(points):
        own = colour[start]
        if own == BLACK:
            margin += 1
        elif own == WHITE:
            margin -= 1
        elif mark[start] == 0:
            mark[start] = 1
            stack[0] = start
            top = 1
            size = 0
            reaches = 0  # bit 0: Black, bit 1: White
            while top > 0:
                top -= 1
                q = stack[top]
                size += 1
                for k in range(4):
                    n = params[P_TABLES + 4 * q + k]
                    if n < 0:
                        break
                    if colour[n] == EMPTY:
                        if mark[n] == 0:
                            mark[n] = 1
                            stack[top] = n
                            top += 1
                    else:
                        reaches |= colour[n]
            if reaches == BLACK:
                margin += size
            elif reaches == WHITE:
                margin -= size
    return margin


@jit(**GO_JIT)
def final_status(params: np.ndarray, margin: int, mover: int) -> int:
    """``play``'s status at the end of a game whose area margin (Black minus White) is
    ``margin``, for ``mover`` (0 Black, 1 White) who just played."""
    score2 = 2 * margin - params[P_KOMI2]  # twice Black's score after komi
    if score2 == 0:
        return DRAW
    black_won = score2 > 0
    return MOVER_WON if black_won == (mover == 0) else MOVER_LOST


@jit(**GO_JIT)
def _captured_chains(
    params: np.ndarray,
    colour: np.ndarray,
    chain: np.ndarray,
    liberties: np.ndarray,
    point: int,
    own: int,
    out: np.ndarray,
) -> int:
    """The distinct opponent chains a stone of colour ``own`` on empty ``point`` captures
    (those whose only liberty it is), written to ``out``; how many."""
    count = 0
    for k in range(4):
        n = params[P_TABLES + 4 * point + k]
        if n < 0:
            break
        if colour[n] == 3 - own and liberties[chain[n]] == 1:
            label = chain[n]
            seen = False
            for i in range(count):
                if out[i] == label:
                    seen = True
            if not seen:
                out[count] = label
                count += 1
    return count


@jit(**GO_JIT)
def _in_history(state: np.ndarray, start: int, key: np.uint64) -> bool:
    """Whether the history (``state[start:]``, ``state[S_HISTORY_LENGTH]`` entries) holds
    ``key``."""
    length = int(state[S_HISTORY_LENGTH])
    i = 0
    while i < length and state[start + i] != key:
        i += 1
    return i < length


@jit(**GO_JIT_ALLOCATING)
def _labelled_board(
    params: np.ndarray, state: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The position read onto new arrays over the points, its chains labelled
    (:func:`label_chains`): ``colour``, ``chain``, ``liberties``, then scratch for the callers
    (``stack`` and ``mark`` over the points, ``captured`` of 4 words) and each chain's
    Zobrist hash."""
    points = params[P_POINTS]
    work = np.empty(5 * points + 4, dtype=np.int64)
    colour = work[:points]
    chain = work[points : 2 * points]
    liberties = work[2 * points : 3 * points]
    stack = work[3 * points : 4 * points]
    mark = work[4 * points : 5 * points]
    captured = work[5 * points :]
    chain_hash = np.empty(points, dtype=np.uint64)
    read_board(params, state, colour)
    label_chains(params, colour, chain, liberties, chain_hash, stack, mark)
    return colour, chain, liberties, stack, mark, captured, chain_hash


@jit(**GO_JIT_ALLOCATING)
def go_legal_actions(params: np.ndarray, state: np.ndarray, out: np.ndarray) -> int:
    """The legal moves, points in increasing order then the pass (the Python game's order):
    empty points where the stone keeps or makes a liberty (no suicide) and the position it
    makes is not in the history (positional superko)."""
    points = params[P_POINTS]
    history = S_BOARD + 2 * params[P_WORDS]
    colour, chain, liberties, _, mark, captured, chain_hash = _labelled_board(params, state)
    own = int(state[MOVES] & _ONE) + 1
    key = state[S_HASH]
    count = 0
    for p in range(points):
        if colour[p] != EMPTY:
            continue
        num_captured = _captured_chains(params, colour, chain, liberties, p, own, captured)
        if num_captured == 0 and (
            _liberties_after(params, colour, chain, liberties, p, own, 1, mark) == 0
        ):
            continue  # suicide
        after = key ^ _key(params, own, p)
        for i in range(num_captured):
            after ^= chain_hash[captured[i]]
        if _in_history(state, history, after):
            continue  # superko
        out[count] = p
        count += 1
    out[count] = points  # the pass
    return count + 1


@jit(**GO_JIT_ALLOCATING)
def go_play(params: np.ndarray, state: np.ndarray, action: int) -> int:
    """Play ``action`` (legal) for the player to move: a stone and its captures, or the pass;
    the status (the game ends after two passes in a row or the ``max_length``-th move)."""
    points = params[P_POINTS]
    words = params[P_WORDS]
    moves = int(state[MOVES])
    mover = moves & 1
    own = mover + 1
    work = np.empty(5 * points + 4, dtype=np.int64)
    colour = work[:points]
    stack = work[points : 2 * points]
    mark = work[2 * points : 3 * points]
    read_board(params, state, colour)
    if action == points:
        state[S_PASSES] += _ONE
        state[S_KO] = 0
        state[S_LAST] = 0
    else:
        state[S_LAST] = action + 1
        chain = work[3 * points : 4 * points]
        liberties = work[4 * points : 5 * points]
        captured = work[5 * points :]
        chain_hash = np.empty(points, dtype=np.uint64)
        label_chains(params, colour, chain, liberties, chain_hash, stack, mark)
        num_captured = _captured_chains(params, colour, chain, liberties, action, own, captured)
        key = state[S_HASH] ^ _key(params, own, action)
        state[S_BOARD + mover * words + (action >> 6)] |= _ONE << np.uint64(action & 63)
        colour[action] = own
        num_stones = 0
        last = -1
        opponent_words = S_BOARD + (1 - mover) * words
        for i in range(num_captured):
            label = captured[i]
            key ^= chain_hash[label]
            for p in range(label, points):
                if chain[p] == label:
                    state[opponent_words + (p >> 6)] &= ~(_ONE << np.uint64(p & 63))
                    colour[p] = EMPTY
                    num_stones += 1
                    last = p
        state[S_HASH] = key
        length = np.int64(state[S_HISTORY_LENGTH])
        state[S_BOARD + 2 * words + length] = key
        state[S_HISTORY_LENGTH] = length + 1
        state[S_PASSES] = 0
        state[S_KO] = 0
        if num_stones == 1:  # a simple ko: a lone stone, its one liberty the point it took
            alone = True
            free = 0
            for k in range(4):
                n = params[P_TABLES + 4 * action + k]
                if n < 0:
                    break
                if colour[n] == own:
                    alone = False
                elif colour[n] == EMPTY:
                    free += 1
            if alone and free == 1:
                state[S_KO] = last + 1
    moves += 1
    state[MOVES] = moves
    if state[S_PASSES] >= 2 or moves >= params[P_MAX_LENGTH]:
        return final_status(params, area_margin(params, colour, stack, mark), mover)
    return ONGOING


# ------------------------------------------------------------------------- prior knowledge

PRIOR_CAPTURE = 1.0
"""The score of a move that captures (:func:`go_move_priors`)."""
PRIOR_ESCAPE = 1.0
"""The score of a move that saves one of the mover's chains from atari."""
PRIOR_PATTERN = 1.0
"""The score of a move whose 3x3 surroundings match one of MoGo's patterns."""
PRIOR_SELF_ATARI = -1.0
"""The score of a self-atari: a move that leaves a chain of two stones or more with one
liberty and captures nothing."""
PRIOR_LONE_EDGE = -0.5
"""The score of a move on the first line with no stone within a Manhattan distance of 2."""
PRIOR_LADDER_ESCAPE = -1.0
"""The score of a move that extends an own chain in atari caught in a working ladder (the
chase only feeds the opponent stones: :mod:`playout.games.go.ladder`)."""
PRIOR_LADDER_ATARI = 1.0
"""The score of an atari that starts a working ladder."""


@jit(**GO_JIT)
def _point_code(size: int, colour: np.ndarray, point: int) -> int:
    """The code of the eight neighbours of ``point`` (:mod:`playout.games.go.patterns`)."""
    x = point % size
    y = point // size
    code = 0
    shift = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == 0 and dy == 0:
                continue
            nx = x + dx
            ny = y + dy
            value = 3
            if 0 <= nx < size and 0 <= ny < size:
                value = colour[ny * size + nx]
            code |= value << shift
            shift += 2
    return code


@jit(**GO_JIT)
def _liberties_after(
    params: np.ndarray,
    colour: np.ndarray,
    chain: np.ndarray,
    liberties: np.ndarray,
    point: int,
    own: int,
    limit: int,
    mark: np.ndarray,
) -> int:
    """The liberties of the chain a stone of ``own`` on empty ``point`` makes, counted up to
    ``limit`` (a capture counts as ``limit``); ``mark`` is scratch over the points. With a
    limit of 1, whether the stone keeps a liberty (no suicide): an empty neighbour or a
    chain of its own with another liberty settle it without walking any chain."""
    points = params[P_POINTS]
    found = 0
    walk = False
    for k in range(4):
        n = params[P_TABLES + 4 * point + k]
        if n < 0:
            break
        if colour[n] == EMPTY:
            found += 1
        elif colour[n] == own:
            if liberties[chain[n]] > limit:
                return limit  # ``point`` is one of them, at least ``limit`` others
            walk = walk or liberties[chain[n]] > 1
        elif liberties[chain[n]] == 1:
            return limit  # a capture
    if found >= limit or not walk:
        return min(found, limit)
    # Distinct liberties of the stone and the chains it joins (the slow case).
    for p in range(points):
        mark[p] = 0
    mark[point] = 1
    found = 0
    for k in range(4):
        n = params[P_TABLES + 4 * point + k]
        if n < 0:
            break
        if colour[n] == EMPTY and mark[n] == 0:
            mark[n] = 1
            found += 1
        elif colour[n] == own:
            label = chain[n]
            for q in range(label, points):
                if chain[q] != label:
                    continue
                for j in range(4):
                    m = params[P_TABLES + 4 * q + j]
                    if m < 0:
                        break
                    if colour[m] == EMPTY and mark[m] == 0:
                        mark[m] = 1
                        found += 1
        if found >= limit:
            return limit
    return found


@jit(**GO_JIT)
def _joins_own(params: np.ndarray, colour: np.ndarray, point: int, own: int) -> bool:
    """Whether a stone on ``point`` touches a stone of ``own``."""
    for k in range(4):
        n = params[P_TABLES + 4 * point + k]
        if n < 0:
            break
        if colour[n] == own:
            return True
    return False


@jit(**GO_JIT)
def _is_lone_edge(size: int, colour: np.ndarray, point: int) -> bool:
    """Whether ``point`` is on the first line with no stone within a Manhattan distance of 2."""
    x = point % size
    y = point // size
    if 0 < x < size - 1 and 0 < y < size - 1:
        return False
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if abs(dx) + abs(dy) > 2:
                continue
            nx = x + dx
            ny = y + dy
            if 0 <= nx < size and 0 <= ny < size and colour[ny * size + nx] != EMPTY:
                return False
    return True


@jit(**GO_JIT)
def _starts_ladder(
    params: np.ndarray,
    box: np.ndarray,
    trial: np.ndarray,
    point: int,
    own: int,
    colour: np.ndarray,
    chain: np.ndarray,
    liberties: np.ndarray,
    ladder_work: np.ndarray,
    depth_limit: int,
) -> bool:
    """Whether a stone of ``own`` on empty ``point`` puts an opponent's chain of two
    liberties in atari and that chain is then caught in a working ladder. ``box``: the
    position's mailbox (unchanged); ``trial``: scratch of its size."""
    points = params[P_POINTS]
    stride = params[P_STRIDE]
    cell_of = P_TABLES + 6 * points
    cells = box.shape[0]
    for c in range(cells):
        trial[c] = box[c]
    # The reader's lists, borrowed before the read overwrites them.
    mark = ladder_work[:cells]
    queue = ladder_work[cells : 2 * cells]
    found = ladder_work[2 * cells : 3 * cells]
    for c in range(cells):
        mark[c] = 0
    taken, ko = play_on_box(trial, params[cell_of + point], own, stride, mark, queue, found)
    if taken < 0:
        return False
    for k in range(4):
        n = params[P_TABLES + 4 * point + k]
        if n < 0:
            break
        if (
            colour[n] == 3 - own
            and liberties[chain[n]] == 2
            and ladder_captures(trial, params[cell_of + n], stride, ko, ladder_work, depth_limit)
        ):
            return True
    return False


@jit(**GO_JIT)
def _mover_code(size: int, colour: np.ndarray, point: int, own: int) -> int:
    """:func:`_point_code` with the mover's stones as Black and the opponent's as White."""
    code = _point_code(size, colour, point)
    if own == WHITE:
        black = code & 0x5555 & ~(code >> 1)
        white = (code >> 1) & 0x5555 & ~code
        code = (code & ~(black | (white << 1))) | (black << 1) | white
    return code


@jit(**GO_JIT)
def _short_neighbours(
    params: np.ndarray,
    colour: np.ndarray,
    chain: np.ndarray,
    liberties: np.ndarray,
    point: int,
    own: int,
    box: np.ndarray,
    ko: int,
    ladder_work: np.ndarray,
    depth_limit: int,
) -> tuple[bool, bool, bool]:
    """What touches empty ``point`` for a stone of ``own``: an own chain in atari (the stone
    would save it), one of them caught in a working ladder (read on ``box`` only when it is
    not empty, :func:`_ladder_board`), an opponent's chain of two liberties (the stone
    would put it in atari)."""
    cell_of = P_TABLES + 6 * params[P_POINTS]
    stride = params[P_STRIDE]
    saves = False
    caught = False
    threatens = False
    for k in range(4):
        n = params[P_TABLES + 4 * point + k]
        if n < 0:
            break
        if colour[n] == own and liberties[chain[n]] == 1:
            saves = True
            if box.shape[0] > 0 and not caught:
                caught = ladder_captures(
                    box, params[cell_of + n], stride, ko, ladder_work, depth_limit
                )
        elif colour[n] == 3 - own and liberties[chain[n]] == 2:
            threatens = True
    return saves, caught, threatens


@jit(**GO_JIT)
def _move_features(
    params: np.ndarray,
    colour: np.ndarray,
    chain: np.ndarray,
    liberties: np.ndarray,
    mark: np.ndarray,
    captured: np.ndarray,
    box: np.ndarray,
    trial: np.ndarray,
    ladder_work: np.ndarray,
    depth_limit: int,
    ko: int,
    point: int,
    own: int,
    last: int,
    out: np.ndarray,
) -> int:
    """The rating slots of a stone of ``own`` on empty ``point`` (:mod:`.features`), written
    to ``out``; how many (at most :data:`~.features.MAX_FEATURES`). ``last``: the last
    move's point (-1 for none or a pass); ``box`` and the rest: the ladder reader's, an
    empty ``box`` when no chain has two liberties or fewer (then no move is an atari or an
    escape, and nothing is read)."""
    size = params[P_SIZE]
    points = params[P_POINTS]
    count = 0
    taken = _captured_chains(params, colour, chain, liberties, point, own, captured)
    if taken > 0:
        saves = False
        stones = 0
        for i in range(taken):
            label = captured[i]
            for q in range(label, points):
                if chain[q] != label:
                    continue
                stones += 1
                for k in range(4):
                    m = params[P_TABLES + 4 * q + k]
                    if m < 0:
                        break
                    saves = saves or (colour[m] == own and liberties[chain[m]] == 1)
        if saves:
            out[count] = F_CAPTURE_SAVES
        else:
            out[count] = F_CAPTURE_ONE if stones == 1 else F_CAPTURE_MANY
        count += 1
    saves, caught, threatened = _short_neighbours(
        params, colour, chain, liberties, point, own, box, ko, ladder_work, depth_limit
    )
    after = _liberties_after(params, colour, chain, liberties, point, own, 3, mark)
    if saves and after >= 2:
        if caught:
            out[count] = F_ESCAPE_LADDER
        else:
            out[count] = F_ESCAPE_TWO if after == 2 else F_ESCAPE_MORE
        count += 1
    if threatened and after >= 2:
        if box.shape[0] > 0 and _starts_ladder(
            params, box, trial, point, own, colour, chain, liberties, ladder_work, depth_limit
        ):
            out[count] = F_ATARI_LADDER
        else:
            out[count] = F_ATARI
        count += 1
    if after == 1:
        joins = _joins_own(params, colour, point, own)
        out[count] = F_SELF_ATARI_MANY if joins else F_SELF_ATARI_ONE
        count += 1
    x = point % size
    y = point // size
    if 0 <= last < points:
        dx = abs(x - last % size)
        dy = abs(y - last // size)
        distance = dx + dy + max(dx, dy)
        if distance <= MAX_DISTANCE:
            out[count] = F_DISTANCE + distance - 2
            count += 1
    line = min(min(x, y), min(size - 1 - x, size - 1 - y)) + 1
    out[count] = F_LINE + min(line, LINES) - 1
    count += 1
    start = params[P_RATINGS]
    if start > 0:  # a kernel without ratings has no shape table
        slot = params[start + 1 + _mover_code(size, colour, point, own)]
        if slot >= 0:
            out[count] = slot
            count += 1
    return count


@jit(**GO_JIT_ALLOCATING)
def _no_ladder_board() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three empty arrays: no ladder is read (:func:`_ladder_board`)."""
    return (
        np.empty(0, dtype=np.int64),
        np.empty(0, dtype=np.int64),
        np.empty(0, dtype=np.int64),
    )


@jit(**GO_JIT_ALLOCATING)
def _ladder_board(
    params: np.ndarray, colour: np.ndarray, chain: np.ndarray, liberties: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The position on a mailbox for the ladder reader, with its scratch (``box``, ``trial``,
    ``ladder_work``), or three empty arrays when no chain has two liberties or fewer (then no
    move is an atari or an escape)."""
    points = params[P_POINTS]
    short = False
    for p in range(points):
        short = short or (colour[p] != EMPTY and liberties[chain[p]] <= 2)
    cells = params[P_CELLS] if short else 0
    box = np.full(cells, BORDER, dtype=np.int64)
    trial = np.empty(cells, dtype=np.int64)
    ladder_work = np.empty(ladder_work_size(params[P_SIZE]) if short else 0, dtype=np.int64)
    cell_of = P_TABLES + 6 * points
    if short:
        for p in range(points):
            box[params[cell_of + p]] = colour[p]
    return box, trial, ladder_work


@jit(**GO_JIT_ALLOCATING)
def go_move_features(
    params: np.ndarray, state: np.ndarray, actions: np.ndarray, out: np.ndarray
) -> None:
    """The rating slots (:mod:`.features`) of each of ``actions`` for the player to move in
    ``state``: row ``i`` of ``out`` (``int64[len(actions), MAX_FEATURES]``) holds those of
    ``actions[i]``, -1 after the last; the pass and points not empty get none. The shape
    slot needs a kernel with ratings (:data:`PRIORS_RATINGS`); without them it is left out.

    Raises:
        ValueError: ``out`` has fewer than ``MAX_FEATURES`` columns or rows than actions.
    """
    if out.shape[1] < MAX_FEATURES or out.shape[0] < actions.shape[0]:
        raise ValueError("out needs a row per action and MAX_FEATURES columns")
    points = params[P_POINTS]
    colour, chain, liberties, _, mark, captured, _ = _labelled_board(params, state)
    box, trial, ladder_work = _ladder_board(params, colour, chain, liberties)
    own = int(state[MOVES] & _ONE) + 1
    ko = int(state[S_KO])
    ko = int(params[P_TABLES + 6 * points + ko - 1]) if ko > 0 else -1
    last = int(state[S_LAST]) - 1
    depth_limit = max_depth(params[P_SIZE])
    for i in range(actions.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = -1
        p = actions[i]
        if p < 0 or p >= points or colour[p] != EMPTY:
            continue
        _move_features(
            params, colour, chain, liberties, mark, captured, box, trial, ladder_work,
            depth_limit, ko, p, own, last, out[i],
        )  # fmt: skip


@jit(**GO_JIT_ALLOCATING)
def _rated_priors(
    params: np.ndarray, state: np.ndarray, actions: np.ndarray, out: np.ndarray
) -> None:
    """:func:`go_move_priors` from the learned ratings (:data:`PRIORS_RATINGS`): each move's
    ``log gamma`` summed over its slots, then ``(rating - log(sum of exp(ratings)) +
    log(moves)) / scale`` clipped to [-1, 1], over the points among ``actions`` (the pass:
    NaN)."""
    slots = np.empty((actions.shape[0], MAX_FEATURES), dtype=np.int64)
    go_move_features(params, state, actions, slots)
    start = params[P_RATINGS]
    gammas = start + 1 + NUM_CODES
    points = params[P_POINTS]
    best = -np.inf
    rated = 0
    for i in range(actions.shape[0]):
        if actions[i] == points:
            out[i] = np.nan
            continue
        total = 0
        for j in range(MAX_FEATURES):
            if slots[i, j] < 0:
                break
            total += params[gammas + slots[i, j]]
        out[i] = total / 1000.0
        best = max(best, out[i])
        rated += 1
    if rated == 0:
        return
    norm = 0.0
    for i in range(actions.shape[0]):
        if actions[i] != points:
            norm += np.exp(out[i] - best)
    shift = best + np.log(norm) - np.log(rated)
    scale = params[start] / 1000.0
    for i in range(actions.shape[0]):
        if actions[i] != points:
            out[i] = min(1.0, max(-1.0, (out[i] - shift) / scale))


@jit(**GO_JIT_ALLOCATING)
def go_move_priors(
    params: np.ndarray, state: np.ndarray, actions: np.ndarray, out: np.ndarray
) -> None:
    """Prior knowledge for RAVE (the kernel's ``move_priors``): a score in [-1, 1] for each
    of ``actions``, for the player to move, in the manner of MoGo's and Fuego's prior values
    (Gelly & Silver 2007; Enzenberger et al. 2010). The pieces ``params[P_PRIORS]`` holds,
    first that applies:

    * :data:`PRIORS_TACTICS`: :data:`PRIOR_CAPTURE` for a stone that captures;
    * :data:`PRIORS_LADDERS`: :data:`PRIOR_LADDER_ESCAPE` for the extension of an own chain
      in atari that is caught in a working ladder (:func:`~.ladder.ladder_captures`);
    * :data:`PRIORS_TACTICS`: :data:`PRIOR_ESCAPE` for a move that gives an own chain in
      atari (a liberty of one) two liberties or more;
    * :data:`PRIORS_LADDERS`: :data:`PRIOR_LADDER_ATARI` for an atari (on a chain of two
      liberties) that starts a working ladder;
    * :data:`PRIORS_PENALTIES`: :data:`PRIOR_SELF_ATARI` for a self-atari (a chain of two
      stones or more left with one liberty, nothing captured), :data:`PRIOR_LONE_EDGE` for a
      move on the first line with nothing within a Manhattan distance of 2;
    * :data:`PRIORS_PATTERNS`: :data:`PRIOR_PATTERN` for a move whose 3x3 surroundings match
      one of MoGo's patterns (:mod:`playout.games.go.patterns`);

    0 otherwise: an even game. With :data:`PRIORS_RATINGS` instead the learned ratings
    score every move (:func:`_rated_priors`). The pass gets NaN, no virtual samples: the
    recorded rollouts never credit a pass, so its AMAF mean would stay the prior's for good
    and, weighed in by RAVE's schedule, pull the pass's value towards an even game, which
    made the search pass in positions it was losing but had not lost. The liberties after a
    move are counted exactly (:func:`_liberties_after`)."""
    if params[P_PRIORS] & PRIORS_RATINGS:
        _rated_priors(params, state, actions, out)
        return
    points = params[P_POINTS]
    size = params[P_SIZE]
    pieces = params[P_PRIORS]
    colour, chain, liberties, _, mark, captured, _ = _labelled_board(params, state)
    own = int(state[MOVES] & _ONE) + 1
    cell_of = P_TABLES + 6 * points
    depth_limit = max_depth(size)
    if pieces & PRIORS_LADDERS:
        box, trial, ladder_work = _ladder_board(params, colour, chain, liberties)
    else:
        box, trial, ladder_work = _no_ladder_board()
    if box.shape[0] == 0:
        pieces &= ~PRIORS_LADDERS
    ko = int(state[S_KO])
    ko = int(params[cell_of + ko - 1]) if ko > 0 else -1
    for i in range(actions.shape[0]):
        p = actions[i]
        out[i] = 0.0
        if p == points:
            out[i] = np.nan  # the pass: no virtual samples (the rollouts never credit it)
            continue
        if p < 0 or p >= points or colour[p] != EMPTY:
            continue
        if (
            pieces & PRIORS_TACTICS
            and _captured_chains(params, colour, chain, liberties, p, own, captured) > 0
        ):
            out[i] = PRIOR_CAPTURE
            continue
        saves, caught, threatens = _short_neighbours(
            params, colour, chain, liberties, p, own, box, ko, ladder_work, depth_limit
        )
        if caught:
            out[i] = PRIOR_LADDER_ESCAPE
            continue
        if (
            pieces & PRIORS_TACTICS
            and saves
            and _liberties_after(params, colour, chain, liberties, p, own, 2, mark) >= 2
        ):
            out[i] = PRIOR_ESCAPE
            continue
        if (
            pieces & PRIORS_LADDERS
            and threatens
            and _starts_ladder(
                params, box, trial, p, own, colour, chain, liberties, ladder_work, depth_limit
            )
        ):
            out[i] = PRIOR_LADDER_ATARI
            continue
        if pieces & PRIORS_PENALTIES:
            if _joins_own(params, colour, p, own) and (
                _liberties_after(params, colour, chain, liberties, p, own, 2, mark) == 1
            ):
                out[i] = PRIOR_SELF_ATARI
                continue
            if _is_lone_edge(size, colour, p):
                out[i] = PRIOR_LONE_EDGE
                continue
        if pieces & PRIORS_PATTERNS and _pattern_matches(params, _point_code(size, colour, p), own):
            out[i] = PRIOR_PATTERN


# ------------------------------------------------------------------------- light playouts


@jit(inline="always", **GO_JIT)
def _in_atari(libs: np.ndarray, sums: np.ndarray, squares: np.ndarray, head: int) -> bool:
    """Whether the chain ``head`` has exactly one liberty: all its pseudo-liberties are one
    point when their sum squared equals their count times the sum of their squares."""
    count = libs[head]
    return bool(count > 0 and sums[head] * sums[head] == count * squares[head])


@jit(**GO_JIT)
def _remove_chain(
    cell: int,
    colour: np.ndarray,
    chain: np.ndarray,
    ring: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    empty_at: np.ndarray,
    empties: np.ndarray,
    num_empty: int,
    stride: int,
) -> int:
    """Take the chain through ``cell`` off the board: its points become empty (appended to
    the empty list) and pseudo-liberties of the chains around them; the new empty count."""
    stone = cell
    while True:
        colour[stone] = EMPTY
        empty_at[stone] = num_empty
        empties[num_empty] = stone
        num_empty += 1
        stone = ring[stone]
        if stone == cell:
            break
    while True:
        for n in (stone - stride, stone - 1, stone + 1, stone + stride):
            if EMPTY < colour[n] < BORDER:
                head = chain[n]
                libs[head] += 1
                sums[head] += stone
                squares[head] += stone * stone
        stone = ring[stone]
        if stone == cell:
            break
    return num_empty


@jit(**GO_JIT)
def _is_playable(
    cell: int,
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
) -> bool:
    """Whether the playout may put a stone of ``own`` on empty ``cell``: not the ko point,
    not one of its own eyes (Dailey's definition, in the module docstring), not suicide."""
    if cell == ko:
        return False
    up = colour[cell - stride]
    left = colour[cell - 1]
    right = colour[cell + 1]
    down = colour[cell + stride]
    if up == EMPTY or left == EMPTY or right == EMPTY or down == EMPTY:
        return True  # a liberty, and no eye
    other = 3 - own
    if up & left & right & down & own:  # each is own or BORDER (both colour bits)
        enemies = (
            (colour[cell - stride - 1] == other)
            + (colour[cell - stride + 1] == other)
            + (colour[cell + stride - 1] == other)
            + (colour[cell + stride + 1] == other)
        )
        on_edge = up == BORDER or left == BORDER or right == BORDER or down == BORDER
        if enemies == 0 or (enemies == 1 and not on_edge):
            return False  # an eye
    for n in (cell - stride, cell - 1, cell + 1, cell + stride):
        if colour[n] == own and not _in_atari(libs, sums, squares, chain[n]):
            return True  # joins a chain that keeps another liberty
        if colour[n] == other and _in_atari(libs, sums, squares, chain[n]):
            return True  # captures
    return False  # suicide


@jit(**GO_JIT)
def _local_answer(
    last: int,
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
) -> int:
    """A heavy playout's answer to the stone on ``last``: the liberty of an own chain in atari
    there or next to it, when playing it leaves two empty neighbours or more, or the liberty
    of an opponent's chain in atari there or next to it (a capture); -1 for none."""
    other = 3 - own
    for n in (last, last - stride, last - 1, last + 1, last + stride):
        stone = colour[n]
        if stone != own and stone != other:
            continue
        head = chain[n]
        if not _in_atari(libs, sums, squares, head):
            continue
        liberty = sums[head] // libs[head]
        if not _is_playable(liberty, own, ko, colour, chain, libs, sums, squares, stride):
            continue
        if stone == other:
            return liberty  # a capture
        free = (
            (colour[liberty - stride] == EMPTY)
            + (colour[liberty - 1] == EMPTY)
            + (colour[liberty + 1] == EMPTY)
            + (colour[liberty + stride] == EMPTY)
        )
        if free >= 2:
            return liberty  # an escape
    return -1


@jit(inline="always", **GO_JIT)
def _pattern_matches(params: np.ndarray, code: int, own: int) -> bool:
    """Whether a 3x3 pattern matches the eight neighbours' ``code`` for the player of colour
    ``own`` (the packed table of :mod:`playout.games.go.patterns`)."""
    word = params[params[P_PATTERNS] + (code >> 5)]
    return bool((word >> (2 * (code & 31) + own - 1)) & 1)


@jit(inline="always", **GO_JIT)
def _cell_code(cell: int, colour: np.ndarray, stride: int) -> int:
    """The code of the eight neighbours of ``cell`` on the playout board (the border's value
    is the patterns' ``OFF_BOARD``)."""
    return (
        colour[cell - stride - 1]
        | (colour[cell - stride] << 2)
        | (colour[cell - stride + 1] << 4)
        | (colour[cell - 1] << 6)
        | (colour[cell + 1] << 8)
        | (colour[cell + stride - 1] << 10)
        | (colour[cell + stride] << 12)
        | (colour[cell + stride + 1] << 14)
    )


@jit(**GO_JIT)
def _is_self_atari(
    cell: int,
    own: int,
    colour: np.ndarray,
    chain: np.ndarray,
    ring: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
) -> bool:
    """Whether a stone of ``own`` on empty ``cell`` (a playable point) would leave a chain of
    two stones or more with one liberty, capturing nothing: the self-atari that Pachi's and
    Fuego's playouts avoid. A lone stone put in atari is allowed (throw-ins). Counts distinct
    liberties until it finds two, walking the rings of the chains the stone joins only when
    the point's own empty neighbours do not settle it."""
    other = 3 - own
    liberty = -1  # the one liberty found so far
    joins = False
    for n in (cell - stride, cell - 1, cell + 1, cell + stride):
        if colour[n] == EMPTY:
            if liberty < 0:
                liberty = n
            elif n != liberty:
                return False
        elif colour[n] == other and _in_atari(libs, sums, squares, chain[n]):
            return False  # captures
        elif colour[n] == own:
            joins = True
    if not joins:
        return False
    for n in (cell - stride, cell - 1, cell + 1, cell + stride):
        if colour[n] != own:
            continue
        head = chain[n]
        if _in_atari(libs, sums, squares, head):
            continue  # its one liberty is ``cell``
        stone = head
        while True:
            for m in (stone - stride, stone - 1, stone + 1, stone + stride):
                if colour[m] == EMPTY and m != cell:
                    if liberty < 0:
                        liberty = m
                    elif m != liberty:
                        return False
            stone = ring[stone]
            if stone == head:
                break
    return True


NAKADE_POINTS = 6
"""The largest enclosure (points) in which :data:`PLAYOUT_NAKADE` allows a self-atari: the
killing eye shapes reach six points (the rabbity six; Pachi's nakade shapes)."""


@jit(**GO_JIT)
def _in_small_enclosure(
    cell: int, own: int, colour: np.ndarray, stride: int, region: np.ndarray
) -> bool:
    """Whether empty ``cell`` lies in a region of at most :data:`NAKADE_POINTS` points that
    only the opponent's stones and the board's edge enclose: the points reached from
    ``cell`` through empty points and stones of ``own``. There, a self-atari (of the stones
    of ``own`` inside, with the new one) is how the opponent's eye space is filled into a
    dead shape (nakade): a playout that always refuses it lets groups with a large single
    eye live. ``region``: scratch of at least ``NAKADE_POINTS + 1`` words."""
    region[0] = cell
    count = 1
    done = 0
    while done < count:
        point = region[done]
        done += 1
        for n in (point - stride, point - 1, point + 1, point + stride):
            if colour[n] != EMPTY and colour[n] != own:
                continue  # the opponent's stone or the edge: the enclosure's wall
            count = add_candidate(n, region, count)
            if count > NAKADE_POINTS:
                return False
    return True


@jit(**GO_JIT)
def _is_good(
    cell: int,
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    ring: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
) -> bool:
    """Whether a MoGo playout may play ``cell``: playable (:func:`_is_playable`) and not a
    self-atari (:func:`_is_self_atari`)."""
    return _is_playable(cell, own, ko, colour, chain, libs, sums, squares, stride) and not (
        _is_self_atari(cell, own, colour, chain, ring, libs, sums, squares, stride)
    )


@jit(**GO_JIT)
def _two_liberties(head: int, colour: np.ndarray, ring: np.ndarray, stride: int) -> tuple[int, int]:
    """The two liberties of the chain ``head`` when it has exactly two, else ``(-1, -1)``:
    a walk of its ring that stops at the third distinct liberty."""
    first = int64(-1)
    second = int64(-1)
    stone = head
    while True:
        for n in (stone - stride, stone - 1, stone + 1, stone + stride):
            if colour[n] != EMPTY or n in (first, second):
                continue
            if first < 0:
                first = n
            elif second < 0:
                second = n
            else:
                return -1, -1
        stone = ring[stone]
        if stone == head:
            break
    if second < 0:
        return -1, -1
    return first, second


@jit(**GO_JIT)
def _low_liberty_answers(
    last: int,
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    ring: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
    candidates: np.ndarray,
) -> int:
    """Write to ``candidates`` the liberties of the chains with exactly two that the stone
    on ``last`` touches: the stone's own chain (the opponent's: playing a liberty puts it in
    atari) and the mover's chains next to it (playing a liberty lengthens one's liberties
    or, as a self-atari, is refused), each passing :func:`_is_good`, each point once (a
    chain met through two neighbours adds nothing new). Fuego's playouts answer the last
    move so ("low liberty" moves, between atari answers and patterns; Enzenberger et al.
    2010); returns how many."""
    count = 0
    for n in (last, last - stride, last - 1, last + 1, last + stride):
        if n != last and colour[n] != own:
            continue
        head = chain[n]
        if libs[head] < 2 or _in_atari(libs, sums, squares, head):
            continue  # at most one liberty: the atari answers' business
        first, second = _two_liberties(head, colour, ring, stride)
        if first < 0:
            continue
        for liberty in (first, second):
            if _is_good(liberty, own, ko, colour, chain, ring, libs, sums, squares, stride):
                count = add_candidate(liberty, candidates, count)
    return count


@jit(**GO_JIT)
def _mogo_answer(
    params: np.ndarray,
    last: int,
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    ring: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
    candidates: np.ndarray,
    rng: np.ndarray,
    ladder_work: np.ndarray,
    depth_limit: int,
    low_liberties: bool,
) -> int:
    """A MoGo playout's answer to the stone on ``last`` (Gelly et al. 2006, section 4.2), the
    first of these kinds that has one, drawn uniformly among the answers of that kind:

    1. save an own chain next to the stone that it put in atari: capture an opponent's chain
       in atari that touches it, or extend on its liberty when that is no self-atari and,
       with a ``depth_limit`` above 0, the chain is not caught in a working ladder (Pachi's
       playouts leave such a chain; :func:`~.ladder.ladder_captures` reads it on
       ``ladder_work``, ``depth_limit`` plies deep at most);
    2. with ``low_liberties``, a liberty of a chain with two that the stone touches
       (:func:`_low_liberty_answers`);
    3. an empty point among the stone's eight neighbours that matches a 3x3 pattern
       (:mod:`playout.games.go.patterns`) for the mover;
    4. capture an opponent's chain in atari on the stone or among its eight neighbours.

    Every answer passes :func:`_is_good`; -1 for none. ``candidates``: scratch of at least
    the board's points."""
    other = 3 - own
    count = 0
    # 1. Atari escapes.
    for n in (last - stride, last - 1, last + 1, last + stride):
        if colour[n] != own:
            continue
        head = chain[n]
        if not _in_atari(libs, sums, squares, head):
            continue
        liberty = sums[head] // libs[head]
        if _is_good(liberty, own, ko, colour, chain, ring, libs, sums, squares, stride) and not (
            depth_limit > 0
            and free_around(colour, liberty, stride) < 3  # else the extension escapes
            and ladder_captures(
                colour, n, stride, ko, ladder_work, depth_limit, PLAYOUT_LADDER_NODES
            )
        ):
            count = add_candidate(liberty, candidates, count)
        stone = head
        while True:
            for m in (stone - stride, stone - 1, stone + 1, stone + stride):
                if colour[m] == other and _in_atari(libs, sums, squares, chain[m]):
                    target = sums[chain[m]] // libs[chain[m]]
                    if _is_playable(target, own, ko, colour, chain, libs, sums, squares, stride):
                        count = add_candidate(target, candidates, count)
            stone = ring[stone]
            if stone == head:
                break
    if count > 0:
        return candidates[random_below(rng, count)]
    # 2. Liberties of chains with two.
    if low_liberties:
        count = _low_liberty_answers(
            last, own, ko, colour, chain, ring, libs, sums, squares, stride, candidates
        )
        if count > 0:
            return candidates[random_below(rng, count)]
    # 3. 3x3 patterns around the last stone.
    for n in (
        last - stride - 1, last - stride, last - stride + 1, last - 1, last + 1,
        last + stride - 1, last + stride, last + stride + 1,
    ):  # fmt: skip
        if colour[n] != EMPTY:
            continue
        if not _pattern_matches(params, _cell_code(n, colour, stride), own):
            continue
        if _is_good(n, own, ko, colour, chain, ring, libs, sums, squares, stride):
            candidates[count] = n
            count += 1
    if count > 0:
        return candidates[random_below(rng, count)]
    # 4. Captures at the last stone.
    for n in (
        last, last - stride - 1, last - stride, last - stride + 1, last - 1, last + 1,
        last + stride - 1, last + stride, last + stride + 1,
    ):  # fmt: skip
        if colour[n] != other or not _in_atari(libs, sums, squares, chain[n]):
            continue
        target = sums[chain[n]] // libs[chain[n]]
        if _is_playable(target, own, ko, colour, chain, libs, sums, squares, stride):
            count = add_candidate(target, candidates, count)
    if count > 0:
        return candidates[random_below(rng, count)]
    return -1


@jit(**GO_JIT)
def _global_capture(
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
    empties: np.ndarray,
    num_empty: int,
    candidates: np.ndarray,
    rng: np.ndarray,
) -> int:
    """A capture anywhere on the board for ``own`` (:data:`PLAYOUT_CAPTURES`): an empty
    point next to an opponent's chain in atari (so its last liberty) that ``own`` may play
    (:func:`_is_playable`), drawn uniformly among them; -1 for none. ``empties[:num_empty]``:
    the empty points; ``candidates``: scratch of at least as many words."""
    other = 3 - own
    count = 0
    for i in range(num_empty):
        cell = empties[i]
        for n in (cell - stride, cell - 1, cell + 1, cell + stride):
            if colour[n] == other and _in_atari(libs, sums, squares, chain[n]):
                if _is_playable(cell, own, ko, colour, chain, libs, sums, squares, stride):
                    candidates[count] = cell
                    count += 1
                break
    if count > 0:
        return candidates[random_below(rng, count)]
    return -1


@jit(**GO_JIT)
def _last_good_reply(
    reply1: np.ndarray,
    reply2: np.ndarray,
    before2: int,
    before: int,
    own: int,
    ko: int,
    colour: np.ndarray,
    chain: np.ndarray,
    ring: np.ndarray,
    libs: np.ndarray,
    sums: np.ndarray,
    squares: np.ndarray,
    stride: int,
    cells: int,
) -> int:
    """``own``'s last good reply (:data:`PLAYOUT_LGRF`) to the moves ``before2`` then
    ``before`` (cells; 0 for a pass or none), else to ``before`` alone: a cell that is empty
    and good for a MoGo playout (:func:`_is_good`), or -1."""
    for tries in range(2):
        if tries == 0:
            if before2 <= 0:
                continue
            reply = reply2[((own - 1) * cells + before2) * cells + before]
        else:
            reply = reply1[(own - 1) * cells + before]
        if (
            reply > 0
            and colour[reply] == EMPTY
            and _is_good(reply, own, ko, colour, chain, ring, libs, sums, squares, stride)
        ):
            return int64(reply)
    return int64(-1)


@jit(**GO_JIT)
def _learn_replies(
    reply1: np.ndarray,
    reply2: np.ndarray,
    logged: np.ndarray,
    count: int,
    before: int,
    first_own: int,
    winner: int,
    cells: int,
) -> None:
    """After a playout won by ``winner`` (1 Black, 2 White): each of the ``count`` logged
    moves (cells, 0 for a pass; the first by ``first_own``, colours alternating; ``before``
    the move before the first) becomes its player's reply to the move before it and to the
    two before it if the player won, and is forgotten as such a reply if the player lost
    (LGRF-2, :data:`PLAYOUT_LGRF`)."""
    previous2 = int64(0)
    previous = before
    own = first_own
    for i in range(count):
        move = logged[i]
        if move > 0 and previous > 0:
            at1 = (own - 1) * cells + previous
            at2 = ((own - 1) * cells + previous2) * cells + previous
            if own == winner:
                reply1[at1] = move
                if previous2 > 0:
                    reply2[at2] = move
            else:
                if reply1[at1] == move:
                    reply1[at1] = 0
                if previous2 > 0 and reply2[at2] == move:
                    reply2[at2] = 0
        previous2 = previous
        previous = move
        own = 3 - own


@jit(inline="always", **GO_JIT)
def _light_playout(
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    rng: np.ndarray,
    record: bool,
    out_actions: np.ndarray,
    out_players: np.ndarray,
) -> tuple[float, int]:
    """A light playout (module docstring) from ``state`` (unchanged) to the end: +1 if Black
    wins, -1 if White does, 0 for a draw, and the moves recorded; its length and area margin
    go to ``scratch[LAST_LENGTH]`` and ``scratch[LAST_MARGIN]``.

    With ``params[P_POLICY]`` :data:`POLICY_HEAVY`, a heavy playout: before the uniform
    draw, the mover looks around the last stone played (its chain and its four neighbours'
    chains) for an own chain in atari that its liberty saves (two empty points around it or
    more) or an opponent's chain in atari to capture, and plays the first it finds (MoGo's
    local answers to the last move, Gelly et al. 2006; Coulom 2007 weighs the same features);
    captures and escapes pass the same playability test (no own eye, no suicide, not the ko
    point). With :data:`POLICY_MOGO`, MoGo's playout: the answers of :func:`_mogo_answer`
    (escapes, 3x3 patterns, captures), and the uniform draw refuses self-ataris
    (:func:`_is_self_atari`) as it refuses own eyes, but for one inside a small enclosure
    of the opponent's with :data:`PLAYOUT_NAKADE` (:func:`_in_small_enclosure`). The first
    move answers the tree's last move (``state[S_LAST]``) when ``params[P_FEATURES]`` holds
    :data:`PLAYOUT_LAST_MOVE`, else it is drawn uniformly; :data:`PLAYOUT_LADDERS` makes the
    MoGo escapes skip chains caught in a ladder; with :data:`PLAYOUT_CAPTURES` a MoGo move
    that answers nothing captures anywhere on the board (:func:`_global_capture`) before
    the uniform draw. Light playouts read none of the features.

    With ``record`` (a constant at each call site, so the other call compiles without the
    recording), the first stone played on each point during the playout is written to
    ``out_actions`` (the point) and ``out_players`` (0 Black, 1 White), in the order
    played: what Gelly and Silver's (2007) all-moves-as-first statistics credit in Go. Passes
    and later stones on a point already played (after a capture) are left out.
    """
    points = params[P_POINTS]
    stride = params[P_STRIDE]
    cells = params[P_CELLS]
    cell_of = P_TABLES + 6 * points
    base = _SCRATCH_HEADER
    colour = scratch[base : base + cells]
    chain = scratch[base + cells : base + 2 * cells]
    ring = scratch[base + 2 * cells : base + 3 * cells]
    libs = scratch[base + 3 * cells : base + 4 * cells]
    sums = scratch[base + 4 * cells : base + 5 * cells]
    squares = scratch[base + 5 * cells : base + 6 * cells]
    empty_at = scratch[base + 6 * cells : base + 7 * cells]
    empties = scratch[base + 7 * cells : base + 8 * cells]
    stones = scratch[base + 8 * cells : base + 9 * cells]
    rest = base + 9 * cells
    by_point = scratch[rest : rest + points]
    stack = scratch[rest + points : rest + 2 * points]
    mark = scratch[rest + 2 * points : rest + 3 * points]
    played = scratch[rest + 3 * points : rest + 3 * points + cells]
    replies = reply_offset(cells, points)
    reply1 = scratch[replies : replies + 2 * cells]
    reply2 = scratch[replies + 2 * cells : replies + 2 * cells + 2 * cells * cells]
    logged = scratch[replies + 2 * cells + 2 * cells * cells : replies + reply_words(cells, points)]
    ladder_work = scratch[replies + reply_words(cells, points) :]
    num_recorded = int64(0)
    if record:
        for c in range(cells):
            played[c] = 0

    # The position onto the playout board: colours, the empty list, then the chains.
    for c in range(cells):
        colour[c] = BORDER
    read_board(params, state, by_point)
    num_empty = int64(0)
    for p in range(points):
        cell = params[cell_of + p]
        colour[cell] = by_point[p]
        chain[cell] = -1
        if by_point[p] == EMPTY:
            empty_at[cell] = num_empty
            empties[num_empty] = cell
            num_empty += 1
    for p in range(points):
        start = params[cell_of + p]
        own = colour[start]
        if own == EMPTY or chain[start] >= 0:
            continue
        chain[start] = start
        ring[start] = start
        stones[start] = 1
        libs[start] = 0
        sums[start] = 0
        squares[start] = 0
        stack[0] = start
        top = 1
        while top > 0:
            top -= 1
            stone = stack[top]
            for n in (stone - stride, stone - 1, stone + 1, stone + stride):
                if colour[n] == EMPTY:
                    libs[start] += 1
                    sums[start] += n
                    squares[start] += n * n
                elif colour[n] == own and chain[n] < 0:
                    chain[n] = start
                    ring[n] = ring[start]
                    ring[start] = n
                    stones[start] += 1
                    stack[top] = n
                    top += 1

    moves = int(state[MOVES])
    first = moves
    passes = int(state[S_PASSES])
    ko = int(state[S_KO])
    ko = int(params[cell_of + ko - 1]) if ko > 0 else -1
    own = (moves & 1) + 1
    max_length = params[P_MAX_LENGTH]
    policy = params[P_POLICY]
    mogo = policy == POLICY_MOGO
    features = params[P_FEATURES]
    depth_limit = max_depth(params[P_SIZE]) if features & PLAYOUT_LADDERS else 0
    nakade = (features & PLAYOUT_NAKADE) != 0
    low_liberties = (features & PLAYOUT_LOW_LIBERTIES) != 0
    last = int64(-1)  # the cell of the last stone played, the tree's last move at first
    if policy != POLICY_LIGHT and features & PLAYOUT_LAST_MOVE and state[S_LAST] > 0:
        last = params[cell_of + int(state[S_LAST]) - 1]
    lgrf = mogo and (features & PLAYOUT_LGRF) != 0
    captures = mogo and (features & PLAYOUT_CAPTURES) != 0
    before = int64(0)  # the last move's cell (0: a pass or none), for the last good replies
    if state[S_LAST] > 0:
        before = params[cell_of + int(state[S_LAST]) - 1]
    first_before = before
    before2 = int64(0)  # the move before it
    first_own = own
    num_logged = int64(0)
    while moves < max_length and passes < 2:
        cell = int64(-1)
        if lgrf and before > 0:
            cell = _last_good_reply(
                reply1, reply2, before2, before, own, ko, colour, chain, ring, libs, sums,
                squares, stride, cells,
            )  # fmt: skip
        if cell < 0 and policy == POLICY_HEAVY and last >= 0:
            cell = _local_answer(last, own, ko, colour, chain, libs, sums, squares, stride)
        elif cell < 0 and mogo and last >= 0:
            cell = _mogo_answer(
                params, last, own, ko, colour, chain, ring, libs, sums, squares, stride,
                stack, rng, ladder_work, depth_limit, low_liberties,
            )  # fmt: skip
        if cell < 0 and captures:
            cell = _global_capture(
                own, ko, colour, chain, libs, sums, squares, stride, empties, num_empty,
                stack, rng,
            )  # fmt: skip
        # Uniform among the playable points: draw, and move a refused one past the window.
        window = num_empty if cell < 0 else 0
        while window > 0:
            i = random_below(rng, window)
            candidate = empties[i]
            if _is_playable(candidate, own, ko, colour, chain, libs, sums, squares, stride) and (
                not mogo
                or not _is_self_atari(
                    candidate, own, colour, chain, ring, libs, sums, squares, stride
                )
                or (nakade and _in_small_enclosure(candidate, own, colour, stride, mark))
            ):
                cell = candidate
                break
            window -= 1
            last = empties[window]
            empties[i] = last
            empty_at[last] = i
            empties[window] = candidate
            empty_at[candidate] = window
        moves += 1
        other = 3 - own
        if lgrf:
            if num_logged < logged.shape[0]:
                logged[num_logged] = cell if cell >= 0 else 0
                num_logged += 1
            before2 = before
            before = cell if cell >= 0 else 0
        if cell < 0:
            passes += 1
            ko = -1
            own = other
            last = -1
            continue
        passes = 0
        last = cell
        # Put the stone down: off the empty list, pseudo-liberties taken from its neighbours.
        num_empty -= 1
        moved = empties[num_empty]
        empties[empty_at[cell]] = moved
        empty_at[moved] = empty_at[cell]
        colour[cell] = own
        if record and played[cell] == 0:
            played[cell] = 1
            out_actions[num_recorded] = (cell // stride - 1) * (stride - 1) + cell % stride - 1
            out_players[num_recorded] = own - 1
            num_recorded += 1
        chain[cell] = cell
        ring[cell] = cell
        stones[cell] = 1
        libs[cell] = 0
        sums[cell] = 0
        squares[cell] = 0
        for n in (cell - stride, cell - 1, cell + 1, cell + stride):
            if colour[n] == EMPTY:
                libs[cell] += 1
                sums[cell] += n
                squares[cell] += n * n
            elif colour[n] < BORDER:
                head = chain[n]
                libs[head] -= 1
                sums[head] -= cell
                squares[head] -= cell * cell
        # Join the chains of its own around it (the smaller ring relabelled).
        for n in (cell - stride, cell - 1, cell + 1, cell + stride):
            if colour[n] == own:
                big = chain[n]
                small = chain[cell]
                if big == small:
                    continue
                if stones[big] < stones[small]:
                    big, small = small, big
                stone = small
                while True:
                    chain[stone] = big
                    stone = ring[stone]
                    if stone == small:
                        break
                after_big = ring[big]
                ring[big] = ring[small]
                ring[small] = after_big
                stones[big] += stones[small]
                libs[big] += libs[small]
                sums[big] += sums[small]
                squares[big] += squares[small]
        # Capture the opponent's chains left without a liberty.
        taken = 0
        taken_cell = int64(-1)
        for n in (cell - stride, cell - 1, cell + 1, cell + stride):
            if colour[n] == other and libs[chain[n]] == 0:
                empty_before = num_empty  # not ``before``: the last good replies' last move
                num_empty = _remove_chain(
                    n, colour, chain, ring, libs, sums, squares, empty_at, empties,
                    num_empty, stride,
                )  # fmt: skip
                taken += num_empty - empty_before
                taken_cell = n
        head = chain[cell]
        ko = taken_cell if taken == 1 and stones[head] == 1 and libs[head] == 1 else -1
        own = other

    for p in range(points):
        by_point[p] = colour[params[cell_of + p]]
    margin = area_margin(params, by_point, stack, mark)
    scratch[LAST_LENGTH] = moves - first
    scratch[LAST_MARGIN] = margin
    score2 = 2 * margin - params[P_KOMI2]
    if lgrf and score2 != 0:
        _learn_replies(
            reply1, reply2, logged, num_logged, first_before, first_own, 1 if score2 > 0 else 2,
            cells,
        )  # fmt: skip
    if score2 > 0:
        return 1.0, num_recorded
    if score2 < 0:
        return -1.0, num_recorded
    return 0.0, num_recorded


@jit(**GO_JIT)
def go_rollout(
    params: np.ndarray, state: np.ndarray, scratch: np.ndarray, rng: np.ndarray
) -> float:
    """A light playout (module docstring) from ``state`` (unchanged) to the end: +1 if Black
    wins, -1 if White does, 0 for a draw; its length and area margin go to
    ``scratch[LAST_LENGTH]`` and ``scratch[LAST_MARGIN]``."""
    nothing = scratch[:0]
    return _light_playout(params, state, scratch, rng, False, nothing, nothing)[0]


@jit(**GO_JIT)
def go_recorded_rollout(
    params: np.ndarray,
    state: np.ndarray,
    scratch: np.ndarray,
    rng: np.ndarray,
    out_actions: np.ndarray,
    out_players: np.ndarray,
) -> tuple[float, int]:
    """:func:`go_rollout` with the first stone on each point reported (for RAVE; see
    :func:`_light_playout`): ``(value for Black, moves written)``."""
    return _light_playout(params, state, scratch, rng, True, out_actions, out_players)


# ------------------------------------------------------------------------------ the kernel


@functools.lru_cache(maxsize=32)
def go_kernel(
    size: int = 9,
    komi: float = 7.5,
    max_length: int | None = None,
    playouts: str = "light",
    priors: int = PRIORS_ALL,
    features: int = PLAYOUT_DEFAULT,
    rating_scale: float = RATING_SCALE,
) -> Kernel:
    """The kernel of Go on a ``size`` x ``size`` board with ``komi``, the game ending at the
    ``max_length``-th move at the latest (default ``3 * size * size``); built once per
    board and rules. ``playouts``: its rollouts, ``light`` (Dailey's), ``heavy`` (answers to
    the last move first) or ``mogo`` (MoGo's answers and 3x3 patterns, no self-atari; see
    :func:`_light_playout`); ``priors``: the pieces of :func:`go_move_priors`' knowledge
    (``PRIORS_*`` bits); ``features``: what the heavier playouts add (``PLAYOUT_*`` bits;
    light playouts ignore them); ``rating_scale``: with :data:`PRIORS_RATINGS`, the scale of
    the learned ratings' scores (:data:`RATING_SCALE`). The same rules and functions
    whatever the choice.

    Raises:
        InvalidParameterError: a size, komi, length, policy, prior or feature set the game
            refuses
            (see :mod:`playout.games.go.board`).
    """
    size = check_size(size)
    komi = check_komi(komi)
    max_length = check_max_length(max_length, size)
    if playouts not in POLICIES:
        raise InvalidParameterError(
            f"unknown Go playouts {playouts!r}; choose {', '.join(POLICIES)}"
        )
    if (
        isinstance(priors, bool)
        or not isinstance(priors, int)
        or not 0 <= priors <= PRIORS_ALL | PRIORS_RATINGS
    ):
        raise InvalidParameterError(f"priors must be a sum of PRIORS_* bits, got {priors!r}")
    if (
        isinstance(features, bool)
        or not isinstance(features, int)
        or not 0 <= features <= PLAYOUT_ALL
    ):
        raise InvalidParameterError(
            f"playout features must be a sum of PLAYOUT_* bits, got {features!r}"
        )
    return make_kernel(
        name="go",
        params=kernel_params(
            size,
            komi,
            max_length,
            POLICIES[playouts],
            priors,
            features,
            rating_scale=rating_scale,
        ),
        state_size=state_size(size, max_length),
        num_actions=size * size + 1,
        max_length=max_length,
        scratch_size=scratch_size(size),
        initial_state=empty_state,
        legal_actions=go_legal_actions,
        play=go_play,
        current_player=alternating_player,
        rollout=go_rollout,
        recorded_rollout=go_recorded_rollout,
        move_priors=go_move_priors,
        encode=functools.partial(encode, size=size, max_length=max_length),
    )


__all__ = [
    "GO_JIT",
    "LAST_LENGTH",
    "LAST_MARGIN",
    "PLAYOUT_ALL",
    "PLAYOUT_CAPTURES",
    "PLAYOUT_DEFAULT",
    "PLAYOUT_LADDERS",
    "PLAYOUT_LAST_MOVE",
    "PLAYOUT_LGRF",
    "PLAYOUT_LOW_LIBERTIES",
    "PLAYOUT_NAKADE",
    "POLICIES",
    "PRIORS_ALL",
    "PRIORS_LADDERS",
    "PRIORS_PATTERNS",
    "PRIORS_PENALTIES",
    "PRIORS_RATINGS",
    "PRIORS_TACTICS",
    "RATING_SCALE",
    "area_margin",
    "encode",
    "go_kernel",
    "go_legal_actions",
    "go_move_features",
    "go_move_priors",
    "go_play",
    "go_recorded_rollout",
    "go_rollout",
    "kernel_params",
    "label_chains",
    "read_board",
    "scratch_size",
    "state_size",
]
