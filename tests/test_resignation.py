"""Resigning lost games: the rule (:class:`ResignWatch`), ``mcts:...,resign=P`` players in
matches, and ``playout gtp --resign P``."""

from __future__ import annotations

import pytest

import playout
from playout._src.arena.players import MctsOptions, MctsPlayer
from playout._src.arena.specs import parse_mcts_options
from playout._src.resignation import (
    MIN_VISITS,
    Resignation,
    ResignWatch,
    best_win_rate,
    check_threshold,
)
from playout._src.results import Proven, SearchResult
from playout.cli import main
from playout.cli.gtp import GtpEngine
from playout.games.go import GoState


def result(
    values: tuple[float, ...],
    visits: tuple[int, ...],
    best: int,
    proven: Proven | None = None,
) -> SearchResult:
    """A root with actions 0..n-1 of the given mean returns and visits, ``best`` chosen."""
    n = len(values)
    return SearchResult(
        best_action=best,
        actions=tuple(range(n)),
        visit_counts=visits,
        values=values,
        priors=(1.0 / n,) * n,
        value=sum(v * c for v, c in zip(values, visits, strict=True)) / max(1, sum(visits)),
        pv=(best,),
        player=0,
        simulations=sum(visits),
        total_simulations=sum(visits),
        seconds=0.0,
        nodes=n + 1,
        max_depth=1,
        proven=proven,
    )


LOW = result((-0.9, -0.7), (100, 300), best=1)  # best move wins 15%
HIGH = result((-0.9, 0.2), (100, 300), best=1)  # 60%


def test_the_win_rate_is_the_chosen_moves_not_the_roots() -> None:
    assert best_win_rate(LOW) == pytest.approx(0.15)
    assert best_win_rate(result((0.5, -1.0), (10, 90), best=0)) == pytest.approx(0.75)


def test_two_low_moves_in_a_row_resign_and_a_good_one_between_resets() -> None:
    watch = ResignWatch(0.2)
    assert [watch.should_resign(r) for r in (LOW, HIGH, LOW, LOW)] == [False, False, False, True]
    watch.reset()
    assert watch.should_resign(LOW) is False
    three = ResignWatch(0.2, moves=3)
    assert [three.should_resign(LOW) for _ in range(3)] == [False, False, True]


def test_a_win_rate_at_the_threshold_is_not_low() -> None:
    watch = ResignWatch(0.15)
    assert not watch.should_resign(LOW) and not watch.should_resign(LOW)
    assert ResignWatch(0.1500001, moves=1).should_resign(LOW)


def test_a_search_too_small_to_judge_never_resigns_unless_the_loss_is_proven() -> None:
    thin = result((-0.9, -0.9), (1, MIN_VISITS - 1), best=1)
    watch = ResignWatch(0.3, moves=1)
    assert not watch.should_resign(thin)
    assert watch.should_resign(result((-1.0,), (1,), best=0, proven=Proven.LOSS))
    assert not ResignWatch(0.3, moves=1).should_resign(result((1.0,), (1,), 0, Proven.WIN))


@pytest.mark.parametrize("bad", [0, 0.0, 0.5, 0.9, -0.1, True, "0.1", None, float("nan")])
def test_thresholds_outside_zero_to_a_half_are_refused(bad: object) -> None:
    with pytest.raises(playout.InvalidParameterError, match="resign must be"):
        check_threshold(bad)
    with pytest.raises(playout.InvalidParameterError):
        ResignWatch(bad)  # type: ignore[arg-type]


def test_the_count_of_moves_is_checked() -> None:
    with pytest.raises(playout.InvalidParameterError, match="moves must be"):
        ResignWatch(0.1, moves=0)


def test_the_mcts_spec_takes_resign() -> None:
    assert parse_mcts_options("simulations=10,resign=0.05").resign == 0.05
    assert parse_mcts_options("simulations=10").resign is None
    for bad in ("resign=0.5", "resign=0", "resign=abc"):
        with pytest.raises(playout.InvalidParameterError):
            parse_mcts_options(bad)


def test_the_cli_refuses_a_bad_resign_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["match", "tictactoe", "--p1", "mcts:resign=0.7", "--p2", "random", "--games", "2"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "resign must be" in err
    assert main(["gtp", "--resign", "0"]) == 2
    assert "resign must be" in capsys.readouterr().err


def lost_tictactoe() -> playout.GameState:
    """O to move and lost: X holds squares 0, 2 and 6 (two threats, on 3 and on 4), O 8 and 1."""
    game = playout.make_game("tictactoe")
    state = game.initial_state()
    for action in (0, 8, 2, 1, 6):  # X O X O X
        state = state.play(action)
    return state


def test_a_player_resigns_a_proven_loss_at_once_and_plays_without_resign() -> None:
    state = lost_tictactoe()
    game = playout.make_game("tictactoe")
    budget = playout.Budget(simulations=500)
    resigning = MctsPlayer(game, MctsOptions(budget=budget, resign=0.1), name="weak")
    resigning.reset(state, seed=1)
    with pytest.raises(Resignation):
        resigning.choose(state)
    assert resigning.last_result is not None and resigning.last_result.proven is Proven.LOSS
    playing = MctsPlayer(game, MctsOptions(budget=budget), name="plays on")
    playing.reset(state, seed=1)
    assert playing.choose(state) in state.legal_actions()


def test_without_the_solver_a_player_resigns_on_its_second_low_move() -> None:
    state = lost_tictactoe()
    game = playout.make_game("tictactoe")
    options = MctsOptions(budget=playout.Budget(simulations=2000), solver=False, resign=0.25)
    player = MctsPlayer(game, options, name="no solver")
    player.reset(state, seed=3)
    assert player.choose(state) in state.legal_actions()  # the first low move is played
    assert player.last_result is not None and player.last_result.proven is None
    assert best_win_rate(player.last_result) < 0.25
    with pytest.raises(Resignation):  # asked again (its tree kept): the second
        player.choose(state)


def test_a_match_records_resignations_and_scores_them() -> None:
    match = playout.run_match(
        playout.make_game("connect4"),
        "mcts:simulations=500,resign=0.3",
        "mcts:simulations=5000",
        games=4,
        seed=0,
        workers=1,
    )
    resigned = [r for r in match.records if r.resigned is not None]
    assert resigned, "the weak side never resigned a lost game"
    for record in resigned:
        assert record.resigned == record.players.index("mcts:simulations=500,resign=0.3")
        assert record.returns[record.resigned] == -1.0
        assert record.returns[1 - record.resigned] == 1.0


def make_engine(resign: float | None) -> GtpEngine:
    def make_search(state: GoState) -> playout.MCTS:
        return playout.MCTS(state, simulations=1500, seed=0)

    return GtpEngine(5, 0.5, playout.Budget(simulations=1500), make_search, resign=resign)


def lost_for_white(engine: GtpEngine) -> None:
    """5x5, komi 0.5: Black's stones on B2, B4, D2, D4 and C3 (White passing), White to move."""
    for vertex in ("B2", "B4", "D2", "D4"):
        assert engine.handle(f"play b {vertex}") == "=\n\n"
        assert engine.handle("play w pass") == "=\n\n"
    assert engine.handle("play b C3") == "=\n\n"


def test_gtp_genmove_resigns_on_the_second_low_move_and_plays_nothing() -> None:
    engine = make_engine(resign=0.3)
    lost_for_white(engine)
    first = engine.handle("genmove w")
    assert first.startswith("= ") and "resign" not in first
    assert engine.handle("play b A1") == "=\n\n"
    state, moves = engine.state, list(engine.moves)
    assert engine.handle("genmove w") == "= resign\n\n"
    assert engine.state == state and engine.moves == moves
    plays_on = make_engine(resign=None)
    lost_for_white(plays_on)
    assert "resign" not in plays_on.handle("genmove w")
    plays_on.handle("play b A1")
    assert "resign" not in plays_on.handle("genmove w")


def test_gtp_resignation_takes_back_the_pass_put_first() -> None:
    engine = make_engine(resign=0.3)
    lost_for_white(engine)
    engine.handle("genmove w")  # the first low move
    state, moves = engine.state, list(engine.moves)  # Black to move
    assert engine.handle("genmove w") == "= resign\n\n"  # a Black pass would come first
    assert engine.state == state and engine.moves == moves


def test_lz_genmove_analyze_ends_with_play_resign() -> None:
    engine = make_engine(resign=0.3)
    lost_for_white(engine)
    engine.handle("genmove w")
    engine.handle("play b A1")
    state = engine.state
    assert engine.handle("lz-genmove_analyze w 1") == "=\n"
    lines = list(engine.genmove_analyze())
    assert lines[-1] == "play resign\n\n"
    assert engine.state == state


def test_undo_and_clear_board_forget_the_low_moves() -> None:
    engine = make_engine(resign=0.3)
    lost_for_white(engine)
    engine.handle("genmove w")  # one low move counted
    engine.handle("undo")
    assert "resign" not in engine.handle("genmove w")  # counted afresh: one low move
