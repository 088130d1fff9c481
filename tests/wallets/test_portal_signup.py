"""Sign-up through the portal: the customer, the consent record, the identity decision, the wallet."""

from __future__ import annotations

import pytest

from payments.models import Customer
from tests.wallets.portal_support import PortalBrowser
from wallets.portal.models import PortalAccount

pytestmark = pytest.mark.django_db(transaction=True)


def test_signup_records_consent_and_opens_the_wallet(portal_platform):
    browser = PortalBrowser()
    response = browser.signup("Jane@Example.com", "Jane Doe")
    assert response.status_code == 302 and response["Location"] == "/signup/status/"

    account = PortalAccount.objects.get()
    assert account.email == "jane@example.com"
    assert account.customer_id.startswith("Customer:") and account.wallet_account_id.startswith(
        "InternalAccount:"
    )
    customer = Customer.objects.get()
    assert customer.platform_id == portal_platform.platform.pk
    assert (customer.terms_version, customer.terms_acceptance_method) == ("V2", "CHECKBOX")
    assert customer.terms_ip_address == "127.0.0.1" and customer.terms_accepted_at is not None

    status = browser.get("/signup/status/")
    assert b"Identity check: approved. Your wallet is ready." in status.content
    started = browser.post("/login/", {"email": "jane@example.com"})
    assert started["Location"] == "/login/code/"
    done = browser.enter_code()
    assert done.status_code == 302 and done["Location"] == "/"
    assert b"jane@example.com" in browser.get("/").content


def test_an_identity_check_in_review_asks_for_nothing_more(portal_platform):
    browser = PortalBrowser()
    browser.signup("kit@example.com", "Kit Doe 001")  # sandbox: PENDING
    account = PortalAccount.objects.get()
    assert account.wallet_account_id == ""
    status = browser.get("/signup/status/").content.decode()
    assert "Identity check: in review" in status and "nothing more to do" in status
    assert "Verify my identity" not in status and "please verify your identity" not in status

    # No wallet yet: signing in looks like it does for anyone, and no code can work.
    other = PortalBrowser()
    assert other.start_code_login("kit@example.com")["Location"] == "/login/code/"
    assert "That code isn&#x27;t right." in other.enter_code().content.decode()

    # Once approved (a reviewer, here directly), the status page finds the wallet.
    from payments.customers import customer_status_transition

    customer_status_transition(Customer.objects.get(), "APPROVED", actor="reviewer", reason="test")
    assert "Your wallet is ready." in browser.get("/signup/status/").content.decode()
    assert PortalAccount.objects.get().wallet_account_id.startswith("InternalAccount:")


def test_a_rejected_identity_check_says_so(portal_platform):
    browser = PortalBrowser()
    browser.signup("lex@example.com", "Lex Doe 002")
    assert "Identity check: not approved." in browser.get("/signup/status/").content.decode()


def test_the_terms_must_be_accepted(portal_platform):
    browser = PortalBrowser()
    page = browser.get("/signup/")
    assert b"End User Terms" in page.content and b'value="V2"' in page.content
    response = browser.post(
        "/signup/", {"email": "moe@example.com", "full_name": "Moe", "terms_version": "V2"}
    )
    assert response.status_code == 200 and b"Please accept the End User Terms" in response.content
    stale = browser.post(
        "/signup/", {"email": "moe@example.com", "full_name": "Moe", "terms": "on", "terms_version": "V1"}
    )
    assert b"The End User Terms have just changed" in stale.content
    assert not PortalAccount.objects.exists() and not Customer.objects.exists()


def test_signing_up_again_with_a_known_address_continues_as_a_sign_in(portal_platform):
    PortalBrowser().signup("ned@example.com")
    again = PortalBrowser()
    response = again.signup("ned@example.com", "Someone Else")
    assert response.status_code == 302 and response["Location"] == "/login/code/"
    assert Customer.objects.count() == 1
    assert again.enter_code()["Location"] == "/"


def test_the_sign_up_cap_is_a_setting_and_says_when_to_try_again(portal_platform, settings):
    import html
    import re

    settings.PORTAL_SIGNUPS_PER_HOUR = 2
    browser = PortalBrowser()
    for n in range(2):
        assert browser.signup(f"cap{n}@example.com")["Location"] == "/signup/status/"
    capped = browser.signup("cap2@example.com")
    text = re.sub(r"\s+", " ", html.unescape(capped.content.decode()))
    assert capped.status_code == 429
    found = re.search(
        r"Too many sign-ups from your network\. Please try again in (\d+) minutes? \(at \d\d:\d\d UTC\)\.",
        text,
    )
    assert found and 1 <= int(found.group(1)) <= 60, text
    assert "try again later" not in text
    assert not PortalAccount.objects.filter(email="cap2@example.com").exists()
