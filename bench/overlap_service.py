"""Task overlap through the service: one stored overlap run against pools of stored task versions.

bench/overlap.py times the engine's ``run_overlap`` with its indexes already built. A worker does
more for every new task version: it reads the declarer's pool from the database, rebuilds the
BM25 and dense indexes over it, runs the engine and stores the run, its advisories and unknowns.
This prints, per pool size, the median of ``overlap_run_execute`` (the Celery task's body) and the
engine-only ``run_overlap`` on the same pool with prebuilt indexes, measured in the same run, with
their ratio, and where the service's time goes.

    .venv/bin/python -m bench.overlap_service                 # temporary SQLite; 1k and 10k
    .venv/bin/python -m tests.servers .venv/bin/python -m bench.overlap_service   # PostgreSQL

Stored vectors are random unit rows in the real model's space, so nothing is embedded but the
query versions (one short text each, as in production).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SEED = 20261130
SCOPES = ["payments", "search", "billing", "infra"]


def _setup_django() -> None:
    if not os.environ.get("DATABASE_URL"):
        tmp = Path(tempfile.mkdtemp(prefix="radar-bench-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "overlap_site.settings.test")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def seed_pool(size: int, prefix: str) -> Any:
    """``size`` current versions over four scopes, each with a stored vector in the model space."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bench.overlap import plain_texts
    from proximity.models import Principal, TaskRecord, TaskVersion
    from proximity.services.task_records import embedder

    user = get_user_model().objects.create_user(f"{prefix}-lead")
    principal = Principal.objects.create(name=f"{prefix}-lead", user=user, scopes=SCOPES)
    space = embedder().space_id
    rng = np.random.default_rng(SEED + size)
    now = timezone.now()
    texts = plain_texts(size, seed=SEED + size)
    records = TaskRecord.objects.bulk_create(
        TaskRecord(task_id=f"{prefix}-{k}", declared_by=principal, created_at=now)
        for k in range(size)
    )
    vectors = rng.standard_normal((size, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    TaskVersion.objects.bulk_create(
        (
            TaskVersion(
                record=record,
                work_version=1,
                scope=SCOPES[k % len(SCOPES)],
                objective=text,
                deliverable=f"patch for {text.split()[0]}",
                acceptance=[f"test_{k} passes"],
                owner=principal.name,
                space_id=space,
                embedding=vectors[k].tobytes(),
                created_at=now,
            )
            for k, (record, text) in enumerate(zip(records, texts, strict=True))
        ),
        batch_size=2000,
    )
    return principal


def _query(principal: Any, prefix: str, k: int) -> Any:
    from proximity.services.tasks import TaskDeclaration, task_declare

    declaration = TaskDeclaration(
        scope=SCOPES[k % len(SCOPES)],
        objective=f"add retry with backoff to the payment export {k}",
        deliverable="patch to the export service",
        acceptance=["export retries on timeout"],
    )
    return task_declare(principal=principal, decl=declaration, task_id=f"{prefix}-query-{k}")


def measure(size: int, queries: int) -> dict[str, Any]:
    from proximity.models import OverlapRun
    from proximity.services.overlap_runs import ACTIVE_POLICY, engine_call, overlap_run_execute

    prefix = f"p{size}"
    principal = seed_pool(size, prefix)
    service, engine = [], []
    profile = cProfile.Profile()
    for k in range(queries):
        version = _query(principal, prefix, k)
        # With in-process tasks the declaration already ran once (and embedded the query): time a
        # fresh run of the same work, as a worker would do it.
        OverlapRun.objects.filter(query=version).delete()
        began = time.perf_counter()
        if k == queries - 1:
            profile.enable()
        overlap_run_execute(version_id=version.pk, policy_digest=ACTIVE_POLICY.digest)
        profile.disable()
        service.append(time.perf_counter() - began)
        call, _ = engine_call(version, principal)  # the engine's run with its indexes built
        began = time.perf_counter()
        call()
        engine.append(time.perf_counter() - began)
    stats = pstats.Stats(profile)
    parts = {name: _cumulative(stats, functions) for name, functions in _PARTS.items()}
    return {"service": service, "engine": engine, "parts": parts}


#: The parts of one service run, as (module file, function) pairs summed from the profile.
_PARTS = {
    "_pool": [("overlap_runs.py", "_pool")],
    "build": [("snapshot.py", "build"), ("lexical.py", "build"), ("dense.py", "build")],
    "run_overlap": [("pipeline.py", "run_overlap")],
    "run_store": [("overlap_store.py", "run_store")],
}


def _cumulative(stats: pstats.Stats, functions: list[tuple[str, str]]) -> float:
    total = 0.0
    for (path, _, function), row in stats.stats.items():  # type: ignore[attr-defined]
        if any(path.endswith(f"/{file}") and function == name for file, name in functions):
            total += row[3]
    return total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=7)
    args = parser.parse_args(argv)
    _setup_django()
    print("| pool | service run p50 | engine only p50 | ratio | one run under cProfile: read pool"
          " / build indexes / engine / store |\n|---:|---:|---:|---:|---|")  # fmt: skip
    for size in [int(s) for s in args.sizes.split(",")]:
        got = measure(size, args.queries)
        service, engine = statistics.median(got["service"]), statistics.median(got["engine"])
        parts = got["parts"]
        split = " / ".join(
            f"{parts[k] * 1000:.0f} ms" for k in ("_pool", "build", "run_overlap", "run_store")
        )
        ratio = service / engine
        print(
            f"| {size:,} | {service * 1000:.0f} ms | {engine * 1000:.1f} ms | {ratio:.1f}x"
            f" | {split} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
