"""Shadow receipt trails, read-only: stored trails are re-verified on every read."""

from __future__ import annotations

import json

from django.http import HttpRequest
from ninja import Router

from proximity.api.auth import TokenAuth, principal_of
from proximity.api.schemas import ERRORS, TrailOut
from proximity.engine.trail import ShadowTrailError, summarize_shadow_trail, verify_shadow_trail
from proximity.exceptions import NotFoundError
from proximity.models import ShadowTrail
from proximity.selectors.access import can_see

router = Router(tags=["trails"], auth=TokenAuth())


@router.get(
    "/trails/{trail_id}",
    response={200: TrailOut, **ERRORS},
    by_alias=True,
    summary="A stored shadow trail, verified again as it is read",
)
def read_trail(request: HttpRequest, trail_id: str) -> TrailOut:
    trail = ShadowTrail.objects.select_related("repository").filter(trail_id=trail_id).first()
    repo = trail.repository if trail else None
    if (
        trail is None
        or repo is None
        or not can_see(principal_of(request), repo.scope, repo.disclosure)
    ):
        raise NotFoundError("trail")
    document = json.loads(trail.document)
    try:
        verify_shadow_trail(document)
        summary, verified = summarize_shadow_trail(document), True
    except ShadowTrailError:
        summary, verified = None, False
    return TrailOut(
        trail_id=trail.trail_id,
        repository=repo.name,
        receipt_count=trail.receipt_count,
        head_hash=trail.head_hash,
        updated_at=trail.updated_at,
        verified=verified,
        summary=summary,
        document=document,
    )
