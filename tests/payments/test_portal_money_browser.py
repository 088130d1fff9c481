"""The portal's money pages in headless chromium against a live server, each page held to the site's
quality checks (tests/browser.py: no sideways scrolling at 390 px, no serious axe-core violation, no
raw template text or API message).

- The whole journey in one go: sign up → email code → add a passkey (CDP virtual authenticator) →
  sign out → passkey sign-in → sandbox funds → send across currencies to a new euro bank account
  (its IBAN checked as it is typed) → confirm → delivered.
- The money chain at 1280 and 390 px for a US person (wallet → a new US bank account) and an EU
  person (→ an IBAN, approved step by step with codes, after confirming it's them): send, confirm,
  status, receipt, activity.
- The failures a person must see clearly: a payout to a failing sandbox account, and a quote that
  lapsed.

With `PORTAL_SCREENSHOTS=<folder>` the chain saves a screenshot of each page there (for people to
look at; not part of the checks)."""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from payments import clock
from payments.models import Customer
from tests.browser import _watched_page, assert_page_quality
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE
from tests.portal_pages import Visit, open_as
from tests.wallets.portal_support import signed_up
from tests.wallets.test_portal_browser import sign_in_with_code, type_code
from wallets.portal.models import PortalAccount

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 390)


def shot(page, name: str) -> None:
    folder = os.environ.get("PORTAL_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{folder}/{name}.png", full_page=True)


@pytest.fixture(params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def sized_page(request, browser):
    """A page at each width, watched for Content-Security-Policy violations like every other."""
    width = request.param
    phone = width < 500
    for tab in _watched_page(
        browser, viewport={"width": width, "height": 900}, is_mobile=phone, has_touch=phone
    ):
        tab.width = width
        yield tab


def signed_in(page, site_url: str, email: str, name: str, *, eu: bool = False) -> None:
    """Signed up and in through the test client, the browser given its cookies; funded in the page."""
    browser = signed_up(email, name)
    if eu:
        customer_id = PortalAccount.objects.get(email=email).customer_id.split(":", 1)[1]
        Customer.objects.filter(pk=customer_id).update(address=EU_ADDRESS, phone_number=PHONE)
    open_as(page, site_url, Visit("money", "/home/", browser))
    page.get_by_role("button", name=re.compile(r"Add test funds")).click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.00\xa0USDC")
    assert_page_quality(page)


def test_a_slow_answer_to_a_change_of_account_kind_still_brings_that_kinds_fields(
    page, site_url, portal_platform
):
    """The kind of account asks for the whole form again; the check that runs as the person types
    (400 ms after any input) must not cancel that request when the server is slow to answer it."""
    signed_in(page, site_url, "slow-kind@example.com", "Pat Slow")
    page.goto(f"{site_url}/send/")
    page.wait_for_load_state()

    def slowly(route):
        if route.request.method == "POST":
            time.sleep(1.5)  # the server is slow to answer
        route.continue_()

    page.route(re.compile(r".*/send/$"), slowly)
    page.select_option("#id_bank_type", "EUR_ACCOUNT")
    expect(page.locator("#id_iban")).to_be_visible()
    expect(page.locator("#id_routing_number")).to_have_count(0)


def type_sms_code(page, code: str) -> None:
    page.locator(".code-box").first.click()
    page.keyboard.type(code)


def test_us_person_sends_to_a_new_us_bank_account(sized_page, site_url, portal_platform):
    page, width = sized_page, sized_page.width
    signed_in(page, site_url, "us-chain@example.com", "Pat Example")

    # Send: a new bank account is the first choice; only a US account's fields.
    page.get_by_role("link", name="Send money", exact=True).click()
    page.wait_for_load_state()  # htmx (deferred) must be listening before the form changes
    expect(page.get_by_label("Someone new: a bank account")).to_be_checked()
    expect(page.locator("#id_iban")).to_have_count(0)
    # Another kind of account shows its own fields at once (htmx), keeping what was typed.
    page.fill("#id_beneficiary_name", "John Doe")
    page.select_option("#id_bank_type", "EUR_ACCOUNT")
    expect(page.locator("#id_iban")).to_be_visible()
    expect(page.locator("#id_routing_number")).to_have_count(0)
    expect(page.locator("#id_beneficiary_name")).to_have_value("John Doe")
    expect(page.get_by_text("They should get (EUR)")).to_be_visible()
    page.select_option("#id_bank_type", "USD_ACCOUNT")
    expect(page.locator("#id_routing_number")).to_be_visible()
    page.fill("#id_account_number", "123456789")
    page.fill("#id_routing_number", "021000021")
    page.fill("#id_amount", "10")
    expect(page.get_by_text("I want to send (USDC)")).to_be_visible()
    assert_page_quality(page)
    shot(page, f"send-us-{width}")
    page.get_by_role("button", name="Continue").click()

    # Confirm: who, how much in each currency, the rate, fees by item, the countdown as m:ss.
    page.wait_for_url("**/quotes/Quote:*/")
    expect(page.locator("[data-payee]")).to_contain_text("John Doe")
    expect(page.locator("[data-payee]")).to_contain_text("US bank account ··6789")
    expect(page.locator("[data-sending]")).to_have_text("10.00\xa0USDC")
    expect(page.locator("[data-receiving]")).to_contain_text("USD")
    expect(page.locator("[data-rate]")).to_have_text(re.compile(r"^1\xa0USDC = [\d.]+\xa0USD$"))
    expect(page.locator(".fee-lines li")).to_have_count(2)
    expect(page.locator("[data-countdown]")).to_have_text(re.compile(r"^\d+:\d\d$"))
    assert_page_quality(page)
    shot(page, f"confirm-us-{width}")
    page.get_by_role("button", name="Confirm and send").click()

    # Status, then the receipt, then the activity.
    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Payment to John Doe")
    expect(page.locator("[data-status]")).to_have_text("Delivered")
    expect(page.locator("[data-reference]")).to_have_text(re.compile(r"^SBX"))
    assert_page_quality(page)
    shot(page, f"status-us-{width}")
    page.get_by_role("link", name="View the receipt").click()
    page.wait_for_url("**/receipt/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Payment receipt")
    expect(page.get_by_role("button", name="Print or save as PDF")).to_be_visible()  # print.js ran
    assert_page_quality(page)
    shot(page, f"receipt-us-{width}")
    page.goto(site_url + "/home/")
    row = page.locator("[data-transaction]").first
    expect(row).to_contain_text("To John Doe")
    expect(row.locator("[data-status]")).to_have_text("Delivered")
    expect(page.locator("[data-balance=USDC]")).to_have_text("90.00\xa0USDC")
    assert_page_quality(page)
    shot(page, f"money-us-{width}")


def test_eu_person_sends_to_an_iban_and_approves_each_step(sized_page, site_url, portal_platform):
    page, width = sized_page, sized_page.width
    signed_in(page, site_url, "eu-chain@example.com", "Erika Muster", eu=True)

    page.goto(site_url + "/send/")
    page.fill("#id_beneficiary_name", "Hans Muster")
    page.select_option("#id_bank_type", "EUR_ACCOUNT")
    expect(page.locator("#id_iban")).to_be_visible()
    expect(page.locator("#id_beneficiary_name")).to_have_value("Hans Muster")
    page.locator("#id_iban").press_sequentially("DE89 3704 0044 0532 0130 00")
    page.fill("#id_beneficiary_country", "DE")
    page.get_by_label("They should get (EUR)").check()
    page.fill("#id_amount", "15")
    expect(page.locator("#id_iban-error")).to_have_count(0)
    assert_page_quality(page)
    shot(page, f"send-eu-{width}")
    page.get_by_role("button", name="Continue").click()

    page.wait_for_url("**/quotes/Quote:*/")
    quote_url = page.url
    expect(page.locator("[data-payee]")).to_contain_text("Euro bank account (IBAN) ··3000")
    expect(page.locator("[data-receiving]")).to_have_text("15.00\xa0EUR")
    expect(page.locator("[data-rate]")).to_have_text(re.compile(r"^1\xa0USDC = 0\.\d+\xa0EUR$"))
    # Said before anything is pressed: approval steps follow, and maybe confirming it's them first.
    expect(page.locator("[data-approval]")).to_contain_text(
        "approve this payment with a code we text to your phone"
    )
    expect(page.locator("[data-approval]")).to_contain_text("we will ask you to do that first")
    assert_page_quality(page)
    shot(page, f"confirm-eu-{width}")
    page.get_by_role("button", name="Confirm and send").click()

    expect(page.locator("[data-sca-title]")).to_have_text("Approve the currency conversion")
    expect(page.locator("[data-confirm-first]")).to_be_visible()
    assert_page_quality(page)
    shot(page, f"approve-eu-{width}")
    type_sms_code(page, SANDBOX_SCA_CODE)
    page.get_by_role("button", name="Approve", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Confirm it’s you")
    assert_page_quality(page)
    page.get_by_role("button", name="Text me a code").click()
    page.wait_for_url("**/payment-security/confirm/code/")
    assert_page_quality(page)
    type_sms_code(page, SANDBOX_SCA_CODE)
    page.get_by_role("button", name="Confirm", exact=True).click()
    page.wait_for_url(quote_url)
    expect(page.locator("[data-confirm-first]")).to_have_count(0)

    for title in ("Approve the currency conversion", "Approve the payout"):
        expect(page.locator("[data-sca-title]")).to_have_text(title)
        assert_page_quality(page)
        type_sms_code(page, SANDBOX_SCA_CODE)
        page.get_by_role("button", name="Approve", exact=True).click()

    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.locator("[data-status]")).to_have_text("Delivered")
    expect(page.locator("[data-payee]")).to_contain_text("Hans Muster")
    assert_page_quality(page)
    shot(page, f"status-eu-{width}")
    page.get_by_role("link", name="View the receipt").click()
    expect(page.locator("[data-receiving]")).to_have_text("15.00\xa0EUR")
    assert_page_quality(page)


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

    # Add a passkey (activated by signing in with it at once).
    page.goto(site_url + "/security/")
    page.fill("#passkey-nickname", "Virtual key")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.locator(".portal-messages")).to_contain_text("Your passkey was added")
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    assert credential["rpId"] == "localhost" and credential["signCount"] >= 1  # used once to activate

    # Sign out, then back in with the passkey.
    page.locator(".portal-header").get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Payments service")
    # The passkey autofill of the email field: the virtual authenticator picks its passkey by itself.
    page.goto(site_url + "/login/?next=/security/")
    page.wait_for_url(site_url + "/security/")

    # Sandbox funds.
    page.locator(".portal-header").get_by_role("link", name="Money", exact=True).click()
    page.get_by_role("button", name="Add test funds (100 USDC)").click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.00\xa0USDC")

    # A new euro bank account: a typo in the IBAN is caught as it is typed, and cleared when fixed.
    page.get_by_role("link", name="Send money", exact=True).click()
    page.wait_for_load_state()  # htmx (deferred) must be listening before the form changes
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
    page.get_by_role("button", name="Continue").click()

    # The quote confirmation page, then the live status page until delivered.
    page.wait_for_url("**/quotes/Quote:*/")
    expect(page.locator("[data-sending]")).to_have_text("20.00\xa0USDC")
    expect(page.locator("[data-receiving]")).to_contain_text("EUR")
    expect(page.locator("[data-rate]")).to_contain_text("1\xa0USDC = ")
    expect(page.locator("[data-countdown]")).to_be_visible()
    page.get_by_role("button", name="Confirm and send").click()
    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "COMPLETED")


def _send_to_us_account(page, site_url: str, account_number: str, amount: str) -> None:
    page.goto(site_url + "/send/")
    page.get_by_label("Someone new: a bank account").check()
    page.fill("#id_beneficiary_name", "John Doe")
    page.fill("#id_account_number", account_number)
    page.fill("#id_routing_number", "021000021")
    page.fill("#id_amount", amount)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/quotes/Quote:*/")


def test_a_failed_payout_and_a_lapsed_quote_are_shown_clearly(page, site_url, portal_platform):
    signed_up("fay@example.com")
    sign_in_with_code(page, site_url, "fay@example.com")
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    page.goto(site_url + "/home/")
    page.get_by_role("button", name="Add test funds (100 USDC)").click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.00\xa0USDC")

    # An account number ending in 004 is one the sandbox's receiving bank cannot pay into.
    _send_to_us_account(page, site_url, "123456004", "10")
    page.get_by_role("button", name="Confirm and send").click()
    page.wait_for_url("**/transactions/Transaction:*/")
    clock.advance(dt.timedelta(minutes=10))  # the live page keeps polling and shows the outcome
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "FAILED")
    expect(page.locator("[data-failure]")).to_contain_text("The receiving account cannot accept this payment")
    assert_page_quality(page)
    page.goto(site_url + "/home/")
    expect(page.locator("[data-transaction] [data-failure]")).to_contain_text("cannot accept this payment")
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
    expect(page.locator("[data-sending]")).to_have_text("5.00\xa0USDC")
