"""The `options` object: the reference's keys plus radar-v1's (see docs/DECISIONS.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proximity.engine.airspace.model import Options, PairConflict
from proximity.engine.airspace.validate import (
    AirspaceInputError,
    integer,
    number,
    parse_time_ms,
    path_field,
    time_field,
)

__all__ = ["parse_options"]


def _weights(value: Any) -> dict[str, float | None]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise AirspaceInputError("options.channelWeights", "must be an object")
    return {
        str(k): None if v is None else number(v, f"options.channelWeights.{k}", low=None)
        for k, v in value.items()
    }


def _thresholds(value: Any) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise AirspaceInputError("options.thresholds", "must be an object")
    out = {k: number(value[k], f"options.thresholds.{k}") for k in ("ta", "ra") if k in value}
    return out


def _conflicts(value: Any, key: str = "conflicts") -> tuple[PairConflict, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise AirspaceInputError(f"options.{key}", "must be a list")
    out = []
    for k, item in enumerate(value):
        where = f"options.{key}[{k}]"
        if not isinstance(item, Mapping) or not all(isinstance(item.get(x), str) for x in "ab"):
            raise AirspaceInputError(where, "must be {a, b, files}")
        files = item.get("files") or []
        if not isinstance(files, list):
            raise AirspaceInputError(f"{where}.files", "must be a list")
        paths = tuple(path_field(p, f"{where}.files[{n}]") for n, p in enumerate(files))
        out.append(PairConflict(item["a"], item["b"], paths))
    return tuple(out)


def _history(value: Any) -> dict[str, tuple[tuple[float, float], ...]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise AirspaceInputError("options.history", "must be an object")
    out = {}
    for key, samples in value.items():
        where = f"options.history[{key!r}]"
        if not isinstance(samples, list):
            raise AirspaceInputError(where, "must be a list of [time, risk]")
        parsed = []
        for n, sample in enumerate(samples):
            if not isinstance(sample, list | tuple) or len(sample) != 2:
                raise AirspaceInputError(f"{where}[{n}]", "must be [time, risk]")
            parsed.append((time_field(sample[0], f"{where}[{n}]"), number(sample[1], where)))
        out[str(key)] = tuple(sorted(parsed))
    return out


def _opt(raw: Mapping[str, Any], key: str, default: float, *, low: float = 0.0) -> float:
    value = raw.get(key)
    return default if value is None else number(value, f"options.{key}", low=low)


def parse_options(raw: Mapping[str, Any]) -> Options:
    """Validate ``options``; ``dims`` falls back to 3 when falsy, as ``options.dims || 3``."""
    dims = raw.get("dims") or 3
    cap = raw.get("dependencyCap")
    now = raw.get("now")
    dep_decay = raw.get("depDecay")
    parked = raw.get("parkedAfterHours")
    return Options(
        channel_weights=_weights(raw.get("channelWeights")),
        dep_decay=None if dep_decay is None else number(dep_decay, "options.depDecay"),
        thresholds=_thresholds(raw.get("thresholds")),
        dims=integer(dims, "options.dims", low=1),
        dependency_pull=_opt(raw, "dependencyPull", 0.35, low=-1e300),
        now_ms=None if now is None else _now(now),
        dependency_cap=None if cap is None else integer(cap, "options.dependencyCap"),
        recency_floor=_opt(raw, "recencyFloor", 0.15),
        half_life_s=_opt(raw, "halfLifeSeconds", 1800.0, low=1e-9),
        links_per_agent=integer(raw.get("linksPerAgent", 3), "options.linksPerAgent"),
        closure_threshold=_opt(raw, "closureThreshold", 0.002, low=-1e300),
        overlap_floor=_floor(raw.get("overlapFloor")),
        conflicts=_conflicts(raw.get("conflicts")),
        merge_checks=_conflicts(raw.get("mergeChecks"), "mergeChecks"),
        history=_history(raw.get("history")),
        parked_after_hours=None if parked is None else number(parked, "options.parkedAfterHours"),
    )


def _floor(value: Any) -> float | None:
    if value is None:
        return None
    floor = number(value, "options.overlapFloor")
    if floor > 1:
        raise AirspaceInputError("options.overlapFloor", "must be <= 1")
    return floor


def _now(value: Any) -> float:
    parsed = parse_time_ms(value)
    if parsed is None:
        raise AirspaceInputError("options.now", "must be an ISO-8601 time or epoch milliseconds")
    return parsed
