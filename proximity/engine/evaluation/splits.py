"""Leakage-resistant splits: connected components go wholly to one of train, dev or holdout.

Records are nodes keyed by taskId (so every version of a task is one node); labelled pairs,
paraphrase links and any other declared link are edges. A component is assigned as a unit, so no
taskId and no pair link spans two splits (requirements 64-65). Holdouts by repository or by time
slice are supported (requirement 68); a component that straddles a time cut cannot be in the holdout
slice and is reported.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import networkx as nx

__all__ = [
    "SPLITS",
    "LeakageError",
    "SplitAssignment",
    "SplitRecord",
    "assign_splits",
    "check_no_leakage",
]

Split = Literal["train", "dev", "holdout"]
SPLITS: tuple[Split, Split, Split] = ("train", "dev", "holdout")


class LeakageError(ValueError):
    """A taskId or a pair link crosses from one split into another."""


@dataclass(frozen=True, slots=True)
class SplitRecord:
    """A task record's split-relevant facts; several versions share one ``task_id``."""

    task_id: str
    repository: str = ""
    time: str = ""


@dataclass(frozen=True, slots=True)
class SplitAssignment:
    """Split of every taskId, the components, and links dropped for crossing a time cut."""

    split_of: Mapping[str, Split]
    components: tuple[tuple[str, ...], ...]
    dropped_links: tuple[tuple[str, str], ...]
    mode: str
    seed: int

    def split_of_pair(self, a: str, b: str) -> Split | None:
        """The pair's split, or None when its ends were separated (a dropped cross-cut link)."""
        sa, sb = self.split_of.get(a), self.split_of.get(b)
        return sa if sa is not None and sa == sb else None


def _rank_key(component: Sequence[str], seed: int) -> str:
    return hashlib.sha256(f"{seed}:{min(component)}".encode()).hexdigest()


def _fill(
    components: list[tuple[str, ...]],
    fractions: Sequence[float],
    splits: Sequence[Split],
    seed: int,
) -> dict[str, Split]:
    """Greedy fill in seeded-hash order: each component joins the split furthest below target."""
    total = sum(len(c) for c in components) or 1
    share = [f / sum(fractions) for f in fractions]
    size = dict.fromkeys(splits, 0)
    out: dict[str, Split] = {}
    for comp in sorted(components, key=lambda c: _rank_key(c, seed)):
        target = max(splits, key=lambda s: share[splits.index(s)] - size[s] / total)
        size[target] += len(comp)
        out.update(dict.fromkeys(comp, target))
    return out


def _graph(records: Iterable[SplitRecord], links: Iterable[tuple[str, str]]) -> nx.Graph:
    graph: nx.Graph = nx.Graph()
    for record in records:
        graph.add_node(record.task_id)
    for a, b in links:
        graph.add_edge(a, b)
    return graph


def assign_splits(
    records: Iterable[SplitRecord],
    links: Iterable[tuple[str, str]],
    *,
    fractions: Sequence[float] = (0.6, 0.2, 0.2),
    seed: int = 0,
    by: Literal["component", "repository", "time"] = "component",
    holdout_repositories: Iterable[str] = (),
    holdout_from: str = "",
) -> SplitAssignment:
    """Assign whole components to train, dev and holdout.

    Parameters
    ----------
    records : iterable of SplitRecord
        Every record version; versions of one task collapse onto its taskId.
    links : iterable of (taskId, taskId)
        Labelled pairs, paraphrase links, shared-record links.
    fractions : sequence of float, default (0.6, 0.2, 0.2)
        Target shares of taskIds for train, dev, holdout in ``component`` mode (train and dev in the
        other modes, where the holdout is fixed by repository or time).
    seed : int, default 0
        Orders components by a seeded hash, so the assignment is reproducible.
    by : {"component", "repository", "time"}
        ``repository``: records of ``holdout_repositories`` are the holdout and a link across that
        boundary joins its component to the holdout. ``time``: records with ``time >= holdout_from``
        are the holdout; links across the cut are dropped and reported, never leaked.
    """
    recs = list(records)
    link_list = [(a, b) for a, b in links if a != b]
    if by == "time":
        return _by_time(recs, link_list, fractions, seed, holdout_from)
    graph = _graph(recs, link_list)
    components = [tuple(sorted(c)) for c in nx.connected_components(graph)]
    if by == "component":
        split_of = _fill(components, fractions, SPLITS, seed)
        return SplitAssignment(split_of, tuple(sorted(components)), (), by, seed)
    held = set(holdout_repositories)
    repo = {r.task_id: r.repository for r in recs}
    is_held = [any(repo.get(t) in held for t in c) for c in components]
    split_of = _fill(
        [c for c, h in zip(components, is_held, strict=True) if not h],
        fractions[:2],
        SPLITS[:2],
        seed,
    )
    for comp in (c for c, h in zip(components, is_held, strict=True) if h):
        split_of.update(dict.fromkeys(comp, "holdout"))
    return SplitAssignment(split_of, tuple(sorted(components)), (), by, seed)


def _by_time(
    recs: list[SplitRecord],
    links: list[tuple[str, str]],
    fractions: Sequence[float],
    seed: int,
    holdout_from: str,
) -> SplitAssignment:
    if not holdout_from:
        raise ValueError("holdout_from: a time split needs the start of the holdout slice")
    late = {r.task_id for r in recs if r.time >= holdout_from}
    early = {r.task_id for r in recs} - late
    kept = [(a, b) for a, b in links if (a in late) == (b in late)]
    dropped = tuple(sorted((a, b) for a, b in links if (a in late) != (b in late)))
    graph = _graph(recs, kept)
    components = [tuple(sorted(c)) for c in nx.connected_components(graph)]
    split_of = _fill([c for c in components if c[0] in early], fractions[:2], SPLITS[:2], seed)
    for comp in (c for c in components if c[0] in late):
        split_of.update(dict.fromkeys(comp, "holdout"))
    return SplitAssignment(split_of, tuple(sorted(components)), dropped, "time", seed)


def check_no_leakage(assignment: SplitAssignment, links: Iterable[tuple[str, str]]) -> None:
    """Raise LeakageError if a kept link joins two splits (dropped cross-cut links are allowed)."""
    dropped = set(assignment.dropped_links)
    for a, b in links:
        if (a, b) in dropped or (b, a) in dropped:
            continue
        sa, sb = assignment.split_of.get(a), assignment.split_of.get(b)
        if sa is None or sb is None:
            raise LeakageError(f"link ({a}, {b}): an end has no split")
        if sa != sb:
            raise LeakageError(f"link ({a}, {b}) spans {sa} and {sb}")
