"""Text of a position: the players' names, the board, the outcome, a line of moves.

Pure functions that return strings; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from playout._src.game import CHANCE, GameState
from playout.render.grids import grid_shape

SYMBOLS = ("X", "O")
"""How the built-in grid games draw player 0's and player 1's stones (their names may differ:
see :func:`board_legend`)."""


def moves_text(game: Any, state: GameState, actions: Sequence[int]) -> list[str]:
    """Notation of a line of actions played in turn from ``state`` (stops at an illegal one)."""
    moves: list[str] = []
    for action in actions:
        if state.is_terminal() or action not in state.legal_actions():
            break
        moves.append(game.action_to_string(state, action))
        state = state.play(action)
    return moves


def player_label(game: Any, player: int) -> str:
    """The name of ``player`` in ``game``: ``game.spec.player_name(player)`` (``X``/``O`` in
    the m,n,k games, ``Red``/``Yellow`` in connect four, ``White``/``Black`` in chess);
    ``the player`` in a one-player game; ``chance`` for :data:`~playout.CHANCE` (the dice of
    Pig)."""
    if player == CHANCE:
        return "chance"
    spec = game.spec
    if spec.num_players == 1:
        return "the player"
    names = getattr(spec, "player_names", None)
    if names and 0 <= player < len(names):
        return str(names[player])
    return SYMBOLS[player] if 0 <= player < len(SYMBOLS) else f"player {player}"


def board_legend(game: Any) -> str:
    """One line naming the players a board draws as ``X`` and ``O``, when their names are
    others (connect four: ``X = Red, O = Yellow``); empty otherwise.

    The built-in grid games (those with a :func:`grid_shape`) draw player 0's stones ``X``
    and player 1's ``O``; a game can say what its boards draw with a ``symbols`` attribute
    (one string per player). Games without either (chess) get no legend.
    """
    if game.spec.num_players != 2:
        return ""
    symbols = getattr(game, "symbols", None)
    if symbols is None:
        if grid_shape(game) is None:
            return ""
        symbols = SYMBOLS
    names = tuple(player_label(game, player) for player in (0, 1))
    if tuple(symbols) == names:
        return ""
    return ", ".join(f"{symbol} = {name}" for symbol, name in zip(symbols, names, strict=True))


def board_text(game: Any, state: GameState) -> str:
    """The game's own picture of ``state`` (``game.render(state)``), else ``str(state)``;
    followed by the :func:`board_legend` line when the board draws the players under other
    names than theirs (connect four: ``X = Red, O = Yellow``)."""
    render_fn = getattr(game, "render", None)
    text = render_fn(state) if render_fn is not None else str(state)
    legend = board_legend(game)
    return f"{text}\n{legend}" if legend else text


def outcome_text(game: Any, state: GameState) -> str:
    """Who won a finished game: ``X wins``, ``Black wins``, ``draw`` (the players'
    :func:`player_label`), or the one player's return."""
    returns = tuple(state.returns())
    if game.spec.num_players == 1:
        return f"game over: return {returns[0] + 0.0:+g}"  # no -0
    if returns[0] > returns[1]:
        return f"{player_label(game, 0)} wins"
    if returns[1] > returns[0]:
        return f"{player_label(game, 1)} wins"
    return "draw"


__all__ = [
    "SYMBOLS",
    "board_legend",
    "board_text",
    "moves_text",
    "outcome_text",
    "player_label",
]
