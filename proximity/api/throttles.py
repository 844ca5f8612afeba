"""Rate limits: reports per token, and failed token checks per client address.

ninja's own throttles key an authenticated caller by ``str(request.auth)`` and run only after
authentication succeeds, so they neither separate two tokens of one principal nor slow down
someone guessing tokens. These key by the presented token's digest, read the rate from settings
on every call (so an operator's change and a test's override apply without re-importing), and
keep their counters in the shared cache (Redis in production, so every web worker agrees).

The key is the token alone, never the raw header: the scheme is case-insensitive and blanks
around the token do not matter to authentication, so keying the header let one token spend 64
budgets by writing "Bearer" in different cases (issue 31, item 7). With the shared cache down the
counters move to this process's memory rather than letting everything through: a report is still
stored (the database outbox is what makes a broker outage lose nothing), but guessing tokens is
still slowed down, per web process.
"""

from __future__ import annotations

import copy
import hashlib
import logging

from django.conf import settings
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest
from ninja.errors import Throttled
from ninja.throttling import SimpleRateThrottle
from redis.exceptions import RedisError

__all__ = ["TokenRateThrottle", "auth_failure_throttle", "bearer_token"]

log = logging.getLogger(__name__)

# Where counters go while the shared cache does not answer: this process only.
_PROCESS_COUNTERS: BaseCache = LocMemCache("radar-throttle-fallback", {})


def bearer_token(request: HttpRequest) -> str:
    """The token of an ``Authorization: Bearer`` header as authentication reads it, else ""."""
    scheme, _, token = request.headers.get("Authorization", "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


class _SettingRateThrottle(SimpleRateThrottle):
    def __init__(self, setting: str, scope: str) -> None:
        self.setting, self.scope = setting, scope
        super().__init__(rate=getattr(settings, setting))

    def allow_request(self, request: HttpRequest) -> bool:
        self.rate = getattr(settings, self.setting)
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return super().allow_request(request)
        except (RedisError, OSError):
            # Not "fail open": tests/reliability/test_throttles_hold.py found the failed-token
            # limit letting every guess through while Redis was down.
            log.warning("rate limit %s counted in this process only: cache unavailable", self.scope)
            return self._allow_in_process(request)

    def _allow_in_process(self, request: HttpRequest) -> bool:
        # A copy counts in process memory: a route's instance is shared by every thread, so its
        # own cache attribute is never swapped. ``wait()`` then reads what the copy saw.
        fallback = copy.copy(self)
        fallback.cache = _PROCESS_COUNTERS
        allowed = SimpleRateThrottle.allow_request(fallback, request)
        self.history, self.now = fallback.history, fallback.now
        return allowed


class TokenRateThrottle(_SettingRateThrottle):
    """At most ``settings.<setting>`` requests per bearer token (per address without one)."""

    def get_cache_key(self, request: HttpRequest) -> str:
        token = bearer_token(request)
        ident = hashlib.sha256(token.encode()).hexdigest() if token else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class _AddressThrottle(_SettingRateThrottle):
    def get_cache_key(self, request: HttpRequest) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def auth_failure_throttle(request: HttpRequest) -> None:
    """Count a failed token check for this address; raise 429 once over the limit."""
    failures = _AddressThrottle("OVERLAP_AUTH_FAILURE_RATE", "auth-failure")
    if not failures.allow_request(request):
        raise Throttled(wait=int(failures.wait() or 1))
