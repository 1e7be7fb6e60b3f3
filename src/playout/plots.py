"""Plots with matplotlib (extra ``plot``): pictures a person wants of a run or a search.

Rendering only: every function takes results or files that the library wrote and returns
the path of the image it saved (``.png`` or ``.svg``, chosen by the file name):
:func:`plot_training` (``playout train --plot``), :func:`plot_learning_curves` (runs side
by side, ``bench/zero_ablation.py --plot``), :func:`plot_search` (``playout analyze
--plot``), :func:`plot_match` (``playout match --plot``) and :func:`plot_tournament`
(``playout tournament --plot``). Every image is written to a temporary file beside ``path``
and renamed over it, so a reader never sees half a file (``match --plot`` rewrites its image
while the games go on).
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from playout import render
from playout._src import elo as E
from playout._src.arena.match import MatchResult, wilson_interval
from playout._src.arena.tournament import TournamentResult
from playout._src.errors import InvalidParameterError
from playout._src.optional import import_optional
from playout._src.results import SearchResult


def _pyplot() -> Any:
    matplotlib = import_optional("matplotlib", extra="plot", needed_by="plots")
    matplotlib.use("Agg")
    return import_optional("matplotlib.pyplot", extra="plot", needed_by="plots")


def require_matplotlib() -> None:
    """Check that matplotlib can be imported (before a long run that plots at its end).

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    import_optional("matplotlib", extra="plot", needed_by="plots")


def _save(plt: Any, figure: Any, path: Path) -> Path:
    """Write ``figure`` to ``path`` atomically (a temporary file beside it, then a rename) and
    close it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Opened as any new file (its mode from the umask), named for this process.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as stream:
            figure.savefig(stream, format=path.suffix.lower()[1:])
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    finally:
        plt.close(figure)
    return path


def check_image_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`~pathlib.Path` when it names a ``.png`` or ``.svg`` file.

    Raises:
        InvalidParameterError: any other suffix (the message says which are written).
    """
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg"):
        raise InvalidParameterError(f"{path}: a plot is written as .png or .svg")
    return path


def plot_training(metrics: str | os.PathLike[str], path: str | os.PathLike[str]) -> Path:
    """The curves of a training run's ``metrics.csv`` (:mod:`playout.zero.train`): losses,
    policy entropy, and the evaluation score against the rollout opponent, per iteration;
    where the run measured them (``benchmark_policy``, ``benchmark_search``), the share of
    value-losing moves on labelled positions against the training's wall-clock hours and
    against the self-play positions it learned from. A file of an older playout, without
    those columns, plots as before.

    Raises:
        InvalidParameterError: an unreadable metrics file or a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = check_image_path(path)
    rows, benchmarked = _read_metrics(metrics)
    if not rows:
        raise InvalidParameterError(f"{metrics}: no iterations recorded yet")
    plt = _pyplot()
    x = [int(r["iteration"]) for r in rows]
    columns = 4 if benchmarked else 2
    figure, axes = plt.subplots(1, columns, figsize=(5 * columns, 4))
    losses, score = axes[0], axes[1]
    losses.plot(x, [float(r["policy_loss"]) for r in rows], label="policy loss")
    losses.plot(x, [float(r["value_loss"]) for r in rows], label="value loss")
    losses.plot(x, [float(r["policy_entropy"]) for r in rows], label="policy entropy", ls="--")
    losses.set_xlabel("iteration")
    losses.legend()
    evaluated = [
        (i, float(r["eval_score"])) for i, r in zip(x, rows, strict=True) if r.get("eval_score")
    ]
    if evaluated:
        score.plot([i for i, _ in evaluated], [s for _, s in evaluated], marker="o")
        score.set_ylim(0, 1)
        score.axhline(0.5, color="grey", lw=0.5)
        score.set_title(f"score against {rows[-1]['eval_opponent']}")
    else:
        score.set_title("no evaluation games")
    score.set_xlabel("iteration")
    if benchmarked:
        hours, positions, policy, search = zip(*benchmarked, strict=True)
        for axis, along, label in (
            (axes[2], hours, "training hours (self-play and learning)"),
            (axes[3], positions, "training positions added (symmetric images included)"),
        ):
            axis.plot(along, [100 * p for p in policy], marker=".", label="policy alone")
            axis.plot(along, [100 * s for s in search], marker=".", label="with search")
            axis.set_xlabel(label)
            axis.set_ylabel("value-losing moves (%)")
            axis.set_ylim(bottom=0)
            axis.legend()
        axes[2].set_title("value-losing moves on labelled positions")
    figure.tight_layout()
    return _save(plt, figure, path)


def plot_learning_curves(
    runs: Mapping[str, str | os.PathLike[str]], path: str | os.PathLike[str]
) -> Path:
    """Training runs side by side: each run's share of value-losing moves on labelled
    positions (its ``metrics.csv``'s ``benchmark_policy`` and ``benchmark_search``) against
    its training hours (self-play and learning, the measurements left out) and against the
    positions it learned from, one line per run (``runs``: label to metrics file), the
    policy alone solid and with search dashed, in the run's colour.

    Raises:
        InvalidParameterError: no runs, an unreadable metrics file, one that measured no
            value-losing moves, or a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = check_image_path(path)
    if not runs:
        raise InvalidParameterError("no runs to plot")
    curves = {}
    for label, metrics in runs.items():
        _, points = _read_metrics(metrics)
        if not points:
            raise InvalidParameterError(f"{metrics}: no value-losing moves measured")
        curves[label] = points
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for index, (label, points) in enumerate(curves.items()):
        hours, positions, policy, search = zip(*points, strict=True)
        colour = f"C{index % 10}"
        for axis, along in ((axes[0], hours), (axes[1], [p / 1e6 for p in positions])):
            axis.plot(along, [100 * p for p in policy], color=colour, label=f"{label}: policy")
            axis.plot(
                along, [100 * s for s in search], color=colour, ls="--", label=f"{label}: search"
            )
    axes[0].set_xlabel("training hours (self-play and learning)")
    axes[1].set_xlabel("training positions added (millions, symmetric images included)")
    axes[0].set_ylabel("value-losing moves (%)")
    axes[0].set_ylim(bottom=0)
    axes[0].set_title("value-losing moves on labelled positions")
    axes[1].legend(fontsize="small")
    figure.tight_layout()
    return _save(plt, figure, path)


def _read_metrics(
    metrics: str | os.PathLike[str],
) -> tuple[list[dict[str, str]], list[tuple[float, int, float, float]]]:
    """A training run's ``metrics.csv``: its rows, and the points of those that measured
    value-losing moves (:func:`_benchmark_points`).

    Raises:
        InvalidParameterError: the file cannot be read, or its benchmark columns are bad.
    """
    try:
        with Path(metrics).open(newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as error:
        raise InvalidParameterError(f"{metrics}: cannot read the metrics ({error})") from error
    try:
        return rows, _benchmark_points(rows)
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidParameterError(f"{metrics}: bad benchmark columns ({error})") from None


def _benchmark_points(rows: list[dict[str, str]]) -> list[tuple[float, int, float, float]]:
    """(hours, cumulative positions, policy rate, search rate) of the rows that measured
    value-losing moves (none in a file of an older playout)."""
    points = []
    for row in rows:
        policy, search = row.get("benchmark_policy"), row.get("benchmark_search")
        if policy and search:
            hours = float(row.get("elapsed_seconds") or 0.0) / 3600.0
            points.append(
                (hours, int(row.get("total_positions") or 0), float(policy), float(search))
            )
    return points


MAX_BARS = 20
"""Moves shown by :func:`plot_search`'s bar chart (the most visited)."""

STONE_COLORS = {"x": "#2563eb", "o": "#dc2626", "red": "#dc2626", "yellow": "#eab308"}
"""Stone colours by player name (as on the browser app's page); others get X's and O's."""


def plot_search(
    game: Any,
    state: Any,
    result: SearchResult,
    path: str | os.PathLike[str],
    *,
    max_bars: int = MAX_BARS,
) -> Path:
    """A picture of what a search thinks of ``state`` (seed 004's probability plot): a heat
    map of the root's visit shares on the board (grid games square by square, connect four
    column by column, no map for games without a board layout) beside a bar chart of the
    most visited moves' values for the player to move, each bar labelled with its visits.

    Rendering only: ``result`` is the search's :class:`~playout.SearchResult` at ``state``.

    Raises:
        InvalidParameterError: a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = check_image_path(path)
    plt = _pyplot()
    shape = render.grid_shape(game)
    grid_fn = getattr(state, "grid", None)
    board = [list(row) for row in grid_fn()] if shape and callable(grid_fn) else None
    figure, axes = plt.subplots(
        1, 2 if board else 1, figsize=(11 if board else 7, 4.8), squeeze=False
    )
    if board:
        names = [render.player_label(game, p) for p in (0, 1)]
        columns = shape is not None and shape[1] == 1
        _heat_map(figure, axes[0][0], result, board, names, columns=columns)
    _value_bars(axes[0][-1], game, state, result, max_bars)
    mover = render.player_label(game, result.player)
    title = (
        f"{game.spec.name}: {mover} to move, {result.total_simulations:,} simulations, "
        f"value {render.number_text(result.value, sign=True)} for {mover}"
    )
    if result.proven is not None:
        title += f" (proven: {result.proven.value})"
    figure.suptitle(title)
    figure.tight_layout()
    return _save(plt, figure, path)


def _heat_map(
    figure: Any,
    ax: Any,
    result: SearchResult,
    board: list[list[Any]],
    names: list[str],
    *,
    columns: bool,
) -> None:
    """Visit shares on ``board`` (rows top first; stones +1 / -1 for the players ``names``):
    per square (axes labelled as the board: columns ``a b c ...``, rows from 1 at the
    top), or per column with the share written above it."""
    from matplotlib.patches import Circle

    height, width = len(board), len(board[0]) if board else 0
    shares = result.policy()
    best = result.best_action

    def action(x: int, y: int) -> int:
        return x if columns else y * width + x

    heat = [[shares.get(action(x, y), math.nan) for x in range(width)] for y in range(height)]
    top = max([*shares.values(), 1e-9])
    image = ax.imshow(heat, cmap="Greens", vmin=0.0, vmax=top, aspect="equal")
    figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="visit share")
    for y in range(height):
        for x in range(width):
            stone = int(board[y][x])
            if stone in (1, -1):
                name = names[0 if stone == 1 else 1]
                color = STONE_COLORS.get(name.casefold(), "#334155")
                if columns:
                    ax.add_patch(Circle((x, y), 0.38, color=color))
                else:
                    ax.text(x, y, name[:1], ha="center", va="center", fontsize=18, color=color,
                            fontweight="bold")  # fmt: skip
            elif not columns and action(x, y) in shares:
                share = shares[action(x, y)]
                ax.text(x, y, f"{100 * share:.0f}%", ha="center", va="center", fontsize=9,
                        color="white" if share > 0.6 * top else "black",
                        fontweight="bold" if action(x, y) == best else "normal")  # fmt: skip
    if columns:
        for x in range(width):
            if x in shares:
                ax.text(x, -0.6, f"{100 * shares[x]:.0f}%", ha="center", va="bottom",
                        fontsize=9, fontweight="bold" if x == best else "normal")  # fmt: skip
        ax.set_ylim(height - 0.5, -1.5)
    ax.set_xticks(range(width))
    ax.set_xticklabels([str(x + 1) if columns else render.column_label(x) for x in range(width)])
    ax.set_yticks(range(height))
    ax.set_yticklabels([""] * height if columns else [str(y + 1) for y in range(height)])
    if not columns:
        ax.set_xlabel("column")
        ax.set_ylabel("row")
    ax.set_title("visit share per " + ("column" if columns else "square"))


def _value_bars(ax: Any, game: Any, state: Any, result: SearchResult, max_bars: int) -> None:
    """The most visited moves' values for the player to move, their visits on the bars."""
    rows = sorted(
        zip(result.actions, result.visit_counts, result.values, strict=True),
        key=lambda row: (-row[1], row[0]),
    )[:max_bars]
    values = [value if visits > 0 else 0.0 for _, visits, value in rows]
    colors = ["#16a34a" if v > 0.05 else "#dc2626" if v < -0.05 else "#94a3b8" for v in values]
    ax.bar(range(len(rows)), values, color=colors)
    for i, ((_, visits, _), value) in enumerate(zip(rows, values, strict=True)):
        ax.text(i, value + (0.03 if value >= 0 else -0.03), f"{visits:,}", ha="center",
                va="bottom" if value >= 0 else "top", fontsize=8)  # fmt: skip
    ax.axhline(0.0, color="grey", lw=0.5)
    ax.set_ylim(-1.15, 1.15)
    ax.set_xticks(range(len(rows)))
    slanted = len(rows) > 8
    ax.set_xticklabels(
        [game.action_to_string(state, a) for a, _, _ in rows],
        rotation=45 if slanted else 0,
        ha="right" if slanted else "center",
    )
    ax.set_ylabel(f"value for {render.player_label(game, result.player)}")
    ax.set_title("move values (numbers: visits)")


def plot_match(
    match: MatchResult | Sequence[float],
    path: str | os.PathLike[str],
    *,
    p1: str | None = None,
    p2: str | None = None,
    game: str | None = None,
    planned_games: int | None = None,
    sprt: E.Sprt | None = None,
) -> Path:
    """A match as it went: p1's running score after each game with its 95% Wilson interval
    (:func:`~playout._src.arena.match.wilson_interval`) as a band around it and the 50% line,
    and below it the Elo difference with its interval (clamped to +-800, as the match
    reports it); with an SPRT, a third panel with the log-likelihood ratio and its bounds.
    The title gives the final figures: players, games, score and Elo with their intervals.

    Rendering only: ``match`` is a :class:`~playout.MatchResult` (its players, game and SPRT
    are used unless given here) or p1's per-game scores (1 win, 0.5 draw, 0 loss) in game
    order. For a match still running, pass the scores of the games finished so far by game
    index.

    Raises:
        InvalidParameterError: no games, a score outside [0, 1], or a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = check_image_path(path)
    if isinstance(match, MatchResult):
        outcomes = list(match.outcomes())
        p1 = match.p1 if p1 is None else p1
        p2 = match.p2 if p2 is None else p2
        game = match.game if game is None else game
        planned_games = match.planned_games if planned_games is None else planned_games
        if sprt is None and match.sprt is not None:
            sprt = match.sprt.test
    else:
        outcomes = [float(score) for score in match]
    if not outcomes:
        raise InvalidParameterError("plot_match needs at least one game")
    if any(not 0.0 <= score <= 1.0 for score in outcomes):
        raise InvalidParameterError("per-game scores must be in [0, 1] (1 win, 0.5 draw, 0 loss)")
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    n = len(outcomes)
    x = list(range(1, n + 1))
    scores, lows, highs, elos, elo_lows, elo_highs, llrs = [], [], [], [], [], [], []
    total = 0.0
    wins = draws = 0
    for games, score in enumerate(outcomes, start=1):
        total += score
        wins += score == 1.0
        draws += score == 0.5
        mean = total / games
        low, high = wilson_interval(mean, games)
        scores.append(mean)
        lows.append(low)
        highs.append(high)
        elos.append(E.elo_from_score(mean))
        elo_lows.append(E.elo_from_score(low))
        elo_highs.append(E.elo_from_score(high))
        if sprt is not None:
            llrs.append(E.sprt_llr(games - wins - draws, draws, wins, sprt.elo0, sprt.elo1))
    panels = 3 if sprt is not None else 2
    figure, axes = plt.subplots(
        panels, 1, figsize=(8, 2.6 * panels + 0.8), sharex=True, squeeze=False
    )
    score_ax, elo_ax = axes[0][0], axes[1][0]
    score_ax.fill_between(x, lows, highs, color="#93c5fd", alpha=0.5, step=None,
                          label="95% interval (Wilson)")  # fmt: skip
    score_ax.plot(x, scores, color="#1d4ed8", marker="o" if n <= 40 else None, ms=3,
                  label="score of p1" + (f" ({p1})" if p1 else ""))  # fmt: skip
    score_ax.axhline(0.5, color="grey", lw=0.8, ls="--", label="50%")
    score_ax.set_ylim(0, 1)
    score_ax.set_ylabel("p1 score")
    score_ax.legend(loc="best", fontsize=8)
    elo_ax.fill_between(x, elo_lows, elo_highs, color="#fdba74", alpha=0.5,
                        label="95% interval")  # fmt: skip
    elo_ax.plot(x, elos, color="#c2410c", marker="o" if n <= 40 else None, ms=3,
                label="Elo of p1 over p2")  # fmt: skip
    elo_ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    elo_ax.set_ylim(-E.ELO_LIMIT * 1.05, E.ELO_LIMIT * 1.05)
    elo_ax.set_ylabel("Elo difference")
    elo_ax.legend(loc="best", fontsize=8)
    if sprt is not None:
        llr_ax = axes[2][0]
        lower, upper = E.sprt_bounds(sprt.alpha, sprt.beta)
        llr_ax.plot(x, llrs, color="#15803d", label="LLR")
        llr_ax.axhline(upper, color="#15803d", lw=0.8, ls="--", label=f"H1 ({sprt.elo1:g} Elo)")
        llr_ax.axhline(lower, color="#b91c1c", lw=0.8, ls="--", label=f"H0 ({sprt.elo0:g} Elo)")
        llr_ax.set_ylabel("SPRT log-likelihood ratio")
        llr_ax.legend(loc="best", fontsize=8)
    axes[-1][0].set_xlabel("games")
    axes[-1][0].xaxis.set_major_locator(MaxNLocator(integer=True))
    if planned_games is not None and planned_games > n:
        axes[-1][0].set_xlim(0.5, planned_games + 0.5)
    low, high = lows[-1], highs[-1]
    played = f"{n} games" if planned_games in (None, n) else f"{n} of {planned_games} games"
    players = " vs ".join(f"{side} {name}" if name else side
                          for side, name in (("p1", p1), ("p2", p2)))  # fmt: skip
    title = (
        f"{game + ': ' if game else ''}{players}, {played}\n"
        f"score {scores[-1]:.3f} [{low:.3f}, {high:.3f}], Elo {E.format_elo(elos[-1])} "
        f"[{E.format_elo(elo_lows[-1])}, {E.format_elo(elo_highs[-1])}] (95%)"
    )
    figure.suptitle(title)
    figure.tight_layout()
    return _save(plt, figure, path)


def plot_tournament(result: TournamentResult, path: str | os.PathLike[str]) -> Path:
    """A round robin's standings: each player's score as a bar with its 95% Wilson interval,
    best rated first, the fitted Elo rating written on each bar.

    Raises:
        InvalidParameterError: a bad image name.
        MissingDependencyError: matplotlib is not installed.
    """
    path = check_image_path(path)
    plt = _pyplot()
    rows = result.standings()
    figure, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(rows) + 2), 4.5))
    scores = [row.score for row in rows]
    intervals = [wilson_interval(row.score, row.games) for row in rows]
    errors = [[s - lo for s, (lo, _) in zip(scores, intervals, strict=True)],
              [hi - s for s, (_, hi) in zip(scores, intervals, strict=True)]]  # fmt: skip
    ax.bar(range(len(rows)), scores, yerr=errors, capsize=4, color="#60a5fa")
    for i, row in enumerate(rows):
        rating = render.number_text(row.rating, 0, sign=True)
        ax.text(i, 0.02, f"{rating} Elo", ha="center", va="bottom", fontsize=8)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xticks(range(len(rows)))
    slanted = len(rows) > 4 or max(len(row.player) for row in rows) > 14
    ax.set_xticklabels([row.player for row in rows], rotation=30 if slanted else 0,
                       ha="right" if slanted else "center", fontsize=8)  # fmt: skip
    ax.set_ylabel("score (95% interval, Wilson)")
    ax.set_title(
        f"{result.game}: round robin, {result.games_per_pair} games per pair, "
        f"{len(result.records)} games"
    )
    figure.tight_layout()
    return _save(plt, figure, path)


__all__ = [
    "MAX_BARS",
    "check_image_path",
    "plot_match",
    "plot_search",
    "plot_tournament",
    "plot_training",
    "require_matplotlib",
]
