"""Each sampled pair: common base, both sides' working sets, git's conflict label, import edges.

Git runs read-only on the repository under study: diffs, merge-bases and tree listings read
objects, and ``merge-tree --write-tree`` writes its result trees into a scratch object directory
(``GIT_OBJECT_DIRECTORY``) with the real store as an alternate, deleted afterwards.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from proximity.engine.diff import FileDiff, parse_raw_patch
from proximity.engine.evaluation.backtest import PAIR_FORMAT, relevant_subgraph
from proximity.lab.backtest.history import PullRequest
from proximity.lab.backtest.pyimports import BlobReader, TreeImports
from proximity.lab.backtest.sampling import Candidate
from proximity.sources.git._run import git, git_text

__all__ = ["MiningStats", "files_between", "mine_pairs", "pair_id", "pair_record", "refresh_files"]

_DIFF = [
    "diff", "--raw", "-p", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
    "--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=all",
]  # fmt: skip


@dataclass(slots=True)
class MiningStats:
    """What happened to the sampled candidates; nested pairs are not concurrent work."""

    candidates: int = 0
    sampled: int = 0
    written: int = 0
    nested: int = 0
    conflicts: int = 0
    by_stratum: dict[str, int] = field(default_factory=dict)


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _file_entry(diff: FileDiff) -> dict[str, Any]:
    """The engine's file-entry shape, as the live working-set reader produces it."""
    entry: dict[str, Any] = {"path": diff.path, "status": diff.status}
    if diff.old_path:
        entry["oldPath"] = diff.old_path
    if not diff.binary:
        entry["baseHunks"] = [list(h) for h in diff.base_hunks]
        if diff.hunk_ids is not None:
            entry["hunkIds"] = list(diff.hunk_ids)
        if diff.status != "D" and diff.lines:
            entry["lines"] = [list(r) for r in diff.lines]
    return entry


class _Git:
    """Read-only git calls for one repository, with a scratch object store for merge-tree."""

    def __init__(self, repo: Path, scratch: Path) -> None:
        self.repo = repo
        objects = git_text(repo, ["rev-parse", "--path-format=absolute", "--git-path", "objects"])
        self._env = {
            "GIT_OBJECT_DIRECTORY": str(scratch),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects.strip(),
        }
        self._diffs: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def merge_base(self, x: str, y: str) -> str | None:
        code, out = git(self.repo, ["merge-base", x, y], ok_codes=(0, 1))
        return out.decode().strip() if code == 0 else None

    def working_set(self, base: str, tip: str) -> list[dict[str, Any]]:
        if (base, tip) not in self._diffs:
            self._diffs[(base, tip)] = files_between(self.repo, base, tip)
        return self._diffs[(base, tip)]

    def conflicts(self, x: str, y: str) -> list[str]:
        args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", x, y]
        code, out = git(self.repo, args, env=self._env, ok_codes=(0, 1))
        names = out.decode("utf-8", "surrogateescape").split("\0")[1:]
        return sorted({n for n in names if n}) if code == 1 else []


def _side(pr: PullRequest, commit: str, at: int) -> dict[str, Any]:
    return {"pr": pr.number, "commit": commit, "at": _iso(at), "mergedAt": _iso(pr.merged_at),
            "merge": pr.merge, "startedAt": _iso(pr.started_at)}  # fmt: skip


def pair_record(
    c: Candidate, g: _Git, imports: TreeImports | None, repo_name: str
) -> dict[str, Any] | None:
    """The JSON record of one candidate, or None when one side contains the other."""
    tip_a, state_b = c.a.tip, c.state_b
    base = g.merge_base(tip_a, state_b)
    if base is None or base in (tip_a, state_b):
        return None
    files_a, files_b = g.working_set(base, tip_a), g.working_set(base, state_b)
    conflicts = g.conflicts(tip_a, state_b)
    fork_a, fork_b = g.merge_base(tip_a, c.a.mainline), g.merge_base(state_b, c.a.mainline)
    paths_a = [f["path"] for f in files_a] + [f["oldPath"] for f in files_a if "oldPath" in f]
    paths_b = [f["path"] for f in files_b] + [f["oldPath"] for f in files_b if "oldPath" in f]
    graph = relevant_subgraph(imports.adjacency(base), paths_a, paths_b) if imports else {}
    state_time = dict(c.b.chain)[state_b]
    return {
        "format": PAIR_FORMAT,
        "pairId": pair_id(repo_name, c),
        "repo": repo_name,
        "a": _side(c.a, tip_a, c.a.merged_at),
        "b": _side(c.b, state_b, state_time),
        "base": base,
        # Drift: a side that forked later also carries mainline changes made after `base`.
        "drift": {"a": fork_a != base, "b": fork_b != base},
        "stratum": c.stratum,
        "weight": c.weight,
        "cluster": state_b,
        "conflict": bool(conflicts),
        "conflictFiles": conflicts,
        "filesA": files_a,
        "filesB": files_b,
        "imports": {k: list(v) for k, v in graph.items()},
    }


def files_between(repo: Path, base: str, tip: str) -> list[dict[str, Any]]:
    """The engine's file entries of ``tip`` against ``base``, sorted by path."""
    text = git_text(repo, [*_DIFF, base, tip])
    return sorted((_file_entry(d) for d in parse_raw_patch(text)), key=lambda e: e["path"])


def refresh_files(
    repo: str | Path, records: Iterable[Mapping[str, Any]]
) -> Iterator[dict[str, Any]]:
    """Each mined record with ``filesA``/``filesB`` read again from its commits by this code
    (the file entries gained ``hunkIds``); every other field kept, the merge checks included.
    Consecutive records often share a side, so recent reads are kept."""
    files = lru_cache(maxsize=512)(partial(files_between, Path(repo)))
    for record in records:
        base = str(record["base"])
        yield {
            **record,
            "filesA": files(base, str(record["a"]["commit"])),
            "filesB": files(base, str(record["b"]["commit"])),
        }


def pair_id(repo_name: str, c: Candidate) -> str:
    """A mined pair's id: the two pull requests and B's branch state."""
    return f"{repo_name}#{c.a.number}-{c.b.number}@{c.state_b[:12]}"


def mine_pairs(
    repo: str | Path,
    candidates: Sequence[Candidate],
    *,
    repo_name: str,
    with_imports: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield one record per concurrent candidate, in the candidates' (sorted) order."""
    root = Path(repo)
    scratch = Path(tempfile.mkdtemp(prefix="radar-backtest-"))
    blobs = BlobReader(root) if with_imports else None
    try:
        g = _Git(root, scratch)
        imports = TreeImports(root, blobs) if blobs else None
        for n, cand in enumerate(candidates, start=1):
            record = pair_record(cand, g, imports, repo_name)
            if progress is not None:
                progress(n, len(candidates))
            if record is not None:
                yield record
    finally:
        if blobs is not None:
            blobs.close()
        shutil.rmtree(scratch, ignore_errors=True)
