#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

from __future__ import annotations

import os
import sys


def _server_extra() -> None:
    """The light agent install has no Django: one line naming the extra, not a traceback."""
    try:
        import celery  # noqa: F401  (the [server] extra)
        import django  # noqa: F401
    except ModuleNotFoundError as exc:
        print(
            f"the server needs the [server] extra (no module {exc.name!r}): "
            "pip install 'overlap-radar[server]'",
            file=sys.stderr,
        )
        raise SystemExit(2) from None


def main() -> None:
    _server_extra()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "overlap_site.settings.local")
    from overlap_site.startup import fail_on_bad_environment

    with fail_on_bad_environment():
        from django.core.management import execute_from_command_line

        execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
