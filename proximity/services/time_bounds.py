"""The window every time an agent sends must fall in, shared by the API's schemas and the services.

A start of year 1 with a +14:00 offset is stored by PostgreSQL (as 1 BC) but cannot be read back
by psycopg, and SQLite stores it as text the reader then fails on: one report blinded every read
of its repository (issue 31, item 1). So a time is accepted only as an ISO-8601 string with an
offset, not before 2000-01-01 and not after now plus a small clock skew; an expiry may lie ahead,
by at most a year. Integers are refused: ``-1`` would be read as 1969 by pydantic.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from proximity.models.airspace import EARLIEST

__all__ = ["EARLIEST", "LATEST_EXPIRY", "iso_time", "time_window_error", "within_window"]

LATEST_EXPIRY = timedelta(days=366)


def iso_time(value: Any) -> datetime:
    """An ISO-8601 string with an offset, parsed; anything else is a ValueError (pydantic's 422)."""
    if isinstance(value, datetime):  # a caller inside the process, already typed
        parsed = value
    elif isinstance(value, str) and len(value) <= 64:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("must be an ISO-8601 date and time") from None
    else:
        raise ValueError("must be an ISO-8601 string (numbers are refused)")
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValueError("must include a timezone offset (e.g. Z or +02:00)")
    return parsed


def time_window_error(value: datetime, *, now: datetime | None = None, ahead: bool = False) -> str:
    """Why ``value`` is outside the window, or "" when it is inside.

    ``ahead`` is for expiries, which may lie up to a year in the future; every other time may lie
    at most ``OVERLAP_CLOCK_SKEW_SECONDS`` ahead of the server's clock.
    """
    # The year first: converting year 1 at +14:00 to UTC would overflow before any comparison.
    if value.year < EARLIEST.year:
        return "must not be before 2000-01-01"
    now = now or timezone.now()
    skew = LATEST_EXPIRY if ahead else timedelta(seconds=settings.OVERLAP_CLOCK_SKEW_SECONDS)
    if value < EARLIEST:
        return "must not be before 2000-01-01"
    if value > now + skew:
        return "must not be in the future" if not ahead else "must be within a year from now"
    return ""


def within_window(value: datetime | None, *, now: datetime) -> datetime | None:
    """``value`` when it lies in the window, else None (for times from our own readers)."""
    if value is None or time_window_error(value, now=now):
        return None
    return value
