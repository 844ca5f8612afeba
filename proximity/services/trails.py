"""Persist verified shadow receipt trails; a stored trail only ever grows by appended receipts."""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction
from django.utils import timezone

from proximity.engine.trail import ShadowTrailError, verify_shadow_trail
from proximity.exceptions import ConflictError, InvalidInputError
from proximity.models import Repository, ShadowTrail

__all__ = ["trail_record"]


def trail_record(*, repository: Repository, document: dict[str, Any]) -> ShadowTrail:
    """Verify and store a trail; a later version must extend the stored receipts unchanged."""
    try:
        verify_shadow_trail(document)
    except ShadowTrailError as exc:
        raise InvalidInputError(f"trail rejected: {exc.reason}", field="trail") from None
    receipts = document["receipts"]
    with transaction.atomic():
        stored = (
            ShadowTrail.objects.select_for_update().filter(trail_id=document["trailId"]).first()
        )
        if stored is not None:
            old = json.loads(stored.document)["receipts"]
            if stored.repository_id != repository.pk or receipts[: len(old)] != old:
                raise ConflictError("a stored trail may only be extended", field="trail")
        values = {
            "repository": repository,
            "document": json.dumps(document, ensure_ascii=False, separators=(",", ":")),
            "receipt_count": len(receipts),
            "head_hash": receipts[-1]["hash"],
            "updated_at": timezone.now(),
        }
        trail, _ = ShadowTrail.objects.update_or_create(
            trail_id=document["trailId"], defaults=values
        )
    return trail
