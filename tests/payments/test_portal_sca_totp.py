"""The portal's authenticator app (TOTP) for people in an SCA region, against a live server: the page
shows the app's otpauth URI as an inline SVG QR code and the secret as text, takes the app's first
code and shows the recovery codes once; a lost app is reset through the liveness-gated factor reset."""

from __future__ import annotations

import datetime as dt
import html
import re

import pyotp
import pytest

from payments import clock
from payments.models import ScaTotp
from tests.payments.test_portal_sca import eu_person

pytestmark = pytest.mark.django_db(transaction=True)


def _secret(page: str) -> str:
    match = re.search(r"<code class=\"secret\" data-totp-secret>([A-Z2-7 ]+)</code>", page)
    assert match, page[:3000]
    return match.group(1).replace(" ", "")


def test_enroll_an_authenticator_app_with_a_qr_code_then_reset_it(portal_platform):
    browser = eu_person("totp@example.com")
    security = browser.get("/payment-security/").content.decode()
    assert "data-add-totp" in security

    page = browser.get("/payment-security/authenticator/")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    text = page.content.decode()
    qr = re.search(r"<svg [^>]*role=\"img\"[^>]*>.*?</svg>", text, re.S)
    assert qr and "<path" in qr.group(0)  # segno's QR code, inline
    assert "<script" not in qr.group(0)
    secret = _secret(text)
    uri = html.unescape(re.search(r'href="(otpauth://totp/[^"]+)"', text).group(1))
    assert f"secret={secret}" in uri

    wrong = browser.post("/payment-security/authenticator/", {"code": "12"})
    assert wrong.status_code == 200 and "code-error" in wrong.content.decode()
    done = browser.post("/payment-security/authenticator/", {"code": pyotp.TOTP(secret).at(clock.now())})
    assert done.status_code == 200, done.content.decode()[:3000]
    codes = re.findall(r"<li><code>([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})</code></li>", done.content.decode())
    assert len(codes) == 10 and ScaTotp.objects.count() == 1
    assert ScaTotp.objects.get().recovery_code_digests[0] not in done.content.decode()

    security = browser.get("/payment-security/").content.decode()
    assert 'data-factor="TOTP"' in security and "Authenticator app" in security
    assert "data-add-totp" not in security
    again = browser.get("/payment-security/authenticator/")
    assert again.status_code == 302 and again["Location"] == "/payment-security/"

    started = browser.post("/payment-security/reset/", {"factor": "TOTP"})
    assert started.status_code == 302 and started["Location"] == "/payment-security/reset/"
    waiting = browser.get("/payment-security/reset/").content.decode()
    assert 'data-reset-status="INITIATED"' in waiting and 'hx-trigger="every 3s"' in waiting
    clock.advance(dt.timedelta(seconds=10))
    partial = browser.get("/payment-security/reset/", HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith("<section") and 'data-reset-status="LIVENESS_PASSED"' in partial
    assert "hx-trigger" not in partial  # polling stops
    completed = browser.post("/payment-security/reset/", {"complete": "1"})
    assert completed.status_code == 302 and completed["Location"] == "/payment-security/"
    assert not ScaTotp.objects.exists()
    assert "Your authenticator app was removed" in browser.get("/payment-security/").content.decode()


def test_confirm_its_you_with_the_app_or_a_recovery_code(portal_platform):
    browser = eu_person("app@example.com")
    secret = _secret(browser.get("/payment-security/authenticator/").content.decode())
    enrolled = browser.post("/payment-security/authenticator/", {"code": pyotp.TOTP(secret).at(clock.now())})
    codes = re.findall(r"<code>([A-Z2-9-]{14})</code>", enrolled.content.decode())

    login = browser.get("/payment-security/confirm/?next=/home/").content.decode()
    assert "data-app-login" in login and "Lost the app? A recovery code works once instead." in login
    used = browser.post(
        "/payment-security/confirm/app/", {"code": pyotp.TOTP(secret).at(clock.now()), "next": "/home/"}
    )
    assert used.status_code == 400 and "That code was already used" in used.content.decode()
    bad = browser.post("/payment-security/confirm/app/", {"code": "12-34", "next": "/home/"})
    assert bad.status_code == 400 and "Enter the 6 digits from your app" in bad.content.decode()

    clock.advance(dt.timedelta(seconds=30))
    fresh = browser.post(
        "/payment-security/confirm/app/", {"code": pyotp.TOTP(secret).at(clock.now()), "next": "/home/"}
    )
    assert fresh.status_code == 302 and fresh["Location"] == "/home/"
    recovery = browser.post("/payment-security/confirm/app/", {"code": codes[0].lower(), "next": "/home/"})
    assert recovery.status_code == 302
    again = browser.post("/payment-security/confirm/app/", {"code": codes[0], "next": "/home/"})
    assert again.status_code == 400 and "Check the code your app shows now" in again.content.decode()
