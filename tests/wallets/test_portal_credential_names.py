"""Renaming a passkey on the security page: inline with htmx, or a plain form without JavaScript.
The name is the portal's own (the service cannot rename a credential), scoped to the signed-in
person, length-limited, escaped, and CSRF-protected. Test client against a live service."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from tests.wallets.portal_support import signed_up
from tests.wallets.soft_authenticator import SoftAuthenticator
from tests.wallets.test_portal_security import add_passkey
from wallets.models import AuthCredential
from wallets.portal.models import PortalCredentialLabel

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def device(portal_platform) -> SoftAuthenticator:
    return SoftAuthenticator("localhost", portal_platform.site)


def with_passkey(email: str, device: SoftAuthenticator, nickname: str = "Laptop"):
    browser = signed_up(email)
    add_passkey(browser, device, nickname=nickname)
    passkey = AuthCredential.objects.get(type="PASSKEY", account__customer__email=email)
    return browser, passkey.public_id


def names(browser) -> list[str]:
    """The names the security page shows for the passkeys."""
    page = browser.get("/security/").content.decode()
    found = re.findall(r"<strong>Passkey</strong>.*?data-credential-name>([^<]*)<", page, re.S)
    return [html.unescape(name) for name in found]


def test_rename_inline_with_htmx(portal_platform, device):
    browser, passkey_id = with_passkey("ana@example.com", device)
    url = f"/security/credentials/{passkey_id}/name/"
    editing = browser.get(url, headers={"HX-Request": "true"})
    text = editing.content.decode()
    assert editing.status_code == 200 and text.lstrip().startswith("<form") and "<html" not in text
    assert 'name="label" value="Laptop"' in text and "csrfmiddlewaretoken" in text

    saved = browser.post(url, {"label": "  Ana's   work laptop  "}, htmx=True)
    assert saved.status_code == 200 and "HX-Request" in saved["Vary"]
    assert re.search(r"data-credential-name>Ana&#x27;s work laptop ", saved.content.decode())
    assert names(browser) == ["Ana's work laptop"]
    # The service still knows it by the name it was added with.
    assert AuthCredential.objects.get(type="PASSKEY").nickname == "Laptop"

    cancelled = browser.get(url + "?cancel=1", headers={"HX-Request": "true"}).content.decode()
    assert "<form" not in cancelled and "Ana&#x27;s work laptop" in cancelled

    # Empty goes back to the name it was added with.
    browser.post(url, {"label": ""}, htmx=True)
    assert names(browser) == ["Laptop"] and not PortalCredentialLabel.objects.exists()


def test_rename_without_javascript(portal_platform, device):
    browser, passkey_id = with_passkey("bo@example.com", device)
    url = f"/security/credentials/{passkey_id}/name/"
    page = browser.get(url).content.decode()
    assert "<h1>Security</h1>" in page and f'action="{url}"' in page
    response = browser.post(url, {"label": "Phone"})
    assert response.status_code == 302 and response["Location"] == "/security/"
    follow = html.unescape(browser.get("/security/").content.decode())
    assert "Your passkey is now called “Phone”." in follow and names(browser) == ["Phone"]


def test_names_are_escaped_and_limited(portal_platform, device):
    browser, passkey_id = with_passkey("cy@example.com", device)
    url = f"/security/credentials/{passkey_id}/name/"
    browser.post(url, {"label": '<script>alert("x")</script>'}, htmx=True)
    page = browser.get("/security/").content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page

    too_long = browser.post(url, {"label": "x" * 65}, htmx=True).content.decode()
    assert "Ensure this value has at most 64 characters (it has 65)." in html.unescape(too_long)
    assert 'aria-invalid="true"' in too_long
    assert browser.post(url, {"label": "x" * 65}).status_code == 400
    hidden = browser.post(url, {"label": "safe\u202eexe.txt"}, htmx=True).content.decode()
    assert "Use letters, digits, spaces and punctuation only." in hidden
    assert PortalCredentialLabel.objects.get().label == '<script>alert("x")</script>'
    assert browser.post(url, {"label": "🔑 Key 👨\u200d👩\u200d👧"}, htmx=True).status_code == 200
    assert names(browser) == ["🔑 Key 👨\u200d👩\u200d👧"]


def test_nobody_can_rename_someone_elses_passkey(portal_platform, device):
    owner, passkey_id = with_passkey("dot@example.com", device)
    other = signed_up("eve@example.com")
    url = f"/security/credentials/{passkey_id}/name/"
    assert other.post(url, {"label": "Mine now"}, htmx=True).status_code == 404
    assert other.post(url, {"label": "Mine now"}).status_code == 404
    assert other.get(url, headers={"HX-Request": "true"}).status_code == 404
    assert not PortalCredentialLabel.objects.exists()
    assert names(owner) == ["Laptop"]
    # Not a passkey (the email code), not signed in, no CSRF token: refused too.
    email_id = AuthCredential.objects.get(
        type="EMAIL_OTP", account__customer__email="dot@example.com"
    ).public_id
    assert owner.post(f"/security/credentials/{email_id}/name/", {"label": "x"}).status_code == 404
    anonymous = Client(enforce_csrf_checks=True, HTTP_HOST="localhost")
    assert anonymous.get(url)["Location"].startswith("/login/")
    forged = owner.client.post(url, {"label": "x"})  # no csrfmiddlewaretoken
    assert forged.status_code == 403 and not PortalCredentialLabel.objects.exists()


def test_removing_a_passkey_forgets_its_name(portal_platform, device):
    browser, passkey_id = with_passkey("fay@example.com", device)
    browser.post(f"/security/credentials/{passkey_id}/name/", {"label": "Old phone"}, htmx=True)
    assert "Old phone" in browser.get(f"/security/credentials/{passkey_id}/remove/").content.decode()
    browser.login("fay@example.com")  # removal is approved by another method's session
    response = browser.post(f"/security/credentials/{passkey_id}/remove/")
    assert response.status_code == 302, response.content.decode()[:2000]
    assert "Passkey “Old phone” was removed." in html.unescape(browser.get("/security/").content.decode())
    assert not PortalCredentialLabel.objects.exists()
