"""WSGI entry point (gunicorn overlap_site.wsgi; runserver via WSGI_APPLICATION).

Django serves the site; the Dash board is dispatched under /board/ by a small path dispatcher.
"""

from __future__ import annotations

import os

from overlap_site.startup import fail_on_bad_environment

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "overlap_site.settings.local")

with fail_on_bad_environment():
    from django.core.wsgi import get_wsgi_application

    from proximity.dashboard.mount import mount_board

    application = mount_board(get_wsgi_application())
