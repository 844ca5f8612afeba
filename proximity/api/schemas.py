"""Request and response schemas (<Thing>In / <Thing>Out); JSON keys are camelCase."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
)
from pydantic.alias_generators import to_camel

from proximity.engine.airspace.profiles import DEFAULT_PROFILE
from proximity.services.time_bounds import iso_time, time_window_error

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]*$"
Id = Field(min_length=1, max_length=120, pattern=ID_PATTERN)
IdStr = Annotated[str, Field(min_length=1, max_length=120, pattern=ID_PATTERN)]
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _relative_path(value: str) -> str:
    """Repository-relative paths only: agents must not name files outside the checkout."""
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters")
    if value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", value):
        raise ValueError("must be relative to the repository root")
    if ".." in re.split(r"[/\\]", value):
        raise ValueError("must not contain '..'")
    return value


RelPath = Annotated[str, Field(min_length=1, max_length=1024), AfterValidator(_relative_path)]


def _one_line(value: str) -> str:
    """A label is shown on the board and in other agents' reasons: one line, no control bytes."""
    if _CONTROL.search(value):
        raise ValueError("must be one line without control characters")
    return value


Label = Annotated[str, Field(max_length=255), AfterValidator(_one_line)]
LineNo = Annotated[int, Field(ge=0, le=10_000_000)]
HunkId = Annotated[str, Field(pattern=r"^[0-9a-f]{8,64}$")]


def _past(value: AwareDatetime) -> AwareDatetime:
    if problem := time_window_error(value):
        raise ValueError(problem)
    return value


def _expiry(value: AwareDatetime) -> AwareDatetime:
    if problem := time_window_error(value, ahead=True):
        raise ValueError(problem)
    return value


# Every time an agent sends: an ISO-8601 string with an offset inside the window
# (proximity/services/time_bounds.py); a number or an out-of-window time is a 422 naming it.
SentTime = Annotated[AwareDatetime, BeforeValidator(iso_time), AfterValidator(_past)]
SentExpiry = Annotated[AwareDatetime, BeforeValidator(iso_time), AfterValidator(_expiry)]


class In(Schema):
    """Inputs reject unknown fields, so a typo is a 422 naming it, not silently ignored."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


class Out(Schema):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class CheckOut(Out):
    name: str
    status: Literal["ok", "warn", "critical"]
    detail: str
    fix: str


class HealthOut(Out):
    status: Literal["ok", "warn", "critical"]
    checks: list[CheckOut]


class ProbeOut(Out):
    status: Literal["ok", "critical"]


class ErrorOut(Out):
    detail: str
    field: str | None = None


# Every authenticated route can answer these (documented so the schema matches what is sent).
ERRORS: dict[int, type[ErrorOut]] = dict.fromkeys(
    (401, 403, 404, 409, 413, 422, 429, 503), ErrorOut
)


class FileIn(In):
    path: RelPath
    lines: list[tuple[LineNo, LineNo]] | None = Field(default=None, max_length=10_000)
    base_hunks: list[tuple[LineNo, LineNo]] | None = Field(default=None, max_length=10_000)
    hunk_ids: list[HunkId] | None = Field(default=None, max_length=10_000)
    status: Literal["A", "M", "D", "R", "C", "T"] | None = None
    old_path: RelPath | None = None
    weight: float | None = Field(default=None, ge=0, le=1)
    touched_at: SentTime | None = None
    excerpt: str | None = Field(default=None, max_length=4000)


class IntentIn(In):
    path: RelPath
    expires_at: SentExpiry | None = None


class WorkingSetIn(In):
    repository: str = Id
    agent_id: str = Id
    label: Label = ""
    started_at: SentTime | None = None
    asked_at: SentTime | None = Field(
        default=None,
        description="the agent's last edit a pre-edit check denied (its local state): an agent "
        "waiting on the radar is not idle, so it parks only after it as after its last change",
    )
    published: StrictBool = Field(
        default=False,
        description="every change is committed and the branch's head is on a remote: work "
        "waiting on review, which never parks (it holds its lines until it merges)",
    )
    files: list[FileIn] = Field(max_length=5000)
    intent: list[IntentIn] = Field(default_factory=list, max_length=500)


class WorkingSetOut(Out):
    repository: str
    agent_id: str
    version: int
    reported_at: AwareDatetime
    expires_at: AwareDatetime


class WorkingSetLeaveOut(Out):
    repository: str
    agent_id: str
    # False when it held none (already left, or expired): the leave is idempotent.
    retired: bool
    at: AwareDatetime


class RepositoryOut(Out):
    name: str
    scope: str
    base_branch: str
    profile: str
    agent_count: int
    merge_checks: bool = False
    merge_check_tests: bool = False
    # The profile's parked time replaced (0: never parked); null: the profile's.
    parked_hours: float | None = None
    # Set once removed: the repository takes no reports, its records stay readable.
    archived_at: AwareDatetime | None = None


class RepositoryIn(In):
    """Formats are checked by the service (shared with the command and the admin), not here."""

    name: str = Field(max_length=120)
    path: str = Field(default="", max_length=1024)
    scope: str = Field(default="", max_length=120)
    base_branch: str = Field(default="main", max_length=255)
    watch: bool = False
    webhook_url: str = Field(default="", max_length=200)
    profile: str = Field(default=DEFAULT_PROFILE, max_length=32)
    merge_checks: bool = False
    merge_check_tests: bool = False
    # strict: true is not a number of hours (the range is the service's)
    parked_hours: float | None = Field(default=None, strict=True)


class ScanOut(Out):
    repository: str
    scan_id: int
    profile: str
    scorer_version: str
    finished_at: AwareDatetime | None
    generated_at: str | None
    counts: dict[str, int]
    positions: list[dict[str, Any]]
    file_coordinates: dict[str, list[float]]
    links: list[dict[str, Any]]


class MergeCheckStateOut(Out):
    """A pair's speculative merge check: ``not checked`` unless a check of the pair's current
    trees finished (``checked``) or is queued or running (``checking``); never "clear"."""

    state: Literal["checked", "checking", "not checked"] = "not checked"
    checked_at: str | None = None
    outcome: str | None = None
    problems: list[dict[str, Any]] = Field(default_factory=list)
    reason: str | None = None
    tests: dict[str, Any] | None = Field(
        default=None,
        description="the repository tests' part, when the repository runs them: state (clean, "
        "conflicts, none selected, timeout, error: could not start, not run: embedded mode), "
        "selected test files, conflicts, reason",
    )


class AdvisoryOut(Out):
    id: int
    repository: str
    agent_a: str
    agent_b: str
    band: str
    band_label: str
    risk: float
    calibrated_probability: float | None
    calibration_label: str
    channels: dict[str, float]
    conflict: bool
    escalated: bool
    steer: str | None
    hold: str | None
    closure_rate: float | None
    trend: str
    state: str
    profile: str
    scorer_version: str
    first_seen: AwareDatetime
    last_seen: AwareDatetime
    acknowledged_by: list[dict[str, Any]]
    detail: dict[str, Any]
    merge_check: MergeCheckStateOut = Field(default_factory=MergeCheckStateOut)


class EditCheckIn(In):
    """A planned edit: engine file entries (``baseHunks`` in the merge base's coordinates)."""

    repository: str = Id
    agent_id: str = Id
    files: list[FileIn] = Field(min_length=1, max_length=200)


class FindingOut(Out):
    other: str
    level: Literal["advisory", "resolution"]
    risk: float
    channels: dict[str, float]
    paths: list[str]
    their_lines: dict[str, list[tuple[int, int]] | None]
    their_excerpt: dict[str, str]
    their_label: str
    their_intent: list[str]
    hold: str | None
    steer: str | None
    # the pair's agents parked (no change for the profile's parked time), so yielding
    parked: list[str] = []
    # when the holder, idle since its last change, counts as parked if it changes nothing more
    holder_yields_at: str | None = None
    # the holder's work is published (committed, on a remote): it holds until it merges
    holder_published: bool = False
    advisory_id: int | None
    acknowledged: bool
    symbols: list[str] = []
    merge_check: dict[str, Any] | None = None
    # git's merge verdict on the shared files with the planned edit (proximity.agent.textual).
    textual: Literal["clean", "conflict"] | None = None


class EditCheckOut(Out):
    agent: str
    repository: str
    source: str
    coverage: Literal["ok", "degraded", "unknown"]
    reason: str
    paths: list[str]
    findings: list[FindingOut]
    # The planned lines per path, as asked: a holder's reason names the lines it keeps.
    lines: dict[str, list[tuple[int, int]] | None] = Field(default_factory=dict)


class EditAcknowledgeIn(In):
    repository: str = Id
    agent_id: str = Id
    other: str = Id
    paths: list[RelPath] = Field(default_factory=list, max_length=200)
    base_revision: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")
    note: str = Field(default="", max_length=500)


class EditAcknowledgementOut(Out):
    repository: str
    agent_id: str
    other: str
    advisory_id: int | None
    created_at: AwareDatetime
    expires_at: AwareDatetime


class AgentOut(Out):
    agent_id: str
    label: str
    started_at: AwareDatetime | None
    last_report_at: AwareDatetime | None
    files: list[dict[str, Any]]
    intent: list[Any]


class AcknowledgeIn(In):
    note: str = Field(default="", max_length=500)


class MessageOut(Out):
    id: int
    kind: str
    band: str
    risk: float
    from_agent: str
    advisory_id: int
    content: str
    created_at: AwareDatetime


class TrailOut(Out):
    trail_id: str
    repository: str
    receipt_count: int
    head_hash: str
    updated_at: AwareDatetime
    verified: bool
    summary: dict[str, Any] | None
    document: dict[str, Any]


class PlanNodeIn(In):
    id: str = Field(min_length=1, max_length=120)
    action_type: str = Field(min_length=1, max_length=120)
    arguments: list[str] | None = Field(default=None, max_length=50)
    target: str | None = Field(default=None, max_length=1024)


class PlanEdgeIn(In):
    before: str = Field(min_length=1, max_length=120)
    after: str = Field(min_length=1, max_length=120)
    kind: str = Field(min_length=1, max_length=60)


class PlanSketchIn(In):
    work_version: int | None = None
    scope_id: str | None = Field(default=None, max_length=120)
    deliverable: str | None = Field(default=None, max_length=2000)
    acceptance: list[str] = Field(default_factory=list, max_length=50)
    nodes: list[PlanNodeIn] = Field(default_factory=list, max_length=200)
    edges: list[PlanEdgeIn] = Field(default_factory=list, max_length=400)


Text = Annotated[str, Field(min_length=1, max_length=4000)]
Short = Annotated[str, Field(min_length=1, max_length=500)]


class TaskIn(In):
    """A declared task contract. Owner is provenance only, never identity evidence."""

    scope: str = Id
    disclosure: list[IdStr] = Field(default_factory=list, max_length=20)
    objective: Text
    deliverable: Text
    acceptance: list[Short] = Field(min_length=1, max_length=50)
    dependencies: list[Short] | None = Field(default=None, max_length=50)
    purpose: str = Field(default="", max_length=2000)
    plan_facts: list[Short] | None = Field(default=None, max_length=100)
    plan_sketch: PlanSketchIn | None = None
    owner: str = Field(default="", max_length=120)


class TaskDeclareIn(TaskIn):
    task_id: IdStr | None = None


class TaskReviseIn(TaskIn):
    previous_version: int = Field(ge=1)


class TaskVersionOut(Out):
    task_id: str
    work_version: int
    current: bool
    scope: str
    disclosure: list[str]
    objective: str
    deliverable: str
    acceptance: list[str]
    dependencies: list[str] | None
    purpose: str
    plan_facts: list[str] | None
    plan_sketch: dict[str, Any] | None
    owner: str
    space_id: str
    created_at: AwareDatetime


class OverlapRunOut(Out):
    task_id: str
    scope: str  # task ids are unique per scope: with the id, it names the task
    work_version: int
    status: str
    coverage: str
    policy_digest: str
    policy_version: str
    snapshot_id: str
    pool_size: int
    advisories: int
    # The review stage: cards within the budget, candidates held back beyond it (stored,
    # listed by GET /api/overlap-advisories?include=held, never negatives), requirement 70.
    queued: int
    held_back: int
    review_budget: int | None
    evidence_model: str
    delivery: str
    unknowns: list[dict[str, Any]]
    omitted_count: int
    omitted_by_reason: dict[str, int]
    repairs: list[dict[str, Any]]


class OverlapAdvisoryOut(Out):
    id: int
    status: str
    current: bool
    task_a: str
    scope_a: str
    version_a: int
    task_b: str
    scope_b: str
    version_b: int
    coverage: str
    ranks: dict[str, int | None]
    fused_rank: int
    queue_rank: int | None
    queued: bool
    evidence_score: float | None
    delivery: str
    features: list[dict[str, Any]]
    evidence: dict[str, Any]
    created_at: AwareDatetime
