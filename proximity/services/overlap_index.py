"""Each overlap worker's incremental index, kept in process memory across runs.

One :class:`WorkerIndex` per policy (its digest): a ``LivePool`` of every stored version and the
``BM25Postings`` of their indexed fields, plus the ``DenseRows`` of one embedding space. It is
built from the database when a worker first needs it (the worker starts), when the policy
changes (a new digest) and, for the dense rows, when the space changes (a new model); otherwise
each run brings it up to date with what was stored since the previous run:

* new versions: ``pk`` above the highest seen, and the ids skipped below it (a transaction that
  took an id and had not committed yet; kept for ``GAP_TTL``, then taken as rolled back);
* supersessions: ``superseded_at`` since the previous sync, less ``SYNC_GRACE`` (a revision's
  timestamp is taken before its transaction commits);
* embeddings set by another worker: a pool row without a vector is re-read before the run.

A consistency check rebuilds the index when the database lost rows the index holds (deleted),
holds rows the index never saw (a very late commit) or reused an id (a reset table).
Authorization and currency are applied per run, as a mask over the index's rows: nothing a
viewer may not see ever ranks.

Concurrency: a worker process runs one task at a time; the module lock still serialises the
sync and the selection, and the engine call after it only reads rows that already existed
(structures only grow), so it needs no lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
from django.db.models import Q
from django.utils import timezone
from numpy.typing import NDArray

from proximity.engine.overlap import OverlapPolicy, PoolSnapshot, Ranker, TaskRef, UnavailableRanker
from proximity.engine.overlap.incremental import (
    BM25Postings,
    DenseRows,
    DenseRowsRanker,
    PostingsRanker,
)
from proximity.engine.overlap.lexical import document_tokens
from proximity.engine.overlap.live import LivePool
from proximity.engine.overlap.policy import SCOPE_PREP
from proximity.models import Principal, TaskVersion
from proximity.selectors.access import viewer_of, viewer_sees
from proximity.services.overlap_prepare import (
    ACTIVE_POLICY,
    DENSE_UNAVAILABLE,
    PreparedRun,
    built,
    prepared_run,
    snapshot_id_of,
)
from proximity.services.task_records import engine_record, ensure_embeddings, vector_of

__all__ = ["WorkerIndex", "indexed_engine_call", "worker_index", "worker_indexes_clear"]

log = logging.getLogger(__name__)
SYNC_GRACE = timedelta(minutes=10)
GAP_TTL = timedelta(minutes=10)
GAP_WINDOW = 1_000  # ids below the highest seen at a full build that may still commit
#: How often the index counts the stored versions to notice deleted ones. Until then a deleted
#: version may still be ranked, and its candidate is dropped by the recheck before any advisory.
FULL_CHECK = timedelta(seconds=60)
CHUNK = 2_000


class IndexStaleError(Exception):
    """The index no longer matches the database: rebuild it."""


@dataclass
class WorkerIndex:
    """A policy's incremental index and how far it has read the database."""

    policy: OverlapPolicy
    pool: LivePool = field(default_factory=LivePool)
    lexical: BM25Postings = field(default_factory=BM25Postings)
    #: the scope source's postings: each version's declared plan targets
    scope: BM25Postings = field(default_factory=BM25Postings)
    dense: DenseRows | None = None
    max_pk: int = 0
    gaps: dict[int, datetime] = field(default_factory=dict)
    #: versions the engine could not read (id -> scope, labels, live, reason): such a row fails
    #: the runs whose pool holds it, as the rebuild path fails, and is re-read every sync.
    broken: dict[int, tuple[str, list[str], bool, str]] = field(default_factory=dict)
    synced_at: datetime | None = None
    #: id and creation time of the highest version read: a reused id shows a reset table
    last: tuple[int, datetime] | None = None
    checked_at: datetime | None = None
    builds: int = 0

    def upsert(self, v: TaskVersion) -> int | None:
        """Index (or refresh) one stored version; its row, or None when it cannot be read."""
        try:
            record = engine_record(v)
        except Exception as exc:
            self.broken[v.pk] = (v.scope, list(v.disclosure or ()), v.superseded_at is None,
                                 f"{type(exc).__name__}: {exc}")  # fmt: skip
            return None
        self.broken.pop(v.pk, None)
        try:
            row = self.pool.add(v.pk, record, live=v.superseded_at is None)
        except ValueError as exc:  # an id now names another version: the table was reset
            raise IndexStaleError(str(exc)) from None
        if row == len(self.lexical):
            policy = self.policy
            self.lexical.add(row, document_tokens(record, policy.fields_indexed, policy.text_prep))
            self.scope.add(row, document_tokens(record, prep=SCOPE_PREP))
        if self.dense is not None:
            same = v.space_id == self.dense.space_id
            self.dense.set(row, vector_of(v) if same else None)
        return row

    def refuse_broken(self, principal: Principal) -> None:
        """Raise as the rebuild path would when the viewer's pool holds an unreadable version."""
        viewer = viewer_of(principal)
        for pk, (scope, labels, live, reason) in sorted(self.broken.items()):
            if live and viewer_sees(viewer, scope, labels):
                raise ValueError(f"task version {pk} cannot be read: {reason}")


_INDEXES: dict[str, WorkerIndex] = {}
_LOCK = threading.Lock()


def worker_indexes_clear() -> None:
    """Forget every index, as a worker that starts has none."""
    with _LOCK:
        _INDEXES.clear()


def _versions(rows: Q, *, stream: bool = False) -> Iterator[TaskVersion] | list[TaskVersion]:
    """Stored versions by id: ``stream`` for a full build (one join, read in chunks), else the
    few new ones with their records read by id (a plan that no table statistics can spoil)."""
    versions = TaskVersion.objects.filter(rows).order_by("pk")
    if stream:
        return versions.select_related("record").iterator(CHUNK)
    return list(versions.prefetch_related("record"))


def _build(policy: OverlapPolicy, space: str | None) -> WorkerIndex:
    index = WorkerIndex(policy, dense=DenseRows(space) if space else None)
    index.synced_at = index.checked_at = timezone.now()
    for v in _versions(Q(), stream=True):
        index.upsert(v)
        index.max_pk, index.last = v.pk, (v.pk, v.created_at)
    seen = set(index.pool.keys[-GAP_WINDOW:].tolist()) | set(index.broken)
    low = max(index.max_pk - GAP_WINDOW, 0)
    index.gaps = {pk: index.synced_at for pk in range(low + 1, index.max_pk) if pk not in seen}
    index.builds = 1
    log.info("overlap index built for %s: %d versions", policy.version, len(index.pool))
    return index


def _dense_for(index: WorkerIndex, space: str) -> DenseRows:
    """The dense rows of a new space, read from the stored vectors (the model changed)."""
    dense = DenseRows(space)
    dense.grow(len(index.pool))
    rows = TaskVersion.objects.filter(space_id=space, embedding__isnull=False)
    for pk, blob in rows.values_list("pk", "embedding").iterator(CHUNK):
        row = index.pool.row(pk)
        if row is not None and blob is not None:
            dense.set(row, np.frombuffer(bytes(blob), dtype=np.float32))
    return dense


def _counted(index: WorkerIndex, now: datetime) -> bool:
    """Every ``FULL_CHECK`` (a count reads the whole table: 0.2 s at 100k versions), the stored
    ids up to the highest read, less the open gaps, are exactly the indexed ones (rows deleted)."""
    if index.checked_at is not None and index.checked_at > now - FULL_CHECK:
        return True
    index.checked_at = now
    stored = TaskVersion.objects.filter(pk__lte=index.max_pk).exclude(pk__in=list(index.gaps))
    return stored.count() == len(index.pool) + len(index.broken)


def _sync(index: WorkerIndex) -> None:
    """One light statement finds what changed: ids above the highest read or in the open gaps
    (new), ``superseded_at`` since the last sync (retired) and the highest id read (still the
    version read under it, else the table was reset); only new versions are then read whole."""
    now = timezone.now()
    assert index.synced_at is not None  # noqa: S101 - set by _build
    since = index.synced_at - SYNC_GRACE
    known = {*index.gaps, *index.broken}
    changed = Q(pk__gt=index.max_pk) | Q(superseded_at__gte=since)
    if known:
        changed |= Q(pk__in=sorted(known))
    if index.last is not None:
        changed |= Q(pk=index.last[0])
    rows = TaskVersion.objects.filter(changed).order_by("pk")
    seen = list(rows.values_list("pk", "created_at", "superseded_at"))
    if index.last is not None and index.last not in {(pk, created) for pk, created, _ in seen}:
        raise IndexStaleError("the highest version read is gone or names another version")
    if not _counted(index, now):
        raise IndexStaleError("stored versions changed under the index")
    new = [pk for pk, _, _ in seen if pk > index.max_pk or pk in known]
    for v in _versions(Q(pk__in=new)) if new else ():
        index.upsert(v)
        index.gaps.pop(v.pk, None)
        if v.pk > index.max_pk:
            index.gaps.update((pk, now) for pk in range(index.max_pk + 1, v.pk))
            index.max_pk, index.last = v.pk, (v.pk, v.created_at)
    index.gaps = {pk: t for pk, t in index.gaps.items() if t > now - GAP_TTL}
    for pk, _, superseded_at in seen:
        if superseded_at is None or superseded_at < since:
            continue
        index.pool.retire(pk)
        if pk in index.broken:
            scope, labels, _, reason = index.broken[pk]
            index.broken[pk] = (scope, labels, False, reason)
    index.synced_at = now


def worker_index(policy: OverlapPolicy, space: str | None) -> WorkerIndex:
    """The worker's index for ``policy`` with the dense rows of ``space``, up to date."""
    index = _INDEXES.get(policy.digest)
    if index is not None:
        try:
            _sync(index)
        except IndexStaleError as exc:
            log.warning("overlap index rebuilt: %s", exc)
            index = None
    if index is None:
        _INDEXES.clear()  # one policy is active; an old policy's index is garbage
        index = _INDEXES[policy.digest] = _build(policy, space)
    if space is not None and (index.dense is None or index.dense.space_id != space):
        index.dense = _dense_for(index, space)  # a new model: its vectors, read once
    return index


class _VersionIds(Mapping[TaskRef, int]):
    """The stored version of each ref of one run's snapshot."""

    def __init__(self, snapshot: PoolSnapshot, keys: NDArray[np.int64]) -> None:
        self._snapshot, self._keys = snapshot, keys

    def __getitem__(self, ref: TaskRef) -> int:
        row = self._snapshot.row(ref)
        if row is None:
            raise KeyError(ref)
        return int(self._keys[row])

    def __iter__(self) -> Iterator[TaskRef]:
        return iter(self._snapshot.refs)

    def __len__(self) -> int:
        return len(self._snapshot)


def _embed_missing(index: WorkerIndex, rows: NDArray[np.intp], space: str | None) -> None:
    """Pool rows with no vector in the space: embed and store them (as the rebuild path does),
    or read the vector another worker stored meanwhile."""
    dense = index.dense
    if dense is None or space is None:
        return
    dense.grow(len(index.pool))
    missing = rows[~dense.has_vector[rows]]
    keys = [int(index.pool.keys[r]) for r in missing.tolist() if r not in dense.bad]
    if not keys:
        return
    versions = list(TaskVersion.objects.filter(pk__in=keys).select_related("record"))
    ensure_embeddings(versions)
    for v in versions:
        index.upsert(v)


def indexed_engine_call(query: TaskVersion, declarer: Principal) -> PreparedRun:
    """A run's pool, snapshot and rankers from the worker's index (see the module docstring)."""
    space = ensure_embeddings([query])  # the query first: its vector is the dense query
    with _LOCK:
        index = worker_index(ACTIVE_POLICY, space)
        try:
            row = index.upsert(query)
        except IndexStaleError as exc:  # its id names another version in the index: rebuild
            log.warning("overlap index rebuilt: %s", exc)
            _INDEXES.clear()
            index = worker_index(ACTIVE_POLICY, space)
            row = index.upsert(query)
        index.refuse_broken(declarer)
        rows = index.pool.select(viewer_of(declarer), include=row)
        _embed_missing(index, rows, space)
        keys = index.pool.keys[rows]
        at = index.pool.position(rows)  # one lookup array for the snapshot and both postings
        snapshot = index.pool.snapshot(snapshot_id_of(keys), rows, at)
        policy, lexical_rows, scope_rows = index.policy, index.lexical, index.scope
        sid = snapshot.snapshot_id
        fields, prep = policy.fields_indexed, policy.text_prep
        lexical = built(
            "lexical", lambda: PostingsRanker(lexical_rows, rows, sid, fields, prep, at)
        )
        scope = built("scope", lambda: PostingsRanker(scope_rows, rows, sid, (), SCOPE_PREP, at))
        dense: Ranker = UnavailableRanker(DENSE_UNAVAILABLE)
        if space is not None and index.dense is not None:  # kept, unused, while the model is down
            dense = DenseRowsRanker(index.dense, rows, snapshot)
    ids = _VersionIds(snapshot, keys)
    return prepared_run(query, declarer, snapshot, ids, lexical=lexical, dense=dense, scope=scope)
