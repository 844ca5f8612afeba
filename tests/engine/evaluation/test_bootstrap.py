"""Cluster bootstrap intervals."""

from __future__ import annotations

from typing import Any

import numpy as np

from proximity.engine.evaluation.bootstrap import cluster_bootstrap_ci


def test_same_seed_gives_same_interval_and_clusters_widen_it() -> None:
    rng = np.random.default_rng(1)
    values = np.repeat(rng.random(20), 25)  # 20 clusters of 25 identical items
    clusters = np.repeat(np.arange(20), 25)

    def stat(idx: Any) -> Any:
        return float(values[idx].mean())

    by_cluster = cluster_bootstrap_ci(stat, clusters, resamples=200, seed=3)
    again = cluster_bootstrap_ci(stat, clusters, resamples=200, seed=3)
    by_item = cluster_bootstrap_ci(stat, np.arange(values.size), resamples=200, seed=3)
    assert by_cluster == again
    assert by_cluster.clusters == 20
    assert (by_cluster.high - by_cluster.low) > 2 * (by_item.high - by_item.low)
    assert by_cluster.low <= by_cluster.estimate <= by_cluster.high


def test_undefined_resamples_are_counted_not_averaged_in() -> None:
    labels = np.array([1, 0, 0, 0])

    def stat(idx: Any) -> Any:
        return float("nan") if labels[idx].sum() == 0 else 1.0

    ci = cluster_bootstrap_ci(stat, np.arange(4), resamples=100, seed=0)
    assert ci.undefined > 0
    assert ci.low == ci.high == 1.0
