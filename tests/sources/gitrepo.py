"""Build real git repositories with several worktrees and scripted edits, for tests.

Reusable by any test suite::

    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(20))
    repo.commit("base")
    alpha = repo.add_worktree("alpha")
    repo.replace_lines("app/core.py", 3, 5, worktree="alpha")

Commit times are deterministic: commit number ``n`` is made at ``EPOCH + n * 60`` seconds, so
tests can assert exact ``touchedAt`` and ``startedAt`` values. Nothing here touches the user's
git configuration: identity and dates go through environment variables.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

__all__ = [
    "EPOCH",
    "SCENARIO_MTIME",
    "ScriptedRepo",
    "build_scenario",
    "commit_time",
    "numbered",
    "repo_state",
]

EPOCH = 1_700_000_000  # 2023-11-14T22:13:20Z


def numbered(n: int, prefix: str = "line") -> str:
    """``n`` distinct lines ``line 1`` .. ``line n``, newline-terminated."""
    return "".join(f"{prefix} {i}\n" for i in range(1, n + 1))


def commit_time(n: int) -> datetime:
    """The timestamp of the ``n``-th commit made through a :class:`ScriptedRepo` (1-based)."""
    return datetime.fromtimestamp(EPOCH + n * 60, tz=UTC)


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="Test Agent",
        GIT_AUTHOR_EMAIL="agent@example.invalid",
        GIT_COMMITTER_NAME="Test Agent",
        GIT_COMMITTER_EMAIL="agent@example.invalid",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        LC_ALL="C",
    )
    env.update(extra or {})
    return env


def run_git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-C", str(cwd), *args],
        capture_output=True,
        env=_env(env),
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.decode()}")
    return proc.stdout.decode("utf-8", "surrogateescape")


@dataclass
class ScriptedRepo:
    """A repository in a temporary folder, its main worktree at ``root``, others beside it."""

    root: Path
    base: str = "main"
    worktrees: dict[str, Path] = field(default_factory=dict)
    commits: int = 0

    @classmethod
    def create(cls, tmp_path: Path, *, base: str = "main", name: str = "repo") -> ScriptedRepo:
        root = tmp_path / name
        root.mkdir(parents=True)
        run_git(root, "init", "-q", "-b", base)
        run_git(root, "config", "core.autocrlf", "false")
        return cls(root, base)

    def path(self, worktree: str | None = None) -> Path:
        return self.root if worktree is None else self.worktrees[worktree]

    def git(self, *args: str, worktree: str | None = None) -> str:
        return run_git(self.path(worktree), *args)

    def write(self, rel: str, text: str | bytes, *, worktree: str | None = None) -> Path:
        target = self.path(worktree) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
        return target

    def read(self, rel: str, *, worktree: str | None = None) -> str:
        return (self.path(worktree) / rel).read_text(encoding="utf-8")

    def replace_lines(
        self, rel: str, first: int, last: int, *, worktree: str | None = None, tag: str = "edited"
    ) -> None:
        """Rewrite lines ``first..last`` (1-based, inclusive) in place."""
        lines = self.read(rel, worktree=worktree).splitlines(keepends=True)
        for i in range(first - 1, last):
            lines[i] = f"{tag} {i + 1}\n"
        self.write(rel, "".join(lines), worktree=worktree)

    def delete_lines(self, rel: str, first: int, last: int, *, worktree: str | None = None) -> None:
        lines = self.read(rel, worktree=worktree).splitlines(keepends=True)
        del lines[first - 1 : last]
        self.write(rel, "".join(lines), worktree=worktree)

    def insert_after(self, rel: str, after: int, text: str, *, worktree: str | None = None) -> None:
        lines = self.read(rel, worktree=worktree).splitlines(keepends=True)
        lines[after:after] = [text if text.endswith("\n") else text + "\n"]
        self.write(rel, "".join(lines), worktree=worktree)

    def commit(self, message: str, *, worktree: str | None = None) -> str:
        """Stage everything in the worktree and commit it at the next deterministic time."""
        self.commits += 1
        stamp = f"@{EPOCH + self.commits * 60} +0000"
        cwd = self.path(worktree)
        run_git(cwd, "add", "-A")

        run_git(
            cwd,
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            message,
            env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
        )
        return run_git(cwd, "rev-parse", "HEAD").strip()

    def add_worktree(self, name: str, *, start: str | None = None, detached: bool = False) -> Path:
        """A new worktree in ``<tmp>/<name>`` on a new branch ``name`` (or detached)."""
        target = self.root.parent / name
        args = ["worktree", "add", "-q"]
        args += ["--detach", str(target)] if detached else ["-b", name, str(target)]
        run_git(self.root, *args, start or self.base)
        self.worktrees[name] = target
        return target

    def push(self, worktree: str) -> None:
        """Push ``worktree``'s branch to ``origin``, a bare repository beside this one made on
        first use (``refs/remotes/origin/<branch>``: the worktree's work is then published)."""
        remote = self.root.parent / f"{self.root.name}-origin.git"
        if not remote.exists():
            run_git(self.root.parent, "init", "-q", "--bare", str(remote))
            run_git(self.root, "remote", "add", "origin", str(remote))
        run_git(self.path(worktree), "push", "-q", "origin", worktree)


def repo_state(repo: ScriptedRepo) -> dict[str, str]:
    """Everything a read-only tool must leave as it was: refs, HEADs, statuses, index bytes."""
    state = {"refs": repo.git("for-each-ref", "--format=%(refname) %(objectname)")}
    state["objects"] = repo.git("count-objects", "-v")
    for name in [None, *repo.worktrees]:
        path = repo.path(name)
        if not path.is_dir():
            continue
        key = name or "<main>"
        state[f"{key}:HEAD"] = run_git(path, "rev-parse", "HEAD")
        state[f"{key}:status"] = run_git(
            path, "status", "--porcelain", "--untracked-files=all", env={"GIT_OPTIONAL_LOCKS": "0"}
        )
        index = Path(
            run_git(path, "rev-parse", "--path-format=absolute", "--git-path", "index").strip()
        )
        state[f"{key}:index"] = index.read_bytes().hex() if index.exists() else ""
    return state


SCENARIO_MTIME = EPOCH + 10_000  # mtime given to every uncommitted edit in the scenario


def _touch(path: Path, when: int = SCENARIO_MTIME) -> None:
    os.utime(path, (when, when), follow_symlinks=False)


def build_scenario(tmp_path: Path) -> ScriptedRepo:
    """The standard multi-worktree scene used by the reader tests (and anyone else).

    Base (commit 1 on ``main``): ``app/core.py`` (20 lines), ``app/util.py`` (10),
    ``docs/guide.md`` (10), ``old_name.txt``, ``gone.txt``, ``spaced dir/naïve file.txt`` (5 each),
    ``logo.bin`` (binary), ``.gitignore`` (``*.log``). Then, all forked from commit 1:

    - ``alpha``: core.py lines 3-5 rewritten and committed (commit 2); util.py line 2 edited,
      uncommitted.
    - ``beta``: core.py lines 4-6 rewritten, unstaged (overlaps alpha); ``app/beta_new.py``
      (4 lines) staged, not committed.
    - ``gamma``: ``old_name.txt`` renamed to ``new_name.txt`` and committed (commit 3);
      ``gone.txt`` deleted, the spaced non-ASCII file's line 2 edited and ``logo.bin`` changed,
      all uncommitted; ``notes/todo.txt`` (3 lines) untracked; ``debug.log`` ignored.
    - ``delta`` (detached HEAD): core.py line 7 rewritten, unstaged (touches beta's 4-6,
      one unchanged line away from alpha's 3-5).
    - ``main`` after the forks (commit 4): guide.md line 1 and core.py line 20 (base-only).

    Every uncommitted file gets mtime ``SCENARIO_MTIME``.
    """
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(20))
    repo.write("app/util.py", numbered(10))
    repo.write("docs/guide.md", numbered(10))
    repo.write("old_name.txt", numbered(5, "old"))
    repo.write("gone.txt", numbered(5, "gone"))
    repo.write("spaced dir/na\u00efve file.txt", numbered(5))
    repo.write("logo.bin", b"\x89PNG\0\0\x01binary")
    repo.write(".gitignore", "*.log\n")
    repo.commit("base")
    for name in ("alpha", "beta", "gamma"):
        repo.add_worktree(name)
    repo.add_worktree("delta", detached=True)

    repo.replace_lines("app/core.py", 3, 5, worktree="alpha", tag="alpha")
    repo.commit("alpha: core 3-5", worktree="alpha")
    repo.replace_lines("app/util.py", 2, 2, worktree="alpha", tag="alpha")
    _touch(repo.path("alpha") / "app/util.py")

    repo.replace_lines("app/core.py", 4, 6, worktree="beta", tag="beta")
    _touch(repo.path("beta") / "app/core.py")
    _touch(repo.write("app/beta_new.py", numbered(4, "new"), worktree="beta"))
    repo.git("add", "app/beta_new.py", worktree="beta")

    repo.git("mv", "old_name.txt", "new_name.txt", worktree="gamma")
    repo.commit("gamma: rename", worktree="gamma")
    (repo.path("gamma") / "gone.txt").unlink()
    repo.replace_lines("spaced dir/na\u00efve file.txt", 2, 2, worktree="gamma", tag="gamma")
    _touch(repo.path("gamma") / "spaced dir/na\u00efve file.txt")
    _touch(repo.write("logo.bin", b"\x89PNG\0\0\x02binary", worktree="gamma"))
    _touch(repo.write("notes/todo.txt", numbered(3, "todo"), worktree="gamma"))
    repo.write("debug.log", "ignored\n", worktree="gamma")
    _touch(repo.path("gamma"))  # a deletion is dated by its folder's mtime

    repo.replace_lines("app/core.py", 7, 7, worktree="delta", tag="delta")
    _touch(repo.path("delta") / "app/core.py")

    repo.replace_lines("docs/guide.md", 1, 1, tag="main")
    repo.replace_lines("app/core.py", 20, 20, tag="main")
    repo.commit("main: base-only change")
    return repo
