"""Built-in games: m,n,k (tic-tac-toe, gomoku), connect four, seed 002's bandit tree, Pig (dice,
explicit chance nodes), and adapters: :func:`from_seed_state` for games written against seed
000's interface (with :class:`~playout.games.seed.SeedMCTS`, seed 000's ``MCTS`` class) and
:func:`from_env` for seed 002's reset/step environments with rewards.

Find them by name with :func:`playout.make_game` (``"tictactoe"``, ``"mnk"``, ``"gomoku"``,
``"connect4"``, ``"bandit"``, ``"pig"``, ``"go"``, ``"chess"``) or build them directly from the
classes below. Go (:mod:`playout.games.go`) and chess (:mod:`playout.games.chess`, extra
``chess``) are imported from their own modules, not re-exported here.
"""

from playout.games.bandit import BanditState, BanditTreeGame, get_future_value
from playout.games.connect4 import Connect4Game, Connect4State, play_moves
from playout.games.env import EnvGame, EnvState, from_env
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
from playout.games.seed import SeedGame, SeedMCTS, SeedState, from_seed_state

__all__ = [
    "BanditState",
    "BanditTreeGame",
    "Connect4Game",
    "Connect4State",
    "EnvGame",
    "EnvState",
    "MnkGame",
    "MnkState",
    "NeighborRollout",
    "PigGame",
    "PigState",
    "SeedGame",
    "SeedMCTS",
    "SeedState",
    "from_env",
    "from_seed_state",
    "get_future_value",
    "gomoku",
    "neighbor_actions",
    "neighbor_policy",
    "play_moves",
    "threat_scores",
    "tictactoe",
]
