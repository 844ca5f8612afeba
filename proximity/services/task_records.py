"""Stored task versions to engine records, and the embeddings that travel with them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from django.conf import settings
from numpy.typing import NDArray

from proximity.engine.overlap import (
    Provenance,
    TaskRecord,
    TaskRef,
    plan_sketch_from_mapping,
)
from proximity.engine.overlap.lexical import record_text
from proximity.models import TaskVersion
from proximity.sources.embedding import EmbeddingUnavailableError, SentenceEmbedder

__all__ = [
    "ObjectiveVectors",
    "embedder",
    "engine_record",
    "engine_task_id",
    "ensure_embeddings",
    "vector_of",
]


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
        # one batch: the records' texts, then their objectives alone (same model, same call)
        texts = [record_text(engine_record(v), model.fields) for v in stale]
        vectors = model.embed_texts(texts + [v.objective for v in stale])
        n = len(stale)
        for v, vector, objective in zip(stale, vectors[:n], vectors[n:], strict=True):
            v.space_id, v.embedding = space, vector.astype(np.float32).tobytes()
            v.objective_embedding = objective.astype(np.float32).tobytes()
        TaskVersion.objects.bulk_update(stale, ["space_id", "embedding", "objective_embedding"])
    return space


@dataclass(frozen=True)
class ObjectiveVectors:
    """The run's objective embedder (``similarity.objective_cosine``): each record's objective
    vector as stored beside its version's vector, read for the query and its candidates in one
    statement. A version stored before objectives were embedded gets its vector now, once."""

    version_ids: Mapping[TaskRef, int]

    def __call__(self, records: Sequence[TaskRecord]) -> NDArray[np.float32]:
        ids = [self.version_ids[r.ref] for r in records]
        space = records[0].space_id if records else None
        rows = TaskVersion.objects.only("objective", "space_id", "objective_embedding").order_by()
        found = rows.in_bulk(ids)
        missing = [
            found[pk]
            for pk in dict.fromkeys(ids)
            if found[pk].space_id != space or not found[pk].objective_embedding
        ]
        if missing:
            model = embedder()
            if model.space_id != space:
                raise ValueError("the run's space is not the model's: objectives not comparable")
            for v, vector in zip(
                missing, model.embed_texts([v.objective for v in missing]), strict=True
            ):
                v.objective_embedding = vector.astype(np.float32).tobytes()
            TaskVersion.objects.bulk_update(missing, ["objective_embedding"])
        return np.stack(
            [
                np.frombuffer(bytes(found[pk].objective_embedding or b""), dtype=np.float32)
                for pk in ids
            ]
        )
