"""Passive, hash-chained shadow receipt trail for one pair of agents (ecc-v0 compatible).

Observation -> advisory -> acknowledgements -> scope revision -> re-observation -> advisory,
with the receipt format, hashing and verification rules of the JavaScript reference
(ECC-PROXIMITY.md section 7). Trails are plain JSON-compatible dicts; every public function
raises :class:`ShadowTrailError` with one generic message and a field-naming ``reason``.
"""

from __future__ import annotations

from proximity.engine.trail.api import (
    append_acknowledgement,
    append_reobservation,
    append_scope_revision,
    create_shadow_trail,
    summarize_shadow_trail,
)
from proximity.engine.trail.canonical import encode_canonical, js_number, js_sorted
from proximity.engine.trail.errors import GENERIC_MESSAGE, ShadowTrailError
from proximity.engine.trail.verify import verify_shadow_trail

__all__ = [
    "GENERIC_MESSAGE",
    "ShadowTrailError",
    "append_acknowledgement",
    "append_reobservation",
    "append_scope_revision",
    "create_shadow_trail",
    "encode_canonical",
    "js_number",
    "js_sorted",
    "summarize_shadow_trail",
    "verify_shadow_trail",
]
