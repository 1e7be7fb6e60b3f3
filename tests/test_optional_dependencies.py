"""A missing optional dependency is a MissingDependencyError naming the extra to install.

Each test hides one package with ``monkeypatch.setitem(sys.modules, name, None)`` (the import
then fails as if the package were not installed), so they run whether or not Ray, OpenSpiel
and python-chess are installed.
"""

from __future__ import annotations

import importlib
import sys

import pytest

import playout
from playout._src import arena
from playout._src.optional import import_optional, missing_dependency
from playout.games.mnk import tictactoe


def _hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``import module`` fail for each of ``modules`` (restored after the test)."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def _forget(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """Drop ``module`` from the import cache, so the next import runs it again."""
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_the_error_is_a_playout_error_and_a_missing_module() -> None:
    error = missing_dependency("ray", "the Ray executor")
    assert isinstance(error, playout.PlayoutError)
    assert isinstance(error, ModuleNotFoundError) and isinstance(error, ImportError)
    assert error.name == "ray"
    expected = 'the Ray executor needs ray: pip install "playout[ray]" (or pip install ray)'
    assert str(error) == expected


def test_error_classes_are_one_class_everywhere() -> None:
    assert playout.MissingDependencyError is arena.MissingDependencyError
    assert playout.RecordError is arena.RecordError
    assert issubclass(playout.RecordError, ValueError)
    assert {"MissingDependencyError", "RecordError"} <= set(playout.__all__)


def test_import_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    assert import_optional("json", extra="json", needed_by="a test") is sys.modules["json"]
    _hide(monkeypatch, "pyspiel")
    with pytest.raises(playout.MissingDependencyError, match=r'"playout\[openspiel\]"') as info:
        import_optional("pyspiel", extra="openspiel", needed_by="a test")
    assert "pip install open-spiel" in str(info.value)


def test_ray_executor_without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "ray")
    with pytest.raises(playout.MissingDependencyError, match=r'pip install "playout\[ray\]"'):
        playout.make_executor("ray", 2)
    with pytest.raises(playout.MissingDependencyError, match=r"playout\[ray\]"):
        playout.run_match(tictactoe(), "random", "random", 2, workers=2, executor="ray")


def test_openspiel_player_without_openspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "pyspiel")
    with pytest.raises(playout.MissingDependencyError, match=r"playout\[openspiel\]"):
        playout.parse_player("openspiel-mcts:simulations=10", tictactoe())
    # The parts that need no OpenSpiel still work.
    assert arena.openspiel_game_string(tictactoe()) == "tic_tac_toe"
    assert arena.parse_openspiel_options("simulations=5").max_simulations == 5


def test_openspiel_adapter_without_openspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "pyspiel")
    _forget(monkeypatch, "playout.interop.openspiel")
    with pytest.raises(playout.MissingDependencyError, match=r"playout\[openspiel\]"):
        importlib.import_module("playout.interop.openspiel")


def test_chess_without_python_chess(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "chess", "chess.polyglot")
    _forget(monkeypatch, "playout.games.chess")
    with pytest.raises(playout.MissingDependencyError, match=r"playout\[chess\]"):
        importlib.import_module("playout.games.chess")
    with pytest.raises(playout.MissingDependencyError, match=r'pip install "playout\[chess\]"'):
        playout.make_game("chess")


def test_skippable_like_a_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "chess", "chess.polyglot")
    _forget(monkeypatch, "playout.games.chess")
    with pytest.raises(pytest.skip.Exception):
        pytest.importorskip("playout.games.chess")
