"""One replayed encounter on the board: a denial of the history replay, as the agents stood.

``manage.py replay_history`` stores, with every denial it met in session mode, the engine
entries of the asking agent (its work with the edit it was about to make) and of the agents the
denial named (docs/EVALUATION.md, "Measured benefit"). Loading one reports those working sets
into a repository of their own through the same service the API uses, so the scan, the
advisory with its right of way, the kanban card and the 3D board are the product's own, not a
drawing of the replay. Times keep their distances: every stamp is moved by the time between the
denial and now, so the encounter looks as live as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from proximity.exceptions import InvalidInputError, NotFoundError
from proximity.models import Repository
from proximity.services.working_sets import WorkingSetReport, working_set_report

__all__ = ["DEMO_ENCOUNTER", "demo_encounter_seed", "read_replay_events", "replay_encounter_load"]

# One denial of a replay of tornadoweb/tornado (2017): both branches inserted after line 2 of
# websocket_test.py, which git conflicts on (paths and line numbers only; no code).
DEMO_ENCOUNTER = Path(__file__).resolve().parent.parent / "fixtures" / "replay_encounter.jsonl"
DEMO_ENCOUNTER_REPOSITORY = "replay-tornado"


def read_replay_events(path: Path) -> list[dict[str, Any]]:
    """The events of one ``events-<policy>.jsonl``; a malformed line is an error naming it."""
    out = []
    with path.open(encoding="utf-8") as handle:
        for n, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise InvalidInputError(f"events: line {n} is not JSON ({exc})") from None
            if not isinstance(row, dict):
                raise InvalidInputError(f"events: line {n} is not an object")
            out.append(row)
    return out


def _pick(events: Iterable[Mapping[str, Any]], seq: int | None) -> Mapping[str, Any]:
    denials = [e for e in events if e.get("kind") == "deny" and e.get("encounter")]
    if seq is not None:
        denials = [e for e in denials if e.get("seq") == seq]
        if not denials:
            raise NotFoundError(f"seq: no denial {seq} with its encounter in these events")
    if not denials:
        raise NotFoundError("events: no denial with its encounter (replay in session mode)")
    return denials[0]


def _shifted(stamp: Any, delta: timedelta) -> str | None:
    if not isinstance(stamp, str):
        return None
    try:
        return (datetime.fromisoformat(stamp.replace("Z", "+00:00")) + delta).isoformat()
    except ValueError:
        raise InvalidInputError(f"encounter: time {stamp!r} is not ISO 8601") from None


def _files(entry: Mapping[str, Any], delta: timedelta) -> list[dict[str, Any]]:
    out = []
    for f in entry.get("files") or ():
        item = {k: v for k, v in dict(f).items() if k != "touchedAt"}
        touched = _shifted(f.get("touchedAt"), delta)
        if touched is not None:
            item["touchedAt"] = touched
        out.append(item)
    return out


def replay_encounter_load(
    events: Iterable[Mapping[str, Any]],
    *,
    repository: str,
    scope: str,
    seq: int | None = None,
    source: str = "",
    now: datetime | None = None,
) -> tuple[Repository, Mapping[str, Any]]:
    """Report the agents of one stored denial into ``repository``; returns it and the denial.

    The repository is created (not watched: its agents are reported, never read from disk) or
    reused; agents it already has are left alone, the encounter's agents get new snapshots.
    """
    denial = _pick(events, seq)
    encounter = denial["encounter"]
    stamped = _shifted(encounter.get("stampedAt"), timedelta(0))
    now = now or timezone.now()
    delta = now - datetime.fromisoformat(stamped) if stamped else timedelta(0)
    agents = [a for a in encounter.get("agents") or () if isinstance(a, Mapping)]
    if len(agents) < 2:
        raise InvalidInputError("encounter: fewer than two agents stored with the denial")
    with transaction.atomic():
        repo, _ = Repository.objects.get_or_create(
            name=repository, defaults={"scope": scope, "watch": False, "path": ""}
        )
        for agent in agents:
            when = agent.get("startedAt")
            started = _shifted(when, delta)
            tag = f"replayed, {source}" if source else "replayed"
            label = f"{agent.get('label') or agent['agentId']} ({tag})"
            working_set_report(
                principal=None,
                report=WorkingSetReport(
                    repository=repo.name,
                    agent_id=str(agent["agentId"]),
                    files=_files(agent, delta),
                    intent=[],
                    label=label[:200],
                    started_at=datetime.fromisoformat(started) if started else None,
                    published=agent.get("published") is True,
                ),
                now=now,
            )
    return repo, denial


def demo_encounter_seed(
    *, scope: str, now: datetime | None = None
) -> tuple[Repository, Mapping[str, Any]]:
    """The demo's replayed encounter, reported and scanned once, synchronously."""
    from proximity.services.scans import scan_run

    now = now or timezone.now()
    events = read_replay_events(DEMO_ENCOUNTER)
    source = str(events[0].get("source") or "") if events else ""
    repo, denial = replay_encounter_load(
        events,
        repository=DEMO_ENCOUNTER_REPOSITORY,
        scope=scope,
        source=f"{source} {str(denial_at(events))[:10]}".strip(),
        now=now,
    )
    scan_run(repository_id=repo.pk, now=now)
    return repo, denial


def denial_at(events: Iterable[Mapping[str, Any]]) -> str:
    """The historical time of the first denial ("" when there is none)."""
    return next((str(e.get("at") or "") for e in events if e.get("kind") == "deny"), "")
