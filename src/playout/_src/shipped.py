"""The networks shipped with playout (``playout/zero/models/``), found without importing
PyTorch: the browser app asks which games have one before anything loads it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from playout._src.errors import ModelFileError


def shipped_model_name(game: Any) -> str:
    """The file name a shipped network for ``game`` has, e.g. ``connect4-7x6-4.pt``."""
    width, height, k = (getattr(game, a, None) for a in ("width", "height", "k"))
    if width is None:
        return f"{game.spec.name}.pt"
    return f"{game.spec.name}-{width}x{height}-{k}.pt"


def shipped_model_path(game: Any) -> Path:
    """The file of the network shipped for ``game`` (by its registry name and board size).

    Raises:
        ModelFileError: no network is shipped for this game.
    """
    name = shipped_model_name(game)
    # ``playout`` (not ``playout.zero``, whose import needs PyTorch) locates the folder.
    path = Path(str(resources.files("playout") / "zero" / "models" / name))
    if not path.is_file():
        if not trainable(game):
            raise ModelFileError(
                f"no network is shipped for {game.spec.name}, and none can be trained for it "
                "(a network needs the game's observation_shape, its states' observation() and "
                "a fixed num_actions): play it with rollouts (--ai mcts)"
            )
        raise ModelFileError(
            f"no network is shipped for {game.spec.name} with these parameters ({name}); "
            "train one with `playout train` and give its model.pt (--model, or model= in a "
            "player spec)"
        )
    return path


def trainable(game: Any) -> bool:
    """Whether a network can be made for ``game``: it declares an ``observation_shape`` and a
    fixed ``num_actions``, and its states have ``observation()`` (see
    ``playout.zero.model.GameSignature``)."""
    return (
        getattr(game, "observation_shape", None) is not None
        and game.spec.num_actions is not None
        and hasattr(game.initial_state(), "observation")
    )


__all__ = ["shipped_model_name", "shipped_model_path", "trainable"]
