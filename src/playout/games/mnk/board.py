"""The m,n,k board: the sizes it allows and the lines of ``k`` squares through each square.

The board is the padded bitboard the game, its kernel and its threat heuristic share: square
``(x, y)`` (column ``x`` from the left, row ``y`` from the top) is bit
``y * (width + 1) + x``, the last bit of each row always empty so that shifts by 1, ``width``,
``width + 1`` and ``width + 2`` never wrap a line from one row into the next; its action id
is ``y * width + x``.
"""

from __future__ import annotations

from playout._src.errors import InvalidParameterError

MAX_SIDE = 32
"""Largest accepted board width or height."""


def _check_size(name: str, value: object, low: int, high: int) -> int:
    """``value``, unless it is not an integer in ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise InvalidParameterError(f"{name} must be in {low}..{high}, got {value}")
    return value


def check_size(width: object, height: object, k: object) -> tuple[int, int, int]:
    """``(width, height, k)`` of a board the game and its kernel accept.

    Raises:
        InvalidParameterError: a side outside 1..:data:`MAX_SIDE`, or ``k`` outside
            ``1..max(width, height)``.
    """
    width = _check_size("width", width, 1, MAX_SIDE)
    height = _check_size("height", height, 1, MAX_SIDE)
    k = _check_size("k", k, 1, MAX_SIDE)
    if k > max(width, height):
        raise InvalidParameterError(
            f"k={k} is longer than both sides of a {width}x{height} board; "
            f"k must be at most {max(width, height)}"
        )
    return width, height, k


def windows_through_squares(width: int, height: int, k: int) -> tuple[tuple[int, ...], ...]:
    """For each action id, the padded-bitboard masks of every k-square line through it.

    ``play()`` only has to test the lines through the square just filled: a win is
    ``stones & window == window`` for one of them.
    """
    stride = width + 1
    windows: list[list[int]] = [[] for _ in range(width * height)]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for y0 in range(height):
            for x0 in range(width):
                if not (0 <= x0 + (k - 1) * dx < width and 0 <= y0 + (k - 1) * dy < height):
                    continue
                squares = [(x0 + i * dx, y0 + i * dy) for i in range(k)]
                window = 0
                for x, y in squares:
                    window |= 1 << (y * stride + x)
                for x, y in squares:
                    windows[y * width + x].append(window)
    return tuple(tuple(ws) for ws in windows)


__all__ = ["MAX_SIDE", "check_size", "windows_through_squares"]
