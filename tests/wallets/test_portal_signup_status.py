"""After the hosted identity check, the portal shows where the check stands (in review, approved)
and never offers the check again once it was handed in."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from payments.customers import customer_status_transition
from payments.models import Customer
from tests.payments.kyc_support import png
from tests.wallets.portal_support import PortalBrowser

pytestmark = pytest.mark.django_db(transaction=True)

DETAILS = {
    "full_name": "Nora Newcomer",
    "birth_date": "1990-01-15",
    "nationality": "gb",
    "address_line1": "1 High Street",
    "address_city": "London",
    "address_postal_code": "SW1A 1AA",
    "address_country": "GB",
}


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def test_after_the_hosted_check_the_status_page_says_in_review_then_approved(portal_platform):
    browser = PortalBrowser()
    browser.signup("nora@example.com", "Nora Newcomer 003")  # sandbox: the check is needed
    before = browser.get("/signup/status/").content.decode()
    assert "Identity check: not finished" in before and "Verify my identity" in before

    # The hosted identity check, as the person goes through it, and back to the portal.
    hosted = browser.post("/signup/verify/")
    assert hosted.status_code == 302
    base = urlsplit(hosted["Location"]).path
    assert base.startswith("/onboarding/")
    assert browser.post(base + "details/", DETAILS).status_code == 302
    passport = SimpleUploadedFile("passport.png", png(), content_type="image/png")
    assert (
        browser.post(
            base + "documents/", {"document_type": "PASSPORT", "country": "GB", "file": passport}
        ).status_code
        == 302
    )
    submitted = browser.post(base + "review/")
    assert submitted.status_code == 302 and submitted["Location"].endswith("/result/")
    back = re.search(
        r'href="(http[^"]+/signup/status/[^"]*)"',
        browser.get(submitted["Location"] + "?stay=1").content.decode(),
    )
    assert back, "the result page links back to the portal"

    after = browser.get(urlsplit(back.group(1).replace("&amp;", "&")).path).content.decode()
    assert "Identity check: in review" in after and "nothing more to do" in after
    assert "Verify my identity" not in after and "please verify your identity" not in after
    assert "signup/verify" not in after

    customer_status_transition(Customer.objects.get(), "APPROVED", actor="reviewer", reason="test")
    assert (
        "Identity check: approved. Your wallet is ready." in browser.get("/signup/status/").content.decode()
    )
