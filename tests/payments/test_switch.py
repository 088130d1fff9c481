"""500 SERVICE_SWITCH_ERROR: a payment rail that fails unexpectedly fails the request, and the change
it was part of is rolled back whole."""

from __future__ import annotations

import pytest

from payments.accounts import account_balance
from payments.errors import FailedDependency
from payments.models import IdempotencyKey, WebhookEvent
from payments.rails.sandbox import SandboxRail
from tests.payments.money_support import consenting_customer, funded_account, key, quote_body, usd_external

pytestmark = pytest.mark.django_db


class BrokenRail(SandboxRail):
    """The sandbox rail, but its payouts crash and its UMA lookups cannot reach the counterparty."""

    def payout(self, payout):
        raise ConnectionResetError("the bank's API went away")

    def uma_receiver(self, address):
        raise FailedDependency("The counterparty cannot be reached")


@pytest.fixture
def broken(settings):
    settings.PAYMENT_RAIL_ADAPTER = "tests.payments.test_switch.BrokenRail"


def test_a_crashing_rail_is_a_switch_error_and_nothing_moves(api, broken):
    customer, _ = consenting_customer(api.platform)
    source = funded_account(customer, 50_000)
    payee = usd_external(api.platform, customer)
    quote = api.post("/quotes", quote_body(source.public_id, payee.public_id, 10_000)).json()
    before = WebhookEvent.objects.count()

    response = api.post(f"/quotes/{quote['id']}/execute", HTTP_IDEMPOTENCY_KEY=key("switch"))
    assert response.status_code == 500
    body = response.json()
    assert (body["status"], body["code"]) == (500, "SERVICE_SWITCH_ERROR")
    assert body["message"]
    assert account_balance(source) == 50_000  # the debit rolled back with the rest
    assert api.get(f"/quotes/{quote['id']}").json()["status"] == "PENDING"
    assert WebhookEvent.objects.count() == before
    assert not IdempotencyKey.objects.exists()  # a 5xx keeps no answer: the key may be sent again


def test_a_rails_own_service_error_passes_as_it_is(api, broken):
    response = api.get("/receiver/uma/$success.usd@sandbox.uma.example")
    assert (response.status_code, response.json()["code"]) == (424, "LNURLP_REQUEST_FAILED")
