"""Policy/value networks: the architecture, inference on batches, and the model file.

A :class:`Model` is a PyTorch residual network (He et al. 2016, as in AlphaGo Zero, Silver et
al. 2017, at a small size) with the facts needed to use it on a game:

* input: a batch of the game's observations, ``float32[B, *game.observation_shape]`` (the
  built-in board games give two planes: the mover's stones and the opponent's);
* policy: one logit per action id (``spec.num_actions``); illegal actions are masked out
  before the softmax, so priors sum to 1 over the legal moves;
* value: the expected return for the **player to move**, in [-1, 1] (tanh).

The file (``.pt``, written by :meth:`Model.save`) is a dictionary saved with
``torch.save``: a format tag and version, the game it was trained for (name, registry
parameters such as an m,n,k board's ``width``, ``height`` and ``k``, observation shape,
number of actions; :class:`GameSignature`), the architecture and the weights. It is read
back with ``torch.load(weights_only=True)``, which runs no code from the file; every way a
file can be wrong raises :class:`~playout.ModelFileError` naming it (a network made for
other rules names both games).
"""

from __future__ import annotations

import dataclasses
import os
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from playout._src.errors import InvalidParameterError, ModelFileError
from playout._src.evaluation import is_count
from playout._src.files import write_atomic
from playout._src.optional import import_optional
from playout._src.registry import game_params
from playout._src.rules import is_finite

torch: Any = import_optional("torch", extra="zero", needed_by="playout.zero")
nn: Any = torch.nn

FORMAT = "playout-zero-model"
VERSION = 1


@dataclasses.dataclass(frozen=True, kw_only=True)
class Architecture:
    """The size of a residual policy/value network.

    Attributes:
        channels: filters of every convolution.
        blocks: residual blocks (two 3x3 convolutions each).
        value_hidden: units of the value head's hidden layer.
        reply_head: an auxiliary head that predicts the opponent's reply to the move
            about to be played (KataGo, Wu 2019 section 4.1): trained beside the policy,
            unused in play. Model files of networks without it (every one saved before
            it existed) load as they were.
    """

    channels: int = 64
    blocks: int = 4
    value_hidden: int = 64
    reply_head: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.reply_head, bool):
            raise InvalidParameterError(
                f"reply_head must be true or false, not {self.reply_head!r}"
            )
        for name in ("channels", "blocks", "value_hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1024:
                raise InvalidParameterError(f"{name} must be a whole number in [1, 1024]")


class _Block(nn.Module):  # type: ignore[misc]
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: Any) -> Any:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(x + y)


class PolicyValueNet(nn.Module):  # type: ignore[misc]
    """A residual tower with a policy head (logits over actions) and a value head (tanh).

    Args:
        input_shape: ``(planes, height, width)`` of an observation.
        num_actions: logits of the policy head.
        architecture: the sizes.
    """

    def __init__(
        self, input_shape: tuple[int, int, int], num_actions: int, architecture: Architecture
    ) -> None:
        super().__init__()
        planes, height, width = input_shape
        c = architecture.channels
        self.stem = nn.Sequential(
            nn.Conv2d(planes, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU()
        )
        self.tower = nn.Sequential(*[_Block(c) for _ in range(architecture.blocks)])
        self.policy = nn.Sequential(
            nn.Conv2d(c, 2, 1, bias=False),
            nn.BatchNorm2d(2),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(2 * height * width, num_actions),
        )
        self.reply = (
            nn.Sequential(
                nn.Conv2d(c, 2, 1, bias=False),
                nn.BatchNorm2d(2),
                nn.ReLU(),
                nn.Flatten(),
                nn.Linear(2 * height * width, num_actions),
            )
            if architecture.reply_head
            else None
        )
        self.value = nn.Sequential(
            nn.Conv2d(c, 1, 1, bias=False),
            nn.BatchNorm2d(1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(height * width, architecture.value_hidden),
            nn.ReLU(),
            nn.Linear(architecture.value_hidden, 1),
            nn.Tanh(),
        )

    def forward(self, x: Any) -> tuple[Any, Any]:
        """Policy logits ``[B, num_actions]`` and values ``[B]`` for observations ``x``."""
        h = self.tower(self.stem(x))
        return self.policy(h), self.value(h).squeeze(-1)

    def forward_training(self, x: Any) -> tuple[Any, Any, Any]:
        """Policy logits, values, and the reply head's logits ``[B, num_actions]`` (``None``
        without that head), for training."""
        h = self.tower(self.stem(x))
        reply = self.reply(h) if self.reply is not None else None
        return self.policy(h), self.value(h).squeeze(-1), reply


@dataclasses.dataclass(frozen=True)
class GameSignature:
    """What a network must agree on with a game: its name, its registry parameters (the
    rules: an m,n,k game's ``width``, ``height`` and ``k``; see :func:`~playout.make_game`),
    its observation shape and its number of actions.

    ``params`` is ``None`` for a model file written before playout recorded them (then only
    the rest is compared)."""

    name: str
    observation_shape: tuple[int, ...]
    num_actions: int
    params: tuple[tuple[str, Any], ...] | None = ()

    @classmethod
    def of(cls, game: Any) -> GameSignature:
        """The signature of ``game``.

        Raises:
            InvalidParameterError: the game gives no observations or has no fixed number of
                action ids.
        """
        shape = getattr(game, "observation_shape", None)
        num_actions = game.spec.num_actions
        if shape is None or not hasattr(game.initial_state(), "observation"):
            raise InvalidParameterError(
                f"{game.spec.name} gives no observations for a network: its game needs an "
                "observation_shape and its states an observation() method (see playout.zero)"
            )
        if num_actions is None:
            raise InvalidParameterError(
                f"{game.spec.name} declares no num_actions: a network needs a fixed action set"
            )
        params = tuple(game_params(game).items())
        return cls(game.spec.name, tuple(int(n) for n in shape), int(num_actions), params)

    @classmethod
    def from_json(cls, data: Any) -> GameSignature:
        """The signature written by :meth:`to_json` (``params`` missing: ``None``).

        Raises:
            ValueError: not such a dictionary.
        """
        if not isinstance(data, dict):
            raise ValueError(f"expected a dictionary, got {type(data).__name__}")
        try:
            params = data.get("params")
            if params is not None and not isinstance(params, dict):
                raise ValueError(f"params must be a dictionary, got {params!r}")
            return cls(
                str(data["game"]),
                tuple(int(n) for n in data["observation_shape"]),
                int(data["num_actions"]),
                None if params is None else tuple(params.items()),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a game signature ({error!r})") from error

    def to_json(self) -> dict[str, Any]:
        """``game``, ``params``, ``observation_shape`` and ``num_actions``, JSON-ready."""
        return {
            "game": self.name,
            "params": None if self.params is None else dict(self.params),
            "observation_shape": list(self.observation_shape),
            "num_actions": self.num_actions,
        }

    def fits(self, other: GameSignature) -> bool:
        """Whether a network made for ``self`` plays ``other``: the same name, observations
        and actions, and the same parameters where both record them."""
        return (self.name, self.observation_shape, self.num_actions) == (
            other.name,
            other.observation_shape,
            other.num_actions,
        ) and (
            self.params is None or other.params is None or dict(self.params) == dict(other.params)
        )

    def __str__(self) -> str:
        params = ", ".join(f"{key}={value!r}" for key, value in self.params or ())
        rules = f" ({params})" if params else ""
        return (
            f"{self.name}{rules}, observations {self.observation_shape}, {self.num_actions} actions"
        )


RUNTIMES = ("auto", "torch", "onnx")
"""Where :meth:`Model.predict` runs the network: ``"torch"``; ``"onnx"``, ONNX Runtime on a
copy exported from the PyTorch weights; ``"auto"``, ONNX Runtime on the CPU when ``onnx`` and
``onnxruntime`` are installed, else PyTorch. Measured (bench/zero_throughput.py, one thread,
busy 2-core machine): ONNX Runtime ran the connect-four network 6.2x faster than PyTorch at
batch 1 (play, analysis), 1.2-1.5x at batches of 16-256 (self-play); outputs agree to 1e-8."""


def onnx_available() -> bool:
    """Whether ``onnx`` (the exporter's dependency) and ``onnxruntime`` are installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


def default_device() -> str:
    """``"cuda"`` when PyTorch sees a GPU, else ``"cpu"``."""
    return "cuda" if torch.cuda.is_available() else "cpu"


_ACCELERATORS: dict[str, Any] = {
    "cuda": lambda: torch.cuda.is_available(),
    "mps": lambda: torch.backends.mps.is_available(),
}
"""The accelerators whose presence is checked before a network is put on one."""


def resolve_device(device: str | None) -> Any:
    """The ``torch.device`` for ``device`` (``None``: :func:`default_device`), checked.

    Raises:
        InvalidParameterError: not a device name PyTorch knows, or an accelerator this machine
            (or this PyTorch build) does not have, e.g. ``"cuda"`` on a CPU-only install.
    """
    if device is not None and not isinstance(device, str):
        raise InvalidParameterError(
            f"device must be a name such as 'cpu' or 'cuda', not {device!r}"
        )
    try:
        resolved = torch.device(device or default_device())
    except (RuntimeError, ValueError) as error:
        raise InvalidParameterError(
            f"unknown device {device!r}: use cpu, cuda, cuda:N or mps"
        ) from error
    available = _ACCELERATORS.get(resolved.type)
    if available is not None and not available():
        raise InvalidParameterError(
            f"device {device!r} is not available: PyTorch {torch.__version__} sees no "
            f"{resolved.type} device here (use device cpu)"
        )
    if (
        resolved.type == "cuda"
        and resolved.index is not None
        and resolved.index >= torch.cuda.device_count()
    ):
        raise InvalidParameterError(
            f"device {device!r} is not available: PyTorch sees "
            f"{torch.cuda.device_count()} CUDA device(s)"
        )
    return resolved


def _is_finite_number(value: object) -> bool:
    """A real number (not a bool) that converts to a finite float."""
    return not isinstance(value, bool) and isinstance(value, int | float) and is_finite(value)


class Model:
    """A policy/value network for one game, ready for batched inference and training.

    Args:
        game: the game it plays (gives the observation shape and the action count).
        architecture: the network's size (default :class:`Architecture`).
        device: ``"cpu"``, ``"cuda"``, ...; ``None`` picks :func:`default_device`.
        seed: seeds the initial weights (0 to 2**64 - 1), or ``None`` to leave PyTorch's
            generator as it is.
        runtime: where :meth:`predict` runs (:data:`RUNTIMES`).

    Raises:
        InvalidParameterError: an unknown runtime, a seed that is not a whole number in
            range, or an architecture that is not an :class:`Architecture`.
    """

    def __init__(
        self,
        game: Any,
        architecture: Architecture | None = None,
        *,
        device: str | None = None,
        seed: int | None = 0,
        runtime: str = "auto",
    ) -> None:
        if runtime not in RUNTIMES:
            raise InvalidParameterError(f"runtime must be one of {', '.join(RUNTIMES)}")
        if seed is not None and (not is_count(seed) or not 0 <= seed < 2**64):
            raise InvalidParameterError(
                f"seed must be None or a whole number from 0 to 2**64 - 1, got {seed!r}"
            )
        if architecture is not None and not isinstance(architecture, Architecture):
            raise InvalidParameterError(
                f"architecture must be a playout.zero.Architecture, got {architecture!r}"
            )
        self.signature = GameSignature.of(game)
        self.game = game
        self.architecture = architecture or Architecture()
        self.device = resolve_device(device)
        if seed is not None:
            torch.manual_seed(seed)
        shape = self.signature.observation_shape
        self.net = PolicyValueNet(
            (shape[0], shape[1], shape[2]), self.signature.num_actions, self.architecture
        ).to(self.device)
        self.net.eval()
        self.path: Path | None = None
        """The file the weights came from, if any."""
        if runtime == "onnx" and not onnx_available():
            import_optional("onnxruntime", extra="zero", needed_by="runtime='onnx'")
            import_optional("onnx", extra="zero", needed_by="runtime='onnx'")
        self.runtime = (
            "onnx"
            if runtime == "onnx"
            or (runtime == "auto" and self.device.type == "cpu" and onnx_available())
            else "torch"
        )
        """The runtime in use: ``"torch"`` or ``"onnx"``."""
        self._session: Any = None
        self.evaluations = 0
        """Positions evaluated by :meth:`predict` so far."""
        self.metadata: dict[str, float] = {}
        """Numbers saved with the weights, e.g. ``{"c": 1.0}``: the PUCT constant the
        network was trained with, which players use unless told otherwise."""

    def __repr__(self) -> str:
        a = self.architecture
        origin = f", from {self.path}" if self.path else ""
        return (
            f"Model({self.signature.name}, {a.channels}x{a.blocks} blocks, "
            f"{self.num_parameters()} parameters{origin})"
        )

    def num_parameters(self) -> int:
        return int(sum(p.numel() for p in self.net.parameters()))

    def observations(self, states: Sequence[Any]) -> np.ndarray:
        """The stacked observations of ``states``: the game's own ``observations(states)``
        where it has one (a batch at once), else each state's ``observation()``."""
        batched = getattr(self.game, "observations", None)
        if batched is not None and states:
            return np.asarray(batched(states), dtype=np.float32)
        return np.stack([s.observation() for s in states]).astype(np.float32, copy=False)

    def predict(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw outputs for a batch: policy logits ``float32[B, num_actions]`` and values
        ``float32[B]`` (for the player to move, in [-1, 1]), in inference mode."""
        self.evaluations += int(observations.shape[0])
        x = np.ascontiguousarray(observations, dtype=np.float32)
        if self.runtime == "onnx":
            logits, values = self._onnx().run(None, {"observations": x})
        else:
            self.net.eval()
            with torch.inference_mode():
                out = self.net(torch.from_numpy(x).to(self.device))
            logits, values = (t.float().cpu().numpy() for t in out)
        # tanh in float32 (ONNX Runtime's approximation) can land a hair outside [-1, 1].
        return logits, np.clip(values, -1.0, 1.0)

    def weights_changed(self) -> None:
        """Call after changing the weights (training does): the ONNX copy is made again on
        the next :meth:`predict`."""
        self._session = None

    def _onnx(self) -> Any:
        """The ONNX Runtime session of the current weights (exported on first use)."""
        if self._session is None:
            self._session = self.onnx_session(torch.get_num_threads())
        return self._session

    def onnx_session(self, threads: int) -> Any:
        """A new ONNX Runtime session of the current weights with ``threads`` intra-op
        threads: input ``observations``, outputs ``logits`` and ``values`` (a dynamic batch
        axis). Needs ``onnx`` and ``onnxruntime``."""
        import io
        import warnings

        import onnxruntime

        self.net.eval()
        buffer = io.BytesIO()
        shape = self.signature.observation_shape
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                self.net,
                (torch.zeros((1, *shape), dtype=torch.float32),),
                buffer,
                input_names=["observations"],
                output_names=["logits", "values"],
                dynamic_axes={
                    "observations": {0: "batch"},
                    "logits": {0: "batch"},
                    "values": {0: "batch"},
                },
                dynamo=False,
            )
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        return onnxruntime.InferenceSession(
            buffer.getvalue(), options, providers=["CPUExecutionProvider"]
        )

    # ----------------------------------------------------------------------------- files

    def state(self) -> dict[str, Any]:
        """Everything :meth:`save` writes, as a dictionary."""
        return {
            "format": FORMAT,
            "version": VERSION,
            **self.signature.to_json(),
            "architecture": dataclasses.asdict(self.architecture),
            "metadata": dict(self.metadata),
            "weights": {k: v.detach().cpu() for k, v in self.net.state_dict().items()},
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the model to ``path`` atomically (a temporary file beside it, flushed to the
        disk and renamed over it, so a crash or a full disk never leaves half a file where a
        good one was, nor the temporary file). Returns the path.

        Raises:
            OSError: the file cannot be written; ``path`` is as it was.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        state = self.state()
        return write_atomic(path, lambda stream: torch.save(state, stream))

    def to_bytes(self) -> bytes:
        """The model file's contents (what :meth:`save` writes), in memory."""
        import io

        buffer = io.BytesIO()
        torch.save(self.state(), buffer)
        return buffer.getvalue()

    @classmethod
    def from_bytes(
        cls, data: Any, game: Any, *, device: str | None = None, runtime: str = "auto"
    ) -> Model:
        """A model from the contents of a model file (a file-like object), for ``game``.

        Raises:
            ModelFileError: as :meth:`load`.
        """
        return cls._from_data(read_model_file(data), "<model bytes>", game, device, runtime)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        game: Any,
        *,
        device: str | None = None,
        runtime: str = "auto",
    ) -> Model:
        """The model saved in ``path``, for ``game``.

        Raises:
            ModelFileError: the file is missing or unreadable, not a playout model, of a
                newer format, or made for another game (name, parameters, observation shape
                or action count differ); the message names the file and both games.
        """
        path = Path(path)
        model = cls._from_data(read_model_file(path), str(path), game, device, runtime)
        model.path = path
        return model

    @classmethod
    def _from_data(
        cls, data: dict[str, Any], path: str, game: Any, device: str | None, runtime: str
    ) -> Model:
        """A model from a model file's checked dictionary (``path`` names it in errors)."""
        signature = GameSignature.of(game)
        try:
            found = GameSignature.from_json(data)
        except ValueError as error:
            raise ModelFileError(f"{path}: bad game record: {error}") from error
        if not found.fits(signature):
            raise ModelFileError(
                f"{path}: the network was trained for {found}, not for {signature}"
            )
        try:
            architecture = Architecture(**data["architecture"])
        except (TypeError, InvalidParameterError) as error:
            raise ModelFileError(f"{path}: bad architecture: {error}") from error
        _check_weight_shapes(path, signature, architecture, data["weights"])
        model = cls(game, architecture, device=device, seed=None, runtime=runtime)
        try:
            model.net.load_state_dict(data["weights"])
        except (RuntimeError, KeyError, TypeError) as error:
            first_line = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ModelFileError(f"{path}: the weights do not fit: {first_line}") from error
        model.net.eval()
        metadata = data.get("metadata", {})
        if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and _is_finite_number(v) for k, v in metadata.items()
        ):
            raise ModelFileError(f"{path}: bad metadata {metadata!r} (names and finite numbers)")
        model.metadata = {k: float(v) for k, v in metadata.items()}
        return model


def _check_weight_shapes(
    path: str, signature: GameSignature, architecture: Architecture, weights: Any
) -> None:
    """Refuse a file whose weights are not those of its recorded architecture before the
    network is built: the architecture is read from the file, and a small file must not make
    playout allocate a huge network. The network is laid out on PyTorch's ``meta`` device,
    which holds shapes and no memory.

    Raises:
        ModelFileError: a tensor missing, extra, or of another shape.
    """
    shape = signature.observation_shape

    def layout(blocks: int) -> dict[str, tuple[int, ...]]:
        sizes = dataclasses.replace(architecture, blocks=blocks)
        with torch.device("meta"):
            net = PolicyValueNet((shape[0], shape[1], shape[2]), signature.num_actions, sizes)
        return {name: tuple(tensor.shape) for name, tensor in net.state_dict().items()}

    if not isinstance(weights, dict):
        raise ModelFileError(f"{path}: the weights do not fit: not a dictionary of tensors")
    one, two = len(layout(1)), len(layout(2))  # the tensor count first: cheap for any depth
    if len(weights) != one + (two - one) * (architecture.blocks - 1):
        raise ModelFileError(
            f"{path}: the weights do not fit the file's architecture ({architecture.channels} "
            f"channels x {architecture.blocks} blocks, value head {architecture.value_hidden}): "
            f"{len(weights)} tensors"
        )
    expected = layout(architecture.blocks)
    found = {
        name: tuple(tensor.shape) if isinstance(tensor, torch.Tensor) else None
        for name, tensor in weights.items()
    }
    if found != expected:
        wrong = sorted(set(expected) ^ set(found)) or sorted(
            name for name in expected if found[name] != expected[name]
        )
        raise ModelFileError(
            f"{path}: the weights do not fit the file's architecture ({architecture.channels} "
            f"channels x {architecture.blocks} blocks, value head {architecture.value_hidden}): "
            f"{wrong[0]} and {len(wrong) - 1} more differ"
        )


def read_model_file(path: Any) -> dict[str, Any]:
    """The dictionary in a model file (a path, or a file-like object), its format checked.

    Raises:
        ModelFileError: missing, unreadable, or not a playout model file.
    """
    name = str(path) if isinstance(path, Path) else "<model bytes>"
    if isinstance(path, Path) and path.is_dir():
        raise ModelFileError(f"{name}: a directory, not a model file (give the .pt file in it)")
    if isinstance(path, Path) and not path.is_file():
        raise ModelFileError(f"{name}: no such model file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:  # PyTorch's advice there is to load unsafely
        if "Unsupported global" in str(error):
            raise ModelFileError(
                f"{name}: not a playout model file (it holds Python objects other than "
                "tensors and plain values, which playout does not load)"
            ) from error
        raise ModelFileError(f"{name}: not a readable model file (damaged data)") from error
    except Exception as error:  # torch raises many types for a corrupt file
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ModelFileError(f"{name}: not a readable model file ({detail})") from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"{name}: not a playout model file")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise ModelFileError(
            f"{name}: model format version {data.get('version')!r} is newer than this "
            f"playout reads ({VERSION}); upgrade playout"
        )
    for key in ("game", "observation_shape", "num_actions", "architecture", "weights"):
        if key not in data:
            raise ModelFileError(f"{name}: the model file lacks {key!r}")
    return data
