"""Saved games: one JSON object per line, written as games end and read back checked.

:func:`record_to_json` turns a :class:`~playout._src.arena.play.GameRecord` into a line,
:class:`RecordWriter` appends lines safely, :func:`read_records` reads a file back and replays
every game move by move into :class:`SavedGame` objects.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from playout._src.arena.play import GameRecord, resignation_returns
from playout._src.errors import InvalidParameterError, PlayoutError, RecordError
from playout._src.game import Game, GameState
from playout._src.registry import game_params, make_game

RECORD_FORMAT = "playout-game/1"
"""The ``format`` field of a saved game line (see :func:`record_to_json`)."""


def _move_texts(game: Game, actions: tuple[int, ...]) -> list[str]:
    """Every action of a game in the game's notation, replayed from the initial position."""
    state = game.initial_state()
    moves = []
    for action in actions:
        moves.append(game.action_to_string(state, action))
        state = state.play(action)
    return moves


def record_to_json(
    game: Game, record: GameRecord, *, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """One game as a JSON-ready object (one line of a saved file).

    Keys: ``format`` (:data:`RECORD_FORMAT`), ``game`` and ``params`` (for
    :func:`~playout.make_game`), ``index``, ``seed``, ``players`` (player 0 first),
    ``actions`` (ids), ``moves`` (the game's notation), ``returns``, ``winner`` (player id or
    null), ``result`` (``1-0``, ``0-1``, ``1/2-1/2``), ``seconds``, ``opening`` (how many of the
    first actions were a given opening; only when there was one), ``resigned`` (the player
    who resigned; only when one did), ``score_checks`` (results other programs reported, see
    :class:`~playout._src.arena.play.ScoreCheck`; only when there are some), then ``extra``.
    """
    data: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "game": game.spec.name,
        "params": game_params(game),
        "index": record.index,
        "seed": record.seed,
        "players": list(record.players),
        "actions": list(record.actions),
        "moves": _move_texts(game, record.actions),
        "returns": list(record.returns),
        "winner": record.winner,
        "result": record.result_text,
        "seconds": round(record.seconds, 4),
    }
    if record.opening:
        data["opening"] = record.opening  # the first actions were a given opening
    if record.resigned is not None:
        data["resigned"] = record.resigned
    if record.score_checks:
        data["score_checks"] = [check.as_dict() for check in record.score_checks]
    if extra:
        data.update(extra)
    return data


def check_writable(path: str | os.PathLike[str]) -> None:
    """Refuse a save file that cannot be written, without creating or changing it.

    Raises:
        InvalidParameterError: ``path`` is a directory, or not writable, or its directory
            does not exist or is not writable.
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidParameterError(f"cannot write {str(path)!r}: it is a directory")
    if target.exists():
        if not os.access(target, os.W_OK):
            raise InvalidParameterError(f"cannot write {str(path)!r}: permission denied")
        return
    folder = target.parent
    if not folder.is_dir():
        raise InvalidParameterError(f"cannot write {str(path)!r}: no directory {str(folder)!r}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidParameterError(
            f"cannot write {str(path)!r}: directory {str(folder)!r} is not writable"
        )


class RecordWriter:
    """Appends one JSON line per game to a file, synced to disk as each game ends.

    A line is written whole (unbuffered) before the next one starts, so an interrupted run
    leaves every finished game readable. The file is appended to (a last line left without
    its newline by an earlier, interrupted run is ended first), or emptied first with
    ``overwrite=True``. A write that fails (a full disk) is undone as far as the file allows
    (the partial line cut off) and raises :class:`~playout.RecordError`; the lines written
    before stay.

    Raises:
        InvalidParameterError: the file cannot be opened for writing.
    """

    def __init__(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
        self.path = Path(path)
        self.written = 0
        """Games written by this writer."""
        try:
            mode = "wb" if overwrite else "ab"
            self._file: IO[bytes] = open(self.path, mode, buffering=0)  # noqa: SIM115
        except OSError as error:
            raise InvalidParameterError(f"cannot write {str(path)!r}: {error.strerror}") from None
        if not overwrite:
            self._end_last_line()

    def _end_last_line(self) -> None:
        """Start on a new line when the file ends in the middle of one."""
        try:
            size = os.fstat(self._file.fileno()).st_size
            if size == 0 or not self.path.is_file():
                return
            with open(self.path, "rb") as reader:
                reader.seek(size - 1)
                last = reader.read(1)
        except OSError:
            return
        if last != b"\n":
            self._write_bytes(b"\n")

    def _write_bytes(self, data: bytes) -> None:
        """Write ``data`` whole; on failure cut the file back and raise RecordError."""
        fileno = self._file.fileno()
        try:
            before: int | None = os.lseek(fileno, 0, os.SEEK_END)
        except OSError:
            before = None
        try:
            view = memoryview(data)
            while view:
                count = self._file.write(view)
                if not count:
                    raise OSError(errno.EIO, os.strerror(errno.EIO))
                view = view[count:]
            if self.path.is_file():
                os.fsync(fileno)
        except OSError as error:
            if before is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(fileno, before)
            reason = error.strerror or str(error)
            kept = f"; the {self.written} game(s) written before are kept" if self.written else ""
            raise RecordError(f"cannot write games to {str(self.path)!r}: {reason}{kept}") from None

    def write(self, data: Mapping[str, Any]) -> None:
        """Append ``data`` as one line, synced to disk.

        Raises:
            RecordError: the line could not be written (the file keeps the lines before it).
        """
        self._write_bytes((json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8"))
        self.written += 1

    def close(self) -> None:
        """Close the file."""
        with contextlib.suppress(OSError):
            self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def is_sgf_path(path: str | os.PathLike[str]) -> bool:
    """Whether games saved to ``path`` are written as SGF (its name ends in ``.sgf``)."""
    return str(path).lower().endswith(".sgf")


class SgfWriter(RecordWriter):
    """Appends each game of a match to an SGF collection (a Go game tree per game, written
    and synced as it ends, like :class:`RecordWriter`'s lines); see
    :mod:`playout.games.go.sgf`.

    Raises:
        InvalidParameterError: a game that is not Go, or a file that cannot be written.
        MissingDependencyError: sgfmill is not installed (``pip install "playout[go]"``).
    """

    def __init__(self, path: str | os.PathLike[str], game: Game, *, overwrite: bool = False):
        from playout.games.go import GoGame
        from playout.games.go.sgf import game_to_sgf

        check_save_format(path, game, overwrite=overwrite)
        assert isinstance(game, GoGame)  # checked just above
        self._game = game
        self._to_sgf = game_to_sgf
        game_to_sgf(game, ())  # sgfmill missing: fail before the file is touched
        super().__init__(path, overwrite=overwrite)

    def write(self, data: Mapping[str, Any]) -> None:
        """Append the game of ``data`` (a :func:`record_to_json` object) as a game tree.

        Raises:
            RecordError: the game could not be written (the file keeps the games before it).
        """
        names = tuple(data.get("players", ("", "")))
        players = (str(names[0]), str(names[1])) if len(names) == 2 else ("", "")
        tree = self._to_sgf(
            self._game, data["actions"], players=players, resigned=data.get("resigned")
        )
        self._write_bytes(tree)
        self.written += 1


def check_save_format(path: str | os.PathLike[str], game: Game, *, overwrite: bool = False) -> None:
    """Refuse, before any game is played, a ``.sgf`` save file for a game that is not Go, and
    a file to append to (``overwrite`` false) that is not a file of saved games.

    A file to append to must be empty, missing, or begin like its format: a JSON object for
    JSON lines, an SGF game tree (``(``) for ``.sgf``. Anything else is the user's other
    file, which games must not be appended to.

    Raises:
        InvalidParameterError: an SGF name for another game, or a file of something else.
    """
    from playout.games.go import GoGame

    sgf = is_sgf_path(path)
    if sgf and not isinstance(game, GoGame):
        raise InvalidParameterError(
            f"SGF files hold Go games, not {game.spec.name}: save to a .jsonl file"
        )
    if overwrite:
        return
    first = _first_line(Path(path))
    if not first.strip():
        return
    if sgf:
        games_file = first.lstrip().startswith(b"(")
    else:
        try:
            games_file = isinstance(json.loads(first), dict)
        except ValueError:
            games_file = False
    if not games_file:
        kind = "SGF game records" if sgf else "saved games (JSON lines)"
        raise InvalidParameterError(
            f"{os.fspath(path)!r} is not a file of {kind}: games are not appended to it; "
            "save to another file (--overwrite would replace it)"
        )


def _first_line(path: Path, limit: int = 1 << 20) -> bytes:
    """The file's first line (at most ``limit`` bytes); empty when it is missing, empty or not
    a regular file (a device or a pipe is written to as it is)."""
    try:
        if not path.is_file():
            return b""
        with open(path, "rb") as reader:
            return reader.readline(limit)
    except OSError:
        return b""


def open_writer(
    path: str | os.PathLike[str], game: Game, *, overwrite: bool = False
) -> RecordWriter:
    """The writer of saved games for ``path``: :class:`SgfWriter` for a ``.sgf`` name, else
    :class:`RecordWriter` (JSON lines)."""
    if is_sgf_path(path):
        return SgfWriter(path, game, overwrite=overwrite)
    return RecordWriter(path, overwrite=overwrite)


@dataclasses.dataclass(frozen=True)
class SavedGame:
    """A game read back from a saved file, checked move by move.

    Attributes:
        line: its line number in the file (1-based).
        data: the JSON object as written.
        game: the game rebuilt from ``data["game"]`` and ``data["params"]``.
        states: every position, the initial one first and the final one last.
    """

    line: int
    data: Mapping[str, Any]
    game: Game
    states: tuple[GameState, ...]

    @property
    def index(self) -> int:
        """The game's number in its match (its ``index`` field, else its line order)."""
        return int(self.data.get("index", self.line - 1))

    @property
    def actions(self) -> tuple[int, ...]:
        """Every action played, in order."""
        return tuple(self.data["actions"])


def _read_text(path: str | os.PathLike[str]) -> str:
    """The file's text.

    Raises:
        RecordError: the file cannot be read or is not UTF-8.
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise RecordError(f"cannot read {str(path)!r}: {reason}") from None


class TruncatedLine(RecordError):
    """A line that ends before its JSON does: the last game of an interrupted write."""


def _parse_line(line: str, where: str) -> tuple[dict[str, Any], Game, list[int]]:
    """One line's JSON object, the game it names and its actions (not yet replayed).

    Raises:
        RecordError: bad JSON, a missing or ill-typed field, or an unknown game.
    """
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        # Cut short: the text ends inside a string or before a value closes.
        if error.msg.startswith("Unterminated string") or error.pos >= len(line.rstrip()):
            raise TruncatedLine(f"{where}: cut short ({error.msg})") from None
        raise RecordError(f"{where}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise RecordError(f"{where}: JSON nested too deeply") from None
    except ValueError as error:  # a number of more digits than Python converts
        raise RecordError(f"{where}: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise RecordError(f"{where}: expected a JSON object")
    name, params, actions = data.get("game"), data.get("params", {}), data.get("actions")
    if not isinstance(name, str):
        raise RecordError(f"{where}: missing 'game' (the game's name)")
    if not isinstance(params, dict):
        raise RecordError(f"{where}: 'params' must be an object")
    if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
        raise RecordError(f"{where}: 'actions' must be a list of action ids")
    for key, value in params.items():
        if not isinstance(value, int | float | str | bool):
            raise RecordError(
                f"{where}: 'params' field {key!r} must be a number or a string, got {_shown(value)}"
            )
    try:
        game = make_game(name, **params)
    except PlayoutError as error:
        raise RecordError(f"{where}: {error}") from None
    except (TypeError, ValueError) as error:  # a parameter of the wrong type
        raise RecordError(f"{where}: 'params' do not make a {name} game ({error})") from None
    _check_fields(data, game.spec.num_players, where)
    return data, game, actions


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _shown(value: object) -> str:
    """A short JSON rendering of a bad value for a message."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_fields(data: Mapping[str, Any], players: int, where: str) -> None:
    """Check the optional fields :func:`record_to_json` writes, when present, for their
    types (``players`` is the game's number of players).

    Raises:
        RecordError: the first field of the wrong type, named with the line.
    """

    def list_of(kind: str, test: Any, length: int | None = None) -> Any:
        def check(value: object) -> bool:
            if not isinstance(value, list) or not all(test(item) for item in value):
                return False
            return length is None or len(value) == length

        count = "" if length is None else f"{length} "
        return check, f"a list of {count}{kind}"

    checks: dict[str, tuple[Any, str]] = {
        "format": (lambda v: isinstance(v, str), "a string"),
        "index": (lambda v: _is_int(v) and v >= 0, "a whole number >= 0"),
        "seed": (lambda v: v is None or _is_int(v), "a whole number or null"),
        "players": list_of("strings", lambda v: isinstance(v, str), players),
        "moves": list_of("strings", lambda v: isinstance(v, str)),
        "returns": list_of("numbers", _is_number, players),
        "winner": (lambda v: v is None or (_is_int(v) and 0 <= v < players), "a player or null"),
        "result": (lambda v: isinstance(v, str), "a string"),
        "seconds": (lambda v: _is_number(v) and v >= 0, "a number >= 0"),
        "p1": (lambda v: isinstance(v, str), "a string"),
        "p2": (lambda v: isinstance(v, str), "a string"),
        "seats": list_of("whole numbers", _is_int, 2),
        "opening": (
            lambda v: _is_int(v) and 0 <= v <= len(data["actions"]),
            "a whole number from 0 to the number of actions",
        ),
        "resigned": (lambda v: _is_int(v) and 0 <= v < players, "a player"),
        "score_checks": (
            lambda v: isinstance(v, list) and all(isinstance(c, dict) for c in v),
            "a list of objects",
        ),
    }
    for key, (check, expected) in checks.items():
        if key in data and not check(data[key]):
            raise RecordError(f"{where}: field {key!r} must be {expected}, got {_shown(data[key])}")
    if "moves" in data and len(data["moves"]) != len(data["actions"]):
        raise RecordError(
            f"{where}: field 'moves' has {len(data['moves'])} moves for "
            f"{len(data['actions'])} actions"
        )


def _replay(
    game: Game, actions: list[int], where: str, *, resigned: bool = False
) -> list[GameState]:
    """Every position of the game ``actions`` play from the initial one, which must end it
    (unless a player ``resigned``).

    Raises:
        RecordError: an illegal move, a move after the end, or a game left unfinished.
    """
    state = game.initial_state()
    states = [state]
    for move, action in enumerate(actions, start=1):
        if state.is_terminal() or action not in state.legal_actions():
            reason = "the game is already over" if state.is_terminal() else "illegal"
            raise RecordError(f"{where}: move {move} (action {action}): {reason}")
        state = state.play(action)
        states.append(state)
    if not state.is_terminal() and not resigned:
        raise RecordError(f"{where}: the game does not end after {len(actions)} moves")
    return states


def _check_returns(data: Mapping[str, Any], final: GameState, where: str) -> None:
    """Refuse a line whose ``returns`` (when given) differ from the final position's."""
    returns = data.get("returns")
    resigned = data.get("resigned")
    expected = (
        final.returns()
        if resigned is None
        else resignation_returns(2, int(resigned))  # a match is for two players
    )
    if returns is not None and [float(r) for r in returns] != [float(r) for r in expected]:
        raise RecordError(f"{where}: 'returns' {returns} do not match the final position")


def _skipped_text(numbers: list[int]) -> str:
    """What the lines cut short were, for a message."""
    plural = "s" if len(numbers) > 1 else ""
    listed = ", ".join(str(n) for n in numbers)
    return f"line{plural} {listed} cut short: a game whose writing was interrupted"


def read_records(
    path: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None
) -> list[SavedGame]:
    """Read and check a file written by :class:`RecordWriter` (blank lines are skipped).

    Every line must be a JSON object with ``game`` (a registered name), ``params`` (an object)
    and ``actions`` (a list of action ids legal in turn from the initial position, ending the
    game); ``returns``, when present, must match the final position, and the other fields
    :func:`record_to_json` writes must have their types when present.

    A line cut short (its JSON ends before the object closes: the game being written when a
    run was interrupted) is skipped: ``warn`` is called with a message naming it (default:
    :func:`warnings.warn`), and the intact games are returned.

    Raises:
        RecordError: an unreadable file, bad JSON, a missing or ill-typed field (the message
            names the line and the field), an unknown game, an illegal move, or no intact
            game in the file.
        InvalidParameterError: ``path`` is not a file path (a string or a path object).
    """
    if not isinstance(path, str | os.PathLike):
        raise InvalidParameterError(f"path must be a file path, got {path!r}")
    if is_sgf_path(path):
        return _read_sgf(path)
    text = _read_text(path)
    games: list[SavedGame] = []
    skipped: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            data, game, actions = _parse_line(line, where)
        except TruncatedLine:
            skipped.append(number)
            continue
        states = _replay(game, actions, where, resigned=data.get("resigned") is not None)
        _check_returns(data, states[-1], where)
        games.append(SavedGame(line=number, data=data, game=game, states=tuple(states)))
    if not games:
        if skipped:
            raise RecordError(f"{path}: no intact games in the file ({_skipped_text(skipped)})")
        raise RecordError(f"{path}: no games in the file")
    if skipped:
        message = f"{path}: skipped {_skipped_text(skipped)}"
        if warn is None:
            warnings.warn(message, stacklevel=2)
        else:
            warn(message)
    return games


def _read_sgf(path: str | os.PathLike[str]) -> list[SavedGame]:
    """The Go games of an SGF file as :class:`SavedGame` values (``data`` holds what SGF
    says: players, actions, moves, result, resignation).

    Raises:
        RecordError: an unreadable file, malformed SGF or an illegal move.
    """
    from playout.games.go.sgf import games_from_sgf

    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise RecordError(f"cannot read {str(path)!r}: {error.strerror or error}") from None
    games = []
    for number, record in enumerate(games_from_sgf(raw, str(path)), start=1):
        data: dict[str, Any] = {
            "format": "sgf",
            "game": record.game.spec.name,
            "params": game_params(record.game),
            "index": number - 1,
            "players": list(record.players),
            "actions": list(record.actions),
            "moves": _move_texts(record.game, record.actions),
            "result": record.result,
        }
        if record.resigned is not None:
            data["resigned"] = record.resigned
        games.append(SavedGame(line=number, data=data, game=record.game, states=record.states))
    return games


__all__ = [
    "RECORD_FORMAT",
    "RecordWriter",
    "SavedGame",
    "SgfWriter",
    "check_writable",
    "game_params",
    "is_sgf_path",
    "open_writer",
    "read_records",
    "record_to_json",
]
