"""Text summaries of search results: titled grids, proofs, the top moves, a few lines.

Pure functions that return strings; nothing here prints or searches (the command line and
other front ends print what these return).

Points of view
--------------
Search results hold values for the player to move at the root. Every grid title names the
player whose point of view it shows, by the game's player names (``values for X (to move)``,
``values for Red (to move)``; see :func:`~playout.render.player_label`);
:func:`value_grid_text` can show a two-player game from the other player's side as well
(seed 001 prints its flat grids for the 1s player whatever the side to move).

The functions that take a ``result`` accept a :class:`~playout.SearchResult` (tree search)
and, except where said, a :class:`~playout.FlatResult` (flat Monte Carlo, no visits).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from playout._src.flat import FlatResult
from playout._src.game import GameState
from playout._src.search import SearchResult
from playout.render.board import moves_text, player_label
from playout.render.formatting import count_text, number_text
from playout.render.grids import (
    AnyResult,
    grid_shape,
    grid_text,
    grid_values,
    label_grid_text,
    probability_grid,
    value_grid,
)

PROVEN_LETTERS = {"won": "W", "drawn": "D", "lost": "L"}
"""One-letter cell of each proven move status in :func:`proven_grid_text`."""

PROVEN_STATUS = {"win": "won", "draw": "drawn", "loss": "lost"}
"""The move status of each :class:`~playout.Proven` result (``"win"`` -> ``"won"``)."""


def proven_moves(game: Any, result: AnyResult) -> dict[int, str]:
    """``{action: "won" | "drawn" | "lost"}`` for the root moves the solver has proven, for
    the player to move.

    Read from the solver's per-move proofs, ``result.outcomes``
    (:meth:`~playout.SearchResult.action_outcomes`): a move is listed exactly when the search
    proved it, whether or not the root itself is proven. Empty for a
    :class:`~playout.FlatResult` and for a search without the solver. ``game`` is not read
    (kept for a uniform signature with the other renderers).
    """
    del game
    if not isinstance(result, SearchResult):
        return {}
    return {
        action: PROVEN_STATUS[str(outcome)]
        for action, outcome in result.action_outcomes().items()
        if outcome is not None
    }


def proven_text(game: Any, result: AnyResult, planned_simulations: int | None = None) -> str:
    """One line saying that the solver proved the root (empty when it did not): the result
    for the player to move and, when the search stopped before ``planned_simulations``,
    that its visit shares are those of an interrupted search; or, when the call behind
    ``result`` ran no simulation because the tree it kept from earlier searches already
    held the proof (tree reuse), that no new simulation was needed, with the plies to the
    end where known."""
    if not isinstance(result, SearchResult) or result.proven is None:
        return ""
    label = player_label(game, result.player)
    line = f"proven {result.proven} for {label} (to move)"
    if result.simulations == 0 and result.total_simulations > 0:
        plies = proven_plies(result)
        length = "" if plies is None else f" in {count_text(plies, 'ply', 'plies')}"
        line += (
            f": the tree already proved this position (a {result.proven}{length}), so no new "
            "simulations ran"
        )
    elif planned_simulations is not None and result.simulations < planned_simulations:
        line += (
            f": the solver stopped the search after {result.simulations:,} of "
            f"{planned_simulations:,} simulations, so the visit shares are those of an "
            "interrupted search"
        )
    return line


def proven_plies(result: SearchResult) -> int | None:
    """Plies from the root to the end of the game under the play the solver proved, or None
    (the root is not proven, or the chosen move is not proven to the root's result)."""
    if result.proven is None or not result.plies or not result.outcomes:
        return None
    index = result.actions.index(result.best_action)
    if result.outcomes[index] != result.proven:
        return None
    return result.plies[index] + 1


def simulations_text(result: SearchResult) -> str:
    """What the call behind ``result`` ran: ``200 simulations in 0.05 s``; ``new``
    simulations when the tree also held some from earlier searches (tree reuse); ``no new
    simulations`` when it ran none (the tree already proved the root, or the time ran
    out)."""
    if result.simulations == 0:
        return "no new simulations" if result.total_simulations > 0 else "no simulations"
    noun = "new simulation" if result.total_simulations > result.simulations else "simulation"
    return f"{count_text(result.simulations, noun)} in {result.seconds:.2f} s"


def root_simulations_text(result: SearchResult) -> str:
    """The simulations behind the root's visit shares: ``200 simulations at the root``, and
    how many of them came from earlier searches when the tree was reused (``28 simulations
    at the root, all from earlier searches``)."""
    text = f"{count_text(result.total_simulations, 'simulation')} at the root"
    reused = result.total_simulations - result.simulations
    if reused <= 0:
        return text
    if result.simulations == 0:
        return f"{text}, all from earlier searches"
    return f"{text}, {reused:,} of them from earlier searches"


def proven_grid_text(game: Any, result: AnyResult) -> str:
    """A grid of the proven moves (:func:`proven_moves`): ``W`` won, ``D`` drawn, ``L`` lost
    for the player to move, ``?`` a move not proven, ``.`` no move; with its title. Empty
    when no move is proven or the game has no grid."""
    shape = grid_shape(game)
    statuses = proven_moves(game, result)
    if shape is None or not statuses:
        return ""
    width, height = shape
    cells = {action: "?" for action in result.actions}
    cells.update({action: PROVEN_LETTERS[status] for action, status in statuses.items()})
    label = player_label(game, result.player)
    return (
        f"proven moves for {label} (to move): W won, D drawn, L lost, ? not proven:\n"
        + label_grid_text(cells, width, height)
    )


def probability_grid_text(game: Any, result: SearchResult) -> str:
    """The titled move-probability grid of a tree search ("" when the game has no grid).

    The title starts ``move probabilities (N simulations at the root; X to move)``
    (:func:`root_simulations_text`): the visit shares of the choices of the player to move.
    """
    shape = grid_shape(game)
    if shape is None:
        return ""
    width, height = shape
    probabilities = probability_grid(result, width, height, fill=None)
    label = player_label(game, result.player)
    return f"move probabilities ({root_simulations_text(result)}; {label} to move):\n" + grid_text(
        grid_values(probabilities), width, height
    )


def value_grid_text(game: Any, result: AnyResult, player: int | None = None) -> str:
    """The titled value grid for ``player`` (default the player to move); "" without a
    grid. The title names whose values they are: ``values for X (to move)`` or
    ``values for X (O to move)``; flat results add ``flat Monte Carlo, N games per move``.
    """
    shape = grid_shape(game)
    if shape is None:
        return ""
    width, height = shape
    viewer = result.player if player is None else player
    values = value_grid(result, width, height, player=viewer)
    label = player_label(game, viewer)
    if viewer == result.player:
        whose = f"values for {label} (to move"
    else:
        whose = f"values for {label} ({player_label(game, result.player)} to move"
    if isinstance(result, FlatResult):
        whose += f"; flat Monte Carlo, {result.playouts:,} games per move"
    return f"{whose}):\n" + grid_text(grid_values(values), width, height)


def grids_text(
    game: Any,
    result: AnyResult,
    *,
    views: Sequence[int | None] = (None,),
    planned_simulations: int | None = None,
) -> str:
    """Every grid of a result, titled, separated by blank lines ("" without a grid).

    A tree search: the move probabilities, then the proof line of :func:`proven_text` (when
    the solver proved the root) and the grid of :func:`proven_grid_text` (when it proved
    some moves); then one value grid per entry of ``views`` (None: the player to move; a
    player id: that player's side).
    """
    if grid_shape(game) is None:
        return ""
    parts: list[str] = []
    if isinstance(result, SearchResult):
        parts.append(probability_grid_text(game, result))
        proof = proven_text(game, result, planned_simulations)
        if proof:
            parts.append(proof)
        proven_grid = proven_grid_text(game, result)
        if proven_grid:
            parts.append(proven_grid)
    parts += [value_grid_text(game, result, view) for view in views]
    return "\n\n".join(parts)


def top_moves_text(game: Any, state: GameState, result: AnyResult, limit: int = 5) -> str:
    """A table of the ``limit`` best root moves: the most visited ones of a tree search
    (visits, share, value and, where known, the proven status), the highest valued ones of a
    flat result (value)."""
    notation = {action: game.action_to_string(state, action) for action in result.actions}
    pad = max((len(text) for text in notation.values()), default=0)
    count = min(limit, len(result.actions))
    if isinstance(result, FlatResult):
        ranked = sorted(
            zip(result.actions, result.values, strict=True), key=lambda row: (-row[1], row[0])
        )[:limit]
        lines = [f"top moves by value ({count} of {len(result.actions)}):"]
        for action, value in ranked:
            lines.append(
                f"  {notation[action].ljust(pad)}  value {number_text(value, 3, sign=True)}"
            )
        return "\n".join(lines)
    rows = sorted(
        zip(result.actions, result.visit_counts, result.values, strict=True),
        key=lambda row: (-row[1], row[0]),
    )[:limit]
    total = sum(result.visit_counts) or 1
    statuses = proven_moves(game, result)
    lines = [f"top moves ({count} of {len(result.actions)}):"]
    for action, visits, value in rows:
        line = (
            f"  {notation[action].ljust(pad)}  visits {visits:>7,}  share {visits / total:5.1%}"
            f"  value {number_text(value, 3, sign=True)}"
        )
        if action in statuses:
            line += f"  proven {statuses[action]}"
        lines.append(line)
    return "\n".join(lines)


def result_text(
    game: Any, state: GameState, result: AnyResult, *, player_name: str | None = None
) -> str:
    """A few lines summing up a search of ``state``.

    Best move (in the game's notation), the root value for the player to move, the principal
    variation, and the effort: simulations, seconds, simulations per second, tree nodes and
    the deepest simulation. ``player_name`` names the player to move (default its
    :func:`player_label` in ``game``). A flat result: best move, its value and the games per
    move.
    """
    if player_name is None:
        player_name = player_label(game, result.player)
    best = game.action_to_string(state, result.best_action)
    if isinstance(result, FlatResult):
        value = max(result.values)
        return "\n".join(
            [
                f"best move: {best}",
                f"value: {number_text(value, 3, sign=True)} (for {player_name}, to move; the best "
                "move's mean)",
                f"flat Monte Carlo: {result.playouts:,} games per move, "
                f"{result.playouts * len(result.actions):,} games",
            ]
        )
    pv = " ".join(moves_text(game, state, result.pv)) or "-"
    rate = result.simulations / result.seconds if result.seconds > 0 else math.inf
    rate_text = f"{rate:,.0f}/s" if math.isfinite(rate) else "-"
    lines = [
        f"best move: {best}",
        f"value: {number_text(result.value, 3, sign=True)} (for {player_name}, to move)",
    ]
    if result.proven is not None:
        lines.append(f"proven: {result.proven}")
    lines += [
        f"pv: {pv}",
        f"simulations: {result.simulations:,} in {result.seconds:.2f} s ({rate_text});"
        f" tree: {result.nodes:,} nodes, depth {result.max_depth}",
    ]
    return "\n".join(lines)


__all__ = [
    "PROVEN_LETTERS",
    "PROVEN_STATUS",
    "grids_text",
    "probability_grid_text",
    "proven_grid_text",
    "proven_moves",
    "proven_plies",
    "proven_text",
    "result_text",
    "root_simulations_text",
    "simulations_text",
    "top_moves_text",
    "value_grid_text",
]
