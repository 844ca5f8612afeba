"""What an overlap run needs read and built before the engine runs, by either of two paths.

``indexed_engine_call`` (what workers run) reads the worker's incremental index
(``overlap_index``), brought up to date by the versions stored since its last run;
``rebuilt_engine_call`` (the reference, and the baseline in bench/overlap_service.py) reads the
whole pool from the database and builds the snapshot and both indexes again. For the same
stored versions both give the same pool, snapshot id and engine outcome
(tests/proximity/services/test_overlap_index.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from django.conf import settings
from django.db import connection
from numpy.typing import NDArray

from proximity.engine.overlap import (
    SHIPPED_POLICY,
    BM25Index,
    BM25Ranker,
    DenseIndex,
    DenseRanker,
    OverlapPolicy,
    PoolSnapshot,
    Ranker,
    Recheck,
    TaskRef,
    UnavailableRanker,
    Viewer,
    run_overlap,
)
from proximity.engine.overlap import OverlapRun as EngineRun
from proximity.engine.overlap import TaskRecord as EngineRecord
from proximity.engine.overlap.policy import SCOPE_PREP
from proximity.models import Principal, TaskVersion
from proximity.selectors.access import viewer_of, viewer_sees
from proximity.services.task_records import (
    ObjectiveVectors,
    engine_record,
    engine_task_id,
    ensure_embeddings,
    vector_of,
)
from proximity.sources.nli import nli_adapter_for

__all__ = [
    "ACTIVE_POLICY",
    "DENSE_UNAVAILABLE",
    "PreparedRun",
    "built",
    "prepared_run",
    "rebuilt_engine_call",
    "snapshot_id_of",
]

log = logging.getLogger(__name__)
ACTIVE_POLICY: OverlapPolicy = SHIPPED_POLICY
DENSE_UNAVAILABLE = "dense-retrieval-unavailable: embedding model not loadable"


@dataclass(frozen=True)
class PreparedRun:
    """The engine call of one run, its pool size, and the stored version of every pool ref."""

    call: Callable[[], EngineRun]
    pool_size: int
    version_ids: Mapping[TaskRef, int]
    #: the record of each pool ref as the run saw it (the store scores candidates from these)
    records: Callable[[TaskRef], EngineRecord | None] | None = None


def snapshot_id_of(version_ids: Iterable[int] | NDArray[np.int64]) -> str:
    """The pool's identity: a digest of its version ids in row order (both paths agree)."""
    ids = np.asarray(version_ids if isinstance(version_ids, np.ndarray) else list(version_ids))
    return hashlib.sha256(ids.astype("<i8").tobytes()).hexdigest()[:32]


def built(name: str, build: Callable[[], Ranker]) -> Ranker:
    """The ranker ``build`` makes, or, when its index cannot be built, an unavailable ranker
    with the reason: the pipeline's degraded modes then decide (requirements 17, 23, 24)."""
    try:
        return build()
    except Exception as exc:
        log.warning("%s index could not be built: %s: %s", name, type(exc).__name__, exc)
        return UnavailableRanker(f"{name}-index-build-failed: {type(exc).__name__}: {exc}"[:500])


#: ``TaskVersion``'s table and columns (Django's default names), read by ``_current_labels``.
_RECHECK_SQL = (
    "SELECT id, scope, disclosure FROM proximity_taskversion"
    " WHERE id IN ({}) AND superseded_at IS NULL"
)


def _current_labels(ids: list[int]) -> dict[int, tuple[str, list[str]]]:
    """Scope and labels of those of ``ids`` that are stored and current, in one statement.

    It reads through a cursor: the ORM's query costs about four times the statement itself
    (3 ms against 0.7 ms on the benchmark host).
    """
    with connection.cursor() as cursor:
        cursor.execute(_RECHECK_SQL.format(", ".join(["%s"] * len(ids))), ids)
        rows = cursor.fetchall()
    return {pk: (scope, json.loads(d) if isinstance(d, str) else d) for pk, scope, d in rows}


@dataclass(frozen=True)
class _Recheck:
    """Re-read versions from the database just before advisories are emitted (requirement 28):
    the pipeline asks ``many`` once per run, the query and all its candidates in one statement
    (one per candidate was a fifth of a run at 100k versions)."""

    viewer: Viewer
    version_ids: Mapping[TaskRef, int]

    def __call__(self, query: EngineRecord, candidate: EngineRecord) -> bool:
        return self.many(query, [candidate])[0]

    def many(self, query: EngineRecord, candidates: Sequence[EngineRecord]) -> list[bool]:
        ids = [self.version_ids.get(r.ref) for r in (query, *candidates)]
        known = [pk for pk in ids if pk is not None]
        labels = _current_labels(known) if known else {}

        def sees(pk: int | None) -> bool:
            return pk is not None and pk in labels and viewer_sees(self.viewer, *labels[pk])

        current = sees(ids[0])
        return [current and sees(pk) for pk in ids[1:]]


def _recheck(declarer: Principal, version_ids: Mapping[TaskRef, int]) -> Recheck:
    return _Recheck(viewer_of(declarer), version_ids)


def prepared_run(
    query: TaskVersion,
    declarer: Principal,
    snapshot: PoolSnapshot,
    version_ids: Mapping[TaskRef, int],
    *,
    lexical: Ranker,
    dense: Ranker,
    scope: Ranker | None = None,
) -> PreparedRun:
    call = partial(
        run_overlap,
        TaskRef(engine_task_id(query.record.scope, query.record.task_id), query.work_version),
        snapshot,
        viewer_of(declarer),
        ACTIVE_POLICY,
        lexical=lexical,
        dense=dense,
        recheck=_recheck(declarer, version_ids),
        nli=nli_adapter_for(settings.OVERLAP_NLI_MODEL_DIR),
        scope=scope,
        objective_embedder=ObjectiveVectors(version_ids),
    )
    return PreparedRun(call, len(snapshot), version_ids, snapshot.get)


def _pool(query: TaskVersion, declarer: Principal) -> list[TaskVersion]:
    """One snapshot: current versions in the declarer's scopes, plus the query itself."""
    rows = TaskVersion.objects.filter(superseded_at__isnull=True, scope__in=declarer.scopes)
    versions = list(rows.select_related("record").order_by("pk"))
    if query.pk not in {v.pk for v in versions}:
        versions.append(query)
    viewer = viewer_of(declarer)
    # Scope and disclosure are all the rule reads; the engine records are built once, after
    # embedding (which may set a version's space).
    return [v for v in versions if viewer_sees(viewer, v.scope, v.disclosure)]


def rebuilt_engine_call(query: TaskVersion, declarer: Principal) -> PreparedRun:
    """The reference path: read the whole pool, embed what lacks a vector, build the snapshot
    and both indexes on it."""
    versions = _pool(query, declarer)
    space = ensure_embeddings(versions)
    query.refresh_from_db(fields=["space_id", "embedding"])
    records = [engine_record(v) for v in versions]
    snapshot = PoolSnapshot.build(snapshot_id_of(v.pk for v in versions), records)
    fields, prep = ACTIVE_POLICY.fields_indexed, ACTIVE_POLICY.text_prep
    lexical = built(
        "lexical", lambda: BM25Ranker(BM25Index.build(snapshot, fields=fields, prep=prep))
    )
    scope = built("scope", lambda: BM25Ranker(BM25Index.build(snapshot, prep=SCOPE_PREP)))
    dense: Ranker = UnavailableRanker(DENSE_UNAVAILABLE)
    if space is not None:
        vectors = [vector_of(v) if v.space_id == space else None for v in versions]
        index = partial(DenseIndex.build, snapshot, vectors, space_id=space)
        dense = built("dense", lambda: DenseRanker(index(), snapshot))
    ids = {r.ref: v.pk for r, v in zip(records, versions, strict=True)}
    return prepared_run(query, declarer, snapshot, ids, lexical=lexical, dense=dense, scope=scope)
