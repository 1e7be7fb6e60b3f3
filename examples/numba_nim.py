"""Your own fast game on the compiled search: Nim in numba, in a few dozen lines.

Nim: heaps of objects; a move takes 1 or more objects from one heap; whoever takes the last
object wins. The game is written twice, both short:

1. a **kernel**: numba functions on a compact state (a ``uint64`` array), bundled with
   :func:`playout.kernels.make_kernel`. The compiled driver runs every simulation
   through them, in machine code. Nim writes three (its legal moves, a move, a random game); the
   other two come with playout: the start is left out (an all-zero state, which the engine
   never uses here: it starts from encoded Python states) and the player to move is
   :func:`playout.kernels.alternating_player`, which reads word 0;
2. a **Python state** following :class:`playout.GameState`, so that the rest of playout
   (conformance checker, Python engine, CLI-style tools) understands the game too. Its
   ``compiled_kernel()`` method is the hook that lets :class:`playout.MCTS` pick the
   compiled driver automatically.

Action ids: taking ``t`` objects (1-based) from heap ``h`` is ``h * max_heap + (t - 1)``.

Run it: ``python examples/numba_nim.py`` (the first run compiles the kernel, about a second;
later runs load it from numba's on-disk cache).
"""

from __future__ import annotations

import dataclasses
import functools

import numba
import numpy as np

import playout
from playout.kernels import (
    JIT_OPTIONS,
    MOVER_WON,
    MOVES,
    ONGOING,
    Kernel,
    alternating_player,
    make_kernel,
    random_below,
)

# -- 1. the kernel: compact state = [player to move, heap_0, ..., heap_{n-1}] -----------------
# params = [num_heaps, max_heap]; word 0 (MOVES) is what alternating_player reads.


@numba.njit(**JIT_OPTIONS)
def nim_legal_actions(params, state, out):
    num_heaps, max_heap = params[0], params[1]
    count = 0
    for h in range(num_heaps):
        for take in range(1, np.int64(state[1 + h]) + 1):
            out[count] = h * max_heap + take - 1
            count += 1
    return count


@numba.njit(**JIT_OPTIONS)
def nim_play(params, state, action):
    num_heaps, max_heap = params[0], params[1]
    state[1 + action // max_heap] -= np.uint64(action % max_heap + 1)
    state[MOVES] ^= np.uint64(1)  # the other player's turn
    for h in range(num_heaps):
        if state[1 + h] != 0:
            return ONGOING
    return MOVER_WON  # the mover took the last object


@numba.njit(**JIT_OPTIONS)
def nim_rollout(params, state, scratch, rng):
    num_heaps = params[0]
    total = 0
    for h in range(num_heaps):  # copy the heaps: the state must stay unchanged
        scratch[h] = np.int64(state[1 + h])
        total += scratch[h]
    player = np.int64(state[MOVES])
    while True:
        # One of the ``total`` legal moves, uniformly: the r-th object counted over all heaps.
        r = random_below(rng, total)
        h = 0
        while r >= scratch[h]:
            r -= scratch[h]
            h += 1
        scratch[h] -= r + 1  # take r + 1 objects from heap h
        total -= r + 1
        if total == 0:
            return 1.0 if player == 0 else -1.0
        player ^= 1


def encode(state: NimState) -> np.ndarray:
    """The compact state of a Python :class:`NimState`."""
    return np.array([state.player, *state.heaps], dtype=np.uint64)


@functools.cache
def nim_kernel(num_heaps: int, max_heap: int) -> Kernel:
    return make_kernel(
        name="nim",
        params=[num_heaps, max_heap],
        state_size=num_heaps + 1,
        num_actions=num_heaps * max_heap,
        max_length=num_heaps * max_heap,
        scratch_size=num_heaps,
        legal_actions=nim_legal_actions,
        play=nim_play,
        current_player=alternating_player,
        rollout=nim_rollout,
        encode=encode,
    )


# -- 2. the Python game, for everything else in playout ---------------------------------------


@dataclasses.dataclass(frozen=True)
class NimGame:
    """Nim starting from ``heaps``; the player who takes the last object wins."""

    heaps: tuple[int, ...] = (3, 4, 5)

    @property
    def spec(self) -> playout.GameSpec:
        return playout.GameSpec(
            name="nim",
            num_players=2,
            num_actions=len(self.heaps) * max(self.heaps),
            max_length=sum(self.heaps),
        )

    def initial_state(self) -> NimState:
        return NimState(self, self.heaps, 0)

    def action_to_string(self, state: NimState, action: int) -> str:
        heap, take = divmod(action, max(self.heaps))
        return f"{heap}:{take + 1}"

    def string_to_action(self, state: NimState, text: str) -> int:
        try:
            heap, take = (int(part) for part in text.split(":"))
        except ValueError:
            raise playout.MoveParseError(f"write heap:take, e.g. 0:2, not {text!r}") from None
        action = heap * max(self.heaps) + take - 1
        if action not in state.legal_actions():
            raise playout.IllegalMoveError(f"cannot take {take} from heap {heap}")
        return action

    def render(self, state: NimState) -> str:
        return "\n".join(f"{h}: {'|' * n}" for h, n in enumerate(state.heaps))


@dataclasses.dataclass(frozen=True)
class NimState:
    game: NimGame
    heaps: tuple[int, ...]
    player: int

    def current_player(self) -> int:
        return playout.TERMINAL if self.is_terminal() else self.player

    def legal_actions(self) -> list[int]:
        width = max(self.game.heaps)
        return [h * width + t for h, n in enumerate(self.heaps) for t in range(n)]

    def play(self, action: int) -> NimState:
        heap, take = divmod(action, max(self.game.heaps))
        if not 0 <= heap < len(self.heaps) or not 0 <= take < self.heaps[heap]:
            raise playout.IllegalMoveError(f"action {action} is not legal here")
        heaps = list(self.heaps)
        heaps[heap] -= take + 1
        return NimState(self.game, tuple(heaps), 1 - self.player)

    def is_terminal(self) -> bool:
        return not any(self.heaps)

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        winner = 1 - self.player  # the player who took the last object
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def compiled_kernel(self) -> Kernel:
        """The hook :class:`playout.MCTS` looks for to run the search compiled."""
        return nim_kernel(len(self.game.heaps), max(self.game.heaps))


def main() -> None:
    game = NimGame((3, 4, 5))
    print(playout.check_game(game, num_games=200))
    engine = playout.MCTS(game.initial_state(), seed=1)  # compiled, through the hook
    result = engine.run(playout.Budget(simulations=20_000))
    best = game.action_to_string(game.initial_state(), result.best_action)
    print(f"{engine.backend} search: take {best} (heap:objects); proven: {result.proven}")
    print("The winning move makes the xor of the heaps zero: 3^4^5 = 2, so take 2 from heap 0.")


if __name__ == "__main__":
    main()
