"""Django migration leaves: two leaves in one app is what ``migrate`` refuses to run.

Django builds one graph of every app's migrations from each ``Migration.dependencies``; an
app with more than one leaf node (a migration no other migration of that app depends on)
stops ``migrate`` with "Conflicting migrations detected" until a merge migration joins them.
Read with :mod:`ast`, never imported: a migration's dependencies are literal tuples in
practice, and a folder where they are not (or that squashes migrations with ``replaces``)
is not judged.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from proximity.engine.mergecheck.model import Problem

__all__ = ["migration_problems"]


def _is_migration(path: str) -> bool:
    folder, _, name = path.rpartition("/")
    return (
        (folder == "migrations" or folder.endswith("/migrations"))
        and name.endswith(".py")
        and name[:1].isdigit()
    )


def _dependencies(node: ast.expr) -> list[tuple[str, str]] | None:
    """Literal ``(app, name)`` pairs; ``swappable_dependency(...)`` (another app's model) is
    skipped; anything else makes the list unknown."""
    if not isinstance(node, ast.List | ast.Tuple):
        return None
    out = []
    for item in node.elts:
        if isinstance(item, ast.Call):
            func = item.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "swappable_dependency":
                continue
            return None
        try:
            value = ast.literal_eval(item)
        except ValueError:
            return None
        if not (isinstance(value, tuple | list) and len(value) == 2):
            return None
        if not all(isinstance(x, str) for x in value):
            return None
        out.append((str(value[0]), str(value[1])))
    return out


def _migration_fields(text: str) -> tuple[list[tuple[str, str]], bool] | None:
    """``(dependencies, squashes)`` of the module's ``Migration`` class, or ``None``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for stmt in tree.body:
        if not (isinstance(stmt, ast.ClassDef) and stmt.name == "Migration"):
            continue
        deps: list[tuple[str, str]] | None = []
        squashes = False
        for item in stmt.body:
            if not (isinstance(item, ast.Assign) and len(item.targets) == 1):
                continue
            target = item.targets[0]
            if isinstance(target, ast.Name) and target.id == "dependencies":
                deps = _dependencies(item.value)
            elif isinstance(target, ast.Name) and target.id == "replaces":
                squashes = True
        return None if deps is None else (deps, squashes)
    return None


def _label(folder: str, names: set[str], deps: Mapping[str, list[tuple[str, str]]]) -> str:
    """The app label: the one that names this folder's own migrations, else the folder's app."""
    for found in deps.values():
        for label, name in found:
            if name in names:
                return label
    app = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return app.rsplit("/", 1)[-1]


def migration_problems(files: Mapping[str, str]) -> list[Problem]:
    """One ``migration-conflict`` per app folder whose migrations have two or more leaves."""
    by_folder: dict[str, dict[str, str]] = {}
    for path, text in files.items():
        if _is_migration(path):
            folder, _, name = path.rpartition("/")
            by_folder.setdefault(folder, {})[name[:-3]] = text
    out = []
    for folder, texts in sorted(by_folder.items()):
        deps: dict[str, list[tuple[str, str]]] = {}
        judged = True
        for name, text in texts.items():
            fields = _migration_fields(text)
            if fields is None or fields[1]:
                judged = False
                break
            deps[name] = fields[0]
        if not judged or len(deps) < 2:
            continue
        label = _label(folder, set(deps), deps)
        parents = {n for found in deps.values() for app, n in found if app == label}
        leaves = sorted(n for n in deps if n not in parents)
        if len(leaves) > 1:
            out.append(
                Problem(
                    "migration-conflict",
                    folder,
                    label,
                    f"Conflicting migrations detected; multiple leaf nodes in the migration "
                    f"graph: ({', '.join(leaves)} in {label})",
                )
            )
    return out
