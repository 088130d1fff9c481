"""Trusting a recipient in the portal against a live server, through Django's test client with CSRF
enforced: a person living in the EU ticks "Trust this recipient" on the send page, confirms it with
the code sent by text message, and their payments to that recipient then need no approval step."""

from __future__ import annotations

import re

import pytest

from tests.payments.portal_money_support import confirm, eur_send, funded, visible_text, words
from tests.payments.sca_support import SANDBOX_SCA_CODE
from tests.payments.test_portal_sca import eu_person

pytestmark = pytest.mark.django_db(transaction=True)

TRUST_LABEL = "Trust this recipient"
QUOTE = re.compile(r"/quotes/Quote:[0-9a-f-]+/")


def test_a_trusted_recipient_is_paid_without_an_approval_step(portal_platform):
    browser = eu_person("trust@example.com")
    assert TRUST_LABEL in visible_text(browser.get("/send/?to=bank"))
    started = browser.post("/send/", eur_send(trust="on"))
    assert started.status_code == 302 and started["Location"] == "/send/trust/", words(started)[:2000]
    shown = words(browser.get("/send/trust/"))
    page = visible_text(shown)
    assert "Trust Hans Muster" in page and "We sent a 6-digit code by text message" in page
    assert re.search(r'<input [^>]*name="code"', shown), "no field to type the code in"

    wrong = browser.post("/send/trust/", {"code": "000000"})
    assert wrong.status_code == 200 and "That code isn’t right" in words(wrong)
    done = browser.post("/send/trust/", {"code": SANDBOX_SCA_CODE})
    assert done.status_code == 302 and QUOTE.fullmatch(done["Location"]), words(done)[:2000]
    quote = visible_text(browser.get(done["Location"]))
    assert "You now trust Hans Muster" in quote
    assert "with a code we text to your phone" not in quote  # no approval ahead
    assert "data-status" in words(browser.get(confirm(browser, done["Location"])))  # sent, no step

    # the saved recipient again, not ticked: still trusted, still no approval step
    saved = re.search(r'value="(ExternalAccount:[0-9a-f-]+)"', words(browser.get("/send/"))).group(1)
    again = browser.post("/send/", {"destination": saved, "locked_side": "SENDING", "amount": "5"})
    assert QUOTE.fullmatch(again["Location"])
    assert confirm(browser, again["Location"]).startswith("/transactions/")


def test_an_expired_trust_code_asks_for_a_new_one_and_skipping_goes_to_the_payment(portal_platform, settings):
    settings.PORTAL_OTP_RESEND_SECONDS = 0
    browser = eu_person("trust-later@example.com")
    started = browser.post("/send/", eur_send(trust="on"))
    assert started["Location"] == "/send/trust/"
    session = browser.client.session
    first = session["portal_trust"]["challenge_id"]
    session["portal_sca"]["resend_at"] = {}
    session.save()
    resent = browser.post("/send/trust/resend/", htmx=True)
    assert "We sent a new code." in words(resent)
    assert browser.client.session["portal_trust"]["challenge_id"] != first
    page = words(browser.get("/send/trust/"))
    skip = re.search(r'href="(/quotes/Quote:[0-9a-f-]+/)">Not now', page).group(1)
    # not trusted: the payment will ask for its approval step
    assert "with a code we text to your phone" in visible_text(browser.get(skip))


def test_people_outside_the_eea_are_not_offered_trust(portal_platform):
    browser = funded("nontrust@example.com")
    assert TRUST_LABEL not in visible_text(browser.get("/send/?to=bank"))
    sent = browser.post("/send/", eur_send(trust="on"))  # a forged tick changes nothing
    assert QUOTE.fullmatch(sent["Location"])
