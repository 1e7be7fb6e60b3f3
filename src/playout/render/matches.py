"""Text reports of games between players: match lines and scores, standings, replays.

Pure functions that return strings; nothing here prints or plays.
"""

from __future__ import annotations

from typing import Any

from playout.render.board import board_text, outcome_text, player_label
from playout.render.formatting import number_text


def match_game_line(game: Any, record: Any, planned_games: int) -> str:
    """One line per finished match game (a ``GameRecord``): who started and who won."""
    index = record.index
    first = "p1" if index % 2 == 0 else "p2"
    winner = record.winner
    if winner is None:
        text = "draw"
    else:
        p1_won = winner == index % 2
        text = f"{'p1' if p1_won else 'p2'} ({player_label(game, winner)}) wins"
    resigned = getattr(record, "resigned", None)
    if resigned is not None:
        text += f" by resignation of {player_label(game, resigned)}"
    checks = "".join(_check_note(check) for check in getattr(record, "score_checks", ()))
    return (
        f"game {index + 1}/{planned_games}: {first} first, {text} in {record.num_moves} moves"
        f" ({record.seconds:.1f} s){checks}"
    )


def _check_note(check: Any) -> str:
    """A game line's note of a result another program reported (a ``ScoreCheck``)."""
    if check.same_score:
        return f"; engine's score {check.reported} agrees"
    agreement = "same winner" if check.same_winner else "OTHER WINNER"
    dead = getattr(check, "dead", "")
    seen_dead = f", dead for it: {dead}" if dead else ""
    return f"; engine's score {check.reported} vs ours {check.ours} ({agreement}{seen_dead})"


def match_text(result: Any, planned_games: int) -> str:
    """The report of a match (a ``MatchResult``): score, Elo and the SPRT verdict, from
    p1's side."""
    from playout._src.elo import format_elo

    low, high = result.confidence_interval
    elo_low, elo_high = result.elo_interval
    lines = [
        f"{result.game}: p1 = {result.p1}, p2 = {result.p2}, {result.games} games",
        f"p1: {result.wins} wins, {result.draws} draws, {result.losses} losses",
        f"p1 score: {result.score:.3f} (95% CI {low:.3f} .. {high:.3f}, Wilson)",
        f"p1 Elo: {format_elo(result.elo)} (95% CI {format_elo(elo_low)} .. "
        f"{format_elo(elo_high)})",
    ]
    counts_of = getattr(result, "score_check_counts", None)
    counts = counts_of() if counts_of is not None else {"checks": 0, "resigned": 0}
    if counts["checks"]:
        lines.append(
            f"engine scores: {counts['same_score']} of {counts['checks']} agree with ours "
            f"(Tromp-Taylor), {counts['same_winner']} name the same winner"
        )
        for record in result.records:
            for check in record.score_checks:
                if not check.same_score:
                    dead = f" (dead for it: {check.dead})" if check.dead else ""
                    lines.append(
                        f"  game {record.index + 1}: {check.player} says {check.reported}, "
                        f"ours {check.ours}{dead}"
                    )
    if counts["resigned"]:
        lines.append(f"games ended by resignation: {counts['resigned']}")
    if result.sprt is not None:
        status = result.sprt
        verdict = {
            "H1": f"H1 accepted (p1 is {status.test.elo1:g} Elo stronger or more)",
            "H0": f"H0 accepted (p1 is at most {status.test.elo0:g} Elo stronger)",
            None: "no decision yet",
        }[status.decision]
        lines.append(
            f"SPRT [{status.test.elo0:g}, {status.test.elo1:g}]: LLR {number_text(status.llr)} "
            f"(bounds {status.lower:.2f}, {status.upper:.2f}): {verdict} after "
            f"{result.games} of {planned_games} games"
        )
    return "\n".join(lines)


def tournament_text(
    result: Any, num_players: int, games_per_pair: int, anchored_first: bool = False
) -> str:
    """The standings of a round robin (a ``TournamentResult``): Elo, games, W/D/L, score."""
    rows = result.standings()
    pad = max(len("player"), *(len(row.player) for row in rows))
    lines = [
        f"{result.game}: round robin of {num_players} players, {games_per_pair} games per "
        f"pair, {len(result.records)} games",
        f"{'#':>2}  {'player'.ljust(pad)}  {'Elo':>7}  {'games':>5}  {'W':>4}  {'D':>4}"
        f"  {'L':>4}  {'score':>5}",
    ]
    for rank, row in enumerate(rows, start=1):
        lines.append(
            f"{rank:>2}  {row.player.ljust(pad)}  {number_text(row.rating, 1, sign=True):>7}"
            f"  {row.games:>5}  {row.wins:>4}  {row.draws:>4}  {row.losses:>4}  {row.score:>5.3f}"
        )
    anchor = "the first player" if anchored_first else "the mean"
    lines.append(f"Elo: Bradley-Terry maximum likelihood, anchored at {anchor} = 0")
    return "\n".join(lines)


def replay_text(saved: Any) -> str:
    """A saved game (a ``SavedGame`` of ``match --save``) move by move: the boards and the
    result."""
    game, data = saved.game, saved.data
    names = list(data.get("players", []))
    versus = " vs ".join(f"{name} ({player_label(game, seat)})" for seat, name in enumerate(names))
    lines = [
        f"game {saved.index}: {game.spec.name}" + (f", {versus}" if versus else ""),
        board_text(game, saved.states[0]),
    ]
    for move, (action, before, after) in enumerate(
        zip(saved.actions, saved.states[:-1], saved.states[1:], strict=True), start=1
    ):
        label = player_label(game, before.current_player())
        lines.append(f"\nmove {move}: {label} plays {game.action_to_string(before, action)}")
        lines.append(board_text(game, after))
    resigned = data.get("resigned")
    if resigned is not None:
        winner = player_label(game, 1 - int(resigned))
        lines.append(f"result: {player_label(game, int(resigned))} resigned; {winner} wins")
    elif saved.states[-1].is_terminal():
        lines.append(f"result: {outcome_text(game, saved.states[-1])}")
    else:
        lines.append("result: none (the game was not finished)")
    if data.get("format") == "sgf" and data.get("result"):
        lines.append(f"the file's result: {data['result']}")
    for check in data.get("score_checks", []):
        lines.append(f"{check.get('player')} scored it {check.get('reported')}")
    return "\n".join(lines)


__all__ = ["match_game_line", "match_text", "replay_text", "tournament_text"]
