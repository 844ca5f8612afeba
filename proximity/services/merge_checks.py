"""Speculative merge checks: plan them from the latest scan, run one, feed results to scans.

A check is one row per pair of worktree *trees* (and rule version), so a state checked once is
never checked again, whoever holds it. Planning (after each scan of an opted-in repository)
picks the pairs at Traffic or above or coupled through a symbol, reuses done rows, cancels
pending or running rows whose side has moved on, and queues at most
``OVERLAP_MERGE_CHECK_MAX_PER_REPO`` checks in flight per repository. A run claims its row by
compare-and-swap and stores by compare-and-swap, so a redelivered task or a cancellation while
it ran never overwrites anything; a finished check requests a scan, whose ``merge-check``
channel and advisory detail then carry the state of each pair's *current* trees.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from proximity.engine.mergecheck import MERGECHECK_VERSION, problems_json, trim
from proximity.models import MergeCheck, Repository
from proximity.selectors.airspace import latest_scan
from proximity.services.enqueue import MERGE_CHECK, enqueue
from proximity.services.scan_requests import scan_request
from proximity.sources.limits import Limits

if TYPE_CHECKING:
    from proximity.sources.git.testcheck import TestOptions

__all__ = [
    "TESTS_SUFFIX",
    "MergeInputs",
    "PlanOutcome",
    "check_version",
    "current_trees",
    "merge_check_inputs",
    "merge_check_run",
    "merge_checks_plan",
]

log = logging.getLogger(__name__)
Status = MergeCheck.Status
IN_FLIGHT = (Status.PENDING, Status.RUNNING)
MAX_ATTEMPTS = 3  # failed runs of one tree pair before it is left failed (shown "not checked")


TESTS_SUFFIX = "+tests"


def check_version(repository: Repository) -> str:
    """The rule version a check of this repository is stored under: a check that ran the
    repository's tests answers a different question from one that did not, so switching
    tests on never reuses a result made without them (nor the reverse)."""
    return MERGECHECK_VERSION + (TESTS_SUFFIX if _tests_run(repository) else "")


EMBEDDED = "embedded mode (no REDIS_URL): test runs need a merge-checks worker"


def _tests_run(repository: Repository) -> bool:
    """Whether this repository's checks run its tests here. Never with eager tasks (embedded
    mode): the check would run inside whatever enqueued it, a web request included, and a
    test run takes minutes. Those checks are static, and say why the tests did not run."""
    return repository.merge_check_tests and not settings.CELERY_TASK_ALWAYS_EAGER


def _test_options() -> TestOptions:
    from proximity.sources.git.testcheck import TestOptions
    from proximity.sources.sandbox import Sandbox
    from proximity.sources.testenv import system_python

    return TestOptions(
        python=settings.OVERLAP_MERGE_CHECK_TEST_PYTHON or "",
        plain_python=settings.OVERLAP_MERGE_CHECK_PLAIN_PYTHON or system_python(),
        sandbox=Sandbox(user=settings.OVERLAP_SANDBOX_USER or "nobody"),
        timeout=settings.OVERLAP_MERGE_CHECK_TEST_TIMEOUT,
        max_files=settings.OVERLAP_MERGE_CHECK_TEST_MAX_FILES,
        limits=Limits(
            memory_bytes=settings.OVERLAP_MERGE_CHECK_MEMORY_MB * 1024**2,
            cpu_seconds=settings.OVERLAP_MERGE_CHECK_TEST_CPU_SECONDS,
            processes=settings.OVERLAP_MERGE_CHECK_PROCESSES,
        ),
    )


def _limits() -> Limits:
    return Limits(
        memory_bytes=settings.OVERLAP_MERGE_CHECK_MEMORY_MB * 1024**2,
        cpu_seconds=settings.OVERLAP_MERGE_CHECK_CPU_SECONDS,
        processes=settings.OVERLAP_MERGE_CHECK_PROCESSES,
    )


def current_trees(repository: Repository) -> dict[str, str]:
    """``{agent id: tree}`` of each worktree's current state (git I/O: outside any lock)."""
    from proximity.sources.git import read_working_sets
    from proximity.sources.git.mergecheck import worktree_trees

    sets = read_working_sets(repository.path, base=repository.base_branch)
    trees, problems = worktree_trees(sets, limits=_limits())
    for problem in problems:
        log.info("merge checks of %s: %s", repository.name, problem)
    return trees


def _ordered(trees: Mapping[str, str], a: str, b: str) -> tuple[str, str, str, str]:
    """``(tree_a, tree_b, agent_a, agent_b)`` with ``tree_a <= tree_b``: one row per pair."""
    return (trees[a], trees[b], a, b) if trees[a] <= trees[b] else (trees[b], trees[a], b, a)


def _wanted(repository: Repository) -> list[tuple[str, str]]:
    """Pairs of the latest scan at Traffic or above, or coupled through a symbol; riskiest first."""
    scan = latest_scan(repository)
    links = scan.result.get("links", []) if scan is not None else []
    picked = [
        link
        for link in links
        if link.get("level") != "clear" or (link.get("channels") or {}).get("symbol", 0) > 0
    ]
    picked.sort(key=lambda link: -float(link.get("risk", 0.0)))
    return [(link["a"], link["b"]) for link in picked]


@dataclass(frozen=True)
class PlanOutcome:
    queued: tuple[int, ...] = ()
    reused: int = 0
    cancelled: int = 0


def _cancel_moved(repository: Repository, trees: Mapping[str, str], now: datetime) -> int:
    """Cancel checks in flight whose side's tree is no longer its agent's current one."""
    moved = [
        row.pk
        for row in MergeCheck.objects.filter(repository=repository, status__in=IN_FLIGHT)
        if trees.get(row.agent_a) != row.tree_a or trees.get(row.agent_b) != row.tree_b
    ]
    # Conditional: a check that finished meanwhile keeps its result (it is still a fact about
    # those two trees, reusable if they come back).
    return MergeCheck.objects.filter(pk__in=moved, status__in=IN_FLIGHT).update(
        status=Status.CANCELLED, error="a side moved on before the check finished", checked_at=now
    )


def _queue(repository: Repository, key: tuple[str, str, str, str], now: datetime) -> int | None:
    tree_a, tree_b, agent_a, agent_b = key
    row, created = MergeCheck.objects.get_or_create(
        repository=repository,
        tree_a=tree_a,
        tree_b=tree_b,
        version=check_version(repository),
        defaults={"agent_a": agent_a, "agent_b": agent_b, "requested_at": now},
    )
    if created:
        return row.pk
    # A cancelled check whose trees are current again, or a failed one with tries left.
    again = Q(status=Status.CANCELLED) | Q(status=Status.FAILED, attempts__lt=MAX_ATTEMPTS)
    reset = MergeCheck.objects.filter(again, pk=row.pk).update(
        status=Status.PENDING, agent_a=agent_a, agent_b=agent_b, requested_at=now, error=""
    )
    return row.pk if reset else None


def merge_checks_plan(
    *,
    repository: Repository,
    trees: Mapping[str, str] | None = None,
    now: datetime | None = None,
) -> PlanOutcome:
    """Queue the checks the latest scan calls for; idempotent (rows are keyed by trees)."""
    if not repository.merge_checks or not repository.path or repository.archived_at is not None:
        return PlanOutcome()
    now = now or timezone.now()
    trees = dict(trees) if trees is not None else current_trees(repository)
    cancelled = _cancel_moved(repository, trees, now)
    existing = {
        (r.tree_a, r.tree_b): r.status
        for r in MergeCheck.objects.filter(
            repository=repository,
            version=check_version(repository),
            tree_a__in=list(trees.values()),
        ).only("tree_a", "tree_b", "status")
    }
    in_flight = sum(1 for s in existing.values() if s in IN_FLIGHT)
    budget = max(0, settings.OVERLAP_MERGE_CHECK_MAX_PER_REPO - in_flight)
    queued: list[int] = []
    reused, seen = 0, set()
    for a, b in _wanted(repository):
        if a not in trees or b not in trees or trees[a] == trees[b]:
            continue  # no worktree here (unknown, shown "not checked"), or identical states
        key = _ordered(trees, a, b)
        status = existing.get(key[:2])
        if key[:2] in seen or status in (Status.DONE, *IN_FLIGHT):
            reused += status == Status.DONE and key[:2] not in seen
            seen.add(key[:2])
            continue
        seen.add(key[:2])
        if len(queued) >= budget:
            break
        pk = _queue(repository, key, now)
        if pk is not None:
            queued.append(pk)
    for pk in queued:
        transaction.on_commit(partial(enqueue, MERGE_CHECK, pk))
    return PlanOutcome(tuple(queued), reused, cancelled)


def _claim(row: MergeCheck, now: datetime) -> bool:
    """Move the row to ``running`` by conditional update; True only for the caller that did."""
    stale = now - timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    due = Q(status=Status.PENDING) | Q(status=Status.RUNNING, started_at__lt=stale)
    claimed = MergeCheck.objects.filter(due, pk=row.pk, attempts=row.attempts).update(
        status=Status.RUNNING, started_at=now, attempts=F("attempts") + 1
    )
    return bool(claimed)


def _finish(row: MergeCheck, now: datetime, **fields: Any) -> bool:
    """Store the outcome only if the row is still ours (not cancelled meanwhile)."""
    stored = MergeCheck.objects.filter(pk=row.pk, status=Status.RUNNING).update(
        checked_at=now, **fields
    )
    row.refresh_from_db()
    return bool(stored)


def _check(row: MergeCheck) -> dict[str, Any]:
    from proximity.sources.git import read_working_sets
    from proximity.sources.git.mergecheck import run_merge_check

    repo = row.repository
    sets = {ws.agent_id: ws for ws in read_working_sets(repo.path, base=repo.base_branch)}
    a, b = sets.get(row.agent_a), sets.get(row.agent_b)
    if a is None or b is None or a.merge_base is None or b.merge_base is None:
        return {"status": Status.CANCELLED, "error": "a side's worktree is gone"}
    tests = _test_options() if _tests_run(repo) else None
    run = run_merge_check(a, b, expect=(row.tree_a, row.tree_b), limits=_limits(), tests=tests)
    if run.status == "moved":
        return {"status": Status.CANCELLED, "error": "a side moved on before the check ran"}
    if run.status == "conflict" or run.result is None:
        return {"status": Status.DONE, "outcome": MergeCheck.Outcome.CONFLICT, "base": run.base}
    found = [*run.result.problems, *(run.tests.problems if run.tests is not None else ())]
    problems = problems_json(found, limit=settings.OVERLAP_MERGE_CHECK_MAX_PROBLEMS)
    counts: dict[str, Any] = {**run.counts, "mergeOnly": len(found), "read": run.read_files}
    if run.tests is not None:
        counts["tests"] = run.tests.summary()
    return {
        "status": Status.DONE,
        "outcome": MergeCheck.Outcome.PROBLEMS if problems else MergeCheck.Outcome.CLEAN,
        "problems": problems,
        "counts": counts,
        "base": run.base or "",
        "merged": run.merged or "",
    }


def merge_check_run(*, check_id: int, now: datetime | None = None) -> MergeCheck | None:
    """Run one planned check if it is due; idempotent (claimed and stored by compare-and-swap)."""
    now = now or timezone.now()
    row = MergeCheck.objects.select_related("repository").filter(pk=check_id).first()
    if row is None or not _claim(row, now):
        return row
    try:
        fields = _check(row)
    except Exception as exc:  # any failure leaves a reason, never a row stuck running
        log.warning("merge check %s of %s failed", row.pk, row.repository.name, exc_info=True)
        fields = {"status": Status.FAILED, "error": trim(f"{type(exc).__name__}: {exc}", 1000)}
    if _finish(row, timezone.now(), **fields) and row.status == Status.DONE:
        scan_request(repository_id=row.repository_id)  # the channel reads the new result
    return row


@dataclass
class MergeInputs:
    """One scan's view of the checks: each current agent's tree and each checked pair."""

    trees: dict[str, str]
    rows: dict[tuple[str, str], MergeCheck] = field(default_factory=dict)
    tests_refused: str = ""  # why the repository's tests do not run here, when it asked for them

    def state(self, a: str, b: str) -> dict[str, Any]:
        """``checked`` (when, outcome, problems), ``checking`` or ``not checked``: never clear
        by default."""
        if a not in self.trees or b not in self.trees:
            return {"state": "not checked", "reason": "no worktree on this server"}
        row = self.rows.get(_ordered(self.trees, a, b)[:2])
        if row is None or row.status in (Status.FAILED, Status.CANCELLED):
            return {"state": "not checked"}
        if row.status in IN_FLIGHT:
            return {"state": "checking"}
        out = {
            "state": "checked",
            "checkedAt": row.checked_at.isoformat() if row.checked_at else None,
            "outcome": row.outcome,
            "problems": row.problems,
        }
        tests = (row.counts or {}).get("tests")
        if self.tests_refused:
            out["tests"] = {"state": "not run", "reason": self.tests_refused}
        elif tests is not None:  # a test run that timed out or failed says so: never clean
            out["tests"] = {
                k: tests[k] for k in ("state", "selected", "conflicts", "reason") if k in tests
            }
        return out

    def options(self) -> list[dict[str, Any]]:
        """The engine's ``options.mergeChecks``: pairs of current trees with merge-only problems."""
        by_tree: dict[str, list[str]] = {}
        for agent in sorted(self.trees):
            by_tree.setdefault(self.trees[agent], []).append(agent)
        out = []
        for (tree_a, tree_b), row in sorted(self.rows.items()):
            if row.status != Status.DONE or row.outcome != MergeCheck.Outcome.PROBLEMS:
                continue
            files = sorted({p["path"] for p in row.problems})
            for a in by_tree.get(tree_a, ()):
                out += [{"a": a, "b": b, "files": files} for b in by_tree.get(tree_b, ())]
        return out

    def digest_key(self) -> list[Any]:
        """What the scan's input hash must change with: every tree and every pair's state."""
        rows = sorted([k[0], k[1], r.status, r.outcome] for k, r in self.rows.items())
        return [sorted(self.trees.items()), rows]

    def annotate(self, result: dict[str, Any]) -> None:
        """Each advisory's and link's ``mergeCheck`` state (the board and API read it)."""
        for entry in (*result.get("advisories", ()), *result.get("links", ())):
            entry["mergeCheck"] = self.state(entry["a"], entry["b"])


def merge_check_inputs(repository: Repository) -> MergeInputs | None:
    """The checks of the repository's current trees, or ``None`` when it has not opted in."""
    if not repository.merge_checks or not repository.path:
        return None
    trees = current_trees(repository)
    rows = MergeCheck.objects.filter(
        repository=repository,
        version=check_version(repository),
        tree_a__in=list(trees.values()),
        tree_b__in=list(trees.values()),
    )
    refused = EMBEDDED if repository.merge_check_tests and not _tests_run(repository) else ""
    return MergeInputs(trees, {(r.tree_a, r.tree_b): r for r in rows}, refused)
