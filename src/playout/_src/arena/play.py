"""One game between two players: :func:`play_game`, its :class:`GameRecord`, and seeds.

Reproducibility: game ``i`` of a match is played with its own seed, :func:`game_seed` of the
match seed and ``i`` alone (``SeedSequence(seed).spawn``), and every player is reset with seeds
derived from it, so with simulation budgets the records are the same whatever the number of
workers or the order in which games finish.
"""

from __future__ import annotations

import dataclasses
import random
import time

import numpy as np

from playout._src.arena.players import Player
from playout._src.errors import GameError, InvalidParameterError
from playout._src.evaluation import chance_action, is_count
from playout._src.game import CHANCE, Game, GameState
from playout._src.resignation import Resignation


@dataclasses.dataclass(frozen=True)
class ScoreCheck:
    """A result another program gave for a finished game, beside the game's own.

    A player with a ``game_over(state)`` method returns one (a GTP engine asked its
    ``final_score``): it is recorded in the :class:`GameRecord` and shown in match summaries,
    so that a disagreement (GNU Go removing stones it judges dead, which Tromp-Taylor scoring
    counts as alive) is seen rather than ignored.

    Attributes:
        player: the name of the player that reported it.
        reported: its result as it gave it (GTP: ``B+3.5``, ``W+0.5``, ``0``).
        ours: the game's own result in the same notation.
        same_winner: both name the same winner (or both a draw).
        same_score: both give the same score (margin included).
        dead: when the scores differ, what the program says is dead on the board (GTP:
            ``final_status_list dead``, the points of those stones), if it says; else ``""``.
    """

    player: str
    reported: str
    ours: str
    same_winner: bool
    same_score: bool
    dead: str = ""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One finished game.

    Attributes:
        actions: every action played, in order (chance actions included).
        returns: final return of each player (player 0 moved first).
        players: names of the players as player 0 and player 1.
        seed: the seed the game was played with.
        seconds: wall-clock duration.
        index: the game's number in its match or tournament (0-based).
        opening: how many of the first ``actions`` were an opening given to the game (played
            before either player chose a move; see :func:`random_opening`).
        resigned: the player who resigned (the game ended there, lost by them), or ``None``.
        score_checks: the results other programs reported for the game (see
            :class:`ScoreCheck`), in the order of the players.
    """

    actions: tuple[int, ...]
    returns: tuple[float, ...]
    players: tuple[str, ...]
    seed: int
    seconds: float
    index: int = 0
    opening: int = 0
    resigned: int | None = None
    score_checks: tuple[ScoreCheck, ...] = ()

    @property
    def winner(self) -> int | None:
        """Player id with the strictly highest return, or ``None`` for a draw."""
        best = max(self.returns)
        leaders = [p for p, r in enumerate(self.returns) if r == best]
        return leaders[0] if len(leaders) == 1 else None

    @property
    def num_moves(self) -> int:
        """Actions played (chance actions included)."""
        return len(self.actions)

    @property
    def result_text(self) -> str:
        """``1-0`` (player 0 won), ``0-1`` or ``1/2-1/2``."""
        winner = self.winner
        return "1/2-1/2" if winner is None else "1-0" if winner == 0 else "0-1"


def resignation_returns(num_players: int, resigned: int) -> tuple[float, ...]:
    """The returns of a two-player game that ``resigned`` gave up: -1 for them, +1 for the
    other."""
    return tuple(-1.0 if player == resigned else 1.0 for player in range(num_players))


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a match seeded ``seed`` (independent of the game count)."""
    child = np.random.SeedSequence(int(seed), spawn_key=(int(index),))
    return int(child.generate_state(1, dtype=np.uint64)[0] >> 1)


def _sub_seeds(seed: int, count: int) -> list[int]:
    """The first ``count`` seeds derived from ``seed`` (see :func:`game_seed`)."""
    return [game_seed(seed, index) for index in range(count)]


def check_two_players(game: Game) -> None:
    """Refuse a game that is not for two players (a match needs two).

    Raises:
        InvalidParameterError: a one-player game.
    """
    if game.spec.num_players != 2:
        raise InvalidParameterError(
            f"{game.spec.name} is a {game.spec.num_players}-player game; a match needs two"
        )


def check_seed(seed: object) -> None:
    """Refuse a seed that is not a whole number >= 0.

    Raises:
        InvalidParameterError: a negative, fractional or boolean seed.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0, got {seed!r}")


def random_opening(game: Game, moves: int, rng: random.Random) -> tuple[GameState, list[int]]:
    """A position after ``moves`` uniformly random moves that do not end the game (fewer
    when every continuation would); the position and the moves. At a chance node the outcome
    is drawn by its probability, and the opening stops there when that outcome would end the
    game (so the players always have the game to play)."""
    state = game.initial_state()
    played: list[int] = []
    for _ in range(moves):
        if state.current_player() == CHANCE:
            action = chance_action(state, rng)
            if state.play(action).is_terminal():
                break
        else:
            choices = [a for a in state.legal_actions() if not state.play(a).is_terminal()]
            if not choices:
                break
            action = rng.choice(choices)
        state = state.play(action)
        played.append(action)
    return state, played


_OPENING_STREAM = 0x6F70  # a spawn key of its own: openings never share a game's seed


def opening_for(game: Game, moves: int, seed: int, pair: int) -> tuple[int, ...]:
    """The opening of the ``pair``-th pair of games of a match or tournament seeded ``seed``:
    :func:`random_opening` of ``moves`` moves from its own generator (both games of a pair,
    the players in either seat, start from it). ``()`` when ``moves`` is 0."""
    if moves == 0:
        return ()
    key = np.random.SeedSequence(int(seed), spawn_key=(int(pair), _OPENING_STREAM))
    rng = random.Random(int(key.generate_state(1, dtype=np.uint64)[0]))
    return tuple(random_opening(game, moves, rng)[1])


def check_openings(openings: object) -> int:
    """Refuse an opening length that is not a whole number >= 0.

    Raises:
        InvalidParameterError: a negative, fractional or boolean count.
    """
    if isinstance(openings, bool) or not isinstance(openings, int) or openings < 0:
        raise InvalidParameterError(
            f"openings must be a whole number of moves >= 0, got {openings!r}"
        )
    return openings


def _chosen_action(player: Player, state: GameState) -> int:
    """The action ``player`` chooses in ``state``, checked for legality.

    Raises:
        GameError: an illegal action.
    """
    chosen = player.choose(state)
    if not is_count(chosen):
        raise GameError(f"player {player.name!r} chose {chosen!r}, not an action id")
    action = int(chosen)
    if action not in state.legal_actions():
        raise GameError(f"player {player.name!r} chose illegal action {action}")
    return action


def play_game(
    game: Game,
    p0: Player,
    p1: Player,
    seed: int = 0,
    *,
    index: int = 0,
    opening: tuple[int, ...] = (),
) -> GameRecord:
    """Play one game of a two-player game; ``p0`` moves first (is player 0).

    A player may resign by raising :class:`Resignation` from ``choose``. At the end of a game
    played out (not resigned) each player with a ``game_over(state)`` method is asked for a
    :class:`ScoreCheck` (or ``None``); players with a ``close()`` method are closed when the
    game ends, also on an error or Ctrl-C (a GTP engine's process is ended there).

    Both players are reset with seeds derived from ``seed``; chance actions, if any, are drawn
    from a generator seeded the same way. The same seed and players give the same game when
    the players' budgets are simulation counts. ``index`` is only stored in the record.
    ``opening``: actions played first, before either player chooses (each player is told of
    them as of any move); they begin the record's actions.

    Raises:
        GameError: a player returned an illegal action, or the opening has one.
    """
    check_two_players(game)
    check_seed(seed)
    seed0, seed1, chance_seed = _sub_seeds(seed, 3)
    chance_rng = random.Random(chance_seed)
    players = (p0, p1)
    state = game.initial_state()
    start = time.perf_counter()
    actions: list[int] = []
    resigned: int | None = None
    checks: list[ScoreCheck] = []
    try:
        p0.reset(state, seed0)
        p1.reset(state, seed1)
        state, resigned = _play_out(game, players, state, actions, opening, chance_rng)
        if resigned is None:
            checks = _score_checks(players, state)
    finally:
        _close_players(players)
    returns = (
        tuple(float(r) for r in state.returns())
        if resigned is None
        else resignation_returns(game.spec.num_players, resigned)
    )
    return GameRecord(
        actions=tuple(actions),
        returns=returns,
        players=(p0.name, p1.name),
        seed=seed,
        seconds=time.perf_counter() - start,
        index=index,
        opening=min(len(opening), len(actions)),
        resigned=resigned,
        score_checks=tuple(checks),
    )


def _play_out(
    game: Game,
    players: tuple[Player, Player],
    state: GameState,
    actions: list[int],
    opening: tuple[int, ...],
    chance_rng: random.Random,
) -> tuple[GameState, int | None]:
    """Play from ``state`` to the end (appending to ``actions``); the final position and the
    player who resigned, if one did."""
    limit = game.spec.max_length
    while not state.is_terminal():
        mover = state.current_player()
        if len(actions) < len(opening):
            action = int(opening[len(actions)])
            if action not in state.legal_actions():
                raise GameError(f"the opening's move {len(actions) + 1} ({action}) is illegal")
        elif mover == CHANCE:
            action = chance_action(state, chance_rng)
        else:
            try:
                action = _chosen_action(players[mover], state)
            except Resignation:
                return state, mover
        for player in players:
            player.notify(action)
        state = state.play(action)
        actions.append(action)
        if limit is not None and len(actions) > limit:
            raise GameError(f"{game.spec.name}: game longer than max_length={limit}")
    return state, None


def _score_checks(players: tuple[Player, Player], state: GameState) -> list[ScoreCheck]:
    """What the players with a ``game_over`` hook report about the final position."""
    checks = []
    for player in players:
        hook = getattr(player, "game_over", None)
        check = None if hook is None else hook(state)
        if check is not None:
            checks.append(check)
    return checks


def _close_players(players: tuple[Player, Player]) -> None:
    """Call ``close()`` on the players that have one (a ``close`` must not raise: it runs
    while another error may be on its way out)."""
    for player in players:
        close = getattr(player, "close", None)
        if close is not None:
            close()


__all__ = [
    "GameRecord",
    "Resignation",
    "ScoreCheck",
    "check_openings",
    "check_seed",
    "check_two_players",
    "game_seed",
    "opening_for",
    "play_game",
    "random_opening",
    "resignation_returns",
]
