"""Typed errors raised by playout.

Every error a user can provoke with bad input derives from :class:`PlayoutError`, so a caller
can catch one class; the more specific classes also derive from the matching built-in
(``ValueError``, ``KeyError``) so ordinary ``except ValueError`` code keeps working.
"""

from __future__ import annotations


class PlayoutError(Exception):
    """Base class of every error playout raises on bad input."""


class GameError(PlayoutError, ValueError):
    """A game breaks the game protocol or its declared :class:`GameSpec`."""


class InvalidParameterError(PlayoutError, ValueError):
    """A parameter is out of range: a negative budget, an impossible board size, ..."""


class UnknownGameError(PlayoutError, KeyError):
    """No game is registered under the requested name."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it a plain sentence.
        return str(self.args[0]) if self.args else "unknown game"


class MoveError(PlayoutError, ValueError):
    """A move could not be parsed, or is not legal in the position."""


class IllegalMoveError(MoveError):
    """A well-formed move that is not legal in the position."""


class MoveParseError(MoveError):
    """A move written in a notation the game does not understand."""


class GameOverError(PlayoutError, ValueError):
    """An operation that needs a position with moves left was given a finished game."""


class MissingDependencyError(PlayoutError, ModuleNotFoundError):
    """An optional dependency (Ray, OpenSpiel, python-chess) is needed but not installed.

    The message names the extra to install, e.g. ``pip install "playout[ray]"``. It is a
    :class:`ModuleNotFoundError` (so an :class:`ImportError`): ``except ImportError`` code and
    ``pytest.importorskip`` treat it as the missing module it reports.
    """


class RecordError(PlayoutError, ValueError):
    """A saved game file is unreadable, malformed or holds an illegal move, or games cannot be
    written to it."""


class ModelFileError(PlayoutError, ValueError):
    """A network file (:mod:`playout.zero`) is missing, unreadable, not a playout model, or
    made for another game; the message names the file."""


class SolverLimitError(PlayoutError, RuntimeError):
    """An exact solver (the connect-four solver) visited its ``max_nodes`` without finishing;
    raise the bound or give up."""


class LabelledDataError(PlayoutError, ValueError):
    """A file of solver-labelled positions (the value-losing-move benchmark's data) is
    unreadable, not such a file, or damaged: its rows do not match the digest in its header,
    or a row is malformed; the message names the file and the row."""


class ExecutorError(PlayoutError, RuntimeError):
    """Where games or searches run failed: no Ray cluster to connect to, a worker process that
    died."""


class EngineError(PlayoutError, RuntimeError):
    """An outside engine played through a protocol (a GTP engine) failed: it could not start,
    exited, answered late or out of protocol, or played an illegal move. The message names the
    engine and the last command sent to it."""


class RunInUseError(PlayoutError, RuntimeError):
    """A training run's directory is being written by another process (another ``playout
    train`` on the same ``--out``); the message names the directory and that process."""


class RunError(ModelFileError):
    """A training run's directory cannot be resumed or written: a file of it is missing,
    damaged, made by a run of another game or size, or cannot be written (a full disk). The
    message names the file and what the user can do (resume from the last good checkpoint, or
    start anew in another directory). A :class:`ModelFileError`, which these were raised as
    before."""


class PlayoutWarning(UserWarning):
    """Something the caller should know about a result: a rollout cut short, a search that
    stopped at its memory bound. Filter it with :mod:`warnings` like any other warning."""


__all__ = [
    "EngineError",
    "ExecutorError",
    "GameError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidParameterError",
    "MissingDependencyError",
    "ModelFileError",
    "MoveError",
    "MoveParseError",
    "PlayoutError",
    "PlayoutWarning",
    "RecordError",
    "RunError",
    "RunInUseError",
    "SolverLimitError",
    "UnknownGameError",
]
