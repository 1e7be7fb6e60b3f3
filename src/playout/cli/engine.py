"""Search engines from the command line's options: one place that routes ``--backend`` and
turns the search options of ``play`` / ``analyze`` (and the defaults of ``match``) into the
engine's keyword arguments.

What a game recommends (its own evaluator and selection rule, e.g. chess) is left to the
library: an option the user did not give is passed as ``None`` and the engine decides.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
from typing import Any

import playout
from playout._src import arena
from playout.cli.common import DEFAULT_SIMULATIONS

FINAL_CHOICES = {"most-visits": "most_visits", "best-value": "best_value", "sample": "sample"}
"""``--final`` spellings and the engine's ``final=`` names."""


def engine_factory(backend: str) -> arena.EngineFactory:
    """The function that builds search engines for ``--backend`` (the one place to route):
    :class:`playout.MCTS` with that backend."""
    return functools.partial(playout.MCTS, backend=backend)


def final_choice(args: argparse.Namespace) -> str | None:
    """The engine's ``final=`` for ``--final`` (None when not given)."""
    final = getattr(args, "final", None)
    return None if final is None else FINAL_CHOICES[final]


def search_budget(args: argparse.Namespace) -> playout.Budget:
    """``--simulations`` (default 1000) or ``--seconds``, and ``--max-depth``,
    ``--max-nodes``, ``--max-memory`` (MiB) and ``--stop-early``."""
    max_memory = getattr(args, "max_memory", None)
    bounds: dict[str, Any] = {
        "max_depth": getattr(args, "max_depth", None),
        "max_nodes": getattr(args, "max_nodes", None),
        "max_memory": None if max_memory is None else int(max_memory * 2**20),
        "stop_early": bool(getattr(args, "stop_early", False)),
    }
    if args.seconds is not None:
        return playout.Budget(seconds=args.seconds, **bounds)
    simulations = DEFAULT_SIMULATIONS if args.simulations is None else args.simulations
    return playout.Budget(simulations=simulations, **bounds)


def search_options(args: argparse.Namespace) -> arena.MctsOptions:
    """The search options of ``play`` / ``analyze`` (validated: a bad rule constant raises)."""
    options = arena.MctsOptions(
        budget=search_budget(args),
        rollout=args.rollout,
        num_rollouts=args.rollouts,
        rule=args.rule or "ucb1",
        c=args.c,
        bias=args.rave_bias,
        prior=getattr(args, "rave_prior", None),
        weight=args.bias_weight,
        solver=args.solver,
    )
    options.selection()  # validate the rule's constant
    return options


def engine_options(state: playout.GameState, args: argparse.Namespace) -> dict[str, Any]:
    """The engine's keyword arguments (``selection``, ``evaluator``, ``budget``, ``seed``,
    ``final``, ``solver``) from the options of ``play`` / ``analyze``.

    Options left at their defaults go to the engine as ``None``, so that the library picks
    the game's own evaluator and selection rule where it has them.
    """
    options = search_options(args)
    default_rule = args.rule is None and args.c is None
    default_evaluator = args.rollout == "random" and args.rollouts == 1
    final = final_choice(args)
    chosen = {
        "selection": None if default_rule else options.selection(),
        "evaluator": None if default_evaluator else options.evaluator(state.game),
        "budget": options.budget,
        "seed": args.seed,
        "final": "most_visits" if final is None else final,
        "solver": options.solver,
    }
    for flag in ("symmetry", "transpositions"):
        if getattr(args, flag, None) is not None:
            chosen[flag] = getattr(args, flag)
    if getattr(args, "ai", "mcts") == "zero":
        if not (default_rule or args.rule is None) or not default_evaluator:
            raise playout.InvalidParameterError(
                "--ai zero searches with PUCT guided by the network: --rule, --rollout and "
                "--rollouts do not apply (--c sets PUCT's constant)"
            )
        chosen.update(zero_options(state, args))
    elif getattr(args, "model", None) is not None:
        raise playout.InvalidParameterError("--model needs --ai zero")
    return chosen


def zero_options(state: playout.GameState, args: argparse.Namespace) -> dict[str, Any]:
    """The engine's selection, evaluator and leaf batch for ``--ai zero [--model PATH]``:
    the network shipped for the game unless ``--model`` names one."""
    from playout._src.optional import import_optional

    import_optional("torch", extra="zero", needed_by="--ai zero")
    from playout.zero import search_options

    return search_options(state.game, args.model, c=args.c)


def search_config(state: playout.GameState, args: argparse.Namespace) -> playout.SearchConfig:
    """The :class:`playout.SearchConfig` of ``play`` and ``analyze``'s options."""
    return playout.SearchConfig(backend=args.backend, **engine_options(state, args))


def make_engine(state: playout.GameState, args: argparse.Namespace) -> playout.MCTS:
    """The search engine for ``play`` and ``analyze``, built from the command's options."""
    return playout.MCTS(state, search_config(state, args))


@dataclasses.dataclass(frozen=True)
class EngineDefaults:
    """An engine factory that fills in the command line's defaults for ``match`` and
    ``tournament``: ``solver`` where the player's spec does not set it, ``final`` and the
    budget's ``max_depth``. Picklable (it travels to worker processes) when ``factory`` is.
    """

    factory: arena.EngineFactory
    solver: bool | None = None
    final: str | None = None
    max_depth: int | None = None

    def __call__(self, state: playout.GameState, **kwargs: Any) -> Any:
        if self.solver is not None and kwargs.get("solver") is None:
            kwargs["solver"] = self.solver
        if self.final is not None:
            kwargs.setdefault("final", self.final)
        budget = kwargs.get("budget")
        if self.max_depth is not None and budget is not None and budget.max_depth is None:
            kwargs["budget"] = dataclasses.replace(budget, max_depth=self.max_depth)
        return self.factory(state, **kwargs)


def with_defaults(factory: arena.EngineFactory, args: argparse.Namespace) -> arena.EngineFactory:
    """``factory`` wrapped in :class:`EngineDefaults` when ``match`` / ``tournament`` got
    ``--solver``, ``--final`` or ``--max-depth``; else ``factory`` itself."""
    defaults = EngineDefaults(factory, args.solver, final_choice(args), args.max_depth)
    if defaults.solver is None and defaults.final is None and defaults.max_depth is None:
        return factory
    return defaults


__all__ = [
    "FINAL_CHOICES",
    "EngineDefaults",
    "engine_factory",
    "engine_options",
    "final_choice",
    "make_engine",
    "search_budget",
    "search_config",
    "search_options",
    "with_defaults",
]
