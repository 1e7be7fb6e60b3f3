"""Pictures of an exported search tree (:meth:`playout.MCTS.export_tree`): JSON and DOT.

Pure functions that return a dict of JSON types or a Graphviz string; nothing here searches.
"""

from __future__ import annotations

from typing import Any

from playout._src.game import GameState
from playout._src.results import TreeNode
from playout.render.board import player_label
from playout.render.formatting import number_text


def _number(value: float | None) -> float | None:
    """A value for JSON: rounded to 6 places, -0.0 as 0.0."""
    return None if value is None else round(value, 6) + 0.0


def tree_json(game: Any, state: GameState, root: TreeNode) -> dict[str, Any]:
    """A JSON-ready picture of the top of a search tree (:meth:`playout.MCTS.export_tree`)
    from ``state``, the root's position: ``{"game", "root"}``, every node a dict of
    ``move`` (notation; ``null`` at the root), ``action``, ``to_play`` (the player to move,
    by name; ``null`` at a terminal or chance node), ``visits``, ``share`` (of the parent's
    visits), ``value`` and ``proven`` for the player to move, ``move_value`` and
    ``move_proven`` for the player who chose the move, ``prior``, ``plies`` (to the end
    when proven), ``terminal``, ``hidden`` (searched moves not shown) and ``children``
    (most visited first)."""
    top = _node_json(game, root, None, root.visits)
    pending = [(root, state, top)]  # nodes whose children are still to be made
    while pending:
        node, at, data = pending.pop()
        for child in node.children:
            assert child.action is not None
            text = game.action_to_string(at, child.action)
            child_data = _node_json(game, child, text, node.visits)
            data["children"].append(child_data)
            pending.append((child, at.play(child.action), child_data))
    return {"game": game.spec.name, "root": top}


def _node_json(game: Any, node: TreeNode, move: str | None, parent_visits: int) -> dict[str, Any]:
    """One node of :func:`tree_json`, its ``children`` still empty."""
    return {
        "move": move,
        "action": node.action,
        "to_play": None if node.player is None else player_label(game, node.player),
        "visits": node.visits,
        "share": _number(node.visits / parent_visits if parent_visits else 1.0),
        "value": _number(node.value),
        "proven": None if node.proven is None else str(node.proven),
        "move_value": _number(node.move_value),
        "move_proven": None if node.move_proven is None else str(node.move_proven),
        "prior": _number(node.prior),
        "plies": node.plies,
        "terminal": node.terminal,
        "hidden": node.hidden,
        "children": [],
    }


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _dot_label(node: dict[str, Any]) -> str:
    """The label of one node of :func:`tree_json` in :func:`tree_dot`."""
    parts = [node["move"] or "root"]
    if node["to_play"] is not None:
        parts.append(f"{node['to_play']} to move")
    elif node["terminal"]:
        parts.append("game over")
    parts.append(f"{node['visits']:,} visits")
    if node["value"] is not None:
        parts.append(f"value {number_text(node['value'], sign=True)}")
    if node["proven"] is not None:
        plies = "" if node["plies"] is None else f" in {node['plies']}"
        parts.append(f"proven {node['proven']}{plies}")
    elif node["terminal"] and node["move_proven"] is not None:
        parts.append(f"{node['move_proven']} for the mover")
    if node["hidden"]:
        parts.append(f"+{node['hidden']} more moves")
    return "\\n".join(_dot_text(part) for part in parts)


def tree_dot(game: Any, state: GameState, root: TreeNode) -> str:
    """The top of a search tree (:meth:`playout.MCTS.export_tree`) as Graphviz DOT: a node
    per position (its move, the player to move, visits, value for that player, proof, and
    how many searched moves are not shown), an edge per move labelled with its share of the
    parent's visits. ``dot -Tsvg tree.dot > tree.svg`` draws it. Nodes are named ``n0``,
    ``n1``, ... in depth-first order, the root first."""
    data = tree_json(game, state, root)
    lines = [
        "digraph search {",
        f'  label="{_dot_text(game.spec.name)}: the top of the search tree";',
        '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    pending: list[tuple[dict[str, Any], str | None]] = [(data["root"], None)]
    count = 0
    while pending:
        node, parent = pending.pop()
        name = f"n{count}"
        count += 1
        lines.append(f'  {name} [label="{_dot_label(node)}"];')
        if parent is not None:
            lines.append(f'  {parent} -> {name} [label="{100 * node["share"]:.0f}%"];')
        pending.extend((child, name) for child in reversed(node["children"]))
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["tree_dot", "tree_json"]
