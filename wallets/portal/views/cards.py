"""The Cards page: the signed-in user's cards (last four digits and state), freezing and unfreezing
them, and showing a card's details behind a fresh sign-in (as the wallet export is). The details
(number, expiry, CVV) come in the service's reveal frame and never pass through the portal."""

from __future__ import annotations

from operator import attrgetter

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from payments.client import Card, ServiceClient
from wallets.portal.auth import auth_is_fresh, current_account, reauth_redirect, signed_in_service_view
from wallets.portal.http import go, no_store, owned_or_404, page
from wallets.portal.models import PortalAccount
from wallets.portal.service import service_client

_USER_STATES = {"FROZEN": "frozen", "ACTIVE": "unfrozen"}


def _account(request: HttpRequest) -> PortalAccount:
    account = current_account(request)
    assert account is not None  # signed_in_service_view ran first
    return account


def _own_card(client: ServiceClient, account: PortalAccount, card_id: str) -> Card:
    return owned_or_404(
        client.cards.get, card_id, owner=account.customer_id, of=attrgetter("cardholder_id"), what="card"
    )


@require_GET
@signed_in_service_view
def cards_view(request: HttpRequest) -> HttpResponse:
    account = _account(request)
    cards = service_client().cards.list(cardholder_id=account.customer_id, limit=100).data
    return no_store(page(request, "wallets/portal/cards.html", {"cards": cards}))


@require_POST
@signed_in_service_view
def card_state_view(request: HttpRequest, card_id: str) -> HttpResponse:
    """Freeze (`state=FROZEN`) or unfreeze (`ACTIVE`) one of the user's cards."""
    client = service_client()
    card = _own_card(client, _account(request), card_id)
    to = request.POST.get("state", "")
    if to not in _USER_STATES or card.state not in ("ACTIVE", "FROZEN"):
        messages.error(request, "That card cannot be changed.")
    else:
        client.cards.update(card.id, state=to)
        messages.success(request, f"Your card ending in {card.last4} is {_USER_STATES[to]}.")
    return go(request, reverse("portal:cards"))


@require_http_methods(["GET", "POST"])
@signed_in_service_view
def card_reveal_view(request: HttpRequest, card_id: str) -> HttpResponse:
    """GET: what showing the details means, and a button; POST (after a fresh sign-in): the frame."""
    here = reverse("portal:card-reveal", args=[card_id])
    client = service_client()
    card = _own_card(client, _account(request), card_id)
    if not auth_is_fresh(request):
        return reauth_redirect(request, here)
    context: dict = {"card": card}
    if request.method == "POST":
        context["reveal"] = client.cards.reveal(card.id)
    return no_store(page(request, "wallets/portal/card_reveal.html", context))
