"""Connect-four positions labelled by the exact solver: the value-losing-move benchmark's data.

Each :class:`LabelledPosition` is a running 7x6 position (reached by varied play: uniform
random, blunder-avoiding random, rollout MCTS at a few budgets, the first network shipped
for connect four) with the
exact score (:mod:`playout.games.connect4.solver`) of every legal move, for the player who
makes it; only positions where some legal move loses value (its outcome, win/draw/loss, is
worse for the mover than the best move's) are kept. A move's *outcome* is the sign of its
score; faster or slower wins do not count.

The data file ``labelled_positions.txt`` ships inside the package. It is text: ``#`` comment
lines (the first names the format, one says how it was made, one holds the SHA-256 of the
rows), then one row per position: the moves from the empty board (columns 1-7, as
:meth:`Connect4Game.from_moves` takes them), the play that reached it, and the seven
columns' scores (``x`` for a full column). :func:`labelled_positions` reads it back checked:
a damaged or edited file is a :class:`~playout.LabelledDataError` saying what is wrong.
Made by ``bench/zero_benchmark_positions.py`` (its docstring gives the command).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from playout._src.errors import LabelledDataError, MoveError
from playout.games.connect4.state import Connect4Game, Connect4State

FORMAT = "playout connect-four labelled positions v1"
"""The first line of a data file (after ``# ``)."""

DATA_FILE = "labelled_positions.txt"
"""The shipped data file's name, beside this module."""

STAGES: dict[str, tuple[int, int]] = {"8-14": (8, 14), "15-28": (15, 28), "29+": (29, 42)}
"""Stages by stones on the board (inclusive bounds). Positions with fewer than 8 stones are
not in the set: the exact solver needs minutes for some of them, and opening play is what a
network learns from its own self-play first."""

SOURCES = ("random", "safe", "mcts100", "mcts1000", "zero")
"""The plays that reach the positions: uniform random, blunder-avoiding random (never leaves
an immediate win, never allows one when it can help it), rollout MCTS at 100 and 1,000
simulations, the policy of the first network shipped for connect four (all but ``random``
and ``safe`` after a few random opening moves, with an occasional blunder-avoiding random
move for variety)."""

_GAME = Connect4Game()


def stage_of(stones: int) -> str:
    """The stage (a key of :data:`STAGES`) of a position with ``stones`` stones.

    Raises:
        ValueError: fewer than 8 stones, or more than the board holds.
    """
    for name, (low, high) in STAGES.items():
        if low <= stones <= high:
            return name
    raise ValueError(f"{stones} stones is in no stage (8 to 42)")


@dataclasses.dataclass(frozen=True)
class LabelledPosition:
    """One benchmark position.

    Attributes:
        moves: the moves from the empty board, columns ``"1"``-``"7"``.
        source: the play that reached it (one of :data:`SOURCES`).
        scores: each column's exact score for the mover (solver convention: positive wins,
            larger sooner; 0 a draw), ``None`` for a full column.
    """

    moves: str
    source: str
    scores: tuple[int | None, ...]

    @property
    def stones(self) -> int:
        """Stones on the board."""
        return len(self.moves)

    @property
    def stage(self) -> str:
        """The stage, a key of :data:`STAGES`."""
        return stage_of(self.stones)

    @property
    def outcome(self) -> int:
        """The position's outcome for the mover under perfect play: +1, 0 or -1."""
        return max(_sign(s) for s in self.scores if s is not None)

    @property
    def losing_actions(self) -> frozenset[int]:
        """The value-losing moves (action ids 0-6): outcome worse than the best move's."""
        best = self.outcome
        return frozenset(c for c, s in enumerate(self.scores) if s is not None and _sign(s) < best)

    @property
    def best_actions(self) -> frozenset[int]:
        """The moves of the best score (the quickest win, the slowest loss)."""
        best = max(s for s in self.scores if s is not None)
        return frozenset(c for c, s in enumerate(self.scores) if s == best)

    def state(self) -> Connect4State:
        """The position."""
        return _GAME.from_moves(self.moves)

    def to_row(self) -> str:
        """The data file's row for this position."""
        scores = " ".join("x" if s is None else str(s) for s in self.scores)
        return f"{self.moves} {self.source} {scores}"


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def rows_digest(rows: Sequence[str]) -> str:
    """The SHA-256 (hex) of the rows, each ended by a newline, as the file's header holds it."""
    return hashlib.sha256("".join(f"{row}\n" for row in rows).encode()).hexdigest()


def format_file(positions: Sequence[LabelledPosition], made_by: str) -> str:
    """A data file's text: the header (format, how it was made, the rows' digest), the rows."""
    rows = [p.to_row() for p in positions]
    header = [f"# {FORMAT}", f"# made by: {made_by}", f"# sha256: {rows_digest(rows)}"]
    return "".join(f"{line}\n" for line in header + rows)


def _parse_row(row: str, number: int) -> LabelledPosition:
    where = f"row {number}"
    fields = row.split(" ")
    if len(fields) != 2 + _GAME.width:
        raise LabelledDataError(f"{where}: {len(fields)} fields, expected {2 + _GAME.width}")
    moves, source, *texts = fields
    if source not in SOURCES:
        raise LabelledDataError(f"{where}: unknown source {source!r}")
    try:
        scores = tuple(None if t == "x" else int(t) for t in texts)
        state = _GAME.from_moves(moves)
    except (ValueError, MoveError) as error:
        raise LabelledDataError(f"{where}: {error}") from None
    position = LabelledPosition(moves, source, scores)
    if state.is_terminal():
        raise LabelledDataError(f"{where}: the game is over")
    legal = set(state.legal_actions())
    if {c for c, s in enumerate(scores) if s is not None} != legal:
        raise LabelledDataError(f"{where}: scores do not match the legal moves {sorted(legal)}")
    if position.stones < STAGES["8-14"][0]:
        raise LabelledDataError(f"{where}: {position.stones} stones, fewer than 8")
    if not position.losing_actions:
        raise LabelledDataError(f"{where}: no move loses value")
    return position


def read_positions(path: str | Path) -> tuple[LabelledPosition, ...]:
    """The positions of a data file, checked: its format line, its rows' digest, and every
    row (legal moves, a score for exactly the legal columns, a stage, a value-losing move).

    Raises:
        LabelledDataError: a file that cannot be read or fails a check, saying which.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LabelledDataError(f"cannot read labelled positions {path}: {error}") from None
    return _parse(text, str(path))


def _parse(text: str, name: str) -> tuple[LabelledPosition, ...]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header = [line[2:] for line in lines if line.startswith("# ")]
    rows = [line for line in lines if not line.startswith("#")]
    if not header or header[0] != FORMAT:
        raise LabelledDataError(f"{name}: not a labelled-positions file (first line {FORMAT!r})")
    digests = [h.removeprefix("sha256: ") for h in header if h.startswith("sha256: ")]
    if len(digests) != 1 or digests[0] != rows_digest(rows):
        raise LabelledDataError(f"{name}: damaged (the rows' SHA-256 does not match the header)")
    try:
        positions = tuple(_parse_row(row, number) for number, row in enumerate(rows, 1))
    except LabelledDataError as error:
        raise LabelledDataError(f"{name}: {error}") from None
    if len({p.moves for p in positions}) != len(positions):
        raise LabelledDataError(f"{name}: a position is listed twice")
    return positions


@functools.cache
def labelled_positions() -> tuple[LabelledPosition, ...]:
    """The shipped benchmark positions, in file order (read and checked once per process).

    Raises:
        LabelledDataError: the shipped file is damaged.
    """
    try:
        text = resources.files(__package__).joinpath(DATA_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LabelledDataError(
            f"cannot read the shipped labelled positions {DATA_FILE} ({error}); reinstall playout"
        ) from None
    return _parse(text, DATA_FILE)
