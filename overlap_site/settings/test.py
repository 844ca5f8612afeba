"""Test runs: fast hashing; storage and queue still follow DATABASE_URL / REDIS_URL."""

from __future__ import annotations

from overlap_site.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# A scan's input hash holds a time bucket; tests that count scan rows must not see a bucket
# boundary fall mid-test, so the bucket is a day here (tests of the bucket set their own).
OVERLAP_SCAN_RESCORE_SECONDS = 86_400
