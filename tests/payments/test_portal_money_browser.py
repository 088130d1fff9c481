"""The money pages in headless chromium against a live server: a signed-in person adds test funds,
sends across currencies to a new euro bank account, confirms the quote and sees it completed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_fund_send_cross_currency_confirm_completed(page, site_url, portal_platform):
    page.goto(site_url + "/signup/")
    page.fill("#id_email", "eve@example.com")
    page.fill("#id_full_name", "Eve Doe")
    page.check("#id_terms")
    page.get_by_role("button", name="Create my wallet").click()
    page.get_by_role("button", name="Send me a code").click()
    page.wait_for_url("**/login/code/")
    page.locator(".code-box").first.click()
    page.keyboard.type("000000")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")

    page.locator(".portal-header").get_by_role("link", name="Money", exact=True).click()
    page.get_by_role("button", name="Add test funds (100 USDC)").click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.000000 USDC")

    page.get_by_role("link", name="Send money", exact=True).click()
    page.check("input[name=destination][value=bank]")
    page.select_option("#id_bank_type", "EUR_ACCOUNT")
    page.fill("#id_iban", "DE89 3704 0044 0532 0130 00")
    page.fill("#id_beneficiary_name", "Hans Muster")
    page.fill("#id_beneficiary_country", "DE")
    page.fill("#id_amount", "20")
    page.get_by_role("button", name="Get a quote").click()

    page.wait_for_url("**/quotes/Quote:*/")
    expect(page.locator("[data-sending]")).to_have_text("20.000000 USDC")
    expect(page.locator("[data-receiving]")).to_contain_text("EUR")
    expect(page.locator("[data-rate]")).to_contain_text("USDC per EUR")
    page.get_by_role("button", name="Confirm and send").click()

    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "COMPLETED")
