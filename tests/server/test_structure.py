"""The server's shape, measured: what issue 37 asks of it, held so that it cannot drift.

* at most :data:`ROOT_MODULES` modules at ``server/``'s root, the rest in wings;
* no file under ``server/`` over :data:`LONGEST_FILE` lines;
* no :class:`typing.Protocol` under ``server/`` that declares more than
  :data:`WIDEST_ROLE` members (a part sees another through a small role), nor any
  ``Callable`` attribute (a role is its methods, whatever a call costs);
* :class:`~server.game.game.Game` takes at most :data:`GAME_PARAMETERS` parameters;
* no name collides: no two classes under ``server/`` share a name, no two of its
  modules share a file name, and none is named like a module of ``protocol/`` or
  ``worlds/`` (the vocabulary every part reads);
* no import circle anywhere in the project, and at most :data:`FLOORS` floors inside
  ``server/``: the longest chain of modules each importing the next (imports made only
  for types count too, as the import contracts count them).

``python -m tests.server.test_structure`` prints the figures.
"""

from __future__ import annotations

import ast
import functools
import inspect
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grimp

from server.game.game import Game

from ..helpers import REPO

ROOT_MODULES = 12
LONGEST_FILE = 500
WIDEST_ROLE = 12
GAME_PARAMETERS = 6
FLOORS = 10

SERVER = REPO / "server"
PACKAGES = (
    "commandline",
    "protocol",
    "maps",
    "mapgen",
    "worlds",
    "records",
    "server",
    "clients",
    "arena",
    "bots",
    "conformance",
    "bench",
    "tests",
)
"""Every package of the project (pyproject's import-linter roots)."""


def _server_files() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


def root_modules() -> list[str]:
    """The modules at ``server/``'s root (``__init__`` and ``__main__`` included)."""
    return sorted(path.stem for path in SERVER.glob("*.py"))


def file_lengths() -> dict[str, int]:
    return {
        str(path.relative_to(REPO)): len(path.read_text().splitlines()) for path in _server_files()
    }


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(
        (isinstance(base, ast.Name) and base.id == "Protocol")
        or (isinstance(base, ast.Attribute) and base.attr == "Protocol")
        for base in node.bases
    )


def _members(node: ast.ClassDef) -> set[str]:
    """What a class body declares: attributes, methods and properties."""
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.Assign):
            names |= {target.id for target in item.targets if isinstance(target, ast.Name)}
        elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(item.name)
    return names


def _classes() -> Iterator[tuple[str, ast.ClassDef]]:
    for path in _server_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                yield str(path.relative_to(REPO)), node


def protocol_widths() -> dict[str, int]:
    """Every protocol under ``server/``, by ``file:Class``, and how many members it
    declares, those of the protocols it extends included."""
    protocols = {node.name: node for _, node in _classes() if _is_protocol(node)}

    def members(node: ast.ClassDef) -> set[str]:
        inherited = [
            members(protocols[base.id])
            for base in node.bases
            if isinstance(base, ast.Name) and base.id in protocols
        ]
        return _members(node).union(*inherited)

    return {
        f"{where}:{node.name}": len(members(node))
        for where, node in _classes()
        if _is_protocol(node)
    }


def callable_attributes() -> list[str]:
    """Attributes of protocols under ``server/`` declared as ``Callable``."""
    return [
        f"{where}:{node.name}.{ast.unparse(item.target)}"
        for where, node in _classes()
        if _is_protocol(node)
        for item in node.body
        if isinstance(item, ast.AnnAssign) and "Callable" in ast.unparse(item.annotation)
    ]


def import_graph(*packages: str) -> grimp.ImportGraph:
    return grimp.build_graph(*packages, include_external_packages=False, cache_dir=None)


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than
    one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            module, imported = work[-1]
            step = next(imported, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = counter
                    counter += 1
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.find_modules_directly_imported_by(step)))))
                elif step in on_stack:
                    low[module] = min(low[module], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                circle = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    circle.append(member)
                    if member == module:
                        break
                if len(circle) > 1:
                    circles.append(sorted(circle))
    return circles


def longest_chain(graph: grimp.ImportGraph, package: str = "server") -> list[str]:
    """The longest chain of modules of ``package``, each importing the next (the graph
    must have no circle)."""
    inside = {module for module in graph.modules if module.split(".")[0] == package}

    @functools.cache
    def chain(module: str) -> tuple[str, ...]:
        below = [
            chain(imported)
            for imported in graph.find_modules_directly_imported_by(module)
            if imported in inside
        ]
        return (module, *max(below, key=_length, default=()))

    longest: tuple[str, ...] = max((chain(module) for module in sorted(inside)), key=_length)
    return list(longest)


def _length(chain: tuple[str, ...]) -> int:
    return len(chain)


def name_collisions() -> list[str]:
    """Classes under ``server/`` that share a name, modules that share a file name
    within it or with a module of ``protocol/`` or ``worlds/``."""
    classes = Counter(node.name for _, node in _classes())
    found = [f"class {name} x{count}" for name, count in classes.items() if count > 1]
    modules = Counter(
        path.name for path in _server_files() if path.name not in ("__init__.py", "__main__.py")
    )
    found += [f"{name} x{count} in server/" for name, count in modules.items() if count > 1]
    vocabulary = {
        path.name for folder in ("protocol", "worlds") for path in (REPO / folder).glob("*.py")
    }
    found += [
        f"server/**/{name} is also a module of protocol/ or worlds/"
        for name in sorted(set(modules) & vocabulary)
    ]
    return found


# -- the tests -------------------------------------------------------------------------


def test_at_most_twelve_modules_at_the_servers_root() -> None:
    assert len(root_modules()) <= ROOT_MODULES, root_modules()


def test_no_file_under_server_is_over_500_lines() -> None:
    long = {path: lines for path, lines in file_lengths().items() if lines > LONGEST_FILE}
    assert long == {}


def test_no_protocol_under_server_declares_more_than_twelve_members() -> None:
    wide = {name: width for name, width in protocol_widths().items() if width > WIDEST_ROLE}
    assert wide == {}


def test_no_protocol_under_server_declares_a_callable_attribute() -> None:
    assert callable_attributes() == []


def test_a_game_takes_at_most_six_parameters() -> None:
    parameters = inspect.signature(Game.__init__).parameters
    assert len(parameters) <= GAME_PARAMETERS, list(parameters)


def test_no_two_things_under_server_share_a_name() -> None:
    assert name_collisions() == []


def test_no_import_circle_anywhere_in_the_project() -> None:
    assert import_circles(import_graph(*PACKAGES)) == []


def test_the_server_stands_on_at_most_ten_floors() -> None:
    chain = longest_chain(import_graph("server"))
    assert len(chain) <= FLOORS, " -> ".join(chain)


def test_the_measures_see_what_they_measure() -> None:
    # A circle, a chain and a protocol the helpers must find, so that a test above
    # cannot pass by measuring nothing.
    graph = grimp.ImportGraph()
    for module in ("server", "server.a", "server.b", "server.c"):
        graph.add_module(module)
    graph.add_import(importer="server.a", imported="server.b")
    graph.add_import(importer="server.b", imported="server.c")
    assert longest_chain(graph) == ["server.a", "server.b", "server.c"]
    graph.add_import(importer="server.c", imported="server.a")
    assert import_circles(graph) == [["server.a", "server.b", "server.c"]]
    assert protocol_widths()["server/session/poller.py:Polled"] == 3


if __name__ == "__main__":
    chain = longest_chain(import_graph("server"))
    lengths = file_lengths()
    longest = max(lengths, key=lengths.__getitem__)
    widths = protocol_widths()
    widest = max(widths, key=widths.__getitem__)
    print(f"modules at server/'s root: {len(root_modules())} ({', '.join(root_modules())})")
    print(f"largest file: {longest}, {lengths[longest]} lines")
    print(f"widest protocol: {widest}, {widths[widest]} members")
    print(f"Game.__init__ parameters: {len(inspect.signature(Game.__init__).parameters)}")
    print(f"floors: {len(chain)} ({' -> '.join(chain)})")
    print(f"import circles: {import_circles(import_graph(*PACKAGES))}")
    print(f"name collisions: {name_collisions()}")
