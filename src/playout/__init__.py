"""playout: Monte Carlo Tree Search for games.

Three levels:

* one call: ``playout.search(state, simulations=800)`` returns a :class:`SearchResult`;
* the engine: :class:`MCTS` with plug points (selection rules, evaluators, budgets, tree reuse);
* the building blocks: the game protocol (:class:`GameState`, :class:`Game`,
  :class:`GameSpec`), the registry of games, the conformance checker;
* the arena: players (:class:`Player`, :func:`parse_player`), :func:`play_game`,
  :func:`run_match` and :func:`run_tournament` on any executor (:func:`make_executor`), saved
  games read back with :func:`read_records`.

Values are always for the player to move in the position they describe (see
:mod:`playout._src.game`).
"""

from playout._src.arena import (
    GameRecord,
    MatchResult,
    MctsPlayer,
    Player,
    RandomPlayer,
    TournamentResult,
    make_executor,
    parse_player,
    play_game,
    read_records,
    run_match,
    run_tournament,
)
from playout._src.compiled.kernel import Kernel, make_kernel
from playout._src.config import Budget, DirichletNoise, Gumbel, SearchConfig
from playout._src.conformance import ConformanceReport, check_game
from playout._src.errors import (
    EngineError,
    ExecutorError,
    GameError,
    GameOverError,
    IllegalMoveError,
    InvalidParameterError,
    LabelledDataError,
    MissingDependencyError,
    ModelFileError,
    MoveError,
    MoveParseError,
    PlayoutError,
    PlayoutWarning,
    RecordError,
    RunError,
    RunInUseError,
    SolverLimitError,
    UnknownGameError,
)
from playout._src.evaluation import (
    BatchEvaluator,
    Evaluator,
    Rollout,
    ValueFunction,
    random_policy,
)
from playout._src.flat import FlatResult, flat_monte_carlo
from playout._src.game import CHANCE, TERMINAL, Game, GameSpec, GameState, value_for
from playout._src.parallel import parallel_search
from playout._src.registry import game_names, make_game, register_game
from playout._src.results import Proven, SearchResult, TreeNode, merge_results
from playout._src.rules import (
    PUCT,
    RAVE,
    UCB1,
    EdgeStatistics,
    EpsilonGreedy,
    MoveHeuristic,
    ProgressiveBias,
    parse_rule,
)
from playout._src.search import MCTS, Driver, search

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "MCTS",
    "PUCT",
    "RAVE",
    "TERMINAL",
    "UCB1",
    "BatchEvaluator",
    "Budget",
    "ConformanceReport",
    "DirichletNoise",
    "Driver",
    "EdgeStatistics",
    "EngineError",
    "EpsilonGreedy",
    "Evaluator",
    "ExecutorError",
    "FlatResult",
    "Game",
    "GameError",
    "GameOverError",
    "GameRecord",
    "GameSpec",
    "GameState",
    "Gumbel",
    "IllegalMoveError",
    "InvalidParameterError",
    "Kernel",
    "LabelledDataError",
    "MatchResult",
    "MctsPlayer",
    "MissingDependencyError",
    "ModelFileError",
    "MoveError",
    "MoveHeuristic",
    "MoveParseError",
    "Player",
    "PlayoutError",
    "PlayoutWarning",
    "ProgressiveBias",
    "Proven",
    "RandomPlayer",
    "RecordError",
    "Rollout",
    "RunError",
    "RunInUseError",
    "SearchConfig",
    "SearchResult",
    "SolverLimitError",
    "TournamentResult",
    "TreeNode",
    "UnknownGameError",
    "ValueFunction",
    "__version__",
    "check_game",
    "flat_monte_carlo",
    "game_names",
    "make_executor",
    "make_game",
    "make_kernel",
    "merge_results",
    "parallel_search",
    "parse_player",
    "parse_rule",
    "play_game",
    "random_policy",
    "read_records",
    "register_game",
    "run_match",
    "run_tournament",
    "search",
    "value_for",
]
