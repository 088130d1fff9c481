"""System checks (`manage.py check`, and `migrate` before a deployment): production needs the
portal's own key and platform credentials."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning, register


@register()
def portal_production_settings(app_configs: Any = None, **kwargs: Any) -> list:
    if not settings.PRODUCTION:
        return []
    problems: list = []
    if not settings.PORTAL_SECRETS_KEY:
        problems.append(
            Error(
                "PORTAL_SECRETS_KEY must be set in production mode",
                hint="32 random bytes in urlsafe base64; it seals the session keys the portal keeps",
                id="wallets_portal.E001",
            )
        )
    if not (settings.PORTAL_CLIENT_ID and settings.PORTAL_CLIENT_SECRET):
        problems.append(
            Warning(
                "PORTAL_CLIENT_ID and PORTAL_CLIENT_SECRET are not set: the portal's pages cannot reach the service",
                id="wallets_portal.W001",
            )
        )
    return problems
