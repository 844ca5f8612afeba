"""Reads for the board: the 3D scene of one repository and the kanban's cards, per viewer.

Every read goes through ``repository_list`` / ``advisory_list`` / ``visible_overlap_advisories``,
which apply ``can_see``; nothing here decides visibility on its own.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Max, Q
from django.urls import reverse
from django.utils import timezone

from proximity.models import (
    Agent,
    Principal,
    ProximityAdvisory,
    ProximityScan,
    TriggerMessage,
    WorkingSetSnapshot,
)
from proximity.selectors.adjudications import principal_for_user
from proximity.selectors.advisories import (
    advisory_get,
    advisory_list,
    repository_get,
    repository_list,
)
from proximity.selectors.airspace import latest_scan
from proximity.selectors.board_records import (
    AgentPoint,
    Card,
    Coverage,
    FilePoint,
    LinkRecord,
    Scene,
    SharedFile,
)
from proximity.selectors.board_tasks import board_task_cards

__all__ = [
    "COLUMNS",
    "board_agent_ids",
    "board_card",
    "board_cards",
    "board_repositories",
    "board_scene",
    "board_task_cards",
    "display_band",
    "principal_for_user",
]

COLUMNS = ("traffic", "resolution", "acknowledged", "resolved")
EXCERPT_CHARS = 240


def board_repositories(principal: Principal | None) -> list[str]:
    return [r.name for r in repository_list(principal)]


def display_band(level: str, conflict: bool) -> str:
    if conflict:
        return "conflict"
    return {"advisory": "traffic", "traffic": "traffic", "resolution": "resolution"}.get(
        level, "clear"
    )


def _coverage(repo_id: int, scan: ProximityScan | None, now: datetime) -> Coverage:
    expired = Agent.objects.filter(repository_id=repo_id).exclude(snapshots__expires_at__gt=now)
    unknown = tuple(
        expired.filter(snapshots__isnull=False).distinct().values_list("agent_id", flat=True)
    )
    if scan is None:
        return Coverage(
            "unknown", "no completed scan yet: proximity is unknown, not clear", unknown
        )
    failed = (
        ProximityScan.objects.filter(repository_id=repo_id, status=ProximityScan.Status.FAILED)
        .filter(finished_at__gt=scan.finished_at)
        .first()
    )
    if failed is not None:
        return Coverage("degraded", f"the last scan failed ({failed.error[:120]})", unknown)
    # A scan that never caught up with the reports (failing, or not run) is not "ok" either.
    # Only snapshots the scan did not read count: a re-report of unchanged work (the watcher
    # every tick) refreshes a snapshot the scan already covers, and is no news (issue 27).
    newest = (
        WorkingSetSnapshot.objects.filter(agent__repository_id=repo_id, expires_at__gt=now)
        .exclude(pk__in=scan.snapshot_ids or [])
        .aggregate(at=Max("reported_at"))["at"]
    )
    behind = newest - scan.finished_at if newest and scan.finished_at else timedelta(0)
    if behind > timedelta(seconds=settings.OVERLAP_COVERAGE_STALE_SECONDS):
        message = f"the last scan is {int(behind.total_seconds())} s older than the newest report"
        return Coverage("degraded", message, unknown)
    if unknown:
        return Coverage("degraded", f"{len(unknown)} agent report(s) expired: unknown", unknown)
    return Coverage("ok")


def _pair_roles(repo_id: int) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    rows = ProximityAdvisory.objects.filter(
        repository_id=repo_id, state__in=("open", "acknowledged")
    ).values_list("agent_a__agent_id", "agent_b__agent_id", "steer__agent_id", "hold__agent_id")
    return {(a, b): (steer, hold) for a, b, steer, hold in rows}


def _links(result: dict[str, Any], roles: dict[tuple[str, str], Any]) -> list[LinkRecord]:
    out = []
    for link in result.get("links", []):
        a, b = sorted((link["a"], link["b"]))
        steer, hold = roles.get((a, b), (None, None))
        band = display_band(link["level"], bool(link.get("conflict")))
        out.append(
            LinkRecord(a, b, float(link["risk"]), band, link.get("channels", {}), steer, hold)
        )
    return out


def _agent_point(entry: dict[str, Any], label: str) -> AgentPoint:
    x, y, z = entry["position"][:3]
    return AgentPoint(entry["agentId"], label, x, y, z, entry["fileCount"])


def board_agent_ids(principal: Principal | None, repository: str) -> list[str]:
    repo = repository_get(principal, repository)
    rows = Agent.objects.filter(repository=repo) if repo else Agent.objects.none()
    return list(rows.order_by("agent_id").values_list("agent_id", flat=True))


def board_scene(
    principal: Principal | None,
    repository: str,
    *,
    since: datetime | None = None,
    files_of: str | None = None,
) -> Scene | None:
    """The latest scan of a visible repository as plain records; ``None`` when not visible.

    ``agent_files`` is filled for ``files_of`` only (the clicked agent): reading every snapshot's
    file list on each refresh would cost more than the whole scene.
    """
    repo = repository_get(principal, repository)
    if repo is None:
        return None
    now = timezone.now()
    scan = latest_scan(repo)
    result = scan.result if scan else {}
    labels = dict(Agent.objects.filter(repository=repo).values_list("agent_id", "label"))
    recent = None
    if since is not None:
        recent = set(
            Agent.objects.filter(repository=repo, last_report_at__gte=since).values_list(
                "agent_id", flat=True
            )
        )
    agents = [
        _agent_point(p, labels.get(p["agentId"], ""))
        for p in result.get("positions", [])
        if (recent is None or p["agentId"] in recent) and p["agentId"] != repo.base_branch
    ]  # the base branch's worktree is the mainline, never an agent (a scan from before this)
    files = [FilePoint(path, *xyz[:3]) for path, xyz in result.get("fileCoordinates", {}).items()]
    snaps = WorkingSetSnapshot.objects.filter(
        pk__in=scan.snapshot_ids if scan and files_of else [], agent__agent_id=files_of
    )
    agent_files = {
        agent_id: [f["path"] for f in entries]
        for agent_id, entries in snaps.values_list("agent__agent_id", "files")
    }
    return Scene(
        repository=repo.name,
        agents=agents,
        files=files,
        links=_links(result, _pair_roles(repo.pk)),
        agent_files=agent_files,
        coverage=_coverage(repo.pk, scan, now),
        generated_at=result.get("generatedAt", ""),
    )


def _column(a: ProximityAdvisory) -> str:
    if a.state == ProximityAdvisory.State.OPEN:
        return str(ProximityAdvisory.Band(a.band))  # the column is named for the band
    return a.state


def _shared(detail: dict[str, Any]) -> list[SharedFile]:
    return [
        SharedFile(
            f["path"],
            f["a"].get("lines", []),
            f["b"].get("lines", []),
            (f["a"].get("excerpt") or "")[:EXCERPT_CHARS],
            (f["b"].get("excerpt") or "")[:EXCERPT_CHARS],
        )
        for f in detail.get("sharedFiles", [])[:5]
    ]


def _told(advisory_ids: list[int]) -> dict[int, dict[str, str]]:
    told: dict[int, dict[str, str]] = {}
    rows = TriggerMessage.objects.filter(advisory_id__in=advisory_ids).order_by("created_at", "pk")
    for adv, to, content in rows.values_list("advisory_id", "to_agent__agent_id", "content"):
        told.setdefault(adv, {})[to] = content  # the latest message per recipient wins
    return told


def _intent(entries: list[Any] | None) -> list[str]:
    return [str(i.get("path", i)) if isinstance(i, dict) else str(i) for i in entries or []]


def _card(a: ProximityAdvisory, told: dict[str, str]) -> Card:
    detail = a.detail or {}
    return Card(
        id=a.pk,
        column=_column(a),
        band=display_band(a.band, a.conflict),
        agent_a=a.agent_a.agent_id,
        agent_b=a.agent_b.agent_id,
        task_a=a.agent_a.label,
        task_b=a.agent_b.label,
        intent_a=_intent(detail.get("intentA")),
        intent_b=_intent(detail.get("intentB")),
        files=_shared(detail),
        channels=a.channels,
        risk=a.risk,
        trend=a.trend,
        state=a.state,
        hold=a.hold.agent_id if a.hold else None,
        steer=a.steer.agent_id if a.steer else None,
        told=told,
        open_url=reverse("admin:proximity_proximityadvisory_pair", args=[a.pk]),
        symbols=[str(s.get("text", "")) for s in detail.get("symbols") or [] if s.get("text")],
        merge_check=dict(detail.get("mergeCheck") or {}),
    )


def board_cards(
    principal: Principal | None,
    *,
    repository: str | None = None,
    bands: tuple[str, ...] | list[str] | None = None,
    agent: str | None = None,
    since: datetime | None = None,
    limit: int = 30,
) -> dict[str, tuple[int, list[Card]]]:
    """Cards per column, each column capped at ``limit``, with the column's full count."""
    rows = advisory_list(principal, repository=repository, agent=agent, since=since)
    rows = rows.filter(state__in=["open", "acknowledged", "resolved"])
    out: dict[str, tuple[int, list[Card]]] = {}
    for column in COLUMNS:
        if column in ("traffic", "resolution"):
            sel = rows.filter(state="open", band=column)
        else:
            sel = rows.filter(state=column)
        if bands is not None:
            keep = Q(conflict=True) if "conflict" in bands else Q(pk__in=[])
            plain = [b for b in ("traffic", "resolution") if b in bands]
            sel = sel.filter(keep | Q(conflict=False, band__in=plain))
        page = list(sel[:limit])
        told = _told([a.pk for a in page])
        out[column] = (sel.count(), [_card(a, told.get(a.pk, {})) for a in page])
    return out


def board_card(principal: Principal | None, advisory_id: int) -> Card | None:
    """One visible advisory as its card (the pair page's content); ``None`` when not visible."""
    advisory = advisory_get(principal, advisory_id)
    if advisory is None:
        return None
    return _card(advisory, _told([advisory.pk]).get(advisory.pk, {}))
