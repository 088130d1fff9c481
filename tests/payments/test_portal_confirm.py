"""Confirm on the quote page when the answer goes wrong: the page asks the service what is true
before it offers anything, and no retried Confirm ever sends twice (the execute carries
`Idempotency-Key`, a UUID derived from the quote id, and the service answers a repeat with its first answer).

The service is reached through an httpx transport that lets the first execute reach the service
and then loses its answer (the connection drops, or a proxy answers 500 instead), as a network or a
crashing front would after the payment went through."""

from __future__ import annotations

import threading
import uuid

import httpx
import pytest
from django.conf import settings

from payments.client import ServiceClient
from payments.models import Customer
from tests.payments.portal_money_support import bank_send, funded, quote_page, visible_text, words
from tests.payments.sca_support import EU_ADDRESS
from tests.wallets.portal_support import PortalBrowser
from wallets.portal.models import PortalAccount

pytestmark = pytest.mark.django_db(transaction=True)


class LosesAnswers(httpx.BaseTransport):
    """Real HTTP to the live server, except for the first `count` executes: `after` sends it and
    loses the answer (`drop`: the connection breaks; `500`: an error page replaces it); `before`
    breaks the connection before the request is sent, so the service never sees it."""

    def __init__(self, mode: str, count: int = 1) -> None:
        self.inner = httpx.HTTPTransport()
        self.mode, self.left, self.executes = mode, count, 0
        self.keys: list[str] = []  # the Idempotency-Key of each execute sent

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        execute = request.method == "POST" and request.url.path.endswith("/execute")
        if execute:
            self.executes += 1
            self.keys.append(request.headers.get("Idempotency-Key", ""))
        if not execute or self.left == 0:
            return self.inner.handle_request(request)
        self.left -= 1
        if self.mode == "before":
            raise httpx.ConnectError("connection refused", request=request)
        response = self.inner.handle_request(request)
        response.read()
        response.close()
        if self.mode == "drop":
            raise httpx.ReadError("connection reset by peer", request=request)
        return httpx.Response(
            500, json={"status": 500, "code": "INTERNAL_ERROR", "message": "Internal error"}
        )


@pytest.fixture
def losing(monkeypatch, portal_platform):
    """Make the money pages' service client lose answers as `losing(mode)` says; returns the transport."""

    def install(mode: str, count: int = 1) -> LosesAnswers:
        transport = LosesAnswers(mode, count)
        client = ServiceClient(
            settings.PORTAL_SERVICE_BASE_URL,
            settings.PORTAL_CLIENT_ID,
            settings.PORTAL_CLIENT_SECRET,
            transport=transport,
            rate_limit_retries=0,
        )
        monkeypatch.setattr("wallets.portal.views.quotes.service_client", lambda: client)
        return transport

    return install


def wallet_balance(email: str) -> int:
    from wallets.portal.service import service_client

    account = PortalAccount.objects.get(email=email)
    wallets = service_client().internal_accounts.list(customer_id=account.customer_id, type="EMBEDDED_WALLET")
    return wallets.data[0].balance.amount


def outgoing_payments(email: str) -> list:
    from wallets.portal.service import service_client

    account = PortalAccount.objects.get(email=email)
    payments = service_client().transactions.list(customer_id=account.customer_id, limit=50).data
    return [t for t in payments if t.status not in ("PENDING", "EXPIRED")]


@pytest.mark.parametrize("mode", ["drop", "500"])
def test_an_answer_lost_after_the_payment_went_through_leads_to_its_status(losing, mode):
    browser = funded(f"lost-{mode}@example.com")
    url = quote_page(browser, bank_send())
    transport = losing(mode)
    response = browser.post(url)
    # Not "Something went wrong" and a Confirm button: the payment went through, so its status.
    assert response.status_code == 302, visible_text(response)[:2000]
    status_url = response["Location"]
    assert status_url.startswith("/transactions/Transaction:")
    assert 'data-status="COMPLETED"' in words(browser.get(status_url))
    # Confirm again (a second tab, the back button): the same payment, never a second one.
    again = browser.post(url)
    assert again.status_code == 302 and again["Location"] == status_url
    assert transport.executes == 1
    assert wallet_balance(f"lost-{mode}@example.com") == 90_000_000  # 100 USDC funded, 10 sent once
    assert len(outgoing_payments(f"lost-{mode}@example.com")) == 1


def test_through_htmx_the_whole_page_goes_to_the_status(losing):
    browser = funded("lost-htmx@example.com")
    url = quote_page(browser, bank_send())
    losing("drop")
    response = browser.post(url, htmx=True)
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/transactions/Transaction:")


def test_a_confirm_that_never_reached_the_service_says_nothing_was_sent_and_can_be_retried(losing):
    browser = funded("unsent@example.com")
    url = quote_page(browser, bank_send())
    transport = losing("before")
    page = browser.post(url)
    text = visible_text(page)
    assert page.status_code == 400
    assert "The wallet service cannot be reached right now" in text and "Nothing was sent." in text
    assert "Confirm and send" in text
    retried = browser.post(url)
    assert retried.status_code == 302 and retried["Location"].startswith("/transactions/")
    assert transport.executes == 2
    quote_id = url.split("/")[2]
    (sent,) = set(transport.keys)  # the retry is the same request to the service
    assert len(transport.keys) == 2 and sent == str(uuid.uuid5(uuid.NAMESPACE_URL, f"portal:{quote_id}"))
    assert wallet_balance("unsent@example.com") == 90_000_000
    assert len(outgoing_payments("unsent@example.com")) == 1


@pytest.mark.postgres
def test_a_confirm_sent_twice_at_once_sends_once(losing):
    """Two Confirms of one quote at the same moment (a double click, two tabs), both losing their
    answer: the service runs one transfer, and both land on its status page."""
    email = "twice@example.com"
    browser = funded(email)
    url = quote_page(browser, bank_send())
    losing("500", count=2)
    second = PortalBrowser()
    for name, morsel in browser.client.cookies.items():
        second.client.cookies[name] = morsel.value
    answers: list = [None, None]
    start = threading.Barrier(2)

    def click(i: int, who: PortalBrowser) -> None:
        start.wait()
        answers[i] = who.post(url)

    threads = [threading.Thread(target=click, args=(i, who)) for i, who in enumerate((browser, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    locations = {answer["Location"] for answer in answers if answer.status_code == 302}
    assert len(locations) == 1 and all(a.status_code == 302 for a in answers), [
        a.status_code for a in answers
    ]
    assert wallet_balance(email) == 90_000_000
    assert len(outgoing_payments(email)) == 1


def test_a_payment_that_needs_an_approval_no_one_can_give_says_what_to_do(portal_platform):
    """An EU customer with neither a phone number nor a payment passkey: the service refuses with a
    message naming ids and an API path; the page says what to do instead."""
    email = "nofactor@example.com"
    browser = funded(email)
    customer_id = PortalAccount.objects.get(email=email).customer_id.split(":", 1)[1]
    Customer.objects.filter(pk=customer_id).update(address=EU_ADDRESS, phone_number="")
    url = quote_page(browser, bank_send())
    page = browser.post(url)
    text = visible_text(page)
    assert page.status_code == 400
    assert "add a payment passkey under Payment security, or a phone number" in text
    assert "Customer:" not in text and "POST /" not in text and "Nothing was sent." in text


def test_an_answer_lost_for_a_payment_that_needs_approval_shows_its_first_step(losing):
    """An EU person's Confirm reached the service, which put the payment on hold for approval, and the
    answer was lost: the page shows the approval step, not an error and Confirm again."""
    from tests.payments.sca_support import PHONE

    email = "lost-eu@example.com"
    browser = funded(email)
    customer_id = PortalAccount.objects.get(email=email).customer_id.split(":", 1)[1]
    Customer.objects.filter(pk=customer_id).update(address=EU_ADDRESS, phone_number=PHONE)
    url = quote_page(browser, bank_send())
    losing("drop")
    page = browser.post(url)
    text = visible_text(page)
    assert page.status_code == 200 and "data-sca-title" in page.content.decode()
    assert "Confirm and send" not in text and "went wrong" not in text
