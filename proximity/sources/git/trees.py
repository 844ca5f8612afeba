"""One tree of the object store, read without a checkout: its files' blob ids (``ls-tree``)
and the text of chosen blobs (one ``cat-file --batch``).

Shared by the speculative merge check (:mod:`.mergecheck`), its JavaScript half
(:mod:`.jscheck`) and the backtest's build-break labels; every git child runs under
:class:`~proximity.sources.limits.Limits`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from proximity.sources.git._run import GitError, git
from proximity.sources.limits import Limits

__all__ = ["read_tree_blobs", "tree_files", "tree_listing"]

_NEEDED = (".py",)
_OPAQUE = (".pyi", ".pyx", ".pxd", ".so", ".pyd")
_MAX_BYTES = 256 * 1024**2  # of Python text per check: a bigger tree is refused, not half-read


def tree_files(cwd: str, env: Mapping[str, str], tree: str, limits: Limits) -> dict[str, str]:
    """``{path: blob id}`` of every regular file of one tree (symlinks are not followed)."""
    _, out = git(
        cwd, ["ls-tree", "-r", "-z", "--full-tree", tree], env=env, preexec=limits.preexec()
    )
    found = {}
    for entry in out.split(b"\0"):
        meta, _, raw = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob" and parts[0] != b"120000":
            found[raw.decode("utf-8", "surrogateescape")] = parts[2].decode()
    return found


def tree_listing(
    cwd: str, env: Mapping[str, str], tree: str, limits: Limits
) -> tuple[dict[str, str], list[str]]:
    """``({python path: blob id}, [opaque module paths])`` of one tree."""
    blobs, others = {}, []
    for path, blob in tree_files(cwd, env, tree, limits).items():
        if path.endswith(_NEEDED):
            blobs[path] = blob
        elif path.endswith(_OPAQUE) or ".cpython-" in path:
            others.append(path)
    return blobs, others


def read_tree_blobs(
    cwd: str, env: Mapping[str, str], blobs: Iterable[str], limits: Limits
) -> dict[str, str]:
    wanted = sorted(set(blobs))
    if not wanted:
        return {}
    _, out = git(
        cwd,
        ["cat-file", "--batch"],
        env=env,
        stdin=("\n".join(wanted) + "\n").encode(),
        preexec=limits.preexec(),
    )
    texts, at, total = {}, 0, 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        blob, kind, size = out[at:header_end].decode().split()
        start = header_end + 1
        data = out[start : start + int(size)]
        at = start + int(size) + 1
        total += len(data)
        if total > _MAX_BYTES:
            raise GitError(cwd, f"merge check: more than {_MAX_BYTES} bytes of Python to read")
        if kind == "blob":
            texts[blob] = data.decode("utf-8", "replace")
    return texts
