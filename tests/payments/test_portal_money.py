"""The portal's money pages against a live server, through Django's test client with CSRF enforced:
home (balances after a sandbox fund, the activity partial), the quote confirmation page (payee,
amounts per currency, the rate as people read it, fees item by item, the countdown), execute
stamped with the kept session key, the live status page and the receipt, failures in plain words,
an expired quote's re-quote, and one user never seeing another's records."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from payments import clock
from tests.payments.portal_money_support import (
    bank_send,
    confirm,
    eur_send,
    funded,
    quote_page,
    visible_text,
    words,
)
from tests.wallets.portal_support import PortalBrowser, signed_up
from wallets.portal.models import PortalSessionKey

pytestmark = pytest.mark.django_db(transaction=True)


def test_home_shows_balances_after_a_sandbox_fund_and_the_activity_partial(portal_platform):
    browser = funded("home@example.com")
    home = browser.get("/home/")
    body = words(home)
    assert home.status_code == 200
    assert 'data-balance="USDC">100.00 USDC<' in body  # not 100.000000
    assert "Added 100 USDC of test funds." in body
    assert re.search(r"data-uma>\$[^<]+@", body)  # how to receive: the UMA address
    assert 'id="history"' in body and "Add test funds" in body and "No activity yet." in body
    partial = browser.get("/home/?part=history", headers={"HX-Request": "true"})
    assert partial.status_code == 200 and "HX-Request" in partial["Vary"]
    text = partial.content.decode()
    assert text.lstrip().startswith('<div id="history"') and "<html" not in text


def test_the_confirm_page_says_who_gets_what_at_which_rate_and_fees(portal_platform):
    browser = funded("confirm@example.com")
    url = quote_page(browser, eur_send())
    page = words(browser.get(url))
    # Who: the holder's name and only the end of the account.
    assert re.search(
        r"data-payee><strong[^>]*>Hans Muster</strong><br><span[^>]*>Euro bank account \(IBAN\) ··3000<", page
    )
    assert "0532013000" not in page
    # Amounts with their currency's own decimals, trimmed where it allows: no 20.000000 USDC.
    assert re.search(r"data-sending>20\.00 USDC<", page)
    assert re.search(r"data-receiving>18\.\d\d EUR<", page)
    # The rate per unit sent; fees item by item, adding up to the total shown.
    assert re.search(r"data-rate>1 USDC = 0\.9259 EUR<", page)
    fees = re.search(r"data-fees>([\d.]+) USDC", page)
    items = re.findall(r"<li><span>([^<]+)</span> <span class=\"amount\">([\d.]+) USDC</span></li>", page)
    labels = [label for label, _ in items]
    assert labels == ["Transfer fee", "Fee on the amount (0.3%)", "Receiving side's fee"], items
    assert sum(float(amount) for _, amount in items) == pytest.approx(float(fees.group(1)))
    # The countdown as m:ss, rendered by the server; a timer that is not a live region.
    timer = re.search(
        r'<strong class="countdown" role="timer" data-countdown="(\d+)">(\d+):(\d\d)</strong>', page
    )
    assert timer and int(timer.group(2)) * 60 + int(timer.group(3)) == int(timer.group(1))
    assert "aria-live" not in page.split('id="quote-panel"')[1]
    assert "Confirm and send" in page and "Change details" in page
    assert "after you confirm, approve" not in page.lower()  # a US person: no approval steps

    panel = browser.get(url, headers={"HX-Request": "true"}).content.decode()
    assert panel.lstrip().startswith('<section id="quote-panel"') and "<html" not in panel


def test_send_confirm_complete_then_status_receipt_and_activity(portal_platform):
    browser = funded("send@example.com")
    url = quote_page(browser, bank_send())
    status_url = confirm(browser, url)
    status = browser.get(status_url, headers={"HX-Request": "true"})
    text = words(status)
    assert status.status_code == 200 and "HX-Request" in status["Vary"]
    assert 'data-status="COMPLETED">Delivered<' in text
    assert "hx-trigger" not in text  # terminal: polling stops
    assert "John Doe" in text and "US bank account ··6789" in text
    assert re.search(r"data-reference>SBX[0-9A-F]+<", text)
    receipt_url = status_url + "receipt/"
    assert f'href="{receipt_url}" data-receipt' in text
    # The quote page of a payment that was sent goes to its status: nothing to confirm twice.
    again = browser.get(url)
    assert again.status_code == 302 and again["Location"] == status_url

    receipt = browser.get(receipt_url)
    read = visible_text(receipt)
    assert receipt.status_code == 200
    for expected in (
        "Payment receipt",
        "Delivered",
        "John Doe",
        "US bank account ··6789",
        "You sent 10.00 USDC",
        "They got",
        "Transfer fee",
        "Started",
        "Delivered",
        "Reference SBX",
    ):
        assert expected in read, (expected, read)
    assert "data-print hidden" in receipt.content.decode()  # shown by print.js, when it runs

    # The account is now saved and offered on the next send; the activity shows the payment.
    assert "John Doe · US bank account ··6789" in words(browser.get("/send/"))
    home = words(browser.get("/home/"))
    row = re.search(rf'<li data-transaction="{status_url.split("/")[2]}">(.*?)</li>', home, re.S).group(1)
    assert "To John Doe" in row and "10.00 USDC" in row and ">Delivered<" in row


def test_a_failing_destination_shows_the_failure_in_plain_words(portal_platform):
    browser = funded("fail@example.com")
    status_url = confirm(browser, quote_page(browser, bank_send("123456002")))
    clock.advance(dt.timedelta(minutes=10))
    body = words(browser.get(status_url))
    assert 'data-status="FAILED">Failed<' in body, body
    assert "could not be carried out" in body and "returned to it" in body


@pytest.mark.parametrize(
    ("ending", "wait", "status", "words_shown"),
    [
        ("004", dt.timedelta(minutes=10), "FAILED", "cannot accept this payment"),
        ("005", dt.timedelta(minutes=10), "FAILED", "receiving bank sent the payment back"),
    ],
)
def test_each_failure_reason_reads_as_its_own_sentence(portal_platform, ending, wait, status, words_shown):
    browser = funded(f"reason-{ending}@example.com")
    status_url = confirm(browser, quote_page(browser, bank_send(f"123456{ending}")))
    clock.advance(wait)
    body = words(browser.get(status_url))
    assert f'data-status="{status}"' in body and words_shown in body, body
    assert words_shown in words(browser.get(status_url + "receipt/"))
    assert words_shown in words(browser.get("/home/"))


def test_an_expired_quote_offers_a_new_one(portal_platform):
    browser = funded("expired@example.com")
    url = quote_page(browser, bank_send(locked_side="RECEIVING", amount="5"))
    clock.advance(dt.timedelta(minutes=30))
    page = words(browser.get(url))
    assert "This quote has expired" in page and "Nothing was sent" in page and "Confirm and send" not in page
    assert 'name="locked_side" value="RECEIVING"' in page
    # Confirming the lapsed quote does not execute it.
    assert browser.post(url).status_code == 200
    clock.reset()
    response = browser.post(url + "requote/", {"locked_side": "RECEIVING"})
    assert response.status_code == 302 and response["Location"] != url
    fresh = words(browser.get(response["Location"]))
    assert "Confirm and send" in fresh and re.search(r"data-receiving>5\.00 USD<", fresh)


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


def test_another_user_cannot_see_my_quote_transaction_or_receipt(portal_platform):
    mine = funded("mine@example.com")
    url = quote_page(mine, bank_send())
    status_url = confirm(mine, url)
    other = signed_up("other@example.com")
    assert other.get(url).status_code == 404
    assert other.post(url).status_code == 404
    assert other.post(url + "requote/", {"locked_side": "SENDING"}).status_code == 404
    assert other.get(status_url).status_code == 404
    assert other.get(status_url + "receipt/").status_code == 404
    assert status_url.split("/")[2] not in other.get("/home/").content.decode()


@pytest.mark.parametrize("path", ["/send/", "/home/", "/transactions/Transaction:x/receipt/"])
def test_money_pages_need_a_sign_in(portal_platform, path):
    response = PortalBrowser().get(path)
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=")
