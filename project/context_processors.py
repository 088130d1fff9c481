"""Template context for every page of the site (portal, hosted onboarding, development OIDC)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    """`sandbox_mode`: show the sandbox's test values (base.html's banner); never in production."""
    return {"sandbox_mode": settings.SANDBOX}
