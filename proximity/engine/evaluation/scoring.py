"""Scoring backtest pairs: one report per scorer, as sampled and weighted back to the natural mix.

Every figure carries a cluster-bootstrap interval over B's branch states, because conflicts cluster
on stale branches (BACKTEST-NOTES). A scorer is any function from a pair to a number; profile
scorers wrap the airspace engine's ``scan`` so this module stays independent of its internals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.backtest import BacktestPair, pair_airspace
from proximity.engine.evaluation.bootstrap import BootstrapInterval, cluster_bootstrap_ci
from proximity.engine.evaluation.ranking import (
    PrecisionRecall,
    ReliabilityBin,
    average_precision,
    precision_recall_at,
    reliability_table,
    roc_auc,
)

__all__ = [
    "PairArrays",
    "ScorerReport",
    "pair_arrays",
    "profile_scorer",
    "score_report",
    "split_by_time",
]

Scorer = Callable[[BacktestPair], float]
ScanFn = Callable[..., Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class PairArrays:
    """Columns of a pair set: outcome, sampling weight, cluster (B's branch state)."""

    labels: NDArray[np.bool_]
    weights: NDArray[np.float64]
    clusters: NDArray[np.str_]


def pair_arrays(pairs: Sequence[BacktestPair]) -> PairArrays:
    return PairArrays(
        labels=np.array([p.conflict for p in pairs], dtype=bool),
        weights=np.array([p.weight for p in pairs], dtype=np.float64),
        clusters=np.array([p.cluster for p in pairs], dtype=str),
    )


def profile_scorer(
    scan: ScanFn,
    profile: str,
    *,
    options: Mapping[str, Any] | None = None,
    engine: str | None = None,
) -> Scorer:
    """Risk of the single A-B link that ``scan`` reports for the pair's two-agent airspace (0 if
    none).
    """

    def score(pair: BacktestPair) -> float:
        extra = {} if engine is None else {"engine": engine}
        result = scan(pair_airspace(pair, options=options), profile=profile, **extra)
        links = result.get("links", [])
        return float(max((link["risk"] for link in links), default=0.0))

    return score


@dataclass(frozen=True, slots=True)
class ScorerReport:
    """One scorer's figures on one pair set; ``*_weighted`` use inverse inclusion probabilities."""

    name: str
    pairs: int
    conflicts: int
    auc: float
    auc_weighted: float
    ap: float
    ap_weighted: float
    auc_ci: BootstrapInterval
    ap_weighted_ci: BootstrapInterval
    thresholds: Mapping[str, PrecisionRecall]
    thresholds_weighted: Mapping[str, PrecisionRecall]
    reliability: tuple[ReliabilityBin, ...]


def score_report(
    name: str,
    scores: Sequence[float] | NDArray[np.float64],
    arrays: PairArrays,
    *,
    thresholds: Mapping[str, float],
    bins: int = 10,
    resamples: int = 300,
    seed: int = 0,
) -> ScorerReport:
    """Rank metrics, precision/recall at named thresholds and a weighted reliability table.

    Parameters
    ----------
    thresholds : mapping of str to float
        For example ``{"traffic": 0.35, "resolution": 0.7}``; a pair is flagged at ``score >=
        value``.
    resamples, seed : int
        Cluster bootstrap over ``arrays.clusters`` (see :func:`cluster_bootstrap_ci`).
    """
    s = np.asarray(scores, dtype=np.float64)
    y, w = arrays.labels, arrays.weights

    def auc_at(idx: NDArray[np.intp]) -> float:
        return roc_auc(s[idx], y[idx])

    def ap_w_at(idx: NDArray[np.intp]) -> float:
        return average_precision(s[idx], y[idx], weights=w[idx])

    boot = {"resamples": resamples, "seed": seed}
    clipped = np.clip(s, 0.0, 1.0)
    return ScorerReport(
        name=name,
        pairs=int(s.size),
        conflicts=int(y.sum()),
        auc=roc_auc(s, y),
        auc_weighted=roc_auc(s, y, weights=w),
        ap=average_precision(s, y),
        ap_weighted=average_precision(s, y, weights=w),
        auc_ci=cluster_bootstrap_ci(auc_at, arrays.clusters, **boot),
        ap_weighted_ci=cluster_bootstrap_ci(ap_w_at, arrays.clusters, **boot),
        thresholds={k: precision_recall_at(s, y, t) for k, t in thresholds.items()},
        thresholds_weighted={
            k: precision_recall_at(s, y, t, weights=w) for k, t in thresholds.items()
        },
        reliability=reliability_table(clipped, y, bins=bins, weights=w),
    )


def split_by_time(
    pairs: Sequence[BacktestPair], cut: str
) -> tuple[tuple[BacktestPair, ...], tuple[BacktestPair, ...], int]:
    """Train = pairs where both PRs merged before ``cut``; test = both at or after; straddlers
    dropped.

    Keeping every pull request on one side of the cut means no PR's branch states, and so no
    cluster, is fitted on and then scored (requirement 65 for backtest pairs). Returns (train, test,
    dropped).
    """
    train, test, dropped = [], [], 0
    for pair in pairs:
        a_at = str(pair.raw["a"].get("mergedAt", ""))
        b_at = str(pair.raw.get("b", {}).get("mergedAt", ""))
        if a_at < cut and b_at < cut:
            train.append(pair)
        elif a_at >= cut and b_at >= cut:
            test.append(pair)
        else:
            dropped += 1
    return tuple(train), tuple(test), dropped
