from __future__ import annotations

from django.apps import AppConfig


class ProximityConfig(AppConfig):
    name = "proximity"
    verbose_name = "Overlap Radar"
    default_auto_field = "django.db.models.BigAutoField"
