"""How every text picture writes a number: fixed decimals, never a negative zero.

A value that rounds to zero at the decimals shown is written ``0.00`` (``+0.00`` with a sign),
never ``-0.00``: a draw, or a mean of ``-0.001``, is not a loss. A count is written with
thousands separators and its noun in the singular or plural (``1 simulation``,
``1,000 simulations``).
"""

from __future__ import annotations


def number_text(value: float, decimals: int = 2, *, sign: bool = False) -> str:
    """``value`` with ``decimals`` digits after the point, ``+`` before a positive one when
    ``sign``; one that rounds to zero carries no minus sign.

    >>> number_text(-0.001), number_text(-0.0, sign=True), number_text(-0.26, 1, sign=True)
    ('0.00', '+0.00', '-0.3')
    """
    text = f"{value:{'+' if sign else ''}.{decimals}f}"
    if text.startswith("-") and float(text) == 0.0:
        text = ("+" if sign else "") + text[1:]
    return text


def count_text(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with thousands separators and ``noun``, plural (``plural``, default
    ``noun + "s"``) unless ``count`` is 1: ``1 simulation``, ``1,000 simulations``,
    ``3 plies``."""
    word = noun if count == 1 else (plural if plural is not None else noun + "s")
    return f"{count:,} {word}"


__all__ = ["count_text", "number_text"]
