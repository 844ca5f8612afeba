"""The replay's own repository: a scratch bare repository whose objects come from the source.

Created with the source's object store as an alternate (what ``git clone --shared`` does), so
historical commits and blobs are readable and every new object (agents' snapshots, merges) is
written here; the source is only ever read. Each agent is a worktree of this one repository on
branch ``pr-N`` (its radar agent id), so the radar's local check finds all of them with ``git
worktree list``. Merges are git's own (``merge-tree --write-tree``); no worktree of ``main``
exists, so the mainline moves by ``update-ref`` and nothing else ever shows up as an agent.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from proximity.engine.replay.hunks import LineHunk, parse_hunks
from proximity.engine.replay.schedule import Change, MainlineStep
from proximity.sources.git._run import git

__all__ = ["ChangePlan", "MergeResult", "ReplayRepo"]

MAIN = "main"
_ZERO = "0" * 40
_RADAR_TOML = """# written by the replay harness (issue 17): the policy every replayed agent follows
[radar]
base = "main"
profile = "radar-v1"

[policy]
resolution = "deny"
traffic = "context"
on_error = "open"
timeout_seconds = 120
# acknowledgements expire in replay time (the harness), not on the wall clock
ack_ttl_minutes = 10000000
"""


def _env(at: int | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {
        "GIT_AUTHOR_NAME": "replay",
        "GIT_AUTHOR_EMAIL": "replay@example.invalid",
        "GIT_COMMITTER_NAME": "replay",
        "GIT_COMMITTER_EMAIL": "replay@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_LITERAL_PATHSPECS": "1",
    }
    if at is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{at} +0000"
    env.update(extra or {})
    return env


@dataclass(frozen=True, slots=True)
class MergeResult:
    commit: str
    conflicts: tuple[str, ...]
    matches_history: bool = False


@dataclass(frozen=True, slots=True)
class ChangePlan:
    """How an agent applies one change: ``edit`` (hunks on the current file), ``write`` (the
    whole file), ``delete`` or ``skip``; ``transplanted`` when the file differed from the
    commit's parent (three-way), ``conflicted`` when that three-way merge conflicted;
    ``absent`` when the commit modified a file the worktree does not have (written whole)."""

    kind: str
    hunks: tuple[LineHunk, ...] = ()
    content: bytes = b""
    executable: bool = False
    transplanted: bool = False
    conflicted: bool = False
    absent: bool = False


class ReplayRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.git_dir = root / "replay.git"
        self.agents_dir = root / "agents"
        self.scratch = root / "scratch"
        self.parked_hours: float | None = None
        """``[radar] parked_hours`` of the agents' ``.radar.toml`` (None: the profile's)."""

    # -- plumbing ---------------------------------------------------------------------------
    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        at: int | None = None,
        extra: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
        ok: tuple[int, ...] = (0,),
    ) -> tuple[int, bytes]:
        return git(cwd or self.git_dir, args, env=_env(at, extra), stdin=stdin, ok_codes=ok)

    def text(self, args: Sequence[str], **kwargs: object) -> str:
        return self.run(args, **kwargs)[1].decode("utf-8", "surrogateescape")  # type: ignore[arg-type]

    def rev(self, name: str) -> str:
        return self.text(["rev-parse", "--verify", "-q", name]).strip()

    def blob(self, sha: str) -> bytes:
        return b"" if sha == _ZERO else self.run(["cat-file", "blob", sha])[1]

    @classmethod
    def create(cls, root: str | Path, *, source: str | Path, start: str) -> ReplayRepo:
        """A fresh replay repository in ``root`` (emptied first) with ``main`` at ``start``."""
        repo = cls(Path(root).resolve())
        shutil.rmtree(repo.root, ignore_errors=True)
        repo.agents_dir.mkdir(parents=True)
        repo.scratch.mkdir()
        objects = git(source, ["rev-parse", "--path-format=absolute", "--git-path", "objects"])
        repo.run(["init", "-q", "--bare", "-b", MAIN, str(repo.git_dir)], cwd=repo.root)
        (repo.git_dir / "objects" / "info" / "alternates").write_text(
            objects[1].decode().strip() + "\n", encoding="utf-8"
        )
        for key, value in (
            ("gc.auto", "0"),
            ("core.autocrlf", "false"),
            ("core.quotePath", "false"),
        ):
            repo.run(["config", key, value])
        (repo.git_dir / "info").mkdir(exist_ok=True)
        (repo.git_dir / "info" / "exclude").write_text("/.radar.toml\n", encoding="utf-8")
        repo.reset_main(start)
        return repo

    def reset_main(self, start: str) -> None:
        self.run(["update-ref", f"refs/heads/{MAIN}", self.rev(f"{start}^{{commit}}")])

    def main(self) -> str:
        return self.rev(f"refs/heads/{MAIN}")

    def _set_main(self, new: str, old: str) -> None:
        self.run(["update-ref", f"refs/heads/{MAIN}", new, old])

    def keep(self, ref: str, commit: str) -> None:
        self.run(["update-ref", ref, commit])

    # -- agents -----------------------------------------------------------------------------
    def worktree(self, agent: str) -> Path:
        return self.agents_dir / agent

    def add_agent(self, agent: str, base: str | None = None) -> Path:
        """A worktree on a new branch ``agent`` at ``base`` (default: the mainline's tip)."""
        path = self.worktree(agent)
        self.run(["worktree", "add", "-q", "-b", agent, str(path), base or f"refs/heads/{MAIN}"])
        policy = _RADAR_TOML
        if self.parked_hours is not None:  # the repository's setting, as a team would set it
            policy = policy.replace("[policy]", f"parked_hours = {self.parked_hours!r}\n\n[policy]")
        (path / ".radar.toml").write_text(policy, encoding="utf-8")
        return path

    def remove_agent(self, agent: str) -> None:
        self.run(["worktree", "remove", "--force", str(self.worktree(agent))])
        self.run(["branch", "-q", "-D", agent])

    def snapshot(self, agent: str, at: int) -> str:
        """A commit of the agent's whole working state on its base (HEAD does not move)."""
        path = self.worktree(agent)
        self.run(["add", "-A"], cwd=path)
        tree = self.text(["write-tree"], cwd=path).strip()
        return self.text(["commit-tree", tree, "-p", "HEAD", "-m", f"replay: {agent}"],
                         cwd=path, at=at).strip()  # fmt: skip

    def own_paths(self, commit: str) -> frozenset[str]:
        """Paths ``commit`` changed against its first parent (an agent's own work)."""
        out = self.run(["diff", "--name-only", "-z", "--no-renames", f"{commit}^", commit])[1]
        return frozenset(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)

    # -- merges -----------------------------------------------------------------------------
    def merge_tree(self, ours: str, theirs: str) -> tuple[str, tuple[str, ...]]:
        """git's merge of two commits: the result tree and the conflicted paths."""
        code, out = self.run(["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z",
                              ours, theirs], ok=(0, 1))  # fmt: skip
        parts = out.decode("utf-8", "surrogateescape").split("\0")
        conflicts = tuple(sorted({p for p in parts[1:] if p})) if code == 1 else ()
        return parts[0].strip(), conflicts

    def _entries(self, source: str, paths: Sequence[str]) -> dict[str, tuple[str, str]]:
        """``path -> (mode, blob)`` in commit ``source`` for those of ``paths`` it has."""
        out = self.run(["ls-tree", "-r", "-z", source, "--", *paths])[1]
        found = {}
        for item in out.decode("utf-8", "surrogateescape").split("\0"):
            if item:
                meta, path = item.split("\t", 1)
                mode, _, sha = meta.split()
                found[path] = (mode, sha)
        return found

    def _with_entries(self, tree: str, entries: Mapping[str, tuple[str, str] | None]) -> str:
        """``tree`` with each path set to ``(mode, blob)`` (``None``: removed)."""
        records = [f"{e[0]} {e[1]}\t{p}" if e else f"0 {_ZERO}\t{p}" for p, e in entries.items()]
        with tempfile.TemporaryDirectory(dir=self.scratch) as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            self.run(["read-tree", tree], extra=env)
            stdin = "".join(r + "\0" for r in records).encode("utf-8", "surrogateescape")
            self.run(["update-index", "-z", "--index-info"], extra=env, stdin=stdin)
            return self.text(["write-tree"], extra=env).strip()

    def _override(self, tree: str, paths: Sequence[str], source: str) -> str:
        """``tree`` with each of ``paths`` as in commit ``source`` (absent there: removed)."""
        found = self._entries(source, paths)
        return self._with_entries(tree, {p: found.get(p) for p in paths})

    def _agent_wins_hunks(self, tree: str, paths: Sequence[str], tip: str, work: str) -> str:
        """``tree`` with each conflicted path merged line by line, the agent's side winning
        each conflicting hunk (``merge-file --theirs``) and the mainline's other changes kept,
        as an agent resolving it would keep them; a path missing on a side, or binary, takes
        the agent's version whole."""
        base = self.text(["merge-base", tip, work]).strip()
        sides = [self._entries(c, paths) if c else {} for c in (base, tip, work)]
        entries: dict[str, tuple[str, str] | None] = {}
        for path in paths:
            old, ours, theirs = (side.get(path) for side in sides)
            entries[path] = theirs
            if old is None or ours is None or theirs is None:
                continue
            blobs = [self.blob(e[1]) for e in (ours, old, theirs)]
            if all(_text(b) for b in blobs):
                merged, _ = self._three_way(*blobs)
                sha = self.text(["hash-object", "-w", "--stdin"], stdin=merged).strip()
                entries[path] = (theirs[0], sha)
        return self._with_entries(tree, entries)

    def merge_agent(self, agent: str, at: int, *, historical: str) -> MergeResult:
        """Merge the agent's work into ``main``; a conflicted path takes history's resolution."""
        work = self.snapshot(agent, at)
        tip = self.main()
        tree, conflicts = self.merge_tree(tip, work)
        if conflicts:
            tree = self._override(tree, conflicts, historical)
        commit = self.text(["commit-tree", tree, "-p", tip, "-p", work, "-m",
                            f"replay: merge {agent}"], at=at).strip()  # fmt: skip
        self._set_main(commit, tip)
        same = tree == self.rev(f"{historical}^{{tree}}")
        return MergeResult(work, conflicts, same)

    def resync(self, agent: str, at: int, historical: str = "") -> tuple[str, ...] | None:
        """Merge ``main`` into the agent's work; in a conflicted path the agent's hunks win, or
        history's resolution where history made this merge (``historical``, the branch's own
        merge of the mainline). ``None``: the branch already holds ``main``."""
        tip = self.main()
        code, _ = self.run(["merge-base", "--is-ancestor", tip, f"refs/heads/{agent}"],
                           ok=(0, 1))  # fmt: skip
        if code == 0:
            return None
        work = self.snapshot(agent, at)
        tree, conflicts = self.merge_tree(tip, work)
        if conflicts and historical:
            tree = self._override(tree, conflicts, historical)
        elif conflicts:
            tree = self._agent_wins_hunks(tree, conflicts, tip, work)
        path = self.worktree(agent)
        self.run(["update-ref", f"refs/heads/{agent}", tip])
        self.run(["read-tree", "-u", "--reset", tree], cwd=path)
        return conflicts

    def push(self, step: MainlineStep, at: int) -> MergeResult:
        """A mainline commit that is not a replayed merge, applied to ``main`` as it was."""
        tip = self.main()
        conflicts: tuple[str, ...] = ()
        if self.rev(f"{tip}^{{tree}}") == self.rev(f"{step.parent}^{{tree}}"):
            tree = self.rev(f"{step.sha}^{{tree}}")
        else:
            # three-way with the commit's own parent as the base: replay main's tree as a child
            # of that parent, merged with the commit
            ours = self.text(["commit-tree", f"{tip}^{{tree}}", "-p", step.parent, "-m", "x"],
                             at=at).strip()  # fmt: skip
            tree, conflicts = self.merge_tree(ours, step.sha)
            if conflicts:
                tree = self._override(tree, conflicts, step.sha)
        commit = self.text(["commit-tree", tree, "-p", tip, "-m", f"replay: push {step.sha}"],
                           at=at).strip()  # fmt: skip
        self._set_main(commit, tip)
        return MergeResult(commit, conflicts, tree == self.rev(f"{step.sha}^{{tree}}"))

    def dry_run(self, a: str, b: str) -> tuple[str, ...]:
        return self.merge_tree(a, b)[1]

    # -- applying a change in a worktree ----------------------------------------------------
    def plan_change(self, agent: str, change: Change) -> ChangePlan:
        f = change.file
        if not f.regular:
            return ChangePlan("skip")
        target = self.worktree(agent) / f.path
        current = target.read_bytes() if target.is_file() else None
        if f.status == "D":
            return ChangePlan("delete") if current is not None else ChangePlan("skip")
        new = self.blob(f.new_blob)
        executable = f.new_mode == "100755"
        if current is None or f.binary or not (_text(current) and _text(new)):
            if current == new:
                return ChangePlan("skip")
            absent = current is None and f.status != "A"
            return ChangePlan("write", content=new, executable=executable, absent=absent)
        base = self.blob(f.old_blob) if f.status != "A" else b""
        if current == new:
            return ChangePlan("skip")
        if current == base and f.status != "A":
            return ChangePlan("edit", self._hunks(f.old_blob, f.new_blob), new, executable)
        merged, conflicted = self._three_way(current, base, new)
        if merged == current:
            return ChangePlan("skip", transplanted=True, conflicted=conflicted)
        hunks = self._file_hunks(current, merged)
        return ChangePlan("edit", hunks, merged, executable, True, conflicted)

    def _hunks(self, old_blob: str, new_blob: str) -> tuple[LineHunk, ...]:
        out = self.text(["diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv",
                         old_blob, new_blob])  # fmt: skip
        return tuple(parse_hunks(out))

    def _three_way(self, current: bytes, base: bytes, new: bytes) -> tuple[bytes, bool]:
        with tempfile.TemporaryDirectory(dir=self.scratch) as tmp:
            names = []
            for label, data in (("current", current), ("base", base), ("new", new)):
                (Path(tmp) / label).write_bytes(data)
                names.append(str(Path(tmp) / label))
            code, _ = self.run(["merge-file", "-q", "-p", *names], cwd=Path(tmp),
                               ok=tuple(range(0, 128)))  # fmt: skip
            _, merged = self.run(["merge-file", "-q", "-p", "--theirs", *names], cwd=Path(tmp))
        return merged, code > 0

    def _file_hunks(self, current: bytes, target: bytes) -> tuple[LineHunk, ...]:
        with tempfile.TemporaryDirectory(dir=self.scratch) as tmp:
            a, b = Path(tmp) / "a", Path(tmp) / "b"
            a.write_bytes(current)
            b.write_bytes(target)
            _, out = self.run(["diff", "--no-index", "-U0", "--no-color", "--no-ext-diff",
                               str(a), str(b)], cwd=Path(tmp), ok=(0, 1))  # fmt: skip
        return tuple(parse_hunks(out.decode("utf-8", "surrogateescape")))


def _text(data: bytes) -> bool:
    if b"\0" in data[:8000]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
