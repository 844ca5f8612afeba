"""NLI adapter contract: six directional probabilities or an explicit unknown (req. 34-41)."""

from __future__ import annotations

import math
import threading

import pytest

from proximity.engine.overlap.nli import NliResponse, directional_nli_features

GOOD = {"neutral": 0.5, "contradiction": 0.2, "entailment": 0.3}  # any label order (req. 34)


def adapter_returning(response):
    def adapter(premise: str, hypothesis: str) -> NliResponse:
        return response

    return adapter


def test_both_directions_give_six_probabilities():
    """Requirement 35: A->B and B->A, three named classes each."""
    calls = []

    def adapter(premise, hypothesis):
        calls.append((premise, hypothesis))
        return NliResponse("complete", GOOD)

    feats = directional_nli_features("a text", "b text", adapter)
    assert calls == [("a text", "b text"), ("b text", "a text")]
    assert len(feats) == 6
    assert {f.status for f in feats} == {"value"}
    assert {f.name: f.value for f in feats}["nli.b_to_a.neutral"] == 0.5


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (NliResponse("complete", {"entailment": 0.5, "neutral": 0.5}), "labels"),
        (NliResponse("complete", GOOD | {"other": 0.0}), "labels"),
        (NliResponse("complete", GOOD | {"neutral": math.nan}), "finite"),
        (NliResponse("complete", GOOD | {"neutral": 1.5}), "finite"),
        (NliResponse("complete", GOOD | {"neutral": 0.5 + 2e-6}), "sum to"),
        (NliResponse("partial", GOOD), "not complete"),
        (NliResponse("truncated", GOOD), "undisclosed truncation"),
        ({"entailment": 1.0}, "NliResponse"),
    ],
)
def test_unacceptable_responses_are_unknown_input_without_renormalising(response, reason):
    """Requirements 36, 39: labels, finiteness, [0,1], sum within 1e-6, complete status."""
    feats = directional_nli_features("a", "b", adapter_returning(response))
    assert [f.status for f in feats] == ["unknown", "unknown"]
    assert all(f.detail.startswith("unknown-nli-input") and reason in f.detail for f in feats)
    assert all(f.value is None for f in feats)


def test_sum_within_tolerance_is_accepted():
    ok = GOOD | {"neutral": 0.5 + 5e-7}
    feats = directional_nli_features("a", "b", adapter_returning(NliResponse("complete", ok)))
    assert {f.status for f in feats} == {"value"}


@pytest.mark.parametrize(("a", "b"), [("", "b"), ("a", "   "), (None, "b"), ("a", 3)])
def test_blank_or_non_string_input_is_unknown_input_and_adapter_not_called(a, b):
    """Requirement 37."""
    called = []
    feats = directional_nli_features(a, b, lambda p, h: called.append(1))
    assert called == []
    assert all(f.detail.startswith("unknown-nli-input") for f in feats)


def test_adapter_exception_is_unknown_adapter():
    """Requirement 37."""

    def broken(premise, hypothesis):
        raise RuntimeError("model exploded")

    feats = directional_nli_features("a", "b", broken)
    assert [f.detail for f in feats] == ["unknown-nli-adapter", "unknown-nli-adapter"]


def test_timeout_is_an_unknown_status_not_a_missing_feature():
    """Requirement 38: a bounded wait; the slow call becomes unknown-nli-timeout."""
    release = threading.Event()

    def slow(premise, hypothesis):
        release.wait(5)
        return NliResponse("complete", GOOD)

    try:
        feats = directional_nli_features("a", "b", slow, timeout_s=0.05)
    finally:
        release.set()
    assert [(f.status, f.detail) for f in feats] == [("unknown", "unknown-nli-timeout")] * 2


def test_disclosed_truncation_is_reported_with_the_feature():
    """Requirement 39."""
    response = NliResponse("truncated", GOOD, truncation="pair of 700 tokens cut to 512")
    feats = directional_nli_features("a", "b", adapter_returning(response))
    assert {f.status for f in feats} == {"value"}
    assert all("cut to 512" in f.detail for f in feats)


def test_neutral_stays_neutral_and_no_adapter_means_unavailable():
    """Requirements 41, 4 (features only): neutral is stored as neutral; no model -> unavailable."""
    neutral = {"entailment": 0.0, "neutral": 1.0, "contradiction": 0.0}
    feats = directional_nli_features("a", "b", adapter_returning(NliResponse("complete", neutral)))
    assert {f.name: f.value for f in feats}["nli.a_to_b.neutral"] == 1.0
    (unavailable,) = directional_nli_features("a", "b", None)
    assert unavailable.status == "unavailable"


def test_stuck_calls_do_not_leave_a_thread_behind_each(caplog):
    """A hung model keeps at most the shared pool's threads, however many calls time out."""
    release = threading.Event()

    def hung(premise, hypothesis):
        release.wait(30)
        return NliResponse("complete", GOOD)

    try:
        for _ in range(6):
            feats = directional_nli_features("a", "b", hung, timeout_s=0.02)
            assert {f.detail for f in feats} == {"unknown-nli-timeout"}
        alive = [t for t in threading.enumerate() if t.name.startswith("nli")]
        assert 1 <= len(alive) <= 2
    finally:
        release.set()


def test_an_adapter_failure_is_logged_with_its_kind(caplog):
    def broken(premise, hypothesis):
        raise RuntimeError("model exploded")

    with caplog.at_level("WARNING", logger="proximity.engine.overlap.nli"):
        feats = directional_nli_features("a", "b", broken)
    assert {f.detail for f in feats} == {"unknown-nli-adapter"}
    assert "RuntimeError: model exploded" in caplog.text
