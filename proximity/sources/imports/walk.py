"""List a worktree's files with their blob hashes in a constant number of git calls.

Clean files take their blob hash from the index (``git ls-files -s``); files that differ from
the index, and untracked files that git does not ignore, are hashed in one batched
``git hash-object --stdin-paths`` call. A rescan therefore reads only files whose content hash
is not already in the parse cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from proximity.sources.git._run import git, git_text
from proximity.sources.git.status import read_status
from proximity.sources.git.worktrees import repository_root

__all__ = ["RepoFiles", "list_repository_files"]

_SKIP_MODES = ("160000",)  # submodules: another repository's files


@dataclass(frozen=True, slots=True)
class RepoFiles:
    """Paths present in the working tree; ``blobs`` for those ``wanted`` (see the lister)."""

    root: Path
    paths: tuple[str, ...]
    blobs: dict[str, str]
    symlinks: frozenset[str]


def _index(root: Path) -> tuple[dict[str, str], set[str]]:
    blobs: dict[str, str] = {}
    links: set[str] = set()
    for item in git_text(root, ["ls-files", "-s", "-z"]).split("\0"):
        if not item:
            continue
        meta, _, path = item.partition("\t")
        mode, blob, _stage = meta.split(" ")
        if mode in _SKIP_MODES:
            continue
        blobs[path] = blob
        if mode == "120000":
            links.add(path)
    return blobs, links


def _hash_objects(root: Path, paths: list[str]) -> dict[str, str]:
    """Blob hashes as git would store them, one process for all; odd names hashed here."""
    plain = [p for p in paths if "\n" not in p]
    out: dict[str, str] = {}
    if plain:
        data = "\n".join(plain).encode("utf-8", "surrogateescape") + b"\n"
        _, raw = git(root, ["hash-object", "--stdin-paths"], stdin=data)
        out.update(zip(plain, raw.decode().split(), strict=True))
    for p in paths:
        if "\n" in p:
            content = (root / p).read_bytes()
            out[p] = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324 - git's object id
    return out


def list_repository_files(
    repo: str | Path, *, wanted: Callable[[str], bool] = lambda _p: True
) -> RepoFiles:
    """Every non-ignored file in the worktree at ``repo``; blob hashes for ``wanted`` ones.

    Raises :class:`~proximity.sources.git.GitError` when ``repo`` is not a git worktree.
    """
    root = Path(repo)
    if not (root / ".git").exists():  # a worktree's top holds .git; skip a git call if so
        root = repository_root(repo)
    with ThreadPoolExecutor(max_workers=2) as pool:  # two git processes, two cores
        listed = pool.submit(_index, root)
        status = read_status(root)
        blobs, links = listed.result()
    modified, deleted, untracked = status.unstaged, status.deleted, status.untracked
    for path in deleted:
        blobs.pop(path, None)
    fresh = [p for p in sorted(modified | set(untracked)) if wanted(p) and (root / p).is_file()]
    for path in untracked:
        blobs.setdefault(path, "")
    blobs.update(_hash_objects(root, fresh))
    paths = tuple(sorted(blobs))
    kept = {p: b for p, b in blobs.items() if b and wanted(p)}
    return RepoFiles(root, paths, kept, frozenset(_links(root, links, untracked)))


def _links(root: Path, tracked_links: Iterable[str], untracked: Iterable[str]) -> set[str]:
    return set(tracked_links) | {p for p in untracked if (root / p).is_symlink()}
