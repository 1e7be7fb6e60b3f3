"""``playout train``: AlphaZero training of a network for a game (needs ``playout[zero]``)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from playout._src.optional import import_optional
from playout.cli.common import EXIT_OK, out
from playout.cli.position import make_game

SETTING_OPTIONS = {
    "games": "games_per_iteration",
    "simulations": "simulations",
    "steps": "steps_per_iteration",
    "batch_size": "batch_size",
    "buffer": "buffer_size",
    "lr": "learning_rate",
    "weight_decay": "weight_decay",
    "eval_games": "eval_games",
    "eval_simulations": "eval_simulations",
    "opponent": "eval_opponent",
    "temperature_moves": "temperature_moves",
    "value_mix": "value_mix",
    "opening_moves": "opening_moves",
    "random_move_rate": "random_move_rate",
    "fork_rate": "fork_rate",
    "expert_iterations": "expert_iterations",
    "expert_simulations": "expert_simulations",
    "schedule": "schedule_iterations",
    "schedule_hours": "schedule_hours",
    "seed": "seed",
    "c": "c",
    "gumbel": "gumbel",
    "parallel_games": "parallel_games",
    "full_search_fraction": "full_search_fraction",
    "fast_simulations": "fast_simulations",
    "forced_playouts": "forced_playouts",
    "benchmark_positions": "benchmark_positions",
    "benchmark_simulations": "benchmark_simulations",
    "init": "init_model",
}
"""Command-line options and the :class:`~playout.zero.TrainConfig` fields they set."""


OPTION_NAMES = {field: f"--{option.replace('_', '-')}" for option, field in SETTING_OPTIONS.items()}
OPTION_NAMES["architecture"] = "--channels/--blocks"
"""The option that sets each :class:`~playout.zero.TrainConfig` field, as messages name it."""


def given_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`~playout.zero.TrainConfig` fields the options given set (the network's
    size as a mapping of the :class:`~playout.zero.Architecture` fields given)."""
    changes: dict[str, Any] = {
        field: getattr(args, option)
        for option, field in SETTING_OPTIONS.items()
        if getattr(args, option, None) is not None
    }
    architecture = {
        name: getattr(args, name)
        for name in ("channels", "blocks", "reply_head")
        if getattr(args, name, None) is not None
    }
    if architecture:
        changes["architecture"] = architecture
    return changes


def train_config(args: argparse.Namespace) -> Any:
    """The :class:`~playout.zero.TrainConfig` of a new run with the options given."""
    import dataclasses

    from playout.zero import TrainConfig

    changes = given_settings(args)
    with options_named():
        if "architecture" in changes:
            changes["architecture"] = dataclasses.replace(
                TrainConfig().architecture, **changes["architecture"]
            )
        return TrainConfig(**changes)


@contextlib.contextmanager
def options_named() -> Iterator[None]:
    """Turn a bad training setting's error into one that names its command-line option
    (``--lr must be a finite number > 0``, not ``learning_rate ...``)."""
    from playout._src.errors import InvalidParameterError
    from playout.zero.train import SettingError

    try:
        yield
    except SettingError as error:
        name = OPTION_NAMES.get(error.setting, error.setting)
        raise InvalidParameterError(error.text(name)) from None


def cmd_train(args: argparse.Namespace) -> int:
    """``playout train``: self-play, training, evaluation, checkpoints in ``--out``.

    Every option is checked before anything runs (``--plot``'s file name and matplotlib
    included), on a new run and on a resumed one alike."""
    import_optional("torch", extra="zero", needed_by="playout train")
    from pathlib import Path

    from playout._src.errors import InvalidParameterError
    from playout.zero import Trainer
    from playout.zero.rundir import SETTINGS

    game = make_game(args)
    if args.plot:
        from playout.plots import check_image_path, require_matplotlib

        try:
            check_image_path(args.plot)
        except InvalidParameterError as error:
            raise InvalidParameterError(f"--plot {error}") from None
        require_matplotlib()
    executor = None if args.executor == "auto" else args.executor
    if args.staleness is not None and args.pipeline != "async":
        raise InvalidParameterError("--staleness applies to --pipeline async only")
    if args.pipeline == "async" and args.executor == "local":
        raise InvalidParameterError(
            "--pipeline async plays apart from the learner, in other processes: "
            "--executor pool or ray, not local"
        )
    changes = given_settings(args)
    if "schedule_iterations" in changes:  # a schedule in iterations, on a resumed run too
        changes.setdefault("schedule_hours", 0.0)
    scheduled = "schedule_iterations" in changes or "schedule_hours" in changes
    if args.hours is not None and not scheduled and not (Path(args.out) / SETTINGS).exists():
        changes["schedule_hours"] = args.hours  # a new run anneals over its training hours
    with options_named():
        trainer = Trainer(
            game,
            args.out,
            None,
            device=args.device,
            workers=args.workers,
            executor=executor,
            ray_address=args.ray_address,
            changes=changes,
            keep_models=args.keep_models,
        )
    if trainer.resumed:
        changed = ", ".join(f"{k} {a!r} -> {b!r}" for k, (a, b) in trainer.changed.items())
        out(
            f"resuming the run in {args.out} after iteration {trainer.iteration} "
            f"(its settings{'; changed: ' + changed if changed else ''})"
        )
    else:
        out(f"training {game.spec.name} in {args.out}: {trainer.model!r}")
    seconds = None if args.hours is None else args.hours * 3600.0
    iterations = args.iterations
    runner: Any = trainer
    if args.pipeline == "async":
        from playout.zero.pipeline import STALENESS, AsyncPipeline

        runner = AsyncPipeline(trainer, staleness=args.staleness or STALENESS)
    with _phase_progress() as progress:
        runner.run(iterations=iterations, seconds=seconds, log=out, progress=progress)
    if args.plot:
        from playout.plots import plot_training

        path = plot_training(Path(args.out) / "metrics.csv", args.plot)
        out(f"plot written to {path}")
    out(f"model: {Path(args.out) / 'model.pt'} (play it: zero:model={Path(args.out) / 'model.pt'})")
    return EXIT_OK


class _phase_progress:
    """A rich progress bar per phase (self-play games, training steps) on a terminal."""

    def __enter__(self) -> Any:
        if not sys.stdout.isatty():
            return None
        from playout.cli.progress import _progress

        self._progress = _progress("{task.description}")
        self._progress.__enter__()
        self._tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            task = self._tasks.get(phase)
            if task is None or done == 1:
                if task is not None:
                    self._progress.remove_task(task)
                task = self._tasks[phase] = self._progress.add_task(phase, total=total)
            self._progress.update(task, completed=done)

        return update

    def __exit__(self, *exc: object) -> None:
        progress = getattr(self, "_progress", None)
        if progress is not None:
            progress.__exit__(*exc)


def add_train_parser(commands: Any, add_game_arguments: Any, types: dict[str, Any]) -> None:
    """The ``train`` subcommand's arguments."""
    positive_int, positive_float, non_negative_int = (
        types["positive_int"], types["positive_float"], types["non_negative_int"],
    )  # fmt: skip
    train = commands.add_parser(
        "train",
        help="train a network by self-play (AlphaZero; needs playout[zero])",
        description="AlphaZero training: self-play with the network-guided search, a replay "
        "buffer, gradient steps, evaluation against rollout MCTS. Everything goes to --out "
        "(checkpoint, buffer, metrics.csv, model.pt); run the same command again to resume "
        "after Ctrl-C or a crash. A resumed run keeps its saved settings but for those given "
        "again (the network's size, the buffer's, the seed and the warm start cannot change).",
    )
    add_game_arguments(train)
    train.add_argument("--out", required=True, metavar="DIR", help="the run's directory")
    length = train.add_mutually_exclusive_group(required=True)
    length.add_argument("--iterations", type=positive_int, metavar="N", help="iterations to run")
    length.add_argument("--hours", type=positive_float, metavar="H", help="hours to run")
    train.add_argument(
        "--workers", type=positive_int, default=1, metavar="N",
        help="self-play workers (default 1: this process)",
    )  # fmt: skip
    train.add_argument(
        "--executor",
        choices=("auto", "local", "pool", "ray"),
        default="auto",
        help="where self-play workers run: a process pool (pool), a Ray cluster (ray, needs "
        "playout[ray]) or this process (local); auto: pool for --workers above 1",
    )
    train.add_argument("--ray-address", metavar="ADDR", help="Ray cluster to join (ray)")
    train.add_argument(
        "--pipeline",
        choices=("sync", "async"),
        default="sync",
        help="sync (default): self-play, then learning, in turn; async: self-play actors keep "
        "playing while the learner trains (pool or ray; see --staleness)",
    )
    train.add_argument(
        "--staleness",
        type=positive_int,
        metavar="S",
        help="async: a game enters the replay buffer at most S network versions after the "
        "one that played it (default 1)",
    )
    train.add_argument("--device", metavar="D", help="cpu or cuda (default: cuda if present)")
    train.add_argument("--plot", metavar="FILE", help="plot the metrics to FILE (.png/.svg)")
    train.add_argument(
        "--keep-models",
        action="store_true",
        help="also keep each iteration's network as DIR/models/iteration-NNNN.pt (to pick "
        "the best afterwards)",
    )
    settings = train.add_argument_group(
        "settings of a new run (given when resuming: changed from then on)"
    )
    settings.add_argument("--games", type=positive_int, metavar="N", help="games per iteration")
    settings.add_argument(
        "--simulations", type=positive_int, metavar="N", help="simulations per self-play move"
    )
    settings.add_argument(
        "--steps", type=positive_int, metavar="N", help="gradient steps per iteration"
    )
    settings.add_argument("--batch-size", type=positive_int, metavar="N", help="positions per step")
    settings.add_argument(
        "--buffer", type=positive_int, metavar="N", help="replay buffer positions"
    )
    settings.add_argument("--lr", type=positive_float, metavar="X", help="learning rate")
    settings.add_argument(
        "--weight-decay",
        type=float,
        metavar="X",
        help="AdamW's decoupled weight decay (default 0.0001)",
    )
    settings.add_argument("--channels", type=positive_int, metavar="N", help="network width")
    settings.add_argument("--blocks", type=positive_int, metavar="N", help="residual blocks")
    settings.add_argument(
        "--eval-games", type=non_negative_int, metavar="N", help="evaluation games per iteration"
    )
    settings.add_argument(
        "--eval-simulations",
        type=positive_int,
        metavar="N",
        help="the network's simulations in evaluation",
    )
    settings.add_argument(
        "--opponent", metavar="SPEC", help="evaluation opponent (default mcts:simulations=1000)"
    )
    settings.add_argument(
        "--temperature-moves",
        type=non_negative_int,
        metavar="N",
        help="opening plies played by visit counts",
    )
    settings.add_argument(
        "--value-mix",
        type=float,
        metavar="X",
        help="weight of the search value in the value target (default 0.5; 0: the outcome alone)",
    )
    settings.add_argument(
        "--opening-moves",
        type=non_negative_int,
        metavar="N",
        help="games start after up to N random moves (default 4)",
    )
    settings.add_argument(
        "--random-move-rate",
        type=float,
        metavar="P",
        help="after the opening, each self-play move is a random one with probability P "
        "(default 0); positions before a game's last random move learn the search's value",
    )
    settings.add_argument(
        "--fork-rate",
        type=float,
        metavar="P",
        help="after each fully searched self-play move, with probability P a side game is forked "
        "from the position another move (drawn mostly from the network's policy) would "
        "have made and played out too "
        "(default 0); the game itself goes on with the search's move",
    )
    settings.add_argument("--c", type=positive_float, metavar="X", help="PUCT's constant")
    settings.add_argument(
        "--gumbel",
        type=non_negative_int,
        metavar="M",
        help="Gumbel AlphaZero self-play: sample M root actions, sequential halving, the "
        "improved policy as the target (0: PUCT and visit counts, the default)",
    )
    settings.add_argument(
        "--parallel-games", type=positive_int, metavar="N", help="self-play games in lockstep"
    )
    settings.add_argument(
        "--init",
        metavar="MODEL",
        help="a new run starts from this model file's weights (fine-tuning); the network's "
        "size is the file's (--channels/--blocks, if given, must match it)",
    )
    settings.add_argument(
        "--expert-iterations",
        type=non_negative_int,
        metavar="N",
        help="the first N iterations learn from rollout MCTS games (a warm start)",
    )
    settings.add_argument(
        "--expert-simulations",
        type=positive_int,
        metavar="N",
        help="rollout MCTS simulations per move in those iterations",
    )
    settings.add_argument(
        "--schedule",
        type=positive_int,
        metavar="N",
        help="iterations of the learning-rate schedule",
    )
    settings.add_argument(
        "--schedule-hours",
        type=float,
        metavar="H",
        help="the learning-rate schedule follows the run's training time (self-play and "
        "learning) over H hours instead of --schedule's iterations (0: iterations; a new run "
        "given --hours and neither option: its --hours)",
    )
    settings.add_argument(
        "--full-search-fraction",
        type=float,
        metavar="P",
        help="KataGo's playout cap randomisation: a full search on a share P of self-play "
        "moves, a fast one on the others; only full-search positions are learned from "
        "(default 1: off; PUCT only)",
    )
    settings.add_argument(
        "--fast-simulations",
        type=positive_int,
        metavar="N",
        help="the fast search's simulations (default 25)",
    )
    settings.add_argument(
        "--forced-playouts",
        type=float,
        metavar="K",
        help="KataGo's forced playouts at the root, n = sqrt(K P N), pruned from the policy "
        "target (Wu's K is 2; default 0: off; PUCT only)",
    )
    settings.add_argument(
        "--reply-head",
        action="store_const",
        const=True,
        help="an auxiliary head that learns the opponent's reply (KataGo), beside the policy",
    )
    settings.add_argument(
        "--benchmark-positions",
        type=non_negative_int,
        metavar="N",
        help="after each iteration, value-losing moves on N solver-labelled positions "
        "(connect four, tic-tac-toe), policy alone and with a search, in metrics.csv "
        "(default 200; 0: none)",
    )
    settings.add_argument(
        "--benchmark-simulations",
        type=positive_int,
        metavar="N",
        help="that search's simulations (default 50)",
    )
    settings.add_argument("--seed", type=non_negative_int, metavar="K", help="seed")
    train.set_defaults(handler=cmd_train)
