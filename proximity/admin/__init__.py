"""The admin: read-only inspection of stored state, and the adjudication desk.

Every queryset is narrowed through the viewer's principal with the same selectors the API and the
board use (docs/DECISIONS.md: superusers get no bypass).
"""

from __future__ import annotations

from django.contrib import admin

from proximity.admin import desk, inspect

__all__ = ["desk", "inspect"]

admin.site.site_header = "Overlap Radar administration"
admin.site.site_title = "Overlap Radar"
