"""The engine's one set of rules: the final-move order, merged results, the configuration,
and one golden tree per driver (a small search under a fixed seed, every statistic stored).

Set ``PLAYOUT_UPDATE_GOLDEN=1`` to rewrite the golden files after an intended change of the
search (and say why in the commit).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import playout
from playout import MCTS, Budget, Proven, SearchConfig, SearchResult, merge_results
from playout._src.errors import IllegalMoveError, InvalidParameterError
from playout._src.search import bytes_in_use
from playout._src.tree import final_move
from playout._src.tree import layout as T
from playout._src.tree.rng import new_rng_state
from playout.games import Connect4Game, tictactoe

GOLDEN = pathlib.Path(__file__).parent / "golden"
TTT = tictactoe()
W, D, L, U = (
    final_move.OUTCOME_WIN,
    final_move.OUTCOME_DRAW,
    final_move.OUTCOME_LOSS,
    final_move.OUTCOME_UNKNOWN,
)


def choose(
    visits: list[int],
    means: list[float],
    outcomes: list[int] | None = None,
    plies: list[int] | None = None,
    final: int = final_move.FINAL_MOST_VISITS,
    temperature: float = 1.0,
    seed: int = 0,
) -> int:
    n = len(visits)
    return int(
        final_move.choose_among(
            np.array(visits, dtype=np.int64),
            np.array(means, dtype=np.float64),
            np.array(outcomes or [U] * n, dtype=np.int64),
            np.array(plies or [0] * n, dtype=np.int64),
            final,
            temperature,
            new_rng_state(seed),
        )
    )


# ------------------------------------------------------------------ the final-move order


def test_most_visits_wins_and_ties_go_to_the_higher_mean_then_the_first() -> None:
    assert choose([10, 30, 20], [0.9, 0.1, 0.5]) == 1
    assert choose([30, 30, 20], [0.1, 0.2, 0.5]) == 1
    assert choose([30, 30, 20], [0.2, 0.2, 0.5]) == 0


def test_best_value_ignores_unvisited_and_breaks_ties_by_visits() -> None:
    best = final_move.FINAL_BEST_VALUE
    assert choose([10, 30, 0], [0.5, 0.1, 0.9], final=best) == 0
    assert choose([10, 30, 5], [0.5, 0.5, 0.1], final=best) == 1


def test_a_proven_win_comes_first_the_shortest_one() -> None:
    assert choose([100, 1, 1], [0.9, 1.0, 1.0], [U, W, W], [0, 5, 3]) == 2


def test_proven_losses_come_last_and_the_longest_when_all_are_lost() -> None:
    assert choose([100, 1], [-1.0, -0.9], [L, U]) == 1
    assert choose([100, 50, 70], [-1.0, -1.0, -1.0], [L, L, L], [3, 9, 5]) == 1


def test_a_proven_draw_beats_an_estimate_that_is_not_better() -> None:
    assert choose([100, 40], [-0.2, 0.0], [U, D]) == 1
    assert choose([100, 40], [0.3, 0.0], [U, D]) == 0


def test_sampling_follows_visits_and_never_picks_a_proven_loss() -> None:
    picks = [
        choose([300, 100, 1000], [0.0, 0.0, -1.0], [U, U, L], final=final_move.FINAL_SAMPLE, seed=s)
        for s in range(400)
    ]
    assert 2 not in picks
    share = picks.count(0) / len(picks)
    assert 0.65 < share < 0.85  # 300 / 400 expected


def test_no_candidates() -> None:
    assert choose([], []) == -1


# ------------------------------------------------------------------ merged results


def _result(
    visits: tuple[int, ...],
    values: tuple[float, ...],
    outcomes: tuple[Proven | None, ...] = (),
    proven: Proven | None = None,
    value: float = 0.0,
) -> SearchResult:
    return SearchResult(
        best_action=0,
        actions=(0, 1, 2),
        visit_counts=visits,
        values=values,
        priors=(1 / 3,) * 3,
        value=value,
        pv=(0,),
        player=0,
        simulations=sum(visits),
        total_simulations=sum(visits),
        seconds=0.1,
        nodes=10,
        max_depth=2,
        proven=proven,
        outcomes=outcomes,
        plies=(0, 3, 0) if outcomes else (),
    )


def test_merging_keeps_a_proof_and_its_exact_value() -> None:
    proved = _result((50, 10, 40), (0.2, 1.0, 0.1), (None, Proven.WIN, None), Proven.WIN, value=1.0)
    unproved = _result((500, 100, 400), (0.3, 0.6, 0.2), value=0.3)
    merged = merge_results([unproved, proved])
    assert merged.best_action == 1  # the proven win, though action 0 has most visits
    assert merged.proven == Proven.WIN
    assert merged.value == 1.0
    assert merged.values[1] == 1.0
    assert merged.outcomes == (None, Proven.WIN, None)


def test_merging_without_proofs_follows_the_summed_visits() -> None:
    a = _result((10, 30, 20), (0.5, 0.0, 0.1))
    b = _result((40, 0, 20), (0.5, 0.0, 0.3))
    merged = merge_results([a, b])
    assert merged.visit_counts == (50, 30, 40)
    assert merged.values[2] == pytest.approx(0.2)
    assert merged.best_action == 0
    assert merged.proven is None


def test_root_parallel_cli_reports_a_proven_win_with_its_exact_value() -> None:
    """The issue's reproduction: a proven win merged from two workers reported value 0.30."""
    command = [
        sys.executable,
        "-m",
        "playout",
        "analyze",
        "connect4",
        "--moves",
        "2633217345427",
        "--simulations",
        "30000",
        "--seed",
        "1",
        "--json",
        "--workers",
        "2",
    ]
    report = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    assert report["proven"] == "win"
    assert report["value"] == 1.0


# ------------------------------------------------------------------ one engine, two drivers


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_both_drivers_prove_the_same_win_with_its_exact_value(backend: str) -> None:
    state = TTT.from_grid([[0, -1, 0], [0, 1, 0], [0, 0, 0]], to_move=1)  # seed 000
    # X to move with X in the centre, O on an edge: X wins with best play.
    result = MCTS(state, seed=3, backend=backend).run(Budget(simulations=20_000))
    assert result.proven == Proven.WIN == "win"
    assert result.value == 1.0
    assert result.outcomes[result.actions.index(result.best_action)] == Proven.WIN
    assert all(o in (Proven.WIN, Proven.LOSS, Proven.DRAW, None) for o in result.outcomes)


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_advance_rejects_foreign_actions_with_a_clear_error(backend: str) -> None:
    engine = MCTS(TTT.initial_state(), seed=0, backend=backend)
    for bad in (9, -1, "4", 4.0, None, True):
        with pytest.raises(IllegalMoveError, match="not legal"):
            engine.advance(bad)  # type: ignore[arg-type]


def test_the_driver_is_chosen_in_one_place() -> None:
    assert MCTS(TTT.initial_state(), seed=0).backend == "compiled"
    assert MCTS(TTT.initial_state(), seed=0, backend="python").backend == "python"
    assert MCTS(TTT.initial_state(), seed=0, selection=playout.RAVE()).backend == "compiled"
    assert MCTS(TTT.initial_state(), seed=0, selection=playout.ProgressiveBias()).backend == (
        "python"
    )
    with pytest.raises(InvalidParameterError, match="cannot run this search"):
        MCTS(TTT.initial_state(), backend="compiled", selection=lambda stats: 0)


ENGINE_MODULES = (
    "search",
    "python_driver",
    "parallel",
    "results",
    "config",
    "tree/__init__",
    "tree/layout",
    "tree/compiling",
    "tree/rng",
    "tree/selection",
    "tree/expansion",
    "tree/backup",
    "tree/solver",
    "tree/finish",
    "tree/final_move",
    "tree/subtree",
    "rave",
    "evaluation",
    "rules",
    "compiled/__init__",
    "compiled/engine",
    "compiled/driver",
    "compiled/memory",
    "compiled/kernel",
    "compiled/shared",
    "compiled/rave_driver",
)


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_engine_modules_import_no_game(module: str) -> None:
    """The engine knows no particular game: games plug in through the protocol and hooks."""
    import ast

    path = pathlib.Path(playout.__file__).parent / "_src" / f"{module}.py"
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert not {m for m in imported if m.startswith(("playout.games", "playout.interop"))}


# ------------------------------------------------------------------ the configuration


def test_config_shortcuts_replace_budget_fields() -> None:
    config = SearchConfig(seed=3).replace(simulations=50, max_depth=4, final="best_value")
    assert config.budget == Budget(simulations=50, max_depth=4)
    assert (config.seed, config.final) == (3, "best_value")
    assert MCTS(TTT.initial_state(), config, seconds=1.0).budget == Budget(
        simulations=50, seconds=1.0, max_depth=4
    )


@pytest.mark.parametrize(
    "options",
    [
        {"simulation": 5},
        {"final": "most-visits"},
        {"temperature": 0},
        {"temperature": float("nan")},
        {"backend": "gpu"},
        {"seed": -1},
        {"seed": 1.5},
        {"solver": "yes"},
        {"evaluator": 3},
        {"selection": "ucb1"},
        {"budget": 100},
        {"simulations": -1},
        {"seconds": float("inf")},
        {"max_depth": 0},
    ],
)
def test_bad_options_are_rejected_with_a_typed_error(options: dict[str, object]) -> None:
    with pytest.raises(InvalidParameterError):
        SearchConfig().replace(**options)


def test_the_game_recommendations_apply_only_where_nothing_was_chosen() -> None:
    class Game:
        spec = Connect4Game().spec

        def default_selection(self) -> playout.PUCT:
            return playout.PUCT(c=3.0)

        def default_evaluator(self) -> playout.Rollout:
            return playout.Rollout(num_rollouts=2)

    resolved = SearchConfig().for_game(Game())
    assert resolved.selection == playout.PUCT(c=3.0)
    assert resolved.evaluator == playout.Rollout(num_rollouts=2)
    assert resolved.solver is True
    chosen = SearchConfig(selection=playout.UCB1(c=1.0), solver=False).for_game(Game())
    assert chosen.selection == playout.UCB1(c=1.0)
    assert chosen.solver is False


def test_config_is_frozen() -> None:
    config = SearchConfig()
    with pytest.raises(AttributeError):
        config.seed = 3  # type: ignore[misc]


# ------------------------------------------------------------------ golden trees


def _tree_statistics(engine: MCTS) -> dict[str, object]:
    tree = engine.tree
    n, e = tree.num_nodes, tree.num_edges
    return {
        "num_nodes": n,
        "num_edges": e,
        "nodes": tree.nodes[:n].astype(int).tolist(),
        "node_values": [[round(float(v), 9) for v in row] for row in tree.node_values[:n]],
        "edges": tree.edges[:e].astype(int).tolist(),
        "edge_values": [[round(float(v), 9) for v in row] for row in tree.edge_values[:e]],
    }


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_golden_tree(backend: str) -> None:
    """Seed 000's position, 300 simulations without the solver, seed 7: every row of the
    tree as stored."""
    state = TTT.from_grid([[0, -1, 0], [0, 1, 0], [0, 0, 0]], to_move=1)
    engine = MCTS(state, seed=7, backend=backend, solver=False)
    result = engine.run(Budget(simulations=300))
    observed = {
        "tree": _tree_statistics(engine),
        "best_action": result.best_action,
        "visit_counts": list(result.visit_counts),
        "pv": list(result.pv),
    }
    path = GOLDEN / f"tictactoe_seed000_{backend}.json"
    if os.environ.get("PLAYOUT_UPDATE_GOLDEN") == "1":
        path.write_text(json.dumps(observed, indent=1) + "\n")
    expected = json.loads(path.read_text())
    assert observed == expected
    # Invariants the stored numbers must satisfy (so that a wrong golden file cannot pass).
    tree = engine.tree
    root_edges = slice(
        int(tree.nodes[T.ROOT, T.N_FIRST_EDGE]),
        int(tree.nodes[T.ROOT, T.N_FIRST_EDGE] + tree.nodes[T.ROOT, T.N_NUM_EDGES]),
    )
    assert int(tree.edges[root_edges, T.E_VISITS].sum()) == 300
    assert int(tree.nodes[T.ROOT, T.N_VISITS]) == 300


# ------------------------------------------------------------------ bounds and stop reasons


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_the_memory_bound_stops_the_search_and_says_so(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playout._src.compiled import memory
    from playout.games import gomoku

    # An empty array pool: a recycled array may have up to four times the rows asked for
    # (arrays left by earlier tests would count in "as allocated" below).
    monkeypatch.setattr(memory, "POOL", memory.ArrayPool())
    state = gomoku().initial_state()
    budget = Budget(simulations=10**8, max_memory=20 * 2**20)
    engine = MCTS(state, seed=0, backend=backend, solver=False)
    with pytest.warns(playout.PlayoutWarning, match="memory bound"):
        result = engine.run(budget)
    assert result.stop_reason == "memory"
    # The rows in use stay within half the bound (arrays double as they grow), and the
    # search stopped only when one more node at its worst (every edge) might not fit.
    in_use = bytes_in_use(engine.driver)
    bound = engine.driver.node_bytes_bound()
    assert in_use <= 10 * 2**20 < in_use + bound
    assert result.simulations == result.nodes - 1  # every simulation added one node
    allocated = sum(a.nbytes for a in engine.tree[:4])
    assert allocated <= 2 * 20 * 2**20  # arrays as allocated, edges included


def test_the_memory_bound_counts_the_edges_a_lazy_tree_has_not_the_worst_case() -> None:
    # A compiled 9x9 tree expands nodes lazily: most have no edges, so far more nodes fit
    # than if every node took all 81 edges.
    state = playout.make_game("mnk", width=9, height=9, k=5).initial_state()
    engine = MCTS(state, seed=0, backend="compiled", solver=False)
    with pytest.warns(playout.PlayoutWarning, match="memory bound"):
        result = engine.run(Budget(simulations=10**8, max_memory=8 * 2**20))
    worst_case_nodes = 4 * 2**20 // engine.driver.node_bytes_bound()
    assert result.nodes > 3 * worst_case_nodes
    assert bytes_in_use(engine.driver) <= 4 * 2**20


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_every_stop_has_its_reason(backend: str) -> None:
    ttt = TTT.initial_state()
    assert MCTS(ttt, seed=0, backend=backend).run(Budget(simulations=50)).stop_reason == (
        "simulations"
    )
    assert MCTS(ttt, seed=0, backend=backend).run(Budget(simulations=10**6)).stop_reason == (
        "proven"
    )
    limited = MCTS(ttt, seed=0, backend=backend, solver=False).run(
        Budget(simulations=10**6, max_nodes=40)
    )
    assert (limited.stop_reason, limited.nodes) == ("max_nodes", 40)
    timed = MCTS(Connect4Game().initial_state(), seed=0, backend=backend).run(Budget(seconds=0.05))
    assert timed.stop_reason == "time"
    assert MCTS(ttt, seed=0, backend=backend).result().stop_reason == ""


def test_bad_memory_bounds_are_rejected() -> None:
    for bad in (-1, 1.5, True, "1GB"):
        with pytest.raises(InvalidParameterError):
            Budget(max_memory=bad)  # type: ignore[arg-type]
    assert Budget().memory_limit > 0


# ------------------------------------------------------------------ stopping and threads


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_a_stop_callable_ends_the_search_between_chunks(backend: str) -> None:
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    engine = MCTS(Connect4Game().initial_state(), seed=0, backend=backend, solver=False)
    result = engine.run(Budget(simulations=10**9), stop=stop)
    assert result.stop_reason == "stopped"
    assert len(asked) == 3
    assert 0 < result.simulations <= 2 * playout._src.search.STOPPABLE_CHUNK


def test_threads_search_side_by_side_and_merge() -> None:
    state = Connect4Game().initial_state()
    result = playout.parallel_search(state, simulations=3000, threads=2, seed=4, solver=False)
    assert result.total_simulations == sum(result.visit_counts) == 6000
    again = playout.parallel_search(state, simulations=3000, threads=2, seed=4, solver=False)
    assert again.visit_counts == result.visit_counts  # reproducible, whatever the timing
    one = playout.parallel_search(state, simulations=3000, threads=1, seed=4, solver=False)
    assert one.total_simulations == 3000
    with pytest.raises(InvalidParameterError, match="not both"):
        playout.parallel_search(state, simulations=10, threads=2, workers=2)
    with pytest.raises(InvalidParameterError, match="threads must be"):
        playout.parallel_search(state, simulations=10, threads=0)
    # Every search's tree and seed is made before any runs: their count is bounded.
    with pytest.raises(
        InvalidParameterError, match=r"threads must be a whole number in \[1, 1024\]"
    ):
        playout.parallel_search(state, simulations=1, threads=3 * 10**6)
    with pytest.raises(InvalidParameterError, match="workers must be"):
        playout.parallel_search(state, simulations=1, workers=10**6)


def test_a_failed_thread_stops_the_others() -> None:
    import threading

    calls = []

    class Failing:
        def evaluate(self, state: object, rng: object) -> float:
            calls.append(threading.get_ident())
            if len(calls) > 50:
                raise RuntimeError("evaluator failed")
            return 0.0

    with pytest.raises(RuntimeError, match="evaluator failed"):
        playout.parallel_search(
            TTT.initial_state(), simulations=10**9, threads=2, seed=0, evaluator=Failing()
        )


@pytest.mark.filterwarnings("ignore::playout.PlayoutWarning")
def test_threads_share_the_memory_bound() -> None:
    config = SearchConfig(budget=Budget(simulations=10**6, max_memory=2**20), seed=1, solver=False)
    one = playout.parallel_search(TTT.initial_state(), config, threads=1)
    two = playout.parallel_search(TTT.initial_state(), config, threads=2)
    assert one.stop_reason == two.stop_reason == "memory"
    # Two trees of half the memory each: about as many nodes in all as one tree (not twice
    # as many; the count follows the edges the trees made, which differ a little).
    assert 0.95 * one.nodes <= two.nodes <= 1.05 * one.nodes


def test_one_failed_thread_stops_the_other_at_once() -> None:
    import threading

    failing: list[int] = []

    class FailsOnOneThread:
        def evaluate(self, state: object, rng: object) -> float:
            ident = threading.get_ident()
            if not failing:
                failing.append(ident)
            if ident == failing[0]:
                raise RuntimeError("one search failed")
            return 0.0

    with pytest.raises(RuntimeError, match="one search failed"):
        # Without the stop, the healthy search would run its 10 million simulations.
        playout.parallel_search(
            TTT.initial_state(),
            simulations=10**7,
            threads=2,
            seed=0,
            solver=False,
            evaluator=FailsOnOneThread(),
        )


def test_a_game_without_max_length_cannot_overrun_the_path() -> None:
    class Chain:
        spec = playout.GameSpec(
            name="chain",
            num_players=1,
            num_actions=1,
            max_length=None,
            is_zero_sum=False,
            min_return=0.0,
            max_return=1.0,
        )

        def initial_state(self) -> Link:
            return Link(0)

    game = Chain()

    @dataclasses.dataclass(frozen=True)
    class Link:
        n: int

        @property
        def game(self) -> Chain:
            return game

        def current_player(self) -> int:
            return 0

        def legal_actions(self) -> tuple[int, ...]:
            return (0,)

        def play(self, action: int) -> Link:
            return Link(self.n + 1)

        def is_terminal(self) -> bool:
            return self.n >= 100_000

        def returns(self) -> tuple[float]:
            return (1.0,)

    result = playout.search(
        Link(0), simulations=6000, seed=0, evaluator=playout.ValueFunction(lambda s: 0.5)
    )
    assert result.simulations == 6000
    assert result.max_depth == 4096  # the walk stops where its path buffer ends


@pytest.mark.parametrize("batched", [False, True], ids=["python", "batched"])
def test_a_game_wider_than_it_declared_room_for_grows_the_tree(batched: bool) -> None:
    # No num_actions: the drivers start with room for 64 edges a node and must grow it.
    class Wide:
        spec = playout.GameSpec(
            name="wide",
            num_players=2,
            num_actions=None,
            max_length=2,
            is_zero_sum=True,
            min_return=-1.0,
            max_return=1.0,
        )

        def initial_state(self) -> Pick:
            return Pick(())

    game = Wide()
    width = 300

    @dataclasses.dataclass(frozen=True)
    class Pick:
        moves: tuple[int, ...]

        @property
        def game(self) -> Wide:
            return game

        def current_player(self) -> int:
            return len(self.moves) % 2

        def legal_actions(self) -> tuple[int, ...]:
            return tuple(range(width if self.moves else 2))  # widens below the root

        def play(self, action: int) -> Pick:
            return Pick((*self.moves, action))

        def is_terminal(self) -> bool:
            return len(self.moves) == 2

        def returns(self) -> tuple[float, float]:
            # The first player wins when the two picks have the same parity.
            first = 1.0 if (self.moves[0] - self.moves[1]) % 2 == 0 else -1.0
            return (first, -first)

    class Flat:
        def evaluate(self, state: object, rng: object) -> float:
            return 0.0

        def priors(self, state: object, actions: np.ndarray) -> np.ndarray:
            return np.full(len(actions), 1.0 / len(actions))

    class FlatBatch(Flat):
        def evaluate_batch(
            self, states: list[object], actions: list[np.ndarray]
        ) -> tuple[np.ndarray, list[np.ndarray]]:
            return np.zeros(len(states)), [
                self.priors(s, a) for s, a in zip(states, actions, strict=True)
            ]

    engine = playout.MCTS(
        game.initial_state(),
        selection=playout.PUCT(c=2.0),
        evaluator=FlatBatch() if batched else Flat(),
        simulations=2000,
        solver=False,  # the root is a proven loss: the solver would stop the search early
        seed=1,
    )
    assert engine.backend == ("batched" if batched else "python")
    result = engine.run()
    assert result.simulations == 2000
    assert sorted(result.actions) == [0, 1]
    assert sum(result.visit_counts) == 2000
