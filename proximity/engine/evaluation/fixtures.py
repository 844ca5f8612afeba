"""The six constructed fixtures every labelled corpus carries (requirements 55 and 57).

They pin the hard cases: a paraphrase that is the same task, an independent review that is not, a
shared prerequisite, a shared file with disjoint outputs and a version change that leaves the pair
undecidable. Each has its expected label, its rationale and the evidence that admits that label.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from proximity.engine.evaluation.labels import (
    Judgement,
    Label,
    LabelEvidence,
    LabelledPair,
    RecordRef,
)

__all__ = ["ConstructedFixture", "constructed_corpus", "constructed_fixtures"]

_SHOWN = ("objective", "deliverable", "acceptance", "scope", "workVersion")
_AT = "2026-11-29T12:00:00+00:00"


@dataclass(frozen=True, slots=True)
class ConstructedFixture:
    """Two task records, the label a careful reviewer gives, why, and the evidence behind it."""

    name: str
    record_a: Mapping[str, Any]
    record_b: Mapping[str, Any]
    expected: Label
    rationale: str
    evidence: LabelEvidence
    kind: str = ""


def _rec(
    task: str,
    version: str,
    owner: str,
    objective: str,
    deliverable: str,
    acceptance: tuple[str, ...],
) -> dict[str, Any]:
    return {
        "taskId": task,
        "workVersion": version,
        "owner": owner,
        "objective": objective,
        "deliverable": deliverable,
        "acceptance": list(acceptance),
        "scope": "repo:demo",
    }


def constructed_fixtures() -> tuple[ConstructedFixture, ...]:
    """The six fixtures of requirement 55, in the order the requirement lists them."""
    ev = LabelEvidence
    return (
        ConstructedFixture(
            "two-owners-same-validation",
            _rec(
                "t1",
                "v1",
                "ana",
                "Reject empty emails in signup",
                "validate_email() rejects ''",
                ("test_signup_rejects_empty_email",),
            ),
            _rec(
                "t2",
                "v1",
                "bo",
                "Signup must refuse blank email",
                "validate_email() rejects ''",
                ("test_signup_rejects_empty_email",),
            ),
            Label.SAME_TASK,
            "same validation, same acceptance test, different owners",
            ev(True, deliverable_match=True, acceptance_match=True),
            "paraphrase-positive",
        ),
        ConstructedFixture(
            "same-file-disjoint-outputs",
            _rec("t3", "v1", "ana", "Add CSV export", "export_csv() in reports.py", ("test_csv",)),
            _rec("t4", "v1", "bo", "Add PDF export", "export_pdf() in reports.py", ("test_pdf",)),
            Label.RELATED_DISTINCT,
            "same file, disjoint outputs and tests",
            ev(
                True, deliverable_match=False, acceptance_match=False, shared_topic_or_artifact=True
            ),
        ),
        ConstructedFixture(
            "change-plus-independent-review",
            _rec(
                "t5", "v1", "ana", "Rotate API keys", "key rotation in auth.py", ("test_rotation",)
            ),
            _rec(
                "t6",
                "v1",
                "ana",
                "Independently review key rotation",
                "review of key rotation",
                ("review signed off by a second person",),
            ),
            Label.RELATED_DISTINCT,
            "mandated independent review: same artifact, distinct purpose",
            ev(
                True, deliverable_match=False, acceptance_match=False, shared_topic_or_artifact=True
            ),
            "review-hard-negative",
        ),
        ConstructedFixture(
            "shared-prerequisite",
            _rec("t7", "v1", "ana", "Migrate users table then add SSO", "SSO login", ("test_sso",)),
            _rec(
                "t8",
                "v1",
                "bo",
                "Migrate users table then add audit log",
                "audit log",
                ("test_audit",),
            ),
            Label.PARTIAL_OVERLAP,
            "both need the users-table migration; remaining work differs",
            ev(
                True,
                deliverable_match=False,
                acceptance_match=False,
                shared_prerequisite=True,
                distinct_remaining_work=True,
            ),
        ),
        ConstructedFixture(
            "same-path-new-requirement-version",
            _rec(
                "t9", "v2", "ana", "Cache invalidation (requirement v2)", "cache.py", ("test_ttl",)
            ),
            _rec("t10", "v1", "bo", "Cache invalidation", "cache.py", ("test_ttl",)),
            Label.INSUFFICIENT_EVIDENCE,
            "one side's requirement version changed; not reconciled",
            ev(False),
        ),
        ConstructedFixture(
            "paraphrase-same-output",
            _rec(
                "t11",
                "v1",
                "cy",
                "Make the CLI print its version",
                "--version prints x.y.z",
                ("test_cli_version",),
            ),
            _rec(
                "t12",
                "v1",
                "di",
                "Expose the version number via a command-line flag",
                "--version prints x.y.z",
                ("test_cli_version",),
            ),
            Label.SAME_TASK,
            "paraphrased objective, same required output and acceptance",
            ev(True, deliverable_match=True, acceptance_match=True),
            "paraphrase-positive",
        ),
    )


def constructed_corpus(*, reviewer: str = "fixture") -> tuple[LabelledPair, ...]:
    """The fixtures as a labelled corpus: one blind judgement each, with its rationale."""
    pairs = []
    for fx in constructed_fixtures():
        a = RecordRef(fx.record_a["taskId"], fx.record_a["workVersion"])
        b = RecordRef(fx.record_b["taskId"], fx.record_b["workVersion"])
        judgement = Judgement(reviewer, fx.expected, fx.rationale, _SHOWN, a, b, _AT)
        pairs.append(LabelledPair(f"fixture:{fx.name}", a, b, (judgement,)))
    return tuple(pairs)
