"""Games and positions from the command line: ``GAME --width --height --k --size --komi
--fen`` and ``--moves``."""

from __future__ import annotations

import argparse
from typing import Any

import playout
from playout import render
from playout._src.errors import GameOverError, MoveError


def make_game(args: argparse.Namespace) -> Any:
    """The game named by ``args.game`` with the parameters given on the command line."""
    params = {
        name: getattr(args, name)
        for name in ("width", "height", "k", "size", "komi", "fen")
        if getattr(args, name, None) is not None
    }
    return playout.make_game(args.game, **params)


def is_column_game(game: Any) -> bool:
    """Whether ``game``'s actions are the columns of a board (connect four)."""
    shape = render.grid_shape(game)
    return shape is not None and shape[1] == 1 and getattr(game, "height", 1) > 1


def parse_moves(game: Any, text: str, state: Any = None) -> tuple[Any, list[int]]:
    """The position after ``text`` (space-separated moves) and the actions played.

    Moves are played from ``state`` (default the initial position). For column games up to
    9 columns wide (connect four) a token of several digits is one move per digit, so
    ``4453`` is columns 4, 4, 5, 3.

    Raises:
        MoveError: a move that cannot be read or is illegal (the message says which).
        GameOverError: a move after the end of the game.
    """
    if state is None:
        state = game.initial_state()
    tokens: list[str] = []
    split_digits = is_column_game(game) and game.width <= 9
    for token in text.split():
        if split_digits and token.isdecimal() and len(token) > 1:
            tokens.extend(token)
        else:
            tokens.append(token)
    actions: list[int] = []
    for index, token in enumerate(tokens, start=1):
        if state.is_terminal():
            raise GameOverError(f"move {index} ({token!r}): the game is already over")
        try:
            action = game.string_to_action(state, token)
        except MoveError as error:
            raise type(error)(f"move {index} ({token!r}): {error}") from None
        state = state.play(action)
        actions.append(action)
    return state, actions


__all__ = ["is_column_game", "make_game", "parse_moves"]
