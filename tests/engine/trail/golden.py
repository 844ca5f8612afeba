"""Rewrite the stored 7-receipt chain on purpose: ``python -m tests.engine.trail.golden``.

Only run this when the receipt format is meant to change; test_golden.py fails otherwise, which
is the point: the stored hashes pin the byte encoding shared with the JavaScript reference.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine.trail.factory import full_chain

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "trail_full_chain.json"


def dump(trail: object) -> str:
    return json.dumps(trail, ensure_ascii=False, indent=2) + "\n"


if __name__ == "__main__":
    GOLDEN.write_text(dump(full_chain()), encoding="utf-8")
