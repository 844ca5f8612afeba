"""Accept an agent's working set and intent, store it as a new snapshot, request a scan."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from proximity.engine.airspace import AirspaceInputError, parse_airspace
from proximity.exceptions import InvalidInputError, NotFoundError
from proximity.models import Agent, Principal, Repository, WorkingSetSnapshot
from proximity.selectors.access import can_see
from proximity.services.agent_identity import reporting_agent
from proximity.services.agent_starts import agent_start_of
from proximity.services.repositories import repository_writable
from proximity.services.scan_requests import scan_request
from proximity.services.time_bounds import within_window
from proximity.sources.radar_files import without_radar_files

__all__ = ["WorkingSetReport", "working_set_leave", "working_set_report"]

MAX_FILES = 5000
MAX_LINE = 10_000_000


@dataclass(frozen=True)
class WorkingSetReport:
    repository: str
    agent_id: str
    files: list[dict[str, Any]]
    intent: list[Any]
    label: str = ""
    started_at: datetime | None = None
    asked_at: datetime | None = None
    published: bool = False


def _validate(report: WorkingSetReport) -> None:
    if len(report.files) > MAX_FILES:
        raise InvalidInputError(f"at most {MAX_FILES} files per report", field="files")
    seen: set[str] = set()
    for n, entry in enumerate(report.files):
        path = str(entry.get("path"))
        if path in seen:
            raise InvalidInputError(f"duplicate file {path!r}", field=f"files[{n}].path")
        seen.add(path)
        for key in ("lines", "baseHunks"):
            for k, pair in enumerate(entry.get(key) or []):
                if any(isinstance(v, int) and v > MAX_LINE for v in pair):
                    raise InvalidInputError(
                        f"line beyond {MAX_LINE}", field=f"files[{n}].{key}[{k}]"
                    )
    agent = {"agentId": report.agent_id, "files": report.files, "intent": report.intent}
    try:
        parse_airspace({"agents": [agent]})
    except AirspaceInputError as exc:
        field = exc.field.removeprefix("agents[0].")
        raise InvalidInputError(str(exc).split(": ", 1)[-1], field=field) from None


def _asked(stored: datetime | None, reported: datetime | None, now: datetime) -> datetime | None:
    """The later of the stored and the reported denied edit, never after ``now``: a report
    cannot keep its agent from parking beyond a week after the report itself."""
    seen = [t for t in (stored, within_window(reported, now=now)) if t is not None]
    return min(max(seen), now) if seen else None


def _content_hash(report: WorkingSetReport) -> str:
    canonical = json.dumps([report.files, report.intent], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _writable_repository(principal: Principal | None, name: str) -> Repository:
    """The repository an agent writes to: missing and out of scope alike are 404, removed 409."""
    repo = Repository.objects.filter(name=name).first()
    # principal None is the trusted internal watcher; every API caller has a principal.
    visible = repo is not None and (
        principal is None or can_see(principal, repo.scope, repo.disclosure)
    )
    if repo is None or not visible:
        raise NotFoundError("repository")
    repository_writable(repo)
    return repo


def _agent_for(
    principal: Principal | None, report: WorkingSetReport, owner: Principal | None
) -> Agent:
    repo = _writable_repository(principal, report.repository)
    return reporting_agent(
        principal=principal, repository=repo, agent_id=report.agent_id, owner=owner
    )


def working_set_report(
    *,
    principal: Principal | None,
    report: WorkingSetReport,
    source: str = WorkingSetSnapshot.Source.API,
    now: datetime | None = None,
    owner: Principal | None = None,
) -> WorkingSetSnapshot:
    """Store a new snapshot unless the content is unchanged; request a scan when it changed.

    ``principal`` None is the trusted internal watcher; ``owner`` is who an agent it creates is
    bound to (the repository's watcher principal), so no API caller can report under its id.
    """
    _validate(report)
    # Radar's own files (hook settings, backups) from any reporter, an older one included.
    report = replace(report, files=without_radar_files(report.files))
    now = now or timezone.now()
    expires = now + timedelta(seconds=settings.OVERLAP_WORKING_SET_TTL_SECONDS)
    digest = _content_hash(report)
    with transaction.atomic():
        agent = _agent_for(principal, report, owner)
        agent.label = report.label or agent.label or report.agent_id
        started = agent_start_of(
            repository=agent.repository,
            agent=agent,
            read_from_git=report.started_at,
            trusted=principal is None,
            now=now,
        )
        # A start outside the window (a reader's odd commit date) is ignored, so no report can
        # store a time the database cannot read back.
        agent.started_at = (
            within_window(started, now=now) or within_window(agent.started_at, now=now) or now
        )
        before, agent.asked_at = agent.asked_at, _asked(agent.asked_at, report.asked_at, now)
        published_before, agent.published = agent.published, report.published
        agent.last_report_at = now
        agent.save(update_fields=["label", "started_at", "asked_at", "published", "last_report_at"])
        latest = agent.snapshots.order_by("-version").first()
        if latest is not None and latest.content_hash == digest and latest.expires_at > now:
            latest.reported_at, latest.expires_at = now, expires
            latest.save(update_fields=["reported_at", "expires_at"])
            if agent.asked_at != before or agent.published != published_before:
                scan_request(repository_id=agent.repository_id, now=now)
            return latest
        snapshot = WorkingSetSnapshot.objects.create(
            agent=agent,
            version=(latest.version + 1) if latest else 1,
            files=report.files,
            intent=report.intent,
            content_hash=digest,
            source=source,
            reported_at=now,
            expires_at=expires,
        )
        scan_request(repository_id=agent.repository_id, now=now)
    return snapshot


def working_set_leave(
    *,
    principal: Principal | None,
    repository: str,
    agent_id: str,
    now: datetime | None = None,
) -> bool:
    """Retire the agent's current working set now, not at its TTL; whether it held one.

    An agent whose worktree is gone (its branch merged or abandoned, the worktree removed) holds
    nothing: until now a server kept its lines for the TTL (an hour by default), denying the
    others edits of work that no longer exists. Only the agent's own principal may retire it
    (``None``, the trusted watcher, retires the agents it reads); another principal's agent and
    an unknown one answer 404 alike. Idempotent: a second leave retires nothing and says so.
    Nothing is deleted: the versions stay for the trail, and the next report starts a new one.
    """
    now = now or timezone.now()
    with transaction.atomic():
        repo = _writable_repository(principal, repository)
        rows = Agent.objects.select_for_update(no_key=True)
        agent = rows.filter(repository=repo, agent_id=agent_id).first()
        if agent is None or (principal is not None and agent.principal_id != principal.pk):
            raise NotFoundError("agent")
        retired = WorkingSetSnapshot.objects.filter(agent=agent, expires_at__gt=now).update(
            expires_at=now
        )
        if retired:
            scan_request(repository_id=repo.pk, now=now)
    return bool(retired)
