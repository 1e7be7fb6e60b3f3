"""Go games as SGF (Smart Game Format, FF[4], https://www.red-bean.com/sgf/), through sgfmill.

:func:`game_to_sgf` writes one game tree: ``FF[4]``, ``GM[1]``, ``SZ`` (board size), ``KM``
(komi), ``RU[Chinese]`` (area scoring; the game's own rule is Tromp-Taylor, which Chinese
scoring agrees with once dead stones are taken off), ``PB``/``PW`` (the players), ``RE`` when
the game is over (``B+3.5``, ``W+R`` for a resignation, ``0`` for a tie), then the moves, a
pass written ``B[]``/``W[]``. :func:`games_from_sgf` reads a file of one game tree or more (a
collection) back into :class:`SgfRecord` values, each move checked against the rules.

The library is sgfmill (Matthew Woodcraft), installed by ``pip install "playout[go]"``; it is
imported only when SGF is read or written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from playout._src.errors import IllegalMoveError, PlayoutError, RecordError
from playout._src.optional import import_optional
from playout.games.go.board import MAX_SIZE, score_text
from playout.games.go.state import GoGame, GoState

COLOURS = ("b", "w")
"""sgfmill's colours of player 0 (Black) and player 1 (White)."""


@dataclasses.dataclass(frozen=True)
class SgfRecord:
    """One game read from SGF.

    Attributes:
        game: the Go game (size and komi from ``SZ`` and ``KM``).
        actions: the moves, as action ids (the pass is ``game.pass_action``).
        players: ``PB`` and ``PW`` (empty strings when absent).
        result: ``RE`` as written, or ``None``.
        states: every position, the empty board first.
    """

    game: GoGame
    actions: tuple[int, ...]
    players: tuple[str, str]
    result: str | None
    states: tuple[GoState, ...]

    @property
    def resigned(self) -> int | None:
        """The player who resigned (``RE[W+R]``: Black, 0), or ``None``."""
        text = (self.result or "").strip().upper()
        if len(text) > 2 and text[1] == "+" and text[2:] in ("R", "RESIGN"):
            return 1 if text[0] == "B" else 0 if text[0] == "W" else None
        return None


def _sgfmill() -> Any:
    return import_optional("sgfmill.sgf", extra="go", needed_by="SGF files")


def result_text(state: GoState, resigned: int | None = None) -> str | None:
    """``RE`` of a game that ended in ``state``: the Tromp-Taylor score (``B+3.5``, ``0``),
    ``B+R`` / ``W+R`` when ``resigned`` (the player who resigned), ``None`` while it goes on."""
    if resigned is not None:
        return f"{'W' if resigned == 0 else 'B'}+R"
    if not state.is_terminal():
        return None
    return score_text(state.score())


def game_to_sgf(
    game: GoGame,
    actions: Sequence[int],
    *,
    players: tuple[str, str] = ("", ""),
    resigned: int | None = None,
) -> bytes:
    """The game tree of a game of ``game`` played by ``actions`` (from the empty board).

    Raises:
        IllegalMoveError: an action the rules forbid in turn.
    """
    sgf = _sgfmill()
    record = sgf.Sgf_game(size=game.size)
    root = record.get_root()
    root.set("KM", float(game.komi))
    root.set("RU", "Chinese")
    for key, name in zip(("PB", "PW"), players, strict=True):
        if name:
            root.set(key, name)
    state = game.initial_state()
    for action in actions:
        if action not in state.legal_actions():
            raise IllegalMoveError(state.illegal_reason(action))
        colour = COLOURS[state.current_player()]
        node = record.extend_main_sequence()
        if action == game.pass_action:
            node.set_raw(colour.upper(), b"")  # FF[4]'s pass
        else:
            y, x = divmod(action, game.size)
            node.set_move(colour, (game.size - 1 - y, x))
        state = state.play(action)
    result = result_text(state, resigned)
    if result is not None:
        root.set("RE", result)
    data: bytes = record.serialise()
    return data


def games_from_sgf(data: bytes, where: str) -> list[SgfRecord]:
    """Every game tree of an SGF file (its main line), replayed by the rules.

    Args:
        data: the file's bytes.
        where: the file's name, for messages.

    Raises:
        RecordError: text that is not SGF, a game that is not Go, a size playout does not
            play, a move off the board or against the rules, or no game at all.
    """
    sgf = _sgfmill()
    grammar = import_optional("sgfmill.sgf_grammar", extra="go", needed_by="SGF files")
    try:
        trees = grammar.parse_sgf_collection(data)
    except ValueError as error:
        raise RecordError(f"{where}: not an SGF file ({error})") from None
    records = []
    for number, tree in enumerate(trees, start=1):
        label = f"{where}, game {number}"
        try:
            record = sgf.Sgf_game.from_coarse_game_tree(tree)
            records.append(_read_game(record, label))
        except RecordError:
            raise
        except ValueError as error:  # sgfmill's malformed property values
            reason = str(error) or "a malformed property value (a point off the board?)"
            raise RecordError(f"{label}: {reason}") from None
    if not records:
        raise RecordError(f"{where}: no game in the file")
    return records


def _read_game(record: Any, where: str) -> SgfRecord:
    """One sgfmill game as an :class:`SgfRecord`, checked move by move."""
    root = record.get_root()
    if root.has_property("GM") and root.get("GM") != 1:
        raise RecordError(f"{where}: not a game of Go (GM[{root.get('GM')}])")
    size = record.get_size()
    if not 2 <= size <= MAX_SIZE:
        raise RecordError(f"{where}: board size {size} (playout plays 2..{MAX_SIZE})")
    if root.has_setup_stones():
        raise RecordError(f"{where}: set-up stones (AB/AW, handicap) are not supported")
    komi = record.get_komi()
    try:
        game = GoGame(size, komi)
    except PlayoutError as error:
        raise RecordError(f"{where}: {error}") from None
    state = game.initial_state()
    states = [state]
    actions = []
    for number, node in enumerate(record.get_main_sequence()[1:], start=1):
        colour, point = node.get_move()
        if colour is None:
            continue
        expected = COLOURS[state.current_player()] if not state.is_terminal() else None
        if colour != expected:
            whose = "after the end of the game" if expected is None else "out of turn"
            raise RecordError(f"{where}: move {number} ({colour.upper()}) is {whose}")
        action = game.pass_action if point is None else (size - 1 - point[0]) * size + point[1]
        if action not in state.legal_actions():
            name = game.action_to_string(state, action)
            raise RecordError(f"{where}: move {number} ({name}): {state.illegal_reason(action)}")
        state = state.play(action)
        states.append(state)
        actions.append(action)
    players = (record.get_player_name("b") or "", record.get_player_name("w") or "")
    result = root.get("RE") if root.has_property("RE") else None
    return SgfRecord(game, tuple(actions), players, result, tuple(states))


__all__ = ["SgfRecord", "game_to_sgf", "games_from_sgf", "result_text"]
