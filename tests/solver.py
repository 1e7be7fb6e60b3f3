"""An exact negamax solver for small games, used as ground truth by the tests."""

from __future__ import annotations

from playout import GameState


def solve(root: GameState) -> int:
    """Game-theoretic value of ``root`` for the player to move: 1 win, 0 draw, -1 loss.

    Iterative depth-first search with a memo (no recursion), for two-player zero-sum games
    with returns in {-1, 0, 1}.
    """
    memo: dict[GameState, int] = {}
    stack: list[tuple[GameState, bool]] = [(root, False)]
    while stack:
        state, children_done = stack.pop()
        if state in memo:
            continue
        if state.is_terminal():
            player = _last_mover_opponent(state)
            memo[state] = int(state.returns()[player])
            continue
        children = [state.play(a) for a in state.legal_actions()]
        if not children_done:
            stack.append((state, True))
            stack.extend((c, False) for c in children if c not in memo)
            continue
        me = state.current_player()
        best = -2
        for child in children:
            value = memo[child]
            # memo holds values for the player to move in the child (or, at the end, for the
            # player who would move next); convert to our point of view.
            best = max(best, value if _player_to_move(child) == me else -value)
        memo[state] = best
    return memo[root]


def _player_to_move(state: GameState) -> int:
    if state.is_terminal():
        return _last_mover_opponent(state)
    return state.current_player()


def _last_mover_opponent(state: GameState) -> int:
    moves = getattr(state, "num_moves", None)
    if moves is None:
        raise TypeError("solve() needs states with num_moves at the end of the game")
    return int(moves) % 2


def outcome_within(root: GameState, plies: int) -> int:
    """Value of ``root`` for the player to move when the game is cut after ``plies`` plies:
    1 if they force a win within that many plies, -1 if the opponent does, else 0.

    Iterative depth-limited negamax (no recursion), for two-player games with returns in
    {-1, 0, 1}; an unfinished line at the horizon counts as 0.
    """
    # Frames: (state, depth, children values so far, remaining children).
    result: dict[int, int] = {}
    stack: list[tuple[int, GameState, int, int | None]] = [(0, root, 0, None)]
    values: list[int] = []
    frames: list[tuple[GameState, int, list[GameState], list[int]]] = []
    del result, stack
    frames.append((root, plies, [], []))
    _push_children(frames[-1])
    while True:
        state, depth, todo, got = frames[-1]
        if todo:
            child = todo.pop()
            if child.is_terminal():
                mover = state.current_player()
                got.append(int(child.returns()[mover]))
            elif depth - 1 == 0:
                got.append(0)
            else:
                frames.append((child, depth - 1, [], []))
                _push_children(frames[-1])
            continue
        frames.pop()
        value = max(got)
        if not frames:
            return value
        frames[-1][3].append(-value)
        values.clear()


def _push_children(frame: tuple[GameState, int, list[GameState], list[int]]) -> None:
    state, _, todo, _ = frame
    todo.extend(state.play(a) for a in state.legal_actions())
