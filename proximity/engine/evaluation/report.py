"""Backtest reports for a profile and the simple baselines on the same pairs, as Markdown text.

The baselines answer "is the metric better than something trivial": shares-a-file, base-side
overlap (git's own rule on the hunks) and new-side overlap (the reference's line overlap alone).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from proximity.engine.evaluation.backtest import (
    BacktestPair,
    base_overlap_score,
    new_side_overlap_score,
    shares_file_score,
)
from proximity.engine.evaluation.ranking import PrecisionRecall
from proximity.engine.evaluation.scoring import ScorerReport, pair_arrays, score_report

__all__ = ["BASELINES", "backtest_reports", "format_reliability", "format_reports"]

BASELINES: Mapping[str, Callable[[BacktestPair], float]] = {
    "baseline:shares-file": shares_file_score,
    "baseline:base-overlap": base_overlap_score,
    "baseline:new-side-overlap": new_side_overlap_score,
}


def backtest_reports(
    pairs: Sequence[BacktestPair],
    scorers: Mapping[str, Callable[[BacktestPair], float]],
    *,
    thresholds: Mapping[str, float],
    resamples: int = 300,
    seed: int = 0,
    bins: int = 10,
) -> tuple[ScorerReport, ...]:
    """One report per scorer (profiles first, then the baselines), all on the same pairs."""
    arrays = pair_arrays(pairs)
    everything = {**scorers, **BASELINES}
    return tuple(
        score_report(
            name,
            np.array([fn(p) for p in pairs], dtype=np.float64),
            arrays,
            thresholds=thresholds,
            resamples=resamples,
            seed=seed,
            bins=bins,
        )
        for name, fn in everything.items()
    )


def _f(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _pr(r: PrecisionRecall) -> str:
    return f"{r.threshold:.3g} / {_f(r.precision, 2)} / {_f(r.recall, 2)} / {_f(r.flagged_rate, 2)}"


def format_reports(reports: Sequence[ScorerReport], thresholds: Iterable[str]) -> str:
    """Markdown table: rank metrics with 95 % cluster-bootstrap intervals and P/R/flagged rates.

    Threshold columns are weighted back to the natural mix of concurrent pairs; AUC is as sampled
    and weighted, AP weighted (as sampled AP over-states precision: the sample over-represents
    file-sharing pairs).
    """
    names = list(thresholds)  # threshold names; each report carries its own values
    head = ["scorer", "pairs", "conflicts", "AUC (95% CI)", "AUC w", "AP w (95% CI)", "AP"]
    head += [f"{n}: threshold / P / R / flagged (w)" for n in names]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in reports:
        row = [
            r.name,
            str(r.pairs),
            str(r.conflicts),
            f"{_f(r.auc)} ({_f(r.auc_ci.low)}-{_f(r.auc_ci.high)})",
            _f(r.auc_weighted),
            f"{_f(r.ap_weighted)} ({_f(r.ap_weighted_ci.low)}-{_f(r.ap_weighted_ci.high)})",
            _f(r.ap),
        ]
        row += [_pr(r.thresholds_weighted[n]) for n in names]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def format_reliability(report: ScorerReport) -> str:
    """Reliability table of one scorer (weighted): predicted risk bin against observed rate."""
    lines = [
        f"Reliability of {report.name} (weighted):",
        "| risk bin | pairs | weight | mean risk | conflict rate |",
        "|---|---|---|---|---|",
    ]
    lines.extend(
        f"| {b.low:.1f}-{b.high:.1f} | {b.count} | {b.weight:.1f} | "
        f"{_f(b.mean_predicted)} | {_f(b.observed_rate)} |"
        for b in report.reliability
        if b.count
    )
    return "\n".join(lines)
