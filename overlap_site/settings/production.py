"""Production: secrets and hosts must come from the environment; HTTPS-only cookies."""

from __future__ import annotations

from overlap_site.settings.base import *  # noqa: F403
from overlap_site.settings.env import EnvironmentConfigError, env_bool, env_int, env_list, env_str

DEBUG = False
_secret = env_str("DJANGO_SECRET_KEY")
if not _secret or len(_secret) < 50:
    raise EnvironmentConfigError("DJANGO_SECRET_KEY", "production needs a random key of 50+ chars")
SECRET_KEY = _secret
# No fallback: the base default (localhost, testserver) would make every real request a 400.
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", [])
if not ALLOWED_HOSTS:
    raise EnvironmentConfigError(
        "DJANGO_ALLOWED_HOSTS",
        "production needs the site's host names, comma-separated (e.g. radar.example.org)",
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = True
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
