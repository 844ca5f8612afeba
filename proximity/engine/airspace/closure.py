"""Closure rate from a supplied risk history (ECC-PROXIMITY.md section 2, "Closure rate").

``options.history`` maps ``"<a>|<b>"`` (either order) to ``[[time, risk], ...]``; the rate is
taken between the latest sample strictly before ``now`` and the risk scored now, in risk per
second, exactly the reference's ``closureRate(prev, curr, dtMs)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["closure_rate", "closure_rates"]

Samples = Sequence[tuple[float, float]]


def closure_rate(previous: float, current: float, dt_ms: float) -> float:
    """``(clamp01(current) - clamp01(previous)) / (dt / 1000)``, dt defaulting to 1 ms."""
    dt = dt_ms if dt_ms > 0 else 1.0
    rise = min(1.0, max(0.0, current)) - min(1.0, max(0.0, previous))
    return rise / (dt / 1000.0)


def _latest_before(samples: Samples, now_ms: float) -> tuple[float, float] | None:
    earlier = [s for s in samples if s[0] < now_ms]
    return earlier[-1] if earlier else None


def closure_rates(
    ids: Sequence[str],
    i: NDArray[np.int64],
    j: NDArray[np.int64],
    risk: NDArray[np.float64],
    history: Mapping[str, Samples],
    now_ms: float,
) -> NDArray[np.float64]:
    """Rate per pair row; NaN where no earlier sample exists (unknown, never zero).

    Walks the history, not the pairs, so a large airspace with a short history stays cheap.
    """
    out = np.full(len(risk), np.nan)
    index = {agent: k for k, agent in enumerate(ids)}
    n = len(ids)
    keys = i * n + j
    order = np.argsort(keys)
    for name, samples in history.items():
        a, _, b = name.partition("|")
        if a not in index or b not in index or a == b:
            continue
        lo, hi = sorted((index[a], index[b]))
        at = int(np.searchsorted(keys[order], lo * n + hi))
        latest = _latest_before(samples, now_ms)
        if at < len(order) and keys[order[at]] == lo * n + hi and latest is not None:
            row = int(order[at])
            out[row] = closure_rate(latest[1], float(risk[row]), now_ms - latest[0])
    return out
