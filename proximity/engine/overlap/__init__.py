"""Task overlap: the authorized, shadow-mode duplicate-work detector (pure engine).

Public entry point: :func:`run_overlap` over a :class:`PoolSnapshot` with injected rankers
(:class:`BM25Ranker`, :class:`DenseRanker`, or :class:`UnavailableRanker`). Outputs are advisories
with status ``needs-independent-adjudication``, unknowns and coverage records only.
"""

from __future__ import annotations

from proximity.engine.overlap.advisories import (
    ADVISORY_STATUS,
    COVERAGE_DEGRADED,
    COVERAGE_HYBRID,
    UNKNOWN_REASONS,
    Advisory,
    AdvisoryCurrency,
    CoverageView,
    OmittedCoverage,
    OverlapRun,
    RankerStatus,
    RepairNeeded,
    ShadowQueueEntry,
    UnknownOutcome,
    coverage_for_viewer,
    shadow_queue_entries,
    verify_advisory_current,
)
from proximity.engine.overlap.dense import DenseIndex, DenseRanker
from proximity.engine.overlap.features import Feature, declared_features, plan_features
from proximity.engine.overlap.fusion import FusedCandidate, reciprocal_rank_fusion
from proximity.engine.overlap.lexical import BM25Index, BM25Ranker, record_text
from proximity.engine.overlap.nli import NliAdapter, NliResponse, directional_nli_features
from proximity.engine.overlap.pipeline import Recheck, recheck_against, run_overlap
from proximity.engine.overlap.plan_sketch import (
    PlanEdge,
    PlanNode,
    PlanSketch,
    plan_atoms,
    plan_exact_key,
    plan_sketch_from_mapping,
)
from proximity.engine.overlap.policy import (
    BOOTSTRAP_POLICY,
    REPAIR_ROUTE,
    SHIPPED_POLICY,
    FeatureRecipe,
    OverlapPolicy,
    policy_digest,
)
from proximity.engine.overlap.rankers import Ranker, RankerResult, UnavailableRanker
from proximity.engine.overlap.records import (
    AccessLabels,
    Provenance,
    RecordError,
    TaskRecord,
    TaskRef,
    Viewer,
    append_version,
    is_visible,
    revise,
)
from proximity.engine.overlap.snapshot import Eligible, PoolSnapshot
from proximity.engine.overlap.space import RuntimeProvenance, SpaceDefinition, space_id

__all__ = [
    "ADVISORY_STATUS",
    "BOOTSTRAP_POLICY",
    "COVERAGE_DEGRADED",
    "COVERAGE_HYBRID",
    "REPAIR_ROUTE",
    "SHIPPED_POLICY",
    "UNKNOWN_REASONS",
    "AccessLabels",
    "Advisory",
    "AdvisoryCurrency",
    "BM25Index",
    "BM25Ranker",
    "CoverageView",
    "DenseIndex",
    "DenseRanker",
    "Eligible",
    "Feature",
    "FeatureRecipe",
    "FusedCandidate",
    "NliAdapter",
    "NliResponse",
    "OmittedCoverage",
    "OverlapPolicy",
    "OverlapRun",
    "PlanEdge",
    "PlanNode",
    "PlanSketch",
    "PoolSnapshot",
    "Provenance",
    "Ranker",
    "RankerResult",
    "RankerStatus",
    "Recheck",
    "RecordError",
    "RepairNeeded",
    "RuntimeProvenance",
    "ShadowQueueEntry",
    "SpaceDefinition",
    "TaskRecord",
    "TaskRef",
    "UnavailableRanker",
    "UnknownOutcome",
    "Viewer",
    "append_version",
    "coverage_for_viewer",
    "declared_features",
    "directional_nli_features",
    "is_visible",
    "plan_atoms",
    "plan_exact_key",
    "plan_features",
    "plan_sketch_from_mapping",
    "policy_digest",
    "recheck_against",
    "reciprocal_rank_fusion",
    "record_text",
    "revise",
    "run_overlap",
    "shadow_queue_entries",
    "space_id",
    "verify_advisory_current",
]
