"""Verification of a persisted trail: structure, canonical bytes, hash chain, then replay.

Checks follow the reference's order (ECC-PROXIMITY.md section 7, "Verification") so that a
trail written by either implementation verifies in the other.
"""

from __future__ import annotations

import re

from proximity.engine.trail.canonical import VERSION, ZERO_HASH, encode_canonical, receipt_digest
from proximity.engine.trail.errors import InvalidTrail, fail, guarded
from proximity.engine.trail.receipts import MAX_RECEIPTS, RECEIPT_FIELDS, normalize_payload
from proximity.engine.trail.state import ReplayState, transition
from proximity.engine.trail.validation import identifier, plain_list, shape, timestamp_ms

__all__ = ["inspect_trail", "verify_shadow_trail"]

_HASH = re.compile(r"[a-f0-9]{64}")


def _is_hash(value: object) -> bool:
    return type(value) is str and _HASH.fullmatch(value) is not None


def _header(trail: object) -> tuple[str, list[object]]:
    row = shape(trail, "trail", ("version", "trailId", "receipts"))
    if type(row["version"]) is not int or row["version"] != VERSION:
        raise fail("trail.version: not 1")
    receipts = plain_list(row["receipts"], "trail.receipts", MAX_RECEIPTS)
    if len(receipts) < 2:
        raise fail("trail.receipts: fewer than 2 receipts")
    return identifier(row["trailId"], "trail.trailId"), receipts


def _parse(item: object, field: str) -> tuple[dict[str, object], dict[str, object], int]:
    """The receipt, its normalised payload and its time; persisted bytes must be canonical."""
    receipt = shape(item, field, RECEIPT_FIELDS)
    identifier(receipt["id"], f"{field}.id")
    at_ms = timestamp_ms(receipt["at"], f"{field}.at")
    payload = normalize_payload(receipt["kind"], receipt["payload"], field)
    if encode_canonical(receipt["payload"]) != encode_canonical(payload):
        raise fail(f"{field}.payload: not in canonical order")
    return receipt, payload, at_ms


def _check_hashes(
    trail_id: str, receipt: dict[str, object], payload: object, field: str, previous_hash: str
) -> None:
    """Version, hash formats, the link to the predecessor and the recomputed hash."""
    version = receipt["version"]
    if type(version) is not int or version != VERSION:
        raise fail(f"{field}.version: not 1")
    if not _is_hash(receipt["previousHash"]) or not _is_hash(receipt["hash"]):
        raise fail(f"{field}: hash fields are not 64 lower-case hex digits")
    if receipt["previousHash"] != previous_hash:
        raise fail(f"{field}.previousHash: does not link to the previous receipt")
    at, kind, receipt_id = str(receipt["at"]), str(receipt["kind"]), str(receipt["id"])
    if receipt["hash"] != receipt_digest(trail_id, receipt_id, kind, at, previous_hash, payload):
        raise fail(f"{field}.hash: does not match the receipt content")


def _replay(
    state: ReplayState, receipt: dict[str, object], payload: object, at_ms: int, field: str
) -> ReplayState:
    try:
        return transition(state, {**receipt, "payload": payload}, at_ms)
    except InvalidTrail as error:
        raise fail(f"{field}: {error.reason}") from None


def inspect_trail(trail: object) -> ReplayState:
    """Verify ``trail`` and return the replayed state; raises the internal failure otherwise."""
    trail_id, receipts = _header(trail)
    state, previous_hash, seen = ReplayState(), ZERO_HASH, set[object]()
    previous_ms = -(2**63)  # below any valid instant; year 0000 is negative epoch time
    for index, item in enumerate(receipts):
        field = f"receipts[{index}]"
        receipt, payload, at_ms = _parse(item, field)
        if receipt["id"] in seen:
            raise fail(f"{field}.id: duplicate receipt id")
        if at_ms < previous_ms:
            raise fail(f"{field}.at: earlier than the previous receipt")
        _check_hashes(trail_id, receipt, payload, field, previous_hash)
        state = _replay(state, receipt, payload, at_ms, field)
        seen.add(receipt["id"])
        previous_ms, previous_hash = at_ms, str(receipt["hash"])
    if state.awaiting_advisory:
        raise fail("trail: ends with an advisory pending")
    return state


@guarded
def verify_shadow_trail(trail: object) -> None:
    """Check a persisted shadow trail; return ``None`` if valid.

    Parameters
    ----------
    trail : a JSON-compatible dict as written by this package or the JS reference.

    Raises
    ------
    ShadowTrailError
        With the generic message of the reference and a ``reason`` naming the broken rule.
        The checks are those of ECC-PROXIMITY.md section 7, "Verification"; hashes detect
        inconsistent local content, they do not authenticate who wrote the trail.
    """
    inspect_trail(trail)
