"""What a search returns: :class:`SearchResult`, built from a tree by :func:`result_from_tree`
or from several searches of one position by :func:`merge_results`.

Both builders choose the move with the engine's one final-move rule,
:func:`playout._src.tree.choose_among`, and a proven result always carries its exact value.
Every value is for the player to move at the root (see :mod:`playout._src.game`).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from playout._src import tree as T
from playout._src.config import FINAL_CHOICES, FinalChoice
from playout._src.errors import InvalidParameterError

StopReason = Literal["simulations", "time", "proven", "max_nodes", "memory", "stopped", ""]
"""Why a search stopped (see :attr:`SearchResult.stop_reason`)."""


class Proven(enum.StrEnum):
    """A result the solver proved, for the player to move (equal to its string value, so
    ``result.proven == "win"`` holds)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


_OUTCOME_OF_CODE = {
    T.OUTCOME_UNKNOWN: None,
    T.OUTCOME_WIN: Proven.WIN,
    T.OUTCOME_DRAW: Proven.DRAW,
    T.OUTCOME_LOSS: Proven.LOSS,
}
_CODE_OF_OUTCOME = {v: k for k, v in _OUTCOME_OF_CODE.items()}
FINAL_CODES = {
    "most_visits": T.FINAL_MOST_VISITS,
    "best_value": T.FINAL_BEST_VALUE,
    "sample": T.FINAL_SAMPLE,
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
            ``values``, or the exact value when the root is proven.
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
            ``"max_nodes"`` or ``"memory"`` (the tree reached its bound), ``"stopped"`` (the
            caller's ``stop`` said so); ``""`` for a result read without searching.
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
    (a search that never reads priors, see :mod:`playout._src.tree`)."""
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
    visits, means, outcomes, plies = T.edge_statistics(nodes, edges, tree.edge_values, T.ROOT)
    first = int(nodes[T.ROOT, T.N_FIRST_EDGE])
    rows = slice(first, first + visits.shape[0])
    total = int(visits.sum())
    value = float(tree.edge_values[rows, T.EV_VALUE_SUM].sum() / total) if total else 0.0
    index = int(
        T.choose_among(visits, means, outcomes, plies, final_code(final), temperature, rng_state)
    )
    player = int(nodes[T.ROOT, T.N_PLAYER])
    proven = None
    if nodes[T.ROOT, T.N_PROVEN] != T.UNPROVEN:
        value = float(T.value_for(player, float(tree.node_values[T.ROOT, T.NV_EXACT])))
        proven = proven_of(value, spec)
    pv_buffer = np.zeros(max(1, max_depth + 1), dtype=np.int64)
    pv_length = T.principal_variation(nodes, edges, tree.edge_values, pv_buffer)
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
        outcomes=tuple(_OUTCOME_OF_CODE[int(o)] for o in outcomes),
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
    final-move rule (:func:`playout._src.tree.choose_among`) on the merged statistics;
    ``value`` is the visit-weighted mean, or the exact value when a search proved the root
    (a proof holds whatever the other searches saw); ``pv`` is the line of the search whose
    first move is the merged choice and which visited it most; ``nodes`` is the sum over
    searches and ``max_depth`` the largest.

    Raises:
        InvalidParameterError: no results, or results for different root actions.
    """
    if not results:
        raise InvalidParameterError("merge_results needs at least one result")
    actions = sorted(set(results[0].actions))
    for result in results[1:]:
        if sorted(set(result.actions)) != actions:
            raise InvalidParameterError("cannot merge searches of different positions")
    index = {a: i for i, a in enumerate(actions)}
    count = len(actions)
    visits = np.zeros(count, dtype=np.int64)
    sums = np.zeros(count, dtype=np.float64)
    priors = np.zeros(count, dtype=np.float64)
    outcomes = np.full(count, T.OUTCOME_UNKNOWN, dtype=np.int64)
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
                better = outcomes[i] == T.OUTCOME_UNKNOWN or (
                    d < plies[i] if code == T.OUTCOME_WIN else d > plies[i]
                )
                if better:
                    outcomes[i], plies[i], exact[i] = code, d, q
    means = np.divide(sums, visits, out=np.zeros(count), where=visits > 0)
    proven_mask = outcomes != T.OUTCOME_UNKNOWN
    means[proven_mask] = exact[proven_mask]
    rng = T.new_rng_state(0 if seed is None else int(seed))
    choice = int(
        T.choose_among(visits, means, outcomes, plies, final_code(final), temperature, rng)
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
    any of them hit (``"memory"``, then ``"max_nodes"``), else the first one's reason."""
    if proven is not None:
        return "proven"
    reasons = {r.stop_reason for r in results}
    for reason in ("memory", "max_nodes", "stopped"):
        if reason in reasons:
            return reason
    return results[0].stop_reason


__all__ = ["Proven", "SearchResult", "merge_results", "result_from_tree"]
