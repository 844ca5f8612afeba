"""The one Celery application: configuration from Django settings, routing and beat in one place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "overlap_site.settings.local")

app = Celery("overlap_radar")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_routes = {
    "proximity.scan_*": {"queue": "scans"},
    "proximity.run_overlap*": {"queue": "overlap"},
    # Speculative merge checks run git and (later) tests under resource limits: a queue of their
    # own, so a slow check never delays a scan (workers: -Q merge_checks).
    "proximity.*merge_check*": {"queue": "merge_checks"},
}
app.conf.task_default_queue = "default"


def _queue_folders() -> None:
    """kombu's filesystem transport needs its folders to exist (``OVERLAP_QUEUE_DIR``)."""
    options = app.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@app.on_after_configure.connect
def _prepare_broker(sender: Celery, **kwargs: Any) -> None:
    _queue_folders()


@app.on_after_finalize.connect
def _beat_schedule(sender: Celery, **kwargs: Any) -> None:
    """Periodic work, in one place; intervals come from Django settings."""
    from django.conf import settings

    sender.conf.beat_schedule = {
        "record-heartbeat": {"task": "proximity.record_heartbeat", "schedule": 60.0},
        # The outbox sweep: scans requested while the broker was down, or whose message was lost,
        # scans a dead worker left running, and re-scores due (OVERLAP_SCAN_RESCORE_SECONDS).
        "sweep-scan-requests": {"task": "proximity.sweep_scan_requests", "schedule": 30.0},
        # Overlap runs: pending ones whose message was lost, failed ones due a retry (bounded,
        # doubling backoff), ones a dead worker left running, versions whose run was never made.
        "sweep-overlap-runs": {"task": "proximity.sweep_overlap_runs", "schedule": 30.0},
        "expire-stale-working-sets": {"task": "proximity.expire_stale", "schedule": 60.0},
        # Retention: batched deletes of old snapshots, scans and messages (never advisories).
        "prune-retention": {"task": "proximity.prune_retention", "schedule": 6 * 3600.0},
        "watch-repositories": {
            "task": "proximity.watch_repositories",
            "schedule": float(settings.OVERLAP_WATCH_INTERVAL_SECONDS),
        },
    }


app.autodiscover_tasks(["proximity"])
