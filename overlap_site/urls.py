"""URL map: admin, the API (docs at /api/docs), the health page and the landing page."""

from __future__ import annotations

from django.contrib import admin
from django.urls import path

from overlap_site.api import api
from proximity.views.favicon import favicon
from proximity.views.pages import health_page, home

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("health/", health_page, name="health"),
    path("favicon.ico", favicon, name="favicon"),
    path("", home, name="home"),
]
