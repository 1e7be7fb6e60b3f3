"""The engine options of a network-guided search, shared by every front end (``--ai zero``
on the command line, ``ai: "zero"`` in the browser app), and the process's shared models.

A model is loaded once per process and file (:func:`shared_model`) and shared by every
search that asks for it: inference only reads the weights, and ONNX Runtime sessions are
thread-safe. Each search gets its own :class:`NetworkEvaluator` (its position cache is not).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from playout._src.shipped import shipped_model_path
from playout.zero.evaluator import NetworkEvaluator
from playout.zero.model import GameSignature, Model
from playout.zero.selfplay import ZeroSearch

_models: dict[tuple[Any, ...], Model] = {}
_models_lock = threading.Lock()
MAX_SHARED_MODELS = 8
"""Models kept by :func:`shared_model` (the oldest is forgotten first)."""


def shared_model(path: str | os.PathLike[str], game: Any, *, device: str | None = None) -> Model:
    """The model in ``path`` for ``game``, loaded once per process (a file rewritten since,
    e.g. by training, is loaded again). Treat it as read-only.

    Raises:
        ModelFileError: the file is missing, bad, or for another game.
    """
    path = Path(path).resolve()
    try:
        stat = path.stat()
        stamp: tuple[int, int] = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = (0, 0)  # Model.load says what is wrong
    key = (str(path), stamp, GameSignature.of(game), device)
    with _models_lock:
        model = _models.get(key)
        if model is None:
            model = Model.load(path, game, device=device)
            # The first prediction builds the ONNX Runtime session (if used) here, under
            # the lock, not in two searches at once.
            model.predict(model.observations([game.initial_state()]))
            model.evaluations = 0
            _models[key] = model
            while len(_models) > MAX_SHARED_MODELS:
                del _models[next(iter(_models))]
    return model


def search_options(
    game: Any, model_path: str | os.PathLike[str] | None = None, *, c: float | None = None
) -> dict[str, Any]:
    """The engine's ``selection``, ``evaluator`` and ``leaf_batch`` for a search guided by
    the network in ``model_path`` (default: the one shipped for ``game``), with PUCT's
    constant ``c`` (default: the one the network was trained with).

    Raises:
        ModelFileError: no network is shipped for ``game``, or the file is bad.
    """
    path = shipped_model_path(game) if model_path is None else model_path
    model = shared_model(path, game)
    search = ZeroSearch(c=model.metadata.get("c", 2.0) if c is None else c)
    config = search.config(NetworkEvaluator(model), None)
    return {
        "selection": config.selection,
        "evaluator": config.evaluator,
        "leaf_batch": config.leaf_batch,
    }


__all__ = ["MAX_SHARED_MODELS", "search_options", "shared_model"]
