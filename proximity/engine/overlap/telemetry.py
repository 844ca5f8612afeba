"""Telemetry observations as hypotheses, each beside its benign explanation (requirements 75-76).

A telemetry signal never produces a label: matching arguments may be a retry, the same resource
may be legitimate parallel work. The record keeps what the design lists, and nothing inferred.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BENIGN_EXPLANATIONS", "TelemetryEvent", "TelemetryHypothesis", "telemetry_hypotheses"]

#: Each observable signal and the competing explanation shown beside it.
BENIGN_EXPLANATIONS = {
    "matching-tool-arguments": "retry, poll or cache miss",
    "same-resource": "legitimate parallel work",
    "same-start-time": "fan-out from one coordinator",
    "read-without-write": "partial instrumentation or read-only work",
    "stale-brief": "a stale brief that was since updated",
}


@dataclass(frozen=True, slots=True)
class TelemetryEvent:
    """One tool call as ingested (requirement 75). ``None`` marks a fact not reported."""

    task_id: str
    work_version: int
    environment_version: str
    agent_id: str
    scope: str
    tool_name: str
    argument_signature: str
    result_status: str
    started_at: float
    declared_plan: tuple[str, ...] | None = None
    declared_acceptance: tuple[str, ...] | None = None
    shared_state_revision: str | None = None
    termination_reason: str | None = None
    success_oracle: str | None = None
    wrote: bool | None = None
    brief_version: int | None = None


@dataclass(frozen=True, slots=True)
class TelemetryHypothesis:
    """A signal between two events, shown as a hypothesis with its benign explanation."""

    signal: str
    left: tuple[str, str]
    right: tuple[str, str]
    benign_explanation: str
    status: str = "hypothesis"


def _signals(a: TelemetryEvent, b: TelemetryEvent, *, same_start_s: float) -> list[str]:
    signals = []
    if a.tool_name == b.tool_name and a.argument_signature == b.argument_signature:
        signals.append("matching-tool-arguments")
    if a.shared_state_revision is not None and a.shared_state_revision == b.shared_state_revision:
        signals.append("same-resource")
    if abs(a.started_at - b.started_at) <= same_start_s:
        signals.append("same-start-time")
    if a.wrote is False and b.wrote is False:
        signals.append("read-without-write")
    if any(e.brief_version is not None and e.brief_version < e.work_version for e in (a, b)):
        signals.append("stale-brief")
    return signals


def telemetry_hypotheses(
    events: Sequence[TelemetryEvent], *, same_start_s: float = 1.0
) -> tuple[TelemetryHypothesis, ...]:
    """Hypotheses between events of different tasks in the same scope.

    Parameters
    ----------
    events : sequence of TelemetryEvent
    same_start_s : float, default 1.0
        Window for "same start time"; a display tunable, not a label rule.
    """
    out: list[TelemetryHypothesis] = []
    for i, a in enumerate(events):
        for b in events[i + 1 :]:
            if a.task_id == b.task_id or a.scope != b.scope:
                continue
            out.extend(
                TelemetryHypothesis(
                    signal,
                    (a.task_id, a.agent_id),
                    (b.task_id, b.agent_id),
                    BENIGN_EXPLANATIONS[signal],
                )
                for signal in _signals(a, b, same_start_s=same_start_s)
            )
    return tuple(out)
