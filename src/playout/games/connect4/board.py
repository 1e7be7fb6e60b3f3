"""The connect-four board: the sizes it allows and the ``k``-cell lines through each cell.

The board is the column-major bitboard the game, its kernel and its solver share: column
``c`` occupies bits ``c * (height + 1) .. c * (height + 1) + height - 1``, row 0 at the
bottom, plus one always-empty guard bit above, so that shifts by 1 (vertical), ``height + 1``
(horizontal), ``height + 2`` and ``height`` (the diagonals) never wrap a line between columns.
"""

from __future__ import annotations

from playout._src.errors import InvalidParameterError

MAX_BITS = 512
"""Largest accepted ``width * (height + 1)``."""


def _check_int(name: str, value: object) -> int:
    """``value``, unless it is not an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    if value < 1:
        raise InvalidParameterError(f"{name} must be at least 1, got {value}")
    return value


def check_size(width: object, height: object, k: object) -> tuple[int, int, int]:
    """``(width, height, k)`` of a board the game and its kernels accept.

    Raises:
        InvalidParameterError: a size that is not an integer >= 1, ``k`` longer than both
            sides, or a board of more than :data:`MAX_BITS` bits (``width * (height + 1)``).
    """
    width = _check_int("width", width)
    height = _check_int("height", height)
    k = _check_int("k", k)
    if k > max(width, height):
        raise InvalidParameterError(
            f"k={k} is longer than both sides of a {width}x{height} board; "
            f"k must be at most {max(width, height)}"
        )
    if width * (height + 1) > MAX_BITS:
        raise InvalidParameterError(
            f"a {width}x{height} board is too large: width * (height + 1) must be at most "
            f"{MAX_BITS}, got {width * (height + 1)}"
        )
    return width, height, k


def windows_through_cells(width: int, height: int, k: int) -> tuple[tuple[int, ...], ...]:
    """For each bit index, the bitboard masks of every ``k``-cell line through that cell.

    Indexed by bit position (``column * (height + 1) + row``); the padding bits get ``()``.
    """
    stride = height + 1
    windows: list[list[int]] = [[] for _ in range(width * stride)]
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for c0 in range(width):
            for r0 in range(height):
                if not (0 <= c0 + (k - 1) * dc < width and 0 <= r0 + (k - 1) * dr < height):
                    continue
                cells = [(c0 + i * dc) * stride + r0 + i * dr for i in range(k)]
                window = 0
                for index in cells:
                    window |= 1 << index
                for index in cells:
                    windows[index].append(window)
    return tuple(tuple(ws) for ws in windows)


__all__ = ["MAX_BITS", "check_size", "windows_through_cells"]
