"""Adapter for games written against seed 000's interface.

Seed 000 ("Coding the AlphaZero search algorithm from scratch, part 2") defines a game by a
state object with three methods, always **seen from the player to move**:

* ``get_winner()``: ``None`` while the game runs; at the end ``1`` if the player to move in
  that state has won, ``-1`` if the other player has won, ``0`` for a draw;
* ``get_possible_actions()``: a list of hashable ``Action`` objects (``__eq__``/``__hash__``);
* ``transition(action)``: the new state, seen from the next player.

:func:`from_seed_state` wraps such a root state into a :class:`SeedGame` that follows playout's
protocol: the player to move at the wrapped root is player 0, the players alternate, and
``get_winner()`` becomes ``returns()`` (``(1, -1)`` when player 0 won, ...). Actions get
integer ids in the order the adapter first sees them; the mapping lives in the game object, so
ids are stable for the lifetime of that :class:`SeedGame` (a cache that only grows).

Random events the seed-003 way: a game whose ``transition()`` draws at random (so replaying the
same actions need not give the same state) is wrapped with ``from_seed_state(state,
deterministic=False)``. Its spec then says ``is_deterministic=False`` with hidden chance, so the
search recomputes states by replaying actions at every simulation (open loop: every visit
throws the dice afresh), the MCTS-Solver is off (a proof needs every replay of a line to end
the same way), and its states compare by identity. Whether a game draws at random cannot be
told reliably by watching it, hence the flag; a search of a game wrapped without it that sees
a replay or a second ``transition()`` come out differently raises a
:class:`~playout.GameError` naming the flag.

:class:`SeedMCTS` is seed 000's ``MCTS`` class on top of :class:`playout.MCTS`, so the seed's
own calling code runs unchanged::

    from playout.games.seed import SeedMCTS as MCTS

    mcts_player = MCTS(TicTacToeGameState(initial_state), np.sqrt(2), 800)
    action = mcts_player.decide(advance=False)          # the seed's own Action object
    print(mcts_player.root_state.transition(action))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from numbers import Real
from typing import Any, Protocol, Self, cast

from playout._src.errors import GameError, IllegalMoveError, InvalidParameterError, MoveParseError
from playout._src.game import TERMINAL, GameSpec, GameState
from playout._src.rules import UCB1
from playout._src.search import MCTS, Budget, SearchResult

MUTATION_CHECKS = 64
"""Transitions per game after which the wrapped state is checked unchanged
(:meth:`SeedGame.check_unchanged`): enough to catch a transition that changes its own state,
cheap after that."""

_PLAYER0_WINS: tuple[float, float] = (1.0, -1.0)
_PLAYER1_WINS: tuple[float, float] = (-1.0, 1.0)
_NO_WINNER: tuple[float, float] = (0.0, 0.0)


class SeedGameState(Protocol):
    """The interface of seed 000's ``GameState`` (from the player to move's point of view)."""

    def get_winner(self) -> int | None:
        """``None`` while playing; 1 the player to move won, -1 the other won, 0 draw."""
        ...

    def get_possible_actions(self) -> Sequence[Hashable]:
        """The actions available to the player to move."""
        ...

    def transition(self, action: Any) -> SeedGameState:
        """The state after ``action``, seen from the next player."""
        ...


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SeedState:
    """A wrapped seed-000 state plus the absolute player to move.

    Equality is identity unless the wrapped state class defines ``__eq__`` (then see
    :class:`SeedValueState`): seed 000's own states (numpy boards) have no equality.

    Attributes:
        game: the adapter game.
        inner: the wrapped seed state (seen from the player to move).
        player: the absolute player to move in ``inner`` (0 at the root, then alternating).
        legal: action ids of ``inner.get_possible_actions()``; ``()`` once ``get_winner()`` is
            not ``None``.
        winner: ``inner.get_winner()``, cached (``None`` while the game runs).
    """

    game: SeedGame
    inner: Any
    player: int
    legal: tuple[int, ...] = dataclasses.field(repr=False)
    winner: int | None = dataclasses.field(repr=False)

    def current_player(self) -> int:
        """0 or 1, or :data:`TERMINAL` once the wrapped state has a winner (or a draw)."""
        return TERMINAL if self.winner is not None else self.player

    def legal_actions(self) -> tuple[int, ...]:
        """Ids of the wrapped state's possible actions; ``()`` at the end."""
        return self.legal

    def is_terminal(self) -> bool:
        """Whether the wrapped ``get_winner()`` is not ``None``."""
        return self.winner is not None

    def play(self, action: int) -> Self:
        """``inner.transition`` of the action with this id; ``self`` is unchanged.

        Raises:
            IllegalMoveError: the id is not among this state's legal actions.
        """
        if action not in self.legal:
            if self.winner is not None:
                raise IllegalMoveError("the game is over")
            raise IllegalMoveError(f"action id {action!r} is not legal here (legal: {self.legal})")
        inner_action = self.game.action_for_id(action)
        after = self.inner.transition(inner_action)
        if after is self.inner:
            raise GameError(
                f"{self.game.spec.name}: transition({inner_action!r}) returned the state it was "
                "called on: it must return a new state and leave this one unchanged"
            )
        self.game.check_unchanged(self, inner_action)
        # The game wraps every state in one class (SeedState or SeedValueState): type(self).
        return cast(Self, self.game.wrap(after, 1 - self.player))

    def returns(self) -> tuple[float, float]:
        """``(1, -1)`` player 0 won, ``(-1, 1)`` player 1 won, ``(0, 0)`` draw or running."""
        winner = self.winner
        if not winner:  # None (running) or 0 (draw)
            return _NO_WINNER
        # get_winner() is seen from the player to move in ``inner``: +1 means they won.
        player0_won = (winner == 1) == (self.player == 0)
        return _PLAYER0_WINS if player0_won else _PLAYER1_WINS


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SeedValueState(SeedState):
    """A :class:`SeedState` whose wrapped class defines ``__eq__``/``__hash__``: compares by
    ``(game, player, inner)``, so transpositions of a well-behaved seed game are recognised."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeedValueState):
            return NotImplemented
        return (
            self.game is other.game
            and self.player == other.player
            and bool(self.inner == other.inner)
        )

    def __hash__(self) -> int:
        return hash((id(self.game), self.player, self.inner))


class SeedGame:
    """A seed-000 game behind playout's :class:`~playout.Game` protocol.

    Args:
        root: the wrapped initial state; its player to move is player 0.
        name: the name reported in :attr:`spec`.
        deterministic: False when ``transition()`` draws at random (seed 003's random events,
            handled by recomputing states): the spec then declares the game non-deterministic,
            which turns the MCTS-Solver off by default, and states compare by identity (two
            replays of the same actions may differ).

    The spec: 2 players, zero-sum, ``is_deterministic=deterministic``, ``num_actions=None``
    (ids are assigned as actions are discovered) and ``max_length=None``.
    """

    def __init__(
        self, root: SeedGameState, name: str = "seed-game", *, deterministic: bool = True
    ) -> None:
        if not isinstance(deterministic, bool):
            raise InvalidParameterError(
                f"deterministic must be True or False, got {deterministic!r}"
            )
        self.spec = GameSpec(
            name=name,
            num_players=2,
            num_actions=None,
            max_length=None,
            is_deterministic=deterministic,
        )
        self._ids: dict[Hashable, int] = {}
        self._mutation_checks_left = MUTATION_CHECKS
        self._actions: list[Hashable] = []
        has_value_equality = (
            deterministic
            and type(root).__eq__ is not object.__eq__
            and type(root).__hash__ is not None
        )
        self._state_class: type[SeedState] = SeedValueState if has_value_equality else SeedState
        self._root = self.wrap(root, 0)

    def __repr__(self) -> str:
        return f"SeedGame(name={self.spec.name!r}, num_action_ids={len(self._actions)})"

    def initial_state(self) -> SeedState:
        """The wrapped root state, player 0 to move."""
        return self._root

    def wrap(self, inner: SeedGameState, player: int) -> SeedState:
        """A :class:`SeedState` for ``inner`` with absolute player ``player`` (0 or 1) to move.

        Raises:
            GameError: ``inner`` breaks seed 000's contract: it is not a state (``None``, no
                ``get_winner``), ``get_winner()`` is not ``None``, 1, -1 or 0,
                ``get_possible_actions()`` is not a sequence, lists none while the game runs,
                or lists an action that cannot be hashed.
        """
        name = self.spec.name
        if inner is None or not callable(getattr(inner, "get_winner", None)):
            raise GameError(
                f"{name}: a state must have get_winner(), get_possible_actions() and "
                f"transition(action); got {inner!r} (did transition() forget to return the "
                "new state?)"
            )
        winner = inner.get_winner()
        if winner is not None and (
            isinstance(winner, bool) or not isinstance(winner, Real) or winner not in (1, -1, 0)
        ):
            raise GameError(
                f"{name}: get_winner() returned {winner!r}; it must be None while the game "
                "runs, then 1 (the player to move won), -1 (the other player won) or 0 (draw)"
            )
        if winner is not None:
            return self._state_class(self, inner, player, (), int(winner))
        actions = inner.get_possible_actions()
        if actions is None or isinstance(actions, str | bytes):
            raise GameError(
                f"{name}: get_possible_actions() returned {actions!r}; it must return a list of "
                "actions"
            )
        legal = tuple(self.id_for(a) for a in actions)
        if not legal:
            raise GameError(
                f"{name}: get_possible_actions() returned no action while get_winner() is None:"
                " a finished game must say who won (1, -1 or 0)"
            )
        return self._state_class(self, inner, player, legal, None)

    def check_unchanged(self, state: SeedState, action: Any) -> None:
        """After ``state.inner.transition(action)``: check, on the first
        :data:`MUTATION_CHECKS` transitions of this game, that the wrapped state still has
        the winner and the possible actions it had (seed 000's ``transition`` must not change
        the state it is called on: a copy of a board, not the board).

        Raises:
            GameError: the transition changed the state it was called on.
        """
        if self._mutation_checks_left <= 0:
            return
        self._mutation_checks_left -= 1
        inner = state.inner
        winner = inner.get_winner()
        now = (
            ()
            if winner is not None
            else tuple(self.find_id(a) for a in inner.get_possible_actions())
        )
        if winner != state.winner or sorted(now, key=str) != sorted(state.legal, key=str):
            raise GameError(
                f"{self.spec.name}: transition({action!r}) changed the state it was called on "
                "(its winner or possible actions): it must return a new state and leave this "
                "one unchanged (copy the board before changing it)"
            )

    def id_for(self, action: Hashable) -> int:
        """The integer id of a seed action, assigning the next free id on first sight.

        Raises:
            GameError: the action cannot be hashed (seed 000's ``Action`` defines
                ``__eq__`` and ``__hash__``; a class with ``__eq__`` alone is unhashable).
        """
        try:
            action_id = self._ids.get(action)
        except TypeError:
            raise GameError(
                f"{self.spec.name}: get_possible_actions() listed {action!r}, which cannot be "
                f"hashed: an action needs __eq__ and __hash__ ({type(action).__name__} has "
                f"{'__eq__ without __hash__' if type(action).__hash__ is None else 'no hash'})"
            ) from None
        if action_id is None:
            action_id = len(self._actions)
            self._ids[action] = action_id
            self._actions.append(action)
        return action_id

    def find_id(self, action: object) -> int | None:
        """The id of a seed action already seen, or ``None``; assigns no id.

        An object that cannot be hashed or compared with the game's actions (the seed's
        ``__eq__`` reads attributes of the other object) counts as unknown: ``None``.
        """
        try:
            return self._ids.get(action)  # type: ignore[arg-type,unused-ignore]
        except Exception:  # a foreign object may fail in __hash__ or in the seed's __eq__
            return None

    def action_for_id(self, action: int) -> Any:
        """The seed action object with id ``action``.

        Raises:
            IllegalMoveError: no action has this id.
        """
        if (
            isinstance(action, bool)
            or not isinstance(action, int)
            or not 0 <= action < len(self._actions)
        ):
            raise IllegalMoveError(f"no action has id {action!r}")
        return self._actions[action]

    @property
    def actions(self) -> tuple[Any, ...]:
        """Every seed action seen so far, indexed by id."""
        return tuple(self._actions)

    def action_to_string(self, state: GameState, action: int) -> str:
        """``str()`` of the seed action (its ``__repr__`` when it defines no ``__str__``)."""
        return str(self.action_for_id(action))

    def string_to_action(self, state: GameState, text: str) -> int:
        """Parse ``str()`` or ``repr()`` of one of the legal actions, or an integer id.

        Raises:
            MoveParseError: neither an action's text nor an integer.
            IllegalMoveError: a known action or an id that is not legal here, or a finished game.
        """
        stripped = text.strip()
        state = self._own(state)
        if state.is_terminal():
            raise IllegalMoveError("the game is over")
        for action_id in state.legal:
            action = self._actions[action_id]
            if stripped in (str(action), repr(action)):
                return action_id
        for action in self._actions:
            if stripped in (str(action), repr(action)):
                raise IllegalMoveError(f"{stripped} is not legal here")
        try:
            action_id = int(stripped)
        except ValueError:
            raise MoveParseError(
                f"cannot read move {text!r}: write one of "
                + ", ".join(str(self._actions[a]) for a in state.legal)
                + " or an action id"
            ) from None
        if action_id not in state.legal:
            raise IllegalMoveError(
                f"action id {action_id} is not legal here (legal: {state.legal})"
            )
        return action_id

    def render(self, state: GameState) -> str:
        """``str()`` of the wrapped state and the player to move (seen from that player)."""
        state = self._own(state)
        status = "game over" if state.is_terminal() else f"player {state.player} to move"
        return f"{state.inner}\n({status}; the board is seen from the player to move)"

    def _own(self, state: GameState) -> SeedState:
        if not isinstance(state, SeedState) or state.game is not self:
            raise GameError(f"{state!r} is not a position of {self!r}")
        return state


def from_seed_state(
    seed_state: SeedGameState, name: str = "seed-game", *, deterministic: bool = True
) -> SeedGame:
    """Wrap a seed-000 root state into a :class:`SeedGame` (its player to move is player 0).

    Pass ``deterministic=False`` when ``transition()`` draws at random (see :class:`SeedGame`).
    """
    return SeedGame(seed_state, name=name, deterministic=deterministic)


class SeedMCTS:
    """Seed 000's ``MCTS`` class: its constructor and methods, run by :class:`playout.MCTS`.

    ``MCTS(state, trade_off_constant, n_simulations)`` as in the seed, with the seed's own
    ``Action`` objects in and out: :meth:`decide` returns one, :meth:`transition` takes one.
    The search is :class:`playout.MCTS` with ``selection=UCB1(c=trade_off_constant)`` and
    ``budget=Budget(simulations=n_simulations)`` on the :func:`from_seed_state` wrapping of
    ``state``; the tree is kept between moves as in the seed. Values (:meth:`result`) are for
    the player to move at the root, in [-1, 1] (1 = a win for that player).

    Args:
        state: the seed state the game starts in (seen from the player to move).
        trade_off_constant: the UCB constant C (the seed uses ``sqrt(2)``), finite and >= 0.
        n_simulations: simulations per :meth:`decide` (>= 1).
        seed: seeds the search's random choices (the seed's code draws unseeded).
        deterministic: False for a ``transition()`` that draws at random (solver off).
        store_states: keep each node's seed state (True) or recompute states by replaying
            actions from the root (False, seed 003's way); ``None`` (the default): stored for
            a deterministic game, recomputed (open loop) with ``deterministic=False`` (see
            :class:`playout.SearchConfig`).
        max_depth: the tree grows at most this many moves below the root (``None``: no
            limit); deeper, each simulation evaluates the (recomputed) state by a rollout.
        name: the game name reported in ``game.spec``.

    Raises:
        InvalidParameterError: a bad constant, simulation count or depth.
    """

    trade_off_constant: float
    n_simulations: int
    game: SeedGame
    engine: MCTS

    def __init__(
        self,
        state: SeedGameState,
        trade_off_constant: float,
        n_simulations: int,
        *,
        seed: int | None = None,
        deterministic: bool = True,
        store_states: bool | None = None,
        max_depth: int | None = None,
        name: str = "seed-game",
    ) -> None:
        if isinstance(n_simulations, bool) or not isinstance(n_simulations, int):
            raise InvalidParameterError(
                f"n_simulations must be a whole number, got {n_simulations!r}"
            )
        if n_simulations < 1:
            raise InvalidParameterError(f"n_simulations must be at least 1, got {n_simulations}")
        if isinstance(trade_off_constant, bool) or not isinstance(trade_off_constant, Real):
            raise InvalidParameterError(
                f"trade_off_constant must be a number, got {trade_off_constant!r}"
            )
        self.trade_off_constant = float(trade_off_constant)
        self.n_simulations = n_simulations
        self.game = from_seed_state(state, name=name, deterministic=deterministic)
        self.engine = MCTS(
            self.game.initial_state(),
            selection=UCB1(c=self.trade_off_constant),
            budget=Budget(simulations=n_simulations, max_depth=max_depth),
            seed=seed,
            store_states=store_states,
        )
        self._last: SearchResult | None = None

    def __repr__(self) -> str:
        return (
            f"SeedMCTS(trade_off_constant={self.trade_off_constant}, "
            f"n_simulations={self.n_simulations}, game={self.game!r})"
        )

    @property
    def root_state(self) -> Any:
        """The seed state at the root (seen from its player to move), as in the seed."""
        return self._root().inner

    def decide(self, advance: bool = True) -> Any:
        """Run ``n_simulations`` simulations and return the most visited action, as the
        seed's ``Action`` object; with ``advance`` also move the root past it.

        Raises:
            GameOverError: the root state has a winner (or is a draw).
        """
        self._last = self.engine.run()
        action = self.game.action_for_id(self._last.best_action)
        if advance:
            self.engine.advance(self._last.best_action)
        return action

    def transition(self, action: Any) -> None:
        """Advance the game with ``action`` (a seed ``Action`` possible at the root), keeping
        the subtree below it.

        Raises:
            IllegalMoveError: the game is over, or ``action`` is not one of the root state's
                ``get_possible_actions()`` (another type, or an action not possible here).
        """
        self.engine.advance(self._action_id(action))

    def result(self) -> SearchResult:
        """The root's statistics now (action ids; :meth:`action` turns one into the seed's
        object). Values are for the player to move at the root."""
        result: SearchResult = self.engine.result()
        return result

    def action(self, action_id: int) -> Any:
        """The seed ``Action`` object with integer id ``action_id``."""
        return self.game.action_for_id(action_id)

    def _root(self) -> SeedState:
        root = self.engine.root_state
        assert isinstance(root, SeedState)
        return root

    def _action_id(self, action: Any) -> int:
        root = self._root()
        if root.is_terminal():
            raise IllegalMoveError(f"the game is over: cannot play {action!r}")
        possible = [self.game.action_for_id(i) for i in root.legal]
        kinds = tuple({type(a): None for a in possible})
        if not isinstance(action, kinds):
            names = " or ".join(kind.__name__ for kind in kinds)
            raise IllegalMoveError(
                f"{action!r} is a {type(action).__name__}, not an action of this game ({names})"
            )
        action_id = self.game.find_id(action)
        if action_id is None or action_id not in root.legal:
            raise IllegalMoveError(
                f"{action!r} is not possible here; possible actions: "
                + ", ".join(repr(a) for a in possible)
            )
        return action_id


__all__ = [
    "SeedGame",
    "SeedGameState",
    "SeedMCTS",
    "SeedState",
    "SeedValueState",
    "from_seed_state",
]
