"""Byte-level agreement with the JavaScript reference's encoding (values checked with Node 20)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.trail import encode_canonical, js_number, js_sorted
from proximity.engine.trail.canonical import receipt_digest
from proximity.engine.trail.errors import InvalidTrail


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (0.5, "0.5"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.25e22, "1.25e+22"),
        (-0.0, "0"),
        (-2.5, "-2.5"),
        (0.9, "0.9"),
        (0.45, "0.45"),
        (123.456, "123.456"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (7, "7"),
    ],
)
def test_numbers_print_like_javascript(value: float, expected: str) -> None:
    assert js_number(value) == expected


@settings(max_examples=50, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_number_text_round_trips_to_the_same_float(value: float) -> None:
    text = js_number(value)
    assert float(text) == value
    assert not text.endswith(".0")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_cannot_be_encoded(value: float) -> None:
    with pytest.raises(InvalidTrail, match="not finite"):
        js_number(value)


def test_sort_is_utf16_code_unit_order_not_code_point_order() -> None:
    # U+1F600 is the surrogate pair D83D DE00, so JS sorts it before U+E000 and U+FFFF,
    # whereas Python's code-point order puts it last.
    items = ["\uffff", "\U0001f600", "\ue000", "z"]
    assert sorted(items) == ["z", "\ue000", "\uffff", "\U0001f600"]
    assert js_sorted(items) == ["z", "\U0001f600", "\ue000", "\uffff"]


def test_strings_keep_non_ascii_raw_and_escape_lone_surrogates_and_controls() -> None:
    encoded = encode_canonical(["é/\U0001f600.js", "\ud800x", 'q"\\\n\x01\x7f'])
    assert encoded == '["é/\U0001f600.js","\\ud800x","q\\"\\\\\\n\\u0001\x7f"]'


def test_integer_like_keys_come_first_as_in_javascript_objects() -> None:
    encoded = encode_canonical({"b": 1, "10": 2, "9": 3, "01": 4, "4294967295": 5})
    assert encoded == '{"9":3,"10":2,"b":1,"01":4,"4294967295":5}'


def test_digest_matches_node_json_stringify_and_sha256() -> None:
    # Expected value printed by Node 20: sha256("ecc.tcas.shadow.v1\n" + JSON.stringify(tuple)).
    payload = {
        "p": ["é/\U0001f600.js", "\ud800x"],
        "n": 0.1 + 0.2,
        "i": 1,
        "z": 1e21,
        "s": 1e-7,
        "10": [],
        "9": [],
        "a\n": None,
    }
    digest = receipt_digest(
        "t-1", "r:1", "observation", "2026-09-15T12:00:00.000Z", "0" * 64, payload
    )
    assert digest == "c860d9cb13de03ee93df0358f9106df9019fffec9fc2797ff24f5e4229654deb"


def test_encoder_refuses_values_that_are_not_plain_json() -> None:
    with pytest.raises(InvalidTrail, match="not plain JSON"):
        encode_canonical({"x": (1, 2)})
