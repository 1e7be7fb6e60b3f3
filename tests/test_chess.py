"""Chess through python-chess: rules, notation, draws, and what the search finds."""

from __future__ import annotations

import pickle
import random
import sys

import pytest

chess = pytest.importorskip("chess")

import playout  # noqa: E402
from playout import cli  # noqa: E402
from playout._src.errors import (  # noqa: E402
    GameError,
    IllegalMoveError,
    InvalidParameterError,
    MoveParseError,
    PlayoutError,
)
from playout.games.chess import (  # noqa: E402
    CHECKMATE,
    FIVEFOLD_REPETITION,
    INSUFFICIENT_MATERIAL,
    NUM_ACTIONS,
    PLY_LIMIT,
    SEVENTYFIVE_MOVES,
    STALEMATE,
    ChessEvaluator,
    ChessGame,
    ChessState,
    action_to_move,
    chess_evaluator,
    chess_heuristic,
    chess_selection,
    move_to_action,
)

PROMOTIONS_WHITE = "r1r3k1/1P6/8/8/8/8/6p1/4K2R w - - 0 1"
PROMOTIONS_BLACK = "r1r3k1/1P6/8/8/8/8/6p1/4K2R b - - 0 1"
CASTLING = "r3k2r/pppq1ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 4 8"
EN_PASSANT = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"


def search(state: ChessState, simulations: int, seed: int) -> playout.SearchResult:
    """The recommended chess search: the chess evaluator with PUCT."""
    return playout.search(
        state,
        simulations=simulations,
        seed=seed,
        evaluator=chess_evaluator(),
        selection=chess_selection(),
    )


# ------------------------------------------------------------------------------- action ids


@pytest.mark.parametrize("fen", [chess.STARTING_FEN, PROMOTIONS_WHITE, PROMOTIONS_BLACK, CASTLING])
def test_action_ids_are_distinct_and_decode_back(fen: str) -> None:
    board = chess.Board(fen)
    actions = [move_to_action(move) for move in board.legal_moves]
    assert len(set(actions)) == len(actions)
    assert all(0 <= action < NUM_ACTIONS for action in actions)
    for move, action in zip(board.legal_moves, actions, strict=True):
        assert action_to_move(action, board) == move


def test_action_id_layout() -> None:
    assert move_to_action(chess.Move.from_uci("e2e4")) == 12 * 64 + 28
    assert move_to_action(chess.Move.from_uci("e7e8q")) == 52 * 64 + 60
    knight = move_to_action(chess.Move.from_uci("e7e8n"))
    assert knight >= 4096 and action_to_move(knight) == chess.Move.from_uci("e7e8n")
    assert action_to_move(move_to_action(chess.Move.from_uci("b2a1r"))).uci() == "b2a1r"
    underpromotions = {
        move_to_action(chess.Move(chess.square(f, rank), chess.square(f + d, last), piece))
        for rank, last in ((6, 7), (1, 0))
        for f in range(8)
        for d in (-1, 0, 1)
        if 0 <= f + d < 8
        for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK)
    }
    assert max(underpromotions) < NUM_ACTIONS and len(underpromotions) == 2 * 22 * 3
    with pytest.raises(IllegalMoveError):
        action_to_move(NUM_ACTIONS)
    with pytest.raises(IllegalMoveError):
        action_to_move(4096)  # white a-pawn "capturing" towards the left edge


# ------------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    "fen", [chess.STARTING_FEN, PROMOTIONS_WHITE, PROMOTIONS_BLACK, CASTLING, EN_PASSANT]
)
def test_uci_round_trip_of_every_legal_move(fen: str) -> None:
    game = ChessGame.from_fen(fen)
    state = game.initial_state()
    board = chess.Board(fen)
    assert {game.action_to_string(state, a) for a in state.legal_actions()} == {
        move.uci() for move in board.legal_moves
    }
    for action in state.legal_actions():
        text = game.action_to_string(state, action)
        assert game.string_to_action(state, text) == action
        assert game.string_to_action(state, board.san(action_to_move(action, board))) == action


def test_san_and_uci_parsing() -> None:
    game = ChessGame()
    state = game.initial_state()
    assert game.action_to_string(state, game.string_to_action(state, "Nf3")) == "g1f3"
    assert game.string_to_action(state, "E2E4") == game.string_to_action(state, "e2e4")
    castling = ChessGame.from_fen(CASTLING)
    start = castling.initial_state()
    assert castling.action_to_string(start, castling.string_to_action(start, "O-O")) == "e1g1"
    assert castling.action_to_string(start, castling.string_to_action(start, "0-0-0")) == "e1c1"
    promotions = ChessGame.from_fen(PROMOTIONS_WHITE)
    here = promotions.initial_state()
    assert promotions.action_to_string(here, promotions.string_to_action(here, "bxc8=N+")) == (
        "b7c8n"
    )
    assert promotions.action_to_string(here, promotions.string_to_action(here, "b7a8q")) == "b7a8q"
    en_passant = ChessGame.from_fen(EN_PASSANT)
    assert (
        en_passant.action_to_string(
            en_passant.initial_state(),
            en_passant.string_to_action(en_passant.initial_state(), "exf6"),
        )
        == "e5f6"
    )


def test_bad_moves_raise_specific_errors() -> None:
    game = ChessGame()
    state = game.initial_state()
    with pytest.raises(IllegalMoveError):
        game.string_to_action(state, "e2e5")
    with pytest.raises(IllegalMoveError):
        game.string_to_action(state, "Nf6")  # black's move
    with pytest.raises(MoveParseError):
        game.string_to_action(state, "knight to f3")
    with pytest.raises(MoveParseError):
        game.string_to_action(state, "")
    rooks = ChessGame.from_fen("4k3/8/8/8/8/8/4K3/R6R w - - 0 1").initial_state()
    with pytest.raises(MoveParseError, match="ambiguous"):
        rooks.game.string_to_action(rooks, "Rd1")
    with pytest.raises(IllegalMoveError, match="move 2"):
        game.from_moves("e2e4 e2e4")
    with pytest.raises(IllegalMoveError):
        state.play(0)
    with pytest.raises(GameError):
        game.string_to_action(ChessGame.from_fen(CASTLING).initial_state(), "e1g1")


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("not a fen", "bad FEN"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "no white king"),
        ("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "opposite check"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawns on backrank"),
    ],
)
def test_bad_fen_is_a_game_error(fen: str, message: str) -> None:
    with pytest.raises(GameError, match=message):
        ChessGame.from_fen(fen)
    with pytest.raises(PlayoutError, match="bad FEN"):
        playout.make_game("chess", fen=fen)


def test_a_fen_that_is_not_a_string_is_a_game_error() -> None:
    with pytest.raises(GameError, match="a FEN is a string, got 5"):
        ChessGame.from_fen(5)  # type: ignore[arg-type]
    for falsy in (0, False, []):  # not the start position in disguise
        with pytest.raises(GameError, match="a FEN is a string"):
            ChessGame(falsy)  # type: ignore[arg-type]


def test_render_has_coordinates_and_status() -> None:
    game = ChessGame()
    picture = game.render(game.from_moves("e2e4"))
    lines = picture.splitlines()
    assert lines[0] == "8 r n b q k b n r"
    assert lines[4] == "4 . . . . P . . ."
    assert lines[8] == "  a b c d e f g h"
    assert lines[9] == "black to move"
    assert "♜" in game.render(game.initial_state(), unicode=True)
    mated = game.from_moves("f2f3 e7e5 g2g4 Qh4")
    assert game.render(mated).splitlines()[-1] == "checkmate: black wins"


# ------------------------------------------------------------------------------- rules


def test_conformance_on_random_games() -> None:
    report = playout.check_game(ChessGame(max_plies=120), num_games=6, seed=2)
    assert report.max_length_seen <= 120
    endgame = ChessGame.from_fen("8/2k5/8/3p4/8/2K1P3/6R1/8 w - - 0 1", max_plies=200)
    playout.check_game(endgame, num_games=6, seed=3)
    playout.check_game(ChessGame.from_fen(PROMOTIONS_WHITE, max_plies=60), num_games=6, seed=4)


def test_endings_agree_with_python_chess() -> None:
    """Random games: same legal moves, same position and same end as ``board.outcome()``."""
    rng = random.Random(5)
    game = ChessGame()
    for _ in range(4):
        state, board = game.initial_state(), chess.Board()
        while state.ending != PLY_LIMIT:
            outcome = board.outcome(claim_draw=False)
            assert (outcome is None) == (state.ending is None)
            if outcome is not None:
                winner = None if outcome.winner is None else (0 if outcome.winner else 1)
                assert state.winner() == winner
                break
            assert set(state.legal_actions()) == {move_to_action(m) for m in board.legal_moves}
            action = rng.choice(state.legal_actions())
            board.push(action_to_move(action, board))
            state = state.play(action)
            assert state.fen() == board.fen()


def test_checkmate_returns() -> None:
    game = ChessGame()
    fools = game.from_moves("f2f3 e7e5 g2g4 Qh4#")
    assert fools.is_terminal() and fools.ending == CHECKMATE
    assert fools.winner() == 1 and fools.returns() == (-1.0, 1.0)
    assert fools.legal_actions() == () and fools.current_player() == playout.TERMINAL
    with pytest.raises(IllegalMoveError, match="over"):
        fools.play(0)
    scholars = game.from_moves("e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#")
    assert scholars.winner() == 0 and scholars.returns() == (1.0, -1.0)


def test_draws() -> None:
    stalemate = ChessGame.from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").initial_state()
    assert stalemate.ending == STALEMATE and stalemate.returns() == (0.0, 0.0)
    lone_bishop = ChessGame.from_fen("8/8/8/4k3/8/8/8/4KB2 w - - 0 1").initial_state()
    assert lone_bishop.ending == INSUFFICIENT_MATERIAL and lone_bishop.is_terminal()
    seventy_five = ChessGame.from_fen("8/8/8/4k3/8/8/8/R3K3 w - - 149 80")
    assert not seventy_five.initial_state().is_terminal()
    assert seventy_five.from_moves("Ra2").ending == SEVENTYFIVE_MOVES
    assert seventy_five.from_moves("Kd2").returns() == (0.0, 0.0)
    capture_resets = ChessGame.from_fen("8/8/8/4k3/8/8/r7/R3K3 w - - 149 80")
    assert capture_resets.from_moves("Rxa2").ending is None  # a capture resets the clock


def test_fivefold_repetition() -> None:
    game = ChessGame()
    shuffle = "Nf3 Nf6 Ng1 Ng8 " * 4
    board = chess.Board()
    state = game.initial_state()
    for index, token in enumerate(shuffle.split(), start=1):
        state = game.from_moves([token], start=state)
        board.push_san(token)
        assert state.is_terminal() == board.is_fivefold_repetition()
        assert state.is_terminal() == (index == 16)
    assert state.ending == FIVEFOLD_REPETITION and state.returns() == (0.0, 0.0)


def test_ply_limit_is_a_draw() -> None:
    game = ChessGame(max_plies=4)
    assert game.spec.max_length == 4
    state = game.from_moves("e4 e5 Nf3")
    assert not state.is_terminal()
    state = game.from_moves(["Nc6"], start=state)
    assert state.ending == PLY_LIMIT and state.returns() == (0.0, 0.0)
    assert game.render(state).splitlines()[-1] == "draw: ply limit"
    with pytest.raises(InvalidParameterError):
        ChessGame(max_plies=0)


def test_states_are_immutable_and_hashable() -> None:
    game = ChessGame()
    start = game.initial_state()
    child = game.from_moves("e4")
    assert start.fen() == chess.STARTING_FEN and len(start.legal_actions()) == 20
    assert child == game.from_moves(["e2e4"]) and hash(child) == hash(game.from_moves("e4"))
    assert child != start and child != game.from_moves("d4")
    board = child.board
    board.push_san("e5")
    assert child.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert pickle.loads(pickle.dumps(child)) == child
    assert pickle.loads(pickle.dumps(game)) == game
    assert ChessGame.from_fen(chess.STARTING_FEN) == game
    assert ChessGame.from_fen(CASTLING) != game


# ------------------------------------------------------------------------------- the AI


def test_heuristic_sign_and_range() -> None:
    game = ChessGame()
    assert abs(chess_heuristic(game.initial_state())) < 0.1
    # White is a queen up; the value is for the side to move.
    up = ChessGame.from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").initial_state()
    down = ChessGame.from_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1").initial_state()
    assert 0.9 < chess_heuristic(up) < 1.0 and -1.0 < chess_heuristic(down) < -0.9
    # A queen that can be taken for free counts for the side to move.
    hanging = ChessGame.from_fen("4k3/8/8/8/8/3q4/8/3RK3 w - - 0 1").initial_state()
    assert chess_heuristic(hanging) > 0.5
    priors = ChessEvaluator().priors(hanging, list(hanging.legal_actions()))
    assert sum(priors) == pytest.approx(1.0)
    best = hanging.legal_actions()[max(range(len(priors)), key=priors.__getitem__)]
    assert hanging.game.action_to_string(hanging, best) == "d1d3"


@pytest.mark.parametrize(
    ("start", "mate"),
    [
        ("e4 e5 Qh5 Nc6 Bc4 Nf6", "h5f7"),  # scholar's mate: 4.Qxf7#
        ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8"),  # back-rank mate
        ("6k1/5ppp/8/8/8/8/r4PPP/6K1 b - - 0 1", "a2a1"),  # the same for black
    ],
)
def test_search_proves_mate_in_one(start: str, mate: str) -> None:
    if "/" in start:
        game = ChessGame.from_fen(start)
        state = game.initial_state()
    else:
        game = ChessGame()
        state = game.from_moves(start)
    result = search(state, simulations=2000, seed=0)
    assert game.action_to_string(state, result.best_action) == mate
    assert result.proven == "win"
    # The library's default evaluator (random rollouts) with UCB1 proves it too.
    assert playout.search(state, simulations=2000, seed=0).proven == "win"


HANGING_QUEENS = [
    # White's queen on e4 is attacked by the d5 pawn (and Qxd5 or Qxe7+ lose it).
    "rnbqkbnr/ppp1pppp/8/3p4/4Q3/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3",
    # Black's queen on d4 is attacked by the c3 pawn.
    "rnb1kbnr/pppp1ppp/8/4p3/3q4/2P5/PP1P1PPP/RNBQKBNR b KQkq - 0 3",
    # White's queen on f3 is attacked by the g4 pawn (Qxf6 loses it to the d8 queen).
    "r1bqkb1r/pppp1p1p/2n2n2/4p3/2B1P1p1/2N2Q2/PPPP1PPP/R1B1K1NR w KQkq - 0 6",
    # Nothing attacks white's queen, but Qxh7 would give it for a pawn (Rxh7).
    "rnbqkbnr/pppppp1p/8/6p1/8/3Q4/PPPPPPPP/RNB1KBNR w KQkq - 0 2",
]


@pytest.mark.parametrize("fen", HANGING_QUEENS)
def test_search_saves_its_attacked_queen(fen: str) -> None:
    game = ChessGame.from_fen(fen)
    state = game.initial_state()
    for seed in range(2):
        result = search(state, simulations=1000, seed=seed)
        after = state.play(result.best_action).board
        mover = not after.turn
        queen = after.pieces(chess.QUEEN, mover)
        assert queen, game.action_to_string(state, result.best_action)
        assert not any(after.is_attacked_by(after.turn, square) for square in queen), (
            f"{game.action_to_string(state, result.best_action)} leaves the queen en prise"
        )


def test_search_takes_a_free_queen() -> None:
    game = ChessGame.from_fen("r1b1kbnr/pppp1ppp/2n5/4p1q1/4P3/3P1N2/PPP2PPP/RNBQKB1R w KQkq - 0 5")
    state = game.initial_state()
    result = search(state, simulations=500, seed=0)
    assert game.action_to_string(state, result.best_action) in ("f3g5", "c1g5")


def test_game_recommends_its_evaluator_and_rule() -> None:
    game = ChessGame()
    assert isinstance(game.default_evaluator(), ChessEvaluator)
    assert isinstance(game.default_selection(), playout.PUCT)


# ------------------------------------------------------------------------------- registry, CLI


def test_registry() -> None:
    game = playout.make_game("chess")
    assert isinstance(game, ChessGame) and game.spec.name == "chess"
    assert (game.spec.num_players, game.spec.num_actions, game.spec.max_length) == (
        2,
        NUM_ACTIONS,
        512,
    )
    assert game.spec.is_zero_sum and game.spec.is_deterministic
    endgame = playout.make_game("chess", fen="8/8/8/4k3/8/8/8/R3K3 w - - 0 1", max_plies="40")
    assert isinstance(endgame, ChessGame) and endgame.max_plies == 40


def test_registry_without_python_chess(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "playout.games.chess", None)
    with pytest.raises(PlayoutError, match="pip install chess"):
        playout.make_game("chess")


def test_cli_analyze(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["analyze", "chess", "--moves", "e2e4 e7e5 Qh5 Nc6 Bc4 Nf6", "--simulations", "200"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "best move: h5f7" in out and "proven: win" in out
    code = cli.main(
        [
            "analyze",
            "chess",
            "--fen",
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
            "--simulations",
            "100",
            "--json",
        ]
    )
    assert code == 0 and '"best_move": "a1a8"' in capsys.readouterr().out


def test_cli_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["analyze", "chess", "--fen", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("playout: error: bad FEN") and err.count("\n") == 1
    assert cli.main(["analyze", "chess", "--moves", "e2e4 e2e4"]) == 2
    assert "move 2" in capsys.readouterr().err
    assert cli.main(["analyze", "tictactoe", "--fen", "x"]) == 2
    assert "unknown parameter fen" in capsys.readouterr().err
