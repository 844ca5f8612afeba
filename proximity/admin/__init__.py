"""The admin: read-only inspection of stored state, and the adjudication desk.

Every queryset is narrowed through the viewer's principal with the same selectors the API and the
board use (docs/DECISIONS.md: superusers get no bypass).
"""

from __future__ import annotations

from proximity.admin import desk, inspect

__all__ = ["desk", "inspect"]
