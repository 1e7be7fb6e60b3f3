"""Player specs: the strings that name a player, such as ``"mcts:simulations=200"``.

:func:`parse_player` builds any player from its spec (``random``, ``mcts[:options]``,
``perfect``, ``openspiel-mcts[:options]``, ``zero[:options]``, ``gtp:COMMAND``);
:func:`parse_mcts_options` reads the options of ``mcts:``; :func:`describe_players` lists
the kinds for help texts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from playout._src.arena.players import (
    GO_ROLLOUTS,
    NEIGHBOR_ALIASES,
    EngineFactory,
    MctsOptions,
    MctsPlayer,
    Player,
    RandomPlayer,
    rollout_policy,
)
from playout._src.errors import InvalidParameterError
from playout._src.game import Game
from playout._src.keyvalue import parse_key_values, parse_number, parse_yes_no
from playout._src.resignation import check_threshold
from playout._src.rules import ProgressiveBias
from playout._src.search import Budget

if TYPE_CHECKING:
    from playout._src.perfect import PerfectPlayer
    from playout.interop.openspiel_bot import OpenSpielMctsPlayer

MCTS_KEYS = (
    "simulations",
    "seconds",
    "rollout",
    "rollouts",
    "c",
    "rule",
    "epsilon",
    "bias",
    "prior",
    "weight",
    "reuse",
    "solver",
    "symmetry",
    "transpositions",
    "resign",
    "threads",
    "early",
)
"""The option keys of ``mcts:``."""

_EPSILON_RULES = ("epsilon", "epsilon-greedy", "egreedy")


def _positive_int(values: Mapping[str, str], key: str) -> int | None:
    """Option ``key`` as a whole number >= 1, or ``None`` when absent."""
    if key not in values:
        return None
    number: int = parse_number(key, values[key], int)
    if number < 1:
        raise InvalidParameterError(f"{key} must be >= 1, got {number}")
    return number


def _optional_float(values: Mapping[str, str], key: str) -> float | None:
    """Option ``key`` as a finite number, or ``None`` when absent."""
    return parse_number(key, values[key], float) if key in values else None


def _seconds(values: Mapping[str, str]) -> float | None:
    """The ``seconds`` option (> 0), or ``None`` when absent."""
    seconds = _optional_float(values, "seconds")
    if seconds is not None and seconds <= 0:
        raise InvalidParameterError(f"seconds must be > 0, got {seconds}")
    return seconds


MAX_THREADS = 256
"""The most root-parallel searches one ``mcts:`` player may run (``threads``)."""


def _threads(values: Mapping[str, str]) -> int:
    """The ``threads`` option (1 to :data:`MAX_THREADS`; 1 when absent)."""
    threads = _positive_int(values, "threads") or 1
    if threads > MAX_THREADS:
        raise InvalidParameterError(f"threads must be <= {MAX_THREADS}, got {threads}")
    return threads


def _resign(values: Mapping[str, str]) -> float | None:
    """The ``resign`` option (a win rate in (0, 0.5)), or ``None`` when absent."""
    threshold = _optional_float(values, "resign")
    return None if threshold is None else check_threshold(threshold)


def _rule_constant(values: Mapping[str, str], rule: str) -> float | None:
    """The rule's constant from ``c`` or ``epsilon`` (only one, ``epsilon`` only for its rule)."""
    if "c" in values and "epsilon" in values:
        raise InvalidParameterError("give c or epsilon, not both")
    c_text = values.get("c", values.get("epsilon"))
    c = None if c_text is None else parse_number("c", c_text, float)
    if "epsilon" in values and rule not in _EPSILON_RULES:
        raise InvalidParameterError("epsilon is a parameter of rule=epsilon")
    return c


def parse_mcts_options(text: str) -> MctsOptions:
    """Options from ``key=value`` pairs separated by commas (the part after ``mcts:``).

    Keys: ``simulations`` (> 0), ``seconds`` (> 0), ``rollout`` (``random``/``neighbors``;
    ``heavy`` and ``mogo`` on Go, compiled driver only),
    ``rollouts`` (per leaf, >= 1), ``rule`` (``ucb1``/``puct``/``epsilon``/``rave``/``pb``),
    ``c`` (the rule's constant), ``epsilon`` (same as ``c`` for ``rule=epsilon``), ``bias``
    (the RAVE bias, ``rule=rave``), ``prior`` (RAVE's virtual samples of prior knowledge from
    the game kernel's move scores, ``rule=rave``, compiled games that score moves: Go),
    ``weight`` (the progressive-bias weight, ``rule=pb``),
    ``reuse`` (``yes``/``no``), ``solver`` (``yes``/``no``: MCTS-Solver, Winands et al. 2008;
    default on), ``symmetry`` and ``transpositions`` (``yes``/``no``, default no; see
    :class:`~playout.SearchConfig`), ``resign`` (a win rate in (0, 0.5): resign when the
    best move's stays below it two own moves in a row, or on a proven loss; default never),
    ``threads`` (>= 1: root-parallel searches in threads, each with the whole budget and its
    own tree; compiled driver only; default 1), ``early`` (``yes``/``no``: a search ends
    once no other move can overtake the most-visited one, ``Budget(stop_early=True)``;
    default no).

    Raises:
        InvalidParameterError: an unknown key, a bad value, or an invalid rule setting.
    """
    values = parse_key_values(text, "mcts", MCTS_KEYS)
    simulations = _positive_int(values, "simulations")
    seconds = _seconds(values)
    num_rollouts = _positive_int(values, "rollouts") or 1
    rule = values.get("rule", "ucb1").lower()
    c = _rule_constant(values, rule)
    options = MctsOptions(
        budget=Budget(
            simulations=simulations,
            seconds=seconds,
            stop_early=parse_yes_no("early", values.get("early", "no")),
        ),
        rollout=values.get("rollout", "random").lower(),
        num_rollouts=num_rollouts,
        rule=rule,
        c=c,
        bias=_optional_float(values, "bias"),
        prior=_optional_float(values, "prior"),
        weight=_optional_float(values, "weight"),
        reuse=parse_yes_no("reuse", values.get("reuse", "yes")),
        solver=parse_yes_no("solver", values["solver"]) if "solver" in values else None,
        symmetry=parse_yes_no("symmetry", values.get("symmetry", "no")),
        transpositions=parse_yes_no("transpositions", values.get("transpositions", "no")),
        resign=_resign(values),
        threads=_threads(values),
    )
    options.selection()  # validate the rule and its constants now
    return options


def _no_options(kind: str, rest: str, spec: str) -> None:
    """Refuse options after a player kind that takes none."""
    if rest.strip():
        raise InvalidParameterError(f"player {kind!r} takes no options, got {spec!r}")


def _mcts_player(
    text: str, rest: str, game: Game, engine_factory: EngineFactory | None
) -> MctsPlayer:
    """``mcts[:options]``, checked against ``game`` now rather than mid-match."""
    options = parse_mcts_options(rest)
    rollout_policy(options.rollout, game)  # fail now, not mid-match
    selection = options.selection()
    if (
        isinstance(selection, ProgressiveBias)
        and selection.heuristic is None
        and not hasattr(game, "move_heuristic")
    ):
        raise InvalidParameterError(
            f"rule=pb needs a game with a move heuristic (mnk, tictactoe, gomoku), "
            f"not {game.spec.name}"
        )
    player = MctsPlayer(game, options, name=text, engine_factory=engine_factory)
    if options.threads > 1:  # refuse the Python driver now, not at the first move
        player.check(game.initial_state())
    return player


def _perfect_player(text: str, game: Game) -> PerfectPlayer:
    """``perfect``: exact play (:mod:`playout._src.perfect`, imported on use)."""
    from playout._src.perfect import PerfectPlayer

    return PerfectPlayer(game, name=text)


def _openspiel_player(text: str, rest: str, game: Game) -> OpenSpielMctsPlayer:
    """``openspiel-mcts[:options]`` (:mod:`playout.interop.openspiel_bot`, imported on use)."""
    from playout.interop.openspiel_bot import OpenSpielMctsPlayer, parse_openspiel_options

    return OpenSpielMctsPlayer(game, parse_openspiel_options(rest), name=text)


def _zero_player(text: str, rest: str, game: Game) -> Player:
    """``zero[:options]`` (:mod:`playout.zero.player`, imported on use: needs PyTorch)."""
    from playout._src.optional import import_optional

    import_optional("torch", extra="zero", needed_by="the zero player")
    from playout.zero.player import parse_zero_player

    return parse_zero_player(text, rest, game)


def _gtp_player(text: str, rest: str, game: Game) -> Player:
    """``gtp:COMMAND`` (:mod:`playout.interop.gtp_player`, imported on use)."""
    from playout.interop.gtp_player import parse_gtp_player

    return parse_gtp_player(text, rest, game)


def parse_player(spec: str, game: Game, *, engine_factory: EngineFactory | None = None) -> Player:
    """Build a player from its spec.

    Specs:

    * ``random``: a uniformly random legal move;
    * ``mcts`` (1000 simulations per move, UCB1, random rollouts, solver on) or ``mcts:``
      followed by options, e.g. ``mcts:simulations=400``, ``mcts:seconds=0.1``,
      ``mcts:simulations=200,rollout=neighbors,c=1.0,solver=no`` (see
      :func:`parse_mcts_options`);
    * ``perfect``: exact game-theoretic play on small boards (:mod:`playout._src.perfect`);
    * ``openspiel-mcts[:simulations=N,seconds=S,c=C,rollouts=N,solve=yes|no,memory=MB]``:
      OpenSpiel's C++ MCTS (needs ``open-spiel``);
    * ``zero[:simulations=N,seconds=S,model=PATH,c=X,batch=N,device=D]``: a network-guided
      search (:mod:`playout.zero`; the network shipped for the game unless ``model`` is
      given; ``simulations=0`` plays the policy's best move with no search);
    * ``gtp:COMMAND``: a Go engine speaking GTP, run as a child process
      (:mod:`playout.interop.gtp_player`), e.g. ``gtp:gnugo --mode gtp --level 10``.

    Raises:
        InvalidParameterError: an unknown player, a bad option, or a game the player cannot
            play (``perfect`` on a large board).
        MissingDependencyError: ``openspiel-mcts`` without OpenSpiel.
    """
    if not isinstance(spec, str):
        raise InvalidParameterError(f"a player spec is a string, got {spec!r}")
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind == "random":
        _no_options("random", rest, spec)
        return RandomPlayer(name=text)
    if kind == "mcts":
        return _mcts_player(text, rest, game, engine_factory)
    if kind == "perfect":
        _no_options("perfect", rest, spec)
        return _perfect_player(text, game)
    if kind in ("openspiel-mcts", "openspiel_mcts"):
        return _openspiel_player(text, rest, game)
    if kind == "zero":
        return _zero_player(text, rest, game)
    if kind == "gtp":
        return _gtp_player(text, rest, game)
    raise _unknown_player(spec)


def _unknown_player(spec: str) -> InvalidParameterError:
    """The error for a spec of no known kind."""
    return InvalidParameterError(
        f"unknown player {spec!r}; use random, perfect, zero[:key=value,...], "
        "mcts[:key=value,...] "
        "(e.g. mcts:simulations=400,rollout=neighbors), openspiel-mcts[:simulations=N] "
        "or gtp:COMMAND (a Go engine speaking GTP)"
    )


def check_player_spec(spec: str) -> None:
    """Check a player spec as far as it can be without a game: the kind and its options
    (:func:`parse_player` checks the rest against the game, e.g. a model file's rules).

    Raises:
        InvalidParameterError: an unknown player or a bad option, as :func:`parse_player`.
        MissingDependencyError: ``zero`` without PyTorch.
    """
    if not isinstance(spec, str):
        raise InvalidParameterError(f"a player spec is a string, got {spec!r}")
    text = spec.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind in ("random", "perfect"):
        _no_options(kind, rest, spec)
    elif kind == "mcts":
        options = parse_mcts_options(rest)
        if (
            options.rollout not in ("random", *GO_ROLLOUTS)
            and options.rollout not in NEIGHBOR_ALIASES
        ):
            raise InvalidParameterError(
                f"unknown rollout {options.rollout!r}; choose random, neighbors (grid games), "
                f"or for go: {', '.join(GO_ROLLOUTS)}"
            )
    elif kind in ("openspiel-mcts", "openspiel_mcts"):
        from playout.interop.openspiel_bot import parse_openspiel_options

        parse_openspiel_options(rest)
    elif kind == "zero":
        from playout._src.optional import import_optional

        import_optional("torch", extra="zero", needed_by="the zero player")
        from playout.zero.player import parse_zero_options

        parse_zero_options(rest)
    elif kind == "gtp":
        from playout.interop.gtp_player import engine_argv

        engine_argv(rest)
    else:
        raise _unknown_player(spec)


def as_player(spec: str | Player, game: Game, factory: EngineFactory | None) -> Player:
    """``spec`` built with :func:`parse_player`, or ``spec`` itself when it is a player."""
    if isinstance(spec, str):
        return parse_player(spec, game, engine_factory=factory)
    return spec


def describe_players() -> Mapping[str, str]:
    """Player kinds and a one-line description of each (for help texts)."""
    return {
        "random": "uniformly random legal moves",
        "mcts": "MCTS; options simulations=N, seconds=S, "
        "rollout=random|neighbors|heavy|mogo|lgrf|mogo-hand|lgrf-hand, "
        "rollouts=N, rule=ucb1|puct|epsilon|rave|pb, c=X, epsilon=E (rule=epsilon), "
        "bias=B (rave), prior=N (rave), weight=W (pb), reuse=yes|no, solver=yes|no, "
        "symmetry=yes|no, transpositions=yes|no, resign=P (resign below win rate P), "
        "threads=N (root-parallel searches, compiled games), "
        "early=yes|no (stop once the move cannot change)",
        "perfect": "exact game-theoretic play (tic-tac-toe and boards up to 12 squares)",
        "zero": "network-guided search (AlphaZero); options simulations=N (0: the policy "
        "alone), seconds=S, model=PATH, c=X, batch=N, device=cpu|cuda, symmetries=yes|no "
        "(evaluations averaged over the board's symmetries), gumbel=K (Gumbel root search, "
        "K actions sampled) (needs playout[zero])",
        "openspiel-mcts": "OpenSpiel's C++ MCTS with random rollouts; options simulations=N, "
        "seconds=S, c=X, rollouts=N, solve=yes|no, memory=MB (needs open-spiel)",
        "gtp": "a Go engine speaking GTP, run as a child process: gtp:COMMAND, e.g. "
        "gtp:gnugo --mode gtp --level 10 (Go only)",
    }


__all__ = [
    "MCTS_KEYS",
    "as_player",
    "check_player_spec",
    "describe_players",
    "parse_mcts_options",
    "parse_player",
]
