"""Byte-exact canonical encoding and hashing of receipts, matching the JavaScript reference.

The reference hashes ``"ecc.tcas.shadow.v1\\n" + enc([1, trailId, id, kind, at, previousHash,
payload])`` where ``enc`` is compact ``JSON.stringify`` output with keys in insertion order
(ECC-PROXIMITY.md section 7, "Hash"). Reproducing those bytes in Python needs three JS rules
that ``json.dumps`` does not follow: JS number-to-string, JS string escaping (lone surrogates
become ``\\udxxx``; non-ASCII stays raw) and JS property order (integer-like keys first).
Callers only ever encode data that validation has already reduced to dict/list/str/int/
float/bool/None, so the encoder never calls a method of a foreign object.
"""

from __future__ import annotations

import hashlib
import math
import re

from proximity.engine.trail.errors import fail

__all__ = [
    "HASH_DOMAIN",
    "ZERO_HASH",
    "encode_canonical",
    "js_number",
    "js_sorted",
    "receipt_digest",
    "utf16_key",
]

HASH_DOMAIN = "ecc.tcas.shadow.v1\n"
ZERO_HASH = "0" * 64
VERSION = 1

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX = 2**32 - 2
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r"}
_SHORT_ESCAPES["\t"] = "\\t"


def utf16_key(text: str) -> bytes:
    """Sort key equal to JS default string order (UTF-16 code units, not code points).

    Big-endian UTF-16 bytes compare exactly like code-unit sequences; ``surrogatepass`` keeps
    lone surrogates (which JSON may carry) comparable instead of failing.
    """
    return text.encode("utf-16-be", "surrogatepass")


def js_sorted(items: list[str]) -> list[str]:
    """``Array.prototype.sort()`` with no comparator, for strings."""
    return sorted(items, key=utf16_key)


def js_number(value: int | float) -> str:
    """``JSON.stringify(number)`` for a finite number (ECMA-262 ``Number::toString``).

    Python's ``repr`` already yields the shortest round-tripping digits, as JS does; only the
    layout differs: JS drops ``.0``, switches to exponent form at 1e21 and below 1e-6, and
    writes ``1e-7`` / ``1e+21`` rather than ``1e-07`` / ``1e+21``.
    """
    if type(value) is int:
        return str(value)
    if not math.isfinite(value):
        raise fail("number is not finite")
    if value == 0:
        return "0"  # JS prints -0 as 0 too
    digits, point = _shortest_digits(abs(value))
    sign = "-" if value < 0 else ""
    return sign + _layout(digits, point)


def _shortest_digits(value: float) -> tuple[str, int]:
    """Digits ``d1..dk`` (no leading/trailing zeros) and ``n`` with value = 0.d1..dk * 10**n."""
    mantissa, _, exponent = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    leading = len(raw) - len(raw.lstrip("0"))
    point = len(whole) + int(exponent or 0) - leading
    return raw.strip("0"), point


def _layout(digits: str, point: int) -> str:
    k = len(digits)
    if k <= point <= 21:
        return digits + "0" * (point - k)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * (-point) + digits
    exponent = point - 1
    signed = f"+{exponent}" if exponent >= 0 else str(exponent)
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{signed}"


def js_string(text: str) -> str:
    """``JSON.stringify(string)`` (ES2019 well-formed): raw non-ASCII, escaped lone surrogates."""
    units = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    out = ['"']
    for char in units:
        code = ord(char)
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _is_array_index(key: str) -> bool:
    return _ARRAY_INDEX.fullmatch(key) is not None and int(key) <= _MAX_ARRAY_INDEX


def js_key_order(keys: list[str]) -> list[str]:
    """JS own-property order: array-index keys ascending numerically, then insertion order."""
    indices = sorted((key for key in keys if _is_array_index(key)), key=int)
    return indices + [key for key in keys if not _is_array_index(key)]


def encode_canonical(value: object) -> str:
    """Compact JSON exactly as the reference's ``enc``; ``value`` must be validated plain data."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is int or type(value) is float:
        return js_number(value)
    if type(value) is str:
        return js_string(value)
    if type(value) is list:
        return "[" + ",".join(encode_canonical(item) for item in value) + "]"
    if type(value) is dict:
        keys: list[str] = list(value)
        fields = (js_string(key) + ":" + encode_canonical(value[key]) for key in js_key_order(keys))
        return "{" + ",".join(fields) + "}"
    raise fail("value is not plain JSON data")


def receipt_digest(
    trail_id: str, receipt_id: str, kind: str, at: str, previous_hash: str, payload: object
) -> str:
    """SHA-256 over the domain tag and the canonical tuple (ECC-PROXIMITY.md section 7, "Hash")."""
    body = encode_canonical([VERSION, trail_id, receipt_id, kind, at, previous_hash, payload])
    return hashlib.sha256((HASH_DOMAIN + body).encode("utf-8")).hexdigest()
