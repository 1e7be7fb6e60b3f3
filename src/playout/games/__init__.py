"""Built-in games: m,n,k (tic-tac-toe, gomoku), connect four, seed 002's bandit tree, Pig (dice,
explicit chance nodes), and the adapter for games written against seed 000's interface.

Find them by name with :func:`playout.make_game` (``"tictactoe"``, ``"mnk"``, ``"gomoku"``,
``"connect4"``, ``"bandit"``, ``"pig"``) or build them directly from the classes below.
"""

from playout.games.bandit import BanditState, BanditTreeGame, get_future_value
from playout.games.connect4 import Connect4Game, Connect4State, play_moves
from playout.games.mnk import (
    MnkGame,
    MnkState,
    NeighborRollout,
    gomoku,
    neighbor_actions,
    neighbor_policy,
    threat_scores,
    tictactoe,
)
from playout.games.pig import PigGame, PigState
from playout.games.seed import SeedGame, SeedState, from_seed_state

__all__ = [
    "BanditState",
    "BanditTreeGame",
    "Connect4Game",
    "Connect4State",
    "MnkGame",
    "MnkState",
    "NeighborRollout",
    "PigGame",
    "PigState",
    "SeedGame",
    "SeedState",
    "from_seed_state",
    "get_future_value",
    "gomoku",
    "neighbor_actions",
    "neighbor_policy",
    "play_moves",
    "threat_scores",
    "tictactoe",
]
