"""playout's modules import one another without a circle.

The graph is read from the source with :mod:`ast`, not from a running interpreter: every
``import`` counts, at the top of a module or inside a function (an import deferred to a call
is still a dependency), except those under ``if TYPE_CHECKING:``, which never run. ``from a.b
import c`` is an edge to the module ``a.b.c`` when there is one, else to ``a.b``.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import playout

ROOT = pathlib.Path(playout.__file__).parent

Graph = dict[str, set[str]]


def module_names(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """Every module of the package at ``root``, by dotted name (a package by its own name)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(node: ast.If) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``if typing.TYPE_CHECKING:``)."""
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of a module, anywhere but under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                pending.extend(child.orelse)
            elif isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            else:
                pending.append(child)
    return found


def _imported_from(name: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module ``from ... import`` reads from, relative imports resolved."""
    if node.level == 0:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def import_graph(root: pathlib.Path) -> Graph:
    """For each module of the package at ``root``, the package's modules it imports."""
    modules = module_names(root)
    graph: Graph = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            source = _imported_from(name, is_package, node)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                targets.add(submodule if submodule in modules else source)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def find_cycle(graph: Graph) -> list[str] | None:
    """One import circle of ``graph`` as ``[a, b, ..., a]``, or ``None`` when it has none
    (a depth-first search with an explicit stack)."""
    finished: set[str] = set()
    for start in sorted(graph):
        if start in finished:
            continue
        path = [start]
        on_path = {start}
        stack = [iter(sorted(graph[start]))]
        while stack:
            target = next(stack[-1], None)
            if target is None:
                stack.pop()
                finished.add(path[-1])
                on_path.discard(path.pop())
            elif target in on_path:
                return [*path[path.index(target) :], target]
            elif target not in finished:
                path.append(target)
                on_path.add(target)
                stack.append(iter(sorted(graph.get(target, ()))))
    return None


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph(ROOT)


def test_the_graph_reads_every_kind_of_import(graph: Graph) -> None:
    # A module-level import, a package's re-export and an import inside a function count ...
    assert "playout.games.connect4.kernel" in graph["playout.games.connect4.state"]
    assert "playout.games.mnk.state" in graph["playout.games.mnk"]
    assert "playout.games.connect4" in graph["playout._src.registry"]
    # ... `from package import module` is an edge to the module ...
    assert "playout._src.compiled.memory" in graph["playout._src.compiled.engine"]
    # ... and imports only a type checker runs do not.
    assert "playout.games.mnk.state" not in graph["playout.games.mnk.threats"]


def test_find_cycle_reports_the_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]


def test_playout_has_no_import_cycle(graph: Graph) -> None:
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])
