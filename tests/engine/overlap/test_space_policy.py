"""spaceId identity, runtime provenance and the versioned policy (requirements 15, 16, 26, 32)."""

from __future__ import annotations

import dataclasses

import pytest

from proximity.engine.overlap import (
    BOOTSTRAP_POLICY,
    SHIPPED_POLICY,
    OverlapPolicy,
    RuntimeProvenance,
    SpaceDefinition,
    space_id,
)
from proximity.engine.overlap.streaming import RecordChunk, embedding_inputs, segments

SPACE = SpaceDefinition(
    model_identity="m",
    weights_sha256="w",
    text_template="{objective}",
    preprocessing="p",
    pooling="mean",
    dimension=384,
    normalization="l2",
    metric="cosine",
    precision="float32",
)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model_identity", "m2"),
        ("weights_sha256", "w2"),
        ("text_template", "{deliverable}"),
        ("preprocessing", "p2"),
        ("pooling", "cls"),
        ("dimension", 768),
        ("normalization", "none"),
        ("metric", "dot"),
        ("precision", "float16"),
        ("quantization", "int8"),
    ],
)
def test_changing_any_space_field_changes_space_id(field, value):
    """Requirement 15."""
    assert space_id(dataclasses.replace(SPACE, **{field: value})) != space_id(SPACE)
    assert space_id(SPACE) == space_id(dataclasses.replace(SPACE))


def test_runtime_provenance_is_not_part_of_the_space_definition():
    """Requirement 16: device and library versions live beside the spaceId."""
    names = {f.name for f in dataclasses.fields(SpaceDefinition)}
    assert names.isdisjoint({f.name for f in dataclasses.fields(RuntimeProvenance)})


def test_blank_space_field_is_rejected_by_name():
    with pytest.raises(ValueError, match="pooling"):
        dataclasses.replace(SPACE, pooling=" ")


def test_bootstrap_policy_is_provisional_and_its_digest_tracks_every_field():
    """Requirement 26 and issue item 3: versioned policy; digest stored with every run."""
    assert BOOTSTRAP_POLICY.status == "provisional"
    assert SHIPPED_POLICY.fusion == "rrf"
    assert (BOOTSTRAP_POLICY.rrf_k, BOOTSTRAP_POLICY.depth) == (60, 20)
    for change in (
        {"rrf_k": 10},
        {"depth": 5},
        {"permits_lexical_only": False},
        {"fields_indexed": ("objective",)},
    ):
        assert dataclasses.replace(BOOTSTRAP_POLICY, **change).digest != BOOTSTRAP_POLICY.digest


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rrf_k": -1}, "rrf_k"),
        ({"depth": 0}, "depth"),
        ({"fields_indexed": ("owner",)}, "fields"),
        ({"fusion": "convex"}, "fusion"),
        ({"embedding_input": "guess"}, "embedding_input"),
    ],
)
def test_invalid_policy_values_are_rejected_by_name(change, message):
    with pytest.raises(ValueError, match=message):
        OverlapPolicy(**change)


def chunk(text, version=1, scope="s", space="sp", complete=False):
    return RecordChunk("T", version, scope, space, text, complete)


def test_streaming_segments_never_cross_version_scope_or_space_changes():
    """Requirement 32: smoothing stays inside one version, scope and space."""
    chunks = [chunk("a"), chunk("b"), chunk("c", version=2), chunk("d", version=2, space="x")]
    assert [len(s) for s in segments(chunks)] == [2, 1, 1]
    rolled = embedding_inputs(chunks, mode="rolling-window", window=5)
    assert [t for _, t in rolled] == ["a\nb", "c", "d"]


def test_full_current_record_mode_embeds_only_complete_records():
    """Requirement 32: the default policy mode embeds whole current records only."""
    chunks = [chunk("part"), chunk("whole", version=2, complete=True)]
    assert [t for _, t in embedding_inputs(chunks)] == ["whole"]
    assert BOOTSTRAP_POLICY.embedding_input == "full-current-record"
    with pytest.raises(ValueError, match="mode"):
        embedding_inputs(chunks, mode="averaged")
