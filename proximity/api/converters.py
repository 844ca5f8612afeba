"""URL path converters the routes name in ``{converter:parameter}``."""

from __future__ import annotations

from django.urls import register_converter

__all__ = ["AnyTextConverter"]


class AnyTextConverter:
    """Any non-empty text, "/" and line breaks included (agent ids are often branch names).

    Django's own ``path`` converter stops at a line break, so an odd id would miss the route
    and get Django's HTML 404 instead of the route's JSON one.
    """

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(AnyTextConverter, "anytext")
