"""A small real repository with agent worktrees, and the scripted edits the live demo replays.

Django-free: plain git in a folder of the caller's choosing. Identity and dates go through the
environment so the user's git configuration is never read or changed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AGENTS", "DemoRepo", "DemoStep", "demo_steps"]

AGENTS = ("alpha", "beta", "gamma", "delta", "epsilon")

_BASE_FILES = {
    "shop/orders/validators.py": "".join(f"# validation rule {i}\n" for i in range(1, 31)),
    "shop/orders/api.py": "from shop.orders import validators\n"
    + "".join(f"# order endpoint line {i}\n" for i in range(2, 41)),
    "shop/payments/refunds.py": "from shop.orders.validators import *  # noqa\n"
    + "".join(f"# refund rule {i}\n" for i in range(2, 26)),
    "shop/catalog/search.py": "".join(f"# search line {i}\n" for i in range(1, 21)),
    "web/src/api.ts": "export const base = '/api';\n" + "// client line\n" * 15,
    "web/src/cart.ts": "import { base } from './api';\n" + "// cart line\n" * 20,
    "docs/guide.md": "# Shop guide\n" + "Some prose.\n" * 12,
}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="Demo",
        GIT_AUTHOR_EMAIL="demo@example.invalid",
        GIT_COMMITTER_NAME="Demo",
        GIT_COMMITTER_EMAIL="demo@example.invalid",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


@dataclass(frozen=True)
class DemoRepo:
    root: Path

    @property
    def main(self) -> Path:
        return self.root / "main"

    def worktree(self, name: str) -> Path:
        return self.root / name

    def git(self, where: Path, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(where), *args],
            env=_env(),
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout

    @classmethod
    def create(cls, root: Path) -> DemoRepo:
        """A fresh repository at ``root/main`` with one worktree per demo agent."""
        shutil.rmtree(root, ignore_errors=True)
        repo = cls(root)
        repo.main.mkdir(parents=True)
        repo.git(repo.main, "init", "-q", "-b", "main")
        for rel, text in _BASE_FILES.items():
            path = repo.main / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        repo.git(repo.main, "add", "-A")
        repo.git(repo.main, "commit", "-q", "-m", "shop: base")
        for name in AGENTS:
            repo.git(repo.main, "worktree", "add", "-q", "-b", name, str(repo.worktree(name)))
        return repo

    def rewrite(self, agent: str, rel: str, first: int, last: int, text: str) -> None:
        path = self.worktree(agent) / rel
        lines = path.read_text().splitlines(keepends=True)
        for i in range(first - 1, min(last, len(lines))):
            lines[i] = f"{text} {i + 1}\n"
        path.write_text("".join(lines))

    def rename(self, agent: str, old: str, new: str) -> None:
        self.git(self.worktree(agent), "mv", old, new)

    def commit(self, agent: str, message: str) -> None:
        self.git(self.worktree(agent), "add", "-A")
        self.git(self.worktree(agent), "commit", "-q", "-m", message)


@dataclass(frozen=True)
class DemoStep:
    """One scripted moment: what happens, to the repository and/or to declared tasks."""

    title: str
    edit: Callable[[DemoRepo], None] | None = None
    declare: tuple[str, ...] = ()


def _gamma_renames(repo: DemoRepo) -> None:
    repo.rename("gamma", "shop/catalog/search.py", "shop/catalog/find.py")
    repo.commit("gamma", "catalog: rename search to find")


def demo_steps() -> list[DemoStep]:
    """Edits that produce each kind of advisory, in an order that tells a story."""
    v = "shop/orders/validators.py"
    return [
        DemoStep(
            "alpha starts on order validation (uncommitted)",
            lambda r: r.rewrite("alpha", v, 5, 12, "# alpha: reject negative quantity"),
        ),
        DemoStep(
            "beta edits the order API, which imports the validators",
            lambda r: r.rewrite("beta", "shop/orders/api.py", 20, 28, "# beta: paging"),
        ),
        DemoStep("two owners declare the same validation task", declare=("FX-1A", "FX-1B")),
        DemoStep("gamma renames catalog/search.py and commits", _gamma_renames),
        DemoStep(
            "beta touches the same validator lines as alpha",
            lambda r: r.rewrite("beta", v, 10, 14, "# beta: quantity limits"),
        ),
        DemoStep(
            "delta changes refunds, across folders from orders",
            lambda r: r.rewrite("delta", "shop/payments/refunds.py", 3, 9, "# delta: refunds"),
        ),
        DemoStep(
            "more declarations: review, shared prerequisite, paraphrase",
            declare=("FX-2A", "FX-2B", "FX-3A", "FX-3B", "FX-4A", "FX-4B", "FX-6A", "FX-6B"),
        ),
        DemoStep(
            "epsilon works on the docs, far from everyone",
            lambda r: r.rewrite("epsilon", "docs/guide.md", 2, 6, "epsilon: docs"),
        ),
        DemoStep("a requirement changes under an open task", declare=("FX-5A", "FX-5B")),
        DemoStep(
            "alpha commits its validation work",
            lambda r: r.commit("alpha", "orders: reject negative quantities"),
        ),
    ]
