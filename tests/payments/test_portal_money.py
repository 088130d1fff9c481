"""The portal's money pages against a live server, through Django's test client with CSRF enforced:
home (balances after a sandbox fund, history partial), send to a new bank account, the quote
confirmation page, execute stamped with the kept session key, the live status page, failures in
plain words, an expired quote's re-quote, and one user never seeing another's records."""

from __future__ import annotations

import datetime as dt
import html
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


def validate(browser, **fields) -> str:
    """The as-you-type check's answer (htmx): the bank fields' error slots, swapped out of band."""
    response = browser.post("/send/validate/", {"destination": "bank", **fields}, htmx=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "<input" not in text  # nothing the person is typing is replaced
    return text


def field_error(text: str, field: str) -> str | None:
    found = re.search(rf'id="id_{field}-error">([^<]+)<', text)
    return html.unescape(found.group(1)) if found else None


def test_bank_fields_are_checked_as_you_type_including_check_digits(portal_platform):
    browser = funded("fields@example.com")
    text = validate(browser, bank_type="USD_ACCOUNT", account_number="12")
    assert 'id="id_account_number-errors" hx-swap-oob="true"' in text
    assert field_error(text, "account_number") == "Enter 4 to 17 digits."
    assert "This field is required" not in text  # empty fields are not nagged about while typing
    # Right shape, wrong check digit: caught while typing, with the service's own check.
    text = validate(browser, bank_type="USD_ACCOUNT", routing_number="021000022")
    assert field_error(text, "routing_number") == (
        "Check this routing number for a typo: it has an invalid ABA check digit."
    )
    assert field_error(validate(browser, routing_number=ROUTING), "routing_number") is None
    text = validate(browser, bank_type="EUR_ACCOUNT", iban="de89 3704 0044 0532 0130 01")
    assert field_error(text, "iban") == "Check this IBAN for a typo: it has an invalid IBAN check digit."
    text = validate(browser, bank_type="EUR_ACCOUNT", iban="DE89 3704 0044 0532 0130")
    assert field_error(text, "iban") == (
        "Check this IBAN for a typo: it must be 22 characters for an IBAN from DE."
    )
    assert field_error(validate(browser, iban="DE89 3704 0044 0532 0130 00"), "iban") is None
    text = validate(browser, bank_type="MXN_ACCOUNT", clabe_number="032180000118359718")
    assert (
        field_error(text, "clabe_number")
        == "Check this CLABE for a typo: it has an invalid CLABE check digit."
    )
    # Digits from other scripts are not digits to the service, so not here either.
    assert field_error(validate(browser, routing_number="٠٢١٠٠٠٠٢١"), "routing_number") == "Enter 9 digits."


def test_a_wrong_check_digit_is_shown_on_submit_and_nothing_is_created(portal_platform):
    from payments.models import ExternalAccount

    browser = funded("submit@example.com")
    response = browser.post("/send/", bank_send(routing_number="021000022"), htmx=True)
    body = html.unescape(response.content.decode())
    assert response.status_code == 200 and body.lstrip().startswith('<form id="send-form"')
    assert 'id="id_routing_number-error">Check this routing number for a typo' in body
    assert not ExternalAccount.objects.exists()
    assert browser.post("/send/", bank_send(routing_number="021000022")).status_code == 400


def test_the_service_still_checks_the_account_on_create(portal_platform, monkeypatch):
    """With the portal's own check out of the way, the service refuses the account and its error
    lands on the same field."""
    from payments.client import account_checks

    monkeypatch.setattr(account_checks, "aba_problem", lambda value: None)  # the portal looks it up per call
    browser = funded("service-check@example.com")
    response = browser.post("/send/", bank_send(routing_number="021000022"), htmx=True)
    body = html.unescape(response.content.decode())
    assert field_error(body, "routing_number") == "Has an invalid ABA check digit."


def test_send_to_a_new_mexican_account_by_clabe(portal_platform):
    browser = funded("clabe@example.com")
    data = bank_send(bank_type="MXN_ACCOUNT", clabe_number="032180000118359719", account_number="")
    url = quote_page(browser, {**data, "routing_number": ""})
    page = browser.get(url).content.decode()
    assert re.search(r"data-receiving>[\d.,]+ MXN<", page), page
    assert "MXN ·· 9719 John Doe" in browser.get("/send/").content.decode()


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
