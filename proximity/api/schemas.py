"""Request and response schemas (<Thing>In / <Thing>Out)."""

from __future__ import annotations

from typing import Literal

from ninja import Schema


class CheckOut(Schema):
    name: str
    status: Literal["ok", "warn", "critical"]
    detail: str
    fix: str


class HealthOut(Schema):
    status: Literal["ok", "warn", "critical"]
    checks: list[CheckOut]
