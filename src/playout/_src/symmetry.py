"""Symmetries of a game: root symmetry merging and canonical keys for transpositions.

A game may declare its symmetries through three optional methods of its :class:`Game` object
(see :mod:`playout._src.game`):

* ``action_symmetries() -> tuple[tuple[int, ...], ...]``: the symmetry group as permutations
  of action ids, identity first; ``perm[a]`` is the image of action ``a``.
* ``transform_state(state, index) -> state``: the image of ``state`` under symmetry
  ``index``. A symmetry ``g`` must commute with the rules: ``g(s).legal_actions()`` is
  ``{perm[a] for a in s.legal_actions()}``, ``g(s.play(a)) == g(s).play(perm[a])``, and
  ``g(s)`` has the same player to move, terminal flag and returns as ``s``.
* ``canonical_key(state) -> Hashable`` (optional even then): one key for all images of a
  position; without it :func:`key_function` uses the set of the images (slower).

**Root symmetry merging** (``SearchConfig(symmetry=True)``). The symmetries that leave the
root position unchanged (its *stabilizer*) split the root's legal actions into classes of
equivalent moves (the orbits): in tic-tac-toe's empty board, the four corners, the four edges
and the centre. The engine keeps one edge per class at the root (its prior the sum of the
class's priors; for progressive bias, whose priors are move scores, their mean), so the
search never explores two symmetric moves, and :func:`expand_result` lists every legal action
again: each member of a class gets the class's mean value, proof and plies, its share of the
class's prior, and an even share of the class's visits (``visits // size`` each; the
remainder, one visit each, goes to the representative first, then to the other members in
increasing action id), so ``policy()`` still sums to 1 and equivalent moves get equal shares
up to one visit. The move chosen is the representative of the class the final-move rule
picks (with ``final="sample"``, a member drawn uniformly); the principal variation is mapped
by the symmetry that takes the representative to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from playout._src.game import CHANCE, GameState
from playout._src.results import SearchResult
from playout._src.tree import layout as T
from playout._src.tree.rng import random_below

KeyFunction = Callable[[GameState], Hashable]
"""The key of a position in a transposition table."""


def has_symmetries(game: Any) -> bool:
    """Whether ``game`` declares symmetries (both ``action_symmetries`` and
    ``transform_state``)."""
    return callable(getattr(game, "action_symmetries", None)) and callable(
        getattr(game, "transform_state", None)
    )


def key_function(game: Any, symmetry: bool) -> KeyFunction:
    """The transposition-table key of ``game``'s positions.

    Without ``symmetry`` (or for a game that declares none) the position itself: states are
    hashable and equal positions compare equal. With it, a key shared by every image of a
    position under the game's symmetries: the game's ``canonical_key`` when it has one,
    else the frozen set of the images.
    """
    if not symmetry or not has_symmetries(game):
        return _identity
    canonical = getattr(game, "canonical_key", None)
    if callable(canonical):
        return canonical  # type: ignore[no-any-return]
    count = len(game.action_symmetries())
    transform = game.transform_state

    def orbit(state: GameState) -> Hashable:
        return frozenset(transform(state, i) for i in range(count))

    return orbit


def _identity(state: GameState) -> Hashable:
    return state  # type: ignore[return-value]  # game states are hashable (the protocol)


@dataclasses.dataclass(frozen=True)
class RootClasses:
    """The root's legal actions grouped into classes of symmetric moves.

    Attributes:
        actions: the root's legal actions, in the game's order.
        classes: the classes (each sorted by action id), in the order of their least member.
        stabilizer: indices (into ``perms``) of the symmetries that leave the root unchanged.
        perms: the game's symmetries as permutations of action ids.
    """

    actions: tuple[int, ...]
    classes: tuple[tuple[int, ...], ...]
    stabilizer: tuple[int, ...]
    perms: tuple[tuple[int, ...], ...]

    def class_of(self, action: int) -> tuple[int, ...]:
        """The class that holds ``action``."""
        for members in self.classes:
            if action in members:
                return members
        raise KeyError(action)

    def mapping(self, source: int, target: int) -> int:
        """The index of a stabilizer symmetry that maps action ``source`` to ``target``."""
        for index in self.stabilizer:
            if self.perms[index][source] == target:
                return index
        raise KeyError((source, target))


def root_classes(state: GameState) -> RootClasses | None:
    """The classes of symmetric moves at ``state``, or ``None`` when every class has one
    member (no symmetry of the game leaves ``state`` unchanged but the identity, the game
    declares none, or ``state`` is terminal or a chance node)."""
    game: Any = state.game
    if not has_symmetries(game) or state.is_terminal() or state.current_player() == CHANCE:
        return None
    perms = tuple(tuple(int(a) for a in p) for p in game.action_symmetries())
    stabilizer = tuple(
        i for i in range(len(perms)) if i == 0 or game.transform_state(state, i) == state
    )
    if len(stabilizer) == 1:
        return None
    actions = tuple(int(a) for a in state.legal_actions())
    seen: set[int] = set()
    classes: list[tuple[int, ...]] = []
    for a in sorted(actions):
        if a in seen:
            continue
        members = tuple(sorted({perms[i][a] for i in stabilizer}))
        seen.update(members)
        classes.append(members)
    if len(classes) == len(actions):
        return None
    return RootClasses(actions, tuple(classes), stabilizer, perms)


def collapse_edges(
    tree: T.Tree,
    node: int,
    classes: RootClasses,
    per_edge: Sequence[np.ndarray] = (),
    *,
    sum_priors: bool = True,
) -> None:
    """Keep one edge per class among ``node``'s edges (in place).

    The kept edge of a class is a proven one if any (symmetric moves have the same value),
    else the most visited, else the least action id; its prior becomes the sum of the
    class's priors (a policy's probability of the class), or with ``sum_priors=False`` their
    mean (a move score, as progressive bias reads it). The other edges' visits are taken off
    ``node``'s visit count and their subtrees are no longer reachable
    (:func:`playout._src.tree.subtree.subtree` drops them when the node becomes the root).
    ``per_edge``: arrays with rows parallel to the edge rows (RAVE's AMAF statistics) whose
    rows move with the edges. Nothing happens to an unexpanded node
    or one already collapsed.
    """
    nodes, edges, edge_values = tree.nodes, tree.edges, tree.edge_values
    count = int(nodes[node, T.N_NUM_EDGES])
    if count <= len(classes.classes):
        return
    first = int(nodes[node, T.N_FIRST_EDGE])
    row_of = {int(edges[e, T.E_ACTION]): e for e in range(first, first + count)}
    kept: list[int] = []
    priors: list[float] = []
    dropped_visits = 0
    for members in classes.classes:
        rows = [row_of[a] for a in members if a in row_of]
        if not rows:
            continue
        best = min(
            rows,
            key=lambda e: (
                edges[e, T.E_PROVEN] == T.UNPROVEN,
                -int(edges[e, T.E_VISITS]),
                int(edges[e, T.E_ACTION]),
            ),
        )
        kept.append(best)
        if edge_values.shape[1] > T.EV_PRIOR:  # a tree without priors has none to merge
            total = float(sum(edge_values[e, T.EV_PRIOR] for e in rows))
            priors.append(total if sum_priors else total / len(rows))
        dropped_visits += sum(int(edges[e, T.E_VISITS]) for e in rows if e != best)
    rewrite_edges(tree, node, kept, per_edge)
    for i, prior in enumerate(priors):
        edge_values[first + i, T.EV_PRIOR] = prior
    nodes[node, T.N_VISITS] -= dropped_visits
    if first + count == tree.num_edges:  # the last block (a fresh root): give the rows back
        tree.meta[T.M_NUM_EDGES] = first + len(kept)


def rewrite_edges(
    tree: T.Tree, node: int, rows: Sequence[int], per_edge: Sequence[np.ndarray] = ()
) -> None:
    """Make edge rows ``rows`` (of ``node``'s block, any order) ``node``'s edges, in that
    order, at the start of its block; children follow (their parent edge is updated)."""
    nodes, edges, edge_values = tree.nodes, tree.edges, tree.edge_values
    first = int(nodes[node, T.N_FIRST_EDGE])
    index = np.asarray(rows, dtype=np.int64)
    target = slice(first, first + index.shape[0])
    edges[target] = edges[index]  # fancy indexing copies before the assignment
    edge_values[target] = edge_values[index]
    for array in per_edge:
        array[target] = array[index]
    nodes[node, T.N_NUM_EDGES] = index.shape[0]
    for e in range(first, first + index.shape[0]):
        child = int(edges[e, T.E_CHILD])
        if child != T.UNVISITED:
            nodes[child, T.N_PARENT_EDGE] = e


def sort_all_edges(tree: T.Tree, per_edge: Sequence[np.ndarray] = ()) -> None:
    """Order every node's edges by action id, in place (after the actions were mapped by a
    symmetry: the tree then looks as if the mapped positions had been searched directly).
    ``per_edge``: arrays with rows parallel to the edge rows, moved with them."""
    used = tree.num_edges
    nodes = tree.nodes[: tree.num_nodes]
    counts = nodes[:, T.N_NUM_EDGES].astype(np.int64)
    expanded = counts > 0
    firsts = nodes[expanded, T.N_FIRST_EDGE].astype(np.int64)
    counts = counts[expanded]
    block = np.arange(used, dtype=np.int64)  # rows of no block stay where they are
    starts = np.repeat(firsts, counts)
    offsets = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(counts) - counts, counts
    )
    block[starts + offsets] = starts
    order = np.lexsort((tree.edges[:used, T.E_ACTION], block))
    if np.array_equal(order, np.arange(used)):
        return
    tree.edges[:used] = tree.edges[order]
    tree.edge_values[:used] = tree.edge_values[order]
    for array in per_edge:
        array[:used] = array[order]
    new_row = np.empty(used, dtype=np.int64)
    new_row[order] = np.arange(used, dtype=np.int64)
    children = tree.nodes[1 : tree.num_nodes, T.N_PARENT_EDGE]
    tree.nodes[1 : tree.num_nodes, T.N_PARENT_EDGE] = new_row[children]


def expand_result(
    result: SearchResult,
    classes: RootClasses,
    *,
    sample: bool,
    rng_state: np.ndarray,
    sum_priors: bool = True,
) -> SearchResult:
    """``result`` (one action per class) with every legal action of the root listed again,
    in the root's order (see the module docstring for how a class's statistics are shared).

    ``sample``: the final-move rule is ``"sample"``; the move is then a member of the chosen
    class drawn uniformly with ``rng_state``, else the class's representative.
    ``sum_priors``: the class's prior is the sum of its members' (see
    :func:`collapse_edges`), so each member gets its share; else each gets the class's.
    A Gumbel search's improved policy is shared as the visits are: equally.
    """
    stats = {
        a: (n, q, p, o, d)
        for a, n, q, p, o, d in zip(
            result.actions,
            result.visit_counts,
            result.values,
            result.priors,
            result.outcomes or (None,) * len(result.actions),
            result.plies or (0,) * len(result.actions),
            strict=True,
        )
    }
    improved = dict(zip(result.actions, result.improved_policy, strict=False))
    per_action: dict[int, tuple[int, float, float, Any, int]] = {}
    best_class: tuple[int, ...] = (result.best_action,)
    for members in classes.classes:
        present = [a for a in members if a in stats]
        if not present:
            continue
        rep = present[0]
        n, q, p, o, d = stats[rep]
        size = len(members)
        base, extra = divmod(n, size)
        order = [rep] + [a for a in members if a != rep]
        share = improved.get(rep, 0.0) / size
        for i, a in enumerate(order):
            prior = p / size if sum_priors else p
            per_action[a] = (base + (1 if i < extra else 0), q, prior, o, d)
            if improved:
                improved[a] = share
        if rep == result.best_action:
            best_class = tuple(order)
    for a, values in stats.items():  # actions outside every class (should not happen)
        per_action.setdefault(a, values)
    actions = tuple(a for a in classes.actions if a in per_action)
    best = result.best_action
    pv = result.pv
    if sample and len(best_class) > 1:
        best = best_class[int(random_below(rng_state, len(best_class)))]
        if best != result.best_action:
            perm = classes.perms[classes.mapping(result.best_action, best)]
            pv = tuple(perm[a] for a in pv) if pv and pv[0] == result.best_action else (best,)
    return dataclasses.replace(
        result,
        best_action=best,
        actions=actions,
        visit_counts=tuple(per_action[a][0] for a in actions),
        values=tuple(per_action[a][1] for a in actions),
        priors=tuple(per_action[a][2] for a in actions),
        outcomes=tuple(per_action[a][3] for a in actions),
        plies=tuple(per_action[a][4] for a in actions),
        pv=pv,
        improved_policy=tuple(improved[a] for a in actions) if improved else (),
    )


__all__ = [
    "KeyFunction",
    "RootClasses",
    "collapse_edges",
    "expand_result",
    "has_symmetries",
    "key_function",
    "root_classes",
    "sort_all_edges",
]
