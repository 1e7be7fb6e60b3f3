"""MkDocs hook: the command-line reference, written from ``playout``'s argparse parser.

A page line ``<!-- player-kinds -->`` becomes a table of the player kinds that specs name
(:func:`playout._src.arena.specs.describe_players`, the command's own help text). A page line
``<!-- cli-reference -->`` becomes one section per subcommand (its usage, its
description and a table of its options) built from :func:`playout.cli.parser.build_parser`
at build time, so the reference cannot drift from the command.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

MARKER = "<!-- cli-reference -->"
PLAYERS = "<!-- player-kinds -->"


def _escape(text: str) -> str:
    """``text`` safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, list[str], Any]]:
    """``(name, aliases, subparser)`` for each subcommand, in the parser's order."""
    found: list[tuple[str, list[str], Any]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: dict[int, tuple[str, list[str], Any]] = {}
            for name, sub in action.choices.items():
                if id(sub) in seen:
                    seen[id(sub)][1].append(name)
                else:
                    seen[id(sub)] = (name, [], sub)
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, aliases, sub in seen.values():
                sub.short_help = helps.get(name) or ""
                found.append((name, aliases, sub))
    return found


def _option_row(action: argparse.Action) -> str | None:
    if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
        return None
    if action.option_strings:
        name = ", ".join(f"`{o}`" for o in action.option_strings)
    else:
        name = f"`{action.metavar or action.dest}`"
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        value = ", ".join(f"`{c}`" for c in action.choices)
    elif action.nargs == 0:
        value = ""
    else:
        metavar = action.metavar or action.dest.upper()
        value = f"`{metavar if isinstance(metavar, str) else ' '.join(metavar)}`"
        if action.nargs in ("+", "*"):
            value += " ..."
    default = action.default
    shown = (
        ""
        if default in (None, False, "", argparse.SUPPRESS) or action.nargs == 0
        else f"`{default}`"
    )
    help_text = (action.help or "") % {"default": default, "prog": "playout"}
    return f"| {name} | {_escape(value)} | {_escape(shown)} | {_escape(help_text)} |"


def render(parser: argparse.ArgumentParser) -> str:
    """The reference of every subcommand of ``parser`` as Markdown."""
    parts: list[str] = []
    for name, aliases, sub in _subcommands(parser):
        parts.append(f"## `playout {name}`\n")
        if aliases:
            parts.append("Also spelled " + ", ".join(f"`{a}`" for a in aliases) + ".\n")
        short = sub.short_help
        parts.append(f"{short[:1].upper()}{short[1:]}.\n" if short else "")
        if sub.description:
            parts.append(sub.description + "\n")
        usage = re.sub(r"^usage: ", "", sub.format_usage().strip())
        parts.append(f"```text\n{usage}\n```\n")
        rows = [row for row in map(_option_row, sub._actions) if row]
        if rows:
            parts.append("| option | value | default | what it does |\n|---|---|---|---|")
            parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)


def render_players() -> str:
    """The player kinds and what each takes, as a Markdown table."""
    from playout._src.arena.specs import describe_players

    rows = [f"| `{kind}` | {_escape(text)} |" for kind, text in describe_players().items()]
    return "\n".join(["| kind | what it plays, and its options |", "|---|---|", *rows]) + "\n"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if PLAYERS in markdown:
        markdown = markdown.replace(PLAYERS, render_players())
    if MARKER in markdown:
        from playout.cli.parser import build_parser

        markdown = markdown.replace(MARKER, render(build_parser()))
    return markdown
