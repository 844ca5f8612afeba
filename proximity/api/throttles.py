"""Rate limits: reports per token, and failed token checks per client address.

ninja's own throttles key an authenticated caller by ``str(request.auth)`` and run only after
authentication succeeds, so they neither separate two tokens of one principal nor slow down
someone guessing tokens. These key by the presented token's digest, read the rate from settings
on every call (so an operator's change and a test's override apply without re-importing), and
keep their counters in the shared cache (Redis in production, so every web worker agrees).
"""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.http import HttpRequest
from ninja.errors import Throttled
from ninja.throttling import SimpleRateThrottle
from redis.exceptions import RedisError

__all__ = ["TokenRateThrottle", "auth_failure_throttle"]

log = logging.getLogger(__name__)


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
            # Fail open: with the cache (Redis) down, reports must still be stored, since the
            # database outbox is what makes a broker outage lose nothing
            # (tests/reliability/test_broker_down.py found the 500 this prevents).
            log.warning("rate limit %s not checked: cache unavailable", self.scope)
            return True


class TokenRateThrottle(_SettingRateThrottle):
    """At most ``settings.<setting>`` requests per bearer token (per address without one)."""

    def get_cache_key(self, request: HttpRequest) -> str:
        header = request.headers.get("Authorization", "")
        ident = hashlib.sha256(header.encode()).hexdigest() if header else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class _AddressThrottle(_SettingRateThrottle):
    def get_cache_key(self, request: HttpRequest) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


_failures = _AddressThrottle("OVERLAP_AUTH_FAILURE_RATE", "auth-failure")


def auth_failure_throttle(request: HttpRequest) -> None:
    """Count a failed token check for this address; raise 429 once over the limit."""
    if not _failures.allow_request(request):
        raise Throttled(wait=int(_failures.wait() or 1))
