"""playout zero: AlphaZero-style search and training (needs ``pip install "playout[zero]"``).

* :class:`Model`: a residual policy/value network for a game (PyTorch), batched inference,
  model files that say which game they are for.
* :class:`NetworkEvaluator`: the network as the search's evaluator; any search given one runs
  on the batched driver (leaves collected with virtual loss, one network call per batch).
* :func:`self_play`: many games searched in lockstep, one network call per step, played and
  recorded as a :class:`SelfPlaySettings` says.
* :class:`Trainer` / :class:`TrainConfig`: the training loop with checkpoints and resume
  (``playout train``).
* :class:`ZeroPlayer`: the arena's and the command line's ``zero`` player.
* :func:`search_options`: the engine options of ``--ai zero`` and the browser's zero AI
  (models loaded once per process by :func:`shared_model`).
"""

from playout._src.shipped import shipped_model_path
from playout.zero.evaluator import NetworkEvaluator, masked_softmax
from playout.zero.model import Architecture, GameSignature, Model, PolicyValueNet
from playout.zero.options import search_options, shared_model
from playout.zero.player import ZeroPlayer
from playout.zero.selfplay import (
    Example,
    PlayoutCap,
    SelfPlayGame,
    SelfPlaySettings,
    ZeroSearch,
    self_play,
)
from playout.zero.train import IterationReport, ReplayBuffer, TrainConfig, Trainer

__all__ = [
    "Architecture",
    "Example",
    "GameSignature",
    "IterationReport",
    "Model",
    "NetworkEvaluator",
    "PlayoutCap",
    "PolicyValueNet",
    "ReplayBuffer",
    "SelfPlayGame",
    "SelfPlaySettings",
    "TrainConfig",
    "Trainer",
    "ZeroPlayer",
    "ZeroSearch",
    "masked_softmax",
    "search_options",
    "self_play",
    "shared_model",
    "shipped_model_path",
]
