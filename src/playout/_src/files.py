"""Files written whole or not at all: :func:`write_atomic` replaces a file, :func:`append_line`
adds one line to one.

A crash, a full disk or a Ctrl-C leaves either the old contents or the new, never a part:
:func:`write_atomic` writes a temporary file beside the target, flushes it to the disk
(``fsync``) and renames it over the target (the temporary file is removed when anything
fails); :func:`append_line` writes the line with one ``write`` and, when that fails or is
cut short, truncates the file back to where it ended.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO


def temporary_path(path: Path) -> Path:
    """The temporary file :func:`write_atomic` writes before renaming it to ``path``."""
    return path.with_name(path.name + ".tmp")


def write_atomic(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> Path:
    """Replace ``path`` by what ``write(stream)`` writes to a binary stream, atomically.

    Raises:
        OSError: the file cannot be written (no space, no permission, ...); ``path`` is as it
            was and no temporary file is left.
    """
    path = Path(path)
    temporary = temporary_path(path)
    try:
        with temporary.open("wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)
    return path


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`write_atomic` of ``text`` in UTF-8."""
    return write_atomic(path, lambda stream: stream.write(text.encode("utf-8")))


def append_line(path: str | os.PathLike[str], line: str) -> None:
    """Add ``line`` (with its ending ``\\n``) to the end of ``path`` (made if missing) in one
    write, flushed to the disk.

    Raises:
        OSError: the line cannot be written; the file is as it was.
    """
    data = line.encode("utf-8")
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        size = os.fstat(descriptor).st_size
        try:
            written = os.write(descriptor, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))  # cut short
            os.fsync(descriptor)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, size)
            raise
    finally:
        os.close(descriptor)


def _sync_directory(directory: Path) -> None:
    """Flush a rename in ``directory`` to the disk (where the system allows it)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - Windows opens no directories
        return
    try:
        os.fsync(descriptor)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(descriptor)


__all__ = ["append_line", "temporary_path", "write_atomic", "write_text_atomic"]
