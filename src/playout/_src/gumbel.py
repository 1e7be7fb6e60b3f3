"""Gumbel search's formulas and its walk down the tree (compiled).

Danihelka, Guez, Schrittwieser & Silver 2022, "Policy improvement by planning with Gumbel"
(ICLR), as DeepMind's mctx runs it (``gumbel_muzero_policy``); the settings are
:class:`playout.Gumbel`, the driver :mod:`playout._src.gumbel_driver`. At a node with
edges ``a`` (legal actions), prior ``P(a)``, visits ``N(a)`` and mean value ``q(a)`` for the
player to move there::

    logits(a)      = log P(a)
    v_mix          = (v + sum_b N(b) * sum_{a: N(a)>0} P(a) q(a) / sum_{a: N(a)>0} P(a))
                     / (1 + sum_b N(b))                       # paper, appendix D
    completed q(a) = q(a) if N(a) > 0 else v_mix
    sigma(q)       = (c_visit + max_b N(b)) * c_scale * q      # of the completed Q-values
                                                               # rescaled to [0, 1] (min-max)
    improved pi(a) = softmax(logits + sigma(completed q))      # the policy target (section 4)
    interior step  = argmax_a pi(a) - N(a) / (1 + sum_b N(b))  # section 5, deterministic

``v`` is the node's own evaluation (its *raw value*). At the root, ``m`` actions are sampled
without replacement by the Gumbel-top-k trick and sequential halving (Karnin, Koren & Somekh
2013) spreads ``n`` simulations over them: :func:`considered_visits` gives, for every
simulation, the visit count an action must have to be taken, and the walk takes, among the
root actions with that count, the one with the largest ``g(a) + logits(a) + sigma(completed
q)(a)`` (paper, algorithm 2; in the first phase, which samples the ``m``, ``g(a) + logits(a)``
alone, as on mctx's fresh trees, however many visits a reused subtree brought). After the
search the move is the action with the largest of that score among those visited most.

Where the tree keeps the raw value: a node's ``NV_EXACT`` (:mod:`playout._src.tree`) is the
value for player 0 that the node was created with (``finish_new_leaf`` writes the leaf's
evaluation there) until the solver replaces it with the exact value; the driver writes the
root's evaluation there. :func:`raw_value` reads it for the player to move.

The numeric pieces are compiled functions on one node's arrays (``*_into`` fill an ``out``
array) with Python wrappers that return new arrays, for tests and the driver's read-outs;
the walk (:func:`descend`) gathers a node's edge rows into scratch arrays and calls the same
functions. Values are on the game's scale ([-1, 1] for two players); completed Q-values are
rescaled to [0, 1] before ``sigma``, so the scale does not matter.
"""

from __future__ import annotations

import math

import numpy as np

from playout._src.jit import JitOptions, jit
from playout._src.tree import backup, compiling, selection
from playout._src.tree import layout as T

_JIT: JitOptions = compiling.PHASE_JIT
"""As the tree's phase functions (:mod:`playout._src.tree`), keyed on their sources too:
the walk compiles them in; nothing here allocates."""

TINY = float(np.finfo(np.float64).tiny)
"""The smallest prior a logit is taken of (``log 0`` would be minus infinity)."""
RESCALE_EPSILON = 1e-8
"""The smallest denominator of the min-max rescaling (mctx's ``epsilon``)."""

SCRATCH_ROWS = 5
"""Rows of the walk's float scratch array: q, prior, logit, transformed q, policy."""
Q_ROW, PRIOR_ROW, LOGIT_ROW, SIGMA_ROW, POLICY_ROW = range(SCRATCH_ROWS)


# --------------------------------------------------------------------------------------------
# Sequential halving's schedule.
# --------------------------------------------------------------------------------------------


def considered_visits(num_considered: int, num_simulations: int) -> np.ndarray:
    """The visit count an action must have to be taken at each of ``num_simulations`` root
    simulations when ``num_considered`` actions are sampled (sequential halving, Karnin et
    al. 2013, as Danihelka et al. 2022's algorithm 2 and mctx's
    ``get_sequence_of_considered_visits`` spread it).

    The budget goes in ``ceil(log2 m)`` phases; in a phase each of the ``k`` actions still
    considered gets ``max(1, floor(n / (ceil(log2 m) * k)))`` more visits, one round at a
    time, then ``k`` halves (never below 2) and the next phase begins. With ``m <= 1`` the one
    action takes every simulation (``0, 1, 2, ...``). For ``n = 8, m = 4``: two phases of
    ``floor(8 / (2 * 4)) = 1`` round of 4, then ``floor(8 / (2 * 2)) = 2`` rounds of 2:
    ``0 0 0 0 1 1 2 2``.

    Returns:
        ``int64[num_simulations]``.
    """
    if num_considered <= 1:
        return np.arange(num_simulations, dtype=np.int64)
    num_phases = math.ceil(math.log2(num_considered))
    pieces = [np.zeros(0, dtype=np.int64)]
    length = 0
    visits = 0  # every action still considered has this many visits
    considered = num_considered
    while length < num_simulations:
        rounds = max(1, num_simulations // (num_phases * considered))
        pieces.append(np.repeat(np.arange(visits, visits + rounds, dtype=np.int64), considered))
        length += rounds * considered
        visits += rounds
        considered = max(2, considered // 2)
    return np.concatenate(pieces)[:num_simulations]


# --------------------------------------------------------------------------------------------
# Completed Q-values and the improved policy (one node's arrays).
# --------------------------------------------------------------------------------------------


@jit(**_JIT)
def sigma(q: float, max_visits: int, c_visit: float, c_scale: float) -> float:
    """The monotone transformation of a rescaled Q-value (paper, section 4):
    ``(c_visit + max_visits) * c_scale * q``, ``max_visits`` the most visits of any action
    at the node."""
    return (c_visit + max_visits) * c_scale * q


@jit(**_JIT)
def mixed_value(raw: float, q: np.ndarray, visits: np.ndarray, priors: np.ndarray) -> float:
    """The mixed value ``v_mix`` (paper, appendix D): the node's ``raw`` value and
    the prior-weighted mean Q of its visited actions, weighed 1 to ``sum N``. Priors below
    :data:`TINY` count as :data:`TINY` (so a visited action of prior 0 still has a weight)."""
    total_visits = 0
    probability = 0.0
    weighted = 0.0
    for i in range(q.shape[0]):
        if visits[i] > 0:
            p = max(priors[i], TINY)
            total_visits += visits[i]
            probability += p
            weighted += p * q[i]
    if total_visits == 0:
        return raw
    return (raw + total_visits * (weighted / probability)) / (total_visits + 1)


@jit(**_JIT)
def completed_q_into(q: np.ndarray, visits: np.ndarray, value: float, out: np.ndarray) -> None:
    """``out[a] = q[a]`` for a visited action, ``value`` (the mixed value) for the others."""
    for i in range(q.shape[0]):
        out[i] = q[i] if visits[i] > 0 else value


@jit(**_JIT)
def transformed_q_into(
    raw: float,
    q: np.ndarray,
    visits: np.ndarray,
    priors: np.ndarray,
    c_visit: float,
    c_scale: float,
    out: np.ndarray,
) -> None:
    """``sigma`` of the completed Q-values rescaled to [0, 1] (mctx's
    ``qtransform_completed_by_mix_value``): complete by :func:`mixed_value`, subtract the
    smallest, divide by the range (at least :data:`RESCALE_EPSILON`), multiply by
    ``(c_visit + max N) * c_scale``."""
    count = q.shape[0]
    completed_q_into(q, visits, mixed_value(raw, q, visits, priors), out)
    low = math.inf
    high = -math.inf
    most = 0
    for i in range(count):
        low = min(low, out[i])
        high = max(high, out[i])
        most = max(most, visits[i])
    spread = max(high - low, RESCALE_EPSILON)
    for i in range(count):
        out[i] = sigma((out[i] - low) / spread, most, c_visit, c_scale)


@jit(**_JIT)
def logits_into(priors: np.ndarray, out: np.ndarray) -> None:
    """``log max(P, TINY)``: the logits of the priors (up to a constant, which no softmax
    or argmax here sees)."""
    for i in range(priors.shape[0]):
        out[i] = math.log(max(priors[i], TINY))


@jit(**_JIT)
def improved_policy_into(logits: np.ndarray, transformed: np.ndarray, out: np.ndarray) -> None:
    """``softmax(logits + transformed)`` (paper, section 4, with ``transformed`` =
    :func:`transformed_q_into`'s completed, rescaled, transformed Q-values)."""
    count = logits.shape[0]
    top = -math.inf
    for i in range(count):
        out[i] = logits[i] + transformed[i]
        top = max(top, out[i])
    total = 0.0
    for i in range(count):
        out[i] = math.exp(out[i] - top)
        total += out[i]
    for i in range(count):
        out[i] /= total


@jit(**_JIT)
def interior_choice(policy: np.ndarray, visits: np.ndarray) -> int:
    """The index of ``argmax_a policy(a) - N(a) / (1 + sum_b N(b))`` (paper, section 5; the
    first on ties): the deterministic selection whose visit shares follow ``policy``."""
    total = 0
    for i in range(visits.shape[0]):
        total += visits[i]
    best = 0
    best_score = -math.inf
    for i in range(visits.shape[0]):
        score = policy[i] - visits[i] / (1.0 + total)
        if score > best_score:
            best, best_score = i, score
    return best


@jit(**_JIT)
def root_choice(
    considered_visit: int,
    gumbel_logits: np.ndarray,
    transformed: np.ndarray,
    visits: np.ndarray,
) -> int:
    """The index, among the actions with ``considered_visit`` visits, of the largest
    ``gumbel_logits + transformed`` (``g + logits + sigma(completed q)``, paper, algorithm
    2; the first on ties); -1 when no action has that many visits."""
    best = -1
    best_score = -math.inf
    for i in range(visits.shape[0]):
        if visits[i] != considered_visit:
            continue
        score = gumbel_logits[i] + transformed[i]
        if best == -1 or score > best_score:
            best, best_score = i, score
    return best


def completed_q(q: np.ndarray, visits: np.ndarray, value: float) -> np.ndarray:
    """:func:`completed_q_into` as a new array."""
    out = np.empty(len(q), dtype=np.float64)
    completed_q_into(_floats(q), _counts(visits), float(value), out)
    return out


def transformed_q(
    raw: float,
    q: np.ndarray,
    visits: np.ndarray,
    priors: np.ndarray,
    *,
    c_visit: float = 50.0,
    c_scale: float = 1.0,
) -> np.ndarray:
    """:func:`transformed_q_into` as a new array: ``sigma(rescaled completed q)``."""
    out = np.empty(len(q), dtype=np.float64)
    transformed_q_into(
        float(raw), _floats(q), _counts(visits), _floats(priors), float(c_visit),
        float(c_scale), out,
    )  # fmt: skip
    return out


def improved_policy(
    raw: float,
    q: np.ndarray,
    visits: np.ndarray,
    priors: np.ndarray,
    *,
    c_visit: float = 50.0,
    c_scale: float = 1.0,
) -> np.ndarray:
    """The improved policy ``softmax(log P + sigma(completed q))`` of a node whose raw
    value is ``raw`` (paper, section 4)."""
    priors = _floats(priors)
    logits = np.empty(len(priors), dtype=np.float64)
    logits_into(priors, logits)
    sigmas = transformed_q(raw, q, visits, priors, c_visit=c_visit, c_scale=c_scale)
    out = np.empty(len(priors), dtype=np.float64)
    improved_policy_into(logits, sigmas, out)
    return out


def _floats(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64)


def _counts(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


# --------------------------------------------------------------------------------------------
# The walk.
# --------------------------------------------------------------------------------------------


@jit(**_JIT)
def raw_value(nodes: np.ndarray, node_values: np.ndarray, node: int) -> float:
    """The node's own evaluation for its player to move (the exact value once proven; see
    the module docstring)."""
    return backup.value_for(nodes[node, T.N_PLAYER], node_values[node, T.NV_EXACT])


@jit(**_JIT)
def gather(
    nodes: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
    scratch: np.ndarray,
    visits: np.ndarray,
) -> int:
    """Copy ``node``'s edges into the scratch arrays: mean values (0 when unvisited) to row
    ``Q_ROW`` and priors to row ``PRIOR_ROW`` of ``scratch``, visits to ``visits``; the edge
    count."""
    first = nodes[node, T.N_FIRST_EDGE]
    count = nodes[node, T.N_NUM_EDGES]
    has_priors = edge_values.shape[1] > T.EV_PRIOR
    for i in range(count):
        e = first + i
        n = edges[e, T.E_VISITS]
        visits[i] = n
        scratch[Q_ROW, i] = edge_values[e, T.EV_VALUE_SUM] / n if n > 0 else 0.0
        scratch[PRIOR_ROW, i] = edge_values[e, T.EV_PRIOR] if has_priors else 1.0 / count
    return int(count)


@jit(**_JIT)
def node_policy(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    node: int,
    params: np.ndarray,
    scratch: np.ndarray,
    visits: np.ndarray,
) -> int:
    """Fill the scratch arrays for ``node``: its edges (:func:`gather`), logits (row
    ``LOGIT_ROW``), ``sigma`` of completed Q (row ``SIGMA_ROW``) and the improved policy (row
    ``POLICY_ROW``); ``params`` is ``[c_visit, c_scale]``. Returns the edge count."""
    count = gather(nodes, edges, edge_values, node, scratch, visits)
    n = visits[:count]
    q, priors = scratch[Q_ROW, :count], scratch[PRIOR_ROW, :count]
    logits, sigmas = scratch[LOGIT_ROW, :count], scratch[SIGMA_ROW, :count]
    logits_into(priors, logits)
    raw = raw_value(nodes, node_values, node)
    transformed_q_into(raw, q, n, priors, params[0], params[1], sigmas)
    improved_policy_into(logits, sigmas, scratch[POLICY_ROW, :count])
    return count


@jit(**_JIT)
def select_root_edge(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    gumbel_logits: np.ndarray,
    base_visits: np.ndarray,
    schedule: np.ndarray,
    params: np.ndarray,
    pending: np.ndarray,
    loss: float,
    scratch: np.ndarray,
    visits: np.ndarray,
) -> int:
    """The root's edge for the next simulation of a round (sequential halving with Gumbel).

    The simulation's index is the visits the root's edges gained since the round began
    (``visits - base_visits``, the batch's pending walks included), ``schedule[index]`` the
    round's visit count an edge must have, and among those the largest ``gumbel_logits +
    sigma(completed q)``; ``gumbel_logits`` is ``g + logits`` per root edge (the driver's
    :class:`~playout._src.gumbel_driver.GumbelRound`).

    Two departures from reading the tree as it stands keep the choice the one mctx makes on
    a fresh tree with one walk at a time:

    - the scores read finished simulations only: ``pending[i]`` walks of the batch still hold
      the virtual loss ``loss`` on root edge ``i`` (one visit returning ``loss`` each), and
      are taken out of its visits and value sum before Q, ``v_mix`` and ``sigma`` (else a
      candidate whose last visit is pending would look lost when a phase's survivors are
      ranked);
    - while the round's first phase picks the ``m`` actions (``schedule[index] == 0``), the
      score is ``gumbel_logits`` alone, the Gumbel-top-k draw: visits a reused subtree
      brought count in the later phases' Q-values, not in which actions are sampled.

    Past the schedule (never, as the driver runs it) the last entry is used; when no edge
    has the count wanted (never either), every edge competes.
    """
    first = nodes[T.ROOT, T.N_FIRST_EDGE]
    count = gather(nodes, edges, edge_values, T.ROOT, scratch, visits)
    index = 0
    for i in range(count):
        index += visits[i] - base_visits[i]
        waiting = pending[i]
        if waiting > 0:  # the finished simulations alone
            finished = visits[i] - waiting
            total = edge_values[first + i, T.EV_VALUE_SUM] - waiting * loss
            scratch[Q_ROW, i] = total / finished if finished > 0 else 0.0
            visits[i] = finished
    wanted = schedule[min(index, schedule.shape[0] - 1)] if schedule.shape[0] > 0 else 0
    q, priors = scratch[Q_ROW, :count], scratch[PRIOR_ROW, :count]
    sigmas = scratch[SIGMA_ROW, :count]
    if wanted == 0:
        for i in range(count):
            sigmas[i] = 0.0  # the first phase: Gumbel-top-k
    else:
        raw = raw_value(nodes, node_values, T.ROOT)
        transformed_q_into(raw, q, visits[:count], priors, params[0], params[1], sigmas)
    for i in range(count):
        visits[i] += pending[i] - base_visits[i]  # this round's visits, pending ones included
    choice = root_choice(wanted, gumbel_logits[:count], sigmas, visits[:count])
    if choice == -1:
        best_score = -math.inf
        for i in range(count):
            score = gumbel_logits[i] + sigmas[i]
            if choice == -1 or score > best_score:
                choice, best_score = i, score
    return int(first + choice)


@jit(**_JIT)
def descend(
    nodes: np.ndarray,
    node_values: np.ndarray,
    edges: np.ndarray,
    edge_values: np.ndarray,
    gumbel_logits: np.ndarray,
    base_visits: np.ndarray,
    schedule: np.ndarray,
    params: np.ndarray,
    pending: np.ndarray,
    loss: float,
    rng: np.ndarray,
    max_depth: int,
    path: np.ndarray,
    scratch: np.ndarray,
    visits: np.ndarray,
) -> tuple[int, int, int]:
    """Selection of a Gumbel search: :func:`playout._src.tree.selection.descend` with the
    root's edge from :func:`select_root_edge`, an interior edge by :func:`interior_choice` on the
    node's improved policy, and a chance node's edge drawn by its probability. Proven
    children are not skipped (sequential halving counts every visit; a proven child backs
    up its exact value). ``pending`` and ``loss``: the batch's walks still pending per
    root edge and their virtual loss (:func:`select_root_edge`). ``scratch``
    (``float64[SCRATCH_ROWS, max_actions]``) and ``visits`` (``int64[max_actions]``) are
    work space.

    Returns:
        ``(node, edge, depth)`` as :func:`playout._src.tree.selection.descend`.
    """
    node = T.ROOT
    depth = 0
    while (
        nodes[node, T.N_NUM_EDGES] > 0
        and nodes[node, T.N_PROVEN] == T.UNPROVEN
        and depth < max_depth
    ):
        if nodes[node, T.N_PLAYER] == T.CHANCE:
            e = selection.sample_by_prior(
                edge_values, nodes[node, T.N_FIRST_EDGE], nodes[node, T.N_NUM_EDGES], rng
            )
        elif node == T.ROOT:
            e = select_root_edge(
                nodes, node_values, edges, edge_values, gumbel_logits, base_visits,
                schedule, params, pending, loss, scratch, visits,
            )  # fmt: skip
        else:
            count = node_policy(
                nodes, node_values, edges, edge_values, node, params, scratch, visits
            )
            choice = interior_choice(scratch[POLICY_ROW, :count], visits[:count])
            e = nodes[node, T.N_FIRST_EDGE] + choice
        path[depth] = e
        depth += 1
        child = edges[e, T.E_CHILD]
        if child == T.UNVISITED:
            return node, e, depth
        node = child
    return node, T.NO_EDGE, depth
