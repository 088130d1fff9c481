"""The Cards page in a browser: it fits a phone and passes axe, freezing shows at once, and the card
details open in the service's frame (no Content-Security-Policy violation on the way)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from payments.cards import card_create
from payments.models import Customer, InternalAccount
from tests.browser import page_quality_problems
from tests.portal_pages import Visit, open_as
from tests.wallets.portal_support import signed_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _card(email: str):
    customer = Customer.objects.get(email=email)
    account = InternalAccount.objects.get(customer=customer, type="INTERNAL_FIAT", currency="USD")
    return card_create(
        platform=customer.platform, cardholder_id=customer.pk, form="VIRTUAL", funding_source_ids=[account.pk]
    )


@pytest.mark.parametrize("fixture", ["page", "phone_page"])
def test_cards_page_freeze_and_details(request, fixture, site_url, portal_platform):
    page = request.getfixturevalue(fixture)
    browser = signed_up("cardholder@example.com")
    card = _card("cardholder@example.com")
    open_as(page, site_url, Visit("cards", "/cards/", browser))
    assert page_quality_problems(page) == []
    row = page.locator(f"#card-{card.last4}")
    expect(row).to_contain_text("Active")
    row.get_by_role("button", name="Freeze").click()
    expect(page.get_by_role("status").or_(page.locator(".alert")).first).to_contain_text("frozen")
    expect(page.locator(f"#card-{card.last4}")).to_contain_text("Frozen")
    page.locator(f"#card-{card.last4}").get_by_role("button", name="Unfreeze").click()
    expect(page.locator(f"#card-{card.last4}")).to_contain_text("Active")

    page.locator(f"#card-{card.last4}").get_by_role("link", name="Show details").click()
    expect(page).to_have_url(re.compile(r"/cards/[^/]+/reveal/$"))
    assert page_quality_problems(page) == []
    page.get_by_role("button", name="Show card details").click()
    frame = page.frame_locator("iframe.card-details")
    expect(frame.locator("#pan")).to_contain_text(card.last4)
    expect(frame.locator("#cvv")).to_have_text(re.compile(r"^\d{3}$"))
