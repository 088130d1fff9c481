"""The portal's Strong Customer Authentication against a live server, through Django's test client
with CSRF enforced: a person living in the EU confirms a cross-currency payment, approves each step
(SMS codes; a software passkey through the shim's JSON endpoints), runs the SCA login when the
service asks for it, and lands on the live status page."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from payments import clock
from payments.models import Customer
from tests.payments.portal_money_support import funded, quote_page
from tests.payments.sca_support import EU_ADDRESS, PHONE, SANDBOX_SCA_CODE, options_challenge, webauthn_json
from tests.wallets.soft_authenticator import SoftAuthenticator
from wallets.portal.models import PortalAccount

pytestmark = pytest.mark.django_db(transaction=True)

EUR_SEND = {
    "destination": "bank",
    "bank_type": "EUR_ACCOUNT",
    "iban": "DE89 3704 0044 0532 0130 00",
    "beneficiary_name": "Hans Muster",
    "beneficiary_country": "DE",
    "locked_side": "SENDING",
    "amount": "20",
}
PORTAL_ORIGIN = "http://localhost"  # the test client's host


def eu_person(email: str):
    """Signed up, signed in and funded; then their address turns out to be in Germany."""
    browser = funded(email)
    customer_id = PortalAccount.objects.get(email=email).customer_id.split(":", 1)[1]
    Customer.objects.filter(pk=customer_id).update(address=EU_ADDRESS, phone_number=PHONE)
    return browser


def held(browser) -> str:
    url = quote_page(browser, EUR_SEND)
    page = browser.post(url)
    assert page.status_code == 200, page.content.decode()[:2000]
    return url


def sca_login(browser, next_url: str) -> None:
    page = browser.get(f"/payment-security/confirm/?next={next_url}")
    assert "Confirm it’s you" in page.content.decode()
    sent = browser.post("/payment-security/confirm/", {"next": next_url})
    assert sent.status_code == 302 and sent["Location"] == "/payment-security/confirm/code/"
    done = browser.post("/payment-security/confirm/code/", {"code": SANDBOX_SCA_CODE})
    assert done.status_code == 302 and done["Location"] == next_url, done.content.decode()[:2000]


def test_each_approval_step_after_the_sca_login_then_the_live_status(portal_platform):
    browser = eu_person("erika@example.com")
    url = held(browser)
    page = re.sub(r"\s+", " ", browser.get(url).content.decode())
    assert "Step 1: <span data-sca-title>Approve the currency conversion</span>" in page
    assert 'data-sca-factor="SMS_OTP"' in page and 'data-code-boxes="6"' in page
    assert "We sent a 6-digit code by text message to ··56 78." in page
    assert "Confirm and send" not in page and "does not support" not in page
    assert re.search(r"Send a new code</button> ?<span[^>]*>You can ask for a new code in \d+ seconds", page)

    authorize = url + "authorize/"
    needs_login = browser.post(authorize, {"code": SANDBOX_SCA_CODE})
    assert needs_login.status_code == 302
    assert needs_login["Location"] == f"/payment-security/confirm/?next={url}"
    sca_login(browser, url)

    wrong = browser.post(authorize, {"code": "000000"})
    assert (
        wrong.status_code == 200 and "That code isn’t right. You have 4 tries left." in wrong.content.decode()
    )
    first = browser.post(authorize, {"code": SANDBOX_SCA_CODE})
    assert first.status_code == 302 and first["Location"] == url
    page = browser.get(url).content.decode()
    assert "Step 2: <span data-sca-title>Approve the payout</span>" in page

    last = browser.post(authorize, {"code": SANDBOX_SCA_CODE}, htmx=True)
    assert last.status_code == 200 and last["HX-Redirect"].startswith("/transactions/Transaction:")
    status = browser.get(last["HX-Redirect"]).content.decode()
    assert 'data-status="COMPLETED"' in status


def test_a_wrong_code_through_htmx_swaps_the_panel_only(portal_platform):
    browser = eu_person("htmx-sca@example.com")
    url = held(browser)
    sca_login(browser, url)
    panel = browser.post(url + "authorize/", {"code": "999999"}, htmx=True).content.decode()
    assert panel.lstrip().startswith('<section id="quote-panel"') and "<html" not in panel
    assert 'id="sca-error"' in panel and "Step 1" in panel


def test_resend_waits_for_the_cool_down(portal_platform, settings):
    settings.PORTAL_OTP_RESEND_SECONDS = 0
    browser = eu_person("resend@example.com")
    url = held(browser)
    early = browser.post(url + "authorize/resend/", htmx=True).content.decode()
    assert "A new code can&#x27;t be sent just yet." in early and "disabled" in early
    clock.advance(dt.timedelta(seconds=31))  # the service's cool-down; the portal's runs in real time:
    session = browser.client.session
    session["portal_sca"]["resend_at"] = {}
    session.save()
    sent = browser.post(url + "authorize/resend/", htmx=True).content.decode()
    assert "We sent a new code. Use the newest one." in sent


def test_a_lapsed_step_says_the_payment_was_not_sent(portal_platform):
    browser = eu_person("late@example.com")
    url = held(browser)
    sca_login(browser, url)
    clock.advance(dt.timedelta(minutes=6))
    after = browser.post(url + "authorize/", {"code": SANDBOX_SCA_CODE})
    assert after.status_code == 302 and after["Location"].startswith("/transactions/")
    status = browser.get(after["Location"]).content.decode()
    assert 'data-status="FAILED"' in status and "not approved in time" in status


def test_a_payment_passkey_added_here_approves_the_steps(portal_platform, settings):
    settings.WEBAUTHN_ALLOWED_ORIGINS = [*settings.WEBAUTHN_ALLOWED_ORIGINS, PORTAL_ORIGIN]
    authenticator = SoftAuthenticator("localhost", PORTAL_ORIGIN)
    browser = eu_person("passkey-sca@example.com")
    assert "Add a payment passkey" in browser.get("/payment-security/").content.decode()

    step = browser.post_json("/payment-security/passkey/", {}).json()
    assert step["mode"] == "create" and step["post"] == "/payment-security/passkey/"
    attestation = authenticator.register(step["publicKey"]["challenge"])
    credential_id = attestation["credentialId"]
    added = browser.post_json(step["post"], {"credential": webauthn_json(attestation)}).json()
    assert added == {"redirect": "/payment-security/"}
    page = browser.get("/payment-security/").content.decode()
    assert 'data-factor="PASSKEY"' in page and 'data-factor="SMS_OTP"' in page

    url = held(browser)  # executed with the preferred factor: PASSKEY
    assert 'data-sca-factor="PASSKEY"' in browser.get(url).content.decode()

    def approve() -> dict:
        ceremony = browser.post_json(url + "authorize/passkey/", {}).json()
        assert ceremony["mode"] == "get" and ceremony["post"] == url + "authorize/"
        assertion = authenticator.assert_(options_challenge(ceremony["publicKey"]), credential_id)
        return browser.post_json(ceremony["post"], {"credential": webauthn_json(assertion)}).json()

    needs_login = approve()
    assert needs_login == {"redirect": f"/payment-security/confirm/?next={url}"}
    login = browser.post_json("/payment-security/confirm/passkey/", {"next": url}).json()
    assertion = authenticator.assert_(options_challenge(login["publicKey"]), credential_id)
    assert browser.post_json(login["post"], {"credential": webauthn_json(assertion)}).json() == {
        "redirect": url
    }

    assert approve() == {"redirect": url}
    done = approve()
    assert done["redirect"].startswith("/transactions/Transaction:")
    assert 'data-status="COMPLETED"' in browser.get(done["redirect"]).content.decode()


def test_people_outside_the_eea_see_no_steps(portal_platform):
    browser = funded("us@example.com")
    assert "need no extra approval" in browser.get("/payment-security/").content.decode()


def _plain(response) -> str:
    import html

    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(response.content.decode())))


def eu_person_without_phone(email: str):
    browser = funded(email)
    customer_id = PortalAccount.objects.get(email=email).customer_id.split(":", 1)[1]
    Customer.objects.filter(pk=customer_id).update(address=EU_ADDRESS, phone_number="")
    return browser


def test_the_menu_links_payment_security_for_people_who_approve_payments(portal_platform):
    eu = eu_person("menu-eu@example.com")
    us = funded("menu-us@example.com")
    assert 'href="/payment-security/"' in eu.get("/home/").content.decode()
    assert 'href="/payment-security/"' not in us.get("/home/").content.decode()
    assert "Payment security" not in _plain(us.get("/"))


def test_a_phone_number_is_added_for_codes_then_offered_to_confirm_it_is_you(portal_platform):
    browser = eu_person_without_phone("phone@example.com")
    page = _plain(browser.get("/payment-security/"))
    assert "Nothing yet: add your phone number or a passkey below" in page and "Add the number" in page
    login = _plain(browser.get("/payment-security/confirm/"))
    assert "Text me a code" not in login and "You have no way to approve payments yet." in login
    assert browser.post("/payment-security/confirm/").status_code == 200  # no code without a phone
    assert Customer.objects.get(email="phone@example.com").phone_number == ""

    wrong = browser.post("/payment-security/phone/", {"phone_number": "0151 1234"})
    assert wrong.status_code == 400
    assert "Enter the number with its country code, starting with +" in _plain(wrong)

    added = browser.post("/payment-security/phone/", {"phone_number": "+49 151 1234-5678"})
    assert added.status_code == 302 and added["Location"] == "/payment-security/"
    assert Customer.objects.get(email="phone@example.com").phone_number == "+4915112345678"
    page = _plain(browser.get("/payment-security/"))
    assert "Your phone number was added. Payment codes go to ··56 78." in page
    assert "Text message to ··56 78" in page and "Change the number" in page
    assert "Text me a code" in _plain(browser.get("/payment-security/confirm/"))


def test_changing_the_phone_number_needs_a_fresh_sign_in(portal_platform):
    browser = eu_person("stale-phone@example.com")
    session = browser.client.session
    session["portal_auth_at"] = 0
    session.save()
    sent = browser.post("/payment-security/phone/", {"phone_number": "+4915199990000"})
    assert sent.status_code == 302 and sent["Location"] == "/login/?next=%2Fpayment-security%2F&reauth=1"
    assert Customer.objects.get(email="stale-phone@example.com").phone_number == PHONE


def test_a_phone_the_wallet_signs_in_with_changes_with_the_wallets_approval(portal_platform):
    from wallets.models import AuthCredential
    from wallets.portal.custody import _signer
    from wallets.portal.models import PortalSessionKey
    from wallets.portal.service import service_client

    browser = eu_person("sms-wallet@example.com")
    account = PortalAccount.objects.get(email="sms-wallet@example.com")
    key = PortalSessionKey.objects.get(django_session_key=browser.client.session.session_key)
    service_client().credentials.create(account.wallet_account_id, "SMS_OTP", signer=_signer(key))
    changed = browser.post("/payment-security/phone/", {"phone_number": "+4915199990000"})
    assert changed.status_code == 302, _plain(changed)
    assert Customer.objects.get(email="sms-wallet@example.com").phone_number == "+4915199990000"
    assert AuthCredential.objects.get(type="SMS_OTP", revoked_at__isnull=True).contact == "+4915199990000"
    assert "Your phone number was changed. Payment codes go to ··00 00." in _plain(
        browser.get("/payment-security/")
    )


def test_factor_names_say_which_device_holds_the_passkey(portal_platform, settings):
    settings.WEBAUTHN_ALLOWED_ORIGINS = [*settings.WEBAUTHN_ALLOWED_ORIGINS, PORTAL_ORIGIN]
    authenticator = SoftAuthenticator("localhost", PORTAL_ORIGIN)
    browser = eu_person("names@example.com")
    browser.client.defaults["HTTP_USER_AGENT"] = (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/130.0.0.0 Safari/537.36"
    )
    step = browser.post_json("/payment-security/passkey/", {}).json()
    attestation = authenticator.register(step["publicKey"]["challenge"])
    assert browser.post_json(step["post"], {"credential": webauthn_json(attestation)}).json() == {
        "redirect": "/payment-security/"
    }
    here = _plain(browser.get("/payment-security/"))
    assert "Text message to ··56 78" in here and "Passkey on this device" in here
    elsewhere = browser.client.cookies.pop("portal_sca_passkey")
    assert elsewhere is not None
    assert "Passkey on Chrome on Mac" in _plain(browser.get("/payment-security/"))


def test_confirm_its_you_is_said_before_approve_is_pressed(portal_platform):
    browser = eu_person("told@example.com")
    url = quote_page(browser, EUR_SEND)
    before = browser.get(url).content.decode()
    notice = re.search(r'<div class="alert alert-info" data-approval>(.*?)</div>', before, re.S).group(1)
    assert (
        "After you confirm, approve this payment" in notice and "with a code we text to your phone" in notice
    )
    assert "we will ask you to do that first" in notice
    step = browser.post(url).content.decode()
    assert "data-confirm-first" in step and "Approving may first ask you to confirm it’s you" in step
    # Once this browser saw the SCA login through, the steps do not warn of it any more.
    sca_login(browser, url)
    assert "data-confirm-first" not in browser.get(url).content.decode()
    fresh = quote_page(browser, EUR_SEND)
    assert "we will ask you to do that first" not in browser.get(fresh).content.decode()


def test_with_no_way_to_approve_the_confirm_page_says_so_before_confirm_is_pressed(portal_platform):
    browser = eu_person_without_phone("no-factor@example.com")
    url = quote_page(browser, EUR_SEND)
    notice = _plain(browser.get(url))
    assert "you have no way to give it yet: add a phone number for codes or a payment passkey" in notice
    assert "with a code we text to your phone" not in notice
    assert 'href="/payment-security/"' in browser.get(url).content.decode()
