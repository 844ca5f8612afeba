"""Ranking and threshold metrics for scores against binary outcomes, with sampling weights.

Backtest pairs are drawn from two strata with different inclusion probabilities, so every metric
accepts ``weights`` (inverse inclusion probabilities) to report figures "weighted back to the
natural mix" as well as "as sampled" (weights all 1). Each vectorised metric has a plain reference
implementation beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "PrecisionRecall",
    "ReliabilityBin",
    "average_precision",
    "average_precision_reference",
    "precision_recall_at",
    "reliability_table",
    "roc_auc",
    "roc_auc_reference",
]

FloatArray = NDArray[np.float64]


def _prepare(
    scores: ArrayLike, labels: ArrayLike, weights: ArrayLike | None
) -> tuple[FloatArray, NDArray[np.bool_], FloatArray]:
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=np.float64)
    if s.ndim != 1 or y.shape != s.shape or w.shape != s.shape:
        raise ValueError("scores, labels and weights must be 1-D arrays of one length")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores must be finite")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite and non-negative")
    return s, y, w


def roc_auc(scores: ArrayLike, labels: ArrayLike, *, weights: ArrayLike | None = None) -> float:
    """Area under the ROC curve, ties counted one half.

    Parameters
    ----------
    scores, labels : array_like
        Higher score means "more likely positive"; labels are booleans.
    weights : array_like, optional
        Per-item weights; the AUC is then the weighted probability that a random positive outscores
        a random negative (the Mann-Whitney U statistic, Hanley & McNeil 1982, with weights on both
        sides).

    Returns
    -------
    float
        NaN when either class has zero total weight: the AUC is undefined, not 0.5.
    """
    s, y, w = _prepare(scores, labels, weights)
    wp, wn = float(w[y].sum()), float(w[~y].sum())
    if wp == 0 or wn == 0:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    s, y, w = s[order], y[order], w[order]
    _, start = np.unique(s, return_index=True)
    neg_w = np.add.reduceat(np.where(y, 0.0, w), start)
    pos_w = np.add.reduceat(np.where(y, w, 0.0), start)
    below = np.concatenate(([0.0], np.cumsum(neg_w)[:-1]))
    wins = float(np.sum(pos_w * (below + 0.5 * neg_w)))
    return wins / (wp * wn)


def roc_auc_reference(
    scores: ArrayLike, labels: ArrayLike, *, weights: ArrayLike | None = None
) -> float:
    """Obviously-correct O(n^2) ROC AUC: compare every positive with every negative."""
    s, y, w = _prepare(scores, labels, weights)
    num = den = 0.0
    for i in np.flatnonzero(y):
        for j in np.flatnonzero(~y):
            pair_w = w[i] * w[j]
            den += pair_w
            num += pair_w * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den if den > 0 else float("nan")


def average_precision(
    scores: ArrayLike, labels: ArrayLike, *, weights: ArrayLike | None = None
) -> float:
    """Average precision: the step-wise area under the precision-recall curve.

    Parameters
    ----------
    scores, labels, weights : array_like
        As for :func:`roc_auc`.

    Returns
    -------
    float
        ``sum_n (R_n - R_{n-1}) P_n`` over distinct score thresholds taken from the highest down,
        the definition used by scikit-learn's ``average_precision_score`` (no interpolation). NaN
        without positives.
    """
    s, y, w = _prepare(scores, labels, weights)
    total_pos = float(w[y].sum())
    if total_pos == 0:
        return float("nan")
    order = np.argsort(-s, kind="mergesort")
    s, y, w = s[order], y[order], w[order]
    last_of_run = np.r_[np.flatnonzero(np.diff(s) != 0), s.size - 1]
    tp = np.cumsum(np.where(y, w, 0.0))[last_of_run]
    flagged = np.cumsum(w)[last_of_run]
    precision = np.divide(tp, flagged, out=np.zeros_like(tp), where=flagged > 0)
    recall_step = np.diff(np.r_[0.0, tp]) / total_pos
    return float(np.sum(recall_step * precision))


def average_precision_reference(
    scores: ArrayLike, labels: ArrayLike, *, weights: ArrayLike | None = None
) -> float:
    """Reference average precision: threshold at each distinct score and sum recall steps x
    precision.
    """
    s, y, w = _prepare(scores, labels, weights)
    total_pos = float(w[y].sum())
    if total_pos == 0:
        return float("nan")
    ap, prev_recall = 0.0, 0.0
    for t in sorted(set(s.tolist()), reverse=True):
        flagged = s >= t
        tp = float(w[flagged & y].sum())
        recall = tp / total_pos
        ap += (recall - prev_recall) * (tp / float(w[flagged].sum()))
        prev_recall = recall
    return ap


@dataclass(frozen=True, slots=True)
class PrecisionRecall:
    """Figures for one decision threshold (``score >= threshold`` flags, as the bands are
    inclusive).

    ``precision`` is None when nothing is flagged and ``recall`` None without positives: undefined,
    never silently 0 or 1.
    """

    threshold: float
    precision: float | None
    recall: float | None
    flagged_rate: float
    true_positives: float
    false_positives: float
    false_negatives: float


def precision_recall_at(
    scores: ArrayLike,
    labels: ArrayLike,
    threshold: float,
    *,
    weights: ArrayLike | None = None,
) -> PrecisionRecall:
    """Precision, recall and the share of pairs flagged at one threshold.

    Parameters
    ----------
    scores, labels, weights : array_like
        As for :func:`roc_auc`.
    threshold : float
        A pair is flagged when ``score >= threshold`` (inclusive, like the advisory bands of the
        reference metric, ECC-PROXIMITY section 2).
    """
    s, y, w = _prepare(scores, labels, weights)
    flagged = s >= threshold
    tp = float(w[flagged & y].sum())
    fp = float(w[flagged & ~y].sum())
    fn = float(w[~flagged & y].sum())
    total = float(w.sum())
    return PrecisionRecall(
        threshold=float(threshold),
        precision=tp / (tp + fp) if tp + fp > 0 else None,
        recall=tp / (tp + fn) if tp + fn > 0 else None,
        flagged_rate=(tp + fp) / total if total > 0 else 0.0,
        true_positives=tp,
        false_positives=fp,
        false_negatives=fn,
    )


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """One reliability-table row; ``observed_rate`` and ``mean_predicted`` are None if empty."""

    low: float
    high: float
    count: int
    weight: float
    mean_predicted: float | None
    observed_rate: float | None


def reliability_table(
    probabilities: ArrayLike,
    labels: ArrayLike,
    *,
    bins: int = 10,
    weights: ArrayLike | None = None,
) -> tuple[ReliabilityBin, ...]:
    """Observed outcome rate against mean predicted probability in equal-width bins on [0, 1].

    Parameters
    ----------
    probabilities : array_like
        Values in [0, 1] (raw risks or calibrated probabilities).
    bins : int, default 10
        Number of equal-width bins; the last bin is closed on the right so 1.0 is counted
        (the usual reliability diagram, DeGroot & Fienberg 1983).
    """
    if bins < 1:
        raise ValueError("bins must be at least 1")
    p, y, w = _prepare(probabilities, labels, weights)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("probabilities must lie in [0, 1]")
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.minimum(np.searchsorted(edges, p, side="right") - 1, bins - 1)
    rows = []
    for b in range(bins):
        m = index == b
        wsum = float(w[m].sum())
        rows.append(
            ReliabilityBin(
                low=float(edges[b]),
                high=float(edges[b + 1]),
                count=int(m.sum()),
                weight=wsum,
                mean_predicted=float(np.dot(w[m], p[m]) / wsum) if wsum > 0 else None,
                observed_rate=float(w[m & y].sum() / wsum) if wsum > 0 else None,
            )
        )
    return tuple(rows)
