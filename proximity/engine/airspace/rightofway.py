"""Right of way: who holds and who steers in a Resolution Advisory.

ecc-v0 decides per pair as the reference (ECC-PROXIMITY.md section 2, "Right of way"), but
reads one ``now`` for every agent, so equal ``startedAt`` always falls through to the id
tiebreak (the reference's W13 clock race cannot happen). radar-v1 ranks each connected
component of Resolution pairs once, so nobody is told to steer by two holders in
contradictory ways (W14).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.model import Agent

__all__ = [
    "RightOfWay",
    "cluster_right_of_way",
    "components",
    "ecc_priority_key",
    "is_parked",
    "pair_right_of_way",
    "parks_at_ms",
]

PriorityKey = tuple[float, float, float, bytes]


def _utf16(text: str) -> bytes:
    # JS compares strings by UTF-16 code units; big-endian UTF-16 bytes sort the same way.
    return text.encode("utf-16-be", "surrogatepass")


def ecc_priority_key(agent: Agent, now_ms: float) -> PriorityKey:
    """Sort key, smaller holds: more progress (sum of weights), then older, then smaller id."""
    progress = sum(f.reference_weight for f in agent.files)
    age = 0.0 if agent.started_at_ms is None else now_ms - agent.started_at_ms
    return (0.0, -progress, -age, _utf16(agent.agent_id))


def parks_at_ms(agent: Agent, parked_after_ms: float | None) -> float | None:
    """When the agent counts as parked if it changes nothing more and asks for nothing more:
    its last change, or its last denied ask if later, plus ``parked_after_ms`` (``None``: it
    never can, see :func:`is_parked`)."""
    if parked_after_ms is None or parked_after_ms <= 0 or not agent.files or agent.published:
        return None
    touched = [f.touched_at_ms for f in agent.files]
    if any(t is None for t in touched):
        return None
    last = max(t for t in touched if t is not None)
    if agent.asked_at_ms is not None:
        last = max(last, agent.asked_at_ms)
    return last + parked_after_ms


def is_parked(agent: Agent, now_ms: float, parked_after_ms: float | None) -> bool:
    """No file of the agent changed, and no edit of it was denied, for ``parked_after_ms``:
    work left idle, neither an agent waiting on the radar nor work handed in for review (a
    ``published`` agent never parks: its merge is coming, docs/DECISIONS.md, "Published work
    waits on review").

    Every file must carry its ``touchedAt`` (git's commit time or the file's mtime); an agent
    with one undated file, or none, cannot be shown to be idle and is never parked. A pre-edit
    check's asking agent carries only its planned lines, undated: the asker is never parked.
    """
    at = parks_at_ms(agent, parked_after_ms)
    return at is not None and now_ms >= at


def radar_priority_key(
    agent: Agent, now_ms: float, parked_after_ms: float | None = None
) -> PriorityKey:
    """radar-v1: an active agent before a parked one (:func:`is_parked`), then the earlier
    start holds, then more distinct files, then the smaller id.

    An agent without ``startedAt`` is treated as the newest (it cannot prove it was first).
    ``workFiles``, where given, counts the files (a pre-edit check's asking agent carries only
    its planned ones). Which start and which files every face reads: docs/DECISIONS.md, "One
    right of way everywhere"; why a parked branch yields: "A parked branch yields".
    """
    parked = 1.0 if is_parked(agent, now_ms, parked_after_ms) else 0.0
    age = -np.inf if agent.started_at_ms is None else now_ms - agent.started_at_ms
    distinct = agent.work_files
    if distinct is None:
        distinct = len({f.path for f in agent.files})
    return (parked, -float(age), -float(distinct), _utf16(agent.agent_id))


def pair_right_of_way(keys: Sequence[PriorityKey], i: int, j: int) -> tuple[int, int]:
    """``(hold, steer)`` for agents ``i`` and ``j``."""
    return (i, j) if keys[i] <= keys[j] else (j, i)


class RightOfWay:
    """Per Resolution pair: holder, steerer and the component (cluster) id."""

    def __init__(
        self, hold: NDArray[np.int64], steer: NDArray[np.int64], cluster: NDArray[np.int64]
    ):
        self.hold, self.steer, self.cluster = hold, steer, cluster


def components(n: int, i: NDArray[np.int64], j: NDArray[np.int64]) -> NDArray[np.int64]:
    """Connected-component label of each of ``n`` nodes under the edges ``(i, j)``.

    Union-find with path halving; labels are numbered in order of each component's smallest
    node, as ``scipy.sparse.csgraph.connected_components`` numbers them (tested against it).
    Written out because the pairs are few and importing scipy's graph module costs a pre-edit
    check more than the whole scoring.
    """
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(i.tolist(), j.tolist(), strict=True):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = [find(x) for x in range(n)]
    number: dict[int, int] = {}
    return np.array([number.setdefault(r, len(number)) for r in roots], dtype=np.int64)


def cluster_right_of_way(
    keys: Sequence[PriorityKey], i: NDArray[np.int64], j: NDArray[np.int64]
) -> RightOfWay:
    """One holder order per connected component of Resolution pairs.

    Every agent is ranked once by its priority key; inside a component the better-ranked
    agent of each pair holds, so an agent steers away from exactly its better-ranked
    neighbours and the instructions it receives never contradict one another.
    """
    n = len(keys)
    rank = np.empty(n, dtype=np.int64)
    rank[sorted(range(n), key=keys.__getitem__)] = np.arange(n)
    labels = components(n, i, j)
    first = rank[i] < rank[j]
    hold = np.where(first, i, j)
    steer = np.where(first, j, i)
    return RightOfWay(hold, steer, labels[i].astype(np.int64))
