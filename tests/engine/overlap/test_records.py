"""Task records, versions and the authorization rule (requirements 1, 2, 5 and the decision)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.overlap import (
    PoolSnapshot,
    RecordError,
    Viewer,
    append_version,
    is_visible,
    revise,
)
from proximity.engine.overlap.serialization import (
    task_record_from_mapping,
    task_record_to_mapping,
)

from .builders import record


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("objective", "new objective"),
        ("deliverable", "new deliverable"),
        ("acceptance", ("new check",)),
        ("scope", "search"),
        ("plan_facts", ("fact",)),
    ],
)
def test_contract_change_creates_new_version_and_leaves_old_untouched(field, value):
    """Requirement 1: a changed objective/deliverable/acceptance/scope/plan is a new version."""
    old = record("T")
    new = revise(old, **{field: value})
    assert (new.task_id, new.work_version) == ("T", 2)
    assert getattr(new, field) == value
    assert getattr(old, field) != value
    assert old.work_version == 1


def test_records_are_immutable_and_versions_never_rewritten():
    """Requirement 1: frozen records; an existing version cannot get a different body."""
    old = record("T")
    with pytest.raises(dataclasses.FrozenInstanceError):
        old.objective = "x"  # type: ignore[misc]
    history = append_version((), old)
    assert append_version(history, old) == history  # idempotent re-append
    with pytest.raises(RecordError, match="immutable"):
        append_version(history, dataclasses.replace(old, objective="rewritten"))
    with pytest.raises(RecordError, match="work_version must be 2"):
        append_version(history, dataclasses.replace(old, work_version=3))
    assert append_version(history, revise(old, objective="y"))[-1].work_version == 2


def test_revise_requires_a_contract_change_and_refuses_identity_fields():
    with pytest.raises(RecordError, match="at least one contract field"):
        revise(record("T"), objective=record("T").objective)
    with pytest.raises(RecordError, match="task_id cannot be revised"):
        revise(record("T"), task_id="U")
    with pytest.raises(RecordError, match="unknown field"):
        revise(record("T"), colour="red")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task_id": " "}, "task_id"),
        ({"work_version": 0}, "work_version"),
        ({"work_version": True}, "work_version"),
        ({"acceptance": ["a"]}, "acceptance"),
    ],
)
def test_bad_record_input_names_the_field(kwargs, message):
    with pytest.raises(RecordError, match=message):
        dataclasses.replace(record("T"), **kwargs)


def test_record_stores_every_contract_field_and_round_trips_json():
    """Requirement 2: scope, disclosure, objective, deliverable, acceptance, dependencies,
    plan facts, provenance with owner, and the embedding spaceId."""
    original = record("T", "ship it", dependencies=("T0",), plan_facts=("touches api",))
    data = task_record_to_mapping(original)
    assert set(data) >= {
        "taskId",
        "workVersion",
        "scope",
        "disclosure",
        "objective",
        "deliverable",
        "acceptance",
        "dependencies",
        "planFacts",
        "provenance",
        "spaceId",
    }
    assert data["provenance"]["owner"] == "owner-T"
    assert task_record_from_mapping(data) == original


def test_malformed_json_record_names_the_field():
    data = task_record_to_mapping(record("T"))
    with pytest.raises(RecordError, match="acceptance"):
        task_record_from_mapping(data | {"acceptance": "not a list"})
    with pytest.raises(RecordError, match=r"provenance\.owner"):
        task_record_from_mapping(data | {"provenance": {}})


@pytest.mark.parametrize(
    ("scope", "labels", "visible"),
    [
        ("payments", frozenset(), True),
        ("payments", frozenset({"internal"}), True),
        ("payments", frozenset({"internal", "hr"}), False),
        ("legal", frozenset(), False),
        (None, frozenset(), False),
    ],
)
def test_visibility_needs_scope_and_every_disclosure_clearance(scope, labels, visible):
    """Authorization decision: scope among the viewer's scopes, all labels cleared."""
    viewer = Viewer("v", frozenset({"payments"}), frozenset({"internal"}))
    assert is_visible(record("T", scope=scope, disclosure=labels), viewer) is visible


_labels = st.frozensets(st.sampled_from(["a", "b", "c"]))


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["s1", "s2", None]), _labels), min_size=1, max_size=12),
    st.frozensets(st.sampled_from(["s1", "s2", "s3"])),
    _labels,
)
def test_snapshot_visibility_mask_agrees_with_is_visible(rows, scopes, clearances):
    """The vectorised filter is the same rule as the one pure function."""
    records = [record(f"T{i}", scope=s, disclosure=d) for i, (s, d) in enumerate(rows)]
    viewer = Viewer("v", scopes, clearances)
    mask = PoolSnapshot.build("s", records).visible_mask(viewer)
    assert mask.tolist() == [is_visible(r, viewer) for r in records]


def test_snapshot_marks_only_latest_version_current_and_rejects_duplicates():
    """Requirement 12 groundwork: superseded = a later version of the task is present."""
    v1 = record("T")
    snapshot = PoolSnapshot.build("s", [v1, revise(v1, objective="v2"), record("U")])
    assert snapshot.current.tolist() == [False, True, True]
    with pytest.raises(ValueError, match="appears twice"):
        PoolSnapshot.build("s", [v1, v1])
