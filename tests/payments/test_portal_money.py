"""The portal's money pages against a live server, through Django's test client with CSRF enforced:
home (balances after a sandbox fund, history partial), send to a new bank account, the quote
confirmation page, execute stamped with the kept session key, the live status page, failures in
plain words, an expired quote's re-quote, and one user never seeing another's records."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from payments import clock
from tests.wallets.portal_support import signed_up
from wallets.portal.models import PortalSessionKey

pytestmark = pytest.mark.django_db(transaction=True)

ROUTING = "021000021"  # a valid ABA routing number


def funded(email: str):
    browser = signed_up(email)
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


def quote_page(browser, data: dict) -> str:
    response = browser.post("/send/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert re.fullmatch(r"/quotes/Quote:[0-9a-f-]+/", response["Location"]), response["Location"]
    return response["Location"]


def confirm(browser, url: str) -> str:
    response = browser.post(url)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert response["Location"].startswith("/transactions/Transaction:")
    return response["Location"]


def test_home_shows_balances_after_a_sandbox_fund_and_the_history_partial(portal_platform):
    browser = funded("home@example.com")
    home = browser.get("/home/")
    body = home.content.decode()
    assert home.status_code == 200
    assert "100.000000 USDC" in body
    assert "Added 100 USDC of test funds." in body
    assert re.search(r"data-uma>\$[^<]+@", body)  # how to receive: the UMA address
    assert 'id="history"' in body and "Add test funds" in body
    partial = browser.get("/home/?part=history", headers={"HX-Request": "true"})
    assert partial.status_code == 200 and "HX-Request" in partial["Vary"]
    text = partial.content.decode()
    assert text.lstrip().startswith('<div id="history"') and "<html" not in text


def test_send_to_a_new_usd_bank_account_confirm_and_complete(portal_platform):
    browser = funded("send@example.com")
    url = quote_page(browser, bank_send())
    page = browser.get(url).content.decode()
    assert re.search(r"data-sending>10\.000000 USDC<", page)
    assert re.search(r"data-receiving>[\d.,]+ USD<", page)
    assert "data-rate>" in page and "USDC per USD" in page
    assert re.search(r"data-fees>0\.\d{6} USDC<", page) and "data-platform-fee>" in page
    assert "data-countdown" in page and "Confirm and send" in page

    panel = browser.get(url, headers={"HX-Request": "true"}).content.decode()
    assert panel.lstrip().startswith('<section id="quote-panel"') and "<html" not in panel

    status_url = confirm(browser, url)
    status = browser.get(status_url, headers={"HX-Request": "true"})
    assert status.status_code == 200 and "HX-Request" in status["Vary"]
    assert 'data-status="COMPLETED"' in status.content.decode()
    assert "hx-trigger" not in status.content.decode()  # terminal: polling stops
    # The account is now saved and offered on the next send; history shows the payment.
    assert "USD ·· 6789 John Doe" in browser.get("/send/").content.decode()
    assert status_url.split("/")[2] in browser.get("/home/").content.decode()


def test_confirm_through_htmx_redirects_the_whole_page(portal_platform):
    browser = funded("htmx@example.com")
    url = quote_page(browser, bank_send())
    response = browser.post(url, htmx=True)
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/transactions/")


def test_a_failing_destination_shows_the_failure_in_plain_words(portal_platform):
    browser = funded("fail@example.com")
    status_url = confirm(browser, quote_page(browser, bank_send("123456002")))
    clock.advance(dt.timedelta(minutes=10))
    body = browser.get(status_url).content.decode()
    assert 'data-status="FAILED"' in body, body
    assert "could not be carried out" in body and "returned to it" in body


def test_an_expired_quote_offers_a_new_one(portal_platform):
    browser = funded("expired@example.com")
    url = quote_page(browser, bank_send(locked_side="RECEIVING", amount="5"))
    clock.advance(dt.timedelta(minutes=30))
    page = browser.get(url).content.decode()
    assert "This quote has expired" in page and "Confirm and send" not in page
    assert 'name="locked_side" value="RECEIVING"' in page
    # Confirming the lapsed quote does not execute it.
    assert browser.post(url).status_code == 200
    clock.reset()
    response = browser.post(url + "requote/", {"locked_side": "RECEIVING"})
    assert response.status_code == 302 and response["Location"] != url
    fresh = browser.get(response["Location"]).content.decode()
    assert "Confirm and send" in fresh and re.search(r"data-receiving>5\.00 USD<", fresh)


def test_bank_fields_are_checked_as_you_type_and_by_the_service(portal_platform):
    browser = funded("fields@example.com")
    partial = browser.post("/send/validate/", {"bank_type": "USD_ACCOUNT", "account_number": "12"}, htmx=True)
    text = partial.content.decode()
    assert 'id="id_account_number-errors" hx-swap-oob="true"' in text and "<input" not in text
    assert "Enter 4 to 17 digits." in text
    assert "This field is required" not in text  # empty fields are not nagged about while typing
    # A routing number of the right shape with a wrong checksum: only the service knows.
    response = browser.post("/send/", bank_send(routing_number="123456789"), htmx=True)
    body = response.content.decode()
    assert response.status_code == 200 and body.lstrip().startswith('<form id="send-form"')
    assert re.search(r'id="id_routing_number-error">[^<]+<', body), body


def test_an_expired_session_key_sends_the_user_to_sign_in_and_back(portal_platform):
    browser = funded("reauth@example.com")
    url = quote_page(browser, bank_send())
    PortalSessionKey.objects.all().delete()
    response = browser.post(url)
    assert response.status_code == 302
    assert (
        response["Location"].startswith("/login/?next=%2Fquotes%2FQuote")
        and "reauth=1" in response["Location"]
    )


def test_another_user_cannot_see_my_quote_or_transaction(portal_platform):
    mine = funded("mine@example.com")
    url = quote_page(mine, bank_send())
    status_url = confirm(mine, url)
    other = signed_up("other@example.com")
    assert other.get(url).status_code == 404
    assert other.post(url).status_code == 404
    assert other.post(url + "requote/", {"locked_side": "SENDING"}).status_code == 404
    assert other.get(status_url).status_code == 404
    assert status_url.split("/")[2] not in other.get("/home/").content.decode()


def test_money_pages_need_a_sign_in(portal_platform):
    from tests.wallets.portal_support import PortalBrowser

    response = PortalBrowser().get("/send/")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=%2Fsend%2F")
