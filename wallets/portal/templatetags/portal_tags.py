from __future__ import annotations

from django import template
from django.core.exceptions import ImproperlyConfigured

from payments.client import SandboxClock
from wallets.portal.auth import current_account
from wallets.portal.models import PortalAccount
from wallets.portal.service import sandbox_clock, service_client

register = template.Library()


@register.simple_tag(takes_context=True)
def portal_account(context: template.Context) -> PortalAccount | None:
    """`{% portal_account as account %}`: who is signed in, for the layout's header."""
    request = context.get("request")
    return current_account(request) if request is not None else None


@register.simple_tag(name="sandbox_clock")
def sandbox_clock_tag() -> SandboxClock | None:
    """`{% sandbox_clock as clock %}`: the portal's platform's sandbox clock, for the sandbox banner;
    None in production mode or when the service cannot be asked (the banner then leaves it out)."""
    try:
        client = service_client()
    except ImproperlyConfigured:  # no credentials for the service yet
        return None
    return sandbox_clock(client)


@register.filter
def seconds_ahead(seconds: float) -> str:
    """`aheadBySeconds` in words: "1 day, 2 hours and 10 minutes"."""
    minutes = int(seconds // 60)
    parts = [(minutes // 1440, "day"), (minutes // 60 % 24, "hour"), (minutes % 60, "minute")]
    words = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n]
    if not words:
        return "less than a minute"
    return ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1]
