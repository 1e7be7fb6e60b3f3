"""Go's ladder reader: whether a chain in atari is caught in a ladder, compiled, no recursion.

A ladder (Japanese *shicho*) is the chase in which the attacker keeps a chain in atari move
after move: the defender extends at its one liberty, the attacker ataris again from the side
that keeps the chase going, until the chain is captured at an edge or escapes into a
*ladder breaker*, a stone of the defender's on the way. Monte Carlo playouts cannot read it
(an escape looks like a gain for many moves), so strong programs read ladders by search and
use the answer in their knowledge: Fuego's ``GoLadder`` and Pachi's ``is_ladder`` give no
bonus to, or refuse, an escape from a working ladder, and reward the atari that starts one.

:func:`ladder_captures` reads the chase as an AND-OR search on the playout board's mailbox
(the layout of :mod:`playout.games.go.kernel`: ``(size + 2) * stride + 1`` cells, ``stride =
size + 1``, the border cells :data:`BORDER`, point ``(x, y)`` at cell ``(y + 1) * stride + x +
1``). With the defender's chain in atari and the defender to move, the defender tries every
move that could save it: capture an attacker's chain in atari that touches it, or extend on
its liberty. After such a move the chain has

* three liberties or more: escaped;
* one: captured (the attacker takes it), unless that liberty is a ko the attacker may not
  retake at once (then it counts as escaped: no clean ladder);
* two: the attacker tries each atari, on either liberty; an atari that leaves the chain any
  other number of liberties, or is suicide, fails.

The defender escapes when one of its moves escapes; the attacker captures when one of its
ataris captures. The search is a depth-first walk with an explicit stack of plies, each ply
a copy of the board (:func:`ladder_work_size` words of scratch), bounded in depth (``4 *
size`` plies: a ladder runs diagonally, two plies a step) and in nodes; a read that reaches
either bound answers "escaped", the side that asks for no change to the search's knowledge.
"""

from __future__ import annotations

import numpy as np

from playout._src.compiled import kernel as kernel_api
from playout._src.jit import JitOptions, files_digest, int64, jit
from playout.games.go import board
from playout.games.go.board import EMPTY

LADDER_JIT: JitOptions = {
    **kernel_api.JIT_OPTIONS,
    "_nrt": False,
    "sources_digest": files_digest(kernel_api.__file__, board.__file__),
}
"""The reader's numba options: no reference counting (it allocates nothing), the cache keyed
on :mod:`.board` too (its colours are compiled in)."""

BORDER = 3
"""A cell of the mailbox's sentinel border (both colour bits: neither player's)."""

MAX_CHOICES = 8
"""The most moves a node of the read tries: the defender's captures and extension (the
attacker has two ataris)."""

MAX_NODES = 400
"""The most moves one read plays before it gives up (and answers "escaped"), by default."""

_NONE, _ESCAPED, _CAPTURED = 0, 1, 2


@jit(**LADDER_JIT)
def max_depth(size: int) -> int:
    """The deepest ply a read on a ``size`` x ``size`` board goes: ``4 * size``."""
    return 4 * size


@jit(**LADDER_JIT)
def ladder_work_size(size: int) -> int:
    """``int64`` words of scratch :func:`ladder_captures` needs on a ``size`` board: a board
    copy and the moves, choices and ko of each ply, and four lists over the cells."""
    cells = (size + 2) * (size + 1) + 1
    plies = max_depth(size) + 1
    return plies * (cells + MAX_CHOICES + 3) + 4 * cells


@jit(inline="always", **LADDER_JIT)
def free_around(box: np.ndarray, cell: int, stride: int) -> int:
    """How many of ``cell``'s four neighbours on the playout board ``box`` are empty (the
    reader's and the kernel's playouts')."""
    return int(
        (box[cell - stride] == EMPTY)
        + (box[cell - 1] == EMPTY)
        + (box[cell + 1] == EMPTY)
        + (box[cell + stride] == EMPTY)
    )


@jit(**LADDER_JIT)
def add_candidate(cell: int, candidates: np.ndarray, count: int) -> int:
    """Append ``cell`` to ``candidates[:count]`` unless it is there; the new count."""
    for i in range(count):
        if candidates[i] == cell:
            return count
    candidates[count] = cell
    return count + 1


@jit(**LADDER_JIT)
def _chain_liberties(
    box: np.ndarray,
    cell: int,
    stride: int,
    limit: int,
    mark: np.ndarray,
    queue: np.ndarray,
    found: np.ndarray,
) -> int:
    """The distinct liberties of the chain through ``cell``, counted up to ``limit`` and
    written to ``found``; a flood fill on ``queue`` that leaves ``mark`` all zero again."""
    own = box[cell]
    mark[cell] = 1
    queue[0] = cell
    num_stones = 1
    head = 0
    count = 0
    while head < num_stones and count < limit:
        stone = queue[head]
        head += 1
        for n in (stone - stride, stone - 1, stone + 1, stone + stride):
            if mark[n] != 0:
                continue
            if box[n] == EMPTY:
                mark[n] = 1
                found[count] = n
                count += 1
                if count == limit:
                    break
            elif box[n] == own:
                mark[n] = 1
                queue[num_stones] = n
                num_stones += 1
    for i in range(num_stones):
        mark[queue[i]] = 0
    for i in range(count):
        mark[found[i]] = 0
    return count


@jit(**LADDER_JIT)
def _chain_stones(
    box: np.ndarray, cell: int, stride: int, mark: np.ndarray, stones: np.ndarray
) -> int:
    """The stones of the chain through ``cell``, written to ``stones``; how many. ``mark``
    is left all zero."""
    own = box[cell]
    mark[cell] = 1
    stones[0] = cell
    count = 1
    head = 0
    while head < count:
        stone = stones[head]
        head += 1
        for n in (stone - stride, stone - 1, stone + 1, stone + stride):
            if box[n] == own and mark[n] == 0:
                mark[n] = 1
                stones[count] = n
                count += 1
    for i in range(count):
        mark[stones[i]] = 0
    return count


@jit(**LADDER_JIT)
def play_on_box(
    box: np.ndarray,
    cell: int,
    own: int,
    stride: int,
    mark: np.ndarray,
    queue: np.ndarray,
    found: np.ndarray,
) -> tuple[int, int]:
    """Put a stone of ``own`` on empty ``cell`` of the mailbox and take off the opponent's
    chains it leaves without a liberty: ``(stones captured, the simple-ko cell the opponent
    may not retake at once or -1)``, or ``(-1, -1)`` for a suicide (the box unchanged)."""
    other = 3 - own
    box[cell] = own
    taken = 0
    taken_cell = int64(-1)
    for n in (cell - stride, cell - 1, cell + 1, cell + stride):
        if box[n] != other or free_around(box, n, stride) > 0:
            continue  # not a chain of the opponent's, or one with a liberty at ``n``
        if _chain_liberties(box, n, stride, 1, mark, queue, found) > 0:
            continue
        count = _chain_stones(box, n, stride, mark, queue)
        for i in range(count):
            box[queue[i]] = EMPTY
        taken += count
        taken_cell = n
    if taken == 0:
        if _chain_liberties(box, cell, stride, 1, mark, queue, found) == 0:
            box[cell] = EMPTY
            return -1, -1
        return 0, -1
    alone = True
    for n in (cell - stride, cell - 1, cell + 1, cell + stride):
        if box[n] == own:
            alone = False
    if taken == 1 and alone and _chain_liberties(box, cell, stride, 2, mark, queue, found) == 1:
        return 1, taken_cell
    return taken, -1


@jit(**LADDER_JIT)
def _defender_choices(
    box: np.ndarray,
    cell: int,
    liberty: int,
    ko: int,
    stride: int,
    out: np.ndarray,
    mark: np.ndarray,
    queue: np.ndarray,
    found: np.ndarray,
    stones: np.ndarray,
) -> int:
    """The moves that may save the chain through ``cell`` (in atari on ``liberty``): the
    liberties of the attacker's chains in atari that touch it (captures), then ``liberty``
    (the extension); never the ``ko`` cell. Written to ``out``; how many."""
    attacker = 3 - box[cell]
    count = 0
    num_stones = _chain_stones(box, cell, stride, mark, stones)
    for i in range(num_stones):
        stone = stones[i]
        for n in (stone - stride, stone - 1, stone + 1, stone + stride):
            if box[n] != attacker or count >= MAX_CHOICES - 1:
                continue
            if free_around(box, n, stride) > 1:
                continue  # two liberties at this stone alone: not in atari
            if _chain_liberties(box, n, stride, 2, mark, queue, found) != 1:
                continue
            if found[0] != ko:
                count = add_candidate(found[0], out, count)
    if liberty != ko:
        count = add_candidate(liberty, out, count)
    return count


@jit(**LADDER_JIT)
def ladder_captures(
    box: np.ndarray,
    cell: int,
    stride: int,
    ko: int,
    work: np.ndarray,
    depth_limit: int,
    node_limit: int = MAX_NODES,
) -> bool:
    """Whether the chain through ``cell`` of the mailbox ``box`` (unchanged), in atari with
    its owner to move, is captured however it runs: the ladder works (module docstring).
    ``ko``: the cell its owner may not play at once (simple ko), or -1; ``work``: scratch of
    :func:`ladder_work_size` words for a board whose reads go ``depth_limit`` plies deep at
    most (:func:`max_depth`). A read past ``depth_limit`` plies or ``node_limit`` moves
    answers False."""
    cells = box.shape[0]
    plies = depth_limit + 1
    boards = work[: plies * cells]
    at = plies * cells
    moves = work[at : at + plies * MAX_CHOICES]
    at += plies * MAX_CHOICES
    num_choices = work[at : at + plies]
    next_choice = work[at + plies : at + 2 * plies]
    kos = work[at + 2 * plies : at + 3 * plies]
    at += 3 * plies
    mark = work[at : at + cells]
    queue = work[at + cells : at + 2 * cells]
    found = work[at + 2 * cells : at + 3 * cells]
    stones = work[at + 3 * cells : at + 4 * cells]
    for c in range(cells):
        boards[c] = box[c]
        mark[c] = 0
    defender = box[cell]
    if defender != 1 and defender != 2:
        return False
    if _chain_liberties(boards[:cells], cell, stride, 2, mark, queue, found) != 1:
        return False
    kos[0] = ko
    num_choices[0] = _defender_choices(
        boards[:cells], cell, found[0], ko, stride, moves[:MAX_CHOICES], mark, queue, found,
        stones,
    )  # fmt: skip
    next_choice[0] = 0
    depth = 0
    result = _NONE
    nodes = 0
    while True:
        if result != _NONE:
            if depth < 0:
                return result == _CAPTURED
            defends = depth % 2 == 0
            if (defends and result == _ESCAPED) or (not defends and result == _CAPTURED):
                depth -= 1  # the node is decided as its child was
                continue
            result = _NONE
        defends = depth % 2 == 0
        if next_choice[depth] >= num_choices[depth]:
            # Every choice tried: the defender found no escape, or the attacker no capture.
            result = _CAPTURED if defends else _ESCAPED
            depth -= 1
            continue
        nodes += 1
        if nodes > node_limit:
            return False
        move = moves[depth * MAX_CHOICES + next_choice[depth]]
        next_choice[depth] += 1
        parent = boards[depth * cells : (depth + 1) * cells]
        child = boards[(depth + 1) * cells : (depth + 2) * cells]
        for c in range(cells):
            child[c] = parent[c]
        mover = defender if defends else 3 - defender
        taken, ko_cell = play_on_box(child, move, mover, stride, mark, queue, found)
        if taken < 0:  # suicide: not a move
            result = _CAPTURED if defends else _ESCAPED
            continue
        liberties = _chain_liberties(child, cell, stride, 3, mark, queue, found)
        if defends:
            if liberties >= 3:
                result = _ESCAPED
            elif liberties == 1:
                result = _ESCAPED if found[0] == ko_cell else _CAPTURED
            elif liberties == 0:
                result = _CAPTURED
            elif depth + 1 >= depth_limit:
                result = _ESCAPED
            else:  # two liberties: the attacker ataris on either
                depth += 1
                kos[depth] = ko_cell
                # First the atari on the more open liberty, which leaves the defender the
                # cramped one: the chase's usual move.
                first, second = found[0], found[1]
                if free_around(child, second, stride) > free_around(child, first, stride):
                    first, second = second, first
                count = 0
                for choice in (first, second):
                    if choice != ko_cell:
                        moves[depth * MAX_CHOICES + count] = choice
                        count += 1
                num_choices[depth] = count
                next_choice[depth] = 0
        elif liberties != 1 or depth + 1 >= depth_limit:
            result = _ESCAPED
        else:  # in atari again: the defender's turn
            depth += 1
            kos[depth] = ko_cell
            start = depth * MAX_CHOICES
            num_choices[depth] = _defender_choices(
                child, cell, found[0], ko_cell, stride, moves[start : start + MAX_CHOICES],
                mark, queue, found, stones,
            )  # fmt: skip
            next_choice[depth] = 0


__all__ = [
    "BORDER",
    "MAX_CHOICES",
    "MAX_NODES",
    "ladder_captures",
    "ladder_work_size",
    "max_depth",
    "play_on_box",
]
