"""Trusting a recipient in headless chromium against a live server: a person living in Germany with
a payment passkey (CDP virtual authenticator) ticks "Trust this recipient", confirms it with the
passkey through the shim, and their payment to that recipient completes without an approval step."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import assert_page_quality
from tests.payments.test_portal_sca import eu_person_without_phone
from tests.portal_pages import Visit, open_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_trust_a_recipient_with_the_passkey_then_pay_without_approving(
    page, site_url, portal_platform, virtual_authenticator
):
    person = eu_person_without_phone("trust-browser@example.com")
    open_as(page, site_url, Visit("payment-security", "/payment-security/", person))
    page.get_by_role("button", name="Add a payment passkey").click()
    expect(page.locator(".portal-messages")).to_contain_text("Your payment passkey is ready")

    page.goto(site_url + "/send/")
    page.wait_for_load_state()  # htmx (deferred) must be listening before the form changes
    page.get_by_label("Someone new: a bank account").check()
    page.fill("#id_beneficiary_name", "John Doe")
    page.fill("#id_account_number", "123456789")
    page.fill("#id_routing_number", "021000021")
    page.get_by_label("Trust this recipient", exact=False).check()
    page.fill("#id_amount", "10")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/send/trust/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Trust John Doe")
    assert_page_quality(page)
    page.get_by_role("button", name="Trust with your passkey").click()

    page.wait_for_url("**/quotes/Quote:*/")
    expect(page.locator(".portal-messages")).to_contain_text("You now trust John Doe")
    expect(page.locator("[data-approval]")).to_have_count(0)
    page.get_by_role("button", name="Confirm and send").click()
    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "COMPLETED")
