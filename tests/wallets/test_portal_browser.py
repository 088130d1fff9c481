"""The portal's sign-in in headless chromium against a live server: the six code boxes (pasted),
OAuth at the development provider, and the sign-in failures a person sees (wrong code, lockout).
The whole journey from sign-up through a passkey to a completed payment is in
tests/payments/test_portal_money_browser.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import assert_page_quality
from tests.wallets.portal_support import signed_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in_with_code(page, site_url: str, email: str) -> None:
    page.goto(site_url + "/login/")
    page.fill("#id_email", email)
    page.get_by_role("button", name="Continue", exact=True).click()
    page.wait_for_url("**/login/code/")


def type_code(page, code: str) -> None:
    boxes = page.locator(".code-box")
    expect(boxes).to_have_count(6)
    boxes.first.click()
    page.keyboard.type(code)
    expect(page.locator("#id_code")).to_have_value(code)
    page.get_by_role("button", name="Sign in", exact=True).click()


def test_pasted_code_then_oauth_link_and_oauth_sign_in(page, site_url, portal_platform):
    signed_up("quin@example.com")  # through the test client: faster than the form
    sign_in_with_code(page, site_url, "quin@example.com")
    page.locator(".code-box").first.evaluate(
        """(box) => {
            const data = new DataTransfer();
            data.setData("text/plain", " 000 000 ");
            box.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
        }"""
    )
    expect(page.locator(".code-box").nth(5)).to_have_value("0")
    expect(page.locator("#id_code")).to_have_value("000000")
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")

    page.goto(site_url + "/security/")
    page.get_by_role("button", name="Link your sign-in provider").click()
    page.wait_for_url("**/dev-oidc/authorize**")
    page.fill("input[name=email]", "quin.id@example.com")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(site_url + "/security/")
    expect(page.locator(".portal-messages")).to_contain_text("You can now sign in with quin.id@example.com")

    page.locator(".portal-header").get_by_role("button", name="Sign out").click()
    page.goto(site_url + "/login/")
    page.get_by_role("button", name="Continue with your provider").click()
    page.wait_for_url("**/dev-oidc/authorize**")
    page.fill("input[name=email]", "quin.id@example.com")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(site_url + "/")
    expect(page.locator(".portal-who")).to_have_text("quin@example.com")


def test_wrong_code_then_lockout_are_shown(page, site_url, portal_platform, settings):
    settings.WALLET_OTP_MAX_FAILED_ATTEMPTS = 2
    signed_up("ray@example.com")
    sign_in_with_code(page, site_url, "ray@example.com")
    expect(page.locator("#resend-wait")).to_contain_text("You can ask for a new code in")
    expect(page.get_by_role("button", name="Send a new code")).to_be_disabled()

    type_code(page, "111111")
    expect(page.locator("#code-error")).to_have_text("That code isn't right. You have 4 tries left.")
    assert_page_quality(page)
    type_code(page, "222222")  # the boxes came back with the swapped form
    expect(page.locator("#code-locked")).to_contain_text("Signing in with a code is locked until")
    expect(page.locator(".code-box")).to_have_count(0)
    assert_page_quality(page)
