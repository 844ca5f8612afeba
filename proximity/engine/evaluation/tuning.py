"""Choosing radar-v1's tunables from backtest evidence, without re-scanning for every setting.

The radar-v1 risk is a noisy-OR of per-channel values (docs/DECISIONS.md, airspace section), so
once each pair's raw channels are known (overlap coefficient, the smallest gap between
non-overlapping base regions, the dependency distance, tree closeness), any setting of weights,
gamma, dependency cap and adjacency margin is a cheap array expression. Settings are chosen on a
train split only; thresholds follow from stated precision and recall targets.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.ranking import average_precision, precision_recall_at, roc_auc

__all__ = [
    "ChannelFeatures",
    "RadarSetting",
    "SettingScore",
    "choose_threshold",
    "dependency_distance",
    "min_region_gap",
    "radar_risk",
    "radar_risk_reference",
    "search_settings",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class ChannelFeatures:
    """Per-pair raw inputs of the radar-v1 channels (unweighted), one array entry per pair.

    ``gap`` is the smallest distance in doubled base positions between the changed regions of a
    shared file whose regions do not overlap (``inf`` if there is no such file); ``distance`` the
    undirected import distance between the two sides (``inf`` beyond the cap used to measure it).
    """

    overlap: FloatArray
    gap: FloatArray
    distance: FloatArray
    tree: FloatArray


@dataclass(frozen=True, slots=True)
class RadarSetting:
    """One candidate setting of radar-v1's tunables.

    Weights for overlap, adjacency, dependency and tree; gamma; the dependency cap in hops; the
    adjacency margin in doubled base positions (2 = consecutive lines, the landed rule); and an
    overlap floor: any overlap at all counts at least this much (git conflicts on one shared
    line as surely as on a hundred, while the overlap coefficient of a one-line intersection
    inside large edits is tiny).
    """

    w_overlap: float = 1.0
    w_adjacency: float = 0.75
    w_dependency: float = 0.6
    w_tree: float = 0.25
    gamma: float = 0.5
    cap: int = 2
    margin: int = 2
    overlap_floor: float = 0.0

    def as_options(self) -> dict[str, object]:
        """The scan ``options`` that select this setting (the margin has no option yet)."""
        return {
            "channelWeights": {
                "overlap": self.w_overlap,
                "adjacency": self.w_adjacency,
                "dependency": self.w_dependency,
                "tree": self.w_tree,
            },
            "depDecay": self.gamma,
            "dependencyCap": self.cap,
        }


def dependency_distance(dependency_channel: float, *, gamma: float) -> float:
    """Invert ``gamma**(d - 1)`` (the channel measured with all weights 1) back to ``d``."""
    if dependency_channel <= 0:
        return math.inf
    return 1.0 + round(math.log(dependency_channel) / math.log(gamma))


def _regions(hunks: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    return [(2 * s, 2 * (s + c - 1)) if c > 0 else (2 * s + 1, 2 * s + 1) for s, c in hunks]


def min_region_gap(hunks_a: Sequence[Sequence[int]], hunks_b: Sequence[Sequence[int]]) -> float:
    """Smallest positive gap between two files' base regions, 0 when they overlap.

    Same doubled coordinates as the airspace regions (line k at 2k, the gap after it at 2k+1), so
    a margin of 2 is radar-v1's "abutting" rule.
    """
    gaps = [max(sb - ea, sa - eb) for sa, ea in _regions(hunks_a) for sb, eb in _regions(hunks_b)]
    best = min(gaps, default=math.inf)
    return 0.0 if best <= 0 else float(best)


def radar_risk(features: ChannelFeatures, setting: RadarSetting) -> FloatArray:
    """Vectorised radar-v1 risk: ``1 - prod_k (1 - w_k r_k)`` over the four channels.

    The adjacency channel is 1 when a shared file without overlapping regions has regions at most
    ``margin`` positions apart (``gap``); dependency is ``gamma**(d - 1)`` within ``cap`` hops.
    """
    adjacency = (features.gap <= setting.margin).astype(np.float64)
    d = features.distance
    within = np.isfinite(d) & (d <= setting.cap) & (d >= 1)
    dependency = np.where(within, setting.gamma ** (np.where(within, d, 1.0) - 1.0), 0.0)
    overlap = np.where(features.overlap > 0, np.maximum(features.overlap, setting.overlap_floor), 0)
    keep = np.ones_like(features.overlap)
    for w, r in (
        (setting.w_overlap, overlap),
        (setting.w_adjacency, adjacency),
        (setting.w_dependency, dependency),
        (setting.w_tree, features.tree),
    ):
        keep = keep * (1.0 - w * r)
    return np.asarray(1.0 - keep, dtype=np.float64)


def radar_risk_reference(
    overlap: float, gap: float, distance: float, tree: float, setting: RadarSetting
) -> float:
    """One pair, written out: the reference for :func:`radar_risk`."""
    adjacency = 1.0 if gap <= setting.margin else 0.0
    overlap = max(overlap, setting.overlap_floor) if overlap > 0 else 0.0
    dependency = setting.gamma ** (distance - 1) if 1 <= distance <= setting.cap else 0.0
    keep = (1 - setting.w_overlap * overlap) * (1 - setting.w_adjacency * adjacency)
    keep *= (1 - setting.w_dependency * dependency) * (1 - setting.w_tree * tree)
    return 1.0 - keep


@dataclass(frozen=True, slots=True)
class SettingScore:
    """A setting with its weighted average precision and AUC on the split it was scored on."""

    setting: RadarSetting
    ap_weighted: float
    auc_weighted: float


def search_settings(
    features: ChannelFeatures,
    labels: NDArray[np.bool_],
    weights: NDArray[np.float64],
    grid: Mapping[str, Iterable[float]],
) -> tuple[SettingScore, ...]:
    """Score every combination in ``grid`` (keys are RadarSetting fields), best weighted AP first.

    Ties on AP are broken by AUC, then by the smaller dependency weight (fewer alerts from imports
    alone), so equal evidence prefers the quieter setting.
    """
    keys = sorted(grid)
    out = []
    for values in itertools.product(*(list(grid[k]) for k in keys)):
        setting = RadarSetting(**dict(zip(keys, values, strict=True)))  # type: ignore[arg-type]
        risk = radar_risk(features, setting)
        out.append(
            SettingScore(
                setting,
                average_precision(risk, labels, weights=weights),
                roc_auc(risk, labels, weights=weights),
            )
        )
    out.sort(key=lambda s: (-s.ap_weighted, -s.auc_weighted, s.setting.w_dependency))
    return tuple(out)


def choose_threshold(
    scores: FloatArray,
    labels: NDArray[np.bool_],
    weights: NDArray[np.float64],
    *,
    min_precision: float | None = None,
    min_recall: float | None = None,
) -> float | None:
    """Lowest threshold reaching ``min_precision``, or highest keeping recall >= ``min_recall``.

    Candidates are the distinct scores. The threshold returned sits halfway between the qualifying
    score and the next lower distinct score, so it flags the same train pairs but does not sit on a
    plateau value that rounding could flip. None when no threshold meets the target.
    """
    candidates = sorted(set(np.round(scores, 12).tolist()))
    found = None
    if min_precision is not None:
        for i, t in enumerate(candidates):
            r = precision_recall_at(scores, labels, t, weights=weights)
            if r.precision is not None and r.precision >= min_precision:
                found = i
                break
    elif min_recall is not None:
        for i in range(len(candidates) - 1, -1, -1):
            r = precision_recall_at(scores, labels, candidates[i], weights=weights)
            if r.recall is not None and r.recall >= min_recall:
                found = i
                break
    else:
        raise ValueError("min_precision or min_recall: give one target")
    if found is None:
        return None
    low = candidates[found - 1] if found > 0 else candidates[found]
    return float((low + candidates[found]) / 2)
