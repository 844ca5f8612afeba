"""One pool snapshot in columnar form, so eligibility is a few numpy comparisons.

At 100k records a Python loop over ``is_visible`` per query costs more than the whole 25 ms
budget, so the snapshot encodes scope, disclosure, task, version and space as integer columns
once (fitted state) and every query filters with vector operations that give the same answer as
``records.is_visible`` (a property test checks the two agree).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.records import TaskRecord, TaskRef, Viewer

__all__ = ["Eligible", "PoolSnapshot"]


@dataclass(frozen=True, slots=True)
class Eligible:
    """The rows of one snapshot a ranker may rank; everything else must stay invisible to it."""

    snapshot_id: str
    mask: NDArray[np.bool_]

    @property
    def rows(self) -> NDArray[np.intp]:
        return np.flatnonzero(self.mask)


def _codes(values: Iterable[str | None]) -> tuple[NDArray[np.int64], dict[str, int]]:
    table: dict[str, int] = {}
    codes = [-1 if v is None else table.setdefault(v, len(table)) for v in values]
    return np.asarray(codes, dtype=np.int64), table


class PoolSnapshot:
    """An immutable snapshot of declared task records, with columnar access labels.

    Build with :meth:`build`; rows keep the order of the records given.
    """

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
        allowed = np.zeros(len(self._scopes) + 1, dtype=np.bool_)  # last slot: no scope
        allowed[[self._scopes[s] for s in viewer.scopes if s in self._scopes]] = True
        scope_ok = allowed[self.scope_codes]  # code -1 reads the last slot, always False
        uncleared = [i for label, i in self._labels.items() if label not in viewer.clearances]
        labels_ok = ~self.disclosure[:, uncleared].any(axis=1)
        return np.asarray(scope_ok & labels_ok, dtype=np.bool_)

    def task_mask(self, task_id: str) -> NDArray[np.bool_]:
        code = self._tasks.get(task_id, -2)
        return np.asarray(self.task_codes == code, dtype=np.bool_)

    def space_mask(self, space: str | None) -> NDArray[np.bool_]:
        if space is None:
            return np.zeros(len(self.records), dtype=np.bool_)
        return np.asarray(self.space_codes == self._spaces.get(space, -2), dtype=np.bool_)
