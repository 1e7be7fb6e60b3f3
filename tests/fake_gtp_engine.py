"""A small GTP engine for the tests of the ``gtp:`` arena player, with ways to misbehave.

``python fake_gtp_engine.py MODE``: it plays Go by playout's rules and answers ``genmove`` with
the first legal point from the top left that does not fill one of its own single-point eyes,
else ``pass``. MODE changes one thing:

* ``normal``: as above;
* ``resign``: answers ``resign`` to its first ``genmove``;
* ``crash``: exits (code 3, a line on standard error) at its first ``genmove``;
* ``garbage``: answers its first ``genmove`` with a line that is no GTP reply;
* ``silent``: never answers its first ``genmove``;
* ``slowstart``: waits 6 seconds before it reads its first command (an engine loading);
* ``illegal``: answers its second ``genmove`` with the point of its first (occupied);
* ``score:TEXT``: answers ``final_score`` with TEXT, and ``final_status_list dead`` with
  ``A1 B1`` (in every mode it knows that command).
"""

from __future__ import annotations

import sys
import time

from playout.games.go import GoGame
from playout.games.go.board import point_name, score_text


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "normal"
    game = GoGame(9, 7.5)
    state = game.initial_state()
    played: list[int] = []
    if mode == "slowstart":
        time.sleep(6)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, arguments = words[0], words[1:]
        reply = ""
        if command == "quit":
            print("=\n", flush=True)
            return
        if command == "boardsize":
            game = GoGame(int(arguments[0]), game.komi)
            state = game.initial_state()
        elif command == "komi":
            game = GoGame(game.size, float(arguments[0]))
            state = game.initial_state()
        elif command == "clear_board":
            state = game.initial_state()
        elif command == "play":
            state = state.play(game.string_to_action(state, arguments[1]))
        elif command == "genmove":
            if mode == "resign":
                reply = "resign"
            elif mode == "crash":
                print("fake engine: crashing on purpose", file=sys.stderr, flush=True)
                sys.exit(3)
            elif mode == "garbage":
                print("I am not a GTP engine", flush=True)
                continue
            elif mode == "silent":
                time.sleep(60)
            elif mode == "illegal" and played:
                reply = point_name(game.size, played[0])
            else:
                action = _move(game, state)
                state = state.play(action)
                played.append(action)
                reply = game.action_to_string(state, action)
        elif command == "final_score":
            reply = mode[6:] if mode.startswith("score:") else score_text(state.score())
        elif command == "known_command":
            reply = "true" if arguments == ["final_status_list"] else "false"
        elif command == "final_status_list":
            reply = "A1 B1" if mode.startswith("score:") else ""
        print(f"= {reply}\n", flush=True)


def _move(game: GoGame, state: object) -> int:
    """The first legal point that is not one of the mover's single-point eyes, else pass."""
    own = 1 + state.current_player()  # type: ignore[attr-defined]
    size = game.size
    for action in state.legal_actions():  # type: ignore[attr-defined]
        if action == game.pass_action:
            continue
        y, x = divmod(action, size)
        neighbours = [(y + dy, x + dx) for dy, dx in ((0, 1), (1, 0), (0, -1), (-1, 0))]
        cells = [state.board[ny * size + nx] for ny, nx in neighbours  # type: ignore[attr-defined]
                 if 0 <= ny < size and 0 <= nx < size]  # fmt: skip
        if all(cell == own for cell in cells):
            continue
        return action
    return game.pass_action


if __name__ == "__main__":
    main()
