"""The house's rooms in order, and the imports that keep it readable (docs/ARCHITECTURE.md).

Every module of ``proximity``, ``overlap_site`` and ``celery_app`` belongs to a room (the
package's first folder or module: ``proximity.agent.hook`` is in ``agent``). A room may import
itself and the rooms of any layer below its own, never one above and never a neighbour of its
own layer; a room kept apart is imported only by the rooms named for it; and no files import
each other, in a circle of any length. Imports are read with :mod:`ast`, including those inside
functions and under ``TYPE_CHECKING``: a lazy import is still an arrow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("proximity", "overlap_site", "celery_app")

Graph = Mapping[str, frozenset[str]]
Layers = tuple[tuple[str, ...], ...]

#: Top to bottom. Each tuple is one layer; its rooms may use the layers below, not each other.
LAYERS: Layers = (
    # the project (settings, URLs, the one NinjaAPI) and the command-line faces
    ("overlap_site", "management"),
    # the server's faces: HTTP API, the board, the admin desk, pages, Celery tasks, app config
    ("api", "dashboard", "admin", "views", "tasks", "apps"),
    ("services",),
    ("selectors",),
    # the Django app's foundations, so no Django-free room below may import them
    ("models", "migrations", "exceptions", "fixtures", "celery_app"),
    # offline harnesses: replay, backtest mining, demo world, corpus evaluation
    ("lab",),
    # the agent side: hooks, daemon, MCP, the radar command (no Django, no torch)
    ("agent",),
    # adapters to the outside world: git, files, models on disk
    ("sources",),
    # pure computation, and the vocabulary the agent side and the server share (findings)
    ("engine",),
)

#: Rooms only the named rooms may import, whatever the layers allow. The agent side is a program
#: of its own: the server shares its vocabulary through the engine (``engine/findings.py``), and
#: only the lab drives it.
APART: Mapping[str, tuple[str, ...]] = {"agent": ("lab",)}


def first_party_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """``{dotted name: file}`` of every module under ``packages`` (a package is its __init__)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            # ``from package import module`` imports the module; ``from module import name``
            # the module itself
            subs = {f"{source}.{a.name}" for a in node.names} & known.keys()
            out.update(subs or {source})
    return {m for m in out if m in known and m != name}


def import_graph(modules: Mapping[str, Path]) -> dict[str, frozenset[str]]:
    """Each first-party module and the first-party modules it imports anywhere in its text."""
    return {name: frozenset(_imported(name, path, modules)) for name, path in modules.items()}


def room_of(module: str, *, app: str = "proximity") -> str:
    """The app's rooms are its first-level folders and modules; another package is one room."""
    parts = module.split(".")
    return parts[0] if parts[0] != app else parts[1] if len(parts) > 1 else ""


def layer_of(layers: Layers) -> dict[str, int]:
    return {room: depth for depth, rooms in enumerate(layers) for room in rooms}


def unplaced(graph: Graph, layers: Layers, *, app: str = "proximity") -> list[str]:
    depth = layer_of(layers)
    return sorted(m for m in graph if room_of(m, app=app) not in {"", *depth})


def wrong_way(
    graph: Graph,
    layers: Layers,
    *,
    apart: Mapping[str, tuple[str, ...]] = APART,
    app: str = "proximity",
) -> list[str]:
    """``importer -> imported`` for every import of a room above or beside the importer's, or
    of a room kept apart from it."""
    depth = layer_of(layers)
    out = []
    for a, imported in sorted(graph.items()):
        for b in sorted(imported):
            ra, rb = room_of(a, app=app), room_of(b, app=app)
            if not ra or not rb or ra == rb:
                continue
            if depth.get(rb, -1) <= depth.get(ra, -1):
                out.append(f"{a} ({ra}) -> {b} ({rb}): not below {ra}")
            elif rb in apart and ra not in apart[rb]:
                out.append(f"{a} ({ra}) -> {b} ({rb}): {rb} is used by {', '.join(apart[rb])} only")
    return out


def circles(graph: Graph) -> list[list[str]]:
    """Every set of modules that import each other, directly or round a loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


@pytest.fixture(scope="module")
def graph() -> dict[str, frozenset[str]]:
    return import_graph(first_party_modules(ROOT, PACKAGES))


def test_every_module_sits_in_a_listed_room(graph: Graph) -> None:
    found = unplaced(graph, LAYERS)
    assert not found, "in no room of LAYERS (tests/test_layers.py):\n" + "\n".join(found)


def test_no_module_imports_a_room_above_or_beside_its_own(graph: Graph) -> None:
    found = wrong_way(graph, LAYERS)
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_no_modules_import_each_other(graph: Graph) -> None:
    found = circles(graph)
    assert not found, "modules that import each other:\n" + "\n".join(map(" <-> ".join, found))


def test_the_rules_catch_an_upward_arrow_a_neighbour_and_a_circle(tmp_path: Path) -> None:
    """The checks on a small house of their own, so the tests above can fail."""
    files = {
        "house/__init__.py": "",
        "house/low/__init__.py": "",
        "house/low/a.py": "def f():\n    from house.high import b\n",
        "house/low/c.py": "from . import d\nfrom house.base.f import z\n",
        "house/low/d.py": "from house.low.c import x\n",
        "house/high/__init__.py": "",
        "house/high/b.py": "from house.low import a\nfrom house.side.e import y\n",
        "house/side/__init__.py": "",
        "house/side/e.py": "import house.low.a\nimport house.base.f\n",
        "house/base/__init__.py": "",
        "house/base/f.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    layers = (("high", "side"), ("low",), ("base",))
    small = import_graph(first_party_modules(tmp_path, ["house"]))
    assert small["house.low.c"] == {"house.low.d", "house.base.f"}
    assert wrong_way(small, layers, apart={"base": ("side",)}, app="house") == [
        "house.high.b (high) -> house.side.e (side): not below high",
        "house.low.a (low) -> house.high.b (high): not below low",
        "house.low.c (low) -> house.base.f (base): base is used by side only",
    ]
    assert circles(small) == [
        ["house.high.b", "house.low.a", "house.side.e"],  # round a loop
        ["house.low.c", "house.low.d"],  # each other
    ]
    assert unplaced(small, (("high",), ("low", "base")), app="house") == [
        "house.side",
        "house.side.e",
    ]
