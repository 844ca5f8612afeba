"""A pool that grows by records instead of being rebuilt: the columns of a worker's index.

A :class:`PoolSnapshot` is built once per run from the records of one pool, which at 100k
records costs far more than the run itself. A :class:`LivePool` keeps every record a worker has
seen (live or superseded, every scope) in arrival order, with the same integer columns as a
snapshot, appended in amortised O(1). A run selects its pool as a mask over those columns (the
viewer's visible, live rows; authorization is applied per run, never baked into the index) and
takes a snapshot of exactly those rows without a Python pass over them.

Rows are identified by the caller's integer ``key`` (a stored version's primary key): task ids
need not be unique across scopes, so a ``TaskRef`` may name several rows; a selection holding two
rows of one ref is refused as :meth:`PoolSnapshot.build` refuses it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.records import TaskRecord, TaskRef, Viewer
from proximity.engine.overlap.snapshot import PoolSnapshot, SnapshotColumns, visible_mask_over

__all__ = ["Column", "LivePool"]


class Column:
    """A numpy array that grows at its end in amortised O(1) (capacity doubling)."""

    def __init__(self, dtype: Any, *, width: int | None = None, fill: Any = 0) -> None:
        shape = (16,) if width is None else (16, width)
        self._data: NDArray[Any] = np.full(shape, fill, dtype=dtype)
        self._fill = fill
        self.size = 0

    @property
    def view(self) -> NDArray[Any]:
        """The filled part (a view: valid until the next append)."""
        return self._data[: self.size]

    def reserve(self, size: int) -> None:
        if size > self._data.shape[0]:
            shape = (max(size, 2 * self._data.shape[0]), *self._data.shape[1:])
            grown = np.full(shape, self._fill, dtype=self._data.dtype)
            grown[: self.size] = self._data[: self.size]
            self._data = grown

    def resize(self, size: int) -> None:
        """Grow to ``size`` rows; the new rows hold the fill value."""
        self.reserve(size)
        self.size = max(self.size, size)

    def append(self, value: Any) -> int:
        self.reserve(self.size + 1)
        self._data[self.size] = value
        self.size += 1
        return self.size - 1

    def widen(self, width: int) -> None:
        """Add columns (2-D only), filled with the fill value."""
        extra = width - self._data.shape[1]
        if extra > 0:
            pad = np.full((self._data.shape[0], extra), self._fill, dtype=self._data.dtype)
            self._data = np.concatenate([self._data, pad], axis=1)

    def __setitem__(self, row: Any, value: Any) -> None:
        self._data[row] = value


def _code(table: dict[str, int], value: str | None) -> int:
    return -1 if value is None else table.setdefault(value, len(table))


class _RowLookup(Mapping[TaskRef, int]):
    """Snapshot row of a ref: its pool rows read through the selection's position array."""

    def __init__(self, rows_of: Mapping[TaskRef, list[int]], position: NDArray[np.intp]) -> None:
        self._rows_of, self._position = rows_of, position

    def __getitem__(self, ref: TaskRef) -> int:
        for row in self._rows_of.get(ref, ()):
            if self._position[row] >= 0:
                return int(self._position[row])
        raise KeyError(ref)

    def __iter__(self) -> Iterator[TaskRef]:
        return (ref for ref in self._rows_of if ref in self)

    def __len__(self) -> int:
        return int((self._position >= 0).sum())


class _Rows(Sequence[TaskRecord]):
    """The records of selected pool rows, read on demand (a run touches a few dozen of them):
    a snapshot holds the list of the moment it was taken, which ``LivePool`` never changes in
    place (it only appends, and replaces a record by copying the list)."""

    def __init__(self, records: list[TaskRecord], rows: NDArray[np.intp]) -> None:
        self._records, self._rows = records, rows

    def __len__(self) -> int:
        return int(self._rows.size)

    @overload
    def __getitem__(self, i: int) -> TaskRecord: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[TaskRecord]: ...

    def __getitem__(self, i: int | slice) -> TaskRecord | Sequence[TaskRecord]:
        if isinstance(i, slice):
            return [self._records[r] for r in self._rows[i].tolist()]
        return self._records[int(self._rows[i])]

    def __iter__(self) -> Iterator[TaskRecord]:
        return map(self._records.__getitem__, self._rows.tolist())


class LivePool:
    """Every record seen, in arrival order, with the columns a snapshot needs.

    ``add`` appends (or, for a known key, replaces the record: a stored version only changes
    its embedding space), ``retire`` marks a key superseded, ``select`` gives a viewer's pool
    and ``snapshot`` a :class:`PoolSnapshot` of selected rows.
    """

    def __init__(self) -> None:
        self._records: list[TaskRecord] = []
        self._keys = Column(np.int64)
        self._live = Column(np.bool_, fill=False)
        self._scope, self._task = Column(np.int64), Column(np.int64)
        self._space, self._version = Column(np.int64), Column(np.int64)
        self._disclosure = Column(np.bool_, width=0, fill=False)
        self._scopes: dict[str, int] = {}
        self._tasks: dict[str, int] = {}
        self._spaces: dict[str, int] = {}
        self._labels: dict[str, int] = {}
        self._row_of_key: dict[int, int] = {}
        self._rows_of_ref: dict[TaskRef, list[int]] = {}
        self._shared_refs: set[TaskRef] = set()
        self.ordered = True  # keys ascend with rows, so row order is key order

    def __len__(self) -> int:
        return len(self._records)

    @property
    def keys(self) -> NDArray[np.int64]:
        return self._keys.view

    @property
    def live(self) -> NDArray[np.bool_]:
        return self._live.view

    def row(self, key: int) -> int | None:
        return self._row_of_key.get(key)

    def record(self, row: int) -> TaskRecord:
        return self._records[row]

    def add(self, key: int, record: TaskRecord, *, live: bool = True) -> int:
        """Append ``record`` under ``key`` and return its row; a known key is replaced."""
        row = self._row_of_key.get(key)
        if row is not None:
            self._replace(row, record, live)
            return row
        row = len(self._records)
        if row and key <= int(self._keys.view[-1]):
            self.ordered = False
        self._records.append(record)
        self._keys.append(key)
        self._live.append(live)
        self._scope.append(_code(self._scopes, record.scope))
        self._task.append(_code(self._tasks, record.task_id))
        self._space.append(_code(self._spaces, record.space_id))
        self._version.append(record.work_version)
        self._disclosure.append(False)
        self._set_labels(row, record)
        self._row_of_key[key] = row
        rows = self._rows_of_ref.setdefault(record.ref, [])
        rows.append(row)
        if len(rows) > 1:
            self._shared_refs.add(record.ref)
        return row

    def _replace(self, row: int, record: TaskRecord, live: bool) -> None:
        old = self._records[row]
        if record.ref != old.ref or record.scope != old.scope:
            raise ValueError(f"row {row}: a stored version keeps its task, version and scope")
        if record != old:  # copy on write: snapshots taken before keep the list they read
            self._records = [*self._records]
            self._records[row] = record
        self._live[row] = live
        self._space[row] = _code(self._spaces, record.space_id)
        self._disclosure[row] = False
        self._set_labels(row, record)

    def _set_labels(self, row: int, record: TaskRecord) -> None:
        for label in record.disclosure:
            self._labels.setdefault(label, len(self._labels))
        self._disclosure.widen(len(self._labels))
        self._disclosure[row, [self._labels[label] for label in record.disclosure]] = True

    def retire(self, key: int) -> bool:
        """Mark ``key`` superseded; False when the key is unknown."""
        row = self._row_of_key.get(key)
        if row is not None:
            self._live[row] = False
        return row is not None

    def visible_mask(self, viewer: Viewer) -> NDArray[np.bool_]:
        """``is_visible`` for every row (the snapshot's rule, over the pool's columns)."""
        return visible_mask_over(
            self._scope.view, self._scopes, self._disclosure.view, self._labels, viewer
        )

    def select(self, viewer: Viewer, *, include: int | None = None) -> NDArray[np.intp]:
        """The rows of a viewer's pool: live and visible, in key order, then ``include`` (the
        query's row) at the end when it is visible but superseded, as the service's pool read
        does (which then answers that the query is not current)."""
        visible = self.visible_mask(viewer)
        chosen = self._live.view & visible
        rows = np.flatnonzero(chosen)
        if not self.ordered:
            rows = rows[np.argsort(self._keys.view[rows], kind="stable")]
        if include is not None and visible[include] and not chosen[include]:
            rows = np.append(rows, np.intp(include))
        return rows

    def position(self, rows: NDArray[np.intp]) -> NDArray[np.intp]:
        """Pool row -> its place in ``rows`` (-1 outside): what a snapshot of ``rows`` and
        its rankers look rows up in."""
        position = np.full(len(self._records), -1, dtype=np.intp)
        position[rows] = np.arange(rows.size)
        return position

    def snapshot(
        self, snapshot_id: str, rows: NDArray[np.intp], position: NDArray[np.intp] | None = None
    ) -> PoolSnapshot:
        """A :class:`PoolSnapshot` whose row ``i`` is pool row ``rows[i]`` (``position`` is
        ``self.position(rows)``, when the caller has it).

        Raises ``ValueError`` when two selected rows carry the same ``TaskRef``.
        """
        if position is None:
            position = self.position(rows)
        for ref in self._shared_refs:
            if sum(position[r] >= 0 for r in self._rows_of_ref[ref]) > 1:
                raise ValueError("snapshot records: the same (task_id, work_version) appears twice")
        columns = SnapshotColumns(
            records=_Rows(self._records, rows),
            row_of=_RowLookup(self._rows_of_ref, position),
            scope_codes=self._scope.view[rows],
            scopes=dict(self._scopes),
            task_codes=self._task.view[rows],
            tasks=self._tasks,  # large; appends only add codes, so sharing it is safe
            space_codes=self._space.view[rows],
            spaces=dict(self._spaces),
            versions=self._version.view[rows],
            labels=dict(self._labels),
            disclosure=self._disclosure.view[rows],
        )
        return PoolSnapshot.from_columns(snapshot_id, columns)
