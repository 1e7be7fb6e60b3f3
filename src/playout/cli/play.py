"""``playout play``: a human against MCTS in the terminal."""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from pathlib import Path
from typing import Any

from playout import render
from playout._src.errors import GameOverError, InvalidParameterError, MoveError, MoveParseError
from playout._src.evaluation import chance_action
from playout._src.game import CHANCE
from playout.cli.common import EXIT_OK, out
from playout.cli.engine import make_engine, search_budget
from playout.cli.position import make_game, parse_moves
from playout.cli.progress import progress_bar

QUIT_WORDS = frozenset({"q", "quit", "exit"})
HELP_WORDS = frozenset({"?", "h", "help"})


def read_line(prompt: str) -> str:
    """One line of input; raises EOFError at end of input. Echoes piped input."""
    if sys.stdin.isatty():
        return input(prompt)
    print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    print(line.rstrip("\r\n"), flush=True)
    return line


def human_move(game: Any, state: Any, label: str) -> int | None:
    """Ask until the human types a legal move; None to quit."""
    while True:
        text = read_line(f"your move ({label}): ").strip()
        if text.lower() in QUIT_WORDS:
            return None
        if not text:
            continue
        if text.lower() in HELP_WORDS:
            legal = " ".join(game.action_to_string(state, a) for a in state.legal_actions())
            out(f"legal moves: {legal}")
            out("type a move in the notation shown, or 'quit' to stop")
            continue
        try:
            return int(game.string_to_action(state, text))
        except MoveParseError as error:
            out(f"cannot read that move: {error}")
        except MoveError as error:
            out(f"illegal move: {error}")


def cmd_play(args: argparse.Namespace) -> int:
    """``playout play``: a human against MCTS in the terminal."""
    game = make_game(args)
    if game.spec.num_players != 2:
        raise InvalidParameterError(f"{game.spec.name} is not a two-player game; try analyze")
    state, actions = parse_moves(game, args.moves)
    if state.is_terminal():
        raise GameOverError(
            f"the game is over after these moves ({render.outcome_text(game, state)}): "
            "nothing to play"
        )
    save = getattr(args, "save", None)
    if save is not None:
        check_sgf_save(game, save, actions)
    engine = make_engine(state, args)  # built before the first prompt: option errors first
    human = 0 if args.first == "human" else 1
    ai_label = render.player_label(game, 1 - human)
    human_label = render.player_label(game, human)
    budget = search_budget(args)
    rng = random.Random(args.seed)  # chance events (Pig's die)
    played = list(actions)
    names = ("human", "playout") if human == 0 else ("playout", "human")
    try:
        out(
            f"{game.spec.name}: you are {human_label}, the AI is {ai_label}. "
            "Type 'help' for the legal moves, 'quit' to stop."
        )
        if actions:
            moves = render.moves_text(game, game.initial_state(), actions)
            plural = "s" if len(moves) != 1 else ""
            out(f"after {len(moves)} move{plural}: {' '.join(moves)}")
        out(render.board_text(game, state))
        while not state.is_terminal():
            if state.current_player() == CHANCE:  # the dice, drawn with their odds
                outcome = chance_action(state, rng)
                out(f"chance plays {game.action_to_string(state, outcome)}")
                played.append(outcome)
                engine.advance(outcome)
                state = state.play(outcome)
                out(render.board_text(game, state))
                continue
            if state.current_player() == human:
                action = human_move(game, state, human_label)
                if action is None:
                    out("bye")
                    return EXIT_OK
                out(f"you play {game.action_to_string(state, action)}")
                played.append(action)
                engine.advance(action)
                state = state.play(action)
                if state.is_terminal():
                    out(render.board_text(game, state))
                continue
            with progress_bar(budget, f"{ai_label} thinking") as callback:
                result = engine.run(progress=callback)
            action = result.best_action
            out(f"\nAI ({ai_label}) plays {game.action_to_string(state, action)}")
            played.append(action)
            engine.advance(action)
            state = state.play(action)
            out(render.board_text(game, state))
            out("")
            grid = render.probability_grid_text(game, result)
            if grid:
                out(grid)
            proof = render.proven_text(game, result, budget.simulations)
            if proof:
                out(proof)
            value = render.number_text(result.value, sign=True)
            effort = render.simulations_text(result)
            out(f"AI value: {value} (for {ai_label}, in [-1, 1]; {effort})\n")
        returns = tuple(state.returns())
        if returns[human] > returns[1 - human]:
            verdict = "you win"
        elif returns[human] < returns[1 - human]:
            verdict = "the AI wins"
        else:
            verdict = "nobody wins"
        out(f"game over: {render.outcome_text(game, state)} ({verdict})")
        return EXIT_OK
    except (EOFError, KeyboardInterrupt):
        out("\nbye")
        return EXIT_OK
    finally:
        if save is not None:
            save_sgf(game, save, played, names)


def check_sgf_save(game: Any, path: str, actions: list[int]) -> None:
    """Refuse ``--save`` for a game or file name that SGF does not fit, before the game.

    Raises:
        InvalidParameterError: not Go, not a ``.sgf`` name, or a file that cannot be written.
        MissingDependencyError: sgfmill is missing.
    """
    from playout._src.arena.records import check_writable, is_sgf_path
    from playout.games.go import GoGame
    from playout.games.go.sgf import game_to_sgf

    if not isinstance(game, GoGame) or not is_sgf_path(path):
        raise InvalidParameterError("--save writes Go games as SGF: play go --save FILE.sgf")
    check_writable(path)
    _try_writing_beside(path)
    game_to_sgf(game, actions)


def _try_writing_beside(path: str) -> None:
    """Create and remove the temporary file that :func:`save_sgf` writes first, so that a
    place where files cannot be made (``/proc``, a read-only mount that says otherwise) is
    refused before the game rather than after it.

    Raises:
        InvalidParameterError: the file cannot be created.
    """
    from playout._src.files import temporary_path

    temporary = temporary_path(Path(path))
    try:
        temporary.open("xb").close()
    except FileExistsError:
        return  # another save under way there: the directory is writable
    except OSError as error:
        raise InvalidParameterError(f"cannot write {path!r}: {error.strerror}") from None
    with contextlib.suppress(OSError):
        temporary.unlink()


def save_sgf(game: Any, path: str, actions: list[int], names: tuple[str, str]) -> None:
    """Write the game played so far to ``path`` as SGF (whole or not at all)."""
    from playout._src.files import write_atomic
    from playout.games.go.sgf import game_to_sgf

    data = game_to_sgf(game, actions, players=names)
    write_atomic(path, lambda file: file.write(data))
    out(f"game saved to {path}")


__all__ = ["check_sgf_save", "cmd_play", "human_move", "read_line", "save_sgf"]
