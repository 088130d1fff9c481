"""URL patterns for API views, written as a table: `routes(prefix, (suffix, View, name), …)`."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.views import APIView


def routes(prefix: str, *table: tuple[str, type[APIView], str]) -> list[URLPattern | URLResolver]:
    """The view of each row at `prefix + suffix`, named `name`, tried in the table's order. When the
    prefix is a path segment (every suffix empty or starting with "/"), the rows below it sit under one
    `prefix/` pattern, so a request whose path does not start with it costs one test instead of one a
    row: Django's resolver tries patterns one after another, and the API has well over a hundred."""
    if not prefix or any(suffix and not suffix.startswith("/") for suffix, _, _ in table):
        return [path(prefix + suffix, view.as_view(), name=name) for suffix, view, name in table]
    own = [path(prefix, view.as_view(), name=name) for suffix, view, name in table if not suffix]
    below = [path(suffix[1:], view.as_view(), name=name) for suffix, view, name in table if suffix]
    return [*own, path(prefix + "/", include(below))] if below else own
