"""The portal in headless chromium against a live server.

The whole journey in one go: sign up → email code → add a passkey (CDP virtual authenticator) and
rename it → sign out → passkey sign-in → sandbox funds → send across currencies to a new euro bank
account (its IBAN checked as it is typed) → confirm → COMPLETED. Then the money failures a person
must see clearly: a payout to a failing sandbox account, and a quote that lapsed."""

from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import expect

from payments import clock
from tests.browser import assert_page_quality
from tests.wallets.portal_support import signed_up
from tests.wallets.test_portal_browser import sign_in_with_code, type_code

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_to_a_completed_cross_currency_payment(
    page, site_url, portal_platform, virtual_authenticator
):
    cdp, authenticator_id = virtual_authenticator
    # Sign up, then sign in with the email code.
    page.goto(site_url + "/signup/")
    page.fill("#id_email", "pat@example.com")
    page.fill("#id_full_name", "Pat Doe")
    page.check("#id_terms")
    page.get_by_role("button", name="Create my wallet").click()
    expect(page.locator("#kyc-decision")).to_have_text("Identity check: approved. Your wallet is ready.")
    page.get_by_role("button", name="Send me a code").click()
    page.wait_for_url("**/login/code/")
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")

    # Add a passkey (activated by signing in with it at once), then rename it inline.
    page.goto(site_url + "/security/")
    page.fill("#passkey-nickname", "Virtual key")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.locator(".portal-messages")).to_contain_text("Your passkey was added")
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    assert credential["rpId"] == "localhost" and credential["signCount"] >= 1  # used once to activate
    passkey_row = page.locator("[data-credential]").nth(1)
    passkey_row.get_by_role("link", name="Rename").click()
    passkey_row.get_by_label("New name for this passkey").fill("Pat’s <laptop>")
    passkey_row.get_by_role("button", name="Save").click()
    expect(passkey_row.locator("[data-credential-name]")).to_contain_text("Pat’s <laptop>")

    # Sign out, then back in with the passkey; the new name is what the page shows.
    page.locator(".portal-header").get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Payments service")
    # The passkey autofill of the email field: the virtual authenticator picks its passkey by itself.
    page.goto(site_url + "/login/?next=/security/")
    page.wait_for_url(site_url + "/security/")
    expect(page.locator("[data-credential]")).to_have_count(2)
    expect(page.locator("[data-credential]").nth(1)).to_contain_text("Pat’s <laptop>")
    expect(page.locator("#credentials")).to_contain_text("used for this sign-in")

    # Sandbox funds.
    page.locator(".portal-header").get_by_role("link", name="Money", exact=True).click()
    page.get_by_role("button", name="Add test funds (100 USDC)").click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.000000 USDC")

    # A new euro bank account: a typo in the IBAN is caught as it is typed, and cleared when fixed.
    page.get_by_role("link", name="Send money", exact=True).click()
    page.check("input[name=destination][value=bank]")
    page.select_option("#id_bank_type", "EUR_ACCOUNT")
    iban = page.locator("#id_iban")
    iban.press_sequentially("DE89 3704 0044 0532 0130 01")
    expect(page.locator("#id_iban-error")).to_have_text(
        "Check this IBAN for a typo: it has an invalid IBAN check digit."
    )
    assert_page_quality(page)
    iban.press("Backspace")
    iban.press_sequentially("0")
    expect(page.locator("#id_iban-error")).to_have_count(0)
    page.fill("#id_beneficiary_name", "Hans Muster")
    page.fill("#id_beneficiary_country", "DE")
    page.fill("#id_amount", "20")
    page.get_by_role("button", name="Get a quote").click()

    # The quote confirmation page, then the live status page until COMPLETED.
    page.wait_for_url("**/quotes/Quote:*/")
    expect(page.locator("[data-sending]")).to_have_text("20.000000 USDC")
    expect(page.locator("[data-receiving]")).to_contain_text("EUR")
    expect(page.locator("[data-rate]")).to_contain_text("USDC per EUR")
    expect(page.locator("[data-countdown]")).to_be_visible()
    page.get_by_role("button", name="Confirm and send").click()
    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "COMPLETED")


def _send_to_us_account(page, site_url: str, account_number: str, amount: str) -> None:
    page.goto(site_url + "/send/")
    page.check("input[name=destination][value=bank]")
    page.select_option("#id_bank_type", "USD_ACCOUNT")
    page.fill("#id_account_number", account_number)
    page.fill("#id_routing_number", "021000021")
    page.fill("#id_beneficiary_name", "John Doe")
    page.fill("#id_amount", amount)
    page.get_by_role("button", name="Get a quote").click()
    page.wait_for_url("**/quotes/Quote:*/")


def test_a_failed_payout_and_a_lapsed_quote_are_shown_clearly(page, site_url, portal_platform):
    signed_up("fay@example.com")
    sign_in_with_code(page, site_url, "fay@example.com")
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    page.goto(site_url + "/home/")
    page.get_by_role("button", name="Add test funds (100 USDC)").click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.000000 USDC")

    # An account number ending in 002 is one the sandbox's receiving bank turns down.
    _send_to_us_account(page, site_url, "123456002", "10")
    page.get_by_role("button", name="Confirm and send").click()
    page.wait_for_url("**/transactions/Transaction:*/")
    clock.advance(dt.timedelta(minutes=10))  # the live page keeps polling and shows the outcome
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "FAILED")
    expect(page.locator("[data-failure]")).to_contain_text("could not be carried out")
    expect(page.locator("[data-failure]")).to_contain_text("returned to it")
    assert_page_quality(page)

    # A quote left too long lapses: the page says so and offers a fresh one instead of Confirm.
    _send_to_us_account(page, site_url, "123456789", "5")
    clock.advance(dt.timedelta(minutes=30))
    page.reload()
    expect(page.locator("[data-lapsed]")).to_contain_text("This quote has expired")
    expect(page.get_by_role("button", name="Confirm and send")).to_have_count(0)
    assert_page_quality(page)
    lapsed_url = page.url
    clock.reset()
    page.get_by_role("button", name="Get a new quote").click()
    page.wait_for_url(lambda url: "/quotes/Quote:" in url and url != lapsed_url)
    expect(page.get_by_role("button", name="Confirm and send")).to_be_visible()
    expect(page.locator("[data-sending]")).to_have_text("5.000000 USDC")
