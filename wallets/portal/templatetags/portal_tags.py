from __future__ import annotations

from django import template

from payments.portal.sca_steps import sca_region
from wallets.portal.auth import current_account
from wallets.portal.models import PortalAccount

register = template.Library()


@register.simple_tag(takes_context=True)
def portal_account(context: template.Context) -> PortalAccount | None:
    """`{% portal_account as account %}`: who is signed in, for the layout's header."""
    request = context.get("request")
    return current_account(request) if request is not None else None


@register.simple_tag(takes_context=True)
def portal_sca_region(context: template.Context) -> bool:
    """`{% portal_sca_region as approves %}`: whether the signed-in person approves their payments
    (strong customer authentication), so that the menu links Payment security for them only."""
    request = context.get("request")
    return sca_region(request) if request is not None else False
