"""Every page of the portal, the hosted onboarding and the development OIDC provider, signed out and
signed in, for a US person and an EU person, at 1280 and 390 px: no sideways scrolling, no serious or
critical axe-core violation, no raw template text or API message (tests/browser.py,
assert_page_quality). The sandbox banner with the test values shows in sandbox mode only."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import page_quality_problems
from tests.portal_pages import onboarding_visits, open_as, signed_in_person, signed_out_visits
from tests.wallets.portal_support import PortalBrowser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.long]

WIDTHS = (1280, 390)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_every_page_fits_a_phone_passes_axe_and_shows_no_raw_text(browser, site_url, portal_platform, api):
    us = signed_in_person("pat@example.com", region="us")
    eu = signed_in_person("erika@example.com", region="eu")
    visits = [
        *[("us", v) for v in us.visits],
        *[("eu", v) for v in eu.visits],
        *[("signed out", v) for v in signed_out_visits("pat@example.com")],
        *[("onboarding", v) for v in onboarding_visits(api, site_url)],
    ]
    report = []
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, is_mobile=width < 500)
        context.set_default_timeout(15_000)
        page = context.new_page()
        for who, visit in visits:
            open_as(page, site_url, visit)
            report += [f"{who} {visit.name} at {width}px: {p}" for p in page_quality_problems(page)]
        context.close()
    assert len(visits) >= 30
    assert not report, "\n".join(report)


def test_the_sandbox_banner_shows_the_test_values(page, site_url, portal_platform):
    page.goto(site_url + "/login/")
    hints = page.get_by_role("complementary", name="Sandbox test values")
    expect(hints).to_contain_text("Sandbox")
    expect(hints.get_by_text("000000")).to_be_hidden()  # collapsed until asked for
    hints.locator("summary").click()
    expect(hints.get_by_text("000000")).to_be_visible()
    expect(hints.get_by_text("123456")).to_be_visible()
    expect(hints).to_contain_text("$fail.compliance.usd@sandbox.uma.example")


@pytest.mark.parametrize("path", ["/", "/login/", "/signup/"])
def test_the_sandbox_banner_is_not_shown_in_production_mode(settings, portal_platform, path):
    browser = PortalBrowser()
    assert 'id="sandbox-hints"' in browser.get(path).content.decode()
    settings.SANDBOX = False
    page = browser.get(path).content.decode()
    assert 'id="sandbox-hints"' not in page and "000000" not in page
