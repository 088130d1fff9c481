from __future__ import annotations

from django import template

from wallets.portal.auth import current_account
from wallets.portal.models import PortalAccount

register = template.Library()


@register.simple_tag(takes_context=True)
def portal_account(context: template.Context) -> PortalAccount | None:
    """`{% portal_account as account %}`: who is signed in, for the layout's header."""
    request = context.get("request")
    return current_account(request) if request is not None else None
