"""Label mined pairs with build breaks and give each its symbol data, from git's object store.

A pair whose merge is textually clean is a **build break** when the static build check
(:func:`proximity.engine.mergecheck.merge_check`: Python byte-compile and name resolution,
Django migration leaves) finds a problem in the merged tree that neither A's tip nor B's
state has alone. The merged tree is written by ``git merge-tree --write-tree`` into the
miner's scratch object directory; the three trees are read with ``ls-tree`` and one
``cat-file --batch`` each, never checked out, so the repository is only read. Every git child
runs under :class:`~proximity.sources.limits.Limits`, Python text is capped per check, and the
in-process check has a wall-clock bound (a pair over it is ``unchecked``, never clean).

The symbol data is what a live scan would feed ``radar-v1-symbols``: both sides' changes in
symbols (base version from the merge base, head version from the side's commit, classified on
the record's own hunks) resolved against the merge base's symbol index.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from proximity.engine.imports import language_of
from proximity.engine.mergecheck import MERGECHECK_VERSION, merge_check, problems_json
from proximity.engine.symbols import (
    FileChanges,
    FileSymbols,
    SymbolIndex,
    agent_side,
    file_changes,
    symbol_data_to_json,
    with_neighbours,
)
from proximity.sources.git._run import GitError, git
from proximity.sources.git.dryrun import scratch_store
from proximity.sources.git.jscheck import js_merge_problems

# The live check's tree readers: same listing rules (symlinks skipped, compiled modules kept
# as opaque names) and the same cap on Python text, so both label a tree identically.
from proximity.sources.git.trees import read_tree_blobs, tree_listing
from proximity.sources.limits import Limits, wall_clock_deadline
from proximity.sources.symbols.index import (
    SHARED_CACHE,
    SYMBOL_LANGUAGES,
    commit_files,
    read_blobs,
    symbol_cache_key,
)
from proximity.sources.symbols.read import detailed_symbols, index_for

__all__ = [
    "CheckTimeoutError",
    "build_check",
    "label_build_breaks",
    "pair_symbols",
    "refresh_symbols",
    "scratch_env",
    "side_changes",
]


class CheckTimeoutError(Exception):
    """The in-process check ran past its wall-clock bound."""


class SymbolTimeoutError(Exception):
    """A pair's symbol read ran past its wall-clock bound."""


@contextmanager
def scratch_env(repo: str | Path) -> Iterator[dict[str, str]]:
    """Git environment writing new objects to a throwaway folder, reading the repository's
    (the dry run's scratch store; the command checks pairs one at a time)."""
    with scratch_store(repo) as scratch:
        yield scratch.env()


def _merged_tree(repo: Path, env: Mapping[str, str], x: str, y: str, limits: Limits) -> str | None:
    args = ["merge-tree", "--write-tree", "--no-messages", "-z", x, y]
    code, out = git(repo, args, env=env, ok_codes=(0, 1), preexec=limits.preexec())
    return out.split(b"\0", 1)[0].decode().strip() if code == 0 else None


def build_check(
    repo: str | Path,
    env: Mapping[str, str],
    tip_a: str,
    state_b: str,
    *,
    limits: Limits | None = None,
    timeout: float | None = 120.0,
    cache: dict[str, object] | None = None,
) -> dict[str, Any]:
    """The merge check of ``tip_a`` and ``state_b`` as a JSON-ready record.

    ``status`` is ``done`` (``problems``: the merge-only ones), ``conflict`` (textual: the
    backtest's own label covers it) or ``unchecked`` (``reason``: a limit, git failed).
    ``env`` must point ``GIT_OBJECT_DIRECTORY`` at a scratch store with the repository's as
    alternate: the merged tree's objects are written there.
    """
    root, limits = Path(repo), limits or Limits()
    started = time.monotonic()
    out: dict[str, Any] = {"version": MERGECHECK_VERSION}
    try:
        merged = _merged_tree(root, env, tip_a, state_b, limits)
        if merged is None:
            return {**out, "status": "conflict"}
        listed = [tree_listing(str(root), env, t, limits) for t in (tip_a, state_b, merged)]
        wanted = (blob for blobs, _ in listed for blob in blobs.values())
        texts = read_tree_blobs(str(root), env, wanted, limits)
        files = [{p: texts[b] for p, b in blobs.items() if b in texts} for blobs, _ in listed]
        others = {name: listed[k][1] for k, name in enumerate(("a", "b", "merged"))}
        paused = gc.isenabled()
        gc.disable()  # as in the live check: thousands of ASTs, no cycles worth collecting
        try:
            with wall_clock_deadline(timeout, CheckTimeoutError):
                js = js_merge_problems(
                    str(root), env, (tip_a, state_b, merged), limits, cache or {}
                )
                result = merge_check(*files, others=others, cache=cache).joined(*js)
        finally:
            if paused:
                gc.enable()
    except CheckTimeoutError:
        return {**out, "status": "unchecked", "reason": f"over {timeout:g} s"}
    except GitError as exc:
        return {**out, "status": "unchecked", "reason": exc.problem[:300]}
    return {
        **out,
        "status": "done",
        "merged": merged,
        "problems": problems_json(result.problems),
        "counts": dict(result.counts),
        "seconds": round(time.monotonic() - started, 3),
    }


def side_changes(
    repo: str | Path,
    tip: str,
    files: Sequence[Mapping[str, Any]],
    index: SymbolIndex,
    *,
    cache: MutableMapping[str, FileSymbols] | None = None,
) -> list[FileChanges]:
    """The symbol changes of one side given as commit ``tip`` and its file entries.

    The from-commits twin of :func:`proximity.sources.symbols.worktree_changes`: the head
    version comes from ``tip``'s tree instead of a worktree's files; the hunks are the
    entries' own (``baseHunks``, ``lines``), so the channel sees exactly what the radar saw.
    """
    cache = SHARED_CACHE if cache is None else cache
    wanted = [
        f
        for f in files
        if "baseHunks" in f  # binary entries carry none
        and language_of(str(f.get("oldPath") or f["path"])) in SYMBOL_LANGUAGES
        and language_of(str(f["path"])) in SYMBOL_LANGUAGES
    ]
    if not wanted:
        return []
    heads = commit_files(repo, tip)
    bases = {
        str(f["path"]): index.blobs.get(str(f.get("oldPath") or f["path"]))
        for f in wanted
        if f["status"] != "A"
    }
    head_blobs = {str(f["path"]): heads.get(str(f["path"])) for f in wanted if f["status"] != "D"}
    contents = read_blobs(repo, [b for b in (*bases.values(), *head_blobs.values()) if b])
    out = []
    for f in wanted:
        path = str(f["path"])
        language = language_of(path) or "python"
        versions = []
        for blob in (bases.get(path), head_blobs.get(path)):
            key = symbol_cache_key(blob or "", language, detail=True)
            data = contents.get(blob) if blob else None
            versions.append(detailed_symbols(data, language, key, cache))
        out.append(
            file_changes(
                versions[0],
                versions[1],
                base_hunks=[tuple(h) for h in f["baseHunks"]],
                lines=[tuple(r) for r in f.get("lines", ())],
                path=path,
                base_path=str(f.get("oldPath") or path),
            )
        )
    return out


def pair_symbols(
    repo: str | Path,
    record: Mapping[str, Any],
    *,
    cache: MutableMapping[str, FileSymbols] | None = None,
    max_distance: int = 2,
) -> dict[str, Any]:
    """The ``symbols`` input of the pair's two-agent airspace (agents ``A`` and ``B``)."""
    index = index_for(repo, str(record["base"]), cache=cache)
    sides = {
        agent: agent_side(
            side_changes(repo, str(record[key]["commit"]), record[files], index, cache=cache),
            index,
        )
        for agent, key, files in (("A", "a", "filesA"), ("B", "b", "filesB"))
    }
    return symbol_data_to_json(with_neighbours(sides, index, max_distance=max_distance))


def label_build_breaks(
    repo: str | Path,
    records: Iterator[dict[str, Any]],
    env: Mapping[str, str],
    *,
    limits: Limits | None = None,
    timeout: float | None = 120.0,
    with_symbols: bool = True,
) -> Iterator[dict[str, Any]]:
    """Add ``mergeCheck``, ``buildBreak`` and ``symbols`` to each mined record.

    ``buildBreak`` is ``None`` for a textual conflict (not this label's question) and for an
    unchecked pair (unknown, never a negative). A failed symbol read leaves ``symbols`` out
    and says why in ``symbolsError``: the channel then reports the pair as unknown.
    """
    cache: dict[str, object] = {}
    for record in records:
        out = dict(record)
        if record["conflict"]:
            out["mergeCheck"], out["buildBreak"] = {"status": "conflict"}, None
        else:
            check = build_check(
                repo,
                env,
                record["a"]["commit"],
                record["b"]["commit"],
                limits=limits,
                timeout=timeout,
                cache=cache,
            )
            out["mergeCheck"] = check
            out["buildBreak"] = bool(check["problems"]) if check["status"] == "done" else None
        if with_symbols:
            try:
                out["symbols"] = pair_symbols(repo, record)
            except (GitError, SyntaxError, ValueError) as exc:
                out["symbolsError"] = str(exc)[:300]
        if len(cache) > 100_000:  # facts by content hash: bounded like the live TREE_CACHE
            cache.clear()
        yield out


def refresh_symbols(
    repo: str | Path,
    records: Iterable[Mapping[str, Any]],
    *,
    timeout: float | None = 60.0,
    cache: MutableMapping[str, FileSymbols] | None = None,
    max_distance: int = 2,
) -> Iterator[dict[str, Any]]:
    """Each mined record with its ``symbols`` recomputed by this code, every other field kept.

    The merge checks are the expensive part of mining and do not depend on the symbol
    extractor; a change of the extractor or of the channel's categories only needs the symbol
    data again, from the same commits and hunks. A pair whose read fails or runs past
    ``timeout`` seconds loses its old ``symbols`` (they came from other code) and carries
    ``symbolsError``: its symbol part is unchecked, never silently clean.
    """
    for record in records:
        out = {k: v for k, v in record.items() if k not in ("symbols", "symbolsError")}
        try:
            with wall_clock_deadline(timeout, SymbolTimeoutError):
                out["symbols"] = pair_symbols(repo, record, cache=cache, max_distance=max_distance)
        except SymbolTimeoutError:
            out["symbolsError"] = f"over {timeout:g} s"
        except (GitError, SyntaxError, ValueError, KeyError, TypeError) as exc:
            out["symbolsError"] = f"{type(exc).__name__}: {exc}"[:300]
        yield out
