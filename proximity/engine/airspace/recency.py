"""radar-v1 recency weights: edits decay toward a floor (design note eq. 1; reference W11)."""

from __future__ import annotations

from proximity.engine.airspace.model import FileChange

__all__ = ["recency_weight"]


def recency_weight(
    change: FileChange, now_ms: float, *, floor: float = 0.15, half_life_s: float = 1800.0
) -> float:
    """``clamp01(weight) * (floor + (1 - floor) * 0.5 ** (age / half_life))``.

    The decay factor is 1 without ``touchedAt`` and for edits stamped in the future; the
    supplied weight (default 1) is clamped to [0, 1] so no file can inflate a channel (the
    reference only clamps the channel result). Floor 0.15 is the reference's declared but
    unused ``recencyFloor``; the 30-minute half-life is ours (docs/DECISIONS.md).
    """
    base = min(1.0, max(0.0, change.reference_weight))
    if change.touched_at_ms is None:
        return base
    age_s = max(0.0, (now_ms - change.touched_at_ms) / 1000.0)
    decay: float = 0.5 ** (age_s / half_life_s)
    return base * (floor + (1.0 - floor) * decay)
