"""Fit the review queue's evidence model on duplicate queries, and measure the queue it makes.

Training rows come from the shipped pipeline itself: each duplicate query runs ``run_overlap``
over the records created strictly before it (the lexical index built on that prefix, the dense
index on its vectors), and every advisory it emits is scored by ``evidence_terms``, so a feature
means the same thing when fitted as when a run serves it. A row's label is whether the candidate
is an earlier member of the query's duplicate group; adjudicated pairs can join as extra rows.

The coefficients are a listwise fit (a conditional logit over each query's candidates,
``listwise_loss``; an adjudicated pair, a query of one row, is a logistic term); the L2 penalty
is chosen by cross-validation with folds grouped by duplicate group (two queries of one group
never sit on both sides of a split), and the Platt map is fitted on the out-of-fold logits, so
the reported queue figures are out-of-fold, never in-sample. Features the data never observes
keep the prior model's weights and are named as such in the artefact.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.calibration import fit_platt
from proximity.engine.evaluation.recall_rate import DuplicateQuery
from proximity.engine.overlap.dense import DenseIndex, DenseRanker
from proximity.engine.overlap.evidence import EVIDENCE_FEATURES, EvidenceModel, evidence_terms
from proximity.engine.overlap.lexical import BM25Index, BM25Ranker
from proximity.engine.overlap.pipeline import run_overlap
from proximity.engine.overlap.policy import SCOPE_PREP, OverlapPolicy
from proximity.engine.overlap.records import TaskRecord, Viewer
from proximity.engine.overlap.similarity import ObjectiveEmbedder
from proximity.engine.overlap.snapshot import PoolSnapshot

__all__ = [
    "L2_GRID",
    "EvidenceFit",
    "TrainingRow",
    "fit_evidence_model",
    "listwise_loss",
    "lookup_embedder",
    "queue_figures",
    "training_rows",
]

#: L2 penalties (on standardised features) tried by the grouped cross-validation.
L2_GRID = (0.3, 1.0, 3.0, 10.0)
#: The direction each feature may push: more agreement is never evidence *against* overlap,
#: a longer gap never evidence *for* it. A feature fitted against its direction (text-mined
#: paths shared by unrelated bug reports, say) is left out and refitted without: weight 0.
SIGNS = {
    name: -1.0 if name in {"time.gap", "version.gap", "purpose.review"} else 1.0
    for name in EVIDENCE_FEATURES
}
_KS = (1, 3, 5, 10, 20)


@dataclass(frozen=True, slots=True)
class TrainingRow:
    """One candidate of one query: feature values in ``EVIDENCE_FEATURES`` order (0 = unknown)."""

    query_id: str
    candidate_id: str
    group: int
    fused_position: int
    values: tuple[float, ...]
    known: tuple[bool, ...]
    label: bool
    logit: float = 0.0  # under the model that scored the row (``training_rows``' ``model``)


def _query_run(
    query: TaskRecord,
    earlier: Sequence[TaskRecord],
    vectors: Sequence[NDArray[np.float32]],
    *,
    policy: OverlapPolicy,
    space_id: str,
    objective_embedder: ObjectiveEmbedder | None = None,
) -> Any:
    records = [dataclasses.replace(r, space_id=space_id) for r in (*earlier, query)]
    snapshot = PoolSnapshot.build(f"fit:{query.task_id}", records)
    lexical = BM25Ranker(
        BM25Index.build(snapshot, fields=policy.fields_indexed, prep=policy.text_prep)
    )
    dense = DenseRanker(DenseIndex.build(snapshot, list(vectors), space_id=space_id), snapshot)
    scope = BM25Ranker(BM25Index.build(snapshot, prep=SCOPE_PREP))
    viewer = Viewer("evidence-fit", frozenset({query.scope or ""}), frozenset(query.disclosure))
    run = run_overlap(
        records[-1].ref,
        snapshot,
        viewer,
        policy,
        lexical=lexical,
        dense=dense,
        recheck=lambda _q, _c: True,
        scope=scope,
        objective_embedder=objective_embedder,
    )
    return run, {r.ref: r for r in records}


def lookup_embedder(
    records: Sequence[TaskRecord], vectors: NDArray[np.float32]
) -> ObjectiveEmbedder:
    """Objective vectors computed beforehand (``vectors[i]`` for ``records[i]``, looked up by
    task id); a record it was not given is an error, never a guess."""
    table = {r.task_id: vectors[i] for i, r in enumerate(records)}

    def embed(batch: Sequence[TaskRecord]) -> NDArray[np.float32]:
        return np.stack([table[r.task_id] for r in batch]).astype(np.float32)

    return embed


def training_rows(
    records: Sequence[TaskRecord],
    created: Sequence[float],
    queries: Sequence[DuplicateQuery],
    vectors: NDArray[np.float32],
    *,
    policy: OverlapPolicy,
    model: EvidenceModel,
    groups: Mapping[str, int] | None = None,
    space_id: str = "space:evidence-fit",
    objective_vectors: NDArray[np.float32] | None = None,
) -> tuple[TrainingRow, ...]:
    """Every advisory of every query's run, with its evidence values, label and logit.

    ``vectors`` are unit rows aligned with ``records``; ``groups`` maps a query id to its
    duplicate group (the unit of the grouped split; default: one group per query). A row's
    ``logit`` is ``model``'s, so the same rows measure the shipped queue. ``objective_vectors``
    (aligned with ``records``, the objectives embedded alone) feed ``similarity.objective_cosine``;
    without them that feature is unavailable, as in a run without an objective embedder.
    """
    embed = None
    if objective_vectors is not None:
        embed = lookup_embedder(records, objective_vectors)
    times = np.asarray(created, dtype=np.float64)
    row_of = {r.task_id: i for i, r in enumerate(records)}
    out: list[TrainingRow] = []
    for q in queries:
        row = row_of[q.query_id]
        earlier = [int(i) for i in np.flatnonzero(times < times[row])]
        run, by_ref = _query_run(
            records[row],
            [records[i] for i in earlier],
            [vectors[i] for i in (*earlier, row)],
            policy=policy,
            space_id=space_id,
            objective_embedder=embed,
        )
        query = by_ref[run.query]
        for n, advisory in enumerate(run.advisories, start=1):
            cand = by_ref[advisory.candidate]
            terms = evidence_terms(model, advisory, query, cand, fused_position=n)
            out.append(
                TrainingRow(
                    q.query_id,
                    cand.task_id,
                    len(out) if groups is None else groups[q.query_id],
                    n,
                    tuple(t.value for t in terms),
                    tuple(t.status == "value" for t in terms),
                    cand.task_id in q.relevant,
                    model.intercept + math.fsum(t.contribution for t in terms),
                )
            )
    return tuple(out)


def queue_figures(
    rows: Sequence[TrainingRow],
    scores: NDArray[np.float64],
    queries: Sequence[DuplicateQuery],
    *,
    budgets: Sequence[int] = (1, 2, 3, 4, 5),
) -> dict[str, Any]:
    """Recall-rate@k of the order by ``scores`` (ties: fused position) and the queue's
    recall and precision at each budget. A query without candidates counts as a miss."""
    by_query: dict[str, list[tuple[float, int, bool]]] = {}
    for r, s in zip(rows, scores, strict=True):
        by_query.setdefault(r.query_id, []).append((-float(s), r.fused_position, r.label))
    ordered = {q: [label for *_, label in sorted(v)] for q, v in by_query.items()}
    n = len(queries)

    def hit(q: DuplicateQuery, k: int) -> bool:
        return any(ordered.get(q.query_id, [])[:k])

    def rate(count: int) -> float | None:
        return count / n if n else None  # no query: no rate, not a zero

    recall = {f"recall@{k}": rate(sum(hit(q, k) for q in queries)) for k in _KS}
    queue = {}
    for b in budgets:
        cards = sum(min(b, len(ordered.get(q.query_id, []))) for q in queries)
        true = sum(sum(ordered.get(q.query_id, [])[:b]) for q in queries)
        queue[str(b)] = {
            "holdsDuplicate": rate(sum(hit(q, b) for q in queries)),
            "precision": true / cards if cards else None,
            "cards": cards,
        }
    return {"queries": n, **recall, "queue": queue}


@dataclass(frozen=True, slots=True)
class EvidenceFit:
    """The fitted model and the cross-validated figures that justify it."""

    model: EvidenceModel
    report: dict[str, Any]


def _design(rows: Sequence[TrainingRow], columns: Sequence[int]) -> NDArray[np.float64]:
    return np.array([[r.values[c] for c in columns] for r in rows], dtype=np.float64)


def _observed(rows: Sequence[TrainingRow]) -> list[int]:
    """Features with a known value somewhere and more than one value: the fittable ones."""
    out = []
    for c in range(len(EVIDENCE_FEATURES)):
        values = {r.values[c] for r in rows if r.known[c]}
        if len(values) > 1:
            out.append(c)
    return out


def _grouped_folds(groups: NDArray[np.int64], folds: int) -> list[NDArray[np.intp]]:
    from sklearn.model_selection import GroupKFold

    splitter = GroupKFold(n_splits=min(folds, len(set(groups.tolist()))))
    return [test for _, test in splitter.split(groups, groups=groups)]


@dataclass(frozen=True, slots=True)
class _Fitted:
    """Weights on the raw feature scale and an intercept (used by single-row queries only)."""

    weights: NDArray[np.float64]
    intercept: float

    def logits(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        out: NDArray[np.float64] = x @ self.weights + self.intercept
        return out


def listwise_loss(
    params: NDArray[np.float64],
    z: NDArray[np.float64],
    y: NDArray[np.float64],
    queries: NDArray[np.int64],
    l2: float,
) -> tuple[float, NDArray[np.float64]]:
    """Negative log-likelihood of the conditional logit and its gradient; ``params`` is the
    weights then the intercept. Rows of a query are contiguous (``queries`` sorted).

    Per query with two or more rows and a positive: ``-sum_i t_i log softmax(z w)_i`` with the
    positives' share ``t`` as target (McFadden 1974). A query of one row: the logistic loss of
    ``z w + b``. Plus ``l2 * |w|^2``.
    """
    w, b = params[:-1], params[-1]
    s = z @ w
    starts = np.flatnonzero(np.r_[True, queries[1:] != queries[:-1]])
    ends = np.r_[starts[1:], queries.size]
    total, grad_w, grad_b = l2 * float(w @ w), 2 * l2 * w, 0.0
    for a, e in zip(starts.tolist(), ends.tolist(), strict=True):
        if e - a == 1:
            t = s[a] + b
            prob = 1.0 / (1.0 + np.exp(-t))
            total += float(np.logaddexp(0.0, t) - y[a] * t)
            grad_w = grad_w + z[a] * (prob - y[a])
            grad_b += float(prob - y[a])
        elif y[a:e].any():
            shifted = s[a:e] - s[a:e].max()
            log_p = shifted - np.log(np.exp(shifted).sum())
            target = y[a:e] / y[a:e].sum()
            total -= float(target @ log_p)
            grad_w = grad_w - z[a:e].T @ (target - np.exp(log_p))
    return total, np.r_[grad_w, grad_b]


def _listwise_fit(
    x: NDArray[np.float64], y: NDArray[np.bool_], queries: NDArray[np.int64], l2: float
) -> _Fitted:
    """Conditional logit (``listwise_loss``): per query, a softmax over its candidates, fitted
    to put the duplicate first; this is the likelihood of recall-rate@1's event, where a
    pointwise logistic loss spends its fit on telling negatives of *different* queries apart.

    A query with one row (an adjudicated pair) cannot be a softmax: it joins as a pointwise
    logistic term with the intercept. L2 penalty on standardised features; the weights are
    returned on the raw scale.
    """
    from scipy.optimize import minimize

    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd == 0] = 1.0
    order = np.argsort(queries, kind="stable")
    z, yq, qq = ((x - mu) / sd)[order], y[order].astype(np.float64), queries[order]
    start = np.zeros(x.shape[1] + 1)
    result = minimize(listwise_loss, start, args=(z, yq, qq, l2), jac=True, method="L-BFGS-B")
    weights = result.x[:-1] / sd
    return _Fitted(weights, float(result.x[-1]) - float(weights @ mu))


def _signed_columns(
    x: NDArray[np.float64],
    y: NDArray[np.bool_],
    queries: NDArray[np.int64],
    columns: list[int],
    l2: float,
) -> list[int]:
    """Drop, one at a time, the column fitted most strongly against its sign; refit."""
    keep = list(columns)
    while keep:
        idx = [columns.index(k) for k in keep]
        coef = _listwise_fit(x[:, idx], y, queries, l2).weights
        wrong = [(w * SIGNS[EVIDENCE_FEATURES[k]], k) for w, k in zip(coef, keep, strict=True)]
        worst = min(wrong)
        if worst[0] >= 0:
            return keep
        keep.remove(worst[1])
    return keep


def _out_of_fold(
    x: NDArray[np.float64],
    y: NDArray[np.bool_],
    queries: NDArray[np.int64],
    folds: list[NDArray[np.intp]],
    l2: float,
) -> NDArray[np.float64]:
    logits = np.zeros(len(y), dtype=np.float64)
    for test in folds:
        train = np.setdiff1d(np.arange(len(y)), test)
        logits[test] = _listwise_fit(x[train], y[train], queries[train], l2).logits(x[test])
    return logits


def _objective(figures: Mapping[str, Any], budget: int) -> float:
    """Mean of recall-rate@1, the queue's hold rate at the budget, and recall-rate@10."""
    parts = (figures["recall@1"], figures["queue"][str(budget)]["holdsDuplicate"])
    return sum(float(v or 0.0) for v in (*parts, figures["recall@10"])) / 3.0


def fit_evidence_model(
    rows: Sequence[TrainingRow],
    queries: Sequence[DuplicateQuery],
    *,
    prior: EvidenceModel,
    version: str,
    data: str,
    budget: int = 3,
    folds: int = 10,
    l2_grid: Sequence[float] = L2_GRID,
) -> EvidenceFit:
    """Choose the L2 penalty by grouped cross-validation, calibrate on out-of-fold logits, refit
    on all rows.

    Parameters
    ----------
    rows : training rows from ``training_rows`` (plus any adjudicated rows)
    queries : the duplicate queries the rows came from (a query without rows is a miss)
    prior : the model whose weights stand for features the data never observes
    version, data : the new model's version and a short name of its training data
    budget : the queue budget the selection objective reads
    """
    if not any(r.label for r in rows) or all(r.label for r in rows):
        raise ValueError("rows: both labels are needed to fit the evidence model")
    observed = _observed(rows)
    x_all = _design(rows, observed)
    y = np.array([r.label for r in rows], dtype=np.bool_)
    names = {q: n for n, q in enumerate(dict.fromkeys(r.query_id for r in rows))}
    query_of = np.array([names[r.query_id] for r in rows], dtype=np.int64)
    folds_ = _grouped_folds(np.array([r.group for r in rows], dtype=np.int64), folds)
    by_l2 = {}
    for l2 in l2_grid:
        columns = _signed_columns(x_all, y, query_of, observed, l2)
        x = x_all[:, [observed.index(k) for k in columns]]
        logits = _out_of_fold(x, y, query_of, folds_, l2)
        by_l2[l2] = (logits, queue_figures(rows, logits, queries), columns)
    # ties: the stronger penalty (the simpler model)
    best = max(l2_grid, key=lambda v: (_objective(by_l2[v][1], budget), v))
    oof_logits, oof, columns = by_l2[best]
    platt = fit_platt(oof_logits, y)
    x = x_all[:, [observed.index(k) for k in columns]]
    final = _listwise_fit(x, y, query_of, best)
    fitted = {EVIDENCE_FEATURES[c]: float(w) for c, w in zip(columns, final.weights, strict=True)}
    against = {EVIDENCE_FEATURES[c]: 0.0 for c in observed if c not in columns}
    priors = {n: w for n, w in prior.weights if n not in fitted and n not in against}
    probs = 1.0 / (1.0 + np.exp(np.clip(platt.a * oof_logits + platt.b, -500, 500)))
    model = EvidenceModel(
        version=version,
        status=f"fitted on {data}",
        intercept=final.intercept,
        weights=tuple(sorted({**priors, **against, **fitted}.items())),
        platt_a=platt.a,
        platt_b=platt.b,
        notes=(
            f"Listwise (conditional logit) fit, L2 {best} on standardised features chosen by "
            f"{len(folds_)}-fold cross-validation grouped by duplicate group on {data}; Platt "
            f"map fitted on out-of-fold logits. Fitted: {', '.join(sorted(fitted))}. Weight 0 "
            f"(fitted against its direction): {', '.join(sorted(against)) or 'none'}. Prior "
            f"weights (never observed in the data, kept from {prior.version}): "
            f"{', '.join(sorted(priors)) or 'none'}. "
            "Locally selected, not validated (requirement 72)."
        ),
    )
    report = {
        "rows": len(rows),
        "positives": int(y.sum()),
        "fitted": sorted(fitted),
        "zeroAgainstSign": sorted(against),
        "prior": sorted(priors),
        "fit": "listwise (conditional logit)",
        "l2": best,
        "crossValidated": {str(v): f for v, (_, f, _) in by_l2.items()},
        "outOfFold": oof,
        "fusedOrder": queue_figures(
            rows, -np.array([r.fused_position for r in rows], float), queries
        ),
        "brierOutOfFold": float(np.mean((probs - y) ** 2)),
    }
    return EvidenceFit(model, report)
