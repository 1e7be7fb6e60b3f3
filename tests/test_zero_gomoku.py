"""The network shipped for gomoku 15x15 (five in a row): found by the game alone, legal in
play, on the command line (``play gomoku --ai zero``); other board sizes have none.

The browser app's zero AI on gomoku is tested with the rest of the API in
``tests/test_web_api.py``.
"""

from __future__ import annotations

import io
import random
import sys

import pytest

import playout
from playout.cli import main
from playout.games import gomoku

torch = pytest.importorskip("torch")  # the zero extra is part of the test extra

from playout.zero import ZeroPlayer, ZeroSearch, shipped_model_path  # noqa: E402

MAX_BYTES = 5 * 2**20
"""A shipped network stays a few MB (it is package data)."""


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


def fresh_choice(player: ZeroPlayer, state: playout.GameState, seed: int = 0) -> int:
    player.reset(state, seed)
    return int(player.choose(state))


def test_the_shipped_network_is_found_by_the_game_alone() -> None:
    game = gomoku()
    path = shipped_model_path(game)
    assert path.name == "gomoku-15x15-5.pt" and 0 < path.stat().st_size <= MAX_BYTES
    player = ZeroPlayer(game, no_search=True)
    assert player.model.path is not None and player.model.path.name == path.name
    assert player.model.signature.name == "gomoku"
    assert player.model.signature.num_actions == 225


def test_the_shipped_network_plays_legal_moves() -> None:
    """The policy alone and a short search move on empty squares, from the empty board and
    from a crowded one, for either colour."""
    game = gomoku()
    policy = ZeroPlayer(game, no_search=True)
    search = ZeroPlayer(game, search=ZeroSearch(simulations=16))
    state = game.initial_state()
    plies = 0
    while plies < 12 and not state.is_terminal():  # the network may make five on the way
        player = policy if plies % 2 == 0 else search
        action = fresh_choice(player, state, seed=plies)
        assert action in state.legal_actions()
        state = state.play(action)
        plies += 1
    # A crowded board: 120 random plies that make no five, then one more for the other colour.
    rng = random.Random(0)
    state = game.initial_state()
    for ply in range(121):
        moves = [a for a in state.legal_actions() if not state.play(a).is_terminal()]
        state = state.play(rng.choice(moves))
        if ply >= 119:
            for player in (policy, search):
                assert fresh_choice(player, state, seed=ply) in state.legal_actions()


def test_the_shipped_network_completes_five() -> None:
    """A known answer: with an open four of its own, the network's search plays one of the
    two squares that make five, whatever the seed."""
    game = gomoku()
    rows = [[0] * 15 for _ in range(15)]
    for x in range(5, 9):  # X: four in a row, open at both ends of row 7
        rows[7][x] = 1
    for x, y in ((5, 9), (6, 9), (9, 3), (2, 12)):
        rows[y][x] = -1
    win = game.from_grid(rows, to_move=1)
    search = ZeroPlayer(game, search=ZeroSearch(simulations=64))
    for seed in range(3):
        action = fresh_choice(search, win, seed)
        assert game.square_of(action) in {(4, 7), (9, 7)}
        assert win.play(action).is_terminal()


@pytest.mark.parametrize("size", [(9, 9, 5), (15, 15, 4), (19, 19, 5)])
def test_other_sizes_have_no_network(size: tuple[int, int, int]) -> None:
    width, height, k = size
    game = gomoku(width, height, k)
    with pytest.raises(playout.ModelFileError, match="no network is shipped for gomoku with"):
        shipped_model_path(game)


def test_play_gomoku_with_the_zero_ai(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("h8\nquit\n"))
    argv = ["play", "gomoku", "--ai", "zero", "--simulations", "16", "--first", "ai"]
    assert main([*argv, "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "Traceback" not in out
    # The AI moved (its move is announced), the human answered, then quit.
    assert "AI (" in out and " plays " in out and "bye" in out
    # Another size: one line naming the file it looked for, exit 2.
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "gomoku", "--width", "9", "--height", "9", "--ai", "zero"]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "gomoku-9x9-5.pt" in err and "playout train" in err
