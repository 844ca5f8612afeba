"""Which interpreter a repository's tests run with, and what of it the sandbox sees.

Never the server's own environment: its installed pytest plugins (pytest-django and the like)
would load into the repository's run, and their warnings fail suites that turn warnings into
errors; its packages would satisfy imports the repository's own environment does not. In
order of preference:

1. a **configured** interpreter (``OVERLAP_MERGE_CHECK_TEST_PYTHON``): the operator installed
   the repository's test requirements there; it runs as it is, plugins and all;
2. the **worktree's own virtualenv** (``.venv`` or ``venv`` in either side's worktree, side A
   first): bound read-only into the sandbox, its plugins are the repository's own;
3. a **plain** interpreter (``OVERLAP_MERGE_CHECK_PLAIN_PYTHON``, default the system's
   ``python3``) with ``-S`` (no site-packages at all) and plugin autoload off; pytest and its
   own dependencies, and nothing else, are bound in from the server's environment. A test
   that needs a package the repository did not provide then fails to collect, and the run
   says so ("could not start"), instead of importing whatever the server has.

Whichever it is, the merged tree comes first on ``sys.path`` (its ``src/`` folder, then its
root), so a ``src/`` layout imports the tree under test, never an installed copy.
"""

from __future__ import annotations

import importlib.metadata
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from proximity.sources.sandbox import INSIDE, PRIVATE, Bind

__all__ = ["RUNNER", "Interpreter", "choose_python", "system_python"]

RUNNER = f"{INSIDE}/runner"
"""Where pytest and its dependencies appear in the sandbox for a plain interpreter."""
_ENV = f"{INSIDE}/env"


@dataclass(frozen=True, slots=True)
class Interpreter:
    """``python`` as the sandbox sees it; ``plain``: no site-packages, pytest from
    :data:`RUNNER`, no plugin autoload; ``origin`` names it in reasons."""

    python: str
    origin: str
    plain: bool = False
    binds: tuple[Bind, ...] = ()


def system_python() -> str:
    """The system's ``python3`` (not this process's virtualenv): the plain default."""
    return shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "python3"


def _own_venv(worktree: str) -> Path | None:
    for name in (".venv", "venv"):
        venv = Path(worktree) / name
        if (venv / "pyvenv.cfg").is_file() and (venv / "bin" / "python").exists():
            return venv
    return None


def _pytest_distributions() -> list[importlib.metadata.Distribution]:
    """pytest and what it requires here (markers evaluated, extras left out), transitively."""
    from packaging.requirements import Requirement

    found: dict[str, importlib.metadata.Distribution] = {}
    todo = ["pytest"]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        try:
            found[name] = dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in dist.requires or ():
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name.lower().replace("_", "-"))
    return list(found.values())


@lru_cache(maxsize=1)
def _pytest_binds() -> tuple[Bind, ...]:
    """pytest's own top-level packages and modules from this environment, one bind each."""
    binds: dict[str, Bind] = {}
    for dist in _pytest_distributions():
        for file in dist.files or ():
            top = file.parts[0]
            if top in binds or top.endswith((".dist-info", ".pth")) or top in ("..", "__pycache__"):
                continue
            if len(file.parts) == 1 and not top.endswith(".py"):
                continue
            where = Path(str(dist.locate_file(top)))
            if where.exists():
                binds[top] = Bind(str(where), f"{RUNNER}/{top}")
    return tuple(binds.values())


def choose_python(*, configured: str, worktrees: Sequence[str], plain: str) -> Interpreter:
    """The interpreter for one repository's runs (see the module's order)."""
    if configured:
        origin = f"the configured interpreter {configured}"
        prefix = Path(configured).parent.parent
        if configured.startswith(PRIVATE) and (prefix / "pyvenv.cfg").is_file():
            # under a folder the sandbox replaces with its own tmpfs: bound where it was
            return Interpreter(configured, origin, False, (Bind(str(prefix), str(prefix)),))
        return Interpreter(configured, origin)
    for worktree in worktrees:
        venv = _own_venv(worktree)
        if venv is not None:
            bind = Bind(str(venv), _ENV)
            return Interpreter(
                f"{_ENV}/bin/python", f"the worktree's virtualenv {venv}", False, (bind,)
            )
    return Interpreter(plain, f"a plain {plain} (no site-packages)", True, _pytest_binds())
