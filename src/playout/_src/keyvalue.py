"""Options written ``key=value,key=value``, as in player specs (``mcts:simulations=200``).

Shared by the arena's player specs and OpenSpiel's bot (:mod:`playout.interop.openspiel_bot`),
so every player reports a bad option with the same one-line message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from playout._src.errors import InvalidParameterError

YES = ("yes", "true", "1", "on")
"""Words read as ``True`` by :func:`parse_yes_no` (any case)."""

NO = ("no", "false", "0", "off")
"""Words read as ``False`` by :func:`parse_yes_no` (any case)."""


def parse_number(key: str, text: str, kind: type) -> Any:
    """``text`` as a ``kind`` (``int`` or ``float``, finite) for option ``key``.

    Raises:
        InvalidParameterError: not a number of that kind.
    """
    try:
        value = kind(text)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise InvalidParameterError(f"{key} must be {noun}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise InvalidParameterError(f"{key} must be a finite number, got {text!r}")
    return value


def parse_yes_no(key: str, text: str) -> bool:
    """``text`` as a yes/no value of option ``key`` (see :data:`YES`, :data:`NO`).

    Raises:
        InvalidParameterError: neither a yes nor a no word.
    """
    lowered = text.lower()
    if lowered not in YES + NO:
        raise InvalidParameterError(f"{key} must be yes or no, got {text!r}")
    return lowered in YES


def parse_key_values(text: str, kind: str, keys: Sequence[str]) -> dict[str, str]:
    """``key=value`` pairs separated by commas, keys checked against ``keys``.

    ``kind`` names the player in messages. Keys are read in lower case; empty items are
    skipped.

    Raises:
        InvalidParameterError: an item without ``=`` or value, an unknown key, a key twice.
    """
    values: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not sep or not value:
            raise InvalidParameterError(f"expected key=value in player options, got {item!r}")
        if key not in keys:
            raise InvalidParameterError(f"unknown {kind} option {key!r}; known: {', '.join(keys)}")
        if key in values:
            raise InvalidParameterError(f"{kind} option {key!r} given twice")
        values[key] = value
    return values


__all__ = ["NO", "YES", "parse_key_values", "parse_number", "parse_yes_no"]
