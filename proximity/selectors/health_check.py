"""One health check's result: shared by the checks in ``health`` and ``watch_health``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

__all__ = ["Check", "Status"]

Status = Literal["ok", "warn", "critical"]


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)
