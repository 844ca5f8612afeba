"""The live demo: a real repository whose agent worktrees change on a script, watched like any
other, plus the constructed task fixtures declared as the story goes."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proximity import fixtures
from proximity.lab.demo_repo import DemoRepo, DemoStep, demo_steps
from proximity.models import Principal, Repository, TaskRecord
from proximity.services.tasks import TaskDeclaration, task_declare, task_revise
from proximity.services.watch import repository_watch_tick

__all__ = ["LIVE_REPOSITORY", "demo_replay", "demo_replay_prepare"]

log = logging.getLogger(__name__)
LIVE_REPOSITORY = "demo-live"


def demo_replay_prepare(*, root: Path, scope: str) -> tuple[Repository, DemoRepo]:
    demo = DemoRepo.create(root)
    repo, _ = Repository.objects.update_or_create(
        name=LIVE_REPOSITORY,
        defaults={"scope": scope, "path": str(demo.main), "base_branch": "main", "watch": True},
    )
    repository_watch_tick(repository_id=repo.pk)
    return repo, demo


def _fixture_records() -> dict[tuple[str, int], dict[str, Any]]:
    """The constructed fixtures' records, in their JSON form (camelCase, as the API takes)."""
    path = Path(fixtures.__file__).parent / "task_overlap_corpus.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {(r["taskId"], r["workVersion"]): r for pair in lines for r in pair["records"]}


def _declaration(record: dict[str, Any]) -> TaskDeclaration:
    return TaskDeclaration(
        scope=record["scope"],
        objective=record["objective"],
        deliverable=record["deliverable"],
        acceptance=list(record.get("acceptance") or []),
        disclosure=sorted(record.get("disclosure") or []),
        dependencies=record.get("dependencies"),
        purpose=record.get("purpose") or "",
        plan_facts=record.get("planFacts"),
        plan_sketch=record.get("planSketch"),
        owner=record["provenance"]["owner"],
        provenance={"source": "demo-replay"},
    )


def _declare(
    principal: Principal, task_id: str, records: dict[tuple[str, int], dict[str, Any]]
) -> None:
    versions = sorted(v for (t, v) in records if t == task_id)
    scope = _declaration(records[(task_id, versions[0])]).scope  # task ids are per scope
    existing = TaskRecord.objects.filter(scope=scope, task_id=task_id).first()
    done = existing.versions.count() if existing else 0
    for version in versions[done:]:
        decl = _declaration(records[(task_id, version)])
        if version == 1:
            task_declare(principal=principal, decl=decl, task_id=task_id)
        else:
            task_revise(
                principal=principal, task_id=task_id, previous_version=version - 1, decl=decl
            )


def demo_replay(
    *,
    repo: Repository,
    demo: DemoRepo,
    principal: Principal,
    step_seconds: float,
    steps: list[DemoStep] | None = None,
    say: Callable[[str], None] = log.info,
) -> int:
    """Play every step; each ends with a watch tick, which schedules a scan. Returns steps run."""
    records = _fixture_records()
    script = demo_steps() if steps is None else steps
    for n, step in enumerate(script, start=1):
        say(f"demo step {n}/{len(script)}: {step.title}")
        if step.edit is not None:
            step.edit(demo)
        for task_id in step.declare:
            _declare(principal, task_id, records)
        repository_watch_tick(repository_id=repo.pk)
        time.sleep(step_seconds)
    return len(script)
