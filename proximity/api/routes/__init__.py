"""All API routers, mounted once by overlap_site/api.py."""

from __future__ import annotations

from ninja import Router

from proximity.api.routes.agents import router as agents_router
from proximity.api.routes.airspace import router as airspace_router
from proximity.api.routes.health import router as health_router
from proximity.api.routes.repositories import router as repositories_router
from proximity.api.routes.tasks import router as tasks_router
from proximity.api.routes.trails import router as trails_router

router = Router()
router.add_router("", health_router)
router.add_router("", airspace_router)
router.add_router("", agents_router)
router.add_router("", repositories_router)
router.add_router("", trails_router)
router.add_router("", tasks_router)

__all__ = ["router"]
