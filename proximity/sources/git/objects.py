"""Read git's object store: a commit's files, blobs' contents, a commit's import resolver.

Read-only and numpy-free (the hook reads these while numpy loads on another thread)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from proximity.engine.imports import build_resolver, is_config
from proximity.engine.imports.link import Resolver
from proximity.sources.git._run import git
from proximity.sources.memo import BoundedCache

__all__ = ["COMMIT_BASES", "COMMIT_CONFIGS", "commit_base", "commit_configs", "commit_files",
           "read_blobs"]  # fmt: skip

_SKIP_MODES = (b"160000", b"120000")  # submodules and symlinks name no source of their own


def commit_files(repo: str | Path, commit: str) -> dict[str, str]:
    """``{path: blob}`` of every regular file in ``commit`` (one ``git ls-tree``)."""
    _, out = git(repo, ["ls-tree", "-r", "-z", "--full-tree", commit])
    files = {}
    for item in out.split(b"\0"):
        if not item:
            continue
        meta, _, path = item.partition(b"\t")
        mode, kind, blob = meta.split(b" ")
        if kind == b"blob" and mode not in _SKIP_MODES:
            files[path.decode("utf-8", "surrogateescape")] = blob.decode()
    return files


COMMIT_BASES: BoundedCache[tuple[str, str], tuple[dict[str, str], Resolver]] = BoundedCache(8)
"""``commit_base`` answers by (repository, commit): a few repositories' merge bases."""

COMMIT_CONFIGS: BoundedCache[tuple[str, str], dict[str, str]] = BoundedCache(8)
"""``commit_configs`` answers by (repository, commit): the resolver's inputs, read once."""


def commit_configs(
    repo: str, commit: str, files: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``{path: text}`` of the import-resolution config files (tsconfig, package.json, go.mod
    ...) in ``commit``, whose ``files`` (from :func:`commit_files`) may be passed in."""
    key = (repo, commit)
    hit = COMMIT_CONFIGS.get(key)
    if hit is not None:
        return hit
    if files is None:
        files = commit_files(repo, commit)
    paths = [p for p in files if is_config(p)]
    contents = read_blobs(repo, [files[p] for p in paths])
    hit = {p: contents[files[p]].decode("utf-8", "replace") for p in paths if files[p] in contents}
    COMMIT_CONFIGS[key] = hit
    return hit


def commit_base(repo: str, commit: str) -> tuple[dict[str, str], Resolver]:
    """``({path: blob}, resolver)`` of a commit: immutable, so kept per (repository, commit)."""
    key = (repo, commit)
    hit = COMMIT_BASES.get(key)
    if hit is not None:
        return hit
    files = commit_files(repo, commit)
    hit = (files, build_resolver(files, commit_configs(repo, commit, files)))
    COMMIT_BASES[key] = hit
    return hit


def read_blobs(repo: str | Path, blobs: Iterable[str]) -> dict[str, bytes]:
    """Contents of ``blobs`` through one ``git cat-file --batch`` (missing ones left out)."""
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    _, out = git(repo, ["cat-file", "--batch"], stdin="\n".join(wanted).encode() + b"\n")
    found: dict[str, bytes] = {}
    at = 0
    for blob in wanted:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].split(b" ")
        at = header_end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        found[blob] = out[at : at + size]
        at += size + 1  # the content is followed by a newline
    return found
