"""Doctor's "watchers" check: a watched repository nobody has read is a problem, not "ok".

A repository registered with ``--watch`` is read by the beat's ``watch_repositories`` tick every
``OVERLAP_WATCH_INTERVAL_SECONDS``. Without a beat (the in-process default, or a deployment that
forgot it) nothing reads it and the board says "no completed scan yet" forever; this check names
those repositories and the command that starts the reader.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from proximity.models import Repository
from proximity.selectors.health_check import Check

__all__ = ["check_watchers"]

NO_BEAT_FIX = (
    "Nothing runs periodic work in-process (REDIS_URL and OVERLAP_QUEUE_DIR unset): run "
    "`python manage.py up PATH` (a worker with an embedded beat, no server needed), or set "
    "REDIS_URL and run `celery -A celery_app worker -Q default,scans,overlap` and "
    "`celery -A celery_app beat`."
)
BEAT_FIX = (
    "Start the beat and a worker: `celery -A celery_app beat` and "
    "`celery -A celery_app worker -Q default,scans,overlap` (or `python manage.py up PATH`)."
)


def _late(repo: Repository, due: datetime) -> str | None:
    if repo.watched_at is None:
        return f"{repo.name} (never read)" if repo.created_at < due else None
    if repo.watched_at < due:
        return f"{repo.name} (last read {repo.watched_at:%Y-%m-%d %H:%M:%S} UTC)"
    return None


def check_watchers(*, now: datetime | None = None) -> Check:
    interval = settings.OVERLAP_WATCH_INTERVAL_SECONDS
    due = (now or timezone.now()) - timedelta(seconds=2 * interval)
    repos = list(Repository.objects.filter(watch=True).exclude(path="").order_by("name"))
    if not repos:
        return Check("watchers", "ok", "no repository is watched")
    late = [line for line in (_late(r, due) for r in repos) if line]
    if not late:
        return Check("watchers", "ok", f"{len(repos)} watched repository(ies) read on time")
    return Check(
        "watchers",
        "critical",
        f"no watcher read {', '.join(late)} in the last {2 * interval} s",
        BEAT_FIX if settings.OVERLAP_PERIODIC_WORK else NO_BEAT_FIX,
    )
