"""Driving the portal's money pages through Django's test client (CSRF enforced) against a live
server: a funded person, the send form's data, a quote page, Confirm, and the page's text as read."""

from __future__ import annotations

import html
import re

from tests.wallets.portal_support import PortalBrowser, signed_up

ROUTING = "021000021"  # a valid ABA routing number
IBAN = "DE89370400440532013000"  # a valid German IBAN


def funded(email: str, full_name: str = "Jane Doe") -> PortalBrowser:
    browser = signed_up(email, full_name)
    response = browser.post("/home/fund/")
    assert response.status_code == 302 and response["Location"] == "/home/", response
    return browser


def bank_send(account_number: str = "123456789", **overrides) -> dict:
    return {
        "destination": "bank",
        "bank_type": "USD_ACCOUNT",
        "account_number": account_number,
        "routing_number": ROUTING,
        "beneficiary_name": "John Doe",
        "locked_side": "SENDING",
        "amount": "10",
        **overrides,
    }


def eur_send(iban: str = IBAN, **overrides) -> dict:
    return {
        "destination": "bank",
        "bank_type": "EUR_ACCOUNT",
        "iban": iban,
        "beneficiary_name": "Hans Muster",
        "beneficiary_country": "DE",
        "locked_side": "SENDING",
        "amount": "20",
        **overrides,
    }


def quote_page(browser: PortalBrowser, data: dict) -> str:
    response = browser.post("/send/", data)
    assert response.status_code == 302, words(response)[:3000]
    assert re.fullmatch(r"/quotes/Quote:[0-9a-f-]+/", response["Location"]), response["Location"]
    return response["Location"]


def confirm(browser: PortalBrowser, url: str) -> str:
    response = browser.post(url)
    assert response.status_code == 302, words(response)[:3000]
    assert response["Location"].startswith("/transactions/Transaction:")
    return response["Location"]


def words(response_or_text) -> str:
    """The page as text is compared: entities decoded, no-break spaces as spaces."""
    text = response_or_text if isinstance(response_or_text, str) else response_or_text.content.decode()
    return html.unescape(text).replace("\xa0", " ")


def visible_text(response) -> str:
    """Roughly what a person reads: the body's text without tags, whitespace collapsed."""
    body = words(response)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r"<[^>]+>", " ", body)
    return re.sub(r"\s+", " ", body)
