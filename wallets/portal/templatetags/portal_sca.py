"""Template tags of the portal's payment security (the rules live in `wallets.portal.sca_steps`)."""

from __future__ import annotations

from django import template

from wallets.portal.sca_steps import sca_region

register = template.Library()


@register.simple_tag(takes_context=True)
def portal_sca_region(context: template.Context) -> bool:
    """`{% portal_sca_region as approves %}`: whether the signed-in person approves their payments
    (strong customer authentication), so that the menu links Payment security for them only."""
    request = context.get("request")
    return sca_region(request) if request is not None else False
