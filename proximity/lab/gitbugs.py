"""Read a GitBugs folder (reports CSV + duplicate-pairs CSV) into plain typed rows.

Dates appear as ``30/Sep/21 17:20`` (hadoop, Jira export) or ISO 8601 with offset (SeaMonkey,
Bugzilla export); both are parsed to UTC-aware datetimes. The pairs file may list several
duplicate ids in one cell (``"13547000, 13396667"``) and may name ids absent from the reports:
those pairs are counted and dropped, never guessed.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from proximity.engine.evaluation.recall_rate import DuplicateQuery, duplicate_queries
from proximity.engine.overlap import Provenance, TaskRecord

__all__ = [
    "BugReport",
    "DuplicateTaskSet",
    "GitBugsDataset",
    "GitBugsFormatError",
    "duplicate_task_set",
    "load_gitbugs",
    "parse_created",
    "pipeline_records",
    "report_records",
]

_JIRA = "%d/%b/%y %H:%M"
_DESCRIPTION_CHARS = 1000  # the embedder reads <= 256 word pieces; this bounds the input


class GitBugsFormatError(ValueError):
    """The folder does not hold a GitBugs reports/pairs pair; the message names the problem."""


@dataclass(frozen=True, slots=True)
class BugReport:
    issue_id: str
    summary: str
    description: str
    created: datetime


@dataclass(frozen=True, slots=True)
class GitBugsDataset:
    name: str
    reports: tuple[BugReport, ...]
    pairs: tuple[tuple[str, str], ...]
    dropped_pairs: int


def parse_created(text: str) -> datetime:
    """Parse a ``Created`` cell of either export format into an aware UTC datetime."""
    value = text.strip()
    try:
        return datetime.strptime(value, _JIRA).replace(tzinfo=UTC)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise GitBugsFormatError(f"Created: unrecognised date {text!r}") from exc
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _find(folder: Path, suffix: str) -> Path:
    matches = sorted(p for p in folder.glob("*.csv") if p.name.lower().endswith(suffix))
    if len(matches) != 1:
        raise GitBugsFormatError(f"{folder}: expected one *{suffix} file, found {len(matches)}")
    return matches[0]


def _reports(path: Path) -> tuple[BugReport, ...]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    missing = {"Summary", "Issue id", "Created", "Description"} - set(rows[0] if rows else {})
    if missing:
        raise GitBugsFormatError(f"{path.name}: missing column(s) {sorted(missing)}")
    return tuple(
        BugReport(
            issue_id=row["Issue id"].strip(),
            summary=row["Summary"] or "",
            description=(row["Description"] or "")[:_DESCRIPTION_CHARS],
            created=parse_created(row["Created"]),
        )
        for row in rows
    )


def _pairs(path: Path, known: set[str]) -> tuple[tuple[tuple[str, str], ...], int]:
    found: set[tuple[str, str]] = set()
    dropped = 0
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.reader(handle):
            if not row or row[0].strip() == "Issue id":
                continue
            left = row[0].strip()
            for right in re.split(r"[,\s]+", ",".join(row[1:])):
                if not right:
                    continue
                if left in known and right in known and left != right:
                    found.add((min(left, right), max(left, right)))
                else:
                    dropped += 1
    return tuple(sorted(found)), dropped


def load_gitbugs(folder: Path | str) -> GitBugsDataset:
    """Load ``<name>_bugs.csv`` and ``<name>_bugs-combined.csv`` from ``folder``.

    Pairs are undirected and deduplicated; ``dropped_pairs`` counts listed pairs with an id absent
    from the reports (or a self-pair).
    """
    root = Path(folder)
    if not root.is_dir():
        raise GitBugsFormatError(f"--gitbugs: {root} is not a folder")
    reports = _reports(_find(root, "_bugs.csv"))
    pairs, dropped = _pairs(_find(root, "_bugs-combined.csv"), {r.issue_id for r in reports})
    return GitBugsDataset(root.resolve().name, reports, pairs, dropped)


def report_records(dataset: GitBugsDataset) -> tuple[tuple[TaskRecord, ...], tuple[float, ...]]:
    """Each report as a declared task ("fix this bug") and its creation time in epoch seconds.

    The summary is the objective and the (bounded) description the deliverable; acceptance is not
    declared by a bug report, so it stays ``None`` rather than being invented.
    """
    records = tuple(
        TaskRecord(
            task_id=r.issue_id,
            work_version=1,
            scope=dataset.name,
            objective=r.summary or None,
            deliverable=r.description or None,
            acceptance=None,
            provenance=Provenance(
                owner="gitbugs",
                source=f"gitbugs:{dataset.name}",
                declared_at=r.created.isoformat(),
            ),
        )
        for r in dataset.reports
    )
    return records, tuple(r.created.timestamp() for r in dataset.reports)


def pipeline_records(records: Sequence[TaskRecord]) -> list[TaskRecord]:
    """Reports as the review pipeline needs them: it answers a pair "insufficient declared
    evidence" unless both declare checks, a purpose and a deliverable (requirement 77). Each
    report declares an empty check list, the purpose "bug-fix" and its description (empty when
    it has none): the same for every report, so none of the three can tell two reports apart.
    """
    return [
        dataclasses.replace(r, acceptance=(), purpose="bug-fix", deliverable=r.deliverable or "")
        for r in records
    ]


@dataclass(frozen=True, slots=True)
class DuplicateTaskSet:
    """A GitBugs folder as the evaluation reads it: reports as tasks, times, duplicate queries."""

    dataset: GitBugsDataset
    records: tuple[TaskRecord, ...]
    created: tuple[float, ...]
    queries: tuple[DuplicateQuery, ...]


def duplicate_task_set(folder: str | Path) -> DuplicateTaskSet:
    """Load ``folder`` (``GitBugsFormatError`` naming the problem) and its duplicate queries."""
    dataset = load_gitbugs(folder)
    records, created = report_records(dataset)
    times = dict(zip((r.task_id for r in records), created, strict=True))
    return DuplicateTaskSet(dataset, records, created, duplicate_queries(times, dataset.pairs))
