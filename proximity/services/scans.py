"""Run the airspace engine over a repository's current snapshots and store what it found.

Ordering: every read of a scan's inputs takes the next ``Repository.scan_input_order`` in the
same transaction, under the repository row's lock, so a read with a higher order started after
every lower one committed and saw at least what they saw. A result is applied under that lock
only if its order is not below ``Repository.applied_input_order``: a slow scan of older inputs
is stored as ``superseded`` and never overwrites a newer result.

Failure: any exception in the engine or the store marks the scan ``failed`` with its reason.
It is retried (a later claim of the same row) at most ``OVERLAP_SCAN_MAX_ATTEMPTS`` times in
all, with doubling backoff; then the request is dropped and the board reads the failure as
degraded coverage.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from proximity.engine.airspace import PROFILES, SCORER_VERSION, AirspaceInputError, scan
from proximity.models import ProximityScan, Repository, RiskSample
from proximity.selectors.airspace import AirspaceInputs, airspace_inputs, pair_key
from proximity.services.advisories import advisories_apply_scan
from proximity.services.scan_requests import scan_enqueue

if TYPE_CHECKING:
    from proximity.engine.symbols import SymbolData
    from proximity.services.merge_checks import MergeInputs

__all__ = ["scan_retry_backoff", "scan_run"]

log = logging.getLogger(__name__)

Status = ProximityScan.Status
FINISHED = (Status.DONE, Status.SUPERSEDED)


def scan_retry_backoff(attempts: int) -> timedelta:
    """Wait after the ``attempts``-th failed try: the base, doubling each time."""
    base = settings.OVERLAP_SCAN_RETRY_BACKOFF_SECONDS
    return timedelta(seconds=base * 2 ** max(attempts - 1, 0))


def _read_inputs(
    repository_id: int, now: datetime, conflicts: list[dict[str, Any]] | None
) -> tuple[Repository, AirspaceInputs] | None:
    # The UPDATE locks the row until commit: reads of inputs are serialised per repository, so
    # input orders follow the order of the reads (see the module docstring).
    with transaction.atomic():
        rows = Repository.objects.filter(pk=repository_id)
        if not rows.update(scan_input_order=F("scan_input_order") + 1):
            return None
        repo = rows.get()
        return repo, airspace_inputs(repo, now=now, conflicts=conflicts)


def _symbol_inputs(
    repo: Repository, inputs: AirspaceInputs
) -> tuple[AirspaceInputs, SymbolData | None]:
    """The agents' changes in symbols, for a profile with the ``symbol`` channel.

    Read from the repository's worktrees on this machine (outside the row lock: it is git and
    file I/O), so only agents with a worktree here are seen; the others are reported unknown
    by the engine, never clear. Any failure leaves the textual channels to run alone. The
    symbol input's digest joins the input hash, so a scan is keyed by what it scored.
    """
    profile = PROFILES.get(repo.profile)
    if profile is None or "symbol" not in profile.channels or not repo.path:
        return inputs, None  # an unknown profile fails in the engine, with its reason
    from proximity.sources.symbols import read_symbol_data

    agents = [s.agent.agent_id for s in inputs.snapshots]
    try:
        read = read_symbol_data(repo.path, base=repo.base_branch, agents=agents)
    except Exception:  # an unreadable repository must not stop the textual scan
        log.warning("symbols of %s not read", repo.name, exc_info=True)
        return inputs, None
    for problem in read.problems:
        log.info("symbols of %s: %s", repo.name, problem)
    digest = hashlib.sha256(f"{inputs.input_hash}:{read.digest()}".encode()).hexdigest()
    return replace(inputs, input_hash=digest), read.data


def _merge_inputs(
    repo: Repository, inputs: AirspaceInputs
) -> tuple[AirspaceInputs, MergeInputs | None]:
    """The merge checks of the agents' current trees (opted-in repositories only).

    Read outside the row lock (git I/O, like the symbols); the states join the input hash, so
    a check finishing makes the next scan a new one. Any failure leaves the pairs "not
    checked", never clear.
    """
    if not repo.merge_checks:
        return inputs, None
    from proximity.services.merge_checks import merge_check_inputs

    try:
        merge = merge_check_inputs(repo)
    except Exception:  # an unreadable worktree must not stop the scan
        log.warning("merge checks of %s not read", repo.name, exc_info=True)
        return inputs, None
    if merge is None:
        return inputs, None
    options = {**inputs.airspace["options"], "mergeChecks": merge.options()}
    key = json.dumps([inputs.input_hash, merge.digest_key()], separators=(",", ":"))
    airspace = {**inputs.airspace, "options": options}
    digest = hashlib.sha256(key.encode()).hexdigest()
    return replace(inputs, airspace=airspace, input_hash=digest), merge


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
            "input_order": repo.scan_input_order,
        },
    )
    return row


def _claim(row: ProximityScan, now: datetime) -> bool:
    """Move the row to ``running`` by conditional update; True only for the caller that did."""
    rows = ProximityScan.objects.filter(pk=row.pk)
    if row.status in FINISHED:  # finished, but not the result applied now: run it again
        return bool(rows.filter(status__in=FINISHED).update(status=Status.RUNNING, started_at=now))
    if row.attempts >= settings.OVERLAP_SCAN_MAX_ATTEMPTS:
        return False
    # A running row older than the visibility timeout belongs to a dead worker (its task is
    # being redelivered); a failed one may run again once its backoff has passed. Matching on
    # ``attempts`` too makes this a compare-and-swap on the count the backoff was taken from.
    stale = now - timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    due = Q(status=Status.PENDING) | Q(status=Status.RUNNING, started_at__lt=stale)
    due |= Q(status=Status.FAILED, finished_at__lte=now - scan_retry_backoff(row.attempts))
    claimed = rows.filter(due, attempts=row.attempts).update(
        status=Status.RUNNING, started_at=now, attempts=F("attempts") + 1
    )
    row.attempts += claimed
    return bool(claimed)


def _finish_request(repo: Repository, requested_at: datetime | None) -> None:
    # Clear the request only if no newer report arrived while this scan ran.
    cleared = Repository.objects.filter(pk=repo.pk, scan_requested_at=requested_at).update(
        scan_requested_at=None
    )
    if not cleared and requested_at is not None:
        transaction.on_commit(lambda: scan_enqueue(repository_id=repo.pk))


def _supersede(row: ProximityScan, order: int, applied: int, now: datetime) -> None:
    row.status, row.finished_at, row.input_order = Status.SUPERSEDED, now, order
    row.error = f"superseded: inputs read at order {order}, a result of order {applied} applied"
    row.save(update_fields=["status", "finished_at", "input_order", "error"])


def _store(
    row: ProximityScan,
    result: dict[str, Any],
    inputs: AirspaceInputs,
    order: int,
    now: datetime,
    symbols: SymbolData | None = None,
) -> None:
    # NO KEY: rows inserted by reports that reference the repository must not wait on this lock.
    repo = Repository.objects.select_for_update(no_key=True).filter(pk=row.repository_id).first()
    applied = repo.applied_input_order if repo else 0
    if order < applied:  # a newer read was applied first: this stale result must not win
        _supersede(row, order, applied, now)
        return
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
    if "symbols" in result:  # which agents the symbol channel saw (the rest are unknown)
        row.result["symbols"] = result["symbols"]
    if symbols is not None:
        # The channel's input itself (small: changed symbols and the uses that reach them), so
        # the server's pre-edit check scores the same symbol data as this scan (one answer).
        from proximity.engine.symbols import symbol_data_to_json

        row.result["symbolInput"] = symbol_data_to_json(symbols)
    merge_pairs = inputs.airspace["options"].get("mergeChecks")
    if merge_pairs:  # the pairs whose done merge check found merge-only problems, for the same
        row.result["mergeChecks"] = merge_pairs  # reason: the check scores the scan's verdicts
    row.agent_count = result["counts"]["agents"]
    row.advisory_count = result["counts"]["advisories"]
    row.status, row.finished_at, row.input_order, row.error = Status.DONE, now, order, ""
    fields = ["result", "agent_count", "advisory_count", "status", "finished_at", "input_order"]
    row.save(update_fields=[*fields, "error"])
    Repository.objects.filter(pk=row.repository_id).update(applied_input_order=order)


def _fail(row: ProximityScan, repo: Repository, exc: Exception, now: datetime) -> None:
    if isinstance(exc, AirspaceInputError):
        log.error("scan of %s rejected its input: %s", repo.name, exc)
    else:
        log.exception("scan %s of %s failed", row.pk, repo.name)
    row.status, row.error, row.finished_at = Status.FAILED, f"{type(exc).__name__}: {exc}", now
    # If the database itself is down this raises, and the task's autoretry takes over; the row
    # stays running until the sweep reclaims it after the visibility timeout.
    ProximityScan.objects.filter(pk=row.pk).update(
        status=row.status, error=row.error, finished_at=now
    )
    # The engine rejects the same inputs every time: retry only what may be transient.
    if isinstance(exc, AirspaceInputError) or row.attempts >= settings.OVERLAP_SCAN_MAX_ATTEMPTS:
        _finish_request(repo, repo.scan_requested_at)  # given up: the board shows it degraded
        return
    # Defer the request past the backoff (the sweep only takes requests older than its cutoff)
    # and schedule the retry; unless a newer report refreshed it, whose scan is coming anyway.
    backoff = scan_retry_backoff(row.attempts)
    rows = Repository.objects.filter(pk=repo.pk, scan_requested_at=repo.scan_requested_at)
    if rows.update(scan_requested_at=now + backoff):
        seconds = backoff.total_seconds()
        transaction.on_commit(lambda: scan_enqueue(repository_id=repo.pk, countdown=seconds))


def scan_run(
    *,
    repository_id: int,
    now: datetime | None = None,
    conflicts: list[dict[str, Any]] | None = None,
) -> ProximityScan | None:
    """Scan if a scan was requested; idempotent on (repository, inputs, profile, scorer)."""
    now = now or timezone.now()
    read = _read_inputs(repository_id, now, conflicts)
    if read is None:
        return None
    repo, inputs = read
    inputs, symbols = _symbol_inputs(repo, inputs)
    inputs, merge = _merge_inputs(repo, inputs)
    row = _scan_row(repo, inputs, now)
    if row.status == Status.DONE and row.input_order == repo.applied_input_order:
        with transaction.atomic():  # this row is the result applied now: nothing to redo
            _finish_request(repo, repo.scan_requested_at)
        return row
    if not _claim(row, now):
        if row.status == Status.FAILED and row.attempts >= settings.OVERLAP_SCAN_MAX_ATTEMPTS:
            _finish_request(repo, repo.scan_requested_at)  # retries exhausted: stop the sweep
            return row
        return None  # running elsewhere, or waiting out its backoff (the request is deferred)
    try:
        result = scan(inputs.airspace, profile=repo.profile, symbols=symbols)
        if merge is not None:
            merge.annotate(result)
        with transaction.atomic():
            _store(row, result, inputs, repo.scan_input_order, now, symbols)
            _finish_request(repo, repo.scan_requested_at)
    except Exception as exc:  # any failure must leave a reason, never a row stuck running
        _fail(row, repo, exc, now)
        return row
    if merge is not None and row.status == Status.DONE:
        from proximity.services.merge_checks import merge_checks_plan

        merge_checks_plan(repository=repo, trees=merge.trees, now=now)
    return row
