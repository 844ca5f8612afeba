"""`manage.py doctor --json` reports each check correctly, including a broker that is down."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

ROOT = Path(__file__).resolve().parents[3]


def _doctor(*args: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = 0
    try:
        call_command("doctor", "--json", *args, stdout=out)
    except SystemExit as exc:
        code = int(exc.code or 0)
    payload = json.loads(out.getvalue())
    return code, payload


def _by_name(payload: dict) -> dict[str, dict]:
    return {c["name"]: c for c in payload["checks"]}


@pytest.mark.integration
def test_doctor_reports_all_ok_with_broker_and_live_worker(celery_worker) -> None:
    code, payload = _doctor()
    checks = _by_name(payload)
    assert code == 0, payload
    assert checks["database"]["status"] == "ok"
    assert checks["migrations"]["status"] == "ok"
    assert checks["broker"]["status"] == "ok"
    assert checks["workers"]["status"] == "ok"
    assert "1 worker(s)" in checks["workers"]["detail"]
    assert checks["embedding-model"]["status"] == "ok"
    assert "dimension 384" in checks["embedding-model"]["detail"]
    assert checks["git"]["status"] == "ok"


@pytest.mark.integration
@pytest.mark.django_db
def test_doctor_without_worker_is_critical_with_a_fix() -> None:
    code, payload = _doctor("--quick")
    workers = _by_name(payload)["workers"]
    assert code == 1
    assert workers["status"] == "critical"
    assert "celery -A celery_app worker" in workers["fix"]


@pytest.mark.django_db
def test_doctor_in_process_mode_when_no_broker_is_configured() -> None:
    with override_settings(REDIS_URL=None):
        _, payload = _doctor("--quick")
    checks = _by_name(payload)
    assert checks["broker"]["status"] == "ok"
    assert "in-process mode" in checks["broker"]["detail"]


@pytest.mark.django_db
def test_doctor_warns_when_embedding_model_is_missing(tmp_path: Path) -> None:
    with override_settings(OVERLAP_EMBEDDING_MODEL_DIR=str(tmp_path)):
        _, payload = _doctor("--quick")
    model = _by_name(payload)["embedding-model"]
    assert model["status"] == "warn"
    assert "lexical-only" in model["detail"]


def test_doctor_reports_broker_down_as_critical_and_exits_1(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="overlap_site.settings.local",
        DATABASE_URL=f"sqlite:///{tmp_path}/x.db".replace("sqlite:///", "sqlite:////", 1),
        REDIS_URL="redis://127.0.0.1:1/0",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "doctor", "--json", "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    checks = _by_name(json.loads(result.stdout))
    assert result.returncode == 1
    assert checks["broker"]["status"] == "critical"
    assert "Redis unreachable" in checks["broker"]["detail"]
    assert checks["workers"]["status"] == "critical"
    assert checks["migrations"]["status"] == "critical"  # a fresh database is not migrated
