"""A browser whose session was ended elsewhere is signed out, in headless chromium at 1280 and 390 px:
two browsers signed in as one person; the first signs the second out on the Security page, or the
session is revoked through the API; the second's next load of "Your money" lands on sign-in."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import assert_page_quality
from tests.portal_pages import Visit, open_as
from tests.wallets.portal_support import PortalBrowser, signed_up
from wallets.portal.custody import _signer
from wallets.portal.models import PortalSessionKey
from wallets.portal.service import service_client

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_UA = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)


@pytest.fixture(params=[1280, 390], ids=lambda width: f"{width}px")
def two_pages(request, browser):
    width = request.param
    contexts = [
        browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500) for _ in range(2)
    ]
    pages = []
    for context in contexts:
        context.set_default_timeout(15_000)
        pages.append(context.new_page())
    yield pages
    for context in contexts:
        context.close()


def two_browsers(email: str) -> tuple[PortalBrowser, PortalBrowser]:
    first = signed_up(email)
    second = PortalBrowser()
    second.client.defaults["HTTP_USER_AGENT"] = PHONE_UA
    second.login(email)
    return first, second


def key_of(client: PortalBrowser) -> PortalSessionKey:
    return PortalSessionKey.objects.get(django_session_key=client.client.session.session_key)


def test_signed_out_from_the_security_page(two_pages, site_url, portal_platform):
    page_a, page_b = two_pages
    a, b = two_browsers("sal@example.com")
    open_as(page_b, site_url, Visit("money", "/home/", b))
    expect(page_b.get_by_role("heading", level=1)).not_to_have_text("Sign in")
    session_b = key_of(b).service_session_id

    open_as(page_a, site_url, Visit("security", "/security/", a))
    row = page_a.locator(f'[data-session="{session_b}"]')
    expect(row.locator("[data-device]")).to_have_text("Safari on iPhone")
    assert_page_quality(page_a)
    row.get_by_role("button", name="Sign out").click()
    expect(page_a.locator("#sessions")).to_contain_text("Signed out.")
    expect(page_a.locator(f'[data-session="{session_b}"]')).to_have_count(0)

    page_b.goto(site_url + "/home/")
    page_b.wait_for_url("**/login/?next=%2Fhome%2F")
    expect(page_b.get_by_role("heading", level=1)).to_have_text("Sign in")
    expect(page_b.locator(".portal-header")).not_to_contain_text("sal@example.com")
    assert_page_quality(page_b)


def test_signed_out_through_the_api(two_pages, site_url, portal_platform, settings):
    settings.PORTAL_SESSION_CHECK_SECONDS = 0  # the next request asks the service (30 s by default)
    _page_a, page_b = two_pages
    _a, b = two_browsers("tom@example.com")
    open_as(page_b, site_url, Visit("money", "/home/", b))
    expect(page_b.get_by_role("heading", level=1)).not_to_have_text("Sign in")
    key = key_of(b)
    service_client().sessions.revoke(key.service_session_id, _signer(key))  # DELETE /auth/sessions/{id}

    page_b.goto(site_url + "/home/")
    page_b.wait_for_url("**/login/?next=%2Fhome%2F")
    expect(page_b.get_by_role("heading", level=1)).to_have_text("Sign in")
    assert_page_quality(page_b)
