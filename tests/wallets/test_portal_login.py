"""Email-code sign-in through the portal's pages (test client, CSRF enforced) against a live service:
wrong codes, the lock (423), the resend cool-down (429 Retry-After), no enumeration, htmx partials,
open redirects, CSRF, rate limits and sign-out."""

from __future__ import annotations

import html
import re

import pytest

from payments.client import KeySigner
from tests.wallets.portal_support import PortalBrowser, signed_up
from wallets.models import AuthSession
from wallets.portal.models import PortalSessionKey

pytestmark = pytest.mark.django_db(transaction=True)


def _text(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(response.content.decode()))


def test_code_login_keeps_the_session_key_sealed_on_the_server(portal_platform):
    browser = signed_up("ann@example.com")
    (key,) = PortalSessionKey.objects.all()
    assert key.credential_type == "EMAIL_OTP" and key.service_session_id.startswith("Session:")
    assert key.django_session_key == browser.client.session.session_key
    session = AuthSession.objects.get(pk=key.service_session_id.split(":", 1)[1])
    assert session.revoked_at is None
    home = browser.get("/")
    assert home.status_code == 200 and "ann@example.com" in _text(home)
    # Nothing of the key in what the browser gets or in the session it carries.
    assert key.private_key_sealed.startswith("v1.") and key.public_key_hex not in home.content.decode()
    assert "private" not in str(dict(browser.client.session)).lower()


def test_wrong_code_says_so_and_counts_down(portal_platform):
    browser = signed_up("bob@example.com")
    browser.client.post("/logout/", {"csrfmiddlewaretoken": browser.csrf})
    browser.start_code_login("bob@example.com")
    wrong = browser.enter_code("123456")
    assert wrong.status_code == 200
    assert "That code isn't right. You have 4 tries left." in _text(wrong)
    assert "<html" in wrong.content.decode()  # a whole page without htmx
    right = browser.enter_code()
    assert right.status_code == 302 and right["Location"] == "/"


def test_htmx_code_entry_swaps_the_form_and_redirects_the_page(portal_platform):
    signed_up("cat@example.com")
    browser = PortalBrowser()
    browser.start_code_login("cat@example.com")
    wrong = browser.enter_code("111111", htmx=True)
    body = html.unescape(wrong.content.decode())
    assert wrong.status_code == 200 and body.lstrip().startswith('<div id="code-form">')
    assert "That code isn't right." in body and "<html" not in body
    assert "HX-Request" in wrong["Vary"]
    right = browser.enter_code(htmx=True)
    assert right.status_code == 200 and right["HX-Redirect"] == "/"


def test_too_many_wrong_codes_show_the_lock_with_its_time(portal_platform, settings):
    settings.WALLET_OTP_MAX_FAILED_ATTEMPTS = 2
    signed_up("dan@example.com")
    browser = PortalBrowser()
    browser.start_code_login("dan@example.com")
    assert "1 try left" not in _text(browser.enter_code("222222"))
    locked = browser.enter_code("333333")
    assert locked.status_code == 423
    text = _text(locked)
    assert re.search(r"Signing in with a code is locked until \d\d:\d\d UTC \(in 15 minutes\)", text), text
    # Even the right code waits for the lock to end.
    assert browser.enter_code().status_code == 423
    assert not PortalSessionKey.objects.filter(django_session_key=browser.client.session.session_key).exists()


def test_resend_cool_down_then_the_services_retry_after(portal_platform, settings):
    signed_up("eve@example.com")
    browser = PortalBrowser()
    browser.start_code_login("eve@example.com")
    page = _text(browser.get("/login/code/"))
    assert re.search(r"You can ask for a new code in (29|30) seconds\.", page) and "disabled" in page

    settings.PORTAL_OTP_RESEND_SECONDS = 0
    settings.WALLET_OTP_CHALLENGES_PER_WINDOW = 3  # sign-up's login used one, this login another
    session = browser.client.session
    session["portal_otp"] = {**session["portal_otp"], "resend_at": 0}  # as if the 30 s had passed
    session.save()
    first = browser.post("/login/code/resend/", htmx=True)
    assert first.status_code == 200 and "We sent a new code." in _text(first)
    limited = browser.post("/login/code/resend/", htmx=True)  # the service answers 429, Retry-After ~600
    text = _text(limited)
    assert re.search(
        r"Too many codes were asked for this address\. You can ask for a new one in 10 minutes \(at \d\d:\d\d UTC\)\.",
        text,
    ), text
    wait = int(re.search(r"You can ask for a new code in (\d+) seconds", text).group(1))
    assert 590 <= wait <= 600
    assert 'hx-trigger="load delay:' in text  # the button comes back by itself when the wait is over
    # The newest code still works.
    assert browser.enter_code().status_code == 302


def test_an_unknown_address_gets_the_same_pages(portal_platform):
    signed_up("fay@example.com")
    known, unknown = PortalBrowser(), PortalBrowser()
    a = known.start_code_login("fay@example.com")
    b = unknown.start_code_login("nobody@example.com")
    assert (a.status_code, a["Location"]) == (b.status_code, b["Location"]) == (302, "/login/code/")

    def normalised(response, email):
        page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", _text(response))
        page = re.sub(r'"X-CSRFToken": "[^"]+"', "", page)
        page = re.sub(r"\d+ seconds?", "N seconds", page)
        return page.replace(email, "EMAIL")

    assert normalised(known.get("/login/code/"), "fay@example.com") == normalised(
        unknown.get("/login/code/"), "nobody@example.com"
    )
    wrong_known = normalised(known.enter_code("999999"), "fay@example.com")
    wrong_unknown = normalised(unknown.enter_code("000000"), "nobody@example.com")
    assert wrong_known == wrong_unknown
    assert "That code isn't right. You have 4 tries left." in wrong_unknown


def test_sign_out_ends_the_service_session_and_deletes_the_key(portal_platform):
    browser = signed_up("gus@example.com")
    key = PortalSessionKey.objects.get()
    response = browser.post("/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert not PortalSessionKey.objects.exists()
    assert AuthSession.objects.get(pk=key.service_session_id.split(":", 1)[1]).revoked_at is not None
    assert browser.get("/security/")["Location"] == "/login/?next=%2Fsecurity%2F"


def test_next_is_followed_only_within_the_site(portal_platform, settings):
    # Six sign-ins in a row: more codes than the portal and the service send by default.
    settings.PORTAL_CODES_PER_EMAIL_PER_10_MINUTES = 50
    settings.WALLET_OTP_CHALLENGES_PER_WINDOW = 50
    signed_up("hal@example.com")
    for evil in ("https://evil.example/", "//evil.example/x", "http:///evil.example", "javascript:alert(1)"):
        browser = PortalBrowser()
        page = browser.get("/login/", {"next": evil})
        assert evil not in page.content.decode()
        browser.post("/login/", {"email": "hal@example.com", "next": evil})
        done = browser.enter_code()
        assert done["Location"] == "/", evil
        browser.post("/logout/")
    browser = PortalBrowser()
    browser.post("/login/", {"email": "hal@example.com", "next": "/security/"})
    assert browser.enter_code()["Location"] == "/security/"


def test_csrf_is_enforced_on_forms_and_json(portal_platform):
    browser = PortalBrowser()
    browser.get("/login/")
    assert browser.client.post("/login/", {"email": "x@example.com"}).status_code == 403
    response = browser.client.post(
        "/login/passkey/options/", {"email": "x@example.com"}, content_type="application/json"
    )
    assert response.status_code == 403
    assert browser.client.post("/logout/").status_code == 403


def test_sign_in_attempts_are_rate_limited(portal_platform, settings):
    settings.PORTAL_SIGNINS_PER_10_MINUTES = 2
    browser = PortalBrowser()
    for _ in range(2):
        assert browser.start_code_login("ivy@example.com").status_code == 302
    limited = browser.start_code_login("ivy@example.com")
    assert limited.status_code == 429 and "Too many sign-in attempts" in _text(limited)


def test_a_browser_only_ever_reaches_its_own_users_key(portal_platform, rf):
    from django.contrib.sessions.backends.db import SessionStore

    from wallets.portal.custody import session_signer

    a = signed_up("jon@example.com")
    b = signed_up("kim@example.com")
    key_a = PortalSessionKey.objects.get(account__email="jon@example.com")
    key_b = PortalSessionKey.objects.get(account__email="kim@example.com")

    def request_with(session_key: str, account_id: int):
        request = rf.get("/")
        request.session = SessionStore(session_key)
        request.session["portal_account_id"] = account_id
        return request

    own = session_signer(request_with(a.client.session.session_key, key_a.account_id))
    assert isinstance(own, KeySigner) and own.public_key_hex == key_a.public_key_hex
    # A's browser session claiming to be B, or B's browser session claiming to be A: no key.
    assert session_signer(request_with(a.client.session.session_key, key_b.account_id)) is None
    assert session_signer(request_with(b.client.session.session_key, key_a.account_id)) is None
    # A sealed key moved onto another account's row does not open.
    key_b.private_key_sealed = key_a.private_key_sealed
    key_b.save()
    assert session_signer(request_with(b.client.session.session_key, key_b.account_id)) is None


def test_custody_shows_no_key_material(portal_platform):
    signed_up("lea@example.com")
    key = PortalSessionKey.objects.get()
    from wallets.portal.custody import _signer

    signer = _signer(key)
    secret = signer.private_key_hex
    for text in (repr(key), str(key), repr(signer), key.private_key_sealed, str(vars(key))):
        assert secret not in text


def test_sms_code_login_once_the_wallet_has_a_phone_credential(portal_platform):
    from wallets.portal.custody import _signer
    from wallets.portal.models import PortalAccount
    from wallets.portal.service import service_client

    signed_up("mia@example.com")
    account = PortalAccount.objects.get()
    client = service_client()
    client.customers.update(account.customer_id, customer_type="INDIVIDUAL", phone_number="+14155550100")
    signer = _signer(PortalSessionKey.objects.get())
    client.credentials.create(account.wallet_account_id, "SMS_OTP", signer=signer)

    browser = PortalBrowser()
    started = browser.start_code_login("mia@example.com", method="sms")
    assert started["Location"] == "/login/code/"
    assert "We sent a 6-digit code by text message" in _text(browser.get("/login/code/"))
    assert browser.enter_code()["Location"] == "/"
    assert (
        PortalSessionKey.objects.get(django_session_key=browser.client.session.session_key).credential_type
        == "SMS_OTP"
    )
