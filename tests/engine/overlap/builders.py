"""Small builders for task-overlap tests: records, unit vectors and real rankers."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap import (
    BM25Index,
    BM25Ranker,
    DenseIndex,
    DenseRanker,
    PoolSnapshot,
    Provenance,
    TaskRecord,
    Viewer,
)

SPACE = "space:test-a"
OTHER_SPACE = "space:test-b"
LEAD = Viewer("lead", frozenset({"payments", "search"}), frozenset({"internal", "secret"}))


def record(task_id: str, text: str = "", version: int = 1, **changes: object) -> TaskRecord:
    base = TaskRecord(
        task_id=task_id,
        work_version=version,
        scope="payments",
        objective=text or f"objective of {task_id}",
        deliverable=f"deliverable: {text}" if text else f"deliverable of {task_id}",
        acceptance=(f"acceptance test for {text or task_id}",),
        provenance=Provenance(owner="owner-" + task_id),
        disclosure=frozenset({"internal"}),
        dependencies=(),
        purpose="implementation",
        space_id=SPACE,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def unit(values: Sequence[float]) -> NDArray[np.float32]:
    vector = np.asarray(values, dtype=np.float32)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def rankers(
    snapshot: PoolSnapshot, vectors: Mapping[str, Sequence[float]], space: str = SPACE
) -> tuple[BM25Ranker, DenseRanker]:
    """Real BM25 and dense rankers; ``vectors`` maps task_id to a (not yet normalised) vector."""
    rows = [
        unit(vectors[r.task_id]) if r.space_id == space and r.task_id in vectors else None
        for r in snapshot.records
    ]
    dense = DenseRanker(DenseIndex.build(snapshot, rows, space_id=space), snapshot)
    return BM25Ranker(BM25Index.build(snapshot)), dense


def always_current(query: TaskRecord, candidate: TaskRecord) -> bool:
    """A recheck for runs where nothing changes between snapshot and emission."""
    return True
