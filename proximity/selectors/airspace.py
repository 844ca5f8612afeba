"""Reads that assemble an engine airspace from stored snapshots, and read the latest scan."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import OuterRef, Subquery

from proximity.models import (
    DependencyGraphSnapshot,
    ProximityScan,
    Repository,
    RiskSample,
    WorkingSetSnapshot,
)

__all__ = ["AirspaceInputs", "airspace_inputs", "latest_scan", "pair_key"]

HISTORY_WINDOW = timedelta(minutes=15)
_ENGINE_FILE_KEYS = (
    "path",
    "lines",
    "baseHunks",
    "hunkIds",
    "status",
    "oldPath",
    "weight",
    "touchedAt",
)


def pair_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


@dataclass(frozen=True)
class AirspaceInputs:
    """Everything one scan reads, and the digest that makes the scan idempotent."""

    airspace: dict[str, Any]
    snapshots: list[WorkingSetSnapshot]
    graph: DependencyGraphSnapshot | None
    input_hash: str
    conflicts: list[dict[str, Any]] = field(default_factory=list)


def current_snapshots(repository: Repository, now: datetime) -> list[WorkingSetSnapshot]:
    latest = (
        WorkingSetSnapshot.objects.filter(agent=OuterRef("agent"))
        .order_by("-version")
        .values("pk")[:1]
    )
    return list(
        WorkingSetSnapshot.objects.filter(agent__repository=repository, expires_at__gt=now)
        .filter(pk=Subquery(latest))
        .select_related("agent")
        .order_by("agent__agent_id")
    )


def _history(repository: Repository, now: datetime) -> dict[str, list[list[Any]]]:
    rows = RiskSample.objects.filter(repository=repository, at__gte=now - HISTORY_WINDOW)
    out: dict[str, list[list[Any]]] = {}
    for key, risk, at in rows.values_list("pair_key", "risk", "at").order_by("at"):
        out.setdefault(key, []).append([at.isoformat(), risk])
    return out


def _agent_json(snapshot: WorkingSetSnapshot) -> dict[str, Any]:
    agent = snapshot.agent
    files = [{k: f[k] for k in _ENGINE_FILE_KEYS if k in f} for f in snapshot.files]
    entry: dict[str, Any] = {"agentId": agent.agent_id, "label": agent.label, "files": files}
    if agent.started_at:
        entry["startedAt"] = agent.started_at.isoformat()
    if agent.asked_at:
        entry["askedAt"] = agent.asked_at.isoformat()
    if agent.published:
        entry["published"] = True
    if snapshot.intent:
        entry["intent"] = snapshot.intent
    return entry


def airspace_inputs(
    repository: Repository, *, now: datetime, conflicts: list[dict[str, Any]] | None = None
) -> AirspaceInputs:
    snapshots = current_snapshots(repository, now)
    graph = repository.graphs.order_by("-created_at").first()
    conflicts = conflicts or (list(repository.watch_conflicts) if repository.watch else [])
    # The time bucket: recency decay, intent expiry and the closure trend change with time
    # alone, so the same snapshots in a later bucket are new inputs (re-scored by the sweep).
    bucket = int(now.timestamp()) // settings.OVERLAP_SCAN_RESCORE_SECONDS
    key: list[Any] = [[s.pk for s in snapshots], graph.content_hash if graph else None,
                      conflicts, bucket]  # fmt: skip
    asked = [[s.pk, s.agent.asked_at.isoformat()] for s in snapshots if s.agent.asked_at]
    if asked:  # a denied edit moves right of way without a new snapshot
        key.append(asked)
    published = [s.pk for s in snapshots if s.agent.published]
    if published:  # so does work handed in for review (it stops parking)
        key.append(["published", published])
    if repository.parked_hours is not None:  # so does the repository's parked time
        key.append(["parkedHours", repository.parked_hours])
    digest = hashlib.sha256(json.dumps(key, separators=(",", ":")).encode()).hexdigest()
    options: dict[str, Any] = {"now": now.isoformat(), "history": _history(repository, now)}
    if conflicts:
        options["conflicts"] = conflicts
    if repository.parked_hours is not None:
        options["parkedAfterHours"] = repository.parked_hours
    airspace = {
        "agents": [_agent_json(s) for s in snapshots],
        "graph": {"adjacency": graph.adjacency if graph else {}},
        "options": options,
    }
    return AirspaceInputs(airspace, snapshots, graph, digest, conflicts)


def latest_scan(repository: Repository) -> ProximityScan | None:
    """The scan last applied: applied input orders only grow, so the highest one is the latest."""
    return (
        repository.scans.filter(status=ProximityScan.Status.DONE)
        .order_by("-input_order", "-finished_at", "-pk")
        .first()
    )
