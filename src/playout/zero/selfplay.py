"""Self-play: many games searched in lockstep, their leaves evaluated in one network call.

Every game has its own engine (:class:`playout.MCTS` on the batched driver, tree kept across
moves). One step asks every game's driver for up to ``leaf_batch`` leaves
(:meth:`~playout._src.batched_driver.BatchedDriver.select_leaves`), evaluates all of them in
one call, and hands each game its values and priors back
(:meth:`~playout._src.batched_driver.BatchedDriver.finish_leaves`): with 32 games and 8
leaves each, one network call evaluates 256 positions. This is the design that makes
AlphaZero.jl fast (Laurent 2021); OpenSpiel's Python AlphaZero evaluates one leaf per call.

A game that has run its simulations for the move plays it: for its first
``temperature_moves`` plies a move drawn in proportion to the visit counts (exploration, as in
AlphaZero), afterwards the engine's final choice (most visits, proven wins first). Each
position becomes a training example: the observation, the visit shares as the policy target,
and the game's final outcome for the player to move (with every symmetry the game declares).
With Gumbel search (``ZeroSearch(gumbel=...)``, Gumbel AlphaZero: Danihelka et al. 2022) a
game plays the search's own move, sampled by its Gumbel draw, and learns the improved policy
``softmax(log P + sigma(completed Q))`` instead of the visit shares.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from playout._src.arena.executors import resolve_executor, running
from playout._src.arena.play import random_opening
from playout._src.batched_driver import BatchedDriver
from playout._src.config import DirichletNoise, Gumbel, SearchConfig
from playout._src.errors import InvalidParameterError
from playout._src.forced import pruned_visits
from playout._src.game import GameState, value_for
from playout._src.rules import PUCT
from playout._src.search import MCTS
from playout.zero.evaluator import NetworkEvaluator


@dataclasses.dataclass(frozen=True, kw_only=True)
class ZeroSearch:
    """The search settings of a network-guided player (self-play and play alike).

    Attributes:
        simulations: simulations per move.
        c: PUCT's exploration constant on playout's [-1, 1] value scale (AlphaZero's 1.25
            on its [0, 1] scale is 2.5 here; OpenSpiel's AlphaZero uses 2).
        c_base: AlphaZero's growing-``c`` schedule (Silver et al. 2018); 0 keeps ``c``.
        first_play_value: the value PUCT gives an edge not yet visited (first-play urgency,
            for the player choosing it; 0 is a draw, -1 tries the prior's favourites first).
        leaf_batch: leaves per network call per game (virtual loss spreads them).
        noise: Dirichlet noise at the root (self-play), or ``None`` (play).
        solver: MCTS-Solver on terminal positions in the tree.
        gumbel: Gumbel AlphaZero's search (:class:`playout.Gumbel`, Danihelka et al. 2022)
            instead of PUCT (``c``, ``c_base`` and ``first_play_value`` then unused), or
            ``None``. Its exploration is its Gumbel draw: it takes no ``noise``.
    """

    simulations: int = 200
    c: float = 2.0
    c_base: float = 19652.0
    first_play_value: float = 0.0
    leaf_batch: int = 8
    noise: DirichletNoise | None = None
    solver: bool = True
    gumbel: Gumbel | None = None

    def __post_init__(self) -> None:
        if isinstance(self.simulations, bool) or not isinstance(self.simulations, int):
            raise InvalidParameterError(
                f"simulations must be a whole number, got {self.simulations!r}"
            )
        if self.simulations < 1:
            raise InvalidParameterError(f"simulations must be >= 1, got {self.simulations}")
        # The rule's and the engine's own checks, now rather than at the first move.
        PUCT(c=self.c, c_base=self.c_base, first_play_value=self.first_play_value)
        SearchConfig(
            leaf_batch=self.leaf_batch, root_noise=self.noise, solver=self.solver,
            gumbel=self.gumbel,
        )  # fmt: skip

    def config(self, evaluator: Any, seed: int | None) -> SearchConfig:
        """The engine configuration for these settings."""
        selection = None
        if self.gumbel is None:
            selection = PUCT(c=self.c, c_base=self.c_base, first_play_value=self.first_play_value)
        return SearchConfig(
            selection=selection,
            evaluator=evaluator,
            solver=self.solver,
            root_noise=self.noise,
            leaf_batch=self.leaf_batch,
            seed=seed,
            gumbel=self.gumbel,
        ).replace(simulations=self.simulations)


_SELF_PLAY_NOISE = DirichletNoise(alpha=1.0, fraction=0.25)


@dataclasses.dataclass(frozen=True)
class PlayoutCap:
    """KataGo's playout cap randomisation (Wu 2019, "Accelerating Self-Play Learning in Go",
    section 3.1): each move of a self-play game gets a full search with probability
    ``full_fraction`` and otherwise a fast one of ``fast_simulations``; only the positions
    of full searches become training examples (their value target is still the game's
    outcome). Games get longer for the same compute and the value head more games, while
    every policy target comes from a full search. Wu's Go runs: ``full_fraction`` 0.25,
    fast searches 1/4 to 1/6 of the full ones. As in KataGo, a fast search explores
    nothing: no root noise and no forced playouts, which only a full search gets.

    Attributes:
        full_fraction: the probability of a full search, in (0, 1].
        fast_simulations: the fast search's simulations (>= 1).
    """

    full_fraction: float = 0.25
    fast_simulations: int = 25

    def __post_init__(self) -> None:
        if not 0.0 < float(self.full_fraction) <= 1.0:
            raise InvalidParameterError(
                f"full_fraction must be in (0, 1], got {self.full_fraction!r}"
            )
        fast = self.fast_simulations
        if isinstance(fast, bool) or not isinstance(fast, int) or fast < 1:
            raise InvalidParameterError(
                f"fast_simulations must be a whole number >= 1, got {fast!r}"
            )


@dataclasses.dataclass(frozen=True, kw_only=True)
class SelfPlaySettings:
    """How training games are played and recorded: one value shared by :func:`self_play`,
    :func:`parallel_self_play`, :func:`expert_games` and a training run's
    :class:`~playout.zero.TrainConfig`.

    Attributes:
        search: the network's search (default: 200 simulations with Dirichlet noise at the
            root, alpha 1.0, fraction 0.25). :func:`expert_games` uses its own rollout search.
        temperature_moves: plies at the start of each game whose move is drawn in proportion
            to the visit counts; later moves are the engine's final choice. A Gumbel search
            (``search.gumbel``) always plays its own move, already sampled by its Gumbel draw.
        parallel_games: games searched in lockstep (split among workers in parallel
            self-play).
        opening_moves: each game starts after a uniformly random number, 0 to
            ``opening_moves``, of uniformly random moves (not training positions), so that
            the network also learns positions good play never reaches (0: every game from
            the initial position).
        value_mix: the value target is ``(1 - value_mix) * z + value_mix * q``: ``z`` the
            game's outcome, ``q`` the search's value of the position (both for the player to
            move). Outcomes of games whose moves were drawn at random are noisy targets for
            the positions before the random moves; ``q`` is not (0: AlphaZero's pure ``z``).
        augment: add the symmetric images of every position.
        playout_cap: KataGo's playout cap randomisation (:class:`PlayoutCap`; PUCT search
            only), or ``None``: every move a full search, every position recorded.
        forced_playouts: KataGo's forced playouts and policy-target pruning
            (:mod:`playout._src.forced`, Wu 2019 section 3.2) with this ``k`` (Wu's 2; PUCT
            search only), or 0: none.
        reply_targets: record with each position the opponent's reply to the move played
            from it (one-hot; none at a game's last move), the target of a network's
            auxiliary reply head (:class:`~playout.zero.Architecture` ``reply_head``).
        random_move_rate: after the opening, each move is with this probability a
            uniformly random legal move instead of the search's (its position is recorded
            with the search's policy target as usual), so that the network also meets the
            positions a mistake leads to later in a game, as the random opening does early.
            The outcome of such a game says little about the positions before its last
            random move: their value target is the search's value ``q`` alone, and a random
            reply is no reply target. A random draw of the search's own move counts as
            none. :func:`expert_games` plays random moves the same way. 0 (the default):
            none.
        fork_rate: after each fully searched move (:class:`PlayoutCap`), with this
            probability a *side game* is queued from the position another legal move would
            have made, drawn mostly from the network's policy (KataGo's forked side
            positions, ``forkSidePositionProb``, 0.04 per move; :data:`FORK_DRAWS`), whose
            first search is a full one: the
            game goes on with the search's move, so its positions keep their outcome, and
            the side game is played out like any other as soon as a lockstep slot is free
            (at most ``parallel_games`` play at once), its moves up to there its opening
            (not training positions), its temperature plies counted on from the game's. A
            call plays its ``num_games`` games and at most as many side games, side games'
            own forks included (forks past that are dropped: choose a rate that makes about
            one a game, 0.04 on connect four); an iteration's games
            (``TrainConfig.games_per_iteration``) count the games alone, not their side
            games.
            The same aim as ``random_move_rate``, positions a mistake leads to, without
            giving up any position's outcome. 0 (the default): none.
    """

    search: ZeroSearch = dataclasses.field(
        default_factory=lambda: ZeroSearch(noise=_SELF_PLAY_NOISE)
    )
    temperature_moves: int = 8
    parallel_games: int = 32
    opening_moves: int = 0
    value_mix: float = 0.0
    augment: bool = True
    playout_cap: PlayoutCap | None = None
    forced_playouts: float = 0.0
    reply_targets: bool = False
    random_move_rate: float = 0.0
    fork_rate: float = 0.0

    def __post_init__(self) -> None:
        if self.playout_cap is not None and self.search.gumbel is not None:
            raise InvalidParameterError(
                "playout cap randomisation needs a PUCT search: a Gumbel search divides a "
                "budget fixed in advance"
            )
        k = self.forced_playouts
        if isinstance(k, bool) or not isinstance(k, int | float) or not 0.0 <= k < math.inf:
            raise InvalidParameterError(f"forced_playouts must be a number >= 0, got {k!r}")
        if k and self.search.gumbel is not None:
            raise InvalidParameterError(
                "forced playouts need a PUCT search (a Gumbel search has its own root rule)"
            )
        for name in ("temperature_moves", "parallel_games", "opening_moves"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidParameterError(f"{name} must be a whole number >= 0, got {value!r}")
        if self.parallel_games < 1:
            raise InvalidParameterError(f"parallel_games must be >= 1, got {self.parallel_games}")
        if not 0.0 <= self.value_mix <= 1.0:
            raise InvalidParameterError(f"value_mix must be in [0, 1], got {self.value_mix}")
        for name in ("random_move_rate", "fork_rate"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidParameterError(f"{name} must be a number in [0, 1], got {value!r}")
            if not 0.0 <= value <= 1.0:
                raise InvalidParameterError(f"{name} must be in [0, 1], got {value}")

    def replace(self, **changes: Any) -> SelfPlaySettings:
        """A copy with ``changes`` applied (checked like the original)."""
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class Example:
    """One training position: observation, policy target over every action id, the final
    outcome of the game for the player to move in it, and optionally the opponent's reply
    to the move played from it (one-hot over action ids; ``None``: no reply target, a zero
    vector: the game ended with that move)."""

    observation: np.ndarray
    policy: np.ndarray
    value: float
    reply: np.ndarray | None = None


@dataclasses.dataclass(frozen=True)
class SelfPlayGame:
    """A finished self-play game: its moves (from the initial state), the outcome for
    player 0, its examples, how many of the moves were its opening's (played without a
    search; the searched moves are the rest), and whether it is a side game
    (:attr:`SelfPlaySettings.fork_rate`: its opening is the moves of the game it was forked
    from, up to the forking move)."""

    moves: tuple[int, ...]
    outcome0: float
    examples: tuple[Example, ...]
    opening: int = 0
    side: bool = False

    @property
    def searched(self) -> int:
        """The moves a search chose: all but the random opening's."""
        return len(self.moves) - self.opening


def symmetric_examples(
    state: GameState,
    policy: np.ndarray,
    value: float,
    game: Any,
    reply: np.ndarray | None = None,
) -> list[Example]:
    """The example of ``state`` and one per other symmetry the game declares
    (``action_symmetries`` / ``transform_state``): the observation of the image and the
    policy (and reply target) with every action moved to its image."""
    examples = [Example(state.observation(), policy, value, reply)]  # type: ignore[attr-defined]
    symmetries = getattr(game, "action_symmetries", None)
    if symmetries is None:
        return examples
    for index, perm in enumerate(symmetries()):
        if index == 0:
            continue
        image = game.transform_state(state, index)
        where = np.asarray(perm, dtype=np.int64)
        mapped = np.zeros_like(policy)
        mapped[where] = policy
        mapped_reply = None
        if reply is not None:
            mapped_reply = np.zeros_like(reply)
            mapped_reply[where] = reply
        examples.append(Example(image.observation(), mapped, value, mapped_reply))
    return examples


@dataclasses.dataclass
class _Slot:
    engine: MCTS
    driver: BatchedDriver | None
    index: int
    done: int = 0
    budget: int = 0
    full: bool = True
    plies: int = 0
    history: list[tuple[GameState, np.ndarray, float]] = dataclasses.field(default_factory=list)
    played: list[int] = dataclasses.field(default_factory=list)
    """Per ``history`` entry, the index in ``moves`` of the move played from it."""
    moves: list[int] = dataclasses.field(default_factory=list)
    opening: int = 0
    """How many of ``moves`` are the random opening's."""
    random_moves: list[int] = dataclasses.field(default_factory=list)
    """The indices in ``moves`` of the random moves after the opening that differ from the
    search's choice."""
    noise: DirichletNoise | None = None
    """The run's root noise, which a full search gets (:func:`_explore`)."""
    side: bool = False
    """A side game (:attr:`SelfPlaySettings.fork_rate`)."""


def self_play(
    evaluator: NetworkEvaluator,
    game: Any,
    num_games: int,
    settings: SelfPlaySettings | None = None,
    *,
    seed: int = 0,
    on_game: Callable[[SelfPlayGame], None] | None = None,
) -> list[SelfPlayGame]:
    """Play ``num_games`` games of the network against itself (see the module docstring).

    Args:
        evaluator: the network.
        game: the game.
        num_games: games to play from the start (random openings); with
            ``settings.fork_rate`` the side games they fork are played too (returned with
            them, in the order the games finish).
        settings: how games are played and recorded (default: :class:`SelfPlaySettings`).
        seed: seeds every game (game ``i`` gets its own stream).
        on_game: called with each finished game (progress bars).
    """
    settings = settings or SelfPlaySettings()
    search = settings.search
    if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 0:
        raise InvalidParameterError(f"num_games must be a whole number >= 0, got {num_games!r}")
    spec = game.spec
    num_actions = int(spec.num_actions)
    max_depth = int(spec.max_length or 4096)
    move_rng = random.Random(seed)
    finished: list[SelfPlayGame] = []
    slots: list[_Slot] = []
    started = 0
    forked: list[_SideGame] = []  # side games waiting for a free slot
    side_games = 0  # side games forked (started or waiting)

    def start(index: int, side: _SideGame | None = None) -> _Slot:
        if side is not None:  # searched fully, so recorded (KataGo's side positions)
            state, opening = side.state, side.moves
            full, budget = True, search.simulations
        else:
            count = move_rng.randint(0, settings.opening_moves)
            state, opening = random_opening(game, count, move_rng)
            full, budget = _draw_budget(search.simulations, settings.playout_cap, move_rng)
        config = search.config(evaluator, seed * 100_003 + index)
        engine = MCTS(state, config if full else config.replace(root_noise=None))
        driver = engine.driver
        assert isinstance(driver, BatchedDriver)
        slot = _Slot(engine, driver, index, budget=budget, full=full, moves=opening,
                     opening=len(opening), noise=config.root_noise)  # fmt: skip
        if side is not None:  # its plies go on from the game's (the temperature's count)
            slot.side, slot.plies = True, side.plies
        _explore(slot, settings.forced_playouts)
        return slot

    while started < num_games or forked or slots:
        while len(slots) < settings.parallel_games and (started < num_games or forked):
            if started < num_games:
                slots.append(start(started))
                started += 1
            else:
                slots.append(start(num_games + side_games - len(forked), forked.pop(0)))
        # One step: every game's leaves, one evaluation.
        states: list[GameState] = []
        actions: list[np.ndarray] = []
        counts: list[int] = []
        for slot in slots:
            wanted = min(search.leaf_batch, slot.budget - slot.done)
            assert slot.driver is not None
            s, a = slot.driver.select_leaves(wanted, max_depth)
            states.extend(s)
            actions.extend(a)
            counts.append(len(s))
        values, priors = evaluator.evaluate_batch(states, actions) if states else (np.zeros(0), [])
        at = 0
        still: list[_Slot] = []
        for slot, count in zip(slots, counts, strict=True):
            assert slot.driver is not None
            ran, solved = slot.driver.finish_leaves(
                values[at : at + count], priors[at : at + count]
            )
            at += count
            slot.done += ran
            if slot.done >= slot.budget or solved or ran == 0:
                action = _choose_move(
                    slot, num_actions, settings.temperature_moves, move_rng,
                    prune_k=settings.forced_playouts, search=search,
                    random_rate=settings.random_move_rate,
                )  # fmt: skip
                if settings.fork_rate > 0.0 and slot.full:  # after full searches only
                    side = _side_game(slot, action, settings.fork_rate, move_rng)
                    if side is not None and side_games < num_games:
                        forked.append(side)
                        side_games += 1
                # The next search's kind before the move: the new root's noise depends on it.
                slot.full, slot.budget = _draw_budget(
                    search.simulations, settings.playout_cap, move_rng
                )
                _explore(slot, settings.forced_playouts)
                if _advance(slot, action):
                    record = _finish(slot, game, settings)
                    finished.append(record)
                    if on_game is not None:
                        on_game(record)
                    continue
            still.append(slot)
        slots = still
    return finished


def _root_c(search: ZeroSearch, visits: int) -> float:
    """PUCT's constant at a root of ``visits`` visits (AlphaZero's growing schedule when
    ``c_base`` is set, as :func:`playout._src.tree.selection.exploration` computes it)."""
    if search.c_base > 0:
        return search.c + math.log((visits + search.c_base + 1.0) / search.c_base)
    return search.c


def _draw_budget(simulations: int, cap: PlayoutCap | None, rng: random.Random) -> tuple[bool, int]:
    """The next search's kind and simulations: ``(True, simulations)``, or with a playout
    cap a full search with probability ``cap.full_fraction`` and a fast one of
    ``cap.fast_simulations`` otherwise (drawn from ``rng`` only with a cap, so that runs
    without one keep their random streams)."""
    if cap is None:
        return True, simulations
    full = rng.random() < cap.full_fraction
    return full, simulations if full else min(simulations, cap.fast_simulations)


@dataclasses.dataclass(frozen=True)
class _SideGame:
    """Where a side game starts: its position, the moves from the initial position to it,
    and the plies its game had played there (the forking move counted)."""

    state: GameState
    moves: list[int]
    plies: int


FORK_DRAWS = ((0.70, 1.0), (0.95, 2.0))
"""How a forking move is drawn (KataGo's ``chooseRandomForkingMove``): below the first bound
of a uniform draw from the network's policy at temperature 1, below the second at
temperature 2, above it uniformly among the legal moves; never the move the game plays."""


def _fork_move(others: Sequence[int], priors: Mapping[int, float], rng: random.Random) -> int:
    """A forking move among ``others`` (the legal moves but the one played), drawn as
    :data:`FORK_DRAWS` says from ``priors`` (the network's policy at the root, by action)."""
    r = rng.random()
    for bound, temperature in FORK_DRAWS:
        if r < bound:
            weights = [max(priors.get(a, 0.0), 0.0) ** (1.0 / temperature) for a in others]
            if sum(weights) > 0.0:
                return int(rng.choices(others, weights=weights)[0])
            break
    return int(rng.choice(others))


def _side_game(slot: _Slot, action: int, rate: float, rng: random.Random) -> _SideGame | None:
    """With probability ``rate``, a side game forked from the position before ``action``
    (the move the game plays): the position after another legal move (:func:`_fork_move`,
    from the root's priors); ``None`` otherwise, or when no other move exists or the side
    position is over."""
    if rng.random() >= rate:
        return None
    state = slot.engine.root_state
    others = [a for a in state.legal_actions() if a != action]
    if not others:
        return None
    result = slot.engine.result()
    priors = dict(zip(result.actions, result.priors, strict=True))
    drawn = _fork_move(others, priors, rng)
    side = state.play(drawn)
    if side.is_terminal():
        return None
    return _SideGame(side, [*slot.moves, drawn], slot.plies + 1)


def _explore(slot: _Slot, forced_k: float) -> None:
    """Set the game's driver for its next search: a full search gets the root noise and
    KataGo's forced playouts (``forced_k``), a fast one neither (Wu 2019: the fast searches
    of the playout cap explore nothing). The noise applies from the next root on."""
    assert slot.driver is not None
    slot.driver.forced_playouts = float(forced_k) if slot.full else 0.0
    slot.driver.root_noise = slot.noise if slot.full else None


def _play_move(
    slot: _Slot,
    num_actions: int,
    temperature_moves: int,
    rng: random.Random,
    *,
    prune_k: float = 0.0,
    search: ZeroSearch | None = None,
    random_rate: float = 0.0,
) -> bool:
    """Play the move of a game whose search is done (:func:`_choose_move`, then
    :func:`_advance`); whether the game is over."""
    action = _choose_move(
        slot, num_actions, temperature_moves, rng,
        prune_k=prune_k, search=search, random_rate=random_rate,
    )  # fmt: skip
    return _advance(slot, action)


def _choose_move(
    slot: _Slot,
    num_actions: int,
    temperature_moves: int,
    rng: random.Random,
    *,
    prune_k: float = 0.0,
    search: ZeroSearch | None = None,
    random_rate: float = 0.0,
) -> int:
    """The move of a game whose search is done, its position recorded; the move is not
    played yet (:func:`_advance`).

    The policy target: a proven win alone; else a Gumbel search's improved policy
    (Danihelka et al. 2022); else the visit shares, with the forced playouts pruned when
    ``prune_k`` is set (:func:`playout._src.forced.pruned_visits`, ``search``'s PUCT
    constant). The position is recorded only after a full search (:class:`PlayoutCap`).
    With probability ``random_rate`` (drawn from ``rng`` only when it is above 0, so that
    runs without random moves keep their streams) the move played is a uniformly random
    legal one."""
    engine = slot.engine
    state = engine.root_state
    result = engine.result()
    visits = np.asarray(result.visit_counts, dtype=np.float64)
    policy = np.zeros(num_actions, dtype=np.float32)
    if result.proven == "win":
        policy[int(result.best_action)] = 1.0  # the proven win, not the visits' spread
    elif result.improved_policy:
        policy[np.asarray(result.actions, dtype=np.int64)] = result.improved_policy
    elif visits.sum() > 0:
        shares = visits
        if prune_k > 0.0 and search is not None:
            shares = pruned_visits(
                visits, np.asarray(result.priors), np.asarray(result.values),
                c=_root_c(search, int(visits.sum())), k=prune_k,
            )  # fmt: skip
        policy[np.asarray(result.actions, dtype=np.int64)] = shares / shares.sum()
    else:
        policy[np.asarray(result.actions, dtype=np.int64)] = 1.0 / len(result.actions)
    sampled = slot.plies < temperature_moves and not result.improved_policy
    if sampled and visits.sum() > 0 and result.proven is None:
        action = int(rng.choices(result.actions, weights=visits.tolist())[0])
    else:
        action = int(result.best_action)
    if random_rate > 0.0 and rng.random() < random_rate:
        drawn = int(rng.choice(list(state.legal_actions())))
        if drawn != action:  # the search's own move drawn again is no deviation
            action = drawn
            slot.random_moves.append(len(slot.moves))
    if slot.full:
        slot.history.append((state, policy, float(result.value)))
        slot.played.append(len(slot.moves))
    return action


def _advance(slot: _Slot, action: int) -> bool:
    """Play ``action``, the move :func:`_choose_move` chose; whether the game is over."""
    slot.plies += 1
    slot.moves.append(action)
    slot.engine.advance(action)
    slot.done = 0
    return bool(slot.engine.root_state.is_terminal())


def _finish(slot: _Slot, game: Any, settings: SelfPlaySettings) -> SelfPlayGame:
    """The record of a finished game, with an example per position."""
    outcome0 = float(slot.engine.root_state.returns()[0])
    examples: list[Example] = []
    last_random = max(slot.random_moves, default=-1)
    for (state, policy, root_value), played in zip(slot.history, slot.played, strict=True):
        outcome = value_for(state.current_player(), outcome0)
        value = (1.0 - settings.value_mix) * outcome + settings.value_mix * root_value
        if played <= last_random:  # a random move came after: the outcome is not its
            value = root_value
        reply = None
        if settings.reply_targets:
            reply = np.zeros_like(policy)  # none (zero) at the end and for a random reply
            reply_at = played + 1
            if reply_at < len(slot.moves) and reply_at not in slot.random_moves:
                reply[slot.moves[reply_at]] = 1.0
        if settings.augment:
            examples.extend(symmetric_examples(state, policy, value, game, reply))
        else:
            examples.append(Example(state.observation(), policy, value, reply))  # type: ignore[attr-defined]
    return SelfPlayGame(tuple(slot.moves), outcome0, tuple(examples), slot.opening, slot.side)


def stack_examples(examples: Sequence[Example]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Examples as arrays: observations, policies, values."""
    return (
        np.stack([e.observation for e in examples]).astype(np.float32),
        np.stack([e.policy for e in examples]).astype(np.float32),
        np.array([e.value for e in examples], dtype=np.float32),
    )


@dataclasses.dataclass(frozen=True)
class SelfPlayJob:
    """One worker's share of an iteration's self-play, self-contained (it carries the
    network's file as bytes, so that any worker, on any machine of a Ray cluster, can run
    it)."""

    game: Any
    model_bytes: bytes
    num_games: int
    settings: SelfPlaySettings
    seed: int
    index: int
    threads: int = 1


def run_self_play_job(job: SelfPlayJob) -> tuple[int, list[SelfPlayGame]]:
    """A worker's self-play: load the network from the job, play its games; the job's index
    and the games (module level: executors send it to workers by name)."""
    import io

    from playout.zero.model import Model, torch

    torch.set_num_threads(job.threads)
    model = Model.from_bytes(io.BytesIO(job.model_bytes), job.game, device="cpu")
    games = self_play(NetworkEvaluator(model), job.game, job.num_games, job.settings, seed=job.seed)
    return job.index, games


def parallel_self_play(
    model: Any,
    game: Any,
    num_games: int,
    settings: SelfPlaySettings | None = None,
    *,
    workers: int,
    executor: str | Any = "pool",
    ray_address: str | None = None,
    seed: int = 0,
    on_game: Callable[[SelfPlayGame], None] | None = None,
) -> list[SelfPlayGame]:
    """:func:`self_play` split into ``workers`` jobs on one of the arena's executors
    (``"local"``, ``"pool"`` of processes, ``"ray"``, or an executor object), each worker
    with one PyTorch thread, its own copy of ``model``'s weights (a
    :class:`~playout.zero.Model`) and its share of ``settings.parallel_games``; the games in
    the order of the jobs. Ctrl-C or an error stops every worker (the executors' own
    handling)."""
    shares = [num_games // workers + (1 if i < num_games % workers else 0) for i in range(workers)]
    weights = model.to_bytes()
    settings = settings or SelfPlaySettings()
    share_settings = settings.replace(parallel_games=max(1, settings.parallel_games // workers))
    jobs = [
        SelfPlayJob(game, weights, share, share_settings, seed * 7_919 + i, i)
        for i, share in enumerate(shares)
        if share > 0
    ]
    runner, own = resolve_executor(executor, len(jobs), ray_address)  # type: ignore[arg-type]
    results: list[list[SelfPlayGame]] = [[] for _ in jobs]
    with running(runner, own):
        for index, games in runner.run(jobs, run_self_play_job):
            results[index] = games
            if on_game is not None:
                for record in games:
                    on_game(record)
    return [g for share in results for g in share]


def expert_games(
    game: Any,
    num_games: int,
    settings: SelfPlaySettings | None = None,
    *,
    simulations: int,
    seed: int = 0,
    on_game: Callable[[SelfPlayGame], None] | None = None,
) -> list[SelfPlayGame]:
    """Training games of rollout MCTS against itself at ``simulations`` a move (the compiled
    search where the game has a kernel), recorded like :func:`self_play`'s: a warm start for
    a network before it searches well itself (Expert Iteration, Anthony, Tian & Barber 2017:
    a search as the expert, the network as the apprentice). Moves and targets follow
    ``settings`` as in :func:`self_play`; its network search, lockstep size and side games
    (``fork_rate``) do not apply.
    """
    settings = settings or SelfPlaySettings()
    move_rng = random.Random(seed)
    finished: list[SelfPlayGame] = []
    for index in range(num_games):
        state, opening = random_opening(game, move_rng.randint(0, settings.opening_moves), move_rng)
        engine = MCTS(state, seed=seed * 100_003 + index, simulations=simulations)
        slot = _Slot(engine, None, index, moves=opening, opening=len(opening))
        while not engine.root_state.is_terminal():
            engine.run()
            _play_move(
                slot, int(game.spec.num_actions), settings.temperature_moves, move_rng,
                random_rate=settings.random_move_rate,
            )  # fmt: skip
        record = _finish(slot, game, settings)
        finished.append(record)
        if on_game is not None:
            on_game(record)
    return finished
