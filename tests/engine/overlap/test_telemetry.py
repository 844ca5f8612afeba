"""Telemetry records and hypotheses with benign explanations (requirements 75, 76)."""

from __future__ import annotations

import dataclasses

from proximity.engine.overlap.telemetry import (
    BENIGN_EXPLANATIONS,
    TelemetryEvent,
    telemetry_hypotheses,
)


def event(task, **kw):
    base = TelemetryEvent(
        task_id=task,
        work_version=2,
        environment_version="env-1",
        agent_id=f"agent-{task}",
        scope="payments",
        tool_name="edit_file",
        argument_signature="path=api.py",
        result_status="ok",
        started_at=100.0,
        shared_state_revision="rev-9",
        wrote=False,
        brief_version=2,
    )
    return dataclasses.replace(base, **kw)


def test_telemetry_event_keeps_the_listed_facts():
    """Requirement 75: versions, ids, scope, plan/acceptance, tool, args, status, revision,
    termination reason and success oracle (None when not reported)."""
    names = {f.name for f in dataclasses.fields(TelemetryEvent)}
    assert names >= {
        "task_id",
        "work_version",
        "environment_version",
        "agent_id",
        "scope",
        "declared_plan",
        "declared_acceptance",
        "tool_name",
        "argument_signature",
        "result_status",
        "shared_state_revision",
        "termination_reason",
        "success_oracle",
    }


def test_every_signal_is_a_hypothesis_beside_its_benign_explanation():
    """Requirement 76: five signals, each with its competing explanation, none a label."""
    hypotheses = telemetry_hypotheses([event("A"), event("B", brief_version=1)])
    signals = {h.signal for h in hypotheses}
    assert signals == set(BENIGN_EXPLANATIONS)
    assert all(h.status == "hypothesis" for h in hypotheses)
    assert all(h.benign_explanation == BENIGN_EXPLANATIONS[h.signal] for h in hypotheses)


def test_same_task_or_other_scope_gives_no_hypothesis():
    assert telemetry_hypotheses([event("A"), event("A", agent_id="x")]) == ()
    assert telemetry_hypotheses([event("A"), event("B", scope="search")]) == ()
