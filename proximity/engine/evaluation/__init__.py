"""Evaluation science: adjudication labels, leakage-resistant splits, metrics, holdout ledger,
backtests.

Submodules by concern: ``labels`` and ``corpus`` (judgements and JSONL corpora), ``fixtures`` (the
constructed hard cases), ``splits``, ``metrics`` (recall, precision, coverage counts), ``ranking``
(ROC AUC, average precision, thresholds, reliability), ``calibration``, ``bootstrap``, ``holdout``
(frozen policies and the ledger state machine), ``triage`` (routing and error buckets), ``backtest``
and ``scoring`` (conflict backtests). Nothing here does I/O.
"""

from __future__ import annotations

__all__: list[str] = []
