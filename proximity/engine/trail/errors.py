"""One generic public error, with a private reason for the command line.

The reference (ECC-PROXIMITY.md section 7) turns every failure into the same message so that a
caller probing the trail learns nothing from the error text. We keep that contract for the
message and add a fixed-vocabulary ``reason`` naming the field that failed; reasons are
written by this package only and never contain input values.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

__all__ = ["GENERIC_MESSAGE", "InvalidTrail", "ShadowTrailError", "fail", "guarded"]

GENERIC_MESSAGE = "Invalid shadow coordination input."

_P = ParamSpec("_P")
_R = TypeVar("_R")


class ShadowTrailError(ValueError):
    """Raised by every public trail function; ``reason`` names the failing field, never a value."""

    def __init__(self, reason: str = "invalid input") -> None:
        super().__init__(GENERIC_MESSAGE)
        self.reason = reason


class InvalidTrail(Exception):  # noqa: N818 - internal signal, converted by ``guarded``
    """Internal failure carrying a fixed reason; converted to ShadowTrailError at the boundary."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def fail(reason: str) -> InvalidTrail:
    """Build the internal failure; callers ``raise fail("...")`` so control flow stays visible."""
    return InvalidTrail(reason)


def guarded(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Wrap a public function so that any failure surfaces as the one generic error.

    Anything unexpected (a bug, a recursion limit, a hostile object's exception) is reported
    with a reason that names only its exception type, so foreign text is never echoed; the
    original exception is not chained for the same reason.
    """

    @wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except ShadowTrailError:
            raise
        except InvalidTrail as error:
            reason = error.reason
        except Exception as error:  # the reference fails closed on any error
            reason = f"unexpected {type(error).__name__}"
        raise ShadowTrailError(reason) from None

    return wrapper
