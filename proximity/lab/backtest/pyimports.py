"""Python import edges of a commit's tree, for the backtest's dependency channel.

A small self-contained reader: ``ast`` finds the import statements of each ``.py`` blob (parsed once
per blob id, so history shares the work), and module names resolve to files of the same tree
under the repository root, ``src/`` or ``lib/``. Comments and strings never make an edge.
"""

from __future__ import annotations

import ast
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path

from proximity.sources.git._run import git_text

__all__ = ["BlobReader", "TreeImports", "imports_of_source", "resolve_imports"]

_ROOTS = ("", "src/", "lib/")
# Vendored third-party copies are left out: pull requests rarely edit them, and parsing them for
# every base tree would dominate the mining time.
_VENDORED = frozenset({"_vendor", "vendor", "vendored", "third_party", "node_modules"})
Site = tuple[str, int, tuple[str, ...]]  # (module, relative level, imported names)


def _statements(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement, nested bodies included; expressions are never entered (much faster)."""
    for stmt in body:
        yield stmt
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for handler in getattr(stmt, "handlers", ()):
            yield from _statements(handler.body)
        for case in getattr(stmt, "cases", ()):
            yield from _statements(case.body)


def imports_of_source(source: bytes) -> tuple[Site, ...]:
    """Every import statement in the module (nested ones too); unparsable source gives none."""
    if b"import" not in source:
        return ()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    out: list[Site] = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            out.extend((alias.name, 0, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names = tuple(a.name for a in node.names if a.name != "*")
            out.append((node.module or "", node.level, names))
    return tuple(out)


def _module_file(dotted: str, files: frozenset[str]) -> str | None:
    rel = dotted.replace(".", "/")
    for root in _ROOTS:
        for candidate in (f"{root}{rel}.py", f"{root}{rel}/__init__.py"):
            if candidate in files:
                return candidate
    return None


def _package_of(path: str, level: int) -> str:
    """Dotted package a relative import of ``level`` dots starts from, root prefix removed."""
    parts = path.split("/")[:-1]
    for root in _ROOTS:
        if root and path.startswith(root):
            parts = parts[1:]
            break
    return ".".join(parts[: len(parts) - (level - 1)] if level > 1 else parts)


def resolve_imports(path: str, sites: Iterable[Site], files: frozenset[str]) -> tuple[str, ...]:
    """Files of the tree that ``path`` imports; ``from pkg import mod`` prefers the module file."""
    out = set()
    for module, level, names in sites:
        base = (
            module if level == 0 else ".".join(x for x in (_package_of(path, level), module) if x)
        )
        for name in names:
            sub = _module_file(f"{base}.{name}" if base else name, files)
            if sub:
                out.add(sub)
        target = _module_file(base, files) if base else None
        if target and (not names or not any(_module_file(f"{base}.{n}", files) for n in names)):
            out.add(target)
    out.discard(path)
    return tuple(sorted(out))


class BlobReader:
    """A long-running ``git cat-file --batch`` (read-only) shared by the whole mining run."""

    def __init__(self, repo: Path) -> None:
        self._proc = subprocess.Popen(
            ["git", "-C", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._lock = threading.Lock()

    def read(self, oid: str) -> bytes:
        stdin, stdout = self._proc.stdin, self._proc.stdout
        if stdin is None or stdout is None:
            raise RuntimeError("git cat-file --batch has no pipes")
        with self._lock:
            stdin.write(oid.encode() + b"\n")
            stdin.flush()
            header = stdout.readline().split()
            if len(header) < 3:
                return b""
            data = stdout.read(int(header[2]) + 1)
        return data[:-1]

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(timeout=10)


class TreeImports:
    """Adjacency of a commit's Python files, cached by commit and parsed once per blob."""

    def __init__(self, repo: Path, blobs: BlobReader) -> None:
        self._repo = repo
        self._blobs = blobs
        self._sites: dict[str, tuple[Site, ...]] = {}
        self._graphs: dict[str, dict[str, tuple[str, ...]]] = {}

    def adjacency(self, commit: str) -> dict[str, tuple[str, ...]]:
        if commit not in self._graphs:
            listing = git_text(self._repo, ["ls-tree", "-r", "--full-tree", commit])
            py = {}
            for line in listing.splitlines():
                meta, _, path = line.partition("\t")
                mode, kind, oid = meta.split()
                vendored = any(part in _VENDORED for part in path.split("/"))
                if kind == "blob" and path.endswith(".py") and mode != "120000" and not vendored:
                    py[path] = oid
            files = frozenset(py)
            graph = {}
            for path, oid in sorted(py.items()):
                if oid not in self._sites:
                    self._sites[oid] = imports_of_source(self._blobs.read(oid))
                edges = resolve_imports(path, self._sites[oid], files)
                if edges:
                    graph[path] = edges
            if len(self._graphs) >= 64:  # bounded: each graph holds a whole tree's edges
                self._graphs.pop(next(iter(self._graphs)))
            self._graphs[commit] = graph
        return self._graphs[commit]
