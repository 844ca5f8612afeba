"""Field validators shared by the airspace parser and the options parser."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from proximity.engine.airspace.paths import normalise_path, path_segments

__all__ = ["AirspaceInputError", "integer", "number", "parse_time_ms", "path_field", "time_field"]


class AirspaceInputError(ValueError):
    """Bad airspace input; ``field`` names the offending field (e.g. ``agents[2].agentId``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def parse_time_ms(value: Any) -> float | None:
    """ISO-8601 text or epoch milliseconds to epoch milliseconds; ``None`` when unparsable.

    A naive timestamp is read as UTC (the reference's ``Date.parse`` reads date-only text as
    UTC); an unparsable date counts as missing, as in the reference.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp() * 1000.0


def number(value: Any, field: str, *, low: float | None = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise AirspaceInputError(field, "must be a finite number")
    if low is not None and value < low:
        raise AirspaceInputError(field, f"must be >= {low:g}")
    return float(value)


def integer(value: Any, field: str, *, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AirspaceInputError(field, "must be an integer")
    if value < low:
        raise AirspaceInputError(field, f"must be >= {low}")
    return int(value)


def path_field(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise AirspaceInputError(field, "must be a string")
    norm = normalise_path(value)
    segments = path_segments(norm)
    if not segments:
        raise AirspaceInputError(field, "must name a file or folder")
    if ".." in segments:
        raise AirspaceInputError(field, "must not contain '..'")
    return norm


def time_field(value: Any, field: str) -> float:
    parsed = parse_time_ms(value)
    if parsed is None:
        raise AirspaceInputError(field, "must be an ISO-8601 time or epoch milliseconds")
    return parsed
