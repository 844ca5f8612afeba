"""Cluster bootstrap intervals: resample clusters, not items.

Conflicts cluster: one stale branch state can account for many conflicting pairs, so resampling
pairs as if independent gives intervals that are far too narrow (BACKTEST-NOTES, "Conflicts
cluster").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["BootstrapInterval", "cluster_bootstrap_ci"]


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """Point estimate and percentile interval; ``undefined`` counts resamples where the statistic
    was NaN.
    """

    estimate: float
    low: float
    high: float
    resamples: int
    undefined: int
    clusters: int


def cluster_bootstrap_ci(
    statistic: Callable[[NDArray[np.intp]], float],
    clusters: ArrayLike,
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> BootstrapInterval:
    """Percentile interval of ``statistic`` under resampling of whole clusters with replacement.

    Parameters
    ----------
    statistic : callable
        Takes an index array into the items (with repeats) and returns a float (NaN if undefined).
    clusters : array_like
        Cluster key of every item (for backtests: B's branch state).
    resamples : int, default 1000
    confidence : float, default 0.95
    seed : int, default 0
        Seed of ``numpy.random.default_rng``; the same seed gives the same interval.

    Notes
    -----
    The cluster (block) bootstrap of Davison & Hinkley (1997), section 3.8: draw as many clusters as
    there are, with replacement, and take every item of each drawn cluster.
    """
    keys = np.asarray(clusters)
    _, inverse = np.unique(keys, return_inverse=True)
    n_clusters = int(inverse.max()) + 1 if keys.size else 0
    members = [np.flatnonzero(inverse == c) for c in range(n_clusters)]
    estimate = float(statistic(np.arange(keys.size, dtype=np.intp)))
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        drawn = rng.integers(0, n_clusters, size=n_clusters)
        idx = np.concatenate([members[c] for c in drawn]) if n_clusters else np.arange(0)
        values.append(float(statistic(idx.astype(np.intp))))
    arr = np.asarray(values)
    ok = arr[np.isfinite(arr)]
    alpha = (1.0 - confidence) / 2.0
    low, high = (
        (float(np.quantile(ok, alpha)), float(np.quantile(ok, 1 - alpha)))
        if ok.size
        else (float("nan"), float("nan"))
    )
    return BootstrapInterval(estimate, low, high, resamples, int(arr.size - ok.size), n_clusters)
