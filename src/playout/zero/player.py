"""A network-guided player for the arena and the command line (spec ``zero[:options]``).

``zero`` plays with the network shipped for the game (``playout/zero/models/``);
``zero:model=PATH`` with a trained one. Options: ``simulations=N`` (default 400; 0 plays the
policy's most probable move with no search), ``seconds=S``, ``c=X``, ``batch=N`` (leaves per
network call), ``device=cpu|cuda``, ``symmetries=yes|no`` (the network's outputs averaged over
the board's symmetric images, :class:`~playout.zero.NetworkEvaluator`; default no),
``gumbel=M`` (Gumbel AlphaZero's search, :class:`playout.Gumbel`, sampling ``M`` root
actions, instead of PUCT; needs a simulation count, not ``seconds``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from playout._src.arena.players import SearchPlayer
from playout._src.config import Gumbel
from playout._src.errors import InvalidParameterError
from playout._src.game import GameState
from playout._src.keyvalue import parse_key_values, parse_number, parse_yes_no
from playout._src.search import MCTS
from playout._src.shipped import shipped_model_path
from playout.zero.evaluator import NetworkEvaluator, masked_softmax
from playout.zero.model import Model, resolve_device
from playout.zero.options import shared_model
from playout.zero.selfplay import ZeroSearch

ZERO_KEYS = ("simulations", "seconds", "model", "c", "batch", "device", "symmetries", "gumbel")
"""The option keys of ``zero:``."""


class ZeroPlayer(SearchPlayer):
    """Plays the move a network-guided search chooses (tree kept between moves).

    Args:
        game: the game.
        model: the network, or a path to its file (``None``: the shipped one; a file is
            loaded once per process and shared, read-only, by the players of that process).
        search: search settings.
        seconds: a time limit per move instead of the simulation count.
        no_search: play the policy's most probable move, with no search.
        device: PyTorch device of a model loaded from a file.
        symmetries: average the network over the game's symmetric images of each position.
        name: label for reports.
    """

    def __init__(
        self,
        game: Any,
        model: Model | str | Path | None = None,
        search: ZeroSearch | None = None,
        *,
        seconds: float | None = None,
        no_search: bool = False,
        device: str | None = None,
        symmetries: bool = False,
        name: str = "zero",
    ) -> None:
        super().__init__(name)
        if not isinstance(model, Model):
            # Loaded once per process and file: a worker builds a player for every game.
            model = shared_model(model or shipped_model_path(game), game, device=device)
        self.model = model
        self.evaluator = NetworkEvaluator(model, symmetries=symmetries)
        self.search = search or ZeroSearch(simulations=400, c=model.metadata.get("c", 2.0))
        self.seconds = seconds
        self.no_search = no_search
        self._game = game

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent to worker processes as its weights' file (or the shipped network).
        path = self.model.path
        if path is None:
            raise InvalidParameterError(
                "a ZeroPlayer with unsaved weights cannot go to another process; save the "
                "model and pass its path"
            )
        return (
            _rebuild,
            (
                self._game,
                str(path),
                self.search,
                self.seconds,
                self.no_search,
                self.evaluator.symmetries,
                self._name,
            ),
        )

    def _new_engine(self, state: GameState) -> MCTS | None:
        if self.no_search:
            return None
        config = self.search.config(self.evaluator, self._seed)
        if self.seconds is not None:
            config = config.replace(simulations=None, seconds=self.seconds)
        return MCTS(state, config)

    def choose(self, state: GameState) -> int:
        if not self.no_search:
            return super().choose(state)
        actions = np.asarray(state.legal_actions(), dtype=np.int64)
        priors = masked_softmax(self.evaluator.outputs([state])[0][0], actions)
        return int(actions[int(np.argmax(priors))])


def _rebuild(
    game: Any,
    path: str,
    search: ZeroSearch,
    seconds: float | None,
    no_search: bool,
    symmetries: bool,
    name: str,
) -> ZeroPlayer:
    return ZeroPlayer(
        game,
        path,
        search,
        seconds=seconds,
        no_search=no_search,
        symmetries=symmetries,
        name=name,
    )


@dataclasses.dataclass(frozen=True)
class ZeroOptions:
    """The options of a ``zero:`` spec, read and checked (no model loaded yet)."""

    simulations: int = 400
    seconds: float | None = None
    model: str | None = None
    c: float | None = None
    batch: int = 8
    device: str | None = None
    symmetries: bool = False
    gumbel: Gumbel | None = None


def parse_zero_options(rest: str) -> ZeroOptions:
    """The options after ``zero:``, checked as far as they can be without a game (the model
    file is read by :func:`parse_zero_player`).

    Raises:
        InvalidParameterError: an unknown key or a bad value (a device this machine lacks
            included).
    """
    values = parse_key_values(rest, "zero", ZERO_KEYS)
    simulations = 400
    if "simulations" in values:
        simulations = parse_number("simulations", values["simulations"], int)
        if simulations < 0:
            raise InvalidParameterError(f"simulations must be >= 0, got {simulations}")
    seconds = None
    if "seconds" in values:
        seconds = parse_number("seconds", values["seconds"], float)
        if not seconds > 0:
            raise InvalidParameterError(f"seconds must be > 0, got {seconds}")
    c = parse_number("c", values["c"], float) if "c" in values else None
    batch = parse_number("batch", values["batch"], int) if "batch" in values else 8
    symmetries = (
        parse_yes_no("symmetries", values["symmetries"]) if "symmetries" in values else False
    )
    gumbel = None
    if "gumbel" in values:
        considered = parse_number("gumbel", values["gumbel"], int)
        if seconds is not None:
            raise InvalidParameterError(
                "gumbel needs a simulation count (sequential halving divides a known budget), "
                "not seconds"
            )
        gumbel = Gumbel(considered=considered)
    device = values.get("device")
    if device is not None:
        resolve_device(device)
    # The search's own checks (c > 0, batch >= 1), with a stand-in for the model's c.
    ZeroSearch(simulations=max(1, simulations), c=1.0 if c is None else c, leaf_batch=batch)
    return ZeroOptions(
        simulations=simulations,
        seconds=seconds,
        model=values.get("model"),
        c=c,
        batch=batch,
        device=device,
        symmetries=symmetries,
        gumbel=gumbel,
    )


def parse_zero_player(text: str, rest: str, game: Any) -> ZeroPlayer:
    """``zero[:simulations=N,seconds=S,model=PATH,c=X,batch=N,device=D,symmetries=yes|no,
    gumbel=M]``.

    Raises:
        InvalidParameterError: an unknown key or a bad value.
        ModelFileError: the model file is missing, bad, or for another game.
    """
    options = parse_zero_options(rest)
    model = shared_model(options.model or shipped_model_path(game), game, device=options.device)
    c = model.metadata.get("c", 2.0) if options.c is None else options.c
    search = ZeroSearch(
        simulations=max(1, options.simulations),
        c=c,
        leaf_batch=options.batch,
        gumbel=options.gumbel,
    )
    return ZeroPlayer(
        game,
        model,
        search,
        seconds=options.seconds,
        no_search=options.simulations == 0 and options.seconds is None,
        symmetries=options.symmetries,
        name=text,
    )
