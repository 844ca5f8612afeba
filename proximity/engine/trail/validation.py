"""Plain-data and scalar validation, the Python analogue of the reference's input hardening.

The JavaScript reference (ECC-PROXIMITY.md section 7, "Validation") guards against prototype
tricks, accessors, ``toJSON``/``toString`` hooks, sparse arrays and Proxies. Python has none of
those, but it has their analogues: dict/list/str subclasses that override ``__getitem__``,
``__iter__``, ``__eq__`` or ``__str__``; arbitrary objects; ``bool`` posing as ``int``; and
non-finite floats. Every check here therefore tests ``type(x) is <builtin>`` *before* touching
the value, so no method of a foreign object (not even ``__eq__`` or ``__len__``) ever runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeGuard

from proximity.engine.trail.canonical import js_sorted
from proximity.engine.trail.errors import fail

__all__ = [
    "MAX_KEYS",
    "MAX_PATHS",
    "base_revision",
    "identifier",
    "is_finite_number",
    "path",
    "paths",
    "plain_dict",
    "plain_list",
    "safe_int",
    "shape",
    "timestamp_ms",
    "unicode_units",
]

MAX_KEYS = 64
MAX_PATHS = 32
MAX_SAFE_INTEGER = 2**53 - 1
_RESERVED = frozenset({"__proto__", "constructor", "prototype"})
_IDENTIFIER = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9_.:-]*")
_REVISION = re.compile(r"[a-f0-9]{40}")
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})Z"
)
_DRIVE = re.compile(r"[A-Za-z]:")
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def plain_dict(value: object, field: str) -> dict[str, object]:
    """An exact ``dict`` with at most 64 string keys (JS: plain object, data properties only)."""
    if type(value) is not dict:
        raise fail(f"{field}: not a plain object")
    if len(value) > MAX_KEYS:
        raise fail(f"{field}: too many keys")
    if any(type(key) is not str for key in value):
        raise fail(f"{field}: non-string key")
    return value


def shape(
    value: object, field: str, allowed: Sequence[str], required: Sequence[str] | None = None
) -> dict[str, object]:
    """A plain dict whose keys are all ``allowed`` and include every ``required`` key."""
    row = plain_dict(value, field)
    if any(key not in allowed for key in row):
        raise fail(f"{field}: unknown field")  # never echo the key: it is caller data
    if any(key not in row for key in (allowed if required is None else required)):
        raise fail(f"{field}: missing field")
    return row


def plain_list(value: object, field: str, maximum: int) -> list[object]:
    """An exact ``list`` of at most ``maximum`` items (JS: dense plain array, no accessors)."""
    if type(value) is not list:
        raise fail(f"{field}: not a plain array")
    if len(value) > maximum:
        raise fail(f"{field}: too many items")
    return value


def identifier(value: object, field: str) -> str:
    if (
        type(value) is not str
        or len(value) > 120
        or _IDENTIFIER.fullmatch(value) is None
        or value in _RESERVED
    ):
        raise fail(f"{field}: not a valid identifier")
    return value


def safe_int(value: object, field: str, minimum: int = 1) -> int:
    """JS ``Number.isSafeInteger`` and a lower bound; ``bool`` and ``float`` are refused."""
    if type(value) is not int or not minimum <= value <= MAX_SAFE_INTEGER:
        raise fail(f"{field}: not a safe integer >= {minimum}")
    return value


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """JS ``Number.isFinite`` on data: an ``int`` or finite ``float``, never a ``bool``."""
    if type(value) is int:
        return True
    return type(value) is float and value - value == 0.0  # false for inf and nan


def base_revision(value: object, field: str) -> str:
    if type(value) is not str or _REVISION.fullmatch(value) is None:
        raise fail(f"{field}: not 40 lower-case hex digits")
    return value


def timestamp_ms(value: object, field: str) -> int:
    """Milliseconds since the epoch for an exact ``YYYY-MM-DDTHH:MM:SS.mmmZ`` string.

    The reference accepts a timestamp only if ``new Date(s).toISOString() === s``, i.e. a real
    calendar instant in that exact layout (year 0000 included, hour 24 excluded). Computed with
    the proleptic Gregorian day count so the full 0000-9999 range works, unlike ``datetime``.
    """
    match = _TIMESTAMP.fullmatch(value) if type(value) is str else None
    if match is None:
        raise fail(f"{field}: not an ISO-8601 UTC millisecond timestamp")
    year, month, day, hour, minute, second, milli = (int(part) for part in match.groups())
    if not (1 <= month <= 12 and 1 <= day <= _month_length(year, month)):
        raise fail(f"{field}: not a calendar date")
    if hour > 23 or minute > 59 or second > 59:
        raise fail(f"{field}: not a time of day")
    seconds = ((_days_from_civil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second
    return seconds * 1000 + milli


def _month_length(year: int, month: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _DAYS_IN_MONTH[month - 1]


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 (H. Hinnant's ``days_from_civil``), valid for any year."""
    year -= 1 if month <= 2 else 0
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def unicode_units(text: str) -> str:
    """Re-pair surrogates so a path means the same string in Python as in JS (UTF-16)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def path(value: object, field: str) -> str:
    """A relative POSIX path with no empty, dot or reserved segment and no control character."""
    if type(value) is not str:
        raise fail(f"{field}: not a string")
    text = unicode_units(value)
    utf16_length = len(text.encode("utf-16-le", "surrogatepass")) // 2  # JS ``.length``
    if not 1 <= utf16_length <= 256:
        raise fail(f"{field}: path length out of range")
    if text.startswith("/") or _DRIVE.match(text) or "\\" in text:
        raise fail(f"{field}: path is not relative")
    if any(not part or part in {".", ".."} or part in _RESERVED for part in text.split("/")):
        raise fail(f"{field}: path has an empty, dot or reserved segment")
    if any(ord(char) < 32 or ord(char) == 127 for char in text):
        raise fail(f"{field}: path has a control character")
    return text


def paths(value: object, field: str, maximum: int = MAX_PATHS) -> list[str]:
    """Unique valid paths, returned in JS default sort order (a fresh list)."""
    items = plain_list(value, field, maximum)
    result = [path(item, f"{field}[{index}]") for index, item in enumerate(items)]
    if len(set(result)) != len(result):
        raise fail(f"{field}: duplicate path")
    return js_sorted(result)
