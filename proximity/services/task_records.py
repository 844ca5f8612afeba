"""Stored task versions to engine records, and the embeddings that travel with them."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from django.conf import settings
from numpy.typing import NDArray

from proximity.engine.overlap import (
    Provenance,
    TaskRecord,
    plan_sketch_from_mapping,
)
from proximity.models import TaskVersion
from proximity.sources.embedding import EmbeddingUnavailableError, SentenceEmbedder

__all__ = ["embedder", "engine_record", "engine_task_id", "ensure_embeddings", "vector_of"]


@lru_cache(maxsize=1)
def embedder() -> SentenceEmbedder:
    """One model per worker process: loading takes seconds, a query about 20 ms."""
    return SentenceEmbedder(settings.OVERLAP_EMBEDDING_MODEL_DIR or None)


def _tuple(value: object) -> tuple[str, ...] | None:
    return None if value is None else tuple(str(v) for v in value)  # type: ignore[attr-defined]


def engine_task_id(scope: str, task_id: str) -> str:
    """A task's id in the engine: stored ids are unique per scope, and one pool may hold several
    scopes, so the engine's id carries the scope ("#" occurs in neither: ``ID_PATTERN``)."""
    return f"{scope}#{task_id}"


def engine_record(v: TaskVersion) -> TaskRecord:
    scope = v.record.scope
    return TaskRecord(
        task_id=engine_task_id(scope, v.record.task_id),
        work_version=v.work_version,
        scope=v.scope or None,
        objective=v.objective or None,
        deliverable=v.deliverable or None,
        acceptance=_tuple(v.acceptance),
        provenance=Provenance(owner=v.owner or "", declared_at=v.created_at.isoformat()),
        disclosure=frozenset(v.disclosure or ()),
        # a declared dependency names a task of the same scope
        dependencies=None
        if v.dependencies is None
        else tuple(engine_task_id(scope, str(d)) for d in v.dependencies),
        purpose=v.purpose or None,
        plan_facts=_tuple(v.plan_facts),
        plan_sketch=plan_sketch_from_mapping(v.plan_sketch) if v.plan_sketch else None,
        space_id=v.space_id or None,
    )


def vector_of(v: TaskVersion) -> NDArray[np.float32] | None:
    return None if not v.embedding else np.frombuffer(bytes(v.embedding), dtype=np.float32)


def ensure_embeddings(versions: Iterable[TaskVersion]) -> str | None:
    """Embed versions that have no vector in the current space; return the spaceId or None.

    None means the model is unavailable: those versions keep no space and are omitted from
    dense comparison (and, per requirement 14, from lexical ranking) until the model is back.
    """
    model = embedder()
    try:
        space = model.space_id
    except EmbeddingUnavailableError:
        return None
    stale = [v for v in versions if v.space_id != space or not v.embedding]
    if stale:
        vectors = model.embed_records([engine_record(v) for v in stale])
        for v, vector in zip(stale, vectors, strict=True):
            v.space_id, v.embedding = space, vector.astype(np.float32).tobytes()
        TaskVersion.objects.bulk_update(stale, ["space_id", "embedding"])
    return space
