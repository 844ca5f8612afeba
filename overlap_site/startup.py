"""Turn a malformed environment into one line on stderr and exit status 2."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from overlap_site.settings.env import EnvironmentConfigError

__all__ = ["fail_on_bad_environment"]


@contextmanager
def fail_on_bad_environment() -> Iterator[None]:
    try:
        yield
    except EnvironmentConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
