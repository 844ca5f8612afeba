"""Scoring mined build breaks: recall of a scorer on them and its alarm rate on clean pairs.

A mined pair (``proximity.lab.backtest.buildbreaks``) carries ``buildBreak`` (``True``,
``False``, or ``None`` for a textual conflict or an unchecked merge) and ``symbols``, the
symbol channel's input. The population is the textually clean, checked pairs; the alarm rate is
the weighted share of them a scorer raises to a band, the recall the share of build breaks it
raises. Intervals resample B's branch states (clusters), as the conflict backtest does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.backtest import BacktestPair, pair_airspace
from proximity.engine.evaluation.bootstrap import BootstrapInterval, cluster_bootstrap_ci

__all__ = [
    "AlarmCause",
    "BandFigures",
    "BuildBreakReport",
    "alarm_causes",
    "build_break_report",
    "clean_pairs",
    "format_alarm_causes",
    "format_build_break_reports",
    "strongest_symbol_item",
    "symbol_airspace",
    "symbol_profile_scorer",
]

ScanFn = Callable[..., Mapping[str, Any]]


def symbol_airspace(
    pair: BacktestPair, *, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """:func:`pair_airspace` plus the pair's ``symbols`` when it was mined with them."""
    airspace = pair_airspace(pair, options=options)
    if pair.raw.get("symbols") is not None:
        airspace["symbols"] = pair.raw["symbols"]
    return airspace


def symbol_profile_scorer(
    scan: ScanFn,
    profile: str,
    *,
    options: Mapping[str, Any] | None = None,
    engine: str | None = None,
) -> Callable[[BacktestPair], float]:
    """Risk of the A-B link with the pair's symbol data fed to ``scan`` (0 if no link)."""

    def score(pair: BacktestPair) -> float:
        extra = {} if engine is None else {"engine": engine}
        result = scan(symbol_airspace(pair, options=options), profile=profile, **extra)
        return float(max((link["risk"] for link in result.get("links", [])), default=0.0))

    return score


def clean_pairs(
    pairs: Sequence[BacktestPair], *, symbols: bool = False
) -> tuple[list[BacktestPair], int]:
    """The textually clean pairs whose merge was checked, and how many clean ones were not.

    With ``symbols`` (a scorer that reads the symbol data) a pair whose symbol read failed is
    unchecked too: scored without its symbols it could only look quieter than it is.
    """
    clean = [p for p in pairs if not p.conflict]
    checked = [p for p in clean if isinstance(p.raw.get("buildBreak"), bool)]
    if symbols:
        checked = [p for p in checked if p.raw.get("symbols") is not None]
    return checked, len(clean) - len(checked)


@dataclass(frozen=True, slots=True)
class BandFigures:
    """At one threshold: recall on breaks (as sampled, weighted) and the weighted alarm rate."""

    threshold: float
    recall: float
    recall_weighted: float
    recall_ci: BootstrapInterval
    alarm_weighted: float
    alarm_ci: BootstrapInterval
    caught: int


@dataclass(frozen=True, slots=True)
class BuildBreakReport:
    name: str
    pairs: int
    breaks: int
    breaks_weighted: float
    unchecked: int
    bands: Mapping[str, BandFigures]


def _share(mask: NDArray[np.bool_], among: NDArray[np.bool_], w: NDArray[np.float64]) -> float:
    total = float(w[among].sum())
    return float(w[among & mask].sum()) / total if total > 0 else float("nan")


def build_break_report(
    name: str,
    pairs: Sequence[BacktestPair],
    scores: Sequence[float],
    *,
    thresholds: Mapping[str, float],
    unchecked: int = 0,
    resamples: int = 300,
    seed: int = 0,
) -> BuildBreakReport:
    """Figures of ``scores`` on ``pairs`` (clean and checked: see :func:`clean_pairs`).

    Recall is the share of build breaks with ``score >= threshold``; the alarm rate the
    weighted share of all the pairs at or above it. Recall is NaN when there is no break.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.array([bool(p.raw["buildBreak"]) for p in pairs], dtype=bool)
    w = np.array([p.weight for p in pairs], dtype=np.float64)
    clusters = np.array([p.cluster for p in pairs], dtype=str)
    ones = np.ones_like(w)
    everyone = np.ones_like(y)
    bands = {}
    for band, thr in thresholds.items():
        hit = s >= thr

        def recall_at(idx: NDArray[np.intp], hit: NDArray[np.bool_] = hit) -> float:
            return _share(hit[idx], y[idx], ones[idx])

        def alarm_at(idx: NDArray[np.intp], hit: NDArray[np.bool_] = hit) -> float:
            return _share(hit[idx], everyone[idx], w[idx])

        bands[band] = BandFigures(
            threshold=thr,
            recall=_share(hit, y, ones),
            recall_weighted=_share(hit, y, w),
            recall_ci=cluster_bootstrap_ci(recall_at, clusters, resamples=resamples, seed=seed),
            alarm_weighted=_share(hit, everyone, w),
            alarm_ci=cluster_bootstrap_ci(alarm_at, clusters, resamples=resamples, seed=seed),
            caught=int((hit & y).sum()),
        )
    return BuildBreakReport(name, len(pairs), int(y.sum()), float(w[y].sum()), unchecked, bands)


def _ci(ci: BootstrapInterval) -> str:
    return f"{ci.low:.2f}-{ci.high:.2f}"


def format_build_break_reports(reports: Sequence[BuildBreakReport]) -> str:
    """A markdown table: one row per report (slice or scorer), one column group per band."""
    bands = list(reports[0].bands) if reports else []
    head = "| set | clean pairs | breaks (w) | unchecked | " + " | ".join(
        f"{b}: thr / caught / recall (95% CI) / recall w / alarm w (95% CI)" for b in bands
    )
    lines = [head + " |", "|" + "---|" * (4 + len(bands))]
    for r in reports:
        cells = [r.name, str(r.pairs), f"{r.breaks} ({r.breaks_weighted:.0f})", str(r.unchecked)]
        for b in bands:
            f = r.bands[b]
            cells.append(
                f"{f.threshold:g} / {f.caught} / {f.recall:.2f} ({_ci(f.recall_ci)}) / "
                f"{f.recall_weighted:.2f} / {f.alarm_weighted:.3f} ({_ci(f.alarm_ci)})"
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def strongest_symbol_item(
    scan: ScanFn,
    profile: str,
    pair: BacktestPair,
    *,
    options: Mapping[str, Any] | None = None,
    engine: str | None = None,
) -> str:
    """``kind/reason strength`` of the strongest symbol item on the pair's advisory, or ``-``.

    What a strength change would move: an alarm is attributed to the item kind that carries it.
    """
    extra = {} if engine is None else {"engine": engine}
    result = scan(symbol_airspace(pair, options=options), profile=profile, **extra)
    items = [i for a in result.get("advisories", []) for i in a.get("symbols") or []]
    if not items:
        return "-"
    top = max(items, key=lambda i: float(i["strength"]))
    return f"{top['kind']}/{top['reason']} {float(top['strength']):g}"


@dataclass(frozen=True, slots=True)
class AlarmCause:
    """The alarms one strongest item kind carries: how many pairs, their weighted share of the
    clean pairs, and the share that is at the band without the symbol channel too."""

    item: str
    pairs: int
    share_weighted: float
    without_symbols_weighted: float


def alarm_causes(
    pairs: Sequence[BacktestPair],
    items: Sequence[str],
    alarmed: Sequence[bool],
    alarmed_without: Sequence[bool],
) -> list[AlarmCause]:
    """Group the alarmed ``pairs`` by their strongest item (``items``), biggest share first.

    Shares are of the weight of all ``pairs`` (the alarm rate's population), so they add up to
    the weighted alarm rate.
    """
    total = sum(p.weight for p in pairs)
    groups: dict[str, list[float]] = {}
    for p, item, hit, base in zip(pairs, items, alarmed, alarmed_without, strict=True):
        if hit:
            g = groups.setdefault(item, [0.0, 0.0, 0.0])
            g[0] += 1
            g[1] += p.weight / total
            g[2] += p.weight / total if base else 0.0
    causes = [AlarmCause(k, int(v[0]), v[1], v[2]) for k, v in groups.items()]
    return sorted(causes, key=lambda c: (-c.share_weighted, c.item))


def format_alarm_causes(causes: Sequence[AlarmCause]) -> str:
    """A markdown table of :func:`alarm_causes`."""
    lines = [
        "| strongest symbol item | pairs | alarm share w | of it, at the band without symbols w |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {c.item} | {c.pairs} | {c.share_weighted:.3f} | {c.without_symbols_weighted:.3f} |"
        for c in causes
    ]
    return "\n".join(lines)
