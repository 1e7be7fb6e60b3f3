"""The game protocol: what playout needs to know about a game.

A game is two small objects:

* a :class:`Game` holds the rules' metadata (:class:`GameSpec`), makes the initial state and
  translates moves between integer action ids and human notation;
* a :class:`GameState` is one immutable, hashable position. ``play(action)`` returns a *new*
  state and never changes the one it is called on.

Actions are integers. For the built-in grid games the id of square ``(x, y)`` is
``y * width + x``; for connect four it is the 0-based column.

Point of view of values (the one convention used everywhere in playout)
----------------------------------------------------------------------
* ``state.returns()`` gives one number per player, indexed by player id; for the built-in
  two-player games ``(1, -1)`` when player 0 won, ``(-1, 1)`` when player 1 won and ``(0, 0)``
  for a draw. A one-player game returns the total reward collected so far, a one-tuple.
* A *value* in a search result or an evaluator is always **for the player to move** in the
  state it describes. The value of an action at the root is the value for the player who
  chooses it (the player to move at the root).
* Two-player games must be zero-sum: ``returns()[0] == -returns()[1]``. Use
  :func:`value_for` rather than writing ``-value`` by hand.

Chance events (seed 003) come in two kinds, declared in the :class:`GameSpec`:

* explicit (``is_deterministic=False, explicit_chance=True``): a state whose
  ``current_player()`` is :data:`CHANCE` offers ``chance_outcomes()``, a sequence of
  ``(action, probability)`` pairs, and the search samples one by its probability instead of
  choosing; each outcome has its own node, so values are exact in the limit;
* hidden (``is_deterministic=False``, the default ``explicit_chance=False``): ``play()`` itself
  draws at random. The search then recomputes states by replaying the actions from the root
  at every simulation (open loop), so each visit throws the dice afresh; a node stands for the
  actions that lead to it, not for one position. Storing states would freeze the first
  outcome of every move, which is refused (:meth:`playout.SearchConfig.for_game`).

Optional hooks of a :class:`Game` (none is required; the search works without them)
-----------------------------------------------------------------------------------
* ``default_selection()``, ``default_evaluator()``: the game's recommended selection rule and
  leaf evaluator (:meth:`playout.SearchConfig.for_game`).
* ``move_heuristic(state, actions)``: move scores for :class:`~playout.ProgressiveBias`.
* Symmetries (``SearchConfig(symmetry=True)``; :mod:`playout._src.symmetry`; seed 003:
  "symmetric positions need not be explored twice"):

  - ``action_symmetries() -> tuple[tuple[int, ...], ...]``: the board's symmetry group as
    permutations of the action ids, the identity first; ``perm[a]`` is the image of action
    ``a``. Each symmetry ``g`` must map the game onto itself: ``g(s)`` has the legal actions
    ``{perm[a] for a in s.legal_actions()}``, ``g(s.play(a)) == g(s).play(perm[a])``, and the
    same player to move, terminal flag and returns as ``s``.
  - ``transform_state(state, index) -> GameState``: ``g(state)`` for symmetry ``index``.
  - ``canonical_key(state) -> Hashable`` (optional): one key for all the images of a position
    (e.g. the least of their bitboards), for the transposition table; without it the set of
    the images is used.

  The m,n,k games declare the dihedral group of their board (8 symmetries on a square, 4 on
  a rectangle), connect four its left-right mirror.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from numbers import Integral, Real
from typing import TYPE_CHECKING, Protocol, Self, TypeVar, runtime_checkable

from playout._src.errors import GameError, IllegalMoveError

if TYPE_CHECKING:
    import numpy as np

CHANCE: int = -1
"""``current_player()`` of a state where chance, not a player, picks the next action."""

TERMINAL: int = -4
"""``current_player()`` of a finished game (the same sentinel OpenSpiel uses)."""


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Facts about a game, declared once as data and checked when a search starts.

    Attributes:
        name: registry name, e.g. ``"connect4"``.
        num_players: 1 (puzzles, bandits) or 2 (alternating or not, zero-sum).
        num_actions: action ids are ``0 .. num_actions - 1``; ``None`` when unbounded.
        max_length: the most actions a game can last, chance actions included; ``None`` if
            unknown (the search then relies on its depth limit).
        is_zero_sum: returns of the players sum to zero at the end of every game.
        is_deterministic: nothing in the game is random: the same actions from the same state
            always give the same state.
        explicit_chance: every random event of a non-deterministic game is a chance state
            (``current_player() == CHANCE`` with ``chance_outcomes()``) and ``play()`` itself
            never draws at random. The search then keeps one node per outcome and may store
            states. ``False`` (the default) for a non-deterministic game means hidden chance:
            ``play()`` may draw at random (seed 003's random events), so the search recomputes
            states by replaying actions (open loop) instead of freezing the first outcome it
            saw. Needs ``is_deterministic=False``.
        has_intermediate_rewards: ``returns()`` can change before the end (seed 002's bandit
            pays on transitions); when False the search reads returns only at the end.
        min_return, max_return: bounds of any player's total return, for checks and scaling.
        player_names: one display name per player, indexed by player id (``player_names[0]``
            moves first). ``None`` (the default) becomes ``("X", "O")`` for two players and
            ``("player 0",)`` for one; given names must be distinct non-empty strings.
    """

    name: str
    num_players: int
    num_actions: int | None
    max_length: int | None
    is_zero_sum: bool = True
    is_deterministic: bool = True
    explicit_chance: bool = False
    has_intermediate_rewards: bool = False
    min_return: float = -1.0
    max_return: float = 1.0
    player_names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.num_players not in (1, 2):
            raise GameError(f"{self.name}: num_players must be 1 or 2, got {self.num_players}")
        if self.num_players == 2 and not self.is_zero_sum:
            raise GameError(f"{self.name}: two-player games must be zero-sum")
        if self.num_actions is not None and self.num_actions < 1:
            raise GameError(f"{self.name}: num_actions must be positive, got {self.num_actions}")
        if self.max_length is not None and self.max_length < 1:
            raise GameError(f"{self.name}: max_length must be positive, got {self.max_length}")
        for label in ("min_return", "max_return"):
            bound = getattr(self, label)
            if isinstance(bound, bool) or not isinstance(bound, Real) or bound != bound:
                raise GameError(f"{self.name}: {label} must be a number, got {bound!r}")
        if not self.min_return <= self.max_return:
            raise GameError(f"{self.name}: min_return exceeds max_return")
        if self.explicit_chance and self.is_deterministic:
            raise GameError(
                f"{self.name}: explicit_chance=True declares chance states, which needs "
                "is_deterministic=False"
            )
        # Frozen dataclass: the default names are filled in once, here.
        object.__setattr__(self, "player_names", self._checked_player_names())

    def _checked_player_names(self) -> tuple[str, ...]:
        """``player_names`` validated, or the default names for ``num_players``."""
        names = self.player_names
        if names is None:
            return ("X", "O") if self.num_players == 2 else ("player 0",)
        if isinstance(names, str) or not isinstance(names, Sequence):
            raise GameError(f"{self.name}: player_names must be a tuple of strings, got {names!r}")
        names = tuple(names)
        if len(names) != self.num_players:
            raise GameError(
                f"{self.name}: player_names has {len(names)} entries for "
                f"{self.num_players} players: {names!r}"
            )
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise GameError(
                    f"{self.name}: player names must be non-empty strings, got {name!r}"
                )
        if len(set(names)) != len(names):
            raise GameError(f"{self.name}: player names must be distinct, got {names!r}")
        return names

    def player_name(self, player: int) -> str:
        """The display name of player ``player`` (0-based id)."""
        names = self.player_names
        assert names is not None  # filled in by __post_init__
        if isinstance(player, bool) or not 0 <= player < len(names):
            raise GameError(f"{self.name}: no player {player!r} (players 0..{len(names) - 1})")
        return names[player]


@runtime_checkable
class GameState(Protocol):
    """One position of a game. Immutable and hashable; equal positions compare equal."""

    @property
    def game(self) -> Game:
        """The game this position belongs to."""
        ...

    def current_player(self) -> int:
        """Id of the player to move (0-based), :data:`CHANCE`, or :data:`TERMINAL`."""
        ...

    def legal_actions(self) -> Sequence[int]:
        """Action ids playable here; empty exactly when the game is over."""
        ...

    def play(self, action: int) -> Self:
        """The position after ``action``; ``self`` is left unchanged."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def returns(self) -> Sequence[float]:
        """Total return of each player so far (the final outcome once the game is over)."""
        ...


@runtime_checkable
class Game(Protocol):
    """The rules of a game: metadata, the initial state and move notation."""

    @property
    def spec(self) -> GameSpec:
        """The game's declared metadata."""
        ...

    def initial_state(self) -> GameState:
        """The position a game starts from."""
        ...

    def action_to_string(self, state: GameState, action: int) -> str:
        """Human notation of ``action`` played in ``state``."""
        ...

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse human notation; raise :class:`~playout.MoveError` if malformed or illegal."""
        ...

    def render(self, state: GameState) -> str:
        """A text picture of ``state``."""
        ...


def check_action_type(action: object) -> None:
    """Refuse an action that is not a whole number: a bool, a float or a complex number may
    compare equal to a legal action id (``True == 1``, ``1.0 == 1``) yet mean nothing. Games
    call it from ``play`` when ``type(action) is not int`` (numpy's integers pass).

    Raises:
        IllegalMoveError: not a whole number.
    """
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise IllegalMoveError(f"an action is a whole number (an action id), got {action!r}")


def value_for(player: int, value_for_player0: float) -> float:
    """Convert a value seen by player 0 into the value seen by ``player``.

    In a two-player zero-sum game player 1 sees the negation; in a one-player game, or at a
    chance state (``player == CHANCE``), the value is returned unchanged.
    """
    return -value_for_player0 if player == 1 else value_for_player0


def grid_planes(grid: Sequence[Sequence[int]], second_to_move: bool) -> np.ndarray:
    """A two-player board as network input planes seen by the player to move:
    ``float32[2, rows, columns]``, plane 0 the mover's stones, plane 1 the opponent's.
    ``grid`` holds 1 for player 0's stones, -1 for player 1's, 0 for empty squares."""
    import numpy as np

    board = np.asarray(grid, dtype=np.float32)
    if second_to_move:
        board = -board
    return np.stack([board > 0, board < 0]).astype(np.float32)


S = TypeVar("S", bound=GameState)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Game",
    "GameSpec",
    "GameState",
    "check_action_type",
    "grid_planes",
    "value_for",
]
