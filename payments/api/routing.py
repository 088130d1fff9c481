"""URL patterns for API views, written as a table: `routes(prefix, (suffix, View, name), …)`."""

from __future__ import annotations

from django.urls import URLPattern, path
from rest_framework.views import APIView


def routes(prefix: str, *table: tuple[str, type[APIView], str]) -> list[URLPattern]:
    """One `path(prefix + suffix, View.as_view(), name=name)` per row, in the table's order."""
    return [path(prefix + suffix, view.as_view(), name=name) for suffix, view, name in table]
