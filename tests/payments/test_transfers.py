"""POST /transfer-in and /transfer-out without `amount` (optional in the reference)."""

from __future__ import annotations

import pytest

from payments.accounts import account_balance
from payments.models import Quote
from tests.payments.money_support import (
    consenting_customer,
    funded_account,
    holding_account,
    key,
    usd_external,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def customer(api):
    return consenting_customer(api.platform)[0]


def _out(api, source, payee, **extra):
    body = {"source": {"accountId": source.public_id}, "destination": {"accountId": payee.public_id}}
    return api.post("/transfer-out", {**body, **extra.pop("body", {})}, **extra)


def test_transfer_out_without_amount_sends_the_whole_balance(api, customer):
    source = funded_account(customer, 12_345)
    payee = usd_external(api.platform, customer)
    response = _out(api, source, payee, HTTP_IDEMPOTENCY_KEY=key("all-of-it"))
    assert response.status_code == 201, response.content
    txn = response.json()
    assert txn["sentAmount"]["amount"] == 12_345
    assert txn["receivedAmount"]["amount"] + txn["fees"] == 12_345  # the fees come out of it
    assert account_balance(source) == 0
    assert api.get(f"/transactions/{txn['id']}").json()["status"] == "COMPLETED"
    # The same key again: the first outcome, although the account is empty now.
    again = _out(api, source, payee, HTTP_IDEMPOTENCY_KEY=key("all-of-it"))
    assert (again.status_code, again.json()["id"]) == (201, txn["id"])
    assert Quote.objects.count() == 1


def test_transfer_out_without_amount_from_an_empty_account_is_refused(api, customer):
    source = holding_account(customer, "USD")
    payee = usd_external(api.platform, customer)
    response = _out(api, source, payee)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INSUFFICIENT_FUNDS"
    assert "no balance" in body["message"] and body["details"]["available"] == 0
    assert not Quote.objects.exists()


def test_transfer_out_without_amount_checks_the_source(api, other_api, customer):
    theirs = funded_account(consenting_customer(other_api.platform)[0], 1_000)
    payee = usd_external(api.platform, customer)
    response = _out(api, theirs, payee)
    assert response.status_code == 400
    assert response.json()["details"]["errors"][0]["field"] == "source.accountId"


def test_an_explicit_amount_still_wins(api, customer):
    source = funded_account(customer, 50_000)
    payee = usd_external(api.platform, customer)
    response = _out(api, source, payee, body={"amount": 1_000})
    assert response.json()["sentAmount"]["amount"] == 1_000
    assert account_balance(source) == 49_000


def test_transfer_in_needs_an_amount_and_says_why(api, customer):
    external = usd_external(api.platform, customer)
    destination = holding_account(customer, "USD")
    response = api.post(
        "/transfer-in",
        {"source": {"accountId": external.public_id}, "destination": {"accountId": destination.public_id}},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_INPUT"
    error = body["details"]["errors"][0]
    assert error["field"] == "amount" and error["constraint"] == {"required": True}
    assert "external account" in error["message"] and "balance" in error["message"]
    assert not Quote.objects.exists()
