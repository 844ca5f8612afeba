"""Scalar rules: identifiers, timestamps and paths exactly as the reference accepts them."""

from __future__ import annotations

import pytest

from proximity.engine.trail.errors import InvalidTrail
from proximity.engine.trail.validation import identifier, path, paths, timestamp_ms


@pytest.mark.parametrize("value", ["a", "shadow-1", "x:y.z_1-2", "A" * 120])
def test_identifiers_the_reference_accepts_are_accepted(value: str) -> None:
    assert identifier(value, "id") == value


@pytest.mark.parametrize(
    "value", ["", "-a", "a b", "a/b", "A" * 121, "constructor", "prototype", "a\n", "é", 1, None]
)
def test_identifiers_the_reference_rejects_are_rejected(value: object) -> None:
    with pytest.raises(InvalidTrail, match="id: not a valid identifier"):
        identifier(value, "id")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1970-01-01T00:00:00.000Z", 0),
        ("2026-09-15T12:00:00.000Z", 1789473600000),
        ("2024-02-29T23:59:59.999Z", 1709251199999),
        ("0000-01-01T00:00:00.000Z", -62167219200000),  # JS Date handles year 0; datetime cannot
    ],
)
def test_timestamps_map_to_javascript_epoch_milliseconds(value: str, expected: int) -> None:
    assert timestamp_ms(value, "at") == expected


@pytest.mark.parametrize(
    "value",
    [
        "2026-09-15T12:00:00Z",
        "2026-09-15T12:00:00.000+00:00",
        "2026-09-15T12:00:00.000Z\n",
        "2025-02-29T00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "2026-09-15T24:00:00.000Z",
        "2026-09-15T12:60:00.000Z",
        "\uff12026-09-15T12:00:00.000Z",  # a full-width digit is not [0-9]
        1789473600000,
    ],
)
def test_timestamps_that_do_not_round_trip_through_to_iso_string_are_rejected(
    value: object,
) -> None:
    with pytest.raises(InvalidTrail, match="at:"):
        timestamp_ms(value, "at")


@pytest.mark.parametrize(
    "value",
    [
        "../escape",
        "/abs.js",
        "C:/x.js",
        "src\\x.js",
        "src//x.js",
        "./x.js",
        "src/",
        "src/__proto__/x",
        "a/constructor",
        "bad\x01name",
        "del\x7f",
        "",
        "x" * 257,
        "\U0001f600" * 129,
    ],
)
def test_unsafe_paths_are_rejected(value: str) -> None:
    with pytest.raises(InvalidTrail):
        path(value, "path")


def test_path_length_counts_utf16_units_like_javascript() -> None:
    assert path("\U0001f600" * 128, "path") == "\U0001f600" * 128  # 256 code units
    assert path("x" * 256, "path") == "x" * 256


def test_split_surrogates_are_the_same_path_as_the_astral_character() -> None:
    assert path("\ud83d\ude00.js", "path") == "\U0001f600.js"
    with pytest.raises(InvalidTrail, match="duplicate"):
        paths(["\ud83d\ude00.js", "\U0001f600.js"], "paths")


def test_path_lists_are_sorted_unique_and_bounded() -> None:
    assert paths(["src/b.js", "src/a.js"], "paths") == ["src/a.js", "src/b.js"]
    with pytest.raises(InvalidTrail, match="duplicate"):
        paths(["src/a.js", "src/a.js"], "paths")
    with pytest.raises(InvalidTrail, match="too many"):
        paths([f"src/{index}.js" for index in range(33)], "paths")
