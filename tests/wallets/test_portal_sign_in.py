"""Sign-in, identifier first (test client against a live service): the email address alone, then the
best method for this browser (its passkey for that address, else a code by email), the other ways a
click away, and the passkey picked from the browser's autofill (conditional mediation). Nothing of
it tells whether an address has an account or a passkey."""

from __future__ import annotations

import html
import re

import pytest

from tests.wallets.portal_support import PortalBrowser, signed_up
from tests.wallets.soft_authenticator import SoftAuthenticator
from tests.wallets.test_portal_security import add_passkey, assertion_json, current_key, run_get
from wallets.portal.models import PortalAccount

pytestmark = pytest.mark.django_db(transaction=True)


def _text(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(response.content.decode()))


def _normalised(response, email: str) -> str:
    page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", _text(response))
    page = re.sub(r'"X-CSRFToken": "[^"]+"', "", page)
    return page.replace(email, "EMAIL")


@pytest.fixture
def device(portal_platform) -> SoftAuthenticator:
    return SoftAuthenticator("localhost", portal_platform.site)


def test_the_sign_in_page_asks_for_the_email_alone_with_passkey_autofill(portal_platform):
    page = PortalBrowser().get("/login/").content.decode()
    assert page.count("<input") == page.count('type="hidden"') + 1  # the email, nothing to choose yet
    assert 'autocomplete="username webauthn"' in page and 'type="email"' in page
    assert 'data-passkey-autofill="/login/passkey/options/"' in page
    assert ">Continue</button>" in page and "Send me a code" not in page


def test_an_address_goes_to_an_emailed_code_unless_this_browser_has_its_passkey(portal_platform, device):
    browser = signed_up("ada@example.com")
    add_passkey(browser, device)  # signs in with it: this browser now knows its passkey for ada
    browser.post("/logout/")
    to_passkey = browser.post("/login/", {"email": "ADA@example.com", "next": "/security/"})
    assert to_passkey.status_code == 302 and to_passkey["Location"] == "/login/with-passkey/"
    page = _text(browser.get("/login/with-passkey/"))
    assert "Sign in with your passkey" in page and "ada@example.com" in page
    assert "Use my passkey" in page and "Email me a code instead" in page and "Other ways to sign in" in page
    step = browser.post_json(
        "/login/passkey/options/", {"email": "ada@example.com", "next": "/security/"}
    ).json()
    assert run_get(browser, device, step) == {"redirect": "/security/"}
    assert current_key(browser).credential_type == "PASSKEY"

    # Another address from the same browser, or the same address from another browser: a code.
    browser.post("/logout/")
    assert browser.start_code_login("bob@example.com", method="")["Location"] == "/login/code/"
    assert PortalBrowser().start_code_login("ada@example.com", method="")["Location"] == "/login/code/"
    # Asked for, the code goes out instead of the passkey.
    chose = browser.post("/login/", {"email": "ada@example.com", "method": "email"})
    assert chose["Location"] == "/login/code/"


def test_the_other_ways_look_the_same_for_any_address(portal_platform, device):
    owner = signed_up("cy@example.com")
    add_passkey(owner, device)
    known, unknown = PortalBrowser(), PortalBrowser()
    known.start_code_login("cy@example.com")
    unknown.start_code_login("nobody@example.com")
    a, b = known.get("/login/methods/"), unknown.get("/login/methods/")
    assert a.status_code == b.status_code == 200
    assert _normalised(a, "cy@example.com") == _normalised(b, "nobody@example.com")
    text = _text(a)
    for way in (
        "Use a passkey",
        "Email me a code",
        "Send the code to my phone",
        "Continue with your provider",
    ):
        assert way in text
    # A passkey for an address without one: the same ceremony, which finds nothing.
    step = unknown.post_json("/login/passkey/options/", {"email": "nobody@example.com"}).json()
    assert step["mode"] == "get" and len(step["publicKey"]["allowCredentials"]) == 1
    # Without an address first, the pages send to the start.
    assert PortalBrowser().get("/login/methods/")["Location"] == "/login/"
    assert PortalBrowser().get("/login/with-passkey/")["Location"] == "/login/"


def test_a_passkey_picked_from_the_autofill_signs_in(portal_platform, device):
    owner = signed_up("dee@example.com")
    add_passkey(owner, device)
    wallet = PortalAccount.objects.get(email="dee@example.com").wallet_account_id
    browser = PortalBrowser()
    autofill = browser.post_json("/login/passkey/options/", {"autofill": True}).json()
    assert autofill["mode"] == "get" and autofill["mediation"] == "conditional"
    assert autofill["publicKey"]["allowCredentials"] == [] and autofill["post"] == "/login/passkey/"
    assert dict(browser.client.session) == {}  # asked on every page load: nothing is kept for it

    (webauthn_id,) = [c.hex() for c in device._credentials]
    pick = device.assert_("the portal's own challenge: it only names the passkey", bytes.fromhex(webauthn_id))
    step = browser.post_json(
        "/login/passkey/", {"autofill": True, "next": "/home/", "credential": assertion_json(pick)}
    ).json()
    # Then the service's challenge, for this passkey, in a ceremony of its own.
    assert step["mode"] == "get" and step.get("mediation") is None
    assert [c["id"] for c in step["publicKey"]["allowCredentials"]] == [pick["credentialId"]]
    assert run_get(browser, device, step) == {"redirect": "/home/"}
    key = current_key(browser)
    assert key.credential_type == "PASSKEY" and key.account.wallet_account_id == wallet


def test_an_autofill_pick_the_portal_does_not_know_finds_nothing(portal_platform, device):
    stranger = SoftAuthenticator("localhost", portal_platform.site)
    stranger.register("AAAA", user_handle=b"someone else's wallet")
    browser = PortalBrowser()
    browser.post_json("/login/passkey/options/", {"autofill": True})
    (raw,) = stranger._credentials
    pick = stranger.assert_("x", raw)
    step = browser.post_json("/login/passkey/", {"autofill": True, "credential": assertion_json(pick)}).json()
    assert step["mode"] == "get" and len(step["publicKey"]["allowCredentials"]) == 1  # looks like any
    fake = {
        "type": "public-key",
        "rawId": "AAAA",
        "response": {"clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA"},
    }
    answer = browser.post_json(step["post"], {"credential": fake})
    assert answer.status_code == 400 and "No passkey for this email" in answer.json()["error"]


def test_asking_for_autofill_options_costs_no_sign_in_attempt(portal_platform, settings):
    settings.PORTAL_SIGNINS_PER_10_MINUTES = 1
    browser = PortalBrowser()
    for _ in range(5):  # every load of the sign-in page asks
        assert browser.post_json("/login/passkey/options/", {"autofill": True}).status_code == 200
    assert browser.start_code_login("eve@example.com")["Location"] == "/login/code/"
