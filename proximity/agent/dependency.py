"""The dependency channel's input on the agent side: the import edges near the changed files.

Kept apart from :mod:`.local` because it imports no numpy: the hook starts this read on a
worker thread while numpy loads (``session._local_check``), the way the working sets are
read while the engine loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proximity.agent.state import hook_log
from proximity.sources.git import WorkingSet
from proximity.sources.memo import BoundedCache

__all__ = ["read_local_graph"]


def read_local_graph(
    top: str | Path, sets: Sequence[WorkingSet], planned: Sequence[str] = (), *, warm: bool = False
) -> dict[str, Any] | None:
    """The engine's ``graph`` input near the changed and ``planned`` files, or ``None`` when it
    cannot be read: the dependency channel is then 0 (a check never fails on it). ``warm``:
    also read what a planned file would need (the daemon's background work)."""
    from proximity.sources.git import readcache
    from proximity.sources.imports.near import near_graph, warm_near_graph

    cache = readcache.current()
    kept = tuple(ws for ws in sets if ws.merge_base is not None)
    key = (frozenset(id(ws) for ws in kept), tuple(sorted(planned)))
    hit = _GRAPHS.get(key)
    # the key's ids are the held objects' own (an entry keeps its working sets alive)
    if cache is not None and hit is not None and not warm and cache.unchanged_since(hit[0]):
        return hit[2]
    mark = cache.sequence if cache is not None else 0
    try:
        graph = warm_near_graph(top, sets) if warm else near_graph(top, sets, planned)
    except Exception as exc:  # an unreadable object store must not stop the pre-edit check
        hook_log(f"imports not read: {type(exc).__name__}: {exc}")
        return None
    answer = graph.to_json()
    if cache is not None:
        _GRAPHS[key] = (mark, kept, answer)
    return answer


#: The graph inputs answered in a process whose git reads are watched (the daemon), by the
#: working-set objects (held, so their ids stay theirs) and the planned paths: with no file
#: event since, the same objects are the same answer, given without the ``lstat`` of every
#: changed file that :func:`~proximity.sources.imports.near.near_graph` makes to know it.
_GRAPHS: BoundedCache[
    tuple[frozenset[int], tuple[str, ...]], tuple[int, tuple[WorkingSet, ...], dict[str, Any]]
] = BoundedCache(64)
