"""Declared and plan-sketch features (requirements 33, 40, 42-47)."""

from __future__ import annotations

import dataclasses
import pathlib

import pytest

import proximity.engine.overlap as overlap
from proximity.engine.overlap import (
    BOOTSTRAP_POLICY,
    FeatureRecipe,
    PlanEdge,
    PlanNode,
    PlanSketch,
    declared_features,
    plan_atoms,
    plan_exact_key,
    plan_features,
    plan_sketch_from_mapping,
)

from .builders import record

SKETCH = {
    "workVersion": 1,
    "scopeId": "payments",
    "deliverable": "order API rejects negative quantity",
    "acceptance": ["test_negative passes"],
    "nodes": [
        {"id": "n1", "actionType": "edit", "arguments": ["reject < 0"], "target": "api.py"},
        {"id": "n2", "actionType": "run-tests", "arguments": None, "target": None},
    ],
    "edges": [{"before": "n1", "after": "n2", "kind": "before"}],
}


def by_name(features):
    return {f.name: f for f in features}


def test_missing_declared_fields_are_unknown_not_zero():
    """Requirement 33: an undeclared field is unknown, with the side that lacks it."""
    a = record("A", acceptance=None, dependencies=None)
    feats = by_name(declared_features(a, record("B")))
    assert feats["acceptance.shared_checks_jaccard"].status == "unknown"
    assert feats["acceptance.shared_checks_jaccard"].value is None
    assert feats["dependencies.jaccard"].detail == "not declared by a"
    assert feats["deliverable.token_jaccard"].status == "value"


def test_declared_overlap_values():
    a = record("A", "x", deliverable="Export CSV", acceptance=("t1", "t2"), dependencies=("D",))
    b = record("B", "y", deliverable="export  csv!", acceptance=("t2",), dependencies=("D", "E"))
    feats = by_name(declared_features(a, b))
    assert feats["deliverable.same_normalised_text"].value is True
    assert feats["acceptance.shared_checks_jaccard"].value == 0.5
    assert feats["dependencies.jaccard"].value == 0.5
    assert feats["dependencies.declared_link"].value is False
    assert feats["scope.same"].value is True


def test_plan_sketch_schema_parses_and_rejects_dangling_edges():
    """Requirement 42: {workVersion, scopeId, deliverable, acceptance[], nodes[], edges[]}."""
    sketch = plan_sketch_from_mapping(SKETCH)
    assert sketch.nodes[0] == PlanNode("n1", "edit", ("reject < 0",), "api.py")
    assert sketch.edges == (PlanEdge("n1", "n2", "before"),)
    with pytest.raises(ValueError, match="unknown node id"):
        plan_sketch_from_mapping(SKETCH | {"edges": [{"before": "n1", "after": "n9", "kind": "x"}]})


def test_exact_key_is_canonical_and_reported_as_same_serialization_only():
    """Requirement 43: canonical key (node order, workVersion ignored); never 'same_task'."""
    sketch = plan_sketch_from_mapping(SKETCH)
    shuffled = dataclasses.replace(sketch, nodes=sketch.nodes[::-1], work_version=7)
    assert plan_exact_key(sketch) == plan_exact_key(shuffled)
    feats = by_name(
        plan_features(record("A", plan_sketch=sketch), record("B", plan_sketch=shuffled))
    )
    assert feats["plan.exact_key"].value == "same serialization"
    assert all("same_task" not in str(f.value) for f in feats.values())


def test_minhash_and_simhash_are_two_separate_features():
    """Requirement 44: estimated set resemblance and Hamming distance, each labelled as such."""
    sketch = plan_sketch_from_mapping(SKETCH)
    other = dataclasses.replace(sketch, deliverable="something else")
    feats = by_name(plan_features(record("A", plan_sketch=sketch), record("B", plan_sketch=other)))
    resemblance, distance = feats["plan.minhash_resemblance"], feats["plan.simhash_hamming"]
    assert 0.0 < resemblance.value < 1.0
    assert "set resemblance" in resemblance.detail
    assert isinstance(distance.value, int)
    assert "Hamming" in distance.detail
    assert feats["plan.exact_key"].value == "different serialization"


def test_missing_plan_sketch_gives_unknown_plan_features():
    feats = plan_features(record("A"), record("B", plan_sketch=plan_sketch_from_mapping(SKETCH)))
    assert {f.status for f in feats} == {"unknown"}


def test_missing_plan_fields_are_never_inferred():
    """Requirement 47: no target, no arguments, no acceptance -> no atoms for them."""
    sketch = PlanSketch(1, None, None, None, (PlanNode("n", "edit"),))
    assert plan_atoms(sketch) == frozenset({"action:edit"})


def test_recipe_is_versioned_with_the_policy():
    """Requirements 45, 46: the recipe lives in the policy; changing it changes the digest."""
    assert BOOTSTRAP_POLICY.features.plan_recipe == "plan-atoms/1"
    changed = dataclasses.replace(BOOTSTRAP_POLICY, features=FeatureRecipe(minhash_num_perm=64))
    assert changed.digest != BOOTSTRAP_POLICY.digest


def test_no_feature_sets_a_label_and_no_is_overlap_exists():
    """Requirements 40, 45: features carry no label and there is no is_overlap anywhere."""
    root = pathlib.Path(overlap.__file__).parent
    for path in root.glob("*.py"):
        text = path.read_text()
        assert "is_overlap" not in text, path
        for label in ("same_task", "partial_overlap", "related_distinct"):
            assert f'"{label}"' not in text, (path, label)
    feats = declared_features(record("A"), record("B"))
    assert all(f.status in {"value", "unknown", "unavailable"} for f in feats)
