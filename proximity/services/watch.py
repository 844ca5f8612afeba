"""Watched repositories: read every worktree, store working sets, graph and conflicts, rescan."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from proximity.models import DependencyGraphSnapshot, Principal, Repository, WorkingSetSnapshot
from proximity.selectors.access import watcher_name
from proximity.selectors.airspace import current_snapshots
from proximity.services.parse_cache import DjangoParseCache
from proximity.services.scan_requests import scan_request
from proximity.services.working_sets import (
    WorkingSetReport,
    working_set_leave,
    working_set_report,
)
from proximity.sources.diff_excerpts import with_report_excerpts
from proximity.sources.git import GitError
from proximity.sources.git.airspace import RepoAirspace, read_repository_airspace
from proximity.sources.radar_files import repository_ignore_globs

__all__ = ["WatchOutcome", "repository_watch_tick"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WatchOutcome:
    agents: int
    edges: int
    conflicts: int
    problems: tuple[str, ...]


def _store_graph(repo: Repository, airspace: RepoAirspace) -> int:
    if airspace.graph is None:
        return 0
    adjacency = airspace.graph.to_json()["adjacency"]
    digest = hashlib.sha256(json.dumps(adjacency, sort_keys=True).encode()).hexdigest()
    edges = sum(len(v) for v in adjacency.values())
    DependencyGraphSnapshot.objects.get_or_create(
        repository=repo,
        content_hash=digest,
        defaults={"adjacency": adjacency, "file_count": len(adjacency), "edge_count": edges},
    )
    return edges


def _watcher(repo: Repository) -> Principal:
    principal, _ = Principal.objects.get_or_create(
        name=watcher_name(repo.name),
        defaults={
            "kind": Principal.Kind.SERVICE,
            "scopes": [repo.scope],
            "clearances": [],
            "creates_agents": True,  # the watcher names the agents it finds
        },
    )
    return principal


def _report_all(repo: Repository, airspace: RepoAirspace, now: datetime) -> int:
    # The base branch's own worktree (the main checkout) is the mainline, not an agent.
    readable = [
        ws
        for ws in airspace.working_sets
        if ws.merge_base is not None and ws.branch != repo.base_branch
    ]
    for ws in readable:
        agent = ws.to_agent_json()
        # The excerpts `radar report` sends, so a worktree both watched and reporting through
        # its hooks stores the same content from either source (no new version per tick).
        untracked = [f.path for f in ws.files if f.untracked]
        files = with_report_excerpts(agent["files"], ws.path, ws.merge_base, untracked=untracked)
        report = WorkingSetReport(
            repo.name,
            ws.agent_id,
            files,
            [],
            label=agent["label"],
            started_at=ws.started_at,
            published=ws.published,
        )
        # principal=None: the watcher is a trusted internal reader of a configured repository;
        # the agents it finds are held by the repository's watcher principal, not left open.
        working_set_report(
            principal=None,
            report=report,
            source=WorkingSetSnapshot.Source.WATCH,
            now=now,
            owner=_watcher(repo),
        )
    return len(readable)


def _retire_gone(repo: Repository, airspace: RepoAirspace, now: datetime) -> int:
    """Retire the working sets the watcher read from worktrees that are gone since.

    A worktree removed (``git worktree remove``, its folder deleted) holds nothing from this
    tick on, as the local hook already reads it; before, its lines held until the TTL. Only
    snapshots the watcher itself stored: an agent that last reported through the API works on
    another machine, which this repository's worktree list does not show.
    """
    present = {ws.agent_id for ws in airspace.working_sets if Path(ws.path).is_dir()}
    gone = [
        s.agent.agent_id
        for s in current_snapshots(repo, now)
        if s.source == WorkingSetSnapshot.Source.WATCH and s.agent.agent_id not in present
    ]
    for agent_id in gone:
        working_set_leave(principal=None, repository=repo.name, agent_id=agent_id, now=now)
    return len(gone)


def watch_claim(*, repository_id: int, now: datetime) -> bool:
    """Claim the repository's next watch tick; False while another is queued or running.

    A conditional update, so two beats (or two beat processes by mistake) cannot both enqueue;
    a claim older than the broker's visibility timeout is a dead worker's and is taken over.
    """
    stale = now - timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    free = Q(watch_claimed_at__isnull=True) | Q(watch_claimed_at__lt=stale)
    return bool(Repository.objects.filter(free, pk=repository_id).update(watch_claimed_at=now))


def watch_release(*, repository_id: int) -> None:
    Repository.objects.filter(pk=repository_id).update(watch_claimed_at=None)


def repository_watch_tick(*, repository_id: int, now: datetime | None = None) -> WatchOutcome:
    """Read the repository's worktrees now; idempotent (unchanged worktrees store nothing new)."""
    now = now or timezone.now()
    repo = Repository.objects.filter(pk=repository_id).first()
    if repo is None or repo.archived_at is not None:  # removed after this tick was queued
        return WatchOutcome(0, 0, 0, ("repository removed",))
    try:
        airspace = read_repository_airspace(
            repo.path,
            base=repo.base_branch,
            cache=DjangoParseCache(),
            ignore=repository_ignore_globs(repo.path, base=repo.base_branch),
        )
    except GitError as exc:
        log.warning("watch of %s failed: %s", repo.name, exc)
        return WatchOutcome(0, 0, 0, (str(exc),))
    edges = _store_graph(repo, airspace)
    conflicts = airspace.dry_run.to_options() if airspace.dry_run is not None else []
    if conflicts != repo.watch_conflicts:
        repo.watch_conflicts = conflicts
        repo.save(update_fields=["watch_conflicts"])
    agents = _report_all(repo, airspace, now)
    _retire_gone(repo, airspace, now)
    Repository.objects.filter(pk=repo.pk).update(watched_at=now)
    scan_request(repository_id=repo.pk, now=now)
    for problem in airspace.problems:
        log.warning("watch of %s: %s", repo.name, problem)
    # Files too large (or too costly) to parse: their coupling is unknown, and said so.
    unknown = tuple(w for w in airspace.warnings if "coupling is unknown" in w)
    for warning in unknown:
        log.info("watch of %s: %s", repo.name, warning)
    return WatchOutcome(agents, edges, len(conflicts), airspace.problems + unknown)
