"""Task overlap through the service: one stored overlap run against pools of stored task versions.

bench/overlap.py times the engine's ``run_overlap`` with its indexes already built. A worker does
more for every new task version: it brings its incremental index up to date with what was stored
since its last run (services/overlap_index.py), selects the declarer's pool on it, runs the engine
and stores the run, its advisories and unknowns. This prints, per pool size, in the same run:

* the worker's stored run, ``overlap_run_execute`` (the Celery task's body), p50 and p95;
* the rebuild path on the same versions (read the whole pool, build the snapshot and both indexes
  again, run, store: what every run did before the incremental index), p50, and the ratio;
* the engine-only ``run_overlap`` with its indexes built, p50;
* the index build a worker pays once, when it starts (or when the policy or space changes).

Embedding is excluded: stored vectors (each record's and its objective's) are random unit rows
in the real model's space and each query version is embedded before it is timed.

    .venv/bin/python -m bench.overlap_service                 # temporary SQLite; 1k and 10k
    .venv/bin/python -m tests.servers .venv/bin/python -m bench.overlap_service \
        --sizes 1000,10000,100000                             # PostgreSQL
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
    from django.db import connection
    from django.utils import timezone

    from bench.overlap import plain_texts
    from proximity.models import Principal, TaskRecord, TaskVersion
    from proximity.services.task_records import embedder

    user = get_user_model().objects.create_user(f"{prefix}-lead")
    scopes = [f"{prefix}-{scope}" for scope in SCOPES]  # each pool size on its own scopes
    principal = Principal.objects.create(name=f"{prefix}-lead", user=user, scopes=scopes)
    space = embedder().space_id
    rng = np.random.default_rng(SEED + size)
    now = timezone.now()
    texts = plain_texts(size, seed=SEED + size)
    records = TaskRecord.objects.bulk_create(
        TaskRecord(
            task_id=f"{prefix}-{k}",
            scope=scopes[k % len(scopes)],
            declared_by=principal,
            created_at=now,
        )
        for k in range(size)
    )
    vectors = rng.standard_normal((2 * size, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # records', then objectives' rows
    TaskVersion.objects.bulk_create(
        (
            TaskVersion(
                record=record,
                work_version=1,
                scope=scopes[k % len(scopes)],
                objective=text,
                deliverable=f"patch for {text.split()[0]}",
                acceptance=[f"test_{k} passes"],
                owner=principal.name,
                declared_by=principal,
                space_id=space,
                embedding=vectors[k].tobytes(),
                objective_embedding=vectors[size + k].tobytes(),
                created_at=now,
            )
            for k, (record, text) in enumerate(zip(records, texts, strict=True))
        ),
        batch_size=2000,
    )
    if connection.vendor == "postgresql":
        # A database that grew to this size over time has table statistics (autovacuum keeps
        # them); a bulk load has none yet, and its plans would be measured instead of the run.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE proximity_taskrecord")
            cursor.execute("ANALYZE proximity_taskversion")
    return principal


def _query(principal: Any, prefix: str, k: int) -> Any:
    from proximity.services.task_records import ensure_embeddings
    from proximity.services.tasks import TaskDeclaration, task_declare

    declaration = TaskDeclaration(
        scope=principal.scopes[k % len(principal.scopes)],
        objective=f"add retry with backoff to the payment export {k}",
        deliverable="patch to the export service",
        acceptance=["export retries on timeout"],
    )
    version = task_declare(principal=principal, decl=declaration, task_id=f"{prefix}-query-{k}")
    ensure_embeddings([version])  # embedding is excluded from every figure
    return version


def _rebuilt_stored_run(version: Any, principal: Any) -> None:
    """What ``overlap_run_execute`` did before the incremental index: rebuild, run, store."""
    from django.utils import timezone

    from proximity.models import OverlapRun
    from proximity.services.overlap_prepare import ACTIVE_POLICY, rebuilt_engine_call
    from proximity.services.overlap_runs import overlap_run_prepared

    run = OverlapRun.objects.create(
        query=version,
        policy_digest=ACTIVE_POLICY.digest,
        status=OverlapRun.Status.RUNNING,
        requested_at=timezone.now(),
    )
    overlap_run_prepared(run, rebuilt_engine_call(version, principal), claimed=False)


def measure(size: int, queries: int, rebuild_queries: int) -> dict[str, Any]:
    from proximity.models import OverlapRun
    from proximity.services.overlap_index import worker_index, worker_indexes_clear
    from proximity.services.overlap_prepare import ACTIVE_POLICY, rebuilt_engine_call
    from proximity.services.overlap_runs import overlap_run_execute
    from proximity.services.task_records import embedder

    prefix = f"p{size}"
    principal = seed_pool(size, prefix)
    worker_indexes_clear()  # a worker that starts: its index is built once, here
    began = time.perf_counter()
    index = worker_index(ACTIVE_POLICY, embedder().space_id)
    build = time.perf_counter() - began
    indexed, rebuilt, engine = [], [], []
    profile = cProfile.Profile()
    for k in range(queries):
        version = _query(principal, prefix, k)
        OverlapRun.objects.filter(query=version).delete()  # an in-process declaration ran it
        if k == queries - 1:
            profile.enable()
        began = time.perf_counter()
        overlap_run_execute(version_id=version.pk, policy_digest=ACTIVE_POLICY.digest)
        indexed.append(time.perf_counter() - began)
        profile.disable()
        if k < rebuild_queries:
            OverlapRun.objects.filter(query=version).delete()
            began = time.perf_counter()
            _rebuilt_stored_run(version, principal)
            rebuilt.append(time.perf_counter() - began)
            call = rebuilt_engine_call(version, principal).call  # indexes built: engine only
            began = time.perf_counter()
            call()
            engine.append(time.perf_counter() - began)
    assert index.builds == 1  # one build at worker start, then only updates
    assert worker_index(ACTIVE_POLICY, embedder().space_id) is index
    stats = pstats.Stats(profile)
    parts = {name: _cumulative(stats, functions) for name, functions in _PARTS.items()}
    return {
        "indexed": indexed,
        "rebuilt": rebuilt,
        "engine": engine,
        "build": build,
        "parts": parts,
    }


#: The parts of one incremental run, as (module file, function) pairs summed from the profile.
_PARTS = {
    "sync": [("overlap_index.py", "worker_index")],
    "select": [("live.py", "select"), ("live.py", "position"), ("live.py", "snapshot")],
    "run_overlap": [("pipeline.py", "run_overlap")],
    "run_store": [("overlap_store.py", "run_store")],
}


def _cumulative(stats: pstats.Stats, functions: list[tuple[str, str]]) -> float:
    total = 0.0
    for (path, _, function), row in stats.stats.items():  # type: ignore[attr-defined]
        if any(path.endswith(f"/{file}") and function == name for file, name in functions):
            total += row[3]
    return total


def _p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=15, help="incremental runs per pool")
    parser.add_argument(
        "--rebuild-queries", type=int, default=3, help="rebuild-path runs per pool (slow)"
    )
    args = parser.parse_args(argv)
    _setup_django()
    print("| pool | worker run p50 | p95 | rebuild path p50 | ratio | engine only p50 | index build"
          " at worker start | one worker run under cProfile: sync / select / engine / store |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---|")  # fmt: skip
    for size in [int(s) for s in args.sizes.split(",")]:
        got = measure(size, args.queries, args.rebuild_queries)
        indexed = statistics.median(got["indexed"])
        rebuilt = statistics.median(got["rebuilt"])
        parts = got["parts"]
        split = " / ".join(
            f"{parts[k] * 1000:.1f} ms" for k in ("sync", "select", "run_overlap", "run_store")
        )
        print(
            f"| {size:,} | {indexed * 1000:.1f} ms | {_p95(got['indexed']) * 1000:.1f} ms"
            f" | {rebuilt * 1000:,.0f} ms | {rebuilt / indexed:,.0f}x"
            f" | {statistics.median(got['engine']) * 1000:.1f} ms | {got['build']:.1f} s"
            f" | {split} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
