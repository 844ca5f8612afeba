"""ASGI entry point."""

from __future__ import annotations

import os

from overlap_site.startup import fail_on_bad_environment

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "overlap_site.settings.local")

with fail_on_bad_environment():
    from django.core.asgi import get_asgi_application

    application = get_asgi_application()
