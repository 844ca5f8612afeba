"""Task-overlap rows made directly (the service that creates them is written in parallel)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from proximity.models import OverlapAdvisory, OverlapRun, Principal, TaskRecord, TaskVersion
from proximity.services.adjudications import adjudicators_group_setup

__all__ = ["PASSWORD", "make_adjudicator", "make_pair", "make_version"]

PASSWORD = "pw-for-tests"


def make_version(
    task_id: str,
    declared_by: Principal,
    *,
    scope: str = "team-a",
    version: int = 1,
    disclosure: list[str] | None = None,
    **fields: Any,
) -> TaskVersion:
    record, _ = TaskRecord.objects.get_or_create(
        scope=scope,
        task_id=task_id,
        defaults={"declared_by": declared_by, "created_at": timezone.now()},
    )
    defaults = {
        "objective": f"{task_id}: make refunds round half-even",
        "deliverable": "patch to src/payments/refunds.py",
        "acceptance": ["test_refund_rounding passes"],
        "owner": declared_by.name,
    }
    return TaskVersion.objects.create(
        record=record,
        work_version=version,
        scope=scope,
        disclosure=disclosure or [],
        declared_by=declared_by,
        created_at=timezone.now(),
        **{**defaults, **fields},
    )


def make_pair(a: TaskVersion, b: TaskVersion, *, fused_rank: int = 1) -> OverlapAdvisory:
    run, _ = OverlapRun.objects.get_or_create(
        query=a,
        policy_digest="p" * 64,
        defaults={"requested_at": timezone.now(), "status": OverlapRun.Status.DONE},
    )
    return OverlapAdvisory.objects.create(
        run=run,
        version_a=a,
        version_b=b,
        coverage="full",
        fused_rank=fused_rank,
        ranks={"bm25": 4242, "dense": 4343},
        features={"secret_score_feature": 0.987},
        created_at=timezone.now(),
    )


def make_adjudicator(
    username: str,
    *,
    scopes: list[str],
    clearances: list[str] | None = None,
) -> Any:
    user = get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True)
    user.groups.add(adjudicators_group_setup())
    Principal.objects.create(name=username, user=user, scopes=scopes, clearances=clearances or [])
    return user
