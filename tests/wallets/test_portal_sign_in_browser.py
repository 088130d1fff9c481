"""Sign-in, identifier first, in headless chromium at 1280 and 390 px: the email alone, then the
emailed code; a passkey added on the Security page (CDP virtual authenticator), then the way back in
with it, chosen for this browser; the passkey autofill (conditional mediation) waiting on the email
field without getting in the way of the explicit passkey ceremony, and signing in by itself when the
authenticator answers it. Every page is held to the page-quality check."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import assert_page_quality
from tests.wallets.portal_support import signed_up
from tests.wallets.test_portal_browser import type_code
from wallets.portal.models import PortalSessionKey

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 390)


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width}px")
def sized_page(request, page):
    page.set_viewport_size({"width": request.param, "height": 900})
    return page


def presence(cdp, authenticator_id: str, *, automatic: bool) -> None:
    """Whether the virtual authenticator answers by itself (a person touching it at once)."""
    cdp.send(
        "WebAuthn.setAutomaticPresenceSimulation", {"authenticatorId": authenticator_id, "enabled": automatic}
    )


def add_passkey_on_security(page, site_url: str) -> None:
    page.goto(site_url + "/security/")
    page.get_by_role("button", name="Add a passkey").click()
    expect(page.locator(".portal-messages")).to_contain_text("Your passkey was added")


def sign_out(page) -> None:
    page.locator(".portal-header").get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Payments service")


def test_email_first_then_the_emailed_code(sized_page, site_url, portal_platform):
    page = sized_page
    signed_up("uma@example.com")
    page.goto(site_url + "/login/")
    expect(page.locator("#id_email")).to_have_attribute("autocomplete", "username webauthn")
    assert_page_quality(page)
    page.fill("#id_email", "uma@example.com")
    page.get_by_role("button", name="Continue", exact=True).click()
    page.wait_for_url("**/login/code/")
    expect(page.locator(".lead")).to_contain_text("We sent a 6-digit code to uma@example.com")
    assert_page_quality(page)
    page.get_by_role("link", name="Other ways to sign in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Other ways to sign in")
    assert_page_quality(page)
    page.get_by_role("button", name="Email me a code").click()
    page.wait_for_url("**/login/code/")
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    assert_page_quality(page)


def test_passkey_chosen_for_this_browser_while_the_autofill_waits(
    sized_page, site_url, portal_platform, virtual_authenticator
):
    page = sized_page
    cdp, authenticator_id = virtual_authenticator
    signed_up("val@example.com")
    page.goto(site_url + "/login/")
    page.fill("#id_email", "val@example.com")
    page.get_by_role("button", name="Continue", exact=True).click()
    page.wait_for_url("**/login/code/")
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    add_passkey_on_security(page, site_url)
    sign_out(page)

    # A person who has not touched the authenticator yet: the autofill request waits on the field.
    presence(cdp, authenticator_id, automatic=False)
    with page.expect_response("**/login/passkey/options/") as autofill:
        page.goto(site_url + "/login/?next=/home/")
    assert autofill.value.json()["mediation"] == "conditional"
    page.fill("#id_email", "val@example.com")
    page.get_by_role("button", name="Continue", exact=True).click()
    page.wait_for_url("**/login/with-passkey/")  # this browser signed in with its passkey before
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in with your passkey")
    assert_page_quality(page)
    presence(cdp, authenticator_id, automatic=True)
    page.get_by_role("button", name="Use my passkey").click()
    page.wait_for_url(site_url + "/home/")
    key = PortalSessionKey.objects.filter(account__email="val@example.com").latest("created")
    assert key.credential_type == "PASSKEY"


@pytest.mark.usefixtures("virtual_authenticator")
def test_the_autofill_signs_in_with_the_passkey_it_is_given(sized_page, site_url, portal_platform):
    page = sized_page
    signed_up("wes@example.com")
    page.goto(site_url + "/login/")
    page.fill("#id_email", "wes@example.com")
    page.get_by_role("button", name="Continue", exact=True).click()
    type_code(page, "000000")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your wallet")
    add_passkey_on_security(page, site_url)
    sign_out(page)

    # The virtual authenticator answers the conditional request at once, as a person picking the
    # passkey from the email field's autofill would; the service's challenge follows for that passkey.
    page.goto(site_url + "/login/?next=/security/")
    page.wait_for_url(site_url + "/security/")
    expect(page.locator("#credentials")).to_contain_text("used for this sign-in")
    assert_page_quality(page)
