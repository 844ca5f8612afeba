"""Developer machine and `make demo`: debug on, embedded defaults."""

from __future__ import annotations

from overlap_site.settings.base import *  # noqa: F403
from overlap_site.settings.env import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)
