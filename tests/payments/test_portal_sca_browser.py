"""Strong Customer Authentication in headless chromium against a live server: a person living in
Germany adds a payment passkey (CDP virtual authenticator), sends across currencies, confirms, is
asked to confirm it's them (SMS code in the six boxes), approves both steps with the passkey and
sees the payment completed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from payments.models import Customer
from tests.browser import assert_page_quality
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE
from wallets.portal.models import PortalAccount

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _type_code(page, code: str) -> None:
    page.locator(".code-box").first.click()
    page.keyboard.type(code)


def test_eu_send_cross_currency_two_sca_steps_completed(
    page, site_url, portal_platform, virtual_authenticator
):
    cdp, authenticator_id = virtual_authenticator
    page.goto(site_url + "/signup/")
    page.fill("#id_email", "erika@example.com")
    page.fill("#id_full_name", "Erika Muster")
    page.check("#id_terms")
    page.get_by_role("button", name="Create my wallet").click()
    page.get_by_role("button", name="Send me a code").click()
    page.wait_for_url("**/login/code/")
    _type_code(page, "000000")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    customer_id = PortalAccount.objects.get(email="erika@example.com").customer_id.split(":", 1)[1]
    Customer.objects.filter(pk=customer_id).update(address=EU_ADDRESS, phone_number=PHONE)

    # A payment passkey, made by the virtual authenticator.
    page.goto(site_url + "/payment-security/")
    page.get_by_role("button", name="Add a payment passkey").click()
    expect(page.locator(".portal-messages")).to_contain_text("Your payment passkey is ready")
    expect(page.locator("[data-factor=PASSKEY]")).to_be_visible()
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    assert [c["rpId"] for c in credentials] == ["localhost"]

    page.goto(site_url + "/home/")
    page.get_by_role("button", name="Add test funds (100 USDC)").click()
    expect(page.locator("[data-balance=USDC]")).to_have_text("100.00\xa0USDC")
    page.get_by_role("link", name="Send money", exact=True).click()
    page.wait_for_load_state()  # htmx (deferred) must be listening before the form changes
    page.select_option("#id_bank_type", "EUR_ACCOUNT")
    page.fill("#id_iban", "DE89 3704 0044 0532 0130 00")
    page.fill("#id_beneficiary_name", "Hans Muster")
    page.fill("#id_beneficiary_country", "DE")
    page.fill("#id_amount", "20")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/quotes/Quote:*/")
    quote_url = page.url
    page.get_by_role("button", name="Confirm and send").click()

    # Step 1 asks for the passkey; the service first wants an SCA login (code by text message).
    expect(page.locator("[data-sca-title]")).to_have_text("Approve the currency conversion")
    page.get_by_role("button", name="Approve with your passkey").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Confirm it’s you")
    page.get_by_role("button", name="Text me a code").click()
    page.wait_for_url("**/payment-security/confirm/code/")
    _type_code(page, SANDBOX_SCA_CODE)
    page.get_by_role("button", name="Confirm", exact=True).click()
    page.wait_for_url(quote_url)
    expect(page.locator(".portal-messages")).to_contain_text("You can approve payments now")

    expect(page.locator("[data-sca-title]")).to_have_text("Approve the currency conversion")
    page.get_by_role("button", name="Approve with your passkey").click()
    expect(page.locator("[data-sca-title]")).to_have_text("Approve the payout")
    expect(page.get_by_role("heading", level=2)).to_contain_text("Step 2")
    assert_page_quality(page)
    page.get_by_role("button", name="Approve with your passkey").click()

    page.wait_for_url("**/transactions/Transaction:*/")
    expect(page.locator("[data-status]")).to_have_attribute("data-status", "COMPLETED")
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]
    assert credential["signCount"] >= 2  # one assertion per step


@pytest.mark.parametrize("width", [1280, 390])
def test_eu_person_adds_a_phone_then_approves_with_a_text_code(browser, site_url, portal_platform, width):
    from tests.payments.test_portal_money_browser import _send_to_us_account
    from tests.payments.test_portal_sca import eu_person_without_phone
    from tests.portal_pages import Visit, open_as

    person = eu_person_without_phone(f"text-{width}@example.com")
    context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        open_as(page, site_url, Visit("payment-security", "/payment-security/", person))
        expect(page.locator("[data-no-factor]")).to_be_visible()
        assert_page_quality(page)
        page.get_by_role("link", name="Payment security").first.click()  # the menu links it here
        page.fill("#id_phone_number", "+49 151 1234 5678")
        page.get_by_role("button", name="Add the number").click()
        expect(page.locator(".portal-messages")).to_contain_text("Payment codes go to ··56 78")
        expect(page.locator("[data-factor=SMS_OTP]")).to_have_text("Text message to ··56 78")
        assert_page_quality(page)

        _send_to_us_account(page, site_url, "123456789", "10")
        quote_url = page.url
        page.get_by_role("button", name="Confirm and send").click()

        # Said before Approve: confirming it's you may come first; the step's code went to ··56 78.
        expect(page.locator("[data-confirm-first]")).to_contain_text("confirm it’s you")
        expect(page.locator(".sca-step")).to_contain_text(
            "We sent a 6-digit code by text message to ··56 78."
        )
        assert_page_quality(page)
        _type_code(page, SANDBOX_SCA_CODE)
        page.get_by_role("button", name="Approve", exact=True).click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Confirm it’s you")
        expect(page.locator("main")).to_contain_text("ending ··56 78")
        assert_page_quality(page)
        page.get_by_role("button", name="Text me a code").click()
        page.wait_for_url("**/payment-security/confirm/code/")
        assert_page_quality(page)
        _type_code(page, SANDBOX_SCA_CODE)
        page.get_by_role("button", name="Confirm", exact=True).click()
        page.wait_for_url(quote_url)
        expect(page.locator("[data-confirm-first]")).to_have_count(0)
        assert_page_quality(page)
        _type_code(page, SANDBOX_SCA_CODE)  # the step's code still works
        page.get_by_role("button", name="Approve", exact=True).click()
        expect(page.locator("[data-sca-title]")).to_have_text("Approve the payout")  # USDC to USD: two steps
        _type_code(page, SANDBOX_SCA_CODE)
        page.get_by_role("button", name="Approve", exact=True).click()
        page.wait_for_url("**/transactions/Transaction:*/")
        expect(page.locator("[data-status]")).to_have_attribute("data-status", "COMPLETED")
        assert_page_quality(page)
    finally:
        context.close()
