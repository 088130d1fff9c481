"""Sign-up through the hosted identity check in headless chromium, with the portal and the service on
two origins as `make run` serves them (the portal at localhost, the service at 127.0.0.1): "Verify my
identity" reaches the check, and back in the portal the check is no longer offered."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser import assert_page_quality
from tests.payments.test_hosted_onboarding_browser import fill_individual_details, upload_passport

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_verify_my_identity_on_the_service_origin_and_back(page, site_url, portal_platform, settings):
    service = site_url.replace("localhost", "127.0.0.1")
    settings.PORTAL_SERVICE_BASE_URL = f"{service}/api/2025-10-13"

    page.goto(site_url + "/signup/")
    page.fill("#id_email", "nora@example.com")
    page.fill("#id_full_name", "Nora Newcomer 003")  # sandbox: the identity check is needed
    page.check("#id_terms")
    page.get_by_role("button", name="Create my wallet").click()
    expect(page.locator("#kyc-decision")).to_contain_text("Identity check: not finished")
    page.get_by_role("button", name="Verify my identity").click()

    page.wait_for_url(service + "/onboarding/**/details/")
    fill_individual_details(page, "Nora Newcomer")  # a name with no sandbox ending: judged complete
    page.get_by_role("button", name="Save and continue").click()
    page.wait_for_url("**/documents/")
    upload_passport(page)
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url("**/review/")
    page.get_by_role("button", name="Submit for verification").click()
    page.wait_for_url("**/result/")
    page.get_by_role("link", name="Return to").click()

    page.wait_for_url(site_url + "/signup/status/**")
    expect(page.locator("#kyc-decision")).to_contain_text("Identity check: in review")
    expect(page.get_by_role("button", name="Verify my identity")).to_have_count(0)
    assert_page_quality(page)
