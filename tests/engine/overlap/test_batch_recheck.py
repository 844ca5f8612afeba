"""A recheck that answers for all candidates at once gives the run a per-pair recheck gives."""

from __future__ import annotations

from collections.abc import Sequence

from proximity.engine.overlap import PoolSnapshot, TaskRecord, TaskRef, recheck_against, revise

from .builders import LEAD, record
from .test_pipeline import TEXT, run, world


class Batched:
    """``recheck_against`` behind the batch protocol, counting its calls."""

    def __init__(self, latest: PoolSnapshot, *, fail: bool = False) -> None:
        self.pair, self.fail = recheck_against(latest, LEAD), fail
        self.batches: list[int] = []

    def __call__(self, query: TaskRecord, candidate: TaskRecord) -> bool:
        raise AssertionError("the pipeline asks many() when it is offered")

    def many(self, query: TaskRecord, candidates: Sequence[TaskRecord]) -> list[bool]:
        self.batches.append(len(candidates))
        if self.fail:
            raise ConnectionError("database gone")
        return [self.pair(query, c) for c in candidates]


def _later(snapshot: PoolSnapshot) -> PoolSnapshot:
    """A candidate (A) revised after the run's snapshot."""
    return PoolSnapshot.build("snap-2", [*snapshot.records, revise(record("A", TEXT), purpose="x")])


def test_one_batch_recheck_equals_a_recheck_per_candidate() -> None:
    snapshot = world()
    batched = Batched(_later(snapshot))
    got = run(snapshot, recheck=batched)
    expected = run(snapshot, recheck=recheck_against(_later(snapshot), LEAD))
    assert batched.batches == [len(got.advisories) + len(got.unknowns)]  # one read per run
    assert got == expected
    changed = [u.candidate for u in got.unknowns if u.reason == "record-or-authority-changed"]
    assert changed == [TaskRef("A", 1)]
    assert got.advisories, "the other candidates are still emitted"


def test_a_failed_batch_recheck_makes_every_candidate_unknown_not_a_crash() -> None:
    snapshot = world()
    got = run(snapshot, recheck=Batched(snapshot, fail=True))
    assert not got.advisories
    assert got.unknowns
    assert {u.reason for u in got.unknowns} == {"record-or-authority-changed"}
    assert all("ConnectionError: database gone" in (u.detail or "") for u in got.unknowns)
