"""The portal's Cards page: the user's cards with their last four digits and state, freeze and
unfreeze, and the card details behind a fresh sign-in (shown in the service's frame)."""

from __future__ import annotations

import re

import pytest

from payments.cards import card_create
from payments.cards.authorizations import card_authorize
from payments.models import Card, Customer, InternalAccount
from tests.payments.money_support import fund
from tests.wallets.portal_support import signed_up

pytestmark = pytest.mark.django_db(transaction=True)


def _card_of(email: str) -> Card:
    customer = Customer.objects.get(email=email)
    account = InternalAccount.objects.get(customer=customer, type="INTERNAL_FIAT", currency="USD")
    fund(account, 1_000)
    return card_create(
        platform=customer.platform, cardholder_id=customer.pk, form="VIRTUAL", funding_source_ids=[account.pk]
    )


def test_cards_page_freeze_unfreeze_and_details_after_a_fresh_sign_in(portal_platform, settings):
    browser = signed_up("cards@example.com")
    card = _card_of("cards@example.com")
    page = browser.get("/cards/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f"ending in {card.last4}" in text and "Active" in text

    assert browser.post(f"/cards/{card.public_id}/state/", {"state": "FROZEN"}).status_code == 302
    card.refresh_from_db()
    assert card.status == "FROZEN" and "Frozen" in browser.get("/cards/").content.decode()
    browser.post(f"/cards/{card.public_id}/state/", {"state": "ACTIVE"})
    card.refresh_from_db()
    assert card.status == "ACTIVE"

    shown = browser.post(f"/cards/{card.public_id}/reveal/")
    assert shown.status_code == 200
    frame = re.search(r'<iframe class="card-details" src="([^"]+)"', shown.content.decode()).group(1)
    details = browser.client.get(frame.replace("&amp;", "&"))
    assert details.status_code == 200 and card.last4 in details.content.decode().replace(" ", "")

    settings.PORTAL_REAUTH_SECONDS = 0  # the sign-in is no longer fresh: sign in again first
    again = browser.post(f"/cards/{card.public_id}/reveal/")
    assert again.status_code == 302 and "/login/" in again["Location"]


def test_another_users_card_is_not_found(portal_platform):
    signed_up("owner@example.com")
    card = _card_of("owner@example.com")
    other = signed_up("other@example.com", full_name="Other Person")
    assert "no cards" in other.get("/cards/").content.decode()
    assert other.post(f"/cards/{card.public_id}/state/", {"state": "FROZEN"}).status_code == 404
    assert other.get(f"/cards/{card.public_id}/reveal/").status_code == 404
    card.refresh_from_db()
    assert card.status == "ACTIVE"


def test_a_card_payment_shows_in_the_activity_without_polling(portal_platform):
    browser = signed_up("shopper@example.com")
    card = _card_of("shopper@example.com")
    card_authorize(
        platform=card.platform,
        card_id=card.pk,
        amount=250,
        currency="USD",
        merchant={"descriptor": "BLUE BOTTLE COFFEE SF", "mcc": "5814"},
    )
    home = browser.get("/home/")
    assert home.status_code == 200
    activity = home.content.decode().split('id="history"', 1)[1]
    assert "Card · BLUE BOTTLE COFFEE SF" in activity and "2.50" in activity and "Authorized" in activity
    assert "hx-trigger" not in activity.split(">", 1)[0]  # an open card payment is not polled for
