"""Which branch is the mainline, when nobody said: the remote's default, else ``main``, else
``master``.

Until this, an unset ``[radar] base`` meant ``main``; in a repository whose mainline is
``master`` (most repositories older than 2020) every worktree's read failed on the missing
base, and the radar saw nobody: each check read "clear". git records the remote's default
branch as the symbolic ref ``refs/remotes/origin/HEAD`` (set by ``git clone``); a local branch
of that name is preferred to the remote-tracking one, since worktrees fork from and merge into
the local branch. One read-only git call, two when the remote's default has another name
(both remembered by a warm daemon like its other reads).
"""

from __future__ import annotations

from pathlib import Path

from proximity.sources.git._run import GitError, git

__all__ = ["FALLBACK", "default_mainline"]

#: The answer when the repository has none of the usual names (its reads then say so).
FALLBACK = "main"
_REMOTE_HEAD = "refs/remotes/origin/HEAD"
_LOCAL = ("refs/heads/main", "refs/heads/master")


def default_mainline(top: str | Path | None) -> str:
    """The mainline of the repository holding ``top``: ``origin/HEAD``'s branch (by its local
    name when that branch exists here), else ``main``, else ``master``, else :data:`FALLBACK`
    (also without a repository: ``top`` None or empty)."""
    if not top:
        return FALLBACK
    try:
        _, out = git(
            top,
            ["for-each-ref", "--format=%(refname)%00%(symref)", _REMOTE_HEAD, *_LOCAL],
        )
    except GitError:
        return FALLBACK
    found: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        ref, _, target = line.partition("\0")
        found[ref] = target
    remote = found.get(_REMOTE_HEAD, "")
    if remote.startswith("refs/remotes/origin/"):
        name = remote.removeprefix("refs/remotes/origin/")
        return name if f"refs/heads/{name}" in found or _local(top, name) else f"origin/{name}"
    for ref in _LOCAL:  # for-each-ref also lists refs below these names (main/x): exact only
        if ref in found:
            return ref.removeprefix("refs/heads/")
    return FALLBACK


def _local(top: str | Path, name: str) -> bool:
    """Whether a local branch ``name`` exists (one not among the usual names, e.g. develop)."""
    try:
        code, _ = git(top, ["rev-parse", "--verify", "-q", f"refs/heads/{name}"], ok_codes=(0, 1))
    except GitError:
        return False
    return code == 0
