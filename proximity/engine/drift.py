"""Lines the mainline changed under a planned edit: a conflict the branch's merge will report.

The live check compares an agent with the other *live* agents. Work that reached the mainline
after the agent's merge base (a merged pull request, a direct push, a release branch) belongs
to no agent any more, yet the agent's branch has not seen it: an edit of those lines conflicts
when the branch merges, whatever anyone does later. The replay of real history found this the
largest class of conflicts a check against live agents cannot see (docs/EVALUATION.md, issue
17). Both sides are base-side hunks on the same merge base, so they compare exactly, under
git's own rule: changes that share a line, or abut (:func:`.airspace.regions.abuts`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from proximity.engine.airspace.lines import intersection_size
from proximity.engine.airspace.regions import abuts, hunk_regions

__all__ = ["DriftHit", "MainlineChange", "colliding_hunks", "drift_hits"]

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class MainlineChange:
    """One path the mainline changed since the merge base, keyed by its base-side path.

    ``base_hunks`` are git's ``-start,count`` pairs; ``None`` when the change has no lines to
    compare (a binary file, a deletion, a file added on both sides).
    """

    path: str
    status: str
    base_hunks: tuple[Span, ...] | None


@dataclass(frozen=True, slots=True)
class DriftHit:
    """A planned edit of ``path`` that meets the mainline's change there.

    ``mainline`` holds the mainline's hunks that collide (``None``: the whole file).
    """

    path: str
    status: str
    mainline: tuple[Span, ...] | None


def colliding_hunks(planned: Sequence[Span], theirs: Sequence[Span]) -> tuple[Span, ...]:
    """``theirs``'s base-side hunks that git's merge would not merge with ``planned``: those
    sharing a base line with a planned hunk or abutting one (an insertion at the same point
    included). Hunks one unchanged line apart merge cleanly. Shared by the mainline drift check
    and the pre-edit check against another agent's lines (``proximity.agent.textual``)."""
    mine = hunk_regions(planned)
    out = []
    for hunk in theirs:
        region = hunk_regions([hunk])
        if intersection_size(mine, region) or abuts(mine, region):
            out.append(hunk)
    return tuple(out)


def drift_hits(
    planned: Mapping[str, Sequence[Span] | None],
    mainline: Mapping[str, MainlineChange],
    *,
    deleting: Collection[str] = (),
) -> list[DriftHit]:
    """The planned paths whose base-side hunks meet the mainline's change of the same path.

    ``planned`` maps each path to its base-side hunks, ``None`` for the whole file (a new
    file, a rewrite, a deletion): a whole-file edit meets any change of the file, except that
    deleting (``deleting``) a file the mainline deleted too is no conflict (git merges two
    deletions; a release branch deleting the news fragments the mainline already deleted).
    """
    out = []
    for path, spans in sorted(planned.items()):
        change = mainline.get(path)
        if change is None or (path in deleting and change.status == "D"):
            continue
        if spans is None or change.base_hunks is None:
            out.append(DriftHit(path, change.status, change.base_hunks))
            continue
        met = colliding_hunks(spans, change.base_hunks)
        if met:
            out.append(DriftHit(path, change.status, met))
    return out
