"""One pool snapshot in columnar form, so eligibility is a few numpy comparisons.

At 100k records a Python loop over ``is_visible`` per query costs more than the whole 25 ms
budget, so the snapshot encodes scope, disclosure, task, version and space as integer columns
once (fitted state) and every query filters with vector operations that give the same answer as
``records.is_visible`` (a property test checks the two agree).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.records import AccessLabels, TaskRecord, TaskRef, Viewer

__all__ = ["Eligible", "PoolSnapshot", "SnapshotColumns", "visible_mask_over"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Eligible:
    """The rows of one snapshot a ranker may rank; everything else must stay invisible to it."""

    snapshot_id: str
    mask: NDArray[np.bool_]

    @property
    def rows(self) -> NDArray[np.intp]:
        return np.flatnonzero(self.mask)


@dataclass(frozen=True, slots=True)
class SnapshotColumns:
    """The encoded columns of a snapshot's rows, with code tables that may cover more values."""

    records: Sequence[TaskRecord]
    row_of: Mapping[TaskRef, int]
    scope_codes: NDArray[np.int64]
    scopes: Mapping[str, int]
    task_codes: NDArray[np.int64]
    tasks: Mapping[str, int]
    space_codes: NDArray[np.int64]
    spaces: Mapping[str, int]
    versions: NDArray[np.int64]
    labels: Mapping[str, int]
    disclosure: NDArray[np.bool_]


class _Projected(Sequence[_T]):
    """``get(records[i])`` on demand: a snapshot's refs or access labels without a copy."""

    def __init__(self, records: Sequence[TaskRecord], get: Callable[[TaskRecord], _T]) -> None:
        self._records, self._get = records, get

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, row: int) -> _T: ...

    @overload
    def __getitem__(self, row: slice) -> Sequence[_T]: ...

    def __getitem__(self, row: int | slice) -> _T | Sequence[_T]:
        if isinstance(row, slice):
            return [self._get(r) for r in self._records[row]]
        return self._get(self._records[row])


def visible_mask_over(
    scope_codes: NDArray[np.int64],
    scopes: Mapping[str, int],
    disclosure: NDArray[np.bool_],
    labels: Mapping[str, int],
    viewer: Viewer,
) -> NDArray[np.bool_]:
    """``records.is_visible`` over encoded rows: scope code among the viewer's scopes and no
    disclosure label outside its clearances (a row without a scope, code -1, is never visible)."""
    allowed = np.zeros(len(scopes) + 1, dtype=np.bool_)  # last slot: no scope
    allowed[[scopes[s] for s in viewer.scopes if s in scopes]] = True
    scope_ok = allowed[scope_codes]  # code -1 reads the last slot, always False
    uncleared = [i for label, i in labels.items() if label not in viewer.clearances]
    labels_ok = ~disclosure[:, uncleared].any(axis=1)
    return np.asarray(scope_ok & labels_ok, dtype=np.bool_)


def _ref(record: TaskRecord) -> TaskRef:
    return record.ref


def _access(record: TaskRecord) -> AccessLabels:
    return record.access


def _codes(values: Iterable[str | None]) -> tuple[NDArray[np.int64], dict[str, int]]:
    table: dict[str, int] = {}
    codes = [-1 if v is None else table.setdefault(v, len(table)) for v in values]
    return np.asarray(codes, dtype=np.int64), table


class PoolSnapshot:
    """An immutable snapshot of declared task records, with columnar access labels.

    Build with :meth:`build`; rows keep the order of the records given.
    """

    snapshot_id: str
    records: Sequence[TaskRecord]  # a tuple, or a read-only view (``from_columns``)
    refs: Sequence[TaskRef]
    access: Sequence[AccessLabels]
    _row_of: Mapping[TaskRef, int]
    _scopes: Mapping[str, int]
    _tasks: Mapping[str, int]
    _spaces: Mapping[str, int]
    _labels: Mapping[str, int]

    def __init__(self, snapshot_id: str, records: tuple[TaskRecord, ...]) -> None:
        self.snapshot_id = snapshot_id
        self.records = records
        self.refs = tuple(r.ref for r in records)
        self.access = tuple(r.access for r in records)
        self._row_of = {ref: i for i, ref in enumerate(self.refs)}
        if len(self._row_of) != len(records):
            raise ValueError("snapshot records: the same (task_id, work_version) appears twice")
        self.scope_codes, self._scopes = _codes(r.scope for r in records)
        self.task_codes, self._tasks = _codes(r.task_id for r in records)
        self.space_codes, self._spaces = _codes(r.space_id for r in records)
        self.versions = np.asarray([r.work_version for r in records], dtype=np.int64)
        labels = sorted({label for r in records for label in r.disclosure})
        self._labels = {label: i for i, label in enumerate(labels)}
        self.disclosure = np.zeros((len(records), len(labels)), dtype=np.bool_)
        for i, r in enumerate(records):
            self.disclosure[i, [self._labels[label] for label in r.disclosure]] = True
        latest = np.zeros(len(self._tasks), dtype=np.int64)
        np.maximum.at(latest, self.task_codes, self.versions)
        self.current = self.versions == latest[self.task_codes]

    @classmethod
    def build(cls, snapshot_id: str, records: Iterable[TaskRecord]) -> PoolSnapshot:
        if not isinstance(snapshot_id, str) or not snapshot_id:
            raise ValueError("snapshot_id must be a non-empty string")
        return cls(snapshot_id, tuple(records))

    @classmethod
    def from_columns(cls, snapshot_id: str, columns: SnapshotColumns) -> PoolSnapshot:
        """A snapshot over columns already encoded elsewhere (``live.LivePool.snapshot``).

        Same rows, codes and answers as :meth:`build` over ``columns.records``, without a Python
        pass over the records: the code tables are shared, ``refs``/``access`` are read from the
        records on demand and row lookup goes through ``columns.row_of``.
        """
        if not isinstance(snapshot_id, str) or not snapshot_id:
            raise ValueError("snapshot_id must be a non-empty string")
        self = cls.__new__(cls)
        self.snapshot_id, self.records = snapshot_id, columns.records
        self.refs = _Projected(columns.records, _ref)
        self.access = _Projected(columns.records, _access)
        self._row_of = columns.row_of
        self.scope_codes, self._scopes = columns.scope_codes, columns.scopes
        self.task_codes, self._tasks = columns.task_codes, columns.tasks
        self.space_codes, self._spaces = columns.space_codes, columns.spaces
        self.versions, self._labels = columns.versions, columns.labels
        self.disclosure = columns.disclosure
        latest = np.zeros(len(columns.tasks), dtype=np.int64)
        np.maximum.at(latest, self.task_codes, self.versions)
        self.current = self.versions == latest[self.task_codes]
        return self

    def __len__(self) -> int:
        return len(self.records)

    def row(self, ref: TaskRef) -> int | None:
        return self._row_of.get(ref)

    def get(self, ref: TaskRef) -> TaskRecord | None:
        row = self._row_of.get(ref)
        return None if row is None else self.records[row]

    def is_current(self, ref: TaskRef) -> bool:
        """True when no later version of the task is in the snapshot."""
        row = self._row_of.get(ref)
        return row is not None and bool(self.current[row])

    def visible_mask(self, viewer: Viewer) -> NDArray[np.bool_]:
        """Vectorised ``is_visible`` over all rows (same rule, same answers)."""
        return visible_mask_over(
            self.scope_codes, self._scopes, self.disclosure, self._labels, viewer
        )

    def task_mask(self, task_id: str) -> NDArray[np.bool_]:
        code = self._tasks.get(task_id, -2)
        return np.asarray(self.task_codes == code, dtype=np.bool_)

    def space_mask(self, space: str | None) -> NDArray[np.bool_]:
        if space is None:
            return np.zeros(len(self.records), dtype=np.bool_)
        return np.asarray(self.space_codes == self._spaces.get(space, -2), dtype=np.bool_)
