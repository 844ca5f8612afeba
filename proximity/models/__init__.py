"""Overlap Radar's stored state: fields, constraints and indexes; logic lives in services.

Three groups: who may see what (principals, tokens), code-space proximity (repositories, agents,
working-set snapshots, graphs, scans, advisories, messages, trails) and task overlap (records,
versions, runs, advisories, unknowns, omissions, repairs, adjudications), plus the holdout ledger.
"""

from __future__ import annotations

from proximity.models.access import ApiToken, Principal, WorkerHeartbeat
from proximity.models.airspace import (
    Agent,
    DependencyGraphSnapshot,
    EditAcknowledgement,
    ProximityAdvisory,
    ProximityScan,
    Repository,
    RiskSample,
    ShadowTrail,
    TriggerCooldown,
    TriggerMessage,
    WorkingSetSnapshot,
)
from proximity.models.evaluation import HoldoutEvaluation
from proximity.models.mergecheck import MergeCheck
from proximity.models.overlap import (
    Adjudication,
    CoverageOmission,
    OverlapAdvisory,
    OverlapRun,
    RepairRecord,
    TaskRecord,
    TaskVersion,
    UnknownEmission,
)

__all__ = [
    "Adjudication",
    "Agent",
    "ApiToken",
    "CoverageOmission",
    "DependencyGraphSnapshot",
    "EditAcknowledgement",
    "HoldoutEvaluation",
    "MergeCheck",
    "OverlapAdvisory",
    "OverlapRun",
    "Principal",
    "ProximityAdvisory",
    "ProximityScan",
    "RepairRecord",
    "Repository",
    "RiskSample",
    "ShadowTrail",
    "TaskRecord",
    "TaskVersion",
    "TriggerCooldown",
    "TriggerMessage",
    "UnknownEmission",
    "WorkerHeartbeat",
    "WorkingSetSnapshot",
]
