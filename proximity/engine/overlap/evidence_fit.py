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

Calibration covers every new task, not only duplicates: the coefficients learn only from queries
that have an earlier duplicate (a softmax needs a positive), but a card's probability is read for
any task. The Platt map is therefore fitted on the duplicate queries' out-of-fold logits *and* on
the candidates of a uniform sample of the other queries (labels all false, each weighted by its
inverse inclusion probability), so the probability means "this pair is a duplicate" over the
population of runs, not "given that this task has a duplicate somewhere".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.calibration import PlattMap, fit_platt
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
    "Background",
    "EvidenceFit",
    "TrainingRow",
    "background_rows",
    "background_sample",
    "calibration_figures",
    "fit_evidence_model",
    "listwise_loss",
    "lookup_embedder",
    "population",
    "population_calibration",
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


@dataclass(frozen=True, slots=True)
class Background:
    """Rows of sampled queries without an earlier duplicate, and how they were sampled."""

    rows: tuple[TrainingRow, ...]
    queries: int
    inclusion: float
    frame: str


def background_rows(
    records: Sequence[TaskRecord],
    created: Sequence[float],
    queries: Sequence[DuplicateQuery],
    vectors: NDArray[np.float32],
    *,
    size: int,
    policy: OverlapPolicy,
    model: EvidenceModel,
    objective_vectors: NDArray[np.float32] | None = None,
    seed: int = 0,
) -> Background:
    """The runs of a uniform sample of the records that are not duplicate queries but have an
    earlier record to compare with (the frame), as rows labelled false: what calibrates a
    probability for every new task rather than for duplicates only."""
    times = np.asarray(created, dtype=np.float64)
    first = times.min() if times.size else 0.0
    asked = {q.query_id for q in queries}
    frame = [r.task_id for r, t in zip(records, times, strict=True) if t > first]
    frame = [i for i in frame if i not in asked]
    picked, inclusion = background_sample(frame, size, seed=seed)
    rows = training_rows(
        records,
        created,
        [DuplicateQuery(i, frozenset()) for i in picked],
        vectors,
        policy=policy,
        model=model,
        objective_vectors=objective_vectors,
    )
    described = (
        f"{len(frame)} records with an earlier record that are not duplicate queries, "
        f"{len(picked)} drawn uniformly (seed {seed})"
    )
    return Background(rows, len(picked), inclusion, described)


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


#: Probability bins of the reliability table (upper bounds; the last bin includes 1.0).
CALIBRATION_BINS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0)


def background_sample(frame: Sequence[str], size: int, *, seed: int = 0) -> tuple[list[str], float]:
    """A uniform sample without replacement of ``size`` query ids from ``frame`` and its
    inclusion probability (requirement 62). The frame is sorted first, so the sample depends on
    the frame and the seed only; ``size`` at or above the frame's takes all of it."""
    ids = sorted(set(frame))
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    if not ids or size == 0:
        return [], 0.0
    if size >= len(ids):
        return ids, 1.0
    picked = np.random.default_rng(seed).choice(len(ids), size=size, replace=False)
    return [ids[i] for i in sorted(picked.tolist())], size / len(ids)


def calibration_figures(
    probabilities: NDArray[np.float64], labels: NDArray[np.bool_], weights: NDArray[np.float64]
) -> dict[str, Any]:
    """Weighted Brier score and a reliability table (per probability bin: weighted pairs, mean
    probability, observed duplicate rate). Weights undo a sample's inclusion probability."""
    p = np.asarray(probabilities, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if p.size == 0 or w.sum() <= 0:
        return {"pairs": 0, "brier": None, "reliability": []}
    table = []
    low = 0.0
    for high in CALIBRATION_BINS:
        inside = (p >= low) & ((p < high) if high < 1.0 else (p <= high))
        mass = float(w[inside].sum())
        table.append(
            {
                "bin": f"[{low:g}, {high:g}{']' if high == 1.0 else ')'}",
                "weightedPairs": round(mass, 1),
                "meanProbability": float(w[inside] @ p[inside] / mass) if mass else None,
                "observedRate": float(w[inside] @ y[inside] / mass) if mass else None,
            }
        )
        low = high
    return {
        "pairs": int(p.size),
        "weightedPairs": round(float(w.sum()), 1),
        "brier": float(w @ (p - y) ** 2 / w.sum()),
        "reliability": table,
    }


def population(
    rows: Sequence[TrainingRow], background: Background | None
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Labels and weights of the duplicate queries' rows (weight 1, every one taken) followed by
    the background's (all false, weight 1 / inclusion probability): the population a card's
    probability is calibrated and measured on."""
    extra = background.rows if background else ()
    weight = 1.0 / background.inclusion if background and extra else 0.0
    labels = np.array([r.label for r in (*rows, *extra)], dtype=np.bool_)
    return labels, np.r_[np.ones(len(rows)), np.full(len(extra), weight)]


def population_calibration(
    probabilities: NDArray[np.float64], rows: Sequence[TrainingRow], background: Background | None
) -> dict[str, Any]:
    """``calibration_figures`` over ``population`` (``probabilities`` in its order), with how the
    background was sampled (requirement 62)."""
    labels, weights = population(rows, background)
    sampled = background if background is not None and background.rows else None
    return {
        "frame": sampled.frame if sampled else None,
        "backgroundQueries": sampled.queries if sampled else 0,
        "inclusionProbability": sampled.inclusion if sampled else None,
        **calibration_figures(probabilities, labels, weights),
    }


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
    background: Background | None = None,
) -> EvidenceFit:
    """Choose the L2 penalty by grouped cross-validation, calibrate on out-of-fold logits (and
    the background's), refit on all rows.

    Parameters
    ----------
    rows : training rows from ``training_rows`` (plus any adjudicated rows)
    queries : the duplicate queries the rows came from (a query without rows is a miss)
    prior : the model whose weights stand for features the data never observes
    version, data : the new model's version and a short name of its training data
    budget : the queue budget the selection objective reads
    background : ``background_rows``, sampled queries without an earlier duplicate; they
        calibrate (each row weighted by the inverse inclusion probability) and never train
        the coefficients
    """
    extra = background.rows if background else ()
    inclusion = background.inclusion if background and extra else 1.0
    if any(r.label for r in extra):
        raise ValueError("background: rows of queries without a duplicate only (no true label)")
    if not 0.0 < inclusion <= 1.0:
        raise ValueError(f"background: inclusion probability must be in (0, 1], got {inclusion}")
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
    x = x_all[:, [observed.index(k) for k in columns]]
    final = _listwise_fit(x, y, query_of, best)
    fitted = {EVIDENCE_FEATURES[c]: float(w) for c, w in zip(columns, final.weights, strict=True)}
    against = {EVIDENCE_FEATURES[c]: 0.0 for c in observed if c not in columns}
    priors = {n: w for n, w in prior.weights if n not in fitted and n not in against}
    # A served logit also carries the prior-weighted terms (a feature the fit could not learn
    # but a row may still hold, constant or not): calibrate on the logit a card will have.
    prior_cols = [EVIDENCE_FEATURES.index(n) for n in priors]
    prior_w = np.array(list(priors.values()), dtype=np.float64)

    def served(logits: NDArray[np.float64], of: Sequence[TrainingRow]) -> NDArray[np.float64]:
        return logits + _design(of, prior_cols) @ prior_w if prior_cols else logits

    # the background never trained a fold or the final model: its logits are out-of-sample
    bg_logits = served(final.logits(_design(extra, columns)), extra) if extra else np.zeros(0)
    cal_logits = np.r_[served(oof_logits, rows), bg_logits]
    cal_labels, cal_weights = population(rows, background)
    platt = fit_platt(cal_logits, cal_labels, weights=cal_weights)
    probs = PlattMap(platt.a, platt.b)(cal_logits[: len(y)])
    calibrated_on = (
        f"the out-of-fold logits and {background.queries} sampled queries without a duplicate "
        f"({background.frame}; inclusion probability {inclusion:.4f})"
        if background and extra
        else "the out-of-fold logits of the duplicate queries only"
    )
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
            f"map fitted on {calibrated_on}. Fitted: {', '.join(sorted(fitted))}. Weight 0 "
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
        "calibration": {
            "fittedOn": calibrated_on,
            **population_calibration(PlattMap(platt.a, platt.b)(cal_logits), rows, background),
        },
    }
    return EvidenceFit(model, report)
