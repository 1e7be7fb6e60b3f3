"""What a search returns: :class:`SearchResult`, built from a tree by :func:`result_from_tree`
or from several searches of one position by :func:`merge_results`.

Both builders choose the move with the engine's one final-move rule,
:func:`playout._src.tree.final_move.choose_among`, and a proven result always carries its exact
value.
Every value is for the player to move at the root (see :mod:`playout._src.game`).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from playout._src.config import FINAL_CHOICES, FinalChoice, check_temperature
from playout._src.errors import InvalidParameterError
from playout._src.evaluation import is_count
from playout._src.tree import backup, final_move
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state

StopReason = Literal[
    "simulations", "time", "proven", "decided", "max_nodes", "memory", "stopped", ""
]
"""Why a search stopped (see :attr:`SearchResult.stop_reason`)."""


class Proven(enum.StrEnum):
    """A result the solver proved, for the player to move (equal to its string value, so
    ``result.proven == "win"`` holds)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


_OUTCOME_OF_CODE = {
    final_move.OUTCOME_UNKNOWN: None,
    final_move.OUTCOME_WIN: Proven.WIN,
    final_move.OUTCOME_DRAW: Proven.DRAW,
    final_move.OUTCOME_LOSS: Proven.LOSS,
}
_CODE_OF_OUTCOME = {v: k for k, v in _OUTCOME_OF_CODE.items()}
FINAL_CODES = {
    "most_visits": final_move.FINAL_MOST_VISITS,
    "best_value": final_move.FINAL_BEST_VALUE,
    "sample": final_move.FINAL_SAMPLE,
}


@dataclasses.dataclass(frozen=True)
class SearchResult:
    """What a search found at its root. Values are for the player to move at the root.

    Attributes:
        best_action: the action chosen by the final-move rule.
        actions: the root's legal actions.
        visit_counts: simulations through each root action.
        values: mean return of each root action for the player to move (0 if unvisited; the
            exact value once the action is proven).
        priors: prior probability of each root action.
        value: the root's value for the player to move: the visit-weighted mean of
            ``values``, or the exact value when the root is proven; for a Gumbel search the
            improved policy's mean of the completed Q-values (``sum_a pi'(a) q(a)``, an
            unvisited action's ``q`` the mixed value ``v_mix``).
        pv: principal variation: the line of actions the final-move rule picks from the root.
        player: the player to move at the root.
        simulations: simulations run by the call that produced this result.
        total_simulations: simulations in the tree (including reused ones).
        seconds: wall-clock seconds of that call.
        nodes: nodes in the tree.
        max_depth: deepest edge count below the root reached by a simulation.
        proven: :class:`Proven` when the solver proved the root, else ``None``.
        outcomes: per root action, :class:`Proven` for the player to move when the solver
            proved that action's result, else ``None`` (empty for merged old results).
        plies: per root action, plies to the end of the game under best play when proven
            (0 otherwise).
        stop_reason: why the search stopped: ``"simulations"`` (the count was reached),
            ``"time"`` (the time limit), ``"proven"`` (the solver proved the root),
            ``"decided"`` (no other move could overtake the most-visited one:
            ``Budget(stop_early=True)``; merged from several searches: each of them stopped
            so, on its own tree), ``"max_nodes"`` or ``"memory"`` (the tree reached
            its bound), ``"stopped"`` (the caller's ``stop`` said so); ``""`` for a result
            read without searching.
        improved_policy: a Gumbel search's (``SearchConfig(gumbel=...)``) improved policy
            per root action, ``softmax(log P + sigma(completed Q))`` (Danihelka et al. 2022,
            section 4): the policy target of Gumbel self-play. Empty for other searches and
            merged results.
    """

    best_action: int
    actions: tuple[int, ...]
    visit_counts: tuple[int, ...]
    values: tuple[float, ...]
    priors: tuple[float, ...]
    value: float
    pv: tuple[int, ...]
    player: int
    simulations: int
    total_simulations: int
    seconds: float
    nodes: int
    max_depth: int
    proven: Proven | None = None
    outcomes: tuple[Proven | None, ...] = ()
    plies: tuple[int, ...] = ()
    stop_reason: StopReason = ""
    improved_policy: tuple[float, ...] = ()

    def policy(self) -> dict[int, float]:
        """Share of the root's visits per action (the move probabilities of seed 001)."""
        total = sum(self.visit_counts)
        if total == 0:
            return {a: 0.0 for a in self.actions}
        return {a: n / total for a, n in zip(self.actions, self.visit_counts, strict=True)}

    def action_values(self) -> dict[int, float]:
        """Mean value per action, for the player to move at the root."""
        return dict(zip(self.actions, self.values, strict=True))

    def action_outcomes(self) -> dict[int, Proven | None]:
        """The proven result of each action for the player to move (``None``: not proven)."""
        outcomes = self.outcomes or (None,) * len(self.actions)
        return dict(zip(self.actions, outcomes, strict=True))


def proven_of(value: float, spec: Any) -> Proven:
    """The :class:`Proven` class of an exact value seen by the player to move."""
    if value >= spec.max_return:
        return Proven.WIN
    if value <= (spec.min_return if spec.num_players == 1 else -spec.max_return):
        return Proven.LOSS
    return Proven.DRAW


def final_code(final: FinalChoice) -> int:
    """The compiled code of a final-move rule name."""
    if final not in FINAL_CODES:
        raise InvalidParameterError(f"final must be one of {', '.join(FINAL_CHOICES)}")
    return FINAL_CODES[final]


def root_priors(tree: T.Tree, rows: slice) -> tuple[float, ...]:
    """The priors of the root's edge ``rows``: uniform when the tree has no prior column
    (a search that never reads priors, see :mod:`playout._src.tree.layout`)."""
    if tree.edge_values.shape[1] > T.EV_PRIOR:
        return tuple(float(p) for p in tree.edge_values[rows, T.EV_PRIOR])
    count = max(0, int(rows.stop) - int(rows.start))
    return (1.0 / count,) * count


def result_from_tree(
    tree: T.Tree,
    spec: Any,
    *,
    final: FinalChoice,
    temperature: float,
    rng_state: np.ndarray,
    simulations: int,
    seconds: float,
    max_depth: int,
    stop_reason: StopReason = "",
) -> SearchResult:
    """The :class:`SearchResult` of ``tree``'s root (``spec``: the game's ``GameSpec``).

    ``rng_state`` draws the move when ``final == "sample"``; ``max_depth`` is the deepest
    simulation seen, which also bounds the principal variation.
    """
    nodes, edges = tree.nodes, tree.edges
    visits, means, outcomes, plies = final_move.edge_statistics(
        nodes, edges, tree.edge_values, T.ROOT
    )
    first = int(nodes[T.ROOT, T.N_FIRST_EDGE])
    rows = slice(first, first + visits.shape[0])
    total = int(visits.sum())
    value = float(tree.edge_values[rows, T.EV_VALUE_SUM].sum() / total) if total else 0.0
    move_outcomes = tuple(_OUTCOME_OF_CODE[int(o)] for o in outcomes)
    if spec.has_intermediate_rewards:
        # A child's class is that of the return still to come; a move's is that of its
        # exact value, the reward into the child included (as the root's is). The move is
        # chosen on the moves' classes: a sample must not draw a move proven worse.
        move_outcomes = tuple(
            None if o is None else proven_of(float(q), spec)
            for o, q in zip(move_outcomes, means, strict=True)
        )
        outcomes = np.array([_CODE_OF_OUTCOME[o] for o in move_outcomes], dtype=outcomes.dtype)
    index = int(
        final_move.choose_among(
            visits, means, outcomes, plies, final_code(final), temperature, rng_state
        )
    )
    player = int(nodes[T.ROOT, T.N_PLAYER])
    proven = None
    if nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN:
        value = float(backup.value_for(player, float(tree.node_values[T.ROOT, T.NV_EXACT])))
        proven = proven_of(value, spec)
    pv_buffer = np.zeros(max(1, max_depth + 1), dtype=np.int64)
    pv_length = final_move.principal_variation(nodes, edges, tree.edge_values, pv_buffer)
    return SearchResult(
        best_action=int(edges[first + index, T.E_ACTION]),
        actions=tuple(int(a) for a in edges[rows, T.E_ACTION]),
        visit_counts=tuple(int(n) for n in visits),
        values=tuple(float(q) for q in means),
        priors=root_priors(tree, rows),
        value=value,
        pv=tuple(int(a) for a in pv_buffer[:pv_length]),
        player=player,
        simulations=simulations,
        total_simulations=total,
        seconds=seconds,
        nodes=tree.num_nodes,
        max_depth=max_depth,
        proven=proven,
        outcomes=move_outcomes,
        plies=tuple(int(p) for p in plies),
        stop_reason=stop_reason,
    )


def merge_results(
    results: Sequence[SearchResult],
    *,
    final: FinalChoice = "most_visits",
    temperature: float = 1.0,
    seed: int | None = None,
    seconds: float | None = None,
) -> SearchResult:
    """One result from searches of the same position: visits and value sums added per action.

    ``values`` are the merged means (``sum of value sums / sum of visits``), except that an
    action some search proved keeps its exact value; ``best_action`` follows the engine's
    final-move rule (:func:`playout._src.tree.final_move.choose_among`) on the merged statistics;
    ``value`` is the visit-weighted mean, or the exact value when a search proved the root
    (a proof holds whatever the other searches saw); ``pv`` is the line of the search whose
    first move is the merged choice and which visited it most; ``nodes`` is the sum over
    searches and ``max_depth`` the largest.

    Raises:
        InvalidParameterError: no results, results for different root actions, or a bad
            temperature or seed.
    """
    if not results:
        raise InvalidParameterError("merge_results needs at least one result")
    temperature = check_temperature(temperature)
    if seed is not None and (not is_count(seed) or not 0 <= seed < 2**64):
        raise InvalidParameterError(f"seed must be None or a whole number >= 0, got {seed!r}")
    actions = sorted(set(results[0].actions))
    for result in results[1:]:
        if sorted(set(result.actions)) != actions:
            raise InvalidParameterError("cannot merge searches of different positions")
    index = {a: i for i, a in enumerate(actions)}
    count = len(actions)
    visits = np.zeros(count, dtype=np.int64)
    sums = np.zeros(count, dtype=np.float64)
    priors = np.zeros(count, dtype=np.float64)
    outcomes = np.full(count, final_move.OUTCOME_UNKNOWN, dtype=np.int64)
    plies = np.zeros(count, dtype=np.int64)
    exact = np.zeros(count, dtype=np.float64)
    for result in results:
        result_outcomes = result.outcomes or (None,) * len(result.actions)
        result_plies = result.plies or (0,) * len(result.actions)
        for a, n, q, p, o, d in zip(
            result.actions,
            result.visit_counts,
            result.values,
            result.priors,
            result_outcomes,
            result_plies,
            strict=True,
        ):
            i = index[a]
            visits[i] += n
            sums[i] += q * n
            priors[i] += p / len(results)
            if o is not None:
                code = _CODE_OF_OUTCOME[o]
                better = outcomes[i] == final_move.OUTCOME_UNKNOWN or (
                    d < plies[i] if code == final_move.OUTCOME_WIN else d > plies[i]
                )
                if better:
                    outcomes[i], plies[i], exact[i] = code, d, q
    means = np.divide(sums, visits, out=np.zeros(count), where=visits > 0)
    proven_mask = outcomes != final_move.OUTCOME_UNKNOWN
    means[proven_mask] = exact[proven_mask]
    rng = new_rng_state(0 if seed is None else int(seed))
    choice = int(
        final_move.choose_among(visits, means, outcomes, plies, final_code(final), temperature, rng)
    )
    best_action = actions[choice]
    total = int(visits.sum())
    value = float(sums.sum() / total) if total > 0 else 0.0
    proven_results = [r for r in results if r.proven is not None]
    proven = proven_results[0].proven if proven_results else None
    if proven_results:
        value = proven_results[0].value  # exact, and the same in every search that proved it
    with_best = [r for r in results if r.pv and r.pv[0] == best_action]
    pv = (
        max(with_best, key=lambda r: r.visit_counts[r.actions.index(best_action)]).pv
        if with_best
        else (best_action,)
    )
    return SearchResult(
        best_action=int(best_action),
        actions=tuple(actions),
        visit_counts=tuple(int(n) for n in visits),
        values=tuple(float(q) for q in means),
        priors=tuple(float(p) for p in priors),
        value=value,
        pv=tuple(pv),
        player=results[0].player,
        simulations=sum(r.simulations for r in results),
        total_simulations=total,
        seconds=max(r.seconds for r in results) if seconds is None else seconds,
        nodes=sum(r.nodes for r in results),
        max_depth=max(r.max_depth for r in results),
        proven=proven,
        outcomes=tuple(_OUTCOME_OF_CODE[int(o)] for o in outcomes),
        plies=tuple(int(p) for p in plies),
        stop_reason=_merged_stop_reason(results, proven),
    )


def _merged_stop_reason(results: Sequence[SearchResult], proven: Proven | None) -> StopReason:
    """Why a set of searches stopped: ``"proven"`` when one proved the root, else a bound
    any of them hit (``"memory"``, then ``"max_nodes"``), else the first one's reason that
    is not ``"decided"`` (``"decided"`` only when every search stopped so)."""
    if proven is not None:
        return "proven"
    reasons = {r.stop_reason for r in results}
    for reason in ("memory", "max_nodes", "stopped"):
        if reason in reasons:
            return reason
    undecided = [r.stop_reason for r in results if r.stop_reason != "decided"]
    return undecided[0] if undecided else "decided"


@dataclasses.dataclass(frozen=True)
class TreeNode:
    """One node of the top of a search tree (:func:`export_tree`, :meth:`playout.MCTS.export_tree`).

    Attributes:
        action: the move that led here (``None`` at the root).
        player: the player to move here (``None`` at a terminal or chance node).
        visits: simulations through the node (at the root: through its moves, the
            result's ``total_simulations``).
        value: the node's mean value for ``player`` (the exact one once proven; ``None``
            at a terminal or chance node).
        proven: the solver's result for ``player`` (``None``: not proven, or no player).
        move_value: the mean value of ``action`` for the player who chose it (the parent's
            ``player``; a chance node's edges: for player 0), as in
            :attr:`SearchResult.values`; ``None`` at the root.
        move_proven: the solver's result of ``action`` for the player who chose it.
        prior: the move's prior probability (``None`` at the root).
        plies: plies to the end under best play once proven (``None`` otherwise).
        terminal: the game is over here.
        children: the most visited moves searched from here (visits descending, then action
            id), at most the export's ``width``, down to its ``depth``.
        hidden: moves searched from here that are not in ``children`` (beyond the width or
            the depth).
    """

    action: int | None
    player: int | None
    visits: int
    value: float | None
    proven: Proven | None
    move_value: float | None
    move_proven: Proven | None
    prior: float | None
    plies: int | None
    terminal: bool
    children: tuple[TreeNode, ...]
    hidden: int

    def count(self) -> int:
        """Nodes in this subtree, this one included."""
        return 1 + sum(child.count() for child in self.children)


MAX_EXPORT_DEPTH = 64
"""The deepest :func:`export_tree` goes below the root."""


def export_tree(tree: T.Tree, *, depth: int = 2, width: int = 5) -> TreeNode:
    """The top of ``tree`` as immutable nested :class:`TreeNode` values (read only): the
    root and, ``depth`` moves deep, the ``width`` most visited moves searched from each node.

    Raises:
        InvalidParameterError: ``depth`` not in [0, :data:`MAX_EXPORT_DEPTH`] or ``width``
            below 1.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_EXPORT_DEPTH:
        raise InvalidParameterError(
            f"depth must be a whole number in [0, {MAX_EXPORT_DEPTH}], got {depth!r}"
        )
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise InvalidParameterError(f"width must be a whole number >= 1, got {width!r}")
    nodes, edges, edge_values = tree.nodes, tree.edges, tree.edge_values
    has_priors = edge_values.shape[1] > T.EV_PRIOR

    def visited_edges(node: int) -> list[int]:
        first, count = int(nodes[node, T.N_FIRST_EDGE]), int(nodes[node, T.N_NUM_EDGES])
        found = [e for e in range(first, first + max(count, 0)) if edges[e, T.E_VISITS] > 0]
        return sorted(found, key=lambda e: (-int(edges[e, T.E_VISITS]), int(edges[e, T.E_ACTION])))

    def own(node: int) -> tuple[int | None, Proven | None, float | None]:
        """``(player, proven, exact value)`` of ``node`` for its player to move."""
        player = int(nodes[node, T.N_PLAYER])
        if player in (T.TERMINAL, T.CHANCE):
            return None, None, None
        code = int(nodes[node, T.N_PROVEN])
        if code == T.UNPROVEN:
            return player, None, None
        exact = float(backup.value_for(player, float(tree.node_values[node, T.NV_EXACT])))
        return player, _OUTCOME_OF_CODE[int(final_move.outcome_for(player, code))], exact

    def build(node: int, edge: int, level: int) -> TreeNode:
        player, proven, exact = own(node)
        children = visited_edges(node) if int(nodes[node, T.N_NUM_EDGES]) > 0 else []
        shown = children[:width] if level < depth else []
        value: float | None
        move_value: float | None = None
        move_proven: Proven | None = None
        prior: float | None = None
        action: int | None = None
        if edge == T.NO_EDGE:
            total = sum(int(edges[e, T.E_VISITS]) for e in children)
            sums = sum(float(edge_values[e, T.EV_VALUE_SUM]) for e in children)
            visits, value = total, (sums / total if total else 0.0)
        else:
            parent = int(nodes[node, T.N_PARENT])
            mover = int(nodes[parent, T.N_PLAYER])
            visits = int(edges[edge, T.E_VISITS])
            move_value = float(final_move.edge_mean(edge_values, edges, edge))
            value = (
                float(backup.value_for(player, float(backup.value_for(mover, move_value))))
                if player is not None
                else None
            )
            move_proven = _OUTCOME_OF_CODE[
                int(final_move.outcome_for(mover, nodes[node, T.N_PROVEN]))
            ]
            count = max(int(nodes[parent, T.N_NUM_EDGES]), 1)
            prior = float(edge_values[edge, T.EV_PRIOR]) if has_priors else 1.0 / count
            action = int(edges[edge, T.E_ACTION])
        if exact is not None:
            value = exact
        proven_any = int(nodes[node, T.N_PROVEN]) != T.UNPROVEN
        return TreeNode(
            action=action,
            player=player,
            visits=visits,
            value=value,
            proven=proven,
            move_value=move_value,
            move_proven=move_proven,
            prior=prior,
            plies=int(nodes[node, T.N_PLIES]) if proven_any else None,
            terminal=int(nodes[node, T.N_PLAYER]) == T.TERMINAL,
            children=tuple(build(int(edges[e, T.E_CHILD]), e, level + 1) for e in shown),
            hidden=len(children) - len(shown),
        )

    return build(T.ROOT, T.NO_EDGE, 0)


__all__ = [
    "MAX_EXPORT_DEPTH",
    "Proven",
    "SearchResult",
    "TreeNode",
    "export_tree",
    "merge_results",
    "result_from_tree",
]
