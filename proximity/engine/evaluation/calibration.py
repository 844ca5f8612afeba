"""Monotone maps from a raw risk to a conflict probability, stored as versioned artefacts.

A raw risk is a ranking score, not a probability: "0.7" from the reference metric meant a conflict
rate of about 0.16 on real history (ECC-PROXIMITY W19). A calibration map is fitted on a train split
of backtest pairs, evaluated on a separate split, and carried with the data it was fitted on, so a
reported probability always says where it came from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "CALIBRATION_FORMAT",
    "CalibratedRisk",
    "CalibrationArtefact",
    "IsotonicMap",
    "PlattMap",
    "apply_calibration",
    "artefact_from_json",
    "artefact_to_json",
    "calibrated_risk",
    "fit_isotonic",
    "fit_platt",
    "pool_adjacent_violators",
    "pool_adjacent_violators_reference",
]

CALIBRATION_FORMAT = "overlap-radar/calibration@1"
FloatArray = NDArray[np.float64]


def pool_adjacent_violators(y: ArrayLike, w: ArrayLike | None = None) -> FloatArray:
    """Weighted least-squares non-decreasing fit to ``y`` in the given order.

    Parameters
    ----------
    y : array_like
        Targets already ordered by the predictor.
    w : array_like, optional
        Positive weights (default 1).

    Notes
    -----
    The pool-adjacent-violators algorithm (Ayer et al. 1955; Barlow et al. 1972): scan left to
    right, keeping a stack of blocks with their weighted means, and merge the last two blocks while
    they violate monotonicity. O(n) amortised.
    """
    yv = np.asarray(y, dtype=np.float64)
    wv = np.ones_like(yv) if w is None else np.asarray(w, dtype=np.float64)
    means: list[float] = []
    weights: list[float] = []
    sizes: list[int] = []
    for yi, wi in zip(yv.tolist(), wv.tolist(), strict=True):
        means.append(yi)
        weights.append(wi)
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            wt = weights[-2] + weights[-1]
            merged = (means[-2] * weights[-2] + means[-1] * weights[-1]) / wt
            means[-2:] = [merged]
            weights[-2:] = [wt]
            sizes[-2:] = [sizes[-2] + sizes[-1]]
    return np.repeat(np.asarray(means, dtype=np.float64), sizes)


def pool_adjacent_violators_reference(y: ArrayLike, w: ArrayLike | None = None) -> FloatArray:
    """Reference PAV: repeatedly pool the first violating adjacent pair of blocks until none
    remains.
    """
    blocks = [
        [float(v), float(1.0 if w is None else np.asarray(w, dtype=float)[i]), 1]
        for i, v in enumerate(np.asarray(y, dtype=float))
    ]
    changed = True
    while changed:
        changed = False
        for i in range(len(blocks) - 1):
            (m1, w1, n1), (m2, w2, n2) = blocks[i], blocks[i + 1]
            if m1 > m2:
                blocks[i : i + 2] = [[(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2]]
                changed = True
                break
    return np.asarray([m for m, _, n in blocks for _ in range(int(n))], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class IsotonicMap:
    """Breakpoints of a non-decreasing map, interpolated linearly and clipped outside the fitted
    range.
    """

    x: tuple[float, ...]
    y: tuple[float, ...]

    def __call__(self, risk: ArrayLike) -> FloatArray:
        return np.interp(np.asarray(risk, dtype=np.float64), self.x, self.y)


@dataclass(frozen=True, slots=True)
class PlattMap:
    """``p = 1 / (1 + exp(a * risk + b))`` (Platt 1999), ``a < 0`` for an increasing map."""

    a: float
    b: float

    def __call__(self, risk: ArrayLike) -> FloatArray:
        z = self.a * np.asarray(risk, dtype=np.float64) + self.b
        return np.asarray(1.0 / (1.0 + np.exp(np.clip(z, -500, 500))), dtype=np.float64)


def fit_isotonic(
    scores: ArrayLike, labels: ArrayLike, *, weights: ArrayLike | None = None
) -> IsotonicMap:
    """Fit an increasing isotonic map from score to outcome rate.

    Parameters
    ----------
    scores, labels : array_like
        Raw risks and boolean outcomes (conflict or not).
    weights : array_like, optional
        Sampling weights, so the map estimates the rate in the natural mix of pairs.

    Notes
    -----
    Equal scores are pooled first (their weighted mean outcome), then PAV runs over the distinct
    scores; prediction interpolates between breakpoints as scikit-learn's ``IsotonicRegression``
    with ``out_of_bounds="clip"`` does.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=np.float64)
    if s.size == 0 or s.shape != y.shape or s.shape != w.shape:
        raise ValueError("scores, labels and weights must be non-empty arrays of one length")
    uniq, inverse = np.unique(s, return_inverse=True)
    wsum = np.bincount(inverse, weights=w)
    ymean = np.bincount(inverse, weights=w * y) / np.where(wsum > 0, wsum, 1.0)
    fitted = pool_adjacent_violators(ymean, wsum)
    return IsotonicMap(x=tuple(uniq.tolist()), y=tuple(fitted.tolist()))


def _platt_loss(a: float, b: float, s: FloatArray, t: FloatArray, w: FloatArray) -> float:
    z = a * s + b  # p = 1 / (1 + exp(z)); log-loss written stably with logaddexp
    return float(np.sum(w * (t * np.logaddexp(0.0, z) + (1.0 - t) * np.logaddexp(0.0, -z))))


def fit_platt(
    scores: ArrayLike,
    labels: ArrayLike,
    *,
    weights: ArrayLike | None = None,
    iterations: int = 100,
) -> PlattMap:
    """Fit Platt scaling by Newton's method with backtracking on the weighted log-loss.

    Uses Platt's smoothed targets ``(N+ + 1)/(N+ + 2)`` and ``1/(N- + 2)`` so a separable sample has
    a finite optimum, and halves each Newton step until the loss decreases (Platt 1999; the
    safeguarded Newton method of Lin, Lin & Weng 2007).
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=np.float64)
    n_pos, n_neg = float(w[y].sum()), float(w[~y].sum())
    t = np.where(y, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    a, b = 0.0, float(np.log((n_neg + 1) / (n_pos + 1)))
    loss = _platt_loss(a, b, s, t, w)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(np.clip(a * s + b, -500, 500)))
        d = w * (t - p)  # gradient of the loss with respect to z = a*s + b
        h = w * p * (1 - p)
        grad = np.array([np.dot(d, s), d.sum()])
        hess = np.array([[np.dot(h, s * s), np.dot(h, s)], [np.dot(h, s), h.sum()]])
        step = np.linalg.solve(hess + 1e-12 * np.eye(2), grad)
        scale = 1.0
        while scale > 1e-10:
            na, nb = a - scale * float(step[0]), b - scale * float(step[1])
            new_loss = _platt_loss(na, nb, s, t, w)
            if new_loss < loss + 1e-4 * scale * float(np.dot(grad, -step)):
                break
            scale /= 2
        else:
            break
        a, b, improvement, loss = na, nb, loss - new_loss, new_loss
        if improvement < 1e-12 * max(1.0, abs(loss)):
            break
    return PlattMap(a=a, b=b)


@dataclass(frozen=True, slots=True)
class CalibrationArtefact:
    """A fitted map with the provenance a reader needs to judge it.

    ``provenance`` names the repository, commit range, miner and split seed the map was fitted on;
    ``digest`` identifies the artefact so a reported probability can cite it.
    """

    kind: Literal["isotonic", "platt"]
    profile: str
    scorer_version: str
    params: Mapping[str, Any]
    provenance: Mapping[str, Any]
    fitted_on: str
    metrics: Mapping[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        body = artefact_to_json(self, with_digest=False)
        return "sha256:" + hashlib.sha256(body.encode()).hexdigest()[:16]

    def probability(self, risk: ArrayLike) -> FloatArray:
        return apply_calibration(self, risk)


def _map_of(artefact: CalibrationArtefact) -> IsotonicMap | PlattMap:
    p = artefact.params
    if artefact.kind == "isotonic":
        return IsotonicMap(x=tuple(p["x"]), y=tuple(p["y"]))
    if artefact.kind == "platt":
        return PlattMap(a=float(p["a"]), b=float(p["b"]))
    raise ValueError(f"kind: unknown calibration kind {artefact.kind!r}")


def apply_calibration(artefact: CalibrationArtefact, risk: ArrayLike) -> FloatArray:
    """Calibrated conflict probability for raw risk values, using the artefact's fitted map."""
    return _map_of(artefact)(risk)


@dataclass(frozen=True, slots=True)
class CalibratedRisk:
    """A raw risk shown beside its calibrated probability and where that probability comes from.

    ``label`` is the text to display, e.g. "P(conflict) 0.12, locally selected: isotonic fit on
    pypa/pip train slice (sha256:...)": never presented as validated (requirement 72).
    """

    risk: float
    probability: float
    artefact: str
    fitted_on: str
    label: str


def calibrated_risk(artefact: CalibrationArtefact, risk: float, *, profile: str) -> CalibratedRisk:
    """Calibrated probability for one link's risk; a map fitted for another profile is refused."""
    if artefact.profile != profile:
        raise ValueError(f"profile: artefact was fitted for {artefact.profile!r}, not {profile!r}")
    p = float(apply_calibration(artefact, [risk])[0])
    label = (
        f"P(conflict) {p:.2f}, locally selected: {artefact.kind} fit on {artefact.fitted_on}"
        f" ({artefact.digest})"
    )
    return CalibratedRisk(float(risk), p, artefact.digest, artefact.fitted_on, label)


def artefact_to_json(artefact: CalibrationArtefact, *, with_digest: bool = True) -> str:
    """Canonical JSON (sorted keys, fixed separators) so the digest is stable across runs."""
    body: dict[str, Any] = {
        "format": CALIBRATION_FORMAT,
        "kind": artefact.kind,
        "profile": artefact.profile,
        "scorerVersion": artefact.scorer_version,
        "params": dict(artefact.params),
        "provenance": dict(artefact.provenance),
        "fittedOn": artefact.fitted_on,
        "metrics": dict(artefact.metrics),
    }
    if with_digest:
        body["digest"] = artefact.digest
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def artefact_from_json(text: str) -> CalibrationArtefact:
    """Parse and verify an artefact; a digest that does not match its content is an error."""
    data = json.loads(text)
    if data.get("format") != CALIBRATION_FORMAT:
        raise ValueError(f"format: expected {CALIBRATION_FORMAT!r}, got {data.get('format')!r}")
    for key in ("kind", "profile", "scorerVersion", "params", "provenance", "fittedOn"):
        if key not in data:
            raise ValueError(f"{key}: missing from calibration artefact")
    artefact = CalibrationArtefact(
        kind=data["kind"],
        profile=data["profile"],
        scorer_version=data["scorerVersion"],
        params=data["params"],
        provenance=data["provenance"],
        fitted_on=data["fittedOn"],
        metrics=data.get("metrics", {}),
    )
    _map_of(artefact)
    if "digest" in data and data["digest"] != artefact.digest:
        raise ValueError("digest: does not match the artefact's content")
    return artefact
