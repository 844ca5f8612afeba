"""Run the airspace engine over a repository's current snapshots and store what it found."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from proximity.engine.airspace import SCORER_VERSION, AirspaceInputError, scan
from proximity.models import ProximityScan, Repository, RiskSample
from proximity.selectors.airspace import AirspaceInputs, airspace_inputs, pair_key
from proximity.services.advisories import advisories_apply_scan
from proximity.services.claims import claim_row
from proximity.services.scan_requests import scan_enqueue

__all__ = ["scan_run"]

log = logging.getLogger(__name__)


def _scan_row(repo: Repository, inputs: AirspaceInputs, now: datetime) -> ProximityScan:
    row, _ = ProximityScan.objects.get_or_create(
        repository=repo,
        input_hash=inputs.input_hash,
        profile=repo.profile,
        scorer_version=SCORER_VERSION,
        defaults={
            "requested_at": now,
            "graph": inputs.graph,
            "snapshot_ids": [s.pk for s in inputs.snapshots],
        },
    )
    return row


def _finish_request(repo: Repository, requested_at: datetime | None) -> None:
    # Clear the request only if no newer report arrived while this scan ran.
    cleared = Repository.objects.filter(pk=repo.pk, scan_requested_at=requested_at).update(
        scan_requested_at=None
    )
    if not cleared and requested_at is not None:
        transaction.on_commit(lambda: scan_enqueue(repository_id=repo.pk))


def _store(
    row: ProximityScan, result: dict[str, Any], inputs: AirspaceInputs, now: datetime
) -> None:
    # NO KEY: rows inserted by reports that reference the repository must not wait on this lock.
    Repository.objects.select_for_update(no_key=True).filter(pk=row.repository_id).first()
    advisories_apply_scan(scan=row, result=result, snapshots=inputs.snapshots, now=now)
    RiskSample.objects.bulk_create(
        [
            RiskSample(
                repository_id=row.repository_id,
                pair_key=pair_key(link["a"], link["b"]),
                scan=row,
                risk=link["risk"],
                at=now,
            )
            for link in result["links"]
        ],
        ignore_conflicts=True,
    )
    row.result = {k: result[k] for k in ("positions", "fileCoordinates", "links", "counts")}
    row.result["generatedAt"] = result["generatedAt"]
    row.agent_count = result["counts"]["agents"]
    row.advisory_count = result["counts"]["advisories"]
    row.status, row.finished_at = ProximityScan.Status.DONE, now
    row.save(update_fields=["result", "agent_count", "advisory_count", "status", "finished_at"])


def scan_run(
    *,
    repository_id: int,
    now: datetime | None = None,
    conflicts: list[dict[str, Any]] | None = None,
) -> ProximityScan | None:
    """Scan if a scan was requested; idempotent on (repository, inputs, profile, scorer)."""
    now = now or timezone.now()
    repo = Repository.objects.filter(pk=repository_id).first()
    if repo is None:
        return None
    requested_at = repo.scan_requested_at
    inputs = airspace_inputs(repo, now=now, conflicts=conflicts)
    row = _scan_row(repo, inputs, now)
    if row.status == ProximityScan.Status.DONE:
        with transaction.atomic():
            _finish_request(repo, requested_at)
        return row
    if not claim_row(ProximityScan, row.pk, now):
        return None
    try:
        result = scan(inputs.airspace, profile=repo.profile)
    except AirspaceInputError as exc:
        log.error("scan of %s rejected its input: %s", repo.name, exc)
        ProximityScan.objects.filter(pk=row.pk).update(
            status=ProximityScan.Status.FAILED, error=str(exc), finished_at=now
        )
        return row
    with transaction.atomic():
        _store(row, result, inputs, now)
        _finish_request(repo, requested_at)
    return row
