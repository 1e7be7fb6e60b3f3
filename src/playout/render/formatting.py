"""How every text picture writes a number: fixed decimals, never a negative zero.

A value that rounds to zero at the decimals shown is written ``0.00`` (``+0.00`` with a sign),
never ``-0.00``: a draw, or a mean of ``-0.001``, is not a loss.
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


__all__ = ["number_text"]
