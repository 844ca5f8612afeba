"""The import parser's blob-keyed cache, backed by Django's cache (Redis when configured)."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any

from django.core.cache import cache

__all__ = ["DjangoParseCache"]

_PREFIX = "radar:imports:"
_TTL = 7 * 24 * 3600


class DjangoParseCache(MutableMapping[str, Any]):
    """A mapping view of Django's cache: parses are shared by every worker and survive restarts.

    Iteration and length are not offered by cache backends; the parser never needs them.
    """

    def __getitem__(self, key: str) -> Any:
        value = cache.get(_PREFIX + key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        cache.set(_PREFIX + key, value, _TTL)

    def __delitem__(self, key: str) -> None:
        cache.delete(_PREFIX + key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and cache.get(_PREFIX + key) is not None

    def __iter__(self) -> Iterator[str]:
        raise TypeError("a cache cannot be iterated")

    def __len__(self) -> int:
        raise TypeError("a cache has no length")
