"""Noisy-OR combination and bands, channel-agnostic (ECC-PROXIMITY.md section 2).

Channels are pluggable: the combiner takes weights and values in the profile's channel order
and knows nothing about what a channel measures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["BANDS", "band", "band_codes", "noisy_or", "noisy_or_arrays"]

BANDS = ("clear", "advisory", "resolution")


def noisy_or(weights: Sequence[float], values: Sequence[float]) -> float:
    """``R = clamp01(1 - prod_k (1 - w_k r_k))`` multiplied in channel order, as the reference.

    The order is part of ecc-v0's semantics: it fixes the rounding, and so which side of an
    inclusive threshold a value such as 0.7 lands on.
    """
    keep = 1.0
    for weight, value in zip(weights, values, strict=True):
        keep *= 1.0 - weight * value
    return min(1.0, max(0.0, 1.0 - keep))


def noisy_or_arrays(
    weights: Sequence[float], values: Sequence[NDArray[np.float64]]
) -> NDArray[np.float64]:
    """Vectorised :func:`noisy_or`, the same floating-point operations in the same order."""
    keep = np.ones_like(values[0])
    for weight, value in zip(weights, values, strict=True):
        keep = keep * (1.0 - weight * value)
    return np.clip(1.0 - keep, 0.0, 1.0)


def band(risk: float, ta: float, ra: float) -> str:
    """Inclusive bands: ``risk < ta`` clear, ``ta <= risk < ra`` advisory, else resolution."""
    return BANDS[band_code(risk, ta, ra)]


def band_code(risk: float, ta: float, ra: float) -> int:
    return 0 if risk < ta else (1 if risk < ra else 2)


def band_codes(risk: NDArray[np.float64], ta: float, ra: float) -> NDArray[np.int8]:
    return (risk >= ta).astype(np.int8) + (risk >= ra).astype(np.int8)
