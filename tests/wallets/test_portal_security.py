"""The security page and everything that changes a wallet's sign-in: passkeys (with a software
authenticator), OAuth against the development provider, removal rules, re-authentication and the
resumed action, sessions, privacy and export. Test client against a live service."""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from payments.models import InternalAccount
from tests.wallets.portal_support import PortalBrowser, signed_up
from tests.wallets.soft_authenticator import SoftAuthenticator
from wallets.models import AuthCredential, AuthSession
from wallets.portal.models import PortalOAuthLink, PortalSessionKey

pytestmark = pytest.mark.django_db(transaction=True)


def _text(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(response.content.decode()))


def _plain(response) -> str:
    """The page's words, without tags."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(response.content.decode())))


def _b64url_decode(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def registration_json(attestation: dict) -> dict:
    """The software authenticator's wire attestation as a browser's `credential.toJSON()`."""
    return {
        "type": "public-key",
        "id": attestation["credentialId"],
        "rawId": attestation["credentialId"],
        "response": {
            "clientDataJSON": attestation["clientDataJson"],
            "attestationObject": attestation["attestationObject"],
            "transports": attestation["transports"],
        },
        "clientExtensionResults": {},
    }


def assertion_json(assertion: dict) -> dict:
    return {
        "type": "public-key",
        "id": assertion["credentialId"],
        "rawId": assertion["credentialId"],
        "response": {
            "clientDataJSON": assertion["clientDataJson"],
            "authenticatorData": assertion["authenticatorData"],
            "signature": assertion["signature"],
            "userHandle": assertion["userHandle"],
        },
        "clientExtensionResults": {},
    }


def run_get(browser: PortalBrowser, device: SoftAuthenticator, step: dict) -> dict:
    options = step["publicKey"]
    challenge = _b64url_decode(options["challenge"]).decode()  # the service's hex text
    assertion = device.assert_(challenge, options["allowCredentials"][0]["id"])
    return browser.post_json(step["post"], {"credential": assertion_json(assertion)}).json()


def add_passkey(browser: PortalBrowser, device: SoftAuthenticator, nickname: str = "Laptop") -> dict:
    step = browser.post_json("/security/passkeys/options/", {"nickname": nickname}).json()
    assert step["mode"] == "create", step
    assert step["publicKey"]["rp"]["id"] == "localhost"
    user = _b64url_decode(step["publicKey"]["user"]["id"])
    attestation = device.register(step["publicKey"]["challenge"], user_handle=user)
    step = browser.post_json(step["post"], {"credential": registration_json(attestation)}).json()
    assert step["mode"] == "get", step  # activation: sign in with it at once
    return run_get(browser, device, step)


def passkey_login(browser: PortalBrowser, device: SoftAuthenticator, email: str, next_url: str = "") -> dict:
    step = browser.post_json("/login/passkey/options/", {"email": email, "next": next_url}).json()
    assert step["mode"] == "get", step
    return run_get(browser, device, step)


def oauth_round_trip(browser: PortalBrowser, email: str, intent: str):
    """Start at the portal, sign in at the development provider's page, come back to the callback."""
    start = browser.post("/oauth/login/", {"intent": intent})
    assert start.status_code == 302, start.content
    authorize = urlsplit(start["Location"])
    assert authorize.path == "/dev-oidc/authorize"
    query = dict(p.split("=", 1) for p in authorize.query.split("&"))
    assert query["code_challenge_method"] == "S256" and query["nonce"] and query["code_challenge"]
    path = f"{authorize.path}?{authorize.query}"
    assert browser.get(path).status_code == 200
    signed_in = browser.post(path, {"email": email})
    assert signed_in.status_code == 302, signed_in.content
    callback = urlsplit(signed_in["Location"])
    assert callback.path == "/oauth/callback"
    return browser.get(f"{callback.path}?{callback.query}")


def make_stale(browser: PortalBrowser) -> None:
    session = browser.client.session
    session["portal_auth_at"] = 0
    session.save()


def current_key(browser: PortalBrowser) -> PortalSessionKey:
    return PortalSessionKey.objects.get(django_session_key=browser.client.session.session_key)


@pytest.fixture
def device(portal_platform) -> SoftAuthenticator:
    return SoftAuthenticator("localhost", portal_platform.site)


MAC_CHROME = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0.0.0 Safari/537.36"
)
IPHONE_SAFARI = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)


def browser_as(user_agent: str, ip: str) -> PortalBrowser:
    browser = PortalBrowser()
    browser.client.defaults.update(HTTP_USER_AGENT=user_agent, REMOTE_ADDR=ip)
    return browser


def session_row(page, session_id: str) -> str:
    row = re.search(rf'<li data-session="{re.escape(session_id)}">(.*?)</li>', page.content.decode(), re.S)
    assert row, session_id
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.unescape(row.group(1)))).strip()


def test_security_page_lists_credentials_and_sessions(portal_platform):
    browser = signed_up("amy@example.com")
    page = browser.get("/security/")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    assert "Email code · amy@example.com used for this sign-in" in _plain(page)
    assert "This browser" in _plain(page) and _text(page).count("data-session=") == 1


def test_sessions_show_device_address_and_last_activity(portal_platform):
    signed_up("abe@example.com")
    laptop = browser_as(MAC_CHROME, "198.51.100.7")
    laptop.login("abe@example.com")
    phone = browser_as(IPHONE_SAFARI, "203.0.113.9")
    phone.login("abe@example.com")
    PortalSessionKey.objects.filter(django_session_key=phone.client.session.session_key).update(
        last_seen=timezone.now() - dt.timedelta(minutes=12)
    )
    page = laptop.get("/security/")
    assert session_row(page, current_key(laptop).service_session_id) == (
        "Chrome on Mac This browser Email code (abe@example.com) · 198.51.100.7 · Active now"
    )
    assert session_row(page, current_key(phone).service_session_id) == (
        "Safari on iPhone Email code (abe@example.com) · 203.0.113.9 · Active 12 minutes ago "
        "Sign out Safari on iPhone"
    )


def test_a_session_opened_elsewhere_is_listed_as_such(portal_platform, api_wallet_session):
    browser, session_id = api_wallet_session
    row = session_row(browser.get("/security/"), session_id)
    assert row.startswith("Another app or device Email code") and "Signed in" in row


@pytest.fixture
def api_wallet_session(portal_platform):
    """A signed-in browser, and a session of the same wallet opened through the API (no browser)."""
    from wallets.portal.custody import _signer
    from wallets.portal.models import PortalAccount
    from wallets.portal.service import service_client

    browser = signed_up("api@example.com")
    account = PortalAccount.objects.get(email="api@example.com")
    client = service_client()
    (email,) = [c for c in client.credentials.list(account.wallet_account_id) if c.type == "EMAIL_OTP"]
    challenged = client.credentials.challenge(email.id)
    session, _key = client.credentials.verify_otp(
        email.id, "000000", challenged.otp_encryption_target_bundle, credential_type="EMAIL_OTP"
    )
    assert _signer(current_key(browser)) is not None
    return browser, session.id


def _service_revoke(session_id: str, browser: PortalBrowser) -> None:
    """DELETE /auth/sessions/{id} through the API, stamped by the session itself."""
    from wallets.portal.custody import _signer
    from wallets.portal.service import service_client

    service_client().sessions.revoke(session_id, _signer(current_key(browser)))


def test_a_browser_signed_out_on_the_security_page_cannot_open_its_money(portal_platform):
    first = signed_up("ava@example.com")
    second = PortalBrowser()
    second.login("ava@example.com")
    assert second.get("/home/").status_code == 200
    other = current_key(second)
    assert first.post(f"/security/sessions/{other.service_session_id}/revoke/").status_code == 302
    # At once, without waiting for the next check with the service.
    money = second.get("/home/")
    assert money.status_code == 302 and money["Location"] == "/login/?next=%2Fhome%2F"
    assert "ava@example.com" not in _text(second.get("/"))
    assert not PortalSessionKey.objects.filter(pk=other.pk).exists()
    assert first.get("/home/").status_code == 200  # the browser that did it stays signed in


def test_a_session_revoked_through_the_api_signs_its_browser_out_at_the_next_check(portal_platform, settings):
    settings.PORTAL_SESSION_CHECK_SECONDS = 30
    browser = signed_up("bea@example.com")
    key = current_key(browser)
    _service_revoke(key.service_session_id, browser)
    # Within the check interval the portal has not asked the service yet: one cheap lookup per 30 s.
    assert browser.get("/home/").status_code == 200
    PortalSessionKey.objects.filter(pk=key.pk).update(checked_at=timezone.now() - dt.timedelta(seconds=31))
    money = browser.get("/home/")
    assert money.status_code == 302 and money["Location"] == "/login/?next=%2Fhome%2F"
    assert not PortalSessionKey.objects.filter(pk=key.pk).exists()
    assert browser.get("/home/")["Location"] == "/login/?next=%2Fhome%2F"


def test_a_live_session_is_checked_once_per_interval(portal_platform, settings, monkeypatch):
    from payments.client.resources import Sessions

    settings.PORTAL_SESSION_CHECK_SECONDS = 30
    browser = signed_up("cid@example.com")
    calls = []
    listed = Sessions.list
    monkeypatch.setattr(
        Sessions, "list", lambda self, account_id: calls.append(account_id) or listed(self, account_id)
    )
    key = current_key(browser)
    PortalSessionKey.objects.filter(pk=key.pk).update(checked_at=timezone.now() - dt.timedelta(seconds=31))
    for _ in range(3):
        assert browser.get("/home/").status_code == 200
    assert len(calls) == 1
    assert current_key(browser).checked_at > key.checked_at


def test_removing_a_credential_signs_out_the_browsers_signed_in_with_it(portal_platform, device):
    browser = signed_up("dot@example.com")
    add_passkey(browser, device)  # this browser is now signed in with the passkey
    other = PortalBrowser()
    other.login("dot@example.com")  # with the email code
    email = AuthCredential.objects.get(type="EMAIL_OTP")
    assert browser.post(f"/security/credentials/{email.public_id}/remove/").status_code == 302
    assert other.get("/home/")["Location"] == "/login/?next=%2Fhome%2F"
    assert browser.get("/home/").status_code == 200


def test_a_browser_stays_signed_in_while_the_service_cannot_be_asked(portal_platform, settings, monkeypatch):
    from payments.client import ServiceUnavailable
    from payments.client.resources import Sessions

    settings.PORTAL_SESSION_CHECK_SECONDS = 0
    browser = signed_up("eda@example.com")

    def unreachable(self, account_id):
        raise ServiceUnavailable("connection refused")

    monkeypatch.setattr(Sessions, "list", unreachable)
    home = browser.get("/")
    assert home.status_code == 200 and "eda@example.com" in _text(home)


def test_a_passkey_is_added_activated_and_signs_in(portal_platform, device):
    browser = signed_up("ben@example.com")
    done = add_passkey(browser, device, nickname="Ben's laptop")
    assert done == {"redirect": "/security/"}
    assert current_key(browser).credential_type == "PASSKEY"  # the activation's session is now kept
    assert "Your passkey was added" in _text(browser.get("/security/"))

    browser.post("/logout/")
    done = passkey_login(browser, device, "ben@example.com", next_url="/security/")
    assert done == {"redirect": "/security/"}
    page = browser.get("/security/")
    assert "Passkey · Ben's laptop used for this sign-in" in _plain(page)
    assert _text(page).count("data-credential=") == 2
    assert {c.type for c in AuthCredential.objects.filter(revoked_at__isnull=True)} == {
        "EMAIL_OTP",
        "PASSKEY",
    }


def test_passkey_sign_in_for_an_address_without_one_looks_the_same(portal_platform, device):
    signed_up("cal@example.com")  # has no passkey
    browser = PortalBrowser()
    for email in ("cal@example.com", "nobody@example.com"):
        step = browser.post_json("/login/passkey/options/", {"email": email}).json()
        assert step["mode"] == "get" and set(step["publicKey"]) == {
            "challenge",
            "rpId",
            "allowCredentials",
            "userVerification",
            "timeout",
        }
        fake = {
            "type": "public-key",
            "rawId": "AAAA",
            "response": {"clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA"},
        }
        answer = browser.post_json(step["post"], {"credential": fake})
        assert answer.status_code == 400 and "No passkey for this email" in answer.json()["error"]


def test_adding_a_passkey_needs_a_fresh_sign_in(portal_platform):
    browser = signed_up("dee@example.com")
    make_stale(browser)
    answer = browser.post_json("/security/passkeys/options/", {"nickname": "Phone"}).json()
    assert answer == {"redirect": "/login/?next=%2Fsecurity%2F&reauth=1"}


def test_removing_needs_another_credentials_session(portal_platform, device):
    browser = signed_up("eli@example.com")
    add_passkey(browser, device)  # now signed in with the passkey
    passkey = AuthCredential.objects.get(type="PASSKEY")
    email = AuthCredential.objects.get(type="EMAIL_OTP")

    own = browser.get(f"/security/credentials/{passkey.public_id}/remove/")
    assert "a method cannot approve its own removal" in _text(own)
    assert browser.post(f"/security/credentials/{passkey.public_id}/remove/").status_code == 200
    assert AuthCredential.objects.get(pk=passkey.pk).revoked_at is None

    other = browser.post(f"/security/credentials/{email.public_id}/remove/")
    assert other.status_code == 302 and other["Location"] == "/security/"
    assert AuthCredential.objects.get(pk=email.pk).revoked_at is not None
    text = _text(browser.get("/security/"))
    assert "was removed" in text and text.count("data-credential=") == 1
    # The last one cannot go.
    assert "This is your only sign-in method" in _text(
        browser.get(f"/security/credentials/{passkey.public_id}/remove/")
    )


def test_a_stale_sign_in_goes_through_sign_in_and_back_to_the_action(portal_platform, device):
    browser = signed_up("fin@example.com")
    add_passkey(browser, device)
    email = AuthCredential.objects.get(type="EMAIL_OTP")
    here = f"/security/credentials/{email.public_id}/remove/"
    make_stale(browser)
    sent = browser.get(here)
    assert sent.status_code == 302
    assert sent["Location"] == f"/login/?next={here.replace('/', '%2F').replace(':', '%3A')}&reauth=1"
    login = browser.get(sent["Location"])
    assert "Confirm it’s you" in _text(login) and 'value="fin@example.com"' in login.content.decode()
    done = passkey_login(browser, device, "fin@example.com", next_url=here)
    assert done == {"redirect": here}
    assert "Remove email code" in _text(browser.get(here))  # the interrupted action, offered again


def test_an_expired_key_sends_through_sign_in_then_back(portal_platform):
    browser = signed_up("gil@example.com")
    PortalSessionKey.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    response = browser.post("/security/privacy/", {"private_enabled": "on"}, htmx=True)
    assert response["HX-Redirect"] == "/login/?next=%2Fsecurity%2F&reauth=1"
    assert not PortalSessionKey.objects.exists()
    assert "Your sign-in has expired" in _text(browser.get("/security/"))
    browser.post("/login/", {"email": "gil@example.com", "next": "/security/"})
    assert browser.enter_code()["Location"] == "/security/"
    assert browser.post("/security/privacy/", {"private_enabled": "on"}, htmx=True).status_code == 200


def test_a_key_revoked_elsewhere_is_forgotten(portal_platform):
    browser = signed_up("hux@example.com")
    AuthSession.objects.update(revoked_at=timezone.now())  # e.g. signed out from another device
    response = browser.post("/security/privacy/", {"private_enabled": "on"})
    assert response.status_code == 302 and response["Location"] == "/login/?next=%2Fsecurity%2F&reauth=1"
    assert not PortalSessionKey.objects.exists()


def test_privacy_switch_is_an_htmx_partial(portal_platform):
    browser = signed_up("ida@example.com")
    response = browser.post("/security/privacy/", {"private_enabled": "on"}, htmx=True)
    body = _text(response)
    assert body.lstrip().startswith('<section class="card" id="privacy"') and "Private mode is on." in body
    assert "HX-Request" in response["Vary"]
    assert InternalAccount.objects.get(type="EMBEDDED_WALLET").private_enabled is True
    browser.post("/security/privacy/", {})
    assert InternalAccount.objects.get(type="EMBEDDED_WALLET").private_enabled is False


def test_signing_another_session_out(portal_platform):
    first = signed_up("jay@example.com")
    second = PortalBrowser()
    second.login("jay@example.com")
    other = current_key(second)
    response = first.post(f"/security/sessions/{other.service_session_id}/revoke/", htmx=True)
    assert response.status_code == 200 and "Signed out." in _text(response)
    assert AuthSession.objects.get(pk=other.service_session_id.split(":", 1)[1]).revoked_at is not None
    # The other browser's next change sends it to sign in again.
    assert second.post("/security/privacy/", {"private_enabled": "on"})["Location"].startswith("/login/")


def test_export_shows_the_recovery_phrase_once_after_a_fresh_sign_in(portal_platform):
    browser = signed_up("kay@example.com")
    make_stale(browser)
    assert browser.get("/security/export/")["Location"] == "/login/?next=%2Fsecurity%2Fexport%2F&reauth=1"
    browser.post("/login/", {"email": "kay@example.com", "next": "/security/export/"})
    assert browser.enter_code()["Location"] == "/security/export/"
    assert "Show my recovery phrase" in _text(browser.get("/security/export/"))
    shown = browser.post("/security/export/")
    assert shown.status_code == 200 and "no-store" in shown["Cache-Control"]
    words = re.findall(r"<li>([a-z]+)</li>", shown.content.decode())
    assert len(words) in (12, 24)
    assert " ".join(words) not in str(dict(browser.client.session))


def test_oauth_is_linked_then_signs_in(portal_platform):
    browser = signed_up("lou@example.com")
    linked = oauth_round_trip(browser, "lou.google@example.com", "link")
    assert linked.status_code == 302 and linked["Location"] == "/security/"
    assert current_key(browser).credential_type == "OAUTH"  # activated by verifying at once
    text = _plain(browser.get("/security/"))
    assert "You can now sign in with lou.google@example.com" in text
    assert "Sign-in provider · lou.google@example.com used for this sign-in" in text
    link = PortalOAuthLink.objects.get()
    assert link.issuer == f"{portal_platform.site}/dev-oidc" and link.account.email == "lou@example.com"

    browser.post("/logout/")
    fresh = PortalBrowser()
    done = oauth_round_trip(fresh, "lou.google@example.com", "login")
    assert done.status_code == 302 and done["Location"] == "/"
    assert current_key(fresh).credential_type == "OAUTH"
    assert "lou@example.com" in _text(fresh.get("/"))


def test_oauth_for_an_identity_that_is_not_linked_says_what_to_do(portal_platform):
    signed_up("max@example.com")
    browser = PortalBrowser()
    answer = oauth_round_trip(browser, "max@example.com", "login")
    assert answer.status_code == 400
    assert "This sign-in is not linked to a wallet yet" in _text(answer)
    assert not PortalSessionKey.objects.filter(django_session_key=browser.client.session.session_key).exists()


def test_oauth_callback_refuses_a_state_it_did_not_issue(portal_platform):
    browser = PortalBrowser()
    answer = browser.get("/oauth/callback", {"code": "x", "state": "forged"})
    assert answer.status_code == 400 and "did not complete" in _text(answer)
