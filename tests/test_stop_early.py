"""``Budget(stop_early=True)``: a search that ends once no other move can overtake the
most-visited one plays the move the whole budget would have played, having run a prefix of
the same simulations."""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import playout
from playout import Budget, InvalidParameterError
from playout._src.arena.specs import parse_mcts_options
from playout._src.search import root_lead
from playout._src.tree import layout as T
from playout.cli.engine import search_budget
from playout.cli.parser import build_parser
from playout.games import Connect4Game, tictactoe

C4 = Connect4Game()


def c4(*columns: int) -> playout.GameState:
    state = C4.initial_state()
    for column in columns:
        state = state.play(column)
    return state


def lead_of(result: playout.SearchResult) -> int:
    """The most-visited move's lead over the next, from a result's root statistics."""
    visits = sorted(result.visit_counts, reverse=True)
    return visits[0] - visits[1]


@pytest.mark.parametrize("backend", ["python", "compiled"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    columns=st.lists(st.integers(0, 6), min_size=0, max_size=6),
    seed=st.integers(0, 2**31),
    simulations=st.integers(50, 3000),
)
def test_an_early_stop_runs_a_prefix_of_the_search_and_plays_its_move(
    backend: str, columns: list[int], seed: int, simulations: int
) -> None:
    state = c4(*columns)
    options: dict[str, Any] = {"seed": seed, "solver": False, "backend": backend}
    full = playout.search(state, simulations=simulations, **options)
    early = playout.search(state, simulations=simulations, stop_early=True, **options)
    assert early.best_action == full.best_action
    assert early.simulations <= full.simulations
    if early.stop_reason == "decided":
        # Stopped only when the lead could no longer be caught.
        assert lead_of(early) > simulations - early.simulations
    else:
        assert early.stop_reason == "simulations"
        assert early.simulations == simulations
    # The same simulations as a search of that many: a prefix of the full search.
    prefix = playout.search(state, simulations=early.simulations, **options)
    assert prefix.visit_counts == early.visit_counts
    assert prefix.values == early.values


def test_one_legal_move_is_decided_at_the_first_look() -> None:
    # Tic-tac-toe with one empty square and no line: the only move, nothing to weigh.
    state = tictactoe().from_grid([[1, -1, 1], [1, -1, -1], [-1, 1, 0]], to_move=1)
    assert len(state.legal_actions()) == 1
    result = playout.search(state, simulations=100_000, seed=0, solver=False, stop_early=True)
    assert result.stop_reason == "decided"
    assert result.simulations < 100_000


def test_a_time_limit_ends_when_the_move_is_settled() -> None:
    # Connect four where one column must be played: the solver off, visits pile onto it and
    # the search ends before its 4 seconds are up (it would take all of them otherwise). Not
    # before half of them: the lead grows by at most one a simulation while the simulations
    # left at the same rate shrink by one, so even a move that takes every visit is settled
    # only once the time spent passes the time left.
    state = c4(3, 0, 3, 0, 3)  # white must block column 3
    result = playout.search(
        state, seconds=4.0, seed=0, solver=False, stop_early=True, backend="compiled"
    )
    assert result.stop_reason == "decided"
    assert result.best_action == 3


def test_root_lead_reads_the_tree() -> None:
    engine = playout.MCTS(c4(3, 3), simulations=500, seed=1, solver=False, backend="compiled")
    assert root_lead(engine.tree) == 0  # no edges yet
    result = engine.run()
    assert root_lead(engine.tree) == lead_of(result)


def test_a_proven_leader_does_not_end_the_search_early() -> None:
    # With the solver on, the winning column is proven: the solver's rule, not the visits,
    # then decides, and root_lead says 0.
    engine = playout.MCTS(c4(3, 0, 3, 0, 3, 0), simulations=200, seed=0, backend="compiled")
    result = engine.run(Budget(simulations=200, stop_early=True))
    assert result.stop_reason == "proven"
    assert root_lead(engine.tree) == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"final": "sample"}, "final='most_visits'"),
        ({"final": "best_value"}, "final='most_visits'"),
        ({"gumbel": playout.Gumbel()}, "sequential halving"),
    ],
)
def test_stop_early_needs_the_most_visits_choice(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        playout.search(c4(), simulations=50, seed=0, stop_early=True, **options)


@pytest.mark.parametrize("value", ["yes", 1, None, np.int64(1)])
def test_stop_early_is_a_bool(value: object) -> None:
    with pytest.raises(InvalidParameterError, match="stop_early must be True or False"):
        Budget(simulations=10, stop_early=value)  # type: ignore[arg-type]


def test_the_player_option_and_the_command_line_flag() -> None:
    assert parse_mcts_options("simulations=100,early=yes").budget.stop_early is True
    assert parse_mcts_options("simulations=100").budget.stop_early is False
    with pytest.raises(InvalidParameterError, match="early"):
        parse_mcts_options("simulations=100,early=maybe")
    parser = build_parser()
    args = parser.parse_args(["play", "connect4", "--seconds", "2", "--stop-early"])
    assert search_budget(args) == Budget(seconds=2.0, stop_early=True)
    args = parser.parse_args(["play", "connect4"])
    assert isinstance(args, argparse.Namespace)
    assert search_budget(args).stop_early is False


def _root_edges(engine: playout.MCTS) -> tuple[Any, Any, Any, list[int]]:
    tree = engine.tree
    first = int(tree.nodes[T.ROOT, T.N_FIRST_EDGE])
    count = int(tree.nodes[T.ROOT, T.N_NUM_EDGES])
    order = sorted(range(first, first + count), key=lambda e: -int(tree.edges[e, T.E_VISITS]))
    return tree.nodes, tree.edges, tree.edge_values, order


def _prove(nodes: Any, edges: Any, e: int, proven: int) -> None:
    edges[e, T.E_PROVEN] = proven
    nodes[int(edges[e, T.E_CHILD]), T.N_PROVEN] = proven


def test_a_proven_draw_beside_the_leader_leaves_the_move_open() -> None:
    # The final-move rule plays a proven draw instead of a leader whose mean is not above
    # the draw's; the leader's mean still moves, so the visits settle nothing.
    engine = playout.MCTS(c4(3, 3), simulations=600, seed=2, solver=False, backend="python")
    engine.run()
    nodes, edges, edge_values, order = _root_edges(engine)
    leader, drawn = order[0], order[1]
    assert root_lead(engine.tree) > 0
    _prove(nodes, edges, drawn, T.PROVEN_DRAW)
    mean = edge_values[leader, T.EV_VALUE_SUM] / edges[leader, T.E_VISITS]
    edge_values[drawn, T.EV_VALUE_SUM] = max(mean, 0.0) * edges[drawn, T.E_VISITS]
    assert engine.result().best_action == int(edges[drawn, T.E_ACTION])
    assert root_lead(engine.tree) == 0


def test_a_move_proven_lost_is_no_rival() -> None:
    # Proven losses are played last: the lead is over the best move that could be played.
    engine = playout.MCTS(c4(3, 3), simulations=600, seed=2, solver=False, backend="python")
    engine.run()
    nodes, edges, _, order = _root_edges(engine)
    mover = int(nodes[T.ROOT, T.N_PLAYER])
    _prove(nodes, edges, order[1], T.PROVEN_P0_LOSS if mover == 0 else T.PROVEN_P0_WIN)
    visits = [int(edges[e, T.E_VISITS]) for e in order]
    assert root_lead(engine.tree) == visits[0] - visits[2]
    _prove(nodes, edges, order[0], T.PROVEN_P0_LOSS if mover == 0 else T.PROVEN_P0_WIN)
    assert root_lead(engine.tree) == visits[2] - visits[3]


def test_a_slow_first_chunk_does_not_shrink_the_time_left(monkeypatch: Any) -> None:
    # The first chunk carries the warm-up (compiling the phase functions, say): the rate
    # that weighs the time left is measured after it, or a search that warmed up for most
    # of its time would take the little it ran for all it could run and stop too soon.
    playout.search(c4(), simulations=100, seed=0, solver=False, backend="compiled")  # warm
    engine = playout.MCTS(c4(), seed=0, solver=False, backend="compiled")
    driver = engine._driver
    simulate = driver.simulate
    calls: list[int] = []

    def slow_first(wanted: int, **kwargs: Any) -> int:
        if not calls:
            time.sleep(0.8)
        calls.append(wanted)
        return int(simulate(wanted, **kwargs))

    monkeypatch.setattr(driver, "simulate", slow_first)
    seconds = 1.2
    result = engine.run(Budget(seconds=seconds, stop_early=True))
    if result.stop_reason == "decided":
        rate = result.simulations / (result.seconds - 0.8)
        assert lead_of(result) > 0.5 * rate * (seconds - result.seconds)
    else:
        assert result.stop_reason == "time"


def test_merged_results_are_decided_only_when_every_search_was() -> None:
    # Root-parallel searches each stop on their own tree: one that ran its whole budget
    # makes the merged reason its own.
    state = c4(3, 3)
    decided = playout.search(state, simulations=100_000, seed=0, solver=False, stop_early=True)
    assert decided.stop_reason == "decided"
    full = playout.search(state, simulations=200, seed=1, solver=False)
    assert playout.merge_results([decided, full]).stop_reason == "simulations"
    assert playout.merge_results([full, decided]).stop_reason == "simulations"
    assert playout.merge_results([decided, decided]).stop_reason == "decided"


def test_a_config_that_cannot_stop_early_is_refused_when_made() -> None:
    with pytest.raises(InvalidParameterError, match="final='most_visits'"):
        playout.SearchConfig(budget=Budget(simulations=10, stop_early=True), final="sample")
    with pytest.raises(InvalidParameterError, match="sequential halving"):
        playout.MCTS(c4(), simulations=10, stop_early=True, gumbel=playout.Gumbel())


def test_the_command_line_refuses_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from playout.cli import main

    code = main(["analyze", "connect4", "--simulations", "50", "--stop-early", "--final", "sample"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "final='most_visits'" in err


def test_replace_checks_only_the_finished_config() -> None:
    # Turning stop_early off while choosing another final rule (or Gumbel) in the same
    # replace is valid: the check must not see the new rule beside the old budget.
    early = playout.SearchConfig(budget=Budget(simulations=10, stop_early=True))
    sampled = early.replace(final="sample", stop_early=False)
    assert sampled.final == "sample" and sampled.budget.stop_early is False
    gumbel = early.replace(gumbel=playout.Gumbel(), stop_early=False)
    assert gumbel.gumbel is not None and gumbel.budget.stop_early is False
    engine = playout.MCTS(c4(), early, final="sample", stop_early=False)
    assert engine.run().simulations == 10
    # The finished config is still checked.
    with pytest.raises(InvalidParameterError, match="final='most_visits'"):
        early.replace(final="sample")


def test_a_reused_tree_can_settle_before_half_its_budget() -> None:
    # The lead counts the visits the root already has: a search on a tree kept from an
    # earlier one can end well before half of its own budget.
    engine = playout.MCTS(c4(3, 0, 3, 0, 3), simulations=600, seed=0, solver=False)
    engine.run()
    again = engine.run(Budget(simulations=600, stop_early=True))
    assert again.stop_reason == "decided"
    assert again.simulations < 300
