"""The shadow-mode overlap pipeline of the design, step by step (spec 000, "Shadow-mode
retrieval pattern"): a pure function over one snapshot with injected rankers and recheck.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap.advisories import (
    COVERAGE_DEGRADED,
    COVERAGE_HYBRID,
    Advisory,
    OmittedCoverage,
    OverlapRun,
    RankerStatus,
    RepairNeeded,
    UnknownOutcome,
)
from proximity.engine.overlap.features import Feature, declared_features, plan_features
from proximity.engine.overlap.fusion import FusedCandidate, reciprocal_rank_fusion
from proximity.engine.overlap.lexical import record_text
from proximity.engine.overlap.nli import NliAdapter, directional_nli_features
from proximity.engine.overlap.policy import OverlapPolicy
from proximity.engine.overlap.rankers import Ranker, RankerResult, safe_rank
from proximity.engine.overlap.records import TaskRecord, TaskRef, Viewer, is_visible
from proximity.engine.overlap.similarity import ObjectiveEmbedder, similarity_features
from proximity.engine.overlap.snapshot import Eligible, PoolSnapshot

__all__ = ["BatchRecheck", "Recheck", "recheck_against", "run_overlap"]

#: ``recheck(query, candidate)``: are both still authorized for the viewer and current?
Recheck = Callable[[TaskRecord, TaskRecord], bool]


class BatchRecheck(Protocol):
    """A recheck that also answers for all of a run's candidates at once (``many``), as one
    database read instead of one per candidate. The pipeline then computes every candidate's
    features first and rechecks them all just before emitting, so no answer is older than it
    would be one candidate at a time."""

    def __call__(self, query: TaskRecord, candidate: TaskRecord) -> bool: ...

    def many(self, query: TaskRecord, candidates: Sequence[TaskRecord]) -> Sequence[bool]: ...


@dataclass
class _Emitted:
    advisories: list[Advisory] = field(default_factory=list)
    unknowns: list[UnknownOutcome] = field(default_factory=list)


def recheck_against(latest: PoolSnapshot, viewer: Viewer) -> Recheck:
    """A recheck that reads a newer snapshot: both records present, visible and current there."""

    def recheck(query: TaskRecord, candidate: TaskRecord) -> bool:
        for record in (query, candidate):
            now = latest.get(record.ref)
            if now is None or not latest.is_current(record.ref) or not is_visible(now, viewer):
                return False
        return True

    return recheck


def _omissions(
    record: TaskRecord, snapshot: PoolSnapshot, rows: NDArray[np.intp]
) -> tuple[OmittedCoverage, ...]:
    missing = snapshot.space_codes[rows] < 0
    query_ref, query_access = record.ref, record.access
    return tuple(
        OmittedCoverage(
            query_ref,
            snapshot.refs[r],
            "space-missing" if absent else "space-mismatch",
            query_access,
            snapshot.access[r],
        )
        for r, absent in zip(rows.tolist(), missing.tolist(), strict=True)
    )


def _fuse(
    lex: RankerResult, den: RankerResult, policy: OverlapPolicy
) -> tuple[tuple[FusedCandidate, ...], str | None]:
    """Classify availability first (requirement 25), then fuse ranks or degrade."""
    if lex.available and den.available:
        lists = {"dense": den.rows, "lexical": lex.rows}
        return reciprocal_rank_fusion(lists, k=policy.rrf_k), COVERAGE_HYBRID
    if lex.available and policy.permits_lexical_only:
        lists = {"dense": (), "lexical": lex.rows}
        return reciprocal_rank_fusion(lists, k=policy.rrf_k), COVERAGE_DEGRADED
    return (), None


def _with_scope(
    fused: tuple[FusedCandidate, ...], scope: RankerResult | None, policy: OverlapPolicy
) -> tuple[FusedCandidate, ...]:
    """Give up to ``scope_slots`` of the ``depth`` places to records sharing a declared plan
    target with the query that no ranked list found: two tasks declaring the same file are
    candidates whatever their wording. They rank after the fused ones (score 0)."""
    if scope is None or not scope.available or not policy.scope_slots:
        return fused
    found = {c.row for c in fused[: policy.depth]}
    ranks = {row: k for k, row in enumerate(scope.rows, start=1)}
    extra = [row for row in scope.rows if row not in found][: policy.scope_slots]
    if not extra:
        return fused
    tail = tuple(
        FusedCandidate(row, 0.0, (("dense", None), ("lexical", None), ("scope", ranks[row])))
        for row in extra
    )
    return fused[: policy.depth - len(extra)] + tail


def _sufficient(a: TaskRecord, b: TaskRecord) -> bool:
    """Requirement 77: deliverable, acceptance, purpose and scope declared on both sides."""
    fields = ("deliverable", "acceptance", "purpose", "scope")
    return all(getattr(r, f) is not None for r in (a, b) for f in fields)


def _features(
    a: TaskRecord, b: TaskRecord, policy: OverlapPolicy, nli: NliAdapter | None
) -> tuple[Feature, ...]:
    recipe = policy.features
    texts = (
        ("", "")
        if nli is None
        else (record_text(a, policy.fields_indexed), record_text(b, policy.fields_indexed))
    )
    return (
        declared_features(a, b, review_purposes=recipe.review_purposes)
        + plan_features(a, b, num_perm=recipe.minhash_num_perm, seed=recipe.minhash_seed)
        + directional_nli_features(*texts, nli, timeout_s=recipe.nli_timeout_s)
    )


@dataclass(frozen=True, slots=True)
class _Context:
    """Run-wide identity every advisory of one run carries (requirement 29)."""

    coverage: str
    snapshot_id: str
    policy: OverlapPolicy
    index_ids: tuple[tuple[str, str | None], ...]
    repair_route: str | None
    #: the pair similarities of a run's candidates (query, candidates, their rows), in one call
    similarity: Callable[
        [TaskRecord, Sequence[TaskRecord], Sequence[int]], list[tuple[Feature, ...]]
    ]


def _emit(
    out: _Emitted,
    ctx: _Context,
    record: TaskRecord,
    cand: TaskRecord,
    fused: FusedCandidate,
    features: tuple[Feature, ...],
) -> None:
    """An advisory, or an unknown when the declared evidence is insufficient (requirement 77)."""
    if not _sufficient(record, cand):
        detail = "deliverable, acceptance, purpose or scope not declared by both records"
        out.unknowns.append(
            UnknownOutcome(record.ref, "insufficient-declared-evidence", detail, cand.ref, features)
        )
        return
    out.advisories.append(
        Advisory(
            record.ref,
            cand.ref,
            ctx.coverage,
            fused.ranks,
            fused.score,
            features,
            ctx.snapshot_id,
            ctx.policy.digest,
            ctx.policy.version,
            ctx.index_ids,
            record.access,
            cand.access,
            ctx.repair_route,
        )
    )


def _still_current(
    recheck: Recheck, viewer: Viewer, record: TaskRecord, cand: TaskRecord
) -> str | None:
    """None when both records are still authorized and current, else why not (req. 28)."""
    try:
        ok = recheck(record, cand) and is_visible(cand, viewer)
    except Exception as exc:  # a failed recheck is an unknown, not a crash
        return f"recheck raised {type(exc).__name__}: {exc}"
    return None if ok else "a record was superseded or is no longer authorized"


def _all_still_current(
    recheck: BatchRecheck, viewer: Viewer, record: TaskRecord, cands: Sequence[TaskRecord]
) -> list[str | None]:
    """``_still_current`` for every candidate, from one ``recheck.many`` call."""
    try:
        answers = list(recheck.many(record, cands))
        if len(answers) != len(cands):
            raise ValueError(f"{len(answers)} answers for {len(cands)} candidates")
    except Exception as exc:  # a failed recheck is an unknown, not a crash
        return [f"recheck raised {type(exc).__name__}: {exc}"] * len(cands)
    changed = "a record was superseded or is no longer authorized"
    return [
        None if ok and is_visible(cand, viewer) else changed
        for ok, cand in zip(answers, cands, strict=True)
    ]


def _candidates(
    record: TaskRecord,
    snapshot: PoolSnapshot,
    fused: tuple[FusedCandidate, ...],
    ctx: _Context,
    *,
    viewer: Viewer,
    recheck: Recheck,
    nli: NliAdapter | None,
) -> _Emitted:
    if callable(getattr(recheck, "many", None)):  # a BatchRecheck (a Protocol check costs more)
        batch = cast(BatchRecheck, recheck)
        return _candidates_batched(
            record, snapshot, fused, ctx, viewer=viewer, recheck=batch, nli=nli
        )
    out = _Emitted()
    chosen = fused[: ctx.policy.depth]
    cands = [snapshot.records[c.row] for c in chosen]
    similar = ctx.similarity(record, cands, [c.row for c in chosen])
    for candidate, cand, sim in zip(chosen, cands, similar, strict=True):
        problem = _still_current(recheck, viewer, record, cand)
        if problem is not None:
            out.unknowns.append(
                UnknownOutcome(record.ref, "record-or-authority-changed", problem, cand.ref)
            )
            continue
        _emit(out, ctx, record, cand, candidate, _features(record, cand, ctx.policy, nli) + sim)
    return out


def _candidates_batched(
    record: TaskRecord,
    snapshot: PoolSnapshot,
    fused: tuple[FusedCandidate, ...],
    ctx: _Context,
    *,
    viewer: Viewer,
    recheck: BatchRecheck,
    nli: NliAdapter | None,
) -> _Emitted:
    """``_candidates`` with one recheck for all candidates, read after their features."""
    chosen = fused[: ctx.policy.depth]
    cands = [snapshot.records[c.row] for c in chosen]
    similar = ctx.similarity(record, cands, [c.row for c in chosen])
    features = [
        _features(record, cand, ctx.policy, nli) + sim
        for cand, sim in zip(cands, similar, strict=True)
    ]
    problems = _all_still_current(recheck, viewer, record, cands)
    out = _Emitted()
    for candidate, cand, feats, problem in zip(chosen, cands, features, problems, strict=True):
        if problem is not None:
            out.unknowns.append(
                UnknownOutcome(record.ref, "record-or-authority-changed", problem, cand.ref)
            )
            continue
        _emit(out, ctx, record, cand, candidate, feats)
    return out


def run_overlap(
    task: TaskRef,
    snapshot: PoolSnapshot,
    viewer: Viewer,
    policy: OverlapPolicy,
    *,
    lexical: Ranker,
    dense: Ranker,
    recheck: Recheck,
    nli: NliAdapter | None = None,
    halted: bool = False,
    scope: Ranker | None = None,
    objective_embedder: ObjectiveEmbedder | None = None,
) -> OverlapRun:
    """Run the shadow-mode overlap detector for one declared task version.

    Parameters
    ----------
    task : TaskRef
        The triggering task version; it must be in ``snapshot``, visible and current.
    snapshot : PoolSnapshot
        One snapshot of declared records; the rankers' indexes must be built on it.
    viewer : Viewer
        The principal on whose behalf the run happens; only its visible records are compared.
    policy : OverlapPolicy
        RRF constant, depth, lexical-only permission and feature recipe; its digest is recorded.
    lexical, dense : Ranker
        Injected rankers; each reports availability explicitly.
    recheck : callable
        Re-reads both records just before each candidate is emitted (requirement 28).
    nli : NliAdapter, optional
        Directional NLI adapter; without one the NLI features are ``unavailable``.
    halted : bool, default False
        A coordination halt: repair diagnostics are kept, nothing is started (requirement 31).
    scope : Ranker, optional
        The scope source (rows sharing a declared plan target), used when the policy keeps
        ``scope_slots`` for it; its outage costs those places only, never the run.
    objective_embedder : callable, optional
        The objectives' vectors of the query and its candidates, for the
        ``similarity.objective_cosine`` feature (``similarity``); without one that feature is
        ``unavailable``.

    Returns
    -------
    OverlapRun
        Advisories (status ``needs-independent-adjudication`` only), unknowns, omissions, repairs.
    """
    base = OverlapRun(task, snapshot.snapshot_id, policy.digest, policy.version, None)
    record = snapshot.get(task)
    if record is None or not is_visible(record, viewer) or not snapshot.is_current(task):
        unknown = UnknownOutcome(task, "authorization-or-freshness", "no authorized current record")
        return _replace(base, unknowns=(unknown,))
    pool = snapshot.visible_mask(viewer) & snapshot.current & ~snapshot.task_mask(task.task_id)
    compatible = pool & snapshot.space_mask(record.space_id)
    omissions = _omissions(record, snapshot, np.flatnonzero(pool & ~compatible))
    if record.space_id is None:
        unknown = UnknownOutcome(task, "embedding-space-missing", "query has no embedding space")
        return _replace(base, unknowns=(unknown,), omissions=omissions)
    return _retrieve(
        record,
        snapshot,
        Eligible(snapshot.snapshot_id, compatible),
        _replace(base, omissions=omissions),
        viewer=viewer,
        policy=policy,
        lexical=lexical,
        dense=dense,
        recheck=recheck,
        nli=nli,
        halted=halted,
        scope=scope,
        objective_embedder=objective_embedder,
    )


def _retrieve(
    record: TaskRecord,
    snapshot: PoolSnapshot,
    eligible: Eligible,
    base: OverlapRun,
    *,
    viewer: Viewer,
    policy: OverlapPolicy,
    lexical: Ranker,
    dense: Ranker,
    recheck: Recheck,
    nli: NliAdapter | None,
    halted: bool,
    scope: Ranker | None,
    objective_embedder: ObjectiveEmbedder | None,
) -> OverlapRun:
    lex = safe_rank(lexical, record, eligible, depth=policy.depth)
    den = safe_rank(dense, record, eligible, depth=policy.depth)
    results = [("dense", den), ("lexical", lex)]
    sco = None
    if scope is not None and policy.scope_slots:
        sco = safe_rank(scope, record, eligible, depth=policy.depth)
        results.append(("scope", sco))
    statuses = tuple(
        RankerStatus(n, r.available, r.reason, r.index_id, len(r.rows)) for n, r in results
    )
    fused, coverage = _fuse(lex, den, policy)
    fused = _with_scope(fused, sco, policy) if coverage is not None else fused
    if coverage is None:
        reasons = "; ".join(f"{s.name}: {s.reason}" for s in statuses if not s.available)
        unknown = UnknownOutcome(record.ref, "required-retriever-unavailable", reasons or None)
        return _replace(base, unknowns=(unknown,), rankers=statuses)
    repairs: tuple[RepairNeeded, ...] = ()
    if coverage == COVERAGE_DEGRADED:
        repairs = (RepairNeeded("dense-retrieval-unavailable", den.reason or "", halted=halted),)
    ctx = _Context(
        coverage,
        snapshot.snapshot_id,
        policy,
        tuple((n, r.index_id) for n, r in results),
        repairs[0].route if repairs else None,
        partial(
            similarity_features,
            lexical=lexical,
            dense=dense,
            objective_embedder=objective_embedder,
        ),
    )
    out = _candidates(record, snapshot, fused, ctx, viewer=viewer, recheck=recheck, nli=nli)
    return _replace(
        base,
        coverage=coverage,
        advisories=tuple(out.advisories),
        unknowns=tuple(out.unknowns),
        repairs=repairs,
        rankers=statuses,
    )


def _replace(run: OverlapRun, **changes: object) -> OverlapRun:
    return dataclasses.replace(run, **changes)  # type: ignore[arg-type]
